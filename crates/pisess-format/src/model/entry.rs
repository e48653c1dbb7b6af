//! The types every command shares: the lenient serde wrappers, the header, entry kinds, the
//! migrations pi applies in memory, and usage.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::json;
use crate::skim::Skim;

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
            // Any deserializer but the skim's, which reads the string itself.
            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
            loose_others!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64);
        }
        // A lone surrogate is held as the one decoder holds it, where the skim reads the line.
        d.deserialize_newtype_struct(crate::de::MENDED, V)
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

/// Whether a field is the JSON value `true` (pi's `isError === true`); any other value, or none,
/// is false.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LooseTrue(pub bool);

impl<'de> Deserialize<'de> for LooseTrue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LooseTrue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(LooseTrue(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                drain_map(map).map(|()| LooseTrue(false))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                drain_seq(seq).map(|()| LooseTrue(false))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(LooseTrue(false))
            }
            loose_others!(visit_i64: i64, visit_u64: u64, visit_f64: f64);
        }
        d.deserialize_any(V)
    }
}

/// The number of content blocks of type `toolCall` in a message's `content` (pi's
/// `content.filter((c) => c.type === "toolCall")` when it is an array, else none), counted while
/// the array is skipped: no block is copied.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ToolCallCount(pub u64);

impl<'de> Deserialize<'de> for ToolCallCount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Typed<'a> {
            #[serde(rename = "type", default, borrow)]
            kind: LooseStr<'a>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ToolCallCount;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut n = 0;
                while let Some(block) = seq.next_element::<LooseObj<Typed>>()? {
                    n += u64::from(block.0.is_some_and(|t| t.kind.get() == Some("toolCall")));
                }
                Ok(ToolCallCount(n))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                drain_map(map).map(|()| ToolCallCount(0))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(ToolCallCount(0))
            }
            loose_others!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64);
        }
        d.deserialize_any(V)
    }
}

/// Whether a field holds something other than `null`, found by skipping its value: nothing is
/// copied, decoded or checked as UTF-8. A message's `content` is most of a session's bytes, and
/// only its presence matters to every line but one (the text of `ls`'s first message).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Present(pub bool);

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

/// Which writer produced the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// pi itself (versions 1 to 3).
    Pi,
    /// The format described by seed 000 (`session_header`, `user_message`, ...).
    Seed000,
}

/// The first parsable line of a session file.
#[derive(Clone)]
pub struct Header {
    pub id: String,
    /// pi's version (1 when absent); seed-000 files report their own. A version that is not a
    /// whole number is shown as the version pi migrates it from ([`Header::version_number`]).
    pub version: u64,
    /// `header.version ?? 1` as pi's `migrateToCurrentVersion` compares it (`version >= 3`,
    /// `version < 2`: JavaScript's ToNumber, so `3.0`, `"3"` and `[3]` are 3, and NaN, from
    /// `"v3"` or `{}`, is below nothing and migrates nothing).
    pub(crate) version_number: f64,
    pub timestamp: Option<String>,
    /// `new Date(header.timestamp).getTime()`: an ISO string or a number of ms.
    pub timestamp_ms: Option<i64>,
    pub cwd: Option<String>,
    pub parent_session: Option<String>,
    pub dialect: Dialect,
    /// The header as stored ([`Header::value`]): decoded from [`Header::stored`] when first
    /// asked for. A listing asks for none, and the decode into a `Value` was 5% of `ls`.
    value: std::sync::OnceLock<Value>,
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

/// As the derive wrote it, with the value decoded: a header read from its fields and one read
/// from its value show alike.
impl fmt::Debug for Header {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("Header")
            .field("id", &self.id)
            .field("version", &self.version)
            .field("version_number", &self.version_number)
            .field("timestamp", &self.timestamp)
            .field("timestamp_ms", &self.timestamp_ms)
            .field("cwd", &self.cwd)
            .field("parent_session", &self.parent_session)
            .field("dialect", &self.dialect)
            .field("value", self.value())
            .field("stored", &self.stored)
            .finish()
    }
}

impl Header {
    /// `version` as stored (pi writes the whole numbers 1 to 3).
    pub fn stored_version(&self) -> Option<&Value> {
        self.value().get("version")
    }

    /// The header as stored: its line ([`Header::stored`]) decoded as [`json::decode`] decodes
    /// it (`null` for a line it refuses).
    pub fn value(&self) -> &Value {
        self.value.get_or_init(|| {
            let line = self.stored.strip_suffix(b"\n").unwrap_or(&self.stored);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            json::decode(line).unwrap_or(Value::Null)
        })
    }

