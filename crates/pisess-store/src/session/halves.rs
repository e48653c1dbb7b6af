//! A big file indexed in two halves on two threads (issue 48: `Session::open` of a 400 MB
//! session was a quarter of an export, on one core while the other idled).
//!
//! The file is cut at the first line start at or after its middle. This thread runs the usual
//! pass from the start and stops at the first entry at or past the cut; a second thread runs a
//! pass from the cut on ([`Pass::resume`] with the header the first found), its line numbers
//! counted from there and shifted once the first says which line the cut is. The second
//! index is then appended to the first. Anything the two could disagree on (a malformed or
//! blank-only stretch at the cut, a header after it, an old file whose ids are assigned in
//! order, a file that changed under the reads) makes it give up, and the caller reads the file
//! in one pass as before: the index is the one pass's, entry for entry.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::ops::ControlFlow;

use pisess_format::model::Dialect;
use pisess_format::scan::{Input, OpenedFile, Pass, ScanReport, Tail};

use super::ids::{cell_text, IdCell, LONG_ID};
use super::{line_at, note_steps, offset_at, IndexOptions, Indexer, Session, NO_ENTRY, PREVIOUS};

/// Files at least this big are indexed in two halves: below it, the second thread and the
/// second pass's start cost more than half the pass saves.
pub(super) const SPLIT_BYTES: u64 = 32 << 20;

/// How far past the middle a line start is looked for: a file whose middle line is longer is
/// read in one pass.
const FIND_CUT: u64 = 16 << 20;

/// Each half's reads: the size the read ahead of a whole file reads at a time.
const READ: usize = 1 << 20;

/// What [`read`] made of a file.
pub(super) enum Halves {
    /// Indexed in two halves, joined.
    Split(Session),
    /// The first pass read it all (no entry past the cut): the one pass's index.
    Whole(Session),
    /// Read it again in one pass.
    GiveUp,
}

/// Reads a file from a position, by `pread`, without moving the offset its clones share.
struct ReadAt<'f> {
    file: &'f File,
    at: u64,
}

