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

/// A field as stored: `None` when absent.
pub type Field<'a> = Option<&'a Value>;

/// Generates [`Role`], its names and [`PI_ROLES`] from one table.
macro_rules! roles {
    ($($variant:ident: $name:literal),* $(,)?) => {
        /// A message's `role`: pi's eight ([`PI_ROLES`]), or another kept by name (`""` when
        /// the role is missing or not a string).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Role<'a> {
            $($variant,)*
            Other(&'a str),
        }

        /// pi 1.6.0's message roles (`message.role`; pi-ai's three, the agent's `system`, and
        /// the coding agent's four): the only values `show --role` takes, so a typo is an
        /// error, not an empty match that a CI check reads as "none found".
        pub const PI_ROLES: [&str; 8] = [$($name),*];

        impl<'a> Role<'a> {
            pub fn parse(role: &'a str) -> Role<'a> {
                match role {
                    $($name => Role::$variant,)*
                    other => Role::Other(other),
                }
            }

            pub fn as_str(self) -> &'a str {
                match self {
                    $(Role::$variant => $name,)*
                    Role::Other(s) => s,
                }
            }
        }
    };
}

roles! {
    User: "user",
    Assistant: "assistant",
    ToolResult: "toolResult",
    System: "system",
    BashExecution: "bashExecution",
    Custom: "custom",
    BranchSummary: "branchSummary",
    CompactionSummary: "compactionSummary",
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

    /// The names in a system message's tool list (`toolsAdded`, `toolsRemoved`): a tool's
    /// `name` where it has one, else the item as stored; `None` when the list is no array.
    pub fn tool_names(tools: Field<'a>) -> Option<impl Iterator<Item = &'a Value>> {
        Some(
            tools?
                .as_array()?
                .iter()
                .map(|t| t.get("name").unwrap_or(t)),
        )
    }

    fields! {
        role_value: "role",
        content_value: "content",
        timestamp: "timestamp",
        // assistant
        provider: "provider",
        model: "model",
        usage: "usage",
        response_id: "responseId",
        stop_reason: "stopReason",
        error_message: "errorMessage",
        // toolResult
        tool_call_id: "toolCallId",
        tool_name: "toolName",
        is_error: "isError",
        details: "details",
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
        tools_removed: "toolsRemoved",
    }
}

/// A message changed in place: pi builds its context from copies of messages it edits.
#[derive(Debug)]
pub struct MessageMut<'a>(pub &'a mut Value);

