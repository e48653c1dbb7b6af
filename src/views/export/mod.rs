//! `pisess export`: one branch of a session, root to leaf, as a pi session (JSONL), as Markdown,
//! or as one self-contained HTML page.
//!
//! Data first: [`jsonl`] writes the branch's entries as pi's `serializeSessionBranch` does;
//! [`transcript`] turns the branch into what a reader sees (messages, tool calls and their
//! results, summaries, facts), which [`md`] and [`html`] render, one renderer per format. Every
//! text taken from the session passes through one [`Redact`] hook on its way into the output.

pub mod branches;
pub mod call;
pub mod decode;
pub mod html;
pub mod index;
pub mod jsonl;
pub mod md;
mod runs;
pub mod transcript;

use std::borrow::Cow;

/// The one hook every text of an export passes through on its way out (`--redact`). Shared
/// by the threads that build a transcript.
pub trait Redact: Sync {
    fn text<'s>(&self, s: &'s str) -> Cow<'s, str>;

    /// A JSON value of an entry (the entry, a call's arguments) with every string and key
    /// through the hook, its strings judged as the entry's own are (not one JSON level deeper,
    /// as they would be if it were written out and passed as one text).
    fn value<'v>(&self, v: &'v serde_json::Value) -> Cow<'v, serde_json::Value> {
        Cow::Borrowed(v)
    }
}

/// No redaction: every text as it is.
pub struct Verbatim;

impl Redact for Verbatim {
    fn text<'s>(&self, s: &'s str) -> Cow<'s, str> {
        Cow::Borrowed(s)
    }
}

/// `--redact`: the detector's judgement of each text, and every secret the branch was found
/// to hold replaced wherever else it occurs (an id, a type, a name the detector cannot judge
/// as text), by the same token: ids and parent ids still meet.
impl Redact for crate::views::secrets::Scrub<'_> {
    fn text<'s>(&self, s: &'s str) -> Cow<'s, str> {
        crate::views::secrets::Scrub::text(self, s)
    }

    /// The detector's judgement of the value's strings (each with its key, as deep as
    /// `grep --secrets` reads), then every known secret taken out of every string and key,
    /// where an escape or a missing word boundary hid it from the detector.
    fn value<'v>(&self, v: &'v serde_json::Value) -> Cow<'v, serde_json::Value> {
        let mut owned = v.clone();
        let judged = self.detector().redact_entry(&mut owned);
        if self.known_in(&mut owned) || judged {
            Cow::Owned(owned)
        } else {
            Cow::Borrowed(v)
        }
    }
}

/// How tool calls and their results are shown in Markdown and HTML.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tools {
    /// Arguments and results shown, open.
    Full,
    /// Arguments and results in closed `<details>` blocks.
    Collapsed,
    /// Neither calls nor results.
    None,
}

/// What a Markdown or HTML export shows.
#[derive(Debug, Clone, Copy)]
pub struct View {
    pub tools: Tools,
    pub thinking: bool,
    /// With [`Tools::Full`]: the lines of each tool output shown (each line
    /// [`call::BYTES_PER_LINE`] bytes on average at most); `None`: all of it.
    pub output_lines: Option<usize>,
}

impl View {
    /// `--tools full`'s cap on each output, unless `--output-lines` says otherwise.
    pub const FULL_OUTPUT_LINES: usize = 200;

    /// How much of a tool output `view` shows: its byte length, else where it is cut.
    pub fn output_cut(self, text: &str) -> usize {
        match (self.tools, self.output_lines) {
            (Tools::Full, Some(lines)) => call::cut_after(text, lines),
            _ => text.len(),
        }
    }
}

