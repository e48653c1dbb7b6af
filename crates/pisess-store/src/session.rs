//! The index of one session, built on the scan.
//!
//! [`Session`] keeps only an index of a file's entries (ids, parents, types, offsets) and
//! decodes a full entry from disk on demand, so memory does not grow with the size of the
//! content. [`stream`] is the same pass without the index, for commands that read in file order.

use std::collections::HashMap;
use std::fs::File;
use std::hash::BuildHasher;
use std::io;
use std::ops::ControlFlow;
use std::path::Path;

use serde::{Deserialize, Serialize};

use pisess_format::model::EntryLine;
use pisess_format::model::{EntryKind, Header};
use pisess_format::scan::{open_file, open_named, Input, Pass, ScanError, ScanReport};
use pisess_format::time::parse_js_date;
use pisess_format::util::file::FileId;
use pisess_format::util::warning::Warning;

#[cfg(unix)]
mod halves;
mod ids;
mod read;

pub use ids::IdIndex;
use ids::{duplicate_id, entry_id, missing_id, IdCell};

/// One pass over a session for a command that needs no index (`show --json` in file order):
/// the same entries, in the same order, with the same warnings as [`Session::read`] (the
/// index's duplicate and missing ids included), but nothing kept: memory holds the current
/// line and the ids seen, and the file is read once.
pub fn stream(
    input: Input<'_>,
    mut on_entry: impl FnMut(&Header, &EntryLine) -> ControlFlow<()>,
) -> Result<ScanReport, ScanError> {
    // The ids seen, in one arena like the index's (an allocation per id and std's SipHash
    // were a sixth of `show --json` on a session of small entries): start, length, and the
    // line that last held the id, in 16 bytes (24 made the table 50 MB for a million entries);
    // a line past u32::MAX is kept aside.
    let mut arena = String::new();
    let mut ids: IdIndex<(u64, u32, u32)> = IdIndex::default();
    let mut far_lines = HashMap::new();
    let mut id_warnings = Vec::new();
    let mut each = |header: &Header, e: &EntryLine| {
        match e.id.as_deref() {
            Some(id) => {
                // A duplicate (rare) stores its id again; the earlier copy stays unreferenced.
                let start = arena.len() as u64;
                let line = u32::try_from(e.line).unwrap_or_else(|_| {
                    far_lines.insert(start, e.line);
                    u32::MAX
                });
                // An id is part of a line, far below 4 GiB.
                let value = (start, id.len() as u32, line);
                let held = |&(start, len, _): &(u64, u32, u32)| {
                    &arena[start as usize..start as usize + len as usize]
                };
                if let Some((earlier_start, _, earlier)) = ids.insert(id, value, held) {
                    let earlier = far_lines
                        .get(&earlier_start)
                        .copied()
                        .unwrap_or(u64::from(earlier));
                    id_warnings.push(duplicate_id(id, e.line, earlier));
                }
                arena.push_str(id);
            }
            None => id_warnings.push(missing_id(e.line)),
        }
        on_entry(header, e)
    };
    let file = match &input {
        Input::File(opened) if opened.meta.is_file() => Some(*opened),
        _ => None,
    };
    let mut report = Pass::new().run(input, &mut each)?;
    // Read in order, a rewrite shows only as a file that shrank under the reader (pi's
    // appends only grow it); what was copied were whole lines, the rest is not read.
    if file.is_some_and(|o| o.file.metadata().is_ok_and(|m| m.len() < o.meta.len())) {
        return Err(ScanError::Changed);
    }
    report.warnings.append(&mut id_warnings);
    sort_warnings(&mut report.warnings);
    Ok(report)
}

/// Warnings by line; the one without a line (how many malformed lines had no warning of their
/// own) last, after the lines it follows.
fn sort_warnings(warnings: &mut [Warning]) {
    warnings.sort_by_key(|w| (w.line.is_none(), w.line));
}

/// Where a session's entry lines are read again from.
#[derive(Debug)]
enum Lines {
    /// The regular file indexed, still open, and what it was then (see [`Unchanged`]).
    File(File, Unchanged),
    /// A stream's (stdin, a FIFO) or memory's header and entry lines, kept so entries can be
    /// decoded again by offset (an offset into this, not into the stream).
    Memory(Vec<u8>),
}

/// What a session file was when it was opened: while `fstat` still says so, what the index
/// recorded is what the file holds. Its size and mtime tell; the [`FileId`] of an open
/// descriptor cannot change on unix, and it is here so that the question "the file as it
/// was?" has one shape wherever it is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Unchanged {
    id: FileId,
    len: u64,
    modified: Option<std::time::SystemTime>,
}

