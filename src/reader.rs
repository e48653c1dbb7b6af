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
pub struct RawLine<'a> {
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
    pub fn content(&self) -> &[u8] {
        self.bytes.strip_suffix(b"\r").unwrap_or(self.bytes)
    }

    /// True when the line holds nothing but JSON whitespace.
    pub fn is_blank(&self) -> bool {
        self.bytes
            .iter()
            .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
    }

    /// Length on disk including the terminator.
    pub fn len_on_disk(&self) -> u64 {
        self.bytes.len() as u64 + u64::from(self.terminated)
    }
}

/// A pull reader of lines over any `BufRead` (a file, stdin, a byte slice).
pub struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    number: u64,
    offset: u64,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        LineReader {
            inner,
            buf: Vec::with_capacity(64 * 1024),
            number: 0,
            offset: 0,
        }
    }

    /// Starts numbering at `number` and `offset`, for a reader positioned mid-stream.
    pub fn starting_at(inner: R, number: u64, offset: u64) -> Self {
        let mut reader = Self::new(inner);
        reader.number = number;
        reader.offset = offset;
        reader
    }

    /// The next line, or `None` at the end. The returned line borrows the reader's buffer.
    pub fn next_line(&mut self) -> io::Result<Option<RawLine<'_>>> {
        self.buf.clear();
        let read = loop {
            match self.inner.read_until(b'\n', &mut self.buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        if read == 0 {
            return Ok(None);
        }
        self.number += 1;
        let offset = self.offset;
        self.offset += read as u64;
        let terminated = self.buf.last() == Some(&b'\n');
        let bytes = if terminated {
            &self.buf[..self.buf.len() - 1]
        } else {
            &self.buf[..]
        };
        Ok(Some(RawLine {
            number: self.number,
            offset,
            bytes,
            terminated,
        }))
    }
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
