//! The family cache (`families/`): what `stats` made of a session's family (issue 44) that
//! only a read of other files could tell, so that a warm report over a store of forks and
//! subagent runs reads no session file (`family::chains` read each fork's chain whole, and each
//! session with runs was read again with its runs, on every run).
//!
//! A record a listed session that has subagent runs or a `parentSession`: which of the
//! session's tally rows a report leaves out or counts otherwise ([`Edit`]: a copy of an entry up
//! its chain, a subagent tool result whose usage the children's files count), its runs'
//! summaries as the family counts them, and what the walk up its chain had to say. It holds
//! only while everything it was made from is as it was:
//!
//! - the session itself: the container's record key ([`FileKey`], trusted only when the file
//!   was not racy), against the key the tally cache vouched for or read the session at
//!   (`Summary::file_key`: the edits are of that tally's rows; a stat only without one);
//! - every other file it read ([`Dep`]): each run, each file up the `parentSession` chain
//!   whose header was read (listed or not), and the chain's missing end, each by its key now
//!   (a file gone, or come back, is a change);
//! - the runs found under it, by place and how they were made: when the folders the walk that
//!   found them read still have their keys (`cache::runs::Walked`, as the run cache trusts a
//!   record), they are those; else the caller finds them afresh (a run added or removed is a
//!   change);
//! - its context ([`Context`]): the process cwd (relative names resolve against it) and, for a
//!   session with a `parentSession`, every path the report lists, in order (which file a
//!   `parentSession` resolves to, and whether a chain file is counted, depend on the listing: a
//!   session added to or removed from the report makes each fork's record be made again, once).
//!
//! One file holds every folder's records (one open a report, not one a project folder: 29
//! opens, reads and closes of 1,000 sessions' 30 folders, and the threads that opened them):
//! a record is named by its session's whole path, and a report's save keeps the records of
//! folders it did not list (another report's), as the per-folder files were left alone.
//!
//! Like the tally cache it only steers a display (`stats`); `check` never reads it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::container::{Cache, Fate, Kind, Record};
use super::folder::CacheDir;
use super::key::{folders_of, now_ns, stat_in, FileKey, RACY_NS};
use super::runs::Walked;
use super::{bytes_of, path_of};
use crate::family::runs::Limits;
use crate::summary::{with_file_facts, FileFacts, Summary};
use crate::tally::Tally;
use pisess_format::model::Usage;
use pisess_format::util::file::split_name;

/// The family cache's files.
pub(crate) struct Families;

impl Kind for Families {
    const FAMILY: &'static str = "families";
    const WHAT: &'static str = "family";
    const MAGIC: &'static [u8] = b"pisess family cache\n";
    /// 3: one file for every folder, a record named by its session's whole path.
    const FORMAT: u32 = 3;

    /// A record is checked against the key the tally cache took (`get`), not by name.
    fn stats_by_name(&self) -> bool {
        false
    }
}

/// What a row of the session's tally becomes in the family's report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Edit {
    /// Left out: a copy of an entry up the `parentSession` chain.
    Drop,
    /// Counted with this usage (a subagent tool result: nothing, or the children not found).
    Usage(Option<Usage>),
}

/// A run found under the session, as the caller found it: compared with the runs found afresh.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChildId {
    #[serde(with = "serde_bytes")]
    pub path: Vec<u8>,
    pub made: String,
    pub parent: Option<u32>,
}

/// What the family made of a session, as the cache gives it back.
pub struct Remembered {
    /// The session's row edits, by index into its tally's rows (ascending, each once).
    pub edits: Vec<(u32, Edit)>,
    /// The rows the session's tally had: the edits hold for those only.
    pub rows: u32,
    /// The runs' summaries (with their tallies) as the family counts them, one a found run.
    pub runs: Vec<Summary>,
    /// What the walk up the chain said.
    pub warnings: Vec<(PathBuf, String)>,
}

/// What was made of a session, to remember ([`FamilyCache::put`]).
pub struct Making<'a> {
    /// A relative name was resolved against the cwd on the way.
    pub relative: bool,
    pub rows: u32,
    pub edits: &'a [(u32, Edit)],
    pub runs: &'a [Summary],
    pub warnings: &'a [(PathBuf, String)],
}

/// Whose word a record takes about the world around the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Context(pub u64);

impl Context {
    /// The process cwd when a relative name was resolved against it, and, for a fork, the
    /// report's listed paths in order ([`Listed`]).
    pub fn of(cwd: Option<&Path>, listed: Option<Listed>) -> Context {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.update(&[u8::from(cwd.is_some())]);
        if let Some(cwd) = cwd {
            add_path(&mut h, cwd);
        }
        if let Some(Listed(listed)) = listed {
            h.update(&listed.to_le_bytes());
        }
        Context(h.digest())
    }
}

