//! The subagent runs an exported branch started, read to be shown inline (issue 44): each run
//! under the item whose call (or `/run` message) started it (`cmd::started` ties them), as a
//! transcript of its own built by the same code, its own runs nested in turn.
//!
//! Read in two steps so that `--redact` knows every secret before any text is built: [`load`]
//! opens the runs, [`Loaded::entries`] gives their entries to the secrets pass, [`attach`]
//! builds their transcripts.

use pisess_format::model::{Entry, Message, Role};
use serde_json::Value;

use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::cmd::started::{Run, Started};
use crate::views::export::transcript::{self, Subagent, Transcript};
use crate::views::export::Redact;
use pisess_store::session::Session;

/// Runs nested deeper than this are not read: `family::runs` reads four levels.
const MAX_DEPTH: u32 = 4;

/// A run opened, with the branch to show (root to its leaf) and its own runs.
pub(crate) struct Loaded {
    /// The parent's item it goes in ([`transcript::Item::id`]).
    item_id: String,
    run: Run,
    session: Session,
    path: Vec<usize>,
    runs: Vec<Loaded>,
}

/// The runs the entries of `path` started, opened, nested as far as [`MAX_DEPTH`]. A run that
/// cannot be read is a warning (named by `name`, the redacted path) and left out.
pub(crate) fn load(
    session: &Session,
    path: &[usize],
    env: &Env,
    diag: &mut Diag,
    name: &dyn Fn(&str) -> String,
    depth: u32,
) -> Vec<Loaded> {
    if depth >= MAX_DEPTH {
        return Vec::new();
    }
    let started = Started::of(session, env);
    if started.by_entry.is_empty() {
        return Vec::new();
    }
    let mut at: Vec<(usize, &Vec<Run>)> = started.by_entry.iter().map(|(&i, r)| (i, r)).collect();
    at.sort_by_key(|&(i, _)| i);
    let mut loaded = Vec::new();
    for (i, runs) in at {
        // Only what the exported branch holds.
        let Some(on_path) = path.iter().position(|&p| p == i) else {
            continue;
        };
        let item_id = item_of(session, &path[..=on_path]);
        for run in runs {
            let opened = Session::open(&run.path, Default::default());
            let child = match opened {
                Ok(child) => child,
                Err(e) => {
                    let shown = name(&run.path.display().to_string());
                    diag.warn(&shown, None, &format!("subagent run not shown: {e:#}"));
                    continue;
                }
            };
            let child_path = child.leaf().map_or(Vec::new(), |l| child.path_to(l).0);
            let runs = load(&child, &child_path, env, diag, name, depth + 1);
            loaded.push(Loaded {
                item_id: item_id.clone(),
                run: run.clone(),
                session: child,
                path: child_path,
                runs,
            });
        }
    }
    loaded
}

/// The id of the item entry `path.last()` shows in: the assistant message holding the call a
/// tool result answers (the transcript puts a result under its call), else its own.
fn item_of(session: &Session, path: &[usize]) -> String {
    let Some((&i, before)) = path.split_last() else {
        return String::new();
    };
    let own = || session.id(i).unwrap_or("").to_owned();
    let Ok(entry) = session.load(i) else {
        return own();
    };
    let Entry::Message(Some(m)) = Entry::of_kind(session.kind(i), &entry) else {
        return own();
    };
    let Some(call) = (m.role() == Role::ToolResult)
        .then(|| m.tool_call_id().and_then(Value::as_str))
        .flatten()
    else {
        return own();
    };
    // The latest message before it that holds the call, as the transcript pairs them.
    for &p in before.iter().rev() {
        if session.role(p) != Some("assistant") {
            continue;
        }
        let Ok(holder) = session.load(p) else {
            continue;
        };
        let message = Entry::of_kind(session.kind(p), &holder).message();
        let holds = message.is_some_and(|m: Message<'_>| {
            m.tool_calls()
                .any(|c| c.id.and_then(Value::as_str) == Some(call))
        });
        if holds {
            return session.id(p).unwrap_or("").to_owned();
        }
    }
    own()
}

impl Loaded {
    /// Every entry of every run shown (for the secrets `--redact` takes out), depth first.
    pub(crate) fn entries(runs: &[Loaded], each: &mut dyn FnMut(&Value)) -> anyhow::Result<()> {
        for r in runs {
            for &i in &r.path {
                each(&r.session.load(i)?);
            }
            Loaded::entries(&r.runs, each)?;
        }
        Ok(())
    }
}

/// Builds each run's transcript into `t.runs`, its anchors made unique on the page (`r<n>-`
/// before each: a run's entry ids are its own, and may be its parent's too).
pub(crate) fn attach(
    t: &mut Transcript,
    runs: &[Loaded],
    cwd: &str,
    redact: &dyn Redact,
    counter: &mut usize,
) -> anyhow::Result<()> {
    for r in runs {
        *counter += 1;
        let mut rt = transcript::build(&r.session, &r.path, cwd, redact)?;
        for item in &mut rt.items {
            item.anchor = format!("r{}-{}", *counter, item.anchor);
        }
        attach(&mut rt, &r.runs, cwd, redact, counter)?;
        let title = format!("{} · {}", redact.text(&r.run.describe()), rt.title);
        t.runs.push(Subagent {
            item_id: r.item_id.clone(),
            title,
            transcript: rt,
        });
    }
    Ok(())
}
