//! What a session did and cost, beyond pi's `/session` figures: gathered by [`Tally`] in the same
//! pass of the shared scan that builds a [`Summary`](crate::summary::Summary), so `stats` reads
//! each file once, like `ls`. [`crate::views::stats`] folds the rows of many sessions into report lines.
//!
//! Every usage pi's totals count (assistant and toolResult messages, `usage`, `compaction` and
//! `branch_summary` entries) becomes one [`Row`], so whatever the rows are grouped by, the groups
//! add up to pi's totals.

use std::collections::{BTreeMap, BTreeSet};

use std::fmt;
use std::sync::LazyLock;

use memchr::memmem::Finder;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use pisess_format::model::{
    object_members, serde_json_str, CallFacts, Entry, EntryKind, EntryLine, Header, Item, LooseArr,
    LooseNum, LooseObj, LooseStr, MessageView, Role, Usage,
};
use pisess_format::time::parse_js_date;

mod keyed;

use keyed::{Keyed, Links, Span, NO_LINK};

/// pi's name for the usage of tool results, compactions and branch summaries, which name no model.
pub(crate) const TOOLS_AND_SUMMARIES: &str = "Tools/summaries";

/// One message-bearing entry, or an entry with usage: the fact table of `stats --by message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Kept by the tally cache apart (only `--by message` prints it).
    #[serde(skip)]
    pub id: Option<String>,
    /// The entry's own time (its ISO `timestamp`, else the message's ms, else the header's).
    pub ts_ms: Option<i64>,
    /// The message role, or the entry type for `usage`, `compaction` and `branch_summary`.
    pub role: Name,
    /// A `message` entry (what pi's `totalMessages` counts), not an entry with usage.
    pub message: bool,
    /// Index into [`Tally::models`], as pi's `getUsageCostBreakdown` keys usage: an assistant's
    /// `provider/(responseModel ?? model)`, a `usage` entry's `provider/model`, and
    /// [`TOOLS_AND_SUMMARIES`] for tool results, compactions and branch summaries.
    pub model: Option<u32>,
    pub usage: Option<Usage>,
    /// A tool result's `toolName`.
    pub tool: Option<Name>,
    /// An assistant message's tool calls, by name (`""` when a call has none).
    pub calls: Vec<Name>,
    pub is_error: Option<bool>,
    /// Kept by the tally cache apart, as [`Row::id`] is. A [`Name`]: pi's own are static.
    #[serde(skip)]
    pub stop_reason: Option<Name>,
    /// A tool result's: the model of the assistant message whose call it answers (by its
    /// `toolCallId`), which `--by model` counts it under. [`Row::model`] stays pi's key for
    /// its usage.
    pub answers: Option<u32>,
    /// On the path from the leaf to its root.
    pub active: bool,
}

/// A role or tool name: pi's own are static, not one allocation per row (a report from the
/// tally cache decodes hundreds of thousands of rows).
/// Ordered as its text is (a tally's tools are kept by name).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Name(std::borrow::Cow<'static, str>);

impl Name {
    /// pi's roles, entry types, built-in tools and stop reasons, and `""`.
    const KNOWN: [&'static str; 23] = [
        "",
        "user",
        "assistant",
        "toolResult",
        "usage",
        "compaction",
        "branch_summary",
        "bashExecution",
        "custom",
        "branchSummary",
        "compactionSummary",
        "bash",
        "read",
        "edit",
        "write",
        "grep",
        "find",
        "ls",
        "stop",
        "toolUse",
        "error",
        "aborted",
        "length",
    ];

    pub fn new(s: &str) -> Name {
        match Name::known(s.as_bytes()) {
            Some(k) => Name(std::borrow::Cow::Borrowed(k)),
            None => Name(std::borrow::Cow::Owned(s.to_owned())),
        }
    }

    /// pi's own name spelled by `b`, if it is one: lengths compared first, bytes only then.
    fn known(b: &[u8]) -> Option<&'static str> {
        Name::KNOWN
            .iter()
            .find(|k| k.len() == b.len() && k.as_bytes() == b)
            .copied()
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name::new(s)
    }
}

/// Asked for as bytes, which postcard (the tally cache) stores as it stores a string: one of
/// pi's names is found without checking its UTF-8 first (that check of every row's role and
/// tool names was a tenth of a warm report's instructions); any other is checked.
impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Name, E> {
                Ok(Name::new(s))
            }
            fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<Name, E> {
                match Name::known(b) {
                    Some(k) => Ok(Name(std::borrow::Cow::Borrowed(k))),
                    None => std::str::from_utf8(b)
                        .map(|s| Name(std::borrow::Cow::Owned(s.to_owned())))
                        .map_err(|_| E::invalid_value(de::Unexpected::Bytes(b), &self)),
                }
            }
        }
        d.deserialize_bytes(V)
    }
}

/// A model as stored, and pi's breakdown key for it: `provider/model`, where JavaScript's
/// template spells a missing part `undefined`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelKey {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub key: String,
}

/// Per tool name.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCount {
    pub calls: u64,
    /// Results with `isError: true`.
    pub errors: u64,
}

