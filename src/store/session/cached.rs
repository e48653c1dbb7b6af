//! The index of a big session file kept between runs, beside the summary cache: `tree`, `show`
//! and `context` of a file of hundreds of MB then read only the lines they decode, not the
//! whole file again to find where its entries are.
//!
//! What is kept is the index as the scan leaves it, before ids are checked and parents resolved
//! ([`Unlinked`]): linking it again gives the same warnings and the same tree. It serves only
//! the very file it was made of, unchanged since: the same device, inode, size, mtime and
//! ctime, modified long enough before it was made that a change would show in them
//! ([`FileKey::settled`]), the same path and stem (v1 and seed-000 ids come from them), the
//! same header line, pisess and time zone. A file that changed in any way is indexed again and
//! its cache file replaced: unlike a summary, an index is not read on from where it ended. A
//! missing or foreign cache file is passed over, a damaged or unreadable one with at most one
//! warning a run (the summary cache's rule), so the cache is a pure accelerator.
//!
//! One file per session file (`<cache dir>/index/<hash of its path>.bin`), written to a
//! temporary file renamed into place, so concurrent runs each see a whole one.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{
    Bulk, Classes, EntryMeta, Extra, IdCell, Identity, Session, Source, Unlinked, LONG_ID,
    NO_ENTRY, PREVIOUS,
};
use crate::format::model::EntryKind;
use crate::format::scan::{header_of_stored, read_exact_at, OpenedFile};
use crate::store::cache::{body, head, open_cache_file, stamp, CacheDir, CacheProblem, FileKey};
use crate::util::warning::Warning;

/// Indexes of more entries are not kept: decoding one would hold the cache file and the
/// index at once (a million entries take about 60 MB each way), and such a file's scan is
/// per entry anyway.
const MAX_ENTRIES: usize = 1 << 18;

/// The largest cache file written or read: an index of [`MAX_ENTRIES`] entries is far smaller
/// unless its ids are huge (then it is not kept).
const MAX_FILE_BYTES: u64 = 1 << 30;

/// The start of every index cache file; then its `crate::store::cache::head` and its index, a
/// postcard-encoded [`Stored`].
const MAGIC: &[u8] = b"pisess index cache\n";

/// Bumped whenever what is stored, or how the index is made, changes.
const FORMAT: u32 = 1;

/// One session file's index.
#[derive(Serialize, Deserialize)]
struct Stored {
    /// pisess's version and the time zone (entries' times are parsed in it).
    stamp: String,
    /// The file's canonical path, in case two hash alike, and its stem.
    #[serde(with = "serde_bytes")]
    path: Vec<u8>,
    stem: String,
    key: FileKey,
    /// The header's stored line, compared with the file's before anything is used.
    #[serde(with = "serde_bytes")]
    header: Vec<u8>,
    header_line: u64,
    header_offset: u64,
    header_len: u64,
    entries: Vec<EntryMeta>,
    long_ids: Vec<Box<str>>,
    classes: Vec<(EntryKind, Option<Box<str>>)>,
    extras: Vec<Extra>,
    bulks: Vec<Bulk>,
    pending: Vec<(u32, IdCell)>,
    warnings: Vec<Warning>,
    malformed: u64,
    torn_tail: bool,
    torn_line: Option<u64>,
}

/// Where a session file's index is kept: found once a run, for the load and the save.
pub(super) struct Place {
    file: PathBuf,
    /// The session file's canonical path, which the cache file is named by.
    canonical: Vec<u8>,
}

/// Where `path`'s index is kept in `cache`.
pub(super) fn place(cache: &CacheDir, path: &Path) -> Option<Place> {
    let canonical = fs::canonicalize(path).ok()?;
    let canonical = canonical.into_os_string().into_encoded_bytes();
    let hash = xxhash_rust::xxh3::xxh3_64(&canonical);
    let file = cache.dir.join("index").join(format!("{hash:016x}.bin"));
    Some(Place { file, canonical })
}

