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

use serde::{Deserialize, Serialize};

use super::container::{Cache, Fate, Kind, Record};
use super::folder::CacheDir;
use super::key::RACY_NS;
use crate::summary::{self, with_file_facts, Detail, FileFacts, Summary};
use crate::tally::{Files, Name, Stops, Tally, ToolCount};
use pisess_format::scan::{Input, OpenedFile, Pass, ScanError};
use pisess_format::util::file::split_name;
use pisess_format::util::readahead::Reading;

/// The tally cache's files, and how much of each record a report decodes.
#[derive(Clone, Copy)]
pub(crate) struct Tallies {
    want: Want,
}

impl Kind for Tallies {
    const FAMILY: &'static str = "tallies";
    const WHAT: &'static str = "tally";
    const MAGIC: &'static [u8] = b"pisess tally cache\n";
    const FORMAT: u32 = 6;

    fn whole(&self) -> bool {
        self.want != Want::Rows
    }
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
    /// [`Want::Rows`] and each row's id and stop reason (the fact stream's rows): not the
    /// tools, files and failed commands, which were half of the decoding and most of its
    /// allocations.
    Facts,
    /// Everything.
    Whole,
}

/// The fields of a [`Tally`] (and its rows) that serde skips.
#[derive(Serialize, Deserialize)]
struct Rest {
    ids: Vec<Option<String>>,
    stop_reasons: Vec<Option<Name>>,
    tools: std::collections::BTreeMap<Name, ToolCount>,
    failed_commands: Vec<String>,
    stops: Stops,
    compactions: u64,
    tokens_before: f64,
    branch_summaries: u64,
    files: Files,
}

/// The start of a [`Rest`]: what [`Want::Facts`] decodes of it.
#[derive(Deserialize)]
struct RestRows {
    ids: Vec<Option<String>>,
    stop_reasons: Vec<Option<Name>>,
}

/// [`Rest`] as written.
#[derive(Serialize)]
struct RestRef<'a> {
    ids: Vec<&'a Option<String>>,
    stop_reasons: Vec<&'a Option<Name>>,
    tools: &'a std::collections::BTreeMap<Name, ToolCount>,
    failed_commands: &'a [String],
    stops: &'a Stops,
    compactions: u64,
    tokens_before: f64,
    branch_summaries: u64,
    files: &'a Files,
}

impl<'a> RestRef<'a> {
    fn of(t: &'a Tally) -> Self {
        RestRef {
            ids: t.rows.iter().map(|r| &r.id).collect(),
            stop_reasons: t.rows.iter().map(|r| &r.stop_reason).collect(),
            tools: &t.tools,
            failed_commands: &t.failed_commands,
            stops: &t.stops,
            compactions: t.compactions,
            tokens_before: t.tokens_before,
            branch_summaries: t.branch_summaries,
            files: &t.files,
        }
    }
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
    let rest = postcard::to_stdvec(&RestRef::of(t)).ok()?;
    let more = postcard::to_stdvec(&More {
        first_message,
        rest: &rest,
    })
    .ok()?;
    let data = postcard::to_stdvec(&CachedRef { summary, tally: t }).ok()?;
    Some(NewRecord { data, more })
}

/// `tally` made whole again from `rest` as far as `want` wants it.
fn with_rest(mut tally: Tally, rest: &[u8], want: Want) -> Option<Tally> {
    if !matches!(want, Want::Facts | Want::Whole) {
        return Some(tally);
    }
    let n = tally.rows.len();
    let with_rows = |tally: &mut Tally, ids: Vec<_>, stops: Vec<_>| {
        if ids.len() != n || stops.len() != n {
            return None;
        }
        for ((r, id), stop) in tally.rows.iter_mut().zip(ids).zip(stops) {
            r.id = id;
            r.stop_reason = stop;
        }
        Some(())
    };
    if want == Want::Facts {
        // Postcard writes a struct's fields in order: the rows' are first.
        let (rows, _): (RestRows, _) = postcard::take_from_bytes(rest).ok()?;
        with_rows(&mut tally, rows.ids, rows.stop_reasons)?;
        return Some(tally);
    }
    let rest: Rest = postcard::from_bytes(rest).ok()?;
    with_rows(&mut tally, rest.ids, rest.stop_reasons)?;
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
/// [`Row::id`](crate::tally::Row::id)) and models only, what
/// [`Grouper`](crate::views::stats::Grouper) groups: a report by day, model, ... needs no more
/// (a file read gives the whole tally all the same); and with [`Want::Rows`] the summary's
/// first message is empty.
///
pub(crate) fn map<T: Send>(
    dir: &CacheDir,
    files: &[PathBuf],
    want: Want,
    each: impl Fn(Result<Summary, ScanError>) -> T + Sync,
) -> (Vec<T>, Option<crate::cache::CacheProblem>) {
    let cache = Cache::open(dir, files, Tallies { want });
    cache.map(
        files,
        |cache, path, reading| cache.summarize(path, reading),
        each,
    )
}

impl Cache<'_, Tallies> {
    /// The summary of `path` with its tally, from its record when the record's key is the
    /// file's now, else read whole; and what became of its record.
    fn summarize(&self, path: &Path, reading: Reading) -> (Result<Summary, ScanError>, Fate) {
        if let Some(summary) = self.vouched(path) {
            return (Ok(summary), Fate::Kept);
        }
        let read = |opened: &OpenedFile, _| {
            let pass = Pass::new().reading(reading);
            let (summary, ..) =
                summary::fold(pass, Input::File(opened), None, Detail::Stats, |_, _| {})?;
            Ok((summary, ()))
        };
        self.read_file(path, read, |summary, (), _, key| {
            // Called only when the key held over the read: the bytes read are the key's.
            summary.file_key = Some(key);
            // Bytes that may still change unseen within the mtime's granularity are not
            // recorded.
            let settled = key.mtime_ns < self.now_ns - RACY_NS;
            let new = (settled && !self.off).then(|| encode(summary)).flatten()?;
            Some(Record {
                key,
                trusted: true,
                data: new.data,
                blob: Some(new.more),
            })
        })
    }

    /// The summary of `path` from its record, when the record vouches for it.
    fn vouched(&self, path: &Path) -> Option<Summary> {
        let (folder, name) = split_name(path);
        let folder = self.folders.get(folder)?;
        let (slot, modified) = folder.vouched(path, name)?;
        // The index's checksum held, so data that does not decode is a forgery or another
        // build's: the file is read instead.
        let Cached { mut summary, tally } = postcard::from_bytes(folder.data(slot)).ok()?;
        let tally = if self.kind.want == Want::Rows {
            tally
        } else {
            let blob = folder.blob(slot)?;
            let more: More = postcard::from_bytes(&blob).ok()?;
            if self.kind.want != Want::Facts {
                summary.first_message = std::sync::Arc::from(more.first_message);
            }
            with_rest(tally, more.rest, self.kind.want)?
        };
        let len = slot.key.size;
        let mut summary = with_file_facts(summary, path, FileFacts { modified, len });
        summary.tally = Some(Box::new(tally));
        summary.file_key = Some(slot.key);
        Some(summary)
    }
}

