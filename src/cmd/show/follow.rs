//! `pisess show -f`: the session as `show` prints it, then each entry as pi appends it.
//!
//! The bytes come from [`crate::util::follow::FollowedFile`] (a file) or stdin as it arrives,
//! whole lines at a time; each batch is read by the one scanner, as a session of the header line and the new
//! lines ([`Session::read`]), so migrations, seed-000 and warnings are what `show` has.
//! Only the header line and the ids seen are kept between batches.

use std::collections::{HashMap, HashSet};
use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use super::block::Blocks;
use super::entry::{decode_for_block, write_line};
use crate::app::cli::ShowArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::cmd::entry_wanted;
use crate::util::follow::{Change, FollowedFile, Stop};
use crate::views::style;
use pisess_format::model::EntryKind;
use pisess_format::scan::{Input, ScanError};
use pisess_format::time::parse_span;
use pisess_format::util::warning::Warn;
use pisess_format::util::warning::Warning;
use pisess_store::select::Selected;
use pisess_store::session::{IndexOptions, Session};
use pisess_store::util::usage::UsageError;

pub(super) fn run(
    args: &ShowArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let idle = args
        .idle_exit
        .as_deref()
        .map(|s| {
            let bad = || format!("invalid span '{s}': use 30s, 15m, 2h, 3d or 1w");
            // A span's own error (too large) stands; an unknown unit is no time either: the
            // shared message suggests ISO dates, which --idle-exit does not take.
            let known_unit = s.trim().ends_with(['s', 'm', 'h', 'd', 'w']);
            match parse_span(s) {
                Some(Err(e)) if known_unit => Err(e.to_string()),
                Some(Ok(ms)) => Ok(ms),
                Some(Err(_)) | None => Err(bad()),
            }
        })
        .transpose()
        .map_err(|e| UsageError(format!("--idle-exit: {e}")))?
        .map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0)));
    let selected = crate::cmd::selected(args.session.as_deref(), env)?;
    let path = match selected {
        Selected::Stdin => return follow_stdin(args, env, out, diag, stdin),
        Selected::File(path) => path,
    };
    let name = path.display().to_string();
    let stem = pisess_format::util::file::stem_of(&path);
    let mut follower = Follower::new(args, env, name.clone(), stem);
    let mut file = FollowedFile::new(&path);
    let mut last_entry = Instant::now();
    loop {
        let deadline = idle.map(|span| last_entry + span);
        let change = file.next(deadline).with_context(|| name.clone())?;
        let why = match change {
            Ok(Change::Appended(bytes)) => {
                if follower.feed(bytes, out, diag)? > 0 {
                    last_entry = Instant::now();
                }
                out.flush()?;
                continue;
            }
            Ok(Change::Truncated) => "was truncated",
            Ok(Change::Replaced) => "was replaced",
            Err(Stop::Interrupted | Stop::Idle) => return Ok(Outcome::Done),
        };
        let shown = style::escape_control(&name, false);
        diag.note(&format!(
            "pisess: {shown} {why}; showing it again from the start"
        ));
        follower.restart();
    }
}

/// `show -f -`: stdin as it arrives (`tail -f FILE | pisess show -f -`), until it ends.
fn follow_stdin(
    args: &ShowArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let mut follower = Follower::new(args, env, "-".to_owned(), "-".to_owned());
    let mut held = Vec::new();
    let mut chunk = vec![0; 64 * 1024];
    loop {
        let n = match stdin.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(anyhow::Error::new(e).context("<stdin>")),
        };
        held.extend_from_slice(&chunk[..n]);
        if let Some(end) = memchr::memrchr(b'\n', &held) {
            let rest = held.split_off(end + 1);
            follower.feed(std::mem::replace(&mut held, rest), out, diag)?;
            out.flush()?;
        }
    }
    // The end of stdin ends the last line, as it ends a file `show` reads.
    if !held.is_empty() {
        follower.feed(held, out, diag)?;
    }
    Ok(Outcome::Done)
}

/// What is kept between batches.
struct Follower<'a> {
    args: &'a ShowArgs,
    env: &'a Env,
    name: String,
    stem: String,
    /// The header's stored line, once seen; lines read before it are held until it comes.
    header: Option<Vec<u8>>,
    held: Vec<u8>,
    /// The file's line number of the last line read.
    lines: u64,
    /// The id of the last entry shown, and every id seen (for the parent notes).
    last: Option<String>,
    known: HashSet<String>,
    shown: bool,
    labels: HashMap<String, String>,
}

impl<'a> Follower<'a> {
    fn new(args: &'a ShowArgs, env: &'a Env, name: String, stem: String) -> Self {
        Follower {
            args,
            env,
            name,
            stem,
            header: None,
            held: Vec::new(),
            lines: 0,
            last: None,
            known: HashSet::new(),
            shown: false,
            labels: HashMap::new(),
        }
    }

