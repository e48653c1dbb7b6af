//! Lone UTF-16 surrogates, carried through as pi carries them.
//!
//! pi's strings are JavaScript's: UTF-16 code units, where a lone surrogate (`"\ud83d"` in a
//! file, a text cut inside an emoji) survives `JSON.parse` and `JSON.stringify` writes it back
//! as that escape. A Rust `String` cannot hold one, so the one decoder (`json::decode`) puts a
//! *stand-in* in its place: the code unit `u` becomes the character `U+10F800 + (u - 0xD800)`,
//! the last 2048 code points of plane 16 (private use). A real character in that range is
//! decoded as the stand-ins of its two code units, so no text is ambiguous, and a high stand-in
//! followed by a low one is that pair again, as concatenating the halves is in JavaScript.
//!
//! Strings with stand-ins concatenate, trim and compare like any other, so the commands need
//! no other string type. Only output looks at them: JSON through [`write`] / [`to_string`]
//! (the escape pi writes), text for people through [`for_display`] (U+FFFD), lengths in UTF-16
//! units through [`js_len_of`].
//!
//! The one JSON writer lives here too, and with it the one other character rule of every JSON
//! pisess writes: the C1 and bidi controls a terminal acts on are written as `\u` escapes
//! ([`is_terminal_control`], [`escape_json_line`]).

use std::borrow::Cow;
use std::io;

use serde::Serialize;

/// The stand-in of code unit 0xD800; 0xDFFF's is U+10FFFF.
const BASE: u32 = 0x10_F800;

/// The stand-in for a surrogate code unit (0xD800..=0xDFFF).
pub fn standin(unit: u16) -> char {
    debug_assert!((0xD800..=0xDFFF).contains(&unit));
    char::from_u32(BASE + u32::from(unit - 0xD800)).unwrap_or('\u{fffd}')
}

/// The code unit a stand-in holds, or `None` for any other character.
fn unit_of(c: char) -> Option<u16> {
    let c = u32::from(c);
    (c >= BASE).then(|| u16::try_from(c - BASE + 0xD800).unwrap_or(0xFFFD))
}

/// A character in the stand-ins' range, written as the stand-ins of its two code units.
pub(crate) fn push_escaped_char(c: char, out: &mut String) {
    let mut units = [0; 2];
    for &unit in c.encode_utf16(&mut units).iter() {
        out.push(standin(unit));
    }
}

/// Whether `c` is in the stand-ins' range (a stand-in, or a real character the decoder must
/// write as two).
pub(crate) fn in_range(c: char) -> bool {
    unit_of(c).is_some()
}

/// Whether `s` holds a stand-in: a cheap byte search (all stand-ins start `F4 8F A0..BF` in
/// UTF-8, and `F4` is rare in text).
pub fn has_standins(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(0xF4, b)
        .any(|at| b.get(at + 1) == Some(&0x8F) && b.get(at + 2).is_some_and(|&x| x >= 0xA0))
}

/// One character of a string with stand-ins: a character (a stand-in pair joined), or a lone
/// code unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Piece {
    Char(char),
    Lone(u16),
}

/// The characters of `s`, stand-ins resolved.
pub(crate) fn pieces(s: &str) -> impl Iterator<Item = Piece> + '_ {
    let mut chars = s.chars().peekable();
    std::iter::from_fn(move || {
        let c = chars.next()?;
        let Some(unit) = unit_of(c) else {
            return Some(Piece::Char(c));
        };
        let low = chars.peek().copied().and_then(unit_of);
        if let (0xD800..=0xDBFF, Some(low @ 0xDC00..=0xDFFF)) = (unit, low) {
            chars.next();
            let pair = char::decode_utf16([unit, low]).next();
            return Some(Piece::Char(pair.and_then(Result::ok).unwrap_or('\u{fffd}')));
        }
        Some(Piece::Lone(unit))
    })
}

/// `s` for people: a lone surrogate is U+FFFD, a stand-in pair its character.
pub fn for_display(s: &str) -> Cow<'_, str> {
    if !has_standins(s) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(
        pieces(s)
            .map(|p| match p {
                Piece::Char(c) => c,
                Piece::Lone(_) => '\u{fffd}',
            })
            .collect(),
    )
}