impl MessageMut<'_> {
    /// Sets the `content` of a message object (`None` removes it); no other value changes.
    pub fn set_content(self, content: Option<Value>) {
        if let Some(message) = self.0.as_object_mut() {
            match content {
                Some(c) => message.insert("content".into(), c),
                None => message.remove("content"),
            };
        }
    }

    /// Calls `f` on each text of the content: the string, or each text block's `text` string.
    pub fn each_text(self, mut f: impl FnMut(&mut String)) {
        match self.0.get_mut("content") {
            Some(Value::String(s)) => f(s),
            Some(Value::Array(blocks)) => {
                for b in blocks {
                    if b.get("type").and_then(Value::as_str) == Some("text") {
                        if let Some(Value::String(s)) = b.get_mut("text") {
                            f(s);
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// Generates [`EntryKind`], [`PI_ENTRY_TYPES`] and [`Entry`] with its decoding from one table:
/// each type's name, its variant, and the fields its views read with their keys; pi's types
/// first, then the seed-000 extras.
macro_rules! entries {
    (
        pi { $($(#[$doc:meta])* $type:literal => $variant:ident { $($field:ident: $key:literal),* },)* }
        seed000 { $($(#[$xdoc:meta])* $xtype:literal => $xvariant:ident { $($xfield:ident: $xkey:literal),* },)* }
    ) => {
        /// pi 1.6.0's entry types. `show --type` warns on any other value but still matches it:
        /// files hold types pi does not know (seed 000's dialect, newer pi versions), and
        /// pisess shows those.
        pub const PI_ENTRY_TYPES: [&str; 1 + [$($type),*].len()] = ["message", $($type),*];

        /// The eleven entry types pi writes, the seed-000 extras, and anything else (kept and
        /// shown): what the index keeps of an entry's type.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        pub enum EntryKind {
            Message,
            $($variant,)*
            $($(#[$xdoc])* $xvariant,)*
            Unknown(String),
        }

        impl EntryKind {
            pub fn parse(s: Option<&str>) -> EntryKind {
                match s {
                    Some("message") => EntryKind::Message,
                    $(Some($type) => EntryKind::$variant,)*
                    $(Some($xtype) => EntryKind::$xvariant,)*
                    Some(other) => EntryKind::Unknown(other.to_owned()),
                    None => EntryKind::Unknown(String::new()),
                }
            }

            pub fn as_str(&self) -> &str {
                match self {
                    EntryKind::Message => "message",
                    $(EntryKind::$variant => $type,)*
                    $(EntryKind::$xvariant => $xtype,)*
                    EntryKind::Unknown(s) => s,
                }
            }
        }

        /// One entry, by type, with the fields its views read (as stored). A new entry type
        /// is a line here and its arm in each view that shows it.
        #[derive(Debug, Clone, Copy)]
        pub enum Entry<'a> {
            /// `message` (`None` when missing).
            Message(Option<Message<'a>>),
            $($(#[$doc])* $variant { $($field: Field<'a>),* },)*
            $($(#[$xdoc])* $xvariant { $($xfield: Field<'a>),* },)*
            /// A type pisess does not know, by name (`""`: no string `type`).
            Unknown(&'a str),
        }

        impl<'a> Entry<'a> {
            fn typed(kind: &'a str, v: &'a Value) -> Entry<'a> {
                match kind {
                    "message" => Entry::Message(v.get("message").map(Message)),
                    $($type => Entry::$variant { $($field: v.get($key)),* },)*
                    $($xtype => Entry::$xvariant { $($xfield: v.get($xkey)),* },)*
                    other => Entry::Unknown(other),
                }
            }
        }
    };
}

entries! {
    pi {
        "model_change" => ModelChange { provider: "provider", model_id: "modelId" },
        "thinking_level_change" => ThinkingLevelChange { thinking_level: "thinkingLevel" },
        "usage" => Usage { kind: "kind", provider: "provider", model: "model", usage: "usage" },
        "compaction" => Compaction {
            summary: "summary",
            first_kept_entry_id: "firstKeptEntryId",
            tokens_before: "tokensBefore",
            system_message: "systemMessage",
            from_hook: "fromHook",
            timestamp: "timestamp"
        },
        /// `replacement` is `{content}`, read as a [`Message`].
        "context_edit" => ContextEdit { target_id: "targetId", replacement: "replacement" },
        "branch_summary" => BranchSummary {
            summary: "summary",
            from_id: "fromId",
            timestamp: "timestamp"
        },
        "custom" => Custom { custom_type: "customType", display: "display", data: "data" },
        "custom_message" => CustomMessage {
            custom_type: "customType",
            content: "content",
            display: "display",
            details: "details",
            timestamp: "timestamp"
        },
        "label" => Label { target_id: "targetId", label: "label" },
        "session_info" => SessionInfo { name: "name" },
    }
    seed000 {
        /// seed 000: a tool call recorded as its own entry (shown, never in context).
        "tool_call" => ToolCall { tool_name: "toolName", input: "input" },
        /// seed 000: a thinking entry (shown, never in context).
        "thinking" => Thinking { content: "content" },
    }
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

    /// Entry `v`'s `id` as stored (any type).
    pub fn id(v: &'a Value) -> Field<'a> {
        v.get("id")
    }

    /// Entry `v`'s `parentId` as stored: `null` for a root (absent or another value is an
    /// orphan to pi).
    pub fn parent_id(v: &'a Value) -> Field<'a> {
        v.get("parentId")
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
    use crate::model::PI_ROLES;
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
