//! Skimming JSON: checking a line's syntax at close to memory speed and finding where each of
//! its values lies, without decoding them.
//!
//! Most of a session's bytes are the insides of a few long strings (tool output, file contents,
//! base64 images). serde_json steps through those 8 bytes at a time and restarts at every
//! escape, which made its validation alone 3.5× `cat` (docs/performance.md); here they are
//! scanned 64 bytes at a time with SSE2 or AVX2 (`simd`), escapes included.
//!
//! This is not a second parser: it decodes nothing. [`Skim`] only vouches for a line: it accepts
//! a subset of what serde_json's `IgnoredAny` accepts, and anything it is unsure of (an escaped
//! or non-UTF-8 key, nesting 100 levels deep, any syntax error) is [`Unsure`], and the caller
//! hands the line to serde_json, which decides and words the error. Views read a line through
//! `crate::de`, the serde face of the skim: the values a view keeps are borrowed, or
//! decoded by serde_json from the spans found here.

/// The skim cannot vouch for the line: serde_json must decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsure;

pub(crate) type Result<T> = std::result::Result<T, Unsure>;

/// Lines nested this deep are left to the full decode (the one limit, in `json`);
/// `json::may_be_too_deep` draws the same line for the scan.
pub(crate) const MAX_DEPTH: usize = crate::json::MAX_DEPTH;

/// A cursor over one line.
#[derive(Clone)]
pub struct Skim<'a> {
    bytes: &'a [u8],
    pub(crate) at: usize,
    depth: usize,
}

/// Where [`Skim::next_key`] is inside one object.
pub(crate) struct Members {
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
    pub(crate) fn peek(&mut self) -> Option<u8> {
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

    /// The bytes read since `mark`.
    pub(crate) fn since(&self, mark: usize) -> &'a [u8] {
        &self.bytes[mark..self.at]
    }

    /// Whether the next value is an object.
    pub fn at_object(&mut self) -> bool {
        self.peek() == Some(b'{')
    }

    /// Whether the next value is an array.
    pub fn at_array(&mut self) -> bool {
        self.peek() == Some(b'[')
    }

    /// Enters the array that comes next.
    pub(crate) fn array(&mut self) -> Result<Members> {
        self.eat(b'[')?;
        self.enter()?;
        Ok(Members { first: true })
    }

    /// Whether the array `items` walks has another item (its comma eaten; the caller then
    /// reads or skips it), or not (its closing bracket eaten).
    pub(crate) fn next_item(&mut self, items: &mut Members) -> Result<bool> {
        self.next_member(items, b']')
    }

    /// Whether a container has another member (its comma eaten), or not (its `close` eaten).
    #[inline]
    fn next_member(&mut self, members: &mut Members, close: u8) -> Result<bool> {
        if self.peek() == Some(close) {
            self.at += 1;
            self.depth -= 1;
            return Ok(false);
        }
        if !std::mem::replace(&mut members.first, false) {
            self.eat(b',')?;
        }
        Ok(true)
    }

    /// Enters the object that comes next.
    pub(crate) fn object(&mut self) -> Result<Members> {
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
    pub(crate) fn next_key(&mut self, members: &mut Members) -> Result<Option<&'a [u8]>> {
        if !self.next_member(members, b'}')? {
            return Ok(None);
        }
        let key = self.key()?;
        self.eat(b':')?;
        Ok(Some(key))
    }

