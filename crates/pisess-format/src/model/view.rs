//! [`LineView`]: the few fields of a line the index and listings read, a derive read through
//! the skim's `Deserializer` (serde_json reads the lines the skim is unsure of), and the other
//! partial reads of a line: the filter's facts, kept keys, a message's text and tool calls.

use std::borrow::Cow;

use serde::de::{Error as _, IgnoredAny, MapAccess};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::content::{Block, Content};
use super::entry::{LooseNum, LooseObj, LooseStr, LooseTrue, Present, ToolCallCount};
use crate::skim::Skim;

/// The fields of a message that listings and the index need. Read by hand, as a derive
/// would read them but for `stopReason`: see [`MessageKey`].
#[derive(Debug, Default)]
pub struct MessageView<'a> {
    pub role: LooseStr<'a>,
    pub timestamp: LooseNum,
    /// Present and not `null`, and its stored bytes when the skim read the message
    /// (serde_json's fallback leaves them unset): where the bulk of a line lies, for readers
    /// that can pass it. [`message_content_text`] decodes it when needed.
    pub content: Skipped<'a>,
    pub usage: Option<&'a RawValue>,
    pub provider: LooseStr<'a>,
    pub model: LooseStr<'a>,
    /// A tool result's tool, call and error flag: read from the skim's spans, so neither the
    /// summary nor `stats` decodes a tool result (most of a session's bytes) to count it.
    pub tool_name: LooseStr<'a>,
    pub tool_call_id: LooseStr<'a>,
    pub is_error: LooseTrue,
    /// Its stored bytes when the skim read the message, for [`MessageView::said`] and `stats`.
    pub stop_reason: Skipped<'a>,
    /// `errorMessage` and `responseModel`: their stored bytes when the skim read the message,
    /// for `stats`, which reads them as serde_json does (see [`MessageView::extra_twice`]).
    pub error_message: Skipped<'a>,
    pub response_model: Skipped<'a>,
    /// One of those two given twice: serde_json's derive over the line refuses it where this
    /// view reads the line (as it did when it skipped them), so `stats` must read the line.
    pub extra_twice: bool,
    /// Whether the skim read the message: then the spans above are set wherever their keys
    /// are (serde_json's fallback sets none).
    pub(crate) skimmed: bool,
    /// What the skim learned of the content as it passed it (unsure of all when it did not).
    pub(crate) walk: super::ContentWalk<'a>,
}

/// The keys of a message that are fields of [`MessageView`], in the order of its fields.
const MESSAGE_FIELDS: [&str; 12] = [
    "role",
    "timestamp",
    "content",
    "usage",
    "provider",
    "model",
    "toolName",
    "toolCallId",
    "isError",
    "stopReason",
    "errorMessage",
    "responseModel",
];

/// A key of a message: its index in [`MESSAGE_FIELDS`], `None` for any other. `stopReason`
/// is a field only for the skim (whose keys come as bytes), which refuses it given twice as it
/// does every field; serde_json (keys as `str`) reads the lines the skim refuses and never
/// refused a repeated `stopReason` (it was no field of its view before the skim's derive):
/// it keeps the first, skips the others, and the line is read as stored.
struct MessageKey(Option<usize>, bool);

