//! `pisess show`: a session's entries, one block each, or the selected stored lines verbatim.
//!
//! The selection works on the index alone (positions, types, roles, parents), so `--json` never
//! decodes an entry: it copies each selected line from the file as stored. The human view decodes
//! one entry, writes its block and drops it before the next, so memory does not grow with the
//! session's content.

mod block;
mod body;

use std::io::{Read, Write};

use anyhow::Context as _;

use crate::cli::ShowArgs;
use crate::cmd::{find_entry, open_session};
use crate::env::Env;
use crate::model::{Dialect, EntryKind};
use crate::session::Session;
use crate::style::Theme;
use crate::{Diag, Outcome, UsageError};

pub fn run(
    args: &ShowArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    if args.entry_id.is_some()
        && (args.branch || args.leaf.is_some() || !args.types.is_empty() || !args.roles.is_empty())
    {
        return Err(UsageError(
            "ENTRY_ID shows one entry: it cannot be combined with --branch, --leaf, --type or --role"
                .to_owned(),
        )
        .into());
    }
    let session = open_session(args.session.as_deref(), env, diag, stdin)?;
    let selected = select(args, &session, diag)?;
    if args.json {
        write_json(&session, &selected, !args.no_header, out)?;
    } else {
        write_human(args, env, &session, &selected, out)?;
    }
    Ok(Outcome::Done)
}

/// One block per selected entry, each decoded, written and dropped before the next.
fn write_human(
    args: &ShowArgs,
    env: &Env,
    session: &Session,
    selected: &[usize],
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let blocks = block::Blocks {
        theme: Theme {
            enabled: env.color_stdout,
        },
        full: args.full || args.entry_id.is_some(),
        tz: &env.tz,
        labels: session.labels(),
    };
    // In file order, where an entry does not continue the one before it, say where it hangs:
    // that is how branches, new roots and orphans show in a flat listing.
    let file_order = args.entry_id.is_none()
        && !args.branch
        && args.leaf.is_none()
        && args.types.is_empty()
        && args.roles.is_empty();
    for (k, &i) in selected.iter().enumerate() {
        if k > 0 {
            out.write_all(b"\n")?;
        }
        let previous = k.checked_sub(1).map(|p| selected[p]);
        let note = if file_order {
            parent_note(session, i, previous)
        } else {
            None
        };
        let entry = session
            .load(i)
            .with_context(|| format!("{}:{}", session.name, session.entries[i].line))?;
        blocks.write(&session.entries[i], &entry, note.as_deref(), out)?;
    }
    Ok(())
}

/// `parent a1b2c3d4`, `new root` or `parent 0badc0de (not in the file)` when entry `i` does
/// not follow `previous`.
fn parent_note(session: &Session, i: usize, previous: Option<usize>) -> Option<String> {
    let parent = session.entries[i].parent.as_deref();
    let previous_id = previous.and_then(|p| session.entries[p].id.as_deref());
    match parent {
        Some(p) if session.find(p).is_none() => {
            Some(format!("parent {} (not in the file)", block::short_id(p)))
        }
        Some(p) if Some(p) != previous_id => Some(format!("parent {}", block::short_id(p))),
        None if previous.is_some() => Some("new root".to_owned()),
        _ => None,
    }
}

/// The entries to show, in order: positions in `session.entries`.
fn select(args: &ShowArgs, session: &Session, diag: &mut Diag) -> anyhow::Result<Vec<usize>> {
    if let Some(id) = &args.entry_id {
        return Ok(vec![find_entry(session, id)?]);
    }
    let leaf = match (&args.leaf, args.branch) {
        (Some(id), _) => Some(find_entry(session, id)?),
        (None, true) => match session.leaf() {
            Some(leaf) => Some(leaf),
            // An empty session has no branch: nothing to show.
            None => return Ok(Vec::new()),
        },
        (None, false) => None,
    };
    let candidates: Vec<usize> = match leaf {
        Some(leaf) => {
            let (path, cycle) = session.path_to(leaf);
            if let Some(id) = cycle {
                let line = session.find(&id).map(|i| session.entries[i].line);
                diag.warn(
                    &session.name,
                    line,
                    &format!("parent cycle through entry {id}; the branch starts where it closes"),
                );
            }
            path
        }
        None => (0..session.entries.len()).collect(),
    };
    Ok(candidates
        .into_iter()
        .filter(|&i| wanted(args, session, i))
        .collect())
}

/// `--type` and `--role`: each repeatable (any of), both together (all of).
fn wanted(args: &ShowArgs, session: &Session, i: usize) -> bool {
    let e = &session.entries[i];
    let type_ok = args.types.is_empty() || args.types.iter().any(|t| t == e.kind.as_str());
    let role_ok = args.roles.is_empty()
        || (e.kind == EntryKind::Message
            && e.role.as_deref().is_some_and(|role| {
                args.roles
                    .iter()
                    .any(|r| r == role || r == migrated_role(session, role))
            }));
    type_ok && role_ok
}

/// The index keeps roles as stored; pi reads v1/v2 `hookMessage` as `custom`, and so does
/// `--role custom` (the stored name matches too).
fn migrated_role<'a>(session: &Session, role: &'a str) -> &'a str {
    let h = &session.header;
    if role == "hookMessage" && h.dialect == Dialect::Pi && h.version < 3 {
        "custom"
    } else {
        role
    }
}

/// The stored lines, byte for byte (CRLF kept); a last line without `\n` gets one, so the
/// output is always NDJSON.
fn write_json(
    session: &Session,
    selected: &[usize],
    header: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut write_line = |bytes: Vec<u8>| -> std::io::Result<()> {
        out.write_all(&bytes)?;
        if bytes.last() != Some(&b'\n') {
            out.write_all(b"\n")?;
        }
        Ok(())
    };
    if header {
        let bytes = session
            .stored_header()
            .with_context(|| format!("{}:{}", session.name, session.header_line))?;
        write_line(bytes)?;
    }
    for &i in selected {
        let bytes = session
            .stored_line(i)
            .with_context(|| format!("{}:{}", session.name, session.entries[i].line))?;
        write_line(bytes)?;
    }
    Ok(())
}
