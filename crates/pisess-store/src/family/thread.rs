//! A listing threaded as pi 1.6's `/resume` threads it (`buildSessionTree` and
//! `flattenSessionTree`, `modes/interactive/components/session-selector.js`), with subagent runs
//! added under the file they were found under.
//!
//! pi's rules, kept exactly for the listed sessions:
//!
//! - A session's key is its path made canonical (`realpath`; when that fails, the path resolved
//!   against the process cwd without touching the disk; case folded on Windows): [`PathKeys`].
//! - A session hangs under the session its header `parentSession` names (a non-empty string, keyed
//!   the same way) when that one is listed too; otherwise (the source gone, in another project,
//!   filtered out, or a subagent run, which pi does not list) it is a root, without a word.
//! - A node's latest activity is the latest `modified` in its subtree; roots and every node's
//!   children are ordered by it, newest first, and ties keep the listing's order (JavaScript's
//!   sort is stable). The rows are the forest in pre-order, roots at depth 0.
//!
//! Where pisess departs from pi, and why:
//!
//! - **Cycles** (a session that names itself, A→B→A): pi puts each member under another, so none
//!   is a root and the cycle, with all that hangs under it, vanishes from the threaded list. A
//!   listing that silently loses sessions reads as "they are gone", so here the cycle is cut at
//!   its member listed first (pi's order: the newest), which becomes a root, and the cycle is
//!   returned ([`Forest::cycles`]) for a warning. Every other row is where pi puts it.
//! - **One file listed under two paths** (a symlink to another listed file): pi's map keeps the
//!   last, shows it twice and never shows the first (and a parent link into such a pair can send
//!   its walk round forever). Here each listed path is a row once; a `parentSession` naming the
//!   shared key goes to the last listed, as pi's map would send it.
//! - **Subagent runs** ([`Found`]) are not pi's rows: each hangs under the file it was found
//!   under (or is a root when that file is not in the set, [`Forest::orphans`]). They are ordered
//!   among their siblings by their own subtree's latest activity, but never lift their parent's:
//!   pi's rows keep exactly pi's order, so removing the run rows gives pi's list.
//! - A `parentSession` that is not a string is no link here (the header keeps strings only); pi
//!   throws on a truthy non-string.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

// hashbrown's hasher, not SipHash: the keys are paths of 60-100 bytes, some 10,000 a run,
// looked up two to four times each (SipHash was 1.5 M instructions of `ls --tree` over
// 1,000 sessions).
use hashbrown::HashMap;

use crate::locate::resolve;

/// A listed session: what pi's `SessionInfo` gives threading.
#[derive(Debug, Clone, Copy)]
pub struct Listed<'a> {
    pub path: &'a Path,
    /// The header's `parentSession`, as stored.
    pub parent_session: Option<&'a str>,
    /// pi's `modified` (`Summary::modified_ms`).
    pub modified_ms: i64,
}

/// A child session found by its place ([`super::runs`]): under `parent`, a listed session's
/// path or another found child's.
#[derive(Debug, Clone, Copy)]
pub struct Found<'a> {
    pub path: &'a Path,
    pub parent: &'a Path,
    pub modified_ms: i64,
}

/// A row's session: an index into the listed sessions or into the found children.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node {
    Listed(usize),
    Found(usize),
}

/// One row of the threaded list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub node: Node,
    /// 0 for a root.
    pub depth: usize,
    pub parent: Option<Node>,
    /// The last of its siblings (pi's `isLast`), for drawing the tree.
    pub last: bool,
    /// The latest activity of its subtree, by which it is ordered among its siblings.
    pub latest_ms: i64,
}

/// The threaded list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Forest {
    pub rows: Vec<Row>,
    /// Each `parentSession` cycle that was cut: its member made a root first, then the others
    /// from the top of its subtree down.
    pub cycles: Vec<Vec<Node>>,
    /// Found children whose parent is not in the set: roots.
    pub orphans: Vec<usize>,
}

