//! What the driver asks of a matcher, and what a matcher gives back: one session's hits, and
//! a place to print standard input's hits as they are found.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::app::diag::Diag;
use pisess_format::scan::ScanError;
use pisess_format::util::warning::Warning;
use pisess_store::summary::Summary;

/// One searched session: what both matchers know of it, and their hits.
pub(super) struct Searched<H> {
    pub(super) path: PathBuf,
    pub(super) id: String,
    pub(super) cwd: String,
    pub(super) warnings: Vec<Warning>,
    /// Read when the output or the filters need it (`grep` without `-l`, `-c`, `--json`).
    pub(super) summary: Option<Summary>,
    pub(super) hits: Vec<H>,
    /// The session a subagent run was found under (`grep --all`), set by the driver.
    pub(super) under: Option<Under>,
}

/// The session a run was found under: its id (empty when it could not be read), its path, and
/// how the run was made.
#[derive(Clone)]
pub(super) struct Under {
    pub(super) id: String,
    pub(super) path: PathBuf,
    pub(super) made: pisess_store::family::runs::Made,
}

impl<H> Searched<H> {
    /// A file that cannot hold a hit, passed over after its header.
    pub(super) fn nothing(path: &Path) -> Self {
        Searched {
            path: path.to_path_buf(),
            id: String::new(),
            cwd: String::new(),
            warnings: Vec::new(),
            summary: None,
            hits: Vec::new(),
            under: None,
        }
    }
}

/// Where the hits of standard input go while it is read: a matcher that can print them as
/// they are found does (`tail -f x | pisess grep y -` shows each at once), and counts them.
pub(super) struct Live<'o> {
    pub(super) out: &'o mut dyn Write,
    /// Whether nothing was printed before (no blank line before a heading).
    pub(super) first: bool,
    /// Hits printed already, which the session's hits no longer hold.
    pub(super) shown: usize,
    /// A write that failed: the search stops and the driver returns it.
    pub(super) failed: Option<io::Error>,
}

/// What decides a hit, and how hits are printed: the plain search or the secret detector.
pub(super) trait Matcher: Sync {
    type Hit: Send;

    /// The sessions to search; none: those of the listing.
    fn named(&self) -> Vec<OsString>;
    /// Whether an empty listing is said on stderr (exit 1 alone reads as "no match").
    fn notes_no_sessions(&self) -> bool {
        false
    }
    /// The files to be read, known before any is.
    fn files_chosen(&mut self, _paths: &[PathBuf], _diag: &mut Diag) {}
    /// Searches one file (on any thread).
    fn file(&self, path: &Path) -> Result<Searched<Self::Hit>, ScanError>;
    /// Searches standard input as it comes, never holding it whole.
    fn stdin(
        &self,
        stdin: &mut dyn Read,
        live: &mut Live,
    ) -> Result<Searched<Self::Hit>, ScanError>;
    /// Whether a session passes the filters that need it read (`--since`, `--until`).
    fn holds(&self, _s: &Searched<Self::Hit>) -> bool {
        true
    }
    /// When nothing matched: a flag that would have found the pattern in these files, in
    /// text this search leaves out (`kept`: the driver's own filters on a session).
    fn unsearched(
        &self,
        _paths: &[PathBuf],
        _kept: &dyn Fn(&Searched<Self::Hit>) -> bool,
    ) -> Option<&'static str> {
        None
    }
    /// A path as a warning may show it (`grep --secrets` redacts what its rules find).
    fn redact(&self, path: &str) -> String {
        path.to_owned()
    }
    /// Reports a session's warnings.
    fn warn(&self, diag: &mut Diag, s: &Searched<Self::Hit>);
    /// Prints a session's hits; `first`: nothing was printed before.
    fn write(&self, s: &Searched<Self::Hit>, first: bool, out: &mut dyn Write) -> io::Result<()>;
}
