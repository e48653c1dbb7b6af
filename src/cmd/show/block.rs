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
use crate::views::style::{self, escape_control, shown_id, IdCut, Role, Theme};
use pisess_format::model::content::{CallForm, ToolCall};
use pisess_format::model::cut::{Cuts, Place};
use pisess_format::model::{Entry, EntryKind, Field, Message, Role as PiRole, Usage};
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
fn str_or(v: Field<'_>) -> &str {
    v.and_then(Value::as_str).unwrap_or("?")
}

impl Blocks<'_> {
    /// Writes the block of entry `i` (`entry` decoded in pi's shape, `cuts` what its
    /// shortened texts left out), with an optional note on where it hangs in the tree.
    pub(super) fn write(
        &self,
        session: &Session,
        i: usize,
        (entry, cuts): (&Value, &Cuts),
        note: Option<&str>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let t = self.theme;
        let (kind, id) = (session.kind(i), session.id(i));
        let typed = Entry::of_kind(kind, entry);
        let time = session.entries[i]
            .timestamp_ms()
            .map(|ms| local_time(ms, self.tz))
            // Missing, unparsable, or a date jiff cannot place: keep the column.
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| format!("{:19}", "-"));
        let id_column = id.map_or_else(|| "-".to_owned(), |id| shown_id(id, IdCut::Typed));
        let (what, mut details) = head(kind, typed);
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
            cuts,
        };
        match typed {
            Entry::Message(Some(m)) if m.0.is_object() => message_body(&mut body, m),
            _ => entry_body(&mut body, entry, typed),
        }
    }
}

/// What the head line names (role or type) and its details.
fn head(kind: &EntryKind, entry: Entry) -> (String, Vec<(Role, String)>) {
    let mut details = Vec::new();
    let dim = |s: String| (Role::Muted, s);
    let flag = |v: Field| v == Some(&Value::Bool(true));
    let what = match entry {
        Entry::Message(Some(m)) if m.0.is_object() => {
            match m.role() {
                PiRole::Assistant => {
                    if let Some(model) = m.model().and_then(Value::as_str) {
                        details.push(dim(model.to_owned()));
                    }
                    match m.stop_reason().and_then(Value::as_str) {
                        None | Some("stop" | "toolUse") => {}
                        Some(other) => details.push((Role::Error, other.to_owned())),
                    }
                }
                PiRole::ToolResult => {
                    details.push(dim(str_or(m.tool_name()).to_owned()));
                    if flag(m.is_error()) {
                        details.push((Role::Error, "error".to_owned()));
                    }
                }
                PiRole::BashExecution => {
                    match m.exit_code().and_then(Value::as_i64) {
                        Some(0) => details.push(dim("exit 0".to_owned())),
                        Some(code) => details.push((Role::Error, format!("exit {code}"))),
                        None => {}
                    }
                    for (on, text) in [
                        (m.cancelled(), "cancelled"),
                        (m.truncated(), "truncated"),
                        (m.exclude_from_context(), "excluded from context"),
                    ] {
                        if flag(on) {
                            details.push(dim(text.to_owned()));
                        }
                    }
                }
                PiRole::Custom => details.push(dim(str_or(m.custom_type()).to_owned())),
                _ => {}
            }
            // The role as stored (`""` too), or `message` when it is no string.
            let role = m.role_value().and_then(Value::as_str);
            role.unwrap_or("message").to_owned()
        }
        Entry::Custom {
            custom_type,
            display,
            ..
        }
        | Entry::CustomMessage {
            custom_type,
            display,
            ..
        } => {
            details.push(dim(str_or(custom_type).to_owned()));
            if display == Some(&Value::Bool(false)) {
                details.push(dim("hidden".to_owned()));
            }
            kind.as_str().to_owned()
        }
        Entry::Unknown("") => "(no type)".to_owned(),
        _ => kind.as_str().to_owned(),
    };
    (what, details)
}

fn message_body(body: &mut Body, m: Message) -> io::Result<()> {
    match m.role() {
        PiRole::BashExecution => {
            body.line(&format!("$ {}", string_or_json(m.command())), Role::Tool)?;
            body.text_at(Place::Output, &string_or_json(m.output()), Role::Plain)?;
            if let Some(path) = m.full_output_path().and_then(Value::as_str) {
                body.line(&format!("full output: {path}"), Role::Muted)?;
            }
            Ok(())
        }
        PiRole::BranchSummary | PiRole::CompactionSummary => {
            body.text_at(Place::Summary, &string_or_json(m.summary()), Role::Plain)
        }
        PiRole::System => {
            body.content(m.content_value().filter(|c| c.as_str() != Some("")))?;
            if let Some(sections) = m.sections().and_then(Value::as_object) {
                for (name, text) in sections {
                    body.text(
                        &format!("[{name}] {}", string_or_json(Some(text))),
                        Role::Muted,
                    )?;
                }
            }
            for (tools, what) in [
                (m.tools_added(), "tools added"),
                (m.tools_removed(), "tools removed"),
            ] {
                if let Some(names) = Message::tool_names(tools) {
                    let names: Vec<_> = names.map(|name| string_or_json(Some(name))).collect();
                    body.line(&format!("{what}: {}", names.join(", ")), Role::Muted)?;
                }
            }
            Ok(())
        }
        PiRole::User | PiRole::Assistant | PiRole::ToolResult | PiRole::Custom => {
            body.content(m.content_value())?;
            if let Some(error) = m.error_message().and_then(Value::as_str) {
                body.text(&format!("error: {error}"), Role::Error)?;
            }
            Ok(())
        }
        // A role pisess does not know: its content if it has some, else its fields.
        PiRole::Other(_) if m.content_value().is_some() => body.content(m.content_value()),
        PiRole::Other(_) => body.line(&without(m.0, &["role", "timestamp"]), Role::Plain),
    }
}

