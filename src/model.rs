//! pi's session format as pisess sees it: the header, the eleven entry types, message roles,
//! usage, the v1/v2 migrations and the seed-000 dialect.
//!
//! Two views of a line exist. [`LineView`] is a borrowed, lenient parse of only the fields the
//! index and listings need (wrong JSON types become `None`, never an error), cheap enough to run
//! on every line of every file: [`LineView::skim`] finds its fields with `crate::skim`, and
//! serde_json reads the lines the skim is unsure of. Full entries are `serde_json::Value`s in pi's own shape, decoded
//! only for the lines a command shows, so nothing pi wrote is dropped on the floor.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Map, Value};

use crate::skim::{Skim, Unsure};

/// A string field that is `None` when absent or of another JSON type.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct LooseStr<'a>(pub Option<Cow<'a, str>>);

impl LooseStr<'_> {
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// A number field that is `None` when absent or of another JSON type.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct LooseNum(pub Option<f64>);

/// An object field parsed as `T`, `None` when absent or not an object.
#[derive(Debug, Clone)]
pub struct LooseObj<T>(pub Option<T>);

impl<T> Default for LooseObj<T> {
    fn default() -> Self {
        LooseObj(None)
    }
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Generates the visitor methods that turn every other JSON type into `None`.
macro_rules! loose_others {
    ($($method:ident: $ty:ty),*) => {
        $(fn $method<E: de::Error>(self, _: $ty) -> Result<Self::Value, E> { Ok(Default::default()) })*
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> { Ok(Default::default()) }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> { Ok(Default::default()) }
    };
}

impl<'de: 'a, 'a> Deserialize<'de> for LooseStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LooseStr<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(LooseStr(Some(Cow::Borrowed(v))))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(LooseStr(Some(Cow::Owned(v.to_owned()))))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(LooseStr(Some(Cow::Owned(v))))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                drain_map(map).map(|()| LooseStr(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                drain_seq(seq).map(|()| LooseStr(None))
            }
            loose_others!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64);
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for LooseNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LooseNum;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            #[allow(clippy::cast_precision_loss)]
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(LooseNum(Some(v as f64)))
            }
            #[allow(clippy::cast_precision_loss)]
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(LooseNum(Some(v as f64)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(LooseNum(Some(v)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                drain_map(map).map(|()| LooseNum(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                drain_seq(seq).map(|()| LooseNum(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(LooseNum(None))
            }
            loose_others!(visit_bool: bool);
        }
        d.deserialize_any(V)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for LooseObj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = LooseObj<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|t| LooseObj(Some(t)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                drain_seq(seq).map(|()| LooseObj(None))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(LooseObj(None))
            }
            loose_others!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64);
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// Whether a field holds something other than `null`, found by skipping its value: nothing is
/// copied, decoded or checked as UTF-8. A message's `content` is most of a session's bytes, and
/// only its presence matters to every line but one (the text of `ls`'s first message).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Present(pub bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Present;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Present(false))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Present(false))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                IgnoredAny::deserialize(d).map(|_| Present(true))
            }
        }
        d.deserialize_option(V)
    }
}

/// The fields of a message that listings and the index need.
#[derive(Debug, Default, Deserialize)]
pub struct MessageView<'a> {
    #[serde(default, borrow)]
    pub role: LooseStr<'a>,
    #[serde(default)]
    pub timestamp: LooseNum,
    /// Present and not `null`; [`message_content_text`] decodes it when needed.
    #[serde(default)]
    pub content: Present,
    #[serde(default, borrow)]
    pub usage: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub provider: LooseStr<'a>,
    #[serde(default, borrow)]
    pub model: LooseStr<'a>,
}

/// A lenient, borrowed view of one entry line (pi's shape; seed-000 lines are normalized first).
#[derive(Debug, Default, Deserialize)]
pub struct LineView<'a> {
    #[serde(rename = "type", default, borrow)]
    pub kind: LooseStr<'a>,
    #[serde(default, borrow)]
    pub id: LooseStr<'a>,
    #[serde(rename = "parentId", default, borrow)]
    pub parent_id: LooseStr<'a>,
    #[serde(default, borrow)]
    pub timestamp: LooseStr<'a>,
    #[serde(default, borrow)]
    pub message: LooseObj<MessageView<'a>>,
    #[serde(rename = "targetId", default, borrow)]
    pub target_id: LooseStr<'a>,
    #[serde(default, borrow)]
    pub label: LooseStr<'a>,
    #[serde(default, borrow)]
    pub name: LooseStr<'a>,
    #[serde(default, borrow)]
    pub usage: Option<&'a RawValue>,
    #[serde(default, borrow)]
    pub provider: LooseStr<'a>,
    #[serde(rename = "modelId", default, borrow)]
    pub model_id: LooseStr<'a>,
}