    /// The file starts again: everything is read and shown anew (after a blank line, as the
    /// next block would be).
    fn restart(&mut self) {
        let (args, env, shown) = (self.args, self.env, self.shown);
        let name = std::mem::take(&mut self.name);
        let stem = std::mem::take(&mut self.stem);
        *self = Follower::new(args, env, name, stem);
        self.shown = shown;
    }

    /// Reads and shows whole lines; the number of entries they held.
    fn feed(
        &mut self,
        bytes: Vec<u8>,
        out: &mut dyn Write,
        diag: &mut Diag,
    ) -> anyhow::Result<usize> {
        let (text, before) = match &self.header {
            // The header line, then the new lines: line 1 of the batch is the header.
            Some(header) => ([header.as_slice(), &bytes].concat(), 1),
            None => ([std::mem::take(&mut self.held), bytes].concat(), 0),
        };
        let added = memchr::memchr_iter(b'\n', &text).count() as u64 - before;
        // Lines before any header are read again with the next batch.
        let retry = self.header.is_none().then(|| text.clone());
        let input = Input::Bytes(&text, &self.stem);
        let session = match Session::read(input, IndexOptions::default()) {
            Ok(mut s) => {
                s.name.clone_from(&self.name);
                s
            }
            // No header yet (a file pi has just created): wait for it.
            Err(ScanError::Empty) => {
                self.held = retry.unwrap_or_default();
                return Ok(0);
            }
            Err(e) => return Err(anyhow::Error::new(e).context(self.name.clone())),
        };
        let first = self.header.is_none();
        let base = self.lines - before;
        let warnings: Vec<Warning> = session
            .warnings
            .iter()
            .map(|w| Warning {
                line: w.line.map(|l| l + base),
                message: w.message.clone(),
            })
            .collect();
        diag.session_warnings(&self.name, &warnings);
        self.lines += added;
        self.show(&session, first, out, diag)?;
        if first {
            self.header = Some(session.header.stored.clone());
        }
        Ok(session.entries.len())
    }

    /// The batch's entries `show` would print: on the first, the active branch with `--branch`
    /// (later entries are each the new leaf, so all of them are on it).
    fn show(
        &mut self,
        session: &Session,
        first: bool,
        out: &mut dyn Write,
        diag: &mut Diag,
    ) -> anyhow::Result<()> {
        let args = self.args;
        let candidates: Vec<usize> = match (first && args.branch, session.leaf()) {
            (true, Some(leaf)) => {
                let (path, cycle) = session.path_to(leaf);
                if let Some(id) = cycle {
                    crate::cmd::warn_cycle(diag, session, &id);
                }
                path
            }
            (true, None) => Vec::new(),
            (false, _) => (0..session.entries.len()).collect(),
        };
        if first && args.json && !args.no_header {
            write_line(out, &session.header.stored, self.env.stdout_tty)?;
        }
        let notes = args.types.is_empty() && args.roles.is_empty();
        for i in candidates {
            if *session.kind(i) == EntryKind::Label {
                if let Some(target) = session.target(i) {
                    match session.label(i).filter(|l| !l.is_empty()) {
                        Some(label) => self.labels.insert(target.to_owned(), label.to_owned()),
                        None => self.labels.remove(target),
                    };
                }
            }
            let id = session.id(i);
            if !entry_wanted(
                &args.types,
                &args.roles,
                &session.header,
                session.kind(i),
                session.role(i),
            ) {
                self.remember(id);
                continue;
            }
            if args.json {
                write_line(out, &session.stored_line(i)?, self.env.stdout_tty)?;
            } else {
                let note = if notes {
                    let in_file = |p: &str| self.known.contains(p);
                    let previous = self.last.as_deref().map(Some);
                    super::parent_note(session.parent_id(i), in_file, previous)
                } else {
                    None
                };
                if self.shown {
                    out.write_all(b"\n")?;
                }
                let (entry, cuts) = decode_for_block(session, i, args.full)?;
                let blocks = Blocks {
                    theme: self.env.theme(),
                    full: args.full,
                    tz: &self.env.tz,
                    labels: std::mem::take(&mut self.labels),
                };
                let written = blocks.write(session, i, (&entry, &cuts), note.as_deref(), out);
                self.labels = blocks.labels;
                written?;
            }
            self.shown = true;
            self.remember(id);
        }
        Ok(())
    }

    fn remember(&mut self, id: Option<&str>) {
        if let Some(id) = id {
            self.known.insert(id.to_owned());
            self.last = Some(id.to_owned());
        }
    }
}
