//! The secret detector: text in, findings out. Pure (no I/O but reading a config file), so
//! `grep --secrets`, `check --no-secrets` and `export --redact` share one judgement.
//!
//! One pass serves every rule: an Aho-Corasick automaton over all rules' keywords
//! (case-insensitive) says which rules can match a text, and only those run their regex.
//! A candidate then passes its rule's entropy floor, its format's own check (GitHub's and
//! npm's CRC32, a JWT's header), the hash/placeholder filters, the stopwords and the
//! allowlists. Where two rules' matches overlap the earlier rule wins (specific formats come
//! before the generic assignment).
//!
//! A secret is never printed from a finding: a finding shows where it is, its kind and its
//! fingerprint (the first 8 hex digits of xxh3-64 of the value, stable across runs and
//! versions), so the same secret is recognisable wherever it appears. It keeps the value
//! ([`Secret`], which neither `Debug` nor serde shows) only so that [`Scrub`] can take it out
//! of the ids, types and paths a report prints.

mod catalog;
mod config;
mod file;
mod line;
mod named;
mod rules;
mod scrub;
mod stream;
mod validate;
mod vendors;
mod walk;

use std::borrow::Cow;
use std::path::Path;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use regex::bytes::{Regex, RegexBuilder};

pub use file::{search_stream, search_stream_and, Hit, Place};
pub use line::RAW_LINE;
pub use scrub::{token, Scrub, Secret};
pub use walk::Located;

use rules::{Check, Filters};

/// A secret found in a text: its kind, its byte range, and its fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: String,
    pub start: usize,
    pub end: usize,
    /// 8 lowercase hex digits.
    pub fingerprint: String,
}

/// What an allowlist regex is matched against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Secret,
    Match,
    Line,
}

#[derive(Debug, Default)]
struct Allow {
    regexes: Vec<(Regex, Target)>,
    /// Lowercase; a secret containing one is not reported.
    stopwords: Vec<String>,
}

impl Allow {
    /// Whether a regex of this list is matched against the line around a secret.
    fn wants_line(&self) -> bool {
        self.regexes.iter().any(|(_, t)| *t == Target::Line)
    }

    fn allows(&self, secret: &str, matched: &str, line: &str) -> bool {
        self.regexes.iter().any(|(re, target)| {
            let on = match target {
                Target::Secret => secret,
                Target::Match => matched,
                Target::Line => line,
            };
            re.is_match(on.as_bytes())
        })
    }
}

#[derive(Debug)]
struct Rule {
    kind: String,
    regex: rules::LazyRegex,
    group: Option<usize>,
    entropy: f64,
    check: Check,
    filters: Filters,
    keywords: Vec<String>,
    allow: Allow,
}

/// The rules, their keyword automaton, and the allowlists.
pub struct Detector {
    rules: Vec<Rule>,
    /// Every rule's keywords; pattern `i` names the rules `keyword_rules[i]`.
    keywords: Option<AhoCorasick>,
    keyword_rules: Vec<Vec<usize>>,
    /// Rules without keywords: run on every text.
    unkeyed: Vec<usize>,
    /// The keywords and `\u` over a stored JSON line; `None` when a keyword could be written
    /// escaped (it holds `"`, `\`, `/` or a control character) and every line must be decoded.
    raw: Option<AhoCorasick>,
    allow: Allow,
}

impl std::fmt::Debug for Detector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Detector")
            .field("rules", &self.rules.len())
            .finish_non_exhaustive()
    }
}

impl Default for Detector {
    /// The built-in rules (docs/secrets.md).
    fn default() -> Detector {
        let rules = catalog::all()
            .map(|d| Rule {
                kind: d.kind.to_owned(),
                regex: rules::LazyRegex::new(d.regex),
                group: d.group,
                entropy: d.entropy,
                check: d.check,
                filters: d.filters,
                keywords: d.keywords.iter().map(|k| (*k).to_owned()).collect(),
                allow: Allow {
                    regexes: d
                        .allow
                        .iter()
                        .map(|r| (r, Target::Secret))
                        .chain(d.allow_match.iter().map(|r| (r, Target::Match)))
                        .map(|(r, target)| {
                            (compile(r).expect("built-in allowlists compile"), target)
                        })
                        .collect(),
                    stopwords: Vec::new(),
                },
            })
            .collect();
        Detector::new(rules, Allow::default())
    }
}

