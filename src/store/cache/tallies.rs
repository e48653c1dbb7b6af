//! The tally cache (`tallies/`): what `stats` learns of each session file ([`Tally`] and the
//! [`Summary`] it came with), so a report over thousands of sessions reads only the files that
//! changed.
//!
//! A family of its own beside the summary cache, so a warm `ls` never decodes what only
//! `stats` needs; the same container ([`Cache`]) and rules. A file is recorded only when it
//! was not racy when read, and a file that changed is read whole (a tally is not resumed).
//!
//! What is kept is what the fold gave, not a report: every row with its own time, model and
//! usage, so any `--by`, `--tz`, `--since`/`--until` is computed from it as from a full read.
//! A record's data holds what a report over many sessions groups; its blob ([`More`]) what
//! only `--by session` and `--by message` show (first messages, entry ids, tools, files, ...),
//! not read by the other reports.
//!
//! Like the summary cache it only steers a display: whoever can write it can make `stats` show
//! any figures for a file whose key it knows, and nothing that decides (`check --max-cost`)
//! reads it (docs/guide.md, "Threat model").

use std::path::{Path, PathBuf};

use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

use super::container::{Cache, Fate, Folder, Kind, Record};
use super::folder::CacheDir;
use super::key::{FileKey, RACY_NS};
use crate::format::scan::{open_file, whole_file, ScanError};
use crate::store::summary::{fold_from, with_file_facts, Detail, FileFacts, Summary};
use crate::store::tally::{Files, Stops, Tally, ToolCount};
use crate::util::file::split_name;
use crate::util::parallel;
use crate::util::readahead::Reading;

/// The tally cache's files, and how much of each record a report decodes.
#[derive(Clone, Copy)]
pub(crate) struct Tallies {
    want: Want,
}

