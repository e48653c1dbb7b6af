//! Secrets in a line too long to hold, read as it streams past: a line the reader passes over
//! (longer than pi reads, or a long one that cannot start JSON: a raw `Error:` log, a run of
//! NUL bytes a crash left, then text) is in the file all the same, and a gate must read it.
//!
//! The line is searched as raw text (no JSON decoded) in windows of [`WINDOW`] bytes that
//! overlap by `2 * MARGIN`: a window reports the secrets that start in its middle (at least
//! [`MARGIN`] bytes from either end, but at the ends of the line), so each secret shorter than
//! [`MARGIN`] is found whole in exactly one window, with enough before it that a token's start
//! is not taken for a cut. Memory is one window, whatever the line's length.

use std::collections::HashSet;

use super::line::RAW_LINE;
use super::{preview, Detector, Located};

/// Bytes searched at once.
pub(crate) const WINDOW: usize = 1 << 20;
/// Bytes of a window's ends that belong to its neighbours.
pub(crate) const MARGIN: usize = 64 << 10;

/// One long line being searched.
pub(crate) struct LineStream<'d> {
    detector: &'d Detector,
    /// The window being filled: bytes of the line from `at` on.
    window: Vec<u8>,
    /// Whether the window starts the line (no left margin then).
    first: bool,
    seen: HashSet<(String, String)>,
    /// Whether the window's first byte follows a backslash that escapes it.
    escaped: bool,
    pub(crate) found: Vec<Located>,
}

impl<'d> LineStream<'d> {
    pub(crate) fn new(detector: &'d Detector) -> LineStream<'d> {
        LineStream {
            detector,
            window: Vec::with_capacity(WINDOW),
            first: true,
            seen: HashSet::new(),
            escaped: false,
            found: Vec::new(),
        }
    }

    /// The line's next bytes.
    pub(crate) fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let take = (WINDOW - self.window.len()).min(bytes.len());
            self.window.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.window.len() == WINDOW {
                self.search(false);
                // The next window starts where this one's right margin and the next one's
                // left margin begin.
                self.window.drain(..WINDOW - 2 * MARGIN);
                self.first = false;
            }
        }
    }

    /// The line's end: the last window searched to its end.
    pub(crate) fn finish(mut self) -> Vec<Located> {
        if !self.window.is_empty() {
            self.search(true);
        }
        self.found
    }

    fn search(&mut self, last: bool) {
        let text = same_length_text(&self.window);
        let from = if self.first { 0 } else { MARGIN };
        let to = if last {
            text.len()
        } else {
            text.len() - MARGIN
        };
        // The raw text, then the same with its escapes split (when it has one), for a key
        // just after `\n` or `\q` in a JSON string that no decoder read.
        let (split, escaped) = split_escapes(&text, self.escaped, WINDOW - 2 * MARGIN);
        self.escaped = escaped;
        self.report(&text, from, to);
        if let Some(split) = split {
            self.report(&split, from, to);
        }
    }

    /// The secrets of `text` (a window) that start in `from..to` and were not reported yet.
    fn report(&mut self, text: &str, from: usize, to: usize) {
        for f in self.detector.find(text) {
            if f.start < from || f.start >= to {
                continue;
            }
            if self.seen.insert((f.kind.clone(), f.fingerprint.clone())) {
                self.found.push(Located {
                    field: RAW_LINE.to_owned(),
                    line: 1,
                    preview: preview(&text[f.start..f.end]),
                    secret: super::Secret::new(&text[f.start..f.end]),
                    kind: f.kind,
                    fingerprint: f.fingerprint,
                });
            }
        }
    }
}

/// `text` with each backslash escape of a letter or digit (`\n`, `\u`, `\q`) made two spaces,
/// so what follows it starts a word (as in a decoded string, or a malformed line's, see
/// `line.rs`), or `None` when it holds none; and whether the byte at `mark` is escaped.
/// `escaped`: whether the text's first byte is (a backslash ended the text before it). Both
/// readings are searched: `C:\AKIA…` is a key as written.
fn split_escapes(text: &str, mut escaped: bool, mark: usize) -> (Option<String>, bool) {
    let b = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let mut at_mark = false;
    for (i, &x) in b.iter().enumerate() {
        if i == mark {
            at_mark = escaped;
        }
        if escaped {
            escaped = false;
            if x.is_ascii_alphanumeric() {
                let o = out.get_or_insert_with(|| b.to_vec());
                o[i] = b' ';
                if i > 0 {
                    o[i - 1] = b' ';
                }
            }
        } else if x == b'\\' {
            escaped = true;
        }
    }
    if mark >= b.len() {
        at_mark = escaped;
    }
    // ASCII bytes replaced by ASCII bytes: still UTF-8.
    let split = out.map(|o| String::from_utf8(o).unwrap_or_default());
    (split, at_mark)
}

