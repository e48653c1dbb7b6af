//! `pisess tree`: the entry tree as pi's `/tree` draws it (filters, layout, previews), with the
//! active path marked; or the same rows as NDJSON, one object per shown entry.
//!
//! Two passes over the entries, each decoding entries on every core, a chunk of them at a
//! time, and each only as far as it reads them: the first decodes assistant messages (the
//! filter needs their text and stop reason, and notes which message holds each tool call),
//! the second decodes each shown entry for its preview and renders its row (a tool result only
//! as far as its preview needs, and its call's message again when that is not the message
//! decoded last), the chunks written in order.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::ops::ControlFlow;

use serde::Serialize;
use serde_json::Value;

use crate::app::cli::TreeArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::cmd::open_selected;
use crate::cmd::started::{Run, Started};
use crate::views::preview::{
    answered_call, call_ids, preview, tool_calls_of, tool_result, Preview, Tone, ToolCalls,
};
use crate::views::style::{self, escape_control, Role, Theme};
use crate::views::text::{pi_tool_call, pi_tool_call_keys};
use crate::views::tree::{layout, shown, visible, Facts, Row, Tree, TreeFilter, Visible};
use pisess_format::model::EntryLine;
use pisess_format::model::{
    decode_kept, stop_is_unusual, Dialect, Entry, EntryKind, Kept, LineView, Message, MessageView,
    Role as Said,
};
use pisess_format::surrogates;
use pisess_format::util::warning::Warn;
use pisess_store::session::{IndexOptions, Session};

pub fn run(
    args: &TreeArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let home = env.inputs.home.to_string_lossy();
    let mut seen = Seen::default();
    let mut observe = |at, e: &EntryLine<'_>| seen.observe(at, e, &home);
    let session = open_selected(
        args.session.as_deref(),
        env,
        diag,
        stdin,
        IndexOptions {
            observe: Some(&mut observe),
            ..Default::default()
        },
    )?;
    let tree = Tree::build(&session);
    diag.session_warnings(&session.name, &tree.warnings);
    let labels = session.labels();
    let (said, tool_calls) = match seen.facts(&session, &tree) {
        Some(seen) => seen,
        None => decode_facts(&session, &tree, &home)?,
    };
    let is_shown = filtered(&session, &tree, &labels, args.filter, &said);
    drop(said);
    let v = visible(&tree, &is_shown);
    drop(is_shown);
    let started = Started::of(&session, env);
    let view = View {
        started: &started,
        session: &session,
        tree: &tree,
        tool_calls: &tool_calls,
        labels: &labels,
        home: &home,
    };
    if args.json {
        view.write_json(&v, out)?;
    } else {
        view.write_human(&v, args.ids, env.width, env.theme(), out)?;
    }
    Ok(Outcome::Done)
}

/// What the index showed of each assistant message (the filter's facts, its calls and the
/// one-liners of a hidden one's), so that no message is read again for the filter.
#[derive(Default)]
struct Seen {
    /// By entry: [`HAS_TEXT`], [`ERROR_OR_ABORTED`].
    said: Vec<u8>,
    tool_calls: ToolCalls,
    /// An assistant message the skim was unsure of: then every message is decoded, so that
    /// a later call of an id still wins.
    unsure: bool,
}

/// Bits of what the filter reads of an assistant message.
const HAS_TEXT: u8 = 1;
const ERROR_OR_ABORTED: u8 = 2;

fn said_bits(has_text: bool, error_or_aborted: bool) -> u8 {
    (u8::from(has_text) * HAS_TEXT) | (u8::from(error_or_aborted) * ERROR_OR_ABORTED)
}

impl Seen {
    fn observe(&mut self, at: u32, e: &EntryLine<'_>, home: &str) {
        let message = e.view.message.0.as_ref();
        if self.unsure
            || e.kind != EntryKind::Message
            || message.and_then(|m| m.role.get()).map(Said::parse) != Some(Said::Assistant)
        {
            return;
        }
        match message.and_then(|m| Noted::of(m, home)) {
            Some(noted) => self.record(at, noted),
            None => self.unsure = true,
        }
    }

    /// What was noted of assistant message `at`, in file order.
    fn record(&mut self, at: u32, noted: Noted) {
        let at_index = at as usize;
        if self.said.len() <= at_index {
            self.said.resize(at_index + 1, 0);
        }
        self.said[at_index] = noted.said;
        for id in &noted.calls {
            self.tool_calls.insert(id, at);
        }
        for (id, line) in &noted.hidden_lines {
            self.tool_calls.keep_line(id, at, line);
        }
    }

