//! An entry decoded for a cut block: each long text the block shows only the start of is
//! decoded only in part, and the rest is counted from its escaped bytes (`pisess_format::escaped`).
//! Tool results are most of a session's bytes and a block shows at most a screenful of each,
//! so this is most of what `show` would decode.
//!
//! Only strings the block writes through [`Body::text`](super::body::Body) are shortened, as
//! the block reads them: the content of a message (a string, or the `text` of a text block and
//! the `thinking` of a thinking block), a bash execution's `output`, a summary message's or
//! entry's `summary`, a custom message's content. An image's base64 `data` only has its size
//! shown: it is counted and not decoded. Whether a member is shown as text can depend on one
//! that may come after it (a message's `role`, a block's `type`), so such a long string is
//! decoded once its whole object is read. Anything else is decoded whole (every value through
//! the one decoder, from its span), and where the skim is unsure the caller decodes the line.

use serde_json::Value;

use crate::views::style::{self, escape_control};
use crate::views::text::{base64_digits, cuts_within};
use pisess_format::escaped::Rest;
use pisess_format::model::content::Block;
use pisess_format::model::cut::{Cuts, Left, Place};
use pisess_format::model::{
    blocks_with, decoded, decoded_span, object_with, EntryKind, Message, Role,
};
use pisess_format::skim::Skim;

use super::limits::{MAX_CHARS, MAX_LINES, MAX_LINE_CHARS};

/// Strings shorter than this are decoded whole: what shortening saves is not worth the count.
const LONG: usize = 2 * MAX_CHARS;
/// The prefix decoded first, in bytes (12 lines of code or output fit), doubled while it
/// decodes to too little to cut.
const PREFIX: usize = 1024;
/// The start of a tool call's long string argument decoded first, in bytes (200 columns
/// fit), doubled while its line would not be cut within it.
const LINE_PREFIX: usize = 512;
/// What is kept of an image's data (any text: its place stands for the data in [`Cuts`]).
const DATA_KEPT: usize = 16;

/// How a long string is read once its object is known, and where it stands.
#[derive(Clone, Copy)]
enum Use {
    Text(Place),
    Base64(Place),
    Whole,
}

/// Entry `kind`'s line decoded, its long shown texts shortened; `None` where the skim is
/// unsure (then decode the line whole).
pub(super) fn decode(line: &[u8], kind: &EntryKind) -> Option<(Value, Cuts)> {
    let mut cuts = Cuts::default();
    let mut s = Skim::new(line);
    let entry = object_with(
        &mut s,
        |_| true,
        |key, s| {
            let read = match (kind, key) {
                (EntryKind::Message, b"message") => message,
                (EntryKind::CustomMessage | EntryKind::Thinking, b"content") => content,
                (EntryKind::Compaction | EntryKind::BranchSummary, b"summary") => summary,
                _ => return decoded(s),
            };
            // Each kind's shown texts are under one key of the line: given twice, the last
            // one's cuts are the entry's.
            cuts = Cuts::default();
            read(s, &mut cuts)
        },
    )?;
    s.end().ok()?;
    Some((entry, cuts))
}

/// A message object: its content shortened, and its `output` or `summary` when its role shows
/// them as text.
fn message(s: &mut Skim<'_>, cuts: &mut Cuts) -> Option<Value> {
    if !s.at_object() {
        return decoded(s);
    }
    object_reading_later(
        s,
        cuts,
        &[b"output", b"summary"],
        |key, s, cuts| match key {
            b"content" => {
                cuts.forget(|p| matches!(p, Place::Content | Place::Block(_)));
                content(s, cuts)
            }
            _ => decoded(s),
        },
        |message, key| match (Message(message).role(), key) {
            (Role::BashExecution, b"output") => Use::Text(Place::Output),
            (Role::BranchSummary | Role::CompactionSummary, b"summary") => {
                Use::Text(Place::Summary)
            }
            _ => Use::Whole,
        },
    )
}

/// A compaction's or branch summary's `summary`, shortened.
fn summary(s: &mut Skim<'_>, cuts: &mut Cuts) -> Option<Value> {
    string(s.value().ok()?, Use::Text(Place::Summary), cuts)
}

