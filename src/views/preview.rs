//! One-line previews of entries as pi's `/tree` shows them (`getEntryDisplayText` in pi's
//! `tree-selector.js`): `user: …`, `assistant: …`, `[bash: npm test]`, `[compaction: 13k tokens]`,
//! `[branch summary]: …`, `[model: …]` and so on.
//!
//! Pure: a decoded entry in, styled parts out. The parts carry pi's colour roles, not colours, so
//! the tree's renderer picks the colours and the JSON renderer takes the plain text. Text is not
//! escaped here (JSON keeps it as stored); human output escapes each part.

use std::collections::HashMap;
use std::hash::BuildHasher;

use hashbrown::DefaultHashBuilder;

use serde_json::Value;

use crate::views::style::Role;
use crate::views::text::{full_text, normalize, pi_tool_call};
use pisess_format::js::{js_slice, js_string, js_truthy};
use pisess_format::model::content::Content;
use pisess_format::model::{Entry, EntryKind, Message, Role as Said};
use pisess_store::session::IdIndex;

/// pi's theme role of a preview part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tone {
    Plain,
    /// `user: `
    Accent,
    /// `assistant: `
    Success,
    /// Tool calls, `(no content)`.
    Muted,
    /// Bookkeeping entries.
    Dim,
    /// `[branch summary]: `
    Warning,
    /// An assistant's error message.
    Error,
    /// Compactions.
    Border,
    /// `[customType]: ` of custom messages.
    Custom,
}

impl Tone {
    /// The palette role of pi's theme role.
    pub(crate) fn role(self) -> Role {
        match self {
            Tone::Plain => Role::Plain,
            Tone::Accent => Role::User,
            Tone::Success => Role::Assistant,
            Tone::Muted | Tone::Dim => Role::Muted,
            Tone::Warning => Role::Warn,
            Tone::Error => Role::Error,
            Tone::Border => Role::Border,
            Tone::Custom => Role::Custom,
        }
    }
}

/// A preview: parts in order, each with its tone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Preview {
    pub parts: Vec<(Tone, String)>,
}

impl Preview {
    fn one(tone: Tone, text: String) -> Preview {
        Preview {
            parts: vec![(tone, text)],
        }
    }

    fn two(tone: Tone, head: &str, rest_tone: Tone, rest: String) -> Preview {
        Preview {
            parts: vec![(tone, head.to_owned()), (rest_tone, rest)],
        }
    }

    /// The plain text (for JSON).
    pub(crate) fn text(&self) -> String {
        self.parts.iter().map(|(_, s)| s.as_str()).collect()
    }
}

/// pi's `extractContent`: the text, cut at 200 UTF-16 units before normalizing.
fn content(v: Option<&Value>) -> String {
    normalize(js_slice(&full_text(v), 200))
}

/// Which assistant messages may hold each tool call, by call id, for pi's `/tree` map of
/// one-liners, whose lines [`tool_calls_of`] makes again from that message (the last call of
/// an id winning). A call is kept as its id's hash (keyed anew each run) and its entry: 12
/// bytes, no id text, so the caller confirms a holder by reading it ([`ToolCalls::holders`]
/// gives them latest first; a hash two ids share only adds a read). Lines are kept only for
/// the calls of messages the filter hides, up to [`LINES_KEPT`] bytes: no row decodes such a
/// message, and each tool result answering one decoded it again (6,346 messages of the 400 MB
/// benchmark session). The ids' text and a hash table of them were a quarter of `tree`'s
/// memory on a session of a million small entries (a `HashMap<String, String>` of every line,
/// before them, a third).
#[derive(Debug, Default)]
pub(crate) struct ToolCalls {
    hasher: DefaultHashBuilder,
    /// `[hash >> 32, hash as u32, entry]` of each call, in the order recorded (file order)
    /// until [`ToolCalls::sealed`] sorts them.
    calls: Vec<[u32; 3]>,
    sorted: bool,
    /// Once sorted: where the calls whose hash starts with each `bits` bits start in
    /// `calls` (one more at the end), so that a look-up reads a run of a few calls instead
    /// of searching a table of megabytes (20 cache misses a tool result).
    starts: Vec<u32>,
    bits: u32,
    /// Ids each followed by its call's one-liner.
    lines: String,
    /// Where an id starts in `lines`, its length, its line's length, and the entry holding it.
    line_by_id: IdIndex<(u64, u32, u32, u32)>,
}

