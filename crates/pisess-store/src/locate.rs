//! Where sessions live, decided exactly as pi decides it.
//!
//! The agent dir is `PI_CODING_AGENT_DIR` or `~/.pi/agent`; the sessions root is
//! `<agentDir>/sessions`; a project's folder is `--<cwd>--`. The session dir is the first of
//! `--session-dir`, `PI_CODING_AGENT_SESSION_DIR`, the `sessionDir` setting (project over global)
//! and the default. A dir other than the default is "custom": flat, shared by every project, and
//! filtered by the header `cwd`. This module only computes paths and lists directories.

use std::cmp::Ordering;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use icu_collator::options::CollatorOptions;
use icu_collator::CollatorBorrowed;

use serde_json::Value;

use crate::cache::folder::CacheDir;
use pisess_format::util::file::kind_of;

/// The session a command will read: what [`select`](crate::select::select) chose, here
/// so that opening it (`cmd::open_session`) need not reach up to the lookup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selected {
    Stdin,
    File(PathBuf),
}

/// Where a session dir candidate came from, in order of precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirSource {
    Flag,
    Env,
    ProjectSetting,
    GlobalSetting,
    Default,
}

impl DirSource {
    pub fn describe(self) -> &'static str {
        match self {
            DirSource::Flag => "--session-dir",
            DirSource::Env => "PI_CODING_AGENT_SESSION_DIR",
            DirSource::ProjectSetting => "sessionDir in project settings",
            DirSource::GlobalSetting => "sessionDir in global settings",
            DirSource::Default => "default",
        }
    }
}

/// One source considered for the session dir.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub source: DirSource,
    /// Where the value was read (an env var name, a settings file).
    pub origin: String,
    /// The dir this source sets, resolved, even when a source before it wins; `None` when it
    /// sets none.
    pub dir: Option<PathBuf>,
    /// What the source holds when it sets no dir although it is present (`null`, `""`), so
    /// `path --explain` never calls a value a file or variable holds "unset".
    pub note: Option<String>,
    /// A source whose mere presence hides this one: a project `sessionDir`, even `null`, replaces
    /// the global one in pi's deep merge of the settings.
    pub masked_by: Option<DirSource>,
}

impl Candidate {
    /// Whether this source decides the session dir when no source before it does.
    fn usable(&self) -> bool {
        self.dir.is_some() && self.masked_by.is_none()
    }
}

/// The facts resolution needs, read once from the environment (tests build them by hand).
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub home: PathBuf,
    /// The directory pisess acts as if run in (`--cwd`, else the process cwd).
    pub cwd: PathBuf,
    /// The process's own cwd, against which a relative `--session-dir` is taken.
    pub process_cwd: PathBuf,
    pub flag: Option<String>,
    pub env_agent_dir: Option<String>,
    pub env_session_dir: Option<String>,
    /// Where the summary cache is (`None`: no cache, as with `--no-cache`).
    pub cache: Option<PathBuf>,
}

/// The resolved locations.
#[derive(Debug, Clone)]
pub struct Location {
    pub cwd: PathBuf,
    /// The process's own cwd: pi resolves relative header cwds against it.
    pub process_cwd: PathBuf,
    pub agent_dir: PathBuf,
    /// `<agentDir>/sessions`.
    pub root: PathBuf,
    /// The dir pi uses for this cwd.
    pub session_dir: PathBuf,
    pub source: DirSource,
    /// A custom dir: flat, its project listing filtered by header `cwd`.
    pub custom: bool,
    pub candidates: Vec<Candidate>,
    /// Problems reading settings files (not fatal).
    pub warnings: Vec<String>,
    /// The home directory, kept to show paths inside it as `~/…` in messages.
    pub home: PathBuf,
    /// The summary cache of listings.
    pub cache: Option<CacheDir>,
}