impl<'de> Deserialize<'de> for MessageKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = MessageKey;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_bytes<E: serde::de::Error>(self, key: &[u8]) -> Result<MessageKey, E> {
                // A match, as a derive's: on the index's path for every message.
                let at = match key {
                    b"role" => 0,
                    b"timestamp" => 1,
                    b"content" => 2,
                    b"usage" => 3,
                    b"provider" => 4,
                    b"model" => 5,
                    b"toolName" => 6,
                    b"toolCallId" => 7,
                    b"isError" => 8,
                    b"stopReason" => 9,
                    b"errorMessage" => 10,
                    b"responseModel" => 11,
                    _ => return Ok(MessageKey(None, true)),
                };
                debug_assert_eq!(MESSAGE_FIELDS[at].as_bytes(), key);
                Ok(MessageKey(Some(at), true))
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<MessageKey, E> {
                let MessageKey(at, _) = self.visit_bytes(key.as_bytes())?;
                Ok(MessageKey(at, false))
            }
        }
        d.deserialize_identifier(V)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for MessageView<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = MessageView<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a message")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut m = MessageView::default();
                let mut seen = 0u16;
                while let Some(MessageKey(at, strict)) = map.next_key()? {
                    let Some(at) = at else {
                        map.next_value::<IgnoredAny>()?;
                        continue;
                    };
                    if seen & 1 << at != 0 {
                        // Read only for `stats`, which then reads the line: given twice is no
                        // error here (the view skipped them before).
                        if at >= 10 {
                            m.extra_twice = true;
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                        if at == 9 && !strict {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                        // As a derive refuses a field given twice.
                        return Err(A::Error::duplicate_field(MESSAGE_FIELDS[at]));
                    }
                    seen |= 1 << at;
                    match at {
                        0 => m.role = map.next_value()?,
                        1 => m.timestamp = map.next_value()?,
                        2 => m.content = map.next_value::<WalkedContent>()?.0,
                        3 => m.usage = map.next_value()?,
                        4 => m.provider = map.next_value()?,
                        5 => m.model = map.next_value()?,
                        6 => m.tool_name = map.next_value()?,
                        7 => m.tool_call_id = map.next_value()?,
                        8 => m.is_error = map.next_value()?,
                        9 => m.stop_reason = map.next_value()?,
                        10 => m.error_message = map.next_value()?,
                        _ => m.response_model = map.next_value()?,
                    }
                }
                Ok(m)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// A lenient, borrowed view of one entry line (pi's shape; seed-000 lines are normalized first).
#[derive(Debug, Default, Deserialize)]
pub struct LineView<'a> {
    #[serde(rename = "type", default, borrow)]
    pub(crate) kind: LooseStr<'a>,
    #[serde(default, borrow)]
    pub(crate) id: LooseStr<'a>,
    #[serde(rename = "parentId", default, borrow)]
    pub(crate) parent_id: LooseStr<'a>,
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
    /// The view of a line the skim vouches for, read through its [`Deserializer`]: what
    /// `serde_json::from_slice::<LineView>` gives, plus the spans only the skim knows. `None`
    /// when the skim is unsure (then serde_json decides, as before). Skipping
    /// `message.content`, most of a line, is where the time goes, and the skim does that at
    /// memory speed.
    ///
    /// [`Deserializer`]: crate::de::Deserializer
    pub fn skim(bytes: &'a [u8]) -> Option<LineView<'a>> {
        LineView::skimmed(bytes).ok()
    }

    /// [`LineView::skim`] as the skim's own result, for the scan's loop, which keeps it as it
    /// comes (a conversion to an `Option` copied its 792 bytes).
    pub(crate) fn skimmed(bytes: &'a [u8]) -> crate::skim::Result<LineView<'a>> {
        let walked = |view: &mut LineView<'a>, walk: &_| {
            if let Some(message) = view.message.0.as_mut() {
                message.skimmed = true;
                // The one content walked in a line the skim took is its message's.
                message.walk = *walk;
            }
        };
        crate::de::from_slice_walked(bytes, walked)
    }
}

/// The stored bytes of a value, and whether it is not `null`: read by the skim's
/// [`Deserializer`](crate::de::Deserializer), which hands out the span without
/// decoding anything; any other deserializer only says whether it is there (no span).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Skipped<'a>(pub bool, pub Option<&'a [u8]>);

impl<'de: 'a, 'a> Deserialize<'de> for Skipped<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(crate::de::SPAN, SkippedVisitor)
    }
}

/// A message's content as [`Skipped`], walked by the skim on the way
/// ([`super::ContentWalk`]).
struct WalkedContent<'a>(Skipped<'a>);

impl<'de: 'a, 'a> Deserialize<'de> for WalkedContent<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(crate::de::CONTENT, SkippedVisitor)
            .map(WalkedContent)
    }
}

struct SkippedVisitor;

impl<'de> serde::de::Visitor<'de> for SkippedVisitor {
    type Value = Skipped<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_bytes<E>(self, span: &'de [u8]) -> Result<Self::Value, E> {
        Ok(Skipped(span != b"null", Some(span)))
    }
    fn visit_newtype_struct<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> Result<Self::Value, D::Error> {
        Present::deserialize(d).map(|present| Skipped(present.0, None))
    }
}

/// An array field's items, each read as `T`; none when absent or of another JSON type (pi's
/// `Array.isArray`). Read in the same pass as the rest of the line.
#[derive(Debug)]
pub struct LooseArr<T>(pub Vec<T>);