/// JavaScript's `s.length` of a string with stand-ins: each stand-in is one code unit.
pub(crate) fn js_len_of(s: &str) -> usize {
    s.chars().map(units).sum()
}

/// The UTF-16 code units a character of a string with stand-ins is to JavaScript.
pub(crate) fn units(c: char) -> usize {
    if in_range(c) {
        1
    } else {
        c.len_utf16()
    }
}

/// serde_json's compact output, except where `JSON.stringify` writes otherwise: stand-ins as
/// what they stand for (a lone surrogate as its lowercase `\uXXXX` escape, a pair as its
/// character), and numbers as JavaScript's `Number.prototype.toString` (`0.000005`, not `5e-6`;
/// `10000000000000000`, not `1e16`; an integer beyond 2^53 as the double JavaScript holds).
/// One departure from `JSON.stringify`, for the value's sake on a terminal: DEL, the C1 and bidi
/// controls and the invisible characters ([`is_terminal_control`]) are written as `\u` escapes,
/// the same JSON value.
struct PiFormatter;

/// An integer as JavaScript holds it: exact up to 2^53, else the nearest double, written as
/// JavaScript writes that double. Its digits are made on the stack (a `to_string` each was a
/// tenth of a warm `ls --json`), the decimal text only for the rare inexact one.
fn write_js_integer<W: ?Sized + io::Write>(
    w: &mut W,
    negative: bool,
    magnitude: u128,
) -> io::Result<()> {
    if magnitude <= u128::from(EXACT) {
        let mut buf = [0; 40];
        return w.write_all(digits(negative, magnitude, &mut buf));
    }
    // The decimal text read as a double rounds as `JSON.parse` does.
    let text = format!("{}{magnitude}", if negative { "-" } else { "" });
    let value: f64 = text.parse().unwrap_or(f64::NAN);
    write_js_f64(w, value)
}

/// The decimal digits of an integer, `-` first when it is negative, at the end of `buf`: in
/// u64 where it fits (a u128 division is a call each digit).
fn digits(negative: bool, magnitude: u128, buf: &mut [u8; 40]) -> &[u8] {
    let mut at = buf.len();
    match u64::try_from(magnitude) {
        Ok(mut m) => loop {
            at -= 1;
            buf[at] = b'0' + (m % 10) as u8;
            m /= 10;
            if m == 0 {
                break;
            }
        },
        Err(_) => {
            let mut m = magnitude;
            loop {
                at -= 1;
                buf[at] = b'0' + (m % 10) as u8;
                m /= 10;
                if m == 0 {
                    break;
                }
            }
        }
    }
    if negative {
        at -= 1;
        buf[at] = b'-';
    }
    &buf[at..]
}

fn write_js_f64<W: ?Sized + io::Write>(w: &mut W, value: f64) -> io::Result<()> {
    if !value.is_finite() {
        // serde_json writes non-finite values as `null` before a formatter sees them; a
        // formatter called directly keeps to the same rule.
        return w.write_all(b"null");
    }
    let mut buf = ryu_js::Buffer::new();
    w.write_all(buf.format_finite(value).as_bytes())
}

/// 2^53: integers up to it are exact in a double.
const EXACT: u64 = 1 << 53;

