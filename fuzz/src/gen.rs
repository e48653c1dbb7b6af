//! A structure-aware generator: libFuzzer's bytes drive `arbitrary` into a session of pi's shape
//! (a header, entries of the eleven types and a few unknown ones, ids drawn from a small pool so
//! parents, cycles, duplicates and orphans are common) whose fields are sometimes of the wrong
//! JSON type, and whose lines are sometimes blank, glued, torn, CRLF, BOM-led, invalid UTF-8 or
//! nested deep. Raw byte mutation almost never gets past the JSON syntax; this does.

use arbitrary::{Arbitrary, Result, Unstructured};
use serde_json::{json, Map, Value};

const IDS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];
const TYPES: [&str; 16] = [
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
    "tool_call",
    "thinking",
    "session",
    "weird_future",
    "user_message",
];
const ROLES: [&str; 10] = [
    "user",
    "assistant",
    "toolResult",
    "system",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
    "hookMessage",
    "alien",
];
const FIELDS: [&str; 26] = [
    "content",
    "summary",
    "firstKeptEntryId",
    "firstKeptEntryIndex",
    "tokensBefore",
    "systemMessage",
    "targetId",
    "replacement",
    "label",
    "name",
    "fromId",
    "customType",
    "display",
    "details",
    "data",
    "provider",
    "modelId",
    "thinkingLevel",
    "usage",
    "kind",
    "model",
    "stopReason",
    "toolCallId",
    "toolName",
    "input",
    "fromHook",
];
const MESSAGE_FIELDS: [&str; 17] = [
    "content",
    "timestamp",
    "usage",
    "provider",
    "model",
    "stopReason",
    "errorMessage",
    "toolCallId",
    "toolName",
    "isError",
    "command",
    "output",
    "exitCode",
    "excludeFromContext",
    "summary",
    "sections",
    "toolsAdded",
];
const TEXTS: [&str; 10] = [
    "",
    "hello",
    " \n\t ",
    "\u{1b}[2J\u{1b}]0;pwned\u{7}",
    "\u{9b}31m\r\u{0}",
    "\u{202e}evil",
    "日本語テキスト",
    "2026-01-01T00:00:00.000Z",
    "line one\nline two\nline three\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve\nthirteen",
    "a",
];

fn pick<'s>(u: &mut Unstructured, from: &[&'s str]) -> Result<&'s str> {
    Ok(*u.choose(from)?)
}

/// A JSON value of any type, shallow, often one that a field expects and often not.
fn value(u: &mut Unstructured, depth: u8) -> Result<Value> {
    let choice = u.int_in_range(0..=11)?;
    Ok(match choice {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => json!(u.arbitrary::<i64>()?),
        3 => {
            let f: f64 = u.arbitrary()?;
            serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
        }
        4 => json!(u.int_in_range(0..=200_000u32)?),
        5 | 6 => Value::from(pick(u, &TEXTS)?),
        7 => Value::from(pick(u, &IDS)?),
        8 => Value::from(u.arbitrary::<String>()?),
        9 if depth < 3 => {
            let n = u.int_in_range(0..=3)?;
            let mut items = Vec::new();
            for _ in 0..n {
                items.push(block(u, depth + 1)?);
            }
            Value::Array(items)
        }
        10 if depth < 3 => {
            let mut m = Map::new();
            for _ in 0..u.int_in_range(0..=3)? {
                let key = pick(u, &MESSAGE_FIELDS)?.to_owned();
                m.insert(key, value(u, depth + 1)?);
            }
            Value::Object(m)
        }
        _ => Value::from(pick(u, &TEXTS)?),
    })
}

/// A content block: text, thinking, toolCall, image, or something else.
fn block(u: &mut Unstructured, depth: u8) -> Result<Value> {
    let kind = pick(
        u,
        &["text", "thinking", "toolCall", "image", "tool_use", "x"],
    )?;
    let mut m = Map::new();
    if u.ratio(9, 10)? {
        m.insert("type".into(), Value::from(kind));
    }
    let field = match kind {
        "text" => "text",
        "thinking" => "thinking",
        "toolCall" => "arguments",
        "image" => "data",
        _ => "content",
    };
    m.insert(field.into(), value(u, depth + 1)?);
    if kind == "toolCall" {
        m.insert("name".into(), value(u, depth + 1)?);
        m.insert("id".into(), Value::from(pick(u, &IDS)?));
    }
    if kind == "image" {
        m.insert("mimeType".into(), value(u, depth + 1)?);
    }
    Ok(Value::Object(m))
}

fn id_field(u: &mut Unstructured) -> Result<Option<Value>> {
    Ok(match u.int_in_range(0..=9)? {
        0 => None,
        1 => Some(Value::Null),
        2 => Some(json!(7)),
        3 => Some(Value::from("")),
        4 => Some(json!({})),
        _ => Some(Value::from(pick(u, &IDS)?)),
    })
}

