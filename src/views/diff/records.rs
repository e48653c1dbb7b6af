//! A branch's figures from the one pass that indexes its file: each entry's own share of the
//! figures (usage, message counts, times, model, compaction) and its tool calls and results
//! are recorded as the index takes the entry in ([`Records::entry`]), and a branch is then a
//! sum along root → leaf ([`Records::branch`]), with no second read of its lines.
//!
//! Every share is what pi's `getSessionStats` of the branch's `createBranchedSession` copy
//! counts of that entry (the summary's fold, [`pisess_store::summary`], read entry by entry:
//! an entry's figures do not depend on the entries before it), added in branch order, so the
//! sums are the fold's to the last bit. The tool calls are read from the spans the skim found
//! ([`MessageView::tool_call_blocks`]): only a call's name, id and key arguments are decoded,
//! not the assistant message; where the skim is unsure the message is decoded whole, as
//! [`branch::read`](super::branch::read) does.
//!
//! What the fold does not count per entry is left to [`branch::read`](super::branch::read):
//! seed 000's results inside user messages (their tool name is their call's, found along the
//! branch) and a price table's tally.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use pisess_format::json;
use pisess_format::model::{decoded_span, object_members, MessageView, Usage};
use pisess_format::model::{message_call_facts, Entry, EntryKind, EntryLine, Header, ToolCall};
use pisess_format::time::parse_js_date;
use pisess_store::summary::Counts;
use pisess_store::tally::ToolCount;

use super::branch::{Branch, Call};
use crate::views::calls;
use crate::views::touches::{Counts as FileCounts, Kind, Touch, Touches};

/// No index into a table.
const NONE: u32 = u32::MAX;

// Each entry's share is a few bytes in one buffer ([`Records::bytes`], at the entry's offset):
// a 100,000-call session has 300,000 entries, and a struct each (with its usage and calls
// apart) was 25 MB a side, more than its index. In order: the flags (two bytes); the time
// (zigzag varint) with TIME; the activity with ACTIVE unless it is the time (ACTIVE_IS_TIME);
// the usage's six numbers ([`put_num`]) with USAGE; the model (varint) with MODEL; the calls
// counted (varint) with CALLS; with EVENTS their count, then each call (0, name, key, touch,
// id) or result (1, failed, tool, id).
const USER: u16 = 1;
const ASSISTANT: u16 = 1 << 1;
const TOOL_RESULT: u16 = 1 << 2;
const TOOL_ERROR: u16 = 1 << 3;
const COMPACTION: u16 = 1 << 4;
const TIME: u16 = 1 << 5;
const ACTIVE: u16 = 1 << 6;
const ACTIVE_IS_TIME: u16 = 1 << 7;
const USAGE: u16 = 1 << 8;
const NEGATIVE_COST: u16 = 1 << 9;
const NEGATIVE_TOKENS: u16 = 1 << 10;
const MODEL: u16 = 1 << 11;
const CALLS: u16 = 1 << 12;
const EVENTS: u16 = 1 << 13;

/// A tool call or a tool result, as [`branch::read`](super::branch::read) meets it.
enum Event<'a> {
    Call {
        /// Into [`Records::names`]: the call's `name` (`""` when no string).
        name: u32,
        /// Into [`Records::keys`]: [`calls::key`].
        key: u32,
        id: Option<&'a str>,
        /// What a `read`, `write` or `edit` did to a file, the file into [`Records::paths`].
        touch: Option<(Kind, u32)>,
    },
    Result {
        call_id: Option<&'a str>,
        failed: bool,
        /// Into [`Records::names`]: the result's `toolName`.
        tool: u32,
    },
}

/// Strings kept once each, numbered in order of first sight.
#[derive(Debug, Default)]
struct Table {
    all: Vec<String>,
    at: HashMap<String, u32>,
}

