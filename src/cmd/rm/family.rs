//! `rm` and a session's subagent runs (issue 44): kept and counted, or with `--with-subagents`
//! planned as targets of their own.

use pisess_store::family::runs;

use super::{check, Candidate, Diag, Refusal, Rule, Rules, ShortIds, Target};

/// A target's family: the subagent runs found under it (removed before it with
/// `--with-subagents`, else kept) and, for a run planned with its session, that session's id.
#[derive(Debug, Default)]
pub(super) struct Family {
    pub runs: usize,
    pub subagent_of: Option<String>,
}

/// Each target with the subagent runs found under it (issue 44): counted (kept, the plan says
/// so), or with `--with-subagents` each checked as a candidate of its own (inside the root, a
/// session, not live) and planned before its session, so that a run that cannot go leaves its
/// session in place only if the session itself fails. Only the runs' files are removed: any
/// other file in the folder, the folders, and forks elsewhere stay.
pub(super) fn family(
    targets: Vec<Target>,
    with_runs: bool,
    rules: &Rules,
    refused: &mut Vec<Refusal>,
    diag: &mut Diag,
) -> Vec<Target> {
    let mut out: Vec<Target> = Vec::with_capacity(targets.len());
    for mut t in targets {
        let found = runs::find(&t.path, runs::Limits::default());
        for (place, problem) in &found.problems {
            diag.warn(&place.display().to_string(), None, &problem.describe());
        }
        if found.limited.is_some() {
            diag.warn(
                &t.path.display().to_string(),
                None,
                "a limit was reached: only the subagent runs found before are counted",
            );
        }
        t.family.runs = found.children.len();
        if with_runs {
            for child in found.children {
                let candidate = Candidate {
                    path: child.path.clone(),
                    explicit: false,
                    expected: None,
                    rule: Rule::default(),
                };
                match check(candidate, rules) {
                    Ok(_) if out.iter().any(|x| x.path == child.path) => {}
                    Ok(mut run) => {
                        run.family.subagent_of = Some(t.id.clone());
                        out.push(run);
                    }
                    Err(reason) => refused.push(Refusal {
                        path: Some(child.path),
                        reason,
                    }),
                }
            }
        }
        out.push(t);
    }
    out
}

/// The plan's line under a target: whose run it is, or the runs it keeps.
pub(super) fn note(t: &Target, with_runs: bool, ids: &ShortIds) -> Option<String> {
    if let Some(parent) = &t.family.subagent_of {
        return Some(format!("a subagent run of {}", ids.short(parent)));
    }
    if t.family.runs == 0 || with_runs {
        return None;
    }
    let runs = match t.family.runs {
        1 => "subagent run".to_owned(),
        n => format!("{n} subagent runs"),
    };
    Some(format!(
        "keeps its {runs} in {}/ (--with-subagents removes them too)",
        super::path_text(&t.path.with_extension(""))
    ))
}
