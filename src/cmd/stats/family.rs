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
use std::sync::OnceLock;

use serde_json::Value;

use pisess_format::model::{EntryKind, EntryLine, Header, Usage};
use pisess_store::cache::families::{ChildId, Context, Edit, FamilyCache, Listed, Making};
use pisess_store::cache::runs::{RunCache, Walked};
use pisess_store::cache::CacheDir;
use pisess_store::family::chains::{Chains, Up};
use pisess_store::family::copies::{delegation, share, Copying, Delegation, Share, Source};
use pisess_store::family::runs::{self, Limits, Made};
use pisess_store::family::thread::PathKeys;
use pisess_store::listing::{self, Scope};
use pisess_store::locate::Location;
use pisess_store::summary::{summarize, Detail, Summary, SummaryOptions};
use pisess_store::tally::Row;

/// The members of a family, the session first, then its runs depth first; each member's rows
/// carry what the family total takes of its subagent tool results.
pub(crate) struct Family {
    pub members: Vec<Summary>,
    /// `(place, why)`: runs that could not be read, folders not followed, limits reached.
    pub warnings: Vec<(PathBuf, String)>,
    /// Some run could not be read: what was made of the others is not remembered.
    pub failed: bool,
    /// A child a tool result names was a relative name (resolved against the cwd).
    pub relative: bool,
}

/// The usage of `members`' rows, each row once as the members hold them.
pub(crate) fn usage<'a>(members: impl IntoIterator<Item = &'a Summary>) -> Usage {
    let mut total = Usage::default();
    let rows = members.into_iter().filter_map(|m| m.tally.as_deref());
    for u in rows.flat_map(|t| &t.rows).filter_map(|r| r.usage.as_ref()) {
        total.add(u);
    }
    total
}

/// The family of the session at `path`; `None` when no run was found under it (its figures are
/// then its own, and it is not read again).
pub(crate) fn read(path: &Path) -> Option<Family> {
    read_found(path, runs::find(path, Limits::default()))
}

/// What finding the runs under `path` had to say.
fn found_warnings(path: &Path, found: &runs::Runs) -> Vec<(PathBuf, String)> {
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
    warnings
}

/// [`read`] of the runs `found` under `path`.
fn read_found(path: &Path, found: runs::Runs) -> Option<Family> {
    let mut warnings = found_warnings(path, &found);
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
    let mut failed = false;
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
            Err(e) => {
                failed = true;
                warnings.push((file, format!("cannot read this subagent run: {e}")));
            }
        }
    }
    let mut keys = PathKeys::new(&cwd());
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
    let relative = (delegations.iter().flat_map(HashMap::values))
        .flat_map(|d| &d.children)
        .filter_map(|c| c.session_file.as_deref())
        .any(|f| !Path::new(f).is_absolute());
    Some(Family {
        members,
        warnings,
        failed,
        relative,
    })
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

fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_default()
}

/// `s` without the entries it copied from a file up its `parentSession` chain that the report
/// also counts (`family::chains`, `copies::Source` as pi copies: everything but `parentId`), so
/// that a fork or clone and its source count each entry once; with what the chain had to say (a
/// cycle, a limit). A session without `parentSession`, or whose chain holds no counted file, is
/// returned as it is, not read again. A source that is gone, or that the report does not count
/// (outside the store, another project), leaves the copies counted in `s`: its only record here.
pub(super) fn without_copies(
    s: Summary,
    counted: &Chains<'_>,
) -> (Summary, Vec<(PathBuf, String)>) {
    let w = without_copies_read(s, counted, Rows::Again);
    (w.summary, w.warnings)
}

/// [`without_copies`] of a family's first member: its rows, which its family edited (the usage
/// pi-subagents reports on a tool result for a run counted by its own file), are kept, less the
/// copies; the rows of a new read would undo the edits and count those runs twice.
pub(super) fn first_without_copies(
    s: Summary,
    counted: &Chains<'_>,
) -> (Summary, Vec<(PathBuf, String)>) {
    let w = without_copies_read(s, counted, Rows::Kept);
    (w.summary, w.warnings)
}

/// Whose rows [`without_copies_read`] keeps: those of the summary it is given (read whole, with
/// their ids), or those of its own read (a summary from the cache has no row ids).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rows {
    Kept,
    Again,
}

/// What [`without_copies`] made, and what it read to make it.
struct WithoutCopies {
    summary: Summary,
    warnings: Vec<(PathBuf, String)>,
    /// The files up the chain it read ([`Up::read`]).
    read: Vec<PathBuf>,
    /// The session could not be read again: its copies are still in.
    failed: bool,
    /// A relative `parentSession` was met ([`Up::relative`]).
    relative: bool,
}

