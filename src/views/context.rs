//! What pi sends to the model next: pi 1.6.0's `buildSessionContext` in three passes, and
//! `convertToLlm` for the provider-bound view.
//!
//! Pass 1 (selection) and pass 2 (which edit applies to which entry) work on the index alone,
//! so a huge session is never decoded whole; pass 3 ([`project`]) decodes one selected entry at
//! a time, so the caller can write each message and drop it.

use std::collections::HashMap;
use std::io;

use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use pisess_format::js::{js_len, js_string, js_truthy};
use pisess_format::model::content::{text_blocks, Block, Content};
use pisess_format::model::{Dialect, Entry, EntryKind, Field, Message, MessageMut, Role};
use pisess_format::time::parse_js_date;
use pisess_store::session::Session;

/// pi's wrappers around summaries in the provider-bound view (`messages.js`).
pub const COMPACTION_SUMMARY_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// One selected entry and the edit that applies to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Position in `Session::entries`.
    pub entry: usize,
    /// The latest `context_edit` (position) targeting this entry among the selected ones.
    pub edit: Option<usize>,
    /// Only the leading (newest) compaction contributes; older kept ones yield nothing.
    pub leading_compaction: bool,
}

/// The result of passes 1 and 2.
#[derive(Debug, Clone)]
pub struct Plan {
    pub leaf: Option<usize>,
    /// pi's `thinkingLevel`: "off" unless a change on the path says otherwise (`None` = undefined).
    pub thinking_level: Option<Value>,
    /// pi's `model`: `null` unless the path names one.
    pub model: Value,
    pub items: Vec<Item>,
    /// The compaction the context starts from, if any.
    pub compaction: Option<usize>,
    /// Entries on the path left out by that compaction.
    pub compacted_away: usize,
    /// The id where a parent cycle closed (pi would hang there).
    pub cycle: Option<String>,
}

/// Passes 1 and 2 for `leaf` (default: the session's leaf).
pub fn plan(session: &Session, leaf: Option<usize>) -> io::Result<Plan> {
    let leaf = leaf.or_else(|| session.leaf());
    let Some(leaf) = leaf else {
        return Ok(Plan {
            leaf: None,
            thinking_level: Some(Value::from("off")),
            model: Value::Null,
            items: Vec::new(),
            compaction: None,
            compacted_away: 0,
            cycle: None,
        });
    };
    let (path, cycle) = session.path_to(leaf);
    let (thinking_level, model) = settings(session, &path)?;

    let latest_compaction = path
        .iter()
        .rposition(|&i| *session.kind(i) == EntryKind::Compaction);
    let (selected, compacted_away) = match latest_compaction {
        None => (path.clone(), 0),
        Some(at) => {
            let compaction = path[at];
            let v = session.load(compaction)?;
            let first_kept = match Entry::of_kind(session.kind(compaction), &v) {
                Entry::Compaction {
                    first_kept_entry_id,
                    ..
                } => first_kept_entry_id
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                _ => None,
            };
            let mut selected = vec![compaction];
            let mut found = false;
            for &i in &path[..at] {
                if first_kept.is_some() && session.id(i) == first_kept.as_deref() {
                    found = true;
                }
                let is_system = *session.kind(i) == EntryKind::Message
                    && session.role(i).map(Role::parse) == Some(Role::System);
                if found && !is_system {
                    selected.push(i);
                }
            }
            selected.extend_from_slice(&path[at + 1..]);
            let away = path.len() - selected.len();
            (selected, away)
        }
    };

    // Pass 2: the last edit per target among the selected entries wins.
    let mut edits: HashMap<&str, usize> = HashMap::new();
    for &i in &selected {
        if *session.kind(i) == EntryKind::ContextEdit {
            if let Some(target) = session.target(i) {
                edits.insert(target, i);
            }
        }
    }
    let items = selected
        .iter()
        .enumerate()
        .map(|(n, &i)| Item {
            entry: i,
            edit: session.id(i).and_then(|id| edits.get(id).copied()),
            leading_compaction: n == 0 && latest_compaction.is_some(),
        })
        .collect();
    Ok(Plan {
        leaf: Some(leaf),
        thinking_level,
        model,
        items,
        compaction: latest_compaction.map(|at| path[at]),
        compacted_away,
        cycle,
    })
}

