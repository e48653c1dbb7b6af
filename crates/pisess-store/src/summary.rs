//! Per-session facts for `ls`: pi's `SessionInfo` fields (as `SessionManager.list` computes
//! them) and pi's `/session` totals, from one pass of the shared scan.

use std::fs::Metadata;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::tally::{Observed, Tally};
use pisess_format::model::{message_call_facts, message_content_text, EntryKind, Header, Usage};
use pisess_format::model::{Dialect, EntryLine};
use pisess_format::scan::{open_file, Input, OpenedFile, Pass, ScanError, ScanReport};
use pisess_format::time::parse_js_date;
use pisess_format::util::readahead::Reading;
use pisess_format::util::warning::Warning;

/// Everything `ls` shows about one session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    /// Not cached: the file's own facts (this and the times and size) are set from the file.
    #[serde(skip)]
    pub path: PathBuf,
    pub id: String,
    pub cwd: String,
    pub name: Option<String>,
    pub parent_session: Option<String>,
    pub version: u64,
    /// `new Date(header.timestamp)` in ms; `None` where JavaScript has an invalid date.
    pub created_ms: Option<i64>,
    /// pi's `modified`: the latest user/assistant message time, else the header time, else mtime.
    pub modified_ms: i64,
    /// The earliest and the latest time of any line (the header's and every entry's
    /// `timestamp`): the session's span, which [`Summary::duration_ms`] measures.
    pub span_ms: Option<(i64, i64)>,
    /// The latest user/assistant message time (what `modified_ms` is when there is one): where
    /// a run's activity ends, however much later a label or a rename was added.
    pub active_ms: Option<i64>,
    /// The file's modification time in whole ms (what pi's `stats.mtime`, a `Date`, holds).
    pub mtime_ms: i64,
    /// The same as Node's `stats.mtimeMs`: a float with the nanoseconds in it, by which pi's
    /// `listAll` orders files, so two files written within one millisecond do not tie.
    pub mtime_js: f64,
    /// Entries of type `message`: pi's `messageCount`, and `totalMessages` of its `/session`.
    pub message_count: u64,
    /// pi's `/session` counts (`AgentSession.getSessionStats`).
    pub counts: Counts,
    /// Shared: a listing from the cache clones summaries, and this is most of their bytes.
    #[serde(deserialize_with = "shared_str")]
    pub first_message: Arc<str>,
    pub entries: usize,
    pub leaf_id: Option<String>,
    /// Entries no other entry continues from: the tips of the tree.
    pub branches: usize,
    pub usage: Usage,
    /// `provider/model` in order of first use.
    pub models: Vec<String>,
    pub bytes: u64,
    pub malformed_lines: u64,
    pub warnings: Vec<Warning>,
    /// The torn last line's number (no newline, not JSON: pi may still be writing it), when
    /// the file was read for this summary; not in the summary cache, which holds no torn file.
    #[serde(skip)]
    pub torn_line: Option<u64>,
    /// What `stats` gathers in the same pass, when asked for ([`Detail::Stats`]); not in the
    /// summary cache (the tally cache keeps it beside its summary).
    #[serde(skip)]
    pub tally: Option<Box<Tally>>,
    /// The file's key as the tally cache vouched for it or read it (not cached): the family
    /// cache checks its record against it, not by a stat of its own.
    #[serde(skip)]
    pub file_key: Option<crate::cache::key::FileKey>,
}

/// An `Arc<str>` made from the decoder's borrowed text: serde's own goes through a `String`,
/// which copied each of a warm listing's 7 MB of first messages twice.
fn shared_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Arc<str>, D::Error> {
    struct Shared;
    impl serde::de::Visitor<'_> for Shared {
        type Value = Arc<str>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Arc<str>, E> {
            Ok(Arc::from(s))
        }
    }
    d.deserialize_str(Shared)
}

/// How much one pass over a file gathers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Detail {
    /// What `ls` shows.
    #[default]
    Listing,
    /// That and the facts `stats` reports ([`Tally`]).
    Stats,
    /// What a report over many sessions groups, read from a file where no cache is written
    /// (`stats --no-cache` by day, model, ...): the summary without its first message, and a
    /// tally of rows without ids and models ([`Tally::rows_only`]), as the tally cache gives
    /// them to such a report.
    Rows,
    /// [`Detail::Rows`] and the first message (`--by session`'s titles).
    Titles,
}

