//! What the escaped bytes of a JSON string hold, counted without decoding them.
//!
//! `show` prints at most a screenful of each text, but its "… N more lines" marker needs the
//! counts of the whole text, and tool results are most of a session's bytes. So it decodes only
//! a prefix of a long string (through the one decoder, `json::decode`), cut at a [`boundary`],
//! and counts the rest here ([`rest`]) in the units the decoded text would give: `char`s, with
//! `\n` and `\u000a` as newlines. Only the plain case is counted (valid UTF-8, no surrogate
//! escape, nothing a surrogate's stand-in could be taken for); anything else is `None` and the
//! caller decodes the whole string. The bytes are a string's insides as the skim vouched for
//! them (only JSON's escapes, no control characters); a malformed escape is `None` too.

/// The first position at or after `from` (and before the end) where `inner` (a string's
/// insides) may be cut in two whose decodings concatenate to the whole one's: not inside a
/// UTF-8 sequence, nor inside an escape or between the two escapes of a surrogate pair (no
/// backslash in the 6 bytes before it: an escape is at most 6 bytes). `None` when there is no
/// such place within 64 bytes (a run of backslashes): decode it whole.
pub fn boundary(inner: &[u8], from: usize) -> Option<usize> {
    (from..inner.len().min(from.saturating_add(64))).find(|&at| {
        let continuation = inner[at] & 0xC0 == 0x80;
        !continuation && !inner[at.saturating_sub(6)..at].contains(&b'\\')
    })
}

/// The shortest decoded start of a string from its insides `inner` that is `enough`, with where
/// it was cut: `from` bytes of it, doubled while not enough; `None` when no start before its
/// second half is (decode it whole).
pub fn decoded_start(
    inner: &[u8],
    from: usize,
    enough: impl Fn(&str) -> bool,
) -> Option<(String, usize)> {
    let mut want = from;
    while want.saturating_mul(2) <= inner.len() {
        let (kept, at) = decoded_prefix(inner, want)?;
        if enough(&kept) {
            return Some((kept, at));
        }
        want *= 2;
    }
    None
}

/// The decoded start of a string from its insides `inner`: up to a [`boundary`] at or after
/// `from`, through the one decoder, with where it was cut; `None` where there is no boundary
/// or the start is no string on its own (decode it whole).
pub(crate) fn decoded_prefix(inner: &[u8], from: usize) -> Option<(String, usize)> {
    let at = boundary(inner, from)?;
    let quoted = [&b"\""[..], &inner[..at], b"\""].concat();
    match crate::model::decoded_span(&quoted)? {
        serde_json::Value::String(kept) => Some((kept, at)),
        _ => None,
    }
}

/// The text that follows a text, known only by its counts (a long string decoded in part, as
/// [`rest`] counts it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rest {
    pub chars: usize,
    /// Newlines before its trailing whitespace.
    pub newlines: usize,
    /// Whether it holds anything but whitespace.
    pub has_text: bool,
}

/// The counts of the text that `rest` (the insides of a string from a [`boundary`] on) decodes
/// to, or `None` when it is not plain.
pub fn rest(rest: &[u8]) -> Option<Rest> {
    // One pass, 64 bytes at a time, where no `\u` escape needs its digits read; it also
    // tells ASCII (valid UTF-8, most of a session's text) from what needs the check.
    #[cfg(target_arch = "x86_64")]
    let counts = crate::skim::simd::counts(rest);
    #[cfg(target_arch = "x86_64")]
    let ascii = counts.ascii;
    #[cfg(not(target_arch = "x86_64"))]
    let ascii = false;
    // SIMD validation: a rest is most of a long text's bytes, and the standard check was a
    // twentieth of `show`'s time on text that is not all ASCII.
    if !ascii && simdutf8::basic::from_utf8(rest).is_err() {
        return None;
    }
    // Where the trailing whitespace starts: the newlines before it are the ones `trim_end`
    // keeps.
    let text_end = trailing_white(rest)?;
    let has_text = text_end > 0;
    #[cfg(target_arch = "x86_64")]
    {
        if !counts.unusual {
            let (_, trailing) = walk(&rest[text_end..])?;
            // Saturating: the skim vouched for the escapes, but no input may panic.
            return Some(Rest {
                chars: counts.starts.saturating_sub(counts.escapes),
                newlines: counts.newlines.saturating_sub(trailing),
                has_text,
            });
        }
    }
    if crate::json::may_hold_surrogates(rest) {
        return None;
    }
    let (chars, newlines) = walk(&rest[..text_end])?;
    let (trailing_chars, _) = walk(&rest[text_end..])?;
    Some(Rest {
        chars: chars + trailing_chars,
        newlines,
        has_text,
    })
}

