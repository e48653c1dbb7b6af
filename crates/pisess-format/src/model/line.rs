//! One entry as the scan hands it out: what the scan ([`crate::scan`]) yields and the
//! folds over it (the summary, the tally) read, so they need not reach up to the scan for it.

use std::borrow::Cow;

use super::{EntryKind, LineView};

/// One entry as the scan hands it out.
pub struct EntryLine<'a> {
    /// 0-based position among the file's entries (header and skipped lines excluded).
    pub ordinal: usize,
    pub line: u64,
    pub offset: u64,
    /// Bytes on disk, terminator included.
    pub len: u64,
    /// The effective id: stored, or assigned by the v1 migration.
    pub id: Option<Cow<'a, str>>,
    pub parent: Option<Cow<'a, str>>,
    pub kind: EntryKind,
    pub view: &'a LineView<'a>,
    /// The JSON text `view` was read from: the stored line, or its seed-000 mapping (or lossy
    /// re-encoding) in pi's shape. For decoding a field the view skips.
    pub json: &'a [u8],
    /// The line as stored, without its `\n` (a `\r` before it is kept).
    pub stored: &'a [u8],
}