impl<'a> LineView<'a> {
    /// The view of a line [`Skim`] vouches for, each kept field decoded by serde_json from its
    /// span, so it equals what `serde_json::from_slice::<LineView>` gives; `None` when the skim
    /// is unsure (then serde_json decides, as before). Skipping `message.content`, most of a
    /// line, is where the time goes, and the skim does that at memory speed.
    pub fn skim(bytes: &'a [u8]) -> Option<LineView<'a>> {
        let mut s = Skim::new(bytes);
        let mut view = LineView::default();
        each_field(&mut s, LINE_FIELDS, |key, s| {
            match key {
                b"type" => view.kind = loose_str(s.value())?,
                b"id" => view.id = loose_str(s.value())?,
                b"parentId" => view.parent_id = loose_str(s.value())?,
                b"timestamp" => view.timestamp = loose_str(s.value())?,
                b"message" if s.at_object() => {
                    view.message = LooseObj(Some(MessageView::skim(s)?));
                }
                b"message" => view.message = decode(s.value())?,
                b"targetId" => view.target_id = loose_str(s.value())?,
                b"label" => view.label = loose_str(s.value())?,
                b"name" => view.name = loose_str(s.value())?,
                b"usage" => view.usage = decode(s.value())?,
                b"provider" => view.provider = loose_str(s.value())?,
                b"modelId" => view.model_id = loose_str(s.value())?,
                _ => {
                    s.value().ok()?;
                }
            }
            Some(())
        })?;
        s.end().ok()?;
        Some(view)
    }
}

impl<'a> MessageView<'a> {
    fn skim(s: &mut Skim<'a>) -> Option<MessageView<'a>> {
        let mut view = MessageView::default();
        each_field(s, MESSAGE_FIELDS, |key, s| {
            match key {
                b"role" => view.role = loose_str(s.value())?,
                b"timestamp" => view.timestamp = decode(s.value())?,
                // What `Present` decodes, without a second pass over the content.
                b"content" => view.content = Present(s.value().ok()? != b"null"),
                b"usage" => view.usage = decode(s.value())?,
                b"provider" => view.provider = loose_str(s.value())?,
                b"model" => view.model = loose_str(s.value())?,
                _ => {
                    s.value().ok()?;
                }
            }
            Some(())
        })?;
        Some(view)
    }
}

/// The serde names of [`LineView`]'s and [`MessageView`]'s fields.
const LINE_FIELDS: &[&[u8]] = &[
    b"type",
    b"id",
    b"parentId",
    b"timestamp",
    b"message",
    b"targetId",
    b"label",
    b"name",
    b"usage",
    b"provider",
    b"modelId",
];
const MESSAGE_FIELDS: &[&[u8]] = &[
    b"role",
    b"timestamp",
    b"content",
    b"usage",
    b"provider",
    b"model",
];

/// Calls `read` with each key of the object at the cursor, which must read or skip its value.
/// A derived struct refuses a field of its own given twice, so such an object is left to
/// serde_json (`None`).
fn each_field<'a>(
    s: &mut Skim<'a>,
    fields: &[&[u8]],
    mut read: impl FnMut(&'a [u8], &mut Skim<'a>) -> Option<()>,
) -> Option<()> {
    let mut members = s.object().ok()?;
    let mut seen = 0u32;
    while let Some(key) = s.next_key(&mut members).ok()? {
        if let Some(bit) = fields.iter().position(|f| *f == key) {
            if seen & 1 << bit != 0 {
                return None;
            }
            seen |= 1 << bit;
        }
        read(key, s)?;
    }
    Some(())
}

/// A string field: a plain string (no escapes) is borrowed after the UTF-8 check serde_json
/// would make, without building a deserializer for it (on sessions of small entries that was
/// most of a line's cost); anything else goes to serde_json.
fn loose_str(span: Result<&[u8], Unsure>) -> Option<LooseStr<'_>> {
    let span = span.ok()?;
    if let Some(inner) = span.strip_prefix(b"\"").and_then(|s| s.strip_suffix(b"\"")) {
        if !inner.contains(&b'\\') {
            let text = std::str::from_utf8(inner).ok()?;
            return Some(LooseStr(Some(Cow::Borrowed(text))));
        }
    }
    decode(Ok(span))
}

