//! The run cache (`runs/`): where a session's subagent runs are (`family::runs::find`), so
//! that a warm report does not list every session's stem folder, its `<runId>/` and
//! `run-<n>/` folders again (an `opendir`, two `getdents`, a `close` and an `fstat` each: 16
//! system calls for a session with one run, on every run of `ls`, `ls --tree` and `stats`).
//!
//! A record a listed session with a stem folder: the children the walk found and every folder
//! it read, each with its key (`lstat`: device, inode, size, mtime, ctime) taken just before
//! the read. It holds while each of those folders' keys is what it was: one `lstat` a folder
//! instead of a listing. Why that proves no run is missed: every child is found by reading
//! folders, and which names a folder holds changes only by adding, removing or renaming an
//! entry in it, which sets that folder's mtime (and ctime) to now. A folder replaced by
//! another is another inode; its `chmod` sets its ctime. So every level the walk read is
//! checked (the stem folder for a new `<runId>/`, each `<runId>/` for a new `run-<n>/`, each
//! `run-<n>/` for a new file or a nested run's folder), and a folder it did not read (not of
//! the layout, or a new one) is an entry of one it did. A run's bytes are not the listing's
//! business: its summary is checked by the summary and tally caches, by its own key.
//!
//! Not remembered: a walk that met a symbolic link (its target can change while no folder
//! does), a problem or a limit; nor one whose folders were written within `RACY_NS` of the
//! run's start (an entry added within the mtime's granularity after the read could leave the
//! key as it was). Like the other caches it only steers a display; `check` and `rm` walk.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::container::{Cache, Fate, Kind, Record};
use super::folder::CacheDir;
use super::key::{now_ns, FileKey, RACY_NS};
use super::{bytes_of, path_of};
use crate::family::runs::{self, Child, Limits, Made, Runs};
use crate::summary::{with_file_facts, Summary};
use crate::util::parallel;
use pisess_format::util::file::split_name;

/// The run cache's files.
pub(crate) struct RunFolders;

impl Kind for RunFolders {
    const FAMILY: &'static str = "runs";
    const WHAT: &'static str = "run";
    const MAGIC: &'static [u8] = b"pisess run cache\n";
    const FORMAT: u32 = 2;

    /// Its records are checked by their folders' `lstat`s by path (`Walked::holds`).
    fn stats_by_name(&self) -> bool {
        false
    }
}

#[derive(Serialize, Deserialize)]
struct StoredChild {
    #[serde(with = "serde_bytes")]
    path: Vec<u8>,
    made: u8,
    run_id: Option<String>,
    index: Option<u32>,
    async_id: Option<String>,
    parent: Option<u32>,
    depth: u32,
}

#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
struct StoredFolder {
    #[serde(with = "serde_bytes")]
    path: Vec<u8>,
    key: FileKey,
}

/// A run's summary (as the summary cache keeps one: without the file's own facts) and the
/// key of its file when it was read.
#[derive(Serialize, Deserialize, Clone)]
struct StoredSummary {
    key: FileKey,
    #[serde(with = "serde_bytes")]
    data: Vec<u8>,
}

/// What a walk for a session's runs read: the folders whose keys vouch that another walk
/// would find the same runs. Kept by the family cache as well (`cache::families`), so that a
/// warm `stats` that finds its record there need not open this cache's files.
#[derive(Serialize, Deserialize, Clone, PartialEq, Eq, Debug)]
pub struct Walked {
    /// The limits the walk had: another's walk may stop elsewhere.
    limits: (u32, u64, u64),
    /// Every folder read, the stem folder first, with its key before the read.
    folders: Vec<StoredFolder>,
}

impl Walked {
    /// Whether a walk under `session` with `limits` would find what this one found: it had
    /// the same limits, started at `session`'s stem folder, and every folder it read has its
    /// key (`lstat`) still.
    pub fn holds(&self, session: &Path, limits: Limits) -> bool {
        // `<dir>/<stem>` of `<dir>/<stem>.jsonl`, by bytes (a `Path`'s own ways walk its
        // components).
        let stem = session
            .as_os_str()
            .as_encoded_bytes()
            .strip_suffix(b".jsonl");
        self.limits == limits_of(limits)
            && stem.is_some_and(|stem| self.folders.first().is_some_and(|f| f.path == stem))
            && (self.folders.iter()).all(|f| folder_key(&path_of(&f.path)) == Some(f.key))
    }
}