/// Content: a string shortened, or blocks whose text, thinking and image data are.
fn content(s: &mut Skim<'_>, cuts: &mut Cuts) -> Option<Value> {
    if !s.at_array() {
        return string(s.value().ok()?, Use::Text(Place::Content), cuts);
    }
    // Every item of the array is a block of the value, in order.
    let mut at = 0;
    blocks_with(s, |s| {
        let place = Place::Block(at);
        at += 1;
        object_reading_later(
            s,
            cuts,
            &[b"text", b"thinking", b"data"],
            |key, s, _| match key {
                b"arguments" if s.at_object() => arguments(s),
                _ => decoded(s),
            },
            |block, key| match (Block::of(block), key) {
                (Block::Text { .. }, b"text") | (Block::Thinking { .. }, b"thinking") => {
                    Use::Text(place)
                }
                (Block::Image { .. }, b"data") => Use::Base64(place),
                _ => Use::Whole,
            },
        )
    })
}

/// A tool call's arguments, each long string member shortened to a start that its call's
/// line is cut within (the line shows 200 columns of them). Whatever a block writes of them
/// goes through that cut (`Body::line`), and all before the start is the same as in the whole;
/// so the line is the whole's. Nested values are decoded whole.
fn arguments(s: &mut Skim<'_>) -> Option<Value> {
    object_with(
        s,
        |_| true,
        |_, s| {
            let span = s.value().ok()?;
            match quoted_longer(span, 2 * LINE_PREFIX).and_then(line_prefix) {
                Some(kept) => Some(Value::String(kept)),
                None => decoded_span(span),
            }
        },
    )
}

/// A long string's decoded start whose compact JSON a one-line item is cut within, or `None`
/// where it must be decoded whole (no such start, or a stand-in for a lone surrogate, which is
/// shown by what is around it).
fn line_prefix(inner: &[u8]) -> Option<String> {
    // The JSON string as written, up to where the whole one goes on.
    let cut_within = |kept: &str| {
        serde_json::to_string(kept)
            .is_ok_and(|json| json.strip_suffix('"').is_some_and(line_cut_within))
    };
    let (kept, _) = pisess_format::escaped::decoded_start(inner, LINE_PREFIX, cut_within)?;
    (!pisess_format::surrogates::has_standins(&kept)).then_some(kept)
}

/// The object at the cursor, its members read by `read`, but a long string under one of
/// `later`'s keys read once the whole object is, as `then` says for the object it is in.
fn object_reading_later<'a>(
    s: &mut Skim<'a>,
    cuts: &mut Cuts,
    later: &[&[u8]],
    mut read: impl FnMut(&'a [u8], &mut Skim<'a>, &mut Cuts) -> Option<Value>,
    then: impl Fn(&Value, &[u8]) -> Use,
) -> Option<Value> {
    let mut waiting: Vec<(&[u8], &[u8])> = Vec::new();
    let mut object = object_with(
        s,
        |_| true,
        |key, s| {
            if !later.contains(&key) {
                return read(key, s, cuts);
            }
            // A key given twice has its last value.
            waiting.retain(|(k, _)| *k != key);
            let span = s.value().ok()?;
            if long_string(span).is_none() {
                return decoded_span(span);
            }
            waiting.push((key, span));
            // Its place, kept when the value is put in below.
            Some(Value::Null)
        },
    )?;
    for (key, span) in waiting {
        let value = string(span, then(&object, key), cuts)?;
        let key = std::str::from_utf8(key).ok()?.to_owned();
        object.as_object_mut()?.insert(key, value);
    }
    Some(object)
}

/// The insides of a string span that is long, or `None`.
fn long_string(span: &[u8]) -> Option<&[u8]> {
    quoted_longer(span, LONG)
}

/// The insides of a string span longer than `len` bytes, or `None`.
fn quoted_longer(span: &[u8], len: usize) -> Option<&[u8]> {
    (span.len() > len)
        .then(|| span.strip_prefix(b"\"")?.strip_suffix(b"\""))
        .flatten()
}

