//! `check --no-secrets`: no entry holds a secret (`crate::secrets`). Each finding names its
//! line, entry, field, kind and fingerprint, never the secret.

use super::{plural, Assertion, Figures, Finding};
use crate::store::session::Session;
use crate::views::secrets::Detector;

/// The assertion, and one finding per secret (at its file line).
pub(super) fn no_secrets(
    detector: &Detector,
    session: Option<&Session>,
) -> (Assertion, Vec<Finding>) {
    let mut findings = Vec::new();
    let mut unread = 0u64;
    if let Some(s) = session {
        let mut scratch = Vec::new();
        for i in 0..s.entries.len() {
            let value = match s.raw_line_in(i, &mut scratch) {
                Ok(line) if !detector.may_hold(line) => continue,
                Ok(line) => {
                    let line = line.to_vec();
                    s.decode_entry(i, &line)
                }
                Err(e) => Err(e),
            };
            // An entry that cannot be read again cannot be vouched for.
            let Ok(value) = value else {
                unread += 1;
                continue;
            };
            for f in detector.find_in_entry(&value) {
                findings.push(Finding {
                    line: Some(s.line(i)),
                    message: format!(
                        "secret {} {}… [{}] in entry {} at {} line {}",
                        f.kind,
                        f.preview,
                        f.fingerprint,
                        s.id(i).unwrap_or("-"),
                        f.field,
                        f.line
                    ),
                });
            }
        }
    }
    let n = findings.len() as u64;
    let held = n == 0 && unread == 0;
    let mut measured = plural(n, "secret");
    if unread > 0 {
        measured.push_str(&format!(", {} unread", plural(unread, "entry")));
    }
    let assertion = Assertion {
        name: "no-secrets".into(),
        held,
        measured,
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
