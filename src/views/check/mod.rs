//! `check`'s judgement of one session, as data: the figures it measures, each assertion's
//! result, and the integrity findings. Rendering (human, JSON, Markdown, JUnit) is
//! `cmd::check`'s job.
//!
//! Totals are the session's [`Summary`] (pi's `/session` figures, the same `ls` reports), never a
//! second fold of the file. The index ([`Session`]) is opened only for what needs the tree: the
//! active branch's tool calls and last messages, and the integrity findings.

pub mod baseline;
pub mod compare;
mod family;
mod integrity;
mod secrets;
mod tool_errors;

use serde_json::Value;

pub use family::{judge_family, Family};
pub use integrity::integrity;
pub use tool_errors::{failed_calls, ToolError, MAX_LISTED};

use crate::views::secrets::Scrub;
use pisess_format::model::content::Content;
use pisess_format::model::{message_call_facts, Entry, EntryKind, Message};
use pisess_store::session::Session;
use pisess_store::summary::Summary;

/// How `check --max-cost` treats usage without a price (`--unpriced`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Unpriced {
    /// Judge the recorded cost, leaving the unpriced tokens out
    Ok,
    /// The assertion fails
    Fail,
}

/// What was asked, as parsed from the flags.
#[derive(Debug, Default)]
pub struct Spec {
    pub integrity: bool,
    pub max_cost: Option<f64>,
    /// How `max_cost` treats usage without a price; `None`: such usage leaves it undecided.
    pub unpriced: Option<Unpriced>,
    /// `--prices`: `max_cost` judges the recorded cost plus the estimate of what pi recorded
    /// at $0; usage the table does not price either is what `unpriced` is about.
    pub prices: Option<crate::views::prices::Pricer>,
    pub max_tokens: Option<u64>,
    pub max_turns: Option<u64>,
    /// The limit in ms, and the span as given (`30m`).
    pub max_duration: Option<(i64, String)>,
    /// The limit, and whether it was spelled `--no-tool-errors`.
    pub max_tool_errors: Option<(u64, bool)>,
    pub ended: bool,
    pub require_tools: Vec<String>,
    pub forbid_tools: Vec<String>,
    pub require_text: Option<regex::Regex>,
    pub no_malformed: bool,
    /// `--no-secrets`, with the detector it runs.
    pub no_secrets: Option<crate::views::secrets::Detector>,
    /// A Markdown report is wanted: its figures include the tools with errors and the last
    /// message (which read tool results and the tree; the lines alone do not).
    pub report: bool,
    /// `--baseline REF` and its assertions.
    pub baseline: Option<compare::Gate>,
    /// `--save-baseline`: the run's [`baseline::Baseline`] is wanted.
    pub save_baseline: bool,
    /// What takes secrets out of a baseline's names when `--no-secrets` did not load one.
    pub redactor: Option<crate::views::secrets::Detector>,
}

impl Spec {
    /// Whether anything needs the index (the tree), not only the summary.
    pub fn needs_index(&self) -> bool {
        self.report
            || self.integrity
            || self.ended
            || self.require_text.is_some()
            || !self.require_tools.is_empty()
            || !self.forbid_tools.is_empty()
            || self.no_secrets.is_some()
            || self.wants_baseline()
    }

    /// Whether the run's baseline figures are measured (they need the index).
    pub fn wants_baseline(&self) -> bool {
        self.save_baseline || self.baseline.is_some()
    }

    /// Whether the index is needed to name the failed tool calls: `listed_errors` is the
    /// count a listing already gave (`None`: not read yet), within the limit nothing is named.
    pub fn names_tool_errors(&self, listed_errors: Option<u64>) -> bool {
        self.max_tool_errors
            .is_some_and(|(max, _)| listed_errors.is_none_or(|n| n > max))
    }
}

