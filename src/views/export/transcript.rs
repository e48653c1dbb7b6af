//! The branch as a reader sees it: facts about the session, then one item per message or
//! event, tool results joined to their calls. What Markdown and HTML render; every text in it
//! has passed through the [`Redact`] hook, so no renderer can forget to.

use std::collections::HashMap;
use std::ops::ControlFlow;

use serde_json::Value;

use super::{decode, Redact};
use pisess_format::js::js_string;
use pisess_format::model::content::{Block, Content};
use pisess_format::model::Dialect;
use pisess_format::model::{Entry, Message, Role, Usage};
use pisess_store::session::Session;

/// Facts and items of one branch.
#[derive(Debug)]
pub struct Transcript {
    /// The session's name, else its first user message (one line, cut).
    pub title: String,
    pub session_id: String,
    pub cwd: String,
    /// `provider/model` of the branch's assistant messages, each once, in order.
    pub models: Vec<String>,
    /// The header's time (the session's start).
    pub start_ms: Option<i64>,
    /// The last entry's time on the branch.
    pub end_ms: Option<i64>,
    /// pi's cost of the branch's assistant messages.
    pub cost: f64,
    /// Their tokens at a recorded cost of 0 (a model without a price): `cost` leaves them out.
    pub unpriced_tokens: f64,
    /// With `export --prices`: their estimate, as shown (`~$0.01 (estimated from …)`), apart
    /// from `cost`.
    pub estimated: Option<String>,
    pub leaf: Option<String>,
    pub items: Vec<Item>,
    /// The session's other branches (at most [`super::branches::MAX_LISTED`]).
    pub branches: Vec<super::branches::Branch>,
    /// Branches past those listed.
    pub more_branches: usize,
    /// The subagent runs its entries started, each shown inside the item that started it
    /// (`cmd::export` adds them; empty with `--no-subagents`).
    pub runs: Vec<Subagent>,
}

/// A subagent run, as a transcript of its own, nested in the item ([`Item::id`]) whose call or
/// message started it.
#[derive(Debug)]
pub struct Subagent {
    pub item_id: String,
    /// What its disclosure says: how it was made, its short id, its title.
    pub title: String,
    pub transcript: Transcript,
}

impl Transcript {
    /// The subagent runs item `id` started.
    pub fn runs_of<'t>(&'t self, id: &'t str) -> impl Iterator<Item = &'t Subagent> + 't {
        self.runs.iter().filter(move |r| r.item_id == id)
    }

    /// The facts block both renderers show under the title, as label and text, in order.
    pub fn facts(&self) -> Vec<(&'static str, String)> {
        let mut facts = vec![
            ("Session", self.session_id.clone()),
            ("Project", self.cwd.clone()),
        ];
        if !self.models.is_empty() {
            facts.push(("Model", self.models.join(", ")));
        }
        if let Some(start) = self.start_ms {
            facts.push((
                "Started",
                format!("{} UTC (all times UTC)", utc_time(start)),
            ));
            if let Some(end) = self.end_ms {
                facts.push(("Duration", duration(end - start)));
            }
        }
        let mut cost = crate::views::style::money(self.cost, self.unpriced_tokens);
        if crate::views::style::has_unpriced(self.unpriced_tokens) {
            let legend = crate::views::style::unpriced_legend(self.unpriced_tokens);
            cost = format!("{cost} ({legend})");
        }
        facts.push(("Cost", cost));
        if let Some(e) = &self.estimated {
            facts.push(("Estimated", e.clone()));
        }
        facts.push(("Messages", self.items.len().to_string()));
        if let Some(leaf) = &self.leaf {
            facts.push(("Branch", format!("root to {leaf}")));
        }
        facts
    }
}

/// One message or event of the branch.
#[derive(Debug)]
pub struct Item {
    /// The entry's id (as stored; v1 ids as pisess assigns them).
    pub id: String,
    /// A stable fragment id: `m-` and the id, made safe for HTML and URLs.
    pub anchor: String,
    pub time_ms: Option<i64>,
    /// Its label (`/tree`'s bookmark), the latest one set, if any.
    pub label: Option<String>,
    pub body: Body,
}

#[derive(Debug)]
pub enum Body {
    User(Vec<Part>),
    Assistant {
        model: Option<String>,
        parts: Vec<Part>,
        /// `errorMessage`, or a stop reason other than the usual ones.
        error: Option<String>,
    },
    /// A tool result no call on the branch before it asked for.
    ToolResult(ToolResult),
    Bash {
        command: String,
        output: String,
        exit_code: Option<String>,
    },
    /// An extension's message (`custom` role, `custom_message` entry), by its type.
    Custom {
        kind: String,
        parts: Vec<Part>,
    },
    /// A compaction's or a branch's summary.
    Summary {
        kind: &'static str,
        text: String,
    },
    /// A one-line event: model or thinking level changed, the session named.
    Note(String),
    /// A system message: the system prompt and tools (the branch's first), or a change to them.
    System {
        /// The first system message on the branch (pi's "System Prompt", "Available Tools").
        first: bool,
        /// Its content and sections, as pi's page joins them.
        text: String,
        /// Tools added, by name and description.
        tools_added: Vec<(String, String)>,
        tools_removed: Vec<String>,
    },
}