/// pi's `getSessionContextSettings` over the whole path: the last setting of each kind wins, so
/// the path is searched from its end and only the two deciding entries are decoded (decoding
/// every assistant message on a long path was a fifth of `context`'s time).
fn settings(session: &Session, path: &[usize]) -> io::Result<(Option<Value>, Value)> {
    let thinking = match path
        .iter()
        .rev()
        .find(|&&i| *session.kind(i) == EntryKind::ThinkingLevelChange)
    {
        Some(&i) => match Entry::of_kind(session.kind(i), &session.load(i)?) {
            Entry::ThinkingLevelChange { thinking_level } => thinking_level.cloned(),
            _ => None,
        },
        None => Some(Value::from("off")),
    };
    let last_model = path.iter().rev().find(|&&i| {
        *session.kind(i) == EntryKind::ModelChange
            || (*session.kind(i) == EntryKind::Message
                && session.role(i).map(Role::parse) == Some(Role::Assistant))
    });
    let model = match last_model {
        None => Value::Null,
        Some(&i) => match Entry::of_kind(session.kind(i), &session.load(i)?) {
            Entry::ModelChange { provider, model_id } => model_object(provider, model_id),
            Entry::Message(Some(m)) => model_object(m.provider(), m.model()),
            _ => model_object(None, None),
        },
    };
    Ok((thinking, model))
}

/// `{provider, modelId}` with undefined members left out, as `JSON.stringify` does.
fn model_object(provider: Field, model_id: Field) -> Value {
    object([("provider", provider), ("modelId", model_id)])
}

/// An object of the members that are defined, in order (`JSON.stringify` leaves out the
/// undefined ones).
fn object<const N: usize>(members: [(&str, Field); N]) -> Value {
    let defined = members
        .into_iter()
        .filter_map(|(k, v)| Some((k.to_owned(), v?.clone())));
    Value::Object(defined.collect())
}

/// `new Date(ts).getTime()` of an entry's ISO timestamp; `null` where JavaScript has NaN.
fn ms_of(timestamp: Field) -> Value {
    // `new Date(entry.timestamp).getTime()`: a string is parsed, a number is the time itself
    // (TimeClip: whole ms, NaN beyond 8.64e15), `null` and `false` are 0 and `true` 1; NaN,
    // and what is not there, `JSON.stringify` writes as `null`. (An object or array would be
    // parsed as its string form: `null` here, as nearly always in JavaScript.)
    let ms = match timestamp {
        Some(Value::String(s)) => parse_js_date(s),
        Some(Value::Number(n)) => n
            .as_f64()
            .filter(|t| t.is_finite() && t.abs() <= 8.64e15)
            .map(|t| t.trunc() as i64),
        Some(Value::Null) => Some(0),
        Some(Value::Bool(b)) => Some(i64::from(*b)),
        _ => None,
    };
    ms.map_or(Value::Null, Value::from)
}