/// One assertion's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Assertion {
    /// The flag's name without dashes (`max-cost`), with its argument for the tool and text
    /// assertions (`require-tool bash`).
    pub name: String,
    pub held: bool,
    /// Neither held nor failed: what it measures is not known well enough to say (a cost with
    /// usage pi had no price for). `held` is false.
    pub undecided: bool,
    /// What was measured, for people (`$2.31`, `3 calls`).
    pub measured: String,
    /// The limit, for people (`$2.00`).
    pub limit: String,
    /// The relation shown between the two: `<=` when it held, `>` when not, or a phrase.
    pub relation: String,
    /// The same as JSON values.
    pub measured_json: Value,
    pub limit_json: Value,
}

/// Something wrong with a file's structure, at `line` (`None`: the file as a whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub line: Option<u64>,
    pub message: String,
}

/// `{line, message, fileLine}`: `line` again under the one vocabulary's name (docs/json.md).
impl serde::Serialize for Finding {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut o = s.serialize_struct("Finding", 3)?;
        o.serialize_field("line", &self.line)?;
        o.serialize_field("message", &self.message)?;
        o.serialize_field("fileLine", &self.line)?;
        o.end()
    }
}

/// The last message of the active branch, for `--ended` and the Markdown report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LastMessage {
    pub role: String,
    pub stop_reason: Option<String>,
    pub error_message: Option<String>,
    /// The text blocks (or string content), joined by newlines.
    pub text: String,
}

/// The figures of one session that `check` reports.
/// Written as `check --json`'s `figures` (docs/json.md), in this order: a field added here is
/// written there unless skipped.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    pub cost: f64,
    /// Tokens of usage records whose recorded cost is 0 (no price): `cost` leaves them out.
    pub unpriced_tokens: f64,
    /// With `--prices`: the estimate of the usage pi recorded at $0, apart from `cost`.
    #[serde(flatten)]
    pub estimate: Option<crate::views::prices::EstimateJson>,
    #[serde(rename = "totalTokens")]
    pub tokens: f64,
    /// Some usage record holds a cost below 0: `cost` is no bound on what was spent.
    pub negative_cost: bool,
    /// Some usage record holds a token count below 0: `tokens` is no bound either.
    pub negative_tokens: bool,
    /// Assistant messages (pi's `/session` count).
    #[serde(rename = "assistantMessages")]
    pub turns: u64,
    pub user_messages: u64,
    pub tool_calls: u64,
    pub tool_results: u64,
    pub tool_errors: u64,
    /// The earliest to the latest time of any line (as `stats --json`'s `durationMs`).
    pub duration_ms: Option<i64>,
    /// From the start to the last user or assistant message: what `--max-duration` judges
    /// ([`Summary::active_span_ms`]).
    pub active_ms: Option<i64>,
    pub malformed_lines: u64,
    pub entries: usize,
    /// The last message on the active branch, when the index was read.
    #[serde(skip)]
    pub last: Option<LastMessage>,
    /// The final assistant message on the active branch, when the index was read.
    #[serde(skip)]
    pub final_assistant: Option<LastMessage>,
    /// Tools whose results reported an error, with how many, most first (whole file, as
    /// `tool_errors`), for a report ([`Spec::report`]).
    #[serde(skip)]
    pub tools_with_errors: Vec<(String, u64)>,
}

impl Figures {
    /// The cost as every report form prints it ([`crate::views::style::cost_of`]).
    pub fn money(&self) -> String {
        crate::views::style::cost_of(&pisess_format::model::Usage {
            cost: self.cost,
            unpriced: self.unpriced_tokens,
            negative_cost: self.negative_cost,
            ..Default::default()
        })
    }
}

/// One session, judged.
#[derive(Debug)]
pub struct Verdict {
    pub figures: Figures,
    pub assertions: Vec<Assertion>,
    /// Empty unless integrity was checked.
    pub findings: Vec<Finding>,
    /// The secrets found, when `--no-secrets` was asked.
    pub secrets: Vec<Finding>,
    /// With `--no-tool-errors`/`--max-tool-errors`: the first failed tool calls
    /// ([`MAX_LISTED`]), and how many more there are.
    pub tool_errors: Vec<ToolError>,
    pub tool_errors_more: u64,
    /// With `--baseline`/`--save-baseline`: the run's baseline figures, and the baseline's
    /// value under each of its assertions' names.
    pub baseline: Option<(baseline::Baseline, Vec<(String, Value)>)>,
}

