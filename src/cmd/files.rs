//! `pisess files`: the files a run read, wrote and edited, from the path arguments of pi's
//! built-in `read`, `write` and `edit` tools, one file under each spelling
//! ([`crate::views::paths::normal`] against the session's cwd), with counts per kind and how
//! many of those calls failed (their tool result's `isError`).
//!
//! `bash` commands are not read: a shell command's paths are never certain (a `cd` before,
//! globs, variables, quoting, redirections), and a path this command names is one the run
//! surely touched. Only message entries that may hold a call or its result are decoded.

use std::collections::BTreeMap;
use std::io::{Read, Write};

use serde::Serialize;
use serde_json::Value;

use crate::app::cli::FilesArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::cmd::open_selected;
use crate::views::style::{self, Theme};
pub use crate::views::touches::{Counts, Touches};
use pisess_format::model::{Dialect, Entry, EntryKind, Role};
use pisess_format::surrogates;
use pisess_store::session::Session;

/// One `--json` row.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Row<'a> {
    session_id: &'a str,
    path: &'a str,
    reads: u64,
    writes: u64,
    edits: u64,
    errors: u64,
}

pub fn run(
    args: &FilesArgs,
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
    let order: Vec<usize> = if args.branch {
        match session.leaf() {
            Some(leaf) => {
                let (path, cycle) = session.path_to(leaf);
                if let Some(id) = &cycle {
                    super::warn_cycle(diag, &session, id);
                }
                path
            }
            None => Vec::new(),
        }
    } else {
        (0..session.entries.len()).collect()
    };
    let files = touched(&session, &order)?;
    if args.json {
        for (path, c) in &files {
            let row = Row {
                session_id: &session.header.id,
                path,
                reads: c.reads,
                writes: c.writes,
                edits: c.edits,
                errors: c.errors,
            };
            surrogates::write(&mut *out, &row)?;
            out.write_all(b"\n")?;
        }
    } else {
        write_human(&files, env.theme(), env.width, out)?;
    }
    Ok(Outcome::Done)
}

/// The files the calls of entries `order` named (in that order, so a result follows its call),
/// by their one spelling.
pub fn touched(session: &Session, order: &[usize]) -> anyhow::Result<BTreeMap<String, Counts>> {
    let cwd = session.header.cwd.as_deref().unwrap_or("");
    let mut touches = Touches::default();
    let seed000 = session.header.dialect == Dialect::Seed000;
    for &i in order {
        let role = session.role(i);
        let holds_calls =
            matches!(role, Some("assistant" | "toolResult")) || (seed000 && role == Some("user"));
        if *session.kind(i) != EntryKind::Message || !holds_calls {
            continue;
        }
        // Of a result only its call's id and `isError` are read: its output (most of a
        // session's bytes) is left undecoded. Seed 000's results are in user messages.
        let value = if role == Some("toolResult") && !seed000 {
            session.decode_entry(i, &session.line_without_content(i)?)?
        } else {
            session.load(i)?
        };
        let Some(message) = Entry::of_kind(&EntryKind::Message, &value).message() else {
            continue;
        };
        match message.role() {
            Role::Assistant => {
                for call in message.tool_calls() {
                    touches.call(call, cwd);
                }
            }
            Role::ToolResult => touches.result(
                message.tool_call_id().and_then(Value::as_str),
                message.is_error() == Some(&Value::Bool(true)),
            ),
            // Seed 000 also answers calls in a user message's `tool_result` blocks (as `stats`
            // and `check` count them); the typed model keeps such blocks as stored.
            Role::User if seed000 => {
                for (id, failed) in message.content().seed000_results() {
                    touches.result(id.and_then(Value::as_str), failed);
                }
            }
            _ => {}
        }
    }
    Ok(touches.files)
}

/// One row per file: its counts, then its path (escaped, cut from the left to the terminal's
/// width, where the file's name is).
fn write_human(
    files: &BTreeMap<String, Counts>,
    theme: Theme,
    width: Option<usize>,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    const LEAD: &str = "reads writes edits errors  ";
    writeln!(out, "{}", theme.bold(&format!("{LEAD}path")))?;
    for (path, c) in files {
        let shown = style::escape_control(path, false);
        let room = width.map_or(usize::MAX, |w| w.saturating_sub(LEAD.len()).max(8));
        writeln!(
            out,
            "{:>5} {:>6} {:>5} {:>6}  {}",
            c.reads,
            c.writes,
            c.edits,
            c.errors,
            style::truncate_left(&shown, room)
        )?;
    }
    Ok(())
}
