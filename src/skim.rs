//! Skimming JSON: checking a line's syntax at close to memory speed and finding where each of
//! its values lies, without decoding them.
//!
//! Most of a session's bytes are the insides of a few long strings (tool output, file contents,
//! base64 images). serde_json steps through those 8 bytes at a time and restarts at every
//! escape, which made its validation alone 3.5× `cat` (docs/performance.md); here they are
//! searched 16 bytes at a time with SSE2, and an escape costs a few instructions.
//!
//! This is not a second parser: it decodes nothing. [`Skim`] only vouches for a line: it accepts
//! a subset of what serde_json's `IgnoredAny` accepts, and anything it is unsure of (an escaped
//! or non-UTF-8 key, nesting 100 levels deep, any syntax error) is [`Unsure`], and the caller
//! hands the line to serde_json, which decides and words the error. The values a caller keeps
//! are decoded by serde_json from the spans found here (`model::LineView::skim`).

/// The skim cannot vouch for the line: serde_json must decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsure;

type Result<T> = std::result::Result<T, Unsure>;

/// Lines nested this deep are left to the full decode, which has its own limit (128 levels);
/// `session::may_be_too_deep` draws the same line.
pub const MAX_DEPTH: usize = 100;

/// A cursor over one line.
pub struct Skim<'a> {
    bytes: &'a [u8],
    at: usize,
    depth: usize,
}

/// Where [`Skim::next_key`] is inside one object.
pub struct Members {
    first: bool,
}