/// pi's `sessionEntryToContextMessages` for one decoded entry.
pub fn entry_messages(entry: Entry, leading_compaction: bool) -> Vec<Value> {
    match entry {
        // pi pushes whatever `message` holds ("x", -1, [..] too, which `--llm` then drops);
        // only `null` or none makes it throw.
        Entry::Message(None | Some(Message(Value::Null))) => Vec::new(),
        Entry::Message(Some(m)) if !m.0.is_object() => vec![m.0.clone()],
        Entry::Message(Some(m)) => {
            let mut message = m.0.clone();
            if m.content_value().is_none_or(Value::is_null) {
                let empty = match m.role() {
                    Role::System => Some(Value::from("")),
                    Role::User | Role::Assistant | Role::ToolResult => Some(json!([])),
                    _ => None,
                };
                if empty.is_some() {
                    MessageMut(&mut message).set_content(empty);
                }
            }
            vec![message]
        }
        Entry::CustomMessage {
            custom_type,
            content,
            display,
            details,
            timestamp,
        } => {
            let content = content.filter(|c| !c.is_null());
            vec![object([
                ("role", Some(&Value::from("custom"))),
                ("customType", custom_type),
                ("content", Some(content.unwrap_or(&json!([])))),
                ("display", display),
                ("details", details),
                ("timestamp", Some(&ms_of(timestamp))),
            ])]
        }
        Entry::BranchSummary {
            summary,
            from_id,
            timestamp,
        } if js_truthy(summary) => {
            vec![object([
                ("role", Some(&Value::from("branchSummary"))),
                ("summary", summary),
                ("fromId", from_id),
                ("timestamp", Some(&ms_of(timestamp))),
            ])]
        }
        Entry::Compaction {
            summary,
            tokens_before,
            system_message,
            timestamp,
            ..
        } if leading_compaction => {
            let summary = object([
                ("role", Some(&Value::from("compactionSummary"))),
                ("summary", summary),
                ("tokensBefore", tokens_before),
                ("timestamp", Some(&ms_of(timestamp))),
            ]);
            match system_message {
                Some(system) if js_truthy(Some(system)) => vec![system.clone(), summary],
                _ => vec![summary],
            }
        }
        _ => Vec::new(),
    }
}

/// How an edit changed an entry's contribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditEffect {
    Dropped,
    Replaced,
}

/// pi's `projectContextEntry`: the entry's messages with its edit applied.
pub fn apply_edit(messages: Vec<Value>, edit: Entry) -> (Vec<Value>, Option<EditEffect>) {
    let Entry::ContextEdit {
        replacement: Some(replacement),
        ..
    } = edit
    else {
        // pi would throw on a missing replacement; leave the entry untouched.
        return (messages, None);
    };
    if replacement.is_null() {
        return (Vec::new(), Some(EditEffect::Dropped));
    }
    let new_content = Message(replacement).content_value();
    let messages = messages
        .into_iter()
        .map(|mut message| {
            let role = Message(&message).role();
            if !matches!(
                role,
                Role::User | Role::Assistant | Role::ToolResult | Role::Custom
            ) {
                return message;
            }
            let content = match new_content {
                Some(Value::String(s)) if matches!(role, Role::Assistant | Role::ToolResult) => {
                    Some(text_blocks(s))
                }
                other => other.cloned(),
            };
            MessageMut(&mut message).set_content(content);
            message
        })
        .collect();
    (messages, Some(EditEffect::Replaced))
}

/// Pass 3 for one item: decode the entry (and its edit) and return its messages.
pub fn project(session: &Session, item: &Item) -> io::Result<(Vec<Value>, Option<EditEffect>)> {
    let entry = session.load(item.entry)?;
    let messages = entry_messages(Entry::of(&entry), item.leading_compaction);
    let (mut messages, effect) = match item.edit {
        Some(edit) => apply_edit(
            messages,
            Entry::of_kind(session.kind(edit), &session.load(edit)?),
        ),
        None => (messages, None),
    };
    messages
        .iter_mut()
        .for_each(pisess_format::json::js_key_order);
    Ok((messages, effect))
}