impl Table {
    fn number(&mut self, s: &str) -> u32 {
        if let Some(&n) = self.at.get(s) {
            return n;
        }
        let n = u32::try_from(self.all.len()).expect("below 2^32 strings");
        self.all.push(s.to_owned());
        self.at.insert(s.to_owned(), n);
        n
    }
}

/// Every entry's share of a session's figures, by the entry's position in its index.
#[derive(Debug, Default)]
pub struct Records {
    /// Each entry's share's start in `bytes`.
    offsets: Vec<u32>,
    bytes: Vec<u8>,
    models: Table,
    names: Table,
    keys: Table,
    paths: Table,
    /// The entry being recorded: its flags, and its events (count, then each encoded).
    flags: u16,
    events: u32,
    event_bytes: Vec<u8>,
    /// Past 4 GiB of shares: not recorded, the branch is read.
    full: bool,
}

/// A branch's figures as the summary of its copy gives them (no tally).
#[derive(Debug)]
pub struct Sums {
    pub usage: Usage,
    pub counts: Counts,
    /// [`Summary::active_span_ms`](pisess_store::summary::Summary::active_span_ms).
    pub active_ms: Option<i64>,
    pub models: Vec<String>,
    pub files: BTreeMap<String, FileCounts>,
}

impl Records {
    /// Whether these are the shares of every entry of `session`'s index.
    pub fn of_all(&self, entries: usize) -> bool {
        !self.full && self.offsets.len() == entries
    }

    /// The capacity the buffers grew past what they hold, given back.
    pub fn finish(&mut self) {
        self.offsets.shrink_to_fit();
        self.bytes.shrink_to_fit();
        self.event_bytes = Vec::new();
    }

    /// Takes in the next entry of the pass (in the index's order), as the summary's fold reads
    /// it without a tally.
    pub fn entry(&mut self, header: &Header, e: &EntryLine) {
        let Ok(offset) = u32::try_from(self.bytes.len()) else {
            self.full = true;
            return;
        };
        let v = e.view;
        let time = v.timestamp.get().and_then(parse_js_date);
        self.flags = if time.is_some() { TIME } else { 0 };
        self.events = 0;
        self.event_bytes.clear();
        let mut usage = None;
        let mut model = NONE;
        let mut activity = None;
        let mut tool_calls = 0;
        match e.kind {
            EntryKind::Usage | EntryKind::Compaction | EntryKind::BranchSummary => {
                usage = v.usage.and_then(Usage::from_raw);
                if e.kind == EntryKind::Compaction {
                    self.flags |= COMPACTION;
                }
            }
            EntryKind::ModelChange => model = self.model(v.provider.get(), v.model_id.get()),
            _ => {}
        }
        let message = v
            .message
            .0
            .as_ref()
            .filter(|_| e.kind == EntryKind::Message);
        if let Some(m) = message {
            let role = m.role.get();
            let cwd = header.cwd.as_deref().unwrap_or("");
            match role {
                Some("user") => self.flags |= USER,
                Some("assistant") => {
                    self.flags |= ASSISTANT;
                    tool_calls = self.calls(m, e, cwd);
                }
                Some("toolResult") => {
                    self.flags |= TOOL_RESULT;
                    if m.is_error.0 {
                        self.flags |= TOOL_ERROR;
                    }
                    let tool = self.names.number(m.tool_name.get().unwrap_or(""));
                    self.events += 1;
                    let b = &mut self.event_bytes;
                    b.push(1);
                    b.push(u8::from(m.is_error.0));
                    put_varint(b, u64::from(tool));
                    put_text(b, m.tool_call_id.get());
                }
                _ => {}
            }
            if matches!(role, Some("assistant" | "toolResult")) {
                usage = m.usage.and_then(Usage::from_raw);
            }
            if role == Some("assistant") {
                model = self.model(m.provider.get(), m.model.get());
            }
            if matches!(role, Some("user" | "assistant")) && m.content.0 {
                activity = m.timestamp.0.or_else(|| time.map(|ms| ms as f64));
            }
        }
        // The share, in the order the flags say.
        let at = self.bytes.len();
        self.bytes.extend_from_slice(&[0, 0]);
        let b = &mut self.bytes;
        if let Some(t) = time {
            put_varint(b, zigzag(t));
        }
        if let Some(a) = activity {
            self.flags |= ACTIVE;
            if time.is_some_and(|t| (t as f64).to_bits() == a.to_bits()) {
                self.flags |= ACTIVE_IS_TIME;
            } else {
                b.extend_from_slice(&a.to_bits().to_le_bytes());
            }
        }
        if let Some(u) = usage {
            self.flags |= USAGE;
            if u.negative_cost {
                self.flags |= NEGATIVE_COST;
            }
            if u.negative_tokens {
                self.flags |= NEGATIVE_TOKENS;
            }
            for n in [
                u.input,
                u.output,
                u.cache_read,
                u.cache_write,
                u.cost,
                u.unpriced,
            ] {
                put_num(b, n);
            }
        }
        if model != NONE {
            self.flags |= MODEL;
            put_varint(b, u64::from(model));
        }
        if tool_calls > 0 {
            self.flags |= CALLS;
            put_varint(b, tool_calls);
        }
        if self.events > 0 {
            self.flags |= EVENTS;
            put_varint(b, u64::from(self.events));
            b.extend_from_slice(&self.event_bytes);
        }
        b[at..at + 2].copy_from_slice(&self.flags.to_le_bytes());
        self.offsets.push(offset);
    }