    /// The facts seen, when they are the ones a decode of each message in the tree gives: a
    /// file of pi's current version (read as stored), every message sure, and every one in
    /// the tree (a message that lost its id to a later entry holds no calls that count).
    fn facts(self, session: &Session, tree: &Tree) -> Option<(Vec<u8>, ToolCalls)> {
        let current = read_as_stored(session);
        let in_tree =
            (0..session.entries.len()).all(|i| tree.in_tree[i] || !is_assistant(session, i));
        let mut said = self.said;
        said.resize(session.entries.len(), 0);
        (current && !self.unsure && in_tree).then(|| (said, self.tool_calls.sealed()))
    }
}

/// What [`Seen`] keeps of one assistant message: its [`said_bits`], its calls' ids, and their
/// one-liners when the filter hides it (unless it is the leaf, not known while indexing: its
/// lines are then kept for nothing).
struct Noted {
    said: u8,
    calls: Vec<String>,
    hidden_lines: Vec<(String, String)>,
}

impl Noted {
    /// `None` where the skim is unsure.
    fn of(message: &MessageView<'_>, home: &str) -> Option<Noted> {
        let said = message.said()?;
        let calls = said
            .calls
            .iter()
            .map(|c| c.id.clone().into_owned())
            .collect();
        let mut hidden_lines = Vec::new();
        if !said.has_text && !said.error_or_aborted {
            for call in &said.calls {
                let (name, arguments) = call.decoded(pi_tool_call_keys)?;
                let line = pi_tool_call(name.as_ref(), arguments.as_ref(), home);
                hidden_lines.push((call.id.clone().into_owned(), line));
            }
        }
        Some(Noted {
            said: said_bits(said.has_text, said.error_or_aborted),
            calls,
            hidden_lines,
        })
    }

    /// What a full decode of assistant message `i` gives, read as a row reads it: the
    /// one-liners made here are the ones a row would make. No row decodes a hidden message,
    /// but the tool results answering it show its calls' one-liners.
    fn decoded(session: &Session, i: usize, is_leaf: bool, home: &str) -> anyhow::Result<Noted> {
        let entry = load_with(session, i, &ROW_WITH_ARGUMENTS)?;
        let message = message_of(&entry);
        let has_text = crate::views::text::has_text(message.content_value());
        let error_or_aborted = stop_is_unusual(message.stop_reason());
        let calls: Vec<String> = call_ids(message.0).map(str::to_owned).collect();
        let mut hidden_lines = HashMap::new();
        // `shown`'s test for an assistant message, whatever the filter.
        if !calls.is_empty() && !is_leaf && !has_text && !error_or_aborted {
            tool_calls_of(message.0, home, &mut hidden_lines);
        }
        Ok(Noted {
            said: said_bits(has_text, error_or_aborted),
            calls,
            hidden_lines: hidden_lines.into_iter().collect(),
        })
    }
}

/// Each assistant message in the tree read by `read` (on every core, a chunk at a time), the
/// results given to `take` in file order, as pi's map is filled (a later call of an id wins);
/// `take` breaking, or an error, stops the reading.
fn each_assistant<R: Send>(
    session: &Session,
    tree: &Tree,
    read: impl Fn(usize) -> anyhow::Result<R> + Sync,
    mut take: impl FnMut(u32, R) -> ControlFlow<()>,
) -> anyhow::Result<()> {
    // `index` keeps positions below u32::MAX.
    let assistants: Vec<u32> = (0..session.entries.len())
        .filter(|&i| tree.in_tree[i] && is_assistant(session, i))
        .map(|i| i as u32)
        .collect();
    let chunks: Vec<&[u32]> = assistants.chunks(CHUNK).collect();
    let mut failed = Ok(());
    pisess_store::util::parallel::ordered(
        &chunks,
        |chunk| {
            let read = |&i: &u32| Ok((i, read(i as usize)?));
            chunk.iter().map(read).collect::<anyhow::Result<Vec<_>>>()
        },
        |chunk| {
            let chunk = match chunk {
                Ok(chunk) => chunk,
                Err(e) => {
                    failed = Err(e);
                    return ControlFlow::Break(());
                }
            };
            for (i, r) in chunk {
                take(i, r)?;
            }
            ControlFlow::Continue(())
        },
    );
    failed
}

/// A file of pi's current version, whose lines are read as stored (no migration).
fn read_as_stored(session: &Session) -> bool {
    session.header.dialect == Dialect::Pi && !session.header.renames_hook_messages()
}

fn is_assistant(session: &Session, i: usize) -> bool {
    role_of(session, i) == Some(Said::Assistant)
}

/// The message of a message entry (`null` when it has none).
fn message_of(entry: &Value) -> Message<'_> {
    let message = Entry::of_kind(&EntryKind::Message, entry).message();
    message.unwrap_or(Message(&Value::Null))
}

