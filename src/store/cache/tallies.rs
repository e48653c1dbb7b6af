//! The tally cache: what `stats` learns of each session file ([`Tally`] and the [`Summary`] it
//! came with), kept between runs, so a report over thousands of sessions reads only the files
//! that changed.
//!
//! A family of its own beside the summary cache (`<cache dir>/tallies/<hash of the folder>.bin`),
//! so a warm `ls` never decodes what only `stats` needs. It keeps that cache's rules: the same
//! folder checks ([`CacheDir::check_family`]), files opened by [`open_cache_file`], the same
//! framing and checksum ([`head`], [`body`]), a temporary file renamed into place, and the same
//! [`FileKey`]: a record is used only while the file's device, inode, size, mtime and ctime are
//! what they were, and a file is recorded only when its mtime was older than [`RACY_NS`] when it
//! was read (a write since shows in the key). A file that changed is read whole (a tally is not
//! resumed).
//!
//! What is kept is what the fold gave, not a report: every row with its own time, model and
//! usage, so any `--by`, `--tz`, `--since`/`--until` is computed from it as from a full read.
//! Each record is its own postcard blob inside the index, so a record kept is copied as bytes,
//! and decoded only by the run that uses it, on the thread that read its folder's file; what
//! only `--by session` and `--by message` show (first messages, entry ids, tools, files, ...)
//! follows the index, a checksummed [`More`] a record, and is not read by the other reports.
//!
//! Like the summary cache it only steers a display: whoever can write it can make `stats` show
//! any figures for a file whose key it knows, and nothing that decides (`check --max-cost`)
//! reads it (docs/guide.md, "Threat model").

use std::fs::File;
use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

use super::folder::{body, head, open_cache_file, CacheDir, CacheProblem, MAX_FILE_BYTES};
#[cfg(unix)]
use super::key::open_folder;
use super::key::{now_ns, stamp, stat_in, FileKey, RACY_NS};
use crate::format::scan::{open_file, read_exact_at, Input, Pass, ScanError};
use crate::store::summary::{fold, with_file_facts, Detail, FileFacts, Summary};
use crate::store::tally::{Files, Stops, Tally, ToolCount};
use crate::util::file::split_name;
use crate::util::parallel;
use crate::util::readahead::Reading;

/// The family's folder under the cache dir.
const FAMILY: &str = "tallies";

/// The start of every tally cache file; then [`FORMAT`] and the index ([`head`]).
const MAGIC: &[u8] = b"pisess tally cache\n";

/// Bumped whenever what is stored, or how a tally is computed, changes.
const FORMAT: u32 = 4;

/// One folder's file: the index.
#[derive(Serialize, Deserialize)]
struct Stored<'a> {
    /// pisess's version and code hash, and the time zone dates without an offset were read
    /// in (`key::stamp`).
    stamp: String,
    #[serde(with = "serde_bytes")]
    folder: &'a [u8],
    records: Vec<Entry<'a>>,
}

/// One session file's record.
#[derive(Serialize, Deserialize)]
struct Entry<'a> {
    #[serde(with = "serde_bytes")]
    name: &'a [u8],
    key: FileKey,
    /// A postcard-encoded [`Cached`].
    #[serde(with = "serde_bytes")]
    data: &'a [u8],
    /// Where its [`More`] is in the bytes after the index.
    more: Blob,
}

/// A part of the bytes after the index, and their xxh3: checked when read, as the index is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct Blob {
    at: u64,
    len: u64,
    hash: u64,
}

/// What a record's data holds: the summary without its file's facts and without its first
/// message, and its tally, of which only what a report over many sessions groups (its rows
/// and models) is here.
#[derive(Deserialize)]
struct Cached {
    summary: Summary,
    tally: Tally,
}

/// [`Cached`] as written, from the summary a read gave.
#[derive(Serialize)]
struct CachedRef<'a> {
    summary: &'a Summary,
    tally: &'a Tally,
}

/// What only some reports need of a record, after the index: the first message (`--by
/// session`'s titles) and the [`Rest`] (`--by message`). A report by day, model or project
/// reads the index alone: these were two fifths of its bytes.
#[derive(Serialize, Deserialize)]
struct More<'a> {
    #[serde(borrow)]
    first_message: &'a str,
    /// A postcard-encoded [`Rest`].
    #[serde(with = "serde_bytes")]
    rest: &'a [u8],
}