    /// The next key of the object `members` walks as stored, unquoted (escapes not decoded,
    /// bytes not checked as UTF-8), with its colon eaten, or `None` once its closing brace is
    /// eaten: for walks that decide themselves what an escaped key means.
    pub(crate) fn next_raw_key(&mut self, members: &mut Members) -> Result<Option<&'a [u8]>> {
        if !self.next_member(members, b'}')? {
            return Ok(None);
        }
        if self.peek() != Some(b'"') {
            return Err(Unsure);
        }
        let inner = match self.short_string() {
            Some(inner) => inner,
            None => {
                let span = self.string()?;
                &span[1..span.len() - 1]
            }
        };
        self.eat(b':')?;
        Ok(Some(inner))
    }

    /// A key as serde_json's derived structs compare it, unquoted; escaped keys
    /// (`"typ\u0065"`) and non-UTF-8 ones are left to serde_json. Bytes, not `str`: only a
    /// few ASCII names are ever looked for, and most keys need no UTF-8 check.
    fn key(&mut self) -> Result<&'a [u8]> {
        if self.peek() != Some(b'"') {
            return Err(Unsure);
        }
        // Nearly every key: no escape (nothing special before its quote), and ASCII.
        if let Some(inner) = self.short_string() {
            if !inner.is_ascii() && std::str::from_utf8(inner).is_err() {
                return Err(Unsure);
            }
            return Ok(inner);
        }
        let span = self.string()?;
        let inner = &span[1..span.len() - 1];
        if inner.contains(&b'\\') || !inner.is_ascii() && std::str::from_utf8(inner).is_err() {
            return Err(Unsure);
        }
        Ok(inner)
    }

    /// The insides of the string at the cursor, read past, when its closing quote is within
    /// 16 bytes with no backslash or control byte before it (keys, types, ids); `None` leaves
    /// the cursor for [`Skim::string`].
    #[inline]
    fn short_string(&mut self) -> Option<&'a [u8]> {
        #[cfg(target_arch = "x86_64")]
        if let Some(end) = simd::short_string_end(self.bytes, self.at + 1) {
            let inner = &self.bytes[self.at + 1..end];
            self.at = end + 1;
            return Some(inner);
        }
        None
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

    pub(crate) fn literal(&mut self, word: &[u8]) -> Result<()> {
        if self.bytes[self.at..].starts_with(word) {
            self.at += word.len();
            Ok(())
        } else {
            Err(Unsure)
        }
    }

    /// JSON's number grammar, as serde_json's `ignore_integer` checks it: no leading zeros, a
    /// digit after `.` and after the exponent's sign.
    pub(crate) fn number(&mut self) -> Result<()> {
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
    pub(crate) fn string(&mut self) -> Result<&'a [u8]> {
        let start = self.at;
        #[cfg(target_arch = "x86_64")]
        let end = match simd::string_end(self.bytes, start + 1)? {
            simd::End::Found(end) => end,
            simd::End::Tail(at) => string_end_scalar(self.bytes, at)?,
        };
        #[cfg(not(target_arch = "x86_64"))]
        let end = string_end_scalar(self.bytes, start + 1)?;
        self.at = end + 1;
        Ok(&self.bytes[start..self.at])
    }
}

/// The position of the quote that ends a string whose content starts at `at`, byte by byte:
/// for the last bytes of a line, other architectures, and as the tests' reference.
fn string_end_scalar(b: &[u8], mut at: usize) -> Result<usize> {
    loop {
        match *b.get(at).ok_or(Unsure)? {
            b'"' => return Ok(at),
            b'\\' => at = escape_end(b, at)?,
            0..=0x1f => return Err(Unsure),
            _ => at += 1,
        }
    }
}

/// Where the escape at `at` (a backslash) ends.
#[inline]
fn escape_end(b: &[u8], at: usize) -> Result<usize> {
    match b.get(at + 1) {
        Some(b'u') if hex4(b, at + 2) => Ok(at + 6),
        Some(&c) if SIMPLE_ESCAPE[usize::from(c)] => Ok(at + 2),
        _ => Err(Unsure),
    }
}

/// The bytes a backslash may escape besides `u`.
const SIMPLE_ESCAPE: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    let allowed = *b"\"\\/bfnrt";
    while i < allowed.len() {
        table[allowed[i] as usize] = true;
        i += 1;
    }
    table
};

/// Four hex digits at `at`.
fn hex4(b: &[u8], at: usize) -> bool {
    b.get(at..at + 4)
        .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
}

/// Strings 64 bytes at a time, as simdjson scans them: a mask of quotes, backslashes and
/// control characters per block, and the escaped bytes found with carries rather than a branch
/// per escape. Code-like text has an escape every 20-30 bytes; a byte-wise loop (or a search
/// that restarts after each escape) mispredicts a branch at nearly every one.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
pub(crate) mod simd {
    use super::{hex4, Result, Unsure};
    use std::arch::x86_64::{
        __m128i, __m256i, _mm256_and_si256, _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8,
        _mm256_cmpgt_epi8, _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8,
        _mm256_srli_epi16, _mm256_testz_si256, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
        _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_setzero_si128,
    };

