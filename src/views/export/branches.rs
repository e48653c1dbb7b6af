//! The session's tree as the page lists it: every branch other than the exported one, by
//! where it leaves the exported branch, its first message and its cost, so a reader sees what
//! else the run tried. One walk down from the exported branch: each entry off it is read once,
//! whatever the number of leaves.

use pisess_format::model::{Dialect, Entry, EntryKind, Role, Usage};
use pisess_store::session::Session;

use super::Redact;

/// A branch off the exported one.
#[derive(Debug)]
pub struct Branch {
    /// Its leaf's id (through the redaction hook).
    pub leaf: String,
    /// The entry of the exported branch it leaves from (its index in the session), `None`
    /// when it starts at a root of its own.
    pub fork: Option<usize>,
    /// The anchor on the page nearest before the fork (the fork itself when it is shown).
    pub fork_anchor: Option<String>,
    /// Its first user message past the fork, on one line (else empty).
    pub first: String,
    /// pi's cost of its assistant messages past the fork.
    pub cost: f64,
    /// Its messages past the fork.
    pub messages: usize,
}

/// At most this many branches are listed (the page says how many more there are).
pub const MAX_LISTED: usize = 200;

/// The branches that end at a leaf off `path` and hold a message past where they leave it,
/// in file order of their leaves; and how many more there are past [`MAX_LISTED`].
pub fn others(
    session: &Session,
    path: &[usize],
    redact: &dyn Redact,
) -> anyhow::Result<(Vec<Branch>, usize)> {
    others_as(session, path, redact, true)
}

/// [`others_as`] on a thread of its own while `meanwhile` runs on this one (the branch's
/// decode): listed after it, the other branches were 8% of the calling thread's instructions
/// (a 40 MB session of issue 48's generator) with the other core idle. Where no thread can
/// be made, listed after `meanwhile`.
pub(super) fn others_meanwhile(
    session: &Session,
    path: &[usize],
    redact: &dyn Redact,
    typed: bool,
    meanwhile: impl FnOnce(),
) -> anyhow::Result<(Vec<Branch>, usize)> {
    let others = || others_as(session, path, redact, typed);
    std::thread::scope(|scope| {
        // A line may nest as deep as pisess reads.
        let listing = std::thread::Builder::new()
            .stack_size(pisess_store::util::stack::SIZE)
            .spawn_scoped(scope, others);
        meanwhile();
        match listing {
            // A panic on the thread is a bug: raise it here.
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            Err(_) => others(),
        }
    })
}

