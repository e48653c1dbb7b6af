//! Reading lines into entries: the single parser every command goes through.
//!
//! A [`Pass`] finds the header, skips blank lines as pi does, reports malformed ones as warnings,
//! applies the v1 id migration and the seed-000 mapping, and hands each entry to the caller as a
//! borrowed [`LineView`]. It never prints and never decides to skip a file: callers do.

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::ops::ControlFlow;
use std::path::Path;

use serde_json::Value;

use crate::json;
use crate::model::{self, Dialect, EntryKind, EntryLine, Header, LineView, NotAHeader};
use crate::reader::{Cut, LineReader, RawLine, Spill, MAX_LINE};
pub use crate::util::file::stem_of;
use crate::util::readahead::{self, ReadAhead, Reading};
use crate::util::slurp::{self, Slurp};
use crate::util::warning::Warning;

/// Why a file could not be read as a session at all.
#[derive(Debug)]
pub enum ScanError {
    Io(io::Error),
    /// A directory, FIFO, socket or device where a session file was expected (its kind).
    NotRegular(&'static str),
    /// The first parsable line is not a pi session header.
    NotASession {
        line: u64,
        reason: NotAHeader,
        /// The first line before it that did not parse, and why: often the header itself.
        unread: Option<(u64, String)>,
    },
    /// No parsable line at all.
    Empty,
    /// No line parsed; the first one that did not, and why (UTF-16, NUL bytes, too deep...).
    NoHeader {
        line: u64,
        reason: String,
    },
    /// The file was rewritten under the reader: what it holds now is not what was indexed.
    Changed,
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ScanError::Io(e) => f.write_str(&crate::util::warning::io_cause(e)),
            ScanError::NotRegular(kind) => write!(f, "not a regular file ({kind})"),
            ScanError::NotASession {
                line,
                reason,
                unread,
            } => {
                write!(f, "line {line}: not a pi session: {reason}")?;
                match unread {
                    Some((n, why)) => write!(f, " (line {n} before it did not parse: {why})"),
                    None => Ok(()),
                }
            }
            ScanError::Empty => f.write_str("not a pi session: the file holds no session header"),
            ScanError::NoHeader { line, reason } => {
                write!(
                    f,
                    "not a pi session: no line parses (line {line}: {reason})"
                )
            }
            ScanError::Changed => f.write_str("changed while it was being read"),
        }
    }
}

impl std::error::Error for ScanError {}

/// What a scan learned besides the entries.
///
/// `H` is the header's form: parsed ([`Header`]) for every reader; the summary cache stores
/// the report as it is, with the header as its stored line ([`ScanReport::with_header`]), so
/// a field added here is stored with the rest (bump the cache's `FORMAT` then) rather than
/// forgotten by a copy. What is not stored is marked so.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct ScanReport<H = Header> {
    pub header: H,
    pub header_line: u64,
    /// Where the header's stored line starts, and its length on disk (terminator included).
    pub header_offset: u64,
    pub header_len: u64,
    pub entries: usize,
    /// Malformed lines (not JSON, not an object, a second header...): every one counted.
    pub malformed: u64,
    /// The first [`MAX_WARNINGS`] malformed lines' warnings; past them, one more without a
    /// line that says how many were left out ([`warnings_omitted`](Self::warnings_omitted)):
    /// a file of millions of bad lines costs no more memory, nor stderr, than one of a hundred.
    pub warnings: Vec<Warning>,
    /// The malformed lines counted but not given a warning of their own (see `warnings`).
    #[serde(default)]
    pub warnings_omitted: u64,
    /// The last line had no `\n` and did not parse: pi is probably still writing it. Not
    /// stored: a report with a torn line is not [`resumable`](Self::resumable).
    #[serde(skip)]
    pub torn_tail: bool,
    /// That line's number, for `check`'s findings (set with `torn_tail`, and not stored).
    #[serde(skip)]
    pub torn_line: Option<u64>,
    /// Where the scan stopped, for going on from there ([`Pass::resume`]).
    pub tail: Tail,
}

/// The end of what a scan read, and the little it must remember to read on from there as if it
/// had never stopped: pi only appends, so the summary cache reads a grown file from its old end.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tail {
    /// The number of the last line read.
    pub(crate) lines: u64,
    /// The offset just past it.
    pub end: u64,
    /// The last line had no `\n`: what is appended would continue it, so no scan goes on
    /// from here.
    pub(crate) open: bool,
    /// The v1 migration's last id: the next entry's parent.
    pub prev_v1_id: Option<String>,
    /// Lines had to be left unread (broken off early): the end is not the file's.
    pub(crate) stopped: bool,
}

