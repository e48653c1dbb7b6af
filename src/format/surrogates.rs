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

use std::borrow::Cow;
use std::io;

use serde::Serialize;

/// The stand-in of code unit 0xD800; 0xDFFF's is U+10FFFF.
const BASE: u32 = 0x10_F800;

/// The stand-in for a surrogate code unit (0xD800..=0xDFFF).
pub(crate) fn standin(unit: u16) -> char {
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
pub(crate) fn has_standins(s: &str) -> bool {
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
pub(crate) fn for_display(s: &str) -> Cow<'_, str> {
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
struct PiFormatter;

/// An integer as JavaScript holds it: exact up to 2^53, else the nearest double, written as
/// JavaScript writes that double.
fn write_js_integer<W: ?Sized + io::Write>(w: &mut W, digits: &str, exact: bool) -> io::Result<()> {
    if exact {
        return w.write_all(digits.as_bytes());
    }
    // The decimal text read as a double rounds as `JSON.parse` does.
    let value: f64 = digits.parse().unwrap_or(f64::NAN);
    write_js_f64(w, value)
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
        write_js_integer(w, &value.to_string(), value <= EXACT)
    }

    fn write_i64<W: ?Sized + io::Write>(&mut self, w: &mut W, value: i64) -> io::Result<()> {
        write_js_integer(w, &value.to_string(), value.unsigned_abs() <= EXACT)
    }

    fn write_u128<W: ?Sized + io::Write>(&mut self, w: &mut W, value: u128) -> io::Result<()> {
        write_js_integer(w, &value.to_string(), value <= u128::from(EXACT))
    }

    fn write_i128<W: ?Sized + io::Write>(&mut self, w: &mut W, value: i128) -> io::Result<()> {
        write_js_integer(
            w,
            &value.to_string(),
            value.unsigned_abs() <= u128::from(EXACT),
        )
    }

    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if !has_standins(fragment) {
            return w.write_all(fragment.as_bytes());
        }
        let mut buf = [0; 4];
        for piece in pieces(fragment) {
            match piece {
                Piece::Char(c) => w.write_all(c.encode_utf8(&mut buf).as_bytes())?,
                Piece::Lone(unit) => write!(w, "\\u{unit:04x}")?,
            }
        }
        Ok(())
    }
}

/// Writes `value` as compact JSON, as pi would: the one JSON writer of every command.
pub(crate) fn write<W: io::Write, T: Serialize + ?Sized>(
    w: W,
    value: &T,
) -> serde_json::Result<()> {
    value.serialize(&mut serde_json::Serializer::with_formatter(w, PiFormatter))
}

/// [`write`] into a string.
pub(crate) fn to_string<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail, and the formatter writes UTF-8 only.
    let _ = write(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
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
            eprintln!("node not found: the fixed expectations are checked alone");
            return;
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(ours, String::from_utf8(out.stdout).unwrap());
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
