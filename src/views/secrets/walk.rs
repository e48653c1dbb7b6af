//! Secrets in a decoded entry: every string of it, wherever it sits (content blocks,
//! tool-call arguments, tool results, thinking, summaries, custom data, `bashExecution`),
//! found by its JSON path; a string that itself holds JSON (a tool result printing a config)
//! is decoded and walked in turn, so escapes inside it (`\/`, `\u…`, `\n`) hide nothing.
//!
//! A string under a key that names a secret (`"password": "…"`) is read with its key, so
//! the assignment rules see `"password": "…"` as they would in a file.
//!
//! Passed over: image `data` (base64 pixels, not text) and opaque signatures
//! (`…Signature`, `encrypted_content`), which are random by design.

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::Value;

use super::{preview, Detector, Finding, LineIndex};

/// How deep JSON inside strings is followed (each level is a string decoded again): the
/// strings of an entry are at depth 0, those of JSON decoded from one of them at depth 1...
/// Detection and redaction both ask [`decoded`], so they follow it equally deep.
pub(super) const JSON_DEPTH: u8 = 8;

/// A string at `depth` that is JSON as a whole, decoded, when JSON at that depth is followed:
/// the one rule of detection ([`Detector::text`]) and redaction ([`redact_json`]).
fn decoded(s: &str, depth: u8) -> Option<Value> {
    if depth < JSON_DEPTH {
        as_json(s)
    } else {
        None
    }
}

/// Whether the lines of a text at `depth` are decoded, each that is JSON (NDJSON output).
fn lines_decoded(s: &str, depth: u8) -> bool {
    depth < JSON_DEPTH && s.contains('\\')
}

/// A secret found in an entry, without the secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// The JSON path of the string (`message.content[2].arguments.command`); `@json` marks
    /// JSON decoded from a string, `@json(line N)` from its line N.
    pub field: String,
    /// The 1-based line within the string's decoded text.
    pub line: usize,
    pub kind: String,
    pub fingerprint: String,
    /// At most the first 4 characters ([`preview`]).
    pub preview: String,
    /// The value, only to take it out of what is printed ([`super::Scrub`]); never shown.
    pub secret: super::Secret,
}

/// A step of a JSON path: a key is borrowed from a decoded value, or owned (a lenient read's,
/// unescaped).
pub(super) enum Seg<'a> {
    Root,
    Key(Cow<'a, str>),
    Index(usize),
}

impl Detector {
    /// Every secret in a decoded entry, in walk order.
    pub fn find_in_entry(&self, entry: &Value) -> Vec<Located> {
        let mut out = Vec::new();
        self.walk(entry, "", 0, &mut out);
        out
    }

    fn walk(&self, value: &Value, base: &str, depth: u8, out: &mut Vec<Located>) {
        // Paths as an arena of segments (parent, segment): a string is built only for a
        // finding. The stack keeps hostile nesting off the call stack.
        let mut arena: Vec<(usize, Seg)> = vec![(0, Seg::Root)];
        let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
        while let Some((v, node)) = stack.pop() {
            match v {
                Value::Object(map) => {
                    let image = map.get("type").and_then(Value::as_str) == Some("image");
                    // Pushed in reverse so that members are walked in order.
                    for (k, child) in map.iter().rev() {
                        if (image && k == "data") || skipped_key(k) {
                            continue;
                        }
                        arena.push((node, Seg::Key(k.into())));
                        let at = arena.len() - 1;
                        // A key is text in the file too (a pasted token used as a name).
                        let in_key = self.find(k);
                        if !in_key.is_empty() {
                            let path = format!("{}@key", path_of(&arena, at, base));
                            push_located(out, &self.redact(&path), k, &in_key);
                        }
                        match child {
                            Value::String(s) => {
                                self.text(s, Some(k), &|| path_of(&arena, at, base), depth, out);
                            }
                            Value::Object(_) | Value::Array(_) => stack.push((child, at)),
                            _ => {}
                        }
                    }
                }
                Value::Array(items) => {
                    for (i, child) in items.iter().enumerate().rev() {
                        match child {
                            Value::String(_) | Value::Object(_) | Value::Array(_) => {
                                arena.push((node, Seg::Index(i)));
                                stack.push((child, arena.len() - 1));
                            }
                            _ => {}
                        }
                    }
                }
                Value::String(s) => {
                    self.text(s, None, &|| path_of(&arena, node, base), depth, out);
                }
                _ => {}
            }
        }
    }

