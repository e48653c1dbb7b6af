//! The command line, declared once. Doc comments are the help text: the first paragraph is the
//! short help (`-h`), the whole comment the long help (`--help`), and the man page and shell
//! completions are generated from the same declarations (`pisess generate`).

use std::ffi::OsString;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::app::global::GlobalArgs;
use crate::views::check::Unpriced;
use crate::views::stats::By;
use crate::views::tree::TreeFilter;
use pisess_format::model::PI_ROLES;

mod help;
mod runs;
use help::*;
pub use runs::{DiffArgs, DiffFormat, FactsArgs, FilesArgs};

/// Inspect the session files of the pi coding agent.
///
/// pisess finds, lists and reads pi's JSONL session files: the entry tree with its branches,
/// and exactly what the model is sent next after compactions, branch summaries and context
/// edits. It only reads sessions (rm removes whole files, to the trash by default). Human
/// output on a terminal; --json gives JSON for jq and scripts.
#[derive(Debug, Parser)]
#[command(name = "pisess", version, after_long_help = AFTER_LONG_HELP, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per run: a variant's size costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List sessions, newest first
    ///
    /// One row per session: short id, last activity, messages, tokens, cost, and the name or
    /// else the first user message (with --all, the project's cwd first). Rows are cut to the
    /// terminal width on a terminal, never when piped. The order and the values are pi's own
    /// (`SessionManager.list`; tokens and cost are pi's /session totals).
    #[command(visible_alias = "list", after_long_help = LS_HELP)]
    Ls(LsArgs),
    /// Print a session's entries
    ///
    /// One block per entry in file order: time, id, type or role, content (tool calls as
    /// name(args), long text cut unless --full). With --json, the selected lines exactly as
    /// stored, so jq sees what is in the file.
    #[command(after_long_help = SHOW_HELP)]
    Show(ShowArgs),
    /// Draw a session's entry tree, the active path marked
    ///
    /// The tree of pi's /tree: children in pi's order, the leaf pi resumes at marked
    /// "← active", labels shown, and pi's filter modes.
    ///
    /// A row more than 40 levels deep (a session retried thousands of times) draws only its
    /// last 40 levels, after "+N " where N is how many levels were left out: pi's /tree
    /// scrolls sideways instead, and whole rows would make the output grow with the square of
    /// the depth. --json gives every row's depth.
    #[command(after_long_help = TREE_HELP)]
    Tree(TreeArgs),
    /// Print the session dir for this project, or a session's file
    ///
    /// One path a line, never coloured, so `cd "$(pisess path)"` works.
    #[command(after_long_help = PATH_HELP)]
    Path(PathArgs),
    /// Rebuild the messages pi sends to the model next
    ///
    /// The messages of the active branch (or of the path to --leaf) exactly as pi's
    /// buildSessionContext computes them: the latest compaction's summary and the entries it
    /// kept, branch summaries, context edits applied. With --llm, converted as pi converts them
    /// for the provider (convertToLlm).
    #[command(after_long_help = CONTEXT_HELP)]
    Context(ContextArgs),
    /// What a run did and cost, or usage reports across sessions
    ///
    /// One session: pi's /session figures, per model and per tool, stop reasons, compactions,
    /// branches, files touched, cost on and off the active branch, and the size of the next
    /// request. With --all, several SESSIONs or --by: one row per day, week, month, model,
    /// project, session or tool, and a total.
    #[command(after_long_help = STATS_HELP)]
    Stats(StatsArgs),
    /// The fact stream for a team: one NDJSON row per message, keyed and versioned
    ///
    /// One row per message-bearing entry (and per entry with usage), for DuckDB or ClickHouse
    /// to add many machines up: sessionId and entryId as keys (an entry a fork or clone copied
    /// under its source's id), a version an engine keeps the highest of, host and user labels,
    /// tokens, cost, model, tool and error facts. Never a message's text or a tool's
    /// arguments; --redact-paths hashes the cwd too. docs/json.md has the schema, docs/team.md
    /// the tables and queries.
    #[command(after_long_help = FACTS_HELP)]
    Facts(FactsArgs),
    /// The files a run read, wrote and edited
    ///
    /// One row per file, by path: how many read, write and edit calls named it and how many of
    /// those failed (their result's isError). Paths are taken from pi's read, write and edit
    /// tools (never from bash commands, whose paths are not certain) and normalised against the
    /// session's cwd, so src/x, ./src/x and /cwd/src/x are one file. The whole file by default;
    /// --branch for the active branch only.
    #[command(after_long_help = FILES_HELP)]
    Files(FilesArgs),
    /// Compare two runs: where they part, their figures, tool calls and files
    ///
    /// A and B are two sessions, or two leaves of one (SESSION@ENTRY); each is compared as its
    /// branch, from the root to the leaf (the active leaf when no @ENTRY is given). Shows the
    /// last entry they share (by id; for unrelated files, the longest common prefix of what
    /// the model was sent, by role and content) and the first entry of each after it; cost,
    /// tokens, turns, duration, tool calls, errors, compactions and models side by side with
    /// B's change; the tool calls aligned (tool and key argument, Myers' diff); the files each
    /// read, wrote and edited. Exit 0 when it compared (differences are its answer), 1 when it
    /// could not, 2 on a usage error.
    #[command(after_long_help = DIFF_HELP)]
    Diff(DiffArgs),
    /// Check a session for CI: its integrity, or assertions on cost, tokens, tools, the end
    ///
    /// One line per assertion, ok or FAIL with the measured value and the limit, then a
    /// verdict; --json as one object per session; --summary writes Markdown (for
    /// $GITHUB_STEP_SUMMARY), --junit a JUnit XML report. Exit 0 when every assertion held, 1
    /// when one failed, 2 when the check could not be made.
    #[command(after_long_help = CHECK_HELP)]
    Check(CheckArgs),
    /// Delete sessions safely (to the trash unless --permanent)
    ///
    /// Lists what it will remove, then asks on a terminal; without one it refuses unless --yes.
    /// It removes only regular .jsonl files that hold a pi session header, inside the sessions
    /// root unless named by their path, and not the live session ($PI_SESSION_FILE) without
    /// --force.
    #[command(after_long_help = RM_HELP)]
    Rm(RmArgs),
    /// Find where something was said, across sessions
    ///
    /// Searches the decoded text of what was said and done (user and assistant text, tool
    /// calls, summaries, custom messages, session names), never JSON keys, escapes or image
    /// data; line by line, as ripgrep does. This project's sessions by default, --all for every
    /// project. Exits 0 when something matched, 1 when nothing did, 2 on an error.
    #[command(after_long_help = GREP_HELP)]
    Grep(GrepArgs),
    /// Write one branch as a pi session, as Markdown, or as one HTML page to share
    ///
    /// The branch from its root to the leaf (the one pi resumes at, or --leaf). jsonl is what
    /// pi's /export file.jsonl writes, so pi opens it and rebuilds the same context; md is
    /// GitHub-flavoured Markdown; html is one file that loads nothing from anywhere, readable
    /// without JavaScript, light or dark as the reader's system is. Never writes to its input.
    #[command(after_long_help = EXPORT_HELP)]
    Export(ExportArgs),
    /// Write shell completions or the man page (for packagers)
    #[command(hide = true)]
    Generate(GenerateArgs),
}