/// Where the Markdown and HTML renderers write: a buffer handed to the writer each time it
/// passes [`Out::SPILL`] bytes, so a long message's page is never held whole (its output can
/// be four times its text: `>` is `&gt;`). Renderers push to it as to a `String`; the first
/// write error is kept and returned by [`Out::finish`].
pub struct Out<'w> {
    buf: String,
    sink: &'w mut dyn std::io::Write,
    /// Control characters made visible as they pass (`style::escape_control`): a terminal.
    escape: bool,
    error: Option<std::io::Error>,
    /// Keeps the whole output in `buf` ([`Out::held`]).
    hold: bool,
    /// Items rendered elsewhere, after what was written and before `buf`: written together
    /// once they pass [`Out::BATCH`] bytes ([`Out::push_rendered`]).
    rendered: Vec<String>,
    rendered_len: usize,
}

impl<'w> Out<'w> {
    /// The buffer's size at which it is written out.
    pub const SPILL: usize = 1 << 16;

    /// The bytes of items rendered elsewhere that are written out in one `writev`: a page of
    /// hundreds of MB was written an item at a time through an 8 KB buffer (11,500 `write`
    /// calls for issue 48's 277 MB page), and a larger buffer would copy every item once more.
    pub const BATCH: usize = 1 << 20;

    pub fn new(sink: &'w mut dyn std::io::Write, escape: bool) -> Out<'w> {
        Out {
            buf: String::with_capacity(Self::SPILL + 1024),
            sink,
            escape,
            error: None,
            hold: false,
            rendered: Vec::new(),
            rendered_len: 0,
        }
    }

    /// Writes the buffer out once it is past [`Out::SPILL`]. Cheap: renderers call it after
    /// any piece of output.
    pub fn spill(&mut self) {
        if self.buf.len() >= Self::SPILL {
            self.write_out();
        }
    }

    /// Pushes a long text a piece at a time, each written out in turn: a 30 MB tool output
    /// is never copied whole into the buffer.
    pub fn push_chunked(&mut self, mut text: &str) {
        while text.len() > Self::SPILL {
            let mut cut = Self::SPILL;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            self.buf.push_str(&text[..cut]);
            self.write_out();
            text = &text[cut..];
        }
        self.buf.push_str(text);
        self.spill();
    }

    /// An `Out` that keeps what is rendered to it, for [`Out::into_held`]: an item rendered
    /// on a worker, written out in order by the page's own `Out` ([`Out::push_rendered`]).
    /// `capacity`: about what it will hold, so that its buffer is not grown a doubling at a
    /// time (each a copy of what it held).
    pub fn held(sink: &'w mut dyn std::io::Write, capacity: usize) -> Out<'w> {
        Out {
            buf: String::with_capacity(capacity),
            sink,
            escape: false,
            error: None,
            hold: true,
            rendered: Vec::new(),
            rendered_len: 0,
        }
    }

    /// What a [`Out::held`] kept.
    pub fn into_held(self) -> String {
        self.buf
    }

    /// Writes output rendered elsewhere (an item rendered on a worker) after what is
    /// buffered, as it is: it was made by the same renderers. It is kept, not copied, and
    /// written with the items after it ([`Out::BATCH`]).
    pub fn push_rendered(&mut self, text: String) {
        if self.escape {
            // Rare (a page to a terminal): made visible as any other output is.
            self.push_chunked(&text);
            return;
        }
        if !self.buf.is_empty() {
            self.write_out();
        }
        self.rendered_len += text.len();
        self.rendered.push(text);
        if self.rendered_len >= Self::BATCH {
            self.write_rendered();
        }
    }

    /// Writes the items kept by [`Out::push_rendered`], as many in each call as the sink takes.
    fn write_rendered(&mut self) {
        let mut slices: Vec<std::io::IoSlice> = self
            .rendered
            .iter()
            .map(|t| std::io::IoSlice::new(t.as_bytes()))
            .collect();
        let mut left = &mut slices[..];
        while self.error.is_none() && !left.is_empty() {
            match self.sink.write_vectored(left) {
                Ok(0) => self.error = Some(std::io::ErrorKind::WriteZero.into()),
                Ok(n) => std::io::IoSlice::advance_slices(&mut left, n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => self.error = Some(e),
            }
        }
        self.rendered.clear();
        self.rendered_len = 0;
    }

    fn write_out(&mut self) {
        if self.hold {
            return;
        }
        if !self.rendered.is_empty() {
            self.write_rendered();
        }
        if self.error.is_none() {
            let text = if self.escape {
                crate::views::style::escape_control(&self.buf, true)
            } else {
                Cow::Borrowed(self.buf.as_str())
            };
            if let Err(e) = self.sink.write_all(text.as_bytes()) {
                self.error = Some(e);
            }
        }
        self.buf.clear();
        // A piece larger than the threshold (a message pushed whole) is not kept.
        self.buf.shrink_to(Self::SPILL + 1024);
    }

    /// Writes what is left; the first write error, if any.
    pub fn finish(mut self) -> std::io::Result<()> {
        self.write_out();
        self.error.map_or(Ok(()), Err)
    }
}

impl std::ops::Deref for Out<'_> {
    type Target = String;
    fn deref(&self) -> &String {
        &self.buf
    }
}

impl std::ops::DerefMut for Out<'_> {
    fn deref_mut(&mut self) -> &mut String {
        &mut self.buf
    }
}

impl std::fmt::Write for Out<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.buf.push_str(s);
        self.spill();
        Ok(())
    }
}

