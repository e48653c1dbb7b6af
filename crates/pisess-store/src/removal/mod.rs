//! Removing one session file so that what goes is exactly the file that was checked, even while
//! another process renames files in its folder.
//!
//! A path names whatever is there when it is used, so "check the path, then remove the path"
//! removes a file swapped in between (a `renameat2(RENAME_EXCHANGE)` loop wins that race often
//! enough). On Linux the file is first moved, by one atomic rename relative to its folder's
//! descriptor, into a private folder made for the purpose beside it (mode 0700, so on the same
//! filesystem and out of other users' reach). Whatever the rename took is then checked there: the
//! device and inode recorded when it was planned, a regular file, still a pi session header,
//! read through a descriptor. Only then is it unlinked, or moved into the trash, again relative
//! to descriptors. A file that fails the check is renamed back and left alone.
//!
//! Other platforms check the path and remove it as close together as they allow (see
//! docs/guide.md): their trash APIs take paths.

#[cfg(target_os = "linux")]
mod freedesktop;

use std::io;
use std::path::Path;

use pisess_format::scan::ScanError;
use pisess_format::util::file::FileId;

/// Where removed files go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Trash,
    Permanent,
}

/// What was checked about a file when the removal was planned.
#[derive(Clone, Copy)]
pub struct Checked<'a> {
    pub path: &'a Path,
    pub file: FileId,
    /// The folder the file was in; `None` when it could not be looked at (then no folder is
    /// the same).
    pub folder: Option<FileId>,
    /// The session id its header held.
    pub id: &'a str,
    /// What else the file must still be (empty, older than, named): judged on the file itself
    /// once it is taken and its identity checked, so nothing but its own bytes decides.
    pub judge: Option<&'a dyn Fn(std::fs::File) -> Result<(), NotRemoved>>,
}

/// The trash `rm` moves files to: on Linux the freedesktop trash, found from these variables
/// (as every freedesktop program finds it).
#[derive(Debug, Clone, Default)]
pub struct TrashHome {
    pub xdg_data_home: Option<std::ffi::OsString>,
    pub home: Option<std::ffi::OsString>,
}

impl TrashHome {
    pub fn from_process() -> TrashHome {
        TrashHome {
            xdg_data_home: std::env::var_os("XDG_DATA_HOME"),
            home: std::env::var_os("HOME"),
        }
    }
}

/// The folder `path` is in (`.` for a bare name): the one the plan records and the removal
/// opens.
pub fn folder_of(path: &Path) -> Option<&Path> {
    let folder = path.parent()?;
    Some(if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    })
}

/// Removes the file `checked` describes, or says why it left it alone.
pub fn remove(checked: Checked, mode: Mode, trash: &TrashHome) -> Result<(), NotRemoved> {
    #[cfg(target_os = "linux")]
    {
        linux::remove(checked, mode, trash)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = trash;
        by_path::remove(checked, mode)
    }
}