impl<H> ScanReport<H> {
    /// Whether a scan can go on from where this one stopped ([`Pass::resume`]).
    pub fn resumable(&self) -> bool {
        !self.tail.open && !self.tail.stopped && !self.torn_tail
    }

    /// The same report with its header turned into another form by `to`: the summary cache
    /// stores the header's stored line, and parses it again ([`header_of_stored`]).
    pub fn with_header<G>(self, to: impl FnOnce(H) -> G) -> ScanReport<G> {
        // Every field named: one added to the report is a compile error here, not a loss.
        let ScanReport {
            header,
            header_line,
            header_offset,
            header_len,
            entries,
            malformed,
            warnings,
            warnings_omitted,
            torn_tail,
            torn_line,
            tail,
        } = self;
        ScanReport {
            header: to(header),
            header_line,
            header_offset,
            header_len,
            entries,
            malformed,
            warnings,
            warnings_omitted,
            torn_tail,
            torn_line,
            tail,
        }
    }
}

/// How many malformed lines of one file get a warning of their own; the rest are counted.
pub const MAX_WARNINGS: usize = 100;

/// The warning that stands for the malformed lines past the first [`MAX_WARNINGS`].
pub(crate) fn omitted_warning(omitted: u64) -> Warning {
    Warning {
        line: None,
        message: format!(
            "… and {omitted} more malformed line{}",
            if omitted == 1 { "" } else { "s" }
        ),
    }
}

/// How one non-blank line parsed.
#[allow(clippy::large_enum_variant)] // short-lived, one per line
enum Parsed<'a> {
    /// The skim read it: its view is the one [`skim_line`] gave.
    Skimmed,
    /// serde_json read it.
    View(LineView<'a>),
    /// An object only the slow path parses (duplicate keys, invalid UTF-8).
    Slow,
    /// `null`: pi skips it silently.
    Null,
    Bad(Bad),
}

/// Why a line is no entry, put in words only when it is reported: a file of a million bad
/// lines (an HTML page checked before it is overwritten) words the first hundred, not all.
enum Bad {
    Cut(Cut),
    NotObject,
    NotJson(serde_json::Error),
    /// No JSON value starts the line: not JSON, for sure, and the decoder's error is worded
    /// only if it is shown.
    NoValue,
}

impl Bad {
    fn reason(&self, line: &RawLine) -> String {
        match self {
            Bad::Cut(Cut::TooLong) => format!(
                "a line of {} bytes, longer than pi can read ({MAX_LINE} characters); skipped",
                line.len_on_disk()
            ),
            Bad::Cut(Cut::NoMemory) => format!(
                "a line of {} bytes, more than memory holds; skipped",
                line.len_on_disk()
            ),
            Bad::Cut(Cut::NotJson) | Bad::NoValue => not_json(line.content(), None),
            Bad::NotObject => "not a JSON object".to_owned(),
            Bad::NotJson(e) => not_json(line.content(), Some(e)),
        }
    }
}

/// The skim's view of a line, which nearly every line has: the skim vouches for it (an object,
/// nested under `json::MAX_DEPTH` levels) at memory speed. Kept by the scan's loop where it is
/// made: moved through [`Parsed`] and into the loop's own slot, the view (792 bytes) was
/// copied twice a line.
fn skim_line<'a>(line: &RawLine<'a>) -> crate::skim::Result<LineView<'a>> {
    match line.cut {
        None => LineView::skimmed(line.content()),
        Some(_) => Err(crate::skim::Unsure),
    }
}

/// How a line parsed, `skimmed` when [`skim_line`] gave its view: serde_json decides the rest,
/// the same way it always did.
fn parse_line<'a>(line: &RawLine<'a>, skimmed: bool) -> Parsed<'a> {
    let bytes = line.content();
    if let Some(cut) = line.cut {
        return Parsed::Bad(Bad::Cut(cut));
    }
    if skimmed {
        return Parsed::Skimmed;
    }
    // serde's derived struct also accepts a JSON array (as a tuple): only objects take the
    // fast path, so `[1,2]` is reported like any other non-object line.
    let first = bytes
        .iter()
        .find(|b| !matches!(b, b' ' | b'\n' | b'\t' | b'\r'));
    if !matches!(
        first,
        Some(b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n')
    ) {
        // No decoder takes it (invalid UTF-8, stand-ins and `1e999` are mended inside
        // values): pages of HTML, logs. Their errors are worded only when shown.
        return Parsed::Bad(Bad::NoValue);
    }
    if first == Some(&b'{') {
        if let Ok(view) = serde_json::from_slice::<LineView>(bytes) {
            // The view skips what it does not read with serde_json's `ignore_value`, which has
            // no depth limit, while a full decode (`Session::load`) stops at
            // `json::DECODE_DEPTH` levels: a line nested deeper would be indexed and then fail
            // to show. The rare line that may be is decoded in full here to decide.
            if !json::may_be_too_deep(bytes) || json::decode(bytes).is_ok() {
                return Parsed::View(view);
            }
        }
    }
    match json::decode(bytes) {
        Ok(Value::Null) => Parsed::Null,
        Ok(Value::Object(_)) => Parsed::Slow,
        Ok(_) => Parsed::Bad(Bad::NotObject),
        Err(e) => Parsed::Bad(Bad::NotJson(e)),
    }
}