    pub(super) enum End {
        /// The closing quote's position.
        Found(usize),
        /// No end in the whole blocks: go on byte by byte from here (a backslash, when the
        /// last block ended inside an escape).
        Tail(usize),
    }

    /// Bit `i` of each is byte `at + i` of a 64-byte block.
    #[derive(Default)]
    struct Masks {
        quote: u64,
        backslash: u64,
        control: u64,
    }

    /// One loop for both instruction sets: a function would not inline into the AVX2 one.
    /// `$masks` gives `None` for a block without a quote, a backslash or a control byte (most
    /// blocks of a long text: one test), and what an escape may be followed by is looked up
    /// (`$escapes`: the bytes a backslash may escape, and the `u`s among them) only in a block
    /// that holds one.
    macro_rules! string_end_blocks {
        ($b:expr, $at:expr, $masks:ident, $escapes:ident) => {{
            let (b, mut at) = ($b, $at);
            let mut carry = 0;
            while at + 64 <= b.len() {
                // The AVX2 masks are an `unsafe fn`, called from the body of `string_end_avx2`.
                let m = match $masks(b, at) {
                    Some(m) => m,
                    None if carry == 0 => {
                        at += 64;
                        continue;
                    }
                    // The first byte is escaped by the last block's backslash: look at it.
                    None => Masks::default(),
                };
                let escaped = escaped(m.backslash, &mut carry);
                let quotes = m.quote & !escaped;
                // The string's bytes in this block: those before its closing quote.
                let inside = if quotes == 0 {
                    u64::MAX
                } else {
                    (quotes & quotes.wrapping_neg()) - 1
                };
                let escaped = escaped & inside;
                if m.control & inside != 0 {
                    return Err(Unsure);
                }
                if escaped != 0 {
                    let (escapable, u) = $escapes(b, at);
                    if escaped & !escapable != 0 || !hex_digits_follow(b, at, escaped & u) {
                        return Err(Unsure);
                    }
                }
                if quotes != 0 {
                    return Ok(End::Found(at + quotes.trailing_zeros() as usize));
                }
                at += 64;
            }
            // The bytes left are fewer than a block. When the last block ended on an escaping
            // backslash, the scalar loop starts at it (a `\u`'s digits are plain bytes).
            Ok(End::Tail(at - carry as usize))
        }};
    }

    /// The block loop with AVX2 where the CPU has it (two loads a block, not four), after one
    /// 16-byte look that settles most strings by count (ids, types, times, roles, keys).
    pub(super) fn string_end(b: &[u8], at: usize) -> Result<End> {
        if let Some(end) = short_string_end(b, at) {
            return Ok(End::Found(end));
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked above.
            unsafe { string_end_avx2(b, at) }
        } else {
            string_end_sse2(b, at)
        }
    }

    pub(super) fn string_end_sse2(b: &[u8], at: usize) -> Result<End> {
        string_end_blocks!(b, at, masks_sse2, escapes_sse2)
    }

    #[target_feature(enable = "avx2")]
    unsafe fn string_end_avx2(b: &[u8], at: usize) -> Result<End> {
        // Calls `masks_avx2` and `escapes_avx2`, sound here: this function runs only on a CPU
        // with AVX2 (its caller checks), and the loop passes them 64 bytes inside `b`.
        string_end_blocks!(b, at, masks_avx2, escapes_avx2)
    }

    /// The closing quote within the 16 bytes from `at` when nothing special comes before it;
    /// `None` leaves the string to the block loop.
    #[inline(always)]
    pub(super) fn short_string_end(bytes: &[u8], at: usize) -> Option<usize> {
        if at + 16 > bytes.len() {
            return None;
        }
        // SAFETY: SSE2 is always present on x86_64, and the 16-byte load lies inside `bytes`
        // (checked above); `loadu` has no alignment requirement.
        let (quotes, others) = unsafe {
            let block = _mm_loadu_si128(bytes.as_ptr().add(at).cast::<__m128i>());
            let is = |c: u8| _mm_cmpeq_epi8(block, _mm_set1_epi8(c as i8));
            let control = _mm_cmpeq_epi8(_mm_min_epu8(block, _mm_set1_epi8(0x1f)), block);
            (
                _mm_movemask_epi8(is(b'"')) as u32,
                _mm_movemask_epi8(_mm_or_si128(is(b'\\'), control)) as u32,
            )
        };
        let before_quote = quotes.wrapping_sub(1) & !quotes;
        (quotes != 0 && others & before_quote == 0).then(|| at + quotes.trailing_zeros() as usize)
    }

