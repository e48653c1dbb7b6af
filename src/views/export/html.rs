//! A transcript as one HTML page that needs nothing from anywhere.
//!
//! The whole branch is static, escaped HTML, readable with JavaScript off; the one script only
//! adds search, expand/collapse and copy-link. A Content-Security-Policy `meta` allows the
//! page's own style and script by their SHA-256 and images only as `data:` URLs, and nothing
//! else: no request leaves the page. Message Markdown is rendered by pulldown-cmark with its
//! raw HTML turned into text, images into links that load nothing, and links to anything but
//! http(s), mailto and fragments made inert.

use std::fmt::Write as _;
use std::ops::ControlFlow;

use base64::Engine as _;
use pulldown_cmark::{Alignment, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};
use sha2::{Digest, Sha256};

use super::transcript::{self, Body, Call, Item, Part, Subagent, ToolResult, Transcript};
use super::{call, Out, Tools, View};

const CSS: &str = include_str!("assets/export.css");
const JS: &str = include_str!("assets/export.js");

/// `'sha256-…'` of a style or script, as CSP names it.
fn csp_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// A page's Content-Security-Policy: the style and `script` by their hashes, images only
/// as `data:` URLs, nothing else.
pub fn policy(script: &str) -> String {
    format!(
        "default-src 'none'; style-src {}; script-src {}; img-src data:; base-uri 'none'; form-action 'none'",
        csp_hash(CSS),
        csp_hash(script)
    )
}

/// A page's head, up to `<body>`: its policy allowing `script`, the style, the title.
pub fn head(out: &mut Out<'_>, title: &str, script: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <meta name=\"generator\" content=\"pisess {}\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        policy(script),
        env!("CARGO_PKG_VERSION"),
        esc(title)
    );
}

