//! The one streaming JSONL reader every command uses.
//!
//! It yields raw lines with their 1-based number and byte offset, reusing one buffer, and never
//! prints or decides anything: what a blank, torn or malformed line means is the caller's business.
//! A line of hundreds of MB is read whole, never split, up to [`MAX_LINE`]: a longer one (or one
//! memory cannot hold, or one that cannot be JSON from its first byte) is passed over without
//! being held and handed out [`Cut`], so memory is bounded by the lines, whatever the input
//! (`/dev/zero`, a sparse file of zeros). Bytes are not decoded here, and a trailing `\r` (CRLF
//! files) is reported, not stripped, so `show --json` can reproduce the file byte for byte.

use std::io::{self, BufRead};

/// The longest line held: V8's string limit (2^29 - 24 UTF-16 units), beyond which pi's
/// `JSON.parse` is never even called on a line.
pub(crate) const MAX_LINE: usize = (1 << 29) - 24;

/// Bytes kept of a line that is passed over, for the warning about it.
const CUT_KEEPS: usize = 1024;

/// A line this long that cannot be JSON from its first byte is passed over ([`Cut::NotJson`]);
/// a shorter one is handed out whole, like any malformed line.
const NOT_JSON_AFTER: usize = 1 << 20;

/// Why a line was passed over instead of held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cut {
    /// Longer than [`MAX_LINE`].
    TooLong,
    /// Memory could not hold it (a memory limit below the line's length).
    NoMemory,
    /// Its first byte cannot start JSON (NUL bytes, binary data) and it is longer than
    /// [`NOT_JSON_AFTER`]: no byte after the first matters.
    NotJson,
}

/// One physical line of a JSONL stream.
#[derive(Debug)]
pub(crate) struct RawLine<'a> {
    /// 1-based line number.
    pub(crate) number: u64,
    /// Byte offset of the line's first byte in the stream.
    pub(crate) offset: u64,
    /// The line without its `\n` (a `\r` before it is kept: see [`RawLine::content`]).
    pub(crate) bytes: &'a [u8],
    /// False for a last line without `\n`: a file pi is still writing.
    pub(crate) terminated: bool,
    /// A line passed over: `bytes` then holds only its first bytes.
    pub(crate) cut: Option<Cut>,
    /// Bytes of a cut line not in `bytes`.
    pub(crate) dropped: u64,
}

impl<'a> RawLine<'a> {
    /// The line without its terminator (`\n` or `\r\n`).
    pub(crate) fn content(&self) -> &'a [u8] {
        self.bytes.strip_suffix(b"\r").unwrap_or(self.bytes)
    }

    /// True when the line holds nothing but JSON whitespace.
    pub(crate) fn is_blank(&self) -> bool {
        self.bytes
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    }

    /// Length on disk including the terminator.
    pub(crate) fn len_on_disk(&self) -> u64 {
        self.bytes.len() as u64 + self.dropped + u64::from(self.terminated)
    }
}

/// Where the bytes of a line passed over go, for a reader that must see every byte of a file
/// (the secrets scan): called with the line's number and each piece of it in order (the bytes
/// gathered before it was cut, then each buffer's worth), then once with `end` true and no
/// bytes. Memory stays bounded: no piece outlives the call.
pub(crate) type Spill<'s> = &'s mut dyn FnMut(u64, &[u8], bool);

/// A pull reader of lines over any `BufRead` (a file, stdin, a byte slice).
///
/// A line that lies whole in the `BufRead`'s buffer is handed out from there, uncopied; only a
/// line that crosses the buffer's end is gathered into the reader's own buffer. Newlines are
/// found with `memchr` (SIMD), not `read_until`'s byte-wise fallback: with a copy per line, the
/// two were a fifth of a scan's time.
pub(crate) struct LineReader<'s, R> {
    inner: R,
    /// Where a passed-over line's bytes go ([`Spill`]); `None`: nowhere.
    spill: Option<Spill<'s>>,
    buf: Vec<u8>,
    /// Bytes of `inner`'s buffer handed out by the last call, consumed by the next one.
    pending: usize,
    number: u64,
    offset: u64,
    /// [`MAX_LINE`], but for tests.
    limit: usize,
    /// The line being handed out was cut, and how many of its bytes were not kept.
    cut: Option<Cut>,
    dropped: u64,
    /// A line without `\n` was handed out: it is the last. What a file holds after it was
    /// written since (pi appending), and read now it would be the torn line's other half,
    /// handed out as a line of its own.
    ended: bool,
}