/// Why a line is not JSON, with what it looks like when that says more than the decoder's
/// error: NUL bytes (a binary file, or the zeros a crash can leave), UTF-16.
fn not_json(bytes: &[u8], e: Option<&serde_json::Error>) -> String {
    // ASCII in UTF-16 is every other byte NUL: `{\0"\0` (little-endian) or `\0{\0"`, after
    // a byte-order mark or not.
    let text = [&b"\xFF\xFE"[..], b"\xFE\xFF"]
        .iter()
        .find_map(|bom| bytes.strip_prefix(*bom))
        .unwrap_or(bytes);
    let nul = |k: usize| text.get(k).map(|&b| b == 0);
    let pattern = (nul(0), nul(1), nul(2), nul(3));
    let utf16 = pattern == (Some(false), Some(true), Some(false), Some(true))
        || pattern == (Some(true), Some(false), Some(true), Some(false));
    if utf16 {
        return "not UTF-8: it looks like UTF-16 (pi reads UTF-8 only; convert it with `iconv -f UTF-16 -t UTF-8`)".to_owned();
    }
    if bytes.first() == Some(&0) {
        return "NUL bytes, not text (a binary file, or zeros left by a crash)".to_owned();
    }
    match e {
        Some(e) => json::describe_error(bytes, e),
        None => match json::decode(bytes) {
            Err(e) => json::describe_error(bytes, &e),
            Ok(_) => "not a JSON object".to_owned(),
        },
    }
}

/// What a line before the header means.
enum HeaderStep {
    Skip,
    Torn,
    Malformed(Bad),
    /// Boxed: a header is far larger than the other steps.
    Found(Box<Header>),
    NotASession(NotAHeader),
}

fn header_step(parsed: Parsed, line: &RawLine, stem: &str) -> HeaderStep {
    match parsed {
        Parsed::Null => HeaderStep::Skip,
        Parsed::Bad(_) if !line.terminated && line.cut.is_none() => HeaderStep::Torn,
        // pi skips the line and so finds no session in the file; say why, rather than blame
        // the entry after it for not being a header.
        Parsed::Bad(_) if bom_before_header(line.content(), stem) => {
            HeaderStep::NotASession(NotAHeader::ByteOrderMark)
        }
        Parsed::Bad(bad) => HeaderStep::Malformed(bad),
        Parsed::Skimmed | Parsed::View(_) | Parsed::Slow => {
            // Its value is decoded only if asked for (`Header::value`).
            match Header::from_line(line.content(), stem) {
                Ok(h) => HeaderStep::Found(Box::new(h)),
                Err(reason) => HeaderStep::NotASession(reason),
            }
        }
    }
}

fn bom_before_header(bytes: &[u8], stem: &str) -> bool {
    bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .is_some_and(|rest| json::decode(rest).is_ok_and(|v| Header::from_value(v, stem).is_ok()))
}

/// The header whose stored line (terminator included) a scan found, read again from it.
pub fn header_of_stored(stored: &[u8], stem: &str) -> Option<Header> {
    let line = stored.strip_suffix(b"\n").unwrap_or(stored);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut header = Header::from_value(json::decode(line).ok()?, stem).ok()?;
    header.stored = stored.to_vec();
    Some(header)
}

/// Reads only as far as the header (pi's `readSessionHeader`), for lookups by id.
pub fn read_header(path: &Path) -> Result<Header, ScanError> {
    let OpenedFile { file, stem, .. } = open_file(path)?;
    read_header_of(file, &stem)
}

/// [`read_header`] of a file already open (`rm` checks the very file it is about to remove).
pub fn read_header_of(mut input: impl io::Read, stem: &str) -> Result<Header, ScanError> {
    let input = BufReader::with_capacity(16 * 1024, &mut input as &mut dyn io::Read);
    let report =
        Pass::new()
            .header_only()
            .run_reader(input, stem, |_, _| ControlFlow::Break(()))?;
    Ok(report.header)
}

/// The error for a file in which no header was found.
fn no_header(unread: Option<(u64, String)>) -> ScanError {
    match unread {
        Some((line, reason)) => ScanError::NoHeader { line, reason },
        None => ScanError::Empty,
    }
}