/// A record's data: this, then the children's summaries (`Vec<Option<StoredSummary>>`, by
/// the children's index; fewer when not all were read), decoded only by `ls --tree`.
/// (postcard writes `walked`'s fields in place: the format is format 2's.)
#[derive(Serialize, Deserialize)]
struct Stored {
    walked: Walked,
    children: Vec<StoredChild>,
}

/// A record to write again with its runs' summaries.
struct Renewed {
    stored: Stored,
    summaries: Vec<Option<StoredSummary>>,
}

fn encode(stored: &Stored, summaries: &[Option<StoredSummary>]) -> Option<Vec<u8>> {
    postcard::to_stdvec(&(stored, summaries)).ok()
}

/// [`StoredSummary`] decoded in place.
#[derive(Deserialize)]
struct KeptSummary<'a> {
    key: FileKey,
    #[serde(borrow)]
    data: &'a [u8],
}

/// The data of `session`'s record in the cache's file, if it has one.
fn record_data<'c>(cache: &'c Cache<'_, RunFolders>, session: &Path) -> Option<&'c [u8]> {
    let (folder, name) = split_name(session);
    let folder = cache.folders.get(folder)?;
    let slot = folder.slots.get(name)?;
    Some(folder.data(slot))
}

/// A run file's key taken before its summary was read ([`RunCache::remember_summary`]).
#[derive(Clone, Copy)]
pub struct RunKey(FileKey);

impl RunKey {
    /// The key of the file at `path` now (a symlink followed, as the file is read).
    pub fn of(path: &Path) -> Option<RunKey> {
        let meta = std::fs::metadata(path).ok()?;
        meta.is_file().then(|| RunKey(FileKey::of(&meta)))
    }
}

fn limits_of(l: Limits) -> (u32, u64, u64) {
    (l.depth, l.children as u64, l.entries as u64)
}

fn made_code(m: Made) -> u8 {
    match m {
        Made::Run => 0,
        Made::Fork => 1,
        Made::Async => 2,
    }
}

fn made_of(code: u8) -> Option<Made> {
    Some(match code {
        0 => Made::Run,
        1 => Made::Fork,
        2 => Made::Async,
        _ => return None,
    })
}

/// A folder's key now, not following a symbolic link; `None` when it is no real folder.
fn folder_key(path: &Path) -> Option<FileKey> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    meta.is_dir().then(|| FileKey::of(&meta))
}

/// The run cache of one report: the records of its sessions' folders, and what became of each
/// asked for.
pub struct RunCache<'a> {
    cache: Option<Cache<'a, RunFolders>>,
    fates: Mutex<Vec<(PathBuf, Fate)>>,
    /// Whether the runs' summaries are asked for ([`RunCache::keeping_summaries`]).
    keep_summaries: bool,
    /// By session (bytes): where the summaries start in each record that held this run.
    held: Mutex<hashbrown::HashMap<Vec<u8>, usize>>,
    /// By session: each record made this run, for its runs' summaries.
    made: Mutex<hashbrown::HashMap<Vec<u8>, Stored>>,
    /// By session: the records whose runs' summaries were added this run.
    renewed: Mutex<hashbrown::HashMap<Vec<u8>, Renewed>>,
}

