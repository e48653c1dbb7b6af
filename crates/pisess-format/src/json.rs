//! JSON as pi's JavaScript reads it: the one lenient decoder every full decode goes through,
//! and the depth limit the skim and the scan share.
//!
//! pi reads a line with `JSON.parse` on a lossily decoded string and writes one with
//! `JSON.stringify`. serde_json is stricter in three places, mended here before it decodes:
//! invalid UTF-8 (U+FFFD, as Node's decoding gives), lone UTF-16 surrogate escapes (kept, as
//! stand-ins: see `crate::surrogates`) and numbers beyond f64 (JavaScript's `Infinity`, written
//! back as `null`). The small walkers below step over the text outside strings; they only find
//! places, they never decode.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

use crate::surrogates;

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

/// Decodes a line as JSON the way pi's `JSON.parse` on a lossily decoded string would, into
/// serde_json's model. What JavaScript takes and serde_json refuses is mended first: invalid
/// UTF-8 becomes U+FFFD, a lone UTF-16 surrogate (`JSON.stringify` writes `"\ud83d"` when a
/// text was cut inside an emoji) its stand-in, so that JSON output writes it back as pi does,
/// and a number beyond f64 (JavaScript's `Infinity`) `null`, as `JSON.stringify` writes it.
pub fn decode(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    if may_be_too_deep(bytes) && nests(bytes, DECODE_DEPTH + 1) {
        return Err(serde::de::Error::custom(TOO_DEEP));
    }
    let first = from_slice(bytes);
    // Nearly every line: no surrogate escape and no character a stand-in could be taken for.
    if first.is_ok() && !may_hold_surrogates(bytes) {
        return first;
    }
    let text = String::from_utf8_lossy(bytes);
    let text = surrogates_to_standins(&text).map_or(text, Cow::Owned);
    let text = infinite_numbers_to_null(&text).map_or(text, Cow::Owned);
    match text {
        Cow::Owned(text) => from_slice(text.as_bytes()),
        Cow::Borrowed(_) => first,
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

/// Whether brackets outside strings nest `levels` deep somewhere.
fn nests(bytes: &[u8], levels: usize) -> bool {
    let mut depth = 0usize;
    for (_, b) in outside_strings(bytes) {
        match b {
            b'[' | b'{' => {
                depth += 1;
                if depth >= levels {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// Whether JSON text may hold a surrogate escape or a character of the stand-ins' range, which
/// [`decode`] must rewrite: a search for `\u` followed by `d` or `D`, and for the byte `F4`, both
/// rare in pi's files (`JSON.stringify` writes characters, and `\u` only for control
/// characters and lone surrogates).
pub fn may_hold_surrogates(bytes: &[u8]) -> bool {
    static ESCAPE: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
        std::sync::OnceLock::new();
    let escape = ESCAPE.get_or_init(|| memchr::memmem::Finder::new(b"\\u"));
    memchr::memchr(0xF4, bytes).is_some()
        || escape
            .find_iter(bytes)
            .any(|at| matches!(bytes.get(at + 2), Some(b'd' | b'D')))
}

/// Whether JSON text (valid, UTF-8) is byte for byte what `JSON.stringify(JSON.parse(text))`
/// writes, so that copying it is writing it: no space between tokens; every number spelled as
/// JavaScript spells its value (`1000`, not `1E3`, `1.0` or `-0`); in strings only the escapes
/// `JSON.stringify` makes (`\"`, `\\`, the five short ones, and lowercase `\u00XX` for the
/// other control characters), so no `\/`, no `\u00e9` and no surrogate escape (a pair is
/// written as its character, a lone half is left to [`decode`]); no key twice in an object
/// (`JSON.parse` keeps the last value); and no key that is an array index (`"0"`, `"17"`), which
/// JavaScript moves to the front of its object. pi writes its files with `JSON.stringify`, so
/// its lines pass; anything else is decoded and written again.
pub fn is_stringify_output(text: &[u8]) -> bool {
    // The keys of each open object (`None` for an array).
    let mut open: Vec<Option<Keys>> = Vec::new();
    let mut at = 0;
    while let Some(&b) = text.get(at) {
        match b {
            b'{' => open.push(Some(Keys::default())),
            b'[' => open.push(None),
            b'}' | b']' => {
                open.pop();
            }
            b'"' => {
                let end = string_end(text, at);
                let inside = &text[at + 1..end.min(text.len())];
                if !stringify_escapes(inside) {
                    return false;
                }
                let is_key = text.get(end + 1) == Some(&b':');
                if let (true, Some(Some(keys))) = (is_key, open.last_mut()) {
                    if is_array_index(inside) || !keys.insert(inside) {
                        return false;
                    }
                }
                at = end;
            }
            b'-' | b'0'..=b'9' => {
                let end = number_end(text, at);
                if !stringify_number(&text[at..end]) {
                    return false;
                }
                at = end - 1;
            }
            // Punctuation, and the letters of `true`, `false` and `null`.
            b',' | b':' | b't' | b'r' | b'u' | b'e' | b'f' | b'a' | b'l' | b's' | b'n' => {}
            // Space between tokens, which `JSON.stringify` never writes.
            _ => return false,
        }
        at += 1;
    }
    true
}

/// An object's keys so far, as stored (their escapes are `JSON.stringify`'s, one spelling per
/// string, so equal strings are equal bytes): a list while short, a set once there are many.
#[derive(Default)]
struct Keys<'a> {
    few: Vec<&'a [u8]>,
    many: Option<hashbrown::HashSet<&'a [u8]>>,
}

impl<'a> Keys<'a> {
    /// False when the key was there already.
    fn insert(&mut self, key: &'a [u8]) -> bool {
        if let Some(many) = &mut self.many {
            return many.insert(key);
        }
        if self.few.contains(&key) {
            return false;
        }
        self.few.push(key);
        if self.few.len() > 16 {
            self.many = Some(self.few.drain(..).collect());
        }
        true
    }
}

/// A string's insides (between its quotes) hold only the escapes `JSON.stringify` writes.
fn stringify_escapes(inside: &[u8]) -> bool {
    let mut at = 0;
    while let Some(found) = inside.get(at..).and_then(|r| memchr::memchr(b'\\', r)) {
        at += found + 1;
        match inside.get(at) {
            Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') => at += 1,
            Some(b'u') => {
                let Some(hex) = inside.get(at + 1..at + 5) else {
                    return false;
                };
                let lower = hex.iter().all(|h| matches!(h, b'0'..=b'9' | b'a'..=b'f'));
                let unit = std::str::from_utf8(hex)
                    .ok()
                    .and_then(|h| u16::from_str_radix(h, 16).ok());
                // Only control characters without a short escape (`\b` is 8, `\t` 9, `\n` 10,
                // `\f` 12, `\r` 13).
                let control = unit.is_some_and(|u| u < 0x20 && !matches!(u, 8 | 9 | 10 | 12 | 13));
                if !lower || !control {
                    return false;
                }
                at += 5;
            }
            _ => return false,
        }
    }
    true
}

/// `JSON.stringify`'s spelling of the number's value (`Number.prototype.toString`).
fn stringify_number(number: &[u8]) -> bool {
    let digits = number.strip_prefix(b"-").unwrap_or(number);
    // Most numbers: an integer of fewer than 16 digits is exact in a double and written as it
    // is (JSON has no leading zeros), but for `-0`, which JavaScript writes `0`.
    if digits.len() < 16 && digits.iter().all(u8::is_ascii_digit) {
        return number != b"-0";
    }
    std::str::from_utf8(number)
        .ok()
        .and_then(|n| n.parse::<f64>().ok())
        .filter(|x| x.is_finite())
        .is_some_and(|x| ryu_js::Buffer::new().format_finite(x).as_bytes() == number)
}

/// A key JavaScript takes for an array index: `0`, or digits without a leading zero up to
/// 2^32 - 2. Such keys come first in an object, in numeric order, whatever order they came in.
fn is_array_index(key: &[u8]) -> bool {
    match key {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] if key.len() <= 10 && rest.iter().all(u8::is_ascii_digit) => {
            std::str::from_utf8(key)
                .ok()
                .and_then(|k| k.parse::<u64>().ok())
                .is_some_and(|n| n < u64::from(u32::MAX))
        }
        _ => false,
    }
}

/// `value`'s objects in the order `JSON.parse` gives their keys: the keys that are array
/// indexes first, in numeric order, then the others as they came. What pisess writes of a
/// decoded value then lists its keys as pi's `JSON.stringify` does.
pub fn js_key_order(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.keys().any(|k| is_array_index(k.as_bytes())) {
                let mut entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
                // Stable: the other keys keep their order.
                entries.sort_by_key(|(k, _)| {
                    if is_array_index(k.as_bytes()) {
                        k.parse::<u64>().unwrap_or(u64::MAX)
                    } else {
                        u64::MAX
                    }
                });
                map.extend(entries);
            }
            map.values_mut().for_each(js_key_order);
        }
        Value::Array(items) => items.iter_mut().for_each(js_key_order),
        _ => {}
    }
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
    memchr::memchr2_iter(b'[', b'{', bytes)
        .nth(MAX_DEPTH - 1)
        .is_some()
        && nests(bytes, MAX_DEPTH)
}

/// `text` with every number outside strings that overflows f64 replaced by `null`, or `None`
/// when there is none.
fn infinite_numbers_to_null(text: &str) -> Option<String> {
    splice(text, infinite_numbers(text).map(|(span, _)| (span, "null")))
}

/// The spans of the numbers outside strings that overflow f64, with their values (infinite).
fn infinite_numbers(text: &str) -> impl Iterator<Item = (Range<usize>, f64)> + '_ {
    numbers(text.as_bytes()).filter_map(|span| {
        let x = text[span.clone()].parse::<f64>().ok()?;
        x.is_infinite().then_some((span, x))
    })
}

/// The body of the marks [`mark_infinities`] writes: a string no JSON text holds unless it
/// spells this out, which [`mark_infinities`] checks.
const INFINITY_MARK: &str = r"\u0000pisess:Infinity";

/// [`INFINITY_MARK`] decoded.
const INFINITY_MARK_DECODED: &str = "\0pisess:Infinity";

/// `text` with every number beyond f64 replaced by a string that marks it (`"…Infinity"` or
/// `"-…Infinity"`), read back by [`marked_infinity`]: for a reader that must keep JavaScript's
/// `Infinity` where serde_json refuses the number. `None` when there is none, or when the text
/// could hold a mark of its own (then no string is taken for a mark).
pub(crate) fn mark_infinities(text: &str) -> Option<String> {
    if text.contains("pisess:Infinity") {
        return None;
    }
    let sign = |x: f64| if x > 0.0 { "" } else { "-" };
    let marks =
        infinite_numbers(text).map(|(span, x)| (span, format!("\"{}{INFINITY_MARK}\"", sign(x))));
    splice(text, marks)
}

/// Whether `text` holds a number beyond f64 (outside strings).
pub(crate) fn has_infinite_number(text: &str) -> bool {
    infinite_numbers(text).next().is_some()
}

/// The value of a mark [`mark_infinities`] wrote, decoded; `None` for any other string.
pub(crate) fn marked_infinity(s: &str) -> Option<f64> {
    if s == INFINITY_MARK_DECODED {
        Some(f64::INFINITY)
    } else if s.strip_prefix('-') == Some(INFINITY_MARK_DECODED) {
        Some(f64::NEG_INFINITY)
    } else {
        None
    }
}

/// `text` with every `\uXXXX` escape of an unpaired surrogate replaced by its stand-in, and
/// every character of the stand-ins' range (raw, or an escaped pair) by the stand-ins of its
/// two code units; `None` when there is none.
fn surrogates_to_standins(text: &str) -> Option<String> {
    let unit = |at: usize| u16::from_str_radix(&text[at + 2..at + 6], 16).unwrap_or(0xFFFD);
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    for (at, paired) in surrogate_escapes(text.as_bytes()) {
        let mut with = String::new();
        if !paired {
            with.push(surrogates::standin(unit(at)));
            edits.push((at..at + 6, with));
            continue;
        }
        let pair = char::decode_utf16([unit(at), unit(at + 6)]).next();
        if let Some(c) = pair
            .and_then(Result::ok)
            .filter(|&c| surrogates::in_range(c))
        {
            surrogates::push_escaped_char(c, &mut with);
            edits.push((at..at + 12, with));
        }
    }
    if memchr::memchr(0xF4, text.as_bytes()).is_some() {
        for (at, c) in text
            .char_indices()
            .filter(|&(_, c)| surrogates::in_range(c))
        {
            let mut with = String::new();
            surrogates::push_escaped_char(c, &mut with);
            edits.push((at..at + c.len_utf8(), with));
        }
        edits.sort_by_key(|(span, _)| span.start);
    }
    splice(text, edits.into_iter())
}

/// `text` with each span (in order, apart) replaced, or `None` when there is none.
fn splice<S: AsRef<str>>(
    text: &str,
    edits: impl Iterator<Item = (Range<usize>, S)>,
) -> Option<String> {
    let (mut out, mut copied) = (None::<String>, 0);
    for (span, with) in edits {
        let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
        out.push_str(&text[copied..span.start]);
        out.push_str(with.as_ref());
        copied = span.end;
    }
    let mut out = out?;
    out.push_str(&text[copied..]);
    Some(out)
}

/// The position of the quote that closes the string opening at `open` (or the end): the next
/// quote after an even run of backslashes.
pub fn string_end(bytes: &[u8], open: usize) -> usize {
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
        skip_to = number_end(bytes, at);
        return Some(at..skip_to);
    })
}

