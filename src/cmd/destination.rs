//! Where a command may write a file it was given (`check --junit FILE`, `--summary FILE`,
//! `export -o FILE`), and how `export` writes it: never over a session, never over a file the
//! same run reads (stdin included), and for `check` never under the sessions folder.
//! `check "$S" --junit "$S"` or `export -o "$S" - < "$S"` would otherwise replace the session
//! just read with its own output.
//!
//! A path is compared twice: canonically (so another spelling or a symlink to an input is the
//! input) and by device and inode (so a hard link is too). A file that exists and holds a pi
//! session header is refused wherever it is.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use pisess_format::scan::read_header;
use pisess_format::util::file::FileId;
use pisess_format::util::warning::io_cause;

/// A path as it would be written to: canonical when it exists (symlinks followed, as the write
/// would follow them), else its folder canonical and its own name, else as given (a folder that
/// does not exist: the write fails and says so). `None` for a symlink that points nowhere
/// (where the write would land is not known until it is made).
fn landing(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = path.canonicalize() {
        return Some(p);
    }
    if path.symlink_metadata().is_ok() {
        return None;
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    match (folder.canonicalize(), path.file_name()) {
        (Ok(folder), Some(name)) => Some(folder.join(name)),
        _ => Some(path.to_path_buf()),
    }
}

fn identity(path: &Path) -> Option<FileId> {
    fs::metadata(path).ok().map(|m| FileId::of(&m))
}

/// Why a report must not be written to `file`, or `None` when it may. `folders` are the
/// sessions folders (the root, a custom dir); `inputs` the files this run reads; `stdin` the
/// file stdin is when this run reads it and it is a regular file (`- < s.jsonl`).
pub(super) fn refusal(
    file: &Path,
    folders: &[&Path],
    inputs: &[PathBuf],
    stdin: Option<FileId>,
) -> Option<String> {
    let Some(landing) = landing(file) else {
        return Some("it is a symlink to nothing, so where it would be written is unknown".into());
    };
    let id = identity(file);
    if id.is_some_and(|id| stdin.is_some_and(|s| s.same(id))) {
        return Some("it is the file on standard input, which this run reads".into());
    }
    for input in inputs {
        let same_path = input.canonicalize().is_ok_and(|p| p == landing);
        let same_file = id.is_some_and(|id| identity(input).is_some_and(|i| i.same(id)));
        if same_path || same_file {
            return Some(format!(
                "it is {}, a session this run reads",
                input.display()
            ));
        }
    }
    for folder in folders {
        if folder.canonicalize().is_ok_and(|f| landing.starts_with(&f)) {
            return Some(format!(
                "it is inside the sessions folder {}",
                folder.display()
            ));
        }
    }
    // A regular file only: reading a FIFO's "header" would block (and a FIFO is no session).
    if fs::metadata(file).is_ok_and(|m| m.is_file()) && read_header(file).is_ok() {
        return Some("it holds a pi session".into());
    }
    None
}

/// Writes `file` whole, as `write` makes it. A regular file (or a new path) gets a temporary
/// file beside it that is renamed over it once complete, so a failed write leaves nothing
/// half-written and an existing file whole. Through a symbolic link, the file it names is the
/// one replaced, the link kept (as `check --junit` writes through it). Anything else that exists
/// (a FIFO, a character device such as /dev/null) is opened and written to as it is: renaming
/// over it would replace the device or pipe itself with a regular file.
///
/// A new file is made 0600 when `private` (an export as it is may hold secrets), else as the
/// umask says (a redacted page is made to be shared where it is copied); a file written again
/// keeps its mode.
pub(super) fn write_whole(
    file: &Path,
    private: bool,
    write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let shown =
        crate::views::style::escape_control(&file.display().to_string(), false).into_owned();
    let fail = |e: io::Error| anyhow::anyhow!("cannot write {shown}: {}", io_cause(&e));
    // `metadata` follows links: what is at the end of them decides.
    match fs::metadata(file) {
        Ok(meta) if !meta.is_file() => {
            let opened = fs::OpenOptions::new().write(true).truncate(true).open(file);
            let mut w = Named(io::BufWriter::new(opened.map_err(fail)?), &shown);
            write(&mut w)?;
            // Errors through `Named` already name the file.
            return Ok(w.flush()?);
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(fail(e)),
    }
    // A link to a regular file: replace that file, not the link.
    let target = if file
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
    {
        file.canonicalize().map_err(fail)?
    } else {
        file.to_path_buf()
    };
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".pisess-export");
    #[cfg(unix)]
    if !private {
        // The mode asked for at creation, less the umask, as any new file gets.
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    #[cfg(not(unix))]
    let _ = private;
    let tmp = builder.tempfile_in(&dir).map_err(fail)?;
    // Buffered over the `File` itself, which takes a batch of slices in one `writev` (an
    // html page's items: `export::Out::push_rendered`) where the temporary file's own
    // writer would be copied through the buffer a slice at a time.
    let mut w = Named(io::BufWriter::new(tmp.as_file()), &shown);
    write(&mut w)?;
    w.flush()?;
    drop(w);
    // A file written again keeps its mode (the temporary file is made 0600).
    if let Ok(old) = fs::metadata(&target) {
        tmp.as_file()
            .set_permissions(old.permissions())
            .map_err(fail)?;
    }
    tmp.persist(&target).map_err(|e| fail(e.error))?;
    Ok(())
}

/// A writer whose errors name the file ("No space left on device" alone does not say where);
/// the kind is kept, so a FIFO whose reader left is still a closed pipe.
struct Named<'a, W>(W, &'a str);

impl<W: Write> Write for Named<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(|e| self.name(e))
    }

    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        self.0.write_vectored(bufs).map_err(|e| self.name(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(|e| self.name(e))
    }
}

impl<W> Named<'_, W> {
    fn name(&self, e: io::Error) -> io::Error {
        if e.kind() == io::ErrorKind::Interrupted {
            return e;
        }
        io::Error::new(
            e.kind(),
            format!("cannot write {}: {}", self.1, io_cause(&e)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_beside_the_sessions_may_be_written_and_one_inside_may_not() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("sessions");
        fs::create_dir(&sessions).unwrap();
        let out = dir.path().join("report.xml");
        assert_eq!(refusal(&out, &[&sessions], &[], None), None);
        // A folder that does not exist: not refused here, the write says why it fails.
        assert_eq!(
            refusal(&dir.path().join("no/such.xml"), &[&sessions], &[], None),
            None
        );
        let inside = sessions.join("new.xml");
        assert!(refusal(&inside, &[&sessions], &[], None)
            .unwrap()
            .contains("inside the sessions folder"));
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_or_hard_link_to_an_input_is_the_input() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.jsonl");
        fs::write(&input, "{}\n").unwrap();
        let link = dir.path().join("link.xml");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let hard = dir.path().join("hard.xml");
        fs::hard_link(&input, &hard).unwrap();
        for path in [&input, &link, &hard] {
            let why = refusal(path, &[], std::slice::from_ref(&input), None).unwrap();
            assert!(why.contains("a session this run reads"), "{why}");
        }
        let dangling = dir.path().join("dangling.xml");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert!(refusal(&dangling, &[], &[], None).is_some());
    }
}