#[derive(Debug)]
pub enum Part {
    Text(String),
    Thinking(String),
    /// Thinking the provider returned encrypted.
    RedactedThinking,
    Call(Call),
    Image {
        mime: String,
        /// The base64 data, when it is base64 of an image type a page may show.
        data: Option<String>,
    },
    /// A block of another type, by its type.
    Other(String),
}

#[derive(Debug)]
pub struct Call {
    pub name: String,
    /// The one line pi's page shows for it (`$ ls`, `read path`: [`super::call::headline`]).
    pub headline: String,
    /// The arguments as pretty JSON.
    pub arguments: String,
    pub result: Option<ToolResult>,
}

#[derive(Debug)]
pub struct ToolResult {
    pub name: String,
    pub is_error: bool,
    pub parts: Vec<Part>,
}

impl ToolResult {
    /// Its texts, one after another (most results hold one: borrowed).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        let mut texts = self.parts.iter().filter_map(|p| match p {
            Part::Text(t) | Part::Thinking(t) => Some(t.as_str()),
            _ => None,
        });
        let first = texts.next().unwrap_or("");
        match texts.next() {
            None => std::borrow::Cow::Borrowed(first),
            Some(second) => {
                let mut all = format!("{first}\n{second}");
                for t in texts {
                    all.push('\n');
                    all.push_str(t);
                }
                std::borrow::Cow::Owned(all)
            }
        }
    }
}

/// Image types a page shows inline (`data:` URLs); others are named, not shown.
const SHOWN_IMAGES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// The transcript of `path` (root first).
pub fn build(
    session: &Session,
    path: &[usize],
    cwd: &str,
    redact: &dyn Redact,
) -> anyhow::Result<Transcript> {
    build_as(session, path, cwd, redact, Decode::Typed)
}

/// How the branch's entries are decoded: [`Decode::Value`] is the reading the typed one
/// must agree with (the tests build every example's branch both ways).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Decode {
    /// User, assistant and tool result messages through [`decode::message`] where it reads
    /// the line, every other entry as a `Value`.
    Typed,
    /// Every entry as a `Value`.
    #[cfg(test)]
    Value,
}

/// An entry of the branch as its worker decoded it.
pub(super) enum Loaded {
    Message(decode::Message),
    Value(Value),
}

/// Entry `i` decoded from its line.
pub(super) fn decoded(
    session: &Session,
    i: usize,
    how: Decode,
    line: &[u8],
) -> std::io::Result<Loaded> {
    let typed = how == Decode::Typed
        && session.header.dialect == Dialect::Pi
        && session.kind(i).as_str() == "message"
        && matches!(session.role(i), Some("user" | "assistant" | "toolResult"));
    if typed {
        if let Some(m) = decode::message(line) {
            return Ok(Loaded::Message(m));
        }
    }
    session.decode_entry(i, line).map(Loaded::Value)
}

