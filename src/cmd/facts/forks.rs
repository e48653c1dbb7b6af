//! The entries a fork or clone copied, for the fact stream: each is emitted under the session
//! that first held it (the farthest file up the `parentSession` chain holding it, by
//! `pisess_store::family::copies`' rule: same id, same content but what pi rewrites), so an
//! engine keyed by `(sessionId, entryId)` counts it once however many copies were made or
//! synced to other machines.
//!
//! A `parentSession` names a path on the machine that made the fork. When that path cannot be
//! read here (the store was synced from another home), the file of the same name in the store
//! read is taken: pi names session files `<time>_<session id>.jsonl`, so the name is the
//! session.

use std::collections::HashMap;
use std::ffi::OsString;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::Value;

use pisess_format::scan::{Input, Pass};
use pisess_store::family::copies::{self, Copying, Source};
use pisess_store::family::thread::PathKeys;

/// How far up a chain of forks is followed.
const MAX_CHAIN: usize = 64;

/// A file up a chain: its session id, its own `parentSession`, its entries.
struct Up {
    id: String,
    parent: Option<String>,
    source: Source,
}

/// The chains' files read so far (many forks share a source).
pub(super) struct Forks {
    keys: PathKeys,
    by_name: HashMap<OsString, PathBuf>,
    read: HashMap<PathBuf, Rc<Up>>,
}

/// A fork's source and the owner of each copied entry.
pub(super) struct Copied {
    /// The session its header's `parentSession` names, when that file was read.
    pub(super) fork_of: Option<String>,
    /// Entry id to the session id it is emitted under.
    pub(super) owners: HashMap<String, String>,
}

impl Forks {
    /// `listed`: the store's session files, to find a source by name.
    pub(super) fn new<'a>(process_cwd: &Path, listed: impl Iterator<Item = &'a Path>) -> Forks {
        Forks {
            keys: PathKeys::new(process_cwd),
            by_name: listed
                .filter_map(|p| Some((p.file_name()?.to_owned(), p.to_owned())))
                .collect(),
            read: HashMap::new(),
        }
    }

    /// The copies of the session at `path` whose header names `parent_session`.
    pub(super) fn copied(&mut self, path: &Path, parent_session: &str) -> Copied {
        let Forks {
            keys,
            by_name,
            read,
        } = self;
        let chain = copies::chain(path, parent_session, keys, MAX_CHAIN, |p| {
            up(read, by_name, p).map(|u| u.parent.clone())
        });
        let ups: Vec<Rc<Up>> = (chain.files.iter())
            .filter_map(|p| up(read, by_name, p).ok())
            .collect();
        let mut owners = HashMap::new();
        if !ups.is_empty() {
            let _ = Pass::new().run(Input::Path(path), |_, e| {
                if let Some(id) = &e.id {
                    if let Ok(v) = serde_json::from_slice::<Value>(e.json) {
                        // The farthest file holding it first held it.
                        if let Some(u) = ups
                            .iter()
                            .rev()
                            .find(|u| u.source.holds(&v, Copying::Verbatim))
                        {
                            owners.insert(id.to_string(), u.id.clone());
                        }
                    }
                }
                ControlFlow::Continue(())
            });
        }
        Copied {
            fork_of: ups.first().map(|u| u.id.clone()),
            owners,
        }
    }
}

/// The file at `path` (else the store's file of that name) read once for the run.
fn up(
    read: &mut HashMap<PathBuf, Rc<Up>>,
    by_name: &HashMap<OsString, PathBuf>,
    path: &Path,
) -> std::io::Result<Rc<Up>> {
    let path = match (path.exists(), path.file_name().and_then(|n| by_name.get(n))) {
        (false, Some(listed)) => listed.as_path(),
        _ => path,
    };
    if let Some(u) = read.get(path) {
        return Ok(Rc::clone(u));
    }
    let mut source = Source::default();
    let report = Pass::new()
        .run(Input::Path(path), |_, e| {
            if let Ok(v) = serde_json::from_slice::<Value>(e.json) {
                source.add(&v);
            }
            ControlFlow::Continue(())
        })
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let u = Rc::new(Up {
        id: report.header.id.clone(),
        parent: report.header.parent_session.clone(),
        source,
    });
    read.insert(path.to_owned(), Rc::clone(&u));
    Ok(u)
}