/// A path for messages: inside `home` it is shown as `~/…`, as pi shows paths, so an error
/// line names the place without the noise of a long home directory.
pub fn tilde(path: &Path, home: &Path) -> String {
    // A home of `/` (or none) would turn every absolute path into `~/…`.
    if home.parent().is_none() {
        return path.display().to_string();
    }
    match path.strip_prefix(home) {
        Ok(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
        Ok(rest) => format!("~/{}", rest.display()),
        Err(_) => path.display().to_string(),
    }
}

/// `~` and `~/x` expanded, as pi's `normalizePath`.
pub(crate) fn expand_tilde(path: &str, home: &Path) -> PathBuf {
    if path == "~" {
        home.to_path_buf()
    } else if let Some(rest) = path.strip_prefix("~/") {
        home.join(rest)
    } else {
        PathBuf::from(path)
    }
}

/// pi's `resolvePath(input, base)` on a POSIX system: `normalizePath` (`~` and `~/x` expanded,
/// a `file://` URL turned into its path), then `path.resolve(base, …)`. A Windows path such as
/// `E:\Repos\app` is relative here, as it is to Node on Linux, so it resolves under `base`.
pub fn resolve_path(input: &str, base: &Path, home: &Path) -> PathBuf {
    let path = file_url_path(input).unwrap_or_else(|| expand_tilde(input, home));
    resolve(base, &path)
}

/// Node's `fileURLToPath` for `file://` URLs on a local host: the path, percent-decoded. `None`
/// for anything else, including the URLs Node refuses (another host, an encoded `/`), which
/// are then taken as plain paths where pi would throw.
fn file_url_path(input: &str) -> Option<PathBuf> {
    let rest = input.strip_prefix("file://")?;
    let (host, path) = rest.split_at(rest.find('/')?);
    let encoded_slash = path.to_ascii_lowercase().contains("%2f");
    if !(host.is_empty() || host == "localhost") || encoded_slash {
        return None;
    }
    // The URL parser stops the path at a query or fragment.
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(path).collect();
    Some(PathBuf::from(String::from_utf8_lossy(&bytes).into_owned()))
}

/// `path.resolve(base, p)`: absolute, with `.` and `..` folded, without touching the disk.
pub fn resolve(base: &Path, p: &Path) -> PathBuf {
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// pi's folder name for a cwd: `--<cwd>--` with one leading separator removed and every
/// `/`, `\` and `:` replaced by `-`.
pub fn encode_cwd(cwd: &str) -> String {
    let trimmed = cwd
        .strip_prefix('/')
        .or_else(|| cwd.strip_prefix('\\'))
        .unwrap_or(cwd);
    let body: String = trimmed
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    format!("--{body}--")
}

impl Location {
    pub fn resolve(inputs: &Inputs) -> Location {
        let mut warnings = Vec::new();
        let home = &inputs.home;
        let nonempty = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
        let agent_dir = match nonempty(&inputs.env_agent_dir) {
            Some(dir) => resolve(&inputs.process_cwd, &expand_tilde(&dir, home)),
            None => home.join(".pi").join("agent"),
        };
        let root = agent_dir.join("sessions");
        let cwd_str = inputs.cwd.to_string_lossy();
        let default_dir = root.join(encode_cwd(&cwd_str));

        let project_file = inputs.cwd.join(".pi").join("settings.json");
        let global_file = agent_dir.join("settings.json");
        let project = read_setting(&project_file, &mut warnings);
        let global = read_setting(&global_file, &mut warnings);

        let from = |v: &Option<String>, base: &Path| {
            v.as_ref()
                .filter(|s| !s.is_empty())
                .map(|s| resolve(base, &expand_tilde(s, home)))
        };
        let empty_note = |v: &Option<String>| {
            v.as_ref()
                .filter(|s| s.is_empty())
                .map(|_| "\"\" (empty: ignored)".to_owned())
        };
        let setting_note = |v: &Option<Setting>| match v {
            Some(Setting::Null) => Some("null (sets no dir)".to_owned()),
            Some(Setting::Ignored(raw)) => Some(format!("{raw} (not a string: ignored)")),
            Some(Setting::Dir(s)) if s.is_empty() => Some("\"\" (empty: ignored)".to_owned()),
            _ => None,
        };
        let setting_dir = |v: &Option<Setting>| match v {
            Some(Setting::Dir(s)) => from(&Some(s.clone()), &inputs.cwd),
            _ => None,
        };
        let candidates = vec![
            Candidate {
                source: DirSource::Flag,
                origin: "--session-dir".into(),
                dir: from(&inputs.flag, &inputs.process_cwd),
                note: empty_note(&inputs.flag),
                masked_by: None,
            },
            Candidate {
                source: DirSource::Env,
                origin: "PI_CODING_AGENT_SESSION_DIR".into(),
                dir: from(&inputs.env_session_dir, &inputs.cwd),
                note: empty_note(&inputs.env_session_dir),
                masked_by: None,
            },
            Candidate {
                source: DirSource::ProjectSetting,
                origin: project_file.display().to_string(),
                dir: setting_dir(&project),
                note: setting_note(&project),
                masked_by: None,
            },
            Candidate {
                source: DirSource::GlobalSetting,
                origin: global_file.display().to_string(),
                dir: setting_dir(&global),
                note: setting_note(&global),
                // A project value, even null, overrides the global one (pi's deep merge).
                masked_by: project.is_some().then_some(DirSource::ProjectSetting),
            },
            Candidate {
                source: DirSource::Default,
                origin: root.display().to_string(),
                dir: Some(default_dir.clone()),
                note: None,
                masked_by: None,
            },
        ];
        let winner = candidates
            .iter()
            .find(|c| c.usable())
            .expect("the default candidate always has a dir");
        let session_dir = winner.dir.clone().unwrap_or_default();
        let custom = winner.source != DirSource::Default && session_dir != default_dir;
        Location {
            cwd: inputs.cwd.clone(),
            process_cwd: inputs.process_cwd.clone(),
            source: winner.source,
            agent_dir,
            root,
            session_dir,
            custom,
            candidates,
            warnings,
            home: home.clone(),
            cache: inputs.cache.clone().map(CacheDir::new),
        }
    }

    /// `path` for messages (see [`tilde`]).
    pub fn shown(&self, path: &Path) -> String {
        tilde(path, &self.home)
    }

    /// The files of "this project": pi's `list` (custom dirs still need the cwd filter,
    /// applied by the caller once headers are read).
    pub(crate) fn project_files(&self) -> io::Result<Files> {
        jsonl_files(&self.session_dir)
    }

    /// Every session file: one level under the root, or the custom dir itself (pi's `listAll`).
    /// A project folder that cannot be read is passed over, as pi does, but said in
    /// [`Files::skipped`]: the listing is then incomplete.
    pub(crate) fn all_files(&self) -> io::Result<Files> {
        if self.custom {
            return jsonl_files(&self.session_dir);
        }
        let mut files = Files::default();
        let entries = match fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(files),
            Err(e) => return Err(e),
        };
        let folders: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|k| k.is_dir() || k.is_symlink()))
            .map(|e| e.path())
            .collect();
        // Each folder read on its own core: 30 folders of 10,000 files were a tenth of a listing
        // from the cache.
        let found = crate::util::parallel::map(&folders, |path, _| jsonl_files(path));
        for (path, found) in folders.into_iter().zip(found) {
            match found {
                Ok(mut found) => files.append(&mut found),
                // A symlink to a file is not a project folder.
                Err(e) if e.kind() == io::ErrorKind::NotADirectory => {}
                Err(e) => files.skipped.push((path, Skipped::Folder(e))),
            }
        }
        Ok(files)
    }

    /// The session ids of every file of the store, as its name says (pi names a file
    /// `<time>_<id>.jsonl`), read from the folders alone: short ids are told apart from the
    /// whole store's without reading (or caching) each project's files. A name without `_`
    /// gives its whole stem. Folders that cannot be read give nothing.
    pub fn ids_by_name(&self) -> Vec<String> {
        let Ok(Files { files, .. }) = self.all_files() else {
            return Vec::new();
        };
        files
            .iter()
            .filter_map(|p| {
                let stem = p.file_stem()?.to_str()?;
                Some(stem.split_once('_').map_or(stem, |(_, id)| id).to_owned())
            })
            .collect()
    }

    /// Whether a header `cwd` belongs to this project (pi's `sessionCwdMatches`): the header's
    /// `resolvePath` equals the resolved cwd. pi resolves a relative header cwd (`webshop`, or
    /// `E:\Repos\app` on Linux) against its process cwd, not against `--cwd`.
    pub(crate) fn cwd_matches(&self, header_cwd: Option<&str>) -> bool {
        match header_cwd {
            Some(c) if !c.is_empty() => resolve_path(c, &self.process_cwd, &self.home) == self.cwd,
            _ => false,
        }
    }
}