    /// Reads a header from the first parsable line, `line` (no terminator), as
    /// [`Header::from_value`] reads it from [`json::decode`]'s value (`null` where that
    /// fails). The value is not made: the fields are read by serde_json into a struct where
    /// that reads them as the value would have them, and [`Header::value`] decodes the line
    /// if asked. The caller sets [`Header::stored`] to the line.
    pub(crate) fn from_line(line: &[u8], stem: &str) -> Result<Header, NotAHeader> {
        match HeaderFields::of(line) {
            Some(fields) => Header::from_fields(|key| fields.get(key), stem),
            None => Header::from_value(json::decode(line).unwrap_or(Value::Null), stem),
        }
    }

    /// Reads a header from the first parsable line. `stem` (the file name without `.jsonl`)
    /// is the id of seed-000 files, whose headers carry none.
    pub(crate) fn from_value(value: Value, stem: &str) -> Result<Header, NotAHeader> {
        let get = |key: &str| value.get(key);
        let header = Header::from_fields(get, stem)?;
        Ok(Header {
            value: std::sync::OnceLock::from(value),
            ..header
        })
    }

    /// A header from its top-level fields as `get` gives them; its value not yet known.
    fn from_fields<'v>(
        get: impl Fn(&str) -> Option<&'v Value>,
        stem: &str,
    ) -> Result<Header, NotAHeader> {
        let kind = get("type").and_then(Value::as_str).unwrap_or("");
        let dialect = match kind {
            "session" => Dialect::Pi,
            "session_header" => Dialect::Seed000,
            other => return Err(NotAHeader::WrongType(other.to_owned())),
        };
        let id = match (get("id").and_then(Value::as_str), dialect) {
            (Some(id), _) => id.to_owned(),
            (None, Dialect::Seed000) => stem.to_owned(),
            (None, Dialect::Pi) => return Err(NotAHeader::NoId),
        };
        let text = |key: &str| get(key).and_then(Value::as_str).map(str::to_owned);
        let timestamp = match dialect {
            Dialect::Pi => text("timestamp"),
            Dialect::Seed000 => text("createdAt").or_else(|| text("timestamp")),
        };
        let key = if dialect == Dialect::Seed000 && get("createdAt").is_some() {
            "createdAt"
        } else {
            "timestamp"
        };
        #[allow(clippy::cast_possible_truncation)]
        let timestamp_ms = match get(key) {
            Some(Value::String(s)) => crate::time::parse_js_date(s),
            // `new Date(number)` keeps the integral milliseconds of a finite number.
            Some(Value::Number(n)) => n
                .as_f64()
                .filter(|x| x.abs() <= 8.64e15)
                .map(|x| x.trunc() as i64),
            _ => None,
        };
        let version_number = match get("version") {
            None | Some(Value::Null) => 1.0,
            v => crate::js::js_to_number(v),
        };
        Ok(Header {
            id,
            timestamp_ms,
            version: shown_version(version_number),
            version_number,
            timestamp,
            cwd: text("cwd"),
            parent_session: text("parentSession"),
            dialect,
            value: std::sync::OnceLock::new(),
            stored: Vec::new(),
        })
    }

    /// Whether pi would migrate this file's entries from v1 (assign ids and parents).
    pub fn needs_v1_ids(&self) -> bool {
        self.dialect == Dialect::Pi && self.version_number < 2.0
    }

    /// Whether pi would migrate this file's entries from v2 (rename role `hookMessage`).
    pub fn renames_hook_messages(&self) -> bool {
        self.dialect == Dialect::Pi && self.version_number < 3.0
    }
}

/// The top-level fields [`Header::from_fields`] reads, each as the decoded value holds it
/// (`Some(Value::Null)` for a `null`, `None` when absent).
#[derive(Deserialize)]
struct HeaderFields {
    #[serde(rename = "type", default, deserialize_with = "present")]
    kind: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    version: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    timestamp: Option<Value>,
    #[serde(rename = "createdAt", default, deserialize_with = "present")]
    created_at: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    cwd: Option<Value>,
    #[serde(rename = "parentSession", default, deserialize_with = "present")]
    parent_session: Option<Value>,
}