impl<'a> RunCache<'a> {
    /// The cache of a report whose sessions with a stem folder are `sessions` (`dir`: none
    /// with `--no-cache`). Records of other sessions are dropped when their folder's file is
    /// written.
    pub fn open(dir: Option<&'a CacheDir>, sessions: &[PathBuf]) -> RunCache<'a> {
        let cache = dir.map(|d| Cache::open(d, sessions, RunFolders));
        RunCache {
            cache: cache.filter(|c| !c.off),
            fates: Mutex::new(Vec::new()),
            keep_summaries: false,
            held: Mutex::new(hashbrown::HashMap::new()),
            made: Mutex::new(hashbrown::HashMap::new()),
            renewed: Mutex::new(hashbrown::HashMap::new()),
        }
    }

    /// The cache of a report that reads the runs' summaries ([`RunCache::summaries`],
    /// [`RunCache::remember_summary`]): it notes which records held (others pay nothing).
    pub fn keeping_summaries(mut self, keep: bool) -> Self {
        self.keep_summaries = keep;
        self
    }

    /// The runs under `session`, as [`runs::find`] finds them: from its record when every
    /// folder the record was made from is as it was, else walked (and remembered).
    pub fn find(&self, session: &Path, limits: Limits) -> Runs {
        self.find_walked(session, limits).0
    }

    /// [`RunCache::find`], and what vouches for its runs when it is remembered ([`Walked`]).
    pub fn find_walked(&self, session: &Path, limits: Limits) -> (Runs, Option<Walked>) {
        let Some(cache) = self.cache.as_ref() else {
            return (runs::find(session, limits), None);
        };
        if let Some((children, walked, at)) = self.remembered(cache, session, limits) {
            if let Some(mut held) = (self.held.lock().ok()).filter(|_| self.keep_summaries) {
                held.insert(bytes_of(session), at);
            }
            self.note(session, Fate::Kept);
            let runs = Runs {
                children,
                ..Runs::default()
            };
            return (runs, Some(walked));
        }
        let (found, read) = runs::find_recorded(session, limits);
        let settled = |k: &FileKey| k.mtime_ns < cache.now_ns.min(now_ns()) - RACY_NS;
        let record = read.and_then(|read| {
            let folders: Vec<StoredFolder> = (read.iter())
                .map(|(p, meta)| StoredFolder {
                    path: bytes_of(p),
                    key: FileKey::of(meta),
                })
                .collect();
            if !folders.iter().all(|f| settled(&f.key)) {
                return None;
            }
            let key = folders.first()?.key;
            let children = (found.children.iter())
                .map(|c| StoredChild {
                    path: bytes_of(&c.path),
                    made: made_code(c.made),
                    run_id: c.run_id.clone(),
                    index: c.index,
                    async_id: c.async_id.clone(),
                    parent: c.parent.and_then(|p| u32::try_from(p).ok()),
                    depth: c.depth,
                })
                .collect();
            let stored = Stored {
                walked: Walked {
                    limits: limits_of(limits),
                    folders,
                },
                children,
            };
            let record = Record {
                key,
                trusted: true,
                data: encode(&stored, &[])?,
                blob: None,
            };
            let walked = stored.walked.clone();
            if let Some(mut made) = (self.made.lock().ok()).filter(|_| self.keep_summaries) {
                made.insert(bytes_of(session), stored);
            }
            Some((record, walked))
        });
        let (record, walked) = record.unzip();
        self.note(
            session,
            record.map_or(Fate::Dropped, |r| Fate::New(Box::new(r))),
        );
        (found, walked)
    }

    /// Keeps `session`'s record as it is, unasked: a report that found its runs elsewhere (the
    /// family cache's [`Walked`]) and saves only the records asked for.
    pub fn keep(&self, session: &Path) {
        self.note(session, Fate::Kept);
    }

    /// [`RunCache::find`] of each of `sessions`, on every core; in their order.
    pub fn find_all(&self, sessions: &[&Path], limits: Limits) -> Vec<Runs> {
        parallel::map(sessions, |s, _| self.find(s, limits))
    }

    /// The children of `session`'s record when it holds.
    fn remembered(
        &self,
        cache: &Cache<'_, RunFolders>,
        session: &Path,
        limits: Limits,
    ) -> Option<(Vec<Child>, Walked, usize)> {
        let data = record_data(cache, session)?;
        let (stored, rest): (Stored, _) = postcard::take_from_bytes(data).ok()?;
        if !stored.walked.holds(session, limits) {
            return None;
        }
        let count = stored.children.len();
        let children = (stored.children.iter())
            .map(|c| {
                Some(Child {
                    path: path_of(&c.path),
                    made: made_of(c.made)?,
                    run_id: c.run_id.clone(),
                    index: c.index,
                    async_id: c.async_id.clone(),
                    parent: c.parent.map(|p| p as usize).filter(|&p| p < count),
                    depth: c.depth,
                    // A walk that met a link is not remembered.
                    link: false,
                })
            })
            .collect::<Option<Vec<Child>>>()?;
        Some((children, stored.walked, data.len() - rest.len()))
    }

    /// The summaries of `session`'s runs (`runs`, its children from [`RunCache::find`]) its
    /// record holds, each where the run file's key is what it was when it was read: a
    /// `statx` a run instead of the summary cache's file of the run's own folder. Trusted as
    /// the summary cache trusts a record: only a read while the file's mtime was older than
    /// `RACY_NS` is kept, and any write since sets its ctime.
    pub fn summaries(&self, session: &Path, runs: &[Child]) -> Vec<Option<Summary>> {
        let none = || runs.iter().map(|_| None).collect();
        let Some(cache) = self.cache.as_ref() else {
            return none();
        };
        let at = self.held.lock().ok().and_then(|held| {
            let at = held.get(session.as_os_str().as_encoded_bytes())?;
            Some(*at)
        });
        let data = at.and_then(|at| record_data(cache, session)?.get(at..));
        let Some(kept) =
            data.and_then(|d| postcard::from_bytes::<Vec<Option<KeptSummary>>>(d).ok())
        else {
            return none();
        };
        (runs.iter().enumerate())
            .map(|(i, run)| {
                let kept = kept.get(i)?.as_ref()?;
                let meta = std::fs::metadata(&run.path).ok()?;
                if !meta.is_file() || FileKey::of(&meta) != kept.key {
                    return None;
                }
                let summary = postcard::from_bytes(kept.data).ok()?;
                Some(with_file_facts(summary, &run.path, (&meta).into()))
            })
            .collect()
    }

    /// Keeps `summary`, read of `session`'s run `index` (`run`) after its key was `before`,
    /// in the session's record: when the file's key is still `before` (the bytes read are
    /// those the key names) and settled (not within `RACY_NS` of this run's start).
    pub fn remember_summary(
        &self,
        session: &Path,
        index: usize,
        run: &Path,
        before: RunKey,
        summary: &Summary,
    ) {
        let Some(cache) = self.cache.as_ref() else {
            return;
        };
        let key = before.0;
        if summary.torn_line.is_some() || key.mtime_ns >= cache.now_ns - RACY_NS {
            return;
        }
        if RunKey::of(run).map(|k| k.0) != Some(key) {
            return;
        }
        let Ok(data) = postcard::to_stdvec(summary) else {
            return;
        };
        let Ok(mut renewed) = self.renewed.lock() else {
            return;
        };
        let session_bytes = bytes_of(session);
        if !renewed.contains_key(&session_bytes) {
            let Some(again) = self.renew(cache, session) else {
                return;
            };
            renewed.insert(session_bytes.clone(), again);
        }
        let Some(renewed) = renewed.get_mut(&session_bytes) else {
            return;
        };
        let path = run.as_os_str().as_encoded_bytes();
        if (renewed.stored.children.get(index)).is_none_or(|c| c.path != path) {
            return;
        }
        let summaries = &mut renewed.summaries;
        if summaries.len() <= index {
            summaries.resize(index + 1, None);
        }
        summaries[index] = Some(StoredSummary { key, data });
    }

    /// `session`'s record as it is (made this run, or held and decoded whole), to add to.
    fn renew(&self, cache: &Cache<'_, RunFolders>, session: &Path) -> Option<Renewed> {
        let key = session.as_os_str().as_encoded_bytes();
        if let Some(stored) = self.made.lock().ok()?.remove(key) {
            let summaries = Vec::new();
            return Some(Renewed { stored, summaries });
        }
        self.held.lock().ok()?.get(key)?;
        let data = record_data(cache, session)?;
        let (stored, summaries) = postcard::from_bytes(data).ok()?;
        Some(Renewed { stored, summaries })
    }

    fn note(&self, session: &Path, fate: Fate) {
        if let Ok(mut fates) = self.fates.lock() {
            fates.push((session.to_owned(), fate));
        }
    }

    /// Writes the folders whose records changed. With `sessions` (those of
    /// [`RunCache::open`]), the record of one not asked for this run is kept as it is (a
    /// listing cut by `--since` still holds the others' records), of one no longer among them
    /// dropped; without, only the records asked for are kept (a report that asks for every
    /// session with a stem folder, `stats`, need not look up each listed file).
    pub fn save(self, sessions: Option<&[PathBuf]>) {
        let Some(cache) = self.cache else { return };
        let mut renewed = self.renewed.into_inner().unwrap_or_default();
        let (paths, fates): (Vec<PathBuf>, Vec<Fate>) = self
            .fates
            .into_inner()
            .unwrap_or_default()
            .into_iter()
            .map(|(path, fate)| {
                // A record whose runs' summaries were added is written again.
                let again = renewed.remove(bytes_of(&path).as_slice());
                let fate = match (fate, again) {
                    (Fate::Kept | Fate::New(_), Some(again)) => renew(again),
                    (fate, _) => fate,
                };
                (path, fate)
            })
            .unzip();
        let Some(sessions) = sessions else {
            let _ = cache.save(&paths, fates);
            return;
        };
        let mut fates: Vec<Option<Fate>> = fates.into_iter().map(Some).collect();
        // By the paths' bytes: a `Path` hashes component by component.
        fn bytes(p: &Path) -> &[u8] {
            p.as_os_str().as_encoded_bytes()
        }
        let asked: hashbrown::HashMap<&[u8], usize> = (paths.iter().enumerate())
            .map(|(i, p)| (bytes(p), i))
            .collect();
        let fates = (sessions.iter())
            .map(|s| {
                let fate = asked.get(bytes(s)).and_then(|&i| fates[i].take());
                fate.unwrap_or(Fate::Kept)
            })
            .collect();
        // At most one warning a run, and a cache problem is no more: passed over here.
        let _ = cache.save(sessions, fates);
    }
}

/// The record of `again`, or none (dropped) when it cannot be encoded.
fn renew(again: Renewed) -> Fate {
    let record = again
        .stored
        .walked
        .folders
        .first()
        .map(|f| f.key)
        .and_then(|key| {
            Some(Record {
                key,
                trusted: true,
                data: encode(&again.stored, &again.summaries)?,
                blob: None,
            })
        });
    record.map_or(Fate::Dropped, |r| Fate::New(Box::new(r)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::{Duration, SystemTime};

    /// Every folder and file under `dir` (and `dir`) an hour old: settled, so a walk over
    /// them is remembered.
    fn age(dir: &Path) {
        let when = SystemTime::now() - Duration::from_secs(3600);
        for e in fs::read_dir(dir).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                age(&e.path());
            } else if e.file_type().unwrap().is_file() {
                let f = fs::File::options().write(true).open(e.path()).unwrap();
                f.set_modified(when).unwrap();
            }
        }
        fs::File::open(dir).unwrap().set_modified(when).unwrap();
    }

    fn touch(path: &Path) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "{}\n").unwrap();
    }

    /// One report's run over `session`: what it found, and whether its record held.
    fn report(cache: &CacheDir, session: &Path) -> (Vec<Child>, bool) {
        let sessions = vec![session.to_path_buf()];
        let runs = RunCache::open(Some(cache), &sessions);
        let held = (runs.cache.as_ref())
            .and_then(|c| runs.remembered(c, session, Limits::default()))
            .is_some();
        let found = runs.find(session, Limits::default());
        runs.save(Some(&sessions));
        assert!(found.problems.is_empty());
        (found.children, held)
    }

    fn paths(children: &[Child]) -> Vec<String> {
        (children.iter())
            .map(|c| c.path.to_string_lossy().into_owned())
            .collect()
    }

    /// A run added or removed at each level a walk reads (the stem folder, a `<runId>/`, a
    /// `run-<n>/`, a nested run's folders) after a warm run is seen by the next run, which
    /// finds what a walk finds; and with nothing changed, the record holds.
    #[test]
    fn a_run_added_or_removed_at_any_level_is_seen_by_the_next_run() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(tmp.path().join("cache"));
        let store = tmp.path().join("store");
        let session = store.join("2026-01-01_a.jsonl");
        touch(&session);
        let stem = store.join("2026-01-01_a");
        let run_id = stem.join("0000abcd");
        touch(&run_id.join("run-0/session.jsonl"));
        let nested = run_id.join("run-0/session/1111abcd");
        type Change = Box<dyn Fn()>;
        let steps: Vec<(&str, Change)> = vec![
            ("nothing", Box::new(|| {})),
            ("a run id added (the stem folder)", {
                let p = stem.join("2222abcd/run-0/session.jsonl");
                Box::new(move || touch(&p))
            }),
            ("a fork added (the stem folder)", {
                let p = stem.join("forks/f.jsonl");
                Box::new(move || touch(&p))
            }),
            ("a run added to a run id (a <runId>/ folder)", {
                let p = run_id.join("run-1/session.jsonl");
                Box::new(move || touch(&p))
            }),
            ("a file added to a run (a run-<n>/ folder)", {
                let p = run_id.join("run-0/2026-01-02_b.jsonl");
                Box::new(move || touch(&p))
            }),
            ("a nested run added (a run-<n>/ folder)", {
                let p = nested.join("run-0/session.jsonl");
                Box::new(move || touch(&p))
            }),
            ("a nested run added to the nested run id", {
                let p = nested.join("run-3/session.jsonl");
                Box::new(move || touch(&p))
            }),
            ("a nested run removed", {
                let p = nested.join("run-3/session.jsonl");
                Box::new(move || fs::remove_file(&p).unwrap())
            }),
            ("a run's file removed", {
                let p = run_id.join("run-0/2026-01-02_b.jsonl");
                Box::new(move || fs::remove_file(&p).unwrap())
            }),
            ("a run folder removed", {
                let p = run_id.join("run-1");
                Box::new(move || fs::remove_dir_all(&p).unwrap())
            }),
            ("a run id renamed", {
                let (from, to) = (stem.join("2222abcd"), stem.join("3333abcd"));
                Box::new(move || fs::rename(&from, &to).unwrap())
            }),
            ("a run id removed", {
                let p = stem.join("3333abcd");
                Box::new(move || fs::remove_dir_all(&p).unwrap())
            }),
        ];
        for (step, change) in steps {
            age(&store);
            // The first run records, the second is served from the record.
            let (first, _) = report(&cache, &session);
            let (warm, held) = report(&cache, &session);
            assert!(held, "{step}: the record did not hold with nothing changed");
            assert_eq!(paths(&warm), paths(&first), "{step}");
            change();
            let (after, held) = report(&cache, &session);
            let walked = runs::find(&session, Limits::default()).children;
            assert_eq!(after, walked, "{step}: the run after the change");
            if step != "nothing" {
                assert!(!held, "{step}: the record held after a change");
                assert_ne!(paths(&after), paths(&warm), "{step}: the change not seen");
            }
        }
    }

    /// The run cache checks its records by their folders' keys, by path: it opens no session
    /// folder for stats by name (an `openat` and a `close` a folder), as the caches that stat
    /// by name do.
    #[test]
    fn the_run_cache_opens_no_session_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(tmp.path().join("cache"));
        let store = tmp.path().join("store");
        let session = store.join("2026-01-01_a.jsonl");
        touch(&session);
        touch(&store.join("2026-01-01_a/0000abcd/run-0/session.jsonl"));
        age(&store);
        report(&cache, &session);
        let sessions = vec![session.clone()];
        let runs = Cache::open(&cache, &sessions, RunFolders);
        let folder = &runs.folders[split_name(&session).0];
        assert!(!folder.slots.is_empty(), "no record to check");
        assert!(!folder.opened());
        // The same file read as a kind that stats by name: its folder is opened.
        struct ByName;
        impl Kind for ByName {
            const FAMILY: &'static str = RunFolders::FAMILY;
            const WHAT: &'static str = RunFolders::WHAT;
            const MAGIC: &'static [u8] = RunFolders::MAGIC;
            const FORMAT: u32 = RunFolders::FORMAT;
        }
        let by_name = Cache::open(&cache, &sessions, ByName);
        assert!(by_name.folders[split_name(&session).0].opened());
    }

    /// A folder written within `RACY_NS` of the run is not remembered: an entry added in the
    /// same tick of its mtime could leave its key as it was.
    #[test]
    fn a_walk_over_folders_just_written_is_not_remembered() {
        let tmp = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(tmp.path().join("cache"));
        let session = tmp.path().join("store/s.jsonl");
        touch(&session);
        touch(&tmp.path().join("store/s/0000abcd/run-0/session.jsonl"));
        report(&cache, &session);
        let (found, held) = report(&cache, &session);
        assert_eq!(found.len(), 1);
        assert!(!held);
    }
}
