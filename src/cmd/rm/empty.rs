//! What `rm --empty` keeps: a session is empty when it holds nothing a person would miss,
//! and this is the one place that says what that is (`rm --help`, docs/guide.md).

use std::path::Path;

use pisess_format::scan::OpenedFile;
use pisess_store::summary::{summarize, Summary, SummaryOptions};

/// What an entry holds that a person would miss, if anything: what makes a session without
/// messages not empty for `rm --empty`. A message of any role; a custom message pi showed the
/// user (`display`: a subagent's report, an extension's notice); a compaction or branch
/// summary (a summary of work); a name or a label someone gave; an entry of a type pisess does
/// not know (what it holds cannot be told), or a seed-000 tool call or thinking entry. Not
/// kept: model and thinking-level changes, usage records, context edits, extensions' `custom`
/// state and hidden custom messages, none of which pi shows in the conversation.
fn kept(e: &pisess_format::model::EntryLine) -> Option<&'static str> {
    use pisess_format::model::EntryKind as K;
    match &e.kind {
        K::Message => Some("a message"),
        K::CustomMessage => {
            #[derive(serde::Deserialize)]
            struct Shown {
                display: Option<serde_json::Value>,
            }
            let shown = serde_json::from_slice::<Shown>(e.json)
                .is_ok_and(|m| pisess_format::js::js_truthy(m.display.as_ref()));
            shown.then_some("a custom message shown to the user")
        }
        K::Compaction => Some("a compaction summary"),
        K::BranchSummary => Some("a branch summary"),
        K::SessionInfo => e
            .view
            .name
            .get()
            .is_some_and(|n| !n.trim().is_empty())
            .then_some("a session name"),
        K::Label => Some("a label"),
        K::ToolCall | K::Thinking => Some("a tool call or thinking entry"),
        K::Unknown(_) => Some("an entry of a type pisess does not know"),
        K::ModelChange | K::ThinkingLevelChange | K::Usage | K::ContextEdit | K::Custom => None,
    }
}

/// The file's summary and, when `keeps` asks, the first thing in it a person would miss
/// ([`kept`]), with its line.
pub(super) fn summarize_keeping(
    opened: &OpenedFile,
    keeps: bool,
) -> Result<(Summary, Option<String>), pisess_format::scan::ScanError> {
    let mut found: Option<String> = None;
    let mut also = |_: &pisess_format::model::Header, e: &pisess_format::model::EntryLine| {
        if found.is_none() {
            found = kept(e).map(|what| format!("{what}, line {}", e.line));
        }
    };
    let options = SummaryOptions {
        also: keeps.then_some(&mut also as pisess_store::summary::Also),
        ..SummaryOptions::default()
    };
    let summary = summarize(opened, options)?;
    // A line that did not parse may hold what a person wrote (a prompt cut short by a crash):
    // what it holds cannot be told, so it is kept.
    if keeps && found.is_none() {
        let malformed = (summary.malformed_lines > 0)
            .then(|| summary.warnings.iter().find_map(|w| w.line))
            .flatten();
        found = match (malformed, summary.torn_line) {
            (Some(line), _) => Some(format!("a line that does not parse, line {line}")),
            (None, Some(line)) => Some(format!("a last line cut short, line {line}")),
            (None, None) => None,
        };
    }
    Ok((summary, found))
}

/// Whether the session at `path` holds anything [`kept`] names; a file that cannot be read is
/// left to the check, which says why.
pub(super) fn holds_what_a_person_would_miss(path: &Path) -> bool {
    pisess_format::scan::open_file(path)
        .ok()
        .and_then(|opened| summarize_keeping(&opened, true).ok())
        .is_some_and(|(_, keeps)| keeps.is_some())
}