/// A kept field, decoded by serde_json from the span the skim found.
fn decode<'a, T: Deserialize<'a>>(span: Result<&'a [u8], Unsure>) -> Option<T> {
    serde_json::from_slice(span.ok()?).ok()
}

/// The eleven entry types pi writes, the seed-000 extras, and anything else (kept and shown).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EntryKind {
    Message,
    ModelChange,
    ThinkingLevelChange,
    Usage,
    Compaction,
    ContextEdit,
    BranchSummary,
    Custom,
    CustomMessage,
    Label,
    SessionInfo,
    /// seed 000: a tool call recorded as its own entry (shown, never in context).
    ToolCall,
    /// seed 000: a thinking entry (shown, never in context).
    Thinking,
    Unknown(String),
}

impl EntryKind {
    pub fn parse(s: Option<&str>) -> EntryKind {
        match s {
            Some("message") => EntryKind::Message,
            Some("model_change") => EntryKind::ModelChange,
            Some("thinking_level_change") => EntryKind::ThinkingLevelChange,
            Some("usage") => EntryKind::Usage,
            Some("compaction") => EntryKind::Compaction,
            Some("context_edit") => EntryKind::ContextEdit,
            Some("branch_summary") => EntryKind::BranchSummary,
            Some("custom") => EntryKind::Custom,
            Some("custom_message") => EntryKind::CustomMessage,
            Some("label") => EntryKind::Label,
            Some("session_info") => EntryKind::SessionInfo,
            Some("tool_call") => EntryKind::ToolCall,
            Some("thinking") => EntryKind::Thinking,
            Some(other) => EntryKind::Unknown(other.to_owned()),
            None => EntryKind::Unknown(String::new()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            EntryKind::Message => "message",
            EntryKind::ModelChange => "model_change",
            EntryKind::ThinkingLevelChange => "thinking_level_change",
            EntryKind::Usage => "usage",
            EntryKind::Compaction => "compaction",
            EntryKind::ContextEdit => "context_edit",
            EntryKind::BranchSummary => "branch_summary",
            EntryKind::Custom => "custom",
            EntryKind::CustomMessage => "custom_message",
            EntryKind::Label => "label",
            EntryKind::SessionInfo => "session_info",
            EntryKind::ToolCall => "tool_call",
            EntryKind::Thinking => "thinking",
            EntryKind::Unknown(s) => s,
        }
    }
}

/// Which writer produced the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// pi itself (versions 1 to 3).
    Pi,
    /// The format described by seed 000 (`session_header`, `user_message`, ...).
    Seed000,
}

/// The first parsable line of a session file.
#[derive(Debug, Clone)]
pub struct Header {
    pub id: String,
    /// pi's version (1 when absent); seed-000 files report their own.
    pub version: u64,
    pub timestamp: Option<String>,
    /// `new Date(header.timestamp).getTime()`: an ISO string or a number of ms.
    pub timestamp_ms: Option<i64>,
    pub cwd: Option<String>,
    pub parent_session: Option<String>,
    pub dialect: Dialect,
    /// The header as stored.
    pub value: Value,
    /// Its line as stored, terminator included (set by the scan; `show --json` copies it).
    pub stored: Vec<u8>,
}

/// Why a first parsable line is not a session header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotAHeader {
    WrongType(String),
    NoId,
    /// A header behind a byte-order mark: pi's `JSON.parse` refuses the line.
    ByteOrderMark,
}

impl fmt::Display for NotAHeader {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            NotAHeader::WrongType(t) if t.is_empty() => {
                f.write_str("first line is not a session header (no \"type\")")
            }
            NotAHeader::WrongType(t) => {
                write!(f, "first line is not a session header (type \"{t}\")")
            }
            NotAHeader::NoId => f.write_str("session header has no string \"id\""),
            NotAHeader::ByteOrderMark => f.write_str(
                "a byte-order mark before the session header (pi cannot read it; remove the first 3 bytes)",
            ),
        }
    }
}

