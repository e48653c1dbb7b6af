//! The one cache file both caches are ([`Cache`], one [`Kind`] each): a folder of sessions has
//! one file, `<cache dir>/<family>/<hash of the folder>.bin`, which is its magic line, its
//! format (u32, little-endian), the length (u64) and xxh3 (u64) of its index, the index, and the
//! blobs. The index (postcard) holds the stamp ([`stamp`]), the folder (in case two hash alike)
//! and a record a session file: its name, its [`FileKey`], whether the key alone vouches for it
//! (the file was not racy when read), its data (what a warm run decodes), and where its blob
//! is, with the blob's own xxh3 (what only some runs need, read only by them).
//!
//! A record is decoded only by the run that uses it, and a record kept is copied as bytes; a
//! folder's file is rewritten only when one of its records changed, to a temporary file
//! renamed into place, so concurrent runs each see a whole cache. A file of another format,
//! stamp or folder is passed over without a word; a damaged or unreadable one is the run's one
//! warning; either way the sessions are read instead.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

use super::folder::{open_cache_file, CacheDir, CacheProblem, MAX_FILE_BYTES};
#[cfg(unix)]
use super::key::open_folder;
use super::key::{folders_of, now_ns, stamp, stat_in, FileKey};
use crate::summary::{with_file_facts, Summary};
use pisess_format::scan::{open_file, read_exact_at, OpenedFile, ScanError};
use pisess_format::util::file::split_name;
use pisess_format::util::readahead::Reading;
use pisess_format::util::warning::io_cause;

/// What differs between the caches' files.
pub trait Kind {
    /// The folder of its files under the cache dir.
    const FAMILY: &'static str;
    /// What a warning calls it ("the summary cache").
    const WHAT: &'static str;
    /// The start of each of its files.
    const MAGIC: &'static [u8];
    /// Bumped whenever what is stored, or how it is computed, changes: a file of another
    /// format is not read (and is replaced).
    const FORMAT: u32;

    /// Whether a run reads each file's blobs with its index (it needs most of them).
    fn whole(&self) -> bool {
        false
    }

    /// Whether its records are checked by a stat of the session file by name in its folder
    /// ([`Folder::stat`]): then each folder with records is opened once for those stats. The
    /// run cache's records are checked by their own folders' keys, never by name.
    fn stats_by_name(&self) -> bool {
        true
    }
}

/// A folder's file as the index holds it.
#[derive(Serialize, Deserialize)]
struct Stored<'a> {
    stamp: &'a str,
    #[serde(with = "serde_bytes")]
    folder: &'a [u8],
    #[serde(borrow)]
    records: Vec<Entry<'a>>,
}

#[derive(Serialize, Deserialize)]
struct Entry<'a> {
    #[serde(with = "serde_bytes")]
    name: &'a [u8],
    key: FileKey,
    trusted: bool,
    #[serde(with = "serde_bytes")]
    data: &'a [u8],
    blob: Option<Blob>,
}

/// A blob's place after the index, and its xxh3.
#[derive(Serialize, Deserialize, Clone, Copy)]
struct Blob {
    at: u64,
    len: u64,
    hash: u64,
}

impl Blob {
    fn holds(&self, bytes: &[u8]) -> bool {
        xxhash_rust::xxh3::xxh3_64(bytes) == self.hash
    }

    /// This blob among `blobs` (all of a file's), when it is whole.
    fn within(self, blobs: &[u8]) -> Option<&[u8]> {
        let start = usize::try_from(self.at).ok()?;
        let bytes = blobs.get(start..start.checked_add(usize::try_from(self.len).ok()?)?)?;
        self.holds(bytes).then_some(bytes)
    }
}

/// A session file's record as loaded: its data is a range of its folder's bytes.
#[derive(Clone)]
pub(crate) struct Slot {
    pub(crate) key: FileKey,
    trusted: bool,
    data: Range<usize>,
    blob: Option<Blob>,
}

/// A record to write.
pub(crate) struct Record {
    pub(crate) key: FileKey,
    pub(crate) trusted: bool,
    pub(crate) data: Vec<u8>,
    pub(crate) blob: Option<Vec<u8>>,
}

