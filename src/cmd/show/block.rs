//! One entry of `pisess show` as a block: a head line (local time, id, type or role, details,
//! label) and the content indented below it.
//!
//! Every piece of session text goes through [`escape_control`] before it is written, so a
//! session cannot move the cursor or recolour the terminal. Long text is cut with a visible
//! marker unless `--full`.

use std::collections::HashMap;
use std::io::{self, Write};

use jiff::tz::TimeZone;
use serde_json::{Map, Value};

use super::body::{string_or_json, Body};
use super::limits::Rests;
use crate::views::style::{self, escape_control, shown_id, IdCut, Role, Theme};
use pisess_format::model::content::{CallForm, ToolCall};
use pisess_format::model::EntryKind;
use pisess_format::time::local_time;
use pisess_store::session::Session;

pub(super) struct Blocks<'a> {
    pub theme: Theme,
    pub full: bool,
    pub tz: &'a TimeZone,
    /// Current labels by target id.
    pub labels: HashMap<String, String>,
}

/// A string field, or `?`.
fn str_or(v: Option<&Value>) -> &str {
    v.and_then(Value::as_str).unwrap_or("?")
}

impl Blocks<'_> {
    /// Writes the block of entry `i` (`entry` decoded in pi's shape, `rests` what its
    /// shortened strings left out), with an optional note on where it hangs in the tree.
    pub(super) fn write(
        &self,
        session: &Session,
        i: usize,
        (entry, rests): (&Value, &Rests),
        note: Option<&str>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let t = self.theme;
        let message = entry.get("message").filter(|m| m.is_object());
        let (kind, id) = (session.kind(i), session.id(i));
        let time = session.entries[i]
            .timestamp_ms()
            .map(|ms| local_time(ms, self.tz))
            // Missing, unparsable, or a date jiff cannot place: keep the column.
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| format!("{:19}", "-"));
        let id_column = id.map_or_else(|| "-".to_owned(), |id| shown_id(id, IdCut::Typed));
        let (what, mut details) = head(kind, entry, message);
        if let Some(note) = note {
            details.push((Role::Muted, note.to_owned()));
        }
        let mut line = format!(
            "{}  {}  {}",
            t.paint(Role::Muted, &time),
            t.paint(Role::Id, &id_column),
            t.bold(&escape_control(&what, false))
        );
        for (look, d) in details {
            let d = escape_control(&d, false);
            let d = match look {
                Role::Error => t.paint(Role::Error, &d),
                _ => t.paint(Role::Muted, &d),
            };
            line.push_str("  ");
            line.push_str(&d);
        }
        if let Some(label) = id.and_then(|id| self.labels.get(id)) {
            line.push_str("  ");
            line.push_str(&t.paint(Role::Id, &format!("[{}]", escape_control(label, false))));
        }
        writeln!(out, "{line}")?;
        let mut body = Body {
            out,
            theme: t,
            full: self.full,
            rests,
        };
        match message {
            Some(m) if *kind == EntryKind::Message => message_body(&mut body, m),
            _ => entry_body(&mut body, kind, entry),
        }
    }
}

