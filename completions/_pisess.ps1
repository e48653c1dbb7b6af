
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'pisess' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'pisess'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'pisess' {
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List sessions, newest first')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List sessions, newest first')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print a session''s entries')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Draw a session''s entry tree, the active path marked')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the session dir for this project, or a session''s file')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Rebuild the messages pi sends to the model next')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Delete sessions safely (to the trash unless --permanent)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pisess;ls' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N sessions (after filtering and sorting)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N sessions (after filtering and sorting)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions modified at or after WHEN (ISO date/time, or a span back: 30m, 2h, 3d, 1w)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only sessions modified before WHEN (ISO date/time, or a span back: 30m, 2h, 3d, 1w)')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Order by this key')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Reverse the order (oldest, smallest or cheapest first)')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Reverse the order (oldest, smallest or cheapest first)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'NDJSON: one object per session (fields are only ever added)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;list' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N sessions (after filtering and sorting)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N sessions (after filtering and sorting)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions modified at or after WHEN (ISO date/time, or a span back: 30m, 2h, 3d, 1w)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only sessions modified before WHEN (ISO date/time, or a span back: 30m, 2h, 3d, 1w)')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Order by this key')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Reverse the order (oldest, smallest or cheapest first)')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Reverse the order (oldest, smallest or cheapest first)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'NDJSON: one object per session (fields are only ever added)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;show' {
            [CompletionResult]::new('--leaf', '--leaf', [CompletionResultType]::ParameterName, 'Only the path from the root to entry ID')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only entries of this type (message, compaction, label, ...); repeatable')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only entries of this type (message, compaction, label, ...); repeatable')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Only messages of this role; repeatable (another value is a usage error)')
            [CompletionResult]::new('--idle-exit', '--idle-exit', [CompletionResultType]::ParameterName, 'With --follow: stop (exit 0) after SPAN without a new entry (30s, 5m, 1h)')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Only the active branch (root to the last entry)')
            [CompletionResult]::new('--branch', '--branch', [CompletionResultType]::ParameterName, 'Only the active branch (root to the last entry)')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'Do not cut long text')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The selected stored lines verbatim (NDJSON), header first')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'With --json: leave out the header line')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep printing entries as pi appends them, until Ctrl-C')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep printing entries as pi appends them, until Ctrl-C')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;tree' {
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Which entries to draw (pi''s /tree filter modes)')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'NDJSON, one object per shown entry in display order: {id, parentId, depth, type, role?, label?, active, leaf, preview, children}')
            [CompletionResult]::new('--ids', '--ids', [CompletionResultType]::ParameterName, 'Print each entry''s id (for `show SESSION ID` and `--leaf ID`)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;path' {
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Print the sessions root (<agent dir>/sessions) instead')
            [CompletionResult]::new('--explain', '--explain', [CompletionResultType]::ParameterName, 'Show every source of the session dir in order, its value and which one won')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;context' {
            [CompletionResult]::new('--leaf', '--leaf', [CompletionResultType]::ParameterName, 'Build the context as if entry ID were the leaf')
            [CompletionResult]::new('--max-tool-chars', '--max-tool-chars', [CompletionResultType]::ParameterName, 'Cut the text of each tool result to N characters (pi sends it whole; --json too)')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('--llm', '--llm', [CompletionResultType]::ParameterName, 'The provider-bound messages (pi''s convertToLlm) instead of pi''s agent messages')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object: {leafId, thinkingLevel, model, messages}')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'Show every message in full')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;rm' {
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Also this project''s sessions whose last activity is older than SPAN (30d, 2w, ...)')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Print what would be removed, remove nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be removed, remove nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask (required when stdin is not a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask (required when stdin is not a terminal)')
            [CompletionResult]::new('--permanent', '--permanent', [CompletionResultType]::ParameterName, 'Unlink instead of moving to the trash')
            [CompletionResult]::new('--empty', '--empty', [CompletionResultType]::ParameterName, 'Also this project''s sessions without messages (with --older-than: the old ones)')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'With --older-than/--empty: every project, not only this one')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'With --older-than/--empty: every project, not only this one')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Allow removing the live session ($PI_SESSION_FILE)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'NDJSON events: the plan ("planned", "refused"), each outcome ("removed", "failed") as it happens, and a "total"')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;help' {
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List sessions, newest first')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Print a session''s entries')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Draw a session''s entry tree, the active path marked')
            [CompletionResult]::new('path', 'path', [CompletionResultType]::ParameterValue, 'Print the session dir for this project, or a session''s file')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Rebuild the messages pi sends to the model next')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Delete sessions safely (to the trash unless --permanent)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pisess;help;ls' {
            break
        }
        'pisess;help;show' {
            break
        }
        'pisess;help;tree' {
            break
        }
        'pisess;help;path' {
            break
        }
        'pisess;help;context' {
            break
        }
        'pisess;help;rm' {
            break
        }
        'pisess;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
