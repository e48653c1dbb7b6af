//! The options every subcommand takes. They are declared apart from the rest of the command
//! line because [`crate::app::env::Env`] is derived from them, and the clap declarations
//! (`cli.rs`) call the completer, which builds an `Env`: with these below both, neither
//! imports the other.

use clap::{Args, ValueEnum};

/// Options every subcommand takes, before or after its name; shown under their own heading so
/// a subcommand's help keeps its own options together.
/// `Default` is no flag given, as tests start from.
#[derive(Debug, Default, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Read sessions from DIR instead of pi's session dir
    ///
    /// Beats PI_CODING_AGENT_SESSION_DIR and the sessionDir setting. As in pi, a dir other than
    /// the default is flat and shared by every project: "this project" means its files whose
    /// header cwd is the cwd.
    #[arg(long, global = true, value_name = "DIR")]
    pub session_dir: Option<String>,
    /// Act as if run in DIR
    ///
    /// DIR decides which project "this project" is (pi keeps a project's sessions in a folder
    /// named --<DIR>-- under the sessions root) and whose .pi/settings.json is read.
    #[arg(long, global = true, value_name = "DIR")]
    pub cwd: Option<String>,
    /// When to use colours
    ///
    /// stdout and stderr are decided separately, so `pisess ls 2>err.txt` is still coloured on
    /// the terminal. JSON and `path` output are never coloured.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// No warnings on stderr (errors are still printed)
    ///
    /// Warnings (malformed lines, parent cycles, missing parents, unreadable files) never
    /// change the exit code; -q only hides them. It also hides the progress line of a long run
    /// ($PISESS_PROGRESS).
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Every warning about a file on its own line
    ///
    /// By default a file with several warnings (damaged lines, duplicate ids) gets one line:
    /// the first, and how many more; `pisess check` lists each as a finding. (No `-v`: grep
    /// users read it as grep's invert-match.)
    #[arg(long, global = true, conflicts_with = "quiet")]
    pub verbose: bool,
    /// Never page human output
    ///
    /// On a terminal, show, tree, context and stats page output taller than the terminal through
    /// $PISESS_PAGER, else $PAGER, else `less -FRX` (empty or `cat`: no pager). Never when
    /// stdout is not a terminal.
    #[arg(long, global = true)]
    pub no_pager: bool,
    /// Read every session file whole, neither using nor writing the cache
    ///
    /// Listings (ls, SESSION lookups, grep's headings) and `stats` over many sessions keep what
    /// they learn of each file in $PISESS_CACHE_DIR, else $XDG_CACHE_HOME/pisess
    /// (~/.cache/pisess), and next time read only files that changed. It only speeds up what is
    /// shown: rm, check and grep's matches decide from the files themselves. Output is the same
    /// with and without it.
    #[arg(long, global = true)]
    pub no_cache: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour a stream when it is a terminal and NO_COLOR is unset or empty
    #[default]
    Auto,
    /// Always colour, even into a pipe (e.g. for less -R)
    Always,
    /// Never colour
    Never,
}