/// How much of each record a report decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// The summary (without its first message), the rows (without ids) and models.
    Rows,
    /// That and the first message.
    Titles,
    /// Everything.
    Whole,
}

/// The fields of a [`Tally`] (and its rows) that serde skips.
#[derive(Serialize, Deserialize)]
struct Rest {
    ids: Vec<Option<String>>,
    stop_reasons: Vec<Option<String>>,
    tools: std::collections::BTreeMap<String, ToolCount>,
    failed_commands: Vec<String>,
    stops: Stops,
    compactions: u64,
    tokens_before: f64,
    branch_summaries: u64,
    files: Files,
}

/// [`Rest`] as written.
#[derive(Serialize)]
struct RestRef<'a> {
    ids: Vec<&'a Option<String>>,
    stop_reasons: Vec<&'a Option<String>>,
    tools: &'a std::collections::BTreeMap<String, ToolCount>,
    failed_commands: &'a [String],
    stops: &'a Stops,
    compactions: u64,
    tokens_before: f64,
    branch_summaries: u64,
    files: &'a Files,
}

/// A record's data and [`More`], encoded.
struct NewRecord {
    data: Vec<u8>,
    more: Vec<u8>,
}

/// The record of a summary a read gave (its tally taken from it and put back).
fn encode(summary: &mut Summary) -> Option<NewRecord> {
    let tally = summary.tally.take()?;
    // Kept in `more`, not in `data`, and put back after.
    let first_message = std::mem::replace(&mut summary.first_message, std::sync::Arc::from(""));
    let encoded = encode_parts(summary, &tally, &first_message);
    summary.first_message = first_message;
    summary.tally = Some(tally);
    encoded
}

fn encode_parts(summary: &Summary, t: &Tally, first_message: &str) -> Option<NewRecord> {
    let rest = postcard::to_stdvec(&RestRef {
        ids: t.rows.iter().map(|r| &r.id).collect(),
        stop_reasons: t.rows.iter().map(|r| &r.stop_reason).collect(),
        tools: &t.tools,
        failed_commands: &t.failed_commands,
        stops: &t.stops,
        compactions: t.compactions,
        tokens_before: t.tokens_before,
        branch_summaries: t.branch_summaries,
        files: &t.files,
    })
    .ok()?;
    let more = postcard::to_stdvec(&More {
        first_message,
        rest: &rest,
    })
    .ok()?;
    let data = postcard::to_stdvec(&CachedRef { summary, tally: t }).ok()?;
    Some(NewRecord { data, more })
}

/// `tally` made whole again from `rest` when `wanted`.
fn with_rest(mut tally: Tally, rest: &[u8], wanted: bool) -> Option<Tally> {
    if !wanted {
        return Some(tally);
    }
    let rest: Rest = postcard::from_bytes(rest).ok()?;
    let n = tally.rows.len();
    if rest.ids.len() != n || rest.stop_reasons.len() != n {
        return None;
    }
    for ((r, id), stop) in tally.rows.iter_mut().zip(rest.ids).zip(rest.stop_reasons) {
        r.id = id;
        r.stop_reason = stop;
    }
    tally.tools = rest.tools;
    tally.failed_commands = rest.failed_commands;
    tally.stops = rest.stops;
    tally.compactions = rest.compactions;
    tally.tokens_before = rest.tokens_before;
    tally.branch_summaries = rest.branch_summaries;
    tally.files = rest.files;
    Some(tally)
}

/// One folder's file as loaded, kept for its rewrite: its bytes, and where each record's data
/// is in them.
struct Folder {
    bytes: Vec<u8>,
    by_name: ByName,
}

/// What became of a file's record.
enum Fate {
    /// Still right: copied as it is.
    Kept,
    /// Read and recorded: its key and record.
    New(FileKey, NewRecord),
    /// No record for it (it changed, is being written, or cannot be read).
    Dropped,
}

