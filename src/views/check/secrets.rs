//! `check --no-secrets`: no entry holds a secret (`crate::secrets`). Each finding names its
//! line, entry, field, kind and fingerprint, never the secret.

use super::{plural, Assertion, Figures, Finding};
use crate::views::secrets::{Hit, Place, Scrub};

/// The assertion, and one finding per secret (at its file line): `hits` are every line's
/// ([`crate::views::secrets::search_stream`]), the header and the lines pi skips included.
/// Ids and fields are named through `scrub`: an id that is a secret is its token.
pub(super) fn no_secrets(hits: &[Hit], scrub: &Scrub) -> (Assertion, Vec<Finding>) {
    let findings: Vec<Finding> = hits
        .iter()
        .map(|h| {
            let f = &h.found;
            let place = match &h.place {
                Place::Entry { id, .. } => {
                    format!("entry {}", scrub.text(id.as_deref().unwrap_or("-")))
                }
                Place::Header => "the header".to_owned(),
                Place::Skipped => "a line pi skips".to_owned(),
            };
            Finding {
                line: Some(h.file_line),
                message: format!(
                    "secret {} {}… [{}] in {place} at {} line {}",
                    f.kind,
                    f.preview,
                    f.fingerprint,
                    scrub.text(&f.field),
                    f.line
                ),
            }
        })
        .collect();
    let n = findings.len() as u64;
    let assertion = super::none_found("no-secrets", n, plural(n, "secret"));
    (assertion, findings)
}

/// The session's text that the reports quote (the last messages, a matched text, the tools
/// with errors, a role or stop reason) with every secret replaced by its token.
pub(super) fn redact_quotes(scrub: &Scrub, figures: &mut Figures, assertions: &mut [Assertion]) {
    let redact = |s: &mut String| {
        if let std::borrow::Cow::Owned(r) = scrub.text(s) {
            *s = r;
        }
    };
    for m in [&mut figures.last, &mut figures.final_assistant]
        .into_iter()
        .flatten()
    {
        redact(&mut m.text);
        redact(&mut m.role);
        for e in [&mut m.error_message, &mut m.stop_reason]
            .into_iter()
            .flatten()
        {
            redact(e);
        }
    }
    for (name, _) in &mut figures.tools_with_errors {
        redact(name);
    }
    for a in assertions {
        redact(&mut a.name);
        redact(&mut a.measured);
        redact(&mut a.limit);
        for v in [&mut a.measured_json, &mut a.limit_json] {
            redact_json(scrub, v);
        }
    }
}

/// Every string of a JSON value through `scrub`.
fn redact_json(scrub: &Scrub, v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::String(s) => {
            if let std::borrow::Cow::Owned(r) = scrub.text(s) {
                *s = r;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|x| redact_json(scrub, x)),
        Value::Object(map) => map.values_mut().for_each(|x| redact_json(scrub, x)),
        _ => {}
    }
}