/// A rule's regex: bytes, ASCII classes and `\b` (see [`rules`]).
fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .unicode(false)
        .size_limit(64 << 20)
        .build()
}

impl Detector {
    /// The detector `--secrets-config` asks for: the built-in rules with the additions of a
    /// TOML file (gitleaks's format where it fits: docs/secrets.md), or the built-in ones; a
    /// bad file is a usage error (exit 2) naming it and its line.
    pub fn load(config: Option<&Path>) -> anyhow::Result<Detector> {
        match config {
            Some(path) => config::load(path)
                .map_err(|e| pisess_store::util::usage::UsageError(format!("{e:#}")).into()),
            None => Ok(Detector::default()),
        }
    }

    fn new(rules: Vec<Rule>, allow: Allow) -> Detector {
        let mut patterns: Vec<String> = Vec::new();
        let mut keyword_rules: Vec<Vec<usize>> = Vec::new();
        let mut unkeyed = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            if rule.keywords.is_empty() {
                unkeyed.push(i);
            }
            for k in &rule.keywords {
                let k = k.to_ascii_lowercase();
                match patterns.iter().position(|p| *p == k) {
                    Some(at) => keyword_rules[at].push(i),
                    None => {
                        patterns.push(k);
                        keyword_rules.push(vec![i]);
                    }
                }
            }
        }
        // A DFA: with the ~550 keywords of the vendor families no SIMD prefilter applies,
        // and the DFA reads a text 3-4 times as fast as the NFAs (built in ~2 ms).
        let automaton = |patterns: &[String]| {
            AhoCorasickBuilder::new()
                .kind(Some(AhoCorasickKind::DFA))
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .build(patterns)
                .ok()
        };
        let escapable = patterns.iter().any(|p| {
            p.bytes()
                .any(|b| matches!(b, b'"' | b'\\' | b'/') || b < 0x20)
        });
        let raw = if escapable || !unkeyed.is_empty() {
            None
        } else {
            let mut with_escape = patterns.clone();
            with_escape.push("\\u".to_owned());
            automaton(&with_escape)
        };
        Detector {
            keywords: (!patterns.is_empty())
                .then(|| automaton(&patterns))
                .flatten(),
            rules,
            keyword_rules,
            unkeyed,
            raw,
            allow,
        }
    }

    /// The kinds this detector reports, in priority order.
    pub fn kinds(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(|r| r.kind.as_str())
    }

    /// Whether a stored JSON line can hold a finding once decoded: a keyword occurs in it,
    /// or a `\u` escape that could hide one. A line for which this is false need not be
    /// decoded.
    pub fn may_hold(&self, raw: &[u8]) -> bool {
        match &self.raw {
            Some(ac) => ac.is_match(raw),
            None => true,
        }
    }

    /// Whether a text holds any keyword (a JSON key does when it names a secret).
    fn keyword_in(&self, text: &str) -> bool {
        !self.unkeyed.is_empty() || self.keywords.as_ref().is_some_and(|k| k.is_match(text))
    }

    /// Every secret in `text`, in order, none overlapping.
    pub fn find(&self, text: &str) -> Vec<Finding> {
        let bytes = text.as_bytes();
        let mut active = vec![false; self.rules.len()];
        for &i in &self.unkeyed {
            active[i] = true;
        }
        if let Some(ac) = &self.keywords {
            work::spent(bytes.len());
            for m in ac.find_overlapping_iter(bytes) {
                for &i in &self.keyword_rules[m.pattern().as_usize()] {
                    active[i] = true;
                }
            }
        }
        let mut candidates: Vec<(usize, usize, usize)> = Vec::new();
        let mut lines = LineIndex::default();
        for (i, rule) in self.rules.iter().enumerate() {
            if active[i] {
                self.candidates(i, rule, text, &mut lines, &mut candidates);
            }
        }
        // Earlier rules first; a candidate overlapping one already taken is dropped. Taken
        // spans never overlap, so the only one that can is the last to start before its end.
        let mut taken: std::collections::BTreeMap<usize, (usize, usize)> = Default::default();
        for (rule, start, end) in candidates {
            let clash = taken
                .range(..end)
                .next_back()
                .is_some_and(|(_, &(e, _))| e > start);
            if !clash {
                taken.insert(start, (end, rule));
            }
        }
        taken
            .into_iter()
            .map(|(start, (end, rule))| Finding {
                kind: self.rules[rule].kind.clone(),
                start,
                end,
                fingerprint: fingerprint(&text[start..end]),
            })
            .collect()
    }

    /// Rule `i`'s accepted matches in `text` as `(i, start, end)`.
    fn candidates(
        &self,
        i: usize,
        rule: &Rule,
        text: &str,
        lines: &mut LineIndex,
        out: &mut Vec<(usize, usize, usize)>,
    ) {
        let bytes = text.as_bytes();
        let mut at = 0;
        while at <= bytes.len() {
            let Some(caps) = rule.regex.captures_at(bytes, at) else {
                work::spent(bytes.len() - at);
                break;
            };
            let whole = caps.get(0).expect("group 0 always takes part");
            // What the search read: from where it began to the end of the match.
            work::spent(whole.end().max(at) - at + 1);
            let span = match rule.group {
                Some(g) => caps.get(g),
                None => (1..caps.len()).find_map(|g| caps.get(g)).or(Some(whole)),
            };
            // The search goes on after the secret, not after the match: a match's last
            // character (the one that ends a token) may begin the next.
            let next = span.map_or(whole.end(), |s| s.end()).max(whole.start() + 1);
            at = next;
            let Some(span) = span.filter(|s| s.start() < s.end()) else {
                continue;
            };
            let (start, end) = (floor(text, span.start()), ceil(text, span.end()));
            let secret = &text[start..end];
            if validate::entropy(secret) < rule.entropy
                || !validate::check(rule.check, secret)
                || validate::filtered(rule.filters, secret, &rule.allow.stopwords)
                || (!self.allow.stopwords.is_empty()
                    && validate::filtered(Filters::default(), secret, &self.allow.stopwords))
            {
                continue;
            }
            let matched = &text[floor(text, whole.start())..ceil(text, whole.end())];
            // The line around a candidate is found only for a list that asks for it, and from
            // the index of the text's newlines: a search from the candidate for them would walk
            // the whole of a long line once per candidate.
            let line = if rule.allow.wants_line() || self.allow.wants_line() {
                lines.around(text, start, end)
            } else {
                ""
            };
            if rule.allow.allows(secret, matched, line) || self.allow.allows(secret, matched, line)
            {
                continue;
            }
            out.push((i, start, end));
        }
    }

    /// `text` with every finding replaced by `[REDACTED kind fingerprint]`: what
    /// [`Detector::find`] finds, and what [`Detector::find_in_entry`] would find in it (a
    /// secret inside JSON the text holds, escaped there, is redacted in the decoded JSON,
    /// which is written back in the text's place).
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.redact_text(text, None, 0)
    }

    /// [`Detector::redact`] of the value of the member `key` when it is one.
    fn redact_text<'a>(&self, text: &'a str, key: Option<&str>, depth: u8) -> Cow<'a, str> {
        if let Some(r) = walk::redact_json(self, text, depth) {
            return r;
        }
        let found = self.find_keyed(key, text);
        let mut out: Cow<'a, str> = if found.is_empty() {
            Cow::Borrowed(text)
        } else {
            let mut out = String::with_capacity(text.len());
            let mut at = 0;
            for f in found {
                out.push_str(&text[at..f.start]);
                out.push_str(&token(&f.kind, &f.fingerprint));
                at = f.end;
            }
            out.push_str(&text[at..]);
            Cow::Owned(out)
        };
        if let Some(lines) = walk::redact_json_lines(self, &out, depth) {
            out = Cow::Owned(lines);
        }
        out
    }

    /// A decoded entry (or any JSON value of one: a tool call's arguments) with every string
    /// redacted as [`Detector::redact`] does, each with its key, and every key that is a
    /// secret: its strings are at the depth [`Detector::find_in_entry`] reads them at, so
    /// what `grep --secrets` finds in an entry, however deep in JSON inside its strings, is
    /// what this removes. Whether anything changed.
    pub fn redact_entry(&self, value: &mut serde_json::Value) -> bool {
        walk::redact_value(self, value, 0)
    }
}