/// `stats --format`: a report as a table for other programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    /// Comma-separated, RFC 4180 (CRLF line ends, quotes doubled)
    Csv,
    /// Tab-separated, one line per row (tabs, newlines and backslashes in a cell escaped)
    Tsv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SortKey {
    /// Last activity, newest first (pi's order)
    Modified,
    /// The header's timestamp, newest first
    Created,
    /// File size, largest first
    Size,
    /// Message entries, most first
    Messages,
    /// Total cost, highest first
    Cost,
}

#[derive(Debug, Args)]
pub struct LsArgs {
    /// Every project's sessions, not only this project's
    ///
    /// Every *.jsonl one folder below the sessions root (pi's `listAll`), or every file in a
    /// custom session dir.
    #[arg(short, long)]
    pub all: bool,
    /// Show at most N sessions (after filtering and sorting)
    #[arg(short = 'n', long, value_name = "N")]
    pub limit: Option<usize>,
    /// Only sessions modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)
    ///
    /// "Modified" is pi's: the time of the last user or assistant message, else the header's
    /// timestamp. A date alone, today and yesterday are local midnight; a date-time without
    /// offset is local time.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only sessions modified before WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Only sessions whose project (header cwd) matches the shell glob; repeatable (any of)
    ///
    /// Looks in every project, like --all, then keeps those whose whole cwd matches: `*`
    /// crosses `/`, so '*/webshop' is a project named webshop anywhere and '~/work/*' every
    /// project under ~/work (`~` is the home dir).
    #[arg(long = "project", value_name = "GLOB")]
    pub projects: Vec<String>,
    /// Only sessions whose read, write or edit calls named PATH, or a file under it
    ///
    /// PATH is taken from the current dir; each call's path against its session's cwd, as
    /// `pisess files` reads them (src/x, ./src/x and /cwd/src/x are one file). Never from bash
    /// commands, whose paths are not certain. Every session in scope is read.
    #[arg(long, value_name = "PATH")]
    pub touched: Option<String>,
    /// Order by this key
    #[arg(long, value_enum, default_value_t = SortKey::Modified, value_name = "KEY")]
    pub sort: SortKey,
    /// Reverse the order (oldest, smallest or cheapest first)
    #[arg(short, long)]
    pub reverse: bool,
    /// NDJSON: one object per session (fields are only ever added)
    #[arg(long)]
    pub json: bool,
    /// Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)
    ///
    /// An ESTIMATED column beside COST (`~$1.23`; `+` when some usage stays unpriced), and with
    /// --json `estimatedCost` and its counts beside `usage.cost`, never added into it.
    #[arg(long, value_name = "FILE")]
    pub prices: Option<std::path::PathBuf>,
    /// Threaded as pi's /resume threads them: forks under their source, subagent runs under their parent
    ///
    /// Each subtree ordered by its latest activity, newest first. With --json, flat NDJSON in
    /// the same order, each object with `parentSessionId`, `depth` and `made`.
    #[arg(long, conflicts_with_all = ["sort", "reverse"])]
    pub tree: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The session (see SESSION below); default: the one `ls` marks *
    #[arg(value_parser = session_arg())]
    pub session: Option<OsString>,
    /// Print only this entry (id or unique prefix), in full; not with --branch, --leaf, --type,
    /// --role
    pub entry_id: Option<String>,
    /// Only the active branch (root to the last entry)
    #[arg(short, long, conflicts_with = "leaf")]
    pub branch: bool,
    /// Only the path from the root to entry ID
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
    /// Only entries of this type (message, compaction, label, ...); repeatable
    ///
    /// pi's types: message, model_change, thinking_level_change, usage, compaction,
    /// context_edit, branch_summary, custom, custom_message, label, session_info. Another value
    /// is matched as given, with a warning.
    #[arg(short = 't', long = "type", value_name = "T")]
    pub types: Vec<String>,
    /// Only messages of this role; repeatable (another value is a usage error)
    #[arg(long = "role", value_name = "R", value_parser = clap::builder::PossibleValuesParser::new(PI_ROLES))]
    pub roles: Vec<String>,
    /// Do not cut long text
    #[arg(long)]
    pub full: bool,
    /// Only the failed tool calls (isError), each with its call and first line of output
    #[arg(long, conflicts_with_all = ["entry_id", "branch", "leaf", "types", "roles", "json", "follow"])]
    pub errors: bool,
    /// The selected stored lines verbatim (NDJSON), header first
    #[arg(long)]
    pub json: bool,
    /// With --json: leave out the header line
    #[arg(long, requires = "json")]
    pub no_header: bool,
    /// Keep printing entries as pi appends them, until Ctrl-C
    ///
    /// The session as `show` prints it, then each new entry (human, or its line with --json)
    /// as soon as it is written whole. A truncated or replaced file is said on stderr and shown
    /// again from its start. Never paged. With SESSION `-`, reads stdin as it comes.
    #[arg(short = 'f', long, conflicts_with_all = ["entry_id", "leaf"])]
    pub follow: bool,
    /// With --follow: stop (exit 0) after SPAN without a new entry (30s, 5m, 1h)
    #[arg(long, value_name = "SPAN", requires = "follow")]
    pub idle_exit: Option<String>,
}