impl Unchanged {
    fn of(meta: &std::fs::Metadata) -> Unchanged {
        Unchanged {
            id: FileId::of(meta),
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

/// No entry: `parent_at` of a root or of a parent not in the file.
const NO_ENTRY: u32 = u32::MAX;
/// `parent_at` while indexing: the entry before, unless ids are used twice.
const PREVIOUS: u32 = NO_ENTRY - 1;

/// The indexed facts of one entry, 32 bytes: ids inline ([`IdCell`]), kind and role interned
/// as one class, the time parsed and packed with the id's tag, the low half of the offset
/// (the high halves and the line numbers, which change from one entry to the next only where
/// the file skips a line or passes 4 GiB, are steps in side tables of [`Session`]), and what
/// few entries carry (`targetId`, `label`, a parent not in the file) in side tables, so a
/// million-entry session indexes in about 45 MB. [`Session`]'s accessors give the text.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EntryMeta {
    /// The entry's ISO `timestamp` in ms (`parse_js_date` keeps it within ±8.64e15, 54
    /// bits) times 32 ([`NO_TIME`]: none), plus `IdCell::tag` of `id` (below 16) times 2,
    /// plus 1 for a `message` whose message is an object with `content` set and not null.
    stamp: i64,
    id: [u8; 8],
    /// The low 32 bits of the line's offset (`Session::offset`).
    offset_low: u32,
    /// Bytes on disk, terminator included (the reader caps a line far below 4 GiB).
    len: u32,
    /// Position of the parent in `entries` ([`NO_ENTRY`]: none in the file).
    parent_at: u32,
    /// Position in the index's `classes` (`Tables`).
    class: u32,
}

/// [`EntryMeta::stamp`]'s time of an entry without one: below every JavaScript date.
const NO_TIME: i64 = -(1 << 57);

impl EntryMeta {
    fn new(timestamp_ms: Option<i64>, id: IdCell, content: bool) -> EntryMeta {
        // `parse_js_date` gives times within ±8.64e15 ms (< 2^53): none is lost.
        let time = timestamp_ms
            .filter(|t| t.unsigned_abs() < 1 << 56)
            .unwrap_or(NO_TIME);
        EntryMeta {
            stamp: time * 32 + i64::from(id.tag) * 2 + i64::from(content),
            id: id.bytes,
            offset_low: 0,
            len: 0,
            parent_at: NO_ENTRY,
            class: 0,
        }
    }

    /// The entry's ISO `timestamp` in ms (`parse_js_date`).
    pub fn timestamp_ms(&self) -> Option<i64> {
        let time = self.stamp >> 5;
        (time != NO_TIME).then_some(time)
    }

    /// `IdCell::tag` of the entry's id.
    fn id_tag(&self) -> u8 {
        ((self.stamp >> 1) & 15) as u8
    }

    /// Bytes on disk, terminator included.
    pub fn stored_len(&self) -> u64 {
        u64::from(self.len)
    }

    /// A `message` whose message is an object with `content` set and not null.
    pub fn content(&self) -> bool {
        self.stamp & 1 == 1
    }
}

/// The `targetId` and `label` of the entries that have either (labels, context edits).
#[derive(Debug, Serialize, Deserialize)]
struct TargetLabel {
    entry: u32,
    target: Option<Box<str>>,
    label: Option<Box<str>>,
}

/// Where a long `message.content` lies in its entry's stored line (offsets within the line),
/// and the rest of the line, when it is short.
#[derive(Debug, Serialize, Deserialize)]
struct Bulk {
    entry: u32,
    at: u32,
    len: u32,
    /// The line without its terminator, the content read as `null`: up to [`REST_BYTES`]. A
    /// tool result's role, call and tool are then at hand without a read.
    #[serde(with = "serde_bytes")]
    rest: Option<Box<[u8]>>,
}

/// A `message.content` of at least this many bytes is a [`Bulk`]: short ones are read with
/// their line anyway, and a session of a million small entries records none.
const BULK_BYTES: usize = 2048;
/// The longest rest of a line a [`Bulk`] keeps: a quarter of its content at most, so what
/// the index holds of a session stays a small part of it.
const REST_BYTES: usize = 512;

/// The (kind, role) pairs of a file's entries, each once: a handful in any real session.
#[derive(Debug, Default)]
struct Classes {
    list: Vec<(EntryKind, Option<Box<str>>)>,
    by_name: IdIndex<u32>,
}

impl Classes {
    fn intern(&mut self, kind: &EntryKind, role: Option<&str>) -> u32 {
        let list = &mut self.list;
        let hasher = &self.by_name.hasher;
        let hash = hasher.hash_one((kind.as_str(), role));
        let slot = self.by_name.table.entry(
            hash,
            |&c| {
                let (k, r) = &list[c as usize];
                k == kind && r.as_deref() == role
            },
            |&c| {
                let (k, r) = &list[c as usize];
                hasher.hash_one((k.as_str(), r.as_deref()))
            },
        );
        match slot {
            hashbrown::hash_table::Entry::Occupied(seen) => *seen.get(),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                // At most one class per entry, and entries are fewer than `NO_ENTRY`.
                let at = list.len() as u32;
                list.push((kind.clone(), role.map(Into::into)));
                slot.insert(at);
                at
            }
        }
    }
}

/// What [`IndexOptions::observe`] calls with each entry it indexes: its position in
/// `entries`, and its line.
pub(crate) type Observer<'o> = &'o mut dyn FnMut(u32, &EntryLine<'_>);

/// How a session is indexed ([`Session::open`], [`Session::read`]); the default shows the
/// entries to no one.
#[derive(Default)]
pub struct IndexOptions<'o> {
    /// Called with each entry's position and line as the index takes it in: for a reader of
    /// something in many lines (`tree`'s filter reads every assistant message), who then
    /// reads none of them again.
    pub observe: Option<Observer<'o>>,
    /// Keep no copy of a line's rest without its content ([`Session::line_without_content`]
    /// then reads the line whole): for a reader that never asks for one (`diff`), to whom
    /// those copies were most of the index's memory.
    pub no_rests: bool,
}

/// The index as a sink of one [`Pass`]: each entry to [`entry`](Indexer::entry), then the
/// pass's report to [`finish`](Indexer::finish). [`Session::read`] drives its own pass; a
/// stream read once for more than its index (standard input: `stats -`, `check -`) drives
/// one pass for all its sinks.
#[derive(Default)]
pub struct Indexer<'o> {
    name: String,
    /// The regular file indexed, kept open to read its entries again by offset; without one,
    /// the entry lines are kept in `kept` as they pass.
    file: Option<(File, Unchanged)>,
    observe: Option<Observer<'o>>,
    no_rests: bool,
    kept: Vec<u8>,
    entries: Vec<EntryMeta>,
    tables: Tables,
    /// The `parentId`s that do not name the entry before, by entry, until `link` resolves
    /// them (most entries continue the one before: those are marked `PREVIOUS`).
    pending: Vec<(u32, IdCell)>,
    too_many: bool,
}

impl<'o> Indexer<'o> {
    /// The index of `input`, named by its path or its stem: a regular file is read again by
    /// offset for full entries, and kept open for it; a stream's or memory's header and entry
    /// lines are kept in memory (not the lines it skips, so a line too long to hold is not
    /// held here either).
    pub fn new(
        input: &Input<'_>,
        IndexOptions { observe, no_rests }: IndexOptions<'o>,
    ) -> Result<Self, ScanError> {
        let (name, file) = match input {
            Input::File(opened) if opened.meta.is_file() => {
                let file = opened.file.try_clone().map_err(ScanError::Io)?;
                (
                    opened.path.display().to_string(),
                    Some((file, Unchanged::of(&opened.meta))),
                )
            }
            Input::File(opened) => (opened.path.display().to_string(), None),
            Input::Path(path) => (path.display().to_string(), None),
            Input::Stream(_, stem) | Input::Bytes(_, stem) | Input::Buffered(_, stem) => {
                (stem.to_string(), None)
            }
        };
        Ok(Indexer {
            name,
            file,
            observe,
            no_rests,
            ..Indexer::default()
        })
    }