impl<T> Default for LooseArr<T> {
    fn default() -> Self {
        LooseArr(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for LooseArr<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
            type Value = LooseArr<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(LooseArr(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(LooseArr::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(LooseArr::default())
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(LooseArr::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(LooseArr::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(LooseArr::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(LooseArr::default())
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(LooseArr::default())
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(LooseArr::default())
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// What pi's `/tree` filter reads of an assistant message (`hasTextContent`, the stop reason)
/// and the ids of its tool calls, in order, as a full decode of it gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Said<'a> {
    /// Some text block (or a string content) with text that is not blank.
    pub has_text: bool,
    /// `stopReason` set and truthy, and neither `"stop"` nor `"toolUse"`.
    pub error_or_aborted: bool,
    /// Its tool calls with a string id, in order.
    pub calls: Vec<CallSpans<'a>>,
}

/// A tool call as the skim found it: its id, and the stored bytes of its name and arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallSpans<'a> {
    pub id: Cow<'a, str>,
    name: Option<&'a [u8]>,
    arguments: Option<&'a [u8]>,
}

impl CallSpans<'_> {
    /// The call's name and arguments, decoded; of an object of arguments only the keys
    /// `keys` names for the tool (all for a tool it does not know), as [`Kept::arguments`]
    /// reads them. `None` where the skim is unsure.
    pub fn decoded(&self, keys: ArgumentKeys) -> Option<(Option<Value>, Option<Value>)> {
        let name = match self.name {
            Some(span) => Some(decoded_span(span)?),
            None => None,
        };
        let Some(span) = self.arguments else {
            return Some((name, None));
        };
        let mut s = Skim::new(span);
        let keys = name.as_ref().and_then(Value::as_str).and_then(keys);
        let arguments = match keys {
            Some(keys) if s.at_object() => {
                let kept = object_with(&mut s, |key| keys.contains(&key), |_, s| decoded(s))?;
                s.end().ok()?;
                kept
            }
            _ => decoded_span(span)?,
        };
        Some((name, Some(arguments)))
    }
}

impl<'a> MessageView<'a> {
    /// The filter's facts of the message, read from the spans the skim found (its content
    /// through the skim's [`Deserializer`](crate::de::Deserializer)), its texts
    /// read only as far as their first characters; `None` where the skim did not read the
    /// message or is unsure of a block (then decode the line). The index has the line at
    /// hand, so `tree` reads no assistant message again to filter it.
    pub fn said(&self) -> Option<Said<'a>> {
        if !self.skimmed {
            return None;
        }
        let content = match self.content.1 {
            Some(span) => SaidContent::of(span)?,
            None => SaidContent::default(),
        };
        Some(Said {
            has_text: content.has_text,
            error_or_aborted: match self.stop_reason.1 {
                None => false,
                Some(span) => stop_span_is_unusual(span)?,
            },
            calls: content.calls,
        })
    }
}

/// What the filter reads of a message's content (see [`Said`]): a string's text, or the
/// blocks' (text blocks read from their spans, tool calls with a string id).
#[derive(Default)]
struct SaidContent<'a> {
    has_text: bool,
    calls: Vec<CallSpans<'a>>,
}

impl<'a> SaidContent<'a> {
    /// Of the content's stored bytes, as the skim's [`Deserializer`](crate::de::Deserializer)
    /// reads them; any JSON type but a string or an array holds neither (a number read still,
    /// as a number serde_json refuses leaves the line to it).
    fn of(span: &'a [u8]) -> Option<SaidContent<'a>> {
        let mut said = SaidContent::default();
        match span.first()? {
            b'"' => {
                let text = crate::de::from_slice::<Cow<str>>(span).ok()?;
                said.has_text = !crate::js::js_trim(&text).is_empty();
            }
            b'[' => {
                let blocks = crate::de::from_slice::<Vec<LooseObj<SaidBlock>>>(span).ok()?;
                for block in blocks.into_iter().filter_map(|b| b.0) {
                    match block.kind.get() {
                        Some("text") if !said.has_text => {
                            if let Some(text) = block.text.1.filter(|t| t.first() == Some(&b'"')) {
                                said.has_text = text_is_not_blank(text)?;
                            }
                        }
                        // No id, or not a string: no call the map holds.
                        Some("toolCall") => said.calls.extend(block.id.0.map(|id| CallSpans {
                            id,
                            name: block.name.1,
                            arguments: block.arguments.1,
                        })),
                        _ => {}
                    }
                }
            }
            b'-' | b'0'..=b'9' => {
                crate::de::from_slice::<f64>(span).ok()?;
            }
            _ => {}
        }
        Some(said)
    }
}

/// A content block as [`SaidContent`] reads it, each key given twice read for its last
/// value, as in a full decode.
#[derive(Default)]
struct SaidBlock<'a> {
    kind: LooseStr<'a>,
    text: Skipped<'a>,
    id: LooseStr<'a>,
    name: Skipped<'a>,
    arguments: Skipped<'a>,
}

impl<'de: 'a, 'a> Deserialize<'de> for SaidBlock<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(field_identifier, rename_all = "lowercase")]
        enum Key {
            Type,
            Text,
            Id,
            Name,
            Arguments,
            #[serde(other)]
            Other,
        }
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = SaidBlock<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a block")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut b = SaidBlock::default();
                while let Some(key) = map.next_key()? {
                    match key {
                        Key::Type => b.kind = map.next_value()?,
                        Key::Text => b.text = map.next_value()?,
                        Key::Id => b.id = map.next_value()?,
                        Key::Name => b.name = map.next_value()?,
                        Key::Arguments => b.arguments = map.next_value()?,
                        Key::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(b)
            }
        }
        d.deserialize_map(V)
    }
}

/// Whether a string span decodes to text that `js_trim` leaves something of, read from its
/// start: blanks (spaces and `\n`, `\r`, `\t`, `\f`) are passed, and the first other
/// ASCII character or escape of one answers. Anything else decides on the decoded whole.
fn text_is_not_blank(span: &[u8]) -> Option<bool> {
    let inner = &span[1..span.len().saturating_sub(1).max(1)];
    let mut at = 0;
    while let Some(&b) = inner.get(at) {
        match b {
            b' ' => at += 1,
            b'\\' => match inner.get(at + 1) {
                Some(b'n' | b'r' | b't' | b'f') => at += 2,
                Some(b'"' | b'\\' | b'/' | b'b') => return Some(true),
                _ => break,
            },
            0x21..=0x7F => return Some(true),
            _ => break,
        }
    }
    if at == inner.len() {
        return Some(false);
    }
    match decoded_span(span)? {
        Value::String(text) => Some(!crate::js::js_trim(&text).is_empty()),
        _ => None,
    }
}

/// pi's test of an assistant message's stop reason, as `/tree`'s filter reads it:
/// `stopReason && stopReason !== "stop" && stopReason !== "toolUse"`. The one copy of the
/// rule: the skim's test on a span below, and `tree`'s on a decoded message, both ask it.
pub fn stop_is_unusual(stop: Option<&Value>) -> bool {
    crate::js::js_truthy(stop) && !matches!(stop.and_then(Value::as_str), Some("stop" | "toolUse"))
}

/// [`stop_is_unusual`] on the stored bytes of the value: a plain string is judged as is,
/// anything else decoded first.
fn stop_span_is_unusual(span: &[u8]) -> Option<bool> {
    let plain = span
        .strip_prefix(b"\"")
        .and_then(|s| s.strip_suffix(b"\""))
        .filter(|inner| !inner.contains(&b'\\'));
    if let Some(inner) = plain {
        return Some(!matches!(inner, b"" | b"stop" | b"toolUse"));
    }
    Some(stop_is_unusual(Some(&decoded_span(span)?)))
}

/// The keys of a call's arguments a reader reads, by the tool's name (`None`: all of them).
pub(crate) type ArgumentKeys = fn(&str) -> Option<&'static [&'static [u8]]>;

