//! The facts of the world a run depends on, read once: dirs and their sources, the cwd, "now",
//! which streams are terminals, colour, width.
//!
//! Built one way, in two steps: [`Facts`] are what the process is (read by
//! [`Facts::from_process`] in the binary, written by hand in tests), and [`Env::new`] derives the
//! rest from them and the global flags, purely. So tests and the binary resolve `--cwd`,
//! `--session-dir` and colour by the same code, and output is deterministic.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::PathBuf;

use jiff::tz::TimeZone;

use crate::app::global::{ColorChoice, GlobalArgs};
use crate::views::ids::ShortIds;
use crate::views::style::Theme;
use pisess_format::util::file::FileId;
use pisess_store::locate::{self, Inputs, Location};
use pisess_store::removal::TrashHome;

/// The environment variables pisess reads.
pub const VARS: [&str; 8] = [
    "PI_CODING_AGENT_DIR",
    "PI_CODING_AGENT_SESSION_DIR",
    "PI_SESSION_FILE",
    "NO_COLOR",
    "PISESS_PAGER",
    "PAGER",
    "COLUMNS",
    "PISESS_CACHE_DIR",
];

/// What the process is, as read from it: nothing derived yet.
#[derive(Debug, Clone)]
pub struct Facts {
    /// The set [`VARS`], decoded as Node decodes them for pi (U+FFFD for invalid bytes).
    pub vars: HashMap<&'static str, String>,
    /// The process's current directory.
    pub cwd: PathBuf,
    pub home: PathBuf,
    pub stdin_tty: bool,
    /// What stdin is when it is a device but no terminal (`< /dev/zero`): read as a session it
    /// would never end, so `-` refuses it.
    pub stdin_device: Option<&'static str>,
    /// Which file stdin is when it is a regular file (`- < s.jsonl`): a command that writes a
    /// file must not write over the one it reads.
    pub stdin_file: Option<FileId>,
    pub stdout_tty: bool,
    pub stderr_tty: bool,
    /// stdout's terminal width; `None` when it is no terminal or reports 0 columns.
    pub width: Option<usize>,
    /// stdout's terminal height, the same way.
    pub height: Option<usize>,
    pub now_ms: i64,
    pub tz: TimeZone,
    /// Where the freedesktop trash is (`$XDG_DATA_HOME`, `$HOME`), kept as the bytes they are.
    pub trash: TrashHome,
    /// The user's cache dir (`$XDG_CACHE_HOME`, else `~/.cache`; the platform's elsewhere):
    /// the summary cache goes in its `pisess` folder unless `$PISESS_CACHE_DIR` moves it.
    pub cache_home: Option<PathBuf>,
}

impl Facts {
    /// Reads the process: its environment, cwd, terminals, clock and time zone.
    pub fn from_process() -> std::io::Result<Facts> {
        // A set NO_COLOR must count even when it is not UTF-8, hence `var_os`.
        let vars = VARS
            .into_iter()
            .filter_map(|k| Some((k, std::env::var_os(k)?.to_string_lossy().into_owned())))
            .collect();
        let stdout_tty = std::io::stdout().is_terminal();
        let size = stdout_tty.then(terminal_size::terminal_size).flatten();
        // A pseudo-terminal with no size set reports 0 columns: treat as unknown.
        let width = size.map(|(w, _)| usize::from(w.0)).filter(|&w| w > 0);
        let height = size.map(|(_, h)| usize::from(h.0)).filter(|&h| h > 0);
        Ok(Facts {
            vars,
            cwd: std::env::current_dir()?,
            home: dirs::home_dir().unwrap_or_else(|| PathBuf::from("/")),
            stdin_tty: std::io::stdin().is_terminal(),
            stdin_device: stdin_device(),
            stdin_file: stdin_file(),
            stdout_tty,
            stderr_tty: std::io::stderr().is_terminal(),
            width,
            height,
            now_ms: jiff::Timestamp::now().as_millisecond(),
            tz: TimeZone::system(),
            trash: TrashHome::from_process(),
            cache_home: dirs::cache_dir(),
        })
    }