    /// Takes in one entry of the pass.
    pub fn entry(&mut self, e: &EntryLine) {
        let Indexer {
            file,
            observe,
            no_rests,
            kept,
            entries,
            tables:
                Tables {
                    line_steps,
                    offset_highs,
                    long_ids,
                    classes,
                    extras,
                    bulks,
                },
            pending,
            too_many,
            ..
        } = self;
        // Positions are u32 (`NO_ENTRY` is none): past that, the index would need hundreds
        // of GB anyway.
        let Ok(at) = u32::try_from(entries.len()).map(|at| at.min(NO_ENTRY - 1)) else {
            return;
        };
        if at == NO_ENTRY - 1 || *too_many {
            *too_many = true;
            return;
        }
        let message = e.view.message.0.as_ref();
        let role = message.and_then(|m| m.role.get());
        let offset = if file.is_none() {
            let at = kept.len() as u64;
            kept.extend_from_slice(e.stored);
            if e.len > e.stored.len() as u64 {
                kept.push(b'\n');
            }
            at
        } else {
            e.offset
        };
        let (target, label) = (e.view.target_id.get(), e.view.label.get());
        if target.is_some() || label.is_some() {
            extras.push(TargetLabel {
                entry: at,
                target: target.map(Into::into),
                label: label.map(Into::into),
            });
        }
        // Only a span of the stored line itself (not of a seed-000 mapping) says where
        // its bytes are.
        let from_stored = std::ptr::eq(e.json.as_ptr(), e.stored.as_ptr());
        if let Some(span) = message.and_then(|m| m.content.1).filter(|_| from_stored) {
            let start = (span.as_ptr() as usize).wrapping_sub(e.stored.as_ptr() as usize);
            let end = start.saturating_add(span.len());
            if span.len() >= BULK_BYTES && end <= e.stored.len() {
                let mut rest = None;
                if e.stored.len() - span.len() <= REST_BYTES && !*no_rests {
                    let mut line = [&e.stored[..start], b"null", &e.stored[end..]].concat();
                    trim_terminator(&mut line);
                    rest = Some(line.into_boxed_slice());
                }
                // Both below the line's length, which is below 4 GiB.
                bulks.push(Bulk {
                    entry: at,
                    at: start as u32,
                    len: span.len() as u32,
                    rest,
                });
            }
        }
        let parent_at = match e.parent.as_deref() {
            None => NO_ENTRY,
            Some(p) if entries.last().and_then(|l| entry_id(l, long_ids)) == Some(p) => PREVIOUS,
            Some(p) => {
                pending.push((at, IdCell::new(Some(p), long_ids)));
                NO_ENTRY
            }
        };
        let id = IdCell::new(e.id.as_deref(), long_ids);
        let time = e.view.timestamp.get().and_then(parse_js_date);
        let content = e.kind == EntryKind::Message && message.is_some_and(|m| m.content.0);
        let mut meta = EntryMeta::new(time, id, content);
        meta.offset_low = note_steps(line_steps, offset_highs, at, e.line, offset);
        // The reader refuses lines of 512 MiB and more.
        meta.len = u32::try_from(e.len).unwrap_or(u32::MAX);
        meta.parent_at = parent_at;
        meta.class = classes.intern(&e.kind, role);
        entries.push(meta);
        if let Some(observe) = observe {
            observe(at, e);
        }
    }

    /// The session the pass gave, its ids checked and its parents resolved.
    pub fn finish(mut self, report: ScanReport) -> Result<Session, ScanError> {
        if self.too_many {
            return Err(ScanError::Io(io::Error::other(format!(
                "{} holds more than {} entries, more than pisess can index",
                self.name,
                NO_ENTRY - 1
            ))));
        }
        // The capacity past the last entry (up to half of it) is given back.
        self.entries.shrink_to_fit();
        let mut session = Session {
            name: self.name,
            lines: match self.file {
                Some((file, unchanged)) => Lines::File(file, unchanged),
                None => Lines::Memory(self.kept),
            },
            header: report.header,
            header_line: report.header_line,
            header_offset: report.header_offset,
            header_len: report.header_len,
            entries: self.entries,
            tables: self.tables,
            missing_parents: Vec::new(),
            by_id: IdIndex::default(),
            warnings: report.warnings,
            malformed: report.malformed,
            warnings_omitted: report.warnings_omitted,
            torn_tail: report.torn_tail,
            torn_line: report.torn_line,
        };
        session.link_parents(self.pending);
        sort_warnings(&mut session.warnings);
        Ok(session)
    }
}

/// An opened session: header, entry index and warnings. Full entries are read on demand.
#[derive(Debug)]
pub struct Session {
    /// How to name the session in messages (its path, or `-`).
    pub name: String,
    lines: Lines,
    pub header: Header,
    pub header_line: u64,
    pub header_offset: u64,
    pub header_len: u64,
    pub entries: Vec<EntryMeta>,
    tables: Tables,
    /// The `parentId`s that name no entry in the file, by entry, in file order.
    missing_parents: Vec<(u32, IdCell)>,
    /// Positions in `entries` by id, the last of each id (pi's `byId`: later entries overwrite).
    by_id: IdIndex<u32>,
    pub warnings: Vec<Warning>,
    pub malformed: u64,
    /// Malformed lines past the first [`MAX_WARNINGS`](pisess_format::scan::MAX_WARNINGS): counted, not given a warning
    /// each (one warning without a line, last, says how many).
    pub warnings_omitted: u64,
    pub torn_tail: bool,
    pub torn_line: Option<u64>,
}

/// The index's tables beside `entries`: built by the [`Indexer`], kept by the [`Session`].
#[derive(Debug, Default)]
struct Tables {
    /// `line - position` of the entries from each entry named on ([`Session::line`]): a step
    /// where the file skips a line (blank, malformed) between two entries, one in most files.
    line_steps: Vec<(u32, u64)>,
    /// The high 32 bits of the entries' offsets from each entry named on (0 before the first):
    /// a step every 4 GiB.
    offset_highs: Vec<(u32, u32)>,
    /// Ids longer than an [`IdCell`] holds inline.
    long_ids: Vec<Box<str>>,
    /// Each entry's kind and message role.
    classes: Classes,
    /// By entry, in file order.
    extras: Vec<TargetLabel>,
    /// By entry, in file order.
    bulks: Vec<Bulk>,
}

impl Session {
    /// Opens and indexes a session file named on the command line, as `options` say; a FIFO
    /// or `/dev/stdin` there is read as a stream ([`open_named`]).
    ///
    /// No index is kept between runs: one from a cache could not be proven to describe the
    /// file's bytes without reading and decoding them, which is the scan itself (the threat
    /// model in docs/guide.md).
    pub fn open(path: &Path, options: IndexOptions<'_>) -> Result<Session, ScanError> {
        Session::read(Input::File(&open_named(path)?), options)
    }

    /// Indexes a session ([`Indexer::new`] says what it keeps).
    pub fn read(input: Input<'_>, options: IndexOptions<'_>) -> Result<Session, ScanError> {
        if let Input::Path(path) = input {
            return Session::read(Input::File(&open_file(path)?), options);
        }
        #[cfg(unix)]
        if let Input::File(opened) = &input {
            let big = opened.meta.is_file() && opened.meta.len() >= halves::SPLIT_BYTES;
            if big && options.observe.is_none() && crate::util::parallel::cores() >= 2 {
                let cut = halves::line_start_after(&opened.file, opened.meta.len() / 2);
                match cut.map(|cut| halves::read(opened, options.no_rests, cut)) {
                    Some(halves::Halves::Split(s) | halves::Halves::Whole(s)) => return Ok(s),
                    Some(halves::Halves::GiveUp) | None => {}
                }
            }
        }
        let mut index = Indexer::new(&input, options)?;
        let report = Pass::new().run(input, |_, e| {
            index.entry(e);
            ControlFlow::Continue(())
        })?;
        index.finish(report)
    }