/// The whole page.
pub fn render(t: &Transcript, view: View, out: &mut Out<'_>) {
    head(out, &t.title, JS);
    let _ = write!(
        out,
        "<header>\n<h1>{}</h1>\n<dl class=\"facts\">\n",
        name(&t.title)
    );
    let mut fact = |k: &str, v: &str| {
        let _ = writeln!(out, "<dt>{k}</dt><dd>{}</dd>", name(v));
    };
    for (k, v) in t.facts() {
        fact(k, &v);
    }
    out.push_str("</dl>\n</header>\n");
    tree(out, t);
    out.push_str("<main>\n");
    render_items_parallel(out, t, view);
    let _ = write!(
        out,
        "</main>\n<footer>Exported by pisess {}: one branch, root to leaf.</footer>\n<script>{JS}</script>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
}

/// The most user messages the tree lists (each is on the page all the same).
const MAX_TOC: usize = 1000;

/// The session's tree beside the page (above it on a narrow screen): the exported branch,
/// marked, with a link to each of its user messages; then every other branch by where it
/// leaves this one, its first message and its cost, with the command that exports it.
fn tree(out: &mut Out<'_>, t: &Transcript) {
    let users: Vec<(&str, String)> = t
        .items
        .iter()
        .filter_map(|item| match &item.body {
            Body::User(parts) => {
                let text = parts.iter().find_map(|p| match p {
                    Part::Text(t) if !t.trim().is_empty() => Some(transcript::one_line(t, 48)),
                    _ => None,
                });
                Some((
                    item.anchor.as_str(),
                    text.unwrap_or_else(|| "(no text)".to_owned()),
                ))
            }
            _ => None,
        })
        .collect();
    let _ = write!(
        out,
        "<nav id=tree aria-label=\"Session tree\">\n<h2>Branches ({})</h2>\n<ol>\n<li aria-current=true><b>This branch</b> · {} · {} messages<ol>\n",
        t.branches.len() + t.more_branches + 1,
        esc(&crate::views::style::money(t.cost, t.unpriced_tokens)),
        t.items.len()
    );
    for (anchor, text) in users.iter().take(MAX_TOC) {
        let _ = writeln!(out, "<li><a href=\"#{anchor}\">{}</a></li>", name(text));
        out.spill();
    }
    if users.len() > MAX_TOC {
        let _ = writeln!(
            out,
            "<li>and {} more user messages</li>",
            users.len() - MAX_TOC
        );
    }
    out.push_str("</ol></li>\n");
    for b in &t.branches {
        let from = match &b.fork_anchor {
            Some(a) => format!("<a href=\"#{a}\">from here</a>"),
            None => "its own root".to_owned(),
        };
        let first = if b.first.is_empty() {
            "(no user message)".to_owned()
        } else {
            name(&b.first)
        };
        let _ = writeln!(
            out,
            "<li>{first} · {} · {} messages · {from} · <code>--leaf {}</code></li>",
            esc(&crate::views::style::cost(b.cost)),
            b.messages,
            name(&b.leaf)
        );
        out.spill();
    }
    if t.more_branches > 0 {
        let _ = writeln!(out, "<li>and {} more branches</li>", t.more_branches);
    }
    out.push_str("</ol>\n</nav>\n");
}

/// The items of a transcript, each with the subagent runs it started.
fn render_items(out: &mut Out<'_>, t: &Transcript, view: View) {
    let mut state = State::default();
    for item in &t.items {
        if heading(out, item, view, &mut state) {
            render_body(out, item, view, t.runs_of(&item.id));
        }
        out.spill();
    }
}

/// The page's items, rendered on every core (rendering was a third of an export, all on one
/// core after the transcript was built). An item's HTML depends on those before only through
/// its heading ([`State`]: the last model and date shown), so the headings are made here in
/// order, a block of items at a time, and the bodies on the workers, each into its own bytes,
/// written out in order. The page is the same byte for byte.
fn render_items_parallel(out: &mut Out<'_>, t: &Transcript, view: View) {
    /// Items whose headings are made ahead of their bodies: bounds the headings held.
    const BLOCK: usize = 4096;
    let mut state = State::default();
    for block in t.items.chunks(BLOCK) {
        let mut shown: Vec<(&Item, String)> = Vec::with_capacity(block.len());
        for item in block {
            let mut head = String::new();
            if heading(&mut head, item, view, &mut state) {
                shown.push((item, head));
            }
        }
        pisess_store::util::parallel::ordered(
            &shown,
            |(item, head)| {
                let mut nowhere = std::io::sink();
                let mut body = Out::held(&mut nowhere, head.len() + body_hint(item));
                body.push_str(head);
                render_body(&mut body, item, view, t.runs_of(&item.id));
                body.into_held()
            },
            |text| {
                out.push_rendered(text);
                ControlFlow::Continue(())
            },
        );
    }
}

/// About how many bytes an item's body renders to, for its buffer: its texts' length and an
/// eighth more (escapes, markup), at most [`Out::SPILL`] times 16. A buffer doubled from 4 KB
/// was copied at each doubling: five times for a 100 KB tool output, on the way to the
/// 277 MB page of issue 48's session.
fn body_hint(item: &Item) -> usize {
    fn texts(parts: &[Part]) -> usize {
        parts
            .iter()
            .map(|p| match p {
                Part::Text(t) | Part::Thinking(t) => t.len(),
                Part::Call(c) => {
                    c.headline.len()
                        + c.arguments.len()
                        + c.result.as_ref().map_or(0, |r| texts(&r.parts))
                }
                Part::Image { data, .. } => data.as_ref().map_or(0, String::len),
                Part::RedactedThinking | Part::Other(_) => 0,
            })
            .sum()
    }
    let len = match &item.body {
        Body::User(parts) | Body::Custom { parts, .. } | Body::Assistant { parts, .. } => {
            texts(parts)
        }
        Body::ToolResult(r) => texts(&r.parts),
        Body::Bash {
            command, output, ..
        } => command.len() + output.len(),
        Body::Summary { text, .. } | Body::System { text, .. } => text.len(),
        Body::Note(_) => 0,
    };
    (512 + len + len / 8).min(16 * Out::SPILL)
}

/// A subagent run inside the item that started it: collapsed, its transcript rendered as the
/// page's own (escaped by the same code), its own runs nested in turn.
fn render_run(out: &mut Out<'_>, run: &Subagent, view: View) {
    let _ = writeln!(
        out,
        "<details class=run><summary><b>{}</b> · {} · {} messages</summary>",
        name(&run.title),
        esc(&crate::views::style::money(
            run.transcript.cost,
            run.transcript.unpriced_tokens
        )),
        run.transcript.items.len()
    );
    render_items(out, &run.transcript, view);
    out.push_str("</details>\n");
}

/// What the items before said, so that a long session's page does not repeat it: the last
/// assistant's model (the facts list them all) and the last date shown.
#[derive(Default)]
struct State<'t> {
    model: Option<&'t str>,
    date: String,
}