/// What [`decode_kept`] keeps of an entry line: of the line, its `message` and
/// `message.content`'s blocks, the keys a reader names.
#[derive(Debug, Clone, Copy)]
pub struct Kept<'k> {
    /// The keys of the line to decode, the others passed over; `None`: all of them.
    pub entry: Option<&'k [&'k [u8]]>,
    /// The keys of `message` to decode, the others passed over; `None`: all of them.
    pub message: Option<&'k [&'k [u8]]>,
    /// The keys of `message.content`'s blocks to decode.
    pub blocks: &'k [&'k [u8]],
    /// A text of `message.content` (the string, or a block's `text`) stored in more than this
    /// many bytes is decoded from a prefix of at least that many of its stored bytes, cut at
    /// an [`crate::escaped::boundary`]: at least `n / 6` UTF-16 units of it (an escape is at
    /// most 6 bytes a unit), and never a blank prefix of a text that is not blank. For readers
    /// of a text's start only (`tree`'s previews).
    pub texts: Option<usize>,
    /// The keys of a tool call's `arguments` to decode, by the call's `name` (given before
    /// them); `None` (or a name it does not know): all of them.
    pub arguments: Option<ArgumentKeys>,
}

/// An entry line decoded but for what `kept` passes over, which the skim skips at memory
/// speed (thinking, images' data, tool-call arguments and usage are most of a message, and
/// `tree` reads none of them). Each value kept is decoded from its span by the one decoder, so
/// it is what a full decode gives; `None` where the skim is unsure (then decode the line).
pub fn decode_kept(line: &[u8], kept: &Kept) -> Option<Value> {
    let mut s = Skim::new(line);
    let wanted = |key: &[u8]| kept.entry.is_none_or(|keys| keys.contains(&key));
    let entry = object_with(&mut s, wanted, |key, s| match key {
        b"message" if s.at_object() => {
            let wanted = |key: &[u8]| kept.message.is_none_or(|keys| keys.contains(&key));
            object_with(s, wanted, |key, s| match key {
                b"content" if s.at_array() => blocks_kept(s, kept),
                b"content" => text(s, kept.texts),
                _ => decoded(s),
            })
        }
        _ => decoded(s),
    })?;
    s.end().ok()?;
    Some(entry)
}