/// The most bytes of ids and one-liners [`ToolCalls`] keeps: all of a session of thousands
/// of hidden calls (the 400 MB benchmark session's 10,218 take 0.8 MB), and a few MB of a
/// million-entry session's 246,000, whose `tree` has its budget to keep.
const LINES_KEPT: usize = 2 << 20;

impl ToolCalls {
    pub(crate) fn with_capacity(calls: usize) -> ToolCalls {
        ToolCalls {
            calls: Vec::with_capacity(calls),
            ..ToolCalls::default()
        }
    }

    fn hash(&self, id: &str) -> [u32; 2] {
        let h = self.hasher.hash_one(id);
        [(h >> 32) as u32, h as u32]
    }

    /// Records that call `id` is in entry `entry`, entries in file order (a later call of the
    /// id wins).
    pub(crate) fn insert(&mut self, id: &str, entry: u32) {
        let [high, low] = self.hash(id);
        self.calls.push([high, low, entry]);
        self.sorted = false;
    }

    /// The calls sorted for [`ToolCalls::holders`]: by hash, then entry.
    pub(crate) fn sealed(mut self) -> ToolCalls {
        self.calls.sort_unstable();
        self.calls.shrink_to_fit();
        // About four calls a run: a byte a call.
        let runs = (self.calls.len() / 4).max(1).next_power_of_two();
        self.bits = runs.trailing_zeros();
        let mut starts = vec![0u32; runs + 1];
        // Calls are fewer than entries, which are fewer than u32::MAX.
        for c in &self.calls {
            starts[Self::run(self.bits, c[0]) + 1] += 1;
        }
        for k in 0..runs {
            starts[k + 1] += starts[k];
        }
        self.starts = starts;
        self.sorted = true;
        self
    }

    /// The run of a hash whose high half is `high`: its first `bits` bits.
    fn run(bits: u32, high: u32) -> usize {
        (u64::from(high) >> (32 - bits)) as usize
    }

    /// The entries that may hold call `id`, the latest first: every entry that holds it is
    /// among them (the first that does is the one that wins), and so may be entries holding
    /// another id of the same hash. Only once [`ToolCalls::sealed`].
    pub(crate) fn holders(&self, id: &str) -> impl Iterator<Item = usize> + '_ {
        debug_assert!(self.sorted || self.calls.is_empty());
        let [high, low] = self.hash(id);
        let run = match self.starts.get(Self::run(self.bits, high)..) {
            Some(&[from, to, ..]) => &self.calls[from as usize..to as usize],
            _ => &self.calls[..],
        };
        let from = run.partition_point(|c| [c[0], c[1]] < [high, low]);
        let to = from + run[from..].partition_point(|c| [c[0], c[1]] == [high, low]);
        run[from..to].iter().rev().map(|c| c[2] as usize)
    }

    /// Keeps the one-liner of call `id` of entry `entry`, while there is room.
    pub(crate) fn keep_line(&mut self, id: &str, entry: u32, line: &str) {
        if self.lines.len() + id.len() + line.len() > LINES_KEPT {
            return;
        }
        let value = (
            self.lines.len() as u64,
            id.len() as u32,
            line.len() as u32,
            entry,
        );
        self.lines.push_str(id);
        self.lines.push_str(line);
        let ToolCalls {
            lines, line_by_id, ..
        } = self;
        line_by_id.insert(id, value, |&(start, len, ..)| {
            &lines[start as usize..start as usize + len as usize]
        });
    }

    /// The kept one-liner of call `id` as entry `entry` holds it; `None` when none was kept of
    /// that entry's call (a later message's call of the id, or no room).
    pub(crate) fn line_of(&self, id: &str, entry: usize) -> Option<&str> {
        let held = |&(start, len, ..): &(u64, u32, u32, u32)| {
            Some(&self.lines[start as usize..start as usize + len as usize])
        };
        let &(start, id_len, line_len, holder) = self.line_by_id.find(id, held)?;
        let at = start as usize + id_len as usize;
        (holder as usize == entry).then(|| &self.lines[at..at + line_len as usize])
    }
}

