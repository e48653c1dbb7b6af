//! The one streaming JSONL reader every command uses.
//!
//! It yields raw lines with their 1-based number and byte offset, reusing one buffer, and never
//! prints or decides anything: what a blank, torn or malformed line means is the caller's business.
//! Lines are unbounded (a line of hundreds of MB is read whole, never split), bytes are not
//! decoded here, and a trailing `\r` (CRLF files) is reported, not stripped, so `show --json` can
//! reproduce the file byte for byte.

use std::io::{self, BufRead};

/// One physical line of a JSONL stream.
#[derive(Debug)]
pub(crate) struct RawLine<'a> {
    /// 1-based line number.
    pub number: u64,
    /// Byte offset of the line's first byte in the stream.
    pub offset: u64,
    /// The line without its `\n` (a `\r` before it is kept: see [`RawLine::content`]).
    pub bytes: &'a [u8],
    /// False for a last line without `\n`: a file pi is still writing.
    pub terminated: bool,
}

impl RawLine<'_> {
    /// The line without its terminator (`\n` or `\r\n`).
    pub(crate) fn content(&self) -> &[u8] {
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
        self.bytes.len() as u64 + u64::from(self.terminated)
    }
}

/// A pull reader of lines over any `BufRead` (a file, stdin, a byte slice).
///
/// A line that lies whole in the `BufRead`'s buffer is handed out from there, uncopied; only a
/// line that crosses the buffer's end is gathered into the reader's own buffer. Newlines are
/// found with `memchr` (SIMD), not `read_until`'s byte-wise fallback: with a copy per line, the
/// two were a fifth of a scan's time.
pub(crate) struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    /// Bytes of `inner`'s buffer handed out by the last call, consumed by the next one.
    pending: usize,
    number: u64,
    offset: u64,
    /// A line without `\n` was handed out: it is the last. What a file holds after it was
    /// written since (pi appending), and read now it would be the torn line's other half,
    /// handed out as a line of its own.
    ended: bool,
}

impl<R: BufRead> LineReader<R> {
    pub(crate) fn new(inner: R) -> Self {
        LineReader {
            inner,
            buf: Vec::new(),
            pending: 0,
            number: 0,
            offset: 0,
            ended: false,
        }
    }

    /// The next line, or `None` at the end. The returned line borrows the reader.
    pub(crate) fn next_line(&mut self) -> io::Result<Option<RawLine<'_>>> {
        self.inner.consume(std::mem::take(&mut self.pending));
        self.buf.clear();
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
        self.offset += read as u64;
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
        }))
    }

    /// Copies a line that crosses the end of `inner`'s buffer into `buf`: its length and
    /// whether it ends with `\n`.
    fn gather(&mut self) -> io::Result<(usize, bool)> {
        loop {
            let available = fill(&mut self.inner)?;
            if available.is_empty() {
                return Ok((self.buf.len(), false));
            }
            if let Some(at) = memchr::memchr(b'\n', available) {
                self.buf.extend_from_slice(&available[..=at]);
                self.inner.consume(at + 1);
                return Ok((self.buf.len(), true));
            }
            let n = available.len();
            self.buf.extend_from_slice(available);
            self.inner.consume(n);
        }
    }
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
