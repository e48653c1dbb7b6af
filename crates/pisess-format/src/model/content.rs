//! A message's content, typed: a string, or blocks (text, thinking, tool call, image, the parts
//! of tool results, anything else), each a borrowed view of the decoded `Value`.
//!
//! The block types are spelled here only. Fields stay `Option<&Value>` where a consumer copies
//! JavaScript's coercions of a wrong JSON type (pi prints `String(x)`), so a view changes no
//! output; the consumers decide what a missing or mistyped field shows.

use serde_json::{Map, Value};

use crate::js::js_string;

/// A message's `content`.
#[derive(Debug, Clone, Copy)]
pub enum Content<'a> {
    /// Absent or `null`.
    None,
    Text(&'a str),
    Blocks(&'a [Value]),
    /// Another JSON type.
    Other(&'a Value),
}

impl<'a> Content<'a> {
    pub fn of(content: Option<&'a Value>) -> Content<'a> {
        match content {
            None | Some(Value::Null) => Content::None,
            Some(Value::String(s)) => Content::Text(s),
            Some(Value::Array(blocks)) => Content::Blocks(blocks),
            Some(other) => Content::Other(other),
        }
    }

    /// The blocks, typed (none unless the content is an array).
    pub fn blocks(self) -> impl Iterator<Item = Block<'a>> {
        self.stored_blocks().iter().map(Block::of)
    }

    /// The blocks as stored (none unless the content is an array).
    fn stored_blocks(self) -> &'a [Value] {
        match self {
            Content::Blocks(blocks) => blocks,
            _ => &[],
        }
    }

    /// The `thinking` strings of its blocks, whatever their `type`: the text of seed 000's
    /// `thinking` entry, whose blocks the dialect's mapping leaves as they are.
    pub fn thinking_texts(self) -> impl Iterator<Item = &'a str> {
        self.stored_blocks()
            .iter()
            .filter_map(|b| b.get("thinking").and_then(Value::as_str))
    }

    /// seed 000's `tool_result` blocks (the dialect answers calls in a user message's
    /// content): the call each answers (`toolUseId`, as stored) and whether it failed.
    pub fn seed000_results(self) -> impl Iterator<Item = (Option<&'a Value>, bool)> {
        self.stored_blocks()
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .map(|b| {
                (
                    b.get("toolUseId"),
                    b.get("isError") == Some(&Value::Bool(true)),
                )
            })
    }
}

/// Content of one text block, `[{"type":"text","text":…}]`: what pi makes of a string where
/// it needs blocks.
pub fn text_blocks(text: impl Into<String>) -> Value {
    // Built in place (`json!` would copy the text, which can be a command's whole output).
    let mut block = Map::new();
    block.insert("type".into(), Value::from("text"));
    block.insert("text".into(), Value::String(text.into()));
    Value::Array(vec![Value::Object(block)])
}

/// The arguments of pi's built-in tools that its `/tree` one-liner reads (`formatToolCall`),
/// each as stored (`None`: absent, or the arguments are no object).
#[derive(Debug, Clone, Copy)]
pub struct ToolArgs<'a> {
    pub path: Option<&'a Value>,
    pub file_path: Option<&'a Value>,
    pub offset: Option<&'a Value>,
    pub limit: Option<&'a Value>,
    pub command: Option<&'a Value>,
    pub pattern: Option<&'a Value>,
}

impl<'a> ToolArgs<'a> {
    pub fn of(arguments: Option<&'a Value>) -> ToolArgs<'a> {
        let get = |k: &str| arguments.and_then(|a| a.get(k));
        ToolArgs {
            path: get("path"),
            file_path: get("file_path"),
            offset: get("offset"),
            limit: get("limit"),
            command: get("command"),
            pattern: get("pattern"),
        }
    }
}

/// One content block.
#[derive(Debug, Clone, Copy)]
pub enum Block<'a> {
    /// `{"type":"text","text":…}`
    Text {
        text: Option<&'a Value>,
    },
    /// `{"type":"thinking","thinking":…,"thinkingSignature":…}`; `redacted: true` hides it.
    Thinking {
        thinking: Option<&'a Value>,
        redacted: bool,
        signature: Option<&'a Value>,
    },
    ToolCall(ToolCall<'a>),
    /// `{"type":"image","data":…,"mimeType":…}` (base64 data).
    Image {
        mime_type: Option<&'a str>,
        data: Option<&'a str>,
    },
    /// Another `type` (seed 000's `tool_result` blocks, future types), kept by name, with
    /// the `content` and `text` such blocks may hold.
    Other {
        kind: &'a str,
        content: Option<&'a Value>,
        text: Option<&'a Value>,
    },
    /// No string `type`.
    Untyped(&'a Value),
}

/// A tool call block, `{"type":"toolCall","id":…,"name":…,"arguments":{…}}`.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    pub id: Option<&'a Value>,
    pub name: Option<&'a Value>,
    pub arguments: Option<&'a Value>,
}

/// How a tool call is printed on one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallForm {
    /// `show`: `name(key: value, …)`, values as compact JSON; a name of another type as
    /// JavaScript's `String(x)`.
    Keys,
    /// `context`: `name({"key":value})`, the arguments as compact JSON; a name that is not a
    /// string is `?`.
    Json,
}