impl Header {
    /// Reads a header from the first parsable line. `stem` (the file name without `.jsonl`)
    /// is the id of seed-000 files, whose headers carry none.
    pub fn from_value(value: Value, stem: &str) -> Result<Header, NotAHeader> {
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        let dialect = match kind {
            "session" => Dialect::Pi,
            "session_header" => Dialect::Seed000,
            other => return Err(NotAHeader::WrongType(other.to_owned())),
        };
        let id = match (value.get("id").and_then(Value::as_str), dialect) {
            (Some(id), _) => id.to_owned(),
            (None, Dialect::Seed000) => stem.to_owned(),
            (None, Dialect::Pi) => return Err(NotAHeader::NoId),
        };
        let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let timestamp = match dialect {
            Dialect::Pi => text("timestamp"),
            Dialect::Seed000 => text("createdAt").or_else(|| text("timestamp")),
        };
        let key = if dialect == Dialect::Seed000 && value.get("createdAt").is_some() {
            "createdAt"
        } else {
            "timestamp"
        };
        #[allow(clippy::cast_possible_truncation)]
        let timestamp_ms = match value.get(key) {
            Some(Value::String(s)) => crate::time::parse_js_date(s),
            // `new Date(number)` keeps the integral milliseconds of a finite number.
            Some(Value::Number(n)) => n
                .as_f64()
                .filter(|x| x.abs() <= 8.64e15)
                .map(|x| x.trunc() as i64),
            _ => None,
        };
        Ok(Header {
            id,
            timestamp_ms,
            version: value.get("version").and_then(Value::as_u64).unwrap_or(1),
            timestamp,
            cwd: text("cwd"),
            parent_session: text("parentSession"),
            dialect,
            value,
            stored: Vec::new(),
        })
    }

    /// Whether pi would migrate this file's entries from v1 (assign ids and parents).
    pub fn needs_v1_ids(&self) -> bool {
        self.dialect == Dialect::Pi && self.version < 2
    }
}

/// The id pisess gives the `n`th (1-based) entry of a v1 file. pi picks random ids when it
/// migrates; ours are the same every run so `--leaf` works on v1 files.
pub fn v1_id(n: usize) -> String {
    format!("{n:08x}")
}

/// Applies pi's in-memory migrations to a full entry: v1 ids and parents (given by the index),
/// `firstKeptEntryIndex` → `firstKeptEntryId`, and the v3 rename of role `hookMessage`.
pub fn migrate_entry(
    entry: &mut Value,
    header: &Header,
    v1: Option<(&str, Option<&str>, Option<String>)>,
) {
    let Some(obj) = entry.as_object_mut() else {
        return;
    };
    if let Some((id, parent, first_kept)) = v1 {
        obj.insert("id".into(), Value::from(id));
        obj.insert("parentId".into(), parent.map_or(Value::Null, Value::from));
        if obj.get("type").and_then(Value::as_str) == Some("compaction")
            && obj.get("firstKeptEntryIndex").is_some_and(Value::is_number)
        {
            obj.remove("firstKeptEntryIndex");
            if let Some(target) = first_kept {
                obj.insert("firstKeptEntryId".into(), Value::from(target));
            }
        }
    }
    if header.dialect == Dialect::Pi && header.version < 3 {
        if let Some(message) = obj.get_mut("message").and_then(Value::as_object_mut) {
            if message.get("role").and_then(Value::as_str) == Some("hookMessage") {
                message.insert("role".into(), Value::from("custom"));
            }
        }
    }
}

