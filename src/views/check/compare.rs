//! `check --baseline REF`'s assertions: is this run worse than the baseline ("the last good
//! one")? Each bound is the baseline's value plus a tolerance, in % of it or absolute; each
//! failure names the run's value, the limit and the baseline's. Costs are judged as
//! `--max-cost` judges them: usage without a price on either side makes a cost a lower bound.
//! The frozen sequence (`--same-tools`) is a subsequence test, one pass over each side.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::baseline::Baseline;
use super::{nano_dollars, plural, Assertion, Unpriced};
use crate::views::style;
use pisess_format::time::span_text;

/// How much more than the baseline an assertion allows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tolerance {
    /// `10%`: of the baseline's value.
    Percent(f64),
    /// `$0.50`, `5000`, `5m` (in ms): added to it.
    Absolute(f64),
}

impl Tolerance {
    /// `10%`, else what `absolute` makes of the text (`None`: not a value).
    pub fn parse(s: &str, absolute: impl Fn(&str) -> Option<f64>) -> Option<Tolerance> {
        let s = s.trim();
        let t = match s.strip_suffix('%') {
            Some(p) => Tolerance::Percent(p.trim().parse().ok()?),
            None => Tolerance::Absolute(absolute(s)?),
        };
        let (Tolerance::Percent(x) | Tolerance::Absolute(x)) = t;
        (x.is_finite() && x >= 0.0).then_some(t)
    }

    /// The most allowed over `base`; `whole`: of a count, rounded down to one.
    fn limit(self, base: f64, whole: bool) -> f64 {
        let more = match self {
            Tolerance::Percent(p) => base * p / 100.0,
            Tolerance::Absolute(x) => x,
        };
        if whole {
            // 1e-9: 1.15 * 100 is 114.99999999999999 as a double, and 115 is meant.
            base + (more + 1e-9).floor()
        } else {
            base + more
        }
    }
}

/// What `check --baseline REF` asks: the reference and the assertions.
#[derive(Debug, Default)]
pub struct Gate {
    pub reference: Option<Baseline>,
    /// Each with the text it was given as (`10%`, `$0.50`).
    pub cost: Option<(Tolerance, String)>,
    pub tokens: Option<(Tolerance, String)>,
    pub turns: Option<(Tolerance, String)>,
    pub duration: Option<(Tolerance, String)>,
    pub no_new_tools: bool,
    pub no_new_tool_errors: bool,
    /// `--same-tools[=N]`: the insertions allowed.
    pub same_tools: Option<u64>,
    /// `--prices` was given: costs are judged recorded + estimated.
    pub priced: bool,
    /// `--unpriced`: how the cost gate treats usage without a price.
    pub unpriced: Option<Unpriced>,
}

impl Gate {
    /// Whether any comparison was asked.
    pub fn asks(&self) -> bool {
        self.cost.is_some()
            || self.tokens.is_some()
            || self.turns.is_some()
            || self.duration.is_some()
            || self.no_new_tools
            || self.no_new_tool_errors
            || self.same_tools.is_some()
    }