/// [`others`], its messages' roles and costs read typed ([`lean_typed`]) or, with `typed`
/// false, every message as a `Value` (the reading the tests hold the typed one to).
pub(super) fn others_as(
    session: &Session,
    path: &[usize],
    redact: &dyn Redact,
    typed: bool,
) -> anyhow::Result<(Vec<Branch>, usize)> {
    let n = session.entries.len();
    let mut on_path = vec![false; n];
    for &i in path {
        on_path[i] = true;
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut starts = Vec::new();
    for i in 0..n {
        if on_path[i] {
            continue;
        }
        match session.parent_of(i) {
            Some(p) if !on_path[p] => children[p].push(i),
            fork => starts.push((i, fork)),
        }
    }
    // What the walk carries down: the fork, the first user message, cost and messages so far.
    struct Down {
        fork: Option<usize>,
        first: Option<String>,
        cost: f64,
        messages: usize,
    }
    let mut found: Vec<(usize, Branch)> = Vec::new();
    let mut more = 0;
    let mut stack: Vec<(usize, std::rc::Rc<Down>)> = Vec::new();
    let mut seen = vec![false; n];
    for (start, fork) in starts {
        stack.push((
            start,
            std::rc::Rc::new(Down {
                fork,
                first: None,
                cost: 0.0,
                messages: 0,
            }),
        ));
        while let Some((i, up)) = stack.pop() {
            // A parent cycle off the branch is walked once.
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            let mut here = None;
            let lean = match *session.kind(i) == EntryKind::Message && typed {
                true => lean_typed(session, i, up.first.is_none())?,
                false => None,
            };
            if let Some(m) = lean {
                let mut down = Down {
                    fork: up.fork,
                    first: up.first.clone(),
                    cost: up.cost,
                    messages: up.messages + 1,
                };
                if m.role == super::decode::Role::Assistant {
                    down.cost += Usage::of_value(m.usage.as_ref()).cost;
                }
                here = Some(std::rc::Rc::new(down));
            } else if *session.kind(i) == EntryKind::Message {
                let entry = message_of(session, i, up.first.is_none())?;
                if let Entry::Message(Some(m)) = Entry::of_kind(session.kind(i), &entry) {
                    let mut down = Down {
                        fork: up.fork,
                        first: up.first.clone(),
                        cost: up.cost,
                        messages: up.messages + 1,
                    };
                    match m.role() {
                        Role::User if down.first.is_none() => {
                            let text = m.content().blocks().find_map(|b| match b {
                                pisess_format::model::content::Block::Text { text } => {
                                    text.and_then(serde_json::Value::as_str).map(str::to_owned)
                                }
                                _ => None,
                            });
                            let text = match m.content() {
                                pisess_format::model::content::Content::Text(s) => {
                                    Some(s.to_owned())
                                }
                                _ => text,
                            };
                            down.first = text
                                .map(|t| super::transcript::one_line(&t, 80))
                                .filter(|t| !t.is_empty());
                        }
                        Role::Assistant => down.cost += Usage::of_value(m.usage()).cost,
                        _ => {}
                    }
                    here = Some(std::rc::Rc::new(down));
                }
            }
            let down = here.unwrap_or(up);
            if children[i].is_empty() {
                if down.messages > 0 {
                    if found.len() == MAX_LISTED {
                        more += 1;
                        continue;
                    }
                    let first = down.first.as_deref().unwrap_or("");
                    found.push((
                        i,
                        Branch {
                            leaf: redact.text(session.id(i).unwrap_or("")).into_owned(),
                            fork: down.fork,
                            fork_anchor: None,
                            first: redact
                                .text(&pisess_format::surrogates::for_display(first))
                                .into_owned(),
                            cost: down.cost,
                            messages: down.messages,
                        },
                    ));
                }
                continue;
            }
            for &c in children[i].iter().rev() {
                stack.push((c, down.clone()));
            }
        }
    }
    found.sort_by_key(|(i, _)| *i);
    Ok((found.into_iter().map(|(_, b)| b).collect(), more))
}

/// Message entry `i` read typed without its content ([`super::decode::message`]) where the
/// walk needs only its role and cost: not a user message while the branch's first is wanted,
/// not seed 000; `None` where the `Value` reading must decide ([`message_of`]).
fn lean_typed(
    session: &Session,
    i: usize,
    first_wanted: bool,
) -> anyhow::Result<Option<super::decode::Message>> {
    if session.header.dialect != Dialect::Pi {
        return Ok(None);
    }
    let lean = session.line_without_content(i)?;
    Ok(super::decode::message(&lean)
        .filter(|m| !(first_wanted && m.role == super::decode::Role::User)))
}

/// Message entry `i` as the walk reads it: without its content (past a branch's first user
/// message only roles and costs count, and a tool output off the branch may be megabytes:
/// issue 48's time budget), but whole when it is a user message and the branch's first one
/// is still wanted (`first_wanted`). A seed-000 file is read whole: its entries are reshaped
/// from their other fields.
fn message_of(
    session: &Session,
    i: usize,
    first_wanted: bool,
) -> anyhow::Result<serde_json::Value> {
    if session.header.dialect == Dialect::Seed000 {
        return Ok(session.load(i)?);
    }
    let lean = session.decode_entry(i, &session.line_without_content(i)?)?;
    let user = matches!(
        Entry::of_kind(session.kind(i), &lean),
        Entry::Message(Some(m)) if m.role() == Role::User
    );
    if first_wanted && user {
        return Ok(session.load(i)?);
    }
    Ok(lean)
}