    /// Fills `by_id` (warning on duplicate and missing ids) and resolves each entry's parent;
    /// the `parentId`s that name no entry are kept aside.
    fn link_parents(&mut self, pending: Vec<(u32, IdCell)>) {
        let Session {
            entries,
            tables,
            by_id,
            warnings,
            missing_parents,
            ..
        } = self;
        let (line_steps, long_ids) = (&tables.line_steps, &tables.long_ids[..]);
        let line = |i: usize| line_at(line_steps, i);
        let mut table = IdIndex::with_capacity(entries.len());
        let mut duplicates = false;
        for (i, e) in entries.iter().enumerate() {
            let Some(id) = entry_id(e, long_ids) else {
                warnings.push(missing_id(line(i)));
                continue;
            };
            let held = |&j: &u32| entry_id(&entries[j as usize], long_ids).unwrap_or_default();
            // `index` keeps positions below `NO_ENTRY`.
            if let Some(earlier) = table.insert(id, i as u32, held) {
                warnings.push(duplicate_id(id, line(i), line(earlier as usize)));
                duplicates = true;
            }
        }
        let find = |p: &str| {
            table
                .find(p, |&j| entry_id(&entries[j as usize], long_ids))
                .copied()
        };
        // The parent of an entry marked `PREVIOUS` holds the previous entry's id: that entry,
        // unless an id is used twice (then the later entry holding it).
        let mut found = Vec::new();
        if duplicates {
            for i in 1..entries.len() {
                if entries[i].parent_at == PREVIOUS {
                    let p = entry_id(&entries[i - 1], long_ids).unwrap_or_default();
                    found.push((i, find(p)));
                }
            }
        }
        for &(i, parent) in &pending {
            let p = parent.text(long_ids).unwrap_or_default();
            match find(p) {
                Some(at) => found.push((i as usize, Some(at))),
                None => missing_parents.push((i, parent)),
            }
        }
        for (i, at) in found {
            entries[i].parent_at = at.unwrap_or(NO_ENTRY);
        }
        for (i, e) in entries.iter_mut().enumerate() {
            if e.parent_at == PREVIOUS {
                e.parent_at = i as u32 - 1;
            }
        }
        *by_id = table;
    }

    /// The entry's line number in the file (1 is the first).
    pub fn line(&self, i: usize) -> u64 {
        line_at(&self.tables.line_steps, i)
    }

    /// Where the entry's line starts: in the file, or in a [`Lines::Memory`].
    pub fn offset(&self, i: usize) -> u64 {
        offset_at(&self.tables.offset_highs, i, self.entries[i].offset_low)
    }

    /// The entry's effective id: stored, or assigned by the v1 migration.
    pub fn id(&self, i: usize) -> Option<&str> {
        entry_id(&self.entries[i], &self.tables.long_ids)
    }

    /// The entry's `parentId` as stored (or assigned by the v1 migration); `None` for a root.
    /// A parent found in the file holds that id, so only the others are kept as text.
    pub fn parent_id(&self, i: usize) -> Option<&str> {
        match self.parent_of(i) {
            Some(p) => self.id(p),
            None => {
                let at = self
                    .missing_parents
                    .binary_search_by_key(&i, |&(e, _)| e as usize)
                    .ok()?;
                self.missing_parents[at].1.text(&self.tables.long_ids)
            }
        }
    }

    /// The entry's type.
    pub fn kind(&self, i: usize) -> &EntryKind {
        &self.tables.classes.list[self.entries[i].class as usize].0
    }

    /// The `role` of a `message` entry's message, as stored.
    pub fn role(&self, i: usize) -> Option<&str> {
        self.tables.classes.list[self.entries[i].class as usize]
            .1
            .as_deref()
    }

    fn extra(&self, i: usize) -> Option<&TargetLabel> {
        let extras = &self.tables.extras;
        let at = extras.binary_search_by_key(&i, |x| x.entry as usize).ok()?;
        Some(&extras[at])
    }

    /// `targetId` of labels and context edits.
    pub fn target(&self, i: usize) -> Option<&str> {
        self.extra(i)?.target.as_deref()
    }

    /// The label text of a `label` entry (`None` clears).
    pub fn label(&self, i: usize) -> Option<&str> {
        self.extra(i)?.label.as_deref()
    }

    /// Every id with the entry it names (the last of duplicates), in no particular order.
    pub fn ids(&self) -> impl Iterator<Item = (&str, usize)> + '_ {
        self.by_id
            .values()
            .filter_map(|&i| self.id(i as usize).map(|id| (id, i as usize)))
    }

    /// The leaf pi resumes at: the last entry in file order (that has an id).
    pub fn leaf(&self) -> Option<usize> {
        (0..self.entries.len())
            .rev()
            .find(|&i| self.id(i).is_some())
    }

    /// The entry an id names.
    pub fn find(&self, id: &str) -> Option<usize> {
        self.by_id
            .find(id, |&j| self.id(j as usize))
            .map(|&j| j as usize)
    }

    /// The parent of an entry, if it exists in this file.
    pub fn parent_of(&self, i: usize) -> Option<usize> {
        let at = self.entries[i].parent_at;
        (at != NO_ENTRY).then_some(at as usize)
    }

    /// Root → `leaf`, as pi's `getBranch`. A parent cycle ends the walk (pi would hang) and is
    /// reported as the id where the cycle closed.
    pub fn path_to(&self, leaf: usize) -> (Vec<usize>, Option<String>) {
        let mut path = vec![leaf];
        let mut seen = vec![false; self.entries.len()];
        seen[leaf] = true;
        let mut cycle = None;
        let mut current = leaf;
        while let Some(parent) = self.parent_of(current) {
            if std::mem::replace(&mut seen[parent], true) {
                cycle = self.id(parent).map(str::to_owned);
                break;
            }
            path.push(parent);
            current = parent;
        }
        path.reverse();
        (path, cycle)
    }

    /// Current labels by target id (the latest label entry per target; empty or absent clears).
    pub fn labels(&self) -> HashMap<String, String> {
        let mut labels = HashMap::new();
        for x in &self.tables.extras {
            let i = x.entry as usize;
            if *self.kind(i) == EntryKind::Label {
                if let Some(target) = &x.target {
                    match x.label.as_deref().filter(|l| !l.is_empty()) {
                        Some(label) => labels.insert(target.to_string(), label.to_owned()),
                        None => labels.remove(&**target),
                    };
                }
            }
        }
        labels
    }
}

/// A v3 session (header id `s`) holding `lines` as entries, for the algorithms' unit tests.
#[cfg(any(test, feature = "test-hooks"))]
pub fn test_session(lines: &[serde_json::Value]) -> Session {
    let mut text = String::from(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
    );
    text.push('\n');
    for l in lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    Session::read(
        pisess_format::scan::Input::Bytes(text.as_bytes(), "t"),
        IndexOptions::default(),
    )
    .unwrap()
}

/// The value of the last step at or before entry `i`.
fn step_at<T: Copy>(steps: &[(u32, T)], i: usize) -> Option<T> {
    let k = steps.partition_point(|&(from, _)| from as usize <= i);
    Some(steps[k.checked_sub(1)?].1)
}

/// Notes entry `at`'s line and offset in the steps where they change ([`line_at`],
/// [`offset_at`]), entries in order; the low half of the offset, which the entry keeps.
/// Exact for any numbers: the line's step wraps, and so does [`line_at`].
fn note_steps(
    line_steps: &mut Vec<(u32, u64)>,
    offset_highs: &mut Vec<(u32, u32)>,
    at: u32,
    line: u64,
    offset: u64,
) -> u32 {
    let line_step = line.wrapping_sub(u64::from(at));
    if line_steps.last().map(|&(_, step)| step) != Some(line_step) {
        line_steps.push((at, line_step));
    }
    let high = (offset >> 32) as u32;
    if offset_highs.last().map_or(0, |&(_, high)| high) != high {
        offset_highs.push((at, high));
    }
    offset as u32
}