impl Verdict {
    pub fn held(&self) -> bool {
        self.assertions.iter().all(|a| a.held)
    }

    /// Assertions that failed, and those that could not be decided.
    pub fn tally(&self) -> (usize, usize) {
        let failed = self
            .assertions
            .iter()
            .filter(|a| !a.held && !a.undecided)
            .count();
        let undecided = self.assertions.iter().filter(|a| a.undecided).count();
        (failed, undecided)
    }
}

impl Assertion {
    /// `ok`, `fail` or `undecided`: the assertion's status in every report form.
    pub fn status(&self) -> &'static str {
        if self.held {
            "ok"
        } else if self.undecided {
            "undecided"
        } else {
            "fail"
        }
    }
}

/// Judges one session: `summary` holds its totals, `session` its index when [`Spec`] needs one
/// (see [`Spec::needs_index`]), `secrets` every line's secrets when `--no-secrets` asks
/// ([`crate::views::secrets::search_stream`] of the same file), and `scrub` what takes them
/// out of every name the reports print of the session (ids, types, roles and tool names as
/// well as its text).
pub fn judge(
    spec: &Spec,
    summary: &Summary,
    session: Option<&Session>,
    secrets: &[crate::views::secrets::Hit],
    scrub: Option<&Scrub>,
) -> Verdict {
    let name = |s: &str| match scrub {
        Some(scrub) => scrub.owned(s),
        None => s.to_owned(),
    };
    let branch = session.map(Branch::of);
    let estimated = (spec.prices.as_ref())
        .zip(summary.tally.as_deref())
        .map(|(p, t)| crate::views::prices::total(p, t));
    let figures = Figures {
        cost: summary.usage.cost,
        unpriced_tokens: summary.usage.unpriced,
        estimate: estimated.as_ref().map(Into::into),
        tokens: summary.usage.total_tokens(),
        negative_cost: summary.usage.negative_cost,
        negative_tokens: summary.usage.negative_tokens,
        turns: summary.counts.assistant_messages,
        user_messages: summary.counts.user_messages,
        tool_calls: summary.counts.tool_calls,
        tool_results: summary.counts.tool_results,
        tool_errors: summary.counts.tool_errors,
        duration_ms: summary.duration_ms(),
        active_ms: summary.active_span_ms(),
        malformed_lines: summary.malformed_lines,
        entries: summary.entries,
        last: branch.as_ref().and_then(|b| b.last.clone()),
        final_assistant: branch.as_ref().and_then(|b| b.final_assistant.clone()),
        tools_with_errors: match session {
            Some(s) if spec.report && summary.counts.tool_errors > 0 => tools_with_errors(s),
            _ => Vec::new(),
        },
    };
    let mut assertions = Vec::new();
    let mut findings = Vec::new();
    let (mut tool_errors, mut tool_errors_more) = (Vec::new(), 0);
    if spec.integrity {
        // Past the first malformed lines, one finding says how many more there are: each
        // of them counts.
        let mut omitted = 0;
        if let Some(s) = session {
            findings = integrity(s, &name);
            // The summary finding stands for one of them.
            omitted = s.warnings_omitted.saturating_sub(1);
        }
        let n = findings.len() + omitted as usize;
        let n = n as u64;
        assertions.push(none_found("integrity", n, plural(n, "finding")));
    }
    if let Some(max) = spec.max_cost {
        assertions.push(cost_assertion(
            &summary.usage,
            max,
            spec.unpriced,
            estimated.as_ref(),
        ));
    }
    if let Some(max) = spec.max_tokens {
        #[allow(clippy::cast_precision_loss)]
        let held = figures.tokens <= max as f64;
        let mut a = at_most(
            "max-tokens",
            held,
            pisess_format::model::number(figures.tokens),
            max,
        );
        // A negative count offsets real ones: the total is no bound (red team 08).
        if figures.negative_tokens && held {
            a.held = false;
            a.undecided = true;
            a.measured = format!(
                "{} (a usage record holds a negative token count)",
                a.measured
            );
            a.relation = "; cannot decide, limit".into();
        }
        assertions.push(a);
    }
    if let Some(max) = spec.max_turns {
        assertions.push(at_most(
            "max-turns",
            figures.turns <= max,
            figures.turns.into(),
            max,
        ));
    }
    if let Some((max, shown)) = &spec.max_duration {
        assertions.push(duration_assertion(figures.active_ms, *max, shown));
    }
    if let Some((max, no_errors)) = spec.max_tool_errors {
        let flag = if no_errors {
            "no-tool-errors"
        } else {
            "max-tool-errors"
        };
        let n = figures.tool_errors;
        assertions.push(at_most(flag, n <= max, n.into(), max));
        // Named only when too many: a check that held says no more than before.
        if let Some(s) = session.filter(|_| n > max) {
            let (listed, total) = failed_calls(s, &name, MAX_LISTED);
            tool_errors_more = total.saturating_sub(listed.len() as u64);
            tool_errors = listed;
        }
    }
    if spec.no_malformed {
        let n = figures.malformed_lines;
        assertions.push(none_found("no-malformed", n, plural(n, "malformed line")));
    }
    if spec.ended {
        assertions.push(ended(figures.last.as_ref()));
    }
    let calls = branch
        .as_ref()
        .map(|b| &b.tool_calls[..])
        .unwrap_or_default();
    for tool in &spec.require_tools {
        let n = calls.iter().filter(|c| *c == tool).count() as u64;
        let measured = format!("{} on the active branch", plural(n, "call"));
        let name = format!("require-tool {tool}");
        assertions.push(wanted(
            name,
            n > 0,
            measured,
            "at least 1",
            n.into(),
            1.into(),
        ));
    }
    for tool in &spec.forbid_tools {
        let n = calls.iter().filter(|c| *c == tool).count() as u64;
        let measured = format!("{} on the active branch", plural(n, "call"));
        assertions.push(none_found(format!("forbid-tool {tool}"), n, measured));
    }
    if let Some(re) = &spec.require_text {
        assertions.push(require_text(re, figures.final_assistant.as_ref()));
    }
    let measured = session
        .filter(|_| spec.wants_baseline())
        .map(|s| baseline_of(spec, summary, s, estimated.as_ref(), scrub));
    let measured = measured.map(|run| {
        let judged = spec
            .baseline
            .as_ref()
            .map(|g| g.judge(&run))
            .unwrap_or_default();
        let mut values = Vec::with_capacity(judged.len());
        for (a, was) in judged {
            values.push((a.name.clone(), was));
            assertions.push(a);
        }
        (run, values)
    });
    let hits = secrets;
    let mut secrets = Vec::new();
    let mut figures = figures;
    if let Some(scrub) = scrub {
        let (assertion, found) = secrets::no_secrets(hits, scrub);
        // What the reports quote of the session is redacted too.
        secrets::redact_quotes(scrub, &mut figures, &mut assertions);
        assertions.push(assertion);
        secrets = found;
    }
    Verdict {
        figures,
        assertions,
        findings,
        secrets,
        tool_errors,
        tool_errors_more,
        baseline: measured,
    }
}

