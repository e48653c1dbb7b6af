//! Secrets in a stored line, whatever its shape: a gate must find what the file's bytes leak,
//! not only what pi (or serde) makes of them. A line that pi skips (a byte-order mark, bytes
//! after the JSON, not JSON at all), the header, a second header, the earlier value of a key
//! written twice (`JSON.parse` and serde keep the last): all of them are on disk.
//!
//! Three passes, each reporting only secrets (kind and fingerprint) the ones before did not:
//! 1. the line decoded as JSON (its first value, after a byte-order mark) and walked as an
//!    entry ([`Detector::find_in_entry`]): findings named by their field;
//! 2. when that decode left something out (a key twice, bytes after it, no JSON at all),
//!    every string literal of the line, decoded leniently, named by the path a lenient
//!    reading of the brackets gives;
//! 3. then the line's raw text: what sits outside any string (`(raw line)`).

use std::collections::HashSet;

use serde_json::Value;

use super::walk::{path_of, push_located, skipped_key, Reported, Seg};
use super::{Detector, Located};

/// The field of a finding that no JSON string holds.
pub const RAW_LINE: &str = "(raw line)";

impl Detector {
    /// Every secret in one stored line of a session file (without its terminator).
    /// `mapped`: the entry as pisess reads it, when that is not the stored JSON (the seed-000
    /// mapping); its paths then name what pass 1 finds.
    pub fn find_in_line(&self, raw: &[u8], mapped: Option<&[u8]>) -> Vec<Located> {
        if !self.may_hold(raw) && !mapped.is_some_and(|m| self.may_hold(m)) {
            return Vec::new();
        }
        let body = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw);
        let (stored, whole) = first_value(body);
        let model = mapped.and_then(|m| pisess_format::json::decode(m).ok());
        let mut out = once_each(match model.as_ref().or(stored.as_ref()) {
            Some(v) if v.is_object() || v.is_array() => self.find_in_entry(v),
            _ => Vec::new(),
        });
        let mut more = Vec::new();
        // A mapped line (seed-000) holds more than its mapping keeps (extra fields,
        // `output.stdout`): the stored JSON is walked too, every string of it, named by its
        // stored path, for what the mapping left out.
        if let Some(v) = stored
            .as_ref()
            .filter(|v| model.is_some() && (v.is_object() || v.is_array()))
        {
            more = self.find_in_entry(v);
        }
        let lexed = lex(body);
        let complete = whole && stored.as_ref().is_some_and(|v| members(v) == lexed.keys);
        if !complete {
            self.find_in_lexed(body, &lexed, &mut more);
        }
        // What the later passes find is reported only when no pass before found it at all.
        Reported::of(&out).push_new(&mut out, more);
        out
    }

    /// Passes 2 and 3 of [`Detector::find_in_line`]: every string literal of a line the
    /// decode did not take whole, then its raw text.
    fn find_in_lexed(&self, body: &[u8], lexed: &Lexed, more: &mut Vec<Located>) {
        for t in &lexed.tokens {
            let text = unescape(&body[t.start..t.end], Invalid::Split);
            if t.key {
                let found = self.find(&text);
                if !found.is_empty() {
                    let path = format!("{}@key", lexed.path(t.node));
                    push_located(more, &self.redact(&path), &text, &found);
                }
                continue;
            }
            let key = lexed.key_of(t.node);
            if key.is_some_and(|k| skipped_key(k) || (k == "data" && lexed.images[t.frame])) {
                continue;
            }
            self.text(&text, key, &|| lexed.path(t.node), 0, more);
        }
        let text = String::from_utf8_lossy(body);
        push_located(more, RAW_LINE, &text, &self.find(&text));
    }
}

/// Each distinct secret (kind and fingerprint) of one line of a field's text once, where it
/// was found first: a key pasted twice on a line is one finding (docs/secrets.md). The same
/// key in two fields, or on two lines of one text, is two: each is a place to clean.
fn once_each(found: Vec<Located>) -> Vec<Located> {
    let first: Vec<bool> = {
        let mut seen: HashSet<(&str, usize, &str, &str)> = HashSet::with_capacity(found.len());
        found
            .iter()
            .map(|f| {
                super::work::spent(1);
                seen.insert((&f.field, f.line, &f.kind, &f.fingerprint))
            })
            .collect()
    };
    found
        .into_iter()
        .zip(first)
        .filter_map(|(f, first)| first.then_some(f))
        .collect()
}

/// The line's first JSON value, and whether nothing but whitespace follows it.
fn first_value(body: &[u8]) -> (Option<Value>, bool) {
    let mut values = serde_json::Deserializer::from_slice(body).into_iter::<Value>();
    match values.next() {
        Some(Ok(v)) => {
            let rest = &body[values.byte_offset()..];
            let whole = rest.iter().all(u8::is_ascii_whitespace);
            (Some(v), whole)
        }
        _ => (None, false),
    }
}

