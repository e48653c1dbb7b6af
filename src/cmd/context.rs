//! `pisess context`: the messages pi sends to the model next, as pi's `buildSessionContext`
//! (or `convertToLlm` with `--llm`) computes them.
//!
//! Messages are decoded, written and dropped one entry at a time, so a 400 MB session needs
//! memory for its index and its largest entry, not for its content.

use std::io::{Read, Write};

use serde_json::Value;

use crate::app::cli::ContextArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::cmd::{find_entry, open_selected};
use crate::views::context::{self, EditEffect, Plan};
use crate::views::style::{self, Role, Theme};
use pisess_format::model::content::{Block, CallForm, Content};
use pisess_format::model::{Entry, EntryKind, Message, Role as Said};
use pisess_format::surrogates;
use pisess_store::session::Session;

pub fn run(
    args: &ContextArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let session = open_selected(
        args.session.as_deref(),
        env,
        diag,
        stdin,
        Default::default(),
    )?;
    let leaf = args
        .leaf
        .as_deref()
        .map(|id| find_entry(&session, id))
        .transpose()?;
    let plan = context::plan(&session, leaf)?;
    if let Some(id) = &plan.cycle {
        super::warn_cycle(diag, &session, id);
    }
    if args.json {
        write_json(&session, &plan, args, out)?;
    } else {
        write_human(&session, &plan, args, env.theme(), env.columns, out)?;
    }
    Ok(Outcome::Done)
}

/// The messages of one selected entry, after edits, `--max-tool-chars` and `--llm`.
fn messages_of(
    session: &Session,
    item: &context::Item,
    args: &ContextArgs,
) -> anyhow::Result<(Vec<Value>, Option<EditEffect>)> {
    let (mut messages, effect) = context::project(session, item)?;
    if let Some(max) = args.max_tool_chars {
        for m in &mut messages {
            context::cut_tool_result(m, max);
        }
    }
    if args.llm {
        messages = messages.into_iter().filter_map(context::to_llm).collect();
    }
    Ok((messages, effect))
}

fn leaf_id(session: &Session, plan: &Plan) -> Value {
    plan.leaf
        .and_then(|l| session.id(l))
        .map_or(Value::Null, Value::from)
}

/// One JSON object, written as a stream: `{leafId, thinkingLevel, model, messages:[...]}`.
fn write_json(
    session: &Session,
    plan: &Plan,
    args: &ContextArgs,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let json = surrogates::to_string;
    write!(out, "{{\"leafId\":{}", json(&leaf_id(session, plan)))?;
    // pi leaves an undefined thinking level out of the object.
    if let Some(level) = &plan.thinking_level {
        write!(out, ",\"thinkingLevel\":{}", json(level))?;
    }
    write!(out, ",\"model\":{},\"messages\":[", json(&plan.model))?;
    let mut first = true;
    // Unless the messages change on the way out, stored messages are copied as they are.
    let as_stored = !args.llm && args.max_tool_chars.is_none();
    for item in &plan.items {
        if as_stored {
            if let Some(text) = context::verbatim_message(session, item)? {
                if !first {
                    out.write_all(b",")?;
                }
                first = false;
                // The one JSON writer's rule for terminal controls holds here too.
                out.write_all(&pisess_format::surrogates::escape_json_line(
                    text.as_bytes(),
                ))?;
                continue;
            }
        }
        for m in messages_of(session, item, args)?.0 {
            if !first {
                out.write_all(b",")?;
            }
            first = false;
            surrogates::write(&mut *out, &m)?;
        }
    }
    out.write_all(b"]}\n")?;
    Ok(())
}

/// A one-line description of a message for the human view.
fn preview(m: Message) -> String {
    let text_of = |content: Content| -> String {
        match content {
            Content::Text(s) => s.to_owned(),
            blocks => blocks
                .blocks()
                .map(|b| match b {
                    Block::Text { .. } => b.text_str().unwrap_or("").to_owned(),
                    Block::Thinking { .. } => "[thinking]".to_owned(),
                    Block::ToolCall(call) => call.line(CallForm::Json),
                    Block::Image { mime_type, .. } => format!("[{}]", mime_type.unwrap_or("image")),
                    Block::Other { kind, .. } => format!("[{kind}]"),
                    Block::Untyped(_) => String::new(),
                })
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
        }
    };
    fn text(v: Option<&Value>) -> Option<&str> {
        v.and_then(Value::as_str)
    }
    match m.role() {
        Said::BashExecution => format!("$ {}", text(m.command()).unwrap_or("")),
        Said::BranchSummary | Said::CompactionSummary => text(m.summary()).unwrap_or("").to_owned(),
        Said::ToolResult => format!(
            "{}: {}",
            text(m.tool_name()).unwrap_or("tool"),
            text_of(m.content())
        ),
        _ => text_of(m.content()),
    }
}

/// An id cut to 8 characters, escaped for the terminal.
fn short(id: Option<&str>) -> String {
    id.map_or_else(|| "-".to_owned(), style::short_id)
}

