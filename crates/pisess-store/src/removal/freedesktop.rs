//! The freedesktop.org trash (trash-spec 1.0), written by descriptor: the file moved in is the
//! one [`super`] checked, and its `.trashinfo` records the path it came from, so any trash tool
//! (a file manager, `gio trash --restore`, trash-cli) puts it back where it was.
//!
//! The trash is the home trash (`$XDG_DATA_HOME/Trash`, else `~/.local/share/Trash`) when the file
//! is on its filesystem, else the filesystem's own: `$topdir/.Trash/$uid` (an admin-made `.Trash`
//! with the sticky bit, not a symlink) or `$topdir/.Trash-$uid`. Renames cannot cross
//! filesystems, and the spec forbids copying into a trash elsewhere, so a file with no trash on
//! its filesystem is refused.

use std::ffi::OsStr;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::fd::BorrowedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{self as rfs, Mode as Perm, OFlags, RenameFlags};
use rustix::io::Errno;

use super::TrashHome;

/// Why the trash would not take a file.
#[derive(Debug, thiserror::Error)]
pub(super) enum TrashError {
    #[error("{}: {error}", path.display())]
    At { path: PathBuf, error: io::Error },
    #[error("no home trash: neither XDG_DATA_HOME nor HOME is set")]
    NoHome,
    #[error("{}: no free name", .0.display())]
    NoFreeName(PathBuf),
    #[error("{} is on another filesystem, and {} cannot be used: {error}", home.display(), mine.display())]
    Elsewhere {
        home: PathBuf,
        mine: PathBuf,
        error: io::Error,
    },
}

/// The system's `error` about `path`.
fn at(path: &Path, error: impl Into<io::Error>) -> TrashError {
    TrashError::At {
        path: path.to_path_buf(),
        error: error.into(),
    }
}

/// Moves `name` from the folder `from` into the trash, recording `original` as where it was.
/// `dev` is the device the file is on.
pub(super) fn put(
    home: &TrashHome,
    from: BorrowedFd,
    name: &OsStr,
    original: &Path,
    dev: u64,
) -> Result<(), TrashError> {
    let trash = trash_for(home, original, dev)?;
    let files = trash.join("files");
    let info = trash.join("info");
    for dir in [&files, &info] {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| at(dir, e))?;
    }
    let files_fd = rfs::open(
        &files,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Perm::empty(),
    )
    .map_err(|e| at(&files, e))?;
    let record = trash_info(original);
    for n in 1..=10_000u32 {
        let mut in_trash = name.to_owned();
        if n > 1 {
            in_trash.push(format!(".{n}"));
        }
        let mut info_name = in_trash.clone();
        info_name.push(".trashinfo");
        let info_path = info.join(&info_name);
        // The info file is made first and exclusively: it reserves the name (the spec's way).
        let mut file = match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&info_path)
        {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(at(&info_path, e)),
        };
        if let Err(e) = file
            .write_all(record.as_bytes())
            .and_then(|()| file.sync_all())
        {
            let _ = fs::remove_file(&info_path);
            return Err(at(&info_path, e));
        }
        match rfs::renameat_with(from, name, &files_fd, &in_trash, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(Errno::EXIST) => {
                let _ = fs::remove_file(&info_path);
            }
            Err(e) => {
                let _ = fs::remove_file(&info_path);
                return Err(at(&files, e));
            }
        }
    }
    Err(TrashError::NoFreeName(files))
}

/// The `.trashinfo` text: the original path, percent-encoded, and the local time.
fn trash_info(original: &Path) -> String {
    let date = jiff::Zoned::now().strftime("%Y-%m-%dT%H:%M:%S");
    format!(
        "[Trash Info]\nPath={}\nDeletionDate={date}\n",
        encode_path(original)
    )
}

/// Percent-encodes every byte but `/` and RFC 3986's unreserved ones (the spec's "URL-escaped").
fn encode_path(path: &Path) -> String {
    let mut out = String::new();
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The home trash folder.
fn home_trash(home: &TrashHome) -> Option<PathBuf> {
    let nonempty = |v: &Option<std::ffi::OsString>| v.clone().filter(|s| !s.is_empty());
    nonempty(&home.xdg_data_home)
        .map(|d| PathBuf::from(d).join("Trash"))
        .or_else(|| nonempty(&home.home).map(|h| PathBuf::from(h).join(".local/share/Trash")))
}

/// The device of a path's nearest existing ancestor (a trash folder may not exist yet).
fn device_of(path: &Path) -> Option<u64> {
    path.ancestors()
        .find_map(|p| fs::metadata(p).ok())
        .map(|m| m.dev())
}

/// The trash for a file on device `dev` (see the module's comment).
fn trash_for(home: &TrashHome, original: &Path, dev: u64) -> Result<PathBuf, TrashError> {
    let home_trash = home_trash(home).ok_or(TrashError::NoHome)?;
    if device_of(&home_trash) == Some(dev) {
        return Ok(home_trash);
    }
    let topdir = topdir(original, dev);
    let uid = rustix::process::geteuid().as_raw();
    let admin = topdir.join(".Trash");
    if let Ok(meta) = fs::symlink_metadata(&admin) {
        if meta.is_dir() && meta.permissions().mode() & 0o1000 != 0 {
            let mine = admin.join(uid.to_string());
            if ensure_private_dir(&mine).is_ok() {
                return Ok(mine);
            }
        }
    }
    let mine = topdir.join(format!(".Trash-{uid}"));
    ensure_private_dir(&mine).map_err(|error| TrashError::Elsewhere {
        home: home_trash,
        mine: mine.clone(),
        error,
    })?;
    Ok(mine)
}

/// A folder of ours, made if missing: not a symlink, owned by us.
fn ensure_private_dir(dir: &Path) -> io::Result<()> {
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = fs::symlink_metadata(dir)?;
    if !meta.is_dir() || meta.uid() != rustix::process::geteuid().as_raw() {
        return Err(io::Error::other("not a folder of this user's"));
    }
    Ok(())
}

/// The top folder of the filesystem a file is on: its highest ancestor on the same device.
fn topdir(original: &Path, dev: u64) -> PathBuf {
    let folder = original
        .parent()
        .and_then(|p| p.canonicalize().ok())
        .unwrap_or_else(|| PathBuf::from("/"));
    let mut top = folder.as_path();
    while let Some(up) = top.parent() {
        if fs::metadata(up).ok().map(|m| m.dev()) != Some(dev) {
            break;
        }
        top = up;
    }
    top.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_percent_encoded_but_slashes() {
        assert_eq!(
            encode_path(Path::new("/a b/c%d/é_x-y.z~")),
            "/a%20b/c%25d/%C3%A9_x-y.z~"
        );
    }
}