/// The run's [`baseline::Baseline`], every name in it through `scrub` (the secrets the session
/// was found to hold, with `--no-secrets`), else through the detector.
fn baseline_of(
    spec: &Spec,
    summary: &Summary,
    session: &Session,
    estimated: Option<&pisess_store::prices::Estimated>,
    scrub: Option<&Scrub>,
) -> baseline::Baseline {
    let detector = spec.no_secrets.as_ref().or(spec.redactor.as_ref());
    let redact = |s: &str| match (scrub, detector) {
        (Some(scrub), _) => scrub.owned(s),
        (None, Some(d)) => d.redact(s).into_owned(),
        (None, None) => s.to_owned(),
    };
    baseline::Baseline::of(summary, session, estimated, &redact)
}

fn plural(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// A condition rather than a bound: `; want` its limit when it failed.
fn wanted(
    name: impl Into<String>,
    held: bool,
    measured: String,
    limit: impl Into<String>,
    measured_json: Value,
    limit_json: Value,
) -> Assertion {
    Assertion {
        name: name.into(),
        held,
        undecided: false,
        measured,
        limit: limit.into(),
        relation: if held { "" } else { "; want" }.into(),
        measured_json,
        limit_json,
    }
}

/// None of something was to be found: `n` were, said as `measured`.
fn none_found(name: impl Into<String>, n: u64, measured: String) -> Assertion {
    wanted(name, n == 0, measured, "none", n.into(), 0.into())
}

/// `measured <= limit` for a count.
fn at_most(name: &str, held: bool, measured: Value, limit: u64) -> Assertion {
    Assertion {
        name: name.into(),
        held,
        undecided: false,
        measured: match &measured {
            Value::Number(n) => n.to_string(),
            other => other.to_string(),
        },
        limit: limit.to_string(),
        relation: if held { "<=" } else { ">" }.into(),
        measured_json: measured,
        limit_json: limit.into(),
    }
}

/// Dollars are compared in nano-dollars, the finest a cost is shown in: two messages of $0.10
/// and $0.20 (0.30000000000000004 as doubles add them) are within `--max-cost 0.3`.
fn nano_dollars(x: f64) -> f64 {
    (x * 1e9).round()
}

/// Whether a total that `spec` compares is not a finite number (a stored `1e999`, which pi
/// counts as `Infinity`): then no gate on it can be sure, and the session is not checked.
pub fn undecidable(spec: &Spec, summary: &Summary) -> Option<String> {
    let (cost, tokens) = (summary.usage.cost, summary.usage.total_tokens());
    let what = if spec.max_cost.is_some() && !cost.is_finite() {
        ("max-cost", "cost", cost)
    } else if spec.max_tokens.is_some() && !tokens.is_finite() {
        ("max-tokens", "token count", tokens)
    } else {
        return None;
    };
    Some(format!(
        "cannot decide {}: the {} is {}, from a usage number beyond JavaScript's range or a count pi does not add as a number",
        what.0,
        what.1,
        crate::views::style::js_non_finite(what.2)
    ))
}

/// Dollars with cents, or with enough digits that a failing value does not print as its limit
/// (`$2.0012 > $2.00`, not `$2.00 > $2.00`).
///
/// Usage pi had no price for (tokens at a recorded cost of 0) makes the recorded cost a lower
/// bound: a gate that passed on it could pass a run of any real cost. Unless `unpriced` says
/// how to treat it, the assertion is undecided; `fail` fails it (when the recorded cost alone
/// does not); `ok` judges the recorded cost.
///
/// With an estimate (`--prices`) the cost judged is recorded + estimated, and the usage left
/// unpriced is what the table did not price either; `measured` says which part is which.
fn cost_assertion(
    recorded: &pisess_format::model::Usage,
    max: f64,
    unpriced: Option<Unpriced>,
    estimated: Option<&pisess_store::prices::Estimated>,
) -> Assertion {
    use crate::views::style::cost as dollars;
    let judged = estimated.map(|e| pisess_format::model::Usage {
        cost: recorded.cost + e.cost,
        unpriced: e.unpriced_tokens,
        ..*recorded
    });
    let usage = judged.as_ref().unwrap_or(recorded);
    // Which part was estimated, inside the parentheses after the figure (when a part was).
    let parts = estimated.filter(|e| e.priced > 0).map(|e| {
        format!(
            "recorded {} + estimated ~{}",
            dollars(recorded.cost),
            dollars(e.cost)
        )
    });
    let within_note = |rest: Option<String>| match (&parts, rest) {
        (Some(p), Some(r)) => format!(" ({p}; {r})"),
        (Some(p), None) => format!(" ({p})"),
        (None, Some(r)) => format!(" ({r})"),
        (None, None) => String::new(),
    };
    let cost = usage.cost;
    let within = nano_dollars(cost) <= nano_dollars(max);
    let cents = |x: f64| format!("${x:.2}");
    let mut measured = cents(cost);
    if cost > 0.0 && cost < 0.01 {
        measured = format!("${cost:.4}");
    }
    if !within && measured == cents(max) {
        // The fewest digits (from 4, up to the nano-dollars compared) that tell them apart.
        measured = (4..=9)
            .map(|d| (format!("${cost:.d$}"), format!("${max:.d$}")))
            .find(|(c, m)| c != m)
            .map_or_else(|| format!("${cost:.9}"), |(c, _)| c);
    }
    let mut a = Assertion {
        name: "max-cost".into(),
        held: within,
        undecided: false,
        measured,
        limit: cents(max),
        relation: if within { "<=" } else { ">" }.into(),
        measured_json: pisess_format::model::number(cost),
        limit_json: pisess_format::model::number(max),
    };
    // A negative cost offsets real ones (`-5 + 3` passes a real `$3` under `$1`), and a
    // negative token count hid unpriced tokens before they were judged per count: either
    // way the recorded cost bounds nothing, whatever `--unpriced` says (red team 08). A
    // recorded cost above the limit still fails: its positive parts are above it too.
    if (usage.negative_cost || usage.negative_tokens) && within {
        let what = if usage.negative_cost {
            "cost"
        } else {
            "token count"
        };
        a.measured = format!(
            "{}{}",
            crate::views::style::cost_of(usage),
            within_note(Some(format!("a usage record holds a negative {what}")))
        );
        a.held = false;
        a.undecided = true;
        a.relation = "; cannot decide, limit".into();
        return a;
    }
    // A count that is no number (a string pi concatenates) is unpriced usage of unknown size,
    // never none (red team 02).
    if crate::views::style::has_unpriced(usage.unpriced) && within {
        let tokens = if usage.unpriced.is_nan() {
            "tokens without a price, a count of them not a number".to_owned()
        } else {
            format!(
                "{} tokens without a price",
                crate::views::style::tokens(usage.unpriced)
            )
        };
        a.measured = format!(
            "{}{}{}",
            a.measured,
            crate::views::style::UNPRICED,
            within_note(Some(tokens))
        );
        match unpriced {
            // The recorded cost judged, the tokens left out said in `measured`.
            Some(Unpriced::Ok) => {}
            Some(Unpriced::Fail) => {
                a.held = false;
                a.relation = "; --unpriced fail, limit".into();
            }
            None => {
                a.held = false;
                a.undecided = true;
                a.relation =
                    "; cannot decide (--unpriced ok|fail says how to treat them), limit".into();
            }
        }
    } else {
        a.measured.push_str(&within_note(None));
    }
    a
}

fn duration_assertion(duration: Option<i64>, max: i64, shown: &str) -> Assertion {
    use pisess_format::time::span_text;
    let (held, measured, relation) = match duration {
        Some(d) if d <= max => (true, span_text(d), "<="),
        Some(d) => (false, span_text(d), ">"),
        // A file whose start is unknown cannot prove it was quick enough.
        None => (
            false,
            "unknown (no valid header timestamp)".to_owned(),
            "; want <=",
        ),
    };
    Assertion {
        name: "max-duration".into(),
        held,
        undecided: false,
        measured,
        limit: shown.to_owned(),
        relation: relation.into(),
        measured_json: duration.map_or(Value::Null, Value::from),
        limit_json: max.into(),
    }
}

fn ended(last: Option<&LastMessage>) -> Assertion {
    let (held, measured) = match last {
        None => (false, "no message on the active branch".to_owned()),
        Some(m) if m.role != "assistant" => (false, format!("the last message is {}", m.role)),
        Some(m) => {
            let reason = m.stop_reason.as_deref().unwrap_or("(none)");
            let error = m
                .error_message
                .as_deref()
                .map(|e| format!(": {}", crate::views::style::one_line(e)))
                .unwrap_or_default();
            (
                m.stop_reason.as_deref() == Some("stop"),
                format!("assistant, stopReason {reason}{error}"),
            )
        }
    };
    wanted(
        "ended",
        held,
        measured,
        "assistant, stopReason stop",
        last.map_or(
            Value::Null,
            |m| serde_json::json!({"role": m.role, "stopReason": m.stop_reason}),
        ),
        serde_json::json!({"role": "assistant", "stopReason": "stop"}),
    )
}

fn require_text(re: &regex::Regex, last: Option<&LastMessage>) -> Assertion {
    let (held, measured) = match last {
        None => (
            false,
            "no assistant message on the active branch".to_owned(),
        ),
        Some(m) => match re.find(&m.text) {
            Some(found) => (true, format!("matched {:?}", cut(found.as_str(), 60))),
            None => (false, "no match in the final assistant text".to_owned()),
        },
    };
    let limit = format!("/{}/", re.as_str());
    wanted(
        "require-text",
        held,
        measured,
        limit,
        held.into(),
        re.as_str().into(),
    )
}

fn cut(s: &str, chars: usize) -> String {
    match s.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_owned(),
    }
}