    fn model(&mut self, provider: Option<&str>, model: Option<&str>) -> u32 {
        let Some(model) = model else { return NONE };
        match provider {
            Some(p) => self.models.number(&format!("{p}/{model}")),
            None => self.models.number(model),
        }
    }

    /// An assistant message's calls, from the skim's spans, else from the decoded line; how
    /// many `getSessionStats` counts (the spans' count is the summary's).
    fn calls(&mut self, m: &MessageView, e: &EntryLine, cwd: &str) -> u64 {
        if let Some(calls) = spanned_calls(m) {
            for (id, name, arguments) in &calls {
                let call = ToolCall {
                    id: id.as_ref(),
                    name: name.as_ref(),
                    arguments: arguments.as_ref(),
                };
                self.call(call, cwd);
            }
            return calls.len() as u64;
        }
        let value = json::decode(e.json).unwrap_or_default();
        if let Some(m) = Entry::of_kind(&e.kind, &value).message() {
            for call in m.tool_calls() {
                self.call(call, cwd);
            }
        }
        m.tool_call_count()
            .unwrap_or_else(|| message_call_facts(e.json).tool_calls)
    }

    fn call(&mut self, call: ToolCall, cwd: &str) {
        let name = self
            .names
            .number(call.name.and_then(Value::as_str).unwrap_or(""));
        let key = self.keys.number(&calls::key(call, cwd));
        let touch = Touch::of(call, cwd).map(|t| (t.kind(), self.paths.number(t.path())));
        self.events += 1;
        let b = &mut self.event_bytes;
        b.push(0);
        put_varint(b, u64::from(name));
        put_varint(b, u64::from(key));
        match touch {
            None => b.push(0),
            Some((kind, path)) => {
                b.push(match kind {
                    Kind::Read => 1,
                    Kind::Write => 2,
                    Kind::Edit => 3,
                });
                put_varint(b, u64::from(path));
            }
        }
        put_text(b, call.id.and_then(Value::as_str));
    }