/// One item: an `<article>` whose id is its anchor, headed by an `<h3>` (the script adds the
/// copy-link to it: with JavaScript off the fragment works, the link is not needed). Attribute
/// values pisess makes (classes, anchors of `[A-Za-z0-9_.-]`) are unquoted, which HTML allows.
///
/// This is its heading, made in order (it updates `state`); false when the item is not shown.
fn heading<'t>(out: &mut String, item: &'t Item, view: View, state: &mut State<'t>) -> bool {
    let (class, title) = match &item.body {
        Body::User(_) => ("u", "User".to_owned()),
        Body::Assistant { model: m, .. } => {
            let changed = m.as_deref() != state.model;
            state.model = m.as_deref();
            match m {
                Some(m) if changed => ("a", format!("Assistant · {m}")),
                _ => ("a", "Assistant".to_owned()),
            }
        }
        Body::ToolResult(r) => {
            if view.tools == Tools::None {
                return false;
            }
            ("t", format!("Tool result: {}", r.name))
        }
        Body::Bash { .. } => ("b", "Shell command".to_owned()),
        Body::Custom { kind, .. } => ("c", format!("Message: {kind}")),
        Body::Summary { kind, .. } => ("y", (*kind).to_owned()),
        Body::System { first: true, .. } => ("s", "System prompt".to_owned()),
        Body::System { .. } => ("s", "System prompt update".to_owned()),
        Body::Note(text) => ("n", text.clone()),
    };
    let _ = write!(
        out,
        "<article class={class} id={}><h3>{}",
        item.anchor,
        name(&title)
    );
    if let Some(label) = &item.label {
        let _ = write!(out, " <b class=lb>{}</b>", name(label));
    }
    if let Some(ms) = item.time_ms {
        // The date when it changes, else the time alone.
        let time = transcript::utc_time(ms);
        let shown = match time.split_once(' ') {
            Some((date, clock)) if date == state.date => clock.to_owned(),
            Some((date, _)) => {
                state.date = date.to_owned();
                time.clone()
            }
            None => time.clone(),
        };
        let _ = write!(out, "<i>{}</i>", esc(&shown));
    }
    out.push_str("</h3>\n");
    true
}

/// An item's body (after its [`heading`]), with the runs it started.
fn render_body<'t>(
    out: &mut Out<'_>,
    item: &'t Item,
    view: View,
    runs: impl Iterator<Item = &'t Subagent>,
) {
    match &item.body {
        Body::User(parts) | Body::Custom { parts, .. } => render_parts(out, parts, view),
        Body::Assistant { parts, error, .. } => {
            render_parts(out, parts, view);
            if let Some(e) = error {
                let _ = writeln!(out, "<p class=\"e\">{}</p>", esc(e));
            }
        }
        Body::ToolResult(r) => {
            let text = r.text();
            output_block(out, &text, call::preview_lines(&r.name), None, view);
            result_extras(out, r);
        }
        Body::Bash {
            command,
            output,
            exit_code,
        } => {
            out.push_str("<p class=h>$ ");
            esc_text(out, command);
            if let Some(c) = exit_code.as_deref().filter(|c| *c != "0") {
                let _ = write!(out, " <b class=e>exit {}</b>", esc(c));
            }
            out.push_str("</p>\n");
            if view.tools != Tools::None {
                output_block(out, output, call::preview_lines("bash"), None, view);
            }
        }
        Body::Summary { text, .. } => markdown(out, text),
        Body::Note(_) => {}
        Body::System {
            first,
            text,
            tools_added,
            tools_removed,
        } => system(out, *first, text, tools_added, tools_removed),
    }
    for run in runs {
        render_run(out, run, view);
    }
    out.push_str("</article>\n");
}