/// `bytes` as text of the same length: each byte of what is not UTF-8 (a character cut at a
/// window's end included) becomes `?`, so offsets in the text are offsets in the bytes.
fn same_length_text(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        out.extend(std::iter::repeat_n('?', chunk.invalid().len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys planted around every place a window begins or ends are each found once, whole.
    #[test]
    fn keys_at_window_edges_are_found_once_and_whole() {
        let d = Detector::default();
        let keys: Vec<String> = (0..40u64)
            .map(|i| {
                format!(
                    "AKIA{}",
                    super::super::tests::chars(i, 16, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
                )
            })
            .collect();
        let step = WINDOW - 2 * MARGIN;
        let mut line = vec![b'.'; 3 * WINDOW];
        line[..7].copy_from_slice(b"Error: ");
        let mut at = Vec::new();
        // Keys just before, across and after each window's margins.
        for edge in [
            MARGIN,
            step,
            step + MARGIN,
            WINDOW - MARGIN,
            WINDOW,
            2 * step + MARGIN,
        ] {
            for delta in [-21i64, -10, 0, 1] {
                at.push((edge as i64 + delta) as usize);
            }
        }
        at.sort_unstable();
        at.dedup();
        let mut planted = Vec::new();
        let mut last_end = 0;
        for (k, &p) in keys.iter().zip(&at) {
            if p < last_end + 1 {
                continue;
            }
            line[p - 1] = b' ';
            line[p..p + 20].copy_from_slice(k.as_bytes());
            line[p + 20] = b' ';
            last_end = p + 21;
            planted.push(super::super::fingerprint(k));
        }
        // In pieces of odd sizes, as buffers come.
        let mut stream = LineStream::new(&d);
        for piece in line.chunks(77_777) {
            stream.feed(piece);
        }
        let mut got: Vec<String> = stream.finish().into_iter().map(|f| f.fingerprint).collect();
        got.sort();
        planted.sort();
        assert_eq!(got, planted);
    }

    /// Red team repro 09 on a line too long to hold: a key after `\q` or `\n` (a JSON string no
    /// decoder reads) glued to the escape's letter and was missed; one after `\` alone is found
    /// as written. A run of backslashes across a window's start keeps its pairs.
    #[test]
    fn keys_after_escapes_in_a_streamed_line_are_found() {
        let d = Detector::default();
        let key = |i: u64| {
            format!(
                "AKIA{}",
                super::super::tests::chars(i, 16, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
            )
        };
        let step = WINDOW - 2 * MARGIN;
        let mut line = format!("{{\"content\":\"{}", ".".repeat(100));
        let mut want = Vec::new();
        for (i, esc) in ["\\q", "\\n", "\\", "\\\\\\t"].iter().enumerate() {
            let k = key(i as u64);
            line.push_str(&format!("x{esc}{k} "));
            want.push(super::super::fingerprint(&k));
        }
        // An even run of backslashes is pairs: the letter after it is text, not escaped, so
        // its key is glued to it as decoded too, and not found. The run starts before the
        // second window and ends where that window reports: the pairs are kept across it.
        let glued = key(9);
        while line.len() < step - 1 {
            line.push('.');
        }
        line.push_str(&"\\".repeat(MARGIN + 20));
        line.push_str(&format!("q{glued} "));
        line.push_str(&".".repeat(WINDOW));
        let mut stream = LineStream::new(&d);
        stream.feed(line.as_bytes());
        let mut got: Vec<String> = stream.finish().into_iter().map(|f| f.fingerprint).collect();
        got.sort();
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn split_escapes_keeps_pairs_and_reports_the_mark() {
        assert_eq!(
            split_escapes(r"a\qb\\c", false, 0),
            (Some(r"a  b\\c".into()), false)
        );
        assert_eq!(split_escapes("ab", false, 1), (None, false));
        assert_eq!(split_escapes("qb", true, 9), (Some(" b".into()), false));
        // `a\\\`: the second backslash is escaped, the third starts an escape past the end.
        assert_eq!(split_escapes(r"a\\\", false, 2), (None, true));
        assert_eq!(split_escapes(r"a\\\", false, 3), (None, false));
        assert_eq!(split_escapes(r"a\\\", false, 4), (None, true));
    }

    #[test]
    fn text_keeps_offsets_where_bytes_are_not_utf8() {
        assert_eq!(same_length_text(b"a\xffb\xe2\x82"), "a?b??");
        assert_eq!(same_length_text("é".as_bytes()), "é");
    }
}