impl Kind for Tallies {
    const FAMILY: &'static str = "tallies";
    const WHAT: &'static str = "tally";
    const MAGIC: &'static [u8] = b"pisess tally cache\n";
    const FORMAT: u32 = 5;
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

/// Every file of `files` summarized with its tally ([`Detail::Stats`]), each handed to `each`
/// on the thread that made it: from its record when the record's key is the file's now, else
/// read whole. The results are in the order of `files`; then the cache's one problem. Unless
/// [`Want::Whole`], a tally taken from the cache holds its rows (without
/// [`Row::id`](crate::store::tally::Row::id)) and models only, what
/// [`Grouper`](crate::views::stats::Grouper) groups: a report by day, model, ... needs no more
/// (a file read gives the whole tally all the same); and with [`Want::Rows`] the summary's
/// first message is empty.
///
/// A folder's records are decoded by the thread that read its cache file, into that thread's
/// one buffer, which the next folder reuses: every cache file read into fresh memory first,
/// and decoded after, spent a sixth of a warm report zeroing pages, and waited for the slowest
/// folder before any decoding began. The files no record vouches for are read afterwards, each
/// by the next free thread.
pub(crate) fn map<T: Send>(
    dir: &CacheDir,
    files: &[PathBuf],
    want: Want,
    each: impl Fn(Result<Summary, ScanError>) -> T + Sync,
) -> (Vec<T>, Option<crate::store::cache::CacheProblem>) {
    let mut cache = Cache::new(dir, Tallies { want });
    let tasks = if cache.off { Vec::new() } else { tasks(files) };
    // Parallel from two tasks: one project's folder is cut in as many.
    let done = parallel::map_from(2, &tasks, |task, _| cache.decode_task(files, task, &each));
    let mut results: Vec<Option<T>> = std::iter::repeat_with(|| None).take(files.len()).collect();
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

impl Cache<'_, Tallies> {
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
            let whole = self.kind.want != Want::Rows;
            let (folder, problem) = self.read(task.folder, whole, std::mem::take(bytes), 1);
            done.problem = problem;
            for &at in &task.files {
                match self.vouched(&folder, &files[at]) {
                    Some(summary) => done.made.push((at, each(Ok(summary)))),
                    None => done.pending.push(at),
                }
            }
            // Also when the folder's file holds a record of a file no longer listed.
            let stale = task.first && folder.slots.len() != task.in_folder;
            if !folder.slots.is_empty() && (stale || !done.pending.is_empty()) {
                done.old = Some(folder.closed());
            } else {
                *bytes = folder.into_bytes();
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
        let read = whole_file(&opened, reading)
            .and_then(|input| fold_from(input, &opened.stem, None, Detail::Stats, |_, _| {}));
        let mut summary = match read {
            Ok((summary, ..)) => summary,
            Err(e) => return (Err(e), Fate::Dropped),
        };
        // Bytes that changed while they were read, or may still change unseen within the
        // mtime's granularity, are not recorded.
        let unchanged = (opened.file.metadata()).is_ok_and(|now| FileKey::of(&now) == key);
        let settled = key.mtime_ns < self.now_ns - RACY_NS;
        let fate = match (unchanged && settled && !self.off)
            .then(|| encode(&mut summary))
            .flatten()
        {
            Some(new) => Fate::New(Box::new(Record {
                key,
                trusted: true,
                data: new.data,
                blob: Some(new.more),
            })),
            None => Fate::Dropped,
        };
        let facts = (&opened.meta).into();
        (Ok(with_file_facts(summary, path, facts)), fate)
    }

    /// The summary of `path` from its record in `folder`, when the record vouches for it.
    fn vouched(&self, folder: &Folder, path: &Path) -> Option<Summary> {
        let name = split_name(path).1;
        let (slot, modified) = folder.vouched(path, name)?;
        // The index's checksum held, so data that does not decode is a forgery or another
        // build's: the file is read instead.
        let Cached { mut summary, tally } = postcard::from_bytes(folder.data(slot)).ok()?;
        let tally = if self.kind.want == Want::Rows {
            tally
        } else {
            let blob = folder.blob(slot)?;
            let more: More = postcard::from_bytes(&blob).ok()?;
            summary.first_message = std::sync::Arc::from(more.first_message);
            with_rest(tally, more.rest, self.kind.want == Want::Whole)?
        };
        let len = slot.key.size;
        let mut summary = with_file_facts(summary, path, FileFacts { modified, len });
        summary.tally = Some(Box::new(tally));
        Some(summary)
    }
}

/// A task of [`map`]: files of one folder, by their place in the listing.
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
    problem: Option<crate::store::cache::CacheProblem>,
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

/// Rewrites the tally cache's record of `file` through `edit`, with every checksum recomputed
/// as a real write computes it: the forgery of a writer of the cache, which `stats` may show
/// but `check` must not be steered by (tests/it/trust.rs). False when the cache holds no
/// record of `file`.
#[cfg(any(test, feature = "test-hooks"))]
pub fn forge(dir: &CacheDir, file: &Path, edit: impl FnOnce(&mut Summary, &mut Tally)) -> bool {
    forge_stamped(dir, file, None, edit)
}

/// [`forge`], the folder's file written under `stamp` when given: what a build of other code
/// would have written.
#[cfg(any(test, feature = "test-hooks"))]
pub fn forge_stamped(
    dir: &CacheDir,
    file: &Path,
    stamp: Option<&str>,
    edit: impl FnOnce(&mut Summary, &mut Tally),
) -> bool {
    let kind = Tallies { want: Want::Whole };
    super::container::forge(dir, file, stamp, kind, |data, blob| {
        let Cached { mut summary, tally } = postcard::from_bytes(data).ok()?;
        let more: More = postcard::from_bytes(blob?).ok()?;
        summary.first_message = std::sync::Arc::from(more.first_message);
        let mut tally = with_rest(tally, more.rest, true)?;
        edit(&mut summary, &mut tally);
        summary.tally = Some(Box::new(tally));
        let new = encode(&mut summary)?;
        Some((new.data, Some(new.more)))
    })
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