    /// One string at `path` (made only when needed: most strings hold nothing), under `key`
    /// when it is an object's member.
    pub(super) fn text(
        &self,
        s: &str,
        key: Option<&str>,
        path: &dyn Fn() -> String,
        depth: u8,
        out: &mut Vec<Located>,
    ) {
        if s.is_empty() {
            return;
        }
        if let Some(inner) = decoded(s, depth) {
            self.walk(&inner, &format!("{}@json", path()), depth + 1, out);
            return;
        }
        let found = self.find_keyed(key, s);
        let first = out.len();
        if !found.is_empty() {
            // A key is printed as part of the path: one that is itself a secret is not.
            let path = path();
            push_located(out, &self.redact(&path), s, &found);
        }
        // Lines of JSON in a text (NDJSON output, a log): decoded too, for what their escapes
        // hide; a secret already found in the text is not reported twice.
        if lines_decoded(s, depth) {
            let mut reported = Reported::of(&out[first..]);
            for (n, line) in s.lines().enumerate() {
                if let Some(inner) = decoded(line, depth) {
                    let mut more = Vec::new();
                    let path = format!("{}@json(line {})", path(), n + 1);
                    self.walk(&inner, &path, depth + 1, &mut more);
                    reported.push_new(out, more);
                }
            }
        }
    }

    /// The findings in `value`, read as the member `"key": "value"` when it is one under a
    /// key that holds a keyword, at offsets in `value`.
    pub(super) fn find_keyed(&self, key: Option<&str>, value: &str) -> Vec<Finding> {
        let Some(key) = key.filter(|k| self.keyword_in(k)) else {
            return self.find(value);
        };
        let prefix = format!("\"{key}\": \"");
        let text = format!("{prefix}{value}\"");
        let lead = prefix.len();
        self.find(&text)
            .into_iter()
            .filter(|f| f.start >= lead && f.start < lead + value.len())
            .map(|mut f| {
                f.start -= lead;
                f.end = (f.end - lead).min(value.len());
                f
            })
            .collect()
    }
}

/// The findings of `text`, a string at `path`, added to `out`.
pub(super) fn push_located(out: &mut Vec<Located>, path: &str, text: &str, found: &[Finding]) {
    let mut lines = LineIndex::default();
    out.extend(found.iter().map(|f| Located {
        field: path.to_owned(),
        line: lines.line_of(text, f.start),
        kind: f.kind.clone(),
        fingerprint: f.fingerprint.clone(),
        preview: preview(&text[f.start..f.end]),
        secret: super::Secret::new(&text[f.start..f.end]),
    }));
}

/// The secrets (kind and fingerprint) reported so far, for a later pass that adds only the
/// ones no pass before found.
pub(super) struct Reported(HashSet<(String, String)>);

impl Reported {
    pub(super) fn of(found: &[Located]) -> Reported {
        Reported(
            found
                .iter()
                .map(|o| (o.kind.clone(), o.fingerprint.clone()))
                .collect(),
        )
    }

    /// `more` added to `out`, but for the secrets reported already.
    pub(super) fn push_new(&mut self, out: &mut Vec<Located>, more: Vec<Located>) {
        for m in more {
            super::work::spent(1);
            if self.0.insert((m.kind.clone(), m.fingerprint.clone())) {
                out.push(m);
            }
        }
    }
}

/// Keys whose values are random by design and never text.
pub(super) fn skipped_key(k: &str) -> bool {
    k.ends_with("Signature") || k == "encrypted_content"
}