/// Tool results with `isError: true` by tool name, most first, then by name. Only the lines
/// that can hold the flag are decoded.
fn tools_with_errors(session: &Session) -> Vec<(String, u64)> {
    let mut counts: Vec<(String, u64)> = Vec::new();
    for i in tool_errors::failed_results(session) {
        let name = session
            .load(i)
            .ok()
            .and_then(|v| message_of(&v)?.tool_name()?.as_str().map(str::to_owned));
        let name = name.unwrap_or_else(|| "?".to_owned());
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => counts.push((name, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts
}

/// What `check` reads off the active branch (root to the leaf pi resumes at).
struct Branch {
    /// The name of every tool call on the branch, in order.
    tool_calls: Vec<String>,
    last: Option<LastMessage>,
    final_assistant: Option<LastMessage>,
}

impl Branch {
    fn of(session: &Session) -> Branch {
        let mut branch = Branch {
            tool_calls: Vec::new(),
            last: None,
            final_assistant: None,
        };
        let Some(leaf) = session.leaf() else {
            return branch;
        };
        let (path, _cycle) = session.path_to(leaf);
        let is_message = |j: usize| *session.kind(j) == EntryKind::Message;
        let last = path.iter().copied().rfind(|&j| is_message(j));
        let final_assistant = path
            .iter()
            .copied()
            .rfind(|&j| is_message(j) && session.role(j) == Some("assistant"));
        for &i in &path {
            if !is_message(i) {
                continue;
            }
            let role = session.role(i);
            let (is_last, is_final_assistant) = (last == Some(i), final_assistant == Some(i));
            // Only an assistant message can call a tool, and only one whose line names the
            // block type is decoded for it.
            let calls = role == Some("assistant")
                && session
                    .raw_line(i)
                    .is_ok_and(|line| message_call_facts(&line).tool_calls > 0);
            if !(calls || is_last || is_final_assistant) {
                continue;
            }
            let Ok(entry) = session.load(i) else {
                continue;
            };
            let message = message_of(&entry);
            let content = message.map_or(Content::None, Message::content);
            if calls {
                for call in message.into_iter().flat_map(Message::tool_calls) {
                    let name = call.name.and_then(Value::as_str).unwrap_or("?");
                    branch.tool_calls.push(name.to_owned());
                }
            }
            let text_of = |field: Option<&Value>| field?.as_str().map(str::to_owned);
            let facts = LastMessage {
                role: role.unwrap_or("(none)").to_owned(),
                stop_reason: text_of(message.and_then(Message::stop_reason)),
                error_message: text_of(message.and_then(Message::error_message)),
                text: match content {
                    Content::Text(t) => t.to_owned(),
                    c => c
                        .blocks()
                        .filter_map(|b| b.text_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                },
            };
            if is_final_assistant {
                branch.final_assistant = Some(facts.clone());
            }
            if is_last {
                branch.last = Some(facts);
            }
        }
        branch
    }
}

/// The message of a message entry (its `message`, whatever the line's `type`).
fn message_of(entry: &Value) -> Option<Message<'_>> {
    Entry::of_kind(&EntryKind::Message, entry).message()
}