#[derive(Debug, Args)]
pub struct TreeArgs {
    /// The session (see SESSION below); default: the one `ls` marks *
    #[arg(value_parser = session_arg())]
    pub session: Option<OsString>,
    /// Which entries to draw (pi's /tree filter modes)
    #[arg(long, value_enum, default_value_t = TreeFilter::Default, value_name = "MODE")]
    pub filter: TreeFilter,
    /// NDJSON, one object per shown entry in display order: {id, parentId, depth, type, role?,
    /// label?, active, leaf, preview, children}
    ///
    /// parentId is the shown parent (null for a root), children the number of shown children:
    /// flat, so jq reads trees of any depth.
    #[arg(long)]
    pub json: bool,
    /// Print each entry's id (for `show SESSION ID` and `--leaf ID`)
    #[arg(long)]
    pub ids: bool,
}

#[derive(Debug, Args)]
pub struct PathArgs {
    /// A session to print the file of; without it, the session dir for this project
    #[arg(value_parser = session_arg())]
    pub session: Option<OsString>,
    /// Print the sessions root (<agent dir>/sessions) instead
    #[arg(long, conflicts_with = "session")]
    pub root: bool,
    /// Show every source of the session dir in order, its value and which one won
    #[arg(long)]
    pub explain: bool,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    /// The session (see SESSION below); default: the one `ls` marks *
    #[arg(value_parser = session_arg())]
    pub session: Option<OsString>,
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
    /// Cut the text of each tool result to N characters (pi sends it whole; --json too)
    #[arg(long, value_name = "N")]
    pub max_tool_chars: Option<usize>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Sessions (see SESSION below); default: the one `ls` marks *, or with --by this project's
    #[arg(value_parser = session_arg())]
    pub sessions: Vec<OsString>,
    /// Every project's sessions
    #[arg(short, long, conflicts_with = "sessions")]
    pub all: bool,
    /// Group into rows by this key (a report over sessions); two keys as day,model
    ///
    /// With two keys (day,model; model,project; …) each row is a pair: the rows are grouped
    /// under the first key in its order, ordered within by the second's. tool and message
    /// take no second key.
    #[arg(
        long,
        value_enum,
        value_name = "KEY",
        value_delimiter = ',',
        num_args = 1
    )]
    pub by: Vec<By>,
    /// Order a report's rows by KEY (default: days, weeks and months oldest first; tools by
    /// calls; the others by cost, highest first)
    #[arg(long, value_enum, value_name = "KEY")]
    pub sort: Option<crate::views::stats::SortBy>,
    /// Only the first N rows of a report (the total row still counts them all)
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// A report as CSV (RFC 4180) or TSV, one header row, for a spreadsheet or a database
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with = "json")]
    pub format: Option<TableFormat>,
    /// Only messages at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)
    ///
    /// Each message by its own time, so a session that began before WHEN counts from WHEN.
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only messages before WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// The time zone of days, weeks and months (IANA name, e.g. Europe/Berlin; default: local)
    #[arg(long, value_name = "TZ")]
    pub tz: Option<String>,
    /// JSON: one object for a session; NDJSON rows and a total row for a report
    #[arg(long)]
    pub json: bool,
    /// Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)
    #[arg(long, value_name = "FILE")]
    pub prices: Option<std::path::PathBuf>,
    /// With one SESSION: its family's figures take in its forks and clones too
    #[arg(long)]
    pub forks: bool,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("cost_gate").multiple(true).args(["max_cost", "max_cost_increase"])))]
