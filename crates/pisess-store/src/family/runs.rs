//! The child sessions a subagent extension wrote beside a session: found by their place, since
//! the children pi-subagents writes carry no `parentSession` (their header is a plain
//! `SessionManager` one) and pi's listing, one folder deep, never sees them.
//!
//! A session `<dir>/<stem>.jsonl` owns the folder `<dir>/<stem>/` (pi-subagents'
//! `getSubagentSessionRoot`). Under it, the layouts read are (research 44-families.md §1.1):
//!
//! - `<runId>/run-<n>/session.jsonl`: pi-subagents 0.18 and later ([`Made::Run`]);
//! - `<runId>/run-<n>/<ts>_<uuid>.jsonl`: pi-subagents 0.11.1 to 0.17, the child started with
//!   `--session-dir run-<n>` (any `*.jsonl` in `run-<n>/`, [`Made::Run`]);
//! - `forks/*.jsonl`: `context: "fork"` children since 0.52.1, a copy of the parent's branch with
//!   a `parentSession` header ([`Made::Fork`]);
//! - `async-<id>/*.jsonl`, `async-<id>/parallel-<i>/*.jsonl`, `async-<id>/dynamic-<s>-<t>/*.jsonl`,
//!   directly under `<stem>/` or under `<stem>/<runId>/`: the background runner's files when a
//!   step has no file of its own ([`Made::Async`]).
//!
//! A `<runId>` is what pi-subagents makes: 8 lowercase hex digits (before 0.50) or a lowercase
//! UUID. A child file `X.jsonl` owns `X/` beside it in turn (`run-0/session/` for
//! `run-0/session.jsonl`): a nested subagent's runs, read the same way, down to
//! [`Limits::depth`].
//!
//! Foreign files and folders (`subagent-artifacts`, `*.pruned-recovery.json`, notes, names of
//! another shape) are passed over in silence. Rules that keep a hostile tree harmless:
//!
//! - **No symlinked folder is followed**, whether it points into the store or out of it: the
//!   extension makes real folders, so a link there is not its layout, and a folder entered only
//!   when it is a real one can neither leave the store nor loop. It is reported
//!   ([`Problem::SymlinkedFolder`]). A symlinked `*.jsonl` is a child when its target is a
//!   regular file, as the listing takes a project folder's files.
//! - **Bounded**: at most [`Limits::children`] children per session and [`Limits::entries`]
//!   folder entries looked at, over every depth; past a limit the walk stops and says which
//!   ([`Runs::limited`]). Each folder is read once, its names sorted, so 10,000 runs cost 10,000
//!   `readdir`s and a sort, never a walk of anything else.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use pisess_format::util::file::kind_of;

/// How a child session was made, as its place says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    /// A subagent run: `<runId>/run-<n>/…`.
    Run,
    /// A subagent started with the parent's branch (`context: "fork"`): `forks/…`.
    Fork,
    /// A background run's file: `async-<id>/…`.
    Async,
}

impl Made {
    /// The word for `--json` and the human views.
    pub fn as_str(self) -> &'static str {
        match self {
            Made::Run => "subagent",
            Made::Fork => "fork",
            Made::Async => "async",
        }
    }
}

/// One child session found under a session (or under another child).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Child {
    pub path: PathBuf,
    pub made: Made,
    /// The `<runId>` folder it is in, where the layout has one.
    pub run_id: Option<String>,
    /// `n` of `run-<n>` (the task's index in its run) or `i` of `parallel-<i>`.
    pub index: Option<u32>,
    /// `id` of the `async-<id>` folder it is in.
    pub async_id: Option<String>,
    /// The child it was found under, an index into [`Runs::children`]; `None`: the session
    /// itself.
    pub parent: Option<usize>,
    /// 1 for the session's own children, 2 for theirs, and so on.
    pub depth: u32,
    /// The file is a symbolic link (to a regular file); every folder on its way from the
    /// session's folder is a real one, as the walk enters no other.
    pub link: bool,
}

/// How far a walk goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The deepest level read: 1 reads the session's own children only. pi-subagents nests two
    /// levels by default (`DEFAULT_SUBAGENT_MAX_DEPTH`).
    pub depth: u32,
    /// Children kept, over every depth.
    pub children: usize,
    /// Folder entries looked at, over every folder: what bounds a tree of foreign files.
    pub entries: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            depth: 4,
            children: 100_000,
            entries: 1_000_000,
        }
    }
}

