//! The summary cache (`summaries/`): what `ls` needs of each session file, so a listing of
//! thousands of sessions reads only what changed.
//!
//! pi only appends to a session, so a [`Summary`] is a fold over its lines: a record's data is
//! the file's summary (without the file's own facts, which are this run's), its blob the
//! folded state and the offset the fold reached ([`Resume`]). A file whose key is what it was
//! is not read at all; a file that grew is read from that offset on, once a hash of every byte
//! before the offset shows they are the ones folded; anything else (shrunk, rewritten to the
//! same size, replaced, renamed, edited and then appended to) is read whole.

use std::fs::File;
use std::io::{self, BufRead, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_bytes::ByteBuf;

use super::container::{read_at, Cache, Fate, Folder, Kind, Record, Slot};
use super::folder::{CacheDir, SUMMARIES};
use super::key::{FileKey, RACY_NS};
use crate::summary::{self, with_file_facts, Detail, FileFacts, Fold, Summary};
use pisess_format::scan::{self, read_exact_at, Input, OpenedFile, Pass};
use pisess_format::scan::{ScanError, ScanReport};
use pisess_format::util::file::split_name;
use pisess_format::util::readahead::Reading;

/// The summary cache's files.
#[derive(Clone, Copy)]
pub struct Summaries;

impl Kind for Summaries {
    const FAMILY: &'static str = SUMMARIES;
    const WHAT: &'static str = "summary";
    const MAGIC: &'static [u8] = b"pisess summary cache\n";
    const FORMAT: u32 = 10;
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

impl<'a> Cache<'a, Summaries> {
    /// The cache with the indexes of the folders of `files`, read in parallel.
    /// The cache of a listing of `files`.
    pub fn load(dir: &'a CacheDir, files: &[PathBuf]) -> Self {
        Cache::open(dir, files, Summaries)
    }

    /// The summary of `path` when the cache vouches for it without reading the file.
    pub fn peek(&self, path: &Path) -> Option<Summary> {
        let (folder, name) = split_name(path);
        let folder = self.folders.get(folder)?;
        let (slot, modified) = folder.vouched(path, name)?;
        let summary = postcard::from_bytes(folder.data(slot)).ok()?;
        let len = slot.key.size;
        Some(with_file_facts(summary, path, FileFacts { modified, len }))
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
        let slot = folder.and_then(|f| f.slots.get(name));
        let read = |opened: &OpenedFile, key| {
            if let Some(read) = folder
                .zip(slot)
                .and_then(|(f, s)| read_on(f, s, opened, key))
            {
                let (summary, report, fold) = read?;
                return Ok((summary, (report, fold, None)));
            }
            // Read whole: its bytes are hashed as the scan reads them, for the record.
            let mut bytes = Hashing::new(scan::whole_file(opened, reading)?);
            let input = Input::Buffered(&mut bytes, &opened.stem);
            let (summary, report, fold) =
                summary::fold(Pass::new(), input, None, Detail::Listing, |_, _| {})?;
            let hash = bytes.hash_of(report.tail.end);
            Ok((summary, (report, fold, hash)))
        };
        self.read_file(path, read, |summary, (report, fold, hash), file, key| {
            self.record(file, key, summary, report, fold, hash)
        })
    }

    /// The record to keep for a file just read: trusted when it was not racy, so that a racy
    /// one is checked by its bytes next time, and read on when it grew.
    fn record(
        &self,
        file: &File,
        key: FileKey,
        summary: &Summary,
        report: ScanReport,
        mut fold: Fold,
        hash: Option<u64>,
    ) -> Option<Record> {
        let resume = report.resumable().then(|| {
            let resume = Resume {
                prefix_hash: hash.or_else(|| prefix_hash(file, report.tail.end))?,
                had_first_message: fold.take_first_message(),
                fold,
                report: report.with_header(|h| ByteBuf::from(h.stored)),
            };
            postcard::to_stdvec(&resume).ok()
        });
        Some(Record {
            key,
            trusted: key.mtime_ns < self.now_ns - RACY_NS,
            data: postcard::to_stdvec(summary).ok()?,
            blob: resume.flatten(),
        })
    }
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

/// A reader that hashes what is consumed of it, as [`prefix_hash`] would hash the same bytes:
/// the scan of a file read whole hashes its bytes as it goes, where reading the file a second
/// time for its record cost a first run a second copy of every byte, a hash pass over it, and
/// a zeroed buffer per file (a fifth of `ls`'s instructions on an empty cache).
struct Hashing<R> {
    inner: R,
    hasher: xxhash_rust::xxh3::Xxh3,
    /// The bytes hashed; `None` once a consumed piece could not be seen (never expected).
    len: Option<u64>,
}

impl<R: BufRead> Hashing<R> {
    fn new(inner: R) -> Self {
        Hashing {
            inner,
            hasher: xxhash_rust::xxh3::Xxh3::new(),
            len: Some(0),
        }
    }

    /// The hash of the bytes `[0, end)`, when they are exactly what was consumed.
    fn hash_of(&self, end: u64) -> Option<u64> {
        (self.len == Some(end)).then(|| self.hasher.digest())
    }
}

impl<R: BufRead> Read for Hashing<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let buf = self.inner.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Hashing<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        // What is consumed was handed out by `fill_buf` and is still buffered: no read here.
        self.len = match self.inner.fill_buf() {
            Ok(buf) if buf.len() >= n => {
                self.hasher.update(&buf[..n]);
                self.len.map(|len| len + n as u64)
            }
            _ => None,
        };
        self.inner.consume(n);
    }
}

/// A file that grew read on from where its fold ended, when it is the same file with the same
/// bytes up to there; `None` to read it whole.
fn read_on(
    folder: &Folder,
    slot: &Slot,
    opened: &OpenedFile,
    key: FileKey,
) -> Option<Result<(Summary, ScanReport, Fold), ScanError>> {
    if slot.key.id != key.id {
        return None;
    }
    let resume: Resume = postcard::from_bytes(&folder.blob(slot)?).ok()?;
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
    if resume.had_first_message {
        let summary: Summary = postcard::from_bytes(folder.data(slot)).ok()?;
        fold.restore_first_message(true, &summary);
    }
    // A clone shares the offset, but nothing reads the file after this.
    let mut file = file.try_clone().ok()?;
    file.seek(SeekFrom::Start(end)).ok()?;
    let resumed = Some((report, fold));
    Some(summary::fold(
        Pass::new(),
        Input::Stream(&mut file, &opened.stem),
        resumed,
        Detail::Listing,
        |_, _| {},
    ))
}

fn restore(saved: ScanReport<ByteBuf>, stem: &str) -> Option<ScanReport> {
    let header = scan::header_of_stored(&saved.header, stem)?;
    Some(saved.with_header(|_| header))
}

/// Rewrites the summary cache's record of `file` through `edit`, trusted: the forgery by a
/// writer of the cache that `rm`, `check` and `grep` must not be steered by
/// (tests/it/trust.rs), written under `stamp` when given: what a build of other code (another
/// [`this_stamp`](super::this_stamp)) would have written. False when the cache holds no record
/// of `file`.
#[cfg(any(test, feature = "test-hooks"))]
pub fn forge(
    dir: &CacheDir,
    file: &Path,
    stamp: Option<&str>,
    edit: impl FnOnce(&mut Summary),
) -> bool {
    super::container::forge(dir, file, stamp, Summaries, |data, blob| {
        let mut summary = postcard::from_bytes(data).ok()?;
        edit(&mut summary);
        Some((
            postcard::to_stdvec(&summary).ok()?,
            blob.map(<[u8]>::to_vec),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pisess_format::scan::open_file;
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
        let (_, fate) = cache.summarize(path, Reading::AheadIfBig);
        assert!(cache.save(&files, vec![fate]).is_none());
    }

    fn read_on_now(dir: &CacheDir, path: &Path) -> Option<Summary> {
        let cache = Cache::load(dir, &[path.to_path_buf()]);
        let (folder, name) = split_name(path);
        let folder = cache.folders.get(folder)?;
        let slot = folder.slots.get(name)?;
        let opened = open_file(path).unwrap();
        let key = FileKey::of(&opened.meta);
        let (summary, ..) = read_on(folder, slot, &opened, key)?.unwrap();
        Some(summary)
    }

    /// The hash taken as the scan reads a file is the one read back from the file: across the
    /// reader's buffers, lines longer than a buffer, blank lines, a bad line and a torn tail,
    /// on this thread and read ahead.
    #[test]
    fn the_hash_taken_while_scanning_is_the_prefix_hash() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("s.jsonl");
        let mut text = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.to_owned() + "\n";
        for n in 0..400 {
            text += &line(n, &"x".repeat(100 + n as usize * 997 % 5000));
            if n % 50 == 0 {
                text += "\n  \nnot json\n";
            }
        }
        text += &line(400, &"y".repeat(8_500_000));
        text += r#"{"type":"message","id":"t"#;
        fs::write(&path, &text).unwrap();
        for reading in [Reading::OnThisThread, Reading::AheadIfBig] {
            let opened = open_file(&path).unwrap();
            let mut bytes = Hashing::new(scan::whole_file(&opened, reading).unwrap());
            let input = Input::Buffered(&mut bytes, &opened.stem);
            let (_, report, _) =
                summary::fold(Pass::new(), input, None, Detail::Listing, |_, _| {}).unwrap();
            assert_eq!(report.tail.end, text.len() as u64);
            let hash = bytes.hash_of(report.tail.end);
            assert!(hash.is_some());
            assert_eq!(hash, prefix_hash(&opened.file, report.tail.end));
        }
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
        let whole = crate::summary::summarize(&path, Default::default()).unwrap();
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
            warnings: Vec<pisess_format::util::warning::Warning>,
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