/// A field that is there, whatever its value (`null` included, which `Option` would make
/// `None`).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl HeaderFields {
    /// The fields of `line` where they are what [`json::decode`]'s value holds: a line that
    /// object (not an array, which a struct would read by position), that serde_json reads
    /// as it is (no surrogate escape or stand-in to mend, not deep) and that
    /// names none of these keys twice (the value keeps the last; a struct refuses the line).
    /// `None` otherwise: the value is made, as before.
    fn of(line: &[u8]) -> Option<HeaderFields> {
        let starts_an_object = line
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            == Some(&b'{');
        // serde_json skips a field it does not read at any depth, and the decode stops at
        // `json::DECODE_DEPTH`: a line that may nest deep is decoded, as the scan does.
        if !starts_an_object || json::may_hold_surrogates(line) || json::may_be_too_deep(line) {
            return None;
        }
        serde_json::from_slice(line).ok()
    }

    fn get(&self, key: &str) -> Option<&Value> {
        match key {
            "type" => self.kind.as_ref(),
            "id" => self.id.as_ref(),
            "version" => self.version.as_ref(),
            "timestamp" => self.timestamp.as_ref(),
            "createdAt" => self.created_at.as_ref(),
            "cwd" => self.cwd.as_ref(),
            "parentSession" => self.parent_session.as_ref(),
            _ => {
                debug_assert!(false, "a header field not read: {key}");
                None
            }
        }
    }
}

/// The version shown for a header's JS `version`: a whole number as it is, else the version
/// pi migrates from (below 2: 1, below 3: 2, else 3, NaN included: pi migrates nothing).
fn shown_version(v: f64) -> u64 {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    if v.fract() == 0.0 && (0.0..=9_007_199_254_740_991.0).contains(&v) {
        v as u64
    } else if v < 2.0 {
        1
    } else if v < 3.0 {
        2
    } else {
        3
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
            // pi's `delete`: the other keys keep their order (`remove` would swap one in).
            obj.shift_remove("firstKeptEntryIndex");
            if let Some(target) = first_kept {
                obj.insert("firstKeptEntryId".into(), Value::from(target));
            }
        }
    }
    if header.renames_hook_messages() {
        if let Some(message) = obj.get_mut("message").and_then(Value::as_object_mut) {
            if message.get("role").and_then(Value::as_str) == Some("hookMessage") {
                message.insert("role".into(), Value::from("custom"));
            }
        }
    }
}

/// A v1 compaction's `firstKeptEntryIndex` as pi's `entries[index]` reads it: any number
/// naming a whole index (`2.0` is 2; JSON.parse reads both as the same number), -0 included.
pub fn first_kept_entry_index(entry: &Value) -> Option<usize> {
    entry
        .get("firstKeptEntryIndex")
        .and_then(Value::as_f64)
        .filter(|k| k.fract() == 0.0 && *k >= 0.0 && *k < 4_294_967_295.0)
        .and_then(|k| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            usize::try_from(k as u64).ok()
        })
}

/// Token and cost counts, pi's `Usage` reduced to what totals need.
#[derive(Debug, Default, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Usage {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub cost: f64,
    /// Tokens of usage records whose cost is 0: a model without a price (a local model, or one
    /// pi's registry does not know), so the cost leaves them out. Judged per token count: a
    /// count above 0 at a cost of 0 is unpriced whatever the others hold (`input: -5, output:
    /// 5` has 5 unpriced tokens), and a count that is no number (a string pi would
    /// concatenate) makes it NaN: not known, never 0.
    pub unpriced: f64,
    /// Some usage record holds a cost below 0: the recorded cost is no bound on what was spent
    /// (`-5 + 3` hides a real `$3`).
    #[serde(default)]
    pub negative_cost: bool,
    /// Some usage record holds a token count below 0: the token total is no bound either.
    #[serde(default)]
    pub negative_tokens: bool,
}

/// `N` reads a count: [`LooseNum`], or [`MarkedNum`] when the usage holds a number beyond f64.
#[derive(Deserialize)]
struct UsageView<N> {
    #[serde(default)]
    input: N,
    #[serde(default)]
    output: N,
    #[serde(rename = "cacheRead", default)]
    cache_read: N,
    #[serde(rename = "cacheWrite", default)]
    cache_write: N,
    #[serde(default)]
    cost: LooseObj<CostView<N>>,
}

#[derive(Deserialize)]
struct CostView<N> {
    #[serde(default)]
    total: N,
}

/// A count of a usage whose out-of-range numbers [`json::mark_infinities`] marked: the marks
/// are JavaScript's `Infinity` and `-Infinity`, as `JSON.parse` reads `1e999`.
#[derive(Default)]
struct MarkedNum(Option<f64>);

impl<'de> Deserialize<'de> for MarkedNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(MarkedNum(match Value::deserialize(d)? {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => json::marked_infinity(&s).or(Some(f64::NAN)),
            Value::Bool(b) => Some(f64::from(u8::from(b))),
            Value::Null => Some(0.0),
            Value::Array(_) | Value::Object(_) => Some(f64::NAN),
        }))
    }
}

