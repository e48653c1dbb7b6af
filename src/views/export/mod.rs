//! `pisess export`: one branch of a session, root to leaf, as a pi session (JSONL), as Markdown,
//! or as one self-contained HTML page.
//!
//! Data first: [`jsonl`] writes the branch's entries as pi's `serializeSessionBranch` does;
//! [`transcript`] turns the branch into what a reader sees (messages, tool calls and their
//! results, summaries, facts), which [`md`] and [`html`] render, one renderer per format. Every
//! text taken from the session passes through one [`Redact`] hook on its way into the output.

pub mod html;
pub mod jsonl;
pub mod md;
pub mod transcript;

use std::borrow::Cow;

/// The one hook every text of an export passes through on its way out (`--redact`).
pub trait Redact {
    fn text<'s>(&self, s: &'s str) -> Cow<'s, str>;

    /// Every string and key of a decoded entry with the secrets the export is known to hold
    /// replaced, where [`Redact::text`] of the whole could not see them (escaped in JSON).
    fn known_in(&self, _value: &mut serde_json::Value) {}

    /// Whether a JSON text that [`Redact::text`] left as it was may still hold a known
    /// secret, escaped (then [`Redact::known_in`] must see its decoded strings).
    fn may_hide_escaped(&self) -> bool {
        false
    }
}

/// No redaction: every text as it is.
pub struct Verbatim;

impl Redact for Verbatim {
    fn text<'s>(&self, s: &'s str) -> Cow<'s, str> {
        Cow::Borrowed(s)
    }
}

/// `--redact`: the detector's judgement of each text, and every secret the branch was found
/// to hold replaced wherever else it occurs (an id, a type, a name the detector cannot judge
/// as text), by the same token: ids and parent ids still meet.
impl Redact for crate::views::secrets::Scrub<'_> {
    fn text<'s>(&self, s: &'s str) -> Cow<'s, str> {
        crate::views::secrets::Scrub::text(self, s)
    }

    fn known_in(&self, value: &mut serde_json::Value) {
        crate::views::secrets::Scrub::known_in(self, value);
    }

    fn may_hide_escaped(&self) -> bool {
        self.knows_escapable()
    }
}

/// How tool calls and their results are shown in Markdown and HTML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tools {
    /// Arguments and results shown, open.
    Full,
    /// Arguments and results in closed `<details>` blocks.
    Collapsed,
    /// Neither calls nor results.
    None,
}

/// What a Markdown or HTML export shows.
#[derive(Debug, Clone, Copy)]
pub struct View {
    pub tools: Tools,
    pub thinking: bool,
}