impl Detail {
    /// Whether the first user message's text is kept.
    fn first_message(self) -> bool {
        self != Detail::Rows
    }
}

/// The message counts of pi's `/session` (its `getSessionStats`), and the tool results that
/// report an error, over every entry of the file (not only the active branch), as pi counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub user_messages: u64,
    pub assistant_messages: u64,
    /// Content blocks of type `toolCall` in assistant messages.
    pub tool_calls: u64,
    pub tool_results: u64,
    /// Tool results with `isError: true`.
    pub tool_errors: u64,
}

/// How a summary is read; the default reads a big file ahead on a second thread, gathers what
/// `ls` shows and hands the entries to no one.
#[derive(Default)]
pub struct SummaryOptions<'a> {
    /// How a whole file is read (a stream is read as it comes).
    pub reading: Reading,
    /// How much the pass gathers.
    pub detail: Detail,
    /// Handed each entry on the way: `grep` searches a file in the same pass that summarizes
    /// it.
    pub also: Option<Also<'a>>,
}

/// What [`SummaryOptions::also`] calls with each entry.
pub type Also<'a> = &'a mut dyn FnMut(&Header, &EntryLine);

/// Reads one session into a summary: a file's times and size come from the file; a stream or
/// bytes in memory have none (bytes have their length), and are named by their stem.
pub fn summarize<'a>(
    input: impl Into<Input<'a>>,
    options: SummaryOptions<'_>,
) -> Result<Summary, ScanError> {
    let input = input.into();
    if let Input::Path(path) = input {
        return summarize(&open_file(path)?, options);
    }
    let SummaryOptions {
        reading,
        detail,
        also,
    } = options;
    let (name, file, bytes) = match &input {
        Input::File(opened) => (String::new(), Some(*opened), None),
        Input::Stream(_, stem) | Input::Buffered(_, stem) => (stem.to_string(), None, None),
        Input::Bytes(b, stem) => (stem.to_string(), None, Some(b.len() as u64)),
        Input::Path(_) => unreachable!("opened above"),
    };
    let pass = Pass::new().reading(reading);
    let (summary, ..) = match also {
        Some(also) => fold(pass, input, None, detail, also),
        None => fold(pass, input, None, detail, |_, _| {}),
    }?;
    if let Some(opened) = file {
        return Ok(with_file_facts(
            summary,
            &opened.path,
            (&opened.meta).into(),
        ));
    }
    let mut summary = unfiled(summary, &name);
    if let Some(len) = bytes {
        summary.bytes = len;
    }
    Ok(summary)
}

/// The summary of what is no file (a stream, bytes), named `name`: it has no times of its own.
fn unfiled(mut summary: Summary, name: &str) -> Summary {
    summary.path = PathBuf::from(name);
    if summary.modified_ms == NO_TIME {
        summary.modified_ms = 0;
    }
    summary
}

/// The summary as a sink of one [`Pass`]: each entry to [`entry`](Summarizer::entry), then the
/// pass's report to [`finish`](Summarizer::finish). [`summarize`] drives its own pass; a
/// stream read once for more than its summary (standard input: `stats -`, `check -`) drives
/// one pass for all its sinks.
pub struct Summarizer {
    fold: Fold,
    tally: Option<Box<Tally>>,
    detail: Detail,
}

impl Summarizer {
    /// A summary gathering what `detail` says.
    pub fn new(detail: Detail) -> Summarizer {
        let tally = match detail {
            Detail::Listing => None,
            Detail::Stats => Some(Box::<Tally>::default()),
            Detail::Rows | Detail::Titles => Some(Box::new(Tally::rows_only())),
        };
        Summarizer {
            fold: Fold::default(),
            tally,
            detail,
        }
    }

    /// Takes in one entry of the pass.
    pub fn entry(&mut self, header: &Header, e: &EntryLine) {
        // With a tally, what it read of the line is not read again.
        let observed = self.tally.as_deref_mut().map(|t| t.observe(header, e));
        self.fold.entry(
            e,
            observed.unwrap_or_default(),
            header.dialect == Dialect::Seed000,
            self.detail.first_message(),
        );
    }

