
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
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
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
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'What a run did and cost, or usage reports across sessions')
            [CompletionResult]::new('facts', 'facts', [CompletionResultType]::ParameterValue, 'The fact stream for a team: one NDJSON row per message, keyed and versioned')
            [CompletionResult]::new('files', 'files', [CompletionResultType]::ParameterValue, 'The files a run read, wrote and edited')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two runs: where they part, their figures, tool calls and files')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check a session for CI: its integrity, or assertions on cost, tokens, tools, the end')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Delete sessions safely (to the trash unless --permanent)')
            [CompletionResult]::new('grep', 'grep', [CompletionResultType]::ParameterValue, 'Find where something was said, across sessions')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write one branch as a pi session, as Markdown, or as one HTML page to share')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pisess;ls' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N sessions (after filtering and sorting)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N sessions (after filtering and sorting)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only sessions modified before WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only sessions whose project (header cwd) matches the shell glob; repeatable (any of)')
            [CompletionResult]::new('--touched', '--touched', [CompletionResultType]::ParameterName, 'Only sessions whose read, write or edit calls named PATH, or a file under it')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Order by this key')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Reverse the order (oldest, smallest or cheapest first)')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Reverse the order (oldest, smallest or cheapest first)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'NDJSON: one object per session (fields are only ever added)')
            [CompletionResult]::new('--tree', '--tree', [CompletionResultType]::ParameterName, 'Threaded as pi''s /resume threads them: forks under their source, subagent runs under their parent')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;list' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N sessions (after filtering and sorting)')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Show at most N sessions (after filtering and sorting)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only sessions modified before WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only sessions whose project (header cwd) matches the shell glob; repeatable (any of)')
            [CompletionResult]::new('--touched', '--touched', [CompletionResultType]::ParameterName, 'Only sessions whose read, write or edit calls named PATH, or a file under it')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Order by this key')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Reverse the order (oldest, smallest or cheapest first)')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Reverse the order (oldest, smallest or cheapest first)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'NDJSON: one object per session (fields are only ever added)')
            [CompletionResult]::new('--tree', '--tree', [CompletionResultType]::ParameterName, 'Threaded as pi''s /resume threads them: forks under their source, subagent runs under their parent')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
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
            [CompletionResult]::new('--errors', '--errors', [CompletionResultType]::ParameterName, 'Only the failed tool calls (isError), each with its call and first line of output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The selected stored lines verbatim (NDJSON), header first')
            [CompletionResult]::new('--no-header', '--no-header', [CompletionResultType]::ParameterName, 'With --json: leave out the header line')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Keep printing entries as pi appends them, until Ctrl-C')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Keep printing entries as pi appends them, until Ctrl-C')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
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
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
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
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
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
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;stats' {
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Group into rows by this key (a report over sessions); two keys as day,model')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Order a report''s rows by KEY (default: days, weeks and months oldest first; tools by calls; the others by cost, highest first)')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'Only the first N rows of a report (the total row still counts them all)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'A report as CSV (RFC 4180) or TSV, one header row, for a spreadsheet or a database')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only messages at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only messages before WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)')
            [CompletionResult]::new('--tz', '--tz', [CompletionResultType]::ParameterName, 'The time zone of days, weeks and months (IANA name, e.g. Europe/Berlin; default: local)')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Every project''s sessions')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every project''s sessions')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'JSON: one object for a session; NDJSON rows and a total row for a report')
            [CompletionResult]::new('--forks', '--forks', [CompletionResultType]::ParameterName, 'With one SESSION: its family''s figures take in its forks and clones too')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;facts' {
            [CompletionResult]::new('--label', '--label', [CompletionResultType]::ParameterName, 'A label every row carries, KEY=VALUE: host=NAME or user=NAME; repeatable')
            [CompletionResult]::new('--cursor', '--cursor', [CompletionResultType]::ParameterName, 'Emit only the rows FILE does not record as emitted, then record them (created if absent)')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('--redact-paths', '--redact-paths', [CompletionResultType]::ParameterName, 'Write each cwd as a salted hash (the salt: $PISESS_FACTS_SALT)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;files' {
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('--branch', '--branch', [CompletionResultType]::ParameterName, 'Only the calls on the active branch (root to the leaf pi resumes at)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'NDJSON, one object per file, sorted by path: {sessionId, path, reads, writes, edits, errors}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;diff' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'md: GitHub Markdown, for a pull request''s comment')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object (docs/json.md)')
            [CompletionResult]::new('--minimal', '--minimal', [CompletionResultType]::ParameterName, 'Align the tool calls with the fewest rows, however long that takes (see below)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;check' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Check this project''s sessions (every project''s with --all) modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Check this project''s sessions (every project''s with --all) modified before WHEN')
            [CompletionResult]::new('--max-cost', '--max-cost', [CompletionResultType]::ParameterName, 'Total cost at most USD dollars (pi''s /session cost)')
            [CompletionResult]::new('--unpriced', '--unpriced', [CompletionResultType]::ParameterName, 'With --max-cost, usage without a price (tokens > 0 at a recorded cost of 0): ok judges the recorded cost alone; fail fails the assertion. Without it such usage is undecided')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'With --max-cost, judge recorded + estimated cost: usage pi recorded at $0 priced from FILE, a LiteLLM price table (docs/prices.md); what it cannot price is --unpriced''s')
            [CompletionResult]::new('--max-tokens', '--max-tokens', [CompletionResultType]::ParameterName, 'Total tokens at most N (input + output + cache read + cache write)')
            [CompletionResult]::new('--max-turns', '--max-turns', [CompletionResultType]::ParameterName, 'At most N assistant messages')
            [CompletionResult]::new('--max-duration', '--max-duration', [CompletionResultType]::ParameterName, 'The run, from its start to its last user or assistant message, at most SPAN (90s, 2h)')
            [CompletionResult]::new('--max-tool-errors', '--max-tool-errors', [CompletionResultType]::ParameterName, 'At most N tool results with isError')
            [CompletionResult]::new('--require-tool', '--require-tool', [CompletionResultType]::ParameterName, 'The tool NAME was called at least once on the active branch; repeatable')
            [CompletionResult]::new('--forbid-tool', '--forbid-tool', [CompletionResultType]::ParameterName, 'The tool NAME was never called on the active branch; repeatable')
            [CompletionResult]::new('--require-text', '--require-text', [CompletionResultType]::ParameterName, 'The final assistant message''s text matches REGEX (Rust regex syntax; (?i) ignores case)')
            [CompletionResult]::new('--secrets-config', '--secrets-config', [CompletionResultType]::ParameterName, 'With --no-secrets: rules and allowlists to add (TOML, as `grep --secrets-config`)')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Compare with REF, a baseline file (--save-baseline) or a session: the assertions below')
            [CompletionResult]::new('--max-cost-increase', '--max-cost-increase', [CompletionResultType]::ParameterName, 'The cost at most LIMIT more than the baseline''s: 10% of it, or dollars ($0.50)')
            [CompletionResult]::new('--max-tokens-increase', '--max-tokens-increase', [CompletionResultType]::ParameterName, 'The total tokens at most LIMIT more than the baseline''s: 10%, or a count (5000)')
            [CompletionResult]::new('--max-turns-increase', '--max-turns-increase', [CompletionResultType]::ParameterName, 'The assistant messages at most LIMIT more than the baseline''s: 10%, or a count (3)')
            [CompletionResult]::new('--max-duration-increase', '--max-duration-increase', [CompletionResultType]::ParameterName, 'The duration (as --max-duration measures it) at most LIMIT more: 10%, or a span (5m)')
            [CompletionResult]::new('--same-tools', '--same-tools', [CompletionResultType]::ParameterName, 'The baseline''s tool sequence, in order, with at most N calls inserted (default 0)')
            [CompletionResult]::new('--save-baseline', '--save-baseline', [CompletionResultType]::ParameterName, 'Write the run''s figures and tool sequence to FILE, a baseline for --baseline (one session); - for stdout instead of the lines')
            [CompletionResult]::new('--summary', '--summary', [CompletionResultType]::ParameterName, 'Also write a Markdown report to FILE, appended (for $GITHUB_STEP_SUMMARY); - for stdout instead of the lines')
            [CompletionResult]::new('--junit', '--junit', [CompletionResultType]::ParameterName, 'Also write a JUnit XML report to FILE (one test case per assertion); - for stdout instead of the lines')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Check every project''s sessions (with --since/--until: those modified then)')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Check every project''s sessions (with --since/--until: those modified then)')
            [CompletionResult]::new('--file-only', '--file-only', [CompletionResultType]::ParameterName, 'Judge the SESSION file alone, without its subagent runs')
            [CompletionResult]::new('--integrity', '--integrity', [CompletionResultType]::ParameterName, 'The file''s structure: header, unique ids, parents, cycles, targets, malformed or torn lines, known types and roles (the default when no other assertion is given)')
            [CompletionResult]::new('--no-tool-errors', '--no-tool-errors', [CompletionResultType]::ParameterName, 'No tool result with isError (--max-tool-errors 0)')
            [CompletionResult]::new('--ended', '--ended', [CompletionResultType]::ParameterName, 'The active branch''s last message is an assistant message with stopReason stop (not error, aborted, length or toolUse)')
            [CompletionResult]::new('--no-malformed', '--no-malformed', [CompletionResultType]::ParameterName, 'No malformed line in the file')
            [CompletionResult]::new('--no-secrets', '--no-secrets', [CompletionResultType]::ParameterName, 'No secret in any entry (the findings of `grep --secrets`, each named)')
            [CompletionResult]::new('--no-new-tools', '--no-new-tools', [CompletionResultType]::ParameterName, 'No tool called that the baseline never called')
            [CompletionResult]::new('--no-new-tool-errors', '--no-new-tool-errors', [CompletionResultType]::ParameterName, 'No tool with more failed results (isError) than in the baseline')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per session: {session, path, status, assertions, findings, figures}')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;rm' {
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Also this project''s sessions whose last activity is older than SPAN (30d, 2w, ...)')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'With --older-than/--empty: only sessions whose project (header cwd) matches the shell glob, in every project; repeatable (as in `ls --project`)')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Print what would be removed, remove nothing')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be removed, remove nothing')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do not ask (required when stdin is not a terminal)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do not ask (required when stdin is not a terminal)')
            [CompletionResult]::new('--permanent', '--permanent', [CompletionResultType]::ParameterName, 'Unlink instead of moving to the trash')
            [CompletionResult]::new('--empty', '--empty', [CompletionResultType]::ParameterName, 'Also this project''s empty sessions (with --older-than: the old ones)')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'With --older-than/--empty: every project, not only this one')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'With --older-than/--empty: every project, not only this one')
            [CompletionResult]::new('--with-subagents', '--with-subagents', [CompletionResultType]::ParameterName, 'Also remove the subagent runs found under each session removed (its family)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Allow removing the live session ($PI_SESSION_FILE)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'NDJSON events: the plan ("planned", "refused"), each outcome ("removed", "failed") as it happens, and a "total"')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;grep' {
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only sessions whose project (header cwd) matches the shell glob; repeatable (see `ls --project`)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only sessions modified at or after WHEN (as in `ls`)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only sessions modified before WHEN (as in `ls`)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only entries of this type (as in `show`); repeatable')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only entries of this type (as in `show`); repeatable')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Only messages of this role (as in `show`); repeatable')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Stop after N matching lines in each session')
            [CompletionResult]::new('--max-count', '--max-count', [CompletionResultType]::ParameterName, 'Stop after N matching lines in each session')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show N entries after each matching entry (as ripgrep''s lines of context)')
            [CompletionResult]::new('--after-context', '--after-context', [CompletionResultType]::ParameterName, 'Show N entries after each matching entry (as ripgrep''s lines of context)')
            [CompletionResult]::new('-B', '-B ', [CompletionResultType]::ParameterName, 'Show N entries before each matching entry')
            [CompletionResult]::new('--before-context', '--before-context', [CompletionResultType]::ParameterName, 'Show N entries before each matching entry')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Show N entries before and after each matching entry (-A and -B win over it)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Show N entries before and after each matching entry (-A and -B win over it)')
            [CompletionResult]::new('--secrets-config', '--secrets-config', [CompletionResultType]::ParameterName, 'Rules and allowlists to add to the built-in ones (TOML, gitleaks''s format where it fits)')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every project''s sessions, not only this project''s')
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Only each session''s active branch (root to the last entry)')
            [CompletionResult]::new('--branch', '--branch', [CompletionResultType]::ParameterName, 'Only each session''s active branch (root to the last entry)')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Also search tool results and the output of bash executions')
            [CompletionResult]::new('--thinking', '--thinking', [CompletionResultType]::ParameterName, 'Also search the assistant''s thinking')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'The pattern is a fixed string, not a regular expression')
            [CompletionResult]::new('--fixed-strings', '--fixed-strings', [CompletionResultType]::ParameterName, 'The pattern is a fixed string, not a regular expression')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Match case-insensitively')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, 'Match case-insensitively')
            [CompletionResult]::new('-S', '-S ', [CompletionResultType]::ParameterName, 'Case-insensitive unless the pattern holds an uppercase letter')
            [CompletionResult]::new('--smart-case', '--smart-case', [CompletionResultType]::ParameterName, 'Case-insensitive unless the pattern holds an uppercase letter')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Only matches surrounded by word boundaries')
            [CompletionResult]::new('--word-regexp', '--word-regexp', [CompletionResultType]::ParameterName, 'Only matches surrounded by word boundaries')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Print only the files of the sessions that match, one a line (for xargs)')
            [CompletionResult]::new('--files-with-matches', '--files-with-matches', [CompletionResultType]::ParameterName, 'Print only the files of the sessions that match, one a line (for xargs)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Print the number of matching lines of each session that has some: PATH:COUNT')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Print the number of matching lines of each session that has some: PATH:COUNT')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'NDJSON, one object per matching line (fields are only ever added)')
            [CompletionResult]::new('--secrets', '--secrets', [CompletionResultType]::ParameterName, 'Find secrets (tokens, keys, passwords: docs/secrets.md) instead of a pattern, in every string of every entry; each is shown by kind, at most 4 characters and a fingerprint, and replaced by [REDACTED kind fingerprint] in a path, id or type that holds it')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'pisess;export' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'An archive of the sessions modified at or after WHEN (ISO date/time, today, yesterday, or a span back: 30m, 2h, 3d, 1w): this project''s, or with --all every project''s')
            [CompletionResult]::new('--leaf', '--leaf', [CompletionResultType]::ParameterName, 'Export the branch that ends at entry ID (default: the leaf pi resumes at)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'The format (default: from -o''s extension; md on stdout)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'The format (default: from -o''s extension; md on stdout)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to FILE instead of stdout (replaced whole, never half-written); for an archive, the folder DIR')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to FILE instead of stdout (replaced whole, never half-written); for an archive, the folder DIR')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'How md and html show tool calls and their results [default: collapsed]')
            [CompletionResult]::new('--output-lines', '--output-lines', [CompletionResultType]::ParameterName, 'With --tools full: show N lines of each tool output (0: all) [default: 200]')
            [CompletionResult]::new('--secrets-config', '--secrets-config', [CompletionResultType]::ParameterName, 'With --redact: rules and allowlists to add (TOML, as `grep --secrets-config`)')
            [CompletionResult]::new('--prices', '--prices', [CompletionResultType]::ParameterName, 'md, html: beside the cost, an estimate of what pi recorded at $0, from FILE, a LiteLLM price table (docs/prices.md); never added into the cost')
            [CompletionResult]::new('--session-dir', '--session-dir', [CompletionResultType]::ParameterName, 'Read sessions from DIR instead of pi''s session dir')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Act as if run in DIR')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'An archive of every project''s sessions (-o DIR): one page each and an index')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'An archive of every project''s sessions (-o DIR): one page each and an index')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'An archive into a folder that already holds files: its pages and index replace files of the same names, the others stay')
            [CompletionResult]::new('--no-thinking', '--no-thinking', [CompletionResultType]::ParameterName, 'Leave the assistant''s thinking out (md and html)')
            [CompletionResult]::new('--no-subagents', '--no-subagents', [CompletionResultType]::ParameterName, 'Leave out the subagent runs the branch started (md and html show each inline, collapsed, under the call that started it)')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Replace every secret (token, key, password: docs/secrets.md) by [REDACTED kind fingerprint] before it is written, in every text, id and name of every format')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'No warnings on stderr (errors are still printed)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Every warning about a file on its own line')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Never page human output')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file whole, neither using nor writing the cache')
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
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'What a run did and cost, or usage reports across sessions')
            [CompletionResult]::new('facts', 'facts', [CompletionResultType]::ParameterValue, 'The fact stream for a team: one NDJSON row per message, keyed and versioned')
            [CompletionResult]::new('files', 'files', [CompletionResultType]::ParameterValue, 'The files a run read, wrote and edited')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two runs: where they part, their figures, tool calls and files')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check a session for CI: its integrity, or assertions on cost, tokens, tools, the end')
            [CompletionResult]::new('rm', 'rm', [CompletionResultType]::ParameterValue, 'Delete sessions safely (to the trash unless --permanent)')
            [CompletionResult]::new('grep', 'grep', [CompletionResultType]::ParameterValue, 'Find where something was said, across sessions')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write one branch as a pi session, as Markdown, or as one HTML page to share')
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
        'pisess;help;stats' {
            break
        }
        'pisess;help;facts' {
            break
        }
        'pisess;help;files' {
            break
        }
        'pisess;help;diff' {
            break
        }
        'pisess;help;check' {
            break
        }
        'pisess;help;rm' {
            break
        }
        'pisess;help;grep' {
            break
        }
        'pisess;help;export' {
            break
        }
        'pisess;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