/// A report's listed paths in order, hashed once for the contexts that take them (a hash of
/// 10,000 paths a context was a second and a third pass over the listing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listed(u64);

impl Listed {
    pub fn of(paths: &[PathBuf]) -> Listed {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        for p in paths {
            add_path(&mut h, p);
        }
        Listed(h.digest())
    }
}

/// `p` into `h`, its length first (so that no two lists of paths hash the same bytes).
fn add_path(h: &mut xxhash_rust::xxh3::Xxh3, p: &Path) {
    let b = p.as_os_str().as_encoded_bytes();
    h.update(&(b.len() as u64).to_le_bytes());
    h.update(b);
}

/// A file a record was made from, and its key then (`None`: it could not be stat'ed).
#[derive(Serialize, Deserialize)]
struct Dep {
    #[serde(with = "serde_bytes")]
    path: Vec<u8>,
    key: Option<FileKey>,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    /// Whether a relative name was resolved against the cwd (then the cwd is in `context`).
    relative: bool,
    context: Context,
    children: Vec<ChildId>,
    /// What vouches for `children` without a walk (`None`: a walk not remembered, or none).
    walked: Option<Walked>,
    deps: Vec<Dep>,
    rows: u32,
    edits: Vec<(u32, Edit)>,
    /// One a run, with its tally (serde keeps what a report groups, as the tally cache does).
    runs: Vec<(Summary, Tally)>,
    warnings: Vec<(Vec<u8>, String)>,
}

/// The family cache of one report: the one file of every folder's records, the listed
/// sessions' folders (as records name them), and what became of each record asked for.
pub struct FamilyCache<'a> {
    cache: Option<Cache<'a, Families>>,
    listed: hashbrown::HashSet<Vec<u8>>,
    fates: Mutex<Vec<(PathBuf, Fate)>>,
}

/// The folder the container files every record under: one file (no real folder is spelled so,
/// and no session path is looked up in it).
const ALL: &[u8] = b"<all families>/";

/// A session's path as a record's name: its separators made bytes no path holds, so that the
/// container, which names a record by what follows its path's last separator, takes it whole.
fn name_of(path: &[u8]) -> Vec<u8> {
    (path.iter())
        .map(|&b| match b {
            b'/' => 0,
            #[cfg(not(unix))]
            b'\\' => 1,
            b => b,
        })
        .collect()
}

/// The container's path of the record of `path` (in [`ALL`], named [`name_of`]).
fn filed(path: &Path) -> PathBuf {
    let mut bytes = ALL.to_vec();
    bytes.extend(name_of(path.as_os_str().as_encoded_bytes()));
    path_of(&bytes)
}

/// The folder of a record's name (as [`name_of`] spells it, its last separator kept).
fn folder_of(name: &[u8]) -> &[u8] {
    let at = name
        .iter()
        .rposition(|&b| b == 0 || (cfg!(not(unix)) && b == 1));
    &name[..at.map_or(0, |i| i + 1)]
}

/// A file's key and facts now.
fn stat(path: &Path) -> Option<(FileKey, Option<std::time::Duration>)> {
    let (_, name) = split_name(path);
    stat_in(None, path, name)
}

