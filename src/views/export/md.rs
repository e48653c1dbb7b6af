//! A transcript as GitHub-flavoured Markdown.
//!
//! Message text stays Markdown (lists, emphasis, code), rewritten so that nothing in it can
//! open HTML or reach past its message. Lines are CommonMark's (`\n`, `\r\n`, and a bare `\r`,
//! which GitHub also reads as a line break). Its fenced code blocks are found line by line and
//! written again inside fences longer than any backtick run they hold; in the rest, `<` is
//! `&lt;` (no tag, comment or autolink can start), a backtick that opens no code span on its
//! line is escaped (so the spans are the ones found here), a `~~~` fence at the start of a line
//! is escaped, `]:` is `]\:` (no link reference definition), a link to anything but http(s),
//! mailto or a fragment is text (`]\(javascript:…`), and `![` is `\![` (an image is a link,
//! never loaded). A message's headings are demoted below the export's own (`#`–`###` become
//! `####`–`######`, a setext underline is text), and container markers nest at most
//! [`MAX_NESTING`] deep. Texts that are not Markdown (names, models, paths) are escaped whole.
//!
//! Each line is read and written once: the work is linear in the text (the code spans of a
//! line through an index of its backtick runs), and nothing but the output grows with it.

use std::fmt::Write as _;

use super::transcript::{self, Body, Call, Item, Part, Subagent, ToolResult, Transcript};
use super::{call, Out, Tools, View};

/// The whole document.
pub fn render(t: &Transcript, view: View, out: &mut Out<'_>) {
    let _ = writeln!(out, "# {}\n", inline(&t.title));
    let mut fact = |k: &str, v: &str| {
        let _ = writeln!(out, "- **{k}:** {}", inline(v));
    };
    for (k, v) in t.facts() {
        fact(k, &v);
    }
    out.push('\n');
    if !t.branches.is_empty() {
        out.push_str("**Other branches** (`pisess export SESSION --leaf ID` exports one):\n\n");
        for b in &t.branches {
            let from = match &b.fork_anchor {
                Some(a) => format!("[from here](#{a})"),
                None => "its own root".to_owned(),
            };
            let first = if b.first.is_empty() {
                "(no user message)".to_owned()
            } else {
                inline(&b.first)
            };
            let _ = writeln!(
                out,
                "- {first} · {} · {} messages · {from} · {}",
                inline(&crate::views::style::cost(b.cost)),
                b.messages,
                code_span(&format!("--leaf {}", b.leaf))
            );
        }
        if t.more_branches > 0 {
            let _ = writeln!(out, "- and {} more", t.more_branches);
        }
        out.push('\n');
    }
    render_items(out, t, view);
}

/// The items of a transcript, each followed by the subagent runs it started.
fn render_items(out: &mut Out<'_>, t: &Transcript, view: View) {
    let mut model = None;
    for item in &t.items {
        render_item(out, item, view, &mut model);
        for run in t.runs_of(&item.id) {
            render_run(out, run, view);
        }
        out.spill();
    }
}

/// A subagent run under the item that started it: a quoted section (every line behind `> `, so
/// nothing in it can end the quote), its transcript rendered by the same code as it is written,
/// its own runs nested one quote deeper.
fn render_run(out: &mut Out<'_>, run: &Subagent, view: View) {
    let mut quoted = Quoted {
        out,
        at_start: true,
    };
    // Control characters are made visible by the outer `Out`, once.
    let mut inner = Out::new(&mut quoted, false);
    let _ = writeln!(
        inner,
        "**⤷ {}** · {} · {} messages\n",
        inline(&run.title),
        inline(&crate::views::style::money(
            run.transcript.cost,
            run.transcript.unpriced_tokens
        )),
        run.transcript.items.len()
    );
    render_items(&mut inner, &run.transcript, view);
    let _ = inner.finish();
    out.push('\n');
}

