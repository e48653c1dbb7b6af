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

/// The forms of a SESSION argument, shared by the help texts below (a macro, not a const, so
/// `concat!` can splice it into them).
macro_rules! session_forms {
    () => {
        "  -                 read the session from standard input
  PATH              a file (anything with / or \\ or ending in .jsonl is a path)
  ID | PREFIX | NAME
                    looked up by id prefix and exact name (pi's /name) together, in this
                    project first, then in all projects: one match is the session, several
                    are an error that lists each (and why it matched); an exact id beats
                    longer ids that start with it; empty or blank is a usage error"
    };
}

/// The same, with what an omitted SESSION means.
macro_rules! session_help {
    () => {
        concat!(
            "SESSION:\n",
            session_forms!(),
            "
  (omitted)         $PI_SESSION_FILE, else what `pi -c` resumes: this project's file modified
                    last (newest modification time, not newest message); `ls` marks it *

"
        )
    };
}

// clap wraps the long help at the terminal width, at most 100 columns: lines here stay shorter so
// the examples and tables keep their layout at that width (a narrower terminal wraps them).
const AFTER_LONG_HELP: &str = concat!(
    session_help!(),
    "Examples:
  pisess ls                            this project's sessions, newest first
  pisess ls --all --since 2d           every project's sessions of the last two days
  pisess tree                          the newest session's tree, active path marked
  pisess show --branch                 the entries of the active branch
  pisess context --llm                 what the model is sent next

  Find the session where something happened:
    pisess grep --all -i stripe          every session that mentions it, and where
    pisess grep --all -l -F sk_test_     only the files, for xargs

  Pipe into jq:
    pisess ls --all --json | jq -s 'map(.usage.cost) | add'
    pisess show --json --no-header --role user | jq -r '.message.content | strings'
    pisess context --json | jq '.messages | length'

  Check a run in CI (exit 0 every assertion held, 1 one failed, 2 could not check):
    pisess check --ended --no-tool-errors --max-cost 2
    pisess check --all --since 1h --ended --summary \"$GITHUB_STEP_SUMMARY\"
  A jq check needs pipefail (else a pisess error is lost in the pipe) and jq -se with a
  length test (jq -e passes on empty input, so no session would pass):
    set -o pipefail
    pisess ls --all --json | jq -se 'length > 0 and all(.malformedLines == 0)'

Output:
  Human output shows relative times (3h ago) and is coloured on a terminal; --json output is
  never coloured or cut, and its times are ISO 8601 in UTC. Fields are only ever added
  (docs/json.md). Warnings go to stderr as `pisess: warning: FILE:LINE: ...`, errors as
  one line `pisess: error: ...`.

Exit codes:
  0  done (warnings do not change the exit code)
  1  the command could not do its job: no such session, an unreadable file, a refused
     deletion, some files unreadable in `ls` (the rest are still listed)
  2  usage error: an unknown option or subcommand, a bad value
  check: 0 every assertion held, 1 one failed, 2 the check could not be made
  grep exits as ripgrep does: 0 something matched, 1 nothing matched, 2 an error

Environment:
  PI_CODING_AGENT_DIR          pi's agent dir (default ~/.pi/agent); sessions are in its
                               sessions/ folder, one --<cwd>-- folder per project
  PI_CODING_AGENT_SESSION_DIR  the session dir; beaten by --session-dir, beats the sessionDir
                               setting in .pi/settings.json (`pisess path --explain` shows all)
  PI_SESSION_FILE              the session a running pi writes: the default SESSION when set
  NO_COLOR                     set and not empty: no colour unless --color always
  PISESS_PAGER, PAGER          the pager for long output on a terminal (default less -FRX;
                               empty or cat: none); --no-pager turns it off
  COLUMNS                      the width tables and previews are cut to
  PISESS_CACHE_DIR             where listings and stats keep what they learned of each session
                               file (default $XDG_CACHE_HOME/pisess, ~/.cache/pisess);
                               --no-cache neither reads nor writes it
  PISESS_PROGRESS              a run over many files that lasts past 300 ms shows its progress
                               on stderr when that is a terminal (never with -q): 0 never,
                               1 even when CI is set (by default not then)

Completion of session ids: source <(COMPLETE=bash pisess)  (or zsh; fish: COMPLETE=fish pisess | source)"
);

const LS_HELP: &str = "\
* marks the session a command without SESSION reads: $PI_SESSION_FILE when set, else
pi -c's choice, this project's file modified last. Rows are ordered by last message, so
after a copy or a clone the marked session need not be the top row.

Examples:
  pisess ls -n 5                       the five most recent sessions of this project
  pisess ls --all --sort cost -n 10    the ten most expensive sessions of any project
  pisess ls --all --since 2025-05-01 --until 2025-06-01
  pisess ls --all --json | jq -r 'select(.branches > 1) | .path'   sessions with branches
  pisess ls --all --json > s.ndjson    then, in DuckDB:
    select cwd, sum(usage.cost) from read_json_auto('s.ndjson') group by 1";

const SHOW_HELP: &str = concat!(
    session_help!(),
    "Examples:
  pisess show --branch                 the active branch of this project's newest session
  pisess show 0196cdea --role user --full    every user message, uncut
  pisess show 0196c9f4 9117e1dd        one entry in full
  pisess show --json --no-header | jq -c 'select(.type == \"compaction\")'"
);

const TREE_HELP: &str = concat!(
    session_help!(),
    "Examples:
  pisess tree                          the newest session's tree
  pisess tree 0196c9f4 --filter user-only    only user messages: where the branches split
  pisess tree --ids                    each entry's id, to pass to show or --leaf
  pisess tree --json | jq -r 'select(.label) | \"\\(.id) \\(.label)\"'"
);

const PATH_HELP: &str = concat!(
    "SESSION:\n",
    session_forms!(),
    "

Examples:
  pisess path                          the folder pi writes this project's sessions to
  pisess path --explain                why that folder: flag, env, settings, default
  pisess path 0196cdea                 a session's file
  less \"$(pisess path 0196cdea)\""
);

const CONTEXT_HELP: &str = concat!(
    session_help!(),
    "Examples:
  pisess context                       the next request, one line per message, with a total
  pisess context 0196c9f4 --leaf 1df9294d    as if resumed at the end of another branch
  pisess context --llm --json | jq -r '.messages[].role'"
);

const STATS_HELP: &str = concat!(
    session_help!(),
    "Examples:
  pisess stats                         what the newest session did and cost
  pisess stats --all --by day --since 1w    cost per day of the last week, every project
  pisess stats --all --by model --json | jq -r '[.key, .cost] | @tsv'
  pisess stats --all --by message --json > facts.ndjson    the fact table, for DuckDB and co.

  Times are local (--tz to override); weeks are ISO weeks. Each message counts at its own time
  and each usage under its own model, so the buckets add up to pi's /session totals."
);

const CHECK_HELP: &str = concat!(
    session_help!(),
    "Assertions (combine freely; without one, --integrity is checked):
  --integrity            a valid header, unique ids, every parent present, no cycles, targets
                         that exist, no malformed or torn lines, known types and roles
  --max-cost USD         --max-tokens N    --max-turns N (assistant messages)
  --max-duration SPAN    (earliest to latest timestamp of any line: 30m, 2h)
  --max-tool-errors N    --no-tool-errors  --no-malformed
  --ended                the active branch ends in an assistant message with stopReason stop
  --require-tool NAME    --forbid-tool NAME   (called at least once / never, on the active branch)
  --require-text REGEX   in the final assistant text
  --no-secrets           no token, key or password in any entry (docs/secrets.md); each
                         finding named by kind, 4 characters at most and a fingerprint
Totals are pi's /session figures over the whole file, the same as `ls` reports.

Exit codes (the agent's failure apart from the tool's):
  0  every assertion held
  1  at least one assertion failed
  2  an assertion could not be decided and none failed (UNDECIDED), or the check could not
     be made: a usage error, no such session, an unreadable file
With several sessions the worst result decides, in this order: a session that could not be
checked (2), then a failure (1), then an undecided assertion (2), then a pass (0); a failure
wins over undecided across sessions as within one. Never 0 when no session was found.

Examples:
  pisess check                         the newest session's integrity
  pisess check --ended --no-tool-errors --max-cost 2
  pisess check --all --since 1h --ended --summary \"$GITHUB_STEP_SUMMARY\" --junit check.xml

  A worked example: in CI, after `pi -p \"Fix the failing test\"`,
    $ pisess check --ended --max-cost 2 --require-tool bash
    0196c9f4  ~/.pi/agent/sessions/--home-dev-webshop--/2025-05-13T14-02-41-507Z_0196c9f4-....jsonl
    ok   ended: assistant, stopReason stop
    FAIL max-cost: $2.31 > $2.00
    ok   require-tool bash: 2 calls on the active branch
    FAIL: 1 of 3 assertions failed
    $ echo $?
    1
  Had there been no session at all, the line would be an error and the exit code 2."
);

const GREP_HELP: &str = concat!(
    "SESSION (each one given; none: every session of the scope):\n",
    session_forms!(),
    "

What is searched:
  always      user and assistant text, tool calls (the name, and each string argument),
              branch and compaction summaries, custom messages, session names, the command
              of a ! bash execution
  --tools     tool results and the output of ! bash executions
  --thinking  the assistant's thinking
  Text is matched decoded (a stored \\n is a line break, \\u00e9 is é), one line at a time.

Output:
  Sessions in the order of their files' names, newest created first, each under a heading
  (id, last activity, project, title), one line per matching line: entry id, role or type,
  the line (cut around the match on a terminal). -A/-B/-C N add N entries of context after,
  before or around each matching entry (entry id, `-`, role or type, its first line), groups
  apart marked `--`. -l prints the files only, -c a count per session, --json one object per
  matching line (docs/json.md).

Exit codes (as ripgrep's):
  0  something matched
  1  nothing matched
  2  an error: a bad pattern or glob, no such session, an unreadable file (damaged lines
     are warnings and change nothing)

Examples:
  pisess grep stripe                   where this project's sessions mention stripe
  pisess grep --all -i 'rate.?limit'   in every project, any case
  pisess grep --all -F 'a \"quoted\" thing' --tools    tool output too, as a fixed string
  pisess grep --project '*/webshop' -l TODO | xargs -n1 pisess tree
  pisess grep --all --json deploy | jq -r '.sessionId' | sort | uniq -c
  pisess grep --secrets --all          every secret any session leaked (never printed)"
);

const EXPORT_HELP: &str = concat!(
    session_help!(),
    "Formats (--format, else -o's extension: .jsonl, .md, .html):
  jsonl  pi's own export (/export file.jsonl): a new v3 header, then the branch's entries,
         each as stored but the root's parentId (null); v1/v2 sessions migrated as pi does
  md     a title and facts (model, project, start, duration, cost), each message under a
         heading with its time and an anchor; thinking and tool calls in <details>
  html   one self-contained page: no request leaves it (a Content-Security-Policy forbids
         it), the whole branch readable with JavaScript off; search, expand/collapse and
         copy-link with it

Examples:
  pisess export --format html -o session.html      the newest session's active branch
  pisess export 0196c9f4 --leaf 1df9294d -o fix.md another branch, as Markdown
  pisess export 0196c9f4 --format md --tools none --no-thinking    the conversation only
  pisess export 0196c9f4 -o branch.jsonl && pi --session branch.jsonl
  pisess export 0196c9f4 --redact -o share.html    secrets replaced before anyone sees them"
);

const RM_HELP: &str = "\
Examples:
  pisess rm 0196cdea                   show the session, ask, move it to the trash
  pisess rm --older-than 30d --empty --dry-run   what a clean-up would remove
  pisess rm --all --empty --yes        remove every empty session (see --empty), without asking
  pisess rm --json --yes \"$S\" | jq -c 'select(.event == \"failed\")'

What goes is the file that was checked: on Linux it is moved aside by one atomic rename,
checked again there (device, inode, session id) and only then trashed or unlinked. The plan is
printed before anything is removed, and each outcome as it happens.

Exit codes: 0 every planned session was removed (or a dry run), 1 something was refused or
failed (or the plan could not be written: then nothing was removed), 2 usage error (an empty
SESSION among them), 130 stopped by Ctrl-C after the file in hand (the report says what went).";

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
    /// Order by this key
    #[arg(long, value_enum, default_value_t = SortKey::Modified, value_name = "KEY")]
    pub sort: SortKey,
    /// Reverse the order (oldest, smallest or cheapest first)
    #[arg(short, long)]
    pub reverse: bool,
    /// NDJSON: one object per session (fields are only ever added)
    #[arg(long)]
    pub json: bool,
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
    /// Group into rows by this key (a report over sessions)
    #[arg(long, value_enum, value_name = "KEY")]
    pub by: Option<By>,
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
}

#[derive(Debug, Args)]
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
        requires = "max_cost",
        help_heading = "Assertions"
    )]
    pub unpriced: Option<Unpriced>,
    /// With --max-cost, judge recorded + estimated cost: usage pi recorded at $0 priced from FILE,
    /// a LiteLLM price table (docs/prices.md); what it cannot price is --unpriced's
    #[arg(
        long,
        value_name = "FILE",
        requires = "max_cost",
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
    /// From the header's time to the last user or assistant message at most SPAN (90s, 30m, 2h)
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
fn session_arg() -> impl clap::builder::TypedValueParser<Value = OsString> {
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
    /// The session (see SESSION below); default: the one `ls` marks *
    #[arg(value_parser = session_arg())]
    pub session: Option<OsString>,
    /// Export the branch that ends at entry ID (default: the leaf pi resumes at)
    #[arg(long, value_name = "ID")]
    pub leaf: Option<String>,
    /// The format (default: from -o's extension; md on stdout)
    #[arg(short, long, value_enum, value_name = "FORMAT")]
    pub format: Option<ExportFormat>,
    /// Write to FILE instead of stdout (replaced whole, never half-written)
    ///
    /// A new FILE is made 0600, since an export may hold secrets; with --redact it gets the
    /// umask's mode, to be shared. A file written again keeps its mode.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<OsString>,
    /// How md and html show tool calls and their results [default: collapsed]
    #[arg(long, value_enum, value_name = "HOW")]
    pub tools: Option<ToolsArg>,
    /// Leave the assistant's thinking out (md and html)
    #[arg(long)]
    pub no_thinking: bool,
    /// Replace every secret (token, key, password: docs/secrets.md) by [REDACTED kind
    /// fingerprint] before it is written, in every text, id and name of every format
    #[arg(long)]
    pub redact: bool,
    /// With --redact: rules and allowlists to add (TOML, as `grep --secrets-config`)
    #[arg(long, value_name = "FILE", requires = "redact")]
    pub secrets_config: Option<std::path::PathBuf>,
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
    /// Calls with their arguments and results, shown open
    Full,
    /// The same in closed <details> blocks
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

#[derive(Debug, Args)]
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
