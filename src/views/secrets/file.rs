//! Secrets in a whole session file: every non-blank line, entry or not, so that
//! `grep --secrets` and `check --no-secrets` find what the file's bytes leak, whatever pi
//! makes of the line (docs/secrets.md, "Where it looks").

use std::cell::RefCell;
use std::io::BufRead;
use std::ops::ControlFlow;

use pisess_format::model::{Dialect, EntryLine, Header};
use pisess_format::scan::{Pass, ScanError, ScanReport};

use super::stream::LineStream;
use super::{Detector, Located};

/// What holds a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// An entry: its id, type and stored role (as stored: a caller migrates it).
    Entry {
        id: Option<String>,
        kind: String,
        role: Option<String>,
    },
    /// The session header.
    Header,
    /// A line that is neither (malformed, a second header, a torn last line): pi skips it,
    /// but it is in the file.
    Skipped,
}

/// One secret at one line of a file.
#[derive(Debug, Clone)]
pub struct Hit {
    pub file_line: u64,
    pub place: Place,
    pub found: Located,
}

/// Reads a session stream through the one scan and finds every secret of every line, in line
/// order.
pub fn search_stream<R: BufRead>(
    input: R,
    stem: &str,
    detector: &Detector,
) -> Result<(ScanReport, Vec<Hit>), ScanError> {
    search_stream_and(input, stem, detector, |_, _| {})
}

/// [`search_stream`], handing every entry to `also` in the same pass: the other sinks of a
/// stream read once (`check -`).
pub fn search_stream_and<R: BufRead>(
    input: R,
    stem: &str,
    detector: &Detector,
    mut also: impl FnMut(&Header, &EntryLine),
) -> Result<(ScanReport, Vec<Hit>), ScanError> {
    let mut hits = Vec::new();
    let mut on_entry = |header: &Header, e: &EntryLine| {
        also(header, e);
        let mapped = (header.dialect == Dialect::Seed000).then_some(e.json);
        let found = detector.find_in_line(e.stored.strip_suffix(b"\r").unwrap_or(e.stored), mapped);
        if !found.is_empty() {
            let place = Place::Entry {
                id: e.id.as_deref().map(str::to_owned),
                kind: e.kind.as_str().to_owned(),
                role: e
                    .view
                    .message
                    .0
                    .as_ref()
                    .and_then(|m| m.role.get())
                    .map(str::to_owned),
            };
            hits.extend(found.into_iter().map(|found| Hit {
                file_line: e.line,
                place: place.clone(),
                found,
            }));
        }
        ControlFlow::Continue(())
    };
    // The lines the reader hands out whole, and those it passes over, read as they stream
    // past (their first bytes, handed out too, are then not read again).
    // Only lines with findings are kept: a file of millions of bad lines costs no memory here
    // (red team, item 1). `read` is the last line searched, so its first bytes are not again.
    let others: RefCell<Vec<(u64, Vec<Located>)>> = RefCell::new(Vec::new());
    let read: std::cell::Cell<Option<u64>> = std::cell::Cell::new(None);
    let keep = |line: u64, found: Vec<Located>| {
        read.set(Some(line));
        if !found.is_empty() {
            others.borrow_mut().push((line, found));
        }
    };
    let mut streamed: Option<(u64, LineStream)> = None;
    let mut spill = |line: u64, bytes: &[u8], end: bool| {
        let (_, stream) = streamed.get_or_insert_with(|| (line, LineStream::new(detector)));
        stream.feed(bytes);
        if end {
            let (line, stream) = streamed.take().expect("a line being streamed");
            keep(line, stream.finish());
        }
    };
    let mut on_other = |line: u64, bytes: &[u8]| {
        if read.get() == Some(line) {
            return;
        }
        keep(line, detector.find_in_line(bytes, None));
    };
    let report = Pass::new()
        .other_lines(&mut on_other, &mut spill)
        .run_reader(input, stem, &mut on_entry)?;
    let others = others.into_inner();
    for (line, found) in others {
        let place = if line == report.header_line {
            Place::Header
        } else {
            Place::Skipped
        };
        hits.extend(found.into_iter().map(|found| Hit {
            file_line: line,
            place: place.clone(),
            found,
        }));
    }
    // The two lists merged by line; stable, so a line's findings keep their order.
    hits.sort_by_key(|h| h.file_line);
    Ok((report, hits))
}
