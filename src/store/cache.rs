//! The summary cache: what `ls` needs of each session file, kept between runs, so a listing of
//! thousands of sessions reads only what changed.
//!
//! pi only appends to a session, so a [`Summary`] is a fold over its lines: the cache keeps each
//! file's summary, the folded state and the offset the fold reached. A file whose device,
//! inode, size, mtime and ctime are what they were is not read at all; a file that grew is read
//! from that offset on, once a hash of every byte before the offset shows they are the ones
//! folded; anything else (shrunk, rewritten to the same size, replaced, renamed, edited and
//! then appended to) is read whole. The cache is a pure accelerator: a summary read from it is
//! the one a full read gives, and a missing, foreign, damaged or unwritable cache is passed
//! over with at most one warning a run.
//!
//! The folder must be ours (see [`CacheDir::check`]): made 0700, used only while it and each
//! file in it are owned by the effective user and writable by no one else, each file opened
//! without following a symbolic link and read no further than [`MAX_FILE_BYTES`](folder::MAX_FILE_BYTES). Even so a
//! cache only ever shows `ls` what to display: the same user (an agent's tools) can write it,
//! so nothing that decides (`rm`, `check`) takes its word (docs/guide.md, "Threat model").
//!
//! One file per session folder (`<cache dir>/summaries/<hash of the folder>.bin`): a listing of
//! one project reads one, and a run rewrites only the folders whose sessions changed, to a
//! temporary file renamed into place, so concurrent runs each see a whole cache.

#[cfg(test)]
mod code_hash;
pub mod folder;
mod key;
pub mod tallies;

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use hashbrown::HashMap;
use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

use crate::format::scan::{
    self, open_file, read_exact_at, Input, OpenedFile, Pass, ScanError, ScanReport,
};

use crate::store::summary::{
    self, modified_from_mtime, with_file_facts, without_file_facts, Detail, FileFacts, Fold,
    Summary,
};
use crate::util::file::split_name;
use crate::util::readahead::Reading;

pub use folder::CacheDir;
use folder::MAX_FILE_BYTES;
pub(crate) use folder::{body, head, open_cache_file, CacheProblem};
#[cfg(unix)]
use key::open_folder;
pub(crate) use key::FileKey;
use key::{folders_of, now_ns, stamp, stat_in, RACY_NS};

/// The start of every cache file; then [`FORMAT`] (u32, little-endian), the length of the
/// index (u64), its xxh3 (u64), the index (a postcard-encoded [`Stored`]), and the blobs of
/// what a grown file is read on from ([`Resume`]s), each with its own hash, read only when
/// their file grew: a warm listing decodes the index alone.
const MAGIC: &[u8] = b"pisess summary cache\n";

/// Bumped whenever what is stored, or how a summary is computed, changes: a cache of another
/// format is not read (and is replaced).
const FORMAT: u32 = 8;

/// What one folder's cache file holds.
#[derive(Serialize, Deserialize)]
struct Stored {
    /// pisess's version and code hash, and the time zone dates without an offset were read
    /// in ([`key::stamp`]).
    stamp: String,
    /// The folder, in case two hash alike.
    folder: Vec<u8>,
    records: Vec<Record>,
}

/// One session file.
#[derive(Serialize, Deserialize)]
pub(crate) struct Record {
    name: Vec<u8>,
    key: FileKey,
    /// The key alone vouches for the summary (the file was not racy when read).
    trusted: bool,
    /// Without the file's own facts (path, times, size): those are the file's of this run.
    /// Taken, not cloned, by the listing it serves (10,000 clones were a tenth of a warm run);
    /// a record written again gets it back from the listing ([`Cache::save`]).
    summary: Mutex<Option<Summary>>,
    /// pi's `modified` was the file's mtime (no message or header time), which the summary the
    /// listing holds has filled in.
    modified_from_mtime: bool,
    /// Where its [`Resume`] is among the blobs; `None` when the file ended in a line without
    /// `\n` (what is appended would continue it).
    resume: Option<Blob>,
}

/// A blob's place after the index, and its xxh3.
#[derive(Serialize, Deserialize, Clone, Copy)]
struct Blob {
    at: u64,
    len: u64,
    hash: u64,
}

