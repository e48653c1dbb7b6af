//! `check SESSION`'s judgement of a run with its subagent runs (issue 44): `--max-cost`,
//! `--max-tokens`, `--max-turns`, `--max-tool-errors`/`--no-tool-errors` over the family's
//! figures (each token once, as `stats SESSION`'s `family`), and `--no-secrets` over every
//! member; with the members whose own verdict failed, named with what failed. The session's own
//! verdict stays as it is: this one is beside it.

use super::{judge, none_found, plural, Spec, Verdict};
use pisess_format::model::Usage;
use pisess_store::summary::Summary;

/// A family's verdict.
#[derive(Debug)]
pub struct Family {
    /// Its subagent runs (the members but the session).
    pub runs: usize,
    pub verdict: Verdict,
}

/// The assertions of `spec` that judge a family, over `members` (the session first, each
/// member's figures its own) whose usage, each token once, is `usage`, and the number of
/// secrets found in them all; `None` when `spec` asks none of them.
pub fn judge_family(
    spec: &Spec,
    members: &[Summary],
    usage: Usage,
    secrets: u64,
) -> Option<Family> {
    let family_spec = Spec {
        max_cost: spec.max_cost,
        unpriced: spec.unpriced,
        max_tokens: spec.max_tokens,
        max_turns: spec.max_turns,
        max_tool_errors: spec.max_tool_errors,
        ..Spec::default()
    };
    let asked = family_spec.max_cost.is_some()
        || family_spec.max_tokens.is_some()
        || family_spec.max_turns.is_some()
        || family_spec.max_tool_errors.is_some()
        || spec.no_secrets.is_some();
    let (first, rest) = members.split_first()?;
    if !asked {
        return None;
    }
    // The session's summary with the family's figures: what the assertions read.
    let mut whole = first.clone();
    whole.tally = None;
    whole.usage = usage;
    for m in rest {
        let (c, w) = (&m.counts, &mut whole.counts);
        w.user_messages += c.user_messages;
        w.assistant_messages += c.assistant_messages;
        w.tool_calls += c.tool_calls;
        w.tool_results += c.tool_results;
        w.tool_errors += c.tool_errors;
    }
    let mut verdict = judge(&family_spec, &whole, None, &[], None);
    if spec.no_secrets.is_some() {
        verdict
            .assertions
            .push(none_found("no-secrets", secrets, plural(secrets, "secret")));
    }
    Some(Family {
        runs: rest.len(),
        verdict,
    })
}
