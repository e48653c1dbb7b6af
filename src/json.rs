//! JSON as pi's JavaScript reads it: the one lenient decoder every full decode goes through,
//! and the depth limit the skim and the scan share.
//!
//! pi reads a line with `JSON.parse` on a lossily decoded string and writes one with
//! `JSON.stringify`. serde_json is stricter in three places, mended here before it decodes:
//! invalid UTF-8 and lone UTF-16 surrogate escapes (U+FFFD for both) and numbers beyond f64
//! (JavaScript's `Infinity`, written back as `null`). The small walkers below step over the
//! text outside strings; they only find places, they never decode.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

/// Lines nested this deep are left to a full decode, which refuses more than [`DECODE_DEPTH`]
/// levels: the skim stops here and the scan decodes such a line in full to decide
/// ([`may_be_too_deep`]).
pub(crate) const MAX_DEPTH: usize = 100;

/// The deepest nesting a full decode takes. pi's `JSON.parse` (V8's, iterative) has no limit of
/// its own: 10,000,000 levels parse in Node 20, only the 512 MiB string limit bounds it, while
/// its `JSON.stringify` gives up near 10,000 (and pi stringifies what it sends and rewrites).
/// serde_json's default, 128, refused lines pi reads; this many levels still fit the stack the
/// binary runs on (`main.rs`), through the decode, the renderers and the drop of the value.
pub(crate) const DECODE_DEPTH: usize = 100_000;

/// Decodes a line as JSON the way pi's `JSON.parse` on a lossily decoded string would, then
/// lossily into serde_json's model. What JavaScript takes and serde_json refuses is mended
/// first: invalid UTF-8 and lone UTF-16 surrogates become U+FFFD (`JSON.stringify` writes a
/// lone `"\ud83d"` when a text was cut inside an emoji), and a number beyond f64 (JavaScript's
/// `Infinity`) becomes `null`, as `JSON.stringify` writes it back.
pub(crate) fn decode(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    if may_be_too_deep(bytes) && depth(bytes) > DECODE_DEPTH {
        return Err(serde::de::Error::custom(TOO_DEEP));
    }
    let first = match from_slice(bytes) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let text = String::from_utf8_lossy(bytes);
    let text = replace_lone_surrogates(&text).map_or(text, Cow::Owned);
    let text = infinite_numbers_to_null(&text).map_or(text, Cow::Owned);
    match text {
        Cow::Owned(text) => from_slice(text.as_bytes()),
        Cow::Borrowed(_) => Err(first),
    }
}

const TOO_DEEP: &str = "nested too deep";