/// The ids of an assistant message's tool calls, in order.
pub(crate) fn call_ids(message: &Value) -> impl Iterator<Item = &str> {
    Message(message)
        .tool_calls()
        .filter_map(|call| call.id.and_then(Value::as_str))
}

/// The tool calls of an assistant message as pi's `/tree` names them, for the tool results
/// that answer them (`toolCallId` → `[bash: …]`).
pub(crate) fn tool_calls_of(message: &Value, home: &str, into: &mut HashMap<String, String>) {
    for call in Message(message).tool_calls() {
        if let Some(id) = call.id.and_then(Value::as_str) {
            into.insert(id.to_owned(), pi_tool_call(call.name, call.arguments, home));
        }
    }
}

/// The call a tool result answers, as pi's `/tree` looks it up (a truthy string).
pub(crate) fn answered_call(entry: &Value) -> Option<&str> {
    let message = Entry::of_kind(&EntryKind::Message, entry).message()?;
    if message.role() != Said::ToolResult {
        return None;
    }
    message
        .tool_call_id()
        .filter(|v| js_truthy(Some(v)))
        .and_then(Value::as_str)
}

/// The preview of one decoded entry. `call` is the one-liner of the tool call a tool result
/// answers ([`answered_call`]), if there is one.
pub(crate) fn preview(entry: &Value, kind: &EntryKind, call: Option<&str>, home: &str) -> Preview {
    match Entry::of_kind(kind, entry) {
        Entry::Message(m) => message(m.unwrap_or(Message(&Value::Null)), call),
        Entry::CustomMessage {
            custom_type,
            content,
            ..
        } => {
            // pi joins text blocks without a separator here (unlike the listing).
            let text = normalize(&full_text(content));
            let head = format!("[{}]: ", js_string(custom_type));
            Preview::two(Tone::Custom, &head, Tone::Plain, text)
        }
        Entry::Compaction { tokens_before, .. } => {
            let text = match tokens_before.and_then(Value::as_f64) {
                // `Math.round` rounds halves up.
                Some(t) => format!("[compaction: {:.0}k tokens]", (t / 1000.0 + 0.5).floor()),
                // pi would print `NaNk`; seed-000 compactions carry no count.
                None => "[compaction]".to_owned(),
            };
            Preview::one(Tone::Border, text)
        }
        Entry::BranchSummary { summary, .. } => Preview::two(
            Tone::Warning,
            "[branch summary]: ",
            Tone::Plain,
            normalize(&text_of(summary)),
        ),
        Entry::ModelChange { model_id, .. } => {
            Preview::one(Tone::Dim, format!("[model: {}]", js_string(model_id)))
        }
        Entry::ThinkingLevelChange { thinking_level } => Preview::one(
            Tone::Dim,
            format!("[thinking: {}]", js_string(thinking_level)),
        ),
        Entry::Custom { custom_type, .. } => {
            Preview::one(Tone::Dim, format!("[custom: {}]", js_string(custom_type)))
        }
        Entry::ContextEdit {
            target_id,
            replacement,
            ..
        } => {
            // Only an explicit null omits; an absent replacement reads as "replace" in pi.
            let what = if replacement == Some(&Value::Null) {
                "omit"
            } else {
                "replace"
            };
            let target = js_string(target_id);
            Preview::one(Tone::Dim, format!("[context {what}: {target}]"))
        }
        Entry::Label { label, .. } => {
            let label = match label {
                None | Some(Value::Null) => "(cleared)".to_owned(),
                l => js_string(l),
            };
            Preview::one(Tone::Dim, format!("[label: {label}]"))
        }
        Entry::SessionInfo { name } => {
            let name = if js_truthy(name) {
                js_string(name)
            } else {
                "empty".to_owned()
            };
            Preview::one(Tone::Dim, format!("[title: {name}]"))
        }
        // pi never shows usage entries in its tree (and has no text for them).
        Entry::Usage { kind, .. } => {
            Preview::one(Tone::Dim, format!("[usage: {}]", js_string(kind)))
        }
        // seed 000: a tool call of its own, shown as pi shows the result of one.
        Entry::ToolCall { tool_name, input } => {
            Preview::one(Tone::Muted, pi_tool_call(tool_name, input, home))
        }
        Entry::Thinking { content } => {
            let text = thinking_text(content);
            Preview::two(Tone::Dim, "[thinking]: ", Tone::Dim, normalize(&text))
        }
        // pi shows nothing for types it does not know; a name is more use than a blank line.
        Entry::Unknown(name) => Preview::one(Tone::Dim, format!("[{name}]")),
    }
}