/// A callback for the lines a scan hands out as no entry: the header, malformed lines (a
/// byte-order mark, trailing bytes, not JSON...), a second header, a torn last line. Each with
/// its number and its bytes (without the terminator; a cut line's first bytes only).
pub(crate) type OtherLine<'f> = &'f mut dyn FnMut(u64, &[u8]);

/// Where the bytes of one [`Pass`] come from. The pass, not its caller, decides how they are
/// read: a regular file whole from its start (on a second thread when it is big, if the pass's
/// [`Reading`] allows), anything else once, in order, as a stream.
pub enum Input<'a> {
    /// A session file by path, which must be a regular file ([`open_file`]).
    Path(&'a Path),
    /// A file already open: by [`open_file`], or by [`open_named`], where a FIFO or terminal
    /// named on the command line is read as a stream.
    File(&'a OpenedFile),
    /// A stream read once (stdin), named `stem`.
    Stream(&'a mut dyn io::Read, &'a str),
    /// Bytes held in memory, named `stem`.
    Bytes(&'a [u8], &'a str),
    /// A whole file's bytes as the caller reads them ([`whole_file`], wrapped: the summary
    /// cache hashes them on the way), named `stem`.
    Buffered(&'a mut dyn io::BufRead, &'a str),
}

impl Input<'_> {
    /// Whether standard input may be read as a stream: not when it is a device but no
    /// terminal (`< /dev/zero`), which would never end. `device` is its kind, as the run found
    /// it when it started.
    pub fn stdin_allowed(device: Option<&'static str>) -> Result<(), StdinIsADevice> {
        device.map_or(Ok(()), |kind| Err(StdinIsADevice(kind)))
    }
}

/// Standard input refused ([`Input::stdin_allowed`]): a device, of this kind.
#[derive(Debug)]
pub struct StdinIsADevice(pub &'static str);

impl fmt::Display for StdinIsADevice {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "<stdin>: not a session: standard input is {}, not a file, pipe or terminal",
            self.0
        )
    }
}

impl std::error::Error for StdinIsADevice {}

impl<'a> From<&'a Path> for Input<'a> {
    fn from(path: &'a Path) -> Input<'a> {
        Input::Path(path)
    }
}

impl<'a> From<&'a OpenedFile> for Input<'a> {
    fn from(opened: &'a OpenedFile) -> Input<'a> {
        Input::File(opened)
    }
}

impl<'a> From<&'a std::path::PathBuf> for Input<'a> {
    fn from(path: &'a std::path::PathBuf) -> Input<'a> {
        Input::Path(path)
    }
}

/// One read of a session's lines into entries, built with what the caller needs
/// (`Pass::new().resume(report).run(input, on_entry)`): `on_entry` is called with every entry
/// in file order, and may break to stop (a reader that went away), the report then covering
/// the lines read so far.
#[derive(Default)]
pub struct Pass<'p> {
    reading: Reading,
    resume: Option<ScanReport>,
    prefilter: Option<&'p mut dyn FnMut(u64) -> Option<u64>>,
    other: Option<OtherLine<'p>>,
    spill: Option<Spill<'p>>,
    header_only: bool,
}