/// A usage count as pi's `totals.x += usage.x` adds it to a number: a number as it is, `true`
/// 1, `false` and `null` 0; a string, an array or an object makes pi's total a string (`0 +
/// "5"` is `"05"`), no number at all: NaN here, so every total and gate on it is undecided
/// (`stats --json SESSION` gives pi's string: [`crate::js::JsValue`]).
#[derive(Default)]
struct UsageNum(Option<f64>);

impl<'de> Deserialize<'de> for UsageNum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(UsageNum(Some(match Value::deserialize(d)? {
            Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
            Value::Bool(b) => f64::from(u8::from(b)),
            Value::Null => 0.0,
            Value::String(_) | Value::Array(_) | Value::Object(_) => f64::NAN,
        })))
    }
}

impl From<UsageNum> for Option<f64> {
    fn from(n: UsageNum) -> Self {
        n.0
    }
}

impl From<LooseNum> for Option<f64> {
    fn from(n: LooseNum) -> Self {
        n.0
    }
}

impl From<MarkedNum> for Option<f64> {
    fn from(n: MarkedNum) -> Self {
        n.0
    }
}

impl<N: Into<Option<f64>>> UsageView<N> {
    fn usage(self) -> Usage {
        let count = |n: N| n.into().unwrap_or(0.0);
        let mut u = Usage {
            input: count(self.input),
            output: count(self.output),
            cache_read: count(self.cache_read),
            cache_write: count(self.cache_write),
            cost: self.cost.0.map_or(0.0, |c| count(c.total)),
            unpriced: 0.0,
            negative_cost: false,
            negative_tokens: false,
        };
        let counts = [u.input, u.output, u.cache_read, u.cache_write];
        u.negative_cost = u.cost < 0.0;
        u.negative_tokens = counts.iter().any(|&c| c < 0.0);
        // Tokens that cost nothing were not priced (a model pi has no price for): each count
        // above 0 (a negative one does not cancel them), and a count that is no number is not
        // known (NaN, never 0).
        if u.cost == 0.0 {
            u.unpriced = counts
                .iter()
                .map(|&c| if c.is_nan() { c } else { c.max(0.0) })
                .sum();
        }
        u
    }
}

impl Usage {
    /// Reads a stored usage object; missing or mistyped counts are 0 (pi would produce NaN).
    /// A number beyond f64 (`1e999`) is what `JSON.parse` makes of it, `Infinity` or
    /// `-Infinity`, which pi adds to its totals: the usage is kept, and its totals are not
    /// finite ([`Usage::is_finite`]), which the commands flag.
    pub fn from_raw(raw: &RawValue) -> Option<Usage> {
        skimmed_usage(raw.get().as_bytes()).or_else(|| Usage::from_raw_by_serde_json(raw))
    }

    /// [`Usage::from_raw`] by serde_json, whatever the usage holds.
    fn from_raw_by_serde_json(raw: &RawValue) -> Option<Usage> {
        match serde_json::from_str::<LooseObj<UsageView<UsageNum>>>(raw.get()) {
            Ok(view) => view.0.map(UsageView::usage),
            Err(_) => match json::mark_infinities(raw.get()) {
                Some(marked) => {
                    let view: LooseObj<UsageView<MarkedNum>> =
                        serde_json::from_str(&marked).ok()?;
                    view.0.map(UsageView::usage)
                }
                // A text that spells the mark itself: which count is infinite cannot be told,
                // so none is known (NaN), and every gate on them is undecided, never passed
                // on a usage left out.
                None if json::has_infinite_number(raw.get()) => Some(Usage {
                    input: f64::NAN,
                    output: f64::NAN,
                    cache_read: f64::NAN,
                    cache_write: f64::NAN,
                    cost: f64::NAN,
                    unpriced: f64::NAN,
                    negative_cost: false,
                    negative_tokens: false,
                }),
                None => None,
            },
        }
    }

    /// Whether every total is a finite number (a stored `1e999` makes one infinite; `Infinity`
    /// and `-Infinity` together, NaN).
    pub fn is_finite(&self) -> bool {
        [
            self.input,
            self.output,
            self.cache_read,
            self.cache_write,
            self.cost,
        ]
        .iter()
        .all(|x| x.is_finite())
    }

    pub fn add(&mut self, other: &Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.cost += other.cost;
        self.unpriced += other.unpriced;
        self.negative_cost |= other.negative_cost;
        self.negative_tokens |= other.negative_tokens;
    }

