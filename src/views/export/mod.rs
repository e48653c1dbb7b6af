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

    /// A JSON value of an entry (the entry, a call's arguments) with every string and key
    /// through the hook, its strings judged as the entry's own are (not one JSON level deeper,
    /// as they would be if it were written out and passed as one text).
    fn value<'v>(&self, v: &'v serde_json::Value) -> Cow<'v, serde_json::Value> {
        Cow::Borrowed(v)
    }
}

/// No redaction: every text as it is.
pub struct Verbatim;

impl Redact for Verbatim {
    fn text<'s>(&self, s: &'s str) -> Cow<'s, str> {
        Cow::Borrowed(s)
    }
}

/// `--redact`: the secrets detector's judgement, each finding replaced by
/// `[REDACTED kind fingerprint]`.
impl Redact for crate::views::secrets::Detector {
    fn text<'s>(&self, s: &'s str) -> Cow<'s, str> {
        self.redact(s)
    }

    fn value<'v>(&self, v: &'v serde_json::Value) -> Cow<'v, serde_json::Value> {
        let mut owned = v.clone();
        if self.redact_entry(&mut owned) {
            Cow::Owned(owned)
        } else {
            Cow::Borrowed(v)
        }
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