/// Stop reasons of assistant messages.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stops {
    pub error: u64,
    pub aborted: u64,
    pub length: u64,
    /// The last assistant message's (file order) `stopReason` and `errorMessage`.
    pub last: Option<String>,
    pub last_error: Option<String>,
    /// Every assistant message's `errorMessage` (the provider's words), each distinct text once
    /// with how many messages had it, in order of first appearance.
    pub error_messages: Vec<(String, u64)>,
}

/// Paths named by the built-in tools' `path` argument, each once, sorted.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub struct Files {
    pub read: BTreeSet<String>,
    pub written: BTreeSet<String>,
    pub edited: BTreeSet<String>,
}

/// What `stats` learns from one file, in file order. Kept by the tally cache
/// ([`crate::cache::tallies`]) once [`Tally::finish`]ed: what only the pass needs is not
/// stored, and what a report over many sessions does not need (the fields skipped by serde
/// here, and [`Row::id`]) is stored apart and decoded only when asked for.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Tally {
    pub rows: Vec<Row>,
    /// The models the rows point into.
    pub models: Vec<ModelKey>,
    /// By [`Name`]: pi's own tools' names are not copied for each session.
    #[serde(skip)]
    pub tools: BTreeMap<Name, ToolCount>,
    /// `bash` commands whose result was an error, in file order.
    #[serde(skip)]
    pub failed_commands: Vec<String>,
    #[serde(skip)]
    pub stops: Stops,
    #[serde(skip)]
    pub compactions: u64,
    /// The sum of the compactions' `tokensBefore`.
    #[serde(skip)]
    pub tokens_before: f64,
    #[serde(skip)]
    pub branch_summaries: u64,
    #[serde(skip)]
    pub files: Files,
    /// Every entry's parent, to find the active branch at the end.
    #[serde(skip)]
    links: Links,
    /// Each row's entry in `links` ([`NO_LINK`]: one without an id), for the pass only.
    #[serde(skip)]
    row_links: Vec<u32>,
    /// The tool calls, for the results that answer them.
    #[serde(skip)]
    calls: Keyed<Call>,
    #[serde(skip)]
    seed000: bool,
    /// Gathers only what a report over many sessions groups (see [`Tally::rows_only`]).
    #[serde(skip)]
    rows_only: bool,
}

/// A `tool_result` block of a seed-000 user message: the call it answers, and whether it
/// failed.
pub(crate) struct BlockResult {
    pub(crate) call_id: Option<String>,
    pub(crate) is_error: bool,
}

/// The `tool_result` blocks of a seed-000 user message's content (its line, mapped to pi's
/// shape): the dialect carries a tool's result there, and it counts as a result (and an error)
/// all the same, as SPEC.md maps the dialect onto pi's model.
pub(crate) fn seed000_tool_results(json: &[u8]) -> Vec<BlockResult> {
    // Decoded only when it may hold one, as written or behind a `\u` escape: both the summary
    // and the tally ask of every user message of such a file.
    let holds = |needle: &[u8]| memchr::memmem::find(json, needle).is_some();
    if !holds(b"tool_result") && !holds(b"\\u") {
        return Vec::new();
    }
    let Ok(v) = pisess_format::json::decode(json) else {
        return Vec::new();
    };
    let Some(message) = Entry::of_kind(&EntryKind::Message, &v).message() else {
        return Vec::new();
    };
    let results = message.content().seed000_results();
    results
        .map(|(call_id, is_error)| BlockResult {
            call_id: call_id.and_then(Value::as_str).map(str::to_owned),
            is_error,
        })
        .collect()
}

/// The fields of a line `stats` needs beyond the listing's [`LineView`](pisess_format::model::LineView).
#[derive(Deserialize)]
struct Extra<'a> {
    #[serde(default, borrow)]
    message: LooseObj<ExtraMessage<'a>>,
    /// A `usage` entry's model.
    #[serde(default, borrow)]
    model: LooseStr<'a>,
    #[serde(rename = "tokensBefore", default)]
    tokens_before: LooseNum,
}

#[derive(Debug, Deserialize)]
struct ExtraMessage<'a> {
    #[serde(rename = "stopReason", default, borrow)]
    stop_reason: LooseStr<'a>,
    #[serde(rename = "errorMessage", default, borrow)]
    error_message: LooseStr<'a>,
    #[serde(default, borrow)]
    content: LooseArr<LooseObj<CallBlock<'a>>>,
    #[serde(rename = "responseModel", default, borrow)]
    response_model: LooseStr<'a>,
}