    /// A decoded usage's counts, each a number or else 0 (not pi's coercions: what one record's
    /// line or a page's footnote shows, never a total a command gates on).
    pub fn of_value(usage: Option<&Value>) -> Usage {
        usage
            .and_then(|u| LooseObj::<UsageView<LooseNum>>::deserialize(u).ok())
            .and_then(|view| view.0)
            .map_or_else(Usage::default, UsageView::usage)
    }

    pub fn total_tokens(&self) -> f64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

/// [`Usage::from_raw`] of a usage in pi's own shape, read by the skim in one walk: an object
/// of plain keys whose counts and `cost.total` are numbers, each given once, `cost` an object.
/// `None` for anything else (a count that is no number, a key given twice or escaped, a
/// number of many digits or with an exponent): serde_json reads those, by pi's rules.
fn skimmed_usage(span: &[u8]) -> Option<Usage> {
    let mut s = Skim::new(span);
    let mut counts: [Option<f64>; 4] = [None; 4];
    let mut cost: Option<Option<f64>> = None;
    let mut members = s.object().ok()?;
    while let Some(key) = s.next_key(&mut members).ok()? {
        let at = match key {
            b"input" => 0,
            b"output" => 1,
            b"cacheRead" => 2,
            b"cacheWrite" => 3,
            b"cost" => {
                if cost.is_some() || !s.at_object() {
                    return None;
                }
                let mut total = None;
                let mut inner = s.object().ok()?;
                while let Some(key) = s.next_key(&mut inner).ok()? {
                    let value = usage_value(&mut s)?;
                    if key == b"total" {
                        if total.is_some() {
                            return None;
                        }
                        total = Some(plain_number(value)?);
                    }
                }
                cost = Some(total);
                continue;
            }
            _ => {
                usage_value(&mut s)?;
                continue;
            }
        };
        if counts[at].is_some() {
            return None;
        }
        counts[at] = Some(plain_number(usage_value(&mut s)?)?);
    }
    s.end().ok()?;
    let [input, output, cache_read, cache_write] = counts.map(UsageNum);
    let view = UsageView {
        input,
        output,
        cache_read,
        cache_write,
        cost: LooseObj(cost.map(|total| CostView {
            total: UsageNum(total),
        })),
    };
    Some(view.usage())
}

/// The value at the cursor, read past: a number (nearly every value of a usage) by the skim's
/// number grammar alone, anything else as `Skim::value` reads it.
fn usage_value<'a>(s: &mut Skim<'a>) -> Option<&'a [u8]> {
    match s.peek() {
        Some(b'-' | b'0'..=b'9') => {
            let start = s.at;
            s.number().ok()?;
            Some(s.since(start))
        }
        _ => s.value().ok(),
    }
}