/// The tally cache of one report.
pub(crate) struct TallyCache<'a> {
    dir: &'a CacheDir,
    stamp: String,
    now_ns: i128,
    /// How much of a record is decoded (`--by message` prints entry ids, `--by session`
    /// titles).
    want: Want,
    folders: HashMap<Vec<u8>, Folder>,
    /// The first problem met (the run's one warning).
    problem: Option<CacheProblem>,
    /// The folder is not ours: nothing is read from it or written to it.
    off: bool,
}

impl<'a> TallyCache<'a> {
    /// Every file of `files` summarized with its tally ([`Detail::Stats`]), each handed to
    /// `each` on the thread that made it: from its record when the record's key is the file's
    /// now, else read whole. The results are in the order of `files`; then the cache's one
    /// problem. Unless [`Want::Whole`], a tally taken from the cache holds its rows (without
    /// [`Row::id`](crate::store::tally::Row::id)) and models only, what
    /// [`Grouper`](crate::views::stats::Grouper) groups: a report by day, model, ... needs no
    /// more (a file read gives the whole tally all the same); and with [`Want::Rows`] the
    /// summary's first message is empty.
    ///
    /// A folder's records are decoded by the thread that read its cache file, into that
    /// thread's one buffer, which the next folder reuses: every cache file read into fresh
    /// memory first, and decoded after, spent a sixth of a warm report zeroing pages, and
    /// waited for the slowest folder before any decoding began. The files no record vouches
    /// for are read afterwards, each by the next free thread.
    pub(crate) fn map<T: Send>(
        dir: &'a CacheDir,
        files: &[PathBuf],
        want: Want,
        each: impl Fn(Result<Summary, ScanError>) -> T + Sync,
    ) -> (Vec<T>, Option<CacheProblem>) {
        let mut cache = TallyCache {
            dir,
            stamp: stamp(),
            now_ns: now_ns(),
            want,
            folders: HashMap::new(),
            problem: None,
            off: false,
        };
        if let Err(problem) = dir.check_family(FAMILY) {
            cache.problem = problem;
            cache.off = true;
        }
        let tasks = if cache.off { Vec::new() } else { tasks(files) };
        // Parallel from two tasks: one project's folder is cut in as many.
        let done = parallel::map_from(2, &tasks, |task, _| cache.decode_task(files, task, &each));
        let mut results: Vec<Option<T>> =
            std::iter::repeat_with(|| None).take(files.len()).collect();
        let mut pending = Vec::new();
        let mut first = None;
        for (task, done) in tasks.iter().zip(done) {
            for (at, made) in done.made {
                results[at] = Some(made);
            }
            pending.extend(done.pending);
            if let Some(old) = done.old {
                cache.folders.entry(task.folder.to_vec()).or_insert(old);
            }
            first = first.or(done.problem);
        }
        if cache.off {
            pending.extend(0..files.len());
        }
        if let Some((path, why)) = first {
            cache.note(&path, why);
        }
        pending.sort_unstable();
        let read = parallel::map(&pending, |&at, reading| {
            let (result, fate) = cache.read_whole(&files[at], reading);
            (each(result), fate)
        });
        let mut fates: Vec<Fate> = std::iter::repeat_with(|| Fate::Kept)
            .take(files.len())
            .collect();
        for (&at, (made, fate)) in pending.iter().zip(read) {
            results[at] = Some(made);
            fates[at] = fate;
        }
        let results = results
            .into_iter()
            .map(|r| r.expect("every file is summarized once"))
            .collect();
        let problem = cache.save(files, fates);
        (results, problem)
    }

    fn note(&mut self, path: &Path, why: String) {
        if self.problem.is_none() {
            self.problem = self.dir.problem(path, why);
        }
    }