    /// The assertions on `run`, each with the baseline's value for `check --json`.
    pub fn judge(&self, run: &Baseline) -> Vec<(Assertion, Value)> {
        let Some(base) = &self.reference else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some((t, shown)) = &self.cost {
            let (was, _) = base.judged_cost(self.priced);
            out.push((self.cost_increase(base, run, *t, shown), number(was)));
        }
        if let Some((t, shown)) = &self.tokens {
            let limit = t.limit(base.total_tokens, true);
            // As `--max-tokens`: a negative count makes a total no bound, the limit unknown;
            // a run over it by its positive parts has failed all the same.
            let unknown = (base.negative_tokens
                || (run.negative_tokens && run.total_tokens <= limit))
                .then_some("a usage record holds a negative token count");
            let a = increase(
                "max-tokens-increase",
                (base.total_tokens, run.total_tokens),
                limit,
                shown,
                &|x| format!("{x}"),
                unknown,
            );
            out.push((a, number(base.total_tokens)));
        }
        if let Some((t, shown)) = &self.turns {
            #[allow(clippy::cast_precision_loss)]
            let (was, now) = (
                base.assistant_messages as f64,
                run.assistant_messages as f64,
            );
            let a = increase(
                "max-turns-increase",
                (was, now),
                t.limit(was, true),
                shown,
                &|x| format!("{x}"),
                None,
            );
            out.push((a, base.assistant_messages.into()));
        }
        if let Some((t, shown)) = &self.duration {
            #[allow(clippy::cast_precision_loss)]
            let ms = |d: Option<i64>| d.map_or(f64::NAN, |d| d as f64);
            let (was, now) = (ms(base.active_ms), ms(run.active_ms));
            #[allow(clippy::cast_possible_truncation)]
            let span = |x: f64| span_text(x as i64);
            let unknown = (base.active_ms.is_none() || run.active_ms.is_none())
                .then_some("no valid timestamp");
            let a = increase(
                "max-duration-increase",
                (was, now),
                t.limit(was, true),
                shown,
                &span,
                unknown,
            );
            out.push((a, base.active_ms.map_or(Value::Null, Value::from)));
        }
        if self.no_new_tools {
            out.push((
                new_tools(base, run),
                json!(base.tool_calls_by_tool.keys().collect::<Vec<_>>()),
            ));
        }
        if self.no_new_tool_errors {
            out.push((new_tool_errors(base, run), json!(base.tool_errors_by_tool)));
        }
        if let Some(extra) = self.same_tools {
            out.push((
                same_tools(&base.tool_sequence, &run.tool_sequence, extra),
                base.tool_sequence.len().into(),
            ));
        }
        out
    }

    /// As `--max-cost` judges a cost: usage without a price on either side (or a negative
    /// cost or token count) makes a cost a lower bound, and the comparison undecided unless
    /// `--unpriced ok` (judge the recorded costs) or `fail` says how to treat it.
    fn cost_increase(
        &self,
        base: &Baseline,
        run: &Baseline,
        t: Tolerance,
        shown: &str,
    ) -> Assertion {
        let (was, was_unpriced) = base.judged_cost(self.priced);
        let (now, now_unpriced) = run.judged_cost(self.priced);
        let limit = t.limit(was, false);
        // Enough digits that a failing cost does not print as its limit ($0.0201 > $0.0200,
        // not $0.02 > $0.02), as `--max-cost` prints it.
        let over = nano_dollars(now) > nano_dollars(limit);
        let digits = (2..=9)
            .find(|d| format!("{now:.d$}") != format!("{limit:.d$}"))
            .filter(|_| over && style::cost(now) == style::cost(limit));
        let dollars = |x: f64| match digits {
            Some(d) if x.is_finite() && x >= 0.0 => format!("${x:.d$}"),
            _ => style::cost(x),
        };
        // `0.50` as the dollars it is.
        let shown = match shown.starts_with('$') || shown.ends_with('%') {
            true => shown.to_owned(),
            false => format!("${shown}"),
        };
        let mut a = increase(
            "max-cost-increase",
            (was, now),
            limit,
            &shown,
            &dollars,
            None,
        );
        a.measured_json = number(now);
        a.limit_json = number(limit);
        if !was.is_finite() || !now.is_finite() {
            return a;
        }
        // Over the limit by its positive parts alone: failed whatever was unpriced in the run.
        let within = nano_dollars(now) <= nano_dollars(limit);
        a.held = within;
        a.relation = if within { "<=" } else { ">" }.into();
        let negative = [(base, "baseline"), (run, "run")]
            .into_iter()
            .find(|(b, _)| b.negative_cost || b.negative_tokens);
        let unpriced = [(was_unpriced, "baseline"), (now_unpriced, "run")]
            .into_iter()
            .find(|(n, _)| style::has_unpriced(*n));
        if let Some((_, side)) = negative.filter(|(_, side)| within || *side == "baseline") {
            a.measured.push_str(&format!(
                " (the {side}'s usage holds a negative cost or token count)"
            ));
            undecided(&mut a);
        } else if let Some((n, side)) = unpriced.filter(|(_, side)| within || *side == "baseline") {
            let tokens = if n.is_nan() {
                "tokens without a price".to_owned()
            } else {
                format!("{} tokens without a price", style::tokens(n))
            };
            a.measured.push_str(&format!(" (the {side} has {tokens})"));
            match self.unpriced {
                Some(Unpriced::Ok) => {}
                Some(Unpriced::Fail) => {
                    a.held = false;
                    a.relation = "; --unpriced fail, limit".into();
                }
                None => {
                    undecided(&mut a);
                    a.relation =
                        "; cannot decide (--unpriced ok|fail says how to treat them), limit".into();
                }
            }
        }
        a
    }
}