/// [`Session::offset`] from the steps and the entry's low half.
fn offset_at(highs: &[(u32, u32)], i: usize, low: u32) -> u64 {
    u64::from(step_at(highs, i).unwrap_or(0)) << 32 | u64::from(low)
}

/// [`Session::line`] from the steps.
fn line_at(steps: &[(u32, u64)], i: usize) -> u64 {
    // Every entry has a step at or before it (the first entry's).
    (i as u64).wrapping_add(step_at(steps, i).unwrap_or(0))
}

/// A stored line without its `\n` or `\r\n`.
fn trim_terminator(line: &mut Vec<u8>) {
    line.truncate(without_terminator(line).len());
}

/// [`trim_terminator`] of a borrowed line.
fn without_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn open(text: &str) -> Session {
        Session::read(
            pisess_format::scan::Input::Bytes(text.as_bytes(), "test"),
            IndexOptions::default(),
        )
        .unwrap()
    }

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

    /// The steps give back every entry's line and offset, whatever their gaps: lines skipped
    /// between entries, offsets past 4 GiB (once and many times, by small and huge jumps), and
    /// numbers that do not rise.
    #[test]
    fn steps_give_back_every_line_and_offset() {
        let mut next = pisess_format::skim::rng(0x5eb5);
        for round in 0..200 {
            let (mut lines, mut highs) = (Vec::new(), Vec::new());
            let (mut line, mut offset) = (1u64 + next(3) as u64, next(100) as u64);
            let mut expected = Vec::new();
            for at in 0..next(300) as u32 {
                line = match next(20) {
                    0 => line.wrapping_add(1 + next(5) as u64),
                    1 if round % 7 == 0 => next(1000) as u64,
                    2 if round % 5 == 0 => u64::MAX - next(3) as u64,
                    _ => line.wrapping_add(1),
                };
                offset = match next(20) {
                    0 => offset.wrapping_add((1 << 32) * (1 + next(3) as u64)),
                    1 => offset.wrapping_add((1 << 32) - next(200) as u64),
                    2 if round % 7 == 0 => next(1 << 20) as u64,
                    3 => u64::MAX - next(1000) as u64,
                    _ => offset.wrapping_add(next(2000) as u64 + 1),
                };
                let low = note_steps(&mut lines, &mut highs, at, line, offset);
                expected.push((line, offset, low));
            }
            for (i, &(line, offset, low)) in expected.iter().enumerate() {
                assert_eq!(line_at(&lines, i), line, "round {round}, entry {i}");
                assert_eq!(
                    offset_at(&highs, i, low),
                    offset,
                    "round {round}, entry {i}"
                );
            }
            // One step for a file of consecutive lines below 4 GiB.
            if round == 0 {
                let (mut lines, mut highs) = (Vec::new(), Vec::new());
                for at in 0..1000u32 {
                    note_steps(
                        &mut lines,
                        &mut highs,
                        at,
                        2 + u64::from(at),
                        100 * u64::from(at),
                    );
                }
                assert_eq!((lines.len(), highs.len()), (1, 0));
            }
        }
    }

    /// An entry's packed time, id tag and content flag come back as they went in.
    #[test]
    fn stamps_keep_time_tag_and_content() {
        let max = 8_640_000_000_000_000;
        let times = [
            None,
            Some(0),
            Some(-1),
            Some(1),
            Some(max),
            Some(-max),
            Some(1_767_225_600_123),
        ];
        for time in times {
            for tag in 0..=ids::LONG_ID {
                for content in [false, true] {
                    let cell = IdCell { bytes: [7; 8], tag };
                    let meta = EntryMeta::new(time, cell, content);
                    assert_eq!(
                        (meta.timestamp_ms(), meta.id_tag(), meta.content()),
                        (time, tag, content)
                    );
                }
            }
        }
    }

    /// Lines skipped between entries (blank, malformed) move the next entries' line numbers,
    /// and each entry is still read back from its own offset.
    #[test]
    fn lines_after_skipped_lines() {
        let entry = |id: &str| {
            format!(r#"{{"type":"custom","id":"{id}","parentId":null,"customType":"x"}}"#)
        };
        let text = format!(
            "{HEADER}\n\n{}\nnot json\n{}\n\n\n{}\n{}",
            entry("a"),
            entry("b"),
            entry("c"),
            entry("d")
        );
        let s = open(&text);
        let lines: Vec<u64> = (0..s.entries.len()).map(|i| s.line(i)).collect();
        assert_eq!(lines, [3, 5, 8, 9]);
        for (i, id) in ["a", "b", "c", "d"].into_iter().enumerate() {
            let stored = s.stored_line(i).unwrap();
            assert_eq!(without_terminator(&stored), entry(id).as_bytes());
        }
    }

    /// A line read without its long content is the line with `null` in its place: from the
    /// index's copy (a short rest), from the file around it (a long rest), or, once the file
    /// changed, read whole.
    #[test]
    fn lines_without_their_content() {
        let output = format!("\"{}\"", "out\\n".repeat(1000));
        let details = "d".repeat(600);
        let lines = [
            format!(
                r#"{{"type":"message","id":"a","message":{{"role":"toolResult","toolName":"bash","content":{output},"isError":false}}}}"#
            ),
            format!(
                r#"{{"type":"message","id":"b","message":{{"role":"toolResult","content":[{{"type":"text","text":{output}}}],"details":"{details}"}}}}"#
            ),
            r#"{"type":"message","id":"c","message":{"role":"user","content":"short"}}"#.to_owned(),
            // The skim is unsure of a key given twice: no span, the line as it is.
            format!(
                r#"{{"type":"message","id":"d","message":{{"content":{output},"content":1}}}}"#
            ),
        ];
        let text = format!("{HEADER}\n{}\r\n", lines.join("\n"));
        let without = |line: &str| {
            let v: Value = pisess_format::json::decode(line.as_bytes()).unwrap();
            let content = pisess_format::surrogates::to_string(&v["message"]["content"]);
            line.replacen(&content, "null", 1)
        };
        let expected = [
            without(&lines[0]),
            without(&lines[1]),
            lines[2].clone(),
            lines[3].clone(),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        std::fs::write(&path, &text).unwrap();
        for s in [
            open(&text),
            Session::open(&path, IndexOptions::default()).unwrap(),
        ] {
            assert_eq!(s.tables.bulks.len(), 2);
            assert!(s.tables.bulks[0].rest.is_some() && s.tables.bulks[1].rest.is_none());
            for (i, want) in expected.iter().enumerate() {
                let got = s.line_without_content(i).unwrap();
                assert_eq!(String::from_utf8(got).unwrap(), *want);
            }
        }
        let s = Session::open(&path, IndexOptions::default()).unwrap();
        std::fs::write(&path, format!("{text}{}\n", lines[2])).unwrap();
        assert_eq!(s.line_without_content(1).unwrap(), lines[1].as_bytes());
    }

    #[test]
    fn indexes_entries_and_skips_blank_and_malformed() {
        let text = format!(
            "{HEADER}\n\n{{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"hi\"}}}}\r\nnot json\n{{\"type\":\"label\",\"id\":\"b\",\"parentId\":\"a\",\"targetId\":\"a\",\"label\":\"x\"}}\n{{\"type\":\"mess"
        );
        let s = open(&text);
        assert_eq!(s.entries.len(), 2);
        assert_eq!(s.role(0), Some("user"));
        assert_eq!(s.line(0), 3);
        assert_eq!(s.malformed, 1);
        assert!(s.torn_tail);
        assert_eq!(s.warnings.len(), 1);
        assert_eq!(s.warnings[0].line, Some(4));
        assert_eq!(s.labels().get("a").map(String::as_str), Some("x"));
        assert_eq!(s.leaf(), Some(1));
        assert_eq!(s.load(0).unwrap()["message"]["content"], "hi");
        assert_eq!(
            s.raw_line(0).unwrap(),
            br#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#
        );
    }

    #[test]
    fn stored_bytes_keep_terminators() {
        let text = format!(
            "\n{HEADER}\r\n{}\r\n{}",
            r#"{"type":"custom","id":"a","parentId":null,"customType":"x"}"#,
            r#"{"type":"custom","id":"b","parentId":"a","customType":"y"}"#
        );
        let s = open(&text);
        assert_eq!(
            s.stored_header().unwrap(),
            format!("{HEADER}\r\n").into_bytes()
        );
        assert!(s.stored_line(0).unwrap().ends_with(b"}\r\n"));
        // The last line has no terminator on disk, so none is invented here.
        assert!(s.stored_line(1).unwrap().ends_with(b"}"));
    }

    #[test]
    fn not_a_session() {
        let err = Session::read(
            pisess_format::scan::Input::Bytes(&b"\n{\"type\":\"message\"}\n"[..], "x"),
            IndexOptions::default(),
        )
        .unwrap_err();
        assert!(matches!(err, ScanError::NotASession { line: 2, .. }));
        assert!(matches!(
            Session::read(
                pisess_format::scan::Input::Bytes(&b""[..], "x"),
                IndexOptions::default()
            )
            .unwrap_err(),
            ScanError::Empty
        ));
        assert!(matches!(
            Session::read(
                pisess_format::scan::Input::Bytes(&b"{\"type\":\"session\"}\n"[..], "x"),
                IndexOptions::default()
            )
            .unwrap_err(),
            ScanError::NotASession { .. }
        ));
    }

    #[test]
    fn v1_files_get_deterministic_ids() {
        let text = r#"{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}
{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a"}}
{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[]}}
{"type":"compaction","timestamp":"2025-01-01T00:00:03.000Z","summary":"s","firstKeptEntryIndex":2,"tokensBefore":9}
"#;
        let s = open(text);
        let ids: Vec<_> = (0..3).map(|i| s.id(i).unwrap()).collect();
        assert_eq!(ids, ["00000001", "00000002", "00000003"]);
        assert_eq!(s.parent_id(0), None);
        assert_eq!(s.parent_id(2), Some("00000002"));
        assert_eq!(s.parent_of(2), Some(1));
        let c = s.load(2).unwrap();
        assert_eq!(c["firstKeptEntryId"], "00000002");
        assert_eq!(c["parentId"], "00000002");
        // issue 42: JSON.parse reads `2.0` and `2e0` as 2, and `entries[2]` is the same entry
        // (on 63e6fc9 only `2` was an index); `2.5` names no entry.
        for (index, kept) in [
            ("2.0", Some("00000002")),
            ("2e0", Some("00000002")),
            ("-0", None),
            ("2.5", None),
        ] {
            let s = open(&text.replace(
                r#""firstKeptEntryIndex":2"#,
                &format!(r#""firstKeptEntryIndex":{index}"#),
            ));
            let c = s.load(2).unwrap();
            assert_eq!(
                c.get("firstKeptEntryId").and_then(Value::as_str),
                kept,
                "{index}"
            );
            assert!(c.get("firstKeptEntryIndex").is_none(), "{index}");
        }
    }

    #[test]
    fn ids_of_every_length_are_kept_exactly() {
        // Inline up to 8 bytes (multi-byte characters included), longer ones aside; parents
        // found in the file come back through their entry, the others from the side table.
        let ids = [
            "",
            "a",
            "0badc0de",
            "é1234",
            "0badc0de0",
            "tøø-long-🚀-id",
            "ABCDEF12",
        ];
        let mut text = format!("{HEADER}\n");
        for (k, id) in ids.iter().enumerate() {
            let parent = match k {
                0 => Value::Null,
                1 => Value::from("not-in-the-file-at-all"),
                2 => Value::from("x"),
                _ => Value::from(ids[k - 1]),
            };
            let line =
                serde_json::json!({"type":"custom","id":id,"parentId":parent,"customType":"c"});
            text.push_str(&format!("{line}\n"));
        }
        text.push_str(r#"{"type":"label","id":"l","parentId":"ABCDEF12","targetId":"tøø-long-🚀-id","label":"L"}"#);
        let s = open(&text);
        assert_eq!(s.entries.len(), ids.len() + 1);
        for (k, id) in ids.iter().enumerate() {
            assert_eq!(s.id(k), Some(*id));
            assert_eq!(s.find(id), Some(k));
        }
        assert_eq!(s.parent_id(0), None);
        assert_eq!(s.parent_id(1), Some("not-in-the-file-at-all"));
        assert_eq!(s.parent_of(1), None);
        assert_eq!(s.parent_id(2), Some("x"));
        for k in 3..ids.len() {
            assert_eq!(s.parent_id(k), Some(ids[k - 1]));
            assert_eq!(s.parent_of(k), Some(k - 1));
        }
        let l = ids.len();
        assert_eq!(
            (s.target(l), s.label(l)),
            (Some("tøø-long-🚀-id"), Some("L"))
        );
        assert_eq!((s.target(0), s.label(0)), (None, None));
        assert_eq!(*s.kind(l), EntryKind::Label);
        assert_eq!(
            s.labels().get("tøø-long-🚀-id").map(String::as_str),
            Some("L")
        );
        let mut all: Vec<_> = s.ids().collect();
        all.sort();
        assert_eq!(all.len(), ids.len() + 1);
        assert!(all.contains(&("tøø-long-🚀-id", 5)));
    }

    #[test]
    fn entry_meta_stays_small() {
        // A million entries are indexed in about 45 MB; a field added here costs 8 MB more.
        assert_eq!(std::mem::size_of::<EntryMeta>(), 32);
    }

    #[test]
    fn cycles_end_the_walk() {
        let text = format!(
            "{HEADER}\n{}\n{}\n",
            r#"{"type":"message","id":"a","parentId":"b","message":{"role":"user","content":"x"}}"#,
            r#"{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"y"}}"#
        );
        let s = open(&text);
        let (path, cycle) = s.path_to(1);
        assert_eq!(path, vec![0, 1]);
        assert_eq!(cycle.as_deref(), Some("b"));
    }

    #[test]
    fn duplicate_ids_last_wins_with_warning() {
        let text = format!(
            "{HEADER}\n{}\n{}\n",
            r#"{"type":"custom","id":"a","parentId":null,"customType":"x"}"#,
            r#"{"type":"custom","id":"a","parentId":null,"customType":"y"}"#
        );
        let s = open(&text);
        assert_eq!(s.find("a"), Some(1));
        assert!(s.warnings[0].message.contains("duplicate id a"));
    }

    #[test]
    fn invalid_utf8_and_duplicate_keys_parse_like_pi() {
        let mut bytes = format!("{HEADER}\n").into_bytes();
        bytes.extend_from_slice(
            b"{\"type\":\"message\",\"id\":\"a\",\"id\":\"b\",\"message\":{\"role\":\"user\",\"content\":\"caf\xff\"}}\n",
        );
        let s = Session::read(
            pisess_format::scan::Input::Bytes(&bytes[..], "t"),
            IndexOptions::default(),
        )
        .unwrap();
        assert_eq!(s.id(0), Some("b"));
        assert_eq!(s.load(0).unwrap()["message"]["content"], "caf\u{fffd}");
    }

    /// Red team, item 1: every malformed line was kept as a warning (3.1M lines held ~1 GB and
    /// printed 3.1M warnings). Now all are counted, the first `MAX_WARNINGS` kept, and one
    /// warning without a line, last, says how many more there were.
    #[test]
    fn malformed_lines_are_all_counted_but_only_the_first_are_kept() {
        use pisess_format::scan::MAX_WARNINGS;
        let bad = 10 * MAX_WARNINGS;
        let mut text = format!("{HEADER}\n");
        for _ in 0..bad {
            text.push_str("not json at all\n");
        }
        // A duplicate id after them is still said, before the summary.
        text.push_str(r#"{"type":"custom","id":"a","parentId":null,"customType":"x"}"#);
        text.push('\n');
        text.push_str(r#"{"type":"custom","id":"a","parentId":null,"customType":"y"}"#);
        text.push('\n');
        let s = open(&text);
        assert_eq!(s.malformed, bad as u64);
        let omitted = (bad - MAX_WARNINGS) as u64;
        assert_eq!(s.warnings_omitted, omitted);
        assert_eq!(
            s.warnings.len(),
            MAX_WARNINGS + 2,
            "{:?}",
            s.warnings.last()
        );
        assert_eq!(s.warnings[0].line, Some(2));
        assert!(s.warnings[MAX_WARNINGS].message.contains("duplicate id a"));
        let last = s.warnings.last().unwrap();
        assert_eq!(last.line, None);
        assert_eq!(
            last.message,
            format!("… and {omitted} more malformed lines")
        );
    }

    #[test]
    fn arrays_and_scalars_are_not_entries() {
        let text = format!("{HEADER}\n[1,2]\n42\n\"x\"\nnull\n");
        let s = open(&text);
        assert_eq!(s.entries.len(), 0);
        assert_eq!(s.malformed, 3, "null is skipped silently, as pi does");
    }

    #[test]
    fn stream_reads_what_the_index_reads() {
        let text = format!(
            "\n{HEADER}\r\n{}\nnot json\n{}\r\n{}\n{}",
            r#"{"type":"custom","id":"a","parentId":null,"customType":"x"}"#,
            r#"{"type":"custom","parentId":"a","customType":"no id"}"#,
            r#"{"type":"custom","id":"a","parentId":null,"customType":"again"}"#,
            r#"{"type":"label","id":"b","parentId":"a","targetId":"a","label":"l"}"#,
        );
        let session = open(&text);
        let mut stored = Vec::new();
        let report = stream(Input::Stream(&mut text.as_bytes(), "-"), |header, e| {
            assert_eq!(header.stored, format!("{HEADER}\r\n").into_bytes());
            stored.push(e.stored.to_vec());
            ControlFlow::Continue(())
        })
        .unwrap();
        let want: Vec<Vec<u8>> = (0..session.entries.len())
            .map(|i| session.raw_line(i).unwrap())
            .collect();
        let trimmed: Vec<Vec<u8>> = stored
            .iter()
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
            .collect();
        assert_eq!(trimmed, want);
        assert_eq!(report.warnings, session.warnings);
        assert_eq!(report.warnings.len(), 3, "{:?}", report.warnings);
        // Breaking stops the scan.
        let mut seen = 0;
        stream(Input::Stream(&mut text.as_bytes(), "-"), |_, _| {
            seen += 1;
            ControlFlow::Break(())
        })
        .unwrap();
        assert_eq!(seen, 1);
    }

    #[test]
    fn glued_lines_are_malformed() {
        let text = format!(
            "{HEADER}\n{{\"type\":\"custom\",\"id\":\"a\"}}{{\"type\":\"custom\",\"id\":\"b\"}}\n"
        );
        let s = open(&text);
        assert_eq!(s.entries.len(), 0);
        assert!(s.warnings[0].message.contains("two JSON values"));
    }

    #[test]
    fn lines_too_deep_for_a_full_decode_are_malformed() {
        // Found by the fuzzer: the view skipped a deep `message` array, the entry was indexed,
        // and `load` then failed, ending `show` with an error.
        let deep = |n: usize| {
            format!(
                "{{\"type\":\"message\",\"id\":\"z\",\"message\":{}{}}}",
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        let text = format!(
            "{HEADER}\n{}\n{}\n{}\n",
            deep(126),
            deep(200),
            deep(100_000)
        );
        let s = open(&text);
        assert_eq!(s.entries.len(), 2, "{:?}", s.warnings);
        s.load(0).unwrap();
        s.load(1).unwrap();
        assert_eq!(s.malformed, 1);
        assert!(s
            .warnings
            .iter()
            .any(|w| w.line == Some(4) && w.message.contains("nested more than 100000")));
        // Brackets inside strings are text, not nesting.
        let text = format!(
            "{HEADER}\n{{\"type\":\"custom\",\"id\":\"a\",\"data\":\"{}\\\"{}\"}}\n",
            "[".repeat(300),
            "{".repeat(300)
        );
        let s = open(&text);
        assert_eq!((s.entries.len(), s.malformed), (1, 0));
    }

    #[test]
    fn numbers_beyond_f64_decode_as_null() {
        // Found by the fuzzer: `1e999` (JavaScript's Infinity) passed the view and failed
        // `load`. JSON.stringify writes Infinity as null; so does pisess.
        let text = format!(
            "{HEADER}\n{}\n{}\n",
            r#"{"type":"custom","id":"a","data":[1e999,-1e400,"1e999",1.5e3,2]}"#,
            r#"{"type":"message","id":"b","timestamp":1e999,"message":{"role":"user","content":"x"}}"#
        );
        let s = open(&text);
        assert_eq!((s.entries.len(), s.malformed), (2, 0), "{:?}", s.warnings);
        assert_eq!(
            s.load(0).unwrap()["data"],
            serde_json::json!([null, null, "1e999", 1500.0, 2])
        );
        assert_eq!(s.load(1).unwrap()["timestamp"], Value::Null);
    }

    #[test]
    fn lone_surrogates_are_kept_as_pi_keeps_them() {
        // pi's JSON.stringify writes a lone surrogate when a text was cut inside an emoji;
        // serde_json refuses it, so `show` failed on such a line. JSON.parse keeps it, and so
        // JSON output writes it back, and text for people shows U+FFFD.
        let text = format!(
            "{HEADER}\n{}\n",
            r#"{"type":"message","id":"a","message":{"role":"user","content":"cut \ud83d, pair \ud83d\ude00, low \ude00, \\ud800 is text"}}"#
        );
        let s = open(&text);
        assert_eq!(s.entries.len(), 1);
        let content = &s.load(0).unwrap()["message"]["content"];
        assert_eq!(
            pisess_format::surrogates::to_string(content),
            r#""cut \ud83d, pair 😀, low \ude00, \\ud800 is text""#
        );
        assert_eq!(
            pisess_format::surrogates::for_display(content.as_str().unwrap()),
            "cut \u{fffd}, pair \u{1f600}, low \u{fffd}, \\ud800 is text"
        );
    }

    /// What one pass's index holds, but the open file it reads from and the seeds of its
    /// hash tables.
    #[cfg(unix)]
    fn index_of(s: &Session) -> String {
        let mut ids: Vec<_> = s.ids().collect();
        ids.sort_unstable();
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {} {} {:?} {} {} {} {:?} {:?} {:?} {:?}",
            s.entries,
            s.tables.line_steps,
            s.tables.offset_highs,
            s.tables.long_ids,
            s.tables.classes.list,
            s.tables.extras,
            s.tables.bulks,
            s.missing_parents,
            s.header_line,
            s.header_offset,
            s.header_len,
            s.header.stored,
            s.malformed,
            s.warnings_omitted,
            s.torn_tail,
            s.torn_line,
            s.warnings,
            ids,
            (0..s.entries.len())
                .map(|i| s.parent_of(i))
                .collect::<Vec<_>>(),
        )
    }

    /// A file indexed in two halves is indexed as in one pass, wherever it is cut: every line
    /// start of every example session and of a file with long, repeated and missing ids,
    /// parents that skip back, labels, long contents, blank, malformed and CRLF lines, a
    /// second header and a torn last line. Where the halves cannot agree it gives up (and the
    /// caller reads it in one pass); most cuts split.
    #[cfg(unix)]
    #[test]
    fn halves_index_as_one_pass() {
        let entry = |id: &str, parent: Option<&str>, content: &str| {
            serde_json::json!({"type": "message", "id": id, "parentId": parent,
                "timestamp": "2026-01-01T00:00:01.000Z",
                "message": {"role": "toolResult", "toolCallId": "c", "content": content}})
            .to_string()
        };
        let long = "x".repeat(3000);
        let mut lines = vec![String::new(), HEADER.to_owned()];
        lines.push(entry("a", None, "hi"));
        lines.push(entry("a-very-long-id-1", Some("a"), &long));
        lines.push(entry("a-very-long-id-2", Some("a-very-long-id-1"), "short"));
        lines.push(String::new());
        lines.push(entry("b", Some("a-very-long-id-2"), "x"));
        lines.push(entry("a", Some("b"), "again"));
        lines.push(entry("c", Some("a"), "dup parent"));
        lines.push("not json".to_owned());
        lines.push(entry("d", Some("nowhere-to-be-found"), "missing"));
        lines.push(r#"{"type":"label","id":"e","parentId":"d","targetId":"a","label":"x"}"#.into());
        lines.push(entry("f-long-long-long", Some("e"), "y"));
        lines.push(entry("g", Some("f-long-long-long"), &long) + "\r");
        lines.push(HEADER.to_owned());
        lines.push(r#"{"type":"message","parentId":"g"}"#.into());
        lines.push(entry("h", Some("a-very-long-id-2"), "z"));
        let mut texts = vec![
            lines.join("\n") + "\n",
            lines.join("\n") + "\n{\"type\":\"mes",
        ];
        // Without the lines the second pass warns about (it then gives up), and with them
        // before the first entry, where only the first pass reads them.
        lines.retain(|l| l != "not json" && l != HEADER);
        texts.push(format!("\n{HEADER}\n{}\n", lines[1..].join("\n")));
        texts.push(format!(
            "not json\n{HEADER}\n{HEADER}\n{}",
            lines[1..].join("\n")
        ));
        for path in pisess_format::skim::example_sessions() {
            texts.push(String::from_utf8(std::fs::read(path).unwrap()).unwrap());
        }
        let dir = tempfile::tempdir().unwrap();
        let (mut split, mut cuts) = (0, 0);
        for (k, text) in texts.iter().enumerate() {
            let path = dir.path().join(format!("{k}.jsonl"));
            std::fs::write(&path, text).unwrap();
            let opened = pisess_format::scan::open_file(&path).unwrap();
            let one = Session::read(Input::File(&opened), IndexOptions::default());
            let Ok(one) = one else { continue };
            let want = index_of(&one);
            let starts = text.match_indices('\n').map(|(at, _)| at as u64 + 1);
            for cut in std::iter::once(0).chain(starts) {
                cuts += 1;
                for no_rests in [false, true] {
                    let got = match halves::read(&opened, no_rests, cut) {
                        halves::Halves::Split(s) => {
                            split += 1;
                            s
                        }
                        halves::Halves::Whole(s) => s,
                        halves::Halves::GiveUp => continue,
                    };
                    if no_rests {
                        assert!(got.tables.bulks.iter().all(|b| b.rest.is_none()));
                        continue;
                    }
                    assert_eq!(index_of(&got), want, "file {k} cut at {cut}");
                }
            }
        }
        assert!(split > cuts / 2, "{split} of {cuts} cuts split");
    }

    /// Entries read in one `pread` of their span are the lines read one at a time, in any
    /// ascending selection (gaps between them passed over); out of order, from memory, or
    /// once the file has changed, none are given (the caller reads them one at a time).
    #[test]
    fn lines_read_in_one_span_are_the_lines_read_one_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let mut read = 0;
        for (k, from) in pisess_format::skim::example_sessions().iter().enumerate() {
            let path = dir.path().join(format!("{k}.jsonl"));
            let text = std::fs::read(from).unwrap();
            std::fs::write(&path, &text).unwrap();
            let s = Session::open(&path, IndexOptions::default()).unwrap();
            let n = s.entries.len();
            let all: Vec<usize> = (0..n).collect();
            let odd: Vec<usize> = (0..n).filter(|i| i % 2 == 1).collect();
            let mut scratch = vec![b'x'; 7];
            for pick in [&all[..], &odd, &all[n / 2..], &all[..n.min(1)]] {
                if pick.is_empty() {
                    continue;
                }
                let got = s.raw_lines_in(pick, &mut scratch).unwrap();
                let want: Vec<Vec<u8>> = pick.iter().map(|&i| s.raw_line(i).unwrap()).collect();
                assert_eq!(got, want, "{}", from.display());
                read += 1;
            }
            if n >= 2 {
                assert!(s.raw_lines_in(&[1, 0], &mut scratch).is_none());
                assert!(s.raw_lines_in(&[0, 0], &mut scratch).is_none());
            }
            let memory = Session::read(Input::Bytes(&text, "m"), IndexOptions::default()).unwrap();
            assert!(memory.raw_lines_in(&all, &mut scratch).is_none());
            std::fs::write(&path, [&text[..], b"\n"].concat()).unwrap();
            assert!(s.raw_lines_in(&all, &mut scratch).is_none());
        }
        assert!(read > 20);
    }
}