    /// The branch along `path` (root first; `cycle` where its parents closed on themselves),
    /// its calls met in order as [`branch::read`](super::branch::read) meets them, and its
    /// figures summed.
    pub fn branch(
        &self,
        path: Vec<usize>,
        cycle: Option<String>,
        header: &Header,
    ) -> (Branch, Sums) {
        let mut usage = Usage::default();
        let mut counts = Counts::default();
        let mut span: Option<(i64, i64)> = None;
        let mut last_activity: Option<f64> = None;
        let mut models: Vec<u32> = Vec::new();
        let mut calls: Vec<Call> = Vec::new();
        let mut tools: BTreeMap<String, ToolCount> = BTreeMap::new();
        let mut compactions = 0;
        let mut waiting: HashMap<&str, usize> = HashMap::new();
        let mut touches = Touches::default();
        for &i in &path {
            let mut r = Reader {
                bytes: &self.bytes[self.offsets[i] as usize..],
            };
            let flags = u16::from_le_bytes([r.byte(), r.byte()]);
            let has = |f: u16| flags & f != 0;
            let time = has(TIME).then(|| unzigzag(r.varint()));
            if let Some(t) = time {
                span = Some(widen(span, t));
            }
            if has(ACTIVE) {
                let t = match time {
                    Some(t) if has(ACTIVE_IS_TIME) => t as f64,
                    _ => f64::from_bits(r.u64()),
                };
                last_activity = Some(last_activity.map_or(t, |l: f64| l.max(t)));
            }
            if has(USAGE) {
                usage.add(&Usage {
                    input: r.num(),
                    output: r.num(),
                    cache_read: r.num(),
                    cache_write: r.num(),
                    cost: r.num(),
                    unpriced: r.num(),
                    negative_cost: has(NEGATIVE_COST),
                    negative_tokens: has(NEGATIVE_TOKENS),
                });
            }
            if has(MODEL) {
                let m = r.varint() as u32;
                if !models.contains(&m) {
                    models.push(m);
                }
            }
            counts.user_messages += u64::from(has(USER));
            counts.assistant_messages += u64::from(has(ASSISTANT));
            if has(CALLS) {
                counts.tool_calls += r.varint();
            }
            counts.tool_results += u64::from(has(TOOL_RESULT));
            counts.tool_errors += u64::from(has(TOOL_ERROR));
            compactions += u64::from(has(COMPACTION));
            let events = if has(EVENTS) { r.varint() } else { 0 };
            for _ in 0..events {
                match r.event() {
                    Event::Call {
                        name,
                        key,
                        id,
                        touch,
                    } => {
                        let tool = &self.names.all[name as usize];
                        tools.entry(tool.clone()).or_default().calls += 1;
                        if let Some(id) = id {
                            waiting.insert(id, calls.len());
                        }
                        calls.push(Call {
                            key,
                            entry: i,
                            failed: false,
                        });
                        if let Some((kind, path)) = touch {
                            touches.touched(kind, &self.paths.all[path as usize], id);
                        }
                    }
                    Event::Result {
                        call_id,
                        failed,
                        tool,
                    } => {
                        if failed {
                            let tool = &self.names.all[tool as usize];
                            tools.entry(tool.clone()).or_default().errors += 1;
                        }
                        touches.result(call_id, failed);
                        let at = call_id.and_then(|id| waiting.remove(id));
                        if let (Some(at), true) = (at, failed) {
                            calls[at].failed = true;
                        }
                    }
                }
            }
        }
        // The summary's `span_ms` (the header's time too) and `active_ms`, measured as
        // `Summary::active_span_ms` measures them.
        let span = header.timestamp_ms.map_or(span, |h| Some(widen(span, h)));
        #[allow(clippy::cast_possible_truncation)]
        let active = last_activity.filter(|t| *t > 0.0).map(|t| t as i64);
        let active_ms = match (span, active) {
            (Some((first, _)), Some(active)) => Some(active.saturating_sub(first).max(0)),
            (span, _) => span.map(|(first, last)| last - first),
        };
        let sums = Sums {
            usage,
            counts,
            active_ms,
            models: models
                .iter()
                .map(|&m| self.models.all[m as usize].clone())
                .collect(),
            files: touches.files,
        };
        let branch = Branch {
            path,
            calls,
            keys: self.keys.all.clone(),
            tools,
            compactions,
            cycle,
        };
        (branch, sums)
    }
}

/// LEB128.
fn put_varint(b: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        b.push((n as u8) | 0x80);
        n >>= 7;
    }
    b.push(n as u8);
}

fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

fn unzigzag(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

/// A number, exactly: a whole one from 0 below 2^52 as a varint of twice it, any other as 1
/// and its eight bytes (token counts are whole; costs are not).
fn put_num(b: &mut Vec<u8>, n: f64) {
    if n.fract() == 0.0 && n.is_sign_positive() && n < (1u64 << 52) as f64 {
        put_varint(b, (n as u64) << 1);
    } else {
        put_varint(b, 1);
        b.extend_from_slice(&n.to_bits().to_le_bytes());
    }
}

/// A string or none: its length plus one (0: none), then its bytes.
fn put_text(b: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => b.push(0),
        Some(s) => {
            put_varint(b, s.len() as u64 + 1);
            b.extend_from_slice(s.as_bytes());
        }
    }
}

/// Reads what the `put_` functions wrote.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> u8 {
        let (first, rest) = self.bytes.split_first().expect("a share as written");
        self.bytes = rest;
        *first
    }

    fn u64(&mut self) -> u64 {
        let (eight, rest) = self.bytes.split_at(8);
        self.bytes = rest;
        u64::from_le_bytes(eight.try_into().expect("eight bytes"))
    }

    fn varint(&mut self) -> u64 {
        let (mut n, mut shift) = (0u64, 0);
        loop {
            let b = self.byte();
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return n;
            }
            shift += 7;
        }
    }

    fn num(&mut self) -> f64 {
        match self.varint() {
            1 => f64::from_bits(self.u64()),
            n => (n >> 1) as f64,
        }
    }

    fn text(&mut self) -> Option<&'a str> {
        let len = self.varint().checked_sub(1)? as usize;
        let (s, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        // Written from a `str`.
        Some(std::str::from_utf8(s).unwrap_or_default())
    }

    fn event(&mut self) -> Event<'a> {
        if self.byte() == 0 {
            let name = self.varint() as u32;
            let key = self.varint() as u32;
            let touch = match self.byte() {
                0 => None,
                k => {
                    let kind = match k {
                        1 => Kind::Read,
                        2 => Kind::Write,
                        _ => Kind::Edit,
                    };
                    Some((kind, self.varint() as u32))
                }
            };
            let id = self.text();
            Event::Call {
                name,
                key,
                id,
                touch,
            }
        } else {
            let failed = self.byte() == 1;
            let tool = self.varint() as u32;
            let call_id = self.text();
            Event::Result {
                call_id,
                failed,
                tool,
            }
        }
    }
}

/// `span` grown to hold `t`.
fn widen(span: Option<(i64, i64)>, t: i64) -> (i64, i64) {
    span.map_or((t, t), |(first, last)| (first.min(t), last.max(t)))
}

/// A call's id, name and arguments as the decoded message gives them.
type Decoded = (Option<Value>, Option<Value>, Option<Value>);

/// The calls of the message, read from the skim's spans: each call's id and name decoded, and
/// of its arguments only `path` and `command` ([`calls::key`] and [`Touch::of`] read no
/// other); `None` where the skim is unsure.
fn spanned_calls(m: &MessageView) -> Option<Vec<Decoded>> {
    let blocks = m.tool_call_blocks()?;
    let decode = |span: Option<&[u8]>| match span {
        Some(span) => decoded_span(span).map(Some),
        None => Some(None),
    };
    blocks
        .into_iter()
        .map(|b| {
            let arguments = match b.arguments {
                None => None,
                Some(span) => Some(match object_members(span, [&b"path"[..], b"command"]) {
                    Some(found) => {
                        let mut kept = Map::new();
                        for (key, value) in ["path", "command"].into_iter().zip(found) {
                            if let Some(value) = value {
                                kept.insert(key.to_owned(), decoded_span(value)?);
                            }
                        }
                        Value::Object(kept)
                    }
                    None => decoded_span(span)?,
                }),
            };
            Some((decode(b.id)?, decode(b.name)?, arguments))
        })
        .collect()
}
