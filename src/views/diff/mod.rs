//! `diff`: two branches compared. Each branch's figures come from the summary of the branch
//! read as a file of its own ([`branch`]), so they are the figures `stats`, `check` and pi's
//! `getSessionStats` give that branch; where the two part ([`parting`]); their tool calls
//! aligned ([`align`]). Data only: `cmd/diff` prints it.

pub mod align;
pub mod branch;
pub mod myers;
pub mod parting;
pub mod records;

use std::collections::BTreeMap;

use serde::Serialize;

use pisess_format::model::Usage;
use pisess_store::prices::Estimated;
use pisess_store::summary::{Counts, Summary};
use pisess_store::tally::ToolCount;

use crate::views::prices::{self, EstimateJson, Pricer};
use crate::views::style;

/// A branch's figures, as `diff --json` writes them (docs/json.md), in this order.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    /// pi's recorded cost, USD.
    pub cost: f64,
    /// Tokens of usage recorded at cost 0: `cost` leaves them out.
    pub unpriced_tokens: f64,
    /// With `--prices`: the table's estimate of what pi recorded at $0, apart from `cost`.
    #[serde(flatten)]
    pub estimate: Option<EstimateJson>,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total_tokens: f64,
    pub assistant_messages: u64,
    pub user_messages: u64,
    pub tool_calls: u64,
    pub tool_results: u64,
    pub tool_errors: u64,
    pub compactions: u64,
    /// From the start to the last user or assistant message (`check --max-duration`'s measure,
    /// [`Summary::active_span_ms`]).
    pub active_ms: Option<i64>,
    /// `provider/model` in order of first use.
    pub models: Vec<String>,
    /// Some usage holds a cost below 0: `cost` is no bound.
    #[serde(skip)]
    pub negative_cost: bool,
    #[serde(skip)]
    pub estimated: Option<Estimated>,
}

impl Figures {
    /// The figures of a branch's summary (read with its tally when priced) and its
    /// `compactions`, priced by `pricer` apart.
    pub fn of(summary: &Summary, compactions: u64, pricer: Option<&Pricer>) -> Figures {
        let tally = summary.tally.as_deref();
        let estimated = pricer.zip(tally).map(|(p, t)| prices::total(p, t));
        Figures {
            estimate: estimated.as_ref().map(Into::into),
            estimated,
            ..Figures::unpriced(
                &summary.usage,
                &summary.counts,
                compactions,
                summary.active_span_ms(),
                summary.models.clone(),
            )
        }
    }

    /// The figures of a branch without a price table: its usage, message counts, compactions,
    /// active time ([`Summary::active_span_ms`]) and models.
    pub fn unpriced(
        u: &Usage,
        counts: &Counts,
        compactions: u64,
        active_ms: Option<i64>,
        models: Vec<String>,
    ) -> Figures {
        Figures {
            cost: u.cost,
            unpriced_tokens: u.unpriced,
            estimate: None,
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            total_tokens: u.total_tokens(),
            assistant_messages: counts.assistant_messages,
            user_messages: counts.user_messages,
            tool_calls: counts.tool_calls,
            tool_results: counts.tool_results,
            tool_errors: counts.tool_errors,
            compactions,
            active_ms,
            models,
            negative_cost: u.negative_cost,
            estimated: None,
        }
    }

    /// Whether `cost` is what was spent: no usage without a price, no cost below 0.
    pub fn cost_known(&self) -> bool {
        !style::has_unpriced(self.unpriced_tokens) && !self.negative_cost
    }

    /// The recorded cost as every command prints it (marked when unpriced or negative).
    pub fn money(&self) -> String {
        style::cost_of(&pisess_format::model::Usage {
            cost: self.cost,
            unpriced: self.unpriced_tokens,
            negative_cost: self.negative_cost,
            ..Default::default()
        })
    }
}

/// B's figures less A's (docs/json.md). A cost that cannot be compared (usage without a
/// price, or a cost below 0, on either side) is `None`: never a difference of lower bounds.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Delta {
    pub cost: Option<f64>,
    /// With `--prices`; `None` while either estimate leaves usage unpriced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<f64>,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total_tokens: f64,
    pub assistant_messages: i64,
    pub user_messages: i64,
    pub tool_calls: i64,
    pub tool_results: i64,
    pub tool_errors: i64,
    pub compactions: i64,
    pub active_ms: Option<i64>,
}

/// `b - a` of counts.
fn less(b: u64, a: u64) -> i64 {
    i64::try_from(b).unwrap_or(i64::MAX) - i64::try_from(a).unwrap_or(i64::MAX)
}

impl Delta {
    pub fn of(a: &Figures, b: &Figures) -> Delta {
        let complete =
            |e: &Option<Estimated>| e.as_ref().filter(|e| e.is_complete()).map(|e| e.cost);
        Delta {
            cost: (a.cost_known() && b.cost_known()).then_some(b.cost - a.cost),
            estimated_cost: complete(&a.estimated)
                .zip(complete(&b.estimated))
                .map(|(x, y)| y - x),
            input: b.input - a.input,
            output: b.output - a.output,
            cache_read: b.cache_read - a.cache_read,
            cache_write: b.cache_write - a.cache_write,
            total_tokens: b.total_tokens - a.total_tokens,
            assistant_messages: less(b.assistant_messages, a.assistant_messages),
            user_messages: less(b.user_messages, a.user_messages),
            tool_calls: less(b.tool_calls, a.tool_calls),
            tool_results: less(b.tool_results, a.tool_results),
            tool_errors: less(b.tool_errors, a.tool_errors),
            compactions: less(b.compactions, a.compactions),
            active_ms: a.active_ms.zip(b.active_ms).map(|(x, y)| y - x),
        }
    }
}

/// One tool's calls and failed results on each side.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRow {
    pub tool: String,
    pub a: ToolCount,
    pub b: ToolCount,
}

/// Every tool either side called or had a result of, by name.
pub fn tool_rows(a: &BTreeMap<String, ToolCount>, b: &BTreeMap<String, ToolCount>) -> Vec<ToolRow> {
    let mut rows: BTreeMap<&str, ToolRow> = BTreeMap::new();
    for (side, tools) in [(0, a), (1, b)] {
        for (name, count) in tools {
            let row = rows.entry(name).or_insert_with(|| ToolRow {
                tool: name.clone(),
                a: ToolCount::default(),
                b: ToolCount::default(),
            });
            *(if side == 0 { &mut row.a } else { &mut row.b }) = *count;
        }
    }
    rows.into_values().collect()
}