/// The next value, decoded from its span (see [`decoded_span`]).
pub fn decoded(s: &mut Skim<'_>) -> Option<Value> {
    decoded_span(s.value().ok()?)
}

/// A value decoded from its span: a plain string (`crate::escaped::unescaped`) without a
/// deserializer.
pub fn decoded_span(span: &[u8]) -> Option<Value> {
    if let Some(inner) = span.strip_prefix(b"\"").and_then(|s| s.strip_suffix(b"\"")) {
        if let Some(text) = crate::escaped::unescaped(inner) {
            return Some(Value::String(text));
        }
    }
    crate::json::decode(span).ok()
}

/// The next value, a text longer than `cap` bytes decoded from its start only (see
/// [`Kept::texts`]).
fn text(s: &mut Skim<'_>, cap: Option<usize>) -> Option<Value> {
    let span = s.value().ok()?;
    let long = cap.filter(|&cap| span.len() > cap + 2 && span.first() == Some(&b'"'));
    let Some(cap) = long else {
        return decoded_span(span);
    };
    let inner = &span[1..span.len() - 1];
    match crate::escaped::decoded_prefix(inner, cap) {
        Some((start, _)) if !crate::js::js_trim(&start).is_empty() => Some(Value::String(start)),
        // Blank so far (it may not be further on), or no start to cut: all of it.
        _ => decoded_span(span),
    }
}

/// The next object, each member `wanted` read by `read` (the others skipped). A key given
/// twice keeps its first place and its last value, as serde_json's map (and JSON.parse) do.
pub fn object_with<'a>(
    s: &mut Skim<'a>,
    wanted: impl Fn(&[u8]) -> bool,
    mut read: impl FnMut(&'a [u8], &mut Skim<'a>) -> Option<Value>,
) -> Option<Value> {
    let mut members = s.object().ok()?;
    let mut map = serde_json::Map::new();
    while let Some(key) = s.next_key(&mut members).ok()? {
        if !wanted(key) {
            s.value().ok()?;
            continue;
        }
        // The skim hands over only unescaped UTF-8 keys.
        let name = std::str::from_utf8(key).ok()?;
        map.insert(name.to_owned(), read(key, s)?);
    }
    Some(Value::Object(map))
}

/// The content array at the cursor, its blocks with the keys `kept.blocks` only (and long
/// texts cut as [`Kept::texts`] says).
fn blocks_kept(s: &mut Skim<'_>, kept: &Kept) -> Option<Value> {
    blocks_with(s, |s| {
        let wanted = |key: &[u8]| kept.blocks.contains(&key);
        // The tool named so far, and whether arguments were cut for it: a name given after
        // them (the last wins) might want others, so that block is left unsure.
        let (mut name, mut cut) = (None, false);
        object_with(s, wanted, |key, s| match key {
            b"text" => text(s, kept.texts),
            b"name" if cut => None,
            b"name" => {
                let value = decoded(s)?;
                name = value.as_str().map(str::to_owned);
                Some(value)
            }
            b"arguments" if s.at_object() => {
                let keys = kept.arguments.zip(name.as_deref());
                match keys.and_then(|(keys_of, name)| keys_of(name)) {
                    Some(keys) => {
                        cut = true;
                        object_with(s, |key| keys.contains(&key), |_, s| decoded(s))
                    }
                    None => decoded(s),
                }
            }
            _ => decoded(s),
        })
    })
}