    /// SSE2 is part of every x86_64 CPU.
    #[inline(always)]
    fn masks_sse2(bytes: &[u8], at: usize) -> Option<Masks> {
        assert!(at + 64 <= bytes.len());
        // SAFETY: SSE2 is always present on x86_64, and the four 16-byte loads lie inside
        // `bytes` (asserted above); `loadu` has no alignment requirement.
        unsafe {
            let splat = |c: u8| _mm_set1_epi8(c as i8);
            let (quote, backslash, control_max) = (splat(b'"'), splat(b'\\'), splat(0x1f));
            let mut v = [[_mm_setzero_si128(); 3]; 4];
            let mut any = _mm_setzero_si128();
            for (k, v) in v.iter_mut().enumerate() {
                let block = _mm_loadu_si128(bytes.as_ptr().add(at + 16 * k).cast::<__m128i>());
                // Unsigned `min(x, 0x1f) == x` is `x <= 0x1f`.
                *v = [
                    _mm_cmpeq_epi8(block, quote),
                    _mm_cmpeq_epi8(block, backslash),
                    _mm_cmpeq_epi8(_mm_min_epu8(block, control_max), block),
                ];
                any = _mm_or_si128(any, _mm_or_si128(_mm_or_si128(v[0], v[1]), v[2]));
            }
            if _mm_movemask_epi8(any) == 0 {
                return None;
            }
            let mut m = Masks::default();
            for (k, v) in v.iter().enumerate() {
                let bits = |v: __m128i| u64::from(_mm_movemask_epi8(v) as u16) << (16 * k);
                m.quote |= bits(v[0]);
                m.backslash |= bits(v[1]);
                m.control |= bits(v[2]);
            }
            Some(m)
        }
    }

    /// The bytes a backslash may escape (`"\\/bfnrtu`) and the `u`s among them, of the
    /// block at `at`.
    #[inline(always)]
    fn escapes_sse2(bytes: &[u8], at: usize) -> (u64, u64) {
        assert!(at + 64 <= bytes.len());
        let (mut escapable, mut us) = (0, 0);
        // SAFETY: as in `masks_sse2`.
        unsafe {
            let splat = |c: u8| _mm_set1_epi8(c as i8);
            for k in 0..4 {
                let block = _mm_loadu_si128(bytes.as_ptr().add(at + 16 * k).cast::<__m128i>());
                let bits = |v: __m128i| u64::from(_mm_movemask_epi8(v) as u16) << (16 * k);
                let is = |c: u8| _mm_cmpeq_epi8(block, splat(c));
                let u = is(b'u');
                us |= bits(u);
                let mut any = u;
                for c in *b"\"\\/bfnrt" {
                    any = _mm_or_si128(any, is(c));
                }
                escapable |= bits(any);
            }
        }
        (escapable, us)
    }

