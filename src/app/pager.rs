//! The pager for long human output (`show`, `tree`, `context`, `stats`) on a terminal.
//!
//! [`Pager`] is a writer over the output stream `run` is handed: it holds the output back until
//! it is taller than the terminal, and only then starts the pager and hands it what it holds and
//! the rest. Output that fits is written to the stream as if there were no pager, so a short
//! `tree` never flashes `less`, whatever pager is configured (`less -F` does that alone; `more`
//! or a custom pager would not). The decision to page at all is the Env's
//! ([`Env::pager`](crate::app::env::Env)): a terminal, no `--no-pager`, a pager configured.
//!
//! A pager that quits early (`q` in `less`) closes its input: the next write fails as a closed
//! pipe does, which stops the command and is not an error (exit 0), as with `pisess ls | head`.
//! A pager that cannot start leaves the output to the stream, with one warning; one that fails
//! (a non-zero exit) is an error ([`Pager::finish`]).

use std::io::{self, BufWriter, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

/// The pager used when neither `$PISESS_PAGER` nor `$PAGER` is set: `-F` quits when the text
/// fits, `-R` keeps colours, `-X` leaves the text on the screen after quitting.
pub const DEFAULT: &str = "less -FRX";

/// The pager command to run, from `$PISESS_PAGER`, else `$PAGER`, else [`DEFAULT`]; `None` when
/// the chosen one is empty or `cat` (git's rule: a way to say "no pager" in the environment).
pub fn command(pisess_pager: Option<&str>, pager: Option<&str>) -> Option<String> {
    let chosen = pisess_pager.or(pager).unwrap_or(DEFAULT).trim();
    (!chosen.is_empty() && chosen != "cat").then(|| chosen.to_owned())
}

/// Where the output goes: held back, the pager's input, or straight to the stream.
enum State {
    Holding(Vec<u8>),
    /// Buffered: commands write in small pieces, and each would be a write to the pipe.
    Paging(Child, BufWriter<ChildStdin>),
    /// The pager was never needed, could not start, or its input is closed.
    Direct,
}

/// A writer that pages its output once it is taller than the terminal.
pub struct Pager<'a> {
    out: &'a mut dyn Write,
    command: String,
    /// Terminal rows and columns; unknown rows page at once (the pager decides).
    height: Option<usize>,
    width: usize,
    /// Screen rows the held output takes.
    rows: usize,
    /// Display columns of the held output's unfinished last line, for wrapped lines.
    column: usize,
    state: State,
}

impl<'a> Pager<'a> {
    pub fn new(
        out: &'a mut dyn Write,
        command: String,
        height: Option<usize>,
        width: Option<usize>,
    ) -> Self {
        Pager {
            out,
            command,
            height,
            width: width.unwrap_or(80).max(1),
            rows: 0,
            column: 0,
            state: State::Holding(Vec::new()),
        }
    }

    /// Ends the output: what was held goes to the stream, or the pager's input is closed and
    /// the pager waited for (the terminal is its until it quits). A pager that failed (a
    /// non-zero exit: `PAGER=false`, a shell's "not found") showed nothing, or not all: that is
    /// an error ([`PagerFailed`]), not a run that printed nothing and exited 0. A pager the user
    /// quit (`q` exits 0; Ctrl-C or a closed pipe kill it) did its job.
    pub fn finish(mut self) -> io::Result<()> {
        match std::mem::replace(&mut self.state, State::Direct) {
            State::Holding(held) => self.out.write_all(&held),
            State::Paging(mut child, mut stdin) => {
                let flushed = stdin.flush();
                drop(stdin);
                let status = child.wait()?;
                if !quit_or_done(status) {
                    return Err(io::Error::other(PagerFailed {
                        command: self.command.clone(),
                        status,
                    }));
                }
                // A pager gone before it read everything is the user's quitting early.
                match flushed {
                    Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
                    other => other,
                }
            }
            State::Direct => Ok(()),
        }
    }