fn undecided(a: &mut Assertion) {
    a.held = false;
    a.undecided = true;
    a.relation = "; cannot decide, limit".into();
}

/// A JSON number, null when not finite.
fn number(x: f64) -> Value {
    pisess_format::model::number(x)
}

/// `now <= limit`: `measured` the run's value, `limit` the most allowed, with the baseline's
/// value and the tolerance (`$0.23 > $0.22 (baseline $0.20 + 10%)`). Unknown on either side
/// (`why`, or a value not finite) is undecided.
fn increase(
    name: &str,
    (was, now): (f64, f64),
    limit: f64,
    shown: &str,
    text: &dyn Fn(f64) -> String,
    why: Option<&str>,
) -> Assertion {
    let held = now <= limit;
    let plus = shown;
    let mut a = Assertion {
        name: name.to_owned(),
        held,
        undecided: false,
        measured: text(now),
        limit: format!("{} (baseline {} + {plus})", text(limit), text(was)),
        relation: if held { "<=" } else { ">" }.into(),
        measured_json: number(now),
        limit_json: number(limit),
    };
    if let Some(why) = why.or_else(|| (!was.is_finite() || !now.is_finite()).then_some("")) {
        let what = |x: f64| {
            if x.is_finite() {
                text(x)
            } else {
                "unknown".to_owned()
            }
        };
        a.measured = what(now);
        if !why.is_empty() {
            a.measured.push_str(&format!(" ({why})"));
        }
        a.limit = format!("{} (baseline {} + {plus})", what(limit), what(was));
        undecided(&mut a);
    }
    a
}

/// Up to 10 names, each cut to 60 characters (a session's names may be of any length), then
/// how many more.
fn names<'a>(all: impl ExactSizeIterator<Item = &'a str>) -> String {
    let n = all.len();
    let mut shown: Vec<String> = all.take(10).map(|s| super::cut(s, 60)).collect();
    let more = n.saturating_sub(shown.len());
    if more > 0 {
        shown.push(format!("… and {more} more"));
    }
    shown.join(", ")
}

fn new_tools(base: &Baseline, run: &Baseline) -> Assertion {
    let new: Vec<&str> = (run.tool_calls_by_tool.keys())
        .filter(|t| !base.tool_calls_by_tool.contains_key(*t))
        .map(String::as_str)
        .collect();
    let had = base.tool_calls_by_tool.len() as u64;
    let limit = format!(
        "none beyond the baseline's {}{}",
        plural(had, "tool"),
        if had == 0 {
            String::new()
        } else {
            format!(
                " ({})",
                names(base.tool_calls_by_tool.keys().map(String::as_str))
            )
        }
    );
    let measured = if new.is_empty() {
        format!("no new tool ({} used)", run.tool_calls_by_tool.len())
    } else {
        format!(
            "{}: {}",
            plural(new.len() as u64, "new tool"),
            names(new.iter().copied())
        )
    };
    let held = new.is_empty();
    Assertion {
        name: "no-new-tools".into(),
        held,
        undecided: false,
        measured,
        limit,
        relation: if held { "" } else { "; want" }.into(),
        measured_json: json!(new),
        limit_json: json!(base.tool_calls_by_tool.keys().collect::<Vec<_>>()),
    }
}