/// The role of entry `i` when it is a message.
fn role_of(session: &Session, i: usize) -> Option<Said<'_>> {
    (*session.kind(i) == EntryKind::Message).then(|| Said::parse(session.role(i).unwrap_or("")))
}

/// Whether the filter shows each entry, from what it reads of assistant messages.
fn filtered(
    session: &Session,
    tree: &Tree,
    labels: &HashMap<String, String>,
    filter: TreeFilter,
    said: &[u8],
) -> Vec<bool> {
    let mut is_shown = vec![false; session.entries.len()];
    for (i, is_shown) in is_shown.iter_mut().enumerate() {
        if !tree.in_tree[i] {
            continue;
        }
        let f = Facts {
            labelled: session.id(i).is_some_and(|id| labels.contains_key(id)),
            has_text: said[i] & HAS_TEXT != 0,
            error_or_aborted: said[i] & ERROR_OR_ABORTED != 0,
        };
        *is_shown = shown(session, i, &f, tree.leaf == Some(i), filter);
    }
    is_shown
}

/// What the filter reads of each assistant message in the tree, and where each tool call
/// is, each message decoded again (on every core): for what the index could not see.
fn decode_facts(
    session: &Session,
    tree: &Tree,
    home: &str,
) -> anyhow::Result<(Vec<u8>, ToolCalls)> {
    let n = session.entries.len();
    // About one call per tool result: sized once, the table is not grown (and copied) on a
    // session of a million entries.
    let results = (0..n)
        .filter(|&i| tree.in_tree[i] && role_of(session, i) == Some(Said::ToolResult))
        .count();
    let mut seen = Seen {
        said: vec![0u8; n],
        tool_calls: ToolCalls::with_capacity(results),
        unsure: false,
    };
    let read = |i: usize| Noted::decoded(session, i, tree.leaf == Some(i), home);
    each_assistant(session, tree, read, |i, noted| {
        seen.record(i, noted);
        ControlFlow::Continue(())
    })?;
    Ok((seen.said, seen.tool_calls.sealed()))
}

/// Assistant messages decoded by one worker at a time, for the filter.
const CHUNK: usize = 128;

/// Of a message entry, a row and the filter read the message alone.
const MESSAGE_ONLY: Option<&[&[u8]]> = Some(&[b"message"]);
/// What a row reads of an entry, and of a message (thinking, signatures, images' data and
/// usage, most of a message, are passed over).
const ROW: Kept = Kept {
    entry: None,
    message: Some(&[
        b"role",
        b"content",
        b"stopReason",
        b"errorMessage",
        b"toolCallId",
        b"toolName",
        b"command",
    ]),
    blocks: &[b"type", b"text", b"id", b"name"],
    texts: Some(PREVIEW_TEXT_BYTES),
    arguments: None,
};
/// And of an assistant message whose calls' one-liners are made: their arguments too, as far
/// as the one-liners read them.
const ROW_WITH_ARGUMENTS: Kept = Kept {
    entry: MESSAGE_ONLY,
    blocks: &[b"type", b"text", b"id", b"name", b"arguments"],
    arguments: Some(pi_tool_call_keys),
    ..ROW
};

/// A row reads a message's text only as far as pi's preview (200 UTF-16 units) and the
/// filter's test for blank text: this many stored bytes hold at least 341 units.
const PREVIEW_TEXT_BYTES: usize = 2048;

/// Entry `i` decoded as far as `kept` says (the rest passed over at the skim's speed), when
/// it needs no migration; otherwise, or where the skim is unsure, decoded whole.
fn load_with(session: &Session, i: usize, kept: &Kept) -> anyhow::Result<Value> {
    if read_as_stored(session) {
        let line = session.raw_line(i)?;
        if let Some(entry) = decode_kept(&line, kept) {
            return Ok(entry);
        }
    }
    Ok(session.load(i)?)
}

/// What a row reads of an entry: the entry decoded as far as the row needs, or of a tool result
/// of pi's own dialect (most of a session's bytes) its call id and tool name alone.
enum RowEntry {
    Decoded(Value),
    ToolResult {
        /// `None` when missing or not a string: pi finds no call for either.
        call_id: Option<String>,
        tool_name: String,
    },
}

struct View<'a> {
    session: &'a Session,
    /// The subagent runs entries started: their rows name them.
    started: &'a Started,
    tree: &'a Tree,
    tool_calls: &'a ToolCalls,
    /// Current labels by target id.
    labels: &'a HashMap<String, String>,
    home: &'a str,
}

/// The tool-call one-liners of the assistant message decoded last, and its position: the
/// tool results drawn after it find theirs at hand. Each chunk of rows has its own.
#[derive(Default)]
struct Lines {
    holder: Option<usize>,
    by_id: HashMap<String, String>,
}

