//! The cache's folder, which must be ours: made 0700, used only while it and each file in it
//! are owned by the effective user and writable by no one else, each file opened without
//! following a symbolic link. It knows nothing of what is cached, so
//! [`Location`](crate::locate::Location) can be given a [`CacheDir`] without reaching up
//! to the summaries.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use pisess_format::util::file::{open_nonblocking, Links};

/// The folder of the summary cache's files (`ls`), beside which each other family of cache
/// files has its own (`tallies`, for `stats`).
pub(super) const SUMMARIES: &str = "summaries";

/// A problem with the cache: the file or folder, and what went wrong (a run's one warning).
pub(crate) type CacheProblem = (PathBuf, String);

/// The largest cache file read or written: a folder of 10,000 sessions takes a few MB, a
/// million-entry session's fold a few more. A file over it (a sparse 1 TB one) is not read.
pub(super) const MAX_FILE_BYTES: u64 = 256 << 20;

/// Where the cache is, and whether this run has warned about it yet.
#[derive(Debug, Clone)]
pub struct CacheDir {
    pub(crate) dir: PathBuf,
    warned: Arc<AtomicBool>,
    /// Why the folder is not ours, found once a run (`None`: it is, or there is none yet).
    refused: Arc<OnceLock<Option<CacheProblem>>>,
}

impl CacheDir {
    pub fn new(dir: PathBuf) -> CacheDir {
        CacheDir {
            dir,
            warned: Arc::new(AtomicBool::new(false)),
            refused: Arc::new(OnceLock::new()),
        }
    }

    /// Whether this run may read the folder, checked once: `Err` with what is wrong (the
    /// run's one warning, the first time) when it or its `summaries` folder is not ours. A
    /// folder not made yet is fine: there is nothing to read, and [`CacheDir::make_family`]
    /// makes it.
    pub(crate) fn check(&self) -> Result<(), Option<CacheProblem>> {
        let refused = self.refused.get_or_init(|| self.not_ours().err());
        match refused {
            None => Ok(()),
            Some((path, why)) => Err(self.problem(path, why.clone())),
        }
    }

    /// The folder of one family of cache files (`summaries`, `tallies`), made 0700 where
    /// missing, then checked as [`CacheDir::check`] does (someone else may have made it
    /// first); a warning calls its cache the `what` cache.
    pub(super) fn make_family(&self, family: &str, what: &str) -> Result<(), CacheProblem> {
        let made = make_private(&self.dir.join(family));
        if let Err(e) = made {
            let why = format!(
                "cannot write the {what} cache: {}; going on without it",
                pisess_format::util::warning::io_cause(&e)
            );
            return Err((self.dir.clone(), why));
        }
        self.family_not_ours(family)
    }

    /// [`CacheDir::check`] for another family of cache files: the folder and that family's.
    pub(super) fn check_family(&self, family: &str) -> Result<(), Option<CacheProblem>> {
        self.check()?;
        if family == SUMMARIES {
            return Ok(());
        }
        self.family_not_ours(family)
            .map_err(|(path, why)| self.problem(&path, why))
    }

    /// The folder and its `summaries` folder, where they exist, owned by the effective user
    /// and writable by no one else (as OpenSSH's StrictModes and git's `safe.directory` ask):
    /// otherwise anyone who can write there chooses what `ls` shows, or fills it with links.
    fn not_ours(&self) -> Result<(), CacheProblem> {
        self.family_not_ours(SUMMARIES)
    }

    fn family_not_ours(&self, family: &str) -> Result<(), CacheProblem> {
        for folder in [&self.dir, &self.dir.join(family)] {
            match folder_owner_and_mode(folder) {
                Ok(None) => {}
                Ok(Some(Ok(()))) => {}
                Ok(Some(Err(wrong))) => {
                    return Err((
                        folder.clone(),
                        format!("cache folder {wrong}: running without a cache"),
                    ))
                }
                Err(e) => {
                    let why = format!(
                        "cannot read the cache folder: {}; running without a cache",
                        pisess_format::util::warning::io_cause(&e)
                    );
                    return Err((folder.clone(), why));
                }
            }
        }
        Ok(())
    }

