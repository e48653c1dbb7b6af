//! `check --save-baseline` and `check --baseline`: a run's figures and its tool-call sequence as
//! a small versioned JSON (numbers, tool names and each call's key, never content). The
//! assertions that compare a run with one are `compare.rs`'s.
//!
//! The figures are the ones `check` judges: pi's `/session` totals over the whole file (cost,
//! tokens, assistant messages, tool calls and errors by tool), the duration `--max-duration`
//! measures, and the estimate of `--prices`. The sequence is the active branch's calls, each as
//! [`crate::views::calls::key`]: a tree has no one sequence, and the branch is the run pi resumes.
//! A key is a name the session gave (a path, a command's first word): the caller redacts it,
//! and every tool name, before it is kept, so no output file holds a secret the session leaked.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use pisess_format::model::{message_call_facts, Dialect, Entry, EntryKind, Role};
use pisess_store::prices::Estimated;
use pisess_store::session::Session;
use pisess_store::summary::Summary;

/// What the file's `schema` says it is.
pub const SCHEMA: &str = "pisess-baseline";
/// The newest version this pisess reads and the one it writes; a field added keeps it, a
/// field whose meaning changes bumps it.
pub const VERSION: u64 = 1;

/// One run's figures, as a baseline file holds them (docs/json.md, "check --save-baseline").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Baseline {
    pub schema: String,
    pub version: u64,
    pub session_id: Option<String>,
    /// pi's recorded cost, USD (null: not a finite number).
    #[serde(with = "finite")]
    pub cost: f64,
    /// Tokens pi recorded at a cost of 0 (null: some count was no number).
    #[serde(with = "finite")]
    pub unpriced_tokens: f64,
    /// With `--prices`: the table's price of what pi recorded at 0, and the tokens it could not
    /// price either.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "finite_or_none"
    )]
    pub estimated_cost: Option<f64>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "finite_or_none"
    )]
    pub unestimated_tokens: Option<f64>,
    pub negative_cost: bool,
    pub negative_tokens: bool,
    #[serde(with = "finite")]
    pub total_tokens: f64,
    pub assistant_messages: u64,
    /// What `--max-duration` judges: from the start to the last user or assistant message.
    pub active_ms: Option<i64>,
    pub tool_calls_by_tool: BTreeMap<String, u64>,
    pub tool_errors_by_tool: BTreeMap<String, u64>,
    /// The active branch's calls, in order, as keys.
    pub tool_sequence: Vec<String>,
}

/// A number that may not be finite (a stored `1e999`), written as null and read back as NaN,
/// which every comparison below treats as unknown.
mod finite {
    use serde::{Deserialize, Deserializer, Serializer};

    #[allow(clippy::trivially_copy_pass_by_ref)]
    pub(super) fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        // As every JSON number pisess writes: 27590, not 27590.0; null when not finite.
        serde::Serialize::serialize(&pisess_format::model::number(*x), s)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}

mod finite_or_none {
    use serde::{Deserialize, Deserializer, Serializer};

    #[allow(clippy::ref_option)]
    pub(super) fn serialize<S: Serializer>(x: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match x {
            Some(x) => super::finite::serialize(x, s),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        // Present but null: a count that was no number.
        Ok(Some(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN)))
    }
}

