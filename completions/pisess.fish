# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_pisess_global_optspecs
    string join \n session-dir= cwd= color= q/quiet verbose no-pager no-cache h/help V/version
end

function __fish_pisess_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_pisess_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_pisess_using_subcommand
    set -l cmd (__fish_pisess_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c pisess -n "__fish_pisess_needs_command" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_needs_command" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_needs_command" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_needs_command" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_needs_command" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_needs_command" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_needs_command" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_needs_command" -s V -l version -d 'Print version'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "ls" -d 'List sessions, newest first'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "list" -d 'List sessions, newest first'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "show" -d 'Print a session\'s entries'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "tree" -d 'Draw a session\'s entry tree, the active path marked'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "path" -d 'Print the session dir for this project, or a session\'s file'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "context" -d 'Rebuild the messages pi sends to the model next'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "stats" -d 'What a run did and cost, or usage reports across sessions'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "facts" -d 'The fact stream for a team: one NDJSON row per message, keyed and versioned'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "files" -d 'The files a run read, wrote and edited'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "diff" -d 'Compare two runs: where they part, their figures, tool calls and files'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "check" -d 'Check a session for CI: its integrity, or assertions on cost, tokens, tools, the end'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "rm" -d 'Delete sessions safely (to the trash unless --permanent)'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "grep" -d 'Find where something was said, across sessions'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "export" -d 'Write one branch as a pi session, as Markdown, or as one HTML page to share'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -s n -l limit -d 'Show at most N sessions (after filtering and sorting)' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l since -d 'Only sessions modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l until -d 'Only sessions modified before WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l project -d 'Only sessions whose project (header cwd) matches the shell glob; repeatable (any of)' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l touched -d 'Only sessions whose read, write or edit calls named PATH, or a file under it' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l sort -d 'Order by this key' -r -f -a "modified\t'Last activity, newest first (pi\'s order)'
created\t'The header\'s timestamp, newest first'
size\t'File size, largest first'
messages\t'Message entries, most first'
cost\t'Total cost, highest first'"
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l prices -d 'Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)' -r -F
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand ls" -s a -l all -d 'Every project\'s sessions, not only this project\'s'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -s r -l reverse -d 'Reverse the order (oldest, smallest or cheapest first)'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l json -d 'NDJSON: one object per session (fields are only ever added)'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l tree -d 'Threaded as pi\'s /resume threads them: forks under their source, subagent runs under their parent'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand list" -s n -l limit -d 'Show at most N sessions (after filtering and sorting)' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l since -d 'Only sessions modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l until -d 'Only sessions modified before WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l project -d 'Only sessions whose project (header cwd) matches the shell glob; repeatable (any of)' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l touched -d 'Only sessions whose read, write or edit calls named PATH, or a file under it' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l sort -d 'Order by this key' -r -f -a "modified\t'Last activity, newest first (pi\'s order)'
created\t'The header\'s timestamp, newest first'
size\t'File size, largest first'
messages\t'Message entries, most first'
cost\t'Total cost, highest first'"
complete -c pisess -n "__fish_pisess_using_subcommand list" -l prices -d 'Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)' -r -F
complete -c pisess -n "__fish_pisess_using_subcommand list" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand list" -s a -l all -d 'Every project\'s sessions, not only this project\'s'
complete -c pisess -n "__fish_pisess_using_subcommand list" -s r -l reverse -d 'Reverse the order (oldest, smallest or cheapest first)'
complete -c pisess -n "__fish_pisess_using_subcommand list" -l json -d 'NDJSON: one object per session (fields are only ever added)'
complete -c pisess -n "__fish_pisess_using_subcommand list" -l tree -d 'Threaded as pi\'s /resume threads them: forks under their source, subagent runs under their parent'
complete -c pisess -n "__fish_pisess_using_subcommand list" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand list" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand list" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand list" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand show" -l leaf -d 'Only the path from the root to entry ID' -r
complete -c pisess -n "__fish_pisess_using_subcommand show" -s t -l type -d 'Only entries of this type (message, compaction, label, ...); repeatable' -r
complete -c pisess -n "__fish_pisess_using_subcommand show" -l role -d 'Only messages of this role; repeatable (another value is a usage error)' -r -f -a "user\t''
assistant\t''
toolResult\t''
system\t''
bashExecution\t''
custom\t''
branchSummary\t''
compactionSummary\t''"
complete -c pisess -n "__fish_pisess_using_subcommand show" -l idle-exit -d 'With --follow: stop (exit 0) after SPAN without a new entry (30s, 5m, 1h)' -r
complete -c pisess -n "__fish_pisess_using_subcommand show" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand show" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand show" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand show" -s b -l branch -d 'Only the active branch (root to the last entry)'
complete -c pisess -n "__fish_pisess_using_subcommand show" -l full -d 'Do not cut long text'
complete -c pisess -n "__fish_pisess_using_subcommand show" -l errors -d 'Only the failed tool calls (isError), each with its call and first line of output'
complete -c pisess -n "__fish_pisess_using_subcommand show" -l json -d 'The selected stored lines verbatim (NDJSON), header first'
complete -c pisess -n "__fish_pisess_using_subcommand show" -l no-header -d 'With --json: leave out the header line'
complete -c pisess -n "__fish_pisess_using_subcommand show" -s f -l follow -d 'Keep printing entries as pi appends them, until Ctrl-C'
complete -c pisess -n "__fish_pisess_using_subcommand show" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand show" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand show" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand show" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand tree" -l filter -d 'Which entries to draw (pi\'s /tree filter modes)' -r -f -a "default\t'Hide bookkeeping entries and assistant messages without text'
no-tools\t'Default, and hide tool results'
user-only\t'Only user messages'
labeled-only\t'Only labelled entries'
all\t'Everything but usage entries and tool-call-only assistant messages (as pi\'s "all")'"
complete -c pisess -n "__fish_pisess_using_subcommand tree" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand tree" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand tree" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand tree" -l json -d 'NDJSON, one object per shown entry in display order: {id, parentId, depth, type, role?, label?, active, leaf, preview, children}'
complete -c pisess -n "__fish_pisess_using_subcommand tree" -l ids -d 'Print each entry\'s id (for `show SESSION ID` and `--leaf ID`)'
complete -c pisess -n "__fish_pisess_using_subcommand tree" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand tree" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand tree" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand tree" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand tree" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand path" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand path" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand path" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand path" -l root -d 'Print the sessions root (<agent dir>/sessions) instead'
complete -c pisess -n "__fish_pisess_using_subcommand path" -l explain -d 'Show every source of the session dir in order, its value and which one won'
complete -c pisess -n "__fish_pisess_using_subcommand path" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand path" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand path" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand path" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand path" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand context" -l leaf -d 'Build the context as if entry ID were the leaf' -r
complete -c pisess -n "__fish_pisess_using_subcommand context" -l max-tool-chars -d 'Cut the text of each tool result to N characters (pi sends it whole; --json too)' -r
complete -c pisess -n "__fish_pisess_using_subcommand context" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand context" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand context" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand context" -l llm -d 'The provider-bound messages (pi\'s convertToLlm) instead of pi\'s agent messages'
complete -c pisess -n "__fish_pisess_using_subcommand context" -l json -d 'One JSON object: {leafId, thinkingLevel, model, messages}'
complete -c pisess -n "__fish_pisess_using_subcommand context" -l full -d 'Show every message in full'
complete -c pisess -n "__fish_pisess_using_subcommand context" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand context" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand context" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand context" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand context" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l by -d 'Group into rows by this key (a report over sessions); two keys as day,model' -r -f -a "day\t''
week\t'ISO weeks (`2026-W05`), Monday first'
month\t''
model\t'`provider/model`'
project\t'The session\'s cwd'
session\t''
tool\t'Tool name: calls, results and errors'
message\t'One row per message-bearing entry (the fact table; `--json` only)'"
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l sort -d 'Order a report\'s rows by KEY (default: days, weeks and months oldest first; tools by calls; the others by cost, highest first)' -r -f -a "key\t'The key: dates oldest first, names in byte order'
cost\t'Cost, highest first'
tokens\t'Tokens, most first'
messages\t'Messages, most first'
sessions\t'Sessions, most first'
calls\t'Tool calls, most first'"
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l top -d 'Only the first N rows of a report (the total row still counts them all)' -r
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l format -d 'A report as CSV (RFC 4180) or TSV, one header row, for a spreadsheet or a database' -r -f -a "csv\t'Comma-separated, RFC 4180 (CRLF line ends, quotes doubled)'
tsv\t'Tab-separated, one line per row (tabs, newlines and backslashes in a cell escaped)'"
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l since -d 'Only messages at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)' -r
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l until -d 'Only messages before WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)' -r
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l tz -d 'The time zone of days, weeks and months (IANA name, e.g. Europe/Berlin; default: local)' -r
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l prices -d 'Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)' -r -F
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand stats" -s a -l all -d 'Every project\'s sessions'
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l json -d 'JSON: one object for a session; NDJSON rows and a total row for a report'
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l forks -d 'With one SESSION: its family\'s figures take in its forks and clones too'
complete -c pisess -n "__fish_pisess_using_subcommand stats" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand stats" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand facts" -l label -d 'A label every row carries, KEY=VALUE: host=NAME or user=NAME; repeatable' -r
complete -c pisess -n "__fish_pisess_using_subcommand facts" -l cursor -d 'Emit only the rows FILE does not record as emitted, then record them (created if absent)' -r -F
complete -c pisess -n "__fish_pisess_using_subcommand facts" -l prices -d 'Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)' -r -F
complete -c pisess -n "__fish_pisess_using_subcommand facts" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand facts" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand facts" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand facts" -s a -l all -d 'Every project\'s sessions, not only this project\'s'
complete -c pisess -n "__fish_pisess_using_subcommand facts" -l redact-paths -d 'Write each cwd as a salted hash (the salt: $PISESS_FACTS_SALT)'
complete -c pisess -n "__fish_pisess_using_subcommand facts" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand facts" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand facts" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand facts" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand facts" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand files" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand files" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand files" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand files" -l branch -d 'Only the calls on the active branch (root to the leaf pi resumes at)'
complete -c pisess -n "__fish_pisess_using_subcommand files" -l json -d 'NDJSON, one object per file, sorted by path: {sessionId, path, reads, writes, edits, errors}'
complete -c pisess -n "__fish_pisess_using_subcommand files" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand files" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand files" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand files" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand files" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand diff" -l format -d 'md: GitHub Markdown, for a pull request\'s comment' -r -f -a "md\t'GitHub-flavoured Markdown'"
complete -c pisess -n "__fish_pisess_using_subcommand diff" -l prices -d 'Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)' -r -F
complete -c pisess -n "__fish_pisess_using_subcommand diff" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand diff" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand diff" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand diff" -l json -d 'One JSON object (docs/json.md)'
complete -c pisess -n "__fish_pisess_using_subcommand diff" -l minimal -d 'Align the tool calls with the fewest rows, however long that takes (see below)'
complete -c pisess -n "__fish_pisess_using_subcommand diff" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand diff" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand diff" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand diff" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l since -d 'Check this project\'s sessions (every project\'s with --all) modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l until -d 'Check this project\'s sessions (every project\'s with --all) modified before WHEN' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l max-cost -d 'Total cost at most USD dollars (pi\'s /session cost)' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l unpriced -d 'With --max-cost, usage without a price (tokens > 0 at a recorded cost of 0): ok judges the recorded cost alone; fail fails the assertion. Without it such usage is undecided' -r -f -a "ok\t'Judge the recorded cost, leaving the unpriced tokens out'
fail\t'The assertion fails'"
complete -c pisess -n "__fish_pisess_using_subcommand check" -l prices -d 'With --max-cost, judge recorded + estimated cost: usage pi recorded at $0 priced from FILE, a LiteLLM price table (docs/prices.md); what it cannot price is --unpriced\'s' -r -F
complete -c pisess -n "__fish_pisess_using_subcommand check" -l max-tokens -d 'Total tokens at most N (input + output + cache read + cache write)' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l max-turns -d 'At most N assistant messages' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l max-duration -d 'The run, from its start to its last user or assistant message, at most SPAN (90s, 2h)' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l max-tool-errors -d 'At most N tool results with isError' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l require-tool -d 'The tool NAME was called at least once on the active branch; repeatable' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l forbid-tool -d 'The tool NAME was never called on the active branch; repeatable' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l require-text -d 'The final assistant message\'s text matches REGEX (Rust regex syntax; (?i) ignores case)' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l secrets-config -d 'With --no-secrets: rules and allowlists to add (TOML, as `grep --secrets-config`)' -r -F
complete -c pisess -n "__fish_pisess_using_subcommand check" -l baseline -d 'Compare with REF, a baseline file (--save-baseline) or a session: the assertions below' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l max-cost-increase -d 'The cost at most LIMIT more than the baseline\'s: 10% of it, or dollars ($0.50)' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l max-tokens-increase -d 'The total tokens at most LIMIT more than the baseline\'s: 10%, or a count (5000)' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l max-turns-increase -d 'The assistant messages at most LIMIT more than the baseline\'s: 10%, or a count (3)' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l max-duration-increase -d 'The duration (as --max-duration measures it) at most LIMIT more: 10%, or a span (5m)' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l same-tools -d 'The baseline\'s tool sequence, in order, with at most N calls inserted (default 0)' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l save-baseline -d 'Write the run\'s figures and tool sequence to FILE, a baseline for --baseline (one session); - for stdout instead of the lines' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l summary -d 'Also write a Markdown report to FILE, appended (for $GITHUB_STEP_SUMMARY); - for stdout instead of the lines' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l junit -d 'Also write a JUnit XML report to FILE (one test case per assertion); - for stdout instead of the lines' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand check" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand check" -s a -l all -d 'Check every project\'s sessions (with --since/--until: those modified then)'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l file-only -d 'Judge the SESSION file alone, without its subagent runs'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l integrity -d 'The file\'s structure: header, unique ids, parents, cycles, targets, malformed or torn lines, known types and roles (the default when no other assertion is given)'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l no-tool-errors -d 'No tool result with isError (--max-tool-errors 0)'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l ended -d 'The active branch\'s last message is an assistant message with stopReason stop (not error, aborted, length or toolUse)'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l no-malformed -d 'No malformed line in the file'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l no-secrets -d 'No secret in any entry (the findings of `grep --secrets`, each named)'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l no-new-tools -d 'No tool called that the baseline never called'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l no-new-tool-errors -d 'No tool with more failed results (isError) than in the baseline'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l json -d 'One JSON object per session: {session, path, status, assertions, findings, figures}'
complete -c pisess -n "__fish_pisess_using_subcommand check" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand check" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l older-than -d 'Also this project\'s sessions whose last activity is older than SPAN (30d, 2w, ...)' -r
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l project -d 'With --older-than/--empty: only sessions whose project (header cwd) matches the shell glob, in every project; repeatable (as in `ls --project`)' -r
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand rm" -s n -l dry-run -d 'Print what would be removed, remove nothing'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -s y -l yes -d 'Do not ask (required when stdin is not a terminal)'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l permanent -d 'Unlink instead of moving to the trash'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l empty -d 'Also this project\'s empty sessions (with --older-than: the old ones)'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -s a -l all -d 'With --older-than/--empty: every project, not only this one'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l with-subagents -d 'Also remove the subagent runs found under each session removed (its family)'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l force -d 'Allow removing the live session ($PI_SESSION_FILE)'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l json -d 'NDJSON events: the plan ("planned", "refused"), each outcome ("removed", "failed") as it happens, and a "total"'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l project -d 'Only sessions whose project (header cwd) matches the shell glob; repeatable (see `ls --project`)' -r
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l since -d 'Only sessions modified at or after WHEN (as in `ls`)' -r
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l until -d 'Only sessions modified before WHEN (as in `ls`)' -r
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s t -l type -d 'Only entries of this type (as in `show`); repeatable' -r
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l role -d 'Only messages of this role (as in `show`); repeatable' -r -f -a "user\t''
assistant\t''
toolResult\t''
system\t''
bashExecution\t''
custom\t''
branchSummary\t''
compactionSummary\t''"
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s m -l max-count -d 'Stop after N matching lines in each session' -r
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s A -l after-context -d 'Show N entries after each matching entry (as ripgrep\'s lines of context)' -r
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s B -l before-context -d 'Show N entries before each matching entry' -r
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s C -l context -d 'Show N entries before and after each matching entry (-A and -B win over it)' -r
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l secrets-config -d 'Rules and allowlists to add to the built-in ones (TOML, gitleaks\'s format where it fits)' -r -F
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s a -l all -d 'Every project\'s sessions, not only this project\'s'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s b -l branch -d 'Only each session\'s active branch (root to the last entry)'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l tools -d 'Also search tool results and the output of bash executions'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l thinking -d 'Also search the assistant\'s thinking'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s F -l fixed-strings -d 'The pattern is a fixed string, not a regular expression'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s i -l ignore-case -d 'Match case-insensitively'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s S -l smart-case -d 'Case-insensitive unless the pattern holds an uppercase letter'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s w -l word-regexp -d 'Only matches surrounded by word boundaries'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s l -l files-with-matches -d 'Print only the files of the sessions that match, one a line (for xargs)'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s c -l count -d 'Print the number of matching lines of each session that has some: PATH:COUNT'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l json -d 'NDJSON, one object per matching line (fields are only ever added)'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l secrets -d 'Find secrets (tokens, keys, passwords: docs/secrets.md) instead of a pattern, in every string of every entry; each is shown by kind, at most 4 characters and a fingerprint, and replaced by [REDACTED kind fingerprint] in a path, id or type that holds it'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand grep" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand export" -l since -d 'An archive of the sessions modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w): this project\'s, or with --all every project\'s' -r
complete -c pisess -n "__fish_pisess_using_subcommand export" -l leaf -d 'Export the branch that ends at entry ID (default: the leaf pi resumes at)' -r
complete -c pisess -n "__fish_pisess_using_subcommand export" -s f -l format -d 'The format (default: from -o\'s extension; md on stdout)' -r -f -a "jsonl\t'A pi session file, as pi\'s /export writes it'
md\t'GitHub-flavoured Markdown'
html\t'One self-contained HTML page'"
complete -c pisess -n "__fish_pisess_using_subcommand export" -s o -l output -d 'Write to FILE instead of stdout (replaced whole, never half-written); for an archive, the folder DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand export" -l tools -d 'How md and html show tool calls and their results [default: collapsed]' -r -f -a "full\t'Calls with their inputs and outputs shown open, each output cut at 200 lines (--output-lines)'
collapsed\t'Each call\'s line and its output\'s first lines; the rest and the input in a closed <details> block'
none\t'No tool calls or results at all'"
complete -c pisess -n "__fish_pisess_using_subcommand export" -l output-lines -d 'With --tools full: show N lines of each tool output (0: all) [default: 200]' -r
complete -c pisess -n "__fish_pisess_using_subcommand export" -l secrets-config -d 'With --redact: rules and allowlists to add (TOML, as `grep --secrets-config`)' -r -F
complete -c pisess -n "__fish_pisess_using_subcommand export" -l prices -d 'md, html: beside the cost, an estimate of what pi recorded at $0, from FILE, a LiteLLM price table (docs/prices.md); never added into the cost' -r -F
complete -c pisess -n "__fish_pisess_using_subcommand export" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand export" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand export" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand export" -s a -l all -d 'An archive of every project\'s sessions (-o DIR): one page each and an index'
complete -c pisess -n "__fish_pisess_using_subcommand export" -l force -d 'An archive into a folder that already holds files: its pages and index replace files of the same names, the others stay'
complete -c pisess -n "__fish_pisess_using_subcommand export" -l no-thinking -d 'Leave the assistant\'s thinking out (md and html)'
complete -c pisess -n "__fish_pisess_using_subcommand export" -l no-subagents -d 'Leave out the subagent runs the branch started (md and html show each inline, collapsed, under the call that started it)'
complete -c pisess -n "__fish_pisess_using_subcommand export" -l redact -d 'Replace every secret (token, key, password: docs/secrets.md) by [REDACTED kind fingerprint] before it is written, in every text, id and name of every format'
complete -c pisess -n "__fish_pisess_using_subcommand export" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand export" -l verbose -d 'Every warning about a file on its own line'
complete -c pisess -n "__fish_pisess_using_subcommand export" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand export" -l no-cache -d 'Read every session file whole, neither using nor writing the cache'
complete -c pisess -n "__fish_pisess_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "ls" -d 'List sessions, newest first'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "show" -d 'Print a session\'s entries'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "tree" -d 'Draw a session\'s entry tree, the active path marked'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "path" -d 'Print the session dir for this project, or a session\'s file'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "context" -d 'Rebuild the messages pi sends to the model next'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "stats" -d 'What a run did and cost, or usage reports across sessions'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "facts" -d 'The fact stream for a team: one NDJSON row per message, keyed and versioned'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "files" -d 'The files a run read, wrote and edited'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "diff" -d 'Compare two runs: where they part, their figures, tool calls and files'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "check" -d 'Check a session for CI: its integrity, or assertions on cost, tokens, tools, the end'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "rm" -d 'Delete sessions safely (to the trash unless --permanent)'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "grep" -d 'Find where something was said, across sessions'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "export" -d 'Write one branch as a pi session, as Markdown, or as one HTML page to share'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context stats facts files diff check rm grep export help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
