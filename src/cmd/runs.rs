//! The subagent runs of a listing's sessions as units of their own (issue 44): `grep --all`,
//! `grep --secrets --all` and `check --all` read each run as a session and report it under the
//! session it was found under, since a child's leaked token is the parent's leak too and pi's
//! listing, one folder deep, never sees it.
//!
//! Found by `pisess_store::family::runs` (its limits; a symlinked folder is never followed,
//! only said), under the sessions whose stem folder the listing met as it read the project
//! folders ([`stem_files`]): the others cost nothing.

use std::path::PathBuf;

use crate::app::diag::Diag;
use pisess_store::family::runs::{self, Limit, Limits, Made};

/// One file to read: a listed session, or a run found under one.
pub struct Unit {
    pub path: PathBuf,
    /// The unit it was found under (an index into the same list, always before it) and how it
    /// was made; `None` for a listed session.
    pub under: Option<(usize, Made)>,
}

/// The session files that have a real folder of their stem beside them (`X.jsonl` for `X/`),
/// of the folders a listing met.
pub fn stem_files(folders: Vec<PathBuf>) -> hashbrown::HashSet<PathBuf> {
    (folders.into_iter())
        .map(|folder| {
            let mut file = folder.into_os_string();
            file.push(".jsonl");
            PathBuf::from(file)
        })
        .collect()
}

/// Of `files`, those that have a real folder of their stem beside them (a symlink to a folder
/// is not one: `runs::find` says so when it meets one inside), for [`with_runs`] on files named
/// one by one rather than listed.
pub fn stems_of<'a>(files: impl IntoIterator<Item = &'a PathBuf>) -> hashbrown::HashSet<PathBuf> {
    (files.into_iter())
        .filter(|f| {
            runs::stem_folder(f)
                .and_then(|d| std::fs::symlink_metadata(d).ok())
                .is_some_and(|m| m.is_dir())
        })
        .cloned()
        .collect()
}

/// `files` in their order, each followed by its runs (depth first, each run before its own);
/// only the files in `stems` are looked under.
/// What the walk could not read is a warning, each path given through `redact` (a folder's
/// name is text from the session's project).
pub fn with_runs(
    files: impl IntoIterator<Item = PathBuf>,
    stems: &hashbrown::HashSet<PathBuf>,
    diag: &mut Diag,
    redact: &dyn Fn(&str) -> String,
) -> Vec<Unit> {
    let limits = Limits::default();
    let mut units = Vec::new();
    for path in files {
        if !stems.contains(&path) {
            units.push(Unit { path, under: None });
            continue;
        }
        let found = runs::find(&path, limits);
        let top = units.len();
        for (place, problem) in &found.problems {
            diag.warn(
                &redact(&place.display().to_string()),
                None,
                &problem.describe(),
            );
        }
        if let Some(limit) = found.limited {
            let why = match limit {
                Limit::Depth => format!(
                    "subagent runs nested deeper than {} levels are not read",
                    limits.depth
                ),
                Limit::Children => format!(
                    "more than {} subagent runs: only the first {} are read",
                    limits.children, limits.children
                ),
                Limit::Entries => format!(
                    "more than {} entries in its subagent folders: only the runs found before are read",
                    limits.entries
                ),
            };
            diag.warn(&redact(&path.display().to_string()), None, &why);
        }
        units.push(Unit { path, under: None });
        for child in found.children {
            let parent = child.parent.map_or(top, |p| top + 1 + p);
            units.push(Unit {
                path: child.path,
                under: Some((parent, child.made)),
            });
        }
    }
    units
}

/// What a run's heading says of where it was found: `subagent run of <parent>`, the parent
/// named by its short id (its file name when it could not be read).
pub fn of(made: Made, parent: &str) -> String {
    match made {
        Made::Run => format!("subagent run of {parent}"),
        Made::Fork => format!("subagent fork of {parent}"),
        Made::Async => format!("background subagent run of {parent}"),
    }
}

/// `--json`'s `subagentOf` (docs/json.md): the session a run was found under, and how the run
/// was made.
pub fn json_of(session: &str, path: &str, made: Made) -> serde_json::Value {
    // `sessionId`: the one vocabulary's name (docs/json.md) beside `session`, which stays.
    serde_json::json!({"session": session, "path": path, "made": made.as_str(), "sessionId": session})
}