impl Baseline {
    /// The baseline of a session: `summary` its totals, `session` its index, `estimated` the
    /// `--prices` estimate; `redact` takes secrets out of every name kept.
    pub fn of(
        summary: &Summary,
        session: &Session,
        estimated: Option<&Estimated>,
        redact: &dyn Fn(&str) -> String,
    ) -> Baseline {
        let cwd = session.header.cwd.as_deref().unwrap_or("");
        let seed000 = session.header.dialect == Dialect::Seed000;
        let on_branch: std::collections::HashSet<usize> = match session.leaf() {
            Some(leaf) => session.path_to(leaf).0.into_iter().collect(),
            None => std::collections::HashSet::new(),
        };
        let mut calls: BTreeMap<String, u64> = BTreeMap::new();
        let mut errors: BTreeMap<String, u64> = BTreeMap::new();
        let mut sequence = Vec::new();
        // Seed 000 answers a call in a user message's `tool_result` block, by the call's id.
        let mut seed000_calls: std::collections::HashMap<String, String> = Default::default();
        // File order is the branch's order: a parent is written before its children.
        for i in 0..session.entries.len() {
            if *session.kind(i) != EntryKind::Message {
                continue;
            }
            if seed000 && session.role(i) == Some("user") {
                seed000_errors(session, i, &seed000_calls, &mut |name| {
                    *errors.entry(redact(name)).or_default() += 1;
                });
                continue;
            }
            if session.role(i) != Some("assistant") {
                continue;
            }
            // Only a line that names a call is decoded (seed 000's calls are named otherwise).
            if !seed000
                && !session
                    .raw_line(i)
                    .is_ok_and(|line| message_call_facts(&line).tool_calls > 0)
            {
                continue;
            }
            let Ok(value) = session.load(i) else {
                continue;
            };
            let Some(message) = Entry::of_kind(&EntryKind::Message, &value).message() else {
                continue;
            };
            if message.role() != Role::Assistant {
                continue;
            }
            for call in message.tool_calls() {
                let name = call.name.and_then(Value::as_str).unwrap_or("?");
                *calls.entry(redact(name)).or_default() += 1;
                if let Some(id) = call.id.and_then(Value::as_str).filter(|_| seed000) {
                    seed000_calls.insert(id.to_owned(), name.to_owned());
                }
                if on_branch.contains(&i) {
                    sequence.push(redact(&crate::views::calls::key(call, cwd)));
                }
            }
        }
        if summary.counts.tool_errors > 0 && !seed000 {
            for (name, n) in super::tools_with_errors(session) {
                *errors.entry(redact(&name)).or_default() += n;
            }
        }
        let u = &summary.usage;
        Baseline {
            schema: SCHEMA.to_owned(),
            version: VERSION,
            session_id: Some(redact(&summary.id)),
            cost: u.cost,
            unpriced_tokens: u.unpriced,
            estimated_cost: estimated.map(|e| e.cost),
            unestimated_tokens: estimated.map(|e| e.unpriced_tokens),
            negative_cost: u.negative_cost,
            negative_tokens: u.negative_tokens,
            total_tokens: u.total_tokens(),
            assistant_messages: summary.counts.assistant_messages,
            active_ms: summary.active_span_ms(),
            tool_calls_by_tool: calls,
            tool_errors_by_tool: errors,
            tool_sequence: sequence,
        }
    }

    /// The cost a cost gate judges and the tokens it leaves unpriced: with `--prices`
    /// (`priced`), recorded + estimated and what the table did not price either (a baseline
    /// saved without an estimate: its recorded cost and unpriced tokens); without, the recorded.
    pub(super) fn judged_cost(&self, priced: bool) -> (f64, f64) {
        match (priced, self.estimated_cost, self.unestimated_tokens) {
            (true, Some(e), Some(left)) => (self.cost + e, left),
            _ => (self.cost, self.unpriced_tokens),
        }
    }
}

/// The failed `tool_result` blocks of seed 000's user message `i`, each by the name of the call
/// it answers (`?` when none is known), as `stats` and `check` count them.
fn seed000_errors(
    session: &Session,
    i: usize,
    calls: &std::collections::HashMap<String, String>,
    count: &mut dyn FnMut(&str),
) {
    let Ok(value) = session.load(i) else {
        return;
    };
    let Some(message) = Entry::of_kind(&EntryKind::Message, &value).message() else {
        return;
    };
    if let pisess_format::model::content::Content::Blocks(blocks) = message.content() {
        for b in blocks
            .iter()
            .filter(|b| b["type"] == "tool_result" && b["isError"] == true)
        {
            let id = b.get("toolUseId").and_then(Value::as_str);
            count(id.and_then(|id| calls.get(id)).map_or("?", String::as_str));
        }
    }
}