impl serde_json::ser::Formatter for PiFormatter {
    fn write_f64<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        write_js_f64(w, value)
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, w: &mut W, value: f32) -> io::Result<()> {
        write_js_f64(w, f64::from(value))
    }

    fn write_u64<W: ?Sized + io::Write>(&mut self, w: &mut W, value: u64) -> io::Result<()> {
        write_js_integer(w, false, u128::from(value))
    }

    fn write_i64<W: ?Sized + io::Write>(&mut self, w: &mut W, value: i64) -> io::Result<()> {
        write_js_integer(w, value < 0, u128::from(value.unsigned_abs()))
    }

    fn write_u128<W: ?Sized + io::Write>(&mut self, w: &mut W, value: u128) -> io::Result<()> {
        write_js_integer(w, false, value)
    }

    fn write_i128<W: ?Sized + io::Write>(&mut self, w: &mut W, value: i128) -> io::Result<()> {
        write_js_integer(w, value < 0, value.unsigned_abs())
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if !has_standins(fragment) {
            if !has_terminal_controls(fragment) {
                return w.write_all(fragment.as_bytes());
            }
            return w.write_all(&escape_json_line(fragment.as_bytes()));
        }
        let mut buf = [0; 4];
        for piece in pieces(fragment) {
            match piece {
                Piece::Char(c) if is_terminal_control(c) => {
                    let mut escape = Vec::with_capacity(6);
                    push_escape(&mut escape, c);
                    w.write_all(&escape)?;
                }
                Piece::Char(c) => w.write_all(c.encode_utf8(&mut buf).as_bytes())?,
                Piece::Lone(unit) => write!(w, "\\u{unit:04x}")?,
            }
        }
        Ok(())
    }
}

/// Writes `value` as compact JSON, as pi would: the one JSON writer of every command.
pub fn write<W: io::Write, T: Serialize + ?Sized>(w: W, value: &T) -> serde_json::Result<()> {
    value.serialize(&mut serde_json::Serializer::with_formatter(w, PiFormatter))
}

/// What [`write`] writes of a string, into `out`, without going through serde: `ls --json`
/// writes 10,000 rows from the cache, where serde_json's byte-at-a-time escape was a third of
/// the run. A string with a stand-in or a terminal control goes through [`write`] itself; any other is escaped as
/// serde_json escapes it (`"`, `\\`, the short escapes of `\b \t \n \f \r`, every other
/// control character as lowercase `\u00XX`), runs of plain bytes copied whole.
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    if has_standins(s) || has_terminal_controls(s) {
        // Into memory: cannot fail.
        let _ = write(&mut *out, s);
        return;
    }
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    loop {
        let at = next_escaped(bytes, start);
        out.extend_from_slice(&bytes[start..at]);
        let Some(&byte) = bytes.get(at) else {
            break;
        };
        start = at + 1;
        let short = match byte {
            b'"' => b'"',
            b'\\' => b'\\',
            0x08 => b'b',
            0x09 => b't',
            0x0A => b'n',
            0x0C => b'f',
            0x0D => b'r',
            _ => b'u',
        };
        if short == b'u' {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xF)],
            ]);
        } else {
            out.extend_from_slice(&[b'\\', short]);
        }
    }
    out.push(b'"');
}