impl<'a> ExtraMessage<'a> {
    /// What `serde_json::from_slice::<Extra>` over an assistant's line gives of its message
    /// (its content's `toolCall` blocks only), read from the spans the skim found, each value
    /// decoded as serde_json decodes it in place. `None` where the spans cannot tell: the skim
    /// did not read the message, a key given twice, a line that may hold the top-level keys
    /// [`Extra`] reads besides `message`, or a value serde_json refuses (which fails its read
    /// of the whole line): then the line is read, as before.
    fn of_spans(json: &[u8], m: &MessageView<'a>) -> Option<ExtraMessage<'a>> {
        if m.extra_twice || !extra_keys_are_the_messages(json, m) {
            return None;
        }
        let decoded = |span: Option<&'a [u8]>| match span {
            Some(span) => serde_json_str(span),
            None => Some(LooseStr::default()),
        };
        let mut content = Vec::new();
        let mut block = |[kind, id, name, arguments]: [Option<&'a [u8]>; 4]| {
            let block = CallBlock {
                kind: decoded(kind)?,
                id: decoded(id)?,
                name: decoded(name)?,
                arguments: match arguments {
                    Some(span) => Arguments::of_span(span)?,
                    None => LooseObj::default(),
                },
            };
            if block.kind.get() == Some("toolCall") {
                content.push(LooseObj(Some(block)));
            }
            Some(())
        };
        match m.walked_call_blocks() {
            // Found on the skim's pass, with nothing else to read.
            Some(calls) => calls.iter().try_for_each(|found| block(*found))?,
            None => m.each_content_item([b"type", b"id", b"name", b"arguments"], |item| {
                match item {
                    Item::Block(found) => block(found),
                    // An item that is no object is none of its blocks, if serde_json reads it.
                    Item::Other(span) => serde_json::from_slice::<LooseObj<de::IgnoredAny>>(span)
                        .ok()
                        .map(drop),
                }
            })?,
        }
        // Content that is no array holds no blocks, if serde_json reads it.
        if let Some(span) = m.content.1.filter(|span| span.first() != Some(&b'[')) {
            serde_json::from_slice::<LooseArr<de::IgnoredAny>>(span).ok()?;
        }
        Some(ExtraMessage {
            stop_reason: decoded(m.stop_reason.1)?,
            error_message: decoded(m.error_message.1)?,
            content: LooseArr(content),
            response_model: decoded(m.response_model.1)?,
        })
    }
}

/// Whether the line holds neither of [`Extra`]'s top-level keys besides `message` (`model`,
/// `tokensBefore`), whose values (or a second of them) could fail serde_json's read of it: the
/// bytes spell `tokensBefore` nowhere, and `"model"` at most once, as the message's own key
/// (the skim read every key of the line and of the message unescaped).
///
/// The content's span, most of the line, is passed over: a key there is none of the line's,
/// and no word looked for can start before it and end inside it (it follows a colon) nor start
/// inside it and end after it (a comma or a brace follows it).
fn extra_keys_are_the_messages(json: &[u8], m: &MessageView) -> bool {
    let (before, after) = match m.content.1 {
        Some(span) if json.as_ptr_range().contains(&span.as_ptr()) => {
            let start = span.as_ptr() as usize - json.as_ptr() as usize;
            (&json[..start], &json[start + span.len()..])
        }
        _ => (json, &json[..0]),
    };
    // Searchers made once: what is searched is a few hundred bytes.
    static MODEL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\"model\""));
    static TOKENS_BEFORE: LazyLock<Finder<'static>> =
        LazyLock::new(|| Finder::new(b"tokensBefore"));
    let models = |part: &[u8]| MODEL.find_iter(part).take(2).count();
    let models = models(before) + models(after);
    let model_is_the_messages = models == 0 || models == 1 && m.model.get().is_some();
    let tokens_before = |part: &[u8]| TOKENS_BEFORE.find(part).is_some();
    model_is_the_messages && !tokens_before(before) && !tokens_before(after)
}

#[derive(Debug, Deserialize)]
struct CallBlock<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: LooseStr<'a>,
    #[serde(default, borrow)]
    id: LooseStr<'a>,
    #[serde(default, borrow)]
    name: LooseStr<'a>,
    #[serde(default, borrow)]
    arguments: LooseObj<Arguments<'a>>,
}

#[derive(Debug, Deserialize)]
struct Arguments<'a> {
    #[serde(default, borrow)]
    path: LooseStr<'a>,
    #[serde(default, borrow)]
    command: LooseStr<'a>,
}

impl<'a> Arguments<'a> {
    /// A call's arguments from their stored bytes as serde_json reads them in place (`None`
    /// where it refuses them, or the skim is unsure): an object's two keys found by the skim,
    /// anything else given to serde_json (which holds no arguments, or refuses it).
    fn of_span(span: &'a [u8]) -> Option<LooseObj<Arguments<'a>>> {
        if span.first() != Some(&b'{') {
            return serde_json::from_slice(span).ok();
        }
        let [path, command] = object_members(span, [b"path", b"command"])?;
        let decoded = |span: Option<&'a [u8]>| match span {
            Some(span) => serde_json_str(span),
            None => Some(LooseStr::default()),
        };
        Some(LooseObj(Some(Arguments {
            path: decoded(path)?,
            command: decoded(command)?,
        })))
    }
}

/// What a tool call's result needs of it, by the call's id: as three maps of ids, each value
/// replaced by a later call with the same id that has one.
#[derive(Debug, Clone, Default)]
struct Call {
    /// The model that made the call.
    model: Option<u32>,
    /// A `bash` call's command, to name it when its result fails.
    command: Option<Span>,
    /// The tool's name, for the seed-000 results, which name none (kept for that dialect's
    /// files only).
    name: Option<Name>,
}