    /// Only called from [`string_end_avx2`], on a CPU with AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn masks_avx2(bytes: &[u8], at: usize) -> Option<Masks> {
        assert!(at + 64 <= bytes.len());
        // SAFETY: the caller runs on AVX2, and the two 32-byte loads lie inside `bytes`
        // (asserted above); `loadu` has no alignment requirement.
        unsafe {
            let splat = |c: u8| _mm256_set1_epi8(c as i8);
            let control_max = splat(0x1f);
            let load =
                |k: usize| _mm256_loadu_si256(bytes.as_ptr().add(at + 32 * k).cast::<__m256i>());
            let (lo, hi) = (load(0), load(1));
            let is = |block: __m256i, c: u8| _mm256_cmpeq_epi8(block, splat(c));
            let control =
                |block: __m256i| _mm256_cmpeq_epi8(_mm256_min_epu8(block, control_max), block);
            let v = [
                [is(lo, b'"'), is(lo, b'\\'), control(lo)],
                [is(hi, b'"'), is(hi, b'\\'), control(hi)],
            ];
            let or = |v: &[__m256i; 3]| _mm256_or_si256(_mm256_or_si256(v[0], v[1]), v[2]);
            if _mm256_testz_si256(_mm256_or_si256(or(&v[0]), or(&v[1])), splat(0xff)) == 1 {
                return None;
            }
            let bits = |v: [__m256i; 2]| {
                u64::from(_mm256_movemask_epi8(v[0]) as u32)
                    | u64::from(_mm256_movemask_epi8(v[1]) as u32) << 32
            };
            Some(Masks {
                quote: bits([v[0][0], v[1][0]]),
                backslash: bits([v[0][1], v[1][1]]),
                control: bits([v[0][2], v[1][2]]),
            })
        }
    }

    /// [`escapes_sse2`] with two 32-byte loads and a nibble lookup. Only called from
    /// [`string_end_avx2`], on a CPU with AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn escapes_avx2(bytes: &[u8], at: usize) -> (u64, u64) {
        assert!(at + 64 <= bytes.len());
        let (mut escapable, mut us) = (0, 0);
        // SAFETY: the caller runs on AVX2, and the two 32-byte loads lie inside `bytes`
        // (asserted above); `loadu` has no alignment requirement.
        unsafe {
            let splat = |c: u8| _mm256_set1_epi8(c as i8);
            let (escape_low, escape_high) = (table(&ESCAPE_LOW), table(&ESCAPE_HIGH));
            for k in 0..2 {
                let block = _mm256_loadu_si256(bytes.as_ptr().add(at + 32 * k).cast::<__m256i>());
                let bits = |v: __m256i| u64::from(_mm256_movemask_epi8(v) as u32) << (32 * k);
                us |= bits(_mm256_cmpeq_epi8(block, splat(b'u')));
                // A nibble lookup instead of nine comparisons: each of the four high nibbles
                // of `"\\/bfnrtu` has a bit, set in the low-nibble table for its letters.
                let low = _mm256_and_si256(block, splat(0x0f));
                let high = _mm256_and_si256(_mm256_srli_epi16::<4>(block), splat(0x0f));
                let hits = _mm256_and_si256(
                    _mm256_shuffle_epi8(escape_low, low),
                    _mm256_shuffle_epi8(escape_high, high),
                );
                let none = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hits, _mm256_setzero_si256()));
                escapable |= u64::from(!(none as u32)) << (32 * k);
            }
        }
        (escapable, us)
    }

    /// The letters a backslash may escape, `"\\/bfnrtu`, by nibble: bit 0 for the high nibble
    /// 2 (`"`, `/`), bit 1 for 5 (`\\`), bit 2 for 6 (`b f n`), bit 3 for 7 (`r t u`).
    const ESCAPE_HIGH: [u8; 16] = [0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0];
    const ESCAPE_LOW: [u8; 16] = [0, 0, 0b1101, 0, 8, 8, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1];

    /// A 16-byte table in both lanes, for `_mm256_shuffle_epi8`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn table(t: &[u8; 16]) -> __m256i {
        // SAFETY: reads the 16 bytes of `t`; the caller runs on AVX2.
        unsafe { _mm256_broadcastsi128_si256(_mm_loadu_si128(t.as_ptr().cast::<__m128i>())) }
    }

    /// What a string's escaped insides hold, 64 bytes at a time (`crate::escaped` turns these
    /// into the decoded text's counts).
    #[derive(Debug, Default, PartialEq, Eq)]
    pub(crate) struct Counts {
        /// Bytes that start a character: all but UTF-8 continuation bytes.
        pub(crate) starts: usize,
        /// Escapes (each makes one character of two bytes, or of six for `\u`).
        pub(crate) escapes: usize,
        /// `\n` escapes.
        pub(crate) newlines: usize,
        /// Whether a `\u` escape or a byte F4 occurs (a stand-in's range): counted elsewhere.
        pub(crate) unusual: bool,
        /// Every byte is ASCII.
        pub(crate) ascii: bool,
    }

    /// [`Counts`] of `b`, the insides of a string from where a character starts: with AVX2
    /// where the CPU has it (two loads a block, not four: this counts most of a session's
    /// bytes in `show`), else SSE2 (part of every x86_64 CPU).
    pub(crate) fn counts(b: &[u8]) -> Counts {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked above.
            unsafe { counts_avx2(b) }
        } else {
            counts_sse2(b)
        }
    }

    /// One loop for both instruction sets; the last bytes fewer than a block are counted in a
    /// padded copy.
    macro_rules! counts_blocks {
        ($b:expr, $masks:ident) => {{
            let b: &[u8] = $b;
            let mut c = Counts {
                ascii: true,
                ..Counts::default()
            };
            let mut carry = 0;
            let mut add = |m: CountMasks, valid: u64| {
                let escaped = escaped(m.backslash, &mut carry) & valid;
                c.starts += (!m.continuation & valid).count_ones() as usize;
                c.escapes += escaped.count_ones() as usize;
                c.newlines += (escaped & m.n).count_ones() as usize;
                c.unusual |= escaped & m.u != 0 || m.f4 & valid != 0;
                c.ascii &= m.high & valid == 0;
            };
            let mut at = 0;
            while at + 64 <= b.len() {
                add($masks(b, at), u64::MAX);
                at += 64;
            }
            if at < b.len() {
                let mut padded = [0u8; 64];
                padded[..b.len() - at].copy_from_slice(&b[at..]);
                add($masks(&padded, 0), (1 << (b.len() - at)) - 1);
            }
            c
        }};
    }

    pub(crate) fn counts_sse2(b: &[u8]) -> Counts {
        counts_blocks!(b, count_masks)
    }

    #[target_feature(enable = "avx2")]
    unsafe fn counts_avx2(b: &[u8]) -> Counts {
        // Calls `count_masks_avx2`, sound here: this function runs only on a CPU with AVX2
        // (its caller checks), and the loop passes it 64 bytes inside what it reads.
        counts_blocks!(b, count_masks_avx2)
    }

    /// Bit `i` of each is byte `at + i` of a 64-byte block.
    #[derive(Default)]
    struct CountMasks {
        backslash: u64,
        continuation: u64,
        n: u64,
        u: u64,
        f4: u64,
        high: u64,
    }

    #[inline(always)]
    fn count_masks(bytes: &[u8], at: usize) -> CountMasks {
        assert!(at + 64 <= bytes.len());
        let mut m = CountMasks::default();
        // SAFETY: SSE2 is always present on x86_64, and the four 16-byte loads lie inside
        // `bytes` (asserted above); `loadu` has no alignment requirement.
        unsafe {
            let splat = |c: u8| _mm_set1_epi8(c as i8);
            for k in 0..4 {
                let block = _mm_loadu_si128(bytes.as_ptr().add(at + 16 * k).cast::<__m128i>());
                let bits = |v: __m128i| u64::from(_mm_movemask_epi8(v) as u16) << (16 * k);
                let is = |c: u8| bits(_mm_cmpeq_epi8(block, splat(c)));
                m.backslash |= is(b'\\');
                m.n |= is(b'n');
                m.u |= is(b'u');
                m.f4 |= is(0xF4);
                // Signed, 0x80..=0xBF are the bytes below -64.
                m.continuation |= bits(_mm_cmplt_epi8(block, splat(0xC0)));
                m.high |= bits(block);
            }
        }
        m
    }

    /// [`count_masks`] with two 32-byte loads. Only called from [`counts_avx2`], on a CPU
    /// with AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn count_masks_avx2(bytes: &[u8], at: usize) -> CountMasks {
        assert!(at + 64 <= bytes.len());
        let mut m = CountMasks::default();
        // SAFETY: the caller runs on AVX2, and the two 32-byte loads lie inside `bytes`
        // (asserted above); `loadu` has no alignment requirement.
        unsafe {
            let splat = |c: u8| _mm256_set1_epi8(c as i8);
            for k in 0..2 {
                let block = _mm256_loadu_si256(bytes.as_ptr().add(at + 32 * k).cast::<__m256i>());
                let bits = |v: __m256i| u64::from(_mm256_movemask_epi8(v) as u32) << (32 * k);
                let is = |c: u8| bits(_mm256_cmpeq_epi8(block, splat(c)));
                m.backslash |= is(b'\\');
                m.n |= is(b'n');
                m.u |= is(b'u');
                m.f4 |= is(0xF4);
                // Signed, 0x80..=0xBF are the bytes below -64.
                m.continuation |= bits(_mm256_cmpgt_epi8(splat(0xC0), block));
                m.high |= bits(block);
            }
        }
        m
    }

    /// The bytes escaped by a backslash (the second of each pair in a run), carrying a run
    /// that crosses into the next block in `carry`. simdjson's `find_escaped_branchless`.
    #[inline(always)]
    fn escaped(backslash: u64, carry: &mut u64) -> u64 {
        const EVEN: u64 = 0x5555_5555_5555_5555;
        let backslash = backslash & !*carry;
        let follows = backslash << 1 | *carry;
        let odd_starts = backslash & !EVEN & !follows;
        let (even_starts, overflow) = odd_starts.overflowing_add(backslash);
        *carry = u64::from(overflow);
        (EVEN ^ (even_starts << 1)) & follows
    }

    /// Whether every `\\u` among the escaped bytes in `us` (bits from `at`) has its four hex
    /// digits. Rare in pi's files (JSON.stringify writes `\\u` only for control characters
    /// and lone surrogates), so a loop is fine here.
    #[inline(always)]
    fn hex_digits_follow(b: &[u8], at: usize, mut us: u64) -> bool {
        while us != 0 {
            if !hex4(b, at + us.trailing_zeros() as usize + 1) {
                return false;
            }
            us &= us - 1;
        }
        true
    }
}