fn new_tool_errors(base: &Baseline, run: &Baseline) -> Assertion {
    let had = |t: &str| base.tool_errors_by_tool.get(t).copied().unwrap_or(0);
    let more: Vec<(&str, u64)> = (run.tool_errors_by_tool.iter())
        .filter(|(t, n)| **n > had(t))
        .map(|(t, n)| (t.as_str(), *n))
        .collect();
    let total = |m: &BTreeMap<String, u64>| m.values().sum::<u64>();
    let held = more.is_empty();
    let listed: Vec<String> = (more.iter().take(10))
        .map(|(t, n)| format!("{} {n} (baseline {})", super::cut(t, 60), had(t)))
        .collect();
    let measured = if held {
        format!(
            "no tool with more errors than the baseline ({} now)",
            plural(total(&run.tool_errors_by_tool), "error")
        )
    } else {
        let rest = more.len().saturating_sub(listed.len());
        let tail = if rest > 0 {
            format!(", … and {rest} more")
        } else {
            String::new()
        };
        format!(
            "{} with more errors: {}{tail}",
            plural(more.len() as u64, "tool"),
            listed.join(", ")
        )
    };
    Assertion {
        name: "no-new-tool-errors".into(),
        held,
        undecided: false,
        measured,
        limit: format!(
            "at most the baseline's per tool ({} in all)",
            plural(total(&base.tool_errors_by_tool), "error")
        ),
        relation: if held { "" } else { "; want" }.into(),
        measured_json: json!(more
            .iter()
            .map(|(t, n)| (*t, *n))
            .collect::<BTreeMap<_, _>>()),
        limit_json: json!(base.tool_errors_by_tool),
    }
}

/// Where the frozen sequence `base` is not a subsequence of `run`, or needs more than `extra`
/// insertions: the index of the first baseline call not found in order (`Err`), else how many
/// calls the run has beyond it and the first of them (`Ok`). One pass over each: the leftmost
/// match of each baseline call leaves the most room for the rest.
pub fn embed(base: &[String], run: &[String]) -> Result<(usize, Option<usize>), usize> {
    let mut at = 0;
    let mut first_extra = None;
    for (i, call) in run.iter().enumerate() {
        if at < base.len() && base[at] == *call {
            at += 1;
        } else if first_extra.is_none() {
            first_extra = Some(i);
        }
    }
    if at < base.len() {
        return Err(at);
    }
    Ok((run.len() - base.len(), first_extra))
}

fn same_tools(base: &[String], run: &[String], extra: u64) -> Assertion {
    let n = base.len() as u64;
    let limit = format!(
        "the baseline's {} in order, at most {extra} more",
        plural(n, "call")
    );
    let cut = |s: &str| super::cut(s, 60);
    let (held, measured, json) = match embed(base, run) {
        Err(missing) => (
            false,
            format!(
                "the baseline's call {} of {n} ({}) is not in the run's {} in order",
                missing + 1,
                cut(&base[missing]),
                plural(run.len() as u64, "call")
            ),
            json!({"calls": run.len(), "baselineCalls": n, "missingAt": missing + 1}),
        ),
        Ok((more, first)) => {
            let held = more as u64 <= extra;
            let first = match first.filter(|_| !held) {
                Some(i) => format!("; the first, call {} ({})", i + 1, cut(&run[i])),
                None => String::new(),
            };
            (
                held,
                format!(
                    "the baseline's {} in order and {more} more{first}",
                    plural(n, "call")
                ),
                json!({"calls": run.len(), "baselineCalls": n, "extra": more}),
            )
        }
    };
    Assertion {
        name: "same-tools".into(),
        held,
        undecided: false,
        measured,
        limit,
        relation: if held { "" } else { "; want" }.into(),
        measured_json: json,
        limit_json: extra.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_frozen_sequence_is_found_in_order_with_insertions() {
        assert_eq!(embed(&seq("a b c"), &seq("a b c")), Ok((0, None)));
        assert_eq!(embed(&seq("a b c"), &seq("a x b c y")), Ok((2, Some(1))));
        assert_eq!(embed(&seq("a b c"), &seq("a c b")), Err(2));
        assert_eq!(embed(&seq("a a"), &seq("a")), Err(1));
        assert_eq!(embed(&seq(""), &seq("x")), Ok((1, Some(0))));
    }

    #[test]
    fn tolerances_in_percent_and_absolute() {
        let t = |s| Tolerance::parse(s, |x| x.trim_start_matches('$').parse().ok());
        assert_eq!(t("10%"), Some(Tolerance::Percent(10.0)));
        assert_eq!(t("$0.50"), Some(Tolerance::Absolute(0.5)));
        assert_eq!(t("-1"), None);
        assert_eq!(t("x%"), None);
        assert_eq!(Tolerance::Percent(15.0).limit(100.0, true), 115.0);
        assert_eq!(Tolerance::Percent(10.0).limit(3.0, true), 3.0);
        assert!((Tolerance::Percent(10.0).limit(0.2, false) - 0.22).abs() < 1e-12);
    }
}