impl<'a> Skim<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Skim {
            bytes,
            at: 0,
            depth: 0,
        }
    }

    /// The next byte after JSON whitespace (the four serde_json skips).
    fn peek(&mut self) -> Option<u8> {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
        self.bytes.get(self.at).copied()
    }

    fn eat(&mut self, b: u8) -> Result<()> {
        if self.peek() == Some(b) {
            self.at += 1;
            Ok(())
        } else {
            Err(Unsure)
        }
    }

    /// Whether the next value is an object.
    pub fn at_object(&mut self) -> bool {
        self.peek() == Some(b'{')
    }

    /// Enters the object that comes next.
    pub fn object(&mut self) -> Result<Members> {
        self.eat(b'{')?;
        self.enter()?;
        Ok(Members { first: true })
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth >= MAX_DEPTH {
            return Err(Unsure);
        }
        Ok(())
    }

    /// The next key of the object `members` walks, with its colon eaten, or `None` once its
    /// closing brace is eaten. The caller then reads or skips the value.
    pub fn next_key(&mut self, members: &mut Members) -> Result<Option<&'a str>> {
        if self.peek() == Some(b'}') {
            self.at += 1;
            self.depth -= 1;
            return Ok(None);
        }
        if !std::mem::replace(&mut members.first, false) {
            self.eat(b',')?;
        }
        let key = self.key()?;
        self.eat(b':')?;
        Ok(Some(key))
    }

    /// A key as serde_json's derived structs compare it; escaped keys (`"typ\u0065"`) and
    /// non-UTF-8 ones are left to serde_json.
    fn key(&mut self) -> Result<&'a str> {
        if self.peek() != Some(b'"') {
            return Err(Unsure);
        }
        let span = self.string()?;
        let inner = &span[1..span.len() - 1];
        if inner.contains(&b'\\') {
            return Err(Unsure);
        }
        std::str::from_utf8(inner).map_err(|_| Unsure)
    }

    /// Skips the next value; its text, exactly (no surrounding whitespace).
    pub fn value(&mut self) -> Result<&'a [u8]> {
        self.peek();
        let start = self.at;
        let base = self.depth;
        // One bit per open container below `base`: set for an object. MAX_DEPTH < 128.
        let mut objects: u128 = 0;
        loop {
            // A value.
            match self.peek().ok_or(Unsure)? {
                open @ (b'{' | b'[') => {
                    self.at += 1;
                    self.enter()?;
                    let object = open == b'{';
                    objects = objects << 1 | u128::from(object);
                    let close = if object { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.at += 1;
                        self.depth -= 1;
                        objects >>= 1;
                    } else {
                        if object {
                            self.key_and_colon()?;
                        }
                        continue;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal(b"true")?,
                b'f' => self.literal(b"false")?,
                b'n' => self.literal(b"null")?,
                _ => return Err(Unsure),
            }
            // After a value: close containers until one continues with a comma.
            loop {
                if self.depth == base {
                    return Ok(&self.bytes[start..self.at]);
                }
                let object = objects & 1 == 1;
                match self.peek().ok_or(Unsure)? {
                    b',' => {
                        self.at += 1;
                        if object {
                            self.key_and_colon()?;
                        }
                        break;
                    }
                    b'}' if object => {}
                    b']' if !object => {}
                    _ => return Err(Unsure),
                }
                self.at += 1;
                self.depth -= 1;
                objects >>= 1;
            }
        }
    }

    fn key_and_colon(&mut self) -> Result<()> {
        if self.peek() != Some(b'"') {
            return Err(Unsure);
        }
        self.string()?;
        self.eat(b':')
    }

    /// Only whitespace is left.
    pub fn end(mut self) -> Result<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(Unsure),
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<()> {
        if self.bytes[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(Unsure)
        }
    }

    /// JSON's number grammar, as serde_json's `ignore_integer` checks it: no leading zeros, a
    /// digit after `.` and after the exponent's sign.
    fn number(&mut self) -> Result<()> {
        let b = self.bytes;
        let digits = |at: usize| b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
        let mut at = self.at + usize::from(b[self.at] == b'-');
        match b.get(at) {
            Some(b'0') => at += 1,
            Some(b'1'..=b'9') => at += digits(at),
            _ => return Err(Unsure),
        }
        if b.get(at) == Some(&b'.') {
            let n = digits(at + 1);
            if n == 0 {
                return Err(Unsure);
            }
            at += 1 + n;
        }
        if let Some(b'e' | b'E') = b.get(at) {
            at += 1;
            if let Some(b'+' | b'-') = b.get(at) {
                at += 1;
            }
            let n = digits(at);
            if n == 0 {
                return Err(Unsure);
            }
            at += n;
        }
        // `01`: serde_json refuses a digit after a leading zero.
        if b.get(at).is_some_and(u8::is_ascii_digit) {
            return Err(Unsure);
        }
        self.at = at;
        Ok(())
    }

    /// The string that starts at the cursor, quotes included. serde_json's rules for a string
    /// it skips: no control characters, only its eight escapes and `\u` with four hex digits
    /// (any code point: a lone surrogate is the decoder's business), and bytes not checked as
    /// UTF-8.
    fn string(&mut self) -> Result<&'a [u8]> {
        let b = self.bytes;
        let start = self.at;
        let mut at = start + 1;
        loop {
            at = next_special(b, at);
            match b.get(at) {
                Some(b'"') => {
                    self.at = at + 1;
                    return Ok(&b[start..self.at]);
                }
                Some(b'\\') => at = escape_end(b, at)?,
                // A control character, or the end of the line inside the string.
                _ => return Err(Unsure),
            }
        }
    }
}

/// Where the escape at `at` (a backslash) ends.
#[inline(always)]
fn escape_end(b: &[u8], at: usize) -> Result<usize> {
    match b.get(at + 1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(at + 2),
        Some(b'u') => match b.get(at + 2..at + 6) {
            Some(hex) if hex.iter().all(u8::is_ascii_hexdigit) => Ok(at + 6),
            _ => Err(Unsure),
        },
        _ => Err(Unsure),
    }
}

/// The position of the first quote, backslash or control character (below 0x20) at or after
/// `at`, or `bytes.len()`.
#[inline(always)]
fn next_special(bytes: &[u8], at: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    let at = match sse2::find_special(bytes, at) {
        Ok(found) => return found,
        Err(tail) => tail,
    };
    next_special_scalar(bytes, at)
}