/// The value of a span read as `how` says: shortened where it is a long plain string.
fn string(span: &[u8], how: Use, cuts: &mut Cuts) -> Option<Value> {
    let shortened = long_string(span).and_then(|inner| match how {
        Use::Text(place) => text_prefix(inner).map(|(kept, rest)| (kept, place, Left::Text(rest))),
        // Plain ASCII without escapes decodes to itself: count the digits in place.
        Use::Base64(place) if inner.is_ascii() && memchr::memchr(b'\\', inner).is_none() => {
            let kept = String::from_utf8(inner[..DATA_KEPT].to_vec()).ok()?;
            Some((kept, place, Left::Base64(base64_digits(inner))))
        }
        Use::Base64(_) | Use::Whole => None,
    });
    match shortened {
        Some((kept, place, left)) => {
            cuts.add(place, left);
            Some(Value::String(kept))
        }
        None => decoded_span(span),
    }
}

/// A long text's decoded prefix, long enough that a block's cut ends inside it, and the
/// counts of the rest; `None` where the text must be decoded whole.
fn text_prefix(inner: &[u8]) -> Option<(String, Rest)> {
    let enough = |kept: &str| cuts_within(kept, MAX_LINES, MAX_CHARS);
    let (kept, at) = pisess_format::escaped::decoded_start(inner, PREFIX, enough)?;
    Some((kept, pisess_format::escaped::rest(&inner[at..])?))
}

/// Whether [`Body::line`](super::body::Body::line) cuts any line that `start` begins (or that
/// the same text before `start` then begins) within `start`, so that nothing after it shows:
/// its characters take
/// more columns than the cut keeps, counted both ways `style::truncate` counts them (a
/// character's width, and the string's, which can be less by a joined sequence; a margin
/// covers what a next character could take off).
pub(super) fn line_cut_within(start: &str) -> bool {
    use unicode_width::UnicodeWidthChar;
    let shown = escape_control(start, false);
    let chars: usize = shown.chars().map(|c| c.width().unwrap_or(0)).sum();
    chars > MAX_LINE_CHARS && style::width(&shown) > MAX_LINE_CHARS + 4
}

#[cfg(test)]
mod tests {
    use super::super::body::Body;
    use super::*;
    use crate::views::style::Theme;
    use pisess_format::escaped::random_inner;