    /// A fixed process for tests: in `cwd`, no variables, no terminal, UTC, no cache dir.
    pub fn for_test(cwd: impl Into<PathBuf>, home: impl Into<PathBuf>, now_ms: i64) -> Facts {
        Facts {
            vars: HashMap::new(),
            cwd: cwd.into(),
            home: home.into(),
            stdin_tty: false,
            stdin_device: None,
            stdin_file: None,
            stdout_tty: false,
            stderr_tty: false,
            width: None,
            height: None,
            now_ms,
            tz: TimeZone::UTC,
            trash: TrashHome::default(),
            cache_home: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Env {
    pub inputs: Inputs,
    pub location: Location,
    /// `$PI_SESSION_FILE`: the session a running pi writes.
    pub pi_session_file: Option<String>,
    pub now_ms: i64,
    pub tz: TimeZone,
    pub stdin_tty: bool,
    pub stdin_device: Option<&'static str>,
    /// [`Facts::stdin_file`].
    pub stdin_file: Option<FileId>,
    pub stdout_tty: bool,
    pub stderr_tty: bool,
    /// `$NO_COLOR`, which `--color auto` consults.
    pub no_color: Option<String>,
    pub color_stdout: bool,
    pub color_stderr: bool,
    /// Terminal width when stdout is a terminal (tables are cut to it), else `None`:
    /// `$COLUMNS` when set to a number, else what the terminal reports.
    pub width: Option<usize>,
    /// The width one-line previews are cut to: [`Env::width`], else `$COLUMNS` (set by the
    /// user even into a pipe), else `None` (the command's default).
    pub columns: Option<usize>,
    /// Terminal height when stdout is a terminal (what the pager compares output with).
    pub height: Option<usize>,
    /// The pager command when human output may be paged: stdout a terminal, no `--no-pager`,
    /// and `$PISESS_PAGER`/`$PAGER` not empty or `cat` ([`crate::app::pager::command`]).
    pub pager: Option<String>,
    pisess_pager: Option<String>,
    pager_var: Option<String>,
    pub quiet: bool,
    /// `--verbose`: every warning about a file on its own line.
    pub verbose: bool,
    /// Where `rm` finds the trash.
    pub trash: TrashHome,
    /// The store's session ids, read once when a short id is first printed.
    short_ids: std::sync::OnceLock<ShortIds>,
}

/// stdin's kind when it is a character or block device that is no terminal.
fn stdin_device() -> Option<&'static str> {
    #[cfg(unix)]
    {
        use rustix::fs::FileType;
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            return None;
        }
        let stat = rustix::fs::fstat(&stdin).ok()?;
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::CharacterDevice => Some("a character device"),
            FileType::BlockDevice => Some("a block device"),
            _ => None,
        }
    }
    #[cfg(not(unix))]
    None
}