/// What became of a file's record.
pub(crate) enum Fate {
    /// Still right: copied as it is.
    Kept,
    /// Replaced by a new one.
    New(Box<Record>),
    /// No record for it (it changed, cannot be read, or cannot be cached).
    Dropped,
}

/// One folder's file as loaded.
#[derive(Default)]
pub(crate) struct Folder {
    /// The file as read: as far as its index ends, or whole.
    bytes: Vec<u8>,
    whole: bool,
    /// Where the blobs begin, in the file.
    after: usize,
    path: PathBuf,
    /// The records by file name.
    pub(crate) slots: HashMap<Vec<u8>, Slot>,
    /// The folder itself, open, for stats by name.
    #[cfg(unix)]
    dir: Option<File>,
}

#[cfg(test)]
impl Folder {
    /// Whether the folder itself was opened (for stats by name).
    pub(crate) fn opened(&self) -> bool {
        #[cfg(unix)]
        return self.dir.is_some();
        #[cfg(not(unix))]
        false
    }
}

impl Folder {
    /// A record's data (its index's checksum held).
    pub(crate) fn data(&self, slot: &Slot) -> &[u8] {
        &self.bytes[slot.data.clone()]
    }

    /// A record's blob, when it is whole (another run may have replaced a file not read whole
    /// since: then the hash tells).
    pub(crate) fn blob(&self, slot: &Slot) -> Option<Cow<'_, [u8]>> {
        let b = slot.blob?;
        if self.whole {
            return b.within(self.bytes.get(self.after..)?).map(Cow::Borrowed);
        }
        let at = (self.after as u64).checked_add(b.at)?;
        let bytes = read_at(&open_cache_file(&self.path).ok()?, at, b.len)?;
        b.holds(&bytes).then_some(Cow::Owned(bytes))
    }

    /// All the blobs, for writing the folder's file again.
    fn blobs(&self) -> Cow<'_, [u8]> {
        if self.whole {
            return Cow::Borrowed(self.bytes.get(self.after..).unwrap_or_default());
        }
        let read = || {
            let file = open_cache_file(&self.path).ok()?;
            let len = file.metadata().ok()?.len().checked_sub(self.after as u64)?;
            read_at(&file, self.after as u64, len)
        };
        Cow::Owned(read().unwrap_or_default())
    }

    /// The key and mtime of the regular file `name` of this folder (a symlink followed): by
    /// the folder's descriptor where there is one, so that 10,000 stats do not each walk the
    /// whole path.
    pub(crate) fn stat(&self, path: &Path, name: &[u8]) -> Option<(FileKey, Option<Duration>)> {
        #[cfg(unix)]
        let dir = self.dir.as_ref();
        #[cfg(not(unix))]
        let dir = None;
        stat_in(dir, path, name)
    }

    /// The record of `name` when its key alone may vouch for the file (it was not racy when
    /// written): for a caller that has the file's key now.
    pub(crate) fn trusted(&self, name: &[u8]) -> Option<&Slot> {
        self.slots.get(name).filter(|s| s.trusted)
    }

    /// The record of `path` when it vouches for the file without reading it, and the file's
    /// mtime: a record not racy when written, whose key is the file's now (a stat, not an
    /// open). Any write to the file sets its ctime to now, which no one but root can set back,
    /// and a record is trusted only when the file's mtime was older than `RACY_NS` when it was
    /// read, so a write since shows in the key.
    pub(crate) fn vouched(&self, path: &Path, name: &[u8]) -> Option<(&Slot, Option<Duration>)> {
        let slot = self.trusted(name)?;
        let (key, modified) = self.stat(path, name)?;
        (key == slot.key).then_some((slot, modified))
    }
}

/// One cache of one run: the folders' files as loaded, and the run's one problem with them.
pub struct Cache<'a, K> {
    pub(crate) dir: &'a CacheDir,
    stamp: String,
    /// The run's start, against which files are racy.
    pub(crate) now_ns: i128,
    /// By folder (bytes: hashing a `Path` walks its components).
    pub(crate) folders: HashMap<Vec<u8>, Folder>,
    /// The first problem met (the run's one warning).
    pub problem: Option<CacheProblem>,
    /// The folder is not ours: nothing is read from it or written to it.
    pub(crate) off: bool,
    pub(crate) kind: K,
}