    /// The files of `task` its folder's records vouch for, each through `each`; the others are
    /// left pending. The folder's loaded file is kept (for [`save`](Self::save)) only when
    /// it is to be rewritten.
    fn decode_task<T>(
        &self,
        files: &[PathBuf],
        task: &Task,
        each: &impl Fn(Result<Summary, ScanError>) -> T,
    ) -> FromRecords<T> {
        thread_local! {
            /// Each thread's buffer, for the next folder it reads.
            static BYTES: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        BYTES.with_borrow_mut(|bytes| {
            let mut done = FromRecords {
                made: Vec::with_capacity(task.files.len()),
                pending: Vec::new(),
                old: None,
                problem: None,
            };
            let whole_file = self.want != Want::Rows;
            let (mut by_name, problem) =
                read_folder_into(self.dir, &self.stamp, task.folder, whole_file, bytes);
            done.problem = problem;
            #[cfg(unix)]
            let dir = (!by_name.is_empty())
                .then(|| open_folder(task.folder, 1))
                .flatten();
            #[cfg(not(unix))]
            let dir = None;
            for &at in &task.files {
                let path = &files[at];
                match self.vouched(bytes, &by_name, dir.as_ref(), path) {
                    Some(summary) => done.made.push((at, each(Ok(summary)))),
                    None => done.pending.push(at),
                }
            }
            // Also when the folder's file holds a record of a file no longer listed.
            let stale = task.first && by_name.len() != task.in_folder;
            if !by_name.is_empty() && (stale || !done.pending.is_empty()) {
                // A rewrite copies the records kept, with what follows the index.
                if !whole_file {
                    (by_name, _) =
                        read_folder_into(self.dir, &self.stamp, task.folder, true, bytes);
                }
                done.old = Some(Folder {
                    bytes: std::mem::take(bytes),
                    by_name,
                });
            }
            done
        })
    }

    /// `path` read whole, and what became of its record.
    fn read_whole(&self, path: &Path, reading: Reading) -> (Result<Summary, ScanError>, Fate) {
        let opened = match open_file(path) {
            Ok(o) => o,
            Err(e) => return (Err(e), Fate::Dropped),
        };
        let key = FileKey::of(&opened.meta);
        let pass = Pass::new().reading(reading);
        let read = fold(pass, Input::File(&opened), None, Detail::Stats, |_, _| {});
        let summary = match read {
            Ok((summary, ..)) => summary,
            Err(e) => return (Err(e), Fate::Dropped),
        };
        // Bytes that changed while they were read, or may still change unseen within the
        // mtime's granularity, are not recorded.
        let unchanged = opened
            .file
            .metadata()
            .is_ok_and(|now| FileKey::of(&now) == key);
        let settled = key.mtime_ns < self.now_ns - RACY_NS;
        let mut summary = summary;
        let fate = match (unchanged && settled && !self.off)
            .then(|| encode(&mut summary))
            .flatten()
        {
            Some(record) => Fate::New(key, record),
            None => Fate::Dropped,
        };
        (
            Ok(with_file_facts(summary, path, (&opened.meta).into())),
            fate,
        )
    }

    /// The record of `path` in its folder's `bytes` when its key is the file's now (a stat,
    /// not an open).
    fn vouched(
        &self,
        bytes: &[u8],
        by_name: &ByName,
        dir: Option<&File>,
        path: &Path,
    ) -> Option<Summary> {
        let name = split_name(path).1;
        let record = by_name.get(name)?;
        let (now, modified) = stat_in(dir, path, name)?;
        if now != record.key {
            return None;
        }
        let facts = FileFacts {
            modified,
            len: now.size,
        };
        // The index's checksum held, so data that does not decode is a forgery or another
        // build's: the file is read instead.
        let Cached { mut summary, tally } =
            postcard::from_bytes(bytes.get(record.data.clone())?).ok()?;
        let tally = if self.want == Want::Rows {
            tally
        } else {
            let more: More = postcard::from_bytes(record.more(bytes)?).ok()?;
            summary.first_message = std::sync::Arc::from(more.first_message);
            with_rest(tally, more.rest, self.want == Want::Whole)?
        };
        let mut summary = with_file_facts(summary, path, facts);
        summary.tally = Some(Box::new(tally));
        Some(summary)
    }

    /// Writes the folders whose records changed: `fates` holds each listed file's, in the
    /// order of `files`. Records of files no longer listed are dropped.
    fn save(mut self, files: &[PathBuf], fates: Vec<Fate>) -> Option<CacheProblem> {
        if self.off {
            return self.problem;
        }
        let mut out: HashMap<&[u8], (bool, Vec<ToWrite>)> = HashMap::new();
        for (path, fate) in files.iter().zip(fates) {
            let (folder, name) = split_name(path);
            let (changed, records) = out.entry(folder).or_default();
            match fate {
                Fate::Kept => {
                    let stored = self.folders.get(folder).and_then(|f| f.by_name.get(name));
                    if let Some(record) = stored {
                        records.push((name, record.key, Data::Old(record.clone())));
                    }
                }
                Fate::New(key, data) => {
                    *changed = true;
                    records.push((name, key, Data::New(data)));
                }
                Fate::Dropped => {
                    *changed |= self
                        .folders
                        .get(folder)
                        .is_some_and(|f| f.by_name.contains_key(name));
                }
            }
        }
        let mut made = false;
        for (folder, (changed, records)) in out {
            let stored = self.folders.get(folder).map_or(0, |f| f.by_name.len());
            // Also when a file recorded is gone from the folder.
            if !changed && stored == records.len() {
                continue;
            }
            if !made {
                if let Err((path, why)) = self.dir.make_family(FAMILY, "tally") {
                    self.note(&path, why);
                    return self.problem;
                }
                made = true;
            }
            let old = self.folders.get(folder).map_or(&[][..], |f| &f.bytes[..]);
            if let Err(e) = self.write_folder(folder, old, &records) {
                let dir = self.dir.dir.clone();
                self.note(
                    &dir,
                    format!("cannot write the tally cache: {e}; going on without it"),
                );
                break;
            }
        }
        self.problem
    }

    fn write_folder(&self, folder: &[u8], old: &[u8], records: &[ToWrite]) -> std::io::Result<()> {
        let path = self.dir.family_file(FAMILY, folder);
        let parent = path.parent().expect("a cache file is in a folder");
        // Every record's `More`, one after the other, after the index.
        let mut after = Vec::new();
        let mut entries = Vec::with_capacity(records.len());
        for (name, key, data) in records {
            let (data, more) = match data {
                Data::Old(record) => match (old.get(record.data.clone()), record.more(old)) {
                    (Some(data), Some(more)) => (data, more),
                    // Not in the old file after all: the file is read next time.
                    _ => continue,
                },
                Data::New(new) => (&new.data[..], &new.more[..]),
            };
            let blob = Blob {
                at: after.len() as u64,
                len: more.len() as u64,
                hash: xxhash_rust::xxh3::xxh3_64(more),
            };
            after.extend_from_slice(more);
            entries.push(Entry {
                name,
                key: *key,
                data,
                more: blob,
            });
        }
        let stored = Stored {
            stamp: self.stamp.clone(),
            folder,
            records: entries,
        };
        let index = postcard::to_stdvec(&stored).map_err(std::io::Error::other)?;
        // One the next run would not read is not written (its sessions are read whole).
        if (index.len() + after.len()) as u64 + 64 > MAX_FILE_BYTES {
            return Ok(());
        }
        // Made 0600 (`tempfile`), in a folder just checked to be ours.
        let mut tmp = tempfile::NamedTempFile::new_in(parent)?;
        tmp.write_all(&head(MAGIC, FORMAT, &index))?;
        tmp.write_all(&index)?;
        tmp.write_all(&after)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// A record to write: the file's name, its key and its data.
type ToWrite<'a> = (&'a [u8], FileKey, Data);

/// A record to write: where it is in the folder's old file, or new.
enum Data {
    Old(Record),
    New(NewRecord),
}

/// Where a record is in its folder's file as read.
#[derive(Clone)]
struct Record {
    key: FileKey,
    data: Range<usize>,
    /// Its [`More`]: its place and length (from the file's start), and its xxh3.
    more: (usize, usize, u64),
}

impl Record {
    /// The record's [`More`] in `bytes`, the whole file, when its checksum holds.
    fn more<'b>(&self, bytes: &'b [u8]) -> Option<&'b [u8]> {
        let (at, len, hash) = self.more;
        let more = bytes.get(at..at.checked_add(len)?)?;
        (xxhash_rust::xxh3::xxh3_64(more) == hash).then_some(more)
    }
}

