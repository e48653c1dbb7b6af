//! `pisess show`: a session's entries, one block each, or the selected stored lines verbatim.
//!
//! The selection works on the index alone (positions, types, roles, parents), so `--json` never
//! decodes an entry: it copies each selected line from the file as stored. The human view decodes
//! one entry, writes its block and drops it before the next, so memory does not grow with the
//! session's content.

mod block;
mod body;
mod entry;
mod errors;
mod follow;
mod limits;
mod shorten;

use std::io::{self, Read, Write};
use std::ops::ControlFlow;

use crate::app::cli::ShowArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::cmd::{entry_wanted, find_entry, open_selected};
use crate::views::style::{self, IdCut};
use entry::{decode_for_block, write_line};
use pisess_format::model::EntryLine;
use pisess_format::model::Header;
use pisess_format::scan::{open_named, Input};
use pisess_format::util::warning::Warn;
use pisess_store::select::Selected;
use pisess_store::session::{self, Session};
use pisess_store::util::usage::UsageError;

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
    super::warn_unknown_types(&args.types, diag);
    if args.follow {
        return follow::run(args, env, out, diag, stdin);
    }
    if args.json && args.entry_id.is_none() && !args.branch && args.leaf.is_none() {
        stream_json(args, env, out, diag, stdin)?;
        return Ok(Outcome::Done);
    }
    let session = open_selected(
        args.session.as_deref(),
        env,
        diag,
        stdin,
        Default::default(),
    )?;
    if args.errors {
        errors::write(&session, env, out, diag)?;
        return Ok(Outcome::Done);
    }
    let selected = select(args, &session, diag)?;
    if args.json {
        write_json(&session, &selected, !args.no_header, env.stdout_tty, out)?;
    } else {
        write_human(args, env, &session, &selected, out)?;
    }
    Ok(Outcome::Done)
}

/// One block per selected entry, each decoded, rendered and dropped: a chunk of entries at a
/// time on each core, the chunks written in order.
fn write_human(
    args: &ShowArgs,
    env: &Env,
    session: &Session,
    selected: &[usize],
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let blocks = block::Blocks {
        theme: env.theme(),
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
    // Blocks are made on every core and written in order, a chunk's share reckoned by what
    // its blocks write: with `--full` about their entries' stored bytes, else a few KB at most.
    let started = crate::cmd::started::Started::of(session, env);
    let weight = |&(_, i): &(usize, usize)| {
        let stored = session.entries[i].stored_len() as usize;
        if blocks.full {
            stored
        } else {
            stored.min(4096)
        }
    };
    let write = |&(k, i): &(usize, usize), _: &mut (), out: &mut Vec<u8>| {
        if k > 0 {
            out.push(b'\n');
        }
        let previous = k.checked_sub(1).map(|p| selected[p]);
        let note = if file_order {
            let in_file = |p: &str| session.find(p).is_some();
            parent_note(
                session.parent_id(i),
                in_file,
                previous.map(|p| session.id(p)),
            )
        } else {
            None
        };
        // The runs it started, after where it hangs: `pisess show <short id>` opens each.
        let note = match (note, started.note(i)) {
            (Some(a), Some(b)) => Some(format!("{a}  {b}")),
            (a, b) => a.or(b),
        };
        let (entry, cuts) = decode_for_block(session, i, blocks.full)?;
        blocks.write(session, i, (&entry, &cuts), note.as_deref(), out)?;
        Ok(())
    };
    let items = selected.iter().copied().enumerate();
    pisess_store::util::parallel::write_in_order(items, weight, out, write)
}

/// `parent a1b2c3d4`, `new root` or `parent 0badc0de (not in the file)` when an entry of
/// `parent` does not follow the entry shown before it (`previous`: its id, if any).
fn parent_note(
    parent: Option<&str>,
    in_file: impl Fn(&str) -> bool,
    previous: Option<Option<&str>>,
) -> Option<String> {
    match parent {
        Some(p) if !in_file(p) => Some(format!(
            "parent {} (not in the file)",
            style::shown_id(p, IdCut::Typed)
        )),
        Some(p) if Some(p) != previous.flatten() => {
            Some(format!("parent {}", style::shown_id(p, IdCut::Typed)))
        }
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
                super::warn_cycle(diag, session, &id);
            }
            path
        }
        None => (0..session.entries.len()).collect(),
    };
    Ok(candidates
        .into_iter()
        .filter(|&i| {
            entry_wanted(
                &args.types,
                &args.roles,
                &session.header,
                session.kind(i),
                session.role(i),
            )
        })
        .collect())
}

/// The selected stored lines (see [`write_line`]).
fn write_json(
    session: &Session,
    selected: &[usize],
    header: bool,
    terminal: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    if header {
        write_line(out, &session.header.stored, terminal)?;
    }
    for &i in selected {
        let bytes = session.stored_line(i)?;
        write_line(out, &bytes, terminal)?;
    }
    Ok(())
}

/// `--json` in file order (all entries, or those `--type`/`--role` keep): each line is copied
/// as the scan reads it, header first, so the file is read once and no index is built. The
/// same lines and warnings as [`write_json`]; the warnings come after the output.
fn stream_json(
    args: &ShowArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<()> {
    let selected = crate::cmd::selected(args.session.as_deref(), env)?;
    let (opened, name) = match &selected {
        Selected::Stdin => {
            pisess_format::scan::Input::stdin_allowed(env.stdin_device)?;
            (None, "-".to_owned())
        }
        Selected::File(path) => (Some(path.as_path()), path.display().to_string()),
    };
    let mut header_done = args.no_header;
    let mut failed = None;
    let mut copy = |header: &Header, e: &EntryLine| -> io::Result<()> {
        if !header_done {
            write_line(out, &header.stored, env.stdout_tty)?;
            header_done = true;
        }
        let role = e.view.message.0.as_ref().and_then(|m| m.role.get());
        if entry_wanted(&args.types, &args.roles, header, &e.kind, role) {
            write_line(out, e.stored, env.stdout_tty)?;
        }
        Ok(())
    };
    let scanned = opened.map(open_named).transpose().and_then(|opened| {
        let input = match &opened {
            Some(opened) => Input::File(opened),
            None => Input::Stream(stdin, "-"),
        };
        session::stream(input, |header, e| match copy(header, e) {
            Ok(()) => ControlFlow::Continue(()),
            Err(err) => {
                failed = Some(err);
                ControlFlow::Break(())
            }
        })
    });
    let report = match (scanned, &selected) {
        (Ok(report), _) => report,
        (Err(e), Selected::Stdin) => return Err(anyhow::Error::new(e).context("<stdin>")),
        (Err(e), Selected::File(_)) => return Err(anyhow::Error::new(e).context(name)),
    };
    diag.session_warnings(&name, &report.warnings);
    if let Some(err) = failed {
        return Err(err.into());
    }
    if !header_done {
        write_line(out, &report.header.stored, env.stdout_tty)?;
    }
    Ok(())
}
