//! Which entry of a session started each of its subagent runs (issue 44), for `tree`, `show`
//! and `export`: a run is found by its place (`family::runs`), and tied to the entry that
//! reports it, where pi-subagents itself reads one (`family::copies::delegation`: the
//! `subagent`/`bg_wait` tool result, or the `subagent-slash-result` custom message).
//!
//! A child is tied by the `details.results[].sessionFile` the entry names (both paths made
//! canonical), else, for a store that was moved, by the `runId` folder and `run-<n>` index the
//! entry names. A child is the first naming entry's (pi-subagents writes a slash command's
//! message twice, running then final; an async run's `bg_wait` names it again). Runs no entry
//! names, and a run's own runs, are not tied: `ls --tree` shows them.
//!
//! Nothing is read unless the session's stem folder holds runs: a session without one costs an
//! `lstat`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::app::env::Env;
use crate::views::ids::ShortIds;
use pisess_format::model::{EntryKind, Role};
use pisess_format::scan::read_header;
use pisess_store::family::copies::delegation;
use pisess_store::family::runs::{self, Child, Limits, Made};
use pisess_store::session::Session;

/// A run an entry started.
#[derive(Debug, Clone)]
pub struct Run {
    pub path: PathBuf,
    /// Its header's id; `None` when its header could not be read.
    pub session_id: Option<String>,
    /// The id cut as every command prints one, told apart from the store's ids and the
    /// family's: `pisess show <short>` opens the run (the lookup reads runs when no listed
    /// session matches).
    pub short: Option<String>,
    pub made: Made,
}

impl Run {
    /// How a person opens it: the short id, or the path when the header is unreadable.
    pub fn handle(&self) -> String {
        self.short
            .clone()
            .unwrap_or_else(|| self.path.display().to_string())
    }

    /// `subagent run 0193ab12`: what a row or a block says of it.
    pub fn describe(&self) -> String {
        let what = match self.made {
            Made::Run => "subagent run",
            Made::Fork => "subagent fork",
            Made::Async => "background subagent run",
        };
        format!("{what} {}", self.handle())
    }
}

/// The runs each entry started, by entry position.
#[derive(Debug, Default)]
pub struct Started {
    pub by_entry: HashMap<usize, Vec<Run>>,
}

impl Started {
    /// The runs of `session` (read from a file named `session.name`), each tied to the entry
    /// that started it. Empty for a stream and for a session without runs.
    pub fn of(session: &Session, env: &Env) -> Started {
        if session.name == "-" {
            return Started::default();
        }
        let found = runs::find(Path::new(&session.name), Limits::default());
        // A run's own runs are tied to its entries, not to the session's.
        let children: Vec<&Child> = found
            .children
            .iter()
            .filter(|c| c.parent.is_none())
            .collect();
        if children.is_empty() {
            return Started::default();
        }
        let canonical: Vec<Option<PathBuf>> = children
            .iter()
            .map(|c| std::fs::canonicalize(&c.path).ok())
            .collect();
        let mut taken = vec![false; children.len()];
        let mut tied: Vec<(usize, usize)> = Vec::new();
        for i in 0..session.entries.len() {
            let maybe = match session.kind(i) {
                EntryKind::Message => session.role(i).map(Role::parse) == Some(Role::ToolResult),
                EntryKind::CustomMessage => true,
                _ => false,
            };
            if !maybe {
                continue;
            }
            let Some(d) = session.load(i).ok().as_ref().and_then(delegation) else {
                continue;
            };
            for named in &d.children {
                let by_file = named.session_file.as_deref().and_then(|f| {
                    let f = std::fs::canonicalize(f).ok()?;
                    canonical.iter().position(|c| c.as_ref() == Some(&f))
                });
                let by_place = || {
                    children.iter().position(|c| {
                        c.made == Made::Run
                            && c.run_id.is_some()
                            && c.run_id == d.run_id
                            && c.index.map(u64::from) == named.index
                    })
                };
                if let Some(k) = by_file.or_else(by_place) {
                    if !taken[k] {
                        taken[k] = true;
                        tied.push((i, k));
                    }
                }
            }
        }
        if tied.is_empty() {
            return Started::default();
        }
        let ids: Vec<Option<String>> = children
            .iter()
            .map(|c| read_header(&c.path).ok().map(|h| h.id))
            .collect();
        let store = env.location.ids_by_name();
        let short_ids = ShortIds::new(
            (store.iter().map(String::as_str))
                .chain(std::iter::once(session.header.id.as_str()))
                .chain(ids.iter().flatten().map(String::as_str)),
        );
        let mut started = Started::default();
        for (i, k) in tied {
            let run = Run {
                path: children[k].path.clone(),
                short: ids[k].as_deref().map(|id| short_ids.short(id)),
                session_id: ids[k].clone(),
                made: children[k].made,
            };
            started.by_entry.entry(i).or_default().push(run);
        }
        started
    }

    pub fn at(&self, i: usize) -> &[Run] {
        self.by_entry.get(&i).map_or(&[], Vec::as_slice)
    }

    /// What a row says of the runs entry `i` started, `None` when it started none.
    pub fn note(&self, i: usize) -> Option<String> {
        let runs = self.at(i);
        (!runs.is_empty()).then(|| {
            let named: Vec<String> = runs.iter().map(Run::describe).collect();
            format!("⤷ {}", named.join(", "))
        })
    }
}
