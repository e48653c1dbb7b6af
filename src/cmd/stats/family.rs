//! A session's family for `stats` (issue 44): the session and the subagent runs found under its
//! stem folder (`pisess_store::family::runs`), each token counted once.
//!
//! pi-subagents 0.59 and later also put a run's usage on the parent's `subagent` (or `bg_wait`)
//! tool result, and a session's own figures keep it (they are pi's `/session`). In a family the
//! children's files count instead: a member's tool result takes what `family::copies::share`
//! leaves it (nothing when every child it names is a member, the reported usage of the children
//! not found, all of it when none was found). A fork child (`forks/`) starts with a copy of the
//! file it was found under: its entries that match that file's (`copies::Source`, as
//! pi-subagents rewrites them) are that file's and leave its rows. Only sessions with a stem
//! folder are read again.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use pisess_format::model::{EntryKind, EntryLine, Header, Usage};
use pisess_store::family::copies::{delegation, share, Copying, Delegation, Share, Source};
use pisess_store::family::runs::{self, Limits, Made};
use pisess_store::family::thread::PathKeys;
use pisess_store::summary::{summarize, Detail, Summary, SummaryOptions};

/// The members of a family, the session first, then its runs depth first; each member's rows
/// carry what the family total takes of its subagent tool results.
pub(crate) struct Family {
    pub members: Vec<Summary>,
    /// `(place, why)`: runs that could not be read, folders not followed, limits reached.
    pub warnings: Vec<(PathBuf, String)>,
}

impl Family {
    /// The family's usage, over every member's rows.
    pub(super) fn usage(&self) -> Usage {
        let mut total = Usage::default();
        let rows = self.members.iter().filter_map(|m| m.tally.as_deref());
        for u in rows.flat_map(|t| &t.rows).filter_map(|r| r.usage.as_ref()) {
            total.add(u);
        }
        total
    }
}

/// The family of the session at `path`; `None` when no run was found under it (its figures are
/// then its own, and it is not read again).
pub(crate) fn read(path: &Path) -> Option<Family> {
    let found = runs::find(path, Limits::default());
    let mut warnings: Vec<(PathBuf, String)> = (found.problems.iter())
        .map(|(place, problem)| (place.clone(), problem.describe()))
        .collect();
    if found.limited.is_some() {
        warnings.push((
            path.to_owned(),
            "a limit was reached: its family total counts only the subagent runs found before"
                .to_owned(),
        ));
    }
    if found.children.is_empty() {
        return None;
    }
    // File `i + 1` is child `i`; a fork child's copies of the file it was found under are that
    // file's, so that file's entries are kept to match them against.
    let under: Vec<Option<usize>> = std::iter::once(None)
        .chain(
            found
                .children
                .iter()
                .map(|c| (c.made == Made::Fork).then_some(c.parent.map_or(0, |p| p + 1))),
        )
        .collect();
    let mut sources: Vec<Option<Source>> = (0..under.len())
        .map(|i| under.contains(&Some(i)).then(Source::default))
        .collect();
    let files = std::iter::once(path.to_owned()).chain(found.children.into_iter().map(|c| c.path));
    let mut members = Vec::new();
    let mut delegations = Vec::new();
    for (i, file) in files.enumerate() {
        let mut mine: HashMap<String, Delegation> = HashMap::new();
        let mut copied: HashSet<String> = HashSet::new();
        let (done, rest) = sources.split_at_mut(i);
        let (keep, from) = (&mut rest[0], under[i].and_then(|u| done[u].as_ref()));
        let mut also = |_: &Header, e: &EntryLine| {
            observe(e, &mut mine);
            if keep.is_none() && from.is_none() {
                return;
            }
            let Ok(value) = serde_json::from_slice::<Value>(e.json) else {
                return;
            };
            if let (Some(from), Some(id)) = (from, &e.id) {
                if from.holds(&value, Copying::Rewritten) {
                    copied.insert(id.to_string());
                }
            }
            if let Some(keep) = keep.as_mut() {
                keep.add(&value);
            }
        };
        let options = SummaryOptions {
            detail: Detail::Stats,
            also: Some(&mut also),
            ..SummaryOptions::default()
        };
        match summarize(&file, options) {
            Ok(mut s) => {
                if let Some(t) = s.tally.as_deref_mut().filter(|_| !copied.is_empty()) {
                    t.rows
                        .retain(|r| !r.id.as_ref().is_some_and(|id| copied.contains(id)));
                }
                members.push(s);
                delegations.push(mine);
            }
            Err(e) if i == 0 => {
                warnings.push((file, format!("cannot read it again for its family: {e}")));
                return None;
            }
            Err(e) => warnings.push((file, format!("cannot read this subagent run: {e}"))),
        }
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut keys = PathKeys::new(&cwd);
    let in_family: HashSet<PathBuf> = members.iter().map(|m| keys.key(&m.path)).collect();
    // The child files the members' tool results name that are members, as written.
    let named: HashSet<&str> = (delegations.iter().flat_map(HashMap::values))
        .flat_map(|d| &d.children)
        .filter_map(|c| c.session_file.as_deref())
        .filter(|f| in_family.contains(&keys.key(Path::new(f))))
        .collect();
    for (member, mine) in members.iter_mut().zip(&delegations) {
        let Some(tally) = member.tally.as_deref_mut() else {
            continue;
        };
        for row in tally
            .rows
            .iter_mut()
            .filter(|r| r.role.as_str() == "toolResult")
        {
            let Some(d) = row.id.as_deref().and_then(|id| mine.get(id)) else {
                continue;
            };
            match share(d, |f| named.contains(f)) {
                Share::Whole => {}
                Share::Nothing => row.usage = None,
                Share::Children(missing) => {
                    let mut sum = Usage::default();
                    for i in missing {
                        sum.add(&reported(d.children[i].usage.as_ref()));
                    }
                    row.usage = Some(sum);
                }
            }
        }
    }
    Some(Family { members, warnings })
}

/// Keeps the delegation a tool result or slash message reports, by entry id; only those
/// entries are decoded again.
fn observe(e: &EntryLine, mine: &mut HashMap<String, Delegation>) {
    let Some(id) = &e.id else { return };
    let wanted = match e.kind {
        EntryKind::Message => (e.view.message.0.as_ref())
            .and_then(|m| m.role.get())
            .is_some_and(|r| r == "toolResult"),
        _ => false,
    };
    if !wanted {
        return;
    }
    let Ok(value) = serde_json::from_slice::<Value>(e.json) else {
        return;
    };
    if let Some(d) = delegation(&value) {
        mine.insert(id.to_string(), d);
    }
}

/// The usage pi-subagents reported for a child (`{input, output, cacheRead, cacheWrite, cost}`,
/// its `cost` a number where pi's usage has `cost.total`).
fn reported(usage: Option<&Value>) -> Usage {
    let mut usage = usage.cloned().unwrap_or(Value::Null);
    if let Some(cost) = usage.get("cost").filter(|c| c.is_number()).cloned() {
        usage["cost"] = serde_json::json!({ "total": cost });
    }
    Usage::of_value(Some(&usage))
}