#[command(group(clap::ArgGroup::new("priced").multiple(true).args(["max_cost", "max_cost_increase", "save_baseline"])))]
pub struct CheckArgs {
    /// Sessions to check (see SESSION below); default: the one `ls` marks *
    #[arg(value_parser = session_arg(), conflicts_with = "all")]
    pub sessions: Vec<OsString>,
    /// Check every project's sessions (with --since/--until: those modified then)
    #[arg(short, long)]
    pub all: bool,
    /// Check this project's sessions (every project's with --all) modified at or after WHEN
    /// (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)
    #[arg(long, value_name = "WHEN", conflicts_with = "sessions")]
    pub since: Option<String>,
    /// Check this project's sessions (every project's with --all) modified before WHEN
    #[arg(long, value_name = "WHEN", conflicts_with = "sessions")]
    pub until: Option<String>,
    /// Judge the SESSION file alone, without its subagent runs
    ///
    /// By default --max-cost, --max-tokens, --max-turns, --max-tool-errors/--no-tool-errors and
    /// --no-secrets on a SESSION also judge its family: the session with the subagent runs
    /// found under it (each token once), each run checked for secrets and tool errors and named
    /// when it fails.
    #[arg(long)]
    pub file_only: bool,
    /// The file's structure: header, unique ids, parents, cycles, targets, malformed or torn
    /// lines, known types and roles (the default when no other assertion is given)
    #[arg(long, help_heading = "Assertions")]
    pub integrity: bool,
    /// Total cost at most USD dollars (pi's /session cost)
    ///
    /// pi records a cost of 0 for a model it has no price for (a local model, one its registry
    /// does not know): the recorded total then leaves those tokens out, and the assertion is
    /// undecided (exit 2) unless --unpriced says how to treat them. A token count that is no
    /// number (a string pi would concatenate) is such usage too. A negative cost or token count
    /// in any usage record makes the recorded total no bound: undecided whatever --unpriced
    /// says, unless the total is already over the limit.
    #[arg(long, value_name = "USD", help_heading = "Assertions", value_parser = non_negative)]
    pub max_cost: Option<f64>,
    /// With --max-cost, usage without a price (tokens > 0 at a recorded cost of 0): ok judges
    /// the recorded cost alone; fail fails the assertion. Without it such usage is undecided
    #[arg(
        long,
        value_enum,
        value_name = "HOW",
        requires = "cost_gate",
        help_heading = "Assertions"
    )]
    pub unpriced: Option<Unpriced>,
    /// With --max-cost, judge recorded + estimated cost: usage pi recorded at $0 priced from FILE,
    /// a LiteLLM price table (docs/prices.md); what it cannot price is --unpriced's
    ///
    /// With --max-cost-increase, both runs' costs so; with --save-baseline, the estimate is saved.
    #[arg(
        long,
        value_name = "FILE",
        requires = "priced",
        help_heading = "Assertions"
    )]
    pub prices: Option<std::path::PathBuf>,
    /// Total tokens at most N (input + output + cache read + cache write)
    ///
    /// A negative token count in any usage record makes the total no bound: undecided (exit 2)
    /// unless the total is already over the limit.
    #[arg(long, value_name = "N", help_heading = "Assertions")]
    pub max_tokens: Option<u64>,
    /// At most N assistant messages
    #[arg(long, value_name = "N", help_heading = "Assertions")]
    pub max_turns: Option<u64>,
    /// The run, from its start to its last user or assistant message, at most SPAN (90s, 2h)
    #[arg(long, value_name = "SPAN", help_heading = "Assertions")]
    pub max_duration: Option<String>,
    /// At most N tool results with isError
    #[arg(long, value_name = "N", help_heading = "Assertions")]
    pub max_tool_errors: Option<u64>,
    /// No tool result with isError (--max-tool-errors 0)
    #[arg(long, conflicts_with = "max_tool_errors", help_heading = "Assertions")]
    pub no_tool_errors: bool,
    /// The active branch's last message is an assistant message with stopReason stop (not
    /// error, aborted, length or toolUse)
    #[arg(long, help_heading = "Assertions")]
    pub ended: bool,
    /// The tool NAME was called at least once on the active branch; repeatable
    #[arg(long, value_name = "NAME", help_heading = "Assertions")]
    pub require_tool: Vec<String>,
    /// The tool NAME was never called on the active branch; repeatable
    #[arg(long, value_name = "NAME", help_heading = "Assertions")]
    pub forbid_tool: Vec<String>,
    /// The final assistant message's text matches REGEX (Rust regex syntax; (?i) ignores case)
    #[arg(long, value_name = "REGEX", help_heading = "Assertions")]
    pub require_text: Option<String>,
    /// No malformed line in the file
    #[arg(long, help_heading = "Assertions")]
    pub no_malformed: bool,
    /// No secret in any entry (the findings of `grep --secrets`, each named)
    #[arg(long, help_heading = "Assertions")]
    pub no_secrets: bool,
    /// With --no-secrets: rules and allowlists to add (TOML, as `grep --secrets-config`)
    #[arg(
        long,
        value_name = "FILE",
        requires = "no_secrets",
        help_heading = "Assertions"
    )]
    pub secrets_config: Option<std::path::PathBuf>,
    /// Compare with REF, a baseline file (--save-baseline) or a session: the assertions below
    ///
    /// The figures compared are pi's /session totals over the whole file (as --max-cost and
    /// the rest judge them); the tool sequence is the active branch's, each call as its tool
    /// and key argument (the path of read, write and edit; a bash command's first word).
    #[arg(long, value_name = "REF", help_heading = "Baseline")]
    pub baseline: Option<OsString>,
    /// The cost at most LIMIT more than the baseline's: 10% of it, or dollars ($0.50)
    #[arg(
        long,
        value_name = "LIMIT",
        requires = "baseline",
        help_heading = "Baseline"
    )]
    pub max_cost_increase: Option<String>,
    /// The total tokens at most LIMIT more than the baseline's: 10%, or a count (5000)
    #[arg(
        long,
        value_name = "LIMIT",
        requires = "baseline",
        help_heading = "Baseline"
    )]
    pub max_tokens_increase: Option<String>,
    /// The assistant messages at most LIMIT more than the baseline's: 10%, or a count (3)
    #[arg(
        long,
        value_name = "LIMIT",
        requires = "baseline",
        help_heading = "Baseline"
    )]
    pub max_turns_increase: Option<String>,
    /// The duration (as --max-duration measures it) at most LIMIT more: 10%, or a span (5m)
    #[arg(
        long,
        value_name = "LIMIT",
        requires = "baseline",
        help_heading = "Baseline"
    )]
    pub max_duration_increase: Option<String>,
    /// No tool called that the baseline never called
    #[arg(long, requires = "baseline", help_heading = "Baseline")]
    pub no_new_tools: bool,
    /// No tool with more failed results (isError) than in the baseline
    #[arg(long, requires = "baseline", help_heading = "Baseline")]
    pub no_new_tool_errors: bool,
    /// The baseline's tool sequence, in order, with at most N calls inserted (default 0)
    #[arg(
        long,
        value_name = "N",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "0",
        requires = "baseline",
        help_heading = "Baseline"
    )]
    pub same_tools: Option<u64>,
    /// Write the run's figures and tool sequence to FILE, a baseline for --baseline (one
    /// session); - for stdout instead of the lines
    #[arg(long, value_name = "FILE", help_heading = "Baseline")]
    pub save_baseline: Option<OsString>,
    /// One JSON object per session: {session, path, status, assertions, findings, figures}
    #[arg(long)]
    pub json: bool,
    /// Also write a Markdown report to FILE, appended (for $GITHUB_STEP_SUMMARY); - for stdout
    /// instead of the lines
    #[arg(long, value_name = "FILE")]
    pub summary: Option<OsString>,
    /// Also write a JUnit XML report to FILE (one test case per assertion); - for stdout
    /// instead of the lines
    #[arg(long, value_name = "FILE")]
    pub junit: Option<OsString>,
}