    /// The summary of a stream named `name` that the pass read.
    pub fn finish(mut self, report: &ScanReport, name: &str) -> Summary {
        unfiled(self.fold.summary(report, self.tally), name)
    }

    /// The summary of the file `opened` that the pass read: its times and size from the file.
    pub fn finish_file(mut self, report: &ScanReport, opened: &OpenedFile) -> Summary {
        let summary = self.fold.summary(report, self.tally);
        with_file_facts(summary, &opened.path, (&opened.meta).into())
    }
}

/// What a summary takes from its file's metadata: the mtime since the epoch, and the size.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileFacts {
    pub(crate) modified: Option<std::time::Duration>,
    pub(crate) len: u64,
}

impl From<&Metadata> for FileFacts {
    fn from(meta: &Metadata) -> FileFacts {
        FileFacts {
            modified: meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok()),
            len: meta.len(),
        }
    }
}

/// A summary of the file at `path` whose metadata gave `facts`: its times and size, and pi's
/// `modified` falling back on its mtime.
pub(crate) fn with_file_facts(mut summary: Summary, path: &Path, facts: FileFacts) -> Summary {
    let since_epoch = facts.modified;
    let mtime_ms = since_epoch
        .and_then(|d| i64::try_from(d.as_millis()).ok())
        .unwrap_or(0);
    // Node's `msFromTimeSpec`: `sec * 1e3 + nsec / 1e6`, in doubles, rounding included.
    let mtime_js = since_epoch.map_or(0.0, |d| {
        d.as_secs() as f64 * 1e3 + f64::from(d.subsec_nanos()) / 1e6
    });
    summary.path = path.to_path_buf();
    summary.mtime_ms = mtime_ms;
    summary.mtime_js = mtime_js;
    // The size when reading began, as pi's listing takes its stats before reading.
    summary.bytes = facts.len;
    if summary.modified_ms == NO_TIME {
        summary.modified_ms = mtime_ms;
    }
    summary
}

/// Stands for "no message and no header time" until the file's mtime is known.
const NO_TIME: i64 = i64::MIN;

/// The one pass over the entries, going on from `before` (a fold of the file up to the
/// report's end, where `input` starts) when given; also gives back what was folded, to go on
/// from next time.
pub(crate) fn fold(
    pass: Pass,
    input: Input,
    before: Option<(ScanReport, Fold)>,
    detail: Detail,
    mut also: impl FnMut(&Header, &EntryLine),
) -> Result<(Summary, ScanReport, Fold), ScanError> {
    let mut sink = Summarizer::new(detail);
    let pass = match before {
        None => pass,
        Some((before, fold)) => {
            debug_assert!(sink.tally.is_none(), "a tally is never resumed");
            sink.fold = fold;
            pass.resume(before)
        }
    };
    let report = pass.run(input, |header: &Header, e: &EntryLine| {
        also(header, e);
        sink.entry(header, e);
        ControlFlow::Continue(())
    })?;
    let Summarizer {
        mut fold, tally, ..
    } = sink;
    let summary = fold.summary(&report, tally);
    Ok((summary, report, fold))
}

/// What the pass over the entries has gathered so far: all a [`Summary`] needs but the header
/// and the file's own facts, kept by the summary cache to go on from when the file grows.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Fold {
    name: Option<String>,
    message_count: u64,
    counts: Counts,
    first_message: String,
    last_activity: Option<f64>,
    /// The earliest and latest entry `timestamp` seen (the header's is added in `summary`).
    span: Option<(i64, i64)>,
    usage: Usage,
    models: Vec<String>,
    leaf_id: Option<String>,
    tips: Tips,
}

impl Fold {
    /// The first user message's text is what a summary holds most of, and the summary is kept
    /// beside the fold: the fold is stored without it ...
    pub(crate) fn take_first_message(&mut self) -> bool {
        let had = !self.first_message.is_empty();
        self.first_message = String::new();
        had
    }

    /// ... and given it back from the summary.
    pub(crate) fn restore_first_message(&mut self, had: bool, summary: &Summary) {
        if had {
            self.first_message = summary.first_message.to_string();
        }
    }