/// The cached index of `opened` (the file at `path`), when there is one that holds for it;
/// `Err` says why a cache file that exists could not be used.
pub(super) fn load(
    place: &Place,
    path: &Path,
    opened: &OpenedFile,
) -> Result<Option<Unlinked>, CacheProblem> {
    let file = place.file.clone();
    let mut bytes = Vec::new();
    let read = open_cache_file(&file).and_then(|mut f| {
        if f.metadata()?.len() > MAX_FILE_BYTES {
            return Err(std::io::Error::other("it is larger than any index kept"));
        }
        f.read_to_end(&mut bytes)
    });
    match read {
        Ok(_) => {}
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None)
        }
        Err(e) => {
            let why = format!(
                "cannot read the index cache: {}; not used",
                crate::util::warning::io_cause(&e)
            );
            return Err((file, why));
        }
    }
    let stored = match decode(&bytes) {
        Ok(Some(stored)) => stored,
        Ok(None) => return Ok(None),
        Err(why) => {
            return Err((
                file,
                format!("the index cache is damaged ({why}); it is rebuilt"),
            ));
        }
    };
    let holds = stored.stamp == stamp()
        && stored.path == place.canonical
        && stored.stem == opened.stem
        && stored.key == FileKey::of(&opened.meta);
    if holds && !holds_together(&stored, opened.meta.len()) {
        let why = "the index cache is damaged (its entries do not fit its file); it is rebuilt";
        return Err((file, why.to_owned()));
    }
    Ok(holds.then(|| unlinked(stored, path, opened)).flatten())
}

/// Whether a stored index is one the scan could have made of a file of `len` bytes, as far as
/// the accessors rely on it: positions, classes, ids, spans and the header within bounds, and
/// the side tables in entry order. The checksum stops a damaged file; this stops the rest
/// from making an accessor panic.
fn holds_together(stored: &Stored, len: u64) -> bool {
    let n = stored.entries.len();
    let id_fits = |tag: u8, bytes: &[u8; 8]| match tag {
        LONG_ID => {
            usize::try_from(u64::from_le_bytes(*bytes)).is_ok_and(|at| at < stored.long_ids.len())
        }
        tag => tag < LONG_ID,
    };
    let entries_fit = stored.entries.iter().enumerate().all(|(i, e)| {
        (e.class as usize) < stored.classes.len()
            && id_fits(e.id_tag, &e.id)
            && (e.parent_at == NO_ENTRY || (e.parent_at == PREVIOUS && i > 0))
            && e.offset
                .checked_add(u64::from(e.len))
                .is_some_and(|end| end <= len)
    });
    let bulks_fit = stored.bulks.iter().all(|b| {
        let line = stored.entries.get(b.entry as usize).map_or(0, |e| e.len);
        b.at.checked_add(b.len).is_some_and(|end| end <= line)
    });
    entries_fit
        && bulks_fit
        && stored
            .pending
            .iter()
            .all(|(_, cell)| id_fits(cell.tag, &cell.bytes))
        && in_order(stored.extras.iter().map(|x| x.entry), n)
        && in_order(stored.bulks.iter().map(|b| b.entry), n)
        && in_order(stored.pending.iter().map(|&(e, _)| e), n)
        && stored
            .header_offset
            .checked_add(stored.header_len)
            .is_some_and(|end| end <= len)
}