/// Threads `listed` (in the listing's order: pi's, newest `modified` first) and `found`, keying
/// every path with `key` (a [`PathKeys`], or anything that keys as pi does).
pub fn thread(listed: &[Listed], found: &[Found], key: &mut dyn FnMut(&Path) -> PathBuf) -> Forest {
    let keys: Vec<PathBuf> = listed.iter().map(|s| key(s.path)).collect();
    thread_keyed(listed, &keys, found, key)
}

/// [`thread`] with the listed paths' keys given, one a listed session, in order (a listing
/// keys its files without a `stat` each: [`PathKeys::key_listed`]).
pub fn thread_keyed(
    listed: &[Listed],
    listed_keys: &[PathBuf],
    found: &[Found],
    key: &mut dyn FnMut(&Path) -> PathBuf,
) -> Forest {
    let n = listed.len() + found.len();
    let node = |i: usize| {
        if i < listed.len() {
            Node::Listed(i)
        } else {
            Node::Found(i - listed.len())
        }
    };
    // pi's `byPath`: a key listed twice goes to the last. Keyed by the path's bytes: a
    // `Path` hashes component by component, a third of threading 10,000 sessions.
    let key_bytes = |key: &mut dyn FnMut(&Path) -> PathBuf, p: &Path| key(p).into_os_string();
    let mut by_key: HashMap<&OsStr, usize> = HashMap::with_capacity(listed.len());
    for (i, k) in listed_keys.iter().enumerate() {
        by_key.insert(k.as_os_str(), i);
    }
    let mut found_by_key: HashMap<OsString, usize> = HashMap::with_capacity(found.len());
    for (i, f) in found.iter().enumerate() {
        found_by_key.insert(key_bytes(key, f.path), listed.len() + i);
    }
    let mut forest = Forest::default();
    let mut parent: Vec<Option<usize>> = Vec::with_capacity(n);
    for s in listed {
        let link = s.parent_session.filter(|p| !p.is_empty());
        parent.push(link.and_then(|p| by_key.get(&*key_bytes(key, Path::new(p))).copied()));
    }
    for (i, f) in found.iter().enumerate() {
        let k = key_bytes(key, f.parent);
        let p = found_by_key.get(&k).or_else(|| by_key.get(&*k)).copied();
        if p.is_none() {
            forest.orphans.push(i);
        }
        parent.push(p);
    }
    forest.cycles = cut_cycles(&mut parent)
        .into_iter()
        .map(|c| c.into_iter().map(node).collect())
        .collect();

    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut roots = Vec::new();
    for (i, p) in parent.iter().enumerate() {
        match p {
            Some(p) => children[*p].push(i),
            None => roots.push(i),
        }
    }
    // Latest activity, children before parents (the reverse of a pre-order). A found child
    // lifts only found parents: pi's rows keep pi's order.
    let modified = |i: usize| {
        if i < listed.len() {
            listed[i].modified_ms
        } else {
            found[i - listed.len()].modified_ms
        }
    };
    let mut latest: Vec<i64> = (0..n).map(modified).collect();
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<usize> = roots.clone();
    while let Some(v) = stack.pop() {
        order.push(v);
        stack.extend(&children[v]);
    }
    for &v in order.iter().rev() {
        if let Some(p) = parent[v] {
            if (v < listed.len()) == (p < listed.len()) {
                latest[p] = latest[p].max(latest[v]);
            }
        }
    }
    let newest_first = |list: &mut Vec<usize>| list.sort_by_key(|&v| std::cmp::Reverse(latest[v]));
    newest_first(&mut roots);
    for list in &mut children {
        newest_first(list);
    }

    // pi's `flattenSessionTree`: pre-order, each node with its depth.
    forest.rows.reserve(n);
    let mut stack: Vec<(usize, usize, bool)> = Vec::new();
    let push = |stack: &mut Vec<(usize, usize, bool)>, list: &[usize], depth: usize| {
        for (at, &v) in list.iter().enumerate().rev() {
            stack.push((v, depth, at + 1 == list.len()));
        }
    };
    push(&mut stack, &roots, 0);
    while let Some((v, depth, last)) = stack.pop() {
        forest.rows.push(Row {
            node: node(v),
            depth,
            parent: parent[v].map(node),
            last,
            latest_ms: latest[v],
        });
        push(&mut stack, &children[v], depth + 1);
    }
    forest
}