/// A limit in dollars: a number, not negative (a typo must not make every run fail or pass).
fn non_negative(s: &str) -> Result<f64, String> {
    match s.trim().trim_start_matches('$').parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!(
            "'{s}' is not an amount of dollars (e.g. 2 or 0.50)"
        )),
    }
}

#[derive(Debug, Args)]
pub struct RmArgs {
    /// Sessions to remove (id, prefix, name or path)
    #[arg(value_parser = session_arg())]
    pub sessions: Vec<OsString>,
    /// Print what would be removed, remove nothing
    #[arg(short = 'n', long)]
    pub dry_run: bool,
    /// Do not ask (required when stdin is not a terminal)
    #[arg(short, long)]
    pub yes: bool,
    /// Unlink instead of moving to the trash
    #[arg(long)]
    pub permanent: bool,
    /// Also this project's sessions whose last activity is older than SPAN (30d, 2w, ...)
    #[arg(long, value_name = "SPAN")]
    pub older_than: Option<String>,
    /// Also this project's empty sessions (with --older-than: the old ones)
    ///
    /// Empty: nothing a person would miss. No message of any role, no custom message pi
    /// showed the user (display true: a subagent's report), no compaction or branch summary,
    /// no session name or label, no entry of a type pisess does not know, no line that does
    /// not parse (a malformed or cut-short line may hold a prompt). Model and thinking changes,
    /// usage records, context edits, extension state and hidden custom messages alone leave a
    /// session empty.
    #[arg(long)]
    pub empty: bool,
    /// With --older-than/--empty: every project, not only this one
    #[arg(short, long)]
    pub all: bool,
    /// With --older-than/--empty: only sessions whose project (header cwd) matches the shell
    /// glob, in every project; repeatable (as in `ls --project`)
    #[arg(long = "project", value_name = "GLOB")]
    pub projects: Vec<String>,
    /// Also remove the subagent runs found under each session removed (its family)
    ///
    /// Without it a session's runs (in the `<stem>/` folder beside it) are kept and the plan
    /// says so; with it each run passes the same checks and is removed before its session.
    /// Nothing else in the folder is touched, and forks and clones (sessions that name it as
    /// their parentSession) are kept either way.
    #[arg(long)]
    pub with_subagents: bool,
    /// Allow removing the live session ($PI_SESSION_FILE)
    #[arg(long)]
    pub force: bool,
    /// NDJSON events: the plan ("planned", "refused"), each outcome ("removed", "failed") as
    /// it happens, and a "total"
    #[arg(long)]
    pub json: bool,
}