/// A cache file's index: `None` when it is of another format; an error when it is damaged.
fn decode(bytes: &[u8]) -> Result<Option<Stored>, String> {
    let Some((index, after)) = body(bytes, MAGIC, FORMAT)? else {
        return Ok(None);
    };
    if !after.is_empty() {
        return Err("it goes on past its index".to_owned());
    }
    postcard::from_bytes(index)
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Whether positions rise, each below `n`.
fn in_order(mut entries: impl Iterator<Item = u32>, n: usize) -> bool {
    let mut last = None;
    entries.all(|e| (e as usize) < n && last.replace(e).is_none_or(|l| l < e))
}

/// The session a stored index stands for, once the file's header line is the one it was
/// made with.
fn unlinked(stored: Stored, path: &Path, opened: &OpenedFile) -> Option<Unlinked> {
    let mut header = vec![0; usize::try_from(stored.header_len).ok()?];
    read_exact_at(&opened.file, &mut header, stored.header_offset).ok()?;
    if header != stored.header {
        return None;
    }
    let header = header_of_stored(&header, &opened.stem)?;
    let session = Session {
        name: path.display().to_string(),
        source: Source::File(path.to_path_buf()),
        file: None,
        identity: Some(Identity::of(&opened.meta)),
        header,
        header_line: stored.header_line,
        header_offset: stored.header_offset,
        header_len: stored.header_len,
        entries: stored.entries,
        long_ids: stored.long_ids,
        classes: Classes::of(stored.classes),
        extras: stored.extras,
        bulks: stored.bulks,
        missing_parents: Vec::new(),
        by_id: Default::default(),
        warnings: stored.warnings,
        malformed: stored.malformed,
        torn_tail: stored.torn_tail,
        torn_line: stored.torn_line,
    };
    Some(Unlinked {
        session,
        pending: stored.pending,
    })
}

/// Keeps the index of `opened` (at `path`, whose key was `key` when it was opened), when it
/// is worth keeping and the file was settled and unchanged while it was read.
pub(super) fn save(
    place: &Place,
    opened: &OpenedFile,
    key: FileKey,
    index: &mut Unlinked,
) -> Result<(), CacheProblem> {
    let unchanged = opened
        .file
        .metadata()
        .is_ok_and(|now| FileKey::of(&now) == key);
    if index.session.entries.len() > MAX_ENTRIES || !key.settled() || !unchanged {
        return Ok(());
    }
    let encoded = encode(index, place.canonical.clone(), &opened.stem, key);
    let Some(bytes) = encoded.filter(|b| b.len() as u64 <= MAX_FILE_BYTES) else {
        return Ok(());
    };
    write(&place.file, &bytes).map_err(|e| {
        let why = format!(
            "cannot write the index cache: {}; going on without it",
            crate::util::warning::io_cause(&e)
        );
        (place.file.clone(), why)
    })
}

/// The cache file's bytes for `index`, whose parts are lent to [`Stored`] and given back.
fn encode(index: &mut Unlinked, path: Vec<u8>, stem: &str, key: FileKey) -> Option<Vec<u8>> {
    let s = &mut index.session;
    let stored = Stored {
        stamp: stamp(),
        path,
        stem: stem.to_owned(),
        key,
        header: s.header.stored.clone(),
        header_line: s.header_line,
        header_offset: s.header_offset,
        header_len: s.header_len,
        entries: std::mem::take(&mut s.entries),
        long_ids: std::mem::take(&mut s.long_ids),
        classes: std::mem::take(&mut s.classes.list),
        extras: std::mem::take(&mut s.extras),
        bulks: std::mem::take(&mut s.bulks),
        pending: std::mem::take(&mut index.pending),
        warnings: std::mem::take(&mut s.warnings),
        malformed: s.malformed,
        torn_tail: s.torn_tail,
        torn_line: s.torn_line,
    };
    let encoded = postcard::to_stdvec(&stored);
    s.entries = stored.entries;
    s.long_ids = stored.long_ids;
    s.classes.list = stored.classes;
    s.extras = stored.extras;
    s.bulks = stored.bulks;
    index.pending = stored.pending;
    s.warnings = stored.warnings;
    let encoded = encoded.ok()?;
    Some([head(MAGIC, FORMAT, &encoded), encoded].concat())
}

fn write(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = file.parent().expect("a cache file is in a folder");
    fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::model::Skimming;

    /// Everything the index holds of a session, as its accessors give it.
    fn facts(s: &Session) -> String {
        let mut out = format!(
            "{:?} {} {} {} {:?} {} {:?} {:?}\n",
            s.header.stored,
            s.header_line,
            s.header_offset,
            s.header_len,
            s.warnings,
            s.malformed,
            s.torn_tail,
            s.torn_line
        );
        for i in 0..s.entries.len() {
            let e = &s.entries[i];
            out += &format!(
                "{} {} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {} {:?}\n",
                e.line,
                e.offset,
                e.stored_len(),
                e.timestamp_ms(),
                s.id(i),
                s.parent_id(i),
                s.parent_of(i),
                s.kind(i),
                s.role(i),
                s.target(i),
                s.label(i),
                e.content(),
                String::from_utf8_lossy(&s.line_without_content(i).unwrap()),
            );
        }
        out + &format!("{:?} {:?}", s.leaf(), s.find("b"))
    }

    /// The file's mtime put an hour back, as a session pi finished with has it.
    fn settle(path: &Path) {
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        let f = std::fs::File::options().write(true).open(path).unwrap();
        f.set_modified(old).unwrap();
    }

    fn open(path: &Path, cache: &CacheDir) -> (Session, bool) {
        let (session, opened) =
            Session::open_cached(path, Skimming::Plain, &mut |_, _| {}, Some(cache)).unwrap();
        assert!(opened.cache_problem.is_none(), "{:?}", opened.cache_problem);
        (session, opened.observed)
    }

    /// A settled file's index comes from the cache the second time, the same as a scan's; a
    /// file that changed since is scanned again.
    #[test]
    fn a_cached_index_is_the_scanned_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("2026-01-01T00-00-00-000Z_s.jsonl");
        let long = "out\\n".repeat(1000);
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.to_owned(),
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#.to_owned(),
            "not json".to_owned(),
            format!(r#"{{"type":"message","id":"b","parentId":"a","message":{{"role":"toolResult","toolName":"bash","content":"{long}"}}}}"#),
            format!(r#"{{"type":"message","id":"a-much-longer-id-than-eight","parentId":"gone","message":{{"role":"toolResult","content":[{{"type":"text","text":"{long}"}}],"details":"{}"}}}}"#, "d".repeat(600)),
            r#"{"type":"label","id":"c","parentId":"b","targetId":"a","label":"x"}"#.to_owned(),
            r#"{"type":"custom","id":"b","parentId":"c","customType":"dup"}"#.to_owned(),
            r#"{"type":"unheard_of","parentId":"b"}"#.to_owned(),
        ];
        let text = lines.join("\r\n") + "\n{\"type\":\"mess";
        std::fs::write(&path, &text).unwrap();
        let settle = || settle(&path);
        settle();
        let mut cache = CacheDir::new(dir.path().join("cache"));
        cache.index_min_bytes = 0;
        let scanned = Session::open(&path).unwrap();
        let (first, observed) = open(&path, &cache);
        assert!(observed, "no cache yet");
        let (second, observed) = open(&path, &cache);
        assert!(!observed, "the second index is the cache's");
        assert_eq!(facts(&first), facts(&scanned));
        assert_eq!(facts(&second), facts(&scanned));
        assert!(second
            .warnings
            .iter()
            .any(|w| w.message.contains("duplicate")));
        // Appended to: scanned again, and cached again once settled.
        std::fs::write(&path, format!("{text}age\":1}}\n")).unwrap();
        let (grown, observed) = open(&path, &cache);
        assert!(observed, "a changed file is scanned");
        assert_eq!(facts(&grown), facts(&Session::open(&path).unwrap()));
        let (_, observed) = open(&path, &cache);
        assert!(observed, "a file modified just now is not cached");
        settle();
        open(&path, &cache);
        let (again, observed) = open(&path, &cache);
        assert!(!observed);
        assert_eq!(facts(&again), facts(&Session::open(&path).unwrap()));
        // Below the size that is worth it, nothing is kept.
        cache.index_min_bytes = 1 << 30;
        let (_, observed) = open(&path, &cache);
        assert!(observed);
    }

    /// A cache file whose checksum holds but whose index could not be a scan's (hand-made, or
    /// written by a broken pisess) is one warning and a scan, never a panic.
    #[test]
    fn an_index_that_does_not_fit_its_file_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"message","id":"b","parentId":"a","message":{"role":"user","content":"ho"}}"#,
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        settle(&path);
        // A run's cache: each warns once.
        let run = || {
            let mut cache = CacheDir::new(dir.path().join("cache"));
            cache.index_min_bytes = 0;
            cache
        };
        let want = facts(&Session::open(&path).unwrap());
        open(&path, &run());
        let file = place(&run(), &path).unwrap().file;
        let breaks: [fn(&mut Stored); 5] = [
            |s| s.entries[1].class = 7,
            |s| s.entries[0].parent_at = PREVIOUS,
            |s| s.entries[1].id_tag = 200,
            |s| s.entries[1].offset = u64::MAX - 3,
            |s| s.header_len = 1 << 40,
        ];
        for (k, broken) in breaks.iter().enumerate() {
            let bytes = std::fs::read(&file).unwrap();
            let mut stored = decode(&bytes).unwrap().unwrap();
            broken(&mut stored);
            let body = postcard::to_stdvec(&stored).unwrap();
            std::fs::write(&file, [head(MAGIC, FORMAT, &body), body].concat()).unwrap();
            let (session, opened) =
                Session::open_cached(&path, Skimming::Plain, &mut |_, _| {}, Some(&run())).unwrap();
            let (_, why) = opened.cache_problem.expect("a warning");
            assert!(why.contains("do not fit"), "{k}: {why}");
            assert!(opened.observed, "{k}: scanned");
            assert_eq!(facts(&session), want, "{k}");
            // The scan wrote the cache again: whole, and used next time.
            assert!(!open(&path, &run()).1, "{k}: rebuilt");
        }
    }
}