    /// Counts the screen rows `bytes` add (a line wider than the terminal wraps).
    fn count(&mut self, bytes: &[u8]) {
        for line in bytes.split_inclusive(|&b| b == b'\n') {
            let text = String::from_utf8_lossy(line);
            self.column += crate::views::style::width(&strip_escapes(text.trim_end_matches('\n')));
            if line.ends_with(b"\n") {
                self.rows += self.column.div_ceil(self.width).max(1);
                self.column = 0;
            }
        }
    }

    /// Starts the pager with what was held; a pager that cannot start leaves the output
    /// unpaged (with a warning), never lost.
    fn start(&mut self, held: Vec<u8>) -> io::Result<()> {
        match spawn(&self.command) {
            Ok((child, stdin)) => {
                let mut stdin = BufWriter::with_capacity(64 * 1024, stdin);
                let written = stdin.write_all(&held);
                self.state = State::Paging(child, stdin);
                written
            }
            Err(e) => {
                let _ = writeln!(
                    io::stderr(),
                    "pisess: warning: cannot start the pager `{}`: {e}",
                    self.command
                );
                self.state = State::Direct;
                self.out.write_all(&held)
            }
        }
    }
}

impl Write for Pager<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.state {
            State::Holding(held) => {
                held.extend_from_slice(buf);
                self.count(buf);
                if self.height.is_none_or(|h| self.rows >= h) {
                    let State::Holding(held) = std::mem::replace(&mut self.state, State::Direct)
                    else {
                        unreachable!("matched above")
                    };
                    self.start(held)?;
                }
                Ok(buf.len())
            }
            State::Paging(_, stdin) => stdin.write(buf),
            State::Direct => self.out.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.state {
            // Held output waits for the pager decision; flushing it would decide it.
            State::Holding(_) => Ok(()),
            State::Paging(_, stdin) => stdin.flush(),
            State::Direct => self.out.flush(),
        }
    }
}

impl Drop for Pager<'_> {
    /// A command that failed half way still leaves the terminal to the pager until it quits.
    fn drop(&mut self) {
        if let State::Paging(mut child, mut stdin) =
            std::mem::replace(&mut self.state, State::Direct)
        {
            let _ = stdin.flush();
            drop(stdin);
            let _ = child.wait();
        }
    }
}

/// A pager that exited with a failure: its output is not known to have been shown.
#[derive(Debug, thiserror::Error)]
#[error(
    "the pager `{}` failed ({status}), so the output may not have been shown: use --no-pager, or set PISESS_PAGER",
    crate::views::style::escape_control(.command, false)
)]
pub struct PagerFailed {
    command: String,
    status: std::process::ExitStatus,
}

/// Whether a pager's end is a success: exit 0, or killed by the user's Ctrl-C or by a closed
/// pipe (its terminal gone).
fn quit_or_done(status: std::process::ExitStatus) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        // SIGINT and SIGPIPE.
        if matches!(status.signal(), Some(2 | 13)) {
            return true;
        }
    }
    status.success()
}

/// Characters after which a pager command needs the shell (git's list, less the blanks, which
/// split words): without them it is run directly, so a pager that does not exist fails to
/// start, and the output falls back to the stream, instead of a shell's "not found".
const SHELL_CHARS: &[char] = &[
    '|', '&', ';', '<', '>', '(', ')', '$', '`', '\\', '"', '\'', '*', '?', '[', '#', '~', '=',
    '%', '\n',
];

/// Runs the pager command, directly when it is plain words (`less -R`), else through the shell
/// (it may carry options and quotes, as `$PAGER` does for git), with `LESS=FRX` when `LESS` is
/// unset, as git sets it.
fn spawn(command: &str) -> io::Result<(Child, ChildStdin)> {
    // Elsewhere there is no `sh`: always the words.
    let mut cmd = if cfg!(unix) && command.contains(SHELL_CHARS) {
        let mut c = Command::new("sh");
        c.arg("-c").arg(command);
        c
    } else {
        let mut words = command.split_whitespace();
        let fallback = if cfg!(unix) { "less" } else { "more" };
        let mut c = Command::new(words.next().unwrap_or(fallback));
        c.args(words);
        c
    };
    if std::env::var_os("LESS").is_none() {
        cmd.env("LESS", "FRX");
    }
    let mut child = cmd.stdin(Stdio::piped()).spawn()?;
    let stdin = child.stdin.take().expect("stdin is piped");
    Ok((child, stdin))
}