fn next_special_scalar(bytes: &[u8], at: usize) -> usize {
    bytes
        .get(at..)
        .and_then(|rest| {
            rest.iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        })
        .map_or(bytes.len(), |n| at + n)
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };

    /// Searches whole 16-byte blocks from `at`: `Ok` with the position of the first special
    /// byte, or `Err` with where the unsearched tail (under 16 bytes) starts. SSE2 is part of
    /// every x86_64 CPU, so no feature detection is needed.
    #[inline(always)]
    pub fn find_special(bytes: &[u8], mut at: usize) -> Result<usize, usize> {
        // SAFETY: SSE2 is always present on x86_64, and every load reads 16 bytes inside
        // `bytes` (`at + 16 <= bytes.len()`); `loadu` has no alignment requirement.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            let control_max = _mm_set1_epi8(0x1f);
            while at + 16 <= bytes.len() {
                let block = _mm_loadu_si128(bytes.as_ptr().add(at).cast::<__m128i>());
                // Unsigned `min(x, 0x1f) == x` is `x <= 0x1f`.
                let control = _mm_cmpeq_epi8(_mm_min_epu8(block, control_max), block);
                let special = _mm_or_si128(
                    _mm_or_si128(
                        _mm_cmpeq_epi8(block, quote),
                        _mm_cmpeq_epi8(block, backslash),
                    ),
                    control,
                );
                let mask = _mm_movemask_epi8(special) as u32;
                if mask != 0 {
                    return Ok(at + mask.trailing_zeros() as usize);
                }
                at += 16;
            }
        }
        Err(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Skims `text` as one value and requires only whitespace after it.
    fn skim(text: &str) -> Result<&[u8]> {
        let mut s = Skim::new(text.as_bytes());
        let v = s.value()?;
        s.end()?;
        Ok(v)
    }

    #[test]
    fn special_bytes_found_in_every_position() {
        for len in 0..70 {
            for at in 0..len {
                for special in [b'"', b'\\', 0u8, 0x1f] {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = special;
                    // Bytes above 0x7f are plain: signed comparison would call them control.
                    if at > 0 {
                        bytes[at - 1] = 0xff;
                    }
                    assert_eq!(next_special(&bytes, 0), at, "len {len} at {at}");
                    assert_eq!(next_special_scalar(&bytes, 0), at);
                }
            }
            assert_eq!(next_special(&vec![0x80; len], 0), len);
        }
    }

    #[test]
    fn accepts_what_serde_json_accepts() {
        for text in [
            r#"{"a":[1,-0.5e+3,true,false,null,{},[]],"b":{"c":"x\"\\\/\b\f\n\r\tA\u00e9"}}"#,
            " \t{ \"a\" : [ 1 , 2 ] } \r",
            r#""\ud800""#,
            "0",
            "-0",
            "1E9",
            "[[[[]]]]",
        ] {
            assert!(skim(text).is_ok(), "{text}");
            let ignored: serde_json::Result<serde::de::IgnoredAny> = serde_json::from_str(text);
            assert!(ignored.is_ok(), "{text}");
        }
        assert_eq!(skim(r#" {"a": 1} "#).unwrap(), br#"{"a": 1}"#);
    }

    #[test]
    fn unsure_of_everything_serde_json_refuses() {
        for text in [
            "",
            "{",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "[1,]",
            "[,1]",
            "{,}",
            "01",
            "-",
            "1.",
            "1e",
            "1e+",
            ".5",
            "+1",
            "tru",
            "nul",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\u12g4\"",
            "\"a",
            "\"a\u{1}\"",
            "[1 2]",
            "{\"a\" 1}",
            "[}",
            "{]",
            "1 2",
            "{\"a\":1}}",
            "\u{c}{}",
        ] {
            assert_eq!(skim(text), Err(Unsure), "{text:?}");
            let ignored: serde_json::Result<serde::de::IgnoredAny> = serde_json::from_str(text);
            assert!(ignored.is_err(), "{text:?}");
        }
    }

    #[test]
    fn depth_is_left_to_the_full_decode() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(skim(&nested(MAX_DEPTH - 1)).is_ok());
        assert_eq!(skim(&nested(MAX_DEPTH)), Err(Unsure));
    }

    #[test]
    fn keys_are_read_only_when_plain() {
        let mut s = Skim::new(br#"{"type":1,"typ\u0065":2}"#);
        let mut m = s.object().unwrap();
        assert_eq!(s.next_key(&mut m), Ok(Some("type")));
        assert_eq!(s.value(), Ok(&b"1"[..]));
        assert_eq!(s.next_key(&mut m), Err(Unsure));
    }
}