/// Which file stdin is, when it is a regular file.
fn stdin_file() -> Option<FileId> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return None;
    }
    #[cfg(unix)]
    {
        let stat = rustix::fs::fstat(&stdin).ok()?;
        (rustix::fs::FileType::from_raw_mode(stat.st_mode) == rustix::fs::FileType::RegularFile)
            .then(|| FileId::of_stat(&stat))
    }
    #[cfg(not(unix))]
    None
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
    /// The environment of a run in a process with these facts and global flags.
    pub fn new(global: &GlobalArgs, facts: Facts) -> Env {
        let Facts {
            mut vars,
            cwd,
            home,
            stdin_tty,
            stdin_device,
            stdin_file,
            stdout_tty,
            stderr_tty,
            width,
            height,
            now_ms,
            tz,
            trash,
            cache_home,
        } = facts;
        // A number in COLUMNS is the user's word for the width (as for ls(1)); only on a
        // terminal, since piped output is never cut.
        let columns = vars
            .remove("COLUMNS")
            .and_then(|c| c.trim().parse::<usize>().ok())
            .filter(|&c| c > 0);
        let width = if stdout_tty { columns.or(width) } else { None };
        let columns = width.or(columns);
        let cache = match vars.remove("PISESS_CACHE_DIR").filter(|d| !d.is_empty()) {
            Some(dir) => Some(locate::resolve_path(&dir, &cwd, &home)),
            None => cache_home.map(|d| d.join("pisess")),
        };
        let mut inputs = Inputs {
            home,
            cwd: cwd.clone(),
            process_cwd: cwd,
            flag: None,
            env_agent_dir: vars.remove("PI_CODING_AGENT_DIR"),
            env_session_dir: vars.remove("PI_CODING_AGENT_SESSION_DIR"),
            cache,
        };
        take_paths(&mut inputs, global);
        let mut env = Env {
            location: Location::resolve(&inputs),
            inputs,
            pi_session_file: vars.remove("PI_SESSION_FILE"),
            now_ms,
            tz,
            stdin_tty,
            stdin_device,
            stdin_file,
            stdout_tty,
            stderr_tty,
            no_color: vars.remove("NO_COLOR"),
            color_stdout: false,
            color_stderr: false,
            width,
            columns,
            height: height.filter(|_| stdout_tty),
            pager: None,
            pisess_pager: vars.remove("PISESS_PAGER"),
            pager_var: vars.remove("PAGER"),
            quiet: false,
            verbose: false,
            trash,
            short_ids: std::sync::OnceLock::new(),
        };
        env.take_output(global);
        env
    }

    /// This environment under the global flags of one command line, as [`Env::new`] applies
    /// them, and the location resolved again: for tests that start from a hand-made `Env`
    /// (and may have edited its `inputs`).
    #[must_use]
    pub fn with_flags(mut self, global: &GlobalArgs) -> Env {
        take_paths(&mut self.inputs, global);
        self.location = Location::resolve(&self.inputs);
        self.short_ids = std::sync::OnceLock::new();
        self.take_output(global);
        self
    }

    /// A session id as every command prints it: cut to the fewest characters (at least 8)
    /// that no other session of the store starts with, so that it selects its session.
    pub fn short_id(&self, id: &str) -> String {
        self.short_ids().short(id)
    }

    /// The abbreviations [`Env::short_id`] uses.
    pub fn short_ids(&self) -> &ShortIds {
        self.short_ids
            .get_or_init(|| ShortIds::new(self.location.ids_by_name().iter().map(String::as_str)))
    }

    /// The colours of stdout.
    pub fn theme(&self) -> Theme {
        Theme {
            enabled: self.color_stdout,
        }
    }

    /// The colours of stderr.
    pub fn err_theme(&self) -> Theme {
        Theme {
            enabled: self.color_stderr,
        }
    }

    /// `--color` for each stream, and `-q`.
    fn take_output(&mut self, global: &GlobalArgs) {
        let no_color = self.no_color.as_deref();
        self.color_stdout = use_color(global.color, self.stdout_tty, no_color);
        self.color_stderr = use_color(global.color, self.stderr_tty, no_color);
        self.quiet = global.quiet;
        self.verbose = global.verbose;
        self.pager = (self.stdout_tty && !global.no_pager)
            .then(|| {
                crate::app::pager::command(self.pisess_pager.as_deref(), self.pager_var.as_deref())
            })
            .flatten();
    }
}

/// `--session-dir` and `--cwd` (pi's `resolvePath`: `~`, `file://`, against the process cwd),
/// where given.
fn take_paths(inputs: &mut Inputs, global: &GlobalArgs) {
    if let Some(dir) = &global.session_dir {
        inputs.flag = Some(dir.clone());
    }
    if let Some(dir) = &global.cwd {
        inputs.cwd = locate::resolve_path(dir, &inputs.process_cwd, &inputs.home);
    }
    if global.no_cache {
        inputs.cache = None;
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

    #[test]
    fn columns_and_the_pager_only_on_a_terminal() {
        let mut facts = Facts::for_test("/p", "/home/dev", 0);
        facts.vars.insert("COLUMNS", "60".into());
        facts.vars.insert("PAGER", "more".into());
        let piped = Env::new(&GlobalArgs::default(), facts.clone());
        assert_eq!(
            (piped.width, piped.columns, piped.pager),
            (None, Some(60), None)
        );
        facts.stdout_tty = true;
        facts.width = Some(100);
        let tty = Env::new(&GlobalArgs::default(), facts.clone());
        assert_eq!((tty.width, tty.pager.as_deref()), (Some(60), Some("more")));
        let global = GlobalArgs {
            no_pager: true,
            ..GlobalArgs::default()
        };
        assert_eq!(Env::new(&global, facts).pager, None);
    }

    #[test]
    fn flags_resolve_against_the_facts() {
        let facts = Facts::for_test("/work/p", "/home/dev", 0);
        let global = GlobalArgs {
            cwd: Some("~/q".into()),
            color: ColorChoice::Always,
            ..GlobalArgs::default()
        };
        let env = Env::new(&global, facts);
        assert_eq!(env.inputs.cwd, PathBuf::from("/home/dev/q"));
        assert_eq!(env.inputs.process_cwd, PathBuf::from("/work/p"));
        assert!(env.color_stdout && env.color_stderr);
    }
}