/// One folder's file as loaded: its records by file name, and the file, whose bytes from
/// `blobs_at` on are the blobs.
#[derive(Default)]
struct Folder {
    /// As decoded, each in its place until a rewrite takes it: moved into a map, 10,000
    /// records of a warm listing were 6 MB more to copy and fault in.
    records: Vec<Option<Record>>,
    /// Where each file's record is among `records`, by its name (moved out of the record).
    by_name: HashMap<Vec<u8>, usize>,
    /// The cache file, whose bytes from `blobs_at` on are the blobs: read when one is needed,
    /// not with the index (a warm listing needs none).
    path: PathBuf,
    blobs_at: u64,
    /// The folder itself, open, for stats by name.
    #[cfg(unix)]
    dir: Option<File>,
}

impl Folder {
    fn get(&self, name: &[u8]) -> Option<&Record> {
        self.records.get(*self.by_name.get(name)?)?.as_ref()
    }

    /// The record of `name`, named again, to be written back.
    fn take(&mut self, name: &[u8]) -> Option<Record> {
        let (name, at) = self.by_name.remove_entry(name)?;
        let mut record = self.records.get_mut(at)?.take()?;
        record.name = name;
        Some(record)
    }

    /// The key and facts of the regular file `name` of this folder (a symlink followed): by
    /// the folder's descriptor where there is one, so that 10,000 stats do not each walk the
    /// whole path.
    fn stat(&self, path: &Path, name: &[u8]) -> Option<(FileKey, FileFacts)> {
        #[cfg(unix)]
        let dir = self.dir.as_ref();
        #[cfg(not(unix))]
        let dir = None;
        let (key, modified) = stat_in(dir, path, name)?;
        let len = key.size;
        Some((key, FileFacts { modified, len }))
    }

    /// A record's resume blob, when it is whole.
    /// A record's resume blob, when it is whole (another run may have replaced the file since:
    /// then the hash tells).
    fn blob(&self, record: &Record) -> Option<Vec<u8>> {
        let b = record.resume?;
        let at = self.blobs_at.checked_add(b.at)?;
        let bytes = read_at(&open_cache_file(&self.path).ok()?, at, b.len)?;
        b.holds(&bytes).then_some(bytes)
    }

    /// All the blobs at once, for writing the folder's file again.
    fn blobs(&self) -> Vec<u8> {
        let read = || {
            let file = open_cache_file(&self.path).ok()?;
            let len = file.metadata().ok()?.len().checked_sub(self.blobs_at)?;
            read_at(&file, self.blobs_at, len)
        };
        read().unwrap_or_default()
    }
}

impl Blob {
    fn holds(&self, bytes: &[u8]) -> bool {
        xxhash_rust::xxh3::xxh3_64(bytes) == self.hash
    }

    /// This blob among `blobs` (all of a file's), when it is whole.
    fn within(self, blobs: &[u8]) -> Option<Vec<u8>> {
        let start = usize::try_from(self.at).ok()?;
        let bytes = blobs.get(start..start.checked_add(usize::try_from(self.len).ok()?)?)?;
        self.holds(bytes).then(|| bytes.to_vec())
    }
}

/// How to read a grown file on.
#[derive(Serialize, Deserialize)]
struct Resume {
    /// The scan's report as it ended, its header as the stored line it is read again from.
    report: ScanReport<ByteBuf>,
    /// Without the first message, which the record's summary holds ([`Fold::take_first_message`]).
    fold: Fold,
    had_first_message: bool,
    /// xxh3 of the bytes `[0, end)`: all that was folded ([`prefix_hash`]).
    prefix_hash: u64,
}

/// The cache of one listing: the records of its folders as loaded, and what this run learned.
pub(crate) struct Cache<'a> {
    dir: &'a CacheDir,
    stamp: String,
    /// The run's start, against which files are racy.
    now_ns: i128,
    /// By folder (bytes: hashing a `Path` walks its components).
    folders: HashMap<Vec<u8>, Folder>,
    /// The first problem met (the run's one warning).
    pub(crate) problem: Option<CacheProblem>,
    /// The folder is not ours: nothing is read from it or written to it.
    off: bool,
}

