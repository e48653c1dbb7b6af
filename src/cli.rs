//! The command line, declared once. Doc comments are the help text.

use clap::{Args, Parser, Subcommand, ValueEnum};

const AFTER_LONG_HELP: &str = "\
SESSION arguments (show, tree, context, path, rm):
  -                 read the session from standard input
  PATH              a file (anything with / or \\ or ending .jsonl is a path)
  ID | PREFIX       a session id or unique prefix, this project first, then all projects
  NAME              an exact session name (set with pi's /name)
  (omitted)         $PI_SESSION_FILE, else this project's newest session (what `pi -c` resumes)

Examples:
  pisess ls                                   sessions of this project, newest first
  pisess ls --all --since 2d                  every project, last two days
  pisess ls --all --json | jq -r 'select(.usage.cost > 1) | .path'
  pisess show --branch                        the active branch of the newest session
  pisess show 0193 --role user --json | jq -r .message.content
  pisess tree 0193 --filter no-tools          the conversation tree without tool results
  pisess context --json | jq '.messages | length'
  pisess context --llm --json S | jq -e '.messages[-1].role == \"assistant\"'   (a CI check)
  pisess rm --older-than 30d --empty --dry-run

Exit codes:
  0  done
  1  the command could not do its job (no such session, unreadable file, refused deletion,
     some files unreadable in `ls`)
  2  usage error

Environment:
  PI_CODING_AGENT_DIR           pi's agent dir (default ~/.pi/agent); sessions live in its sessions/
  PI_CODING_AGENT_SESSION_DIR   the session dir, below --session-dir and above the sessionDir setting
  PI_SESSION_FILE               the session a running pi writes; the default SESSION when set
  NO_COLOR                      when set and not empty, no colours unless --color always";

/// Inspect the session files of the pi coding agent.
///
/// pisess finds, lists and reads pi's JSONL session files: the entry tree with its branches,
/// and exactly what the model is sent after compactions, branch summaries and context edits.
/// Human output on a terminal, NDJSON for jq with --json.
#[derive(Debug, Parser)]
#[command(name = "pisess", version, after_long_help = AFTER_LONG_HELP, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Use DIR as the session dir (beats PI_CODING_AGENT_SESSION_DIR and the sessionDir setting)
    #[arg(long, global = true, value_name = "DIR")]
    pub session_dir: Option<String>,
    /// Act as if run in DIR (which project "this project" is)
    #[arg(long, global = true, value_name = "DIR")]
    pub cwd: Option<String>,
    /// When to use colours
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// No warnings on stderr (errors are still printed)
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when the stream is a terminal and NO_COLOR is unset or empty
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List sessions, newest first
    #[command(visible_alias = "list")]
    Ls(LsArgs),
    /// Print a session's entries
    Show(ShowArgs),
    /// Draw a session's entry tree, the active path marked
    Tree(TreeArgs),
    /// Print the session dir for this project, or a session's file
    Path(PathArgs),
    /// Rebuild the messages pi sends to the model next
    Context(ContextArgs),
    /// Delete sessions safely (to the trash unless --permanent)
    Rm(RmArgs),
    /// Write shell completions or the man page (for packagers)
    #[command(hide = true)]
    Generate(GenerateArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortKey {
    Modified,
    Created,
    Size,
    Messages,
    Cost,
}

#[derive(Debug, Args)]
pub struct LsArgs {
    /// Every project's sessions, not only this project's
    #[arg(short, long)]
    pub all: bool,
    /// Show at most N sessions
    #[arg(short = 'n', long, value_name = "N")]
    pub limit: Option<usize>,
    /// Only sessions modified at or after WHEN (ISO date/time, or a span back: 30m, 2h, 3d, 1w)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only sessions modified before WHEN (ISO date/time, or a span back: 30m, 2h, 3d, 1w)
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Order by this key, largest or newest first
    #[arg(long, value_enum, default_value_t = SortKey::Modified, value_name = "KEY")]
    pub sort: SortKey,
    /// Reverse the order
    #[arg(short, long)]
    pub reverse: bool,
    /// NDJSON: one object per session
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The session (see SESSION below); default: this project's newest
    pub session: Option<String>,
    /// Print only this entry, in full
    pub entry_id: Option<String>,
    /// Only the active branch (root to the last entry)
    #[arg(short, long, conflicts_with = "leaf")]
    pub branch: bool,
    /// Only the path from the root to entry ID
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
    /// Only entries of this type (message, compaction, label, ...); repeatable
    #[arg(short = 't', long = "type", value_name = "T")]
    pub types: Vec<String>,
    /// Only messages of this role (user, assistant, toolResult, ...); repeatable
    #[arg(long = "role", value_name = "R")]
    pub roles: Vec<String>,
    /// Do not cut long text
    #[arg(long)]
    pub full: bool,
    /// The selected stored lines verbatim (NDJSON), header first
    #[arg(long)]
    pub json: bool,
    /// With --json: leave out the header line
    #[arg(long, requires = "json")]
    pub no_header: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TreeFilter {
    /// Hide bookkeeping entries and assistant messages without text
    Default,
    /// Default, and hide tool results
    NoTools,
    /// Only user messages
    UserOnly,
    /// Only labelled entries
    LabeledOnly,
    /// Everything
    All,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// The session (see SESSION below); default: this project's newest
    pub session: Option<String>,
    /// Which entries to draw (pi's /tree filter modes)
    #[arg(long, value_enum, default_value_t = TreeFilter::Default, value_name = "MODE")]
    pub filter: TreeFilter,
    /// One JSON object: {sessionId, leafId, roots:[{id, type, role?, label?, active, preview, children}]}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PathArgs {
    /// A session to print the file of; without it, the session dir for this project
    pub session: Option<String>,
    /// Print the sessions root (<agent dir>/sessions) instead
    #[arg(long, conflicts_with = "session")]
    pub root: bool,
    /// Show every source of the session dir in order, its value and which one won
    #[arg(long)]
    pub explain: bool,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The session (see SESSION below); default: this project's newest
    pub session: Option<String>,
    /// Build the context as if entry ID were the leaf
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
    /// The provider-bound messages (pi's convertToLlm) instead of pi's agent messages
    #[arg(long)]
    pub llm: bool,
    /// One JSON object: {leafId, thinkingLevel, model, messages}
    #[arg(long)]
    pub json: bool,
    /// Show every message in full
    #[arg(long)]
    pub full: bool,
    /// Cut each tool result's text to N characters (a seed-000 feature; off by default)
    #[arg(long, value_name = "N")]
    pub max_tool_chars: Option<usize>,
}

#[derive(Debug, Args)]
pub struct RmArgs {
    /// Sessions to remove (id, prefix, name or path)
    pub sessions: Vec<String>,
    /// Print what would be removed, remove nothing
    #[arg(short = 'n', long)]
    pub dry_run: bool,
    /// Do not ask (required when stdin is not a terminal)
    #[arg(short, long)]
    pub yes: bool,
    /// Unlink instead of moving to the trash
    #[arg(long)]
    pub permanent: bool,
    /// Also sessions whose last activity is older than SPAN (30d, 2w, ...)
    #[arg(long, value_name = "SPAN")]
    pub older_than: Option<String>,
    /// Also sessions without messages
    #[arg(long)]
    pub empty: bool,
    /// With --older-than/--empty: every project, not only this one
    #[arg(short, long)]
    pub all: bool,
    /// Allow removing the live session ($PI_SESSION_FILE)
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GenerateKind {
    Bash,
    Zsh,
    Fish,
    Powershell,
    Elvish,
    Man,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// What to write to stdout
    #[arg(value_enum)]
    pub kind: GenerateKind,
}
