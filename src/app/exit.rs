//! How a run ends: the outcome of a command, the exit codes (0 done, 1 could
//! not do the job, 2 usage) and a closed stdout, which is not an error.

use std::io::Write;

use crate::app::diag;
use crate::views::style::Theme;
use pisess_store::util::usage::UsageError;

/// How a command ended when it did not fail outright, each named by what happened; its exit
/// code is [`Outcome::code`], the one place that says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0: the job is done (`grep`: something matched; `check`: every assertion held).
    Done,
    /// Exit 1: `grep` found nothing.
    NoMatch,
    /// Exit 1: `check`: an assertion failed.
    AssertionFailed,
    /// Exit 1: the command did what it could but part of the job failed (a file it could not
    /// read, a session it could not remove), each already reported on stderr.
    PartlyFailed,
    /// Exit 2 from a command whose exit 1 is an answer (`grep`, `check`): it ran, but
    /// something failed on the way (an unreadable file, a session or an assertion it could not
    /// check), so its answer may be short, which a "no" must not hide.
    Unsure,
    /// Exit 130 (128 + SIGINT, as shells report it): stopped by Ctrl-C after reporting what
    /// it had done.
    Interrupted,
}

impl Outcome {
    pub fn code(self) -> u8 {
        match self {
            Outcome::Done => 0,
            Outcome::NoMatch | Outcome::AssertionFailed | Outcome::PartlyFailed => 1,
            Outcome::Unsure => 2,
            Outcome::Interrupted => 130,
        }
    }

    /// [`Outcome::PartlyFailed`] if `failed`, else [`Outcome::Done`].
    pub fn partly_failed_if(failed: bool) -> Outcome {
        if failed {
            Outcome::PartlyFailed
        } else {
            Outcome::Done
        }
    }
}

/// An error after which a command whose exit 1 is an answer (`grep`: nothing matched, `check`:
/// an assertion failed) could not answer at all (no such session, an unreadable folder, a
/// report it could not write): exit 2, as ripgrep's failures are.
#[derive(Debug, thiserror::Error)]
#[error("{0:#}")]
pub struct Unanswered(pub anyhow::Error);

/// Maps a run's result to the exit code, printing the error line (`pisess: error: ...`).
/// A closed stdout (`pisess ls | head -1`) is not an error.
pub fn finish(result: &anyhow::Result<Outcome>, err: &mut dyn Write) -> u8 {
    match result {
        Ok(outcome) => outcome.code(),
        Err(e) if is_broken_pipe(e) => 0,
        Err(e) => {
            // The error line is never coloured: it may be all a script reads.
            diag::error(err, Theme { enabled: false }, &format!("{e:#}"));
            // Each error that decides its code is of a type that says it (a blank SESSION is
            // a usage error: `SelectError::into_run_error`).
            if e.is::<UsageError>() || e.is::<Unanswered>() {
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