fn write_human(
    session: &Session,
    plan: &Plan,
    args: &ContextArgs,
    theme: Theme,
    width: Option<usize>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    // pi's `{provider, modelId}` has a model change's fields.
    let (provider, model_id) = match Entry::of_kind(&EntryKind::ModelChange, &plan.model) {
        Entry::ModelChange { provider, model_id } => (provider, model_id),
        _ => (None, None),
    };
    let model = match model_id.and_then(Value::as_str) {
        Some(id) => match provider.and_then(Value::as_str) {
            Some(p) => format!("{p}/{id}"),
            None => id.to_owned(),
        },
        None => "none".to_owned(),
    };
    let thinking = plan.thinking_level.as_ref().map_or_else(
        || "unset".to_owned(),
        |t| t.as_str().map_or_else(|| t.to_string(), str::to_owned),
    );
    let leaf = leaf_id(session, plan);
    // Model, thinking level and ids come from the session: escaped like its text.
    let (model, thinking) = (
        style::escape_control(&model, false),
        style::escape_control(&thinking, false),
    );
    writeln!(
        out,
        "{}",
        theme.bold(&format!(
            "context at {} · model {model} · thinking {thinking}{}",
            leaf.as_str()
                .map_or("(empty session)".into(), |s| style::escape_control(
                    s, false
                )),
            if args.llm {
                " · provider view (--llm)"
            } else {
                ""
            }
        ))
    )?;
    if let Some(c) = plan.compaction {
        let v = session.load(c)?;
        let (tokens, kept) = match Entry::of_kind(session.kind(c), &v) {
            Entry::Compaction {
                tokens_before,
                first_kept_entry_id,
                ..
            } => (tokens_before, first_kept_entry_id),
            _ => (None, None),
        };
        let tokens = tokens.and_then(Value::as_f64).unwrap_or(0.0);
        let kept = kept.and_then(Value::as_str);
        writeln!(
            out,
            "{}",
            theme.paint(
                Role::Custom,
                &format!(
                    "── compaction {}: {} tokens summarized, {} entries of the path left out{} ──",
                    short(session.id(c)),
                    style::tokens(tokens),
                    plan.compacted_away,
                    kept.map_or_else(
                        || ", nothing kept before it".to_owned(),
                        |k| format!(", kept from {}", short(Some(k)))
                    )
                )
            )
        )?;
    }
    let (mut count, mut total_bytes, mut total_tokens) = (0usize, 0usize, 0usize);
    for item in &plan.items {
        let kind = session.kind(item.entry);
        let (messages, effect) = messages_of(session, item, args)?;
        let edit_id = item.edit.and_then(|i| session.id(i));
        if effect == Some(EditEffect::Dropped) {
            writeln!(
                out,
                "{}",
                theme.paint(
                    Role::Muted,
                    &format!(
                        "    ✗ {} {} dropped by context edit {}",
                        kind.as_str(),
                        short(session.id(item.entry)),
                        short(edit_id)
                    )
                )
            )?;
            continue;
        }
        for m in &messages {
            count += 1;
            let size = surrogates::to_string(m).len();
            let tokens = context::estimate_tokens(m);
            total_bytes += size;
            total_tokens += tokens;
            let message = Message(m);
            let role = message.role_value().and_then(Value::as_str).unwrap_or("?");
            let head = format!(
                "{count:>4}  {:<17} {}  {:>7}  ~{} tok",
                style::escape_control(role, false),
                short(session.id(item.entry)),
                style::bytes(size as u64),
                tokens
            );
            let edited = if effect == Some(EditEffect::Replaced) {
                theme.paint(
                    Role::Warn,
                    &format!("  (replaced by edit {})", short(edit_id)),
                )
            } else {
                String::new()
            };
            writeln!(out, "{}{edited}", role_color(theme, message.role(), &head))?;
            let text = preview(message);
            if args.full {
                for line in style::escape_control(&text, true).lines() {
                    writeln!(out, "      {line}")?;
                }
            } else {
                let room = width.map_or(120, |w| w.saturating_sub(6).max(20));
                // Only the words that can show (a 60 MB message is not folded whole for one
                // line): past `room`, `truncate` cuts and marks the line.
                let (mut words, mut used) = (Vec::new(), 0);
                for word in text.split_whitespace() {
                    words.push(word);
                    used += style::width(word) + 1;
                    if used > room + 1 {
                        break;
                    }
                }
                let line = style::one_line(&words.join(" "));
                writeln!(out, "      {}", style::truncate(&line, room))?;
            }
        }
    }
    writeln!(
        out,
        "{}",
        theme.bold(&format!(
            "total: {count} messages, {}, ~{} tokens (estimated as pi does: characters / 4)",
            style::bytes(total_bytes as u64),
            style::tokens(total_tokens as f64)
        ))
    )?;
    Ok(())
}

fn role_color(theme: Theme, role: Said, s: &str) -> String {
    let role = match role {
        Said::User => Role::User,
        Said::Assistant => Role::Assistant,
        Said::ToolResult | Said::BashExecution => Role::Muted,
        Said::CompactionSummary | Said::BranchSummary => Role::Custom,
        _ => Role::Plain,
    };
    theme.paint(role, s)
}