impl<'a> FamilyCache<'a> {
    /// The cache of a report over `files` (`dir`: none with `--no-cache`).
    pub fn open(dir: Option<&'a CacheDir>, files: &[PathBuf]) -> FamilyCache<'a> {
        let cache = dir.map(|d| Cache::open(d, &[filed(Path::new(""))], Families));
        let cache = cache.filter(|c| !c.off);
        let listed = match cache {
            Some(_) => (folders_of(files).into_iter()).map(name_of).collect(),
            None => hashbrown::HashSet::new(),
        };
        FamilyCache {
            cache,
            listed,
            fates: Mutex::new(Vec::new()),
        }
    }

    /// What was made of the session at `path`, when nothing it was made from changed since:
    /// `key` is the session's as its tally was taken (`Summary::file_key`; `None`: stat'ed
    /// here), `contexts` the run's without and with its cwd; `children` finds the runs under it
    /// (called only when the record's own walk does not vouch for them).
    pub fn get(
        &self,
        path: &Path,
        key: Option<FileKey>,
        contexts: [Context; 2],
        children: impl FnOnce() -> Vec<ChildId>,
    ) -> Option<Remembered> {
        let cache = self.cache.as_ref()?;
        let folder = cache.folders.get(ALL)?;
        let slot = folder.trusted(&name_of(path.as_os_str().as_encoded_bytes()))?;
        // The tally cache stat'ed the session a moment ago (200 `newfstatat`s of 1,000
        // sessions were this one again).
        let key = key.or_else(|| stat(path).map(|(k, _)| k))?;
        if key != slot.key {
            return None;
        }
        let stored: Stored = postcard::from_bytes(folder.data(slot)).ok()?;
        let context = contexts[usize::from(stored.relative)];
        if stored.context != context {
            return None;
        }
        let walked = (stored.walked.as_ref()).is_some_and(|w| w.holds(path, Limits::default()));
        if !walked && stored.children != children() {
            return None;
        }
        let mut facts = Vec::with_capacity(stored.deps.len());
        for dep in &stored.deps {
            let now = stat(&path_of(&dep.path));
            if now.map(|(k, _)| k) != dep.key {
                return None;
            }
            facts.push(now);
        }
        if stored.runs.len() > facts.len() {
            return None;
        }
        let runs = (stored.runs.into_iter().zip(&stored.children).zip(&facts))
            .map(|(((summary, tally), child), now)| {
                let (key, modified) = (*now)?;
                let facts = FileFacts {
                    modified,
                    len: key.size,
                };
                let mut s = with_file_facts(summary, &path_of(&child.path), facts);
                s.tally = Some(Box::new(tally));
                Some(s)
            })
            .collect::<Option<Vec<_>>>()?;
        if let Ok(mut fates) = self.fates.lock() {
            fates.push((path.to_owned(), Fate::Kept));
        }
        Some(Remembered {
            edits: stored.edits,
            rows: stored.rows,
            runs,
            warnings: (stored.warnings.into_iter())
                .map(|(p, w)| (path_of(&p), w))
                .collect(),
        })
    }

    /// Records what was made of the session at `path`: `runs` one each of `children` (found
    /// with `Limits::default()` by the walk `walked` when it was remembered), `deps` every
    /// other file read (runs first, in order). Not recorded when the session or any of them
    /// was racy (written within `RACY_NS` of now), so a write since shows in a key.
    pub fn put(
        &self,
        path: &Path,
        contexts: [Context; 2],
        (children, walked): (Vec<ChildId>, Option<Walked>),
        deps: &[PathBuf],
        made: &Making<'_>,
    ) {
        let Some(cache) = self.cache.as_ref() else {
            return;
        };
        let settled = |k: &FileKey| k.mtime_ns < cache.now_ns.min(now_ns()) - RACY_NS;
        let record = (|| {
            let (key, _) = stat(path).filter(|(k, _)| settled(k))?;
            let mut stored_deps = Vec::with_capacity(deps.len());
            for d in deps {
                let key = stat(d).map(|(k, _)| k);
                if key.as_ref().is_some_and(|k| !settled(k)) {
                    return None;
                }
                stored_deps.push(Dep {
                    path: bytes_of(d),
                    key,
                });
            }
            let runs: Vec<(&Summary, &Tally)> = (made.runs.iter())
                .map(|s| Some((s, s.tally.as_deref()?)))
                .collect::<Option<_>>()?;
            #[derive(Serialize)]
            struct StoredRef<'s> {
                relative: bool,
                context: Context,
                children: Vec<ChildId>,
                walked: Option<Walked>,
                deps: Vec<Dep>,
                rows: u32,
                edits: &'s [(u32, Edit)],
                runs: Vec<(&'s Summary, &'s Tally)>,
                warnings: Vec<(Vec<u8>, &'s str)>,
            }
            let data = postcard::to_stdvec(&StoredRef {
                relative: made.relative,
                context: contexts[usize::from(made.relative)],
                children,
                walked,
                deps: stored_deps,
                rows: made.rows,
                edits: made.edits,
                runs,
                warnings: (made.warnings.iter())
                    .map(|(p, w)| (bytes_of(p), w.as_str()))
                    .collect(),
            })
            .ok()?;
            Some(Record {
                key,
                trusted: true,
                data,
                blob: None,
            })
        })();
        let fate = record.map_or(Fate::Dropped, |r| Fate::New(Box::new(r)));
        if let Ok(mut fates) = self.fates.lock() {
            fates.push((path.to_owned(), fate));
        }
    }

    /// Writes the folders whose records changed. A record not asked for this run is dropped
    /// when its folder is written (its session no longer has a family, or left the report).
    pub fn save(self) {
        let Some(cache) = self.cache else { return };
        let mut fates = self.fates.into_inner().unwrap_or_default();
        // By the paths' bytes: a `Path` compares component by component (a third of saving);
        // compared in place, not copied out a path.
        fn bytes(p: &Path) -> &[u8] {
            p.as_os_str().as_encoded_bytes()
        }
        fates.sort_by(|a, b| bytes(&a.0).cmp(bytes(&b.0)));
        fates.dedup_by(|a, b| a.0.as_os_str() == b.0.as_os_str());
        let stored = cache.folders.get(ALL).map_or(0, |f| f.slots.len());
        // A warm run that changed nothing: every record kept, and no other.
        if fates.len() == stored && fates.iter().all(|(_, f)| matches!(f, Fate::Kept)) {
            return;
        }
        let (mut files, mut fates): (Vec<PathBuf>, Vec<Fate>) =
            (fates.into_iter()).map(|(p, f)| (filed(&p), f)).unzip();
        // The records of folders this report did not list are another report's: kept.
        if let Some(all) = cache.folders.get(ALL) {
            for name in all.slots.keys() {
                if !self.listed.contains(folder_of(name)) {
                    let mut bytes = ALL.to_vec();
                    bytes.extend_from_slice(name);
                    files.push(path_of(&bytes));
                    fates.push(Fate::Kept);
                }
            }
        }
        // At most one warning a run, and a cache problem is no more: passed over here.
        let _ = cache.save(&files, fates);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session file old enough to be recorded.
    fn old_file(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "{}\n").unwrap();
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        let f = std::fs::File::options().write(true).open(path).unwrap();
        f.set_modified(when).unwrap();
    }

    /// Every folder's records are in one file; a record holds for the key the session's tally
    /// was taken at (not a stat of its own: another key is another tally's rows); a report over
    /// some folders keeps the others' records and drops its own folders' records not asked.
    #[test]
    fn one_file_for_every_folder_and_the_tallys_key_decides() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = CacheDir::new(tmp.path().join("cache"));
        let (a, b) = (
            tmp.path().join("store/--p1--/a.jsonl"),
            tmp.path().join("store/--p2--/b.jsonl"),
        );
        old_file(&a);
        old_file(&b);
        let both = vec![a.clone(), b.clone()];
        let contexts = [Context::of(None, None); 2];
        let made = Making {
            relative: false,
            rows: 0,
            edits: &[],
            runs: &[],
            warnings: &[],
        };
        let put = |cache: &FamilyCache, p: &Path| {
            cache.put(p, contexts, (Vec::new(), None), &[], &made);
        };
        let cache = FamilyCache::open(Some(&dir), &both);
        both.iter().for_each(|p| put(&cache, p));
        cache.save();
        let files = std::fs::read_dir(tmp.path().join("cache/families")).unwrap();
        assert_eq!(files.count(), 1, "one file for both folders");
        let key = |p: &Path| stat(p).unwrap().0;
        let holds = |listed: &[PathBuf], p: &Path, k: Option<FileKey>| {
            let cache = FamilyCache::open(Some(&dir), listed);
            cache.get(p, k, contexts, Vec::new).is_some()
        };
        assert!(holds(&both, &a, Some(key(&a))));
        assert!(holds(&both, &a, None), "stat'ed when no key is given");
        let mut other = key(&a);
        other.size += 1;
        assert!(
            !holds(&both, &a, Some(other)),
            "the tally's key, not a stat"
        );
        assert!(!holds(&both, &b, Some(key(&a))));
        // Over `a`'s folder alone, `a`'s record made again: `b`'s is kept.
        let cache = FamilyCache::open(Some(&dir), std::slice::from_ref(&a));
        put(&cache, &a);
        cache.save();
        assert!(
            holds(&both, &b, Some(key(&b))),
            "another folder's record kept"
        );
        // Over both, `a` asked alone: `b` had no family this time.
        let cache = FamilyCache::open(Some(&dir), &both);
        assert!(cache.get(&a, Some(key(&a)), contexts, Vec::new).is_some());
        cache.save();
        assert!(
            !holds(&both, &b, Some(key(&b))),
            "a listed record not asked is dropped"
        );
        assert!(holds(&both, &a, Some(key(&a))));
    }

