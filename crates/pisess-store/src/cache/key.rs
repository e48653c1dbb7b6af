//! What the caches know of a session file without reading it, shared by the summary cache
//! (`ls`) and the tally cache (`stats`): its [`FileKey`], when the key alone may vouch for its
//! bytes ([`RACY_NS`]), and what else a cached fold depends on ([`stamp`]). It imports nothing
//! of what is cached, so the tally cache sits no higher for sharing it.

use std::fs::{self, File, Metadata};
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use pisess_format::util::file::FileId;

/// A listing of more folders than this stats its files by path.
const MAX_FOLDER_FDS: usize = 256;

/// The folders of `files`, each once, in order: a cache file each. Found by hashing, and only
/// the few found sorted: 10,000 paths that share a long prefix took a millisecond to sort, on
/// the one thread every listing waits on.
pub(super) fn folders_of(files: &[std::path::PathBuf]) -> Vec<&[u8]> {
    let mut seen = hashbrown::HashSet::new();
    let mut last = None;
    let mut folders: Vec<&[u8]> = Vec::new();
    for file in files {
        let folder = pisess_format::util::file::split_name(file).0;
        // A project's files come in a run: one hash a run.
        if last != Some(folder) && seen.insert(folder) {
            folders.push(folder);
        }
        last = Some(folder);
    }
    folders.sort_unstable();
    folders
}

/// The folder itself, open, for [`stat_in`] by name: a descriptor per folder of the `many`
/// listed, but not so many that the files' own opens could fail.
#[cfg(unix)]
pub(super) fn open_folder(folder: &[u8], many: usize) -> Option<File> {
    use std::os::unix::ffi::OsStrExt;
    (many <= MAX_FOLDER_FDS)
        .then(|| File::open(std::ffi::OsStr::from_bytes(folder)).ok())
        .flatten()
}

/// A file whose mtime is this close to the run's start may still change within the mtime's
/// granularity without its key changing (git's "racily clean"): it is checked by its bytes
/// next time, not trusted by its key.
pub(super) const RACY_NS: i128 = 2_000_000_000;

/// What identifies a file's bytes without reading them: which file, and its size and times.
/// ctime is in it because nothing can set it back: a rewrite that restores the mtime still
/// changes the key. Encoded as `dev, ino, size, mtime_ns, ctime_ns` (the [`FileId`]'s two
/// fields first, in place). Public only to ride on a [`Summary`](crate::summary::Summary)
/// (`file_key`) from the cache that made it to another cache: opaque outside.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
pub struct FileKey {
    pub(super) id: FileId,
    pub(super) size: u64,
    pub(super) mtime_ns: i128,
    pub(super) ctime_ns: i128,
}

/// The key and mtime (since 1970) of the regular file `name` of the folder `dir` is open on (a
/// symlink followed), by that descriptor where there is one (10,000 stats do not each walk the
/// whole path), else by `path`.
pub(super) fn stat_in(
    dir: Option<&File>,
    path: &Path,
    name: &[u8],
) -> Option<(FileKey, Option<Duration>)> {
    #[cfg(unix)]
    if let Some(dir) = dir {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(name);
        let st = rustix::fs::statat(dir, name, rustix::fs::AtFlags::empty()).ok()?;
        let regular =
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        let key = FileKey {
            id: FileId::of_stat(&st),
            size: st.st_size as u64,
            mtime_ns: ns(st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime_ns: ns(st.st_ctime as i64, st.st_ctime_nsec as i64),
        };
        #[allow(clippy::unnecessary_cast)]
        let modified = u64::try_from(st.st_mtime)
            .ok()
            .map(|s| Duration::new(s, st.st_mtime_nsec as u32));
        return regular.then_some((key, modified));
    }
    let _ = name;
    let meta = fs::metadata(path).ok()?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
    meta.is_file().then(|| (FileKey::of(&meta), modified))
}

/// The time now, in ns since 1970 (what a [`FileKey`]'s mtime is racy against).
pub(super) fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

impl FileKey {
    #[cfg(unix)]
    pub(crate) fn of(meta: &Metadata) -> FileKey {
        use std::os::unix::fs::MetadataExt;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        FileKey {
            id: FileId::of(meta),
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
        }
    }

    #[cfg(not(unix))]
    pub(crate) fn of(meta: &Metadata) -> FileKey {
        let ns = |t: std::io::Result<std::time::SystemTime>| {
            t.ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128)
        };
        FileKey {
            id: FileId::of(meta),
            size: meta.len(),
            mtime_ns: ns(meta.modified()),
            ctime_ns: ns(meta.created()),
        }
    }
}

/// The hash of the code that fills the caches (`build.rs`), for tests that forge another.
pub const CODE_HASH: &str = env!("PISESS_CODE_HASH");

/// What a summary depends on besides the file: pisess itself, by its version and by a hash of
/// its code (`build.rs`: a fix shipped without a version bump changes it too), and the time
/// zone in which dates without an offset are read (`parse_js_date`).
pub(super) fn stamp() -> String {
    let tz = jiff::tz::TimeZone::system();
    format!(
        "pisess {} code {} tz {:?} {:?}",
        env!("CARGO_PKG_VERSION"),
        CODE_HASH,
        std::env::var_os("TZ"),
        tz.iana_name()
            .map_or_else(|| format!("{tz:?}"), str::to_owned),
    )
}
