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
pub mod transcript;

use std::borrow::Cow;

/// The one hook every text of an export passes through on its way out (`--redact`).
pub trait Redact {
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
}

impl<'w> Out<'w> {
    /// The buffer's size at which it is written out.
    pub const SPILL: usize = 1 << 16;

    pub fn new(sink: &'w mut dyn std::io::Write, escape: bool) -> Out<'w> {
        Out {
            buf: String::with_capacity(Self::SPILL + 1024),
            sink,
            escape,
            error: None,
            hold: false,
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
    pub fn held(sink: &'w mut dyn std::io::Write) -> Out<'w> {
        Out {
            buf: String::with_capacity(4096),
            sink,
            escape: false,
            error: None,
            hold: true,
        }
    }

    /// What a [`Out::held`] kept.
    pub fn into_held(self) -> String {
        self.buf
    }

    /// Writes output rendered elsewhere (an item rendered on a worker) after what is
    /// buffered, as it is: it was made by the same renderers.
    pub fn push_rendered(&mut self, text: &str) {
        if self.escape {
            // Rare (a page to a terminal): made visible as any other output is.
            self.push_chunked(text);
            return;
        }
        self.write_out();
        if self.error.is_none() {
            if let Err(e) = self.sink.write_all(text.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    fn write_out(&mut self) {
        if self.hold {
            return;
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