/// `to = from.map(str::to_owned)`, keeping the text's room.
fn replace(to: &mut Option<String>, from: Option<&str>) {
    match (to.as_mut(), from) {
        (Some(old), Some(new)) => {
            old.clear();
            old.push_str(new);
        }
        _ => *to = from.map(str::to_owned),
    }
}

/// What [`Tally::observe`] read of an entry that the summary reads too, handed to it so that
/// nothing is read twice.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Observed {
    /// What pi's `/session` counts of an assistant or tool-result message.
    pub(crate) facts: Option<CallFacts>,
    /// The entry's usage (its message's, for a message), when decoded: `Some(None)` for none.
    pub(crate) usage: Option<Option<Usage>>,
    /// The entry's own `timestamp` parsed (`Some(None)`: none, or none JavaScript reads).
    pub(crate) timestamp: Option<Option<i64>>,
}

impl Tally {
    /// A tally of what a report over many sessions groups, as the tally cache gives it to such
    /// a report (`Want::Rows`): the rows without their ids and stop reasons, and the models.
    /// Not the tools, files, failed commands, stops, compactions and branch summaries that
    /// only the one-session view and `--by message` read: making them was a tenth of a
    /// report's first run without the cache.
    pub(crate) fn rows_only() -> Tally {
        Tally {
            rows_only: true,
            ..Tally::default()
        }
    }

    /// Takes one entry of the scan. Also returns what the summary reads of it that was read
    /// here ([`Observed`]): what pi's `/session` counts of an assistant or tool-result
    /// message, and the usage.
    pub(crate) fn observe(&mut self, header: &Header, e: &EntryLine) -> Observed {
        let link = match &e.id {
            Some(id) => self.links.insert(id, e.parent.as_deref()),
            None => NO_LINK,
        };
        if self.rows.capacity() == 0 {
            // As the links' room (`Keyed::FIRST`): most sessions have a few dozen rows.
            self.rows.reserve(Links::FIRST);
            self.row_links.reserve(Links::FIRST);
        }
        // Parsed once here, and handed to the summary.
        let entry_ms = e.view.timestamp.get().and_then(parse_js_date);
        let mut observed = self.observe_entry(header, e, entry_ms);
        observed.timestamp = Some(entry_ms);
        // Every row the entry made is its own.
        self.row_links.resize(self.rows.len(), link);
        observed
    }

    fn observe_entry(&mut self, header: &Header, e: &EntryLine, entry_ms: Option<i64>) -> Observed {
        let v = e.view;
        let ts_ms = entry_ms
            .or_else(|| {
                #[allow(clippy::cast_possible_truncation)]
                v.message
                    .0
                    .as_ref()
                    .and_then(|m| m.timestamp.0)
                    .map(|t| t as i64)
            })
            .or(header.timestamp_ms);
        let ids = !self.rows_only;
        let row = |role: &str, model, usage| Row {
            id: e.id.as_deref().filter(|_| ids).map(str::to_owned),
            ts_ms,
            role: Name::new(role),
            message: e.kind == EntryKind::Message,
            model,
            usage,
            tool: None,
            calls: Vec::new(),
            is_error: None,
            stop_reason: None,
            answers: None,
            active: false,
        };
        match e.kind {
            EntryKind::Usage | EntryKind::Compaction | EntryKind::BranchSummary => {
                let extra = serde_json::from_slice::<Extra>(e.json).ok();
                let usage = v.usage.and_then(Usage::from_raw);
                let model = match e.kind {
                    EntryKind::Usage => {
                        let model = extra.as_ref().and_then(|x| x.model.get());
                        Some(self.intern(v.provider.get(), model))
                    }
                    _ => Some(self.tools_and_summaries()),
                };
                if self.rows_only {
                    // Neither counted.
                } else if e.kind == EntryKind::Compaction {
                    self.compactions += 1;
                    self.tokens_before += extra.and_then(|x| x.tokens_before.0).unwrap_or(0.0);
                } else if e.kind == EntryKind::BranchSummary {
                    self.branch_summaries += 1;
                }
                // An entry pi adds nothing for is no row: only usage makes these count.
                if usage.is_some() || e.kind == EntryKind::Usage {
                    self.rows.push(row(e.kind.as_str(), model, usage));
                }
                Observed {
                    facts: None,
                    usage: Some(usage),
                    ..Observed::default()
                }
            }
            EntryKind::Message => {
                self.seed000 = header.dialect == pisess_format::model::Dialect::Seed000;
                let Some(m) = e.view.message.0.as_ref() else {
                    self.rows.push(row("", None, None));
                    return Observed::default();
                };
                let usage = m.usage.and_then(Usage::from_raw);
                Observed {
                    facts: self.observe_message(e, m, usage, row),
                    usage: Some(usage),
                    ..Observed::default()
                }
            }
            _ => Observed::default(),
        }
    }

