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
use crate::cmd::files::{Counts as FileCounts, Kind, Touch, Touches};
use crate::views::calls;

/// No index into a table.
const NONE: u32 = u32::MAX;

/// One entry's share of its branch's figures (40 bytes: a 400 MB session has 41,000).
#[derive(Debug, Clone, Copy)]
struct Share {
    /// The entry's ISO `timestamp`, in ms (with [`TIME`]).
    time: i64,
    /// pi's activity time of a user or assistant message with content (with [`ACTIVE`]).
    activity: f64,
    /// Into [`Records::usages`].
    usage: u32,
    /// Into [`Records::models`].
    model: u32,
    /// Its first event in [`Records::events`]; its last is before the next entry's first.
    events: u32,
    tool_calls: u32,
    class: u8,
}

const USER: u8 = 1;
const ASSISTANT: u8 = 2;
const TOOL_RESULT: u8 = 4;
const TOOL_ERROR: u8 = 8;
const COMPACTION: u8 = 16;
const TIME: u8 = 32;
const ACTIVE: u8 = 64;

/// A string in [`Records::ids`]: start and length (`len == NONE`: no string).
#[derive(Debug, Clone, Copy)]
struct Text {
    at: u32,
    len: u32,
}

/// A tool call or a tool result, as [`branch::read`](super::branch::read) meets it.
#[derive(Debug, Clone, Copy)]
enum Event {
    Call {
        /// Into [`Records::names`]: the call's `name` (`""` when no string).
        name: u32,
        /// Into [`Records::keys`]: [`calls::key`].
        key: u32,
        id: Text,
        /// What a `read`, `write` or `edit` did to a file, the file into [`Records::paths`].
        touch: Option<(Kind, u32)>,
    },
    Result {
        call_id: Text,
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
    shares: Vec<Share>,
    usages: Vec<Usage>,
    models: Table,
    names: Table,
    keys: Table,
    paths: Table,
    events: Vec<Event>,
    /// The calls' and results' ids, one after another.
    ids: String,
    /// More than 4 GiB of ids (or 2^32 of something): not recorded, the branch is read.
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
        !self.full && self.shares.len() == entries
    }

    /// The capacity the vectors grew past what they hold, given back (a tenth of the memory
    /// of `diff` of two long sessions).
    pub fn finish(&mut self) {
        self.shares.shrink_to_fit();
        self.usages.shrink_to_fit();
        self.events.shrink_to_fit();
        self.ids.shrink_to_fit();
    }

    fn text(&mut self, s: Option<&str>) -> Text {
        let none = Text { at: 0, len: NONE };
        let Some(s) = s else { return none };
        match (u32::try_from(self.ids.len()), u32::try_from(s.len())) {
            (Ok(at), Ok(len)) if len < NONE && at.checked_add(len).is_some() => {
                self.ids.push_str(s);
                Text { at, len }
            }
            _ => {
                self.full = true;
                none
            }
        }
    }

    fn id(&self, t: Text) -> Option<&str> {
        (t.len != NONE).then(|| &self.ids[t.at as usize..(t.at + t.len) as usize])
    }

    /// Takes in the next entry of the pass (in the index's order), as the summary's fold reads
    /// it without a tally.
    pub fn entry(&mut self, header: &Header, e: &EntryLine) {
        let v = e.view;
        let time = v.timestamp.get().and_then(parse_js_date);
        let Ok(events) = u32::try_from(self.events.len()) else {
            self.full = true;
            return;
        };
        let mut share = Share {
            time: time.unwrap_or(0),
            activity: 0.0,
            usage: NONE,
            model: NONE,
            events,
            tool_calls: 0,
            class: if time.is_some() { TIME } else { 0 },
        };
        match e.kind {
            EntryKind::Usage | EntryKind::Compaction | EntryKind::BranchSummary => {
                share.usage = self.usage(v.usage.and_then(Usage::from_raw));
                if e.kind == EntryKind::Compaction {
                    share.class |= COMPACTION;
                }
            }
            EntryKind::ModelChange => {
                share.model = self.model(v.provider.get(), v.model_id.get());
            }
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
                Some("user") => share.class |= USER,
                Some("assistant") => {
                    share.class |= ASSISTANT;
                    let n = self.calls(m, e, cwd);
                    share.tool_calls = u32::try_from(n).unwrap_or(u32::MAX);
                }
                Some("toolResult") => {
                    share.class |= TOOL_RESULT;
                    if m.is_error.0 {
                        share.class |= TOOL_ERROR;
                    }
                    let tool = self.names.number(m.tool_name.get().unwrap_or(""));
                    let call_id = self.text(m.tool_call_id.get());
                    self.events.push(Event::Result {
                        call_id,
                        failed: m.is_error.0,
                        tool,
                    });
                }
                _ => {}
            }
            if matches!(role, Some("assistant" | "toolResult")) {
                share.usage = self.usage(m.usage.and_then(Usage::from_raw));
            }
            if role == Some("assistant") {
                share.model = self.model(m.provider.get(), m.model.get());
            }
            if matches!(role, Some("user" | "assistant")) && m.content.0 {
                if let Some(t) = m.timestamp.0.or_else(|| time.map(|ms| ms as f64)) {
                    share.activity = t;
                    share.class |= ACTIVE;
                }
            }
        }
        self.shares.push(share);
    }

    fn usage(&mut self, usage: Option<Usage>) -> u32 {
        let Some(u) = usage else { return NONE };
        self.usages.push(u);
        u32::try_from(self.usages.len() - 1).expect("below 2^32 entries")
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
        let id = self.text(call.id.and_then(Value::as_str));
        let touch = Touch::of(call, cwd).map(|t| (t.kind(), self.paths.number(t.path())));
        self.events.push(Event::Call {
            name,
            key,
            id,
            touch,
        });
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
            let s = &self.shares[i];
            if s.class & TIME != 0 {
                span = Some(widen(span, s.time));
            }
            if s.usage != NONE {
                usage.add(&self.usages[s.usage as usize]);
            }
            if s.model != NONE && !models.contains(&s.model) {
                models.push(s.model);
            }
            counts.user_messages += u64::from(s.class & USER != 0);
            counts.assistant_messages += u64::from(s.class & ASSISTANT != 0);
            counts.tool_calls += u64::from(s.tool_calls);
            counts.tool_results += u64::from(s.class & TOOL_RESULT != 0);
            counts.tool_errors += u64::from(s.class & TOOL_ERROR != 0);
            compactions += u64::from(s.class & COMPACTION != 0);
            if s.class & ACTIVE != 0 {
                let t = s.activity;
                last_activity = Some(last_activity.map_or(t, |l: f64| l.max(t)));
            }
            let end = self
                .shares
                .get(i + 1)
                .map_or(self.events.len(), |n| n.events as usize);
            for event in &self.events[s.events as usize..end] {
                match *event {
                    Event::Call {
                        name,
                        key,
                        id,
                        touch,
                    } => {
                        let tool = &self.names.all[name as usize];
                        tools.entry(tool.clone()).or_default().calls += 1;
                        let id = self.id(id);
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
                        let call_id = self.id(call_id);
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