/// A system message: its prompt and its tools, each behind a disclosure that says how much
/// it holds (a prompt is pages long).
fn system(
    out: &mut Out<'_>,
    first: bool,
    text: &str,
    added: &[(String, String)],
    removed: &[String],
) {
    if !text.is_empty() {
        let _ = writeln!(
            out,
            "<details><summary>{} lines</summary>",
            call::count_lines(text)
        );
        pre_class(out, "", text);
        out.push_str("</details>\n");
    }
    if !added.is_empty() {
        let names: Vec<&str> = added.iter().map(|(n, _)| n.as_str()).collect();
        let _ = writeln!(
            out,
            "<details><summary>{}: {}</summary>\n<dl>",
            if first {
                "Available tools"
            } else {
                "Tools added"
            },
            name(&names.join(", "))
        );
        for (tool, description) in added {
            let _ = writeln!(out, "<dt>{}</dt><dd>", name(tool));
            esc_text(out, description);
            out.push_str("</dd>\n");
        }
        out.push_str("</dl></details>\n");
    }
    if !removed.is_empty() {
        let _ = writeln!(out, "<p>Tools removed: {}</p>", name(&removed.join(", ")));
    }
}

fn render_parts(out: &mut Out<'_>, parts: &[Part], view: View) {
    for part in parts {
        match part {
            Part::Text(t) => markdown(out, t),
            Part::Thinking(t) => {
                if view.thinking {
                    out.push_str("<details class=\"k\"><summary>Thinking</summary>\n");
                    markdown(out, t);
                    out.push_str("</details>\n");
                }
            }
            Part::RedactedThinking => {
                if view.thinking {
                    out.push_str("<p><i>Thinking (encrypted by the provider)</i></p>\n");
                }
            }
            Part::Call(call) => {
                if view.tools != Tools::None {
                    render_call(out, call, view);
                }
            }
            Part::Image { mime, data } => image(out, mime, data.as_deref()),
            Part::Other(kind) => {
                let _ = writeln!(out, "<p><i>[{}]</i></p>", esc(kind));
            }
        }
    }
}

/// A call at a glance: its line in pi's wording and its state, the first lines of its output,
/// then the rest and its input behind a disclosure.
fn render_call(out: &mut Out<'_>, call: &Call, view: View) {
    let (class, state) = match &call.result {
        None => ("\"tc p\"", " <i>no result</i>"),
        Some(r) if r.is_error => ("\"tc e\"", " <b class=e>error</b>"),
        Some(_) => ("tc", ""),
    };
    let _ = writeln!(
        out,
        "<div class={class}><p>{}{state}</p>",
        name(&call.headline)
    );
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
    if let Some(r) = &call.result {
        result_extras(out, r);
    }
    out.push_str("</div>\n");
}

