//! The entries a fork or clone copied, for the fact stream: each is emitted under the session
//! that first held it (the farthest file up the `parentSession` chain holding it, by
//! `pisess_store::family::copies`' rule: same id, same content but what pi rewrites), so an
//! engine keyed by `(sessionId, entryId)` counts it once however many copies were made or
//! synced to other machines. Which file a `parentSession` names (the store's file of that name
//! when the path is not the store's) is `pisess_store::family::chains`'.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use pisess_format::scan::{Input, Pass};
use pisess_store::family::chains::Chains;

/// The chains' files read so far (many forks share a source).
pub(super) struct Forks {
    chains: Chains<'static>,
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
        let listed: Vec<PathBuf> = listed.map(Path::to_owned).collect();
        Forks {
            chains: Chains::new(process_cwd, move || listed.clone()),
        }
    }

    /// The copies of the session at `path` whose header names `parent_session`.
    pub(super) fn copied(&mut self, path: &Path, parent_session: &str) -> Copied {
        let up = self.chains.up(path, parent_session, false);
        let mut owners = HashMap::new();
        if !up.files.is_empty() {
            let _ = Pass::new().run(Input::Path(path), |_, e| {
                if let (Some(id), Some(owner)) = (&e.id, up.owner(e)) {
                    owners.insert(id.to_string(), owner.session_id.clone());
                }
                ControlFlow::Continue(())
            });
        }
        Copied {
            fork_of: up.files.first().map(|u| u.session_id.clone()),
            owners,
        }
    }
}