fn entry(u: &mut Unstructured) -> Result<Value> {
    let mut m = Map::new();
    m.insert("type".into(), Value::from(pick(u, &TYPES)?));
    if let Some(id) = id_field(u)? {
        m.insert("id".into(), id);
    }
    if let Some(parent) = id_field(u)? {
        m.insert("parentId".into(), parent);
    }
    let ts = if u.ratio(4, 5)? {
        Value::from(format!(
            "2026-01-01T00:00:{:02}.000Z",
            u.int_in_range(0..=59)?
        ))
    } else {
        value(u, 2)?
    };
    m.insert("timestamp".into(), ts);
    if m["type"] == "message" || u.ratio(1, 8)? {
        let message = if u.ratio(9, 10)? {
            let mut msg = Map::new();
            let role = if u.ratio(9, 10)? {
                Value::from(pick(u, &ROLES)?)
            } else {
                value(u, 2)?
            };
            msg.insert("role".into(), role);
            for _ in 0..u.int_in_range(0..=4)? {
                let key = pick(u, &MESSAGE_FIELDS)?.to_owned();
                msg.insert(key, value(u, 0)?);
            }
            Value::Object(msg)
        } else {
            value(u, 2)?
        };
        m.insert("message".into(), message);
    }
    for _ in 0..u.int_in_range(0..=4)? {
        let key = pick(u, &FIELDS)?;
        let v = match key {
            "targetId" | "firstKeptEntryId" | "fromId" if u.ratio(3, 4)? => {
                Value::from(pick(u, &IDS)?)
            }
            _ => value(u, 0)?,
        };
        m.insert(key.to_owned(), v);
    }
    Ok(Value::Object(m))
}

/// One physical line, or a few bytes that break the line structure.
#[derive(Debug)]
enum Line {
    Entry(Value),
    Blank,
    Glued(Value, Value),
    /// An entry with a duplicate key spliced in.
    DuplicateKey(Value),
    /// An entry with a byte that is not UTF-8 inside a string.
    InvalidUtf8(Value),
    Bytes(Vec<u8>),
    Nested(u32),
    Null,
    SecondHeader,
}

impl<'a> Arbitrary<'a> for Line {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(match u.int_in_range(0..=40)? {
            0 => Line::Blank,
            1 => Line::Glued(entry(u)?, entry(u)?),
            2 => Line::DuplicateKey(entry(u)?),
            3 => Line::InvalidUtf8(entry(u)?),
            4 => Line::Bytes(u.arbitrary()?),
            5 => Line::Nested(u.int_in_range(1..=200_000)?),
            6 => Line::Null,
            7 => Line::SecondHeader,
            _ => Line::Entry(entry(u)?),
        })
    }
}

fn header(u: &mut Unstructured) -> Result<Vec<u8>> {
    let mut h = Map::new();
    let kind = match u.int_in_range(0..=12)? {
        0 => "session_header",
        1 => "message",
        _ => "session",
    };
    h.insert("type".into(), Value::from(kind));
    if u.ratio(15, 16)? {
        h.insert("id".into(), Value::from("s1"));
    }
    let version = match u.int_in_range(0..=5)? {
        0 => Value::Null,
        1 => json!(1),
        2 => json!(2),
        3 => value(u, 2)?,
        _ => json!(3),
    };
    h.insert("version".into(), version);
    h.insert("timestamp".into(), Value::from("2026-01-01T00:00:00.000Z"));
    h.insert(
        "cwd".into(),
        if u.ratio(7, 8)? {
            Value::from("/p")
        } else {
            value(u, 2)?
        },
    );
    Ok(Value::Object(h).to_string().into_bytes())
}

/// A whole session file.
pub struct SessionFile(pub Vec<u8>);

/// The file as text (`cargo fuzz fmt` shows a crash's input this way).
impl std::fmt::Debug for SessionFile {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.0).escape_debug().to_string())
    }
}

impl<'a> Arbitrary<'a> for SessionFile {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let crlf = u.ratio(1, 8)?;
        let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        let mut out = Vec::new();
        if u.ratio(1, 16)? {
            out.extend_from_slice(b"\xEF\xBB\xBF");
        }
        // The header, maybe after some junk or not at all.
        if u.ratio(1, 10)? {
            out.extend_from_slice(b"garbage");
            out.extend_from_slice(eol);
        }
        if u.ratio(19, 20)? {
            out.extend(header(u)?);
            out.extend_from_slice(eol);
        }
        let n = u.int_in_range(0..=24)?;
        for _ in 0..n {
            let line: Line = u.arbitrary()?;
            match line {
                Line::Entry(v) => out.extend(v.to_string().into_bytes()),
                Line::Blank => out.extend_from_slice(b"  "),
                Line::Glued(a, b) => {
                    out.extend(a.to_string().into_bytes());
                    out.extend(b.to_string().into_bytes());
                }
                Line::DuplicateKey(v) => {
                    let s = v.to_string();
                    out.extend_from_slice(b"{\"id\":\"a\",");
                    out.extend_from_slice(&s.as_bytes()[1..]);
                }
                Line::InvalidUtf8(v) => {
                    let s = v.to_string();
                    out.extend_from_slice(b"{\"junk\":\"\xff\xfe\xc3\",");
                    out.extend_from_slice(&s.as_bytes()[1..]);
                }
                Line::Bytes(b) => out.extend(b),
                Line::Nested(depth) => {
                    let depth = depth as usize;
                    out.extend_from_slice(b"{\"type\":\"message\",\"id\":\"z\",\"message\":");
                    out.extend(std::iter::repeat_n(b'[', depth));
                    out.extend(std::iter::repeat_n(b']', depth));
                    out.push(b'}');
                }
                Line::Null => out.extend_from_slice(b"null"),
                Line::SecondHeader => out.extend(header(u)?),
            }
            out.extend_from_slice(eol);
        }
        // A torn tail: the last line cut short, as pi leaves it mid-write.
        if u.ratio(1, 6)? && !out.is_empty() {
            let cut = u.int_in_range(0..=out.len().min(40))?;
            out.truncate(out.len() - cut);
        }
        Ok(SessionFile(out))
    }
}