/// `serde_json::from_slice` without its recursion limit of 128: [`decode`] bounds the depth.
fn from_slice(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    use serde::Deserialize as _;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value = Value::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// The deepest nesting of brackets outside strings.
fn depth(bytes: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for (_, b) in outside_strings(bytes) {
        match b {
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Whether JSON text (valid, UTF-8) means the same value to serde_json, to JavaScript and as
/// written, so it can be copied instead of decoded and re-encoded: no `\\u` escape of a UTF-16
/// surrogate (a lone one decodes as U+FFFD) and no number whose value decoding changes (beyond
/// f64 or 2^53: an exponent of 3 digits or an integer part of 16).
pub(crate) fn decodes_as_stored(text: &[u8]) -> bool {
    if surrogate_escapes(text).next().is_some() {
        return false;
    }
    numbers(text).all(|span| {
        let number = &text[span];
        let digits = |n: &[u8]| n.iter().take_while(|b| b.is_ascii_digit()).count();
        let integer = digits(number.strip_prefix(b"-").unwrap_or(number));
        let exponent = number
            .iter()
            .position(|b| matches!(b, b'e' | b'E'))
            .map_or(0, |e| {
                let rest = &number[e + 1..];
                let sign = rest.strip_prefix(b"+").or(rest.strip_prefix(b"-"));
                digits(sign.unwrap_or(rest))
            });
        integer < 16 && exponent < 3
    })
}

/// Why a line did not decode, in the words a warning uses.
pub(crate) fn describe_error(bytes: &[u8], e: &serde_json::Error) -> String {
    if e.to_string() == TOO_DEEP {
        return format!(
            "JSON nested more than {DECODE_DEPTH} levels deep (pisess cannot read this line)"
        );
    }
    if e.to_string().contains("trailing characters") {
        return "two JSON values on one line (pi drops this line)".to_owned();
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return "byte-order mark before the JSON (pi cannot read this line)".to_owned();
    }
    format!("malformed JSON ({e})")
}

/// Whether a line may be nested [`MAX_DEPTH`] levels deep or more. Cheap for ordinary lines: a
/// search for that many brackets, which few lines pass, then their depth outside strings.
pub(crate) fn may_be_too_deep(bytes: &[u8]) -> bool {
    if memchr::memchr2_iter(b'[', b'{', bytes)
        .nth(MAX_DEPTH - 1)
        .is_none()
    {
        return false;
    }
    let mut depth = 0usize;
    for (_, b) in outside_strings(bytes) {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth >= MAX_DEPTH {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// `text` with every number outside strings that overflows f64 replaced by `null`, or `None`
/// when there is none.
fn infinite_numbers_to_null(text: &str) -> Option<String> {
    let infinite = numbers(text.as_bytes()).filter(|span| {
        text[span.clone()]
            .parse::<f64>()
            .is_ok_and(f64::is_infinite)
    });
    splice(text, infinite.map(|span| (span, "null")))
}

/// `text` with every `\uXXXX` escape of an unpaired surrogate replaced by `\ufffd`, or `None`
/// when it has none.
fn replace_lone_surrogates(text: &str) -> Option<String> {
    let lone = surrogate_escapes(text.as_bytes()).filter(|&(_, paired)| !paired);
    splice(text, lone.map(|(at, _)| (at..at + 6, "\\ufffd")))
}

/// `text` with each span (in order, apart) replaced, or `None` when there is none.
fn splice<'a>(text: &str, edits: impl Iterator<Item = (Range<usize>, &'a str)>) -> Option<String> {
    let (mut out, mut copied) = (None::<String>, 0);
    for (span, with) in edits {
        let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
        out.push_str(&text[copied..span.start]);
        out.push_str(with);
        copied = span.end;
    }
    let mut out = out?;
    out.push_str(&text[copied..]);
    Some(out)
}

/// The position of the quote that closes the string opening at `open` (or the end): the next
/// quote after an even run of backslashes.
pub(crate) fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut at = open;
    loop {
        let Some(found) = bytes.get(at + 1..).and_then(|r| memchr::memchr(b'"', r)) else {
            return bytes.len();
        };
        at += 1 + found;
        let escapes = bytes[..at].iter().rev().take_while(|&&b| b == b'\\');
        if escapes.count() % 2 == 0 {
            return at;
        }
    }
}

/// Each byte outside strings with its position (a string's opening quote included, its
/// contents and closing quote skipped).
fn outside_strings(bytes: &[u8]) -> impl Iterator<Item = (usize, u8)> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let (here, &b) = (at, bytes.get(at)?);
        at = if b == b'"' { string_end(bytes, at) } else { at } + 1;
        Some((here, b))
    })
}

/// The spans of the numbers outside strings.
fn numbers(bytes: &[u8]) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut outside = outside_strings(bytes);
    let mut skip_to = 0;
    std::iter::from_fn(move || loop {
        let (at, b) = outside.next()?;
        if at < skip_to || !matches!(b, b'-' | b'0'..=b'9') {
            continue;
        }
        let len = bytes[at..]
            .iter()
            .take_while(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
            .count();
        skip_to = at + len;
        return Some(at..skip_to);
    })
}

/// Each `\uXXXX` escape of a UTF-16 surrogate: its position, and whether it is the high half
/// of a pair (whose low half is then stepped over). A backslash is only valid inside a string,
/// so each one starts an escape.
fn surrogate_escapes(bytes: &[u8]) -> impl Iterator<Item = (usize, bool)> + '_ {
    let unit = move |at: usize| -> Option<u16> {
        let hex = bytes.get(at..at + 6)?.strip_prefix(b"\\u")?;
        u16::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
    };
    let mut at = 0;
    std::iter::from_fn(move || loop {
        at += bytes
            .get(at..)
            .and_then(|rest| memchr::memchr(b'\\', rest))?;
        match unit(at) {
            Some(0xD800..=0xDBFF) if matches!(unit(at + 6), Some(0xDC00..=0xDFFF)) => {
                at += 12;
                return Some((at - 12, true));
            }
            Some(0xD800..=0xDFFF) => {
                at += 6;
                return Some((at - 6, false));
            }
            // `\\`, `\"`, `\n`, `\u00e9`...: step over the escaped character.
            _ => at += 2,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walkers_skip_strings() {
        let text = br#"{"a":"1e999 \" [[","b":[-1.5e3,12345678901234567]}"#;
        let spans: Vec<_> = numbers(text).map(|s| &text[s]).collect();
        assert_eq!(spans, [&b"-1.5e3"[..], b"12345678901234567"]);
        assert!(!decodes_as_stored(text));
        assert!(decodes_as_stored(br#"{"a":"\\ud800","b":1.5}"#));
        assert!(!decodes_as_stored(br#"{"a":"\ud83d\ude00"}"#));
    }

    #[test]
    fn mends_what_javascript_accepts() {
        assert_eq!(
            decode(br#"[1e999,"\ud83d",-1e400]"#).unwrap(),
            serde_json::json!([null, "\u{fffd}", null])
        );
        assert!(decode(b"[1,").is_err());
    }
}