/// Where the number that starts at `at` ends.
fn number_end(bytes: &[u8], at: usize) -> usize {
    at + bytes[at..]
        .iter()
        .take_while(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
        .count()
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

    /// What `JSON.stringify` writes passes; every other spelling of the same value does not.
    #[test]
    fn stringify_output_is_told_from_other_spellings() {
        let pass: [&[u8]; 6] = [
            br#"{"a":[1,-2,0.1,1e+21,1.5e-7,1234567890123456,null,true,false,{}],"b":"x"}"#,
            r#"{"s":"\"\\\b\f\n\r\t\u0000\u001f","é":"é"}"#.as_bytes(),
            br#"{"k":{"a":1},"j":{"a":2},"18446744073709552000":0,"4294967295":1}"#,
            br#"{"t":"\\ud800 \\/"}"#,
            br#"[{"a":1},{"a":1}]"#,
            br#"{"a":9007199254740992}"#,
        ];
        for text in pass {
            assert!(
                is_stringify_output(text),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        let fail: [&[u8]; 16] = [
            br#"{"a":1E3}"#,
            br#"{"a":1e3}"#,
            br#"{"a":1.0}"#,
            br#"{"a":1.50}"#,
            br#"{"a":-0}"#,
            br#"{"a":12345678901234567}"#,
            br#"{"a": 1}"#,
            b"{\"a\":1}\n",
            br#"{"a":"\/"}"#,
            br#"{"a":"\u00e9"}"#,
            br#"{"a":"\u001F"}"#,
            br#"{"a":"\u000a"}"#,
            br#"{"a":"\ud83d\ude00"}"#,
            br#"{"a":1,"b":{"c":2},"a":3}"#,
            br#"{"x":1,"0":2}"#,
            br#"{"17":1}"#,
        ];
        for text in fail {
            assert!(
                !is_stringify_output(text),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        // Many keys, one twice: found among the set as among the few.
        let many: String = (0..40).map(|i| format!("\"k{i}\":{i},")).collect();
        assert!(is_stringify_output(format!("{{{many}\"z\":0}}").as_bytes()));
        assert!(!is_stringify_output(
            format!("{{{many}\"k3\":0}}").as_bytes()
        ));
    }

    #[test]
    fn keys_are_put_in_json_parse_order() {
        let mut v: Value =
            serde_json::from_str(r#"{"b":1,"10":2,"2":3,"a":{"1":0,"x":0,"0":0},"01":4}"#).unwrap();
        js_key_order(&mut v);
        assert_eq!(
            v.to_string(),
            r#"{"2":3,"10":2,"b":1,"a":{"0":0,"1":0,"x":0},"01":4}"#
        );
    }

    #[test]
    fn walkers_skip_strings() {
        let text = br#"{"a":"1e999 \" [[","b":[-1.5e3,12345678901234567]}"#;
        let spans: Vec<_> = numbers(text).map(|s| &text[s]).collect();
        assert_eq!(spans, [&b"-1.5e3"[..], b"12345678901234567"]);
        assert!(!is_stringify_output(text));
        assert!(is_stringify_output(br#"{"a":"\\ud800","b":1.5}"#));
        assert!(!is_stringify_output(br#"{"a":"\ud83d\ude00"}"#));
    }

    #[test]
    fn mends_what_javascript_accepts() {
        let lone = surrogates::standin(0xD83D).to_string();
        assert_eq!(
            decode(br#"[1e999,"\ud83d",-1e400]"#).unwrap(),
            serde_json::json!([null, lone, null])
        );
        assert!(decode(b"[1,").is_err());
    }

    /// What `JSON.parse` then `JSON.stringify` give, surrogate by surrogate.
    #[test]
    fn surrogates_survive_as_javascript_keeps_them() {
        for (stored, written) in [
            (r#""cut \ud83d""#, r#""cut \ud83d""#),
            (r#""\uD83D\uDE00 \ude00\ud83d""#, r#""😀 \ude00\ud83d""#),
            (r#""\\ud83d""#, r#""\\ud83d""#),
            ("\"\u{10f800}\"", "\"\u{10f800}\""),
            (r#""\udbff\udfff\ud800""#, "\"\u{10ffff}\\ud800\""),
            (r#"{"\udc00":"\udbfe"}"#, r#"{"\udc00":"\udbfe"}"#),
        ] {
            let value = decode(stored.as_bytes()).unwrap();
            assert_eq!(surrogates::to_string(&value), written, "{stored}");
        }
        assert!(!may_hold_surrogates(br#"{"a":"\u00e9 \n"}"#));
    }
}
