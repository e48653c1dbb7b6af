//! pi's entries and messages, typed: [`Entry`] (one variant per entry type, each with its
//! fields), [`Message`] (with its [`Role`]) and, from [`super::content`], its blocks.
//!
//! They are borrowed views of a decoded entry (`Session::load`: the line in pi's shape, the
//! seed-000 dialect mapped and pi's migrations applied, so that mapping stays the only one).
//! A field is kept as the `&Value` stored, whatever its JSON type: pi's coercions of a wrong
//! type (`String(x)`, truthiness) and verbatim re-emission (`context --json`) need the value
//! itself, and a view that changed it would change output. Field names of pi's format are
//! spelled here and in `content.rs` only; views match on variants and roles.

use serde_json::Value;

use super::content::{Content, ToolCall};
use super::EntryKind;

/// A field as stored: `None` when absent.
pub type Field<'a> = Option<&'a Value>;

/// A message's `role`: pi's eight ([`super::PI_ROLES`]), or another kept by name (`""` when
/// the role is missing or not a string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role<'a> {
    User,
    Assistant,
    ToolResult,
    System,
    BashExecution,
    Custom,
    BranchSummary,
    CompactionSummary,
    Other(&'a str),
}

impl<'a> Role<'a> {
    pub fn parse(role: &'a str) -> Role<'a> {
        match role {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "toolResult" => Role::ToolResult,
            "system" => Role::System,
            "bashExecution" => Role::BashExecution,
            "custom" => Role::Custom,
            "branchSummary" => Role::BranchSummary,
            "compactionSummary" => Role::CompactionSummary,
            other => Role::Other(other),
        }
    }

    pub fn as_str(self) -> &'a str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::ToolResult => "toolResult",
            Role::System => "system",
            Role::BashExecution => "bashExecution",
            Role::Custom => "custom",
            Role::BranchSummary => "branchSummary",
            Role::CompactionSummary => "compactionSummary",
            Role::Other(s) => s,
        }
    }
}

/// A message: the `message` of a message entry, or one pi builds for its context. Usually an
/// object; pi pushes whatever the entry holds, so any JSON value is viewed (with no fields).
#[derive(Debug, Clone, Copy)]
pub struct Message<'a>(pub &'a Value);

/// Generates accessors of fields kept as stored.
macro_rules! fields {
    ($($name:ident: $key:literal),* $(,)?) => {
        $(
            #[doc = concat!("`", $key, "` as stored.")]
            pub fn $name(self) -> Field<'a> {
                self.0.get($key)
            }
        )*
    };
}

impl<'a> Message<'a> {
    /// The role; `Other("")` when missing or not a string.
    pub fn role(self) -> Role<'a> {
        Role::parse(self.role_value().and_then(Value::as_str).unwrap_or(""))
    }

    pub fn content(self) -> Content<'a> {
        Content::of(self.content_value())
    }

    /// The message's tool calls (pi's `content.filter((c) => c.type === "toolCall")`): the one
    /// place that says what they are.
    pub fn tool_calls(self) -> impl Iterator<Item = ToolCall<'a>> {
        self.content().blocks().filter_map(|b| match b {
            super::content::Block::ToolCall(call) => Some(call),
            _ => None,
        })
    }

    fields! {
        role_value: "role",
        content_value: "content",
        timestamp: "timestamp",
        // assistant
        provider: "provider",
        model: "model",
        usage: "usage",
        stop_reason: "stopReason",
        error_message: "errorMessage",
        // toolResult
        tool_call_id: "toolCallId",
        tool_name: "toolName",
        is_error: "isError",
        // custom
        custom_type: "customType",
        // bashExecution
        command: "command",
        output: "output",
        exit_code: "exitCode",
        cancelled: "cancelled",
        truncated: "truncated",
        full_output_path: "fullOutputPath",
        exclude_from_context: "excludeFromContext",
        // branchSummary, compactionSummary
        summary: "summary",
        // system
        sections: "sections",
        tools_added: "toolsAdded",
    }
}