/// Maps one seed-000 line onto pi's shape, so every later step reads a single model.
///
/// `user_message`/`assistant_message`/`tool_result` become `message` entries; blocks
/// `tool_use`, `thinking.text` and `image.source` become pi's `toolCall`, `thinking.thinking`
/// and `image{data,mimeType}`; usage `inputTokens`... becomes pi's usage with `cost.total`.
/// Other types (`tool_call`, `thinking`, `compaction`, `branch_summary`) keep their type.
pub fn normalize_seed000(mut line: Value) -> Value {
    let Some(obj) = line.as_object_mut() else {
        return line;
    };
    let kind = obj
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let role = match kind.as_str() {
        "user_message" => "user",
        "assistant_message" => "assistant",
        "tool_result" => "toolResult",
        _ => {
            if let Some(content) = obj.get_mut("content") {
                normalize_seed000_blocks(content);
            }
            // The dialect's compaction counts its summary in `tokenCount`.
            if kind == "compaction" && !obj.contains_key("tokensBefore") {
                if let Some(count) = obj.get("tokenCount").cloned() {
                    obj.insert("tokensBefore".into(), count);
                }
            }
            return line;
        }
    };
    let mut message = Map::new();
    message.insert("role".into(), Value::from(role));
    let content = match role {
        "toolResult" => obj
            .get("output")
            .and_then(|o| o.get("content"))
            .cloned()
            .unwrap_or_else(|| json!([])),
        _ => obj.get("content").cloned().unwrap_or_else(|| json!([])),
    };
    let mut content = content;
    normalize_seed000_blocks(&mut content);
    message.insert("content".into(), content);
    if role == "assistant" {
        message.insert("provider".into(), Value::Null);
        let model = obj.get("modelId").cloned().unwrap_or(Value::Null);
        message.insert("model".into(), model);
        message.insert("usage".into(), seed000_usage(obj));
        if let Some(level) = obj.get("thinkingLevel") {
            message.insert("thinkingLevel".into(), level.clone());
        }
        let stop = if content_has_tool_use(obj.get("content")) {
            "toolUse"
        } else {
            "stop"
        };
        message.insert("stopReason".into(), Value::from(stop));
    }
    if role == "toolResult" {
        for (from, to) in [
            ("toolCallId", "toolCallId"),
            ("toolName", "toolName"),
            ("details", "details"),
        ] {
            if let Some(v) = obj.get(from) {
                message.insert(to.into(), v.clone());
            }
        }
        let is_error = obj.get("isError").cloned().unwrap_or(Value::Bool(false));
        message.insert("isError".into(), is_error);
    }
    if let Some(ms) = obj
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(crate::time::parse_js_date)
    {
        message.insert("timestamp".into(), Value::from(ms));
    }
    let mut out = Map::new();
    out.insert("type".into(), Value::from("message"));
    for key in ["id", "parentId", "timestamp"] {
        if let Some(v) = obj.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    out.insert("message".into(), Value::Object(message));
    Value::Object(out)
}

fn content_has_tool_use(content: Option<&Value>) -> bool {
    content
        .and_then(Value::as_array)
        .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_use"))
}

fn seed000_usage(obj: &Map<String, Value>) -> Value {
    let u = obj.get("usage");
    let n = |key: &str| {
        u.and_then(|u| u.get(key))
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
    };
    let (input, output, read, write) = (
        n("inputTokens"),
        n("outputTokens"),
        n("cacheReadTokens"),
        n("cacheWriteTokens"),
    );
    let cost = obj.get("cost").and_then(Value::as_f64).unwrap_or(0.0);
    json!({
        "input": number(input), "output": number(output),
        "cacheRead": number(read), "cacheWrite": number(write),
        "totalTokens": number(input + output + read + write),
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost},
    })
}

/// A JSON number that prints as an integer when it is one, as JavaScript does.
pub fn number(x: f64) -> Value {
    #[allow(clippy::cast_possible_truncation)]
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

fn normalize_seed000_blocks(content: &mut Value) {
    let Some(blocks) = content.as_array_mut() else {
        return;
    };
    for block in blocks {
        let Some(b) = block.as_object_mut() else {
            continue;
        };
        match b.get("type").and_then(Value::as_str) {
            Some("tool_use") => {
                let mut call = Map::new();
                call.insert("type".into(), Value::from("toolCall"));
                call.insert("id".into(), b.get("id").cloned().unwrap_or(Value::Null));
                call.insert("name".into(), b.get("name").cloned().unwrap_or(Value::Null));
                call.insert(
                    "arguments".into(),
                    b.get("input").cloned().unwrap_or_else(|| json!({})),
                );
                *b = call;
            }
            Some("thinking") if !b.contains_key("thinking") => {
                if let Some(text) = b.remove("text") {
                    b.insert("thinking".into(), text);
                }
            }
            Some("image") => {
                if let Some(source) = b.remove("source") {
                    b.insert(
                        "data".into(),
                        source.get("data").cloned().unwrap_or(Value::Null),
                    );
                    let mime = source.get("mediaType").or_else(|| source.get("media_type"));
                    b.insert("mimeType".into(), mime.cloned().unwrap_or(Value::Null));
                }
            }
            _ => {}
        }
    }
}

/// Token and cost counts, pi's `Usage` reduced to what totals need.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Usage {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub cost: f64,
}

#[derive(Deserialize)]
struct UsageView {
    #[serde(default)]
    input: LooseNum,
    #[serde(default)]
    output: LooseNum,
    #[serde(rename = "cacheRead", default)]
    cache_read: LooseNum,
    #[serde(rename = "cacheWrite", default)]
    cache_write: LooseNum,
    #[serde(default)]
    cost: LooseObj<CostView>,
}

#[derive(Deserialize)]
struct CostView {
    #[serde(default)]
    total: LooseNum,
}

