//! A typed decode of the messages most of an exported branch is made of (user, assistant and
//! tool result messages), straight from the line's bytes into the few fields the transcript
//! reads: no `serde_json::Value` tree (a map and a key string per object), and each text
//! decoded once into the `String` the transcript keeps (issue 48's time budget: decoding the
//! branch into `Value`s was 42% of an export's instructions, copying texts out of them 13%).
//!
//! It answers only where it reads a line as [`Session::decode_entry`] would: any line it is
//! unsure of (a key given twice, where `Value` keeps the last; a field of a type the
//! transcript would coerce; a surrogate escape or a stand-in; a `message` or block that is no
//! object; nesting past serde_json's limit) is `None`, and the caller decodes it as before.
//! The transcript's tests build every example's branch both ways and compare.
//!
//! [`Session::decode_entry`]: pisess_store::session::Session::decode_entry

use std::marker::PhantomData;

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// A message's role, of those decoded here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    ToolResult,
}

/// The fields of a message the transcript reads, as `Message`'s accessors give them (a field
/// read as a string is `None` when it is none).
#[derive(Debug)]
pub struct Message {
    pub role: Role,
    pub content: Content,
    pub model: Option<String>,
    pub provider: Option<String>,
    pub error_message: Option<String>,
    pub stop_reason: Option<String>,
    pub tool_name: Option<String>,
    pub tool_call_id: Option<String>,
    /// `isError` is `true`.
    pub is_error: bool,
    /// As stored (`null` kept), decoded as [`pisess_format::json::decode`] decodes.
    pub usage: Option<Value>,
}

#[derive(Debug)]
pub enum Content {
    /// Absent or `null`.
    None,
    Text(String),
    Blocks(Vec<Block>),
}

/// A content block, its text fields as `text_of` reads them (absent or `null`: empty).
#[derive(Debug)]
pub enum Block {
    Text(String),
    Thinking(String),
    RedactedThinking,
    ToolCall {
        /// `id` if a string.
        id: Option<String>,
        /// `None`: absent (`?`); `null` is empty.
        name: Option<String>,
        arguments: Option<Value>,
    },
    Image {
        mime_type: Option<String>,
        data: Option<String>,
    },
    Other {
        kind: String,
        /// `text` if a string.
        text: Option<String>,
    },
}

/// The message of a `message` entry's line, or `None` where the line must be decoded whole
/// (see the module's documentation). The caller has checked the entry's type and the dialect
/// (seed 000 is mapped first; pi's migrations change no field read here).
pub fn message(line: &[u8]) -> Option<Message> {
    if pisess_format::json::may_hold_surrogates(line) || may_nest_too_deep(line) {
        return None;
    }
    let Obj(LineD { message: Obj(m) }) = serde_json::from_slice(line).ok()?;
    let role = match m.role {
        Field::Str(r) if r == "user" => Role::User,
        Field::Str(r) if r == "assistant" => Role::Assistant,
        Field::Str(r) if r == "toolResult" => Role::ToolResult,
        _ => return None,
    };
    let content = match m.content {
        ContentD::Absent | ContentD::Null => Content::None,
        ContentD::Text(s) => Content::Text(s),
        ContentD::Blocks(blocks) => Content::Blocks(
            blocks
                .into_iter()
                .map(BlockD::typed)
                .collect::<Option<_>>()?,
        ),
        ContentD::Other => return None,
    };
    Some(Message {
        role,
        content,
        model: m.model.string(),
        provider: m.provider.string(),
        error_message: m.error_message.string(),
        stop_reason: m.stop_reason.string(),
        tool_name: m.tool_name.string(),
        tool_call_id: m.tool_call_id.string(),
        is_error: matches!(m.is_error, Field::Bool(true)),
        usage: m.usage,
    })
}

/// Whether the line could nest deeper than `json::decode` reads (it refuses the line; the
/// derive here skips what it does not read without counting): more brackets than that depth.
fn may_nest_too_deep(line: &[u8]) -> bool {
    const DEPTH: usize = 100_000;
    line.len() > DEPTH && memchr::memchr2_iter(b'[', b'{', line).count() > DEPTH
}