/// Which limit stopped a walk: the children found are then only some of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// A child at the deepest level has a folder of its own that was not read.
    Depth,
    Children,
    Entries,
}

/// Something in a session's folder that looks like a child and was not read.
#[derive(Debug)]
pub enum Problem {
    /// A symbolic link to a folder, where a layout has a folder: never followed.
    SymlinkedFolder,
    /// A `*.jsonl` that is a FIFO, socket, device or folder (or a link to one), as
    /// [`kind_of`] names it.
    NotRegular(&'static str),
    /// A `*.jsonl` link whose target is gone.
    Dangling,
    /// A folder that could not be read: its children are missing.
    Unreadable(io::Error),
}

impl Problem {
    /// What to say about the path, after its name.
    pub fn describe(&self) -> String {
        match self {
            Problem::SymlinkedFolder => {
                "a symbolic link to a folder: not followed, its subagent runs are not read".into()
            }
            Problem::NotRegular(kind) => format!("skipped: not a regular file ({kind})"),
            Problem::Dangling => "skipped: a symbolic link to nothing".into(),
            Problem::Unreadable(e) => format!(
                "cannot read this folder: {}; its subagent runs are not read",
                pisess_format::util::warning::io_cause(e)
            ),
        }
    }
}

/// What [`find`] found.
#[derive(Debug, Default)]
pub struct Runs {
    /// Depth first: each child before its own children, the folders in name order (`run-<n>`
    /// and `parallel-<i>` by number).
    pub children: Vec<Child>,
    pub problems: Vec<(PathBuf, Problem)>,
    /// The limit that stopped the walk, if one did.
    pub limited: Option<Limit>,
}

/// The folder a session's children are in: `<dir>/<stem>` for `<dir>/<stem>.jsonl`; `None` for
/// a name that does not end in `.jsonl` (a stream, a file named otherwise).
pub fn stem_folder(session: &Path) -> Option<PathBuf> {
    if session.extension()? != "jsonl" {
        return None;
    }
    Some(session.with_file_name(session.file_stem()?))
}

/// The children of `session` (its subagent runs, forks and background runs, and theirs), found
/// under [`stem_folder`] as the module doc says. A session without that folder has none, at the
/// cost of one `lstat`.
pub fn find(session: &Path, limits: Limits) -> Runs {
    walk(session, limits, None).runs
}

/// [`find`], and every folder the walk read with its `lstat` from just before the read (the
/// stem folder first), for the run cache (`cache::runs`) to check the walk against next time;
/// `None` when the walk is not one to remember: it met a symbolic link (whose target can
/// change without any folder's entries changing), a problem or a limit, or a folder that
/// could not be `lstat`ed as a real one.
pub(crate) fn find_recorded(
    session: &Path,
    limits: Limits,
) -> (Runs, Option<Vec<(PathBuf, fs::Metadata)>>) {
    let walk = walk(session, limits, Some(Vec::new()));
    let kept = walk
        .read
        .filter(|_| walk.runs.problems.is_empty() && walk.runs.limited.is_none() && !walk.unsure);
    (walk.runs, kept)
}

fn walk(session: &Path, limits: Limits, read: Option<Vec<(PathBuf, fs::Metadata)>>) -> Walk {
    let mut walk = Walk {
        limits,
        seen: 0,
        runs: Runs::default(),
        read,
        unsure: false,
    };
    if let Some(folder) = stem_folder(session) {
        match fs::symlink_metadata(&folder) {
            Ok(meta) if meta.is_dir() => walk.stem(&folder, None, 1),
            Ok(meta)
                if meta.file_type().is_symlink()
                    && fs::metadata(&folder).is_ok_and(|m| m.is_dir()) =>
            {
                walk.runs.problems.push((folder, Problem::SymlinkedFolder));
            }
            _ => walk.unsure = true,
        }
    } else {
        walk.unsure = true;
    }
    walk
}

/// A folder's entries that may matter: `*.jsonl` files and real folders, each in name order.
#[derive(Default)]
struct Folder {
    /// With whether each is a symbolic link.
    files: Vec<(String, PathBuf, bool)>,
    folders: Vec<(String, PathBuf)>,
}

struct Walk {
    limits: Limits,
    /// Folder entries looked at so far.
    seen: usize,
    runs: Runs,
    /// When recording ([`find_recorded`]): each folder read, with its `lstat` before the read.
    read: Option<Vec<(PathBuf, fs::Metadata)>>,
    /// The walk met what the folders' keys cannot vouch for (a symbolic link, a folder that
    /// could not be `lstat`ed or read): not to be remembered.
    unsure: bool,
}

/// Where the files of one layout folder are, for their [`Child`] records.
#[derive(Clone)]
struct Place {
    made: Made,
    run_id: Option<String>,
    index: Option<u32>,
    async_id: Option<String>,
}

impl Walk {
    fn stopped(&self) -> bool {
        self.runs.limited.is_some_and(|l| l != Limit::Depth)
    }