impl<'a, K: Kind> Cache<'a, K> {
    /// The cache of a run, before any folder is read.
    pub(crate) fn new(dir: &'a CacheDir, kind: K) -> Self {
        let mut cache = Cache {
            dir,
            stamp: stamp(),
            now_ns: now_ns(),
            folders: HashMap::new(),
            problem: None,
            off: false,
            kind,
        };
        if let Err(problem) = dir.check_family(K::FAMILY) {
            cache.problem = problem;
            cache.off = true;
        }
        cache
    }

    /// The cache of a run over `files`, their folders' files read in parallel.
    pub(crate) fn open(dir: &'a CacheDir, files: &[PathBuf], kind: K) -> Self
    where
        K: Sync,
    {
        let mut cache = Cache::new(dir, kind);
        if cache.off {
            return cache;
        }
        let folders = folders_of(files);
        let (many, whole) = (folders.len(), cache.kind.whole());
        let loaded = crate::util::parallel::map(&folders, |f, _| cache.read(f, whole, many));
        for (folder, (loaded, problem)) in folders.into_iter().zip(loaded) {
            if let Some((path, why)) = problem {
                cache.note(&path, why);
            }
            cache.folders.insert(folder.to_vec(), loaded);
        }
        cache
    }

    /// Every file of `files` read by `read` (from its record or from the file, and what
    /// becomes of the record), each result handed to `each` on the thread that made it; the
    /// results in the order of `files`, then the cache's one problem once the records are
    /// saved.
    pub(crate) fn map<T: Send>(
        self,
        files: &[PathBuf],
        read: impl Fn(&Self, &Path, Reading) -> (Result<Summary, ScanError>, Fate) + Sync,
        each: impl Fn(Result<Summary, ScanError>) -> T + Sync,
    ) -> (Vec<T>, Option<CacheProblem>)
    where
        K: Sync,
    {
        let mut done = crate::util::parallel::map_files(files, |path, reading| {
            let (result, fate) = read(&self, path, reading);
            (each(result), fate)
        });
        // Not unzipped: what was made stays where it is (see `listing::list`).
        let fates = (done.iter_mut())
            .map(|(_, fate)| std::mem::replace(fate, Fate::Dropped))
            .collect();
        let results = done.into_iter().map(|(made, _)| made).collect();
        let problem = self.save(files, fates);
        (results, problem)
    }

    /// The summary of `path` as `read` gives it, and what becomes of its record: the one
    /// `record` makes of what the read gave, when the file's key did not change while it was
    /// read (bytes that changed are not the ones read: kept for this run, not for the next).
    pub(crate) fn read_file<X>(
        &self,
        path: &Path,
        read: impl FnOnce(&OpenedFile, FileKey) -> Result<(Summary, X), ScanError>,
        record: impl FnOnce(&mut Summary, X, &File, FileKey) -> Option<Record>,
    ) -> (Result<Summary, ScanError>, Fate) {
        let read = open_file(path).and_then(|opened| {
            let key = FileKey::of(&opened.meta);
            Ok((read(&opened, key)?, opened, key))
        });
        let ((mut summary, more), opened, key) = match read {
            Ok(read) => read,
            Err(e) => return (Err(e), Fate::Dropped),
        };
        let unchanged = (opened.file.metadata()).is_ok_and(|now| FileKey::of(&now) == key);
        let fate = unchanged
            .then(|| record(&mut summary, more, &opened.file, key))
            .flatten()
            .map_or(Fate::Dropped, |r| Fate::New(Box::new(r)));
        let facts = (&opened.meta).into();
        (Ok(with_file_facts(summary, path, facts)), fate)
    }

    pub(crate) fn note(&mut self, path: &Path, why: String) {
        if self.problem.is_none() {
            self.problem = self.dir.problem(path, why);
        }
    }

    /// One folder's file, read as far as its index ends or `whole`, with a descriptor of the
    /// folder when its kind stats by name, unless it is one of more than `MAX_FOLDER_FDS`
    /// (`many`); and the problem reading it.
    fn read(&self, folder: &[u8], whole: bool, many: usize) -> (Folder, Option<CacheProblem>) {
        let mut bytes = Vec::new();
        let path = self.dir.family_file(K::FAMILY, folder);

        match read_file::<K>(&path, whole, &mut bytes) {
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
                    "cannot read the {} cache: {}; not used",
                    K::WHAT,
                    io_cause(&e)
                );
                return (Folder::default(), Some((path, why)));
            }
        }
        match decode::<K>(&bytes, &self.stamp, folder) {
            Ok(Some((slots, after))) => {
                #[cfg(unix)]
                // Not for a kind that stats nothing by name (an `openat` and a `close` each).
                let by_name = !slots.is_empty() && self.kind.stats_by_name();
                let dir = by_name.then(|| open_folder(folder, many));
                #[cfg(not(unix))]
                let _ = many;
                let folder = Folder {
                    bytes,
                    whole,
                    after,
                    path,
                    slots,
                    #[cfg(unix)]
                    dir: dir.flatten(),
                };
                (folder, None)
            }
            // Another format or stamp: rebuilt without a word, as a new pisess should.
            Ok(None) => (Folder::default(), None),
            Err(why) => {
                let why = format!("the {} cache is damaged ({why}); it is rebuilt", K::WHAT);
                (Folder::default(), Some((path, why)))
            }
        }
    }

    /// Writes the folders whose records changed: `fates` holds each listed file's, in the
    /// order of `files`. Records of files no longer listed are dropped.
    pub(crate) fn save(mut self, files: &[PathBuf], fates: Vec<Fate>) -> Option<CacheProblem> {
        // A warm run that changed nothing: every file's record kept, and no other record (each
        // kept file has its own, so equal counts leave none of a file gone). Without the two
        // lookups a file below, which were 5% of a warm listing of 10,000.
        let stored: usize = self.folders.values().map(|f| f.slots.len()).sum();
        if self.off || stored == files.len() && fates.iter().all(|f| matches!(f, Fate::Kept)) {
            // Not freed: a listing is a process's one job, and 10,000 records freed (allocated
            // on the workers) took 1.5-1.8 ms of the one thread every later step waits on.
            std::mem::forget(std::mem::take(&mut self.folders));
            return self.problem;
        }
        // First which folders changed (a record new or dropped, or of a file gone), so that a
        // warm run that changed nothing copies nothing.
        let mut changed: HashMap<&[u8], (bool, usize)> = HashMap::new();
        for (path, fate) in files.iter().zip(&fates) {
            let (folder, name) = split_name(path);
            let had = self
                .folders
                .get(folder)
                .is_some_and(|f| f.slots.contains_key(name));
            let (change, with_record) = changed.entry(folder).or_default();
            *with_record += usize::from(had);
            *change |= match fate {
                Fate::Kept => false,
                Fate::New(..) => true,
                Fate::Dropped => had,
            };
        }
        let mut out: HashMap<&[u8], Vec<(&[u8], Fate)>> = HashMap::new();
        for (path, fate) in files.iter().zip(fates) {
            let (folder, name) = split_name(path);
            let (change, with_record) = changed[folder];
            let stored = self.folders.get(folder).map_or(0, |f| f.slots.len());
            if change || stored > with_record {
                out.entry(folder).or_default().push((name, fate));
            }
        }
        if out.is_empty() {
            return self.problem;
        }
        if let Err((path, why)) = self.dir.make_family(K::FAMILY, K::WHAT) {
            self.note(&path, why);
            return self.problem;
        }
        for (folder, records) in out {
            if let Err(e) = self.write_folder(folder, self.folders.get(folder), &records) {
                let dir = self.dir.dir.clone();
                let why = format!(
                    "cannot write the {} cache: {e}; going on without it",
                    K::WHAT
                );
                self.note(&dir, why);
                break;
            }
        }
        self.problem
    }

    /// Writes a folder's file: `records` by file name, a kept one copied from `old`.
    pub(crate) fn write_folder(
        &self,
        folder: &[u8],
        old: Option<&Folder>,
        records: &[(&[u8], Fate)],
    ) -> std::io::Result<()> {
        let path = self.dir.family_file(K::FAMILY, folder);
        let parent = path.parent().expect("a cache file is in a folder");
        let any_kept = records.iter().any(|(_, f)| matches!(f, Fate::Kept));
        let old_blobs = old.filter(|_| any_kept).map(Folder::blobs);
        let mut blobs = Vec::new();
        let mut entries = Vec::with_capacity(records.len());
        for (name, fate) in records {
            let (key, trusted, data, blob) = match fate {
                Fate::Kept => {
                    let Some((old, slot)) = old.and_then(|o| Some((o, o.slots.get(*name)?))) else {
                        continue;
                    };
                    let blob = match (slot.blob, &old_blobs) {
                        (None, _) => None,
                        (Some(b), Some(all)) => match b.within(all) {
                            Some(bytes) => Some(bytes),
                            // Not in the old file after all: the file is read next time.
                            None => continue,
                        },
                        (Some(_), None) => continue,
                    };
                    (slot.key, slot.trusted, old.data(slot), blob)
                }
                Fate::New(r) => (r.key, r.trusted, &r.data[..], r.blob.as_deref()),
                Fate::Dropped => continue,
            };
            let blob = blob.map(|b| {
                let at = blobs.len() as u64;
                blobs.extend_from_slice(b);
                Blob {
                    at,
                    len: b.len() as u64,
                    hash: xxhash_rust::xxh3::xxh3_64(b),
                }
            });
            entries.push(Entry {
                name,
                key,
                trusted,
                data,
                blob,
            });
        }
        let stored = Stored {
            stamp: &self.stamp,
            folder,
            records: entries,
        };
        let index = postcard::to_stdvec(&stored).map_err(std::io::Error::other)?;
        // One the next run would not read is not written (its sessions are read whole).
        if (index.len() + blobs.len()) as u64 + 64 > MAX_FILE_BYTES {
            return Ok(());
        }
        // Made 0600 (`tempfile`), in a folder just checked to be ours.
        let mut tmp = tempfile::NamedTempFile::new_in(parent)?;
        tmp.write_all(&head(K::MAGIC, K::FORMAT, &index))?;
        tmp.write_all(&index)?;
        tmp.write_all(&blobs)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// A cache file into `bytes` (sized first: grown by doubling, the bytes were copied and
/// faulted in twice), as far as its index ends unless `whole` (a file cut short gives what it
/// has).
fn read_file<K: Kind>(path: &Path, whole: bool, bytes: &mut Vec<u8>) -> std::io::Result<()> {
    let file = open_cache_file(path)?;
    let mut len = file.metadata()?.len();
    if !whole {
        let head = (K::MAGIC.len() + 4 + 8) as u64;
        let mut index_len = [0; 8];
        len = match read_exact_at(&file, &mut index_len, head - 8) {
            // The head, the hash, then the index; a length past the file's is found out by
            // `decode`.
            Ok(()) => (head + 8)
                .saturating_add(u64::from_le_bytes(index_len))
                .min(len),
            // Shorter than its head: `decode` says it is cut short.
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => len,
            Err(e) => return Err(e),
        };
    }
    bytes.clear();
    bytes.reserve_exact(usize::try_from(len).map_err(std::io::Error::other)?);
    // Just opened: read from its start.
    file.take(len).read_to_end(bytes)?;
    Ok(())
}

/// A folder's records by file name and where its blobs begin: `None` when the file is of
/// another format, stamp or folder; an error when it is damaged.
type Decoded = Option<(HashMap<Vec<u8>, Slot>, usize)>;

fn decode<K: Kind>(bytes: &[u8], stamp: &str, folder: &[u8]) -> Result<Decoded, String> {
    let Some(index) = body(bytes, K::MAGIC, K::FORMAT)? else {
        return Ok(None);
    };
    let stored: Stored = postcard::from_bytes(index).map_err(|e| e.to_string())?;
    if stored.stamp != stamp || stored.folder != folder {
        return Ok(None);
    }
    let base = bytes.as_ptr() as usize;
    let after = index.as_ptr() as usize - base + index.len();
    let mut slots = HashMap::with_capacity(stored.records.len());
    for e in stored.records {
        // Borrowed from `bytes`: its place in them.
        let at = e.data.as_ptr() as usize - base;
        let slot = Slot {
            key: e.key,
            trusted: e.trusted,
            data: at..at + e.data.len(),
            blob: e.blob,
        };
        slots.insert(e.name.to_vec(), slot);
    }
    Ok(Some((slots, after)))
}

/// The head of a cache file before its index: its magic line, its format (u32,
/// little-endian), the index's length (u64) and xxh3 (u64).
fn head(magic: &[u8], format: u32, index: &[u8]) -> Vec<u8> {
    let mut head = magic.to_vec();
    head.extend_from_slice(&format.to_le_bytes());
    head.extend_from_slice(&(index.len() as u64).to_le_bytes());
    head.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(index).to_le_bytes());
    head
}