/// Why a session file is left alone, in the words `rm` prints after its path.
#[derive(Debug, thiserror::Error)]
pub enum NotRemoved {
    /// A fact about the file or its folder that rules the removal out.
    #[error("{0}")]
    Is(&'static str),
    /// A step the system refused: which, and its error.
    #[error("{0}: {1}")]
    Step(&'static str, io::Error),
    /// The system's error alone.
    #[error("{0}")]
    Os(io::Error),
    /// It could not be read (`no such file` when it is gone).
    #[error("{}", cannot_read(.0))]
    Unreadable(io::Error),
    /// Its bytes are not a pi session (or changed while they were read).
    #[error("{}", not_a_session(.0))]
    NotASession(ScanError),
    /// It holds another session than the one checked.
    #[error("it no longer holds session {expected}{}; left alone", found.as_ref().map_or(String::new(), |f| format!(" (it holds {f})")))]
    OtherSession {
        expected: String,
        found: Option<String>,
    },
    /// No such session: the selection's error (`SelectError`, above this floor).
    #[error(transparent)]
    Unselected(Box<dyn std::error::Error + Send + Sync>),
    /// Chosen by a name or an id prefix it no longer has.
    #[error("it is no longer session '{0}' (neither its id nor its name is that)")]
    NotNamed(String),
    /// Chosen by `--empty`: what it holds that a person would miss.
    #[error("it is not empty (it holds {0})")]
    NotEmpty(String),
    /// Found by a listing outside the sessions root (a symlinked folder).
    #[error("it is outside the sessions root {} (name it by its path to remove it anyway)", .0.display())]
    OutsideRoot(std::path::PathBuf),
    /// The reason, after which the file was put back as it was.
    #[error("{0}; left alone")]
    LeftAlone(Box<NotRemoved>),
    /// The trash would not take it.
    #[error("cannot move it to the trash ({0}); it was left in place (--permanent deletes without the trash)")]
    Trash(String),
    /// Taken aside, then neither removed nor put back: where it is now.
    #[error("{reason}; it could not be put back ({error}): {kept}")]
    NotPutBack {
        reason: Box<NotRemoved>,
        error: io::Error,
        kept: String,
    },
}

impl NotRemoved {
    pub fn left_alone(self) -> NotRemoved {
        NotRemoved::LeftAlone(Box::new(self))
    }
}

fn cannot_read(e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::NotFound {
        "no such file".into()
    } else {
        format!("cannot read it: {e}")
    }
}

fn not_a_session(e: &ScanError) -> String {
    match e {
        ScanError::Io(e) => cannot_read(e),
        ScanError::NotASession { line, reason, .. } => {
            format!("it is not a pi session (line {line}: {reason})")
        }
        ScanError::Empty => "it is not a pi session (it holds no session header)".into(),
        ScanError::NoHeader { line, reason } => {
            format!("it is not a pi session (no line parses; line {line}: {reason})")
        }
        ScanError::NotRegular(kind) => format!("it is not a regular file ({kind})"),
        ScanError::Changed => "it changed while it was being read".into(),
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::{OsStr, OsString};
    use std::fs::File;
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::Path;
    use std::sync::atomic::{AtomicU32, Ordering};

    use rustix::fs::{self as rfs, AtFlags, FileType, Mode as Perm, OFlags, RenameFlags};
    use rustix::io::Errno;

    use super::{freedesktop, Checked, Mode, NotRemoved, TrashHome};
    use pisess_format::scan::read_header_of;
    use pisess_format::util::file::FileId;

    fn words(e: Errno) -> std::io::Error {
        e.into()
    }

    pub(super) fn remove(
        checked: Checked,
        mode: Mode,
        trash: &TrashHome,
    ) -> Result<(), NotRemoved> {
        let (Some(folder), Some(name)) = (super::folder_of(checked.path), checked.path.file_name())
        else {
            return Err(NotRemoved::Is("it has no folder and file name"));
        };
        let dir = rfs::open(
            folder,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Perm::empty(),
        )
        .map_err(|e| NotRemoved::Step("cannot open its folder", words(e)))?;
        let dir_stat =
            rfs::fstat(&dir).map_err(|e| NotRemoved::Step("cannot read its folder", words(e)))?;
        if !checked
            .folder
            .is_some_and(|f| f.same(FileId::of_stat(&dir_stat)))
        {
            return Err(NotRemoved::Is(
                "its folder was replaced since it was checked; left alone",
            ));
        }
        let stage = Stage::make(&dir)?;
        let result = stage.take_and_remove(&dir, name, checked, mode, trash);
        stage.discard(&dir);
        result
    }

    /// A private folder beside the session, for the moment between taking a file and removing it.
    struct Stage {
        name: OsString,
        fd: OwnedFd,
    }

    impl Stage {
        fn make(dir: &OwnedFd) -> Result<Stage, NotRemoved> {
            static COUNT: AtomicU32 = AtomicU32::new(0);
            let pid = rustix::process::getpid().as_raw_nonzero();
            for _ in 0..100 {
                let n = COUNT.fetch_add(1, Ordering::Relaxed);
                let name = OsString::from(format!(".pisess-rm-{pid}-{n}"));
                match rfs::mkdirat(dir, name.as_os_str(), Perm::RWXU) {
                    Ok(()) => {}
                    Err(Errno::EXIST) => continue,
                    Err(e) => {
                        return Err(NotRemoved::Step(
                            "cannot make a private folder beside it",
                            words(e),
                        ))
                    }
                }
                let fd = rfs::openat(
                    dir,
                    name.as_os_str(),
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Perm::empty(),
                )
                .map_err(|e| NotRemoved::Step("cannot open the private folder", words(e)))?;
                let st = rfs::fstat(&fd).map_err(|e| NotRemoved::Os(words(e)))?;
                // What we opened must be the folder we made, not one put in its place.
                if st.st_uid != rustix::process::geteuid().as_raw() || st.st_mode & 0o077 != 0 {
                    return Err(NotRemoved::Is(
                        "the private folder beside it was tampered with; left alone",
                    ));
                }
                return Ok(Stage { name, fd });
            }
            Err(NotRemoved::Is(
                "cannot make a private folder beside it (too many taken names)",
            ))
        }

        /// Takes whatever is at `name` into the stage, checks it, removes it or puts it back.
        fn take_and_remove(
            &self,
            dir: &OwnedFd,
            name: &OsStr,
            checked: Checked,
            mode: Mode,
            trash: &TrashHome,
        ) -> Result<(), NotRemoved> {
            rfs::renameat_with(dir, name, &self.fd, name, RenameFlags::NOREPLACE).map_err(|e| {
                match e {
                    Errno::NOENT => NotRemoved::Is("no such file (it went since it was checked)"),
                    e => NotRemoved::Step("cannot move it aside to remove it", words(e)),
                }
            })?;
            if let Err(reason) = self.verify(name, checked) {
                return Err(self.put_back(dir, name, checked.path, reason));
            }
            let done = match mode {
                Mode::Permanent => rfs::unlinkat(&self.fd, name, AtFlags::empty())
                    .map_err(|e| NotRemoved::Step("cannot delete it", words(e))),
                Mode::Trash => {
                    let dev = checked.file.device();
                    freedesktop::put(trash, self.fd.as_fd(), name, checked.path, dev)
                        .map_err(|e| NotRemoved::Trash(e.to_string()))
                }
            };
            done.map_err(|reason| self.put_back(dir, name, checked.path, reason))
        }

        /// Whether the staged file is the one that was checked.
        fn verify(&self, name: &OsStr, checked: Checked) -> Result<(), NotRemoved> {
            let st = rfs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW)
                .map_err(|e| NotRemoved::Step("cannot read it", words(e)))?;
            match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => {}
                FileType::Symlink => {
                    return Err(NotRemoved::Is(
                        "it was replaced by a symlink since it was checked; left alone",
                    ))
                }
                _ => return Err(NotRemoved::Is("it is no longer a regular file; left alone")),
            }
            if !FileId::of_stat(&st).same(checked.file) {
                return Err(NotRemoved::Is(
                    "it was replaced by another file since it was checked; left alone",
                ));
            }
            // Opened twice: once for the header, then again to read whole for `judge`.
            let open = || {
                rfs::openat(
                    &self.fd,
                    name,
                    OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
                    Perm::empty(),
                )
                .map_err(|e| NotRemoved::Step("cannot read it", words(e)))
            };
            let file = File::from(open()?);
            let stem = pisess_format::util::file::stem_of(Path::new(name));
            let header =
                read_header_of(file, &stem).map_err(|e| NotRemoved::NotASession(e).left_alone())?;
            if header.id != checked.id {
                return Err(NotRemoved::OtherSession {
                    expected: checked.id.to_owned(),
                    found: Some(header.id),
                });
            }
            let Some(judge) = checked.judge else {
                return Ok(());
            };
            // Opened again inside the private folder (ours, 0700): the same file, read whole.
            let fd = open()?;
            let st = rfs::fstat(&fd).map_err(|e| NotRemoved::Step("cannot read it", words(e)))?;
            if !FileId::of_stat(&st).same(checked.file) {
                return Err(NotRemoved::Is(
                    "it was replaced by another file since it was checked; left alone",
                ));
            }
            judge(File::from(fd)).map_err(NotRemoved::left_alone)
        }

        /// Renames the staged file back to where it was; the reason, and where it is if it could
        /// not go back.
        fn put_back(
            &self,
            dir: &OwnedFd,
            name: &OsStr,
            path: &Path,
            reason: NotRemoved,
        ) -> NotRemoved {
            match rfs::renameat_with(&self.fd, name, dir, name, RenameFlags::NOREPLACE) {
                Ok(()) | Err(Errno::NOENT) => reason,
                Err(e) => {
                    let mut kept = path.as_os_str().to_owned();
                    kept.push(format!(
                        " is now {}/{}",
                        self.name.to_string_lossy(),
                        String::from_utf8_lossy(name.as_bytes())
                    ));
                    NotRemoved::NotPutBack {
                        reason: Box::new(reason),
                        error: words(e),
                        kept: kept.to_string_lossy().into_owned(),
                    }
                }
            }
        }

        /// Removes the private folder (empty unless a file could not be put back).
        fn discard(self, dir: &OwnedFd) {
            drop(self.fd);
            let _ = rfs::unlinkat(dir, self.name.as_os_str(), AtFlags::REMOVEDIR);
        }
    }
}

/// Where the platform offers no removal by descriptor: check the path, then remove it.
#[cfg(not(target_os = "linux"))]
mod by_path {
    use std::fs;

