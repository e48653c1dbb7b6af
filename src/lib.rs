//! pisess: an inspector for the session files of the pi coding agent.
//!
//! The binary parses the command line, builds an [`env::Env`] and calls [`run`]; everything
//! else lives in the library so tests can drive it in-process.

pub mod cli;
pub mod cmd;
pub mod context;
pub mod env;
pub mod js;
pub mod json;
pub mod locate;
pub mod model;
pub mod preview;
pub mod readahead;
pub mod reader;
pub mod render;
pub mod scan;
pub mod select;
pub mod session;
pub mod skim;
pub mod style;
pub mod summary;
pub mod time;
pub mod tree;

use std::fmt;
use std::io::{Read, Write};

use cli::{Cli, Command};
use env::Env;

/// How a command ended when it did not fail outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Done,
    /// Exit 1: the command did what it could but part of the job failed (e.g. unreadable files).
    Partial,
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

/// Diagnostics to stderr, all through one place: `pisess: warning: FILE:LINE: ...`.
pub struct Diag<'a> {
    err: &'a mut dyn Write,
    quiet: bool,
    theme: style::Theme,
    pub warnings: usize,
}

impl<'a> Diag<'a> {
    pub fn new(err: &'a mut dyn Write, quiet: bool, color: bool) -> Self {
        Diag {
            err,
            quiet,
            theme: style::Theme { enabled: color },
            warnings: 0,
        }
    }

    /// A warning about `file` (and a line of it); suppressed by `-q`.
    pub fn warn(&mut self, file: &str, line: Option<u64>, message: &str) {
        self.warnings += 1;
        if self.quiet {
            return;
        }
        let place = match line {
            Some(n) => format!("{file}:{n}: "),
            None if file.is_empty() => String::new(),
            None => format!("{file}: "),
        };
        // File names are text from outside too: a name may hold ESC as well as a line may.
        let text = format!("{place}{message}");
        let text = style::escape_control(&text, false);
        // A closed stderr must not turn a warning into a failure.
        let _ = writeln!(self.err, "pisess: {} {text}", self.theme.yellow("warning:"));
    }

    /// Every warning a session collected while it was read.
    pub fn session_warnings(&mut self, name: &str, warnings: &[scan::Warning]) {
        for w in warnings {
            self.warn(name, w.line, &w.message);
        }
    }

    /// An informational line on stderr (not a warning; not suppressed by `-q`).
    pub fn note(&mut self, message: &str) {
        let _ = writeln!(self.err, "{message}");
    }

    /// Direct access to stderr, e.g. for a prompt.
    pub fn stderr(&mut self) -> &mut dyn Write {
        self.err
    }
}

/// Maps a run's result to the exit code, printing the error line (`pisess: error: ...`).
/// A closed stdout (`pisess ls | head -1`) is not an error.
pub fn finish(result: &anyhow::Result<Outcome>, err: &mut dyn Write) -> u8 {
    match result {
        Ok(Outcome::Done) => 0,
        Ok(Outcome::Partial) => 1,
        Err(e) if is_broken_pipe(e) => 0,
        Err(e) => {
            let message = format!("{e:#}");
            let _ = writeln!(
                err,
                "pisess: error: {}",
                style::escape_control(&message, false)
            );
            if e.is::<UsageError>() {
                2
            } else {
                1
            }
        }
    }
}

/// A command-line parsing error as one line, `pisess: error: ...`, like every other error:
/// clap's message with its tips, and the way to the help. clap's usage block is left out; it is
/// one `--help` away, and a single line is what scripts and log greps expect.
pub fn parse_error_line(e: &clap::Error) -> String {
    // `StyledStr`'s `Display` drops clap's styling, so no escape codes reach the line.
    let text = e.render().to_string();
    let mut message = String::new();
    let mut tips = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with("Usage:") || line.starts_with("For more information") {
            break;
        }
        if line.is_empty() {
            continue;
        }
        if let Some(tip) = line.strip_prefix("tip: ") {
            tips.push(tip);
            continue;
        }
        if !message.is_empty() {
            message.push(' ');
        }
        message.push_str(line.strip_prefix("error: ").unwrap_or(line));
    }
    let tips = if tips.is_empty() {
        String::new()
    } else {
        format!(" ({})", tips.join("; "))
    };
    let message = style::escape_control(&message, false);
    format!("pisess: error: {message}{tips}; try '--help'")
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

/// Runs one parsed command line.
pub fn run(
    cli: Cli,
    env: &Env,
    out: &mut dyn Write,
    err: &mut dyn Write,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let mut diag = Diag::new(err, env.quiet, env.color_stderr);
    for w in &env.location.warnings {
        diag.warn("", None, w);
    }
    match cli.command {
        Command::Ls(args) => cmd::ls::run(&args, env, out, &mut diag),
        Command::Show(args) => cmd::show::run(&args, env, out, &mut diag, stdin),
        Command::Tree(args) => cmd::tree::run(&args, env, out, &mut diag, stdin),
        Command::Path(args) => cmd::path::run(&args, env, out, &mut diag),
        Command::Context(args) => cmd::context::run(&args, env, out, &mut diag, stdin),
        Command::Rm(args) => cmd::rm::run(&args, env, out, &mut diag, stdin),
        Command::Generate(args) => cmd::generate::run(&args, out),
    }
}
