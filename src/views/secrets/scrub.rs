//! What pisess prints about a session with its secrets out of it: an entry id, a session id, a
//! type, a tool name, a `targetId`, a file's path. Such a name is printed whole or cut to a
//! few characters, never judged as text with a key around it, and the detector may not see a
//! secret in it at all (a token after a `_`, as pi's file names put the session id, has no
//! word boundary). So every secret the session was found to hold is replaced wherever it
//! occurs in a name, as a substring, and what is left is judged as any text
//! ([`Detector::redact`]).
//!
//! A secret becomes [`token`]: `[REDACTED kind fingerprint]`, the same for the same secret in
//! every place, output and run, so a redacted export's ids and parent ids still meet.

use std::borrow::Cow;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::{Detector, Located};

/// A secret's value, kept in memory only to take it out of what is printed: its `Debug` shows
/// nothing of it and it cannot be serialized.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub(super) fn new(value: &str) -> Secret {
        Secret(value.to_owned())
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

/// The one text a secret is replaced by, everywhere (docs/secrets.md).
pub fn token(kind: &str, fingerprint: &str) -> String {
    format!("[REDACTED {kind} {fingerprint}]")
}

/// The secrets of one session (or export), ready to be taken out of any name printed.
pub struct Scrub<'d> {
    detector: &'d Detector,
    /// Each distinct secret's token, by the automaton's pattern number.
    tokens: Vec<String>,
    /// The secrets, longest first where two overlap.
    known: Option<AhoCorasick>,
}

impl std::fmt::Debug for Scrub<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scrub")
            .field("secrets", &self.tokens.len())
            .finish_non_exhaustive()
    }
}

/// Secrets shorter than this are not replaced as substrings: a 1- or 2-character capture (a
/// config's rule may make one) would turn every name into tokens. The detector still judges
/// the name as text.
const SHORTEST: usize = 4;

impl<'d> Scrub<'d> {
    /// The secrets of `found` (findings of the detector, with their values).
    pub fn new<'a>(detector: &'d Detector, found: impl IntoIterator<Item = &'a Located>) -> Self {
        let mut values: Vec<&str> = Vec::new();
        let mut tokens: Vec<String> = Vec::new();
        // A line of 64k keys is 64k secrets: each is looked up once, not compared with all.
        let mut seen = std::collections::HashSet::new();
        for l in found {
            let v = l.secret.0.as_str();
            if v.len() >= SHORTEST && seen.insert(v) {
                values.push(v);
                tokens.push(token(&l.kind, &l.fingerprint));
            }
        }
        let known = (!values.is_empty())
            .then(|| {
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostLongest)
                    .build(&values)
                    .ok()
            })
            .flatten();
        Scrub {
            detector,
            tokens,
            known,
        }
    }

    /// The detector this scrub judges text with.
    pub fn detector(&self) -> &'d Detector {
        self.detector
    }

    /// `s` with what the detector finds in it redacted, then every known secret replaced.
    pub fn text<'a>(&self, s: &'a str) -> Cow<'a, str> {
        match self.detector.redact(s) {
            Cow::Borrowed(b) => self.known(b),
            Cow::Owned(o) => Cow::Owned(self.known(&o).into_owned()),
        }
    }

    /// `s` with every known secret replaced (the detector is not asked again).
    pub fn known<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let Some(ac) = &self.known else {
            return Cow::Borrowed(s);
        };
        let mut out = String::new();
        let mut at = 0;
        for m in ac.find_iter(s) {
            out.push_str(&s[at..m.start()]);
            out.push_str(&self.tokens[m.pattern().as_usize()]);
            at = m.end();
        }
        if at == 0 {
            return Cow::Borrowed(s);
        }
        out.push_str(&s[at..]);
        Cow::Owned(out)
    }

    /// [`Scrub::text`] into an owned string.
    pub fn owned(&self, s: &str) -> String {
        self.text(s).into_owned()
    }

    /// Every string of a JSON value (and every key) through [`Scrub::known`]; whether one
    /// changed.
    pub fn known_in(&self, value: &mut serde_json::Value) -> bool {
        use serde_json::Value;
        if self.known.is_none() {
            return false;
        }
        let mut changed = false;
        let mut stack = vec![value];
        while let Some(v) = stack.pop() {
            match v {
                Value::String(s) => {
                    if let Cow::Owned(r) = self.known(s) {
                        *s = r;
                        changed = true;
                    }
                }
                Value::Array(items) => stack.extend(items.iter_mut()),
                Value::Object(map) => {
                    if map.keys().any(|k| matches!(self.known(k), Cow::Owned(_))) {
                        changed = true;
                        *map = std::mem::take(map)
                            .into_iter()
                            .map(|(k, v)| (self.known(&k).into_owned(), v))
                            .collect();
                    }
                    stack.extend(map.values_mut());
                }
                _ => {}
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_secret_is_replaced_where_the_detector_cannot_see_it() {
        let d = Detector::default();
        let key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
        let found = d.find_in_entry(&serde_json::json!({ "text": key }));
        assert_eq!(found.len(), 1);
        let scrub = Scrub::new(&d, &found);
        let token = token("stripe-secret-key", &found[0].fingerprint);
        // After `_`, as pi names a file by its session id: no word boundary before `sk`.
        let name = format!("2025-01-01T00-00-00-000Z_{key}.jsonl");
        assert!(d.find(&name).is_empty());
        assert_eq!(
            scrub.text(&name),
            format!("2025-01-01T00-00-00-000Z_{token}.jsonl")
        );
        assert_eq!(scrub.text(key), token);
        assert!(matches!(scrub.text("e1a2b3c4"), Cow::Borrowed(_)));
        assert_eq!(format!("{:?}", found[0].secret), "Secret(…)");
    }

    #[test]
    fn a_token_ended_by_a_dash_is_found_in_pis_folder_name() {
        // `/w/<token>/app` is filed under `--w-<token>-app--`: the `-` after it ends it.
        let d = Detector::default();
        for key in [
            "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
            "glpat-AbCdEf0123456789xYzW",
            "xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
        ] {
            let folder = format!("/s/--w-{key}-app--/2025-01-01T00-00-00-000Z_x.jsonl");
            let found = d.find(&folder);
            assert_eq!(found.len(), 1, "{}", &key[..4]);
            assert_eq!(&folder[found[0].start..found[0].end], key);
        }
    }
}