    fn paths(list: &[&str]) -> Vec<PathBuf> {
        list.iter().map(PathBuf::from).collect()
    }

    /// A context with the listing tells listings apart by their paths, their order and where
    /// one path ends; the cwd and its absence count, and a listing hashed once is the same
    /// listing each time.
    #[test]
    fn contexts_tell_listings_and_cwds_apart() {
        let listings = [
            paths(&["/s/a.jsonl", "/s/b.jsonl"]),
            paths(&["/s/b.jsonl", "/s/a.jsonl"]),
            paths(&["/s/a.jsonl/s/b", ".jsonl"]),
            paths(&["/s/a.jsonl"]),
            paths(&[]),
        ];
        let cwd = Path::new("/home/u");
        let mut seen = std::collections::HashSet::new();
        for listed in &listings {
            for cwd in [None, Some(cwd), Some(Path::new("/home"))] {
                let context = Context::of(cwd, Some(Listed::of(listed)));
                assert_eq!(context, Context::of(cwd, Some(Listed::of(listed))));
                assert!(seen.insert(context.0), "{cwd:?} {listed:?}");
            }
        }
        for cwd in [None, Some(cwd)] {
            assert!(
                seen.insert(Context::of(cwd, None).0),
                "{cwd:?} without a listing"
            );
        }
    }
}
