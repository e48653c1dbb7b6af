//! The long help's texts (`after_long_help`): the forms of a SESSION argument and each
//! command's examples, kept apart from the declarations in `cli.rs` that use them.

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
pub(super) const AFTER_LONG_HELP: &str = concat!(
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

pub(super) const LS_HELP: &str = "\
* marks the session a command without SESSION reads: $PI_SESSION_FILE when set, else
pi -c's choice, this project's file modified last. Rows are ordered by last message, so
after a copy or a clone the marked session need not be the top row.

Examples:
  pisess ls -n 5                       the five most recent sessions of this project
  pisess ls --all --sort cost -n 10    the ten most expensive sessions of any project
  pisess ls --all --since 2025-05-01 --until 2025-06-01
  pisess ls --all --touched src/cart.ts   the sessions that read, wrote or edited it
  pisess ls --all --json | jq -r 'select(.branches > 1) | .path'   sessions with branches
  pisess ls --tree                     forks under their source, subagent runs under their parent
  pisess ls --all --json > s.ndjson    then, in DuckDB:
    select cwd, sum(usage.cost) from read_json_auto('s.ndjson') group by 1";

pub(super) const SHOW_HELP: &str = concat!(
    session_help!(),
    "Examples:
  pisess show --branch                 the active branch of this project's newest session
  pisess show 0196cdea --role user --full    every user message, uncut
  pisess show 0196c9f4 9117e1dd        one entry in full
  pisess show --json --no-header | jq -c 'select(.type == \"compaction\")'"
);

pub(super) const TREE_HELP: &str = concat!(
    session_help!(),
    "Examples:
  pisess tree                          the newest session's tree
  pisess tree 0196c9f4 --filter user-only    only user messages: where the branches split
  pisess tree --ids                    each entry's id, to pass to show or --leaf
  pisess tree --json | jq -r 'select(.label) | \"\\(.id) \\(.label)\"'"
);

pub(super) const PATH_HELP: &str = concat!(
    "SESSION:\n",
    session_forms!(),
    "

Examples:
  pisess path                          the folder pi writes this project's sessions to
  pisess path --explain                why that folder: flag, env, settings, default
  pisess path 0196cdea                 a session's file
  less \"$(pisess path 0196cdea)\""
);

pub(super) const CONTEXT_HELP: &str = concat!(
    session_help!(),
    "Examples:
  pisess context                       the next request, one line per message, with a total
  pisess context 0196c9f4 --leaf 1df9294d    as if resumed at the end of another branch
  pisess context --llm --json | jq -r '.messages[].role'"
);

pub(super) const STATS_HELP: &str = concat!(
    session_help!(),
    "Examples:
  pisess stats                         what the newest session did and cost
  pisess stats --all --by day --since 1w    cost per day of the last week, every project
  pisess stats --all --by model --json | jq -r '[.key, .cost] | @tsv'
  pisess stats --all --by message --json > facts.ndjson    the fact table, for DuckDB and co.
  pisess stats --all --by day,model --since 1w    each day's cost per model (ccusage's breakdown)
  pisess stats --all --by project --sort tokens --top 5    the five projects that used most
  pisess stats --all --by month --format csv > usage.csv   for a spreadsheet (one header row)

  Times are local (--tz to override); weeks are ISO weeks. Each message counts at its own time
  and each usage under its own model, so the buckets add up to pi's /session totals.
  CSV is RFC 4180; a text cell starting with = + - or @ gets a leading ' so a spreadsheet
  does not run it as a formula (TSV keeps text exact, escaping tabs and line ends)."
);

pub(super) const FACTS_HELP: &str = "\
Examples:
  pisess facts --all > facts.ndjson    every project's rows, for DuckDB (docs/team.md)
  pisess facts --all --cursor ~/.cache/pisess-facts.cursor |
    clickhouse-client --query 'INSERT INTO pisess_facts FORMAT JSONEachRow'    a cron job
  PISESS_FACTS_SALT=team-secret pisess facts --all --redact-paths --label user=ana

  Emitting a row twice is harmless: an engine keyed by (sessionId, entryId) keeps one, the
  highest version. Times are UTC.";

pub(super) const FILES_HELP: &str = concat!(
    session_help!(),
    "Examples:
  pisess files                         the files the newest session touched
  pisess files --branch                only those of the active branch
  pisess files --json | jq -r 'select(.edits > 0) | .path'    the files it edited

  A path outside the cwd stays absolute; `..` is folded lexically, and no file is looked at."
);