#[derive(Deserialize)]
struct LineD {
    message: Obj<MessageD>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageD {
    #[serde(default)]
    role: Field,
    #[serde(default)]
    content: ContentD,
    #[serde(default)]
    model: Field,
    #[serde(default)]
    provider: Field,
    #[serde(default)]
    error_message: Field,
    #[serde(default)]
    stop_reason: Field,
    #[serde(default)]
    tool_name: Field,
    #[serde(default)]
    tool_call_id: Field,
    #[serde(default)]
    is_error: Field,
    #[serde(default, deserialize_with = "decoded")]
    usage: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct BlockD {
    #[serde(rename = "type", default)]
    kind: Field,
    #[serde(default)]
    text: Field,
    #[serde(default)]
    thinking: Field,
    #[serde(default)]
    redacted: Field,
    #[serde(default)]
    id: Field,
    #[serde(default)]
    name: Field,
    #[serde(default, deserialize_with = "decoded")]
    arguments: Option<Value>,
    #[serde(default)]
    mime_type: Field,
    #[serde(default)]
    data: Field,
}

impl BlockD {
    /// The block as `Block::of` types it, or `None` where the transcript would coerce a field
    /// (`String(x)` of a number, an object…) or the block has no string `type`.
    fn typed(self) -> Option<Block> {
        let Field::Str(kind) = self.kind else {
            return None;
        };
        Some(match kind.as_str() {
            "text" => Block::Text(self.text.text()?),
            "thinking" if matches!(self.redacted, Field::Bool(true)) => Block::RedactedThinking,
            "thinking" => Block::Thinking(self.thinking.text()?),
            "toolCall" => Block::ToolCall {
                id: self.id.string(),
                name: match self.name {
                    Field::Absent => None,
                    name => Some(name.text()?),
                },
                arguments: self.arguments,
            },
            "image" => Block::Image {
                mime_type: self.mime_type.string(),
                data: self.data.string(),
            },
            _ => Block::Other {
                kind,
                text: self.text.string(),
            },
        })
    }
}

/// A value kept by its JSON type, a string decoded; arrays and objects skipped.
#[derive(Debug, Default)]
enum Field {
    #[default]
    Absent,
    Null,
    Bool(bool),
    Str(String),
    /// A number, an array or an object.
    Other,
}

impl Field {
    /// The string, if it is one (`as_str`).
    fn string(self) -> Option<String> {
        match self {
            Field::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A text field as `text_of` reads it when that is no coercion: absent or `null` empty, a
    /// string itself; `None` for any other type.
    fn text(self) -> Option<String> {
        match self {
            Field::Absent | Field::Null => Some(String::new()),
            Field::Str(s) => Some(s),
            Field::Bool(_) | Field::Other => None,
        }
    }
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Field;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_unit<E>(self) -> Result<Field, E> {
                Ok(Field::Null)
            }
            fn visit_bool<E>(self, b: bool) -> Result<Field, E> {
                Ok(Field::Bool(b))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Field, E> {
                Ok(Field::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Field, E> {
                Ok(Field::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Field, E> {
                Ok(Field::Other)
            }
            fn visit_str<E>(self, s: &str) -> Result<Field, E> {
                Ok(Field::Str(s.to_owned()))
            }
            fn visit_string<E>(self, s: String) -> Result<Field, E> {
                Ok(Field::Str(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Field, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Field, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Field::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// `content`: a string, blocks (each an object), or anything else.
#[derive(Default)]
enum ContentD {
    #[default]
    Absent,
    Null,
    Text(String),
    Blocks(Vec<BlockD>),
    Other,
}

impl<'de> Deserialize<'de> for ContentD {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ContentD;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a message's content")
            }
            fn visit_unit<E>(self) -> Result<ContentD, E> {
                Ok(ContentD::Null)
            }
            fn visit_bool<E>(self, _: bool) -> Result<ContentD, E> {
                Ok(ContentD::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<ContentD, E> {
                Ok(ContentD::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<ContentD, E> {
                Ok(ContentD::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<ContentD, E> {
                Ok(ContentD::Other)
            }
            fn visit_str<E>(self, s: &str) -> Result<ContentD, E> {
                Ok(ContentD::Text(s.to_owned()))
            }
            fn visit_string<E>(self, s: String) -> Result<ContentD, E> {
                Ok(ContentD::Text(s))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ContentD, A::Error> {
                let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(Obj(b)) = seq.next_element::<Obj<BlockD>>()? {
                    blocks.push(b);
                }
                Ok(ContentD::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ContentD, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(ContentD::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// A struct read only from a JSON object: serde_json's `deserialize_struct` also takes an
/// array as the fields in order, which `Value` reads as an array (no field at all).
struct Obj<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(V(PhantomData)).map(Obj)
    }
}

/// A value as the whole line's decode would give it (`json::decode` of its stored bytes:
/// numbers past f64 `null`, its nesting bounded as the line's is).
fn decoded<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    let raw = <&'de RawValue>::deserialize(d)?;
    pisess_format::json::decode(raw.get().as_bytes())
        .map(Some)
        .map_err(de::Error::custom)
}
