//! How a run ends: the outcome of a command, the usage error, the exit codes (0 done, 1 could
//! not do the job, 2 usage) and a closed stdout, which is not an error.

use std::fmt;
use std::io::Write;

use crate::diag;
use crate::style::Theme;

/// How a command ended when it did not fail outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Done,
    /// Exit 1: the command did what it could but part of the job failed (e.g. unreadable files).
    Partial,
    /// Exit 2 where exit 1 is an answer (`grep`: nothing matched): the command ran, but
    /// something failed on the way (an unreadable file), so its answer may be short.
    Trouble,
    /// Exit 130 (128 + SIGINT, as shells report it): stopped by Ctrl-C after reporting what
    /// it had done.
    Interrupted,
}

/// A usage error found after parsing (exit 2).
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// An error of a command whose exit 1 is an answer (`grep`: nothing matched), so that its
/// failures (no such session, an unreadable folder) exit 2, as ripgrep's do.
#[derive(Debug)]
pub struct Unanswered(pub String);

impl fmt::Display for Unanswered {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unanswered {}

/// Maps a run's result to the exit code, printing the error line (`pisess: error: ...`).
/// A closed stdout (`pisess ls | head -1`) is not an error.
pub fn finish(result: &anyhow::Result<Outcome>, err: &mut dyn Write) -> u8 {
    match result {
        Ok(Outcome::Done) => 0,
        Ok(Outcome::Partial) => 1,
        Ok(Outcome::Trouble) => 2,
        Ok(Outcome::Interrupted) => 130,
        Err(e) if is_broken_pipe(e) => 0,
        Err(e) => {
            // The error line is never coloured: it may be all a script reads.
            diag::error(err, Theme { enabled: false }, &format!("{e:#}"));
            let blank = matches!(
                e.downcast_ref::<crate::select::SelectError>(),
                Some(crate::select::SelectError::Blank)
            );
            if e.is::<UsageError>() || e.is::<Unanswered>() || blank {
                2
            } else {
                1
            }
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            // `serde_json::to_writer` wraps the write's error, and its `source()` skips it.
            .or_else(|| c.downcast_ref::<serde_json::Error>()?.io_error_kind())
            == Some(std::io::ErrorKind::BrokenPipe)
    })
}
