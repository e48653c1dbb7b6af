//! Characters a terminal acts on that JSON does not escape: the C1 controls (U+0080 to U+009F;
//! VTE, screen and mosh read U+009B as CSI and U+009D as OSC) and the bidirectional overrides
//! and isolates (U+202A to U+202E, U+2066 to U+2069), which reorder what is shown around them.
//!
//! Every JSON pisess writes spells them as `\u` escapes (the same JSON value, see
//! docs/json.md); the stored lines `show --json` copies are rewritten so on a terminal only.

use std::borrow::Cow;

/// Whether `c` is one of the characters this module escapes.
pub(crate) fn is_terminal_control(c: char) -> bool {
    matches!(c, '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The length of the UTF-8 sequence at `b[at..]` when it encodes such a character (2 or 3),
/// else 0. A C1 control is `C2 80..9F`; the bidi controls are `E2 80 AA..AE` and
/// `E2 81 A6..A9`.
fn control_len(b: &[u8], at: usize) -> usize {
    match (b[at], b.get(at + 1), b.get(at + 2)) {
        (0xC2, Some(0x80..=0x9F), _) => 2,
        (0xE2, Some(0x80), Some(0xAA..=0xAE)) | (0xE2, Some(0x81), Some(0xA6..=0xA9)) => 3,
        _ => 0,
    }
}

/// Where the first such character of `b` at or after `from` starts, or `None`: only bytes
/// `C2` and `E2` can start one.
pub(crate) fn next_control(b: &[u8], from: usize) -> Option<usize> {
    memchr::memchr2_iter(0xC2, 0xE2, &b[from..])
        .map(|i| from + i)
        .find(|&at| control_len(b, at) > 0)
}

/// Whether UTF-8 text holds such a character.
pub(crate) fn has_terminal_controls(s: &str) -> bool {
    next_control(s.as_bytes(), 0).is_some()
}

/// Appends the JSON escape of a character (`\u009b`), lowercase as `JSON.stringify` writes the
/// escapes it makes.
pub(crate) fn push_escape(out: &mut Vec<u8>, c: char) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let u = c as u32;
    out.extend_from_slice(b"\\u");
    for shift in [12, 8, 4, 0] {
        out.push(HEX[((u >> shift) & 0xF) as usize]);
    }
}

/// A line of JSON with each such character written as its escape. JSON text outside strings
/// is ASCII, so every one of them is inside a string, whose value the escape keeps; bytes that
/// are not UTF-8 pass through unchanged.
pub(crate) fn escape_json_line(b: &[u8]) -> Cow<'_, [u8]> {
    let Some(mut at) = next_control(b, 0) else {
        return Cow::Borrowed(b);
    };
    let mut out = Vec::with_capacity(b.len() + 16);
    let mut start = 0;
    loop {
        let len = control_len(b, at);
        out.extend_from_slice(&b[start..at]);
        let c = std::str::from_utf8(&b[at..at + len])
            .ok()
            .and_then(|s| s.chars().next())
            .expect("a matched control is UTF-8");
        push_escape(&mut out, c);
        start = at + len;
        match next_control(b, start) {
            Some(next) => at = next,
            None => break,
        }
    }
    out.extend_from_slice(&b[start..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_and_only_those_is_found_by_its_bytes() {
        for c in (0..=0x2100u32).filter_map(char::from_u32) {
            let s = format!("a{c}b");
            assert_eq!(has_terminal_controls(&s), is_terminal_control(c), "{c:?}");
        }
    }

    #[test]
    fn a_stored_line_keeps_its_value() {
        let line = "{\"t\":\"x\u{9b}31m \u{202e}cba \u{9d}0;t\u{2069}é→\"}".as_bytes();
        let escaped = escape_json_line(line);
        let text = std::str::from_utf8(&escaped).unwrap();
        assert_eq!(
            text,
            "{\"t\":\"x\\u009b31m \\u202ecba \\u009d0;t\\u2069é→\"}"
        );
        let a: serde_json::Value = serde_json::from_slice(line).unwrap();
        let b: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(a, b);
        assert!(matches!(escape_json_line(b"{\"a\":\"\xff\"}"), Cow::Borrowed(_)));
    }
}