    fn entry(&mut self, e: &EntryLine, observed: Observed, seed000: bool, first_message: bool) {
        let Observed {
            facts,
            usage,
            timestamp,
        } = observed;
        let v = e.view;
        if let Some(id) = &e.id {
            // The last entry's id is the leaf: written over, not allocated at every entry.
            match &mut self.leaf_id {
                Some(leaf) => {
                    leaf.clear();
                    leaf.push_str(id);
                }
                None => self.leaf_id = Some(id.to_string()),
            }
            self.tips.id(id);
        }
        if let Some(parent) = &e.parent {
            self.tips.parent(parent);
        }
        // Parsed once for the span and the activity (and by the tally, when there is one).
        let entry_ms = timestamp.unwrap_or_else(|| v.timestamp.get().and_then(parse_js_date));
        if let Some(t) = entry_ms {
            self.span = Some(widen(self.span, t));
        }
        match e.kind {
            EntryKind::SessionInfo => {
                self.name = v
                    .name
                    .get()
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned);
            }
            EntryKind::Usage | EntryKind::Compaction | EntryKind::BranchSummary => {
                let usage = usage.unwrap_or_else(|| v.usage.and_then(Usage::from_raw));
                if let Some(u) = usage {
                    self.usage.add(&u);
                }
            }
            EntryKind::ModelChange => self.note_model(v.provider.get(), v.model_id.get()),
            _ => {}
        }
        if e.kind != EntryKind::Message {
            return;
        }
        self.message_count += 1;
        let Some(m) = v.message.0.as_ref() else {
            return;
        };
        let role = m.role.get();
        let counts = &mut self.counts;
        match role {
            Some("user") => {
                counts.user_messages += 1;
                // The seed-000 dialect carries tool results as `tool_result` blocks of a user
                // message too: they are results (and errors) all the same.
                if seed000 {
                    let results = crate::tally::seed000_tool_results(e.json);
                    counts.tool_results += results.len() as u64;
                    counts.tool_errors += results.iter().filter(|r| r.is_error).count() as u64;
                }
            }
            Some("assistant") => {
                counts.assistant_messages += 1;
                // Counted from the content's span the skim found, else from the line.
                counts.tool_calls += facts
                    .map(|f| f.tool_calls)
                    .or_else(|| m.tool_call_count())
                    .unwrap_or_else(|| message_call_facts(e.json).tool_calls);
            }
            Some("toolResult") => {
                counts.tool_results += 1;
                counts.tool_errors += u64::from(m.is_error.0);
            }
            _ => {}
        }
        if matches!(role, Some("assistant" | "toolResult")) {
            let usage = usage.unwrap_or_else(|| m.usage.and_then(Usage::from_raw));
            if let Some(u) = usage {
                self.usage.add(&u);
            }
        }
        if role == Some("assistant") {
            self.note_model(m.provider.get(), m.model.get());
        }
        if !matches!(role, Some("user" | "assistant")) || !m.content.0 {
            return;
        }
        // pi's activity time: the message's own ms timestamp, else the entry's ISO time.
        let activity = m.timestamp.0.or_else(|| entry_ms.map(|ms| ms as f64));
        if let Some(t) = activity {
            self.last_activity = Some(self.last_activity.map_or(t, |l: f64| l.max(t)));
        }
        if first_message && self.first_message.is_empty() && role == Some("user") {
            let text = m
                .content_text()
                .unwrap_or_else(|| message_content_text(e.json));
            if let Some(text) = text {
                self.first_message = text;
            }
        }
    }

    fn note_model(&mut self, provider: Option<&str>, model: Option<&str>) {
        if let Some(model) = model {
            // Compared in pieces: a key is made only for a model not seen yet (one per file,
            // where every assistant message names one).
            let is_key = |key: &String| match provider {
                Some(p) => key
                    .strip_prefix(p)
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|rest| rest == model),
                None => key == model,
            };
            if !self.models.iter().any(is_key) {
                // Not `format!`, whose machinery cost ten times the copies (a model a file).
                self.models.push(match provider {
                    Some(p) => [p, "/", model].concat(),
                    None => model.to_owned(),
                });
            }
        }
    }

    /// The summary of what was folded (its file's facts still to be set by the caller).
    fn summary(&mut self, report: &ScanReport, mut tally: Option<Box<Tally>>) -> Summary {
        let header = &report.header;
        let header_ms = header.timestamp_ms;
        #[allow(clippy::cast_possible_truncation)]
        let modified_ms = match self.last_activity {
            Some(t) if t > 0.0 => t as i64,
            _ => header_ms.unwrap_or(NO_TIME),
        };
        if let Some(t) = tally.as_deref_mut() {
            t.finish(self.leaf_id.as_deref());
        }
        Summary {
            path: PathBuf::new(),
            id: header.id.clone(),
            cwd: header.cwd.clone().unwrap_or_default(),
            name: self.name.clone(),
            parent_session: header.parent_session.clone(),
            version: header.version,
            created_ms: header_ms,
            modified_ms,
            span_ms: header_ms.map_or(self.span, |h| Some(widen(self.span, h))),
            #[allow(clippy::cast_possible_truncation)]
            active_ms: self.last_activity.filter(|t| *t > 0.0).map(|t| t as i64),
            mtime_ms: 0,
            mtime_js: 0.0,
            message_count: self.message_count,
            counts: self.counts,
            first_message: if self.first_message.is_empty() {
                Arc::from("(no messages)")
            } else {
                Arc::from(self.first_message.as_str())
            },
            entries: report.entries,
            leaf_id: self.leaf_id.clone(),
            branches: self.tips.count(),
            usage: self.usage,
            models: self.models.clone(),
            bytes: 0,
            malformed_lines: report.malformed,
            warnings: report.warnings.clone(),
            torn_line: report.torn_line,
            tally,
            file_key: None,
        }
    }
}