    /// A message's content written from the shortened decode is what the full decode writes,
    /// on long random texts (every escape, invalid bytes, surrogates, trailing whitespace).
    #[test]
    fn shortened_content_writes_what_the_whole_does() {
        let mut next = pisess_format::skim::rng(7);
        let mut shortened = 0;
        for round in 0..300 {
            let mut text = || {
                let mut t = Vec::new();
                while t.len() < LONG + next(3 * LONG) {
                    let piece = random_inner(&mut next);
                    // Mostly plain texts, which are shortened; the others are decoded whole.
                    let plain = std::str::from_utf8(&piece).is_ok()
                        && !pisess_format::json::may_hold_surrogates(&piece);
                    if plain || round % 4 == 0 {
                        t.extend(piece);
                    }
                }
                // A raw newline ends a line: not in a string the skim hands over.
                t.retain(|&c| c != b'\n');
                if next(3) == 0 {
                    t.extend(b" \\n\\u000a ".repeat(next(40)));
                }
                t
            };
            let (a, b, c) = (text(), text(), text());
            let data = b"QUJD".repeat(LONG / 2 + next(LONG));
            let line = [
                &br#"{"type":"message","message":{"content":[{"text":""#[..],
                &a,
                br#"","type":"text"},{"type":"thinking","thinking":""#,
                &b,
                br#""},{"type":"image","data":""#,
                &data,
                br#""}],"role":"user"},"x":""#,
                &c,
                br#""}"#,
            ]
            .concat();
            let Ok(whole) = pisess_format::json::decode(&line) else {
                continue;
            };
            let (value, cuts) = decode(&line, &EntryKind::Message).expect("the skim is sure");
            shortened += cuts.0.len();
            let write = |entry: &Value, cuts: &Cuts| {
                let mut out = Vec::new();
                let mut body = Body {
                    out: &mut out,
                    theme: Theme {
                        enabled: round % 2 == 0,
                    },
                    full: false,
                    cuts,
                };
                body.content(entry.pointer("/message/content")).unwrap();
                out
            };
            let (want, got) = (write(&whole, &Cuts::default()), write(&value, &cuts));
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "round {round}"
            );
            // What the block does not show as text is decoded whole.
            assert_eq!(value.get("x"), whole.get("x"));
        }
        assert!(shortened > 600, "{shortened}");
    }

    /// A tool call's line written from its shortened arguments is what the whole arguments
    /// write, on long random strings (every escape, wide, joined and zero-width characters,
    /// surrogates), the name before or after them.
    #[test]
    fn shortened_arguments_write_the_whole_line() {
        let mut next = pisess_format::skim::rng(11);
        let wide: &[&[u8]] = &[
            "日本".as_bytes(),
            "\\u200d".as_bytes(),
            "\\u200b".as_bytes(),
            "\\u0301".as_bytes(),
            "👨\\u200d👩".as_bytes(),
            "⌚\\ufe0e".as_bytes(),
            "\\ufe0f".as_bytes(),
            "لا".as_bytes(),
            "\\u001b[31m".as_bytes(),
        ];
        let mut shortened = 0;
        for round in 0..400 {
            let mut text = || {
                let mut t = Vec::new();
                // From a few hundred bytes (too short to shorten, or cut near the start) on.
                let goal = 200 + next(4 * LONG);
                while t.len() < goal {
                    // Runs of characters of no width put a line's cut anywhere in a start.
                    let piece = match next(5) {
                        0 => wide[next(wide.len())].to_vec(),
                        1 if round % 3 == 0 => random_inner(&mut next),
                        2 => br"\u0301".repeat(next(120)),
                        _ => b"word ".repeat(1 + next(8)),
                    };
                    t.extend(piece);
                }
                t.retain(|&c| c != b'\n');
                t
            };
            let (a, b) = (text(), text());
            let name_first = round % 2 == 0;
            let line = [
                &br#"{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","#[..],
                if name_first { br#""name":"write","# } else { b"" },
                br#""arguments":{"path":"src/x.rs","content":""#,
                &a,
                br#"","n":[1,"two"],"more":""#,
                &b,
                br#""}"#,
                if name_first { b"" } else { br#","name":"write""# },
                br#"}]}}"#,
            ]
            .concat();
            let Ok(whole) = pisess_format::json::decode(&line) else {
                continue;
            };
            let Some((value, cuts)) = decode(&line, &EntryKind::Message) else {
                continue;
            };
            let write = |entry: &Value, cuts: &Cuts| {
                let mut out = Vec::new();
                let mut body = Body {
                    out: &mut out,
                    theme: Theme { enabled: false },
                    full: false,
                    cuts,
                };
                body.content(entry.pointer("/message/content")).unwrap();
                out
            };
            let got = write(&value, &cuts);
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&write(&whole, &Cuts::default())),
                "round {round}"
            );
            shortened += usize::from(value != whole);
        }
        // Most long arguments were shortened (and still wrote the whole line).
        assert!(shortened > 40, "{shortened}");
    }

    /// A key given twice has its last value: the first one's cuts do not mark the last one's
    /// texts (a short text where a long one was cut first is written whole).
    #[test]
    fn a_key_given_twice_keeps_only_the_last_ones_cuts() {
        let long = "word\\n".repeat(LONG);
        let long_block = format!(r#"[{{"type":"text","text":"{long}"}}]"#);
        let short_block = r#"[{"type":"text","text":"short"}]"#;
        let lines = [
            format!(
                r#"{{"type":"message","message":{{"role":"user","content":{long_block}}},"message":{{"role":"user","content":{short_block}}}}}"#
            ),
            format!(
                r#"{{"type":"message","message":{{"role":"user","content":{long_block},"content":{short_block}}}}}"#
            ),
            format!(
                r#"{{"type":"message","message":{{"role":"bashExecution","output":"{long}","output":"short"}}}}"#
            ),
            format!(
                r#"{{"type":"message","message":{{"role":"bashExecution","output":"{long}"}},"message":{{"role":"bashExecution"}}}}"#
            ),
            format!(r#"{{"type":"compaction","summary":"{long}","summary":"short"}}"#),
        ];
        for line in lines {
            let whole = pisess_format::json::decode(line.as_bytes()).unwrap();
            let kind = EntryKind::parse(whole.get("type").and_then(Value::as_str));
            let (value, cuts) = decode(line.as_bytes(), &kind).unwrap();
            assert!(cuts.0.is_empty(), "{line}");
            assert_eq!(value, whole);
        }
    }
}