/// A tool's output: its first `preview` lines in view, the rest (at most the view's cap,
/// which it says) and the call's input behind a disclosure, open with `--tools full`.
fn output_block(out: &mut Out<'_>, text: &str, preview: usize, input: Option<&str>, view: View) {
    let shown = view.output_cut(text);
    let head = call::cut_after(&text[..shown], preview);
    if head > 0 {
        pre_class(out, "o", &text[..head]);
    }
    let rest = &text[head..shown];
    let hidden = &text[shown..];
    let input = input.filter(|i| !i.is_empty());
    if rest.is_empty() && hidden.is_empty() && input.is_none() {
        return;
    }
    let open = if view.tools == Tools::Full {
        " open"
    } else {
        ""
    };
    let more = call::count_lines(rest) + call::count_lines(hidden);
    let summary = match (more, input.is_some()) {
        (0, _) => "Input".to_owned(),
        (n, true) => format!("{} · input", call::more_lines(n)),
        (n, false) => call::more_lines(n),
    };
    let _ = writeln!(out, "<details{open}><summary>{summary}</summary>");
    if !rest.is_empty() {
        pre_class(out, "o", rest);
    }
    if !hidden.is_empty() {
        let _ = writeln!(
            out,
            "<p class=e>{} not shown: --tools full shows {} lines of each output; --output-lines 0 shows all.</p>",
            call::more_lines(call::count_lines(hidden)),
            view.output_lines.unwrap_or_default()
        );
    }
    if let Some(input) = input {
        pre_class(out, "j", input);
    }
    out.push_str("</details>\n");
}

/// A result's parts that are not text: images shown, other blocks named.
fn result_extras(out: &mut Out<'_>, r: &ToolResult) {
    for part in &r.parts {
        match part {
            Part::Image { mime, data } => image(out, mime, data.as_deref()),
            Part::Other(kind) => {
                let _ = writeln!(out, "<p><i>[{}]</i></p>", esc(kind));
            }
            _ => {}
        }
    }
}

/// An image the transcript holds as base64 of an allowed type, as a `data:` URL; any other
/// only named.
fn image(out: &mut Out<'_>, mime: &str, data: Option<&str>) {
    match data {
        Some(data) => {
            let _ = writeln!(
                out,
                "<p><img alt=\"{m}\" src=\"data:{m};base64,{data}\"></p>",
                m = esc(mime)
            );
        }
        None => {
            let _ = writeln!(out, "<p><i>[image: {}]</i></p>", esc(mime));
        }
    }
}

fn pre_class(out: &mut Out<'_>, class: &str, text: &str) {
    match class {
        "" => out.push_str("<pre>"),
        c => {
            let _ = write!(out, "<pre class={c}>");
        }
    }
    esc_text(out, text);
    out.push_str("</pre>\n");
}

/// A name or title as an element's text: [`esc`], in a `<bdi>` when it holds a character
/// beyond ASCII (a right-to-left one would reorder what is beside it; an ASCII name, most of
/// them, costs no markup).
pub fn name(s: &str) -> String {
    if s.is_ascii() {
        esc(s)
    } else {
        format!("<bdi>{}</bdi>", esc(s))
    }
}

/// Text for an element or an attribute: `&`, `<`, `>`, `"` and `'` as entities. It writes the
/// page's names and titles (the session's name, the facts, a model, a tool's name), so a bidi
/// control or an invisible character in one (`pisess_format::surrogates::is_terminal_control`:
/// U+202E would show `exe.pdf` for `fdp.exe`) is shown as its escape, `\u{202e}`, as the
/// terminal shows it; where it is an element's text it is also in a `<bdi>` ([`name`]), so that a
/// right-to-left name does not reorder what is around it. Message texts keep theirs
/// (right-to-left writing uses the marks): each is its own block.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            c if pisess_format::surrogates::is_terminal_control(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Text inside an element (never an attribute): only `&` and `<` need escaping. Found with
/// `memchr2`, not byte by byte: tool outputs are most of a big page (issue 48's time budget).
fn esc_text(out: &mut Out<'_>, s: &str) {
    let mut plain = 0;
    for at in memchr::memchr2_iter(b'&', b'<', s.as_bytes()) {
        let entity = if s.as_bytes()[at] == b'&' {
            "&amp;"
        } else {
            "&lt;"
        };
        out.push_str(&s[plain..at]);
        out.push_str(entity);
        out.spill();
        plain = at + 1;
    }
    out.push_chunked(&s[plain..]);
}