/// A seeded xorshift: `next(n)` is below `n`. For tests that build many inputs reproducibly.
#[cfg(any(test, feature = "test-hooks"))]
pub fn rng(mut seed: u64) -> impl FnMut(usize) -> usize {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        usize::try_from(seed % n as u64).unwrap()
    }
}

/// Every session file under the bundled `examples/sessions`: the inputs of the tests that
/// compare two readings of the same sessions.
#[cfg(any(test, feature = "test-hooks"))]
pub fn example_sessions() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/sessions");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files
}

/// Every line of every session under the bundled `examples/sessions`: the inputs those tests
/// damage.
#[cfg(any(test, feature = "test-hooks"))]
pub fn example_lines() -> Vec<Vec<u8>> {
    let mut lines = Vec::new();
    for path in example_sessions() {
        let text = std::fs::read(&path).unwrap();
        lines.extend(text.split(|&b| b == b'\n').map(<[u8]>::to_vec));
    }
    lines
}

/// `count` copies of lines picked from `lines`, each damaged at one to four random places (a
/// byte removed, one of `specials` put in or over a byte, the line cut short): the inputs of
/// the tests that hold a fast reading equal to serde_json's on broken lines.
#[cfg(any(test, feature = "test-hooks"))]
pub fn damaged<'a, L: AsRef<[u8]>>(
    lines: &'a [L],
    specials: &'a [u8],
    seed: u64,
    count: usize,
) -> impl Iterator<Item = Vec<u8>> + 'a {
    let mut next = rng(seed);
    (0..count).map(move |_| {
        let mut line = lines[next(lines.len())].as_ref().to_vec();
        for _ in 0..=next(3) {
            let at = next(line.len() + 1);
            match next(4) {
                0 if at < line.len() => drop(line.remove(at)),
                1 => line.insert(at, specials[next(specials.len())]),
                2 if at < line.len() => line[at] = specials[next(specials.len())],
                _ => line.truncate(at),
            }
        }
        line
    })
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

    /// Both instruction sets count alike, at every length around one and three blocks (a CPU
    /// without AVX2 compares SSE2 with itself).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn counts_agree_across_instruction_sets() {
        let pieces: [&[u8]; 9] = [
            b"a",
            b"\\\\",
            b"\\n",
            b"\\u00e9",
            "é".as_bytes(),
            "🚀".as_bytes(),
            b"\xf4",
            b"\\",
            b"n",
        ];
        let mut next = rng(99);
        for _ in 0..20_000 {
            let mut text = Vec::new();
            let len = next(200);
            while text.len() < len {
                text.extend_from_slice(pieces[next(pieces.len())]);
            }
            assert_eq!(simd::counts(&text), simd::counts_sse2(&text), "{text:?}");
        }
    }

    /// The block scan against the byte-wise reference, on strings built from the bytes that
    /// matter (runs of backslashes, escapes cut at block edges, `\u` digits, control bytes,
    /// bytes above 0x7f) at every length around one and two blocks.
    #[test]
    fn blocks_agree_with_bytes() {
        let pieces: [&[u8]; 12] = [
            b"a",
            b"\\\\",
            b"\\\"",
            b"\\n",
            b"\\u00e9",
            b"\\u12",
            b"\\x",
            b"\\",
            b"\"",
            b"\x01",
            b"\xff",
            b"abcdefghijklmnopq",
        ];
        let mut next = rng(0x2545_f491_4f6c_dd1d);
        let (mut found, mut refused) = (0, 0);
        for _ in 0..100_000 {
            let mut text = b"\"".to_vec();
            let len = 40 + next(120);
            while text.len() < len {
                // Mostly plain bytes, so that many strings reach their end.
                let piece = if next(3) == 0 {
                    pieces[next(pieces.len())]
                } else {
                    b"x"
                };
                text.extend_from_slice(piece);
            }
            if next(2) == 0 {
                text.push(b'"');
            }
            let mut skim = Skim::new(&text);
            let got = skim.string().map(<[u8]>::len);
            let want = string_end_scalar(&text, 1).map(|end| end + 1);
            assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&text));
            match got {
                Ok(_) => found += 1,
                Err(_) => refused += 1,
            }
        }
        assert!(found > 10_000 && refused > 10_000, "{found} {refused}");
    }

    /// Both block scanners (AVX2 is used when present, so SSE2 is called by name) against the
    /// byte-wise reference, for every byte after a backslash, at every position in a block.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn every_escape_in_every_position() {
        let ends = |text: &[u8]| -> [Option<usize>; 3] {
            let blocks = |end: Result<simd::End>| match end {
                Ok(simd::End::Found(end)) => Some(end),
                Ok(simd::End::Tail(at)) => string_end_scalar(text, at).ok(),
                Err(Unsure) => None,
            };
            [
                string_end_scalar(text, 1).ok(),
                blocks(simd::string_end(text, 1)),
                blocks(simd::string_end_sse2(text, 1)),
            ]
        };
        for c in 0..=255u8 {
            for pad in 0..66 {
                let mut text = b"\"".to_vec();
                text.extend(std::iter::repeat_n(b'a', pad));
                text.extend_from_slice(&[b'\\', c]);
                text.extend_from_slice(
                    b"0a1Fzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\"",
                );
                let [want, avx, sse] = ends(&text);
                assert_eq!(avx, want, "byte {c:#x} after {pad}");
                assert_eq!(sse, want, "byte {c:#x} after {pad}");
                let valid = c == b'u' || SIMPLE_ESCAPE[usize::from(c)];
                assert_eq!(want.is_some(), valid, "byte {c:#x}");
            }
        }
    }

    #[test]
    fn escapes_across_block_edges() {
        for pad in 0..70 {
            for (escape, ok) in [
                (&b"\\\\"[..], true),
                (b"\\\"", true),
                (b"\\u00e9", true),
                (b"\\u00", false),
                (b"\\q", false),
            ] {
                let mut text = b"\"".to_vec();
                text.extend(std::iter::repeat_n(b'a', pad));
                text.extend_from_slice(escape);
                text.extend(std::iter::repeat_n(b'z', 70));
                text.push(b'"');
                let got = Skim::new(&text).string().map(<[u8]>::len);
                assert_eq!(
                    got.is_ok(),
                    ok,
                    "pad {pad} {:?}",
                    String::from_utf8_lossy(escape)
                );
                assert_eq!(got, string_end_scalar(&text, 1).map(|e| e + 1));
            }
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
        assert_eq!(s.next_key(&mut m), Ok(Some(&b"type"[..])));
        assert_eq!(s.value(), Ok(&b"1"[..]));
        assert_eq!(s.next_key(&mut m), Err(Unsure));
    }
}