/// A `sessionDir` key that is present in a settings file.
#[derive(Debug, Clone)]
enum Setting {
    Dir(String),
    Null,
    /// Neither a string nor null, as written in the file.
    Ignored(String),
}

/// `sessionDir` from a settings file: `None` when the file or key is absent.
fn read_setting(path: &Path, warnings: &mut Vec<String>) -> Option<Setting> {
    let text = fs::read_to_string(path).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => match map.get("sessionDir")? {
            Value::String(s) => Some(Setting::Dir(s.clone())),
            Value::Null => Some(Setting::Null),
            other => {
                warnings.push(format!(
                    "{}: sessionDir must be a string, not {other}; ignored",
                    path.display()
                ));
                Some(Setting::Ignored(other.to_string()))
            }
        },
        Ok(_) => None,
        Err(e) => {
            warnings.push(format!("{}: {e}; settings ignored", path.display()));
            None
        }
    }
}

/// ICU's root collation at its default (tertiary) strength: what Node's `localeCompare` does in
/// an English or root locale (en-US has no tailoring of its own).
static COLLATOR: LazyLock<CollatorBorrowed<'static>> = LazyLock::new(|| {
    CollatorBorrowed::try_new(Default::default(), CollatorOptions::default())
        .expect("the root collation is compiled in")
});