/// Whether a link target may stay: http(s), mailto or a fragment of this page. Anything else
/// becomes inert: `javascript:`, `data:`, `file:` and the rest, and relative targets too
/// (`/etc/passwd`, `../../.ssh/id_rsa`, and `//host/x`, which is another site), since a page
/// saved anywhere must not point at what lies beside it.
fn safe_url(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    ["http://", "https://", "mailto:", "#"]
        .iter()
        .any(|p| lower.starts_with(p))
}

/// Message Markdown as HTML: raw HTML as text, images as links, unsafe links inert, table
/// alignment as a class (pulldown-cmark writes it as a `style` attribute, which the page's
/// policy refuses: a CSP violation on every aligned cell), and container markers past
/// [`md::MAX_NESTING`] as text (pulldown-cmark's tree holds a node for each: ~85 bytes per `>`
/// of a line of them).
fn markdown(out: &mut Out<'_>, text: &str) {
    let text = super::md::cap_nesting(text);
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut cells = Cells::default();
    let events = Parser::new_ext(&text, options).flat_map(|event| -> Vec<Event> {
        match event {
            Event::Start(Tag::Table(alignments)) => {
                cells = Cells {
                    alignments,
                    ..Cells::default()
                };
                vec![Event::Start(Tag::Table(Vec::new()))]
            }
            Event::Start(Tag::TableHead) => {
                cells.head = true;
                cells.index = 0;
                vec![Event::Start(Tag::TableHead)]
            }
            Event::End(TagEnd::TableHead) => {
                cells.head = false;
                vec![Event::End(TagEnd::TableHead)]
            }
            Event::Start(Tag::TableRow) => {
                cells.index = 0;
                vec![Event::Start(Tag::TableRow)]
            }
            Event::Start(Tag::TableCell) => vec![Event::Html(cells.open().into())],
            Event::Html(s) | Event::InlineHtml(s) => vec![Event::Text(s)],
            // pulldown-cmark's checkbox has no label, which a screen reader needs.
            Event::TaskListMarker(done) => vec![Event::Html(
                if done {
                    "<input type=checkbox disabled checked aria-label=done> "
                } else {
                    "<input type=checkbox disabled aria-label=\"not done\"> "
                }
                .into(),
            )],
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) => vec![
                Event::Start(Tag::Link {
                    link_type,
                    dest_url: inert(link_type, dest_url),
                    title,
                    id,
                }),
                Event::Text("[image] ".into()),
            ],
            Event::End(TagEnd::Image) => vec![Event::End(TagEnd::Link)],
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => vec![Event::Start(Tag::Link {
                link_type,
                dest_url: inert(link_type, dest_url),
                title,
                id,
            })],
            other => vec![other],
        }
    });
    // Through `Out`, which writes the page out as it grows.
    let _ = pulldown_cmark::html::write_html_fmt(&mut *out, events);
}

/// Where the table being written is: its columns' alignment, and the cell next opened.
#[derive(Default)]
struct Cells {
    alignments: Vec<Alignment>,
    head: bool,
    index: usize,
}

impl Cells {
    /// The opening tag of the next cell, its alignment as a class of the page's style.
    fn open(&mut self) -> &'static str {
        let align = self.alignments.get(self.index).copied();
        self.index += 1;
        match (self.head, align) {
            (true, Some(Alignment::Left)) => "<th class=al>",
            (true, Some(Alignment::Center)) => "<th class=ac>",
            (true, Some(Alignment::Right)) => "<th class=ar>",
            (true, _) => "<th>",
            (false, Some(Alignment::Left)) => "<td class=al>",
            (false, Some(Alignment::Center)) => "<td class=ac>",
            (false, Some(Alignment::Right)) => "<td class=ar>",
            (false, _) => "<td>",
        }
    }
}