impl Usage {
    /// Reads a stored usage object; missing or mistyped counts are 0 (pi would produce NaN).
    pub fn from_raw(raw: &RawValue) -> Option<Usage> {
        let view: LooseObj<UsageView> = serde_json::from_str(raw.get()).ok()?;
        let v = view.0?;
        Some(Usage {
            input: v.input.0.unwrap_or(0.0),
            output: v.output.0.unwrap_or(0.0),
            cache_read: v.cache_read.0.unwrap_or(0.0),
            cache_write: v.cache_write.0.unwrap_or(0.0),
            cost: v.cost.0.and_then(|c| c.total.0).unwrap_or(0.0),
        })
    }

    pub fn add(&mut self, other: &Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.cost += other.cost;
    }

    pub fn total_tokens(&self) -> f64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

/// The text of a message's content as pi's listing extracts it: a string as is, else the
/// `text` blocks joined with a space. `None` when the content is neither (pi drops such
/// sessions from its listing; pisess lists them and treats the text as empty).
pub fn content_text(raw: Option<&RawValue>) -> Option<String> {
    match serde_json::from_str::<Value>(raw?.get()).ok()? {
        Value::String(s) => Some(s),
        Value::Array(blocks) => {
            let parts: Vec<String> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .map(|b| crate::js::js_join_element(b.get("text")))
                .collect();
            Some(parts.join(" "))
        }
        _ => None,
    }
}

/// [`content_text`] of `message.content` in an entry line (the text a [`LineView`] was read from).
pub fn message_content_text(line: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(default, borrow)]
        message: LooseObj<Message<'a>>,
    }
    #[derive(Deserialize)]
    struct Message<'a> {
        #[serde(default, borrow)]
        content: Option<&'a RawValue>,
    }
    let line: Line = serde_json::from_slice(line).ok()?;
    content_text(line.message.0?.content)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(line: &str) -> LineView<'_> {
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn wrong_types_become_none_not_errors() {
        let v = view(
            r#"{"type":"message","id":5,"parentId":null,"timestamp":5,"message":{"role":42,"content":{}}}"#,
        );
        assert_eq!(v.kind.get(), Some("message"));
        assert_eq!(v.id.get(), None);
        assert_eq!(v.parent_id.get(), None);
        assert_eq!(v.timestamp.get(), None);
        let m = v.message.0.unwrap();
        assert_eq!(m.role.get(), None);
        assert_eq!(m.content, Present(true));
    }

    #[test]
    fn content_presence_without_decoding() {
        let present = |line: &str| view(line).message.0.unwrap().content;
        assert_eq!(present(r#"{"message":{"role":"user"}}"#), Present(false));
        assert_eq!(present(r#"{"message":{"content":null}}"#), Present(false));
        assert_eq!(present(r#"{"message":{"content":"a\"b"}}"#), Present(true));
        assert_eq!(
            present(r#"{"message":{"content":[{"t":[1,{}]}]}}"#),
            Present(true)
        );
        assert_eq!(present(r#"{"message":{"content":0}}"#), Present(true));
        assert!(serde_json::from_str::<LineView>(r#"{"message":{"content":[1,}}"#).is_err());
        let line = br#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}"#;
        assert_eq!(message_content_text(line).as_deref(), Some("a b"));
        assert_eq!(message_content_text(br#"{"message":"x"}"#), None);
    }

    /// The skim is a shortcut, never a second opinion: what it vouches for, serde_json reads
    /// the same way.
    fn assert_skim_agrees(line: &[u8]) -> bool {
        let Some(skimmed) = LineView::skim(line) else {
            return false;
        };
        let decoded = serde_json::from_slice::<LineView>(line).unwrap_or_else(|e| {
            panic!(
                "skim accepted what serde_json refuses ({e}): {}",
                String::from_utf8_lossy(line)
            )
        });
        assert_eq!(
            format!("{skimmed:?}"),
            format!("{decoded:?}"),
            "{}",
            String::from_utf8_lossy(line)
        );
        true
    }

    #[test]
    fn skim_vouches_only_for_what_serde_json_reads_alike() {
        let take = [
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"x\n\"y\" \u00e9"}],"timestamp":1.5e3}}"#,
            r#" {"type":"label","targetId":"a","label":"b\u0041","x":[1,{"y":[]}]} "#,
            r#"{"message":{"content":null,"usage":{"input":1},"provider":"p","model":"m"},"usage":null}"#,
            r#"{"message":[1,2],"name":{"a":1},"id":7}"#,
            r#"{"message":"hi","modelId":"m","provider":true}"#,
            r#"{"clé":1,"type":"x","message":{"rôle":2,"role":"user"}}"#,
            "{\"type\":\"custom\",\"data\":\"\\ud83d\"}",
            "{}",
        ];
        for line in take {
            assert!(assert_skim_agrees(line.as_bytes()), "not skimmed: {line}");
        }
        // Left to serde_json: it refuses some, reads others with rules the skim does not know.
        let leave: &[&[u8]] = &[
            br#"{"type":"a","type":"b"}"#,
            br#"{"message":{"role":"a","role":"b"}}"#,
            br#"{"typ\u0065":"message"}"#,
            b"{\"t\xffpe\":1}",
            br#"{"message":{"timestamp":1e999}}"#,
            br#"{"id":1e999}"#,
            br#"[1]"#,
            br#"{"a":1}{"b":2}"#,
            br#"{"a":"unterminated}"#,
            b"{\"a\":\"tab\there\"}",
            b"{\"a\":1}\x0c",
        ];
        for line in leave {
            assert!(
                LineView::skim(line).is_none(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        // Invalid UTF-8 inside a skipped string is serde_json's business neither.
        assert!(assert_skim_agrees(b"{\"id\":\"a\",\"data\":\"\xff\"}"));
    }

    /// Every line of the bundled examples, and thousands of damaged copies of them: the skim
    /// takes the intact lines, and anything it takes, damaged or not, reads alike.
    #[test]
    fn skim_agrees_with_serde_json_on_damaged_lines() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sessions");
        let mut lines = Vec::new();
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "jsonl") {
                    let text = std::fs::read(&path).unwrap();
                    lines.extend(text.split(|&b| b == b'\n').map(<[u8]>::to_vec));
                }
            }
        }
        let objects: Vec<_> = lines
            .iter()
            .filter(|l| serde_json::from_slice::<Map<String, Value>>(l).is_ok())
            .collect();
        let skimmed = objects.iter().filter(|l| assert_skim_agrees(l)).count();
        assert!(objects.len() > 100);
        // The few left to serde_json are the examples' deliberately odd lines.
        assert!(
            skimmed * 100 >= objects.len() * 95,
            "{skimmed} of {}",
            objects.len()
        );

        let specials = [
            b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'u', 0x01, 0xff,
        ];
        let mut next = crate::skim::rng(0x9e37_79b9_7f4a_7c15);
        let mut took = 0;
        for _ in 0..20_000 {
            let mut line = objects[next(objects.len())].clone();
            for _ in 0..=next(3) {
                let at = next(line.len() + 1);
                match next(4) {
                    0 if at < line.len() => drop(line.remove(at)),
                    1 => line.insert(at, specials[next(specials.len())]),
                    2 if at < line.len() => line[at] = specials[next(specials.len())],
                    _ => line.truncate(at),
                }
            }
            took += usize::from(assert_skim_agrees(&line));
        }
        // Both sides of the shortcut were exercised.
        assert!((2_000..18_000).contains(&took), "{took} of 20000 skimmed");
    }

    #[test]
    fn message_of_wrong_type_is_none() {
        let v = view(r#"{"type":"message","message":"hi"}"#);
        assert!(v.message.0.is_none());
    }

    #[test]
    fn escaped_strings_are_decoded() {
        let v = view(r#"{"type":"session_info","name":"a\"b\u00e9"}"#);
        assert_eq!(v.name.get(), Some("a\"bé"));
    }

    #[test]
    fn entry_kinds_round_trip() {
        for name in [
            "message",
            "model_change",
            "thinking_level_change",
            "usage",
            "compaction",
            "context_edit",
            "branch_summary",
            "custom",
            "custom_message",
            "label",
            "session_info",
            "weird_future_type",
        ] {
            assert_eq!(EntryKind::parse(Some(name)).as_str(), name);
        }
    }

    #[test]
    fn header_rules() {
        let h = Header::from_value(
            json!({"type":"session","id":"abc","cwd":"/x","version":3}),
            "f",
        )
        .unwrap();
        assert_eq!(
            (h.id.as_str(), h.version, h.dialect),
            ("abc", 3, Dialect::Pi)
        );
        let v1 = Header::from_value(json!({"type":"session","id":"abc"}), "f").unwrap();
        assert!(v1.needs_v1_ids());
        assert_eq!(
            Header::from_value(json!({"type":"session"}), "f").unwrap_err(),
            NotAHeader::NoId
        );
        assert!(matches!(
            Header::from_value(json!({"type":"message","id":"x"}), "f"),
            Err(NotAHeader::WrongType(_))
        ));
        let seed = Header::from_value(
            json!({"type":"session_header","version":1,"createdAt":"2026-07-31T12:00:00Z"}),
            "stem",
        )
        .unwrap();
        assert_eq!(seed.id, "stem");
        assert_eq!(seed.dialect, Dialect::Seed000);
        assert!(!seed.needs_v1_ids());
        assert_eq!(seed.timestamp.as_deref(), Some("2026-07-31T12:00:00Z"));
        assert_eq!(seed.timestamp_ms, Some(1_785_499_200_000));
        let numeric =
            Header::from_value(json!({"type":"session","id":"n","timestamp":1000.7}), "f").unwrap();
        assert_eq!(numeric.timestamp_ms, Some(1000));
    }

    #[test]
    fn migrations() {
        let header =
            Header::from_value(json!({"type":"session","id":"h","version":2}), "f").unwrap();
        let mut e = json!({"type":"message","id":"a","parentId":null,"message":{"role":"hookMessage","content":"x"}});
        migrate_entry(&mut e, &header, None);
        assert_eq!(e["message"]["role"], "custom");

        let v1 = Header::from_value(json!({"type":"session","id":"h"}), "f").unwrap();
        let mut c =
            json!({"type":"compaction","summary":"s","firstKeptEntryIndex":2,"tokensBefore":5});
        migrate_entry(
            &mut c,
            &v1,
            Some(("00000003", Some("00000002"), Some("00000001".into()))),
        );
        assert_eq!(c["id"], "00000003");
        assert_eq!(c["parentId"], "00000002");
        assert_eq!(c["firstKeptEntryId"], "00000001");
        assert!(c.get("firstKeptEntryIndex").is_none());
    }

    #[test]
    fn seed000_assistant_maps_to_pi_shape() {
        let line = json!({
            "type":"assistant_message","id":"e2","parentId":"e1","timestamp":"2026-07-31T12:00:03Z",
            "modelId":"claude","content":[{"type":"text","text":"ok"},
              {"type":"tool_use","id":"tc","name":"write","input":{"path":"a"}}],
            "usage":{"inputTokens":1500,"outputTokens":120,"cacheReadTokens":200,"cacheWriteTokens":0},
            "cost":0.005});
        let e = normalize_seed000(line);
        assert_eq!(e["type"], "message");
        assert_eq!(e["message"]["role"], "assistant");
        assert_eq!(e["message"]["model"], "claude");
        assert_eq!(e["message"]["content"][1]["type"], "toolCall");
        assert_eq!(e["message"]["content"][1]["arguments"]["path"], "a");
        assert_eq!(e["message"]["usage"]["totalTokens"], 1820);
        assert_eq!(e["message"]["usage"]["cost"]["total"], 0.005);
        assert_eq!(e["message"]["stopReason"], "toolUse");
        assert_eq!(e["message"]["timestamp"], 1_785_499_203_000_i64);
    }

    #[test]
    fn seed000_tool_result_and_blocks() {
        let e = normalize_seed000(json!({"type":"tool_result","id":"e4","parentId":"e3",
            "toolCallId":"tc","toolName":"write","output":{"content":[{"type":"text","text":"done"}]},"isError":false}));
        assert_eq!(e["message"]["role"], "toolResult");
        assert_eq!(e["message"]["content"][0]["text"], "done");
        let t = normalize_seed000(
            json!({"type":"thinking","id":"t","content":[{"type":"thinking","text":"hmm"},
            {"type":"image","source":{"type":"base64","mediaType":"image/png","data":"AA=="}}]}),
        );
        assert_eq!(t["type"], "thinking");
        assert_eq!(t["content"][0]["thinking"], "hmm");
        assert_eq!(t["content"][1]["mimeType"], "image/png");
    }

    #[test]
    fn usage_and_text() {
        let raw = RawValue::from_string(
            r#"{"input":1,"output":2,"cacheRead":3,"cacheWrite":"x","cost":{"total":0.5}}"#.into(),
        )
        .unwrap();
        let u = Usage::from_raw(&raw).unwrap();
        assert_eq!(u.total_tokens(), 6.0);
        assert_eq!(u.cost, 0.5);
        let blocks = RawValue::from_string(
            r#"[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"},{"type":"text"}]"#.into(),
        )
        .unwrap();
        assert_eq!(content_text(Some(&blocks)).as_deref(), Some("a b "));
        let s = RawValue::from_string(r#""plain""#.into()).unwrap();
        assert_eq!(content_text(Some(&s)).as_deref(), Some("plain"));
        let bad = RawValue::from_string("{}".into()).unwrap();
        assert_eq!(content_text(Some(&bad)), None);
    }
}