    fn observe_message(
        &mut self,
        e: &EntryLine,
        m: &MessageView,
        usage: Option<Usage>,
        row: impl Fn(&str, Option<u32>, Option<Usage>) -> Row,
    ) -> Option<CallFacts> {
        let role = m.role.get().unwrap_or("");
        match Role::parse(role) {
            Role::Assistant => {
                // From the spans the skim found, else serde_json over the line, as before.
                let extra = ExtraMessage::of_spans(e.json, m).or_else(|| {
                    serde_json::from_slice::<Extra>(e.json)
                        .ok()
                        .and_then(|x| x.message.0)
                });
                let message = extra.as_ref();
                let model = message
                    .and_then(|x| x.response_model.get())
                    .or(m.model.get());
                let model = Some(self.intern(m.provider.get(), model));
                let mut r = row(role, model, usage);
                if let (Some(x), true) = (message, self.rows_only) {
                    self.take_calls(&x.content.0, model, &mut r.calls);
                } else if let Some(x) = message {
                    let stop = x.stop_reason.get();
                    match stop {
                        Some("error") => self.stops.error += 1,
                        Some("aborted") => self.stops.aborted += 1,
                        Some("length") => self.stops.length += 1,
                        _ => {}
                    }
                    // Written over, not made again: only the last message's are kept.
                    replace(&mut self.stops.last, stop);
                    replace(&mut self.stops.last_error, x.error_message.get());
                    if let Some(error) = x.error_message.get() {
                        let seen = &mut self.stops.error_messages;
                        match seen.iter_mut().find(|(text, _)| text == error) {
                            Some((_, n)) => *n += 1,
                            None => seen.push((error.to_owned(), 1)),
                        }
                    }
                    r.stop_reason = stop.map(Name::new);
                    self.take_calls(&x.content.0, model, &mut r.calls);
                } else {
                    self.stops.last = None;
                    self.stops.last_error = None;
                }
                let facts = message.map(|_| CallFacts {
                    tool_calls: r.calls.len() as u64,
                    is_error: false,
                });
                self.rows.push(r);
                facts
            }
            Role::ToolResult => {
                let model = usage.map(|_| self.tools_and_summaries());
                let mut r = row(role, model, usage);
                // The view holds a tool result's fields: its content is never decoded here.
                let is_error = m.is_error.0;
                let name = m.tool_name.get().unwrap_or("");
                r.answers = self.note_result(name, m.tool_call_id.get(), is_error);
                r.tool = m.tool_name.get().map(Name::new);
                r.is_error = Some(is_error);
                self.rows.push(r);
                Some(CallFacts {
                    tool_calls: 0,
                    is_error,
                })
            }
            parsed => {
                self.rows.push(row(role, None, None));
                if self.seed000 && parsed == Role::User {
                    // A row each, which is no message of its own (`Row::message` false): the
                    // user message holding them is.
                    for b in seed000_tool_results(e.json) {
                        let id = b.call_id.as_deref();
                        let call = id.and_then(|id| self.calls.get(id));
                        let name = call.and_then(|c| c.name.clone());
                        let mut r = row(Role::ToolResult.as_str(), None, None);
                        r.message = false;
                        let shown = name.as_deref().unwrap_or("");
                        r.answers = self.note_result(shown, id, b.is_error);
                        r.tool = name;
                        r.is_error = Some(b.is_error);
                        self.rows.push(r);
                    }
                }
                None
            }
        }
    }

    /// A tool result of `name` answering call `call_id`: a failure counted under its tool (and
    /// a failed `bash` command kept); the model whose call it answers.
    fn note_result(&mut self, name: &str, call_id: Option<&str>, is_error: bool) -> Option<u32> {
        if is_error && !self.rows_only {
            self.tools.entry(Name::new(name)).or_default().errors += 1;
            let call = call_id.and_then(|id| self.calls.get(id));
            if let Some(cmd) = call.and_then(|c| c.command) {
                if name == "bash" {
                    self.failed_commands.push(self.calls.at(cmd).to_owned());
                }
            }
        }
        let call = call_id.and_then(|id| self.calls.get(id));
        call.and_then(|c| c.model)
    }

    /// The `toolCall` blocks of an assistant's content: counted by name, files noted, `bash`
    /// commands kept by call id.
    fn take_calls(
        &mut self,
        blocks: &[LooseObj<CallBlock>],
        model: Option<u32>,
        names: &mut Vec<Name>,
    ) {
        for b in blocks.iter().filter_map(|b| b.0.as_ref()) {
            if b.kind.get() != Some("toolCall") {
                continue;
            }
            if let (Some(id), Some(model)) = (b.id.get(), model) {
                self.calls.value(id).model = Some(model);
            }
            let name = b.name.get().unwrap_or("");
            if let (true, Some(id)) = (self.seed000, b.id.get()) {
                self.calls.value(id).name = Some(Name::new(name));
            }
            names.push(Name::new(name));
            if self.rows_only {
                continue;
            }
            // The name is made only the first time.
            match self.tools.get_mut(name) {
                Some(count) => count.calls += 1,
                None => {
                    self.tools.entry(Name::new(name)).or_default().calls += 1;
                }
            }
            let args = b.arguments.0.as_ref();
            let path = args.and_then(|a| a.path.get()).map(str::to_owned);
            match (name, path) {
                ("read", Some(p)) => {
                    self.files.read.insert(p);
                }
                ("write", Some(p)) => {
                    self.files.written.insert(p);
                }
                ("edit", Some(p)) => {
                    self.files.edited.insert(p);
                }
                ("bash", _) => {
                    if let (Some(id), Some(cmd)) = (b.id.get(), args.and_then(|a| a.command.get()))
                    {
                        let cmd = self.calls.keep(cmd);
                        self.calls.value(id).command = Some(cmd);
                    }
                }
                _ => {}
            }
        }
    }

