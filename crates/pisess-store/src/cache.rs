//! The caches: what a run learned of each session file, kept between runs so that the next
//! reads only what changed. The summary cache ([`summaries`], `ls` and `grep`'s headings) and
//! the tally cache ([`tallies`], `stats`) are two kinds of one container
//! ([`container::Cache`]): one file a session folder, a record a session file, trusted while
//! the file's [`FileKey`](key::FileKey) (device, inode, size, mtime, ctime) is what it was.
//!
//! A cache is a pure accelerator: what is read from it is what a full read gives, and a
//! missing, foreign, stale, damaged or unwritable cache is passed over with at most one
//! warning a run. The folder must be ours (see [`CacheDir::check`]): made 0700, used only while
//! it and each file in it are owned by the effective user and writable by no one else, each
//! file opened without following a symbolic link and read no further than
//! [`MAX_FILE_BYTES`](folder::MAX_FILE_BYTES). Even so a cache only ever shows what to display:
//! the same user (an agent's tools) can write it, so nothing that decides (`rm`, `check`)
//! takes its word (docs/guide.md, "Threat model").

#[cfg(test)]
mod code_hash;
pub(crate) mod container;
pub mod families;
pub(crate) mod folder;
pub mod key;
pub mod runs;
pub(crate) mod summaries;
pub mod tallies;

pub use folder::CacheDir;
pub(crate) use folder::CacheProblem;

#[cfg(any(test, feature = "test-hooks"))]
pub use container::this_stamp;

/// A path as the family and run caches store it: its bytes as the OS gives them (a name need
/// not be UTF-8), read back by [`path_of`].
pub(crate) fn bytes_of(p: &std::path::Path) -> Vec<u8> {
    p.as_os_str().as_encoded_bytes().to_vec()
}

/// A path from the bytes [`bytes_of`] wrote.
pub(crate) fn path_of(bytes: &[u8]) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
    }
    #[cfg(not(unix))]
    {
        std::path::PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
    }
}
#[cfg(any(test, feature = "test-hooks"))]
pub use summaries::forge;

/// The summary cache of one listing.
pub type Cache<'a> = container::Cache<'a, summaries::Summaries>;