/// Cuts every cycle of `parent` (each node has at most one parent) at its lowest index, which
/// becomes a root; returns the cycles, each from the node cut down its new subtree.
fn cut_cycles(parent: &mut [Option<usize>]) -> Vec<Vec<usize>> {
    const NEW: usize = usize::MAX;
    const DONE: usize = usize::MAX - 1;
    // For each node: NEW, DONE, or the walk that is on it.
    let mut state = vec![NEW; parent.len()];
    let mut cycles = Vec::new();
    for start in 0..parent.len() {
        let mut path = Vec::new();
        let mut at = Some(start);
        while let Some(v) = at {
            if state[v] == DONE {
                break;
            }
            if state[v] == start {
                // Back on this walk: the cycle is `path` from `v` on.
                let from = path.iter().position(|&x| x == v).expect("on the path");
                let cycle = &path[from..];
                let cut = *cycle.iter().min().expect("not empty");
                // Upward from `cut`, then reversed: the order the members hang below it.
                let mut members = vec![cut];
                let mut up: Option<usize> = parent[cut];
                while let Some(u) = up.filter(|&u| u != cut) {
                    members.push(u);
                    up = parent[u];
                }
                members[1..].reverse();
                parent[cut] = None;
                cycles.push(members);
                break;
            }
            state[v] = start;
            path.push(v);
            at = parent[v];
        }
        for v in path {
            state[v] = DONE;
        }
    }
    cycles
}

/// Keys paths as pi's `getSessionPathKey` does: `realpath`, or when it fails the path resolved
/// against `base` (the process cwd, as Node resolves it) without touching the disk; folded to
/// lower case on Windows. Folders are made canonical once each: a listing of 10,000 files in a
/// few folders costs one `lstat` per file, not a `realpath` of every component.
#[derive(Debug)]
pub struct PathKeys {
    base: PathBuf,
    /// By the folder's bytes: a `Path` hashes component by component.
    folders: HashMap<OsString, Option<PathBuf>>,
    /// The last folder's folder made canonical: a listing's project folders share it.
    parent: Option<(OsString, Option<PathBuf>)>,
}

impl PathKeys {
    pub fn new(process_cwd: &Path) -> PathKeys {
        PathKeys {
            base: process_cwd.to_path_buf(),
            folders: HashMap::new(),
            parent: None,
        }
    }

    pub fn key(&mut self, path: &Path) -> PathBuf {
        let key = self.canonical(path);
        if cfg!(windows) {
            PathBuf::from(key.to_string_lossy().to_lowercase())
        } else {
            key
        }
    }

    /// The key of a file a listing found: a symlink (`link`) as [`PathKeys::key`] keys it,
    /// any other file as its folder's canonical path and its name, without the `lstat` that
    /// would tell (10,000 of them were a seventh of `ls --tree`).
    pub fn key_listed(&mut self, path: &Path, link: bool) -> PathBuf {
        let known = (!link).then(|| self.in_canonical_folder(path)).flatten();
        match known {
            Some(key) if cfg!(windows) => PathBuf::from(key.to_string_lossy().to_lowercase()),
            Some(key) => key,
            None => self.key(path),
        }
    }

