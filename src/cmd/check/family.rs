//! `check SESSION` judging the run with its subagent runs (issue 44; `--file-only` for the file
//! alone): the SESSIONs named are each followed by the runs found under them (as `check --all`
//! follows a listing's), each run checked for what a run can fail alone (`--no-secrets`, the
//! tool errors), and the family's figures judged beside the session's own
//! (`views::check::judge_family`: cost, tokens and turns over the family, each token once).

use std::path::PathBuf;

use serde_json::{json, Value};

use super::{Checked, Status, Target};
use crate::app::diag::Diag;
use crate::cmd::stats::family;
use crate::views::check::{self, Family, Spec};
use pisess_store::family::runs::Made;

/// Whether `spec` asks what a family is judged on.
pub(super) fn asked(spec: &Spec) -> bool {
    spec.max_cost.is_some()
        || spec.max_tokens.is_some()
        || spec.max_turns.is_some()
        || spec.max_tool_errors.is_some()
        || spec.no_secrets.is_some()
}

/// What a run of the family is checked for alone: its secrets and its tool errors (its cost
/// and turns count in the family's).
pub(super) fn run_spec(spec: &Spec, no_secrets: Option<crate::views::secrets::Detector>) -> Spec {
    Spec {
        max_tool_errors: spec.max_tool_errors,
        no_secrets,
        ..Spec::default()
    }
}

/// `targets` (the SESSIONs named), each followed by its runs; with where each run was found.
pub(super) fn expand(
    targets: Vec<Target>,
    diag: &mut Diag,
    redact: &dyn Fn(&str) -> String,
) -> (Vec<Target>, Vec<Option<(usize, Made)>>) {
    let mut out = Vec::new();
    let mut under = Vec::new();
    for target in targets {
        let Target::File(path, listed) = target else {
            out.push(target);
            under.push(None);
            continue;
        };
        let stems = crate::cmd::runs::stems_of([&path]);
        let units = crate::cmd::runs::with_runs([path], &stems, diag, redact);
        let top = out.len();
        let mut listed = Some(listed);
        for unit in units {
            let summary = if unit.under.is_none() {
                listed.take().flatten()
            } else {
                None
            };
            out.push(Target::File(unit.path, summary));
            under.push(unit.under.map(|(p, made)| (top + p, made)));
        }
    }
    (out, under)
}

/// A family's verdict, and its runs that failed, with the assertions each failed.
pub(super) struct Judged {
    pub family: Family,
    pub failed: Vec<(usize, Vec<String>)>,
}

impl Judged {
    pub(super) fn status(&self) -> Status {
        match self.family.verdict.tally() {
            (0, 0) => Status::Passed,
            (0, _) => Status::Undecided,
            _ => Status::Failed,
        }
    }
}

/// For each checked session with runs under it, its family's verdict (the family read again,
/// each token once); `None` for the others and the runs.
pub(super) fn judge(
    checked: &[Checked],
    paths: &[Option<PathBuf>],
    under: &[Option<(usize, Made)>],
    spec: &Spec,
    diag: &mut Diag,
) -> Vec<Option<Judged>> {
    let mut out: Vec<Option<Judged>> = (0..checked.len()).map(|_| None).collect();
    for (i, path) in paths.iter().enumerate() {
        let runs: Vec<usize> = (0..checked.len())
            .filter(|&j| in_family(under, j, i))
            .collect();
        let (Some(path), false) = (path, runs.is_empty()) else {
            continue;
        };
        if under[i].is_some() || checked[i].result.is_err() {
            continue;
        }
        let Some(read) = family::read(path) else {
            continue;
        };
        for (place, why) in &read.warnings {
            diag.warn(&place.display().to_string(), None, why);
        }
        let secrets: usize = std::iter::once(i)
            .chain(runs.iter().copied())
            .filter_map(|j| checked[j].result.as_ref().ok())
            .map(|v| v.secrets.len())
            .sum();
        let usage = family::usage(&read.members);
        let Some(family) = check::judge_family(spec, &read.members, usage, secrets as u64) else {
            continue;
        };
        let failed = (runs.iter())
            .filter_map(|&j| {
                let v = checked[j].result.as_ref();
                let names: Vec<String> = match v {
                    Ok(v) => (v.assertions.iter())
                        .filter(|a| !a.held)
                        .map(|a| a.name.clone())
                        .collect(),
                    Err(_) => vec!["could not be checked".to_owned()],
                };
                (!names.is_empty()).then_some((j, names))
            })
            .collect();
        out[i] = Some(Judged { family, failed });
    }
    out
}

/// Whether unit `j` is a run of unit `i`, at any depth.
fn in_family(under: &[Option<(usize, Made)>], mut j: usize, i: usize) -> bool {
    while let Some(&Some((p, _))) = under.get(j) {
        if p == i {
            return true;
        }
        j = p;
    }
    false
}

/// `--json`'s `family`: beside the session's own figures and assertions.
pub(super) fn to_json(j: &Judged, checked: &[Checked]) -> Value {
    let v = &j.family.verdict;
    let assertions: Vec<Value> = (v.assertions.iter())
        .map(|a| {
            json!({"name": a.name, "status": a.status(), "measured": a.measured_json,
                "limit": a.limit_json, "message": super::assertion_text(a)})
        })
        .collect();
    let failed: Vec<Value> = (j.failed.iter())
        .map(|(k, names)| {
            json!({"sessionId": checked[*k].id, "path": checked[*k].name, "assertions": names})
        })
        .collect();
    json!({
        "status": j.status().as_str(),
        "subagentRuns": j.family.runs,
        "assertions": assertions,
        "figures": v.figures,
        "failedRuns": failed,
    })
}

/// The human lines under the session's verdict: the family's assertions, then its runs that
/// failed, each named by its short id and what it failed.
pub(super) fn human(j: &Judged, checked: &[Checked]) -> Vec<String> {
    let n = j.family.runs;
    let mut lines = vec![format!(
        "family (with {n} subagent run{}):",
        if n == 1 { "" } else { "s" }
    )];
    for a in &j.family.verdict.assertions {
        let word = if a.held {
            "ok  "
        } else if a.undecided {
            "UNDECIDED"
        } else {
            "FAIL"
        };
        lines.push(format!("  {word} {}", super::assertion_text(a)));
    }
    for (k, names) in &j.failed {
        let c = &checked[*k];
        let id = c.short_id.as_deref().unwrap_or(&c.name);
        lines.push(format!("  run {id} failed: {}", names.join(", ")));
    }
    lines
}