/// A task of [`TallyCache::map`]: files of one folder, by their place in the listing.
struct Task<'f> {
    folder: &'f [u8],
    files: Vec<usize>,
    /// The folder's first task, and how many listed files the folder has in all.
    first: bool,
    in_folder: usize,
}

/// What a [`Task`] made: results by place, the places left to read whole, the folder's file
/// when it is to be rewritten, and the problem reading it.
struct FromRecords<T> {
    made: Vec<(usize, T)>,
    pending: Vec<usize>,
    old: Option<Folder>,
    problem: Option<CacheProblem>,
}

/// The files by folder, a task a folder; a folder that holds a large part of the files is cut
/// into a task for each core (each reads the folder's file), so one project's report is not
/// decoded on one core. Largest first, so the last to end are small.
fn tasks(files: &[PathBuf]) -> Vec<Task<'_>> {
    let mut by_folder: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (at, path) in files.iter().enumerate() {
        by_folder.entry(split_name(path).0).or_default().push(at);
    }
    let cores = parallel::cores();
    let mut tasks = Vec::new();
    for (folder, all) in by_folder {
        let n = all.len();
        let cut = (n * cores * 2).div_ceil(files.len()).clamp(1, cores);
        let size = n.div_ceil(cut);
        for (i, chunk) in all.chunks(size).enumerate() {
            tasks.push(Task {
                folder,
                files: chunk.to_vec(),
                first: i == 0,
                in_folder: n,
            });
        }
    }
    tasks.sort_unstable_by(|a, b| {
        b.files
            .len()
            .cmp(&a.files.len())
            .then_with(|| a.folder.cmp(b.folder))
            .then_with(|| a.files.cmp(&b.files))
    });
    tasks
}

