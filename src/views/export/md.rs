//! A transcript as GitHub-flavoured Markdown.
//!
//! Message text stays Markdown (lists, emphasis, code), rewritten so that nothing in it can
//! open HTML or reach past its message: its fenced code blocks are found line by line and
//! written again inside fences longer than any backtick run they hold; in the rest, `<` is
//! `&lt;` (no tag, comment or autolink can start), a backtick that opens no code span on its
//! line is escaped (so the spans are the ones found here), a fence or a link reference
//! definition at the start of a line is escaped, and `![` is `\![` (an image is a link, never
//! loaded). Texts that are not Markdown (names, models, paths) are escaped whole.

use std::fmt::Write as _;

use super::transcript::{self, Body, Call, Item, Part, ToolResult, Transcript};
use super::{Tools, View};

/// The whole document.
pub fn render(t: &Transcript, view: View) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", inline(&t.title));
    let mut fact = |k: &str, v: &str| {
        let _ = writeln!(out, "- **{k}:** {}", inline(v));
    };
    for (k, v) in t.facts() {
        fact(k, &v);
    }
    out.push('\n');
    let mut model = None;
    for item in &t.items {
        render_item(&mut out, item, view, &mut model);
    }
    out
}

/// One item; `model` is the last assistant's, named again only when it changes.
fn render_item<'t>(out: &mut String, item: &'t Item, view: View, last_model: &mut Option<&'t str>) {
    let time = item.time_ms.map(transcript::utc_time).unwrap_or_default();
    let heading = |out: &mut String, title: &str| {
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
                render_result(out, result, view);
            }
        }
        Body::Bash {
            command,
            output,
            exit_code,
        } => {
            heading(out, "Shell command");
            fence(out, "sh", &format!("$ {command}"));
            if view.tools != Tools::None {
                let mut summary = "Output".to_owned();
                if let Some(code) = exit_code {
                    let _ = write!(summary, " (exit {code})");
                }
                open_details(out, &summary, view);
                fence(out, "text", output);
                close_details(out);
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

fn render_parts(out: &mut String, parts: &[Part], view: View) {
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

fn render_call(out: &mut String, call: &Call, view: View) {
    let mut summary = format!("Tool call: {}", call.name);
    if call.result.as_ref().is_some_and(|r| r.is_error) {
        summary.push_str(" (error)");
    }
    open_details(out, &summary, view);
    fence(out, "json", &call.arguments);
    if let Some(result) = &call.result {
        out.push_str(if result.is_error {
            "**Result (error):**\n\n"
        } else {
            "**Result:**\n\n"
        });
        result_parts(out, result);
    }
    close_details(out);
}

fn render_result(out: &mut String, result: &ToolResult, view: View) {
    let summary = if result.is_error {
        "Output (error)"
    } else {
        "Output"
    };
    open_details(out, summary, view);
    result_parts(out, result);
    close_details(out);
}

/// A tool's output is text, not Markdown: fenced as it is.
fn result_parts(out: &mut String, result: &ToolResult) {
    for part in &result.parts {
        match part {
            Part::Text(t) | Part::Thinking(t) => fence(out, "text", t),
            Part::Image { mime, .. } => {
                let _ = writeln!(out, "*[image: {}]*\n", inline(mime));
            }
            Part::Other(kind) => {
                let _ = writeln!(out, "*[{}]*\n", inline(kind));
            }
            Part::RedactedThinking | Part::Call(_) => {}
        }
    }
}

/// `<details>` (open with `--tools full`) with a one-line, HTML-escaped summary: inside an
/// HTML block nothing is Markdown, and a blank line would end the block.
fn open_details(out: &mut String, summary: &str, view: View) {
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

fn close_details(out: &mut String) {
    out.push_str("</details>\n\n");
}

/// `text` in a fence of backticks longer than its longest backtick run (at least three), so no
/// line of it can close the fence; `info` is ours, never the session's.
pub fn fence(out: &mut String, info: &str, text: &str) {
    let ticks = "`".repeat((longest_run(text, '`') + 1).max(3));
    let _ = writeln!(out, "{ticks}{info}");
    out.push_str(text);
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

/// Message text (Markdown) made safe to embed: see the module's comment.
pub fn markdown(out: &mut String, text: &str) {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut i = 0;
    let mut in_text = false;
    while i < lines.len() {
        if let Some((indent, c, len, info)) = fence_open(lines[i]) {
            if in_text {
                out.push('\n');
                in_text = false;
            }
            let mut body = String::new();
            let mut j = i + 1;
            while j < lines.len() && !fence_closes(lines[j], c, len) {
                let line = lines[j];
                let strip = line.len() - line.trim_start_matches(' ').len();
                body.push_str(&line[strip.min(indent)..]);
                body.push('\n');
                j += 1;
            }
            let info: String = info
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_' | '.' | '#'))
                .take(30)
                .collect();
            fence(out, &info, &body);
            i = j + 1;
            continue;
        }
        text_line(out, lines[i]);
        out.push('\n');
        in_text = true;
        i += 1;
    }
    out.push('\n');
}

/// One line of text outside code blocks.
fn text_line(out: &mut String, line: &str) {
    // Container markers (quotes, list items) and whitespace: what follows them starts a block.
    let bytes = line.as_bytes();
    let mut at = 0;
    loop {
        while at < bytes.len() && (bytes[at] == b' ' || bytes[at] == b'\t') {
            at += 1;
        }
        match bytes.get(at) {
            Some(b'>') => at += 1,
            Some(b'-' | b'*' | b'+') if matches!(bytes.get(at + 1), Some(b' ' | b'\t')) => at += 1,
            Some(b'0'..=b'9') => {
                let digits = bytes[at..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
                match (bytes.get(at + digits), bytes.get(at + digits + 1)) {
                    (Some(b'.' | b')'), Some(b' ' | b'\t') | None) => at += digits + 1,
                    _ => break,
                }
            }
            _ => break,
        }
    }
    let (head, rest) = line.split_at(at);
    out.push_str(head);
    // A backtick fence needs no mark: a run that closes no span on its line is escaped below,
    // and one that does has a backtick in its "info string", which no fence may.
    let starts_block = rest.starts_with("~~~") || (rest.starts_with('[') && rest.contains("]:"));
    if starts_block {
        out.push('\\');
    }
    inline_markdown(out, rest);
}

/// Inline Markdown of one line: code spans kept, every other backtick escaped, `<` as an
/// entity, images as links.
fn inline_markdown(out: &mut String, s: &str) {
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if i + 1 < chars.len() && chars[i + 1].is_ascii_punctuation() => {
                out.push('\\');
                if chars[i + 1] == '<' {
                    out.push_str("&lt;");
                } else {
                    out.push(chars[i + 1]);
                }
                i += 2;
            }
            '`' => {
                let run = chars[i..].iter().take_while(|&&x| x == '`').count();
                match span_end(&chars, i + run, run) {
                    Some(end) => {
                        out.extend(&chars[i..end + run]);
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
            '<' => {
                out.push_str("&lt;");
                i += 1;
            }
            '!' if chars.get(i + 1) == Some(&'[') => {
                out.push_str("\\!");
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// Where a code span opened by a run of `run` backticks ends: the start of the next run of
/// exactly that length on the line.
fn span_end(chars: &[char], from: usize, run: usize) -> Option<usize> {
    let mut j = from;
    while j < chars.len() {
        if chars[j] == '`' {
            let n = chars[j..].iter().take_while(|&&x| x == '`').count();
            if n == run {
                return Some(j);
            }
            j += n;
        } else {
            j += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn md(text: &str) -> String {
        let mut out = String::new();
        markdown(&mut out, text);
        out
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
        assert_eq!(md("[x]: http://e 'y"), "\\[x]: http://e 'y\n\n");
        assert_eq!(md("\\`<b>`"), "\\`&lt;b>\\`\n\n");
    }
}
