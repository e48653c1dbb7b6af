//! The facts of the world a run depends on, read once: dirs and their sources, the cwd, "now",
//! which streams are terminals, colour, width. Tests build an [`Env`] by hand, so output is
//! deterministic.

use std::io::IsTerminal;
use std::path::PathBuf;

use jiff::tz::TimeZone;

use crate::cli::{ColorChoice, GlobalArgs};
use crate::locate::{self, Inputs, Location};
use crate::removal::TrashHome;

#[derive(Debug, Clone)]
pub struct Env {
    pub inputs: Inputs,
    pub location: Location,
    /// `$PI_SESSION_FILE`: the session a running pi writes.
    pub pi_session_file: Option<String>,
    pub now_ms: i64,
    pub tz: TimeZone,
    pub stdin_tty: bool,
    pub stdout_tty: bool,
    pub color_stdout: bool,
    pub color_stderr: bool,
    /// Terminal width when stdout is a terminal (tables are cut to it), else `None`.
    pub width: Option<usize>,
    pub quiet: bool,
    /// Where `rm` finds the trash.
    pub trash: TrashHome,
}

/// Whether a stream gets colour: `--color`, else a terminal with `NO_COLOR` unset or empty.
pub fn use_color(choice: ColorChoice, is_tty: bool, no_color: Option<&str>) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => is_tty && no_color.is_none_or(str::is_empty),
    }
}

impl Env {
    /// Reads the process's environment.
    pub fn from_process(global: &GlobalArgs) -> std::io::Result<Env> {
        // Node decodes the environment as UTF-8 with U+FFFD for invalid bytes, so pi sees a
        // value that is not UTF-8 that way too; and a set NO_COLOR must count even then.
        let var = |k: &str| std::env::var_os(k).map(|v| v.to_string_lossy().into_owned());
        let process_cwd = std::env::current_dir()?;
        let home = dirs::home_dir().unwrap_or_else(|| PathBuf::from("/"));
        let cwd = match &global.cwd {
            Some(dir) => locate::resolve(&process_cwd, &locate::expand_tilde(dir, &home)),
            None => process_cwd.clone(),
        };
        let inputs = Inputs {
            home,
            cwd,
            process_cwd,
            flag: global.session_dir.clone(),
            env_agent_dir: var("PI_CODING_AGENT_DIR"),
            env_session_dir: var("PI_CODING_AGENT_SESSION_DIR"),
        };
        let no_color = var("NO_COLOR");
        let stdout_tty = std::io::stdout().is_terminal();
        let stderr_tty = std::io::stderr().is_terminal();
        let width = stdout_tty
            .then(|| terminal_size::terminal_size().map(|(w, _)| usize::from(w.0)))
            .flatten()
            // A pseudo-terminal with no size set reports 0 columns: treat as unknown.
            .filter(|&w| w > 0);
        Ok(Env {
            location: Location::resolve(&inputs),
            inputs,
            pi_session_file: var("PI_SESSION_FILE"),
            now_ms: jiff::Timestamp::now().as_millisecond(),
            tz: TimeZone::system(),
            stdin_tty: std::io::stdin().is_terminal(),
            stdout_tty,
            color_stdout: use_color(global.color, stdout_tty, no_color.as_deref()),
            color_stderr: use_color(global.color, stderr_tty, no_color.as_deref()),
            width,
            quiet: global.quiet,
            trash: TrashHome::from_process(),
        })
    }

    /// A fixed environment for tests: no terminal, no colour, UTC, the given dirs.
    pub fn for_test(inputs: Inputs, now_ms: i64) -> Env {
        Env {
            location: Location::resolve(&inputs),
            inputs,
            pi_session_file: None,
            now_ms,
            tz: TimeZone::UTC,
            stdin_tty: false,
            stdout_tty: false,
            color_stdout: false,
            color_stderr: false,
            width: None,
            quiet: false,
            trash: TrashHome::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_decisions() {
        assert!(use_color(ColorChoice::Auto, true, None));
        assert!(use_color(ColorChoice::Auto, true, Some("")));
        assert!(!use_color(ColorChoice::Auto, true, Some("1")));
        assert!(!use_color(ColorChoice::Auto, false, None));
        assert!(use_color(ColorChoice::Always, false, Some("1")));
        assert!(!use_color(ColorChoice::Never, true, None));
    }
}