/// One folder's file into `bytes`, with what follows its index when `whole`: where its
/// records are, and the problem reading it.
fn read_folder_into(
    dir: &CacheDir,
    stamp: &str,
    folder: &[u8],
    whole: bool,
    bytes: &mut Vec<u8>,
) -> (ByName, Option<CacheProblem>) {
    let path = dir.family_file(FAMILY, folder);
    bytes.clear();
    let read = open_cache_file(&path).and_then(|file| {
        let mut len = file.metadata()?.len();
        if !whole {
            // The head, then the index: what follows it is not read.
            let head = (MAGIC.len() + 4 + 8) as u64;
            let mut index_len = [0; 8];
            len = match read_exact_at(&file, &mut index_len, head - 8) {
                Ok(()) => (head + 8)
                    .saturating_add(u64::from_le_bytes(index_len))
                    .min(len),
                // Shorter than its head: `decode` says it is cut short.
                Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => len,
                Err(e) => return Err(e),
            };
        }
        // Sized first: grown by doubling, the bytes were copied and faulted in twice.
        bytes.reserve_exact(usize::try_from(len).unwrap_or(0));
        // Just opened: read from its start.
        file.take(len).read_to_end(bytes)
    });
    match read {
        Ok(_) => {}
        // No cache yet (or where none can be: said when it is written).
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return (ByName::new(), None)
        }
        Err(e) => {
            let why = format!(
                "cannot read the tally cache: {}; not used",
                crate::util::warning::io_cause(&e)
            );
            return (ByName::new(), Some((path, why)));
        }
    }
    match decode(bytes, stamp, folder) {
        Ok(Some(by_name)) => (by_name, None),
        // Another format or stamp: rebuilt without a word, as a new pisess should.
        Ok(None) => (ByName::new(), None),
        Err(why) => {
            let why = format!("the tally cache is damaged ({why}); it is rebuilt");
            (ByName::new(), Some((path, why)))
        }
    }
}

type ByName = HashMap<Vec<u8>, Record>;

/// Where each record is in a folder's file: `None` when it is of another format, pisess, time
/// zone or folder; an error when it is damaged. What follows the index may not have been read:
/// a record's [`More`] is checked when it is used.
fn decode(bytes: &[u8], stamp: &str, folder: &[u8]) -> Result<Option<ByName>, String> {
    let Some((index, _)) = body(bytes, MAGIC, FORMAT)? else {
        return Ok(None);
    };
    let stored: Stored = postcard::from_bytes(index).map_err(|e| e.to_string())?;
    if stored.stamp != stamp || stored.folder != folder {
        return Ok(None);
    }
    let base = bytes.as_ptr() as usize;
    let after = index.as_ptr() as usize - base + index.len();
    let mut by_name = HashMap::with_capacity(stored.records.len());
    for e in stored.records {
        // Borrowed from `bytes`: its place in them.
        let at = e.data.as_ptr() as usize - base;
        let more = (
            usize::try_from(e.more.at)
                .ok()
                .and_then(|at| at.checked_add(after))
                .unwrap_or(usize::MAX),
            usize::try_from(e.more.len).unwrap_or(usize::MAX),
            e.more.hash,
        );
        let record = Record {
            key: e.key,
            data: at..at + e.data.len(),
            more,
        };
        by_name.insert(e.name.to_vec(), record);
    }
    Ok(Some(by_name))
}