impl<'s, R: BufRead> LineReader<'s, R> {
    pub(crate) fn new(inner: R) -> Self {
        LineReader {
            inner,
            spill: None,
            buf: Vec::new(),
            pending: 0,
            number: 0,
            offset: 0,
            limit: MAX_LINE,
            cut: None,
            dropped: 0,
            ended: false,
        }
    }

    /// A reader of `inner`, which starts at `offset` of a stream whose first `lines` lines
    /// were read before: numbers and offsets go on from there.
    pub(crate) fn resume(inner: R, lines: u64, offset: u64) -> Self {
        LineReader {
            number: lines,
            offset,
            ..LineReader::new(inner)
        }
    }

    /// The reader with the bytes of every line it passes over handed to `spill`.
    pub(crate) fn spilling(self, spill: Spill<'s>) -> Self {
        LineReader {
            spill: Some(spill),
            ..self
        }
    }

    /// The next line, or `None` at the end. The returned line borrows the reader.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<RawLine<'_>>> {
        self.inner.consume(std::mem::take(&mut self.pending));
        self.buf.clear();
        (self.cut, self.dropped) = (None, 0);
        if self.ended {
            return Ok(None);
        }
        let available = fill(&mut self.inner)?;
        if available.is_empty() {
            return Ok(None);
        }
        let (read, terminated) = match memchr::memchr(b'\n', available) {
            Some(at) => {
                self.pending = at + 1;
                (at + 1, true)
            }
            None => self.gather()?,
        };
        self.ended = !terminated;
        self.number += 1;
        let offset = self.offset;
        self.offset += read as u64 + self.dropped;
        let line = if self.pending > 0 {
            &fill(&mut self.inner)?[..read]
        } else {
            &self.buf[..]
        };
        let bytes = if terminated {
            &line[..line.len() - 1]
        } else {
            line
        };
        Ok(Some(RawLine {
            number: self.number,
            offset,
            bytes,
            terminated,
            cut: self.cut,
            dropped: self.dropped,
        }))
    }

    /// The offset of the next line's first byte.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }

    /// Passes over, unread but counted, the whole lines in `inner`'s buffer that end before
    /// `target` (an offset of the stream), so that the next line is the one holding it. A
    /// line that crosses the buffer's end stops the skip early: the lines after are then read
    /// as usual, so no line holding `target` or after it is ever passed over.
    pub(crate) fn skip_before(&mut self, target: u64) -> io::Result<()> {
        self.inner.consume(std::mem::take(&mut self.pending));
        while !self.ended && self.offset < target {
            let available = fill(&mut self.inner)?;
            let want = usize::try_from(target - self.offset)
                .map_or(available.len(), |w| w.min(available.len()));
            let Some(at) = memchr::memrchr(b'\n', &available[..want]) else {
                break;
            };
            self.number += memchr::memchr_iter(b'\n', &available[..=at]).count() as u64;
            self.offset += at as u64 + 1;
            self.inner.consume(at + 1);
        }
        Ok(())
    }

    /// Copies a line that crosses the end of `inner`'s buffer into `buf`: its length in `buf`
    /// and whether it ends with `\n`. A line that cannot be held is cut (see [`Cut`]).
    fn gather(&mut self) -> io::Result<(usize, bool)> {
        loop {
            let available = fill(&mut self.inner)?;
            if available.is_empty() {
                return Ok((self.buf.len(), false));
            }
            let (take, found) = match memchr::memchr(b'\n', available) {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            let cut = if self.buf.len() + take > self.limit + 1 {
                Some(Cut::TooLong)
            } else if self.buf.try_reserve(take).is_err() {
                Some(Cut::NoMemory)
            } else {
                None
            };
            if let Some(cut) = cut {
                return self.pass_over(cut);
            }
            self.buf.extend_from_slice(&available[..take]);
            self.inner.consume(take);
            if found {
                return Ok((self.buf.len(), true));
            }
            if self.buf.len() >= NOT_JSON_AFTER && cannot_be_json(&self.buf) {
                return self.pass_over(Cut::NotJson);
            }
        }
    }

    /// Skips the rest of the line being gathered, keeping its first bytes in `buf`.
    fn pass_over(&mut self, cut: Cut) -> io::Result<(usize, bool)> {
        let number = self.number + 1;
        if let Some(spill) = self.spill.as_mut() {
            spill(number, &self.buf, false);
        }
        let kept = self.buf.len().min(CUT_KEEPS);
        self.dropped = (self.buf.len() - kept) as u64;
        self.buf.truncate(kept);
        self.buf.shrink_to(CUT_KEEPS);
        self.cut = Some(cut);
        loop {
            let available = fill(&mut self.inner)?;
            let end = memchr::memchr(b'\n', available);
            if let Some(spill) = self.spill.as_mut() {
                spill(number, &available[..end.unwrap_or(available.len())], false);
                if end.is_some() || available.is_empty() {
                    spill(number, &[], true);
                }
            }
            if available.is_empty() {
                return Ok((self.buf.len(), false));
            }
            if let Some(at) = end {
                self.dropped += at as u64;
                self.inner.consume(at + 1);
                // The `\n` is the line's terminator, counted as such, not as dropped.
                self.buf.push(b'\n');
                return Ok((self.buf.len(), true));
            }
            let n = available.len();
            self.dropped += n as u64;
            self.inner.consume(n);
        }
    }
}