/// A cache file's index as its [`head`] vouches for it: `None` when the file is of another
/// format; an error when it is no such file or it is damaged.
fn body<'a>(bytes: &'a [u8], magic: &[u8], format: u32) -> Result<Option<&'a [u8]>, String> {
    let Some(rest) = bytes.strip_prefix(magic) else {
        return Err("not a pisess cache file".to_owned());
    };
    let (found, rest) = rest.split_at_checked(4).ok_or("cut short")?;
    if found != format.to_le_bytes() {
        return Ok(None);
    }
    let number = |b: &[u8]| u64::from_le_bytes(b.try_into().expect("8 bytes"));
    let (len, rest) = rest.split_at_checked(8).ok_or("cut short")?;
    let (hash, rest) = rest.split_at_checked(8).ok_or("cut short")?;
    let len = usize::try_from(number(len)).map_err(|_| "cut short")?;
    let index = rest.get(..len).ok_or("cut short")?;
    if number(hash) != xxhash_rust::xxh3::xxh3_64(index) {
        return Err("its checksum does not match".to_owned());
    }
    Ok(Some(index))
}

/// `len` bytes at `offset` ([`read_exact_at`]: the file's offset does not move); `None` for
/// more than a cache file may hold (a length from a cache file is not trusted to be small).
pub(crate) fn read_at(file: &File, offset: u64, len: u64) -> Option<Vec<u8>> {
    if len > MAX_FILE_BYTES {
        return None;
    }
    let mut buf = vec![0; usize::try_from(len).ok()?];
    read_exact_at(file, &mut buf, offset).ok()?;
    Some(buf)
}

