//! The files up forks' `parentSession` chains, read once for a whole run, for both callers of
//! [`copies`](super::copies)' rule: `stats` (a report counts each entry once) and the fact
//! stream (a copied entry is emitted under the session that first held it).
//!
//! **Which file a `parentSession` names.** It names a path on the machine that made the fork.
//! When that path is not one of the store's files (the store was synced from another home), the
//! store's file of the same name is taken when there is one: pi names session files
//! `<time>_<session id>.jsonl`, so the name is the session.
//!
//! **A cycle** of `parentSession`s is cut at its member whose path sorts first, which is then a
//! root: every other member's chain ends there, so an entry they share has one owner.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::io;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use pisess_format::model::EntryLine;
use pisess_format::scan::{read_header, Input, Pass, ScanError};
use serde_json::Value;
use xxhash_rust::xxh3::xxh3_128;

use super::copies::{chain, Chain, Copying, End, Source};
use super::thread::PathKeys;

/// The most files followed up one `parentSession` chain: deeper chains are hostile or broken.
pub const MAX_CHAIN: usize = 64;

/// The store's files (keyed as pi keys paths, [`PathKeys`], when the first fork asks: a store
/// without forks pays nothing) and the chain files read so far (many forks share a source).
pub struct Chains<'a> {
    cwd: PathBuf,
    paths: Box<dyn Fn() -> Vec<PathBuf> + Sync + 'a>,
    keyed: OnceLock<HashSet<PathBuf>>,
    by_name: OnceLock<HashMap<OsString, PathBuf>>,
    sources: Mutex<HashMap<PathBuf, Arc<Chained>>>,
}

/// A chain file's entries as copies are matched against them. Most copies are the very bytes
/// (`forkFrom` writes each entry again with `JSON.stringify`, as pi wrote it): matched by a hash
/// of the line. An entry whose id is the file's but whose bytes are not (re-chained by
/// `createBranchedSession`, or another spelling) is compared as parsed JSON, for which the
/// file is read again, once, only then.
#[derive(Debug)]
pub struct Chained {
    pub path: PathBuf,
    /// Its header's session id.
    pub session_id: String,
    lines: HashSet<u128>,
    ids: HashSet<Box<str>>,
    parsed: OnceLock<Option<Source>>,
}

impl Chained {
    /// Whether the file has no entry with an id: nothing can be a copy of it.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether the entry `e` of a copy made by pi is one of this file's.
    pub fn holds(&self, e: &EntryLine) -> bool {
        let Some(id) = &e.id else { return false };
        if self.lines.contains(&xxh3_128(e.json)) {
            return true;
        }
        if !self.ids.contains(&**id) {
            return false;
        }
        let parsed = self.parsed.get_or_init(|| {
            let mut source = Source::default();
            let read = Pass::new().run(Input::Path(&self.path), |_, e| {
                if let Ok(value) = serde_json::from_slice::<Value>(e.json) {
                    source.add(&value);
                }
                ControlFlow::Continue(())
            });
            read.ok().map(|_| source)
        });
        parsed.as_ref().is_some_and(|source| {
            serde_json::from_slice::<Value>(e.json)
                .is_ok_and(|value| source.holds(&value, Copying::Verbatim))
        })
    }
}

/// A fork's chain as read: its files nearest first, with what the walk had to say.
pub struct Up {
    pub files: Vec<Arc<Chained>>,
    /// `(place, why)`: a cycle cut, a limit reached, a file that could not be read.
    pub warnings: Vec<(PathBuf, String)>,
    /// Every file the walk read (a header, or whole), listed or not, and the chain's end that
    /// could not be read: what the outcome depends on besides the listing (the family cache).
    pub read: Vec<PathBuf>,
    /// A `parentSession` up the chain was a relative name (resolved against the cwd).
    pub relative: bool,
}

impl Up {
    /// The farthest file of the chain holding `e`: the one that first held it.
    pub fn owner(&self, e: &EntryLine) -> Option<&Chained> {
        self.files.iter().rev().find(|f| f.holds(e)).map(|f| &**f)
    }
}