/// `span` grown to hold `t`.
fn widen(span: Option<(i64, i64)>, t: i64) -> (i64, i64) {
    span.map_or((t, t), |(first, last)| (first.min(t), last.max(t)))
}

impl Summary {
    /// How long the session ran: from its earliest to its latest timestamp over all lines
    /// (pi has no duration of its own). Never negative, whatever order the lines' clocks are
    /// in; `None` when no line has a valid time.
    pub fn duration_ms(&self) -> Option<i64> {
        self.span_ms.map(|(first, last)| last - first)
    }

    /// How long the run was active: from the session's start (its earliest time) to its last
    /// user or assistant message, pi's "last activity"; the whole span when no such message has
    /// a time. What CI means by a run's duration: a `/label` or a rename added hours later is
    /// not the run (`check --max-duration`).
    pub fn active_span_ms(&self) -> Option<i64> {
        match (self.span_ms, self.active_ms) {
            (Some((first, _)), Some(active)) => Some(active.saturating_sub(first).max(0)),
            (span, _) => span.map(|(first, last)| last - first),
        }
    }
}

/// The ids and parent ids of a file, for counting the tips of its tree (ids no entry names as
/// its parent) in little memory: a million entries take 16 MB, not the 190 MB of two sets of
/// strings. pi's ids (8 hex digits) and any id of up to 7 bytes are packed into a `u64`
/// exactly; other ids are kept as strings. Sorted and deduplicated when counted, so the cache
/// stores them sorted and a grown file only appends.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Tips {
    #[serde(with = "deltas")]
    ids: Vec<u64>,
    #[serde(with = "deltas")]
    parents: Vec<u64>,
    long_ids: Vec<String>,
    long_parents: Vec<String>,
}

impl Tips {
    fn id(&mut self, id: &str) {
        match pack(id) {
            Some(n) => self.ids.push(n),
            None => self.long_ids.push(id.to_owned()),
        }
    }

    fn parent(&mut self, parent: &str) {
        match pack(parent) {
            Some(n) => self.parents.push(n),
            None => self.long_parents.push(parent.to_owned()),
        }
    }

    /// Distinct ids that are no entry's parent.
    fn count(&mut self) -> usize {
        fn tips<T: Ord>(ids: &mut Vec<T>, parents: &mut Vec<T>) -> usize {
            ids.sort_unstable();
            ids.dedup();
            parents.sort_unstable();
            parents.dedup();
            ids.iter()
                .filter(|id| parents.binary_search(id).is_err())
                .count()
        }
        tips(&mut self.ids, &mut self.parents) + tips(&mut self.long_ids, &mut self.long_parents)
    }
}