fn without_copies_read(s: Summary, counted: &Chains<'_>, rows: Rows) -> WithoutCopies {
    let done = |summary, warnings, read, relative| WithoutCopies {
        summary,
        warnings,
        read,
        failed: false,
        relative,
    };
    let Some(parent) = s.parent_session.clone().filter(|p| !p.is_empty()) else {
        return done(s, Vec::new(), Vec::new(), false);
    };
    if s.tally.is_none() {
        return done(s, Vec::new(), Vec::new(), false);
    }
    let Up {
        files: sources,
        mut warnings,
        read,
        relative,
    } = counted.up(&s.path, &parent, true);
    if sources.iter().all(|s| s.is_empty()) {
        return done(s, warnings, read, relative);
    }
    // Read again whole, to match its entries with the chain's.
    let mut copied: HashSet<String> = HashSet::new();
    let mut also = |_: &Header, e: &EntryLine| {
        if let Some(id) = e.id.as_ref().filter(|_| sources.iter().any(|s| s.holds(e))) {
            copied.insert(id.to_string());
        }
    };
    let options = SummaryOptions {
        detail: Detail::Stats,
        also: Some(&mut also),
        ..SummaryOptions::default()
    };
    match summarize(&s.path, options) {
        Ok(again) => {
            let mut kept = if rows == Rows::Kept { s } else { again };
            if let Some(t) = kept.tally.as_deref_mut() {
                t.rows
                    .retain(|r| !r.id.as_ref().is_some_and(|id| copied.contains(id)));
            }
            kept.warnings.clear();
            done(kept, warnings, read, relative)
        }
        Err(e) => {
            warnings.push((
                s.path.clone(),
                format!("cannot read it again to leave out its copies: {e}"),
            ));
            WithoutCopies {
                failed: true,
                ..done(s, warnings, read, relative)
            }
        }
    }
}

/// The sessions of the store that descend from `session` by their headers' `parentSession`
/// (forks, clones, forks of those), nearest first, each once (a cycle cannot bring one back),
/// with their subagent runs; each fork without what it copied from a file up its chain in the
/// family. For `stats SESSION --forks`.
pub(super) struct Forks {
    pub forks: Vec<Summary>,
    pub runs: Vec<Summary>,
    pub warnings: Vec<(PathBuf, String)>,
}

pub(super) fn forks(session: &Path, loc: &Location) -> anyhow::Result<Forks> {
    let listing = listing::list(loc, Scope::All, Detail::Listing)?;
    let mut keys = PathKeys::new(&cwd());
    let mut under: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
    for s in &listing.sessions {
        if let Some(parent) = s.parent_session.as_deref().filter(|p| !p.is_empty()) {
            let parent = keys.key(Path::new(parent));
            under.entry(parent).or_default().push(s.path.clone());
        }
    }
    let root = keys.key(session);
    let mut seen = HashSet::from([root.clone()]);
    let mut found = Vec::new();
    let mut next = vec![root];
    while !next.is_empty() {
        let mut deeper = Vec::new();
        for key in next {
            for path in under.get(&key).into_iter().flatten() {
                let k = keys.key(path);
                if seen.insert(k.clone()) {
                    found.push(path.clone());
                    deeper.push(k);
                }
            }
        }
        next = deeper;
    }
    let family: Vec<PathBuf> = std::iter::once(session.to_owned())
        .chain(found.iter().cloned())
        .collect();
    let counted = counted(|| family.clone());
    let mut out = Forks {
        forks: Vec::new(),
        runs: Vec::new(),
        warnings: Vec::new(),
    };
    for path in &found {
        let read = match read(path) {
            Some(mut f) => {
                out.warnings.append(&mut f.warnings);
                let first = f.members.remove(0);
                out.runs.append(&mut f.members);
                Ok(first)
            }
            None => summarize(
                path,
                SummaryOptions {
                    detail: Detail::Stats,
                    ..SummaryOptions::default()
                },
            ),
        };
        match read {
            Ok(s) => {
                let (s, mut warnings) = without_copies(s, &counted);
                out.warnings.append(&mut warnings);
                out.forks.push(s);
            }
            Err(e) => out
                .warnings
                .push((path.clone(), format!("cannot read this fork: {e}"))),
        }
    }
    Ok(out)
}

/// The chains of a report's forks, matched against the files `paths` lists.
pub(super) fn counted<'a>(paths: impl Fn() -> Vec<PathBuf> + Sync + 'a) -> Chains<'a> {
    Chains::new(&cwd(), paths)
}

