//! Where `check --junit FILE` and `--summary FILE` may write: never over a session, never under
//! the sessions folder, never over a file the same run reads. `check "$S" --junit "$S"` would
//! otherwise replace the session it just judged with its own verdict.
//!
//! A path is compared twice: canonically (so another spelling or a symlink to an input is the
//! input) and by device and inode (so a hard link is too). A file that exists and holds a pi
//! session header is refused wherever it is.

use std::fs;
use std::path::{Path, PathBuf};

use crate::format::scan::read_header;
use crate::util::file::FileId;

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
/// sessions folders (the root, a custom dir); `inputs` the files this run reads.
pub(super) fn refusal(file: &Path, folders: &[&Path], inputs: &[PathBuf]) -> Option<String> {
    let Some(landing) = landing(file) else {
        return Some("it is a symlink to nothing, so where it would be written is unknown".into());
    };
    let id = identity(file);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_beside_the_sessions_may_be_written_and_one_inside_may_not() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("sessions");
        fs::create_dir(&sessions).unwrap();
        let out = dir.path().join("report.xml");
        assert_eq!(refusal(&out, &[&sessions], &[]), None);
        // A folder that does not exist: not refused here, the write says why it fails.
        assert_eq!(
            refusal(&dir.path().join("no/such.xml"), &[&sessions], &[]),
            None
        );
        let inside = sessions.join("new.xml");
        assert!(refusal(&inside, &[&sessions], &[])
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
            let why = refusal(path, &[], std::slice::from_ref(&input)).unwrap();
            assert!(why.contains("a session this run reads"), "{why}");
        }
        let dangling = dir.path().join("dangling.xml");
        std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
        assert!(refusal(&dangling, &[], &[]).is_some());
    }
}
