//! `check --no-secrets`: no entry holds a secret (`crate::secrets`). Each finding names its
//! line, entry, field, kind and fingerprint, never the secret.

use super::{plural, Assertion, Figures, Finding};
use crate::views::secrets::{Detector, Hit, Place};

/// The assertion, and one finding per secret (at its file line): `hits` are every line's
/// ([`crate::views::secrets::search_stream`]), the header and the lines pi skips included.
pub(super) fn no_secrets(hits: &[Hit]) -> (Assertion, Vec<Finding>) {
    let findings: Vec<Finding> = hits
        .iter()
        .map(|h| {
            let f = &h.found;
            let place = match &h.place {
                Place::Entry { id, .. } => format!("entry {}", id.as_deref().unwrap_or("-")),
                Place::Header => "the header".to_owned(),
                Place::Skipped => "a line pi skips".to_owned(),
            };
            Finding {
                line: Some(h.file_line),
                message: format!(
                    "secret {} {}… [{}] in {place} at {} line {}",
                    f.kind, f.preview, f.fingerprint, f.field, f.line
                ),
            }
        })
        .collect();
    let n = findings.len() as u64;
    let held = n == 0;
    let assertion = Assertion {
        name: "no-secrets".into(),
        held,
        undecided: false,
        measured: plural(n, "secret"),
        limit: "none".into(),
        relation: if held { "" } else { "; want" }.into(),
        measured_json: n.into(),
        limit_json: 0.into(),
    };
    (assertion, findings)
}

/// The session's text that the reports quote (the last messages, a matched text) with every
/// secret replaced by `[REDACTED kind fingerprint]`.
pub(super) fn redact_quotes(
    detector: &Detector,
    figures: &mut Figures,
    assertions: &mut [Assertion],
) {
    let redact = |s: &mut String| {
        if let std::borrow::Cow::Owned(r) = detector.redact(s) {
            *s = r;
        }
    };
    for m in [&mut figures.last, &mut figures.final_assistant]
        .into_iter()
        .flatten()
    {
        redact(&mut m.text);
        if let Some(e) = &mut m.error_message {
            redact(e);
        }
    }
    for a in assertions {
        redact(&mut a.measured);
    }
}
