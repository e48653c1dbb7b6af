//! What a file is and where its name starts: facts of the file system that the reader, the
//! listing and the caches all need, below all of them.

use std::fs;
use std::io;
use std::path::Path;

/// What a file is, for messages: "a FIFO", "a character device"...
pub(crate) fn kind_of(kind: fs::FileType) -> &'static str {
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
pub(crate) fn split_name(path: &Path) -> (&[u8], &[u8]) {
    let bytes = path.as_os_str().as_encoded_bytes();
    let at = bytes
        .iter()
        .rposition(|&b| std::path::is_separator(char::from(b)))
        .map_or(0, |i| i + 1);
    (&bytes[..at], &bytes[at..])
}

/// Whether [`open_nonblocking`] follows a symbolic link at the path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    Follow,
    /// The open fails (`ELOOP`) on a link: the file must be the one named.
    Refuse,
}

/// Opens a file for reading without waiting on a FIFO (`O_NONBLOCK`, which a regular file
/// ignores): the one way every reader of a named file opens it, since anything may have been
/// swapped in after it was listed. What it is is for the caller to ask of the opened file.
pub(crate) fn open_nonblocking(path: &Path, links: Links) -> io::Result<fs::File> {
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
pub(crate) fn stem_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