    /// Reads `dir`: its `*.jsonl` files (regular, or links to regular files) and its real
    /// folders, with names that are UTF-8 (every layout's are); links to folders and files
    /// that cannot be read are reported. `None` once a limit is reached.
    fn read(&mut self, dir: &Path) -> Option<Folder> {
        if self.stopped() {
            return None;
        }
        // The key before the read: an entry added after it changes the folder's mtime.
        if let Some(read) = self.read.as_mut() {
            match fs::symlink_metadata(dir) {
                Ok(meta) if meta.is_dir() => read.push((dir.to_path_buf(), meta)),
                _ => self.unsure = true,
            }
        }
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.unsure = true;
                return Some(Folder::default());
            }
            Err(e) => {
                self.runs
                    .problems
                    .push((dir.to_path_buf(), Problem::Unreadable(e)));
                return Some(Folder::default());
            }
        };
        let mut folder = Folder::default();
        for entry in entries.flatten() {
            self.seen += 1;
            if self.seen > self.limits.entries {
                self.runs.limited = Some(Limit::Entries);
                return None;
            }
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let Ok(kind) = entry.file_type() else {
                self.unsure = true;
                continue;
            };
            if kind.is_symlink() {
                self.unsure = true;
            }
            let path = entry.path();
            let jsonl = name.len() > ".jsonl".len() && name.ends_with(".jsonl");
            if kind.is_dir() {
                if jsonl {
                    let problem = Problem::NotRegular(kind_of(kind));
                    self.runs.problems.push((path, problem));
                } else {
                    folder.folders.push((name, path));
                }
            } else if kind.is_symlink() {
                match fs::metadata(&path) {
                    Ok(m) if m.is_dir() => {
                        self.runs.problems.push((path, Problem::SymlinkedFolder));
                    }
                    Ok(m) if jsonl && !m.is_file() => {
                        let problem = Problem::NotRegular(kind_of(m.file_type()));
                        self.runs.problems.push((path, problem));
                    }
                    Err(e) if jsonl && e.kind() == io::ErrorKind::NotFound => {
                        self.runs.problems.push((path, Problem::Dangling));
                    }
                    // A link that cannot be followed for another reason is left to the read,
                    // which says why.
                    _ if jsonl => folder.files.push((name, path, true)),
                    _ => {}
                }
            } else if jsonl {
                if kind.is_file() {
                    folder.files.push((name, path, false));
                } else {
                    let problem = Problem::NotRegular(kind_of(kind));
                    self.runs.problems.push((path, problem));
                }
            }
        }
        folder.files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        folder.folders.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Some(folder)
    }

    /// A session's (or a child's) own folder: `<runId>/`, `forks/`, `async-<id>/`.
    fn stem(&mut self, dir: &Path, parent: Option<usize>, depth: u32) {
        let Some(folder) = self.read(dir) else {
            return;
        };
        for (name, path) in &folder.folders {
            if self.stopped() {
                return;
            }
            if name == "forks" {
                let place = Place {
                    made: Made::Fork,
                    run_id: None,
                    index: None,
                    async_id: None,
                };
                self.files(path, &place, parent, depth);
            } else if let Some(id) = async_id(name) {
                self.background(path, None, id, parent, depth);
            } else if is_run_id(name) {
                self.run_id(path, name, parent, depth);
            }
        }
    }

    /// `<runId>/`: `run-<n>/` in the order of `n`, and background runs.
    fn run_id(&mut self, dir: &Path, run_id: &str, parent: Option<usize>, depth: u32) {
        let Some(folder) = self.read(dir) else {
            return;
        };
        let mut runs: Vec<(u32, &PathBuf)> = folder
            .folders
            .iter()
            .filter_map(|(name, path)| Some((number(name.strip_prefix("run-")?)?, path)))
            .collect();
        runs.sort_by_key(|r| r.0);
        for (n, path) in runs {
            let place = Place {
                made: Made::Run,
                run_id: Some(run_id.to_owned()),
                index: Some(n),
                async_id: None,
            };
            self.files(path, &place, parent, depth);
        }
        for (name, path) in &folder.folders {
            if let Some(id) = async_id(name) {
                self.background(path, Some(run_id), id, parent, depth);
            }
        }
    }

    /// `async-<id>/`: its files, then those of its `parallel-<i>/` lanes (by `i`) and
    /// `dynamic-<s>-<t>/` steps.
    fn background(
        &mut self,
        dir: &Path,
        run_id: Option<&str>,
        id: &str,
        parent: Option<usize>,
        depth: u32,
    ) {
        let place = Place {
            made: Made::Async,
            run_id: run_id.map(str::to_owned),
            index: None,
            async_id: Some(id.to_owned()),
        };
        let Some(folder) = self.files(dir, &place, parent, depth) else {
            return;
        };
        let mut lanes: Vec<(Option<u32>, &PathBuf)> = folder
            .folders
            .iter()
            .filter_map(|(name, path)| {
                if let Some(i) = name.strip_prefix("parallel-").and_then(number) {
                    return Some((Some(i), path));
                }
                let (s, t) = name.strip_prefix("dynamic-")?.split_once('-')?;
                (number(s).is_some() && number(t).is_some()).then_some((None, path))
            })
            .collect();
        // Lanes by number, then the dynamic steps in name order.
        lanes.sort_by_key(|l| l.0.map_or((1, 0), |i| (0, i)));
        for (index, path) in lanes {
            let place = Place {
                index,
                ..place.clone()
            };
            self.files(path, &place, parent, depth);
        }
    }

    /// The `*.jsonl` files of a layout folder as children at `depth`, each followed by its own
    /// children when the folder holds a real folder named as its stem. Returns the folder read.
    fn files(
        &mut self,
        dir: &Path,
        place: &Place,
        parent: Option<usize>,
        depth: u32,
    ) -> Option<Folder> {
        let folder = self.read(dir)?;
        for (name, path, link) in &folder.files {
            if self.stopped() {
                return None;
            }
            if self.runs.children.len() >= self.limits.children {
                self.runs.limited = Some(Limit::Children);
                return None;
            }
            let at = self.runs.children.len();
            self.runs.children.push(Child {
                path: path.clone(),
                made: place.made,
                run_id: place.run_id.clone(),
                index: place.index,
                async_id: place.async_id.clone(),
                parent,
                depth,
                link: *link,
            });
            let stem = &name[..name.len() - ".jsonl".len()];
            // The folders are in name order: a folder of 10,000 runs, each with a folder of its
            // own, is not 10,000 squared comparisons.
            let own = folder
                .folders
                .binary_search_by(|(n, _)| n.as_str().cmp(stem));
            if let Ok(own) = own {
                if depth < self.limits.depth {
                    self.stem(&folder.folders[own].1, Some(at), depth + 1);
                } else {
                    self.runs.limited.get_or_insert(Limit::Depth);
                }
            }
        }
        Some(folder)
    }
}

/// A pi-subagents run id: 8 lowercase hex digits, or a lowercase UUID.
fn is_run_id(name: &str) -> bool {
    let hex = |s: &str| s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    match name.len() {
        8 => hex(name),
        36 => {
            let parts: Vec<&str> = name.split('-').collect();
            parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12]) && parts.iter().all(|p| hex(p))
        }
        _ => false,
    }
}

/// `<id>` of an `async-<id>` folder: letters, digits, `-` and `_`.
fn async_id(name: &str) -> Option<&str> {
    let id = name.strip_prefix("async-")?;
    let ok = !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    ok.then_some(id)
}

/// A number as JavaScript's template string writes one: decimal, no sign, no leading zero.
fn number(s: &str) -> Option<u32> {
    let n: u32 = s.parse().ok()?;
    (n.to_string() == s).then_some(n)
}

#[cfg(test)]
mod tests;