/// What the head line names (role or type) and its details.
fn head(kind: &EntryKind, entry: &Value, message: Option<&Value>) -> (String, Vec<(Role, String)>) {
    let mut details = Vec::new();
    let dim = |s: String| (Role::Muted, s);
    let m = |k: &str| message.and_then(|m| m.get(k));
    let what = match (kind, message) {
        (EntryKind::Message, Some(_)) => {
            let role = m("role").and_then(Value::as_str).unwrap_or("message");
            match role {
                "assistant" => {
                    if let Some(model) = m("model").and_then(Value::as_str) {
                        details.push(dim(model.to_owned()));
                    }
                    match m("stopReason").and_then(Value::as_str) {
                        None | Some("stop" | "toolUse") => {}
                        Some(other) => details.push((Role::Error, other.to_owned())),
                    }
                }
                "toolResult" => {
                    details.push(dim(str_or(m("toolName")).to_owned()));
                    if m("isError") == Some(&Value::Bool(true)) {
                        details.push((Role::Error, "error".to_owned()));
                    }
                }
                "bashExecution" => {
                    match m("exitCode").and_then(Value::as_i64) {
                        Some(0) => details.push(dim("exit 0".to_owned())),
                        Some(code) => details.push((Role::Error, format!("exit {code}"))),
                        None => {}
                    }
                    for (flag, text) in [
                        ("cancelled", "cancelled"),
                        ("truncated", "truncated"),
                        ("excludeFromContext", "excluded from context"),
                    ] {
                        if m(flag) == Some(&Value::Bool(true)) {
                            details.push(dim(text.to_owned()));
                        }
                    }
                }
                "custom" => details.push(dim(str_or(m("customType")).to_owned())),
                _ => {}
            }
            role.to_owned()
        }
        (EntryKind::Custom | EntryKind::CustomMessage, _) => {
            details.push(dim(str_or(entry.get("customType")).to_owned()));
            if entry.get("display") == Some(&Value::Bool(false)) {
                details.push(dim("hidden".to_owned()));
            }
            kind.as_str().to_owned()
        }
        (EntryKind::Unknown(name), _) if name.is_empty() => "(no type)".to_owned(),
        _ => kind.as_str().to_owned(),
    };
    (what, details)
}

fn message_body(body: &mut Body, m: &Value) -> io::Result<()> {
    let get = |k: &str| m.get(k);
    match get("role").and_then(Value::as_str) {
        Some("bashExecution") => {
            body.line(&format!("$ {}", string_or_json(get("command"))), Role::Tool)?;
            body.text(&string_or_json(get("output")), Role::Plain)?;
            if let Some(path) = get("fullOutputPath").and_then(Value::as_str) {
                body.line(&format!("full output: {path}"), Role::Muted)?;
            }
            Ok(())
        }
        Some("branchSummary" | "compactionSummary") => {
            body.text(&string_or_json(get("summary")), Role::Plain)
        }
        Some("system") => {
            body.content(get("content").filter(|c| c.as_str() != Some("")))?;
            if let Some(sections) = get("sections").and_then(Value::as_object) {
                for (name, text) in sections {
                    body.text(
                        &format!("[{name}] {}", string_or_json(Some(text))),
                        Role::Muted,
                    )?;
                }
            }
            for (key, what) in [
                ("toolsAdded", "tools added"),
                ("toolsRemoved", "tools removed"),
            ] {
                if let Some(tools) = get(key).and_then(Value::as_array) {
                    let names: Vec<_> = tools
                        .iter()
                        .map(|t| string_or_json(t.get("name").or(Some(t))))
                        .collect();
                    body.line(&format!("{what}: {}", names.join(", ")), Role::Muted)?;
                }
            }
            Ok(())
        }
        Some("user" | "assistant" | "toolResult" | "custom") => {
            body.content(get("content"))?;
            if let Some(error) = get("errorMessage").and_then(Value::as_str) {
                body.text(&format!("error: {error}"), Role::Error)?;
            }
            Ok(())
        }
        // A role pisess does not know: its content if it has some, else its fields.
        _ if get("content").is_some() => body.content(get("content")),
        _ => body.line(&without(m, &["role", "timestamp"]), Role::Plain),
    }
}

