//! Everything pisess says on stderr besides prompts: warnings (`-q` silences them) and the
//! one error line, `pisess: error: ...`, each escaped, since file names and lines are text
//! from outside.

use std::io::Write;

use crate::views::style::{self, Role, Theme};
use pisess_format::util::warning::{Warn, Warning};

/// Diagnostics to stderr, all through one place: `pisess: warning: FILE:LINE: ...`.
pub struct Diag<'a> {
    err: &'a mut dyn Write,
    quiet: bool,
    theme: style::Theme,
    pub warnings: usize,
    /// `--verbose`: each of a file's warnings on its own line, not one line with a count.
    pub verbose: bool,
    /// The warnings already printed: a file read twice in one run (a listing, then the
    /// session's index) is warned about once.
    said: std::collections::HashSet<String>,
}

impl<'a> Diag<'a> {
    pub fn new(err: &'a mut dyn Write, quiet: bool, theme: Theme) -> Self {
        Diag {
            err,
            quiet,
            theme,
            warnings: 0,
            verbose: false,
            said: std::collections::HashSet::new(),
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
        if !self.said.insert(text.clone()) {
            return;
        }
        let text = style::escape_control(&text, false);
        // A closed stderr must not turn a warning into a failure.
        let _ = writeln!(
            self.err,
            "pisess: {} {text}",
            self.theme.paint(Role::Warn, "warning:")
        );
    }

    /// An informational line on stderr (not a warning; not suppressed by `-q`).
    /// A hint about the result (not a warning about a file): said unless `-q`.
    pub fn hint(&mut self, message: &str) {
        if !self.quiet {
            let _ = writeln!(self.err, "{message}");
        }
    }

    pub fn note(&mut self, message: &str) {
        let _ = writeln!(self.err, "{message}");
    }

    /// Direct access to stderr, e.g. for a prompt.
    pub fn stderr(&mut self) -> &mut dyn Write {
        self.err
    }
}

/// The lower layers (a listing) report through [`Warn`]; on the command line that is this.
impl Warn for Diag<'_> {
    fn warn(&mut self, file: &str, line: Option<u64>, message: &str) {
        Diag::warn(self, file, line, message);
    }

    /// One line per file, whatever the command: the first warning, and how many more there are
    /// and where to see them (`check` lists each as a finding). A file with 40 damaged lines
    /// gave `grep` and `show` 40 lines of stderr (issue 47), where `ls` gave one.
    fn session_warnings(&mut self, name: &str, warnings: &[Warning]) {
        let Some(first) = warnings.first() else {
            return;
        };
        let more = more_than_first(warnings);
        if self.verbose {
            for w in warnings {
                Diag::warn(self, name, w.line, &w.message);
            }
            return;
        }
        if more == 0 {
            return Diag::warn(self, name, first.line, &first.message);
        }
        let message = format!(
            "{}; and {more} more warning{} about this file (--verbose says each; 'pisess check' lists them)",
            first.message,
            if more == 1 { "" } else { "s" }
        );
        Diag::warn(self, name, first.line, &message);
    }
}

/// The warnings past the first: the reader's `… and K more malformed lines` stands for K.
fn more_than_first(warnings: &[Warning]) -> u64 {
    let counted = |w: &Warning| -> u64 {
        let omitted = (w.line.is_none())
            .then(|| {
                w.message
                    .strip_prefix("… and ")?
                    .split(' ')
                    .next()?
                    .parse()
                    .ok()
            })
            .flatten();
        omitted.unwrap_or(1)
    };
    warnings.iter().skip(1).map(counted).sum()
}

/// The error line, `pisess: error: MESSAGE`, the message escaped.
pub fn error_line(theme: Theme, message: &str) -> String {
    let message = style::escape_control(message, false);
    format!("pisess: {} {message}", theme.paint(Role::Error, "error:"))
}

/// Writes [`error_line`]; a closed stderr must not turn an error into a second one.
pub fn error(err: &mut dyn Write, theme: Theme, message: &str) {
    let _ = writeln!(err, "{}", error_line(theme, message));
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
    let line = error_line(Theme { enabled: false }, &message);
    format!("{line}{tips}; try '--help'")
}
