//! What a file is and where its name starts: facts of the file system that the reader, the
//! listing and the caches all need, below all of them.

use std::fs;
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
