# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_pisess_global_optspecs
    string join \n session-dir= cwd= color= q/quiet no-pager h/help V/version
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
complete -c pisess -n "__fish_pisess_needs_command" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_needs_command" -s V -l version -d 'Print version'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "ls" -d 'List sessions, newest first'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "list" -d 'List sessions, newest first'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "show" -d 'Print a session\'s entries'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "tree" -d 'Draw a session\'s entry tree, the active path marked'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "path" -d 'Print the session dir for this project, or a session\'s file'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "context" -d 'Rebuild the messages pi sends to the model next'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "rm" -d 'Delete sessions safely (to the trash unless --permanent)'
complete -c pisess -n "__fish_pisess_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -s n -l limit -d 'Show at most N sessions (after filtering and sorting)' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l since -d 'Only sessions modified at or after WHEN (ISO date/time, or a span back: 30m, 2h, 3d, 1w)' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l until -d 'Only sessions modified before WHEN (ISO date/time, or a span back: 30m, 2h, 3d, 1w)' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l sort -d 'Order by this key' -r -f -a "modified\t'Last activity, newest first (pi\'s order)'
created\t'The header\'s timestamp, newest first'
size\t'File size, largest first'
messages\t'Message entries, most first'
cost\t'Total cost, highest first'"
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand ls" -s a -l all -d 'Every project\'s sessions, not only this project\'s'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -s r -l reverse -d 'Reverse the order (oldest, smallest or cheapest first)'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l json -d 'NDJSON: one object per session (fields are only ever added)'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand ls" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand list" -s n -l limit -d 'Show at most N sessions (after filtering and sorting)' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l since -d 'Only sessions modified at or after WHEN (ISO date/time, or a span back: 30m, 2h, 3d, 1w)' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l until -d 'Only sessions modified before WHEN (ISO date/time, or a span back: 30m, 2h, 3d, 1w)' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l sort -d 'Order by this key' -r -f -a "modified\t'Last activity, newest first (pi\'s order)'
created\t'The header\'s timestamp, newest first'
size\t'File size, largest first'
messages\t'Message entries, most first'
cost\t'Total cost, highest first'"
complete -c pisess -n "__fish_pisess_using_subcommand list" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand list" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand list" -s a -l all -d 'Every project\'s sessions, not only this project\'s'
complete -c pisess -n "__fish_pisess_using_subcommand list" -s r -l reverse -d 'Reverse the order (oldest, smallest or cheapest first)'
complete -c pisess -n "__fish_pisess_using_subcommand list" -l json -d 'NDJSON: one object per session (fields are only ever added)'
complete -c pisess -n "__fish_pisess_using_subcommand list" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand list" -l no-pager -d 'Never page human output'
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
complete -c pisess -n "__fish_pisess_using_subcommand show" -l json -d 'The selected stored lines verbatim (NDJSON), header first'
complete -c pisess -n "__fish_pisess_using_subcommand show" -l no-header -d 'With --json: leave out the header line'
complete -c pisess -n "__fish_pisess_using_subcommand show" -s f -l follow -d 'Keep printing entries as pi appends them, until Ctrl-C'
complete -c pisess -n "__fish_pisess_using_subcommand show" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand show" -l no-pager -d 'Never page human output'
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
complete -c pisess -n "__fish_pisess_using_subcommand tree" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand tree" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand path" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand path" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand path" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand path" -l root -d 'Print the sessions root (<agent dir>/sessions) instead'
complete -c pisess -n "__fish_pisess_using_subcommand path" -l explain -d 'Show every source of the session dir in order, its value and which one won'
complete -c pisess -n "__fish_pisess_using_subcommand path" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand path" -l no-pager -d 'Never page human output'
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
complete -c pisess -n "__fish_pisess_using_subcommand context" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand context" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l older-than -d 'Also this project\'s sessions whose last activity is older than SPAN (30d, 2w, ...)' -r
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l session-dir -d 'Read sessions from DIR instead of pi\'s session dir' -r
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l cwd -d 'Act as if run in DIR' -r
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l color -d 'When to use colours' -r -f -a "auto\t'Colour a stream when it is a terminal and NO_COLOR is unset or empty'
always\t'Always colour, even into a pipe (e.g. for less -R)'
never\t'Never colour'"
complete -c pisess -n "__fish_pisess_using_subcommand rm" -s n -l dry-run -d 'Print what would be removed, remove nothing'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -s y -l yes -d 'Do not ask (required when stdin is not a terminal)'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l permanent -d 'Unlink instead of moving to the trash'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l empty -d 'Also this project\'s sessions without messages (with --older-than: the old ones)'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -s a -l all -d 'With --older-than/--empty: every project, not only this one'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l force -d 'Allow removing the live session ($PI_SESSION_FILE)'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l json -d 'NDJSON events: the plan ("planned", "refused"), each outcome ("removed", "failed") as it happens, and a "total"'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -s q -l quiet -d 'No warnings on stderr (errors are still printed)'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -l no-pager -d 'Never page human output'
complete -c pisess -n "__fish_pisess_using_subcommand rm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context rm help" -f -a "ls" -d 'List sessions, newest first'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context rm help" -f -a "show" -d 'Print a session\'s entries'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context rm help" -f -a "tree" -d 'Draw a session\'s entry tree, the active path marked'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context rm help" -f -a "path" -d 'Print the session dir for this project, or a session\'s file'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context rm help" -f -a "context" -d 'Rebuild the messages pi sends to the model next'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context rm help" -f -a "rm" -d 'Delete sessions safely (to the trash unless --permanent)'
complete -c pisess -n "__fish_pisess_using_subcommand help; and not __fish_seen_subcommand_from ls show tree path context rm help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