/// The members of every object in `v`: fewer than the line's keys when one was written twice.
fn members(v: &Value) -> usize {
    let mut n = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                n += map.len();
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    n
}

/// A string literal of a line: its bytes between the quotes.
struct Token {
    start: usize,
    end: usize,
    /// The path node of the value, or of the member whose key this is.
    node: usize,
    key: bool,
    /// The container it is in (its object, for `images`).
    frame: usize,
}

/// A line read leniently: its string literals and the paths the brackets around them give.
struct Lexed {
    tokens: Vec<Token>,
    /// Path nodes: (parent, segment); node 0 is the root.
    arena: Vec<(usize, Seg<'static>)>,
    /// Per container: an object whose `type` is `image` (its `data` is pixels, passed over).
    images: Vec<bool>,
    /// Object keys seen, duplicates included.
    keys: usize,
}

impl Lexed {
    fn path(&self, node: usize) -> String {
        path_of(&self.arena, node, "")
    }

    fn key_of(&self, node: usize) -> Option<&str> {
        match &self.arena[node].1 {
            Seg::Key(k) => Some(k),
            _ => None,
        }
    }
}

struct Frame {
    id: usize,
    /// The container's own path node.
    node: usize,
    object: bool,
    expect_key: bool,
    index: usize,
    /// An object's member in hand (the node its value takes).
    member: Option<usize>,
}

/// Reads the brackets, commas and string literals of a line, never failing: unbalanced or
/// broken JSON still yields every string and the best path it can.
fn lex(b: &[u8]) -> Lexed {
    let mut lexed = Lexed {
        tokens: Vec::new(),
        arena: vec![(0, Seg::Root)],
        images: Vec::new(),
        keys: 0,
    };
    let mut frames: Vec<Frame> = Vec::new();
    // The node a value at this point takes.
    let value_node =
        |frames: &mut Vec<Frame>, arena: &mut Vec<(usize, Seg<'static>)>| match frames.last_mut() {
            None => 0,
            Some(f) if f.object => f.member.unwrap_or(f.node),
            Some(f) => {
                arena.push((f.node, Seg::Index(f.index)));
                arena.len() - 1
            }
        };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i + 1;
                let end = pisess_format::json::string_end(b, i);
                let frame = frames.last().map_or(usize::MAX, |f| f.id);
                if let Some(f) = frames.last_mut().filter(|f| f.object && f.expect_key) {
                    let k = unescape(&b[start..end], Invalid::Keep);
                    lexed.arena.push((f.node, Seg::Key(k.into())));
                    let node = lexed.arena.len() - 1;
                    (f.member, f.expect_key) = (Some(node), false);
                    lexed.keys += 1;
                    lexed.tokens.push(Token {
                        start,
                        end,
                        node,
                        key: true,
                        frame,
                    });
                } else {
                    let node = value_node(&mut frames, &mut lexed.arena);
                    if lexed.key_of(node) == Some("type") && &b[start..end] == b"image" {
                        lexed.images[frame] = true;
                    }
                    lexed.tokens.push(Token {
                        start,
                        end,
                        node,
                        key: false,
                        frame,
                    });
                }
                i = end + 1;
                continue;
            }
            open @ (b'{' | b'[') => {
                let node = value_node(&mut frames, &mut lexed.arena);
                frames.push(Frame {
                    id: lexed.images.len(),
                    node,
                    object: open == b'{',
                    expect_key: open == b'{',
                    index: 0,
                    member: None,
                });
                lexed.images.push(false);
            }
            b'}' | b']' => {
                frames.pop();
            }
            b',' => {
                if let Some(f) = frames.last_mut() {
                    if f.object {
                        (f.expect_key, f.member) = (true, None);
                    } else {
                        f.index += 1;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    // A string outside any container names no object.
    lexed.images.push(false);
    let outside = lexed.images.len() - 1;
    for t in &mut lexed.tokens {
        t.frame = t.frame.min(outside);
    }
    lexed
}

/// What [`unescape`] makes of an escape JSON does not have (`\q`, `\u12`, a lone `\`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Invalid {
    /// Kept as written: a key in a finding's path reads as stored.
    Keep,
    /// A space, the backslash and the character after it both: what follows starts a word, as
    /// it does after an escape JSON has (`\n`). Kept, `\qAKIA…` would glue the `q` to the key
    /// and hide it from every rule that wants a word boundary; the raw-text pass still reads
    /// the escape as written (`\AKIA…`).
    Split,
}

/// A string literal's text, its escapes decoded as JSON's are; an escape JSON does not have is
/// as `invalid` says, a lone surrogate becomes U+FFFD, invalid UTF-8 too.
fn unescape(b: &[u8], invalid: Invalid) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let unit = |at: usize| -> Option<u32> {
        let h = b
            .get(at..at + 4)
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
    };
    let mut buf = [0; 4];
    let mut i = 0;
    while let Some(found) = memchr::memchr(b'\\', &b[i..]) {
        let k = i + found;
        out.extend_from_slice(&b[i..k]);
        // JSON's escapes of a character; then a surrogate, which is none: a pair is its
        // character, a lone half U+FFFD; anything else stays as written.
        let (len, c) = match pisess_format::escaped::escape(b, k) {
            Some(escaped) => escaped,
            None => match (b.get(k + 1) == Some(&b'u')).then(|| unit(k + 2)).flatten() {
                Some(u) => {
                    let high = (0xD800..0xDC00).contains(&u);
                    let low = if high && b.get(k + 6..k + 8) == Some(b"\\u") {
                        unit(k + 8).filter(|l| (0xDC00..0xE000).contains(l))
                    } else {
                        None
                    };
                    match low {
                        Some(low) => {
                            let c = char::from_u32(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00));
                            (12, c.unwrap_or(char::REPLACEMENT_CHARACTER))
                        }
                        None => (6, char::REPLACEMENT_CHARACTER),
                    }
                }
                None if invalid == Invalid::Keep => {
                    out.push(b'\\');
                    i = k + 1;
                    continue;
                }
                None => {
                    out.push(b' ');
                    // The escaped character whole (a UTF-8 sequence too), if any.
                    let len = match b.get(k + 1) {
                        None => 0,
                        Some(&c) if c < 0xC0 => 1,
                        Some(&c) if c < 0xE0 => 2,
                        Some(&c) if c < 0xF0 => 3,
                        Some(_) => 4,
                    };
                    i = (k + 1 + len).min(b.len());
                    continue;
                }
            },
        };
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        i = k + len;
    }
    out.extend_from_slice(&b[i..]);
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_decode_as_json_and_broken_ones_stay() {
        for invalid in [Invalid::Keep, Invalid::Split] {
            assert_eq!(unescape(br#"a\u0041\n\/\"\\"#, invalid), "aA\n/\"\\");
            assert_eq!(unescape(br"\ud83d\ude00", invalid), "\u{1F600}");
            assert_eq!(unescape(br"\ud83dx", invalid), "\u{FFFD}x");
        }
        assert_eq!(unescape(br"\q\u12", Invalid::Keep), r"\q\u12");
    }

    /// An escape JSON does not have splits the text there (the letter escaped goes with it),
    /// whatever the escaped character is, and a string ending in a backslash is read to its end.
    #[test]
    fn an_invalid_escape_decodes_to_a_space_for_the_search() {
        assert_eq!(unescape(br"key:\qAKIA", Invalid::Split), "key: AKIA");
        assert_eq!(unescape(br"\q\u12", Invalid::Split), "  12");
        assert_eq!(unescape("a\\éb".as_bytes(), Invalid::Split), "a b");
        assert_eq!(unescape(br"a\\\qb\", Invalid::Split), "a\\ b ");
    }

    /// The red team's line: `\q` (no JSON escape) just before a key made the line malformed and
    /// glued `q` to the key, so no pass found it; `\n` there was found (passes 2 and 3).
    #[test]
    fn a_key_after_an_invalid_escape_on_a_malformed_line_is_found() {
        let d = Detector::default();
        for esc in ["q", "n", "x", "u", "\u{e9}"] {
            let line = format!(
                r#"{{"type":"message","id":"x","message":{{"role":"user","content":"key:\{esc}AKIAZ7QWERTYUIOPASDF"}}}}"#
            );
            let found = d.find_in_line(line.as_bytes(), None);
            let keys: Vec<&str> = found.iter().map(|f| f.preview.as_str()).collect();
            assert_eq!(found.len(), 1, "{line}: {keys:?}");
            assert_eq!(found[0].field, "message.content", "{line}");
        }
        // The escape read as written by the raw pass: `\A` starts the key.
        let line = r#"{"message":{"content":"key:\AKIAZ7QWERTYUIOPASDF"}}"#;
        let found = d.find_in_line(line.as_bytes(), None);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].field, RAW_LINE);
    }

    #[test]
    fn the_lexer_names_paths_and_counts_every_key() {
        let l = lex(br#"{"a":{"b":["x",{"c":"y"}]},"a":"z"} trailing "t""#);
        assert_eq!(l.keys, 4);
        let paths: Vec<String> = l
            .tokens
            .iter()
            .filter(|t| !t.key)
            .map(|t| l.path(t.node))
            .collect();
        assert_eq!(paths, ["a.b[0]", "a.b[1].c", "a", ""]);
    }
}
