//! How far a run over many session files has got, told to whoever watches: the binary's
//! one-line display on a terminal (`pisess`'s `app::progress`). The store knows nothing of
//! terminals: it says when a run over files begins and ends and which file is done, and with
//! no watcher (tests, pipes, `-q`) that is one atomic load per file.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What is told of a run over files. `done` is called on the worker that read the file, once
/// per file, so it must be cheap; `begin` and `end` on the thread that runs the work.
pub trait Watch: Send + Sync {
    fn begin(&self, files: &[PathBuf]);
    fn done(&self, file: &Path);
    fn end(&self);
}

static WATCHER: OnceLock<&'static dyn Watch> = OnceLock::new();

/// Installs the process's one watcher (the binary does, when a display is wanted); a second
/// is ignored.
pub fn watch(watcher: &'static dyn Watch) {
    let _ = WATCHER.set(watcher);
}

/// A run over `files` has begun; it ends when the guard is dropped.
#[must_use = "the run ends when this is dropped"]
pub fn begin(files: &[PathBuf]) -> Run {
    let watcher = WATCHER.get().copied();
    if let Some(w) = watcher {
        w.begin(files);
    }
    Run(watcher)
}

/// `file`, one of those the run began with, is done (read, searched or failed).
pub fn done(file: &Path) {
    if let Some(w) = WATCHER.get() {
        w.done(file);
    }
}

/// A run in progress: its end is told when it is dropped, whichever way the work ended.
pub struct Run(Option<&'static dyn Watch>);

impl Drop for Run {
    fn drop(&mut self) {
        if let Some(w) = self.0 {
            w.end();
        }
    }
}

/// Whether this build has the test hooks (the display's deterministic frames are one).
pub const TEST_HOOKS: bool = cfg!(feature = "test-hooks");