/// Writes Markdown into `out` with `> ` before every line.
struct Quoted<'a, 'w> {
    out: &'a mut Out<'w>,
    at_start: bool,
}

impl std::io::Write for Quoted<'_, '_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        // `Out` writes its buffer, a `String`, whole: always UTF-8.
        let text = String::from_utf8_lossy(bytes);
        for piece in text.split_inclusive('\n') {
            if self.at_start {
                self.out.push_str(if piece == "\n" { ">" } else { "> " });
            }
            self.out.push_str(piece);
            self.at_start = piece.ends_with('\n');
        }
        self.out.spill();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One item; `model` is the last assistant's, named again only when it changes.
fn render_item<'t>(
    out: &mut Out<'_>,
    item: &'t Item,
    view: View,
    last_model: &mut Option<&'t str>,
) {
    let mut time = item.time_ms.map(transcript::utc_time).unwrap_or_default();
    if let Some(label) = &item.label {
        time = format!("{time} · [{label}]");
    }
    let heading = |out: &mut Out<'_>, title: &str| {
        let _ = writeln!(
            out,
            "### <a id=\"{a}\"></a>{} · {} [¶](#{a})\n",
            inline(title),
            inline(&time),
            a = item.anchor
        );
    };
    match &item.body {
        Body::User(parts) => {
            heading(out, "User");
            render_parts(out, parts, view);
        }
        Body::Assistant {
            model,
            parts,
            error,
        } => {
            let changed = model.as_deref() != *last_model;
            *last_model = model.as_deref();
            let title = match model {
                Some(m) if changed => format!("Assistant · {m}"),
                _ => "Assistant".to_owned(),
            };
            heading(out, &title);
            render_parts(out, parts, view);
            if let Some(e) = error {
                let _ = writeln!(out, "> **Error:** {}\n", inline(e));
            }
        }
        Body::ToolResult(result) => {
            if view.tools != Tools::None {
                heading(out, &format!("Tool result: {}", result.name));
                let text = result.text();
                output_block(out, &text, call::preview_lines(&result.name), None, view);
                result_extras(out, result);
            }
        }
        Body::Bash {
            command,
            output,
            exit_code,
        } => {
            heading(out, "Shell command");
            fence(out, "sh", &format!("$ {command}"));
            if let Some(code) = exit_code.as_deref().filter(|c| *c != "0") {
                let _ = writeln!(out, "**exit {}**\n", inline(code));
            }
            if view.tools != Tools::None {
                output_block(out, output, call::preview_lines("bash"), None, view);
            }
        }
        Body::Custom { kind, parts } => {
            heading(out, &format!("Message: {kind}"));
            render_parts(out, parts, view);
        }
        Body::Summary { kind, text } => {
            heading(out, kind);
            markdown(out, text);
        }
        Body::System {
            first,
            text,
            tools_added,
            tools_removed,
        } => {
            heading(
                out,
                if *first {
                    "System prompt"
                } else {
                    "System prompt update"
                },
            );
            if !text.is_empty() {
                open_details(
                    out,
                    &format!("{} lines", call::count_lines(text)),
                    View {
                        tools: Tools::Collapsed,
                        ..view
                    },
                );
                fence(out, "text", text);
                close_details(out);
            }
            if !tools_added.is_empty() {
                let label = if *first {
                    "Available tools"
                } else {
                    "Tools added"
                };
                let _ = writeln!(out, "**{label}:**\n");
                for (tool, description) in tools_added {
                    let _ = writeln!(
                        out,
                        "- {}: {}",
                        code_span(tool),
                        inline(&transcript::one_line(description, 200))
                    );
                }
                out.push('\n');
            }
            if !tools_removed.is_empty() {
                let names: Vec<String> = tools_removed.iter().map(|t| code_span(t)).collect();
                let _ = writeln!(out, "**Tools removed:** {}\n", names.join(", "));
            }
        }
        Body::Note(text) => {
            let _ = writeln!(
                out,
                "<a id=\"{a}\"></a>*{}* · {} [¶](#{a})\n",
                inline(text),
                inline(&time),
                a = item.anchor
            );
        }
    }
}