/// `s` without SGR escapes (`ESC [ ... m`), which take no columns: our own colours, since
/// session text reaches the output escaped.
fn strip_escapes(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pager_chosen() {
        assert_eq!(command(None, None).as_deref(), Some(DEFAULT));
        assert_eq!(command(None, Some("more")).as_deref(), Some("more"));
        assert_eq!(
            command(Some("bat -p"), Some("more")).as_deref(),
            Some("bat -p")
        );
        assert_eq!(command(Some(""), Some("more")), None);
        assert_eq!(command(None, Some("cat")), None);
    }

    #[test]
    fn output_that_fits_is_written_unpaged() {
        let mut out = Vec::new();
        // A command that would fail if it ran: it must not.
        let mut pager = Pager::new(&mut out, "exit 3".into(), Some(5), Some(10));
        pager.write_all(b"one\ntwo\nthree\n").unwrap();
        pager.finish().unwrap();
        assert_eq!(out, b"one\ntwo\nthree\n");
    }

    #[test]
    fn rows_count_wrapped_lines_and_not_colours() {
        let mut out = Vec::new();
        let mut pager = Pager::new(&mut out, "true".into(), Some(100), Some(10));
        pager.count(b"\x1b[33m0123456789\x1b[0m\n");
        assert_eq!(pager.rows, 1);
        pager.count(b"0123456789a\n\n");
        assert_eq!(pager.rows, 4);
        pager.count(b"01234");
        pager.count(b"567890\n");
        assert_eq!(pager.rows, 6);
    }

    #[cfg(unix)]
    #[test]
    fn taller_output_goes_to_the_pager_and_a_pager_that_quits_is_a_closed_pipe() {
        let dir = tempfile::tempdir().unwrap();
        let got = dir.path().join("got");
        let mut out = Vec::new();
        let command = format!("cat > '{}'", got.display());
        let mut pager = Pager::new(&mut out, command, Some(2), Some(80));
        pager.write_all(b"a\nb\nc\n").unwrap();
        pager.finish().unwrap();
        assert!(out.is_empty());
        assert_eq!(std::fs::read(&got).unwrap(), b"a\nb\nc\n");

        let mut out = Vec::new();
        let mut pager = Pager::new(&mut out, "true".into(), Some(1), Some(80));
        let mut line = vec![b'x'; 1023];
        line.push(b'\n');
        let err = (0..1024)
            .find_map(|_| pager.write_all(&line).err())
            .expect("a pager gone is a closed pipe");
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        pager.finish().unwrap();
    }

    /// A pager that does not exist leaves every byte to the stream; one that fails is an
    /// error, whether it read its input (a shell command) or not (`false`).
    #[cfg(unix)]
    #[test]
    fn a_pager_that_cannot_start_or_fails_never_loses_output_silently() {
        let text = b"a\nb\nc\n";
        let mut out = Vec::new();
        let mut pager = Pager::new(&mut out, "/nonexistent/pager -R".into(), Some(2), Some(80));
        pager.write_all(text).unwrap();
        pager.write_all(text).unwrap();
        pager.finish().unwrap();
        assert_eq!(out, b"a\nb\nc\na\nb\nc\n");

        for failing in [
            "false",
            "cat > /dev/null; exit 3",
            "/nonexistent/pager '-R'",
        ] {
            let mut out = Vec::new();
            let mut pager = Pager::new(&mut out, failing.into(), Some(2), Some(80));
            // `false` may be gone before the write: a closed pipe, which finish explains.
            let _ = pager.write_all(text);
            let err = pager.finish().expect_err(failing);
            let failed = err.get_ref().and_then(|e| e.downcast_ref::<PagerFailed>());
            assert!(failed.is_some(), "{failing}: {err}");
            assert!(err.to_string().contains("failed (exit status: "), "{err}");
            assert!(out.is_empty());
        }
    }
}