    fn intern(&mut self, provider: Option<&str>, model: Option<&str>) -> u32 {
        // Found without making the key (nearly every call names a model already seen).
        let (p, m) = (
            provider.unwrap_or("undefined"),
            model.unwrap_or("undefined"),
        );
        let seen = self.models.iter().position(|k| {
            k.provider.as_deref() == provider
                && k.model.as_deref() == model
                && k.key
                    .strip_prefix(p)
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|rest| rest == m)
        });
        if let Some(i) = seen {
            return u32::try_from(i).unwrap_or(u32::MAX);
        }
        // Not `format!`, whose machinery cost ten times the copies (a model a session).
        let mut key = String::with_capacity(p.len() + 1 + m.len());
        key.push_str(p);
        key.push('/');
        key.push_str(m);
        self.intern_key(ModelKey {
            provider: provider.map(str::to_owned),
            model: model.map(str::to_owned),
            key,
        })
    }

    fn tools_and_summaries(&mut self) -> u32 {
        let seen = self.models.iter().position(|k| {
            k.provider.is_none() && k.model.is_none() && k.key == TOOLS_AND_SUMMARIES
        });
        if let Some(i) = seen {
            return u32::try_from(i).unwrap_or(u32::MAX);
        }
        self.intern_key(ModelKey {
            provider: None,
            model: None,
            key: TOOLS_AND_SUMMARIES.to_owned(),
        })
    }

    fn intern_key(&mut self, model: ModelKey) -> u32 {
        let i = match self.models.iter().position(|m| *m == model) {
            Some(i) => i,
            None => {
                self.models.push(model);
                self.models.len() - 1
            }
        };
        u32::try_from(i).unwrap_or(u32::MAX)
    }

    /// Marks the rows on the active branch (leaf to root) once the file is read, and drops what
    /// only the pass needed.
    pub(crate) fn finish(&mut self, leaf: Option<&str>) {
        let links = &self.links;
        let mut active = vec![false; links.entries.len()];
        let mut at = leaf.and_then(|id| links.find(id));
        // A parent cycle ends the walk where it closes.
        while let Some(i) = at {
            let on = &mut active[i as usize];
            if *on {
                break;
            }
            *on = true;
            at = links.parent(i);
        }
        for (r, &link) in self.rows.iter_mut().zip(&self.row_links) {
            r.active = link != NO_LINK && active[link as usize];
        }
        self.links = Links::default();
        self.row_links = Vec::new();
        self.calls = Keyed::default();
    }

    /// `provider/model` of a row's model index.
    pub fn model_name(&self, i: Option<u32>) -> Option<String> {
        self.models.get(i? as usize).map(|m| m.key.clone())
    }

    /// Cost on the active branch and off it.
    pub fn cost_split(&self) -> (f64, f64) {
        let (mut on, mut off) = (0.0, 0.0);
        for r in &self.rows {
            let c = r.usage.map_or(0.0, |u| u.cost);
            if r.active {
                on += c;
            } else {
                off += c;
            }
        }
        (on, off)
    }

    /// Per model, in order of first use: assistant turns and usage.
    pub fn per_model(&self) -> Vec<(String, u64, Usage)> {
        let mut out: Vec<(Option<u32>, u64, Usage)> = Vec::new();
        for r in self
            .rows
            .iter()
            .filter(|r| r.usage.is_some() || r.role == "assistant")
        {
            let i = match out.iter().position(|(m, ..)| *m == r.model) {
                Some(i) => i,
                None => {
                    out.push((r.model, 0, Usage::default()));
                    out.len() - 1
                }
            };
            out[i].1 += u64::from(r.role == "assistant");
            if let Some(u) = &r.usage {
                out[i].2.add(u);
            }
        }
        out.into_iter()
            .map(|(m, turns, u)| {
                (
                    self.model_name(m).unwrap_or_else(|| "(no model)".into()),
                    turns,
                    u,
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pisess_format::model::{message_call_facts, LineView};

    #[test]
    fn names_read_back_from_postcard_as_written_and_bad_utf8_is_refused() {
        for s in [
            "",
            "user",
            "toolResult",
            "ls",
            "lsx",
            "mcp__tool",
            "ünïcode",
        ] {
            let bytes = postcard::to_stdvec(&Name::new(s)).unwrap();
            let back: Name = postcard::from_bytes(&bytes).unwrap();
            assert_eq!(back.as_str(), s);
            assert_eq!(
                matches!(back.0, std::borrow::Cow::Borrowed(_)),
                Name::KNOWN.contains(&s)
            );
        }
        // A string's encoding, its length then its bytes: not UTF-8.
        assert!(postcard::from_bytes::<Name>(&[2, 0xc3, 0x28]).is_err());
        let json: Name = serde_json::from_str("\"bash\"").unwrap();
        assert_eq!(json.as_str(), "bash");
    }
    use pisess_format::scan::{Input, Pass};

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

    fn tally(lines: &[&str]) -> (Tally, Vec<Option<CallFacts>>) {
        tally_to(lines, None)
    }

    /// [`tally`] finished at `leaf` (else at the last row's id).
    fn tally_to(lines: &[&str], leaf: Option<&str>) -> (Tally, Vec<Option<CallFacts>>) {
        let text = std::iter::once(HEADER)
            .chain(lines.iter().copied())
            .collect::<Vec<_>>()
            .join("\n");
        let mut t = Tally::default();
        let mut facts = Vec::new();
        Pass::new()
            .run(Input::Bytes(text.as_bytes(), "s"), |h, e| {
                let f = t.observe(h, e).facts;
                // The summary takes these instead of its own decode: they must be the same.
                if f.is_some() {
                    assert_eq!(f, Some(message_call_facts(e.json)), "{:?}", e.id);
                }
                facts.push(f);
                std::ops::ControlFlow::Continue(())
            })
            .unwrap();
        let last = t.rows.last().and_then(|r| r.id.clone());
        t.finish(leaf.or(last.as_deref()));
        (t, facts)
    }

    /// A call id used twice: the later call's model, the last `bash` command given for it
    /// (a later call of another tool keeps it), nothing for an id no call had.
    #[test]
    fn results_find_their_calls_by_id_as_maps_did() {
        let call = |model: &str, blocks: &str| {
            format!(
                r#"{{"type":"message","message":{{"role":"assistant","content":[{blocks}],"provider":"p","model":"{model}"}}}}"#
            )
        };
        let block = |id: &str, name: &str, args: &str| {
            format!(r#"{{"type":"toolCall","id":"{id}","name":"{name}","arguments":{args}}}"#)
        };
        let result = |id: &str| {
            format!(
                r#"{{"type":"message","message":{{"role":"toolResult","toolCallId":"{id}","toolName":"bash","content":[],"isError":true}}}}"#
            )
        };
        let lines = [
            call("m1", &block("x", "bash", r#"{"command":"first"}"#)),
            call("m2", &block("x", "read", r#"{"path":"/f"}"#)),
            result("x"),
            call(
                "m3",
                &[
                    block("y", "bash", r#"{"command":"second"}"#),
                    block("y", "bash", r#"{"command":"third"}"#),
                ]
                .join(","),
            ),
            result("y"),
            result("z"),
        ];
        // Past the first room of the tables.
        let many: Vec<String> = (0..100)
            .map(|i| {
                call(
                    "m4",
                    &block(&format!("c{i}"), "bash", &format!(r#"{{"command":"{i}"}}"#)),
                )
            })
            .chain((0..100).rev().step_by(7).map(|i| result(&format!("c{i}"))))
            .collect();
        let lines: Vec<&str> = lines.iter().chain(&many).map(String::as_str).collect();
        let (t, _) = tally(&lines);
        let answers = |i: usize| t.model_name(t.rows[i].answers);
        assert_eq!(answers(2).as_deref(), Some("p/m2"));
        assert_eq!(answers(4).as_deref(), Some("p/m3"));
        assert_eq!(answers(5), None);
        assert_eq!(answers(lines.len() - 1).as_deref(), Some("p/m4"));
        let later: Vec<String> = (0..100).rev().step_by(7).map(|i| i.to_string()).collect();
        let mut failed = vec!["first".to_owned(), "third".to_owned()];
        failed.extend(later);
        assert_eq!(t.failed_commands, failed);
        assert_eq!(t.tools["bash"].errors, 3 + 15);
    }

    /// The active branch as the map of ids to parents gave it: a later entry with the same id
    /// replaces the parent (and both its rows are on the branch or neither is), a parent
    /// cycle ends the walk, an entry without an id is on none, and a leaf no entry has marks
    /// nothing.
    #[test]
    fn the_active_branch_follows_the_last_parent_of_each_id() {
        let user = |id: &str, parent: &str| {
            let id = if id.is_empty() {
                String::new()
            } else {
                format!(r#""id":"{id}","#)
            };
            format!(
                r#"{{"type":"message",{id}"parentId":{parent},"message":{{"role":"user","content":"x"}}}}"#
            )
        };
        let lines = [
            user("a", "null"),
            user("b", r#""a""#),
            user("c", r#""b""#),
            user("b", "null"),
            user("", r#""c""#),
            user("p", r#""q""#),
            user("q", r#""p""#),
            user("r", r#""gone""#),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let active = |leaf| {
            let (t, _) = tally_to(&lines, Some(leaf));
            assert_eq!(t.rows.len(), 8);
            t.rows.iter().map(|r| r.active).collect::<Vec<_>>()
        };
        let (f, t) = (false, true);
        assert_eq!(active("c"), [f, t, t, t, f, f, f, f]);
        assert_eq!(active("b"), [f, t, f, t, f, f, f, f]);
        assert_eq!(active("q"), [f, f, f, f, f, t, t, f]);
        assert_eq!(active("r"), [f, f, f, f, f, f, f, t]);
        assert_eq!(active("nowhere"), [f; 8]);
    }

    /// What the spans answer of an assistant's line is what serde_json's read of it gives
    /// (its `toolCall` blocks), on the examples' lines and thousands of damaged copies.
    fn spans_agree(line: &[u8]) -> bool {
        let Some(view) = LineView::skim(line) else {
            return false;
        };
        let Some(m) = view.message.0.as_ref() else {
            return false;
        };
        let Some(spans) = ExtraMessage::of_spans(line, m) else {
            return false;
        };
        let whole = serde_json::from_slice::<Extra>(line)
            .ok()
            .and_then(|x| x.message.0);
        let mut whole = whole.unwrap_or_else(|| {
            panic!(
                "spans read what serde_json refuses: {}",
                String::from_utf8_lossy(line)
            )
        });
        whole.content.0.retain(|b| {
            b.0.as_ref()
                .is_some_and(|b| b.kind.get() == Some("toolCall"))
        });
        assert_eq!(
            format!("{spans:?}"),
            format!("{whole:?}"),
            "{}",
            String::from_utf8_lossy(line)
        );
        true
    }

    #[test]
    fn extra_from_spans_is_serde_jsons_reading() {
        let lines: &[&[u8]] = &[
            br#"{"type":"message","message":{"role":"assistant","content":[{"type":"thinking","thinking":"{\"type\":\"toolCall\"}"},{"type":"toolCall","id":"c\u0031","name":"bash","arguments":{"command":"ls \"x\"","path":5,"other":[{"path":"no"}]}},{"type":"toolCall","name":"read","arguments":"no object"},"x",7,null,[1]],"stopReason":"toolUse","errorMessage":"e\n","responseModel":"r","model":"m"}}"#,
            br#"{"type":"message","message":{"role":"assistant","content":"text","stopReason":5,"model":"m"}}"#,
            br#"{"type":"message","message":{"role":"assistant","content":null}}"#,
        ];
        for line in lines {
            assert!(spans_agree(line), "{}", String::from_utf8_lossy(line));
        }
        // Left to the line: what serde_json refuses, keys given twice, a top-level `model`.
        let left: &[&[u8]] = &[
            br#"{"type":"message","message":{"role":"assistant","errorMessage":"\ud83d"}}"#,
            br#"{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":"\ud83d"}]}}"#,
            br#"{"type":"message","message":{"role":"assistant","content":["\ud83d"]}}"#,
            br#"{"type":"message","message":{"role":"assistant","content":[{"type":"text","type":"text"}]}}"#,
            br#"{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","arguments":{"path":"a","path":"b"}}]}}"#,
            br#"{"type":"message","message":{"role":"assistant","responseModel":"a","responseModel":"b"}}"#,
            br#"{"type":"message","model":"\ud83d","message":{"role":"assistant"}}"#,
            br#"{"type":"message","model":"x","message":{"role":"assistant","model":"m"}}"#,
            br#"{"type":"message","tokensBefore":1e999,"message":{"role":"assistant"}}"#,
            b"{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"stopReason\":\"\xff\"}}",
        ];
        for line in left {
            let text = String::from_utf8_lossy(line);
            assert!(LineView::skim(line).is_some(), "{text}");
            assert!(!spans_agree(line), "{text}");
        }
        let mut lines = pisess_format::skim::example_lines();
        lines.retain(|l| memchr::memmem::find(l, b"\"assistant\"").is_some());
        assert!(lines.iter().filter(|l| spans_agree(l)).count() > 50);
        let specials = [
            b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'u', 0x01, 0xff, b'd',
        ];
        let took = pisess_format::skim::damaged(&lines, &specials, 0x7a11_e049, 20_000)
            .filter(|line| spans_agree(line))
            .count();
        assert!((1_000..19_000).contains(&took), "{took} of 20000 answered");
    }

    #[test]
    fn call_facts_match_the_summarys_own_reading() {
        let (t, facts) = tally(&[
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"tool\u0043all","id":"c1","name":"bash","arguments":{"command":"make"}},"x",{"type":5},{"type":"text","text":"toolCall"}],"provider":"p","model":"m"}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":"toolCall","provider":"p","model":"m","responseModel":"m2"}}"#,
            r#"{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[],"isError":true}}"#,
            r#"{"type":"message","id":"d","parentId":"a","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"toolResult","toolCallId":"c9","toolName":"read","content":[],"isError":"yes"}}"#,
        ]);
        assert_eq!(facts.len(), 4);
        assert!(facts.iter().all(Option::is_some));
        assert_eq!(
            t.tools["bash"],
            ToolCount {
                calls: 1,
                errors: 1
            }
        );
        // `isError: "yes"` is no error (pi's `=== true`), and no call named read was made.
        assert!(!t.tools.contains_key("read"));
        assert_eq!(t.failed_commands, ["make"]);
        // pi's breakdown keys: responseModel first.
        assert_eq!(t.model_name(t.rows[0].model).as_deref(), Some("p/m"));
        assert_eq!(t.model_name(t.rows[1].model).as_deref(), Some("p/m2"));
        // The leaf is d: a and d are active, b and c are not.
        let active: Vec<bool> = t.rows.iter().map(|r| r.active).collect();
        assert_eq!(active, [true, false, false, true]);
    }
}