/// A record to write, with its resume blob.
type WithBlob = (Record, Option<Vec<u8>>);

/// What became of a file's record.
pub(crate) enum Fate {
    /// Still right.
    Kept,
    /// Replaced by a new one, with its resume blob.
    New(Box<Record>, Option<Vec<u8>>),
    /// No record for it (it cannot be summarized, or cannot be cached).
    Dropped,
}

impl<'a> Cache<'a> {
    /// Loads the records of the folders of `files`.
    pub(crate) fn load(dir: &'a CacheDir, files: &[PathBuf]) -> Cache<'a> {
        let mut cache = Cache {
            dir,
            stamp: stamp(),
            now_ns: now_ns(),
            folders: HashMap::new(),
            problem: None,
            off: false,
        };
        if let Err(problem) = dir.check() {
            cache.problem = problem;
            cache.off = true;
            return cache;
        }
        let folders = folders_of(files);
        let many = folders.len();
        let loaded = crate::util::parallel::map(&folders, |folder, _| {
            let (mut loaded, problem) = read_folder(dir, &cache.stamp, folder);
            #[cfg(unix)]
            if !loaded.by_name.is_empty() {
                loaded.dir = open_folder(folder, many);
            }
            #[cfg(not(unix))]
            let _ = many;
            (loaded, problem)
        });
        for (folder, (loaded, problem)) in folders.into_iter().zip(loaded) {
            if let Some((path, why)) = problem {
                cache.note(&path, why);
            }
            cache.folders.insert(folder.to_vec(), loaded);
        }
        cache
    }

    fn note(&mut self, path: &Path, why: String) {
        if self.problem.is_none() {
            self.problem = self.dir.problem(path, why);
        }
    }

    /// The summary of `path` when the cache vouches for it without reading the file: a record
    /// not racy when written, whose key is the file's now. A stat, not an open.
    pub(crate) fn peek(&self, path: &Path) -> Option<Summary> {
        let (folder, name) = split_name(path);
        let folder = self.folders.get(folder)?;
        let record = folder.get(name).filter(|r| r.trusted)?;
        // Unchanged (the stat-only fast path): any write to the file sets its ctime to now,
        // which no one but root can set back, and a record is trusted only when the file's
        // mtime was older than `RACY_NS` when it was read, so a write since shows in the key.
        let (key, facts) = folder.stat(path, name)?;
        if record.key != key {
            return None;
        }
        let summary = record.summary.lock().ok()?.take()?;
        Some(with_file_facts(summary, path, facts))
    }

    /// The summary of `path` (pi's listing fields only), from the cache where it holds, and
    /// what became of its record.
    pub(crate) fn summarize(
        &self,
        path: &Path,
        reading: Reading,
    ) -> (Result<Summary, ScanError>, Fate) {
        if let Some(summary) = self.peek(path) {
            return (Ok(summary), Fate::Kept);
        }
        let (folder, name) = split_name(path);
        let folder = self.folders.get(folder);
        let record = folder.and_then(|f| f.get(name));
        let opened = match open_file(path) {
            Ok(o) => o,
            Err(e) => return (Err(e), Fate::Dropped),
        };
        let key = FileKey::of(&opened.meta);
        let read = folder
            .zip(record)
            .and_then(|(f, r)| read_on(f, r, &opened, key))
            .unwrap_or_else(|| read_whole(&opened, reading));
        match read {
            Ok((summary, report, fold)) => {
                // Bytes that changed while they were read are not what was folded: kept for
                // this run's listing, not for the next.
                let unchanged = opened
                    .file
                    .metadata()
                    .is_ok_and(|now| FileKey::of(&now) == key);
                let fate = if unchanged {
                    self.record(path, &opened.file, key, &summary, report, fold)
                } else {
                    Fate::Dropped
                };
                (
                    Ok(with_file_facts(summary, path, (&opened.meta).into())),
                    fate,
                )
            }
            Err(e) => (Err(e), Fate::Dropped),
        }
    }

    /// The record to keep for a file just read.
    fn record(
        &self,
        path: &Path,
        file: &File,
        key: FileKey,
        summary: &Summary,
        report: ScanReport,
        mut fold: Fold,
    ) -> Fate {
        let resume = report.resumable().then(|| {
            let resume = Resume {
                prefix_hash: prefix_hash(file, report.tail.end)?,
                had_first_message: fold.take_first_message(),
                fold,
                report: report.with_header(|h| ByteBuf::from(h.stored)),
            };
            postcard::to_stdvec(&resume).ok()
        });
        Fate::New(
            Box::new(Record {
                name: split_name(path).1.to_vec(),
                key,
                trusted: key.mtime_ns < self.now_ns - RACY_NS,
                summary: Mutex::new(Some(summary.clone())),
                modified_from_mtime: modified_from_mtime(summary),
                resume: None,
            }),
            resume.flatten(),
        )
    }

    /// Writes the folders whose records changed: `fates` holds each listed file's. Records of
    /// files no longer listed are dropped.
    pub(crate) fn save(
        mut self,
        files: &[PathBuf],
        fates: Vec<Fate>,
        summaries: &[Result<Summary, ScanError>],
    ) -> Option<CacheProblem> {
        // A warm run that changed nothing: every file's record kept, and no other record (each
        // kept file has its own, so equal counts leave none of a file gone). Without the two
        // lookups a file below, which were 5% of a warm listing of 10,000.
        let stored: usize = self.folders.values().map(|f| f.by_name.len()).sum();
        if self.off || stored == files.len() && fates.iter().all(|f| matches!(f, Fate::Kept)) {
            // Not freed: a listing is a process's one job, and 10,000 records freed string by
            // string (allocated on the workers) took 1.5-1.8 ms of the one thread every later
            // step waits on.
            std::mem::forget(std::mem::take(&mut self.folders));
            return self.problem;
        }
        // First which folders changed (a record new or dropped, or of a file gone), so that a
        // warm run that changed nothing copies nothing.
        let mut changed: HashMap<&[u8], bool> = HashMap::new();
        let mut with_record: HashMap<&[u8], usize> = HashMap::new();
        for (path, fate) in files.iter().zip(&fates) {
            let (folder, name) = split_name(path);
            let had = self
                .folders
                .get(folder)
                .is_some_and(|f| f.by_name.contains_key(name));
            *with_record.entry(folder).or_default() += usize::from(had);
            let change = match fate {
                Fate::Kept => false,
                Fate::New(..) => true,
                Fate::Dropped => had,
            };
            *changed.entry(folder).or_default() |= change;
        }
        for (folder, change) in &mut changed {
            let stored = self.folders.get(*folder).map_or(0, |f| f.by_name.len());
            *change |= stored > with_record[folder];
        }
        let mut out: HashMap<&[u8], Vec<WithBlob>> = HashMap::new();
        let mut old_blobs: HashMap<&[u8], Vec<u8>> = HashMap::new();
        for ((path, fate), summary) in files.iter().zip(fates).zip(summaries) {
            let (folder, name) = split_name(path);
            if !changed[folder] {
                continue;
            }
            let records = out.entry(folder).or_default();
            match fate {
                Fate::Kept => {
                    let old = self
                        .folders
                        .get_mut(folder)
                        .expect("a kept record's folder");
                    if let (Some(record), Ok(summary)) = (old.take(name), summary) {
                        let blobs = old_blobs.entry(folder).or_insert_with(|| old.blobs());
                        let blob = record.resume.and_then(|b| b.within(blobs));
                        let back = without_file_facts(summary.clone(), record.modified_from_mtime);
                        if let Ok(mut slot) = record.summary.lock() {
                            slot.get_or_insert(back);
                        }
                        records.push((record, blob));
                    }
                }
                Fate::New(record, blob) => records.push((*record, blob)),
                Fate::Dropped => {}
            }
        }
        if !out.is_empty() {
            if let Err((path, why)) = self.dir.make() {
                self.note(&path, why);
                return self.problem;
            }
        }
        for (folder, records) in out {
            if let Err(e) = self.write_folder(folder, records) {
                let dir = self.dir.dir.clone();
                self.note(
                    &dir,
                    format!("cannot write the summary cache: {e}; going on without it"),
                );
                break;
            }
        }
        self.problem
    }

    fn write_folder(&self, folder: &[u8], records: Vec<WithBlob>) -> std::io::Result<()> {
        let path = self.dir.folder_file(folder);
        let parent = path.parent().expect("a cache file is in a folder");
        let mut blobs = Vec::new();
        let records = records
            .into_iter()
            .map(|(mut record, blob)| {
                record.resume = blob.map(|b| {
                    let at = blobs.len() as u64;
                    blobs.extend_from_slice(&b);
                    Blob {
                        at,
                        len: b.len() as u64,
                        hash: xxhash_rust::xxh3::xxh3_64(&b),
                    }
                });
                record
            })
            .collect();
        let stored = Stored {
            stamp: self.stamp.clone(),
            folder: folder.to_vec(),
            records,
        };
        let index = postcard::to_stdvec(&stored).map_err(std::io::Error::other)?;
        // One the next run would not read is not written (its sessions are read whole).
        if (index.len() + blobs.len()) as u64 + 64 > MAX_FILE_BYTES {
            return Ok(());
        }
        // Made 0600 (`tempfile`), in a folder just checked to be ours.
        let mut tmp = tempfile::NamedTempFile::new_in(parent)?;
        tmp.write_all(&head(MAGIC, FORMAT, &index))?;
        tmp.write_all(&index)?;
        tmp.write_all(&blobs)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// One folder's file, and the problem reading it.
fn read_folder(dir: &CacheDir, stamp: &str, folder: &[u8]) -> (Folder, Option<CacheProblem>) {
    thread_local! {
        /// Each thread's index buffer, for the next folder it reads: fresh ones were a tenth of
        /// a warm listing's page faults.
        static INDEX: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    INDEX.with_borrow_mut(|bytes| read_folder_into(dir, stamp, folder, bytes))
}

fn read_folder_into(
    dir: &CacheDir,
    stamp: &str,
    folder: &[u8],
    bytes: &mut Vec<u8>,
) -> (Folder, Option<CacheProblem>) {
    let path = dir.folder_file(folder);
    match read_index(&path, bytes) {
        Ok(()) => {}
        // No cache yet (or where none can be: said when it is written).
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return (Folder::default(), None)
        }
        Err(e) => {
            let why = format!(
                "cannot read the summary cache: {}; not used",
                crate::util::warning::io_cause(&e)
            );
            return (Folder::default(), Some((path, why)));
        }
    };
    match decode(bytes, stamp, folder) {
        Ok(Some(mut loaded)) => {
            loaded.path = path;
            (loaded, None)
        }
        // Another format or stamp: rebuilt without a word, as a new pisess should.
        Ok(None) => (Folder::default(), None),
        Err(why) => {
            let why = format!("the summary cache is damaged ({why}); it is rebuilt");
            (Folder::default(), Some((path, why)))
        }
    }
}

/// The head of a cache file, as far as its index ends (a file cut short gives what it has),
/// into `bytes`, sized for it first: grown by doubling, 10 MB of indexes were copied and
/// faulted in about twice.
fn read_index(path: &Path, bytes: &mut Vec<u8>) -> std::io::Result<()> {
    use std::io::Read;
    let file = open_cache_file(path)?;
    let head = (MAGIC.len() + 4 + 8) as u64;
    let mut len = [0; 8];
    let index_len = match read_exact_at(&file, &mut len, head - 8) {
        Ok(()) => u64::from_le_bytes(len),
        // Shorter than its head: `decode` says it is cut short.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => 0,
        Err(e) => return Err(e),
    };
    // The head, the hash, then the index; a length past the file's is found out by `decode`.
    let total = head
        .saturating_add(8)
        .saturating_add(index_len)
        .min(file.metadata()?.len());
    bytes.clear();
    bytes.reserve_exact(usize::try_from(total).map_err(std::io::Error::other)?);
    // The file was just opened, so it is read from its start.
    file.take(total).read_to_end(bytes)?;
    Ok(())
}

/// xxh3 of the bytes `[0, end)` of `file`, read a piece at a time (a session may be GBs).
fn prefix_hash(file: &File, end: u64) -> Option<u64> {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0; usize::try_from(end.min(256 * 1024)).ok()?];
    let mut at = 0;
    while at < end {
        let n = usize::try_from((end - at).min(buf.len() as u64)).ok()?;
        read_exact_at(file, &mut buf[..n], at).ok()?;
        hasher.update(&buf[..n]);
        at += n as u64;
    }
    Some(hasher.digest())
}

/// A file that grew read on from where its fold ended, when it is the same file with the same
/// bytes up to there; `None` to read it whole.
fn read_on(
    folder: &Folder,
    record: &Record,
    opened: &OpenedFile,
    key: FileKey,
) -> Option<Result<(Summary, ScanReport, Fold), ScanError>> {
    let old = record.key;
    if old.id != key.id {
        return None;
    }
    let resume: Resume = postcard::from_bytes(&folder.blob(record)?).ok()?;
    let saved = &resume.report;
    let end = saved.tail.end;
    // Not grown: touched, or rewritten in place to the same size. Only appends are read on.
    if key.size <= end {
        return None;
    }
    let file = &opened.file;
    // Sound: the fold is a function of the bytes `[0, end)` alone, so going on from it over
    // `[end, size)` gives the full read's summary exactly when those bytes are the ones folded,
    // which their xxh3 says but for a chance of 2^-64 (a collision made on purpose needs the
    // cache to be written anyway, and whoever can write it can write any summary: a summary
    // only ever steers what `ls` displays). An edit anywhere before `end`, of any length,
    // shows; hashing is several times faster than folding what it covers again.
    let header = read_at(file, saved.header_offset, saved.header_len)?;
    if header != *saved.header || prefix_hash(file, end)? != resume.prefix_hash {
        return None;
    }
    let report = restore(resume.report, &opened.stem)?;
    let mut fold = resume.fold;
    fold.restore_first_message(
        resume.had_first_message,
        record.summary.lock().ok()?.as_ref()?,
    );
    // A clone shares the offset, but nothing reads the file after this.
    let mut file = file.try_clone().ok()?;
    file.seek(SeekFrom::Start(end)).ok()?;
    Some(summary::fold(
        Pass::new(),
        Input::Stream(&mut file, &opened.stem),
        Some((report, fold)),
        Detail::Listing,
        |_, _| {},
    ))
}

fn read_whole(
    opened: &OpenedFile,
    reading: Reading,
) -> Result<(Summary, ScanReport, Fold), ScanError> {
    let pass = Pass::new().reading(reading);
    summary::fold(pass, Input::File(opened), None, Detail::Listing, |_, _| {})
}

/// A cache file's folder: `None` when it is of another format, pisess or time zone; an error
/// when it is damaged (a blob that is is found when it is needed: its file is read whole).
fn decode(bytes: &[u8], stamp: &str, folder: &[u8]) -> Result<Option<Folder>, String> {
    let Some((index, _)) = body(bytes, MAGIC, FORMAT)? else {
        return Ok(None);
    };
    let len = index.len();
    let stored: Stored = postcard::from_bytes(index).map_err(|e| e.to_string())?;
    if stored.stamp != stamp || stored.folder != folder {
        return Ok(None);
    }
    let blobs_at = (MAGIC.len() + 4 + 8 + 8 + len) as u64;
    // In place (an `Option<Record>` is a `Record`'s size).
    let mut records: Vec<Option<Record>> = stored.records.into_iter().map(Some).collect();
    let mut by_name = HashMap::with_capacity(records.len());
    for (at, record) in records.iter_mut().enumerate() {
        if let Some(record) = record {
            // The name moves to the map, and back when the record is written again.
            by_name.insert(std::mem::take(&mut record.name), at);
        }
    }
    Ok(Some(Folder {
        records,
        by_name,
        blobs_at,
        ..Folder::default()
    }))
}

fn restore(saved: ScanReport<ByteBuf>, stem: &str) -> Option<ScanReport> {
    let header = scan::header_of_stored(&saved.header, stem)?;
    Some(saved.with_header(|_| header))
}

/// `len` bytes at `offset` ([`read_exact_at`]: the file's offset does not move); `None` for
/// more than a cache file may hold (a length from a cache file is not trusted to be small).
fn read_at(file: &File, offset: u64, len: u64) -> Option<Vec<u8>> {
    if len > MAX_FILE_BYTES {
        return None;
    }
    let mut buf = vec![0; usize::try_from(len).ok()?];
    read_exact_at(file, &mut buf, offset).ok()?;
    Some(buf)
}

/// Rewrites the summary cache's record of `file` through `edit`, trusted and with every
/// checksum recomputed as a real write computes it: the forgery by a writer of the cache that
/// `rm`, `check` and `grep` must not be steered by (tests/it/trust.rs). For tests only; false
/// when the cache holds no record of `file`.
#[doc(hidden)]
pub fn forge(dir: &CacheDir, file: &Path, edit: impl FnOnce(&mut Summary)) -> bool {
    forge_stamped(dir, file, None, edit)
}

/// [`forge`], the folder's file written under `stamp` when given: what a build of other code
/// (another [`this_stamp`]) would have written. For tests only.
#[doc(hidden)]
pub fn forge_stamped(
    dir: &CacheDir,
    file: &Path,
    stamp: Option<&str>,
    edit: impl FnOnce(&mut Summary),
) -> bool {
    let (folder, name) = split_name(file);
    let mut cache = Cache::load(dir, &[file.to_path_buf()]);
    let Some(mut loaded) = cache.folders.remove(folder) else {
        return false;
    };
    let blobs = loaded.blobs();
    let names: Vec<Vec<u8>> = loaded.by_name.keys().cloned().collect();
    let (mut edit, mut found) = (Some(edit), false);
    let mut records = Vec::new();
    for n in names {
        let Some(mut record) = loaded.take(&n) else {
            continue;
        };
        let blob = record.resume.and_then(|b| b.within(&blobs));
        if n == name {
            if let (Some(edit), Some(summary)) = (
                edit.take(),
                record.summary.get_mut().ok().and_then(Option::as_mut),
            ) {
                edit(summary);
                record.trusted = true;
                found = true;
            }
        }
        records.push((record, blob));
    }
    if let Some(stamp) = stamp {
        stamp.clone_into(&mut cache.stamp);
    }
    found && cache.write_folder(folder, records).is_ok()
}

/// The stamp this build writes its caches under ([`key::stamp`]). For tests only.
#[doc(hidden)]
pub fn this_stamp() -> String {
    stamp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn line(n: u32, text: &str) -> String {
        let parent = match n {
            0 => "null".to_owned(),
            n => format!("\"{:08x}\"", n - 1),
        };
        format!(
            r#"{{"type":"message","id":"{n:08x}","parentId":{parent},"message":{{"role":"user","content":"{text}"}}}}"#
        ) + "\n"
    }

    /// The cache's record of `path` after a run, and a fresh run's cache to read it on with.
    fn cached(dir: &CacheDir, path: &Path) {
        let files = vec![path.to_path_buf()];
        let cache = Cache::load(dir, &files);
        let (summary, fate) = cache.summarize(path, Reading::AheadIfBig);
        assert!(cache.save(&files, vec![fate], &[summary]).is_none());
    }

    fn read_on_now(dir: &CacheDir, path: &Path) -> Option<Summary> {
        let cache = Cache::load(dir, &[path.to_path_buf()]);
        let (folder, name) = split_name(path);
        let folder = cache.folders.get(folder)?;
        let record = folder.get(name)?;
        let opened = open_file(path).unwrap();
        let key = FileKey::of(&opened.meta);
        let (summary, ..) = read_on(folder, record, &opened, key)?.unwrap();
        Some(summary)
    }

    /// An append is read on from where the fold ended (what makes a grown file cheap), and
    /// equals a full read; an edit of the same size anywhere before that end, far outside the
    /// 64 KB once compared, is not read on.
    #[test]
    fn a_grown_file_is_read_on_unless_what_was_folded_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.jsonl");
        let mut text = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.to_owned() + "\n";
        let filler = "f".repeat(1000);
        for n in 0..200 {
            text += &line(n, &format!("q{n} {filler}"));
        }
        fs::write(&path, &text).unwrap();
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let dir = CacheDir::new(tmp.path().join("cache"));
        cached(&dir, &path);
        let grown = text.clone() + &line(200, "appended");
        fs::write(&path, &grown).unwrap();
        let on = read_on_now(&dir, &path).expect("read on");
        let whole = crate::store::summary::summarize(&path, Default::default()).unwrap();
        assert_eq!(
            (on.entries, &on.first_message, &on.leaf_id),
            (whole.entries, &whole.first_message, &whole.leaf_id)
        );
        // The first message edited in place, then appended to.
        fs::write(&path, &text).unwrap();
        cached(&dir, &path);
        let edited = grown.replacen("q0 ", "z0 ", 1);
        assert_eq!(edited.len(), grown.len());
        fs::write(&path, &edited).unwrap();
        assert!(read_on_now(&dir, &path).is_none(), "read on over an edit");
    }

    /// A key is stored as its five numbers in a row, as it was before the file's id was a
    /// type of its own: caches written by the older pisess of this format stay readable.
    #[test]
    fn a_key_is_encoded_as_before_its_id_was_a_type() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Before {
            dev: u64,
            ino: u64,
            size: u64,
            mtime_ns: i128,
            ctime_ns: i128,
        }
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.jsonl");
        fs::write(&path, b"{}\n").unwrap();
        let meta = fs::metadata(&path).unwrap();
        let key = FileKey::of(&meta);
        #[cfg(unix)]
        let before = {
            use std::os::unix::fs::MetadataExt;
            let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
            Before {
                dev: meta.dev(),
                ino: meta.ino(),
                size: meta.size(),
                mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
                ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            }
        };
        #[cfg(not(unix))]
        let before: Before = postcard::from_bytes(&postcard::to_stdvec(&key).unwrap()).unwrap();
        let old = postcard::to_stdvec(&before).unwrap();
        assert_eq!(postcard::to_stdvec(&key).unwrap(), old);
        assert_eq!(postcard::from_bytes::<FileKey>(&old).unwrap(), key);
        // Big numbers too (varints of every width, a negative time).
        let far = Before {
            dev: u64::MAX,
            ino: 1 << 40,
            size: 300,
            mtime_ns: -5,
            ctime_ns: i128::MAX,
        };
        let bytes = postcard::to_stdvec(&far).unwrap();
        let key: FileKey = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(postcard::to_stdvec(&key).unwrap(), bytes);
    }

