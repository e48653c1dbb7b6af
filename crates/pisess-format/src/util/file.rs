//! What a file is and where its name starts: facts of the file system that the reader, the
//! listing and the caches all need, below all of them.

use std::fs;
use std::io;
use std::path::Path;

/// What a file is, for messages: "a FIFO", "a character device"...
pub fn kind_of(kind: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// A listed file's folder (with its separator) and name, as bytes: split at the last separator,
/// as a listing's paths are a folder joined with a name. Cheaper than `Path::file_name`, which
/// parses components, in sorts and lookups of 10,000 files.
pub fn split_name(path: &Path) -> (&[u8], &[u8]) {
    let bytes = path.as_os_str().as_encoded_bytes();
    #[cfg(unix)]
    let at = memchr::memrchr(b'/', bytes).map_or(0, |i| i + 1);
    #[cfg(not(unix))]
    let at = bytes
        .iter()
        .rposition(|&b| std::path::is_separator(char::from(b)))
        .map_or(0, |i| i + 1);
    (&bytes[..at], &bytes[at..])
}

/// Whether [`open_nonblocking`] follows a symbolic link at the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    Follow,
    /// The open fails (`ELOOP`) on a link: the file must be the one named.
    Refuse,
}

/// Opens a file for reading without waiting on a FIFO (`O_NONBLOCK`, which a regular file
/// ignores): the one way every reader of a named file opens it, since anything may have been
/// swapped in after it was listed. What it is is for the caller to ask of the opened file.
pub fn open_nonblocking(path: &Path, links: Links) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let mut flags = rustix::fs::OFlags::NONBLOCK;
        if links == Links::Refuse {
            flags |= rustix::fs::OFlags::NOFOLLOW;
        }
        options.custom_flags(i32::try_from(flags.bits()).unwrap_or(0));
    }
    #[cfg(not(unix))]
    let _ = links;
    options.open(path)
}

/// A file name without its extension (`.jsonl`): the id of a seed-000 session.
pub fn stem_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Which file a path or a descriptor names: its device and inode, on unix. Where the platform
/// has no such numbers the creation time stands in (in `dev`, `ino` 0): it tells a file
/// replaced since apart from the one seen, but proves nothing, so [`FileId::same`] never holds
/// there. What a file holds is another question: a key that says whether it changed adds its
/// size and times (the summary cache's `FileKey`, a session's `Unchanged`).
///
/// Serialized as its two numbers in this order (the summary cache stores it in its keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The file `meta` (a stat) describes.
    #[cfg(unix)]
    pub fn of(meta: &fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }

    #[cfg(not(unix))]
    pub fn of(meta: &fs::Metadata) -> FileId {
        let created = meta
            .created()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as u64);
        FileId {
            dev: created,
            ino: 0,
        }
    }

    /// The file a stat by descriptor or by a folder's descriptor (`fstatat`) describes.
    #[cfg(unix)]
    #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
    pub fn of_stat(st: &rustix::fs::Stat) -> FileId {
        FileId {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
        }
    }

    /// The device the file is on.
    #[cfg(unix)]
    pub fn device(self) -> u64 {
        self.dev
    }

    /// Surely the same file: the same device and inode. Never where the platform has none (a
    /// creation time shared is no proof).
    pub fn same(self, other: FileId) -> bool {
        cfg!(unix) && self == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_file_by_any_name_is_the_same_and_another_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        fs::write(&a, b"x").unwrap();
        fs::write(&b, b"x").unwrap();
        let id = |p: &Path| FileId::of(&fs::metadata(p).unwrap());
        let link = dir.path().join("link");
        fs::hard_link(&a, &link).unwrap();
        assert!(id(&a).same(id(&link)));
        assert!(!id(&a).same(id(&b)));
        #[cfg(unix)]
        {
            let st = rustix::fs::stat(&a).unwrap();
            assert_eq!(FileId::of_stat(&st), id(&a));
        }
    }
}