/// Pass 3 for an item whose messages are its stored `message`, as is: an unedited `message`
/// entry of pi's own dialect whose message is an object with content, of a role no migration
/// renames, stored as `JSON.stringify` writes it (as pi stores it: [`is_stringify_output`]).
/// Its text is then what decoding and writing again gives, at a fraction of the cost: nearly
/// all of a context is such messages. `None`: take [`project`].
///
/// [`is_stringify_output`]: pisess_format::json::is_stringify_output
pub fn verbatim_message(session: &Session, item: &Item) -> io::Result<Option<String>> {
    #[derive(serde::Deserialize)]
    struct Line<'a> {
        #[serde(borrow)]
        message: &'a RawValue,
    }
    let e = &session.entries[item.entry];
    if item.edit.is_some()
        || !e.content()
        || session.header.dialect != Dialect::Pi
        || session.role(item.entry) == Some("hookMessage")
    {
        return Ok(None);
    }
    let line = session.raw_line(item.entry)?;
    let Ok(Line { message }) = serde_json::from_slice::<Line>(&line) else {
        return Ok(None);
    };
    let text = message.get();
    let usable = text.starts_with('{') && pisess_format::json::is_stringify_output(text.as_bytes());
    Ok(usable.then(|| text.to_owned()))
}

/// pi's `bashExecutionToText`.
pub fn bash_execution_text(m: Message) -> String {
    let mut text = format!("Ran `{}`\n", js_string(m.command()));
    if js_truthy(m.output()) {
        text.push_str(&format!("```\n{}\n```", js_string(m.output())));
    } else {
        text.push_str("(no output)");
    }
    if js_truthy(m.cancelled()) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = m.exit_code().filter(|c| !c.is_null() && **c != json!(0)) {
        text.push_str(&format!(
            "\n\nCommand exited with code {}",
            js_string(Some(code))
        ));
    }
    if js_truthy(m.truncated()) && js_truthy(m.full_output_path()) {
        text.push_str(&format!(
            "\n\n[Output truncated. Full output: {}]",
            js_string(m.full_output_path())
        ));
    }
    text
}

fn user_text(text: String, timestamp: Field) -> Value {
    // Built in place: the text (a command's output) is not copied again.
    let mut m = Map::new();
    m.insert("role".into(), Value::from("user"));
    m.insert("content".into(), text_blocks(text));
    if let Some(ts) = timestamp {
        m.insert("timestamp".into(), ts.clone());
    }
    Value::Object(m)
}

/// pi's `convertToLlm` for one message (`None`: left out of the request).
pub fn to_llm(value: Value) -> Option<Value> {
    let m = Message(&value);
    let ts = m.timestamp();
    let summary = |prefix: &str, suffix: &str| {
        let text = format!("{prefix}{}{suffix}", js_string(m.summary()));
        Some(user_text(text, ts))
    };
    match m.role() {
        Role::BashExecution if js_truthy(m.exclude_from_context()) => None,
        Role::BashExecution => Some(user_text(bash_execution_text(m), ts)),
        Role::Custom => {
            let content = match m.content_value() {
                Some(Value::String(s)) => Some(text_blocks(s)),
                other => other.cloned(),
            };
            Some(object([
                ("role", Some(&Value::from("user"))),
                ("content", content.as_ref()),
                ("timestamp", ts),
            ]))
        }
        Role::BranchSummary => summary(BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX),
        Role::CompactionSummary => summary(COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX),
        Role::System | Role::User | Role::Assistant | Role::ToolResult => Some(value),
        Role::Other(_) => None,
    }
}

/// Cuts the text of a tool result's blocks to `max` characters (`--max-tool-chars`).
pub fn cut_tool_result(m: &mut Value, max: usize) {
    if Message(m).role() != Role::ToolResult {
        return;
    }
    let cut = |s: &mut String| {
        if let Some((at, _)) = s.char_indices().nth(max) {
            let dropped = s[at..].chars().count();
            let note = format!("\n[... {dropped} more characters cut by --max-tool-chars]");
            // A cut never makes the text longer: what the note would replace stays.
            if note.len() < s.len() - at {
                s.truncate(at);
                s.push_str(&note);
            }
        }
    };
    MessageMut(m).each_text(cut);
}

fn utf16_len(v: Field) -> usize {
    v.and_then(Value::as_str).map_or(0, js_len)
}