fn render_parts(out: &mut Out<'_>, parts: &[Part], view: View) {
    for part in parts {
        match part {
            Part::Text(text) => markdown(out, text),
            Part::Thinking(text) => {
                if view.thinking {
                    out.push_str("<details>\n<summary>Thinking</summary>\n\n");
                    markdown(out, text);
                    close_details(out);
                }
            }
            Part::RedactedThinking => {
                if view.thinking {
                    out.push_str("*Thinking (encrypted by the provider)*\n\n");
                }
            }
            Part::Call(call) => {
                if view.tools != Tools::None {
                    render_call(out, call, view);
                }
            }
            Part::Image { mime, .. } => {
                let _ = writeln!(out, "*[image: {}]*\n", inline(mime));
            }
            Part::Other(kind) => {
                let _ = writeln!(out, "*[{}]*\n", inline(kind));
            }
        }
    }
}

/// A call at a glance, as the HTML page shows it: its line in pi's wording and its state, the
/// first lines of its output, then the rest and its input in `<details>`.
fn render_call(out: &mut Out<'_>, call: &Call, view: View) {
    let state = match &call.result {
        None => " *no result*",
        Some(r) if r.is_error => " **error**",
        Some(_) => "",
    };
    let _ = writeln!(out, "{}{state}\n", code_span(&call.headline));
    let text = call
        .result
        .as_ref()
        .map(ToolResult::text)
        .unwrap_or_default();
    output_block(
        out,
        &text,
        call::preview_lines(&call.name),
        Some(&call.arguments),
        view,
    );
    if let Some(result) = &call.result {
        result_extras(out, result);
    }
}

/// A tool's output: its first `preview` lines fenced, the rest (at most the view's cap, which
/// it says) and the call's input in `<details>`, open with `--tools full`.
fn output_block(out: &mut Out<'_>, text: &str, preview: usize, input: Option<&str>, view: View) {
    let shown = view.output_cut(text);
    let head = call::cut_after(&text[..shown], preview);
    if head > 0 {
        fence(out, "text", &text[..head]);
    }
    let rest = &text[head..shown];
    let hidden = &text[shown..];
    let input = input.filter(|i| !i.is_empty());
    if rest.is_empty() && hidden.is_empty() && input.is_none() {
        return;
    }
    let more = call::count_lines(rest) + call::count_lines(hidden);
    let summary = match (more, input.is_some()) {
        (0, _) => "Input".to_owned(),
        (n, true) => format!("{} · input", call::more_lines(n)),
        (n, false) => call::more_lines(n),
    };
    open_details(out, &summary, view);
    if !rest.is_empty() {
        fence(out, "text", rest);
    }
    if !hidden.is_empty() {
        let _ = writeln!(
            out,
            "*{} not shown: --tools full shows {} lines of each output; --output-lines 0 shows all.*\n",
            call::more_lines(call::count_lines(hidden)),
            view.output_lines.unwrap_or_default()
        );
    }
    if let Some(input) = input {
        fence(out, "json", input);
    }
    close_details(out);
}

/// A result's parts that are not text, named.
fn result_extras(out: &mut Out<'_>, result: &ToolResult) {
    for part in &result.parts {
        match part {
            Part::Image { mime, .. } => {
                let _ = writeln!(out, "*[image: {}]*\n", inline(mime));
            }
            Part::Other(kind) => {
                let _ = writeln!(out, "*[{}]*\n", inline(kind));
            }
            _ => {}
        }
    }
}