    /// A report is stored as it was when the cache copied it field by field into a
    /// `SavedReport` of its own: the same bytes, read back into the same report.
    #[test]
    fn a_report_is_encoded_as_its_saved_copy_was() {
        #[derive(Serialize, Deserialize)]
        struct SavedReport {
            #[serde(with = "serde_bytes")]
            header: Vec<u8>,
            header_line: u64,
            header_offset: u64,
            header_len: u64,
            entries: usize,
            malformed: u64,
            warnings: Vec<crate::util::warning::Warning>,
            warnings_omitted: u64,
            tail: scan::Tail,
        }
        // A v1 session (the migration's last id is in the tail), with a line that is no JSON.
        let text = format!(
            "\n{}\nnot json\n{}\n",
            r#"{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
            r#"{"type":"message","message":{"role":"user","content":"hi"}}"#
        );
        let report = Pass::new()
            .run(Input::Bytes(text.as_bytes(), "s"), |_, _| {
                std::ops::ControlFlow::Continue(())
            })
            .unwrap();
        assert!(report.resumable() && !report.warnings.is_empty());
        assert!(report.tail.prev_v1_id.is_some() && report.header_line == 2);
        let old = postcard::to_stdvec(&SavedReport {
            header: report.header.stored.clone(),
            header_line: report.header_line,
            header_offset: report.header_offset,
            header_len: report.header_len,
            entries: report.entries,
            malformed: report.malformed,
            warnings: report.warnings.clone(),
            warnings_omitted: report.warnings_omitted,
            tail: report.tail.clone(),
        })
        .unwrap();
        let shown = format!("{report:?}");
        let new = postcard::to_stdvec(&report.with_header(|h| ByteBuf::from(h.stored))).unwrap();
        assert_eq!(new, old);
        let back: ScanReport<ByteBuf> = postcard::from_bytes(&old).unwrap();
        assert_eq!(format!("{:?}", restore(back, "s").unwrap()), shown);
    }
}