impl<'p> Pass<'p> {
    /// A plain pass over every line, reading a big file ahead on a second thread.
    pub fn new() -> Pass<'p> {
        Pass::default()
    }

    /// How a whole regular file is read (a stream is read as it comes).
    pub fn reading(self, reading: Reading) -> Pass<'p> {
        Pass { reading, ..self }
    }

    /// Goes on with a pass that `before` reported (it must be
    /// [`resumable`](ScanReport::resumable)): the input is the same file from `before`'s end
    /// on, what was appended since, and the report is the one a pass over the whole file gives.
    pub fn resume(self, before: ScanReport) -> Pass<'p> {
        debug_assert!(before.resumable());
        Pass {
            resume: Some(before),
            ..self
        }
    }

    /// Reads, after the header, only the lines that hold a byte `next` points at: `next(from)`
    /// is the first offset at or after `from` whose line may matter, `None` when no line after
    /// `from` does. A line passed over is not parsed: it is neither handed out nor, when
    /// malformed, reported, and the entries' ordinals count only the entries handed out (so
    /// they say which comes first, not where). The report's tail is not resumable. A v1 file
    /// (whose ids are ordinals) and a seed-000 file are read whole.
    pub fn prefilter(self, next: &'p mut dyn FnMut(u64) -> Option<u64>) -> Pass<'p> {
        Pass {
            prefilter: Some(next),
            ..self
        }
    }

    /// Also hands out every other non-blank line ([`OtherLine`]): for the readers that must
    /// see every byte of a file, whatever pi makes of it (`--secrets`). A line the reader
    /// passes over unheld (longer than pi reads, or a long one that cannot be JSON) is handed
    /// to `on_other` by its first bytes only, and whole to `spill`.
    pub fn other_lines(self, on_other: OtherLine<'p>, spill: Spill<'p>) -> Pass<'p> {
        Pass {
            other: Some(on_other),
            spill: Some(spill),
            ..self
        }
    }

    /// Stops at the header (pi's `readSessionHeader`, for lookups by id): no entry is read.
    pub(crate) fn header_only(self) -> Pass<'p> {
        Pass {
            header_only: true,
            ..self
        }
    }

    /// Reads `input`, calling `on_entry` for every entry in file order.
    pub fn run(
        self,
        input: Input<'_>,
        on_entry: impl FnMut(&Header, &EntryLine) -> ControlFlow<()>,
    ) -> Result<ScanReport, ScanError> {
        match input {
            Input::Path(path) => self.run(Input::File(&open_file(path)?), on_entry),
            Input::File(opened) if opened.meta.is_file() => {
                let input = whole_file(opened, self.reading)?;
                self.run_reader(input, &opened.stem, on_entry)
            }
            Input::File(opened) => {
                let input = BufReader::with_capacity(BUFFER, &opened.file);
                self.run_reader(input, &opened.stem, on_entry)
            }
            Input::Stream(read, stem) => {
                self.run_reader(BufReader::with_capacity(BUFFER, read), stem, on_entry)
            }
            Input::Bytes(bytes, stem) => self.run_reader(bytes, stem, on_entry),
            Input::Buffered(read, stem) => self.run_reader(read, stem, on_entry),
        }
    }

    /// [`run`](Pass::run) over a reader already buffered (ripgrep's `search_reader`), named
    /// `stem`.
    pub fn run_reader<R: BufRead>(
        mut self,
        input: R,
        stem: &str,
        on_entry: impl FnMut(&Header, &EntryLine) -> ControlFlow<()>,
    ) -> Result<ScanReport, ScanError> {
        let mut reader = match &self.resume {
            Some(before) => LineReader::resume(input, before.tail.lines, before.tail.end),
            None => LineReader::new(input),
        };
        if let Some(spill) = self.spill.take() {
            reader = reader.spilling(spill);
        }
        scan_from(reader, stem, self, on_entry)
    }
}