impl Read for ReadAt<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = std::os::unix::fs::FileExt::read_at(self.file, buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// The first line start at or after `from` (after a `\n`), within [`FIND_CUT`] bytes.
pub(super) fn line_start_after(file: &File, from: u64) -> Option<u64> {
    let mut reader = ReadAt { file, at: from };
    let mut buf = vec![0; 64 << 10];
    let mut at = from;
    while at < from + FIND_CUT {
        let n = reader.read(&mut buf).ok()?;
        if n == 0 {
            return None;
        }
        if let Some(k) = memchr::memchr(b'\n', &buf[..n]) {
            return Some(at + k as u64 + 1);
        }
        at += n as u64;
    }
    None
}

/// Indexes `opened` (a regular file) in two halves cut at `cut`, a line start.
pub(super) fn read(opened: &OpenedFile, no_rests: bool, cut: u64) -> Halves {
    let options = || IndexOptions {
        observe: None,
        no_rests,
    };
    let Ok(mut first) = Indexer::new(&Input::File(opened), options()) else {
        return Halves::GiveUp;
    };
    std::thread::scope(|scope| {
        let mut later = None;
        let mut asked = false;
        // The first entry at or past the cut: its offset and line.
        let mut stopped_at = None;
        // Read by position, as the second pass is: the offset the file's clones share is
        // left where it was, for the one pass if this gives up.
        let mut reader = BufReader::with_capacity(
            READ,
            ReadAt {
                file: &opened.file,
                at: 0,
            },
        );
        let input = Input::Buffered(&mut reader, &opened.stem);
        let report = Pass::new().run(input, |head, e| {
            if !asked {
                asked = true;
                // The second pass needs nothing of the lines before the cut but the header.
                let alone = head.dialect == Dialect::Pi && !head.needs_v1_ids();
                if e.offset < cut && alone {
                    let head = head.clone();
                    let builder = std::thread::Builder::new().stack_size(crate::util::stack::SIZE);
                    later = builder
                        .spawn_scoped(scope, move || rest(opened, head, cut, no_rests))
                        .ok();
                }
            }
            if later.is_some() && e.offset >= cut {
                stopped_at = Some((e.offset, e.line));
                return ControlFlow::Break(());
            }
            first.entry(e);
            ControlFlow::Continue(())
        });
        let rest = later.map(|t| t.join());
        let Ok(report) = report else {
            return Halves::GiveUp;
        };
        let Some((offset, line)) = stopped_at else {
            // No entry past the cut (or no second pass): this pass read the whole file.
            return match first.finish(report) {
                Ok(session) => Halves::Whole(session),
                Err(_) => Halves::GiveUp,
            };
        };
        let Some(Ok(Some((second, rest)))) = rest else {
            return Halves::GiveUp;
        };
        join(first, report, second, rest, offset, line)
    })
}

/// What an [`Indexer`] made, without its observer (which may not go to another thread).
pub(super) struct Made {
    entries: Vec<super::EntryMeta>,
    tables: super::Tables,
    pending: Vec<(u32, IdCell)>,
    too_many: bool,
}

/// The pass from `cut` on, with `head` as the header its lines are read under: its index and
/// report.
fn rest(
    opened: &OpenedFile,
    head: pisess_format::model::Header,
    cut: u64,
    no_rests: bool,
) -> Option<(Made, ScanReport)> {
    let options = IndexOptions {
        observe: None,
        no_rests,
    };
    let mut index = Indexer::new(&Input::File(opened), options).ok()?;
    let mut tail = Tail::default();
    tail.end = cut;
    let before = ScanReport {
        header: head,
        header_line: 0,
        header_offset: 0,
        header_len: 0,
        entries: 0,
        malformed: 0,
        warnings: Vec::new(),
        warnings_omitted: 0,
        torn_tail: false,
        torn_line: None,
        tail,
    };
    let mut reader = BufReader::with_capacity(
        READ,
        ReadAt {
            file: &opened.file,
            at: cut,
        },
    );
    let report = Pass::new()
        .resume(before)
        .run(Input::Buffered(&mut reader, &opened.stem), |_, e| {
            index.entry(e);
            ControlFlow::Continue(())
        })
        .ok()?;
    let made = Made {
        entries: index.entries,
        tables: index.tables,
        pending: index.pending,
        too_many: index.too_many,
    };
    Some((made, report))
}

/// The two halves as one session: the second's lines shifted so that its first entry is on
/// `line`, at `offset`, where the first pass found it.
fn join(
    mut first: Indexer<'_>,
    mut report: ScanReport,
    second: Made,
    rest: ScanReport,
    offset: u64,
    line: u64,
) -> Halves {
    // The first pass read no line past the cut but blank ones (else the second found it
    // malformed too, or a header, and warned), and the second's first entry is the one the
    // first stopped at.
    let agree = rest.malformed == 0
        && rest.warnings.is_empty()
        && rest.warnings_omitted == 0
        && !report.torn_tail
        && !first.too_many
        && !second.too_many
        && second
            .entries
            .first()
            .is_some_and(|e| offset_at(&second.tables.offset_highs, 0, e.offset_low) == offset);
    let total = first.entries.len() + second.entries.len();
    if !agree || total >= (NO_ENTRY - 1) as usize {
        return Halves::GiveUp;
    }
    let delta = line.wrapping_sub(line_at(&second.tables.line_steps, 0));
    first.append(second, delta);
    report.entries = total;
    report.torn_tail = rest.torn_tail;
    report.torn_line = rest.torn_line.map(|l| l.wrapping_add(delta));
    match first.finish(report) {
        Ok(session) => Halves::Split(session),
        Err(_) => Halves::GiveUp,
    }
}

impl Indexer<'_> {
    /// Appends `later`, the index of the lines after this one's, whose lines are numbered
    /// `delta` less than in the file: the tables as one pass over both would have made them
    /// (long ids kept in the same order: a parent's before its entry's).
    fn append(&mut self, later: Made, delta: u64) {
        let shift = self.entries.len();
        let from = |j: usize| (shift + j) as u32;
        let tables = &mut self.tables;
        let theirs = &later.tables;
        let mut pending = later.pending.into_iter().peekable();
        for (j, mut meta) in later.entries.into_iter().enumerate() {
            // The pass over both would have read the parent's id (pending) before the id.
            if let Some((_, parent)) = pending.next_if(|&(at, _)| at as usize == j) {
                let text = parent.text(&theirs.long_ids);
                let previous = self
                    .entries
                    .last()
                    .and_then(|l| super::ids::entry_id(l, &tables.long_ids));
                if j == 0 && text.is_some() && previous == text {
                    // The first pass's last entry: the one pass marks it so, and keeps no id.
                    meta.parent_at = PREVIOUS;
                } else {
                    let cell = IdCell::new(text, &mut tables.long_ids);
                    self.pending.push((from(j), cell));
                }
            }
            if meta.id_tag() == LONG_ID {
                let text = cell_text(&meta.id, LONG_ID, &theirs.long_ids);
                meta.id = IdCell::new(text, &mut tables.long_ids).bytes;
            }
            let line = line_at(&theirs.line_steps, j).wrapping_add(delta);
            let offset = offset_at(&theirs.offset_highs, j, meta.offset_low);
            meta.offset_low = note_steps(
                &mut tables.line_steps,
                &mut tables.offset_highs,
                from(j),
                line,
                offset,
            );
            let (kind, role) = &theirs.classes.list[meta.class as usize];
            meta.class = tables.classes.intern(kind, role.as_deref());
            self.entries.push(meta);
        }
        let mut later_tables = later.tables;
        for mut x in later_tables.extras.drain(..) {
            x.entry = from(x.entry as usize);
            tables.extras.push(x);
        }
        for mut b in later_tables.bulks.drain(..) {
            b.entry = from(b.entry as usize);
            tables.bulks.push(b);
        }
    }
}