/// A string that is a JSON object or array as a whole.
fn as_json(s: &str) -> Option<Value> {
    let t = s.trim();
    let framed =
        (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'));
    if !framed || t.len() < 2 {
        return None;
    }
    serde_json::from_str::<Value>(t)
        .ok()
        .filter(|v| v.is_object() || v.is_array())
}

/// The path of `node` of an arena of (parent, segment), after `base`.
pub(super) fn path_of(arena: &[(usize, Seg)], mut node: usize, base: &str) -> String {
    let mut segs = Vec::new();
    while node != 0 {
        segs.push(&arena[node].1);
        node = arena[node].0;
    }
    let mut path = base.to_owned();
    for seg in segs.into_iter().rev() {
        push_seg(&mut path, seg);
    }
    path
}

/// `seg` added to a JSON path: `.key`, `["odd key"]` or `[i]`.
fn push_seg(path: &mut String, seg: &Seg) {
    match seg {
        Seg::Root => {}
        Seg::Key(k) => {
            let plain = !k.is_empty()
                && k.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
            if !plain {
                path.push_str(&format!("[{}]", Value::from(k.as_ref())));
            } else {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
            }
        }
        Seg::Index(i) => path.push_str(&format!("[{i}]")),
    }
}

/// `text` redacted as JSON when it is JSON as a whole: every string in it redacted (as
/// [`Detector::redact`], with its key), then written back, pretty when it was on several lines.
/// `None` when it is not JSON or too deep; `Some(Borrowed)` when nothing was found.
pub(super) fn redact_json<'a>(d: &Detector, text: &'a str, depth: u8) -> Option<Cow<'a, str>> {
    let mut value = decoded(text, depth)?;
    if !redact_value(d, &mut value, depth + 1) {
        return Some(Cow::Borrowed(text));
    }
    let written = if text.trim().contains('\n') {
        serde_json::to_string_pretty(&value)
    } else {
        serde_json::to_string(&value)
    };
    let written = written.ok()?;
    // Keep the whitespace around the document.
    let t = text.trim();
    let at = text.find(t).unwrap_or(0);
    Some(Cow::Owned(format!(
        "{}{written}{}",
        &text[..at],
        &text[at + t.len()..]
    )))
}

/// `text` with each of its lines that is JSON redacted as JSON; `None` when none changed (or
/// its lines are not followed at this depth).
pub(super) fn redact_json_lines(d: &Detector, text: &str, depth: u8) -> Option<String> {
    if !lines_decoded(text, depth) {
        return None;
    }
    let mut changed = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        match redact_json(d, body, depth) {
            Some(Cow::Owned(r)) => {
                changed = true;
                out.push_str(&r);
            }
            _ => out.push_str(body),
        }
        out.push_str(end);
    }
    changed.then_some(out)
}

/// Redacts every string of `value` in place, its strings being at `depth`; whether any changed.
pub(super) fn redact_value(d: &Detector, value: &mut Value, depth: u8) -> bool {
    let mut changed = false;
    let mut stack: Vec<(&mut Value, Option<String>)> = vec![(value, None)];
    while let Some((v, key)) = stack.pop() {
        match v {
            Value::String(s) => {
                if let Cow::Owned(r) = d.redact_text(s, key.as_deref(), depth) {
                    *s = r;
                    changed = true;
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut().map(|i| (i, None))),
            Value::Object(map) => {
                // A key is written out too: one that is a secret (a token used as a name) is
                // redacted like any text, in its place.
                if map.keys().any(|k| !d.find(k).is_empty()) {
                    *map = std::mem::take(map)
                        .into_iter()
                        .map(|(k, v)| (d.redact(&k).into_owned(), v))
                        .collect();
                    changed = true;
                }
                stack.extend(map.iter_mut().map(|(k, v)| (v, Some(k.clone()))));
            }
            _ => {}
        }
    }
    changed
}