/// A SESSION argument: any bytes (a path need not be UTF-8), but never empty or blank, which
/// would name nothing (`pisess rm -y "$S"` with `S` unset is a usage error, not "any session").
pub(crate) fn session_arg() -> impl clap::builder::TypedValueParser<Value = OsString> {
    use clap::builder::TypedValueParser as _;
    clap::builder::OsStringValueParser::new().try_map(|s: OsString| {
        if pisess_store::util::usage::is_blank(&s) {
            Err("a SESSION cannot be empty or blank")
        } else {
            Ok(s)
        }
    })
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The session (see SESSION below); default: the one `ls` marks *. Two or more: an
    /// archive (-o DIR)
    #[arg(value_parser = session_arg(), conflicts_with = "all")]
    pub sessions: Vec<OsString>,
    /// An archive of every project's sessions (-o DIR): one page each and an index
    #[arg(short, long)]
    pub all: bool,
    /// An archive of the sessions modified at or after WHEN (ISO date/time, today,
    /// yesterday, or a span back: 30m, 2h, 3d, 1w): this project's, or with --all every
    /// project's
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// An archive into a folder that already holds files: its pages and index replace files
    /// of the same names, the others stay
    #[arg(long)]
    pub force: bool,
    /// Export the branch that ends at entry ID (default: the leaf pi resumes at)
    #[arg(long, value_name = "ID", conflicts_with_all = ["all", "since"])]
    pub leaf: Option<String>,
    /// The format (default: from -o's extension; md on stdout)
    #[arg(short, long, value_enum, value_name = "FORMAT")]
    pub format: Option<ExportFormat>,
    /// Write to FILE instead of stdout (replaced whole, never half-written); for an archive,
    /// the folder DIR
    ///
    /// A new FILE is made 0600, since an export may hold secrets; with --redact it gets the
    /// umask's mode, to be shared. A file written again keeps its mode. An archive's DIR is
    /// made (0700, or the umask's mode with --redact); one that exists must be empty, unless
    /// --force; a symlink or a file is refused.
    #[arg(short, long, value_name = "FILE|DIR")]
    pub output: Option<OsString>,
    /// How md and html show tool calls and their results [default: collapsed]
    #[arg(long, value_enum, value_name = "HOW")]
    pub tools: Option<ToolsArg>,
    /// With --tools full: show N lines of each tool output (0: all) [default: 200]
    ///
    /// Each output is cut after N lines or N×200 bytes, whichever comes first, and says how
    /// many lines it leaves out; --tools collapsed keeps every output whole behind its
    /// disclosure.
    #[arg(long, value_name = "N", requires = "tools")]
    pub output_lines: Option<usize>,
    /// Leave the assistant's thinking out (md and html)
    #[arg(long)]
    pub no_thinking: bool,
    /// Leave out the subagent runs the branch started (md and html show each inline, collapsed,
    /// under the call that started it)
    #[arg(long)]
    pub no_subagents: bool,
    /// Replace every secret (token, key, password: docs/secrets.md) by [REDACTED kind
    /// fingerprint] before it is written, in every text, id and name of every format
    #[arg(long)]
    pub redact: bool,
    /// With --redact: rules and allowlists to add (TOML, as `grep --secrets-config`)
    #[arg(long, value_name = "FILE", requires = "redact")]
    pub secrets_config: Option<std::path::PathBuf>,
    /// md, html: beside the cost, an estimate of what pi recorded at $0, from FILE, a LiteLLM
    /// price table (docs/prices.md); never added into the cost
    #[arg(long, value_name = "FILE")]
    pub prices: Option<std::path::PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// A pi session file, as pi's /export writes it
    Jsonl,
    /// GitHub-flavoured Markdown
    Md,
    /// One self-contained HTML page
    Html,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolsArg {
    /// Calls with their inputs and outputs shown open, each output cut at 200 lines
    /// (--output-lines)
    Full,
    /// Each call's line and its output's first lines; the rest and the input in a closed
    /// <details> block
    Collapsed,
    /// No tool calls or results at all
    None,
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

#[derive(Debug, Clone, Args)]
#[allow(clippy::struct_excessive_bools)] // one per flag
pub struct GrepArgs {
    /// A regular expression (Rust's regex syntax, as ripgrep), or with -F a fixed string
    #[arg(required_unless_present = "secrets")]
    pub pattern: Option<String>,
    /// Sessions to search (see SESSION below); default: every session of the scope
    #[arg(value_parser = session_arg())]
    pub sessions: Vec<OsString>,
    /// Every project's sessions, not only this project's
    #[arg(short, long, conflicts_with = "sessions")]
    pub all: bool,
    /// Only sessions whose project (header cwd) matches the shell glob; repeatable (see `ls
    /// --project`)
    #[arg(long = "project", value_name = "GLOB", conflicts_with = "sessions")]
    pub projects: Vec<String>,
    /// Only sessions modified at or after WHEN (as in `ls`)
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only sessions modified before WHEN (as in `ls`)
    #[arg(long, value_name = "WHEN")]
    pub until: Option<String>,
    /// Only each session's active branch (root to the last entry)
    #[arg(short, long)]
    pub branch: bool,
    /// Also search tool results and the output of bash executions
    #[arg(long)]
    pub tools: bool,
    /// Also search the assistant's thinking
    #[arg(long)]
    pub thinking: bool,
    /// Only entries of this type (as in `show`); repeatable
    #[arg(short = 't', long = "type", value_name = "T")]
    pub types: Vec<String>,
    /// Only messages of this role (as in `show`); repeatable
    #[arg(long = "role", value_name = "R", value_parser = clap::builder::PossibleValuesParser::new(PI_ROLES))]
    pub roles: Vec<String>,
    /// The pattern is a fixed string, not a regular expression
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,
    /// Match case-insensitively
    #[arg(short, long)]
    pub ignore_case: bool,
    /// Case-insensitive unless the pattern holds an uppercase letter
    #[arg(short = 'S', long)]
    pub smart_case: bool,
    /// Only matches surrounded by word boundaries
    #[arg(short, long)]
    pub word_regexp: bool,
    /// Print only the files of the sessions that match, one a line (for xargs)
    #[arg(short = 'l', long, conflicts_with_all = ["count", "json"])]
    pub files_with_matches: bool,
    /// Print the number of matching lines of each session that has some: PATH:COUNT
    #[arg(short, long, conflicts_with = "json")]
    pub count: bool,
    /// Stop after N matching lines in each session
    #[arg(short = 'm', long, value_name = "N")]
    pub max_count: Option<u64>,
    /// NDJSON, one object per matching line (fields are only ever added)
    #[arg(long)]
    pub json: bool,
    /// Show N entries after each matching entry (as ripgrep's lines of context)
    #[arg(short = 'A', long, value_name = "N", conflicts_with_all = ["json", "count", "files_with_matches"])]
    pub after_context: Option<usize>,
    /// Show N entries before each matching entry
    #[arg(short = 'B', long, value_name = "N", conflicts_with_all = ["json", "count", "files_with_matches"])]
    pub before_context: Option<usize>,
    /// Show N entries before and after each matching entry (-A and -B win over it)
    #[arg(short = 'C', long, value_name = "N", conflicts_with_all = ["json", "count", "files_with_matches"])]
    pub context: Option<usize>,
    /// Find secrets (tokens, keys, passwords: docs/secrets.md) instead of a pattern, in every
    /// string of every entry; each is shown by kind, at most 4 characters and a fingerprint, and
    /// replaced by [REDACTED kind fingerprint] in a path, id or type that holds it
    #[arg(long, conflicts_with_all = SECRETS_CONFLICTS, help_heading = "Secrets")]
    pub secrets: bool,
    /// Rules and allowlists to add to the built-in ones (TOML, gitleaks's format where it fits)
    #[arg(
        long,
        value_name = "FILE",
        requires = "secrets",
        help_heading = "Secrets"
    )]
    pub secrets_config: Option<std::path::PathBuf>,
}

/// What `grep --secrets` has no use for: it reads every string of every entry.
const SECRETS_CONFLICTS: [&str; 15] = [
    "after_context",
    "before_context",
    "context",
    "fixed_strings",
    "ignore_case",
    "smart_case",
    "word_regexp",
    "tools",
    "thinking",
    "branch",
    "types",
    "roles",
    "max_count",
    "since",
    "until",
];
