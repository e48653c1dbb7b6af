//! `show --errors`: each failed tool call (a tool result with `isError`), with the call that
//! made it and the first line of its output: what went wrong in a session, without reading it.

use std::collections::HashMap;
use std::io::Write;

use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::views::check::failed_calls;
use crate::views::style::{self, Role};
use pisess_format::model::content::CallForm;
use pisess_format::model::{message_call_facts, Entry, EntryKind, Role as PiRole};
use pisess_store::session::Session;

/// Columns of a call's line.
const CALL_WIDTH: usize = 120;

pub(super) fn write(
    session: &Session,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
) -> anyhow::Result<()> {
    let (failed, _) = failed_calls(session, &|s: &str| s.to_owned(), usize::MAX);
    if failed.is_empty() {
        // Silence would read as "nothing to see" and as "did not look" alike.
        diag.note("no tool result reports an error");
        return Ok(());
    }
    let calls = calls_by_id(session);
    let theme = env.theme();
    let esc = |s: &str| style::escape_control(s, false).into_owned();
    for (k, e) in failed.iter().enumerate() {
        if k > 0 {
            writeln!(out)?;
        }
        let entry = e.entry.as_deref().unwrap_or("-");
        writeln!(
            out,
            "{}:{}  {}  entry {}",
            esc(&session.name),
            e.line,
            theme.bold(&e.tool),
            theme.paint(Role::Id, entry)
        )?;
        let call = e.call_id.as_deref().and_then(|id| calls.get(id));
        match call {
            Some((line, at)) => writeln!(out, "  call   {line}  (entry {at})")?,
            None => writeln!(out, "  call   {}", theme.dim("(not in the file)"))?,
        }
        writeln!(out, "  error  {}", theme.paint(Role::Error, &e.text))?;
    }
    Ok(())
}

/// Each tool call of the file by its id: the call on one line (as `show` prints it), and the
/// id of the entry that made it. Only lines that hold a call are decoded.
fn calls_by_id(session: &Session) -> HashMap<String, (String, String)> {
    let mut calls = HashMap::new();
    for i in 0..session.entries.len() {
        let role = session.role(i).map(PiRole::parse);
        if *session.kind(i) != EntryKind::Message || role != Some(PiRole::Assistant) {
            continue;
        }
        if !session
            .raw_line(i)
            .is_ok_and(|line| message_call_facts(&line).tool_calls > 0)
        {
            continue;
        }
        let Ok(value) = session.load(i) else {
            continue;
        };
        let Some(message) = Entry::of_kind(session.kind(i), &value).message() else {
            continue;
        };
        let at = style::one_line(session.id(i).unwrap_or("-"));
        for call in message.tool_calls() {
            let Some(id) = call.id.and_then(|v| v.as_str()) else {
                continue;
            };
            let line = style::one_line(&call.line(CallForm::Keys));
            let line = style::truncate(&line, CALL_WIDTH).into_owned();
            calls.entry(id.to_owned()).or_insert((line, at.clone()));
        }
    }
    calls
}