/// A text that is not Markdown as one code span on one line: delimited by a backtick run
/// longer than any it holds, padded with a space when it starts or ends with a backtick.
fn code_span(s: &str) -> String {
    let s = transcript::one_line(s, usize::MAX);
    let ticks = "`".repeat(longest_run(&s, '`') + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{s}{pad}{ticks}")
}

/// `<details>` (open with `--tools full`) with a one-line, HTML-escaped summary: inside an
/// HTML block nothing is Markdown, and a blank line would end the block.
fn open_details(out: &mut Out<'_>, summary: &str, view: View) {
    let open = if view.tools == Tools::Full {
        " open"
    } else {
        ""
    };
    let _ = write!(
        out,
        "<details{open}>\n<summary>{}</summary>\n\n",
        html_escape(&transcript::one_line(summary, 200))
    );
}

fn close_details(out: &mut Out<'_>) {
    out.push_str("</details>\n\n");
}

/// `text` in a fence of backticks longer than its longest backtick run (at least three), so no
/// line of it can close the fence; `info` is ours, never the session's.
pub fn fence(out: &mut Out<'_>, info: &str, text: &str) {
    let ticks = "`".repeat((longest_run(text, '`') + 1).max(3));
    let _ = writeln!(out, "{ticks}{info}");
    out.push_chunked(text);
    if !text.is_empty() && !text.ends_with('\n') {
        out.push('\n');
    }
    let _ = writeln!(out, "{ticks}\n");
}

fn longest_run(text: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for x in text.chars() {
        run = if x == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// A text that is not Markdown, on one line after a marker of ours (`# `, `- **Key:** `): the
/// characters that could start emphasis, code, a link, strikethrough, a table cell or a closing
/// heading sequence backslash-escaped, `<` and `&` as entities.
pub fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in transcript::one_line(s, usize::MAX).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '!' | '#' | '~' | '|' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// The lines of a text as CommonMark reads them: a line ends at `\n`, `\r\n` or a bare `\r`
/// (a bare `\r` is a line break to CommonMark and GitHub, so a check made line by line must
/// see the line after it).
fn lines(text: &str) -> impl Iterator<Item = &str> + Clone {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let r = rest?;
        match memchr::memchr2(b'\n', b'\r', r.as_bytes()) {
            Some(at) => {
                let next = if r[at..].starts_with("\r\n") {
                    at + 2
                } else {
                    at + 1
                };
                rest = Some(&r[next..]);
                Some(&r[..at])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// A fence opening line at the top level (at most three spaces in): its indent, character,
/// length and first word of the info string.
fn fence_open(line: &str) -> Option<(usize, char, usize, &str)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let c = rest.chars().next().filter(|&c| c == '`' || c == '~')?;
    let len = rest.len() - rest.trim_start_matches(c).len();
    let info = rest[len..].trim();
    if len < 3 || (c == '`' && info.contains('`')) {
        return None;
    }
    Some((indent, c, len, info.split_whitespace().next().unwrap_or("")))
}

fn fence_closes(line: &str, c: char, len: usize) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = &line[indent..];
    let run = rest.len() - rest.trim_start_matches(c).len();
    indent <= 3 && run >= len && rest[run..].trim_matches([' ', '\t']).is_empty()
}

/// Message text (Markdown) made safe to embed: see the module's comment. Lines are read one
/// at a time (a text of a million short lines holds no list of them), and each is written as
/// it is read.
pub fn markdown(out: &mut Out<'_>, text: &str) {
    let mut lines = lines(text);
    let mut in_text = false;
    // The line before, when it was text a setext underline would turn into a heading.
    let mut paragraph = false;
    while let Some(line) = lines.next() {
        if let Some((indent, c, len, info)) = fence_open(line) {
            if in_text {
                out.push('\n');
                in_text = false;
            }
            paragraph = false;
            let info: String = info
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_' | '.' | '#'))
                .take(30)
                .collect();
            // Two passes over the block's lines, none of them copied: the longest backtick
            // run, then the lines inside a fence longer than it.
            let mut longest = 0;
            for line in lines.clone() {
                if fence_closes(line, c, len) {
                    break;
                }
                longest = longest.max(longest_run(line, '`'));
            }
            let ticks = "`".repeat((longest + 1).max(3));
            let _ = writeln!(out, "{ticks}{info}");
            for line in lines.by_ref() {
                if fence_closes(line, c, len) {
                    break;
                }
                let strip = line.len() - line.trim_start_matches(' ').len();
                out.push_chunked(&line[strip.min(indent)..]);
                out.push('\n');
            }
            let _ = writeln!(out, "{ticks}\n");
            continue;
        }
        paragraph = text_line(out, line, paragraph);
        out.push('\n');
        out.spill();
        in_text = true;
    }
    out.push('\n');
}

/// Container markers (`>`, list items) deeper than this are text: each is a node in a
/// renderer's tree (pulldown-cmark's, and GitHub's), so a line of a million `>` would cost the
/// reader, and our HTML export, memory for each.
pub(crate) const MAX_NESTING: usize = 32;

/// The container markers at the start of a line: where what follows them starts, and, when
/// there are more than [`MAX_NESTING`], where the marker past the cap is to be escaped (before
/// its `>`, `-`, `*` or `+`; before the `.` or `)` of `12.`).
fn containers(line: &str) -> (usize, Option<usize>) {
    let bytes = line.as_bytes();
    let mut at = 0;
    let mut depth = 0;
    loop {
        while at < bytes.len() && (bytes[at] == b' ' || bytes[at] == b'\t') {
            at += 1;
        }
        let (marker, escape) = match bytes.get(at) {
            Some(b'>') => (1, at),
            Some(b'-' | b'*' | b'+') if matches!(bytes.get(at + 1), Some(b' ' | b'\t')) => (1, at),
            Some(b'0'..=b'9') => {
                let digits = bytes[at..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                match (bytes.get(at + digits), bytes.get(at + digits + 1)) {
                    (Some(b'.' | b')'), Some(b' ' | b'\t') | None) => (digits + 1, at + digits),
                    _ => break,
                }
            }
            _ => break,
        };
        if depth == MAX_NESTING {
            return (at, Some(escape));
        }
        depth += 1;
        at += marker;
    }
    (at, None)
}

/// `text` with the container markers past [`MAX_NESTING`] on each line escaped (`\>`), so a
/// renderer nests no deeper; borrowed when no line goes that deep (the HTML export's input).
pub(crate) fn cap_nesting(text: &str) -> std::borrow::Cow<'_, str> {
    let mut out = String::new();
    let mut copied = 0;
    for line in lines(text) {
        // `line` is a slice of `text`: its offset.
        let start = line.as_ptr() as usize - text.as_ptr() as usize;
        if let (_, Some(escape)) = containers(line) {
            out.push_str(&text[copied..start + escape]);
            out.push('\\');
            copied = start + escape;
        }
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    std::borrow::Cow::Owned(out)
}

/// An ATX heading of level 1 to 3 (`# `, `## `, `### `): the levels of the export's own
/// title and item headings, which a message must not fake.
fn high_heading(rest: &str) -> bool {
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    let after = rest.as_bytes().get(hashes);
    (1..=3).contains(&hashes) && matches!(after, None | Some(b' ' | b'\t'))
}

/// A setext underline (`===` or `---`), which turns the paragraph line above it into a heading.
fn setext_underline(rest: &str) -> bool {
    let t = rest.trim_end_matches([' ', '\t']);
    !t.is_empty() && (t.bytes().all(|b| b == b'=') || t.bytes().all(|b| b == b'-'))
}

/// One line of text outside code blocks; `paragraph`: the line before was paragraph text.
/// Returns whether this one is.
fn text_line(out: &mut Out<'_>, line: &str, paragraph: bool) -> bool {
    // Container markers (quotes, list items) and whitespace: what follows them starts a block.
    let (at, capped) = containers(line);
    if let Some(escape) = capped {
        // The marker past the cap is text, and so is the rest of the line.
        out.push_str(&line[..escape]);
        out.push('\\');
        inline_markdown(out, &line[escape..]);
        return true;
    }
    let (head, rest) = line.split_at(at);
    out.push_str(head);
    // A backtick fence needs no mark: a run that closes no span on its line is escaped below,
    // and one that does has a backtick in its "info string", which no fence may.
    if rest.starts_with("~~~") || (paragraph && setext_underline(rest)) {
        out.push('\\');
    } else if high_heading(rest) {
        // The message's headings sit below the export's own (h1 the title, h3 an item): one
        // to three `#` become four to six, so no heading of a message looks like ours.
        out.push_str("###");
    }
    inline_markdown(out, rest);
    !rest.trim().is_empty()
}

/// Whether a link's target (the text after `](`, as stored) may stay a link: http(s), mailto
/// or a fragment, spelt out at its start (an entity or escape there could hide
/// `javascript:`). Anything else, `javascript:`, `vbscript:`, `data:`, `file:` and relative
/// targets, is made text; so is a target on the next line.
fn safe_target(after: &str) -> bool {
    let t = after.trim_start_matches([' ', '\t']).as_bytes();
    ["http://", "https://", "mailto:", "#"].iter().any(|p| {
        t.get(..p.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(p.as_bytes()))
    })
}

/// Inline Markdown of one line: code spans kept, every other backtick escaped, `<` as an
/// entity, images as links, links only to safe targets, no link reference definition. One
/// pass over the bytes: each backtick run's closing run is found through an index of the runs
/// by length, so a line of runs of every length costs its length, not its square.
fn inline_markdown(out: &mut Out<'_>, s: &str) {
    let bytes = s.as_bytes();
    let mut closers = Closers::new(bytes);
    let mut i = 0;
    let mut plain = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let special = matches!(b, b'\\' | b'`' | b'<' | b'!' | b']');
        if !special {
            i += 1;
            continue;
        }
        out.push_chunked(&s[plain..i]);
        match b {
            b'\\' if bytes.get(i + 1).is_some_and(u8::is_ascii_punctuation) => {
                out.push('\\');
                match bytes[i + 1] {
                    b'<' => out.push_str("&lt;"),
                    x => out.push(char::from(x)),
                }
                i += 2;
            }
            b'`' => {
                let run = bytes[i..].iter().take_while(|&&x| x == b'`').count();
                match closers.after(i + run, run) {
                    Some(end) => {
                        out.push_str(&s[i..end + run]);
                        i = end + run;
                    }
                    None => {
                        for _ in 0..run {
                            out.push_str("\\`");
                        }
                        i += run;
                    }
                }
            }
            b'<' => {
                out.push_str("&lt;");
                i += 1;
            }
            b'!' if bytes.get(i + 1) == Some(&b'[') => {
                out.push_str("\\!");
                i += 1;
            }
            b']' if bytes.get(i + 1) == Some(&b'(') && !safe_target(&s[i + 2..]) => {
                out.push_str("]\\(");
                i += 2;
            }
            b']' if bytes.get(i + 1) == Some(&b':') => {
                out.push_str("]\\:");
                i += 2;
            }
            _ => {
                out.push(char::from(b));
                i += 1;
            }
        }
        plain = i;
    }
    out.push_chunked(&s[plain..]);
}

/// The backtick runs of a line, by length: where a code span opened by a run of `n` ends is
/// the next run of exactly `n` after it. Each length's list is walked forward only, so finding
/// every span costs the line's length.
struct Closers {
    /// Run starts, grouped by length (the runs of length `n` at `starts[first[n]..first[n+1]]`,
    /// ascending).
    starts: Vec<usize>,
    first: Vec<usize>,
    /// How far each length's list has been walked.
    cursor: Vec<usize>,
    /// Runs stepped over, all calls together (the test's measure of the work).
    steps: usize,
}

impl Closers {
    fn new(bytes: &[u8]) -> Closers {
        let mut runs = Vec::new();
        let mut i = 0;
        while let Some(at) = memchr::memchr(b'`', &bytes[i..]) {
            let start = i + at;
            let n = bytes[start..].iter().take_while(|&&x| x == b'`').count();
            runs.push((n, start));
            i = start + n;
        }
        let longest = runs.iter().map(|r| r.0).max().unwrap_or(0);
        // A counting sort: lengths are at most the line's length, and the runs' lengths add up
        // to it, so there are at most as many distinct lengths as the square root of it.
        let mut first = vec![0; longest + 2];
        for &(n, _) in &runs {
            first[n + 1] += 1;
        }
        for n in 1..first.len() {
            first[n] += first[n - 1];
        }
        let mut cursor = first.clone();
        let mut starts = vec![0; runs.len()];
        for &(n, start) in &runs {
            starts[cursor[n]] = start;
            cursor[n] += 1;
        }
        cursor.copy_from_slice(&first);
        Closers {
            starts,
            first,
            cursor,
            steps: 0,
        }
    }

    /// The start of the first run of exactly `n` backticks at or after `from`.
    fn after(&mut self, from: usize, n: usize) -> Option<usize> {
        let end = *self.first.get(n + 1)?;
        let c = &mut self.cursor[n];
        while *c < end && self.starts[*c] < from {
            *c += 1;
            self.steps += 1;
        }
        (*c < end).then(|| self.starts[*c])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(text: &str) -> String {
        super::super::rendered(|out| markdown(out, text))
    }

    #[test]
    fn fences_are_rewritten_longer_than_their_content() {
        let out = md("a\n```rust\nlet x = \"````\";\n```\nb `<i>` c <b>");
        assert!(
            out.contains("`````rust\nlet x = \"````\";\n`````\n"),
            "{out}"
        );
        assert!(out.contains("b `<i>` c &lt;b>"), "{out}");
        // An unclosed fence runs to the end of the message and is closed there.
        let out = md("```\n<script>x</script>");
        assert_eq!(out, "```\n<script>x</script>\n```\n\n\n");
    }

    #[test]
    fn text_cannot_open_html_fences_or_images() {
        assert_eq!(md("</details>"), "&lt;/details>\n\n");
        assert_eq!(md("> ```\n> x"), "> \\`\\`\\`\n> x\n\n");
        assert_eq!(md("- ~~~\n<b>"), "- \\~~~\n&lt;b>\n\n");
        assert_eq!(md("![a](http://x/y.png)"), "\\![a](http://x/y.png)\n\n");
        assert_eq!(md("a ` b\n`<b>` c"), "a \\` b\n`<b>` c\n\n");
        assert_eq!(md("[x]: http://e 'y"), "[x]\\: http://e 'y\n\n");
        assert_eq!(md("\\`<b>`"), "\\`&lt;b>\\`\n\n");
    }

    /// Issue 42: a bare `\r` ends a line for CommonMark and GitHub, so what follows it is
    /// checked as a line of its own: no fence opened, no heading faked, no definition made.
    #[test]
    fn a_bare_carriage_return_starts_a_line() {
        // The message's own fence, closed at its end (on 63e6fc9 it was left open).
        assert_eq!(md("ok\r~~~\rafter"), "ok\n\n```\nafter\n```\n\n\n");
        assert_eq!(md("- ok\r- ~~~"), "- ok\n- \\~~~\n\n");
        assert_eq!(md("x\r### User\r\ny"), "x\n###### User\ny\n\n");
        assert_eq!(md("x\r[a]: javascript:y"), "x\n[a]\\: javascript:y\n\n");
        assert_eq!(md("```\ra\r```\rb"), "```\na\n```\n\nb\n\n");
    }

    /// Issue 42: a message's headings are demoted below the export's (h1, h3), and a setext
    /// underline under a paragraph is text.
    #[test]
    fn message_headings_sit_below_the_exports() {
        assert_eq!(
            md("# a\n## b\n### c\n#### d\n#x"),
            "#### a\n##### b\n###### c\n#### d\n#x\n\n"
        );
        assert_eq!(md("a\n===\nb\n-\n\n---"), "a\n\\===\nb\n\\-\n\n---\n\n");
        assert_eq!(md("> a\n> ---"), "> a\n> \\---\n\n");
    }

    /// Issue 42: links only to http(s), mailto and fragments; any other target, or one on the
    /// next line, is text.
    #[test]
    fn dangerous_links_are_text() {
        assert_eq!(
            md("[a](javascript:alert(1)) [b](https://e/) [c](  VBScript:x) [d](#m-1) [e](data:text/html,x)"),
            "[a]\\(javascript:alert(1)) [b](https://e/) [c]\\(  VBScript:x) [d](#m-1) [e]\\(data:text/html,x)\n\n"
        );
        assert_eq!(md("[a](\njavascript:x)"), "[a]\\(\njavascript:x)\n\n");
        assert_eq!(md("[a](java&#115;cript:x)"), "[a]\\(java&#115;cript:x)\n\n");
        assert_eq!(
            md("![i](data:image/png;base64,AA)"),
            "\\![i]\\(data:image/png;base64,AA)\n\n"
        );
    }

    /// Issue 42: each backtick run's closer is found by walking each length's runs once: a
    /// line of runs of every length (n^1.5 on 63e6fc9) costs steps linear in its runs.
    #[test]
    fn code_spans_are_found_in_one_pass() {
        let mut line = String::new();
        for n in 1..=400 {
            line.push_str(&"`".repeat(n));
            line.push('x');
        }
        let mut closers = Closers::new(line.as_bytes());
        let out = super::super::rendered(|out| inline_markdown(out, &line));
        // Every run unmatched: all escaped.
        assert_eq!(out.matches("\\`").count(), 400 * 401 / 2);
        let mut at = 0;
        for n in 1..=400 {
            assert_eq!(closers.after(at + n, n), None);
            at += n + 1;
        }
        assert!(closers.steps <= 400, "{} steps", closers.steps);
        let mut closers = Closers::new(b"`a``b`c``");
        assert_eq!(closers.after(1, 1), Some(5));
        assert_eq!(closers.after(4, 2), Some(7));
        assert_eq!(md("`a``b`c``"), "`a``b`c\\`\\`\n\n");
    }

    /// Issue 42: the output is written as it grows, never held whole: a message of 3 MB that
    /// renders to 7 MB is written in pieces of at most twice `Out::SPILL`.
    #[test]
    fn long_messages_are_written_in_pieces() {
        let line = "`x<".repeat(1_000_000);
        let code = format!("```\n{}\n```", "y".repeat(3_000_000));
        for text in [line.as_str(), code.as_str()] {
            let (total, largest) = super::super::writes(|out| markdown(out, text));
            assert!(total >= text.len(), "{total}");
            assert!(largest <= 2 * Out::SPILL, "a write of {largest} bytes");
        }
        let (total, largest) = super::super::writes(|out| fence(out, "text", &code));
        assert!(
            total > code.len() && largest <= 2 * Out::SPILL,
            "{total} {largest}"
        );
    }

    /// Container markers past the cap are text.
    #[test]
    fn nesting_is_capped() {
        let deep = format!("{}x", "> ".repeat(MAX_NESTING + 3));
        let out = md(&deep);
        let head = "> ".repeat(MAX_NESTING);
        assert_eq!(out, format!("{head}\\> > > x\n\n"));
        assert_eq!(cap_nesting(&deep), format!("{head}\\> > > x"));
        assert!(matches!(
            cap_nesting("> > a\n- b"),
            std::borrow::Cow::Borrowed(_)
        ));
        let numbered = format!("{}z", "1. ".repeat(MAX_NESTING + 1));
        assert_eq!(
            cap_nesting(&numbered),
            format!("{}1\\. z", "1. ".repeat(MAX_NESTING))
        );
    }
}