/// `JSON.stringify(v).length`.
fn json_len(v: &Value) -> usize {
    js_len(&pisess_format::surrogates::to_string(v))
}

fn content_chars(content: Content) -> usize {
    match content {
        Content::Text(s) => js_len(s),
        blocks => blocks
            .blocks()
            .map(|b| match b {
                Block::Text { text } => utf16_len(text),
                Block::Image { .. } => 4800,
                _ => 0,
            })
            .sum(),
    }
}

/// pi's `estimateTokens` (characters / 4, rounded up; an image counts 4800 characters).
pub fn estimate_tokens(m: &Value) -> usize {
    let m = Message(m);
    let chars = match m.role() {
        Role::System => {
            let mut chars = content_chars(m.content());
            if let Some(Value::Object(sections)) = m.sections() {
                chars += sections.values().map(|s| utf16_len(Some(s))).sum::<usize>();
            }
            if let Some(tools) = m.tools_added().filter(|t| js_truthy(Some(t))) {
                chars += json_len(tools);
            }
            chars
        }
        Role::User | Role::Custom | Role::ToolResult => content_chars(m.content()),
        Role::Assistant => m
            .content()
            .blocks()
            .map(|b| match b {
                Block::Text { text } => utf16_len(text),
                Block::Thinking { thinking, .. } => utf16_len(thinking),
                Block::ToolCall(call) => utf16_len(call.name) + call.arguments.map_or(0, json_len),
                _ => 0,
            })
            .sum(),
        Role::BashExecution => utf16_len(m.command()) + utf16_len(m.output()),
        Role::BranchSummary | Role::CompactionSummary => utf16_len(m.summary()),
        Role::Other(_) => 0,
    };
    chars.div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_tool_chars_never_lengthens_a_result() {
        let result =
            |text: &str| json!({"role": "toolResult", "content": [{"type": "text", "text": text}]});
        let mut short = result("twenty characters...");
        cut_tool_result(&mut short, 0);
        assert_eq!(short, result("twenty characters..."));
        let long = "x".repeat(346);
        let mut cut = result(&long);
        cut_tool_result(&mut cut, 0);
        let text = cut["content"][0]["text"].as_str().unwrap();
        assert!(
            text.len() < 346 && text.contains("346 more characters"),
            "{text}"
        );
    }

    fn session(lines: &[Value]) -> Session {
        pisess_store::session::test_session(lines)
    }

    fn msg(id: &str, parent: Option<&str>, role: &str, content: Value) -> Value {
        json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-01-01T00:00:01.000Z",
               "message":{"role":role,"content":content,"timestamp":1}})
    }

    fn messages(s: &Session, leaf: Option<&str>) -> Vec<Value> {
        let p = plan(s, leaf.map(|l| s.find(l).unwrap())).unwrap();
        p.items
            .iter()
            .flat_map(|i| project(s, i).unwrap().0)
            .collect()
    }

    #[test]
    fn stored_messages_are_copied_when_decoding_would_not_change_them() {
        let text = format!(
            "{}\n{}\n{}\n{}\n{}\n{}\n{}\n",
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x \"1e400\" \\ud83d","usage":{"cost":0.000006}}}"#,
            r#"{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"cut \ud83d"}}"#,
            r#"{"type":"message","id":"c","parentId":"b","message":{"role":"user","content":"x","n":1e400}}"#,
            r#"{"type":"message","id":"d","parentId":"c","message":{"role":"user","content":"x","n":12345678901234567}}"#,
            r#"{"type":"message","id":"e","parentId":"d","message":{"role":"user","content":null}}"#,
            r#"{"type":"context_edit","id":"f","parentId":"e","targetId":"a","replacement":{"content":"y"}}"#,
        );
        let s = Session::read(
            pisess_format::scan::Input::Bytes(text.as_bytes(), "t"),
            pisess_store::session::IndexOptions::default(),
        )
        .unwrap();
        let p = plan(&s, None).unwrap();
        let copied: Vec<Option<String>> = p
            .items
            .iter()
            .map(|i| verbatim_message(&s, i).unwrap())
            .collect();
        // a is edited; b has a lone surrogate, c a number beyond f64, d one beyond 2^53, e no
        // content: each decodes differently from its text, so none is copied.
        assert_eq!(copied, [None, None, None, None, None, None]);
        let p = plan(&s, Some(0)).unwrap();
        assert_eq!(
            verbatim_message(&s, &p.items[0]).unwrap().as_deref(),
            Some(r#"{"role":"user","content":"x \"1e400\" \\ud83d","usage":{"cost":0.000006}}"#)
        );
        // The copy and the decoded message are the same JSON.
        let decoded = &project(&s, &p.items[0]).unwrap().0[0];
        let copy: Value =
            serde_json::from_str(&verbatim_message(&s, &p.items[0]).unwrap().unwrap()).unwrap();
        assert_eq!(&copy, decoded);
    }

    #[test]
    fn linear_path_and_settings() {
        let s = session(&[
            msg("a", None, "user", json!("hi")),
            json!({"type":"thinking_level_change","id":"t","parentId":"a","thinkingLevel":"high"}),
            json!({"type":"message","id":"b","parentId":"t","message":{"role":"assistant","content":null,"provider":"p","model":"m"}}),
            json!({"type":"usage","id":"u","parentId":"b","usage":{}}),
            json!({"type":"custom","id":"c","parentId":"u","customType":"x"}),
        ]);
        let p = plan(&s, None).unwrap();
        assert_eq!(p.thinking_level, Some(json!("high")));
        assert_eq!(p.model, json!({"provider":"p","modelId":"m"}));
        let m = messages(&s, None);
        assert_eq!(m.len(), 2);
        assert_eq!(m[1]["content"], json!([]));
    }

    #[test]
    fn compaction_keeps_from_first_kept_without_system() {
        let s = session(&[
            msg("a", None, "user", json!("old")),
            msg("sys", Some("a"), "system", json!("rules")),
            msg("b", Some("sys"), "user", json!("kept")),
            json!({"type":"compaction","id":"c","parentId":"b","summary":"S","firstKeptEntryId":"a","tokensBefore":9,"timestamp":"2026-01-01T00:00:02.000Z","systemMessage":{"role":"system","content":"ckpt"}}),
            msg("d", Some("c"), "user", json!("new")),
        ]);
        let m = messages(&s, None);
        let roles: Vec<_> = m
            .iter()
            .map(|m| m["role"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            roles,
            ["system", "compactionSummary", "user", "user", "user"]
        );
        assert_eq!(m[1]["timestamp"], 1_767_225_602_000_i64);
        assert_eq!(m[2]["content"], "old");
    }

    #[test]
    fn retain_none_and_older_compactions() {
        let s = session(&[
            msg("a", None, "user", json!("old")),
            json!({"type":"compaction","id":"c1","parentId":"a","summary":"one","firstKeptEntryId":"a","tokensBefore":1}),
            msg("b", Some("c1"), "user", json!("mid")),
            json!({"type":"compaction","id":"c2","parentId":"b","summary":"two","firstKeptEntryId":"c1","tokensBefore":2}),
            json!({"type":"compaction","id":"c3","parentId":"c2","summary":"three","firstKeptEntryId":"c3","tokensBefore":3}),
        ]);
        let m = messages(&s, None);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0]["summary"], "three");
        // At c2: c1 is inside the kept range but contributes nothing.
        let m = messages(&s, Some("c2"));
        let summaries: Vec<_> = m.iter().map(|m| m["summary"].clone()).collect();
        assert_eq!(summaries, [json!("two"), Value::Null]);
        assert_eq!(m[1]["content"], "mid");
    }

    #[test]
    fn edits_are_branch_relative_and_last_wins() {
        let s = session(&[
            msg("a", None, "user", json!("secret")),
            msg(
                "b",
                Some("a"),
                "assistant",
                json!([{"type":"text","text":"ok"}]),
            ),
            json!({"type":"context_edit","id":"e1","parentId":"b","targetId":"b","replacement":{"content":"R1"}}),
            json!({"type":"context_edit","id":"e2","parentId":"e1","targetId":"b","replacement":{"content":"R2"}}),
            json!({"type":"context_edit","id":"e3","parentId":"e2","targetId":"a","replacement":null}),
        ]);
        let m = messages(&s, None);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0]["content"], json!([{"type":"text","text":"R2"}]));
        let before = messages(&s, Some("b"));
        assert_eq!(before[0]["content"], "secret");
        let mid = messages(&s, Some("e1"));
        assert_eq!(mid[1]["content"], json!([{"type":"text","text":"R1"}]));
    }

    #[test]
    fn custom_messages_and_branch_summaries() {
        let s = session(&[
            json!({"type":"custom_message","id":"a","parentId":null,"customType":"note","content":"x","display":true,"timestamp":"2026-01-01T00:00:00.000Z"}),
            json!({"type":"branch_summary","id":"b","parentId":"a","fromId":"z","summary":"","timestamp":"2026-01-01T00:00:00.000Z"}),
            json!({"type":"branch_summary","id":"c","parentId":"b","fromId":"z","summary":"went elsewhere","timestamp":"bad"}),
        ]);
        let m = messages(&s, None);
        assert_eq!(m.len(), 2);
        assert_eq!(
            m[0],
            json!({"role":"custom","customType":"note","content":"x","display":true,"timestamp":1_767_225_600_000_i64})
        );
        assert_eq!(
            m[1],
            json!({"role":"branchSummary","summary":"went elsewhere","fromId":"z","timestamp":null})
        );
    }

    #[test]
    fn llm_conversion() {
        let bash = json!({"role":"bashExecution","command":"ls","output":"a","exitCode":2,"cancelled":false,"truncated":true,"fullOutputPath":"/tmp/o","timestamp":5});
        assert_eq!(
            to_llm(bash).unwrap(),
            json!({"role":"user","content":[{"type":"text","text":"Ran `ls`\n```\na\n```\n\nCommand exited with code 2\n\n[Output truncated. Full output: /tmp/o]"}],"timestamp":5})
        );
        assert!(
            to_llm(json!({"role":"bashExecution","command":"x","excludeFromContext":true}))
                .is_none()
        );
        assert_eq!(
            to_llm(json!({"role":"custom","content":"hey","timestamp":1})).unwrap(),
            json!({"role":"user","content":[{"type":"text","text":"hey"}],"timestamp":1})
        );
        let c = to_llm(
            json!({"role":"compactionSummary","summary":"S","tokensBefore":1,"timestamp":2}),
        )
        .unwrap();
        assert_eq!(
            c["content"][0]["text"],
            format!("{COMPACTION_SUMMARY_PREFIX}S{COMPACTION_SUMMARY_SUFFIX}")
        );
        assert!(to_llm(json!({"role":"weird"})).is_none());
        let bare = to_llm(json!({"role":"bashExecution"})).unwrap();
        assert_eq!(bare["content"][0]["text"], "Ran `undefined`\n(no output)");
    }

    #[test]
    fn token_estimates_and_tool_cuts() {
        assert_eq!(
            estimate_tokens(&json!({"role":"user","content":"abcde"})),
            2
        );
        assert_eq!(
            estimate_tokens(
                &json!({"role":"assistant","content":[{"type":"toolCall","name":"ab","arguments":{}}]})
            ),
            1
        );
        let text = format!("0123{}", "x".repeat(100));
        let mut m = json!({"role":"toolResult","content":[{"type":"text","text":text}]});
        cut_tool_result(&mut m, 4);
        assert!(m["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("0123\n[... 100 more"));
    }
}