impl<'a> Block<'a> {
    pub fn of(block: &'a Value) -> Block<'a> {
        let get = |k: &str| block.get(k);
        match get("type").and_then(Value::as_str) {
            Some("text") => Block::Text { text: get("text") },
            Some("thinking") => Block::Thinking {
                thinking: get("thinking"),
                redacted: get("redacted") == Some(&Value::Bool(true)),
                signature: get("thinkingSignature"),
            },
            Some("toolCall") => Block::ToolCall(ToolCall {
                id: get("id"),
                name: get("name"),
                arguments: get("arguments"),
            }),
            Some("image") => Block::Image {
                mime_type: get("mimeType").and_then(Value::as_str),
                data: get("data").and_then(Value::as_str),
            },
            Some(kind) => Block::Other {
                kind,
                content: get("content"),
                text: get("text"),
            },
            None => Block::Untyped(block),
        }
    }

    /// The `text` of a text block as a string, if it is one.
    pub fn text_str(&self) -> Option<&'a str> {
        match self {
            Block::Text { text } => text.and_then(Value::as_str),
            _ => None,
        }
    }
}

impl ToolCall<'_> {
    /// The call on one line. Arguments stay compact JSON, so newlines in them stay escaped and
    /// the call stays on its line.
    pub fn line(&self, form: CallForm) -> String {
        match form {
            CallForm::Keys => {
                let name = match self.name {
                    Some(Value::String(s)) => s.clone(),
                    None | Some(Value::Null) => "?".to_owned(),
                    other => js_string(other),
                };
                let args = match self.arguments {
                    Some(Value::Object(map)) => keys(map),
                    None | Some(Value::Null) => String::new(),
                    Some(other) => other.to_string(),
                };
                format!("{name}({args})")
            }
            CallForm::Json => format!(
                "{}({})",
                self.name.and_then(Value::as_str).unwrap_or("?"),
                self.arguments.map(Value::to_string).unwrap_or_default()
            ),
        }
    }
}

/// `key: value, …`, values as compact JSON.
fn keys(map: &Map<String, Value>) -> String {
    let pairs: Vec<String> = map.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    pairs.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_are_typed_and_calls_print_both_ways() {
        let content = json!([
            {"type":"text","text":"a"},
            {"type":"thinking","thinking":"t","redacted":true},
            {"type":"toolCall","id":"c","name":"bash","arguments":{"command":"ls\n"}},
            {"type":"image","mimeType":"image/png"},
            {"type":"tool_result"},
            {"text":"no type"}
        ]);
        let blocks: Vec<Block> = Content::of(Some(&content)).blocks().collect();
        assert_eq!(blocks[0].text_str(), Some("a"));
        assert!(matches!(blocks[1], Block::Thinking { redacted: true, .. }));
        let Block::ToolCall(call) = blocks[2] else {
            panic!("a tool call")
        };
        assert_eq!(call.line(CallForm::Keys), r#"bash(command: "ls\n")"#);
        assert_eq!(call.line(CallForm::Json), r#"bash({"command":"ls\n"})"#);
        // Moved from render.rs with the function they test.
        let args = json!({"path":"src/a.ts","oldText":"x\ny"});
        let edit = json!("edit");
        let call = |name, arguments| ToolCall {
            id: None,
            name,
            arguments,
        };
        assert_eq!(
            call(Some(&edit), Some(&args)).line(CallForm::Keys),
            r#"edit(path: "src/a.ts", oldText: "x\ny")"#
        );
        assert_eq!(call(None, Some(&json!([1]))).line(CallForm::Keys), "?([1])");
        assert!(matches!(
            blocks[3],
            Block::Image {
                mime_type: Some("image/png"),
                data: None
            }
        ));
        assert!(matches!(
            blocks[4],
            Block::Other {
                kind: "tool_result",
                ..
            }
        ));
        assert!(matches!(blocks[5], Block::Untyped(_)));
        assert!(matches!(Content::of(Some(&json!("s"))), Content::Text("s")));
        assert_eq!(Content::of(Some(&json!(null))).blocks().count(), 0);
    }
}