/// A number as serde_json reads it (`Number::as_f64`), where that needs no decoder: up to 18
/// digits (exact as a `u64`, then rounded as serde_json's `as f64` rounds them), or a sign,
/// digits and a point in at most 24 bytes, which `f64::from_str` rounds correctly as
/// serde_json's `float_roundtrip` does, and which can neither overflow nor underflow.
fn plain_number(span: &[u8]) -> Option<f64> {
    if span.len() <= 18 && span.iter().all(u8::is_ascii_digit) {
        #[allow(clippy::cast_precision_loss)]
        return Some(span.iter().fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')) as f64);
    }
    let plain = span.len() <= 24
        && matches!(span.first(), Some(b'-' | b'0'..=b'9'))
        && span.iter().all(|&b| matches!(b, b'-' | b'.' | b'0'..=b'9'));
    if !plain {
        return None;
    }
    // The skim checked the grammar; ASCII.
    std::str::from_utf8(span).ok()?.parse().ok()
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

/// What [`number`] is when written, into `out`, without making the [`Value`].
pub fn push_number(out: &mut Vec<u8>, x: f64) {
    #[allow(clippy::cast_possible_truncation)]
    if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        crate::surrogates::push_i64(out, x as i64);
    } else {
        // Not finite: `null`, as `Number::from_f64` gives none.
        crate::surrogates::push_f64(out, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{content_text, EntryKind, PI_ENTRY_TYPES};
    use serde_json::json;

    /// The header read from its line's fields is the header read from its decoded value,
    /// whatever the line, and its value is that decode, made only when asked for.
    #[test]
    fn header_from_line_is_header_from_value() {
        let deep = format!(
            r#"{{"type":"session","id":"d","x":{}{}}}"#,
            "[".repeat(json::DECODE_DEPTH + 1),
            "]".repeat(json::DECODE_DEPTH + 1)
        );
        let lines: Vec<&str> = vec![
            r#"{"type":"session","version":3,"id":"a474eb72","timestamp":"2025-01-01T20:54:33.799Z","cwd":"/home/dev/p"}"#,
            r#"  {"type":"session","id":"x","timestamp":1767225600000.9,"cwd":null,"parentSession":"/p/s.jsonl","other":{"a":[1,2,{"b":null}]}}"#,
            r#"{"type":"session","id":"x","version":"3","cwd":5,"parentSession":null}"#,
            r#"{"type":"session","id":"x","version":[3]}"#,
            r#"{"type":"session","id":"x","version":2.5,"timestamp":"v"}"#,
            r#"{"type":"session","id":"x","version":1e999}"#,
            r#"{"type":"session","id":"x","big":1e999,"cwd":"/p"}"#,
            r#"{"type":"session","id":"first","id":"second"}"#,
            r#"{"type":"session","x":1,"x":2,"id":"i"}"#,
            r#"{"type":"sess\u0069on","\u0069d":"esc\"aped\n","cwd":"caf\u00e9"}"#,
            r#"{"type":"session","id":"\ud83d","cwd":"/p"}"#,
            "{\"type\":\"session\",\"id\":\"x\",\"cwd\":\"\u{10FFFF}\"}",
            r#"{"type":"session_header","createdAt":"2025-01-01T00:00:00Z","timestamp":"2024-01-01T00:00:00Z"}"#,
            r#"{"type":"session_header","createdAt":null,"timestamp":"2024-01-01T00:00:00Z"}"#,
            r#"{"type":"session_header","timestamp":5}"#,
            r#"{"type":"message","id":"x"}"#,
            r#"{"id":"x"}"#,
            r#"{"type":"session"}"#,
            r#"{"type":"session","id":7}"#,
            r#"["session","x"]"#,
            r#"{"type":"session","id":"x"} trailing"#,
            r#"{"type":"session","id":"x",}"#,
            &deep,
        ];
        let mut invalid = br#"{"type":"session","id":"x","cwd":"a"#.to_vec();
        invalid.extend_from_slice(b"\xff\"}");
        let mut lines: Vec<Vec<u8>> = lines.iter().map(|l| l.as_bytes().to_vec()).collect();
        lines.push(invalid);
        let shown = |h: &Result<Header, NotAHeader>| match h {
            Ok(h) => format!(
                "{:?} {} {:?} {:?} {:?} {:?} {:?} {:?}",
                h.id,
                h.version,
                h.version_number,
                h.timestamp,
                h.timestamp_ms,
                h.cwd,
                h.parent_session,
                h.dialect
            ),
            Err(e) => format!("{e:?}"),
        };
        for line in &lines {
            let text = String::from_utf8_lossy(line);
            let decoded = json::decode(line).unwrap_or(Value::Null);
            let read = Header::from_line(line, "stem");
            let want = Header::from_value(decoded.clone(), "stem");
            assert_eq!(shown(&read), shown(&want), "{text}");
            if let Ok(mut h) = read {
                h.stored = line.clone();
                h.stored.extend_from_slice(b"\r\n");
                assert_eq!(h.value(), &decoded, "{text}");
            }
        }
        // A plain header is read without its value, which is decoded when asked for.
        let line = lines[0].as_slice();
        assert!(HeaderFields::of(line).is_some());
        let mut h = Header::from_line(line, "stem").unwrap();
        assert!(h.value.get().is_none());
        h.stored = [line, b"\n"].concat();
        assert_eq!(h.stored_version(), Some(&json!(3)));
        assert_eq!(h.value()["cwd"], "/home/dev/p");
        assert!(HeaderFields::of(lines[7].as_slice()).is_none());
    }

    #[test]
    fn entry_kinds_round_trip() {
        for name in PI_ENTRY_TYPES {
            let kind = EntryKind::parse(Some(name));
            assert!(!matches!(kind, EntryKind::Unknown(_)), "{name}");
            assert_eq!(kind.as_str(), name);
        }
        let unknown = EntryKind::parse(Some("weird_future_type"));
        assert_eq!(unknown.as_str(), "weird_future_type");
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

    /// issue 42: the header's version as pi's `migrateToCurrentVersion` compares it; on
    /// 63e6fc9 every one of these but the absent and null ones was read as version 1.
    #[test]
    fn header_version_as_javascript_compares_it() {
        let header = |v: &str| {
            let text = format!(r#"{{"type":"session","id":"h","version":{v}}}"#);
            Header::from_value(serde_json::from_str(&text).unwrap(), "f").unwrap()
        };
        // (stored, shown, v1 ids, hookMessage renamed)
        for (v, shown, v1, renames) in [
            ("3", 3, false, false),
            ("3.0", 3, false, false),
            ("3e0", 3, false, false),
            (r#""3""#, 3, false, false),
            ("[3]", 3, false, false),
            ("2.5", 2, false, true),
            ("2", 2, false, true),
            (r#""2""#, 2, false, true),
            ("1.0", 1, true, true),
            ("true", 1, true, true),
            ("false", 0, true, true),
            ("null", 1, true, true),
            ("-7", 1, true, true),
            ("7", 7, false, false),
            // NaN: pi's three comparisons are all false, so nothing is migrated.
            (r#""v3""#, 3, false, false),
            ("{}", 3, false, false),
            ("[1,2]", 3, false, false),
        ] {
            let h = header(v);
            assert_eq!(
                (h.version, h.needs_v1_ids(), h.renames_hook_messages()),
                (shown, v1, renames),
                "version {v}"
            );
        }
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

    /// issue 42: a count pi adds with `+=`: `true` is 1 and `null` 0 (on 63e6fc9 both were 0);
    /// a string makes pi's total a string, no number: NaN (was 0, so a gate passed on it).
    #[test]
    fn usage_counts_as_javascript_adds_them() {
        let usage = |text: &str| Usage::from_raw(&RawValue::from_string(text.into()).unwrap());
        let u = usage(r#"{"input":true,"output":null,"cacheRead":false,"cacheWrite":2,"cost":{"total":true}}"#).unwrap();
        assert_eq!(
            (u.input, u.output, u.cache_read, u.cache_write, u.cost),
            (1.0, 0.0, 0.0, 2.0, 1.0)
        );
        assert!(u.is_finite());
        let u = usage(
            r#"{"input":"5","output":[3],"cacheRead":{},"cacheWrite":1,"cost":{"total":"0.5"}}"#,
        )
        .unwrap();
        assert!(u.input.is_nan() && u.output.is_nan() && u.cache_read.is_nan() && u.cost.is_nan());
        assert!(!u.is_finite());
        // With a number beyond f64 on the same usage, the same.
        let u =
            usage(r#"{"input":"5","output":1e999,"cacheRead":true,"cost":{"total":1}}"#).unwrap();
        assert!(u.input.is_nan());
        assert_eq!((u.output, u.cache_read, u.cost), (f64::INFINITY, 1.0, 1.0));
    }

    /// Issue 42, red team 02 and 08: unpriced tokens are judged per count (a negative count
    /// does not cancel a positive one), a count that is no number leaves them unknown (NaN,
    /// never 0), and a negative cost or count is remembered through sums.
    #[test]
    fn unpriced_tokens_per_count_and_negatives_remembered() {
        let usage = |text: &str| Usage::from_raw(&RawValue::from_string(text.into()).unwrap());
        let u = usage(r#"{"input":-5,"output":5,"cost":{"total":0}}"#).unwrap();
        assert_eq!(
            (u.unpriced, u.negative_tokens, u.negative_cost),
            (5.0, true, false)
        );
        let u = usage(r#"{"input":"10","output":5,"cost":{"total":0}}"#).unwrap();
        assert!(u.unpriced.is_nan());
        let mut total = usage(r#"{"input":10,"cost":{"total":-5}}"#).unwrap();
        assert_eq!((total.unpriced, total.negative_cost), (0.0, true));
        total.add(&usage(r#"{"input":10,"cost":{"total":3}}"#).unwrap());
        assert_eq!((total.cost, total.negative_cost), (-2.0, true));
    }

    #[test]
    fn a_usage_number_beyond_f64_is_infinity_as_json_parse_reads_it() {
        let usage = |text: &str| Usage::from_raw(&RawValue::from_string(text.into()).unwrap());
        let u = usage(r#"{"input":1,"output":1e999,"cost":{"total":-1E+400}}"#).unwrap();
        assert_eq!(
            (u.input, u.output, u.cost),
            (1.0, f64::INFINITY, f64::NEG_INFINITY)
        );
        assert!(!u.is_finite());
        assert!(usage(r#"{"input":1,"output":2}"#).unwrap().is_finite());
        // A string is no number to pi's `+=` (its total becomes a string: NaN here), even one
        // spelling the mark; with a number beyond f64 beside it, no count is known, and none
        // is left out.
        let u = usage(r#"{"input":"\u0000pisess:Infinity","output":1e999}"#).unwrap();
        assert!(u.input.is_nan() && u.cost.is_nan() && !u.is_finite());
        let u = usage(r#"{"input":"\u0000pisess:Infinity","output":2}"#).unwrap();
        assert!(u.input.is_nan() && u.output == 2.0);
        let u = usage(r#"{"input":"-1e999","output":"\u0000x"}"#).unwrap();
        assert!(u.input.is_nan() && u.output.is_nan() && !u.is_finite());
    }

    #[test]
    fn usage_and_text() {
        let raw = RawValue::from_string(
            r#"{"input":1,"output":2,"cacheRead":3,"cacheWrite":"x","cost":{"total":0.5}}"#.into(),
        )
        .unwrap();
        let u = Usage::from_raw(&raw).unwrap();
        // `"x"` makes pi's total a string (issue 42): no number.
        assert!(u.total_tokens().is_nan());
        assert_eq!(u.input + u.output + u.cache_read, 6.0);
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

    /// The skim's usage reader against serde_json's, on random usages of every shape (counts
    /// of every JSON type, long and odd numbers, keys given twice or escaped, spacing) and on
    /// damaged copies of the examples' usages: where it answers, serde_json answers alike,
    /// to the bit; and it answers pi's own shape.
    #[test]
    fn skimmed_usage_reads_as_serde_json_does() {
        let same = |text: &[u8]| -> Option<bool> {
            let skimmed = skimmed_usage(text)?;
            let raw = serde_json::from_slice::<&RawValue>(text).ok();
            let read = raw.and_then(Usage::from_raw_by_serde_json);
            assert_eq!(
                Some(format!("{skimmed:?}")),
                read.map(|u| format!("{u:?}")),
                "{}",
                String::from_utf8_lossy(text)
            );
            Some(true)
        };
        let keys = [
            "input",
            "output",
            "cacheRead",
            "cacheWrite",
            "totalTokens",
            "cost",
            "total",
            "inp\\u0075t",
            "x",
        ];
        let values = [
            "0",
            "-0",
            "7",
            "-5",
            "1.5",
            "-0.25",
            "0.1",
            "1e3",
            "1E-2",
            "1e999",
            "-1e999",
            "123456789012345678",
            "1234567890123456789",
            "99999999999999999999999",
            "0.000000000000000000001",
            "3.14159265358979323846",
            "-9007199254740993",
            "9007199254740993",
            "\"5\"",
            "null",
            "true",
            "false",
            "[]",
            "{}",
            "[1,2]",
            "{\"total\":0.5}",
            "{\"total\":1,\"total\":2}",
            "{\"input\":1,\"total\":\"x\"}",
            "{\"total\":1e999}",
            "{\"tot\\u0061l\":3}",
            "{\"total\":12.75,\"input\":0.1}",
        ];
        let mut next = crate::skim::rng(0x05a6_e000_0049);
        let (mut answered, mut left) = (0, 0);
        for _ in 0..30_000 {
            let mut text = String::from(if next(8) == 0 { " { " } else { "{" });
            for i in 0..next(7) {
                if i > 0 {
                    text.push_str(if next(5) == 0 { " , " } else { "," });
                }
                let key = keys[next(keys.len())];
                let value = if next(3) == 0 {
                    // Random digits, often many, sometimes a fraction.
                    let mut n: String = (0..1 + next(26))
                        .map(|_| char::from(b'0' + next(10) as u8))
                        .collect();
                    if n.len() > 1 && n.starts_with('0') {
                        n.replace_range(..1, "1");
                    }
                    if next(3) == 0 {
                        n.push('.');
                        n.extend((0..1 + next(22)).map(|_| char::from(b'0' + next(10) as u8)));
                    }
                    if next(4) == 0 {
                        n.insert(0, '-');
                    }
                    n
                } else {
                    values[next(values.len())].to_owned()
                };
                text.push_str(&format!("\"{key}\":{value}"));
            }
            text.push('}');
            match same(text.as_bytes()) {
                Some(_) => answered += 1,
                None => left += 1,
            }
        }
        assert!(answered > 3_000 && left > 3_000, "{answered} {left}");

        // The examples' usages, whole and damaged.
        let mut usages = Vec::new();
        for line in crate::skim::example_lines() {
            let Ok(v) = serde_json::from_slice::<Value>(&line) else {
                continue;
            };
            for u in [&v["usage"], &v["message"]["usage"]] {
                if u.is_object() {
                    usages.push(u.to_string().into_bytes());
                }
            }
        }
        assert!(usages.len() > 50, "{}", usages.len());
        for u in &usages {
            assert_eq!(same(u), Some(true), "{}", String::from_utf8_lossy(u));
        }
        let specials = [
            b'"', b'\\', b'{', b'}', b',', b':', b'0', b'.', b'-', b'e', b' ',
        ];
        let took = crate::skim::damaged(&usages, &specials, 0xda3a_9ed0_0049, 20_000)
            .filter(|u| same(u).is_some())
            .count();
        assert!((1_000..19_000).contains(&took), "{took} of 20000 answered");
    }
}