/// What a report over a listing needs to count a session's family from the family cache
/// (`pisess_store::cache::families`): the cache of the listed files' folders, the cwd, and
/// the listed files for the chains (copied when a family is made again, not when every
/// record holds).
pub(super) struct Remember<'a> {
    cache_dir: Option<&'a CacheDir>,
    listed: &'a OnceLock<Vec<PathBuf>>,
    cache: OnceLock<FamilyCache<'a>>,
    /// Where the sessions' runs are (`cache::runs`), opened when a family record's own walk
    /// does not vouch for a session's runs.
    runs: OnceLock<RunCache<'a>>,
    /// The sessions whose runs a family record's walk vouched for: their run cache records
    /// are kept as they are (the run cache keeps only the records asked for).
    vouched: std::sync::Mutex<Vec<PathBuf>>,
    cwd: PathBuf,
    /// [`Context`]s without and with the cwd: of a session with runs only, and of a fork (with
    /// the listing).
    contexts: OnceLock<[[Context; 2]; 2]>,
}

impl<'a> Remember<'a> {
    pub(super) fn new(cache_dir: Option<&'a CacheDir>, listed: &'a OnceLock<Vec<PathBuf>>) -> Self {
        Remember {
            cache_dir,
            listed,
            cache: OnceLock::new(),
            runs: OnceLock::new(),
            vouched: std::sync::Mutex::new(Vec::new()),
            cwd: cwd(),
            contexts: OnceLock::new(),
        }
    }

    /// The cache and the contexts of a report over `files`, made when a family first asks.
    fn open(&self, files: &[PathBuf]) -> (&FamilyCache<'a>, [[Context; 2]; 2]) {
        let cache = (self.cache).get_or_init(|| FamilyCache::open(self.cache_dir, files));
        let contexts = *self.contexts.get_or_init(|| {
            let cwd = Some(self.cwd.as_path());
            let listed = Some(Listed::of(files));
            [
                [Context::of(None, None), Context::of(cwd, None)],
                [Context::of(None, listed), Context::of(cwd, listed)],
            ]
        });
        (cache, contexts)
    }

    /// The listed files `files`, for the chains of the forks made again.
    fn listing(&self, files: &[PathBuf]) {
        self.listed.get_or_init(|| files.to_vec());
    }

    /// The runs under `session`, through the run cache of a report over `files`, and the walk
    /// that vouches for them when it is remembered.
    fn find(&self, session: &Path, files: &[PathBuf]) -> (runs::Runs, Option<Walked>) {
        let cache = (self.runs).get_or_init(|| RunCache::open(self.cache_dir, files));
        cache.find_walked(session, Limits::default())
    }

    /// Writes what this report made that the next can use.
    pub(super) fn save(self) {
        if let Some(cache) = self.cache.into_inner() {
            cache.save();
        }
        // Every session with a stem folder was asked, or its family record's walk vouched for
        // its runs: their records only.
        if let Some(runs) = self.runs.into_inner() {
            for session in self.vouched.into_inner().unwrap_or_default() {
                runs.keep(&session);
            }
            runs.save(None);
        }
    }
}