    /// The cache file of a session folder in one family's folder.
    pub(super) fn family_file(&self, family: &str, folder: &[u8]) -> PathBuf {
        let hash = xxhash_rust::xxh3::xxh3_64(folder);
        self.dir.join(family).join(format!("{hash:016x}.bin"))
    }

    /// The first problem of a run becomes its one warning; later ones are dropped.
    pub(crate) fn problem(&self, path: &Path, why: String) -> Option<CacheProblem> {
        (!self.warned.swap(true, Ordering::Relaxed)).then(|| (path.to_path_buf(), why))
    }
}

/// A cache file, opened without following a symbolic link and without blocking (a FIFO put in
/// its place is not waited on), which must be a regular file of ours, writable by no one else,
/// of at most [`MAX_FILE_BYTES`]: what it is is asked of the opened file, not of the name.
pub(crate) fn open_cache_file(path: &Path) -> std::io::Result<File> {
    let file = open_nonblocking(path, Links::Refuse).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
            return std::io::Error::other("it is a symbolic link");
        }
        e
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let kind = pisess_format::util::file::kind_of(meta.file_type());
        return Err(std::io::Error::other(format!(
            "not a regular file ({kind})"
        )));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Err(wrong) = owner_and_mode(meta.uid(), meta.mode()) {
            return Err(std::io::Error::other(format!("it {wrong}")));
        }
    }
    if meta.len() > MAX_FILE_BYTES {
        let why = format!(
            "it is {} bytes, more than the {} a cache file may be",
            meta.len(),
            MAX_FILE_BYTES
        );
        return Err(std::io::Error::other(why));
    }
    Ok(file)
}

/// What makes a cache file or folder not ours alone (said of it: "cache folder is owned…").
#[derive(Debug, thiserror::Error)]
#[cfg_attr(not(unix), allow(dead_code))]
enum NotOurs {
    #[error("is owned by uid {uid}, not you (uid {me})")]
    Owner { uid: u32, me: u32 },
    #[error("is writable by {by} (mode {mode:04o})")]
    Writable { by: &'static str, mode: u32 },
}

/// Whether a file or folder of owner `uid` and `mode` is ours alone: `Err` says what is wrong.
#[cfg(unix)]
fn owner_and_mode(uid: u32, mode: u32) -> Result<(), NotOurs> {
    let me = rustix::process::geteuid().as_raw();
    if uid != me {
        return Err(NotOurs::Owner { uid, me });
    }
    let by = match (mode & 0o020 != 0, mode & 0o002 != 0) {
        (false, false) => return Ok(()),
        (true, false) => "group",
        (false, true) => "others",
        (true, true) => "group and others",
    };
    Err(NotOurs::Writable {
        by,
        mode: mode & 0o7777,
    })
}

/// A folder's owner and mode checked ([`owner_and_mode`]), following a symbolic link to it
/// (a link of ours to a folder of ours is fine: what is checked is the folder reached):
/// `None` when there is no folder there yet.
fn folder_owner_and_mode(folder: &Path) -> std::io::Result<Option<Result<(), NotOurs>>> {
    let meta = match fs::metadata(folder) {
        Ok(meta) => meta,
        // Nothing to read; where it cannot be made either, the write says so.
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None)
        }
        Err(e) => return Err(e),
    };
    if !meta.is_dir() {
        // Said when it is written to ("cannot write").
        return Ok(None);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Ok(Some(owner_and_mode(meta.uid(), meta.mode())))
    }
    #[cfg(not(unix))]
    Ok(Some(Ok(())))
}

/// `folder` and the folders above it that are missing, made 0700.
fn make_private(folder: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(folder)
}