    use super::{Checked, Mode, NotRemoved};
    use pisess_format::scan::read_header;
    use pisess_format::util::file::FileId;

    pub(super) fn remove(checked: Checked, mode: Mode) -> Result<(), NotRemoved> {
        still_the_same(checked)?;
        let header =
            read_header(checked.path).map_err(|e| NotRemoved::NotASession(e).left_alone())?;
        if header.id != checked.id {
            return Err(NotRemoved::OtherSession {
                expected: checked.id.to_owned(),
                found: None,
            });
        }
        if let Some(judge) = checked.judge {
            let file = fs::File::open(checked.path).map_err(NotRemoved::Unreadable)?;
            judge(file).map_err(NotRemoved::left_alone)?;
        }
        // Again, as close to the removal as it gets: reading the header took time.
        still_the_same(checked)?;
        match mode {
            // unlink never follows a symlink, and the trash moves the path itself.
            Mode::Permanent => {
                fs::remove_file(checked.path).map_err(|e| NotRemoved::Step("cannot delete it", e))
            }
            Mode::Trash => {
                trash::delete(checked.path).map_err(|e| NotRemoved::Trash(trash_error(&e)))
            }
        }
    }

    /// The trash crate's `Display` is its `Debug`; say the same in words.
    fn trash_error(e: &trash::Error) -> String {
        match e {
            trash::Error::Unknown { description } | trash::Error::Os { description, .. } => {
                description.clone()
            }
            trash::Error::CouldNotAccess { target } => format!("cannot access {target}"),
            trash::Error::CanonicalizePath { original } => {
                format!("cannot resolve {}", original.display())
            }
            other => format!("{other:?}"),
        }
    }

    fn still_the_same(checked: Checked) -> Result<(), NotRemoved> {
        let meta = fs::symlink_metadata(checked.path).map_err(NotRemoved::Unreadable)?;
        if meta.file_type().is_symlink() {
            return Err(NotRemoved::Is(
                "it was replaced by a symlink since it was checked; left alone",
            ));
        }
        if !meta.is_file() {
            return Err(NotRemoved::Is("it is no longer a regular file; left alone"));
        }
        if FileId::of(&meta) != checked.file {
            return Err(NotRemoved::Is(
                "it was replaced by another file since it was checked; left alone",
            ));
        }
        Ok(())
    }
}