fn message(msg: Message, call: Option<&str>) -> Preview {
    match msg.role() {
        Said::User => Preview::two(
            Tone::Accent,
            "user: ",
            Tone::Plain,
            content(msg.content_value()),
        ),
        Said::Assistant => {
            let text = content(msg.content_value());
            let head = "assistant: ";
            if !text.is_empty() {
                Preview::two(Tone::Success, head, Tone::Plain, text)
            } else if msg.stop_reason().and_then(Value::as_str) == Some("aborted") {
                Preview::two(Tone::Success, head, Tone::Muted, "(aborted)".to_owned())
            } else if js_truthy(msg.error_message()) {
                let error = normalize(&js_string(msg.error_message()));
                Preview::two(
                    Tone::Success,
                    head,
                    Tone::Error,
                    js_slice(&error, 80).into(),
                )
            } else {
                Preview::two(Tone::Success, head, Tone::Muted, "(no content)".to_owned())
            }
        }
        Said::ToolResult => tool_result(
            call,
            match msg.tool_name() {
                None | Some(Value::Null) => None,
                name => Some(js_string(name)),
            },
        ),
        Said::BashExecution => {
            let command = match msg.command() {
                None | Some(Value::Null) => String::new(),
                c => js_string(c),
            };
            Preview::one(Tone::Dim, format!("[bash]: {}", normalize(&command)))
        }
        _ => Preview::one(Tone::Dim, format!("[{}]", js_string(msg.role_value()))),
    }
}

/// A tool result's preview: the one-liner of the call it answers, else its tool's name.
pub(crate) fn tool_result(call: Option<&str>, tool_name: Option<String>) -> Preview {
    let text = match (call, tool_name) {
        (Some(line), _) => line.to_owned(),
        (None, Some(name)) => format!("[{name}]"),
        (None, None) => "[tool]".to_owned(),
    };
    Preview::one(Tone::Muted, text)
}