/// How human rows look.
struct Look {
    ids: bool,
    width: Option<usize>,
    theme: Theme,
    /// The row marked `← active`.
    marked: Option<usize>,
}

impl View<'_> {
    /// The current label of a drawn entry.
    fn label(&self, i: usize) -> Option<&str> {
        let id = self.session.id(i)?;
        self.labels.get(id).map(String::as_str)
    }

    /// Entry `i` as far as its row needs: whole, but for a tool result of pi's own dialect
    /// (most of a session's bytes) only its call id and tool name ([`RowEntry::ToolResult`]),
    /// taken from the skim's spans of its line read without its content.
    /// Anything the skim leaves to serde_json, or a tool name that is not a string (the
    /// preview then spells the value), is decoded whole.
    fn row_entry(&self, i: usize, lines: &mut Lines) -> anyhow::Result<RowEntry> {
        let s = self.session;
        if s.header.dialect == Dialect::Pi && role_of(s, i) == Some(Said::ToolResult) {
            let line = s.line_without_content(i)?;
            let message = LineView::skim(&line).and_then(|view| view.message.0);
            if let Some(m) = message {
                if let Some(name) = m.tool_name.get() {
                    return Ok(RowEntry::ToolResult {
                        call_id: m.tool_call_id.get().map(str::to_owned),
                        tool_name: name.to_owned(),
                    });
                }
            }
        }
        // An assistant message is read with its calls' arguments: the tool results drawn
        // after it then find their one-liners at hand (a hidden one is read again for them).
        if role_of(s, i) == Some(Said::Assistant) {
            let entry = load_with(s, i, &ROW_WITH_ARGUMENTS)?;
            self.keep_lines(i, &entry, lines);
            return Ok(RowEntry::Decoded(entry));
        }
        let kept = match s.kind(i) {
            EntryKind::Message => Kept {
                entry: MESSAGE_ONLY,
                ..ROW
            },
            _ => ROW,
        };
        Ok(RowEntry::Decoded(load_with(s, i, &kept)?))
    }

    /// Makes the tool-call one-liners of assistant message `i` the ones at hand.
    fn keep_lines(&self, i: usize, entry: &Value, lines: &mut Lines) {
        if lines.holder != Some(i) {
            lines.by_id.clear();
            tool_calls_of(message_of(entry).0, self.home, &mut lines.by_id);
            lines.holder = Some(i);
        }
    }

    /// The one-liner of the call a tool result answers.
    fn call_line(
        &self,
        i: usize,
        entry: &RowEntry,
        lines: &mut Lines,
    ) -> anyhow::Result<Option<String>> {
        if *self.session.kind(i) != EntryKind::Message {
            return Ok(None);
        }
        let id = match entry {
            RowEntry::Decoded(entry) => answered_call(entry),
            // pi looks the call up by a truthy string.
            RowEntry::ToolResult { call_id, .. } => call_id.as_deref().filter(|id| !id.is_empty()),
        };
        let Some(id) = id else {
            return Ok(None);
        };
        // The latest message that holds the call (the others share its id's hash only).
        for holder in self.tool_calls.holders(id) {
            if let Some(line) = self.tool_calls.line_of(id, holder) {
                return Ok(Some(line.to_owned()));
            }
            if lines.holder != Some(holder) {
                let message = load_with(self.session, holder, &ROW_WITH_ARGUMENTS)?;
                self.keep_lines(holder, &message, lines);
            }
            if let Some(line) = lines.by_id.get(id) {
                return Ok(Some(line.clone()));
            }
        }
        Ok(None)
    }

    fn preview(&self, i: usize, entry: &RowEntry, lines: &mut Lines) -> anyhow::Result<Preview> {
        let call = self.call_line(i, entry, lines)?;
        Ok(match entry {
            RowEntry::Decoded(entry) => {
                preview(entry, self.session.kind(i), call.as_deref(), self.home)
            }
            RowEntry::ToolResult { tool_name, .. } => {
                tool_result(call.as_deref(), Some(tool_name.clone()))
            }
        })
    }

    fn write_human(
        &self,
        v: &Visible,
        ids: bool,
        width: Option<usize>,
        theme: Theme,
        out: &mut dyn Write,
    ) -> anyhow::Result<()> {
        // Drawn row by row as they are written: together they can be many times the file.
        let rows = layout(v);
        if rows.is_empty() {
            writeln!(out, "{}", theme.dim("(no entries)"))?;
        }
        // `← active` goes on the leaf, or when the filter hides it (a label, a usage entry...)
        // on its nearest shown ancestor, the entry pi's cursor starts on.
        let look = Look {
            ids,
            width,
            theme,
            marked: v.active_end(&self.tree.active),
        };
        let weight = |row: &Row| row.prefix.len();
        pisess_store::util::parallel::write_in_order(
            rows.into_iter(),
            weight,
            out,
            |row, lines, buf| self.human_row(row, &look, lines, buf),
        )
    }

    /// One row for people: `prefix • [label] preview ← active`.
    fn human_row(
        &self,
        row: &Row,
        look: &Look,
        lines: &mut Lines,
        out: &mut Vec<u8>,
    ) -> anyhow::Result<()> {
        let (i, theme) = (row.entry, look.theme);
        let entry = self.row_entry(i, lines)?;
        let active = self.tree.active[i];
        // pi's `pathMarker` before the text, and ours after the leaf.
        let marker = if active { "• " } else { "" };
        let suffix = if look.marked == Some(i) {
            " ← active"
        } else {
            ""
        };
        let mut parts: Vec<(Tone, String)> = Vec::new();
        // The id as `show S ID` and `--leaf ID` take it back, ahead of the label.
        if look.ids {
            let id = self.session.id(i).unwrap_or("?");
            parts.push((Tone::Dim, format!("{id} ")));
        }
        if let Some(label) = self.label(i) {
            parts.push((Tone::Warning, format!("[{label}] ")));
        }
        parts.extend(self.preview(i, &entry, lines)?.parts);
        if let Some(note) = self.started.note(i) {
            parts.push((Tone::Custom, format!("  {note}")));
        }
        for (_, text) in &mut parts {
            *text = escape_control(text, false).into_owned();
        }
        // Whole for a terminal or colour (people read those rows); else in its pieces.
        let whole = (look.width.is_some() || theme.enabled).then(|| row.prefix.to_string());
        if let (Some(width), Some(prefix)) = (look.width, &whole) {
            let fixed = style::width(prefix) + style::width(marker) + style::width(suffix);
            cut_parts(&mut parts, width.saturating_sub(fixed));
        }
        // Written into the chunk's buffer piece by piece: a prefix can be megabytes.
        match &whole {
            Some(prefix) if theme.enabled => out.extend_from_slice(theme.dim(prefix).as_bytes()),
            Some(prefix) => out.extend_from_slice(prefix.as_bytes()),
            None => {
                for part in row.prefix.parts() {
                    out.extend_from_slice(part.as_bytes());
                }
            }
        }
        out.extend_from_slice(theme.cyan(marker).as_bytes());
        for (tone, text) in &parts {
            out.extend_from_slice(paint(theme, *tone, text, active).as_bytes());
        }
        out.extend_from_slice(theme.bold(&theme.cyan(suffix)).as_bytes());
        out.push(b'\n');
        Ok(())
    }

    /// NDJSON, one object per shown entry in display order (the human rows' order), each
    /// naming its shown parent: flat, so jq and Python read a chain of any length (a nested
    /// object of 100k levels is beyond both).
    fn write_json(&self, v: &Visible, out: &mut dyn Write) -> anyhow::Result<()> {
        let marked = v.active_end(&self.tree.active);
        // (entry, shown parent, depth); children pushed reversed so they pop in order.
        let mut stack: Vec<(usize, Option<usize>, usize)> =
            v.roots.iter().rev().map(|&r| (r, None, 0)).collect();
        let nodes = std::iter::from_fn(|| {
            let (i, parent, depth) = stack.pop()?;
            let kids = v.children.of(i);
            stack.extend(kids.iter().rev().map(|&c| (c as usize, Some(i), depth + 1)));
            Some((i, parent, depth, kids.len()))
        });
        pisess_store::util::parallel::write_in_order(
            nodes,
            |_| 0,
            out,
            |at, lines: &mut Lines, buf| {
                self.node(at, marked == Some(at.0), lines, buf)?;
                buf.push(b'\n');
                Ok(())
            },
        )
    }

    /// One row of `--json` ([`NodeRow`]) into `buf`: entry `i`, its shown parent, its depth and
    /// how many children it shows. `leaf` is the row the human view marks `← active`:
    /// the leaf, or its nearest shown ancestor when the filter hides it.
    fn node(
        &self,
        &(i, parent, depth, children): &(usize, Option<usize>, usize, usize),
        leaf: bool,
        lines: &mut Lines,
        buf: &mut Vec<u8>,
    ) -> anyhow::Result<()> {
        let entry = self.row_entry(i, lines)?;
        let kind = self.session.kind(i);
        surrogates::write(
            buf,
            &NodeRow {
                id: self.session.id(i),
                parent_id: parent.and_then(|p| self.session.id(p)),
                depth,
                r#type: kind.as_str(),
                // The decoded role: migrations apply (v2's `hookMessage` is `custom`).
                role: match &entry {
                    RowEntry::Decoded(entry) => Entry::of_kind(kind, entry)
                        .message()
                        .and_then(|m| m.role_value()?.as_str()),
                    RowEntry::ToolResult { .. } => Some(Said::ToolResult.as_str()),
                },
                label: self.label(i),
                active: self.tree.active[i],
                leaf,
                preview: self.preview(i, &entry, lines)?.text(),
                children,
                entry_id: self.session.id(i),
                subagent_runs: self.started.at(i).iter().map(RunRow::of).collect(),
            },
        )?;
        Ok(())
    }
}