    /// The key of a file found under `folder` through real folders only, itself no symbolic
    /// link (a subagent run: `family::runs` enters no symlinked folder): `folder`'s canonical
    /// path and the rest of the path, without the `lstat` and `realpath` of the file's own
    /// folder (a run's folder is its own: 1,000 runs were 9,500 `readlink`s of `ls --tree`).
    /// `None` when `path` is not plainly under `folder`.
    pub fn key_beneath(&mut self, path: &Path, folder: &Path) -> Option<PathBuf> {
        let joined = |p: &Path| {
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                self.base.join(p)
            }
        };
        #[cfg(unix)]
        {
            use std::os::unix::ffi::{OsStrExt, OsStringExt};
            let (p, f) = (path.as_os_str().as_bytes(), folder.as_os_str().as_bytes());
            let under = p.len() > f.len() + 1 && p.starts_with(f) && p[f.len()] == b'/';
            if under && simple_split(p).is_some() && simple_split(f).is_some() {
                let canonical = self.canonical_folder(folder)?.as_os_str().as_bytes();
                let mut key = canonical.to_vec();
                if !canonical.ends_with(b"/") {
                    key.push(b'/');
                }
                key.extend_from_slice(&p[f.len() + 1..]);
                return Some(PathBuf::from(std::ffi::OsString::from_vec(key)));
            }
        }
        let (path, folder) = (joined(path), joined(folder));
        if !is_plain(&path) || !is_plain(&folder) {
            return None;
        }
        let rest = path.strip_prefix(&folder).ok()?;
        let key = self.canonical_folder(&folder)?.join(rest);
        Some(if cfg!(windows) {
            PathBuf::from(key.to_string_lossy().to_lowercase())
        } else {
            key
        })
    }

    /// A plain path (no `.`, `..` or trailing `/`) in its folder's canonical path, when that
    /// folder has one: what [`PathKeys::key`] gives an existing file that is no symlink.
    fn in_canonical_folder(&mut self, path: &Path) -> Option<PathBuf> {
        // An absolute path without `.`, `..` or `//` is a folder and a name by its last `/`,
        // without the walks of its components the `Path` ways take (5,000 instructions a
        // file: a tenth of `ls --tree` of 1,000 sessions).
        #[cfg(unix)]
        if let Some((folder, name)) = simple_split(path.as_os_str().as_encoded_bytes()) {
            use std::os::unix::ffi::{OsStrExt, OsStringExt};
            let folder = Path::new(std::ffi::OsStr::from_bytes(folder));
            let canonical = self
                .canonical_folder(folder)?
                .as_os_str()
                .as_encoded_bytes();
            let mut key = Vec::with_capacity(canonical.len() + 1 + name.len());
            key.extend_from_slice(canonical);
            if !canonical.ends_with(b"/") {
                key.push(b'/');
            }
            key.extend_from_slice(name);
            return Some(PathBuf::from(std::ffi::OsString::from_vec(key)));
        }
        // A listing's paths are absolute: not joined again.
        let joined = if path.is_absolute() {
            std::borrow::Cow::Borrowed(path)
        } else {
            std::borrow::Cow::Owned(self.base.join(path))
        };
        let plain = is_plain(&joined);
        let (Some(folder), Some(name), true) = (joined.parent(), joined.file_name(), plain) else {
            return None;
        };
        self.canonical_folder(folder).map(|f| f.join(name))
    }

    /// `folder` made canonical, once a folder.
    fn canonical_folder(&mut self, folder: &Path) -> Option<&Path> {
        let parent = &mut self.parent;
        (self.folders.entry_ref(folder.as_os_str()))
            .or_insert_with(|| canonical_by_parent(folder, parent))
            .as_deref()
    }

    fn canonical(&mut self, path: &Path) -> PathBuf {
        let joined = self.base.join(path);
        let lexical = || resolve(&self.base, path);
        let plain = is_plain(&joined);
        let (Some(folder), Some(name), true) = (joined.parent(), joined.file_name(), plain) else {
            return std::fs::canonicalize(&joined).unwrap_or_else(|_| lexical());
        };
        match std::fs::symlink_metadata(&joined) {
            Err(_) => lexical(),
            Ok(meta) if meta.file_type().is_symlink() => {
                std::fs::canonicalize(&joined).unwrap_or_else(|_| lexical())
            }
            Ok(_) => match self.canonical_folder(folder) {
                Some(folder) => folder.join(name),
                None => resolve(&self.base, path),
            },
        }
    }
}