impl<'a> Chains<'a> {
    /// `paths` lists the store's (or the report's) files, when a fork first asks; relative
    /// `parentSession`s resolve against `process_cwd`, as pi's do.
    pub fn new(process_cwd: &Path, paths: impl Fn() -> Vec<PathBuf> + Sync + 'a) -> Chains<'a> {
        Chains {
            cwd: process_cwd.to_owned(),
            paths: Box::new(paths),
            keyed: OnceLock::new(),
            by_name: OnceLock::new(),
            sources: Mutex::new(HashMap::new()),
        }
    }

    fn keys(&self) -> PathKeys {
        PathKeys::new(&self.cwd)
    }

    /// Whether `key` (keyed) is one of the files listed.
    pub fn contains(&self, key: &Path) -> bool {
        let keyed = self.keyed.get_or_init(|| {
            let mut keys = self.keys();
            (self.paths)().iter().map(|p| keys.key(p)).collect()
        });
        keyed.contains(key)
    }

    /// The chain file `key` when it is listed, else the listed file of its name, else `key`.
    pub fn resolve(&self, key: &Path) -> PathBuf {
        if self.contains(key) {
            return key.to_owned();
        }
        let by_name = self.by_name.get_or_init(|| {
            let mut keys = self.keys();
            let paths = (self.paths)();
            (paths.iter())
                .filter_map(|p| Some((p.file_name()?.to_owned(), keys.key(p))))
                .collect()
        });
        (key.file_name())
            .and_then(|name| by_name.get(name))
            .map_or_else(|| key.to_owned(), PathBuf::clone)
    }

    /// The files up the chain of the session at `path` whose header names `parent_session`
    /// (non-empty), nearest first; `listed_only` keeps only the files listed (a report matches
    /// copies against the files it counts, no others).
    pub fn up(&self, path: &Path, parent_session: &str, listed_only: bool) -> Up {
        let mut warnings = Vec::new();
        let mut read = Vec::new();
        let mut relative = !Path::new(parent_session).is_absolute();
        let mut keys = self.keys();
        let own = keys.key(path);
        let Chain { mut files, end } = chain(path, parent_session, &mut keys, MAX_CHAIN, |p| {
            let resolved = self.resolve(p);
            let header = read_header(&resolved);
            read.push(resolved);
            if let Ok(Some(p)) = header.as_ref().map(|h| h.parent_session.as_deref()) {
                relative |= !p.is_empty() && !Path::new(p).is_absolute();
            }
            header
                .map(|h| h.parent_session)
                .map_err(|e| io::Error::other(e.to_string()))
        });
        match &end {
            End::Cycle(at) => {
                let members = match files.iter().position(|f| f == at) {
                    Some(i) => files[i..].to_vec(),
                    None => std::iter::once(own).chain(files.clone()).collect(),
                };
                let cut = members.iter().min().expect("a cycle has members").clone();
                match files.iter().position(|f| *f == cut) {
                    Some(i) => files.truncate(i + 1),
                    None => files.clear(),
                }
                warnings.push((
                    path.to_owned(),
                    format!(
                        "its parentSession chain comes back to {}: the cycle is counted as if {} had none",
                        at.display(),
                        cut.display()
                    ),
                ));
            }
            End::Limit => warnings.push((
                path.to_owned(),
                format!(
                    "its parentSession chain is longer than {MAX_CHAIN} files: \
                     its copies are matched against the first {MAX_CHAIN} only"
                ),
            )),
            End::Root | End::Missing(..) => {}
        }
        let mut up = Vec::new();
        let files = files.iter().map(|f| self.resolve(f));
        for file in files.filter(|f| !listed_only || self.contains(f)) {
            match self.source(&file) {
                Ok(source) => up.push(source),
                Err(e) => warnings.push((file, format!("cannot read it to match its copies: {e}"))),
            }
        }
        Up {
            files: up,
            warnings,
            read,
            relative,
        }
    }

    /// The entries of the chain file `key`, read once.
    fn source(&self, key: &Path) -> Result<Arc<Chained>, ScanError> {
        let known = self.sources.lock().ok().and_then(|s| s.get(key).cloned());
        if let Some(source) = known {
            return Ok(source);
        }
        let (mut lines, mut ids) = (HashSet::new(), HashSet::new());
        let report = Pass::new().run(Input::Path(key), |_, e| {
            if let Some(id) = &e.id {
                lines.insert(xxh3_128(e.json));
                ids.insert(Box::from(&**id));
            }
            ControlFlow::Continue(())
        })?;
        let source = Arc::new(Chained {
            path: key.to_owned(),
            session_id: report.header.id,
            lines,
            ids,
            parsed: OnceLock::new(),
        });
        if let Ok(mut sources) = self.sources.lock() {
            sources.insert(key.to_owned(), Arc::clone(&source));
        }
        Ok(source)
    }
}