pub(super) const DIFF_HELP: &str = concat!(
    session_help!(),
    "SESSION@ENTRY:
  the branch from the root to ENTRY (an id or a unique prefix) of SESSION; the argument
  splits at its last @, unless the whole names a file that exists (a path with an @ stays a
  path); @ENTRY alone is an entry of the default session

Examples:
  pisess diff 0196cdea 0196d88e        two runs: where they part, what each did
  pisess diff 0196cdea@3f2a 0196cdea@9b1c    two leaves of one session
  pisess diff A B --json | jq '.delta.cost'   B's cost less A's (null when unpriced)
  pisess diff A B --format md >> \"$GITHUB_STEP_SUMMARY\"

  Figures are per branch, pi's own (getSessionStats of the branch alone); the duration is
  check --max-duration's (from the start to the last user or assistant message). A cost with
  usage pi could not price is marked + and its change is ? (never a difference of lower
  bounds); --prices estimates that usage apart (~$).

  The tool calls are aligned by Myers' diff with a cost limit (as GNU diff's and git's): runs
  differing in up to 2 x max(256, sqrt(calls of both)) places are aligned with the fewest
  rows; past that, a search stops after that many rounds (a count, never a clock: the same
  answer on every machine) and splits where it got furthest, which may show a few more rows
  than the fewest (and leaves them where found, not slid to join other runs). --minimal asks
  for the fewest rows however long that takes."
);

pub(super) const CHECK_HELP: &str = concat!(
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

Against a baseline (the last good run): --save-baseline FILE writes the run's figures and its
tool sequence (numbers, tool names, each call's path or command word; no content, secrets
redacted); --baseline REF (such a file, or a session) compares with it:
  --max-cost-increase 10%|$0.50      --max-tokens-increase 10%|N
  --max-turns-increase 10%|N         --max-duration-increase 10%|SPAN
  --no-new-tools                     no tool the baseline never called
  --no-new-tool-errors               no tool with more failed results than in the baseline
  --same-tools[=N]                   the baseline's calls in order, at most N more (default 0)
Each failure names the baseline's value, the run's and the limit. Usage without a price on
either side leaves the cost comparison undecided, as --max-cost (--unpriced, --prices).

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
  pisess check --baseline good.json --max-cost-increase 10% --no-new-tools --same-tools=2

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

pub(super) const GREP_HELP: &str = concat!(
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

pub(super) const EXPORT_HELP: &str = concat!(
    session_help!(),
    "Formats (--format, else -o's extension: .jsonl, .md, .html):
  jsonl  pi's own export (/export file.jsonl): a new v3 header, then the branch's entries,
         each as stored but the root's parentId (null); v1/v2 sessions migrated as pi does
  md     a title and facts (model, project, start, duration, cost), each message under a
         heading with its time and an anchor; thinking in <details>; each tool call one
         line in pi's wording ($ command, read path, edit path (+12 −3), write path, grep
         /re/ in path), its error, its output's first lines, the rest and its input in
         <details> (--tools full: open, each output cut at 200 lines; --output-lines)
  html   one self-contained page: no request leaves it (a Content-Security-Policy forbids
         it), the whole branch readable with JavaScript off, tool calls as in md; the
         session tree beside it (this branch's user messages, every other branch with its
         first message, cost and --leaf ID), the system prompt and tools, images inline;
         #ENTRY-ID links to an entry; labels shown; with JavaScript: search, copy-link,
         pi's /tree filters (no tools, user only, labeled only), and toggles for thinking
         (key T), tool output (O) and extensions' messages (H)

An archive (--all, --since WHEN, or two sessions or more; -o DIR, or -o DIR/ for one):
  one page per session (its active branch, md or html) and an index (index.html: a table
  of date, project, title, messages, cost and models, sortable with JavaScript; index.md),
  every link relative. DIR is made (0700; with --redact the umask's mode); an existing DIR
  must be an empty folder, or any folder with --force (pages and index replace files of
  the same names, the rest stay); a symlink or a file is refused, and so is a page whose
  name is a symlink. Two sessions that would share a page name get -2, -3. A session that
  cannot be read is said and left out (exit 1).

Examples:
  pisess export --format html -o session.html      the newest session's active branch
  pisess export 0196c9f4 --leaf 1df9294d -o fix.md another branch, as Markdown
  pisess export 0196c9f4 --format md --tools none --no-thinking    the conversation only
  pisess export 0196c9f4 -o branch.jsonl && pi --session branch.jsonl
  pisess export 0196c9f4 --redact -o share.html    secrets replaced before anyone sees them
  pisess export --all --since 1w --redact -o runs  a week of every project, to share"
);

pub(super) const RM_HELP: &str = "\
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
