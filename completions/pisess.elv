
use builtin;
use str;

set edit:completion:arg-completer[pisess] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'pisess'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'pisess'= {
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand ls 'List sessions, newest first'
            cand list 'List sessions, newest first'
            cand show 'Print a session''s entries'
            cand tree 'Draw a session''s entry tree, the active path marked'
            cand path 'Print the session dir for this project, or a session''s file'
            cand context 'Rebuild the messages pi sends to the model next'
            cand stats 'What a run did and cost, or usage reports across sessions'
            cand files 'The files a run read, wrote and edited'
            cand check 'Check a session for CI: its integrity, or assertions on cost, tokens, tools, the end'
            cand rm 'Delete sessions safely (to the trash unless --permanent)'
            cand grep 'Find where something was said, across sessions'
            cand export 'Write one branch as a pi session, as Markdown, or as one HTML page to share'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pisess;ls'= {
            cand -n 'Show at most N sessions (after filtering and sorting)'
            cand --limit 'Show at most N sessions (after filtering and sorting)'
            cand --since 'Only sessions modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)'
            cand --until 'Only sessions modified before WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)'
            cand --project 'Only sessions whose project (header cwd) matches the shell glob; repeatable (any of)'
            cand --sort 'Order by this key'
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand -a 'Every project''s sessions, not only this project''s'
            cand --all 'Every project''s sessions, not only this project''s'
            cand -r 'Reverse the order (oldest, smallest or cheapest first)'
            cand --reverse 'Reverse the order (oldest, smallest or cheapest first)'
            cand --json 'NDJSON: one object per session (fields are only ever added)'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;list'= {
            cand -n 'Show at most N sessions (after filtering and sorting)'
            cand --limit 'Show at most N sessions (after filtering and sorting)'
            cand --since 'Only sessions modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)'
            cand --until 'Only sessions modified before WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)'
            cand --project 'Only sessions whose project (header cwd) matches the shell glob; repeatable (any of)'
            cand --sort 'Order by this key'
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand -a 'Every project''s sessions, not only this project''s'
            cand --all 'Every project''s sessions, not only this project''s'
            cand -r 'Reverse the order (oldest, smallest or cheapest first)'
            cand --reverse 'Reverse the order (oldest, smallest or cheapest first)'
            cand --json 'NDJSON: one object per session (fields are only ever added)'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;show'= {
            cand --leaf 'Only the path from the root to entry ID'
            cand -t 'Only entries of this type (message, compaction, label, ...); repeatable'
            cand --type 'Only entries of this type (message, compaction, label, ...); repeatable'
            cand --role 'Only messages of this role; repeatable (another value is a usage error)'
            cand --idle-exit 'With --follow: stop (exit 0) after SPAN without a new entry (30s, 5m, 1h)'
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand -b 'Only the active branch (root to the last entry)'
            cand --branch 'Only the active branch (root to the last entry)'
            cand --full 'Do not cut long text'
            cand --errors 'Only the failed tool calls (isError), each with its call and first line of output'
            cand --json 'The selected stored lines verbatim (NDJSON), header first'
            cand --no-header 'With --json: leave out the header line'
            cand -f 'Keep printing entries as pi appends them, until Ctrl-C'
            cand --follow 'Keep printing entries as pi appends them, until Ctrl-C'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;tree'= {
            cand --filter 'Which entries to draw (pi''s /tree filter modes)'
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand --json 'NDJSON, one object per shown entry in display order: {id, parentId, depth, type, role?, label?, active, leaf, preview, children}'
            cand --ids 'Print each entry''s id (for `show SESSION ID` and `--leaf ID`)'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;path'= {
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand --root 'Print the sessions root (<agent dir>/sessions) instead'
            cand --explain 'Show every source of the session dir in order, its value and which one won'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;context'= {
            cand --leaf 'Build the context as if entry ID were the leaf'
            cand --max-tool-chars 'Cut the text of each tool result to N characters (pi sends it whole; --json too)'
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand --llm 'The provider-bound messages (pi''s convertToLlm) instead of pi''s agent messages'
            cand --json 'One JSON object: {leafId, thinkingLevel, model, messages}'
            cand --full 'Show every message in full'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;stats'= {
            cand --by 'Group into rows by this key (a report over sessions)'
            cand --since 'Only messages at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)'
            cand --until 'Only messages before WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)'
            cand --tz 'The time zone of days, weeks and months (IANA name, e.g. Europe/Berlin; default: local)'
            cand --prices 'Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)'
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand -a 'Every project''s sessions'
            cand --all 'Every project''s sessions'
            cand --json 'JSON: one object for a session; NDJSON rows and a total row for a report'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;files'= {
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand --branch 'Only the calls on the active branch (root to the leaf pi resumes at)'
            cand --json 'NDJSON, one object per file, sorted by path: {sessionId, path, reads, writes, edits, errors}'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;check'= {
            cand --since 'Check this project''s sessions (every project''s with --all) modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)'
            cand --until 'Check this project''s sessions (every project''s with --all) modified before WHEN'
            cand --max-cost 'Total cost at most USD dollars (pi''s /session cost)'
            cand --unpriced 'With --max-cost, usage without a price (tokens > 0 at a recorded cost of 0): ok judges the recorded cost alone; fail fails the assertion. Without it such usage is undecided'
            cand --prices 'With --max-cost, judge recorded + estimated cost: usage pi recorded at $0 priced from FILE, a LiteLLM price table (docs/prices.md); what it cannot price is --unpriced''s'
            cand --max-tokens 'Total tokens at most N (input + output + cache read + cache write)'
            cand --max-turns 'At most N assistant messages'
            cand --max-duration 'The run, from its start to its last user or assistant message, at most SPAN (90s, 2h)'
            cand --max-tool-errors 'At most N tool results with isError'
            cand --require-tool 'The tool NAME was called at least once on the active branch; repeatable'
            cand --forbid-tool 'The tool NAME was never called on the active branch; repeatable'
            cand --require-text 'The final assistant message''s text matches REGEX (Rust regex syntax; (?i) ignores case)'
            cand --secrets-config 'With --no-secrets: rules and allowlists to add (TOML, as `grep --secrets-config`)'
            cand --summary 'Also write a Markdown report to FILE, appended (for $GITHUB_STEP_SUMMARY); - for stdout instead of the lines'
            cand --junit 'Also write a JUnit XML report to FILE (one test case per assertion); - for stdout instead of the lines'
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand -a 'Check every project''s sessions (with --since/--until: those modified then)'
            cand --all 'Check every project''s sessions (with --since/--until: those modified then)'
            cand --integrity 'The file''s structure: header, unique ids, parents, cycles, targets, malformed or torn lines, known types and roles (the default when no other assertion is given)'
            cand --no-tool-errors 'No tool result with isError (--max-tool-errors 0)'
            cand --ended 'The active branch''s last message is an assistant message with stopReason stop (not error, aborted, length or toolUse)'
            cand --no-malformed 'No malformed line in the file'
            cand --no-secrets 'No secret in any entry (the findings of `grep --secrets`, each named)'
            cand --json 'One JSON object per session: {session, path, status, assertions, findings, figures}'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;rm'= {
            cand --older-than 'Also this project''s sessions whose last activity is older than SPAN (30d, 2w, ...)'
            cand --project 'With --older-than/--empty: only sessions whose project (header cwd) matches the shell glob, in every project; repeatable (as in `ls --project`)'
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand -n 'Print what would be removed, remove nothing'
            cand --dry-run 'Print what would be removed, remove nothing'
            cand -y 'Do not ask (required when stdin is not a terminal)'
            cand --yes 'Do not ask (required when stdin is not a terminal)'
            cand --permanent 'Unlink instead of moving to the trash'
            cand --empty 'Also this project''s empty sessions (with --older-than: the old ones)'
            cand -a 'With --older-than/--empty: every project, not only this one'
            cand --all 'With --older-than/--empty: every project, not only this one'
            cand --force 'Allow removing the live session ($PI_SESSION_FILE)'
            cand --json 'NDJSON events: the plan ("planned", "refused"), each outcome ("removed", "failed") as it happens, and a "total"'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;grep'= {
            cand --project 'Only sessions whose project (header cwd) matches the shell glob; repeatable (see `ls --project`)'
            cand --since 'Only sessions modified at or after WHEN (as in `ls`)'
            cand --until 'Only sessions modified before WHEN (as in `ls`)'
            cand -t 'Only entries of this type (as in `show`); repeatable'
            cand --type 'Only entries of this type (as in `show`); repeatable'
            cand --role 'Only messages of this role (as in `show`); repeatable'
            cand -m 'Stop after N matching lines in each session'
            cand --max-count 'Stop after N matching lines in each session'
            cand -A 'Show N entries after each matching entry (as ripgrep''s lines of context)'
            cand --after-context 'Show N entries after each matching entry (as ripgrep''s lines of context)'
            cand -B 'Show N entries before each matching entry'
            cand --before-context 'Show N entries before each matching entry'
            cand -C 'Show N entries before and after each matching entry (-A and -B win over it)'
            cand --context 'Show N entries before and after each matching entry (-A and -B win over it)'
            cand --secrets-config 'Rules and allowlists to add to the built-in ones (TOML, gitleaks''s format where it fits)'
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand -a 'Every project''s sessions, not only this project''s'
            cand --all 'Every project''s sessions, not only this project''s'
            cand -b 'Only each session''s active branch (root to the last entry)'
            cand --branch 'Only each session''s active branch (root to the last entry)'
            cand --tools 'Also search tool results and the output of bash executions'
            cand --thinking 'Also search the assistant''s thinking'
            cand -F 'The pattern is a fixed string, not a regular expression'
            cand --fixed-strings 'The pattern is a fixed string, not a regular expression'
            cand -i 'Match case-insensitively'
            cand --ignore-case 'Match case-insensitively'
            cand -S 'Case-insensitive unless the pattern holds an uppercase letter'
            cand --smart-case 'Case-insensitive unless the pattern holds an uppercase letter'
            cand -w 'Only matches surrounded by word boundaries'
            cand --word-regexp 'Only matches surrounded by word boundaries'
            cand -l 'Print only the files of the sessions that match, one a line (for xargs)'
            cand --files-with-matches 'Print only the files of the sessions that match, one a line (for xargs)'
            cand -c 'Print the number of matching lines of each session that has some: PATH:COUNT'
            cand --count 'Print the number of matching lines of each session that has some: PATH:COUNT'
            cand --json 'NDJSON, one object per matching line (fields are only ever added)'
            cand --secrets 'Find secrets (tokens, keys, passwords: docs/secrets.md) instead of a pattern, in every string of every entry; each is shown by kind, at most 4 characters and a fingerprint, and replaced by [REDACTED kind fingerprint] in a path, id or type that holds it'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;export'= {
            cand --since 'An archive of the sessions modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w): this project''s, or with --all every project''s'
            cand --leaf 'Export the branch that ends at entry ID (default: the leaf pi resumes at)'
            cand -f 'The format (default: from -o''s extension; md on stdout)'
            cand --format 'The format (default: from -o''s extension; md on stdout)'
            cand -o 'Write to FILE instead of stdout (replaced whole, never half-written); for an archive, the folder DIR'
            cand --output 'Write to FILE instead of stdout (replaced whole, never half-written); for an archive, the folder DIR'
            cand --tools 'How md and html show tool calls and their results [default: collapsed]'
            cand --output-lines 'With --tools full: show N lines of each tool output (0: all) [default: 200]'
            cand --secrets-config 'With --redact: rules and allowlists to add (TOML, as `grep --secrets-config`)'
            cand --session-dir 'Read sessions from DIR instead of pi''s session dir'
            cand --cwd 'Act as if run in DIR'
            cand --color 'When to use colours'
            cand -a 'An archive of every project''s sessions (-o DIR): one page each and an index'
            cand --all 'An archive of every project''s sessions (-o DIR): one page each and an index'
            cand --force 'An archive into a folder that already holds files: its pages and index replace files of the same names, the others stay'
            cand --no-thinking 'Leave the assistant''s thinking out (md and html)'
            cand --redact 'Replace every secret (token, key, password: docs/secrets.md) by [REDACTED kind fingerprint] before it is written, in every text, id and name of every format'
            cand -q 'No warnings on stderr (errors are still printed)'
            cand --quiet 'No warnings on stderr (errors are still printed)'
            cand --no-pager 'Never page human output'
            cand --no-cache 'Read every session file whole, neither using nor writing the cache'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'pisess;help'= {
            cand ls 'List sessions, newest first'
            cand show 'Print a session''s entries'
            cand tree 'Draw a session''s entry tree, the active path marked'
            cand path 'Print the session dir for this project, or a session''s file'
            cand context 'Rebuild the messages pi sends to the model next'
            cand stats 'What a run did and cost, or usage reports across sessions'
            cand files 'The files a run read, wrote and edited'
            cand check 'Check a session for CI: its integrity, or assertions on cost, tokens, tools, the end'
            cand rm 'Delete sessions safely (to the trash unless --permanent)'
            cand grep 'Find where something was said, across sessions'
            cand export 'Write one branch as a pi session, as Markdown, or as one HTML page to share'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pisess;help;ls'= {
        }
        &'pisess;help;show'= {
        }
        &'pisess;help;tree'= {
        }
        &'pisess;help;path'= {
        }
        &'pisess;help;context'= {
        }
        &'pisess;help;stats'= {
        }
        &'pisess;help;files'= {
        }
        &'pisess;help;check'= {
        }
        &'pisess;help;rm'= {
        }
        &'pisess;help;grep'= {
        }
        &'pisess;help;export'= {
        }
        &'pisess;help;help'= {
        }
    ]
    $completions[$command]
}