fn scan_from<R: BufRead>(
    mut reader: LineReader<'_, R>,
    stem: &str,
    pass: Pass,
    mut on_entry: impl FnMut(&Header, &EntryLine) -> ControlFlow<()>,
) -> Result<ScanReport, ScanError> {
    let Pass {
        resume: before,
        prefilter: mut next,
        other: mut on_other,
        header_only,
        ..
    } = pass;
    let mut other = |line: &RawLine| {
        if let Some(f) = on_other.as_mut() {
            f(line.number, line.content());
        }
    };
    // The header, its line number, offset and length on disk.
    let mut header: Option<(Header, u64, u64, u64)> = None;
    let mut warnings = Vec::new();
    let mut warnings_omitted = 0u64;
    let mut malformed = 0;
    let mut torn_tail = false;
    let mut torn_line = None;
    let mut unread = None;
    let mut ordinal = 0usize;
    let mut prev_v1_id: Option<String> = None;
    let mut tail = Tail::default();
    if let Some(b) = before {
        header = Some((b.header, b.header_line, b.header_offset, b.header_len));
        (warnings, malformed, ordinal) = (b.warnings, b.malformed, b.entries);
        warnings_omitted = b.warnings_omitted;
        if warnings_omitted > 0 {
            // The summary line is written again at the end, with the new count.
            warnings.pop();
        }
        prev_v1_id = b.tail.prev_v1_id;
        tail = Tail {
            prev_v1_id: None,
            ..b.tail
        };
    }

    loop {
        // Past the header of a file whose entries need nothing of the lines before them, a
        // sparse scan goes straight to the next line that may matter.
        let sparse = header
            .as_ref()
            .is_some_and(|(h, ..)| h.dialect == Dialect::Pi && !h.needs_v1_ids());
        if let Some(next) = next.as_mut().filter(|_| sparse) {
            tail.stopped = true;
            match next(reader.offset()) {
                Some(target) => reader.skip_before(target).map_err(ScanError::Io)?,
                None => break,
            }
        }
        let Some(line) = reader.next_line().map_err(ScanError::Io)? else {
            break;
        };
        (tail.lines, tail.end, tail.open) = (
            line.number,
            line.offset + line.len_on_disk(),
            !line.terminated,
        );
        if line.is_blank() {
            continue;
        }
        let skimmed = skim_line(&line);
        let parsed = parse_line(&line, skimmed.is_ok());
        // Only the first warnings are kept: the rest are counted (memory stays bounded
        // whatever the number of bad lines).
        let mut warn = |message: &dyn Fn() -> String| {
            if warnings.len() < MAX_WARNINGS {
                warnings.push(Warning {
                    line: Some(line.number),
                    message: message(),
                });
            } else {
                warnings_omitted += 1;
            }
        };
        let Some((head, ..)) = &header else {
            match header_step(parsed, &line, stem) {
                HeaderStep::Skip => {}
                HeaderStep::Torn => {
                    other(&line);
                    (torn_tail, torn_line) = (true, Some(line.number));
                }
                HeaderStep::Malformed(bad) => {
                    other(&line);
                    malformed += 1;
                    let reason = || bad.reason(&line);
                    if unread.is_none() {
                        unread = Some((line.number, reason()));
                    }
                    warn(&reason);
                }
                HeaderStep::Found(mut h) => {
                    other(&line);
                    h.stored = line.bytes.to_vec();
                    if line.terminated {
                        h.stored.push(b'\n');
                    }
                    header = Some((*h, line.number, line.offset, line.len_on_disk()));
                    if header_only {
                        tail.stopped = true;
                        break;
                    }
                }
                HeaderStep::NotASession(reason) => {
                    return Err(ScanError::NotASession {
                        line: line.number,
                        reason,
                        unread,
                    })
                }
            }
            continue;
        };
        let seed000 = head.dialect == Dialect::Seed000;
        // seed-000 lines are mapped onto pi's shape first; the view borrows the mapped text.
        let owned: String;
        let view_storage: LineView;
        let (view, json): (&LineView, &[u8]) = match (parsed, &skimmed) {
            (Parsed::Null, _) => continue,
            (Parsed::Bad(bad), _) => {
                other(&line);
                // A cut line is no write in progress, even at the end.
                if line.terminated || line.cut.is_some() {
                    malformed += 1;
                    warn(&|| bad.reason(&line));
                } else {
                    (torn_tail, torn_line) = (true, Some(line.number));
                }
                continue;
            }
            (Parsed::Skimmed, Ok(v)) if !seed000 => (v, line.content()),
            (Parsed::View(v), _) if !seed000 => {
                view_storage = v;
                (&view_storage, line.content())
            }
            // seed-000 lines, and the objects only serde_json's `Value` reads.
            _ => {
                let mut value = json::decode(line.content()).unwrap_or(Value::Null);
                if seed000 {
                    value = model::normalize_seed000(value);
                }
                // Written as pi writes it (lone surrogates as escapes, not stand-ins), so that
                // decoding `json` again gives this value back; read by the skim, which takes them.
                owned = crate::surrogates::to_string(&value);
                view_storage = LineView::skim(owned.as_bytes())
                    .or_else(|| serde_json::from_str(&owned).ok())
                    .unwrap_or_default();
                (&view_storage, owned.as_bytes())
            }
        };
        let kind_str = view.kind.get();
        if matches!(kind_str, Some("session" | "session_header")) {
            other(&line);
            malformed += 1;
            warn(&|| "a second session header; ignored".to_owned());
            continue;
        }
        let kind = EntryKind::parse(kind_str);
        let (id, parent) = if head.needs_v1_ids() {
            let id = model::v1_id(ordinal + 1);
            let parent = prev_v1_id.replace(id.clone());
            (Some(Cow::Owned(id)), parent.map(Cow::Owned))
        } else {
            let parent = view
                .parent_id
                .get()
                .filter(|p| !p.is_empty())
                .map(Cow::Borrowed);
            (view.id.get().map(Cow::Borrowed), parent)
        };
        let entry = EntryLine {
            ordinal,
            line: line.number,
            offset: line.offset,
            len: line.len_on_disk(),
            id,
            parent,
            kind,
            view,
            json,
            stored: line.bytes,
        };
        ordinal += 1;
        if on_entry(head, &entry).is_break() {
            tail.stopped = true;
            break;
        }
    }
    tail.prev_v1_id = prev_v1_id;
    let (header, header_line, header_offset, header_len) =
        header.ok_or_else(|| no_header(unread))?;
    if warnings_omitted > 0 {
        warnings.push(omitted_warning(warnings_omitted));
    }
    Ok(ScanReport {
        header,
        header_line,
        header_offset,
        header_len,
        entries: ordinal,
        malformed,
        warnings,
        warnings_omitted,
        torn_tail,
        torn_line,
        tail,
    })
}

/// A session file opened for reading: its path (what a summary or an index names it), its
/// stem (the id of seed-000 sessions), and its metadata (taken once: its kind, size and time).
pub struct OpenedFile {
    pub path: std::path::PathBuf,
    pub file: File,
    pub meta: std::fs::Metadata,
    pub stem: String,
}