/// One row of `tree --json`: `{id, parentId, depth, type, role?, label?, active, leaf, preview,
/// children}` (docs/json.md).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct NodeRow<'a> {
    id: Option<&'a str>,
    parent_id: Option<&'a str>,
    depth: usize,
    r#type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<&'a str>,
    active: bool,
    leaf: bool,
    preview: String,
    children: usize,
    /// `id` under the one vocabulary's name (docs/json.md); `id` stays.
    entry_id: Option<&'a str>,
    /// The subagent runs this entry started (only on such entries).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    subagent_runs: Vec<RunRow<'a>>,
}

/// A run in `subagentRuns`: `{sessionId, shortId, path, made}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RunRow<'a> {
    session_id: Option<&'a str>,
    /// What `pisess show` takes to open it.
    short_id: Option<&'a str>,
    path: String,
    made: &'static str,
}

impl<'a> RunRow<'a> {
    fn of(run: &'a Run) -> RunRow<'a> {
        RunRow {
            session_id: run.session_id.as_deref(),
            short_id: run.short.as_deref(),
            path: run.path.to_string_lossy().into_owned(),
            made: run.made.as_str(),
        }
    }
}

/// Cuts styled parts to `width` columns in total, ending with `…` when anything was cut.
fn cut_parts(parts: &mut Vec<(Tone, String)>, width: usize) {
    let full: String = parts.iter().map(|(_, s)| s.as_str()).collect();
    let cut = style::truncate(&full, width);
    // Not by byte length: `…` is 3 bytes, so a cut of two ASCII columns or one wide character
    // has the length of the whole, and the row wrapped.
    if *cut == *full {
        return;
    }
    if cut.is_empty() {
        // No room at all (a terminal narrower than the tree's indentation).
        parts.clear();
        return;
    }
    // `truncate` keeps a prefix of `full` and appends `…`: share that prefix out over the parts.
    let mut keep = cut.len() - '…'.len_utf8();
    let last_tone = parts.last().map_or(Tone::Plain, |(t, _)| *t);
    for (_, text) in parts.iter_mut() {
        let take = keep.min(text.len());
        text.truncate(take);
        keep -= take;
    }
    parts.retain(|(_, s)| !s.is_empty());
    // A preview cut before already ends with its `…`: one mark, not two.
    if parts.last().is_some_and(|(_, s)| s.ends_with('…')) {
        return;
    }
    let tone = parts.last().map_or(last_tone, |(t, _)| *t);
    parts.push((tone, "…".to_owned()));
}

/// pi's theme roles in our colours; the active path is bold (its dim parts too, undimmed).
fn paint(theme: Theme, tone: Tone, text: &str, bold: bool) -> String {
    let coloured = match tone.role() {
        Role::Muted if bold => text.to_owned(),
        role => theme.paint(role, text),
    };
    if bold {
        theme.bold(&coloured)
    } else {
        coloured
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::text::has_text;

    /// What a row decodes of a message (texts from their start, arguments as far as the
    /// one-liners read them) makes the preview, the filter's facts and the one-liners a full
    /// decode makes, on random messages built to sit on every edge of the shortcuts.
    #[test]
    fn rows_read_what_a_full_decode_gives() {
        let texts = [
            "\"hi\"".to_owned(),
            format!("\"{}\"", "a\\n\\u00e9\\\\ 😀".repeat(400)),
            format!("\"{}x\"", " ".repeat(3000)),
            format!("\"{}\"", "\\t".repeat(2000)),
            format!("\"{}\"", "\\ud83d\\ude00".repeat(500)),
            "\"\"".to_owned(),
            "5".to_owned(),
            // Blank, or not, from the first characters on.
            "\"  \\n\\t\\r\\f \"".to_owned(),
            "\" \\u0020\\u00a0\"".to_owned(),
            "\"\u{a0}\u{3000}\"".to_owned(),
            "\" \\n\u{3000}x\"".to_owned(),
            "\"\\b\"".to_owned(),
            "\" \\\"\"".to_owned(),
            "\"\u{feff}\"".to_owned(),
        ];
        let names = [
            "read",
            "write",
            "edit",
            "bash",
            "grep",
            "find",
            "ls",
            "mine",
            "b\\u0061sh",
        ];
        let args = [
            r#"{"path":"/home/dev/a.rs","offset":10,"limit":20,"content":"big"}"#.to_owned(),
            format!(r#"{{"command":"{}","timeout":5}}"#, "ls -la\\n".repeat(30)),
            r#"{"pattern":"fn \\w+","path":"src","file_path":"x"}"#.to_owned(),
            r#"{"file_path":"/home/dev/b","path":"","path":"/home/dev/c"}"#.to_owned(),
            r#""not an object""#.to_owned(),
            "{}".to_owned(),
        ];
        let mut next = pisess_format::skim::rng(0x7ee5);
        let (mut unsure, mut sure) = (0, (0, 0));
        for round in 0..2_000 {
            let mut blocks = Vec::new();
            for _ in 0..=next(3) {
                let name = names[next(names.len())];
                let arg = &args[next(args.len())];
                blocks.push(match next(8) {
                    5 => r#"{"type":"text","type":"toolCall","text":"x","id":"f"}"#.to_owned(),
                    6 => r#"{"type":"toolCall","id":7,"name":"bash","arguments":{}}"#.to_owned(),
                    7 => ["7", "\"text\"", "null", "[1]"][next(4)].to_owned(),
                    0 => format!(r#"{{"type":"text","text":{}}}"#, texts[next(texts.len())]),
                    1 => r#"{"type":"thinking","thinking":"t","thinkingSignature":"s"}"#.to_owned(),
                    2 => format!(r#"{{"type":"toolCall","id":"c{round}","name":"{name}","arguments":{arg}}}"#),
                    // Arguments before the name, and a name given twice.
                    3 => format!(r#"{{"type":"toolCall","arguments":{arg},"id":"d","name":"{name}","name":"mine"}}"#),
                    _ => format!(r#"{{"type":"toolCall","id":"e","name":"{name}","arguments":{arg},"name":"{name}"}}"#),
                });
            }
            let content = match next(4) {
                0 => texts[next(texts.len())].clone(),
                _ => format!("[{}]", blocks.join(",")),
            };
            let role = ["assistant", "user"][next(2)];
            let stop = [
                r#""stop""#,
                r#""error""#,
                r#""aborted""#,
                "null",
                "1",
                "0",
                "false",
                r#""""#,
                r#""toolUse""#,
                r#""\u0073top""#,
                "{}",
            ][next(11)];
            let line = format!(
                r#"{{"type":"message","id":"x","message":{{"role":"{role}","content":{content},"stopReason":{stop},"errorMessage":" boom\\n","usage":{{"input":1}}}}}}"#
            );
            let full = pisess_format::json::decode(line.as_bytes()).unwrap();
            let home = "/home/dev";
            seen_as_decoded(&line, &full, home, &mut sure);
            for (n, kept) in [ROW, ROW_WITH_ARGUMENTS].iter().enumerate() {
                // Unsure (a name after cut arguments): the row decodes the line whole.
                let Some(cut) = decode_kept(line.as_bytes(), kept) else {
                    unsure += 1;
                    continue;
                };
                let (m, whole) = (&cut["message"], &full["message"]);
                let text = |e: &Value| preview(e, &EntryKind::Message, None, home).text();
                assert_eq!(text(&cut), text(&full), "{line}");
                if n == 1 {
                    let (mut a, mut b) = (HashMap::new(), HashMap::new());
                    tool_calls_of(m, home, &mut a);
                    tool_calls_of(whole, home, &mut b);
                    assert_eq!(a, b, "{line}");
                }
            }
        }
        // Both sides of the shortcuts were taken.
        assert!((100..1_500).contains(&unsure), "{unsure} of 4000 unsure");
        assert!(sure.0 > 1_900, "the index saw {} of 2000", sure.0);
        assert!(sure.1 > 800, "the skim read calls of {} of 2000", sure.1);
    }

    /// What the index sees of a message line ([`MessageView::said`], and the one-liners `Seen` makes of
    /// its calls) is what the filter and the rows read of its full decode.
    fn seen_as_decoded(line: &str, full: &Value, home: &str, sure: &mut (usize, usize)) {
        let view = LineView::skim(line.as_bytes());
        let said = view.as_ref().and_then(|v| v.message.0.as_ref()?.said());
        sure.1 += usize::from(said.as_ref().is_some_and(|s| !s.calls.is_empty()));
        let Some(said) = said else {
            return;
        };
        sure.0 += 1;
        let whole = &full["message"];
        assert_eq!(said.has_text, has_text(whole.get("content")), "{line}");
        // pi's rule, on the decoded message (the skim judged the stored bytes).
        let stop = whole.get("stopReason");
        assert_eq!(
            said.error_or_aborted,
            pisess_format::js::js_truthy(stop)
                && !matches!(stop.and_then(Value::as_str), Some("stop" | "toolUse")),
            "{line}"
        );
        let ids: Vec<&str> = said.calls.iter().map(|c| &*c.id).collect();
        assert_eq!(ids, call_ids(whole).collect::<Vec<_>>(), "{line}");
        let mut lines = HashMap::new();
        for call in &said.calls {
            let (name, arguments) = call.decoded(pi_tool_call_keys).unwrap();
            let one = pi_tool_call(name.as_ref(), arguments.as_ref(), home);
            lines.insert(call.id.to_string(), one);
        }
        let mut expected = HashMap::new();
        tool_calls_of(whole, home, &mut expected);
        assert_eq!(lines, expected, "{line}");
    }

    /// A tool result's one-liner comes from the latest message that holds its call, past a
    /// later one recorded under the same hash (as two ids sharing a hash are): here entry 3,
    /// which holds another call, is recorded as holding `c1`.
    #[test]
    fn a_call_shared_hash_finds_its_holder() {
        use serde_json::json;
        let call = |id: &str, command: &str| json!({"type":"toolCall","id":id,"name":"bash","arguments":{"command":command}});
        let session = pisess_store::session::test_session(&[
            json!({"type":"message","id":"u","parentId":null,"message":{"role":"user","content":"go"}}),
            json!({"type":"message","id":"a","parentId":"u","message":{"role":"assistant","content":[call("c1", "ls")]}}),
            json!({"type":"message","id":"r","parentId":"a","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[]}}),
            json!({"type":"message","id":"b","parentId":"r","message":{"role":"assistant","content":[call("c2", "pwd")]}}),
        ]);
        let tree = Tree::build(&session);
        let labels = HashMap::new();
        let line_of_result = |tool_calls: &ToolCalls| {
            let started = Started::default();
            let view = View {
                started: &started,
                session: &session,
                tree: &tree,
                tool_calls,
                labels: &labels,
                home: "/home/dev",
            };
            let mut lines = Lines::default();
            let entry = view.row_entry(2, &mut lines).unwrap();
            view.call_line(2, &entry, &mut lines).unwrap()
        };
        let mut honest = ToolCalls::default();
        honest.insert("c1", 1);
        honest.insert("c2", 3);
        let expected = line_of_result(&honest.sealed());
        assert_eq!(expected.as_deref(), Some("[bash: ls]"));
        let mut shared = ToolCalls::default();
        shared.insert("c1", 1);
        shared.insert("c2", 3);
        shared.insert("c1", 3);
        assert_eq!(line_of_result(&shared.sealed()), expected);
        // No message holds it: no line.
        let mut none = ToolCalls::default();
        none.insert("c1", 3);
        assert_eq!(line_of_result(&none.sealed()), None);
    }

    #[test]
    fn a_cut_preview_cut_again_has_one_ellipsis() {
        let mut parts = vec![
            (Tone::Accent, "user: ".to_owned()),
            (Tone::Plain, "1006.4999… more".to_owned()),
        ];
        cut_parts(&mut parts, 17);
        let text: String = parts.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(text, "user: 1006.4999…");
    }

    #[test]
    fn cutting_styled_parts() {
        let mut parts = vec![
            (Tone::Accent, "user: ".to_owned()),
            (Tone::Plain, "hello world".to_owned()),
        ];
        cut_parts(&mut parts, 9);
        assert_eq!(
            parts,
            [
                (Tone::Accent, "user: ".to_owned()),
                (Tone::Plain, "he".to_owned()),
                (Tone::Plain, "…".to_owned())
            ]
        );
        let mut parts = vec![(Tone::Accent, "user: ".to_owned())];
        cut_parts(&mut parts, 3);
        assert_eq!(
            parts,
            [(Tone::Accent, "us".into()), (Tone::Accent, "…".into())]
        );
        let mut fits = vec![(Tone::Plain, "ok".to_owned())];
        cut_parts(&mut fits, 2);
        assert_eq!(fits, [(Tone::Plain, "ok".to_owned())]);
        let mut no_room = vec![(Tone::Plain, "text".to_owned())];
        cut_parts(&mut no_room, 0);
        assert!(no_room.is_empty());
        // A cut the byte length of the whole (`…` is 3 bytes): two ASCII columns, one wide
        // character; each is cut to its width all the same.
        for (text, width, cut) in [
            ("abcde", 4, "abc…"),
            ("abcé", 3, "ab…"),
            ("ab日本", 4, "ab…"),
        ] {
            let mut parts = vec![(Tone::Plain, text.to_owned())];
            cut_parts(&mut parts, width);
            let shown: String = parts.iter().map(|(_, s)| s.as_str()).collect();
            assert_eq!(shown, cut, "{text} at {width}");
            assert!(style::width(&shown) <= width);
        }
    }
}