fn entry_body(body: &mut Body, e: &Value, entry: Entry) -> io::Result<()> {
    let target = |id: Field| shown_id(str_or(id), IdCut::Typed);
    match entry {
        Entry::ModelChange { provider, model_id } => {
            let model = match provider.and_then(Value::as_str) {
                Some(p) => format!("{p}/{}", str_or(model_id)),
                None => str_or(model_id).to_owned(),
            };
            body.line(&model, Role::Plain)
        }
        Entry::ThinkingLevelChange { thinking_level } => {
            body.line(str_or(thinking_level), Role::Plain)
        }
        Entry::Usage {
            kind,
            provider,
            model,
            usage,
        } => body.line(&usage_line(kind, provider, model, usage), Role::Plain),
        Entry::Compaction {
            summary,
            first_kept_entry_id,
            tokens_before,
            system_message,
            from_hook,
            ..
        } => {
            body.text_at(Place::Summary, &string_or_json(summary), Role::Plain)?;
            let mut facts = Vec::new();
            if let Some(first) = first_kept_entry_id.and_then(Value::as_str) {
                facts.push(format!("kept from {}", shown_id(first, IdCut::Typed)));
            }
            if let Some(tokens) = tokens_before.and_then(Value::as_f64) {
                facts.push(format!("{} tokens before", style::tokens(tokens)));
            }
            if system_message.is_some_and(Value::is_object) {
                facts.push("with a system message checkpoint".to_owned());
            }
            if from_hook == Some(&Value::Bool(true)) {
                facts.push("from an extension".to_owned());
            }
            if facts.is_empty() {
                return Ok(());
            }
            body.line(&facts.join(" · "), Role::Muted)
        }
        Entry::BranchSummary {
            summary, from_id, ..
        } => {
            body.text_at(Place::Summary, &string_or_json(summary), Role::Plain)?;
            match from_id.and_then(Value::as_str) {
                Some(from) => body.line(
                    &format!("from {}", shown_id(from, IdCut::Typed)),
                    Role::Muted,
                ),
                None => Ok(()),
            }
        }
        Entry::ContextEdit {
            target_id,
            replacement: Some(Value::Null),
        } => body.line(
            &format!("edit → {}: dropped", target(target_id)),
            Role::Plain,
        ),
        Entry::ContextEdit {
            target_id,
            replacement,
        } => {
            body.line(
                &format!("edit → {}: replaced", target(target_id)),
                Role::Plain,
            )?;
            body.content(replacement.and_then(|r| Message(r).content_value()))
        }
        Entry::Label { target_id, label } => {
            let label = match label.and_then(Value::as_str) {
                Some(l) if !l.is_empty() => l.to_owned(),
                _ => "cleared".to_owned(),
            };
            body.line(
                &format!("label → {}: {label}", target(target_id)),
                Role::Plain,
            )
        }
        Entry::SessionInfo { name } => match name.and_then(Value::as_str) {
            Some(name) if !name.is_empty() => body.line(&format!("name: {name}"), Role::Plain),
            _ => body.line("name cleared", Role::Plain),
        },
        Entry::Custom { data, .. } => match data {
            Some(data) => body.line(&data.to_string(), Role::Plain),
            None => Ok(()),
        },
        Entry::CustomMessage { content, .. } | Entry::Thinking { content } => body.content(content),
        Entry::ToolCall { tool_name, input } => {
            let call = ToolCall {
                id: None,
                name: tool_name,
                arguments: input,
            }
            .line(CallForm::Keys);
            body.line(&format!("→ {call}"), Role::Tool)
        }
        // A message whose `message` is not an object, or a type pisess does not know.
        Entry::Message(_) | Entry::Unknown(_) => body.line(
            &without(e, &["type", "id", "parentId", "timestamp"]),
            Role::Plain,
        ),
    }
}

/// `cache_warm · anthropic/claude-sonnet-4-5 · 7.6k tokens · $0.0023`
fn usage_line(kind: Field, provider: Field, model: Field, usage: Field) -> String {
    let usage = Usage::of_value(usage);
    let (tokens, cost) = (usage.total_tokens(), usage.cost);
    let model = format!("{}/{}", str_or(provider), str_or(model));
    // Tokens at a recorded cost of 0 had no price: the money every command prints, said.
    let unpriced = if cost == 0.0 { tokens } else { 0.0 };
    let no_price = if unpriced > 0.0 { " (no price)" } else { "" };
    format!(
        "{} · {model} · {} tokens · {}{no_price}",
        str_or(kind),
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