fn entry_body(body: &mut Body, kind: &EntryKind, e: &Value) -> io::Result<()> {
    let get = |k: &str| e.get(k);
    let target = || shown_id(str_or(get("targetId")), IdCut::Typed);
    match kind {
        EntryKind::ModelChange => {
            let model = match get("provider").and_then(Value::as_str) {
                Some(p) => format!("{p}/{}", str_or(get("modelId"))),
                None => str_or(get("modelId")).to_owned(),
            };
            body.line(&model, Role::Plain)
        }
        EntryKind::ThinkingLevelChange => body.line(str_or(get("thinkingLevel")), Role::Plain),
        EntryKind::Usage => body.line(&usage_line(e), Role::Plain),
        EntryKind::Compaction => {
            body.text(&string_or_json(get("summary")), Role::Plain)?;
            let mut facts = Vec::new();
            if let Some(first) = get("firstKeptEntryId").and_then(Value::as_str) {
                facts.push(format!("kept from {}", shown_id(first, IdCut::Typed)));
            }
            if let Some(tokens) = get("tokensBefore").and_then(Value::as_f64) {
                facts.push(format!("{} tokens before", style::tokens(tokens)));
            }
            if get("systemMessage").is_some_and(Value::is_object) {
                facts.push("with a system message checkpoint".to_owned());
            }
            if get("fromHook") == Some(&Value::Bool(true)) {
                facts.push("from an extension".to_owned());
            }
            if facts.is_empty() {
                return Ok(());
            }
            body.line(&facts.join(" · "), Role::Muted)
        }
        EntryKind::BranchSummary => {
            body.text(&string_or_json(get("summary")), Role::Plain)?;
            match get("fromId").and_then(Value::as_str) {
                Some(from) => body.line(
                    &format!("from {}", shown_id(from, IdCut::Typed)),
                    Role::Muted,
                ),
                None => Ok(()),
            }
        }
        EntryKind::ContextEdit => match get("replacement") {
            Some(Value::Null) => body.line(&format!("edit → {}: dropped", target()), Role::Plain),
            r => {
                body.line(&format!("edit → {}: replaced", target()), Role::Plain)?;
                body.content(r.and_then(|r| r.get("content")))
            }
        },
        EntryKind::Label => {
            let label = match get("label").and_then(Value::as_str) {
                Some(l) if !l.is_empty() => l.to_owned(),
                _ => "cleared".to_owned(),
            };
            body.line(&format!("label → {}: {label}", target()), Role::Plain)
        }
        EntryKind::SessionInfo => match get("name").and_then(Value::as_str) {
            Some(name) if !name.is_empty() => body.line(&format!("name: {name}"), Role::Plain),
            _ => body.line("name cleared", Role::Plain),
        },
        EntryKind::Custom => match get("data") {
            Some(data) => body.line(&data.to_string(), Role::Plain),
            None => Ok(()),
        },
        EntryKind::CustomMessage | EntryKind::Thinking => body.content(get("content")),
        EntryKind::ToolCall => {
            let call = ToolCall {
                id: None,
                name: get("toolName"),
                arguments: get("input"),
            }
            .line(CallForm::Keys);
            body.line(&format!("→ {call}"), Role::Tool)
        }
        // A message whose `message` is not an object, or a type pisess does not know.
        EntryKind::Message | EntryKind::Unknown(_) => body.line(
            &without(e, &["type", "id", "parentId", "timestamp"]),
            Role::Plain,
        ),
    }
}

/// `cache_warm · anthropic/claude-sonnet-4-5 · 7.6k tokens · $0.0023`
fn usage_line(e: &Value) -> String {
    let u = e.get("usage");
    let n = |k: &str| {
        u.and_then(|u| u.get(k))
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
    };
    let tokens = n("input") + n("output") + n("cacheRead") + n("cacheWrite");
    let cost = u
        .and_then(|u| u.pointer("/cost/total"))
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let model = format!("{}/{}", str_or(e.get("provider")), str_or(e.get("model")));
    // Tokens at a recorded cost of 0 had no price: the money every command prints, said.
    let unpriced = if cost == 0.0 { tokens } else { 0.0 };
    let no_price = if unpriced > 0.0 { " (no price)" } else { "" };
    format!(
        "{} · {model} · {} tokens · {}{no_price}",
        str_or(e.get("kind")),
        style::tokens(tokens),
        style::money(cost, unpriced)
    )
}

/// An object's fields other than `skip`, as compact JSON.
fn without(v: &Value, skip: &[&str]) -> String {
    match v.as_object() {
        Some(map) => {
            let rest: Map<String, Value> = map
                .iter()
                .filter(|(k, _)| !skip.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            Value::Object(rest).to_string()
        }
        None => v.to_string(),
    }
}
