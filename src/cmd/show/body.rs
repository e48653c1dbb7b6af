//! The body of a `show` block: text cut with a marker unless `--full`, one-line items, and
//! message content (text, thinking, tool calls, images, unknown blocks), all escaped.

use std::borrow::Cow;
use std::io::{self, Write};

use serde_json::Value;

use super::limits::{MAX_CHARS, MAX_LINES, MAX_LINE_CHARS};
use crate::views::style::{self, escape_control, Role, Theme};
use crate::views::text::{base64_size, cut, full_text, image_label};
use pisess_format::model::content::{Block, CallForm, Content};
use pisess_format::model::cut::{Cuts, Left, Place};

const INDENT: &str = "  ";

/// The body of one block, written line by line.
pub(super) struct Body<'a> {
    pub out: &'a mut dyn Write,
    pub theme: Theme,
    pub full: bool,
    /// What the entry's shortened texts left out (none with `--full`).
    pub cuts: &'a Cuts,
}

impl Body<'_> {
    /// Multi-line text, cut to `MAX_LINES`/`MAX_CHARS` with a marker unless `--full`.
    pub(super) fn text(&mut self, text: &str, look: Role) -> io::Result<()> {
        self.text_after("", text, None, look)
    }

    /// [`Body::text`] of the text at `place`, which the shortened decode may have cut.
    pub(super) fn text_at(&mut self, place: Place, text: &str, look: Role) -> io::Result<()> {
        self.text_after("", text, Some(place), look)
    }

    /// [`Body::text`] of `lead` and `text`, the start of a cut text when `place` says so.
    fn text_after(
        &mut self,
        lead: &str,
        text: &str,
        place: Option<Place>,
        look: Role,
    ) -> io::Result<()> {
        let rest = match place.and_then(|p| self.cuts.at(p)) {
            Some(Left::Text(rest)) => Some(rest),
            _ => None,
        };
        let text = if lead.is_empty() {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(format!("{lead}{text}"))
        };
        let (kept, more_lines, more_chars) = if self.full {
            (text.trim_end_matches('\n'), 0, 0)
        } else {
            let c = cut(&text, rest.as_ref(), MAX_LINES, MAX_CHARS);
            (c.text, c.more_lines, c.more_chars)
        };
        for line in escape_control(kept, true).lines() {
            if line.is_empty() {
                writeln!(self.out)?;
            } else {
                self.indented(line, look)?;
            }
        }
        if more_lines > 0 {
            let what = if more_lines > 1 {
                format!("{more_lines} more lines")
            } else {
                format!("{more_chars} more characters")
            };
            self.indented(&format!("… {what} (--full shows all)"), Role::Muted)?;
        }
        Ok(())
    }

    /// One line: newlines escaped, cut to `MAX_LINE_CHARS` unless `--full`.
    pub(super) fn line(&mut self, text: &str, look: Role) -> io::Result<()> {
        let text = escape_control(text, false);
        let text = if self.full {
            text
        } else {
            style::truncate(&text, MAX_LINE_CHARS).into_owned().into()
        };
        self.indented(&text, look)
    }

    /// `s` on a line of its own, indented, in the colour of `look`.
    fn indented(&mut self, s: &str, look: Role) -> io::Result<()> {
        if look == Role::Plain || !self.theme.enabled {
            // What `paint` gives then, without copying it first (a write a line of text).
            self.out.write_all(INDENT.as_bytes())?;
            self.out.write_all(s.as_bytes())?;
            return self.out.write_all(b"\n");
        }
        writeln!(self.out, "{INDENT}{}", self.theme.paint(look, s))
    }

    /// Message content: a string, or pi's blocks (text, thinking, toolCall, image, others).
    pub(super) fn content(&mut self, content: Option<&Value>) -> io::Result<()> {
        match Content::of(content) {
            Content::None => Ok(()),
            Content::Text(s) => self.text_at(Place::Content, s, Role::Plain),
            Content::Blocks(blocks) => {
                (blocks.iter().enumerate()).try_for_each(|(i, b)| self.block(Place::Block(i), b))
            }
            Content::Other(other) => self.line(&other.to_string(), Role::Plain),
        }
    }

    fn block(&mut self, place: Place, b: &Value) -> io::Result<()> {
        match Block::of(b) {
            Block::Text { text } => self.text_at(place, &string_or_json(text), Role::Plain),
            Block::Thinking { redacted: true, .. } => self.line("thinking (redacted)", Role::Muted),
            // No text (the provider kept it encrypted in the signature, or there was none):
            // said so, not an empty `thinking:` line.
            Block::Thinking {
                thinking,
                signature,
                ..
            } if thinking.is_none_or(|t| t.as_str().is_some_and(|s| s.trim().is_empty())) => {
                let signed = signature
                    .and_then(Value::as_str)
                    .is_some_and(|s| !s.is_empty());
                let label = if signed {
                    "[encrypted thinking]"
                } else {
                    "[empty thinking]"
                };
                self.line(label, Role::Muted)
            }
            Block::Thinking { thinking, .. } => {
                let thinking = string_or_json(thinking);
                self.text_after("thinking: ", &thinking, Some(place), Role::Muted)
            }
            Block::ToolCall(call) => {
                let call = call.line(CallForm::Keys);
                self.line(&format!("→ {call}"), Role::Tool)
            }
            Block::Image { mime_type, data } => {
                let label = image_label(mime_type, data, |data| match self.cuts.at(place) {
                    Some(Left::Base64(digits)) => digits * 3 / 4,
                    _ => base64_size(data),
                });
                self.line(&label, Role::Custom)
            }
            // Anything else (seed 000's `tool_result` blocks, future types): its name and text.
            Block::Other {
                kind,
                content,
                text,
            } => {
                let text = match content.or(text) {
                    Some(Value::String(s)) => s.clone(),
                    c @ Some(Value::Array(_)) => full_text(c),
                    _ => String::new(),
                };
                self.text(&format!("[{kind}] {text}"), Role::Muted)
            }
            Block::Untyped(b) => self.line(&b.to_string(), Role::Plain),
        }
    }
}

/// A string as is (borrowed: a tool's output can be megabytes), anything else as compact JSON
/// (absent: nothing).
pub(super) fn string_or_json(v: Option<&Value>) -> Cow<'_, str> {
    match v {
        Some(Value::String(s)) => Cow::Borrowed(s),
        None | Some(Value::Null) => Cow::Borrowed(""),
        Some(other) => Cow::Owned(other.to_string()),
    }
}
