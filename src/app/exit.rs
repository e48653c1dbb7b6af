//! How a run ends: the outcome of a command, the exit codes (0 done, 1 could
//! not do the job, 2 usage) and a closed stdout, which is not an error.

use std::fmt;
use std::io::Write;

use crate::app::diag;
use crate::views::style::Theme;
use pisess_store::util::usage::UsageError;

/// How a command ended when it did not fail outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Done,
    /// Exit 1: the command did what it could but part of the job failed (e.g. unreadable files).
    Partial,
    /// Exit 2 without an error of its own: `check` reported a session it could not check
    /// (each such session already has its error line), which a failed assertion must not hide.
    NotChecked,
    /// Exit 2 where exit 1 is an answer (`grep`: nothing matched): the command ran, but
    /// something failed on the way (an unreadable file), so its answer may be short.
    Trouble,
    /// Exit 130 (128 + SIGINT, as shells report it): stopped by Ctrl-C after reporting what
    /// it had done.
    Interrupted,
}

/// An error after which `check` could not check at all (no such session, no session in the
/// window): exit 2, as `check` keeps 1 for a failed assertion.
#[derive(Debug)]
pub struct NotChecked(pub anyhow::Error);

impl fmt::Display for NotChecked {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for NotChecked {}
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
        Ok(Outcome::NotChecked) => 2,
        Ok(Outcome::Trouble) => 2,
        Ok(Outcome::Interrupted) => 130,
        Err(e) if is_broken_pipe(e) => 0,
        Err(e) => {
            // The error line is never coloured: it may be all a script reads.
            diag::error(err, Theme { enabled: false }, &format!("{e:#}"));
            // Each error that decides its code is of a type that says it (a blank SESSION is
            // a usage error: `SelectError::into_run_error`).
            if e.is::<UsageError>() || e.is::<NotChecked>() || e.is::<Unanswered>() {
                2
            } else {
                1
            }
        }
    }
}

/// Standard output, whose write errors say that they are about it ("No space left on device"
/// alone does not say where); the kind is kept, so a closed pipe is still known as one.
pub struct Stdout<W>(pub W);

impl<W: Write> Write for Stdout<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf).map_err(on_stdout)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(on_stdout)
    }
}

fn on_stdout(e: std::io::Error) -> std::io::Error {
    if e.kind() == std::io::ErrorKind::Interrupted {
        return e;
    }
    let cause = pisess_format::util::warning::io_cause(&e);
    std::io::Error::new(
        e.kind(),
        format!("cannot write to standard output: {cause}"),
    )
}

pub(crate) fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            // `serde_json::to_writer` wraps the write's error, and its `source()` skips it.
            .or_else(|| c.downcast_ref::<serde_json::Error>()?.io_error_kind())
            == Some(std::io::ErrorKind::BrokenPipe)
    })
}