/// Rewrites the tally cache's record of `file` through `edit`, with every checksum recomputed
/// as a real write computes it: the forgery of a writer of the cache, which `stats` may show
/// but `check` must not be steered by (tests/it/trust.rs). For tests only; false when the
/// cache holds no record of `file`.
#[doc(hidden)]
pub fn forge(dir: &CacheDir, file: &Path, edit: impl FnOnce(&mut Summary, &mut Tally)) -> bool {
    forge_stamped(dir, file, None, edit)
}

/// [`forge`], the folder's file written under `stamp` when given: what a build of other code
/// would have written. For tests only.
#[doc(hidden)]
pub fn forge_stamped(
    dir: &CacheDir,
    file: &Path,
    stamp: Option<&str>,
    edit: impl FnOnce(&mut Summary, &mut Tally),
) -> bool {
    let (folder, name) = split_name(file);
    let written = stamp.map(str::to_owned);
    let stamp = super::key::stamp();
    let mut bytes = Vec::new();
    let (by_name, _) = read_folder_into(dir, &stamp, folder, true, &mut bytes);
    let Some(record) = by_name.get(name).cloned() else {
        return false;
    };
    let Ok(Cached { mut summary, tally }) =
        postcard::from_bytes::<Cached>(&bytes[record.data.clone()])
    else {
        return false;
    };
    let Some(more) = record
        .more(&bytes)
        .and_then(|m| postcard::from_bytes::<More>(m).ok())
    else {
        return false;
    };
    summary.first_message = std::sync::Arc::from(more.first_message);
    let Some(mut tally) = with_rest(tally, more.rest, true) else {
        return false;
    };
    edit(&mut summary, &mut tally);
    summary.tally = Some(Box::new(tally));
    let Some(new) = encode(&mut summary) else {
        return false;
    };
    let mut new = Some(new);
    let records: Vec<ToWrite> = by_name
        .iter()
        .filter_map(|(n, r)| {
            if n == name {
                Some((&n[..], record.key, Data::New(new.take()?)))
            } else {
                Some((&n[..], r.key, Data::Old(r.clone())))
            }
        })
        .collect();
    let cache = TallyCache {
        dir,
        stamp: written.unwrap_or(stamp),
        now_ns: now_ns(),
        want: Want::Whole,
        folders: HashMap::new(),
        problem: None,
        off: false,
    };
    cache.write_folder(folder, &bytes, &records).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_hold_every_file_once_and_cut_only_a_large_folder() {
        // One large project and several small ones, their files interleaved as names order them.
        let mut files = Vec::new();
        for i in 0..300 {
            let folder = if i % 3 == 0 { i % 7 } else { 99 };
            files.push(PathBuf::from(format!("/s/f{folder}/{i:04}.jsonl")));
        }
        let tasks = tasks(&files);
        let mut seen: Vec<usize> = tasks.iter().flat_map(|t| t.files.clone()).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..files.len()).collect::<Vec<_>>());
        for t in &tasks {
            assert!(t
                .files
                .iter()
                .all(|&at| split_name(&files[at]).0 == t.folder));
            let firsts = tasks
                .iter()
                .filter(|u| u.folder == t.folder && u.first)
                .count();
            assert_eq!(firsts, 1);
        }
        // 200 of the 300 files: a task a core; the others, some 14 each, one task.
        let f99 = split_name(&files[1]).0;
        let big = tasks.iter().filter(|t| t.folder == f99).count();
        assert_eq!(big, parallel::cores());
        assert_eq!(tasks.len(), big + 7);
        assert!(tasks
            .windows(2)
            .all(|w| w[0].files.len() >= w[1].files.len()));
    }
}