/// A listed session `s` as a report counts it (`stem`: it has a folder of its stem beside it):
/// its figures without what its runs and its copies count elsewhere, its runs' as the family
/// counts them, and what was said on the way. From the family cache when nothing it was made of
/// changed; else its runs and chain are read ([`read`], [`without_copies`]) and remembered.
pub(super) fn member(
    mut s: Summary,
    stem: bool,
    files: &[PathBuf],
    counted: &Chains<'_>,
    remember: &Remember<'_>,
) -> (Summary, Vec<Summary>, Vec<(PathBuf, String)>) {
    let forked = s.parent_session.as_deref().is_some_and(|p| !p.is_empty()) && s.tally.is_some();
    if !stem && !forked {
        return (s, Vec::new(), Vec::new());
    }
    // Which runs there are is checked every time: by the folders the record's walk read
    // while none of them changed, else found (from the run cache while none of the folders
    // its record read changed, else by reading them). A run added or removed is then a change
    // the record is checked against.
    let path = s.path.clone();
    let look = || match stem {
        true => remember.find(&path, files),
        false => (runs::Runs::default(), None),
    };
    let mut found: Option<(runs::Runs, Option<Walked>)> = None;
    let find = |found: &mut Option<_>| child_ids(&found.get_or_insert_with(look).0);
    let (cache, contexts) = remember.open(files);
    let contexts = contexts[usize::from(forked)];
    if let Some(hit) = cache.get(&path, s.file_key, contexts, || find(&mut found)) {
        if let Some(t) = s
            .tally
            .as_deref_mut()
            .filter(|t| t.rows.len() == hit.rows as usize)
        {
            apply(&mut t.rows, &hit.edits);
            let mut warnings = hit.warnings;
            match &found {
                Some((f, _)) => warnings.extend(found_said(&path, f)),
                // A walk is remembered only without problems or limits: nothing to say.
                None if stem => {
                    if let Ok(mut vouched) = remember.vouched.lock() {
                        vouched.push(path);
                    }
                }
                None => {}
            }
            return (s, hit.runs, warnings);
        }
    }
    let (found, walked) = found.unwrap_or_else(look);
    let children = child_ids(&found);
    remember.listing(files);
    let found_said = found_said(&path, &found);
    let found = stem.then_some(found);
    let before: Option<Vec<Row>> = s.tally.as_ref().map(|t| t.rows.clone());
    let (first, runs, chain_said, deps, failed, relative) =
        match found.and_then(|f| read_found(&path, f)) {
            Some(mut f) => {
                let w = without_copies_read(f.members.remove(0), counted, Rows::Kept);
                let deps: Vec<PathBuf> = (f.members.iter().map(|m| m.path.clone()))
                    .chain(w.read)
                    .collect();
                let failed = f.failed || w.failed;
                let relative = f.relative || w.relative;
                (w.summary, f.members, w.warnings, deps, failed, relative)
            }
            None => {
                let w = without_copies_read(s, counted, Rows::Again);
                (
                    w.summary,
                    Vec::new(),
                    w.warnings,
                    w.read,
                    w.failed,
                    w.relative,
                )
            }
        };
    let after = first.tally.as_ref().map(|t| &t.rows[..]);
    if let (false, Some(before), Some(after)) = (failed, &before, after) {
        if let Some(edits) = edits(before, after) {
            let made = Making {
                relative,
                rows: u32::try_from(before.len()).unwrap_or(u32::MAX),
                edits: &edits,
                runs: &runs,
                warnings: &chain_said,
            };
            cache.put(&path, contexts, (children, walked), &deps, &made);
        }
    }
    let mut warnings = chain_said;
    warnings.extend(found_said);
    (first, runs, warnings)
}

/// The runs `found` as the family cache compares them.
fn child_ids(found: &runs::Runs) -> Vec<ChildId> {
    (found.children.iter())
        .map(|c| ChildId {
            path: c.path.as_os_str().as_encoded_bytes().to_vec(),
            made: c.made.as_str().to_owned(),
            parent: c.parent.and_then(|p| u32::try_from(p).ok()),
        })
        .collect()
}

/// What finding the runs under a family's session had to say (nothing without runs).
fn found_said(path: &Path, found: &runs::Runs) -> Vec<(PathBuf, String)> {
    match found.children.is_empty() {
        true => Vec::new(),
        false => found_warnings(path, found),
    }
}

/// Whether two rows are one entry's, but for what a family changes (its usage) and what the
/// tally cache does not keep (id, stop reason).
fn same_entry(a: &Row, b: &Row) -> bool {
    a.ts_ms == b.ts_ms
        && a.role == b.role
        && a.message == b.message
        && a.model == b.model
        && a.tool == b.tool
        && a.calls == b.calls
        && a.is_error == b.is_error
        && a.answers == b.answers
        && a.active == b.active
}

/// The edits that make `before` (a session's rows as read) into `after` (as its family counts
/// them: some left out, some with other usage); `None` when `after` is not such an edit.
fn edits(before: &[Row], after: &[Row]) -> Option<Vec<(u32, Edit)>> {
    let mut next = after.iter().peekable();
    let mut edits = Vec::new();
    for (i, b) in before.iter().enumerate() {
        let i = u32::try_from(i).ok()?;
        match next.next_if(|a| same_entry(a, b)) {
            Some(a) if a.usage != b.usage => edits.push((i, Edit::Usage(a.usage))),
            Some(_) => {}
            None => edits.push((i, Edit::Drop)),
        }
    }
    next.peek().is_none().then_some(edits)
}

/// `edits` made to `rows` (edits by index, ascending).
fn apply(rows: &mut Vec<Row>, edits: &[(u32, Edit)]) {
    let mut edits = edits.iter().peekable();
    let mut i = 0u32;
    rows.retain_mut(|r| {
        let keep = match edits.next_if(|(at, _)| *at == i) {
            Some((_, Edit::Drop)) => false,
            Some((_, Edit::Usage(u))) => {
                r.usage = *u;
                true
            }
            None => true,
        };
        i += 1;
        keep
    });
}