/// Whether a line's first byte other than JSON whitespace cannot start a JSON value (a UTF-8
/// byte-order mark is let through: the warning names it).
fn cannot_be_json(line: &[u8]) -> bool {
    line.iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .is_some_and(|b| {
            !matches!(
                b,
                b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' | 0xEF
            )
        })
}

/// `fill_buf`, retried when interrupted.
fn fill<R: BufRead>(inner: &mut R) -> io::Result<&[u8]> {
    loop {
        match inner.fill_buf() {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    inner.fill_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<(u64, u64, Vec<u8>, bool)> {
        let mut reader = LineReader::new(input);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push((
                line.number,
                line.offset,
                line.content().to_vec(),
                line.terminated,
            ));
        }
        out
    }

    #[test]
    fn numbers_offsets_and_torn_last_line() {
        let got = lines(b"{\"a\":1}\n\n{\"b\":2}\r\n{\"c\"");
        assert_eq!(
            got,
            vec![
                (1, 0, b"{\"a\":1}".to_vec(), true),
                (2, 8, b"".to_vec(), true),
                (3, 9, b"{\"b\":2}".to_vec(), true),
                (4, 18, b"{\"c\"".to_vec(), false),
            ]
        );
    }

    #[test]
    fn nothing_after_a_torn_line() {
        use std::io::Write;
        // A file being appended to: the reader meets its end inside a line, then the writer
        // finishes that line and writes another. The rest is not a line of this read (it
        // would start mid-object and read as malformed).
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(b"{\"a\":1}\n{\"b\"").unwrap();
        let mut reader = LineReader::new(io::BufReader::new(file.reopen().unwrap()));
        assert!(reader.next_line().unwrap().unwrap().terminated);
        let torn = reader.next_line().unwrap().unwrap();
        assert_eq!((torn.bytes, torn.terminated), (&b"{\"b\""[..], false));
        file.write_all(b":2}\n{\"c\":3}\n").unwrap();
        assert!(reader.next_line().unwrap().is_none());
        assert!(reader.next_line().unwrap().is_none());
    }

    #[test]
    fn lines_across_buffer_ends_are_whole() {
        let input = b"{\"a\":1}\n\nlong line here\r\nx\ny";
        for capacity in [1, 2, 3, 5, 8, 64] {
            let mut reader = LineReader::new(io::BufReader::with_capacity(capacity, &input[..]));
            let mut got = Vec::new();
            while let Some(line) = reader.next_line().unwrap() {
                got.push((
                    line.number,
                    line.offset,
                    line.bytes.to_vec(),
                    line.terminated,
                ));
            }
            assert_eq!(
                got,
                vec![
                    (1, 0, b"{\"a\":1}".to_vec(), true),
                    (2, 8, b"".to_vec(), true),
                    (3, 9, b"long line here\r".to_vec(), true),
                    (4, 25, b"x".to_vec(), true),
                    (5, 27, b"y".to_vec(), false),
                ],
                "buffer of {capacity} bytes"
            );
        }
    }

    /// A reader that asks for them gets every byte of each line passed over, in order, with
    /// its number, then its end; of no other line. (Issue 42: the secrets scan reads them.)
    #[test]
    fn passed_over_lines_are_spilled_whole() {
        let mut input = b"{\"a\":1}\n".to_vec();
        let mut raw = b"Error: ".to_vec();
        raw.extend((0..NOT_JSON_AFTER + 5000).map(|i| b'a' + (i % 26) as u8));
        input.extend_from_slice(&raw);
        input.extend_from_slice(b"\n{\"b\":2}\n");
        let mut too_long = vec![b'{'; 2 * NOT_JSON_AFTER + 300];
        too_long.extend_from_slice(b"tail");
        input.extend_from_slice(&too_long);
        let mut spilled: Vec<(u64, Vec<u8>, bool)> = Vec::new();
        let mut spill = |n: u64, bytes: &[u8], end: bool| match spilled.last_mut() {
            Some((m, got, done)) if *m == n && !*done => {
                got.extend_from_slice(bytes);
                *done = end;
            }
            _ => spilled.push((n, bytes.to_vec(), end)),
        };
        let mut reader =
            LineReader::new(io::BufReader::with_capacity(4096, &input[..])).spilling(&mut spill);
        reader.limit = 2 * NOT_JSON_AFTER;
        let mut cuts = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            cuts.push((line.number, line.cut));
        }
        drop(reader);
        assert_eq!(
            cuts,
            [
                (1, None),
                (2, Some(Cut::NotJson)),
                (3, None),
                (4, Some(Cut::TooLong))
            ]
        );
        assert_eq!(spilled.len(), 2);
        assert_eq!((spilled[0].0, spilled[0].2), (2, true));
        assert!(spilled[0].1 == raw, "line 2 whole");
        assert_eq!((spilled[1].0, spilled[1].2), (4, true));
        assert!(spilled[1].1 == too_long, "line 4 whole");
    }

    #[test]
    fn lines_that_cannot_be_held_are_passed_over() {
        let long = |first: u8, n: usize| {
            let mut line = vec![first; n];
            line.push(b'\n');
            line
        };
        let read = |input: &[u8], limit: usize| {
            let mut reader = LineReader::new(io::BufReader::with_capacity(64, input));
            reader.limit = limit;
            let mut got = Vec::new();
            while let Some(line) = reader.next_line().unwrap() {
                assert!(line.bytes.len() <= limit.min(NOT_JSON_AFTER));
                got.push((line.offset, line.len_on_disk(), line.cut, line.terminated));
            }
            got
        };
        let mut input = long(b'"', 100);
        input.extend(long(b'[', 300));
        input.extend(b"{}\n");
        input.extend(long(b' ', 500));
        input.pop();
        assert_eq!(
            read(&input, 200),
            [
                (0, 101, None, true),
                (101, 301, Some(Cut::TooLong), true),
                (402, 3, None, true),
                // Cut at the end of the input, where no `\n` comes.
                (405, 500, Some(Cut::TooLong), false),
            ]
        );
        // Zeros: no JSON starts so, and they are not held past the first MiB.
        let mut input = long(0, 3 * NOT_JSON_AFTER);
        input.extend(b"{}\n");
        let nul = 3 * NOT_JSON_AFTER as u64 + 1;
        assert_eq!(
            read(&input, MAX_LINE),
            [(0, nul, Some(Cut::NotJson), true), (nul, 3, None, true)]
        );
    }

    #[test]
    fn skipped_lines_are_counted_and_the_line_of_the_target_is_next() {
        let input = b"{\"a\":1}\n\nlong line here\r\nx\ny";
        // The target's line (its first byte, inside it, its `\n`) is next, numbered on.
        for (target, number, offset) in [
            (0, 1, 0),
            (8, 2, 8),
            (9, 3, 9),
            (20, 3, 9),
            (24, 3, 9),
            (25, 4, 25),
            (28, 5, 27),
            (99, 5, 27),
        ] {
            for capacity in [1, 3, 8, 64] {
                let mut reader =
                    LineReader::new(io::BufReader::with_capacity(capacity, &input[..]));
                reader.skip_before(target).unwrap();
                let line = reader.next_line().unwrap().unwrap();
                // A small buffer may stop the skip early: never past the target's line.
                assert!(line.offset <= offset, "{target} in {capacity}");
                if capacity == 64 {
                    assert_eq!((line.number, line.offset), (number, offset), "{target}");
                }
                let mut last = line.offset;
                while let Some(l) = reader.next_line().unwrap() {
                    last = l.offset;
                    if l.offset == offset {
                        assert_eq!(l.number, number);
                    }
                }
                assert_eq!(last, 27);
            }
        }
        // After a line was read, the skip goes on from its end.
        let mut reader = LineReader::new(&input[..]);
        reader.next_line().unwrap();
        reader.skip_before(26).unwrap();
        assert_eq!(reader.next_line().unwrap().unwrap().number, 4);
        assert_eq!(reader.offset(), 27);
    }

    #[test]
    fn empty_input_has_no_lines() {
        assert!(lines(b"").is_empty());
    }

    #[test]
    fn invalid_utf8_passes_through_untouched() {
        let got = lines(b"\xff\xfe\n");
        assert_eq!(got[0].2, b"\xff\xfe".to_vec());
    }

    #[test]
    fn blank_detection_and_disk_length() {
        let mut reader = LineReader::new(&b" \t\r\nx"[..]);
        let line = reader.next_line().unwrap().unwrap();
        assert!(line.is_blank());
        assert_eq!(line.len_on_disk(), 4);
        let line = reader.next_line().unwrap().unwrap();
        assert!(!line.is_blank());
        assert_eq!(line.len_on_disk(), 1);
    }
}