/// The built-in rules' regexes, for a benchmark's `rg -f` (the same patterns, one a line).
#[doc(hidden)]
pub fn builtin_patterns() -> impl Iterator<Item = &'static str> {
    catalog::all().map(|d| d.regex)
}

/// The first 8 hex digits of xxh3-64 of a secret: enough to tell secrets apart in one
/// report, far too little to recover one.
pub fn fingerprint(secret: &str) -> String {
    let h = xxhash_rust::xxh3::xxh3_64(secret.as_bytes());
    format!("{:08x}", h >> 32)
}

/// What of a secret may be shown: at most its first 4 characters, fewer for a short one (a
/// quarter of it), never its length.
pub fn preview(secret: &str) -> String {
    let n = (secret.chars().count() / 4).min(4);
    secret.chars().take(n).collect()
}

/// `at` moved back to a character boundary.
fn floor(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `at` moved on to a character boundary.
fn ceil(text: &str, mut at: usize) -> usize {
    while at < text.len() && !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The newlines of a text, found once (on first use) for every question asked of it: a
/// search per finding from the start of a text, or back and forth from the finding, would walk
/// a long line once per finding (quadratic in the findings of one line).
#[derive(Default)]
pub(crate) struct LineIndex {
    newlines: Option<Vec<usize>>,
}

impl LineIndex {
    fn newlines(&mut self, text: &str) -> &[usize] {
        self.newlines.get_or_insert_with(|| {
            work::spent(text.len());
            memchr::memchr_iter(b'\n', text.as_bytes()).collect()
        })
    }

    /// The 1-based line of `text` at byte `at`.
    pub(crate) fn line_of(&mut self, text: &str, at: usize) -> usize {
        let nl = self.newlines(text);
        work::spent(usize::BITS as usize);
        nl.partition_point(|&n| n < at) + 1
    }

    /// The line(s) of `text` holding `start..end`.
    fn around<'t>(&mut self, text: &'t str, start: usize, end: usize) -> &'t str {
        let nl = self.newlines(text);
        work::spent(2 * usize::BITS as usize);
        let before = nl.partition_point(|&n| n < start);
        let from = before.checked_sub(1).map_or(0, |i| nl[i] + 1);
        let after = nl.partition_point(|&n| n < end);
        let to = nl.get(after).copied().unwrap_or(text.len());
        &text[from..to]
    }
}

/// A count of the work the scan does per text (bytes walked, comparisons made), for tests
/// that bound how it grows with the number of secrets on a line; nothing outside tests.
pub(crate) mod work {
    #[cfg(test)]
    thread_local! {
        static SPENT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    #[inline]
    pub(crate) fn spent(_units: usize) {
        #[cfg(test)]
        SPENT.with(|s| s.set(s.get() + _units as u64));
    }

    /// The work counted on this thread since it started.
    #[cfg(test)]
    pub(crate) fn so_far() -> u64 {
        SPENT.with(std::cell::Cell::get)
    }
}

#[cfg(test)]
mod engine_tests;
#[cfg(test)]
mod tests;