/// Sorted numbers stored as the differences between them, which postcard writes in a byte or
/// two each, not eight: a million-entry session's fold takes 3 MB of cache, not 16. (Wrapping,
/// so any order comes back as it was.)
mod deltas {
    use serde::de::{SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(v: &[u64], s: S) -> Result<S::Ok, S::Error> {
        let mut last = 0u64;
        s.collect_seq(v.iter().map(|&n| {
            let d = n.wrapping_sub(last);
            last = n;
            d
        }))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
        struct Sums;
        impl<'de> Visitor<'de> for Sums {
            type Value = Vec<u64>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence of differences")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u64>, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
                let mut last = 0u64;
                while let Some(d) = seq.next_element::<u64>()? {
                    last = last.wrapping_add(d);
                    out.push(last);
                }
                Ok(out)
            }
        }
        d.deserialize_seq(Sums)
    }
}

/// An id as one number, where that can be exact: 8 lowercase hex digits (pi's `generateId`)
/// as their value with the top bit set, else up to 7 bytes with their count in the top byte.
fn pack(id: &str) -> Option<u64> {
    let b = id.as_bytes();
    if b.len() == 8 {
        let mut n = 0u64;
        for &c in b {
            let digit = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                _ => return None,
            };
            n = n << 4 | u64::from(digit);
        }
        return Some(1 << 63 | n);
    }
    (b.len() <= 7).then(|| {
        b.iter()
            .enumerate()
            .fold((b.len() as u64) << 56, |n, (i, &c)| {
                n | u64::from(c) << (8 * i)
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn pi_list_fields_and_totals() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"type":"session","version":3,"id":"sid","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"image"},{"type":"text","text":"fix it"}],"timestamp":1767225601000}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[],"provider":"anthropic","model":"m1","usage":{"input":10,"output":5,"cacheRead":1,"cacheWrite":0,"totalTokens":16,"cost":{"total":0.25}},"timestamp":1767225602000}}"#,
            r#"{"type":"message","id":"c","parentId":"a","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","content":[],"usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"cost":{"total":0.5}}}}"#,
            r#"{"type":"usage","id":"d","parentId":"c","timestamp":"2026-01-01T00:00:04.000Z","usage":{"input":100,"output":0,"cacheRead":0,"cacheWrite":0,"cost":{"total":1}}}"#,
            r#"{"type":"session_info","id":"e","parentId":"d","name":"  named  "}"#,
            "garbage",
        ];
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        let s = summarize(&path, SummaryOptions::default()).unwrap();
        assert_eq!(s.id, "sid");
        assert_eq!(s.name.as_deref(), Some("named"));
        assert_eq!(s.message_count, 3);
        let counts = Counts {
            user_messages: 1,
            assistant_messages: 1,
            tool_calls: 0,
            tool_results: 1,
            tool_errors: 0,
        };
        assert_eq!(s.counts, counts);
        assert_eq!(&*s.first_message, "fix it");
        assert_eq!(s.modified_ms, 1_767_225_602_000);
        assert_eq!(s.usage.total_tokens(), 118.0);
        assert!((s.usage.cost - 1.75).abs() < 1e-9);
        assert_eq!(s.models, ["anthropic/m1"]);
        assert_eq!(s.leaf_id.as_deref(), Some("e"));
        assert_eq!(s.branches, 2);
        assert_eq!(s.malformed_lines, 1);
        assert_eq!(s.entries, 5);
    }

    /// A report that writes no cache reads what the tally cache gives it (`Want::Rows`), and
    /// the rows and models are those of the whole tally, but for the ids and stop reasons
    /// the cache keeps apart.
    #[test]
    fn rows_detail_gathers_what_the_cache_gives_a_report() {
        let lines = [
            r#"{"type":"session","version":3,"id":"sid","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"fix it"}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"make"}},{"type":"toolCall","id":"c2","name":"read","arguments":{"path":"/p/x"}}],"provider":"p","model":"m","stopReason":"error","errorMessage":"boom","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"cost":{"total":0.5}}}}"#,
            r#"{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[],"isError":true}}"#,
            r#"{"type":"compaction","id":"d","parentId":"c","timestamp":"2026-01-01T00:00:04.000Z","tokensBefore":10}"#,
            r#"{"type":"message","id":"e","parentId":"a","timestamp":"bad","message":{"role":"user","content":"other"}}"#,
        ];
        let text = lines.join("\n") + "\n";
        let read = |detail| {
            let options = SummaryOptions {
                detail,
                ..SummaryOptions::default()
            };
            summarize(Input::Bytes(text.as_bytes(), "s"), options).unwrap()
        };
        let whole = read(Detail::Stats);
        let rows = read(Detail::Rows);
        let titles = read(Detail::Titles);
        let (w, r) = (
            whole.tally.as_deref().unwrap(),
            rows.tally.as_deref().unwrap(),
        );
        assert!(w.rows.iter().any(|r| r.id.is_some() && r.active));
        let mut bare = w.rows.clone();
        for row in &mut bare {
            row.id = None;
            row.stop_reason = None;
        }
        assert_eq!(r.rows, bare);
        assert_eq!(r.models, w.models);
        assert_eq!(titles.tally.as_deref().unwrap().rows, bare);
        // What only the one-session view and `--by message` read is not gathered.
        assert!(!w.tools.is_empty() && r.tools.is_empty());
        assert!(!w.files.read.is_empty() && r.files.read.is_empty());
        assert_eq!(w.failed_commands, ["make"]);
        assert!(r.failed_commands.is_empty());
        assert_eq!((w.stops.error, r.stops.error), (1, 0));
        assert_eq!((w.compactions, r.compactions), (1, 0));
        // Nor the first message, but with titles.
        assert_eq!(&*whole.first_message, "fix it");
        assert_eq!(&*titles.first_message, "fix it");
        assert_eq!(&*rows.first_message, "(no messages)");
        // The rest of the summary is the same.
        let facts = |s: &Summary| {
            (
                s.span_ms,
                s.modified_ms,
                s.active_ms,
                s.leaf_id.clone(),
                s.branches,
                s.counts,
                s.models.clone(),
                format!("{:?}", s.usage),
            )
        };
        assert_eq!(facts(&rows), facts(&whole));
        assert_eq!(whole.leaf_id.as_deref(), Some("e"));
        assert_eq!(whole.span_ms, Some((1_767_225_600_000, 1_767_225_604_000)));
    }

    #[test]
    fn ids_pack_exactly_or_not_at_all() {
        let ids = [
            "", "a", "abcdefg", "0000000a", "0000000A", "00000010", "abcdefgh", "ffffffff",
        ];
        let packed: Vec<_> = ids.iter().map(|id| pack(id)).collect();
        // Upper-case hex and longer ids are kept as strings.
        assert_eq!(packed[4], None);
        assert_eq!(packed[6], None);
        let mut some: Vec<u64> = packed.iter().flatten().copied().collect();
        let n = some.len();
        some.sort_unstable();
        some.dedup();
        assert_eq!(some.len(), n, "two ids packed alike: {packed:?}");
        assert_ne!(
            pack("0000000a"),
            pack("\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}")
        );
    }

    #[test]
    fn tips_count_distinct_ids_no_entry_continues() {
        let mut tips = Tips::default();
        for id in [
            "0000000a",
            "0000000b",
            "0000000c",
            "a-long-foreign-id",
            "0000000a",
        ] {
            tips.id(id);
        }
        for parent in ["0000000a", "a-long-foreign-id", "ffffffff"] {
            tips.parent(parent);
        }
        // b and c: a is continued (and given twice), the foreign id too.
        assert_eq!(tips.count(), 2);
        // Counting again, after more ids (a grown file), goes on from the sorted sets.
        tips.id("0000000d");
        tips.parent("0000000b");
        assert_eq!(tips.count(), 2);
    }

    #[test]
    fn empty_session_uses_header_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(
            &path,
            r#"{"type":"session","id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
        )
        .unwrap();
        let s = summarize(&path, SummaryOptions::default()).unwrap();
        assert_eq!(&*s.first_message, "(no messages)");
        assert_eq!(s.modified_ms, 1_767_225_600_000);
        assert_eq!(s.created_ms, Some(1_767_225_600_000));
        assert_eq!(s.name, None);
    }
}