/// Rewrites the tally cache's record of `file` through `edit`, with every checksum recomputed
/// as a real write computes it: the forgery of a writer of the cache, which `stats` may show
/// but `check` must not be steered by (tests/it/trust.rs), written under `stamp` when given:
/// what a build of other code would have written. False when the cache holds no record of
/// `file`.
#[cfg(any(test, feature = "test-hooks"))]
pub fn forge(
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
        let mut tally = with_rest(tally, more.rest, Want::Whole)?;
        edit(&mut summary, &mut tally);
        summary.tally = Some(Box::new(tally));
        let new = encode(&mut summary)?;
        Some((new.data, Some(new.more)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tally::{Name, Row};

    fn rest_of(t: &Tally) -> Vec<u8> {
        postcard::to_stdvec(&RestRef::of(t)).unwrap()
    }

    /// The tools are kept by [`Name`] now, by `String` before: the same bytes, so a record
    /// written before reads back, and one written now reads as before.
    #[test]
    fn tools_by_name_are_stored_as_tools_by_string() {
        let names = ["bash", "read", "mcp__x", "", "ünï"];
        let count = |i: u64| ToolCount {
            calls: i,
            errors: i / 2,
        };
        let by_string: std::collections::BTreeMap<String, ToolCount> = (names.iter())
            .zip(1..)
            .map(|(n, i)| ((*n).to_owned(), count(i)))
            .collect();
        let by_name: std::collections::BTreeMap<Name, ToolCount> = (names.iter())
            .zip(1..)
            .map(|(n, i)| (Name::new(n), count(i)))
            .collect();
        let old = postcard::to_stdvec(&by_string).unwrap();
        assert_eq!(postcard::to_stdvec(&by_name).unwrap(), old);
        let back: std::collections::BTreeMap<Name, ToolCount> = postcard::from_bytes(&old).unwrap();
        assert_eq!(back, by_name);
        let order: Vec<&str> = back.keys().map(Name::as_str).collect();
        let strings: Vec<&str> = by_string.keys().map(String::as_str).collect();
        assert_eq!(order, strings);
    }

    #[test]
    fn facts_take_the_rows_ids_and_stop_reasons_and_no_more() {
        let row = |id: Option<&str>, stop: Option<&str>| Row {
            id: id.map(str::to_owned),
            ts_ms: Some(1),
            role: Name::new("assistant"),
            message: true,
            model: None,
            usage: None,
            tool: None,
            calls: Vec::new(),
            is_error: None,
            stop_reason: stop.map(Name::new),
            answers: None,
            active: true,
        };
        let mut whole = Tally::default();
        whole.rows = vec![
            row(Some("a1"), Some("stop")),
            row(None, None),
            row(Some("b"), None),
        ];
        whole.failed_commands.push("make".into());
        whole.files.read.insert("/x".into());
        whole.compactions = 2;
        let rest = rest_of(&whole);
        // What the record's data holds: the rows without ids and stop reasons.
        let bare = || {
            let mut t = Tally::default();
            t.rows = whole.rows.clone();
            for r in &mut t.rows {
                r.id = None;
                r.stop_reason = None;
            }
            t
        };
        let facts = with_rest(bare(), &rest, Want::Facts).unwrap();
        assert_eq!(facts.rows, whole.rows);
        assert!(facts.failed_commands.is_empty() && facts.files.read.is_empty());
        assert_eq!(facts.compactions, 0);
        let all = with_rest(bare(), &rest, Want::Whole).unwrap();
        assert_eq!(all.rows, whole.rows);
        assert_eq!(
            (all.failed_commands, all.files, all.compactions),
            (whole.failed_commands.clone(), whole.files.clone(), 2)
        );
        assert_eq!(
            with_rest(bare(), &rest, Want::Rows).unwrap().rows,
            bare().rows
        );
        // Ids that do not match the rows are no record.
        let mut one = bare();
        one.rows.truncate(1);
        assert!(with_rest(one, &rest, Want::Facts).is_none());
        assert!(with_rest(bare(), &rest[..2], Want::Facts).is_none());
    }
}