/// `realpath(folder)`: when `folder` is a plain absolute path whose last component is a real
/// folder (an `lstat`), its parent's canonical path (`parent`: the last one made, a listing's
/// project folders share theirs) and its name; else `realpath` of the whole. A `realpath`
/// reads every component (30 project folders seven deep were 210 `readlink`s of `ls --tree`).
fn canonical_by_parent(
    folder: &Path,
    parent: &mut Option<(OsString, Option<PathBuf>)>,
) -> Option<PathBuf> {
    #[cfg(unix)]
    if let Some((up, name)) = simple_split(folder.as_os_str().as_encoded_bytes()) {
        use std::os::unix::ffi::OsStrExt;
        let up = OsStr::from_bytes(up);
        if parent.as_ref().is_none_or(|(p, _)| p != up) {
            *parent = Some((up.to_owned(), std::fs::canonicalize(up).ok()));
        }
        let is_dir = std::fs::symlink_metadata(folder).is_ok_and(|m| m.is_dir());
        if let (Some((_, Some(up))), true) = (parent.as_ref(), is_dir) {
            return Some(up.join(OsStr::from_bytes(name)));
        }
    }
    std::fs::canonicalize(folder).ok()
}

/// A path with no `.` or `..` in it and no trailing `/` or `/.`: its folder and name are
/// where it points, so the folder alone may be made canonical.
/// `path` as its folder and name when it is absolute and plain in the simplest way: no empty,
/// `.` or `..` component, no trailing `/`, and a folder other than `/`; `None` otherwise (then
/// the `Path` ways decide).
#[cfg(unix)]
fn simple_split(path: &[u8]) -> Option<(&[u8], &[u8])> {
    if path.first() != Some(&b'/') {
        return None;
    }
    // A path with no `/` before a `/` or a `.` (one pass without a branch a byte, which the
    // compiler vectorizes) and no trailing `/` has only plain components: then the last `/`
    // alone is looked for. A split at every byte, then a search for the last `/`, was most of
    // `ls --tree`'s 1.8 M instructions of keys for 1,000 sessions.
    let odd = (path.iter().zip(&path[1..])).fold(false, |odd, (&a, &b)| {
        odd | (a == b'/' && (b == b'/' || b == b'.'))
    });
    if !odd && !path.ends_with(b"/") {
        let at = memchr::memrchr(b'/', path)?;
        return (at > 0).then(|| (&path[..at], &path[at + 1..]));
    }
    split_checked(path)
}

/// [`simple_split`] of a path that may have an empty, `.` or `..` component: each component
/// checked between the separators `memchr` finds.
#[cfg(unix)]
fn split_checked(path: &[u8]) -> Option<(&[u8], &[u8])> {
    let mut seps = memchr::memchr_iter(b'/', path);
    if seps.next() != Some(0) {
        return None;
    }
    let (mut start, mut last) = (1, 0);
    loop {
        let end = seps.next();
        let c = &path[start..end.unwrap_or(path.len())];
        if c.is_empty() || c == b"." || c == b".." {
            return None;
        }
        match end {
            Some(at) => (start, last) = (at + 1, at),
            None => break,
        }
    }
    (last > 0).then(|| (&path[..last], &path[last + 1..]))
}

fn is_plain(path: &Path) -> bool {
    let bytes = path.as_os_str().as_encoded_bytes();
    path.components().all(|c| {
        !matches!(
            c,
            std::path::Component::CurDir | std::path::Component::ParentDir
        )
    }) && !bytes.ends_with(b"/")
        && !bytes.ends_with(b"/.")
}

#[cfg(test)]
mod tests;