/// `a.localeCompare(b)` for file names, as pi orders a session dir's files before reading them
/// (`b.localeCompare(a)`, newest name first). Names are bytes as the OS gives them; Node decodes
/// them as UTF-8 with U+FFFD for bad bytes, and so does the comparison. Distinct names can
/// compare equal (`é` precomposed and combined): pi then keeps the directory's order, as a
/// stable sort here does.
pub fn name_cmp(a: &[u8], b: &[u8]) -> Ordering {
    // pi's names (`<ISO time>_<uuid>.jsonl`) differ first in a digit or a lowercase letter
    // after a common ASCII prefix: there the root collation's first primary difference is
    // that pair's, in ASCII order (digits before letters, each in order), so no collator is
    // needed. A listing of 10,000 files sorted by the collator alone spent 14% of a warm run.
    let common = common_prefix(a, b);
    let simple = |c: Option<&u8>| c.is_some_and(|c| c.is_ascii_digit() || c.is_ascii_lowercase());
    if a[..common].is_ascii() && simple(a.get(common)) && simple(b.get(common)) {
        return a[common].cmp(&b[common]);
    }
    COLLATOR.compare_utf8(a, b)
}

/// How many bytes `a` and `b` share from their start, found eight at a time: a listing's
/// names share some 20 (`2026-01-01T`...), and byte by byte that was most of its sort.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let word = |s: &[u8], at: usize| {
        s.get(at..at + 8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
    };
    let mut at = 0;
    while let (Some(x), Some(y)) = (word(a, at), word(b, at)) {
        if x != y {
            // Little-endian: the lowest differing byte is the first.
            return at + (x ^ y).trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    at + a[at..]
        .iter()
        .zip(&b[at..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// The `*.jsonl` files of a listing, and what it passed over.
#[derive(Debug, Default)]
pub struct Files {
    /// Regular files, or symlinks to them: the only files pisess opens without being told to.
    pub files: Vec<PathBuf>,
    pub skipped: Vec<(PathBuf, Skipped)>,
    /// The real folders met beside the files, in no order: a session `X.jsonl` has subagent
    /// runs only when `X/` is among them (`family::runs`), so a listing knows which sessions
    /// to look under without an `lstat` of each.
    pub folders: Vec<PathBuf>,
    /// The files of `files` that are symbolic links (from the directory entry's type): the
    /// others are keyed without a `stat` (`family::thread::PathKeys::key_listed`).
    pub links: Vec<PathBuf>,
    /// What sorts `files` by name, made as each was found ([`Files::newest_name_first`]).
    names: Names,
}

/// The names of a listing's files as sort keys, while they all have one shape: pi's
/// `<ISO time>_<uuid>.jsonl` are of one length, each byte an ASCII digit or lowercase letter
/// or else the byte every other name has there. Two such names first differ where both have a
/// digit or a letter after an ASCII prefix, so [`name_cmp`] is their bytes' order, and their
/// first 32 bytes (big-endian, so that the words compare as the bytes do) order them but for
/// ties. Made where each path is made, on the thread that walked its folder: a path read
/// again on the thread that sorts was a cache miss, and sorting 10,000 names by `name_cmp` on
/// the thread a listing waits on took 2-2.6 ms, against 0.7 ms by key.
#[derive(Debug, Default)]
struct Names {
    /// The shape: each name's bytes, 0 where a digit or a letter may be; `None` before the
    /// first name.
    shape: Option<Vec<u8>>,
    /// Some name had another shape: sorted by [`name_cmp`].
    mixed: bool,
    /// Each file's key, in `files`' order, while not `mixed`.
    keys: Vec<(u128, u128)>,
}

impl Names {
    fn free(b: u8) -> bool {
        b.is_ascii_digit() || b.is_ascii_lowercase()
    }

    fn push(&mut self, name: &[u8]) {
        if self.mixed {
            return;
        }
        let shape = self.shape.get_or_insert_with(|| {
            name.iter()
                .map(|&b| if Self::free(b) { 0 } else { b })
                .collect()
        });
        let same = name.len() == shape.len()
            && name.iter().zip(shape.iter()).all(|(&b, &s)| {
                b.is_ascii() && b != 0 && if s == 0 { Self::free(b) } else { b == s }
            });
        if !same {
            self.mixed = true;
            self.keys = Vec::new();
            return;
        }
        let word = |at: usize| {
            let mut w = [0u8; 16];
            let part = name.get(at..).unwrap_or_default();
            let len = part.len().min(16);
            w[..len].copy_from_slice(&part[..len]);
            u128::from_be_bytes(w)
        };
        self.keys.push((word(0), word(16)));
    }

    fn append(&mut self, other: &mut Names) {
        match (&self.shape, &other.shape) {
            (_, None) => {}
            (None, Some(_)) => std::mem::swap(self, other),
            (Some(a), Some(b)) => {
                if self.mixed || other.mixed || a != b {
                    self.mixed = true;
                    self.keys = Vec::new();
                } else {
                    self.keys.append(&mut other.keys);
                }
            }
        }
    }
}

impl Files {
    fn push(&mut self, path: PathBuf) {
        self.names
            .push(pisess_format::util::file::split_name(&path).1);
        self.files.push(path);
    }

    /// Takes in `other`'s files and what it skipped.
    fn append(&mut self, other: &mut Files) {
        self.names.append(&mut other.names);
        self.files.append(&mut other.files);
        self.skipped.append(&mut other.skipped);
        self.folders.append(&mut other.folders);
        self.links.append(&mut other.links);
    }

    /// The files in pi's read order, `b.localeCompare(a)` of their names; names that compare
    /// equal keep their order (a stable sort), as in pi.
    pub(crate) fn newest_name_first(mut self) -> Files {
        fn name(p: &Path) -> &[u8] {
            pisess_format::util::file::split_name(p).1
        }
        if self.names.mixed || self.names.keys.len() != self.files.len() {
            self.files.sort_by(|a, b| name_cmp(name(b), name(a)));
            return self;
        }
        let keys = std::mem::take(&mut self.names.keys);
        let mut order: Vec<usize> = (0..keys.len()).collect();
        let files = &self.files;
        let rest = |i: usize| name(&files[i]).get(32..).unwrap_or_default();
        order.sort_by(|&a, &b| keys[b].cmp(&keys[a]).then_with(|| rest(b).cmp(rest(a))));
        let mut taken: Vec<Option<PathBuf>> = std::mem::take(&mut self.files)
            .into_iter()
            .map(Some)
            .collect();
        self.files = order.into_iter().filter_map(|i| taken[i].take()).collect();
        self
    }
}

/// Why a `*.jsonl` (or a project folder) of a listing was not read.
#[derive(Debug)]
pub enum Skipped {
    /// A FIFO, socket, device or directory, or a symlink to one: opening a FIFO blocks until a
    /// writer comes, and a device may never end. The kind, as [`kind_of`](pisess_format::util::file::kind_of) names it.
    NotRegular(&'static str),
    /// A symlink whose target is gone.
    Dangling,
    /// A project folder that could not be read: its sessions are missing from the listing.
    Folder(io::Error),
}

/// `*.jsonl` directly in `dir` that are regular files (symlinks followed); a missing dir has
/// none. The type comes from the directory entry, so only symlinks cost a `stat`.
pub(crate) fn jsonl_files(dir: &Path) -> io::Result<Files> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Files::default()),
        Err(e) => return Err(e),
    };
    let mut files = Files::default();
    for entry in entries.flatten() {
        // `Path::extension` is "jsonl": the name ends so, and not as the whole of it.
        let name = entry.file_name();
        let name = name.as_encoded_bytes();
        if name.len() <= ".jsonl".len() || !name.ends_with(b".jsonl") {
            // The type from the directory entry: no `stat`.
            if entry.file_type().is_ok_and(|k| k.is_dir()) {
                files.folders.push(entry.path());
            }
            continue;
        }
        let path = entry.path();
        let Ok(mut kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            files.links.push(path.clone());
            match fs::metadata(&path) {
                Ok(meta) => kind = meta.file_type(),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    files.skipped.push((path, Skipped::Dangling));
                    continue;
                }
                // Left to the read, which says why it fails.
                Err(_) => {
                    files.push(path);
                    continue;
                }
            }
        }
        if kind.is_file() {
            files.push(path);
        } else {
            files
                .skipped
                .push((path, Skipped::NotRegular(kind_of(kind))));
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_prefix_is_counted_as_byte_by_byte() {
        let names: [&[u8]; 7] = [
            b"",
            b"a",
            b"2026-01-01T00",
            b"2026-01-01T01",
            b"2026-01-01T00-00",
            b"2026-01-0",
            b"x2026-01-01T00",
        ];
        for a in names {
            for b in names {
                let slow = a.iter().zip(b).take_while(|(x, y)| x == y).count();
                assert_eq!(common_prefix(a, b), slow, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn the_fast_name_order_is_the_collators() {
        let alphabet = b"09afzAFZ-_.T:~ \xc3\xa9";
        let mut names = Vec::new();
        let mut x = 0x1234_5678_9abc_def0_u64;
        for _ in 0..3000 {
            let mut name = b"2026-01-01T".to_vec();
            for _ in 0..(x % 5) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                name.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            names.push(name);
        }
        for a in &names {
            for b in names.iter().step_by(7) {
                assert_eq!(
                    name_cmp(a, b),
                    COLLATOR.compare_utf8(a, b),
                    "{:?} {:?}",
                    String::from_utf8_lossy(a),
                    String::from_utf8_lossy(b)
                );
            }
        }
    }

    /// The keyed sort of [`Files::newest_name_first`] is the stable `name_cmp` sort, whether the
    /// names share pi's shape or not, and across folders walked apart and then joined.
    #[test]
    fn the_keyed_name_order_is_name_cmps() {
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        // pi's shape; a few names off it (a capital, a longer tail, a byte that is not ASCII, a
        // NUL-free but different separator) turn the keyed path off for their listing.
        let shaped = |next: &mut dyn FnMut(u64) -> u64| {
            let free = b"0123456789abcdefz";
            let mut name = b"2026-01-0XT1X-00-00-000Z_019XXXXX-XXXX-7XXX.jsonl".to_vec();
            for b in name.iter_mut().filter(|b| **b == b'X') {
                // Few choices, so that ties and long common prefixes happen.
                let few = next(2) == 0;
                *b = free[next(if few { 3 } else { free.len() as u64 }) as usize];
            }
            name
        };
        for round in 0..200 {
            let odd = round % 4 == 3;
            let folders: Vec<Vec<Vec<u8>>> = (0..1 + next(3))
                .map(|_| {
                    (0..next(40))
                        .map(|_| {
                            let mut name = shaped(&mut next);
                            if odd && next(10) == 0 {
                                match next(4) {
                                    0 => name[3] = b'A',
                                    1 => name.insert(30, b'7'),
                                    2 => name.splice(5..6, "é".bytes()).for_each(drop),
                                    _ => name[4] = b'_',
                                }
                            }
                            name
                        })
                        .collect()
                })
                .collect();
            let mut joined = Files::default();
            let mut expected = Vec::new();
            for (i, names) in folders.iter().enumerate() {
                let mut files = Files::default();
                for name in names {
                    let path = PathBuf::from(format!("/s/f{i}/{}", String::from_utf8_lossy(name)));
                    expected.push(path.clone());
                    files.push(path);
                }
                joined.append(&mut files);
            }
            let name = |p: &PathBuf| pisess_format::util::file::split_name(p).1.to_vec();
            expected.sort_by(|a, b| name_cmp(&name(b), &name(a)));
            assert_eq!(joined.newest_name_first().files, expected, "round {round}");
        }
    }

    fn inputs(tmp: &Path) -> Inputs {
        Inputs {
            home: tmp.join("home"),
            cwd: tmp.join("proj"),
            process_cwd: tmp.join("proj"),
            ..Inputs::default()
        }
    }

    #[test]
    fn encodes_like_pi() {
        assert_eq!(encode_cwd("/home/u/proj"), "--home-u-proj--");
        assert_eq!(encode_cwd("C:\\Projects\\pi"), "--C--Projects-pi--");
        assert_eq!(encode_cwd("/"), "----");
        assert_eq!(encode_cwd("/a:b/c"), "--a-b-c--");
    }

    /// pi's `sessionCwdMatches` on Linux: a header cwd is resolved against the process cwd, so a
    /// Windows project's sessions match `--cwd 'E:\Repos\app'`, and `webshop` matches
    /// `--cwd webshop` wherever `--cwd` points.
    #[test]
    fn header_cwds_resolve_as_pi_resolves_them() {
        let at = |cwd: &str| {
            let process = Path::new("/work/p");
            Location::resolve(&Inputs {
                home: "/home/u".into(),
                cwd: resolve_path(cwd, process, Path::new("/home/u")),
                process_cwd: process.into(),
                ..Inputs::default()
            })
        };
        let windows = at("E:\\Repos\\app");
        assert_eq!(windows.cwd, Path::new("/work/p/E:\\Repos\\app"));
        assert!(windows.cwd_matches(Some("E:\\Repos\\app")));
        assert!(!windows.cwd_matches(Some("E:\\Repos\\other")));
        let relative = at("/work/p/webshop");
        for header in [
            "webshop",
            "./webshop/",
            "/work/p/webshop",
            "/work//p/x/../webshop",
        ] {
            assert!(relative.cwd_matches(Some(header)), "{header}");
        }
        assert!(!relative.cwd_matches(Some("")));
        assert!(!relative.cwd_matches(None));
        let home = at("~/q");
        assert_eq!(home.cwd, Path::new("/home/u/q"));
        assert!(home.cwd_matches(Some("~/q")));
        assert!(home.cwd_matches(Some("file:///home/u/q")));
        assert!(home.cwd_matches(Some("file://localhost/home/%75/q?x#y")));
        assert!(!home.cwd_matches(Some("file://elsewhere/home/u/q")));
    }

    #[test]
    fn home_is_shown_as_tilde() {
        let home = Path::new("/home/u");
        assert_eq!(tilde(Path::new("/home/u/.pi/agent"), home), "~/.pi/agent");
        assert_eq!(tilde(Path::new("/home/u"), home), "~");
        assert_eq!(tilde(Path::new("/home/user2/x"), home), "/home/user2/x");
        assert_eq!(tilde(Path::new("/etc/x"), Path::new("/")), "/etc/x");
    }

    #[test]
    fn resolve_folds_dots() {
        assert_eq!(
            resolve(Path::new("/a/b"), Path::new("../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(
            resolve(Path::new("/a"), Path::new("/x/")),
            PathBuf::from("/x")
        );
    }

    #[test]
    fn precedence_flag_env_project_global_default() {
        let tmp = tempfile::tempdir().unwrap();
        let mut i = inputs(tmp.path());
        fs::create_dir_all(tmp.path().join("proj/.pi")).unwrap();
        fs::create_dir_all(tmp.path().join("home/.pi/agent")).unwrap();
        let loc = Location::resolve(&i);
        assert_eq!(loc.source, DirSource::Default);
        assert!(!loc.custom);
        let expected = tmp
            .path()
            .join("home/.pi/agent/sessions")
            .join(encode_cwd(&tmp.path().join("proj").to_string_lossy()));
        assert_eq!(loc.session_dir, expected);

        fs::write(
            tmp.path().join("home/.pi/agent/settings.json"),
            r#"{"sessionDir":"~/global"}"#,
        )
        .unwrap();
        let loc = Location::resolve(&i);
        assert_eq!(loc.source, DirSource::GlobalSetting);
        assert_eq!(loc.session_dir, tmp.path().join("home/global"));
        assert!(loc.custom);

        fs::write(
            tmp.path().join("proj/.pi/settings.json"),
            "\u{feff}{\"sessionDir\":\"rel\"}",
        )
        .unwrap();
        let loc = Location::resolve(&i);
        assert_eq!(loc.source, DirSource::ProjectSetting);
        assert_eq!(loc.session_dir, tmp.path().join("proj/rel"));

        i.env_session_dir = Some("~/env".into());
        assert_eq!(Location::resolve(&i).source, DirSource::Env);
        i.flag = Some("flagdir".into());
        let loc = Location::resolve(&i);
        assert_eq!(loc.source, DirSource::Flag);
        assert_eq!(loc.session_dir, tmp.path().join("proj/flagdir"));
        i.flag = Some(String::new());
        assert_eq!(Location::resolve(&i).source, DirSource::Env);
    }

    #[test]
    fn project_null_overrides_global() {
        let tmp = tempfile::tempdir().unwrap();
        let i = inputs(tmp.path());
        fs::create_dir_all(tmp.path().join("proj/.pi")).unwrap();
        fs::create_dir_all(tmp.path().join("home/.pi/agent")).unwrap();
        fs::write(
            tmp.path().join("home/.pi/agent/settings.json"),
            r#"{"sessionDir":"/g"}"#,
        )
        .unwrap();
        fs::write(
            tmp.path().join("proj/.pi/settings.json"),
            r#"{"sessionDir":null}"#,
        )
        .unwrap();
        assert_eq!(Location::resolve(&i).source, DirSource::Default);
    }

    #[test]
    fn agent_dir_env_and_bad_settings() {
        let tmp = tempfile::tempdir().unwrap();
        let mut i = inputs(tmp.path());
        i.env_agent_dir = Some("~/agent".into());
        fs::create_dir_all(tmp.path().join("home/agent")).unwrap();
        fs::write(tmp.path().join("home/agent/settings.json"), "{oops").unwrap();
        let loc = Location::resolve(&i);
        assert_eq!(loc.agent_dir, tmp.path().join("home/agent"));
        assert_eq!(loc.root, tmp.path().join("home/agent/sessions"));
        assert_eq!(loc.warnings.len(), 1);
    }

    #[test]
    fn custom_dir_equal_to_default_is_not_custom() {
        let tmp = tempfile::tempdir().unwrap();
        let mut i = inputs(tmp.path());
        let default = Location::resolve(&i).session_dir;
        i.flag = Some(default.to_string_lossy().into_owned());
        let loc = Location::resolve(&i);
        assert_eq!(loc.source, DirSource::Flag);
        assert!(!loc.custom);
    }
}