fn inert(link_type: LinkType, url: CowStr<'_>) -> CowStr<'_> {
    // An email autolink (`<a@b.c>`) is written `mailto:` + its target by the renderer.
    if link_type == LinkType::Email || safe_url(&url) {
        url
    } else {
        CowStr::Borrowed("#")
    }
}

#[cfg(test)]
mod tests {
    use super::super::md;
    use super::*;

    fn html_of(text: &str) -> String {
        super::super::rendered(|out| markdown(out, text))
    }

    /// Items rendered on the workers are the items rendered in order, byte for byte, for
    /// every leaf's branch of every example session in every view (the headings' model and
    /// date carried from item to item, hidden tool results, subagent runs).
    #[test]
    fn items_rendered_on_workers_are_the_items_rendered_in_order() {
        let mut compared = 0;
        for path in pisess_format::skim::example_sessions() {
            let Ok(session) = pisess_store::session::Session::open(&path, Default::default())
            else {
                continue;
            };
            let n = session.entries.len();
            let mut parent = vec![false; n];
            for j in 0..n {
                if let Some(p) = session.parent_of(j) {
                    parent[p] = true;
                }
            }
            for leaf in (0..n).filter(|&j| !parent[j]).take(5) {
                let (branch, _) = session.path_to(leaf);
                let Ok(t) = transcript::build(&session, &branch, "/cwd", &super::super::Verbatim)
                else {
                    continue;
                };
                for tools in [Tools::Full, Tools::Collapsed, Tools::None] {
                    for thinking in [true, false] {
                        let view = View {
                            tools,
                            thinking,
                            output_lines: Some(3),
                        };
                        let in_order = super::super::rendered(|out| render_items(out, &t, view));
                        let on_workers =
                            super::super::rendered(|out| render_items_parallel(out, &t, view));
                        assert_eq!(in_order, on_workers, "{}", path.display());
                        compared += usize::from(t.items.len() > 1);
                    }
                }
            }
        }
        assert!(compared > 50, "{compared}");
    }

    /// Most items of the example sessions render within the buffer made for them (one grown
    /// is copied on the way), and no hint is far past what its item renders to.
    #[test]
    fn item_buffers_are_made_about_the_size_of_their_items() {
        let (mut items, mut within, mut over) = (0, 0, 0);
        for path in pisess_format::skim::example_sessions() {
            let Ok(session) = pisess_store::session::Session::open(&path, Default::default())
            else {
                continue;
            };
            let Some(leaf) = session.leaf() else { continue };
            let (branch, _) = session.path_to(leaf);
            let verbatim = &super::super::Verbatim;
            let Ok(t) = transcript::build(&session, &branch, "/cwd", verbatim) else {
                continue;
            };
            let view = View {
                tools: Tools::Collapsed,
                thinking: true,
                output_lines: None,
            };
            for item in &t.items {
                let body =
                    super::super::rendered(|out| render_body(out, item, view, t.runs_of(&item.id)));
                let hint = body_hint(item);
                items += 1;
                within += usize::from(body.len() <= hint);
                over += usize::from(hint > 4 * body.len() + 1024);
            }
        }
        assert!(items > 100, "{items}");
        assert!(
            within * 10 >= items * 9,
            "{within} of {items} within their hint"
        );
        assert_eq!(over, 0, "hints far past their items");
    }

    #[test]
    fn markdown_keeps_no_html_and_no_unsafe_link() {
        let out = html_of(
            "<script>alert(1)</script>\n\n[x](javascript:alert(1)) [y](JavaScript:x) ![i](https://e/i.png) <img src=x onerror=y> [ok](https://e/)",
        );
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(
            !out.to_ascii_lowercase().contains("href=\"javascript"),
            "{out}"
        );
        assert!(
            out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{out}"
        );
        assert!(
            out.contains("<a href=\"https://e/i.png\">[image] i</a>"),
            "{out}"
        );
        assert!(out.contains("<a href=\"https://e/\">ok</a>"), "{out}");
        assert!(!safe_url("data:text/html,x") && !safe_url(" javascript:x") && safe_url("#m-a1"));
    }

    /// Issue 48: the script only toggles, filters and links, within its budget.
    #[test]
    fn the_script_is_under_10_kb() {
        assert!(JS.len() < 10 * 1024, "{} bytes", JS.len());
    }

    /// Issue 42: pulldown-cmark writes a column's alignment as `style="text-align: …"`, which
    /// the page's own CSP refuses; it is a class of the page's style instead.
    #[test]
    fn table_alignment_is_a_class_not_an_inline_style() {
        let out = html_of("| a | b | c | d |\n|:--|:-:|--:|---|\n| 1 | 2 | 3 | 4 |\n| 5 |\n");
        assert!(!out.contains("style"), "{out}");
        assert!(
            out.contains(
                "<table><thead><tr><th class=al>a</th><th class=ac>b</th><th class=ar>c</th><th>d</th></tr></thead><tbody>"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "<tr><td class=al>1</td><td class=ac>2</td><td class=ar>3</td><td>4</td></tr>"
            ),
            "{out}"
        );
        assert!(out.contains("<tr><td class=al>5</td>"), "{out}");
        for class in ["al", "ac", "ar"] {
            assert!(CSS.contains(&format!(".{class}{{text-align:")), "{class}");
        }
    }

    /// Issue 42: a line of nested `>` is nested no deeper than the cap (pulldown-cmark held
    /// ~85 bytes per level: 2.5 GB for a 30 MB line); the rest is text.
    #[test]
    fn blockquotes_nest_no_deeper_than_the_cap() {
        let deep = format!("{}x", ">".repeat(10_000));
        let out = html_of(&deep);
        assert_eq!(
            out.matches("<blockquote>").count(),
            md::MAX_NESTING,
            "{out}"
        );
        assert!(out.contains(&format!("{}x", "&gt;".repeat(10_000 - md::MAX_NESTING))));
        let lists = format!("{}y", "- ".repeat(1000));
        let out = html_of(&lists);
        assert_eq!(out.matches("<ul>").count(), md::MAX_NESTING, "{out}");
    }

    /// Issue 42: the page is written as it grows: 3 MB of `>` and `<` that render to 12 MB
    /// are written in pieces of at most twice `Out::SPILL`, as Markdown and as a tool output.
    #[test]
    fn long_texts_are_written_in_pieces() {
        let text = format!("{}x", "><".repeat(1_500_000));
        let (total, largest) = super::super::writes(|out| markdown(out, &text));
        assert!(total >= 4 * text.len() - 8, "{total}");
        assert!(largest <= 2 * Out::SPILL, "a write of {largest} bytes");
        let (total, largest) = super::super::writes(|out| pre_class(out, "o", &text));
        assert!(total >= 2 * text.len(), "{total}");
        assert!(largest <= 2 * Out::SPILL, "a write of {largest} bytes");
    }

    #[test]
    fn relative_and_protocol_relative_links_and_images_are_inert() {
        let out = html_of(
            "[a](//evil.example/x) [b](/etc/passwd) [c](../../.ssh/id_rsa) [d](\\\\evil/x) \
             ![e](//evil.example/i.png) ![f](img/x.png) [g](#m-a1) [h](mailto:a@b.c) <a@b.c>",
        );
        for text in ["a", "b", "c", "d", "[image] e", "[image] f"] {
            assert!(
                out.contains(&format!("<a href=\"#\">{text}</a>")),
                "{text}: {out}"
            );
        }
        for live in [
            "href=\"/",
            "href=\".",
            "href=\"\\",
            "href=\"img",
            "href=\"%5C",
        ] {
            assert!(!out.contains(live), "{live}: {out}");
        }
        assert!(out.contains("<a href=\"#m-a1\">g</a>"), "{out}");
        assert!(out.contains("<a href=\"mailto:a@b.c\">h</a>"), "{out}");
        assert!(out.contains("<a href=\"mailto:a@b.c\">a@b.c</a>"), "{out}");
    }
}