/// The content array at the cursor, each block (object) read by `block`, other items decoded.
pub fn blocks_with(
    s: &mut Skim<'_>,
    mut block: impl FnMut(&mut Skim<'_>) -> Option<Value>,
) -> Option<Value> {
    let mut items = s.array().ok()?;
    let mut blocks = Vec::new();
    while s.next_item(&mut items).ok()? {
        blocks.push(if s.at_object() {
            block(s)?
        } else {
            decoded(s)?
        });
    }
    Some(Value::Array(blocks))
}

/// The text of a message's content as pi's listing extracts it: a string as is, else the
/// `text` blocks joined with a space. `None` when the content is neither (pi drops such
/// sessions from its listing; pisess lists them and treats the text as empty).
pub(crate) fn content_text(raw: Option<&RawValue>) -> Option<String> {
    // The one decoder: a text with a lone surrogate is text (serde_json alone refuses it).
    let content = crate::json::decode(raw?.get().as_bytes()).ok()?;
    match Content::of(Some(&content)) {
        Content::Text(s) => Some(s.to_owned()),
        blocks @ Content::Blocks(_) => {
            let parts: Vec<String> = blocks
                .blocks()
                .filter_map(|b| match b {
                    Block::Text { text } => Some(crate::js::js_join_element(text)),
                    _ => None,
                })
                .collect();
            Some(parts.join(" "))
        }
        Content::None | Content::Other(_) => None,
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
    match serde_json::from_slice::<Line>(line) {
        Ok(line) => content_text(line.message.0?.content),
        // Bytes that are not UTF-8 read as pi reads them, each bad run a U+FFFD.
        Err(_) if std::str::from_utf8(line).is_err() => {
            let lossy = String::from_utf8_lossy(line);
            let line: Line = serde_json::from_str(&lossy).ok()?;
            content_text(line.message.0?.content)
        }
        Err(_) => None,
    }
}

/// What pi's `/session` counts of a message beyond its role: the tool calls of an assistant
/// message (content blocks whose `type` is `toolCall`, as `getSessionStats` counts them) and
/// whether a tool result says `isError: true`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CallFacts {
    pub tool_calls: u64,
    pub is_error: bool,
}

/// [`CallFacts`] of a message line. A line is decoded only when its bytes could hold a tool
/// call (the string `"toolCall"`) or an error flag (`"isError"`, a colon, `true`), as written or
/// behind a `\u` escape (which JSON.stringify uses only for control characters and lone
/// surrogates): pi's tool results all carry `"isError":false`, and decoding each of them cost
/// `ls` three times its reading.
pub fn message_call_facts(line: &[u8]) -> CallFacts {
    let escaped = memchr::memmem::find(line, b"\\u").is_some();
    let calls = escaped || memchr::memmem::find(line, b"\"toolCall\"").is_some();
    let error = escaped || error_flag(line);
    if !calls && !error {
        return CallFacts::default();
    }
    #[derive(Deserialize)]
    struct Line {
        #[serde(default)]
        message: LooseObj<Message>,
    }
    #[derive(Deserialize)]
    struct Message {
        #[serde(default)]
        content: ToolCallCount,
        #[serde(rename = "isError", default)]
        is_error: Option<Value>,
    }
    // What serde_json refuses and JavaScript reads (a lone surrogate, a key given twice): the
    // same view of the line as the one decoder reads it.
    let line = serde_json::from_slice::<Line>(line).ok().or_else(|| {
        let v = crate::json::decode(line).ok().filter(Value::is_object)?;
        Line::deserialize(&v).ok()
    });
    match line.and_then(|line| line.message.0) {
        Some(m) => CallFacts {
            tool_calls: m.content.0,
            is_error: m.is_error == Some(Value::Bool(true)),
        },
        None => CallFacts::default(),
    }
}

/// Whether the bytes hold `"isError"`, a colon and `true` (JSON whitespace allowed between).
fn error_flag(line: &[u8]) -> bool {
    let ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    memchr::memmem::find_iter(line, b"\"isError\"").any(|at| {
        let rest = &line[at + 9..];
        let rest = &rest[rest.iter().take_while(|b| ws(b)).count()..];
        let Some(rest) = rest.strip_prefix(b":") else {
            return false;
        };
        let rest = &rest[rest.iter().take_while(|b| ws(b)).count()..];
        rest.starts_with(b"true")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, Value};

    #[test]
    fn decoding_with_block_keys_is_a_full_decode_less_the_others() {
        let keep: &[&[u8]] = &[b"type", b"text", b"id", b"name"];
        let without = |mut v: Value| {
            if let Some(Value::Array(blocks)) = v.pointer_mut("/message/content") {
                for b in blocks.iter_mut().filter_map(Value::as_object_mut) {
                    b.retain(|k, _| keep.contains(&k.as_bytes()));
                }
            }
            v
        };
        let mut lines: Vec<Vec<u8>> = [
            r#"{"type":"message","id":"a","message":{"role":"assistant","content":[{"type":"thinking","thinking":"long \"t\" [ {"},{"type":"text","text":"hi \ud83d\ude00 \ud83d"},{"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls"}},"x",7,[{"thinking":1}]],"stopReason":"toolUse","n":1e999}}"#,
            // Keys given twice: first place, last value, as serde_json's map keeps them.
            r#"{"message":{"content":[{"text":"a","text":"b","thinking":"x"}],"content":"again"},"message":{"role":"user","content":[]}}"#,
            r#"{ "message" : { "content" : [ ] , "role" : "user" } , "type" : "message" }"#,
            r#"{"message":"not an object","content":[{"thinking":"kept: not message.content"}]}"#,
            r#"{"message":{"content":{"thinking":"not an array"}}}"#,
        ]
        .iter()
        .map(|l| l.as_bytes().to_vec())
        .collect();
        lines.push(b"{\"message\":{\"content\":[{\"text\":\"caf\xff\"}]}}".to_vec());
        for line in &lines {
            let full = crate::json::decode(line).unwrap();
            let kept = Kept {
                entry: None,
                message: None,
                blocks: keep,
                texts: None,
                arguments: None,
            };
            let pruned = decode_kept(line, &kept).unwrap();
            assert_eq!(
                crate::surrogates::to_string(&pruned),
                crate::surrogates::to_string(&without(full)),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        // Of the message, only the keys asked for.
        let line = br#"{"type":"message","id":"a","message":{"role":"user","usage":{"input":1},"content":"x","role":"again"},"usage":1}"#;
        let kept = Kept {
            entry: Some(&[b"type", b"message", b"usage"]),
            message: Some(&[b"role", b"content"]),
            blocks: keep,
            texts: None,
            arguments: None,
        };
        assert_eq!(
            decode_kept(line, &kept).unwrap().to_string(),
            r#"{"type":"message","message":{"role":"again","content":"x"},"usage":1}"#
        );
        // What the skim is unsure of goes back to the caller.
        for bad in [
            &b"{\"message\":{\"content\":[1,]}}"[..],
            b"[1]",
            b"{\"a\":1} x",
            br#"{"a\u0062":1}"#,
            // A raw control character is no JSON (serde_json refuses it): nor plain text here.
            b"{\"a\":\"x\x01\"}",
        ] {
            let kept = Kept {
                entry: None,
                message: Some(&[b"content"]),
                blocks: keep,
                texts: None,
                arguments: None,
            };
            assert!(decode_kept(bad, &kept).is_none());
        }
    }

    /// A long text cut at a boundary decodes to a prefix of the whole, of the length
    /// [`Kept::texts`] promises, on random strings of escapes, surrogates, invalid bytes and backslashes.
    #[test]
    fn long_texts_decode_to_a_prefix_of_the_whole() {
        let pieces: &[&[u8]] = &[
            b"a",
            b" ",
            b"\\n",
            b"\\\\",
            b"\\\"",
            b"\\u00e9",
            b"\\ud83d\\ude00",
            b"\\ud83d",
            b"\\ude00",
            "\u{e9}".as_bytes(),
            "\u{1f600}".as_bytes(),
            b"\xff",
            b"\xf0\x9f",
            b"\r\n",
            b"\t",
            b"\\t",
        ];
        let mut next = crate::skim::rng(0x5eed_cafe);
        for _ in 0..3_000 {
            let mut inner = Vec::new();
            while inner.len() < 400 {
                inner.extend_from_slice(pieces[next(pieces.len())]);
            }
            // Raw tabs and newlines are no JSON: the skim refuses the line, as serde_json does.
            inner.retain(|&b| b != b'\t' && b != b'\n' && b != b'\r');
            let line = [
                &br#"{"message":{"content":[{"type":"text","text":""#[..],
                &inner,
                br#""}]}}"#,
            ]
            .concat();
            let whole = crate::json::decode(&line).unwrap();
            let whole = whole["message"]["content"][0]["text"].as_str().unwrap();
            let cap = 60 + next(200);
            let kept = Kept {
                entry: None,
                message: Some(&[b"content"]),
                blocks: &[b"type", b"text"],
                texts: Some(cap),
                arguments: None,
            };
            let cut = decode_kept(&line, &kept).unwrap();
            let cut = cut["message"]["content"][0]["text"].as_str().unwrap();
            let units = |s: &str| s.encode_utf16().count();
            // All but a last lone half of a pair is the whole's.
            let (kept, whole_units) = (units(cut), units(whole));
            assert!(
                kept >= cap / 6 || kept == whole_units,
                "{kept} units at cap {cap}"
            );
            let agree = cut
                .encode_utf16()
                .zip(whole.encode_utf16())
                .take_while(|(a, b)| a == b)
                .count();
            assert!(agree + 2 >= kept, "{cut:?} is no prefix of {whole:?}");
        }
        // A blank start is not taken for a blank text.
        let line = format!(r#"{{"message":{{"content":"{}x"}}}}"#, " ".repeat(5000));
        let kept = Kept {
            entry: None,
            message: None,
            blocks: &[],
            texts: Some(100),
            arguments: None,
        };
        let cut = decode_kept(line.as_bytes(), &kept).unwrap();
        assert_eq!(cut["message"]["content"].as_str().map(str::len), Some(5001));
    }

    #[test]
    fn tool_calls_and_errors_as_pi_counts_them() {
        let facts = |line: &str| message_call_facts(line.as_bytes());
        assert_eq!(
            facts(
                r#"{"message":{"role":"assistant","content":[{"type":"toolCall"},{"type":"text"},{"type":"toolCall"},"x",{"type":5}]}}"#
            ),
            CallFacts {
                tool_calls: 2,
                is_error: false
            }
        );
        // Escaped letters still spell the type.
        assert_eq!(
            facts(r#"{"message":{"content":[{"type":"tool\u0043all"}]}}"#).tool_calls,
            1
        );
        // Content that is not an array holds no calls (pi's Array.isArray).
        assert_eq!(facts(r#"{"message":{"content":"toolCall"}}"#).tool_calls, 0);
        assert!(facts(r#"{"message":{"role":"toolResult","isError":true}}"#).is_error);
        assert!(!facts(r#"{"message":{"role":"toolResult","isError":"true"}}"#).is_error);
        assert_eq!(facts("not json toolCall"), CallFacts::default());
        // Spaced as a hand-edited file may be; nested in details it is not the message's.
        assert!(facts(r#"{"message":{"isError" :  true}}"#).is_error);
        assert!(!facts(r#"{"message":{"details":{"isError":true}}}"#).is_error);
        assert!(!facts(r#"{"message":{"isError":false,"content":[{"type":"text"}]}}"#).is_error);
        // A lone surrogate (serde_json refuses it, JavaScript reads it) changes nothing.
        let lone = r#"{"message":{"content":[{"type":"text","text":"\ud83d"},{"type":"toolCall"}],"isError":true}}"#;
        assert_eq!(
            facts(lone),
            CallFacts {
                tool_calls: 1,
                is_error: true
            }
        );
    }

    fn view(line: &str) -> LineView<'_> {
        serde_json::from_str(line).unwrap()
    }

    /// Before the skim read `stopReason` through the derive, serde_json's view of a line
    /// ignored the key: a message giving it twice was read by serde_json (the line kept as
    /// stored, so `stats` reads it as before), where the skim refuses it.
    #[test]
    fn a_repeated_stop_reason_is_left_to_serde_json_which_reads_the_line() {
        let line = br#"{"type":"message","id":"a","message":{"role":"assistant","content":"x","stopReason":"stop","stopReason":"toolUse","usage":{"input":1}}}"#;
        assert!(LineView::skim(line).is_none());
        let view = serde_json::from_slice::<LineView>(line).unwrap();
        let m = view.message.0.unwrap();
        assert_eq!(m.role.get(), Some("assistant"));
        assert!(m.usage.is_some() && !m.skimmed && m.stop_reason.1.is_none());
        // Any other field given twice is refused by both, as always.
        let twice =
            br#"{"type":"message","message":{"role":"user","role":"user","stopReason":"stop"}}"#;
        assert!(LineView::skim(twice).is_none());
        assert!(serde_json::from_slice::<LineView>(twice).is_err());
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
        assert_eq!(Present(m.content.0), Present(true));
    }

    #[test]
    fn content_presence_without_decoding() {
        let present = |line: &str| Present(view(line).message.0.unwrap().content.0);
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
        let Some(mut skimmed) = LineView::skim(line) else {
            return false;
        };
        // The spans are the skim's own extras, and must be the stored texts of their values.
        if let Some(m) = skimmed.message.0.as_mut() {
            let full = crate::json::decode(line).unwrap();
            for (span, key) in [
                (m.content.1.take(), "content"),
                (m.stop_reason.1.take(), "stopReason"),
                (m.error_message.1.take(), "errorMessage"),
                (m.response_model.1.take(), "responseModel"),
            ] {
                if let Some(span) = span {
                    let value = full["message"][key].clone();
                    assert_eq!(crate::json::decode(span).unwrap(), value);
                }
            }
            assert!(std::mem::take(&mut m.skimmed));
            m.walk = Default::default();
        }
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
            r#"{"message":{"role":"toolResult","timestamp":1767225600000,"isError":true}}"#,
            r#"{"message":{"timestamp":0,"isError":false}}"#,
            r#"{"message":{"timestamp":9999999999999999999,"isError":null}}"#,
            r#"{"message":{"timestamp":-5,"isError":"true"}}"#,
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
        let lines = crate::skim::example_lines();
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
        let took = crate::skim::damaged(&objects, &specials, 0x9e37_79b9_7f4a_7c15, 20_000)
            .filter(|line| assert_skim_agrees(line))
            .count();
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
}