/// Opens a session file, which must be a regular file (a symlink to one is followed): a
/// directory, FIFO, socket or device is [`ScanError::NotRegular`], never an empty session or a
/// read that blocks or never ends. The open itself does not block on a FIFO swapped in after
/// the listing looked (`O_NONBLOCK`, which a regular file ignores).
pub fn open_file(path: &Path) -> Result<OpenedFile, ScanError> {
    let (file, meta) = open_nonblocking(path)?;
    if !meta.is_file() {
        return Err(ScanError::NotRegular(crate::util::file::kind_of(
            meta.file_type(),
        )));
    }
    Ok(OpenedFile {
        path: path.to_path_buf(),
        file,
        meta,
        stem: stem_of(path),
    })
}

/// Opens a session named on the command line: a regular file as [`open_file`] does; a FIFO,
/// socket or terminal (`/dev/stdin`) too, which a [`Pass`] reads only in order, as a stream.
pub fn open_named(path: &Path) -> Result<OpenedFile, ScanError> {
    let meta = std::fs::metadata(path).map_err(ScanError::Io)?;
    if meta.is_file() || meta.is_dir() {
        return open_file(path);
    }
    // Blocking: a FIFO named on the command line waits for its writer, as `cat` does (a
    // descriptor opened before without blocking could miss a writer that came and went).
    let file = File::open(path).map_err(ScanError::Io)?;
    Ok(OpenedFile {
        path: path.to_path_buf(),
        file,
        meta,
        stem: stem_of(path),
    })
}

/// Opens anything without blocking on a FIFO, and says what it is.
fn open_nonblocking(path: &Path) -> Result<(File, std::fs::Metadata), ScanError> {
    let file = crate::util::file::open_nonblocking(path, crate::util::file::Links::Follow)
        .map_err(ScanError::Io)?;
    let meta = file.metadata().map_err(ScanError::Io)?;
    Ok((file, meta))
}

/// Reads `buf.len()` bytes at `offset` without moving the file's offset, which its clones share
/// (where the platform cannot, the offset is moved on a clone).
#[cfg(unix)]
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(not(unix))]
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut handle = file.try_clone()?;
    handle.seek(SeekFrom::Start(offset))?;
    handle.read_exact(buf)
}

/// The read buffer of a file or stream read a buffer at a time.
const BUFFER: usize = 256 * 1024;

/// The source for one scan of a whole file: a small one read at once ([`Slurp`]), a big one
/// ahead on a second thread if `reading` allows, or else a buffer at a time.
pub fn whole_file(opened: &OpenedFile, reading: Reading) -> Result<Box<dyn BufRead>, ScanError> {
    let file = &opened.file;
    let size = opened.meta.len();
    // A buffer at a time, over a clone (it shares the file's offset).
    let buffered = || -> Result<_, ScanError> {
        let clone = file.try_clone().map_err(ScanError::Io)?;
        Ok(BufReader::with_capacity(BUFFER, clone))
    };
    if size < slurp::BELOW {
        let slurp = Slurp::new(file, size);
        if !slurp.stopped_short() {
            return Ok(Box::new(slurp));
        }
        // It grew past what a slurp holds while it was read: the rest from where it stopped.
        return Ok(Box::new(io::Read::chain(slurp, buffered()?)));
    }
    if reading == Reading::AheadIfBig && size >= readahead::WORTH_A_THREAD {
        let clone = file.try_clone().map_err(ScanError::Io)?;
        if let Ok(reader) = ReadAhead::new(clone) {
            return Ok(Box::new(reader));
        }
    }
    Ok(Box::new(buffered()?))
}