/// A string field, or nothing (pi would throw on other types).
fn text_of(v: Option<&Value>) -> String {
    v.and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// The text of seed-000 `thinking` blocks (mapped to pi's `thinking` field).
pub(crate) fn thinking_text(content: Option<&Value>) -> String {
    match Content::of(content) {
        Content::Text(s) => s.to_owned(),
        other => other.thinking_texts().collect::<Vec<_>>().join("\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every entry that holds a call is among its holders, latest first, and the others are
    /// entries of another id with the same hash; for tables of every size (runs of 1 to
    /// thousands of calls) and ids recorded several times.
    #[test]
    fn holders_are_the_entries_of_an_id_latest_first() {
        let mut next = pisess_format::skim::rng(0x70c5);
        for calls in [0, 1, 3, 5, 17, 100, 4_000] {
            let mut table = ToolCalls::default();
            let mut recorded = Vec::new();
            for entry in 0..calls as u32 {
                let id = format!("call_{}", next(calls.max(1) * 2 / 3 + 1));
                table.insert(&id, entry);
                recorded.push((id, entry));
            }
            let table = table.sealed();
            for k in 0..calls + 50 {
                let id = format!("call_{k}");
                let got: Vec<usize> = table.holders(&id).collect();
                let mut expected: Vec<usize> = recorded
                    .iter()
                    .filter(|(i, _)| *i == id)
                    .map(|&(_, e)| e as usize)
                    .collect();
                expected.reverse();
                let true_ones: Vec<usize> = got
                    .iter()
                    .copied()
                    .filter(|&e| recorded[e].0 == id)
                    .collect();
                assert_eq!(true_ones, expected, "{id} of {calls}");
                assert!(got.windows(2).all(|w| w[0] >= w[1]));
                for &e in &got {
                    assert_eq!(table.hash(&recorded[e].0), table.hash(&id));
                }
            }
        }
    }

    fn text(entry: &Value) -> String {
        let kind = EntryKind::parse(entry.get("type").and_then(Value::as_str));
        preview(entry, &kind, None, "/home/dev").text()
    }

    #[test]
    fn messages_like_pi() {
        let user = json!({"type":"message","message":{"role":"user","content":"a\n\tb "}});
        assert_eq!(text(&user), "user: a  b");
        let long = "x".repeat(300);
        let user = json!({"type":"message","message":{"role":"user","content":[{"type":"text","text":long}]}});
        assert_eq!(text(&user).len(), "user: ".len() + 200);
        let tools_only = json!({"type":"message","message":{"role":"assistant","content":[{"type":"toolCall"}]}});
        assert_eq!(text(&tools_only), "assistant: (no content)");
        let aborted = json!({"type":"message","message":{"role":"assistant","content":[],"stopReason":"aborted"}});
        assert_eq!(text(&aborted), "assistant: (aborted)");
        let error = json!({"type":"message","message":{"role":"assistant","content":[],"errorMessage":"boom\nbad"}});
        assert_eq!(text(&error), "assistant: boom bad");
        let result = json!({"type":"message","message":{"role":"toolResult","toolName":"bash"}});
        assert_eq!(text(&result), "[bash]");
        let bash = json!({"type":"message","message":{"role":"bashExecution","command":"ls"}});
        assert_eq!(text(&bash), "[bash]: ls");
        assert_eq!(
            text(&json!({"type":"message","message":{"role":"system"}})),
            "[system]"
        );
        assert_eq!(
            text(&json!({"type":"message","message":"not an object"})),
            "[undefined]"
        );
    }

    #[test]
    fn tool_results_use_the_call() {
        let mut calls = HashMap::new();
        let assistant = json!({"role":"assistant","content":[
            {"type":"toolCall","id":"t1","name":"bash","arguments":{"command":"npm test"}}]});
        tool_calls_of(&assistant, "/home/dev", &mut calls);
        let result = json!({"type":"message","message":{"role":"toolResult","toolCallId":"t1","toolName":"bash"}});
        let call = answered_call(&result).and_then(|id| calls.get(id));
        assert_eq!(call.map(String::as_str), Some("[bash: npm test]"));
        let p = preview(
            &result,
            &EntryKind::Message,
            call.map(String::as_str),
            "/home/dev",
        );
        assert_eq!(p.text(), "[bash: npm test]");
    }

    #[test]
    fn other_entries_like_pi() {
        assert_eq!(
            text(&json!({"type":"compaction","tokensBefore":12_500})),
            "[compaction: 13k tokens]"
        );
        assert_eq!(text(&json!({"type":"compaction"})), "[compaction]");
        assert_eq!(
            text(&json!({"type":"branch_summary","summary":"tried\nX"})),
            "[branch summary]: tried X"
        );
        assert_eq!(
            text(&json!({"type":"model_change","modelId":"m"})),
            "[model: m]"
        );
        assert_eq!(
            text(&json!({"type":"context_edit","targetId":"a","replacement":null})),
            "[context omit: a]"
        );
        assert_eq!(
            text(&json!({"type":"context_edit","targetId":"a"})),
            "[context replace: a]"
        );
        assert_eq!(text(&json!({"type":"label"})), "[label: (cleared)]");
        assert_eq!(
            text(&json!({"type":"session_info","name":""})),
            "[title: empty]"
        );
        assert_eq!(
            text(
                &json!({"type":"custom_message","customType":"n","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]})
            ),
            "[n]: ab"
        );
        assert_eq!(text(&json!({"type":"checkpoint_v9"})), "[checkpoint_v9]");
        assert_eq!(
            text(&json!({"type":"tool_call","toolName":"ls","input":{}})),
            "[ls: .]"
        );
    }
}