/// The characters and newlines of plain escaped text (from where a character starts), escape
/// by escape: one character per byte that starts a UTF-8 sequence, less what escapes take
/// beyond one.
fn walk(b: &[u8]) -> Option<(usize, usize)> {
    let mut chars = b.iter().filter(|&&c| c & 0xC0 != 0x80).count();
    let mut newlines = 0;
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'\\', &b[at..]) {
        let k = at + found;
        let (len, c) = escape(b, k)?;
        newlines += usize::from(c == '\n');
        chars = chars.saturating_sub(len - 1);
        at = k + len;
    }
    Some((chars, newlines))
}

/// The escape at `k` (a backslash that starts one): its length and the character it stands
/// for. `None` for anything but JSON's escapes of a character (a surrogate is not one).
pub fn escape(b: &[u8], k: usize) -> Option<(usize, char)> {
    let c = match *b.get(k + 1)? {
        b'u' => {
            // Four hex digits (`from_str_radix` alone would take a sign).
            let hex = b
                .get(k + 2..k + 6)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
            let unit = u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
            return Some((6, char::from_u32(unit)?));
        }
        b'n' => '\n',
        b't' => '\t',
        b'r' => '\r',
        b'f' => '\u{c}',
        b'b' => '\u{8}',
        c @ (b'"' | b'\\' | b'/') => char::from(c),
        _ => return None,
    };
    Some((2, c))
}

/// Where the whitespace (`char::is_whitespace`, as `trim_end` has it) at the end of `b` starts,
/// written raw or escaped; `None` where a character is not.
fn trailing_white(b: &[u8]) -> Option<usize> {
    let mut end = b.len();
    while end > 0 {
        // The last character: a raw one, or an escape (its backslash the start of an escape:
        // an odd run of backslashes ends there, since `b` starts where a character does).
        let escape_at = |len: usize| {
            let k = end.checked_sub(len)?;
            let run = b[..=k].iter().rev().take_while(|&&c| c == b'\\').count();
            if b[k] != b'\\' || run % 2 == 0 {
                return None;
            }
            // A backslash 6 bytes back may start a shorter escape, before a raw character.
            escape(b, k).filter(|&(n, _)| n == len).map(|(_, c)| (k, c))
        };
        let (start, c) = if let Some(found) = escape_at(2).or_else(|| escape_at(6)) {
            found
        } else {
            let start = (end.saturating_sub(4)..end)
                .rev()
                .find(|&at| b[at] & 0xC0 != 0x80)?;
            let c = std::str::from_utf8(&b[start..end]).ok()?.chars().next()?;
            (start, c)
        };
        if !c.is_whitespace() {
            break;
        }
        end = start;
    }
    Some(end)
}

/// The text a string's insides decode to, where they are plain: valid UTF-8, only JSON's
/// escapes, no surrogate escape, no character a stand-in could be taken for and no raw control
/// character. Anything else is `None`: `json::decode` mends or refuses it. serde_json's decode
/// of a string goes escape by escape and costs several times this on pi's texts, which escape
/// every newline.
pub(crate) fn unescaped(inner: &[u8]) -> Option<String> {
    if memchr::memchr(0xF4, inner).is_some() || crate::util::bytes::any_byte(inner, |b| b < 0x20) {
        return None;
    }
    // Checked once, with SIMD: the pieces between escapes (which are ASCII) are then `str`s.
    let text = simdutf8::basic::from_utf8(inner).ok()?;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = memchr::memchr(b'\\', rest.as_bytes()) {
        out.push_str(&rest[..at]);
        // A surrogate, paired or not, is no escape of a character: left to the decoder.
        let (len, c) = escape(rest.as_bytes(), at)?;
        out.push(c);
        rest = rest.get(at + len..)?;
    }
    out.push_str(rest);
    Some(out)
}