/// The id a stored entry line holds, read as the scan reads it (seed-000 lines mapped first):
/// for checking that a line read again by offset is the entry the index recorded.
pub fn stored_id(line: &[u8], dialect: Dialect) -> Option<String> {
    if dialect == Dialect::Pi {
        if let Some(view) = LineView::skim(line) {
            return view.id.get().map(str::to_owned);
        }
    }
    let mut value = json::decode(line).ok()?;
    if dialect == Dialect::Seed000 {
        value = model::normalize_seed000(value);
    }
    value.get("id")?.as_str().map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        r#"{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

    fn scan(bytes: &[u8]) -> ScanReport {
        let input = Input::Bytes(bytes, "s");
        Pass::new()
            .run(input, |_, _| ControlFlow::Continue(()))
            .unwrap()
    }

    fn bad_lines(n: usize) -> String {
        "not json at all\n".repeat(n)
    }

    /// Red team, item 1: a file read on from where the cache stopped gives the report of a whole
    /// scan, the count of the warnings left out and their one summary line included.
    #[test]
    fn a_scan_read_on_keeps_the_first_warnings_and_counts_the_rest() {
        let first = format!("{HEADER}\n{}", bad_lines(MAX_WARNINGS + 50));
        let more = bad_lines(70);
        let before = scan(first.as_bytes());
        assert_eq!((before.malformed, before.warnings_omitted), (150, 50));
        assert_eq!(before.warnings.len(), MAX_WARNINGS + 1);
        assert!(before.resumable());
        let on = Pass::new()
            .resume(before)
            .run(Input::Bytes(more.as_bytes(), "s"), |_, _| {
                ControlFlow::Continue(())
            })
            .unwrap();
        let whole = format!("{first}{more}");
        let whole = scan(whole.as_bytes());
        assert_eq!((whole.malformed, whole.warnings_omitted), (220, 120));
        assert_eq!(whole.warnings.len(), MAX_WARNINGS + 1);
        assert_eq!(whole.warnings.last(), Some(&omitted_warning(120)));
        assert_eq!(on.malformed, whole.malformed);
        assert_eq!(on.warnings_omitted, whole.warnings_omitted);
        assert_eq!(on.warnings, whole.warnings);
    }

    /// Lines before any header are counted and capped the same way (the header-less path).
    #[test]
    fn lines_before_the_header_are_capped_too() {
        let text = format!("{}{HEADER}\n", bad_lines(3 * MAX_WARNINGS));
        let report = scan(text.as_bytes());
        assert_eq!(report.malformed, 3 * MAX_WARNINGS as u64);
        assert_eq!(report.warnings.len(), MAX_WARNINGS + 1);
        assert_eq!(report.header_line, 3 * MAX_WARNINGS as u64 + 1);
    }

    /// A file read whole at once ([`Slurp`]), or a buffer at a time past [`slurp::BELOW`],
    /// gives the entries and the report the same bytes in memory give: lines longer than a
    /// buffer, a malformed line, a torn last line; and the thread's buffer, reused by the next
    /// file, shows nothing of the one before.
    #[test]
    fn a_file_reads_as_its_bytes_do_whatever_its_size() {
        let big = format!(
            r#"{{"type":"message","id":"b","message":{{"role":"user","content":"{}"}}}}"#,
            "x".repeat(300_000)
        );
        let entry = |n: usize| format!(r#"{{"type":"label","id":"e{n}","label":"{n}"}}"#);
        let mut texts = Vec::new();
        for lines in [3, 40_000] {
            let body: Vec<String> = (0..lines).map(entry).collect();
            let text = format!(
                "{HEADER}\n{big}\nnot json\n{}\n{big}\n{{\"torn",
                body.join("\n")
            );
            texts.push(text);
        }
        // Large, then small: the small one reads into the buffer the large one left.
        texts.push(format!("{HEADER}\n{}\n", entry(7)));
        assert!(texts[1].len() as u64 >= slurp::BELOW && (texts[0].len() as u64) < slurp::BELOW);
        let seen = |input: Input| {
            let mut entries = Vec::new();
            let report = Pass::new()
                .run(input, |_, e| {
                    entries.push((e.line, e.offset, e.len, e.id.as_deref().map(str::to_owned)));
                    ControlFlow::Continue(())
                })
                .unwrap();
            (entries, report.malformed, report.torn_line, report.tail)
        };
        let dir = tempfile::tempdir().unwrap();
        for (k, text) in texts.iter().enumerate() {
            let path = dir.path().join(format!("{k}.jsonl"));
            std::fs::write(&path, text).unwrap();
            let from_file = seen(Input::Path(&path));
            assert_eq!(
                from_file,
                seen(Input::Bytes(text.as_bytes(), "s")),
                "file {k}"
            );
            assert!(!from_file.0.is_empty());
        }
    }

    /// A line no JSON value starts is worded, when shown, as the decoder's error on it; and
    /// the lines that cannot be JSON are not decoded at all until then.
    #[test]
    fn lines_no_value_starts_are_worded_only_when_shown() {
        for line in [
            "<html>",
            "  # a comment",
            "\u{c}{}",
            "\u{feff}{}",
            "\u{0}\u{0}",
            "}",
        ] {
            let decoded = json::decode(line.as_bytes());
            let want = not_json(line.as_bytes(), Some(decoded.as_ref().unwrap_err()));
            let text = format!("{line}\n<p>more</p>\n");
            match read_header_of(text.as_bytes(), "s") {
                Err(ScanError::NoHeader { line: 1, reason }) => assert_eq!(reason, want),
                other => panic!("{line:?}: {other:?}"),
            }
        }
        let page = "<div>x</div>\n".repeat(1000);
        let report = scan(format!("{page}{HEADER}\n").as_bytes());
        assert_eq!(report.malformed, 1000);
        assert_eq!(report.header_line, 1001);
    }
}