/// Text rendered into memory, for tests.
#[cfg(test)]
pub(crate) fn rendered(f: impl FnOnce(&mut Out)) -> String {
    let mut bytes = Vec::new();
    let mut out = Out::new(&mut bytes, false);
    f(&mut out);
    out.finish().unwrap();
    String::from_utf8(bytes).unwrap()
}

/// What a render wrote: its total size and the largest single write (the most the renderer
/// held at once), for the tests of bounded memory.
#[cfg(test)]
pub(crate) fn writes(f: impl FnOnce(&mut Out)) -> (usize, usize) {
    struct Sizes(usize, usize);
    impl std::io::Write for Sizes {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            self.1 = self.1.max(b.len());
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut sizes = Sizes(0, 0);
    let mut out = Out::new(&mut sizes, false);
    f(&mut out);
    out.finish().unwrap();
    (sizes.0, sizes.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink that takes at most `most` bytes a call, from as many slices as they span, and
    /// counts its calls.
    struct Slow {
        bytes: Vec<u8>,
        most: usize,
        calls: usize,
    }

    impl std::io::Write for Slow {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.write_vectored(&[std::io::IoSlice::new(b)])
        }
        fn write_vectored(&mut self, bufs: &[std::io::IoSlice<'_>]) -> std::io::Result<usize> {
            self.calls += 1;
            let mut taken = 0;
            for b in bufs {
                let n = b.len().min(self.most - taken);
                self.bytes.extend_from_slice(&b[..n]);
                taken += n;
                if taken == self.most {
                    break;
                }
            }
            Ok(taken)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Items rendered elsewhere are written in order with what is pushed between them, a
    /// batch of them in a call, whatever part of a batch the sink takes each time.
    #[test]
    fn rendered_items_are_written_in_batches_in_order() {
        for most in [usize::MAX, 1 << 16, 1000, 7] {
            let mut sink = Slow {
                bytes: Vec::new(),
                most,
                calls: 0,
            };
            let mut expected = String::new();
            let mut out = Out::new(&mut sink, false);
            let items = if most < 100 { 300 } else { 3000 };
            for k in 0..items {
                let item = format!("<article>{k}{}</article>\n", "x".repeat(k % 900));
                expected.push_str(&item);
                out.push_rendered(item);
                if k % 500 == 0 {
                    let between = format!("<hr id={k}>\n");
                    expected.push_str(&between);
                    out.push_str(&between);
                }
            }
            out.push_str("</main>\n");
            expected.push_str("</main>\n");
            out.finish().unwrap();
            assert_eq!(String::from_utf8(sink.bytes).unwrap(), expected, "{most}");
            if most == usize::MAX {
                // 1.4 MB of items in 3,000 pieces: a call a batch, one for each `<hr>` after.
                assert!(sink.calls <= 20, "{} calls", sink.calls);
            }
        }
    }
}
