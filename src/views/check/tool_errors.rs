//! `check --no-tool-errors` / `--max-tool-errors`: which tool calls failed, so that a failed
//! check names them (tool, the result's entry, the error's first line), not only a count.

use super::Finding;
use crate::views::style;
use pisess_format::model::content::Content;
use pisess_format::model::{message_call_facts, Entry, EntryKind, Role};
use pisess_store::session::Session;

/// How many failed calls a verdict lists: enough to act on, few enough for a CI log.
pub const MAX_LISTED: usize = 20;
/// Display columns of an error's first line.
const LINE_WIDTH: usize = 120;

/// One tool result with `isError` set, as the reports name it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    /// The file line of the result.
    pub line: u64,
    /// The result's entry id (`None`: it has none).
    pub entry: Option<String>,
    pub tool: String,
    /// The first non-blank line of its text, control characters escaped, cut.
    pub text: String,
    /// The `toolCallId` as stored, for `show --errors` to find the call (not written).
    pub call_id: Option<String>,
}

/// `{line, entry, tool, text, fileLine, entryId}` (`check --json`'s `failedToolCalls`): the
/// one vocabulary's names (docs/json.md) after the old ones, the same values (so scrubbed
/// alike with `--no-secrets`).
impl serde::Serialize for ToolError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut o = s.serialize_struct("ToolError", 6)?;
        o.serialize_field("line", &self.line)?;
        o.serialize_field("entry", &self.entry)?;
        o.serialize_field("tool", &self.tool)?;
        o.serialize_field("text", &self.text)?;
        o.serialize_field("fileLine", &self.line)?;
        o.serialize_field("entryId", &self.entry)?;
        o.end()
    }
}

impl ToolError {
    /// As a finding: `bash (entry 3f2a9c01): error: command not found`.
    pub fn finding(&self) -> Finding {
        Finding {
            line: Some(self.line),
            message: format!(
                "{} (entry {}): {}",
                self.tool,
                self.entry.as_deref().unwrap_or("-"),
                self.text
            ),
        }
    }
}

/// The first `max` tool results of the file that report an error, in file order, and how many
/// there are in all (the summary's rule: the same lines `toolErrors` counts). `name` takes the
/// secrets out of what is quoted.
pub fn failed_calls(
    session: &Session,
    name: &dyn Fn(&str) -> String,
    max: usize,
) -> (Vec<ToolError>, u64) {
    let mut listed = Vec::new();
    let mut total = 0;
    for i in failed_results(session) {
        total += 1;
        if listed.len() == max {
            continue;
        }
        let value = session.load(i).ok();
        let message = value
            .as_ref()
            .and_then(|v| Entry::of_kind(session.kind(i), v).message())
            .filter(|m| m.role() == Role::ToolResult);
        let tool = message
            .and_then(|m| m.tool_name())
            .and_then(|t| t.as_str())
            .unwrap_or("?");
        let text = message.map(|m| first_line(m.content())).unwrap_or_default();
        // Secrets out of the whole line first: a cut could split one the scrub then misses.
        let text = style::one_line(&name(text));
        listed.push(ToolError {
            line: session.line(i),
            entry: session
                .id(i)
                .map(|id| style::truncate(&style::one_line(&name(id)), 64).into_owned()),
            tool: style::one_line(&name(tool)),
            text: if text.is_empty() {
                "(no text)".to_owned()
            } else {
                style::truncate(&text, LINE_WIDTH).into_owned()
            },
            call_id: message
                .and_then(|m| m.tool_call_id())
                .and_then(|c| c.as_str())
                .map(str::to_owned),
        });
    }
    (listed, total)
}

/// The first non-blank line of a result's text (its string, or its text blocks in order).
/// The entries that are tool results with `isError: true`, in file order, by the rule the
/// summary's `toolErrors` counts them (only the lines that can hold the flag are decoded).
pub(super) fn failed_results(session: &Session) -> impl Iterator<Item = usize> + '_ {
    (0..session.entries.len()).filter(|&i| {
        *session.kind(i) == EntryKind::Message
            && session.role(i) == Some("toolResult")
            && session
                .raw_line(i)
                .is_ok_and(|line| message_call_facts(&line).is_error)
    })
}

fn first_line(content: Content<'_>) -> &str {
    let texts: Box<dyn Iterator<Item = &str>> = match content {
        Content::Text(t) => Box::new(std::iter::once(t)),
        c => Box::new(c.blocks().filter_map(|b| b.text_str())),
    };
    texts
        .flat_map(str::lines)
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
}