fn build_as(
    session: &Session,
    path: &[usize],
    cwd: &str,
    redact: &dyn Redact,
    decode: Decode,
) -> anyhow::Result<Transcript> {
    let r = |s: &str| clean(s, redact);
    let mut items: Vec<Item> = Vec::new();
    let mut models: Vec<String> = Vec::new();
    let mut cost = 0.0;
    let mut unpriced_tokens = 0.0;
    let mut name: Option<String> = None;
    let mut first_user: Option<String> = None;
    // Unanswered calls by id: (item, part) where the result goes.
    let mut open_calls: HashMap<String, (usize, usize)> = HashMap::new();
    let mut anchors: HashMap<String, usize> = HashMap::new();
    let mut end_ms = None;
    let mut seen_system = false;
    let labels = session.labels();
    // The anchor of each entry shown, by its index in the session.
    let mut shown: HashMap<usize, String> = HashMap::new();
    // An item's label and anchor, and the item added.
    let mut push = |i: usize,
                    id: String,
                    time_ms: Option<i64>,
                    body: Body,
                    items: &mut Vec<Item>|
     -> anyhow::Result<()> {
        let label = labels.get(&id).map(|l| r(l));
        // The anchor is made of the id as the export shows it: redacted.
        let id = r(&id);
        let anchor = anchor_for(&id, &mut anchors);
        shown.insert(i, anchor.clone());
        items.push(Item {
            id,
            anchor,
            time_ms,
            label,
            body,
        });
        Ok(())
    };
    // Each entry of the path decoded on the other cores while this one builds its item, in
    // order, at most a few dozen ahead (issue 48's time budget: decoding is half the work).
    let mut each = |i: usize, entry: Loaded| -> anyhow::Result<()> {
        let id = session.id(i).unwrap_or("").to_owned();
        let time_ms = session.entries[i].timestamp_ms();
        end_ms = time_ms.or(end_ms);
        let entry = match entry {
            Loaded::Message(m) => {
                let body = match m.role {
                    decode::Role::User => {
                        let (parts, _) = typed_parts(m.content, redact);
                        if first_user.is_none() {
                            first_user = parts.iter().find_map(|p| match p {
                                Part::Text(t) if !t.trim().is_empty() => Some(one_line(t, 80)),
                                _ => None,
                            });
                        }
                        Body::User(parts)
                    }
                    decode::Role::Assistant => {
                        let model = m.model.map(|model| match m.provider {
                            Some(p) => r(&format!("{p}/{model}")),
                            None => clean_owned(model, redact),
                        });
                        if let Some(model) = &model {
                            if !models.contains(model) {
                                models.push(model.clone());
                            }
                        }
                        let usage = Usage::of_value(m.usage.as_ref());
                        cost += usage.cost;
                        if usage.cost == 0.0 {
                            unpriced_tokens += usage.total_tokens();
                        }
                        let error = m.error_message.map(|e| clean_owned(e, redact)).or_else(|| {
                            match m.stop_reason.as_deref() {
                                Some(s @ ("error" | "aborted" | "length")) => {
                                    Some(format!("stopped: {s}"))
                                }
                                _ => None,
                            }
                        });
                        let (parts, calls) = typed_parts(m.content, redact);
                        for (k, call_id) in calls {
                            open_calls.insert(call_id, (items.len(), k));
                        }
                        Body::Assistant {
                            model,
                            parts,
                            error,
                        }
                    }
                    decode::Role::ToolResult => {
                        let result = ToolResult {
                            name: r(m.tool_name.as_deref().unwrap_or("tool")),
                            is_error: m.is_error,
                            parts: typed_parts(m.content, redact).0,
                        };
                        let call_id = m.tool_call_id.as_deref().unwrap_or("");
                        match joined(&mut items, &mut open_calls, call_id, result) {
                            Some(result) => Body::ToolResult(result),
                            None => return Ok(()),
                        }
                    }
                };
                return push(i, id, time_ms, body, &mut items);
            }
            Loaded::Value(entry) => entry,
        };
        let body = match Entry::of_kind(session.kind(i), &entry) {
            Entry::Message(None) => return Ok(()),
            Entry::Message(Some(m)) => match m.role() {
                Role::User => {
                    let parts = parts(m.content(), redact);
                    if first_user.is_none() {
                        first_user = parts.iter().find_map(|p| match p {
                            // The title's share only: the message may be megabytes.
                            Part::Text(t) if !t.trim().is_empty() => Some(one_line(t, 80)),
                            _ => None,
                        });
                    }
                    Body::User(parts)
                }
                Role::Assistant => {
                    let model = assistant_model(m).map(|s| r(&s));
                    if let Some(model) = &model {
                        if !models.contains(model) {
                            models.push(model.clone());
                        }
                    }
                    // The usage's counts as numbers, others 0 (not pi's coercions: a page's
                    // footnote, not a total `stats` gates on).
                    let usage = Usage::of_value(m.usage());
                    cost += usage.cost;
                    if usage.cost == 0.0 {
                        unpriced_tokens += usage.total_tokens();
                    }
                    let error =
                        m.error_message()
                            .and_then(Value::as_str)
                            .map(&r)
                            .or_else(|| match m.stop_reason().and_then(Value::as_str) {
                                Some(s @ ("error" | "aborted" | "length")) => {
                                    Some(format!("stopped: {s}"))
                                }
                                _ => None,
                            });
                    let parts = parts(m.content(), redact);
                    // Each call waits for its result: the n-th call part is the n-th tool call.
                    let calls = parts
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| matches!(p, Part::Call(_)));
                    for ((k, _), call) in calls.zip(m.tool_calls()) {
                        if let Some(call_id) = call.id.and_then(Value::as_str) {
                            open_calls.insert(call_id.to_owned(), (items.len(), k));
                        }
                    }
                    Body::Assistant {
                        model,
                        parts,
                        error,
                    }
                }
                Role::ToolResult => {
                    let result = ToolResult {
                        name: r(m.tool_name().and_then(Value::as_str).unwrap_or("tool")),
                        is_error: m.is_error() == Some(&Value::Bool(true)),
                        parts: parts(m.content(), redact),
                    };
                    let call_id = m.tool_call_id().and_then(Value::as_str).unwrap_or("");
                    match joined(&mut items, &mut open_calls, call_id, result) {
                        Some(result) => Body::ToolResult(result),
                        None => return Ok(()),
                    }
                }
                Role::BashExecution => Body::Bash {
                    command: clean_text(m.command(), redact),
                    output: clean_text(m.output(), redact),
                    // A string exit code is text like any other.
                    exit_code: m
                        .exit_code()
                        .filter(|v| !v.is_null())
                        .map(|v| r(&js_string(Some(v)))),
                },
                Role::BranchSummary => Body::Summary {
                    kind: "Branch summary",
                    text: clean_text(m.summary(), redact),
                },
                Role::CompactionSummary => Body::Summary {
                    kind: "Compaction summary",
                    text: clean_text(m.summary(), redact),
                },
                Role::System => {
                    let first = !seen_system;
                    seen_system = true;
                    system_body(m, first, redact)
                }
                // `custom` (and v2's `hookMessage`, migrated), anything else.
                other => Body::Custom {
                    kind: r(m.custom_type().and_then(Value::as_str).unwrap_or(
                        match other.as_str() {
                            "" => "message",
                            other => other,
                        },
                    )),
                    parts: parts(m.content(), redact),
                },
            },
            Entry::CustomMessage {
                custom_type,
                content,
                ..
            } => Body::Custom {
                kind: r(custom_type.and_then(Value::as_str).unwrap_or("custom")),
                parts: parts(Content::of(content), redact),
            },
            Entry::Compaction { summary, .. } => Body::Summary {
                kind: "Compaction",
                text: clean_text(summary, redact),
            },
            Entry::BranchSummary { summary, .. } => Body::Summary {
                kind: "Branch summary",
                text: clean_text(summary, redact),
            },
            Entry::ModelChange { provider, model_id } => {
                let (provider, model) = (text_of(provider), text_of(model_id));
                Body::Note(r(&format!("Model: {provider}/{model}")))
            }
            Entry::ThinkingLevelChange { thinking_level } => {
                Body::Note(r(&format!("Thinking level: {}", text_of(thinking_level))))
            }
            Entry::SessionInfo { name: n } => {
                let n = text_of(n);
                name = (!n.trim().is_empty()).then(|| r(&n));
                Body::Note(r(&format!("Session named: {n}")))
            }
            // Extension state, labels, usage records, context edits: not part of the story.
            _ => return Ok(()),
        };
        push(i, id, time_ms, body, &mut items)
    };
    let mut failed = None;
    let typed = decode == Decode::Typed;
    let runs = super::runs::runs(session, path);
    let listed = super::branches::others_meanwhile(session, path, redact, typed, || {
        pisess_store::util::parallel::ordered(
            &runs,
            |run| super::runs::load_run(session, &path[run.clone()], decode),
            |loaded| {
                for (i, loaded) in loaded {
                    if let Err(e) = loaded.map_err(anyhow::Error::from).and_then(|e| each(i, e)) {
                        failed = Some(e);
                        return ControlFlow::Break(());
                    }
                }
                ControlFlow::Continue(())
            },
        );
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let (mut branches, more_branches) = listed?;
    for b in &mut branches {
        let at = b.fork.and_then(|f| path.iter().position(|&p| p == f));
        b.fork_anchor =
            at.and_then(|at| path[..=at].iter().rev().find_map(|p| shown.get(p).cloned()));
    }
    let title = name
        .or(first_user)
        .map(|t| one_line(&t, 80))
        .unwrap_or_else(|| "Session".to_owned());
    Ok(Transcript {
        title,
        session_id: r(&session.header.id),
        cwd: r(cwd),
        models,
        start_ms: session.header.timestamp_ms,
        end_ms,
        cost,
        unpriced_tokens,
        estimated: None,
        leaf: path.last().and_then(|&l| session.id(l)).map(r),
        items,
        branches,
        more_branches,
        runs: Vec::new(),
    })
}

/// A system message as pi's page shows it: its content, then its sections (a removed one
/// said so), and the tools it adds and removes.
fn system_body(m: Message, first: bool, redact: &dyn Redact) -> Body {
    let mut texts = Vec::new();
    let content = match m.content() {
        Content::Text(s) => s.to_owned(),
        Content::Blocks(_) => m
            .content()
            .blocks()
            .filter_map(|b| match b {
                Block::Text { text } => Some(text_of(text)),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    texts.push(content);
    if let Some(sections) = m.sections().and_then(Value::as_object) {
        for (name, value) in sections {
            texts.push(match value {
                Value::Null if !first => format!("Removed system prompt section \"{name}\"."),
                Value::Null => String::new(),
                v => text_of(Some(v)),
            });
        }
    }
    let text = texts
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    fn tools(v: Option<&Value>) -> Vec<&Value> {
        v.and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default()
    }
    let name_of = |t: &Value| clean_text(Some(t.get("name").unwrap_or(t)), redact);
    Body::System {
        first,
        text: clean(&text, redact),
        tools_added: tools(m.tools_added())
            .into_iter()
            .map(|t| (name_of(t), clean_text(t.get("description"), redact)))
            .collect(),
        tools_removed: tools(m.tools_removed()).into_iter().map(name_of).collect(),
    }
}

/// A tool result joined to the call waiting for it (`None`: it went into the call's part), or
/// handed back to stand as an item of its own when no call waits for it.
fn joined(
    items: &mut [Item],
    open_calls: &mut HashMap<String, (usize, usize)>,
    call_id: &str,
    result: ToolResult,
) -> Option<ToolResult> {
    if let Some((item, part)) = open_calls.remove(call_id) {
        if let Some(Part::Call(call)) =
            body_parts(&mut items[item].body).and_then(|p| p.get_mut(part))
        {
            call.result = Some(result);
            return None;
        }
    }
    Some(result)
}

fn body_parts(body: &mut Body) -> Option<&mut Vec<Part>> {
    match body {
        Body::Assistant { parts, .. } => Some(parts),
        _ => None,
    }
}

/// [`parts`] of a typed content, and where each call with a string id waits for its result:
/// (its part, the call's id). Texts move into the parts, copied only where the redaction or
/// a stand-in changes them.
fn typed_parts(content: decode::Content, redact: &dyn Redact) -> (Vec<Part>, Vec<(usize, String)>) {
    let r = |s: &str| clean(s, redact);
    let mut calls = Vec::new();
    let parts = match content {
        decode::Content::None => Vec::new(),
        decode::Content::Text(s) => vec![Part::Text(clean_owned(s, redact))],
        decode::Content::Blocks(blocks) => blocks
            .into_iter()
            .enumerate()
            .map(|(k, b)| match b {
                decode::Block::Text(t) => Part::Text(clean_owned(t, redact)),
                decode::Block::RedactedThinking => Part::RedactedThinking,
                decode::Block::Thinking(t) => Part::Thinking(clean_owned(t, redact)),
                decode::Block::ToolCall {
                    id,
                    name,
                    arguments,
                } => {
                    if let Some(id) = id {
                        calls.push((k, id));
                    }
                    call_part(
                        r(name.as_deref().unwrap_or("?")),
                        arguments.as_ref(),
                        redact,
                    )
                }
                decode::Block::Image { mime_type, data } => {
                    let mime = mime_type.as_deref().unwrap_or("image").to_ascii_lowercase();
                    let data = data
                        .filter(|_| SHOWN_IMAGES.contains(&mime.as_str()))
                        .filter(|d| is_base64(d));
                    Part::Image {
                        mime: r(&mime),
                        data,
                    }
                }
                decode::Block::Other { kind, text } => match text {
                    Some(t) => Part::Text(clean_owned(t, redact)),
                    None => Part::Other(clean_owned(kind, redact)),
                },
            })
            .collect(),
    };
    (parts, calls)
}

/// A tool call's part, its result still to come. The arguments are redacted as a value: their
/// strings are judged at the depth detection reads them at, not one JSON level deeper as the
/// text written from them.
fn call_part(name: String, arguments: Option<&Value>, redact: &dyn Redact) -> Part {
    let arguments = arguments.map(|a| redact.value(a));
    let headline = super::call::headline(&name, arguments.as_deref());
    Part::Call(Call {
        headline: pisess_format::surrogates::for_display(&headline).into_owned(),
        name,
        arguments: arguments
            .map(|a| {
                let text = arguments_text(&a);
                pisess_format::surrogates::for_display(&text).into_owned()
            })
            .unwrap_or_default(),
        result: None,
    })
}

/// [`clean`] of an owned text: moved, not copied, when neither a stand-in nor the redaction
/// changes it (a tool output may be megabytes).
fn clean_owned(s: String, redact: &dyn Redact) -> String {
    if pisess_format::surrogates::has_standins(&s) {
        return clean(&s, redact);
    }
    let changed = match redact.text(&s) {
        std::borrow::Cow::Owned(t) => Some(t),
        std::borrow::Cow::Borrowed(_) => None,
    };
    changed.unwrap_or(s)
}

/// A content (string or blocks) as parts. Part positions match block positions, so a call's
/// place is known by its block's.
fn parts(content: Content, redact: &dyn Redact) -> Vec<Part> {
    let r = |s: &str| clean(s, redact);
    match content {
        Content::None => Vec::new(),
        Content::Text(s) => vec![Part::Text(r(s))],
        Content::Other(v) => vec![Part::Text(r(&js_string(Some(v))))],
        Content::Blocks(_) => content
            .blocks()
            .map(|b| match b {
                Block::Text { text } => Part::Text(clean_text(text, redact)),
                Block::Thinking { redacted: true, .. } => Part::RedactedThinking,
                Block::Thinking { thinking, .. } => Part::Thinking(clean_text(thinking, redact)),
                Block::ToolCall(call) => {
                    let name = r(&call
                        .name
                        .map_or_else(|| "?".to_owned(), |n| text_of(Some(n))));
                    call_part(name, call.arguments, redact)
                }
                Block::Image { mime_type, data } => {
                    let mime = mime_type.unwrap_or("image").to_ascii_lowercase();
                    let data = data
                        .filter(|_| SHOWN_IMAGES.contains(&mime.as_str()))
                        .filter(|d| is_base64(d))
                        .map(str::to_owned);
                    Part::Image {
                        mime: r(&mime),
                        data,
                    }
                }
                Block::Other { kind, text, .. } => match text.and_then(Value::as_str) {
                    Some(t) => Part::Text(r(t)),
                    None => Part::Other(r(kind)),
                },
                Block::Untyped(v) => Part::Other(r(&js_string(Some(v)))),
            })
            .collect(),
    }
}

/// A call's arguments as pretty JSON, or compact past a few levels of nesting: pretty
/// indentation grows with the square of the depth (50,000 nested arrays would be 5 GB).
fn arguments_text(v: &Value) -> String {
    fn deeper_than(v: &Value, levels: usize) -> bool {
        match v {
            _ if levels == 0 => matches!(v, Value::Array(_) | Value::Object(_)),
            Value::Array(a) => a.iter().any(|x| deeper_than(x, levels - 1)),
            Value::Object(m) => m.values().any(|x| deeper_than(x, levels - 1)),
            _ => false,
        }
    }
    if deeper_than(v, 16) {
        pisess_format::surrogates::to_string(v)
    } else {
        serde_json::to_string_pretty(v).unwrap_or_default()
    }
}

/// A text for people (a lone surrogate is U+FFFD), through the redaction hook.
fn clean(s: &str, redact: &dyn Redact) -> String {
    redact
        .text(&pisess_format::surrogates::for_display(s))
        .into_owned()
}

/// [`text_of`] through [`clean`], a string copied once (a message may be megabytes).
fn clean_text(v: Option<&Value>, redact: &dyn Redact) -> String {
    match v {
        Some(Value::String(s)) => clean(s, redact),
        other => clean(&text_of(other), redact),
    }
}

/// A text field: a string as it is, another value as JavaScript's `String(x)`, absent empty.
fn text_of(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => pisess_format::surrogates::for_display(s).into_owned(),
        other => js_string(other),
    }
}

fn assistant_model(m: Message) -> Option<String> {
    let model = m.model().and_then(Value::as_str)?;
    Some(match m.provider().and_then(Value::as_str) {
        Some(p) => format!("{p}/{model}"),
        None => model.to_owned(),
    })
}

fn is_base64(s: &str) -> bool {
    // A chunk at a time, its bytes' answers and-ed without a branch (which the compiler turns
    // into vector code): an image's data is megabytes, a byte-by-byte test was 6% of an export.
    let ok = |b: u8| {
        b.is_ascii_uppercase()
            | b.is_ascii_lowercase()
            | b.is_ascii_digit()
            | (b == b'+')
            | (b == b'/')
            | (b == b'=')
    };
    !s.is_empty()
        && s.as_bytes()
            .chunks(64)
            .all(|c| c.iter().fold(true, |all, &b| all & ok(b)))
}

/// `m-` and the id with every byte outside `[A-Za-z0-9_-]` hex-escaped, so an anchor is safe
/// in an attribute, a URL fragment and Markdown; the second use of one gets `-2`.
fn anchor_for(id: &str, seen: &mut HashMap<String, usize>) -> String {
    let mut a = String::from("m-");
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            a.push(char::from(b));
        } else {
            a.push_str(&format!(".{b:02x}"));
        }
    }
    let n = seen.entry(a.clone()).or_insert(0);
    *n += 1;
    if *n > 1 {
        a.push_str(&format!("-{n}"));
    }
    a
}

/// Whitespace folded, control characters dropped, cut to `max` characters with `…`.
pub fn one_line(s: &str, max: usize) -> String {
    // One pass that stops at `max`: a title taken from a 30 MB message of short words must
    // not list its words first (16 bytes each).
    let mut out = String::new();
    let mut count = 0;
    for (k, word) in s.split_whitespace().enumerate() {
        let word = word.chars().filter(|c| !c.is_control());
        for c in (k > 0).then_some(' ').into_iter().chain(word) {
            if count == max {
                // One more character than fits: cut, with `…` in the last place.
                out.pop();
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

/// `2025-05-13 14:02:41` (UTC, as the facts say).
pub fn utc_time(ms: i64) -> String {
    pisess_format::time::to_json_date(ms).map_or_else(String::new, |iso| {
        let (date, time) = iso.split_once('T').unwrap_or((&iso, ""));
        format!("{date} {}", time.get(..8).unwrap_or(time))
    })
}

/// `1h 02m`, `3m 05s`, `12s`.
pub fn duration(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    let (h, m, sec) = (s / 3600, s / 60 % 60, s % 60);
    if h > 0 {
        format!("{h}h {m:02}m")
    } else if m > 0 {
        format!("{m}m {sec:02}s")
    } else {
        format!("{sec}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hook that changes some texts, so that a text moved ([`clean_owned`]) and one copied
    /// ([`clean`]) are held to the same redaction.
    struct Marks;

    impl Redact for Marks {
        fn text<'s>(&self, s: &'s str) -> std::borrow::Cow<'s, str> {
            if s.contains('e') {
                std::borrow::Cow::Owned(s.replace('e', "[E]"))
            } else {
                std::borrow::Cow::Borrowed(s)
            }
        }
    }

    /// Whether the typed decode answered `line`; where it did, what the transcript takes from
    /// it is what it takes from the line's `Value` (`build`'s reading of a `message` entry).
    fn agrees(line: &[u8]) -> bool {
        let Some(m) = decode::message(line) else {
            return false;
        };
        let v = pisess_format::json::decode(line).expect("the line decodes");
        let vm = Message(v.get("message").expect("a message"));
        let role = match m.role {
            decode::Role::User => Role::User,
            decode::Role::Assistant => Role::Assistant,
            decode::Role::ToolResult => Role::ToolResult,
        };
        assert_eq!(vm.role(), role);
        let s = |f: Option<&Value>| f.and_then(Value::as_str).map(str::to_owned);
        let shown = String::from_utf8_lossy(line);
        assert_eq!(m.model, s(vm.model()), "{shown}");
        assert_eq!(m.provider, s(vm.provider()), "{shown}");
        assert_eq!(m.error_message, s(vm.error_message()), "{shown}");
        assert_eq!(m.stop_reason, s(vm.stop_reason()), "{shown}");
        assert_eq!(m.tool_name, s(vm.tool_name()), "{shown}");
        assert_eq!(m.tool_call_id, s(vm.tool_call_id()), "{shown}");
        assert_eq!(m.is_error, vm.is_error() == Some(&Value::Bool(true)));
        assert_eq!(m.usage.as_ref(), vm.usage(), "{shown}");
        for redact in [&super::super::Verbatim as &dyn Redact, &Marks] {
            let content = decode::message(line).unwrap().content;
            let (typed, calls) = typed_parts(content, redact);
            let parts = parts(vm.content(), redact);
            assert_eq!(format!("{typed:?}"), format!("{parts:?}"), "{shown}");
            let at = parts
                .iter()
                .enumerate()
                .filter(|(_, p)| matches!(p, Part::Call(_)));
            let waiting: Vec<(usize, String)> = at
                .zip(vm.tool_calls())
                .filter_map(|((k, _), c)| Some((k, c.id?.as_str()?.to_owned())))
                .collect();
            assert_eq!(calls, waiting, "{shown}");
        }
        true
    }

    /// Every example line and thousands of damaged copies of the message lines: where the
    /// typed decode answers, the transcript takes what it took from the `Value`.
    #[test]
    fn typed_messages_agree_with_their_values() {
        use pisess_format::skim::{damaged, example_lines};
        let lines = example_lines();
        let answered = lines.iter().filter(|l| agrees(l)).count();
        assert!(answered > 100, "{answered}");
        let specials = [
            b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'u', 0x01, 0xff, b't', b'n',
            b'e', b'9',
        ];
        let messages: Vec<&Vec<u8>> = lines
            .iter()
            .filter(|l| memchr::memmem::find(l, b"\"message\"").is_some())
            .collect();
        let took = damaged(&messages, &specials, 0x0e47_0048, 20_000)
            .filter(|line| agrees(line))
            .count();
        assert!((1_000..19_000).contains(&took), "{took} of 20000 answered");
    }

    /// The chunked test of base64 answers as the byte-by-byte one did, wherever a bad byte is.
    #[test]
    fn base64_is_tested_as_byte_by_byte() {
        let simple = |s: &str| {
            !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
        };
        let good = "QUJDRA+/=09azAZ".repeat(20);
        assert!(is_base64(&good));
        for bad in ["-", "_", " ", "\n", "é", "\u{0}", "[", "@", "`", "{", ":"] {
            for at in [0, 1, 63, 64, 65, 127, good.len()] {
                let mut s = good.clone();
                s.insert_str(at, bad);
                assert_eq!(is_base64(&s), simple(&s), "{s:?}");
                assert!(!is_base64(&s));
            }
        }
        assert!(!is_base64(""));
        for b in 0..=127u8 {
            let s = char::from(b).to_string();
            assert_eq!(is_base64(&s), simple(&s), "{b}");
        }
    }

    /// Every leaf's branch of `session` (at most 20) built both ways: the same transcript.
    /// How many other branches they listed.
    fn built_alike(session: &Session, name: &str) -> usize {
        let n = session.entries.len();
        let mut parent = vec![false; n];
        for j in 0..n {
            if let Some(p) = session.parent_of(j) {
                parent[p] = true;
            }
        }
        let mut listed = 0;
        for leaf in (0..n).filter(|&j| !parent[j]).take(20) {
            let (branch, _) = session.path_to(leaf);
            let how = |d| {
                build_as(session, &branch, "/cwd", &super::super::Verbatim, d)
                    .map(|t| format!("{t:?}"))
                    .map_err(|e| e.to_string())
            };
            assert_eq!(how(Decode::Typed), how(Decode::Value), "{name}");
            let t = build(session, &branch, "/cwd", &super::super::Verbatim).unwrap();
            listed += t.branches.len();
        }
        listed
    }

    /// Every example session's branches built both ways are the same transcript (calls
    /// joined to their results, costs, models, titles, the other branches listed), and again
    /// with every message entry also forked off its parent (a branch of one message each:
    /// the typed reading of the other branches' roles, costs and first messages).
    #[test]
    fn example_branches_build_alike_both_ways() {
        let (mut built, mut listed) = (0, 0);
        for path in pisess_format::skim::example_sessions() {
            let Ok(session) = Session::open(&path, Default::default()) else {
                continue;
            };
            let name = path.display().to_string();
            built_alike(&session, &name);
            let text = std::fs::read_to_string(&path).unwrap();
            let mut forked = text.clone();
            for (k, line) in text.lines().enumerate().skip(1) {
                let Ok(mut v) = serde_json::from_str::<Value>(line) else {
                    continue;
                };
                if v.get("type").and_then(Value::as_str) != Some("message") {
                    continue;
                }
                v["id"] = Value::from(format!("fork{k}"));
                if !forked.ends_with('\n') {
                    forked.push('\n');
                }
                forked.push_str(&v.to_string());
                forked.push('\n');
            }
            let input = pisess_format::scan::Input::Bytes(forked.as_bytes(), "forked");
            let Ok(session) = Session::read(input, Default::default()) else {
                continue;
            };
            listed += built_alike(&session, &name);
            built += 1;
        }
        assert!(built > 10, "{built}");
        assert!(listed > 200, "{listed} other branches listed");
    }

    /// Lines `Value` reads otherwise than a typed field would (the last of a key given twice,
    /// `String(x)` of a number, an array for an object, a lone surrogate, a number past f64,
    /// nesting past serde_json's limit) are not answered; the rest are, alike.
    #[test]
    fn odd_messages_fall_back_or_agree() {
        let m = |body: &str| format!(r#"{{"type":"message","id":"a","message":{body}}}"#);
        let refused = [
            m(r#"{"role":"user","role":"assistant","content":"x"}"#),
            m(r#"{"role":"user","content":"x","content":"y"}"#),
            m(r#"{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}"#),
            m(r#"{"role":"user","content":[{"type":"text","text":5}]}"#),
            m(r#"{"role":"user","content":[{"type":"text","text":true}]}"#),
            m(r#"{"role":"user","content":[{"type":"text","text":{"a":1}}]}"#),
            m(r#"{"role":"user","content":[{"text":"no type"}]}"#),
            m(r#"{"role":"user","content":["a string block"]}"#),
            m(r#"{"role":"user","content":[["text","x"]]}"#),
            m(r#"{"role":"user","content":12}"#),
            m(r#"{"role":"user","content":{"text":"x"}}"#),
            m(r#"["user","x"]"#),
            m("null"),
            m(r#"{"role":"assistant","content":[{"type":"toolCall","name":7}]}"#),
            m(r#"{"role":"user","content":"\ud83d cut"}"#),
            m(r#"{"role":"user","content":"x","timestamp":1e999,"model":1e999}"#),
            m(r#"{"role":"custom","content":"x"}"#),
            m(r#"{"role":3,"content":"x"}"#),
            r#"{"type":"message","id":"a"}"#.to_owned(),
            format!("{} x", m(r#"{"role":"user","content":"x"}"#)),
            m(&format!(
                r#"{{"role":"user","content":"x","details":{}1{}}}"#,
                "[".repeat(100_001),
                "]".repeat(100_001)
            )),
        ];
        for line in &refused {
            assert!(!agrees(line.as_bytes()), "{line}");
        }
        let answered = [
            m(r#"{"role":"user","content":"\u0065 \n plain"}"#),
            m(r#"{"role":"user","content":null}"#),
            m(r#"{"role":"user"}"#),
            m(r#"{"role":"user","content":[{"type":"text"},{"type":"text","text":null}]}"#),
            m(r#"{"role":"assistant","model":5,"provider":"p","usage":null,"content":[]}"#),
            m(r#"{"role":"assistant","model":"m","usage":{"cost":{"total":1e999},"input":3}}"#),
            m(
                r#"{"role":"assistant","stopReason":"length","errorMessage":null,"content":[{"type":"toolCall","id":"c1","name":null,"arguments":null},{"type":"toolCall","id":2,"arguments":{"command":"ls","n":1e999,"k":1,"k":2}},{"type":"toolCall","id":"c3","name":"bash"}]}"#,
            ),
            m(
                r#"{"role":"assistant","content":[{"type":"thinking","thinking":"t","redacted":true},{"type":"thinking","thinking":5,"redacted":true},{"type":"image","mimeType":"IMAGE/PNG","data":"QUJD"},{"type":"image","mimeType":3,"data":"!"},{"type":"future","text":"t"},{"type":"future","text":1}]}"#,
            ),
            m(
                r#"{"role":"toolResult","toolName":"bash","toolCallId":"c1","isError":true,"content":[{"type":"text","text":"e"}]}"#,
            ),
            m(
                r#"{"role":"toolResult","toolName":["x"],"isError":"true","content":"x","extra":{"a":[1,2,{"b":null}]}}"#,
            ),
            r#"{"message":{"role":"user","content":"x"},"other":1,"type":"message","type":"x"}"#
                .to_owned(),
            m(&format!(
                r#"{{"role":"user","content":"x","details":{}1{}}}"#,
                "[".repeat(200),
                "]".repeat(200)
            )),
        ];
        for line in &answered {
            assert!(agrees(line.as_bytes()), "{line}");
        }
    }

    /// The words folded and cut as before, by the simple reading that listed every word.
    fn reference(s: &str, max: usize) -> String {
        let folded: String = s
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .filter(|c| !c.is_control())
            .collect();
        if folded.chars().count() <= max {
            return folded;
        }
        let mut cut: String = folded.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }

    #[test]
    fn one_line_folds_and_cuts_in_one_pass() {
        let texts = [
            "",
            "a",
            "  a \n b\t\tc  ",
            "\u{1} b",
            "a \u{1} b \u{7f}",
            "Übersetze die Fehlermeldungen 🛒 ins Japanische",
            "word word word word word",
        ];
        for t in texts {
            for max in [0, 1, 2, 3, 5, 9, 80, usize::MAX] {
                assert_eq!(one_line(t, max), reference(t, max), "{t:?} {max}");
            }
        }
    }
}