/// One entry, by type, with the fields its views read. Every entry type pisess knows is a
/// variant here: a new type is a variant and its arm in each view that shows it.
#[derive(Debug, Clone, Copy)]
pub enum Entry<'a> {
    /// `message` (`None` when missing).
    Message(Option<Message<'a>>),
    ModelChange {
        provider: Field<'a>,
        model_id: Field<'a>,
    },
    ThinkingLevelChange {
        thinking_level: Field<'a>,
    },
    Usage {
        kind: Field<'a>,
    },
    Compaction {
        summary: Field<'a>,
        first_kept_entry_id: Field<'a>,
        tokens_before: Field<'a>,
        system_message: Field<'a>,
        timestamp: Field<'a>,
    },
    ContextEdit {
        target_id: Field<'a>,
        replacement: Field<'a>,
        /// The replacement's `content`.
        new_content: Field<'a>,
    },
    BranchSummary {
        summary: Field<'a>,
        from_id: Field<'a>,
        timestamp: Field<'a>,
    },
    Custom {
        custom_type: Field<'a>,
    },
    CustomMessage {
        custom_type: Field<'a>,
        content: Field<'a>,
        display: Field<'a>,
        details: Field<'a>,
        timestamp: Field<'a>,
    },
    Label {
        label: Field<'a>,
    },
    SessionInfo {
        name: Field<'a>,
    },
    /// seed 000: a tool call recorded as its own entry.
    ToolCall {
        tool_name: Field<'a>,
        input: Field<'a>,
    },
    /// seed 000: a thinking entry.
    Thinking {
        content: Field<'a>,
    },
    /// A type pisess does not know, by name (`""`: no string `type`).
    Unknown(&'a str),
}

impl<'a> Entry<'a> {
    /// The entry `v`, typed by its own `type`.
    pub fn of(v: &'a Value) -> Entry<'a> {
        Entry::typed(v.get("type").and_then(Value::as_str).unwrap_or(""), v)
    }

    /// The entry `v` as the index's `kind` says (a partial decode may lack its `type`).
    pub fn of_kind(kind: &'a EntryKind, v: &'a Value) -> Entry<'a> {
        Entry::typed(kind.as_str(), v)
    }

    fn typed(kind: &'a str, v: &'a Value) -> Entry<'a> {
        let f = |key: &str| v.get(key);
        match kind {
            "message" => Entry::Message(f("message").map(Message)),
            "model_change" => Entry::ModelChange {
                provider: f("provider"),
                model_id: f("modelId"),
            },
            "thinking_level_change" => Entry::ThinkingLevelChange {
                thinking_level: f("thinkingLevel"),
            },
            "usage" => Entry::Usage { kind: f("kind") },
            "compaction" => Entry::Compaction {
                summary: f("summary"),
                first_kept_entry_id: f("firstKeptEntryId"),
                tokens_before: f("tokensBefore"),
                system_message: f("systemMessage"),
                timestamp: f("timestamp"),
            },
            "context_edit" => Entry::ContextEdit {
                target_id: f("targetId"),
                replacement: f("replacement"),
                new_content: f("replacement").and_then(|r| r.get("content")),
            },
            "branch_summary" => Entry::BranchSummary {
                summary: f("summary"),
                from_id: f("fromId"),
                timestamp: f("timestamp"),
            },
            "custom" => Entry::Custom {
                custom_type: f("customType"),
            },
            "custom_message" => Entry::CustomMessage {
                custom_type: f("customType"),
                content: f("content"),
                display: f("display"),
                details: f("details"),
                timestamp: f("timestamp"),
            },
            "label" => Entry::Label { label: f("label") },
            "session_info" => Entry::SessionInfo { name: f("name") },
            "tool_call" => Entry::ToolCall {
                tool_name: f("toolName"),
                input: f("input"),
            },
            "thinking" => Entry::Thinking {
                content: f("content"),
            },
            other => Entry::Unknown(other),
        }
    }

    /// The message of a message entry.
    pub fn message(self) -> Option<Message<'a>> {
        match self {
            Entry::Message(m) => m,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::model::PI_ROLES;
    use serde_json::json;

    #[test]
    fn roles_round_trip_and_others_are_kept() {
        for name in PI_ROLES {
            let role = Role::parse(name);
            assert!(!matches!(role, Role::Other(_)), "{name}");
            assert_eq!(role.as_str(), name);
        }
        assert_eq!(Role::parse("hookMessage"), Role::Other("hookMessage"));
        assert_eq!(Message(&json!({"role": 3})).role(), Role::Other(""));
    }

    #[test]
    fn entries_are_typed_by_type_or_kind() {
        let v = json!({"type":"compaction","summary":"s","tokensBefore":"9"});
        let Entry::Compaction {
            summary,
            tokens_before,
            system_message,
            ..
        } = Entry::of(&v)
        else {
            panic!("a compaction")
        };
        assert_eq!(
            (summary, tokens_before),
            (Some(&json!("s")), Some(&json!("9")))
        );
        assert_eq!(system_message, None);
        let partial = json!({"message":{"role":"toolResult","toolName":"bash"}});
        let m = Entry::of_kind(&EntryKind::Message, &partial)
            .message()
            .unwrap();
        assert_eq!(
            (m.role(), m.tool_name()),
            (Role::ToolResult, Some(&json!("bash")))
        );
        assert!(matches!(Entry::of(&json!({"type":7})), Entry::Unknown("")));
        let calls = json!({"role":"assistant","content":[{"type":"text"},{"type":"toolCall","id":"a"},{"type":"toolCall","id":"b"}]});
        let ids: Vec<_> = Message(&calls).tool_calls().map(|c| c.id).collect();
        assert_eq!(ids, [Some(&json!("a")), Some(&json!("b"))]);
    }
}