/// Where the first byte from `at` on that JSON escapes is (below 0x20, `"` or `\\`), or the
/// end: eight bytes at a time.
fn next_escaped(bytes: &[u8], mut at: usize) -> usize {
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mask = escaped_bytes(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        if mask != 0 {
            // Little-endian: the lowest marked byte is the first.
            return at + mask.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    let escaped = |b: &u8| *b < 0x20 || *b == b'"' || *b == b'\\';
    bytes[at..]
        .iter()
        .position(escaped)
        .map_or(bytes.len(), |i| at + i)
}

/// The high bit of each byte of `word` that JSON escapes (below 0x20, `"` or `\\`), by the
/// classic "has a zero byte" test on the word xor each of the two and on it below 0x20. A
/// borrow can mark a byte above a marked one wrongly, never one below: the lowest mark is
/// always right, and none means none.
fn escaped_bytes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_in = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let below_0x20 = word.wrapping_sub(ONES * 0x20) & !word & HIGHS;
    zero_in(word ^ (ONES * u64::from(b'"')))
        | zero_in(word ^ (ONES * u64::from(b'\\')))
        | below_0x20
}

/// What [`write`] writes of an unsigned integer, into `out`.
pub fn push_u64(out: &mut Vec<u8>, value: u64) {
    // Into memory: cannot fail.
    let _ = write_js_integer(out, false, u128::from(value));
}

/// What [`write`] writes of a signed integer, into `out`.
pub(crate) fn push_i64(out: &mut Vec<u8>, value: i64) {
    let _ = write_js_integer(out, value < 0, u128::from(value.unsigned_abs()));
}

/// What [`write`] writes of a double, into `out` (`null` when it is not finite).
pub(crate) fn push_f64(out: &mut Vec<u8>, value: f64) {
    let _ = write_js_f64(out, value);
}

/// [`write`] into a string.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail, and the formatter writes UTF-8 only.
    let _ = write(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
}

// ---- Terminal controls ----
// Characters a terminal acts on, or that hide or reorder text, that JSON does not escape: DEL
// (U+007F), the C1 controls (U+0080 to U+009F; VTE, screen and mosh read U+009B as CSI and
// U+009D as OSC), every bidirectional control (the marks U+061C ALM, U+200E LRM and U+200F RLM,
// the embeddings and overrides U+202A to U+202E, the isolates U+2066 to U+2069), which reorder
// what is shown around them, the zero-width characters U+200B to U+200D and U+FEFF, and the
// line and paragraph separators U+2028 and U+2029.
//
// Every JSON pisess writes spells them as `\u` escapes (the same JSON value, see
// docs/json.md); the stored lines `show --json` copies are rewritten so on a terminal only.

/// Whether `c` is one of the characters this module escapes.
pub fn is_terminal_control(c: char) -> bool {
    matches!(
        c,
        '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// The length of the UTF-8 sequence at `b[at..]` when it encodes such a character (1 to 3),
/// else 0. DEL is `7F`, a C1 control `C2 80..9F`, U+061C `D8 9C`; U+200B..F are
/// `E2 80 8B..8F`, U+2028..U+202E `E2 80 A8..AE`, the isolates `E2 81 A6..A9`, U+FEFF
/// `EF BB BF`.
fn control_len(b: &[u8], at: usize) -> usize {
    match (b[at], b.get(at + 1), b.get(at + 2)) {
        (0x7F, _, _) => 1,
        (0xC2, Some(0x80..=0x9F), _) | (0xD8, Some(0x9C), _) => 2,
        (0xE2, Some(0x80), Some(0x8B..=0x8F | 0xA8..=0xAE))
        | (0xE2, Some(0x81), Some(0xA6..=0xA9))
        | (0xEF, Some(0xBB), Some(0xBF)) => 3,
        _ => 0,
    }
}

/// Whether byte `x` can start such a character.
fn starts_control(x: u8) -> bool {
    matches!(x, 0x7F | 0xC2 | 0xD8 | 0xE2 | 0xEF)
}

/// Where the first such character of `b` at or after `from` starts, or `None`: only bytes
/// `7F`, `C2`, `D8`, `E2` and `EF` can start one, looked for block by block by a pass that
/// compiles to vector instructions; a start that is no such character (`E2` begins `—`, `…`,
/// `→`) is passed and the search goes on from the next byte, not byte by byte to the end.
pub(crate) fn next_control(b: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(start) = next_start(b, at) {
        if control_len(b, start) > 0 {
            return Some(start);
        }
        at = start + 1;
    }
    None
}

/// Where the first byte of `b` at or after `from` that [`starts_control`] is. 64 bytes at a
/// time with no exit inside a block (as `util::bytes::any_byte`, which this floor of the
/// layers may not use), then the block that has one, byte by byte.
fn next_start(b: &[u8], from: usize) -> Option<usize> {
    let rest = &b[from..];
    let mut blocks = rest.chunks_exact(64);
    let mut base = from;
    for block in blocks.by_ref() {
        if block
            .iter()
            .fold(false, |seen, &x| seen | starts_control(x))
        {
            return block
                .iter()
                .position(|&x| starts_control(x))
                .map(|i| base + i);
        }
        base += 64;
    }
    blocks
        .remainder()
        .iter()
        .position(|&x| starts_control(x))
        .map(|i| base + i)
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
pub fn escape_json_line(b: &[u8]) -> Cow<'_, [u8]> {
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
    use serde_json::json;

    /// Odd numbers, as a session might store them or pisess compute them: JavaScript switches
    /// to exponent form below 1e-6 and from 1e21, and holds integers beyond 2^53 rounded.
    const ODD_NUMBERS: &str =
        "[0, -0, 0.0, 1, -1, 1.5, 0.1, 0.30000000000000004, 5e-6, 1e-6, 1e-7, \
        1.5e-7, 0.000001, 123e-20, 1e16, 1e20, 1e21, 1.5e21, 123456789012345680000, \
        9007199254740991, 9007199254740992, 9007199254740993, -9007199254740993, \
        18446744073709551615, -9223372036854775808, 12345678901234567890123, \
        1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, 4.35, 100, 1e2, 2.5e-3, \
        0.1e1, 1E+2, 3.0000000000000004, 1000000000000000100000, 999999999999999900000]";

    /// The search by blocks finds what a walk of every byte finds, with starts that are no
    /// such character (`—`, `…`, a lone `E2`) before, between and across the 64-byte blocks.
    #[test]
    fn next_control_finds_what_a_walk_of_every_byte_finds() {
        let pieces: [&[u8]; 12] = [
            b"a",
            b"0123456789abcdef",
            "\u{2014}".as_bytes(),
            "\u{2026}".as_bytes(),
            b"\xE2",
            b"\xE2\x80",
            "\u{200B}".as_bytes(),
            "\u{9B}".as_bytes(),
            b"\x7F",
            "\u{FEFF}".as_bytes(),
            "\u{2066}".as_bytes(),
            "\u{61C}".as_bytes(),
        ];
        let walk = |b: &[u8], from: usize| (from..b.len()).find(|&at| control_len(b, at) > 0);
        // A small generator, so the cases are the same every run.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..20_000 {
            let mut b = Vec::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let mut pick = seed;
            for _ in 0..(seed % 24) {
                // Mostly plain and non-control text, now and then a control.
                let i = (pick % 64) as usize;
                b.extend_from_slice(pieces[if i < 52 { i % 6 } else { i % 12 }]);
                pick = pick.rotate_right(5) ^ 0x9E37_79B9_7F4A_7C15;
            }
            for from in [0, 1, 63, 64, b.len() / 2, b.len()] {
                if from <= b.len() {
                    assert_eq!(next_control(&b, from), walk(&b, from), "{b:?} from {from}");
                }
            }
        }
    }

    #[test]
    fn numbers_are_written_as_json_stringify_writes_them() {
        let value: serde_json::Value = serde_json::from_str(ODD_NUMBERS).unwrap();
        let ours = to_string(&value);
        // Fixed expectations for the cases the issue names, so the test fails without node too.
        for js in [
            "0.000005",
            "10000000000000000",
            "1e+21",
            "1.5e-7",
            "9007199254740992,",
        ] {
            assert!(ours.contains(js), "{js} missing from {ours}");
        }
        assert!(!ours.contains("5e-6") && !ours.contains("1e16"), "{ours}");
        assert_eq!(to_string(&0.1_f64), "0.1");
        assert_eq!(to_string(&(0.1_f64 + 0.2)), "0.30000000000000004");
        assert_eq!(to_string(&f64::INFINITY), "null");
        assert_eq!(to_string(&u64::MAX), "18446744073709552000");
        // The same text through `JSON.parse` and `JSON.stringify`, when node is on the PATH.
        let Ok(out) = std::process::Command::new("node")
            .args([
                "-e",
                "process.stdout.write(JSON.stringify(JSON.parse(process.argv[1])))",
            ])
            .arg(ODD_NUMBERS)
            .output()
        else {
            crate::missing_tool("node (the fixed expectations are checked alone)");
            return;
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(ours, String::from_utf8(out.stdout).unwrap());
    }

    /// [`push_str`] is [`write`] of the string, on random strings of the characters that
    /// matter to it: every escaped kind, bytes just beside them, multi-byte ones, stand-ins.
    #[test]
    fn a_pushed_string_is_the_written_one() {
        let alphabet = [
            "a",
            "\"",
            "\\",
            "\n",
            "\u{1}",
            "\u{1f}",
            " ",
            "!",
            "#",
            "[",
            "]",
            "\u{7f}",
            "é",
            "😀",
            "\u{10f7ff}",
        ];
        let lone = standin(0xD83D).to_string();
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 40) as usize;
            let mut text = String::new();
            for i in 0..len {
                let pick = (x >> (i % 50)) as usize ^ (i * 31);
                if x.is_multiple_of(97) && i == len / 2 {
                    text.push_str(&lone);
                }
                text.push_str(alphabet[pick % alphabet.len()]);
            }
            let mut want = Vec::new();
            write(&mut want, &text).unwrap();
            let mut got = Vec::new();
            push_str(&mut got, &text);
            assert_eq!(got, want, "{text:?}");
        }
    }

    #[test]
    fn stand_ins_round_trip_as_pi_writes_them() {
        let lone_high = standin(0xD83D);
        let lone_low = standin(0xDE00);
        let text = format!("cut {lone_high}, low {lone_low}, joined {lone_high}{lone_low}");
        assert!(has_standins(&text));
        assert!(!has_standins("plain \u{10f7ff} 😀"));
        assert_eq!(
            to_string(&json!({ "t": text, "k\n": [1.5] })),
            r#"{"t":"cut \ud83d, low \ude00, joined 😀","k\n":[1.5]}"#
        );
        assert_eq!(for_display(&text), "cut \u{fffd}, low \u{fffd}, joined 😀");
        // "cut " + 1 + ", low " + 1 + ", joined " + 2 units.
        assert_eq!(js_len_of(&text), 4 + 1 + 6 + 1 + 9 + 2);
        // A real character of the stand-ins' range, as the decoder writes it, is itself again.
        let mut real = String::new();
        push_escaped_char('\u{10ffff}', &mut real);
        assert_eq!(real.chars().count(), 2);
        assert_eq!(to_string(&real), "\"\u{10ffff}\"");
        assert_eq!(for_display(&real), "\u{10ffff}");
        assert_eq!(js_len_of(&real), 2);
        // A high stand-in before a real character's pair stays lone.
        let mixed = format!("{lone_high}{real}");
        assert_eq!(to_string(&mixed), "\"\\ud83d\u{10ffff}\"");
    }
}

#[cfg(test)]
mod control_tests {
    use super::*;

    #[test]
    fn every_control_and_only_those_is_found_by_its_bytes() {
        for c in (0..=0x1_0000u32).filter_map(char::from_u32) {
            let s = format!("a{c}b");
            assert_eq!(has_terminal_controls(&s), is_terminal_control(c), "{c:?}");
        }
    }

    /// Red team repro 06: the bidi marks, the zero-width characters, the separators and DEL
    /// were written raw (only U+202A..E, U+2066..9 and C1 were escaped).
    #[test]
    fn bidi_marks_and_invisible_characters_are_escaped_keeping_the_value() {
        let all = "\u{7f}\u{61c}\u{200b}\u{200c}\u{200d}\u{200e}\u{200f}\u{2028}\u{2029}\u{feff}";
        for c in all.chars() {
            assert!(is_terminal_control(c), "{c:?}");
        }
        let line = format!("{{\"t\":\"a{all}b \u{a0}\u{600}\u{2010}\u{feff}\"}}");
        let escaped = escape_json_line(line.as_bytes());
        let text = std::str::from_utf8(&escaped).unwrap();
        assert_eq!(
            text,
            "{\"t\":\"a\\u007f\\u061c\\u200b\\u200c\\u200d\\u200e\\u200f\\u2028\\u2029\\ufeffb \u{a0}\u{600}\u{2010}\\ufeff\"}"
        );
        let a: serde_json::Value = serde_json::from_str(&line).unwrap();
        let b: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(a, b);
        assert_eq!(to_string(&a), text);
        let mut pushed = Vec::new();
        push_str(&mut pushed, a["t"].as_str().unwrap());
        assert!(text.contains(std::str::from_utf8(&pushed).unwrap()));
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
        assert!(matches!(
            escape_json_line(b"{\"a\":\"\xff\"}"),
            Cow::Borrowed(_)
        ));
    }
}