/// Random string insides for the tests of the crates above: every escape, invalid bytes, lone
/// surrogates, long runs.
#[cfg(any(test, feature = "test-hooks"))]
/// A string's insides as `JSON.stringify`, or a hand-written file, might escape them.
pub fn random_inner(next: &mut impl FnMut(usize) -> usize) -> Vec<u8> {
    let pieces: &[&[u8]] = &[
        b"a",
        b" ",
        b"\\n",
        b"\\r\\n",
        b"\\t",
        b"\\\\",
        b"\\\"",
        b"\\/",
        b"\\b",
        b"\\f",
        b"\\u000a",
        b"\\u000A",
        b"\\u0020",
        b"\\u00e9",
        b"\\u3000",
        b"\\u2028",
        b"\\u0085",
        b"\\u000b",
        "é".as_bytes(),
        "🚀".as_bytes(),
        "\u{a0}".as_bytes(),
        "\u{3000}".as_bytes(),
        "\u{2029}".as_bytes(),
        "\u{85}".as_bytes(),
        b"\\\\\\\\\\\\",
        b"\\\\n",
        b"\\\\u000a",
        b"\\ud83d",
        b"\\ude00",
        b"\\ud83d\\ude00",
        b"\\uDBFF",
        "\u{10f900}".as_bytes(),
        b"\xff",
        b"\xe2\x80",
        b"\xc3",
        b"xyz",
        b"\n\n",
    ];
    let mut inner = Vec::new();
    for _ in 0..next(60) {
        let piece = pieces[next(pieces.len())];
        // Mostly plain pieces, so most strings are counted rather than refused.
        let piece = if next(4) == 0 {
            piece
        } else {
            pieces[next(24)]
        };
        for _ in 0..1 + next(3) * next(4) {
            inner.extend_from_slice(piece);
        }
    }
    inner
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// What `unescaped` gives is what the decoder gives, and it gives something for nearly
    /// every string the decoder takes as it is.
    #[test]
    fn unescaped_is_the_decoders_text() {
        let mut next = crate::skim::rng(5);
        let (mut plain, mut given) = (0, 0);
        for _ in 0..3000 {
            let mut inner = Vec::new();
            for _ in 0..next(6) {
                inner.extend(random_inner(&mut next));
            }
            if next(8) == 0 {
                // Malformed escapes and raw control characters.
                let bad: &[&[u8]] = &[b"\\", b"\\x", b"\\u12", b"\\u12g4", b"\x01", b"\\u+123"];
                inner.extend(bad[next(bad.len())]);
            }
            let quoted = [&b"\""[..], &inner, b"\""].concat();
            let whole = crate::json::decode(&quoted).ok();
            let got = unescaped(&inner);
            if let Some(text) = &got {
                given += 1;
                assert_eq!(whole, Some(Value::String(text.clone())), "{inner:?}");
            }
            let decodes_plainly = whole.is_some()
                && std::str::from_utf8(&inner).is_ok()
                && !crate::json::may_hold_surrogates(&quoted);
            if decodes_plainly {
                plain += 1;
                assert!(got.is_some(), "{inner:?}");
            }
        }
        assert!(plain > 300 && given >= plain, "{plain} {given}");
    }

    #[test]
    fn boundaries_step_past_escapes_and_sequences() {
        assert_eq!(boundary(br#"ab\ncd"#, 3), None);
        assert_eq!(boundary(b"abcdefghij", 2), Some(2));
        assert_eq!(boundary("aé".as_bytes(), 2), None);
        assert_eq!(boundary(br#"\u00e9xxxxxxy"#, 1), Some(7));
        assert_eq!(boundary(&[b'\\'; 200], 10), None);
    }

    #[test]
    fn trailing_whitespace_raw_and_escaped() {
        let r = rest(br#"a\nb \n\u000a\u3000 "#).unwrap();
        assert_eq!((r.chars, r.newlines, r.has_text), (8, 1, true));
        let r = rest(br#" \t\n "#).unwrap();
        assert_eq!((r.chars, r.newlines, r.has_text), (4, 0, false));
        // An escaped backslash then `n` is text, not a newline.
        let r = rest(br#"x\\n"#).unwrap();
        assert_eq!((r.chars, r.newlines, r.has_text), (3, 0, true));
        assert!(rest(br#"\ud83d"#).is_none());
        assert!(rest(b"\xff").is_none());
        // Not UTF-8, in any block of a long text, and UTF-8 that is.
        for bad in [&b"\xff"[..], b"\xc3(", b"\xe2\x82", b"\xed\xa0\x80"] {
            for (before, after) in [(0, 200), (63, 1), (130, 70)] {
                let text = [&b"a".repeat(before)[..], bad, &b"b".repeat(after)].concat();
                assert!(rest(&text).is_none(), "{text:?}");
            }
        }
        let text = ["a".repeat(100), "é😀".to_owned(), "b".repeat(100)].concat();
        assert_eq!(rest(text.as_bytes()).map(|r| r.chars), Some(202));
    }
}