/// Rewrites the record of `file` in its folder's file of `kind` through `edit` (its data and
/// blob in, new ones out), trusted and with every checksum recomputed as a real write computes
/// it, under `stamp` when given: the forgery of a writer of the cache, which what decides must
/// not be steered by (tests/it/trust.rs). False when there is no such record.
#[cfg(any(test, feature = "test-hooks"))]
pub(crate) fn forge<K: Kind>(
    dir: &CacheDir,
    file: &Path,
    stamp: Option<&str>,
    kind: K,
    edit: impl FnOnce(&[u8], Option<&[u8]>) -> Option<(Vec<u8>, Option<Vec<u8>>)>,
) -> bool {
    let (folder, name) = split_name(file);
    let mut cache = Cache::new(dir, kind);
    if cache.off {
        return false;
    }
    let (old, _) = cache.read(folder, true, 1);
    let Some(slot) = old.slots.get(name) else {
        return false;
    };
    let Some((data, blob)) = edit(old.data(slot), old.blob(slot).as_deref()) else {
        return false;
    };
    let mut new = Some(Box::new(Record {
        key: slot.key,
        trusted: true,
        data,
        blob,
    }));
    let records: Vec<_> = (old.slots.keys())
        .map(|n| match new.take_if(|_| n == name) {
            Some(record) => (&n[..], Fate::New(record)),
            None => (&n[..], Fate::Kept),
        })
        .collect();
    if let Some(stamp) = stamp {
        stamp.clone_into(&mut cache.stamp);
    }
    cache.write_folder(folder, Some(&old), &records).is_ok()
}

/// The stamp this build writes its caches under ([`stamp`]).
#[cfg(any(test, feature = "test-hooks"))]
pub fn this_stamp() -> String {
    stamp()
}
