//! A branch's figures, read as pi's `createBranchedSession` would copy it: the session's
//! header line, then the stored lines of the entries from the root to the leaf, in that order,
//! through the one pass `ls`, `stats` and `check` fold a file with ([`Summarizer`], its
//! [`Tally`](pisess_store::tally::Tally)). So a branch is counted by the same code as a file,
//! and every figure is pi's `getSessionStats` of that copy. The lines are read back by offset
//! one at a time: memory holds one line, not the branch.
//!
//! The tally `stats` keeps (a row per message, every entry's parent, every call's id) is
//! gathered only when a price table asks for it ([`read`]'s `priced`): it was most of a long
//! branch's memory. What the figures take from it, the calls and failed results by tool and
//! the compactions, are counted here as the tally counts them.
//!
//! The same pass names the branch's tool calls ([`crate::views::calls::key`]) and marks those
//! whose result failed, decoding only the assistant messages (and seed 000's user messages,
//! which carry results), and shows each call and result to the caller ([`Seen`]), who then
//! decodes none of them again.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Read};
use std::ops::ControlFlow;

use anyhow::Context as _;

use pisess_format::json;
use pisess_format::model::content::Content;
use pisess_format::model::{Dialect, Entry, EntryKind};
use pisess_format::scan::{Input, Pass};
use pisess_store::session::Session;
use pisess_store::summary::{Detail, Summarizer, Summary};
use pisess_store::tally::ToolCount;

use crate::views::calls;

/// One tool call of a branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// [`calls::key`], the tool and its key argument: its place in [`Branch::keys`] (a run
    /// repeats a few keys, and a `String` a call was most of 100,000 calls' memory).
    pub key: u32,
    /// The assistant message that made it (its position in the session).
    pub entry: usize,
    /// Its result said `isError: true`.
    pub failed: bool,
}

/// What [`read`] shows its caller of each call and result, in branch order.
pub enum Seen<'a> {
    Call(pisess_format::model::ToolCall<'a>),
    /// A result answering call `call_id`, and whether it said `isError: true`.
    Result {
        call_id: Option<&'a str>,
        failed: bool,
    },
}

/// A branch, root to leaf, and what it did.
#[derive(Debug)]
pub struct Branch {
    /// Positions in the session, root first; empty for a session without entries.
    pub path: Vec<usize>,
    pub calls: Vec<Call>,
    /// The calls' distinct keys.
    pub keys: Vec<String>,
    /// Calls and failed results by tool, as the tally counts them: a call by its `name`, a
    /// failed result by its `toolName` (seed 000's by its call's name), `""` for none.
    pub tools: BTreeMap<String, ToolCount>,
    /// Compaction entries.
    pub compactions: u64,
    /// The id where a parent cycle closed on the way to the root (the path starts there).
    pub cycle: Option<String>,
}

/// The branch of `session` that ends at `leaf` (`None`: a session without entries), each call
/// and result shown to `seen` as it passes, and its figures: the summary of the branch as a
/// file of its own, with its tally when `priced`.
pub fn read(
    session: &Session,
    leaf: Option<usize>,
    priced: bool,
    seen: &mut dyn FnMut(Seen<'_>),
) -> anyhow::Result<(Branch, Summary)> {
    let (path, cycle) = leaf.map(|l| session.path_to(l)).unwrap_or_default();
    let cwd = session.header.cwd.as_deref().unwrap_or("");
    let seed000 = session.header.dialect == Dialect::Seed000;
    let mut summarizer = Summarizer::new(if priced {
        Detail::Stats
    } else {
        Detail::Listing
    });
    let mut calls: Vec<Call> = Vec::new();
    let mut keys: Vec<String> = Vec::new();
    let mut key_at: HashMap<String, u32> = HashMap::new();
    let mut tools: BTreeMap<String, ToolCount> = BTreeMap::new();
    let mut compactions = 0;
    // Seed 000's results name no tool: a call's id → its name (that dialect's files only).
    let mut call_names: HashMap<String, String> = HashMap::new();
    // A call's id → its place in `calls`, until a result answers it.
    let mut waiting: HashMap<String, usize> = HashMap::new();
    let mut lines = Lines {
        session,
        path: &path,
        next: 0,
        buf: header_line(&session.header.stored),
        at: 0,
    };
    let report = Pass::new()
        .run(Input::Stream(&mut lines, &session.name), |header, e| {
            summarizer.entry(header, e);
            let entry = path.get(e.ordinal).copied().unwrap_or(0);
            let message = e.view.message.0.as_ref();
            let role = message
                .filter(|_| e.kind == EntryKind::Message)
                .and_then(|m| m.role.get());
            // A result answers the call it names once, marking it when it failed.
            if e.kind == EntryKind::Compaction {
                compactions += 1;
            }
            let mut answer = |call_id: Option<&str>, failed: bool, tool: &str| {
                if failed {
                    tools.entry(tool.to_owned()).or_default().errors += 1;
                }
                seen(Seen::Result { call_id, failed });
                if let (Some(at), true) = (call_id.and_then(|id| waiting.remove(id)), failed) {
                    calls[at].failed = true;
                }
            };
            match role {
                Some("toolResult") => {
                    let m = message.expect("a role is a message's");
                    answer(
                        m.tool_call_id.get(),
                        m.is_error.0,
                        m.tool_name.get().unwrap_or(""),
                    );
                }
                // Seed 000 answers calls in a user message's `tool_result` blocks (as `stats`,
                // `check` and `files` count them).
                Some("user") if seed000 => {
                    let value = json::decode(e.json).unwrap_or_default();
                    if let Some(Content::Blocks(blocks)) = Entry::of_kind(&e.kind, &value)
                        .message()
                        .map(|m| m.content())
                    {
                        for b in blocks.iter().filter(|b| b["type"] == "tool_result") {
                            let id = b["toolUseId"].as_str();
                            let tool = id.and_then(|id| call_names.get(id));
                            answer(id, b["isError"] == true, tool.map_or("", String::as_str));
                        }
                    }
                }
                Some("assistant") => {
                    let value = json::decode(e.json).unwrap_or_default();
                    let Some(m) = Entry::of_kind(&e.kind, &value).message() else {
                        return ControlFlow::Continue(());
                    };
                    for call in m.tool_calls() {
                        let name = call.name.and_then(|v| v.as_str()).unwrap_or("");
                        tools.entry(name.to_owned()).or_default().calls += 1;
                        if let Some(id) = call.id.and_then(|v| v.as_str()) {
                            waiting.insert(id.to_owned(), calls.len());
                            if seed000 {
                                call_names.insert(id.to_owned(), name.to_owned());
                            }
                        }
                        let key = calls::key(call, cwd);
                        let key = match key_at.get(&key) {
                            Some(&at) => at,
                            None => {
                                let at = u32::try_from(keys.len()).expect("below 2^32 calls");
                                keys.push(key.clone());
                                key_at.insert(key, at);
                                at
                            }
                        };
                        calls.push(Call {
                            key,
                            entry,
                            failed: false,
                        });
                        seen(Seen::Call(call));
                    }
                }
                _ => {}
            }
            ControlFlow::Continue(())
        })
        .with_context(|| session.name.clone())?;
    let summary = summarizer.finish(&report, &session.name);
    let branch = Branch {
        path,
        calls,
        keys,
        tools,
        compactions,
        cycle,
    };
    Ok((branch, summary))
}

impl Branch {
    /// Call `i`'s key.
    pub fn key(&self, i: usize) -> &str {
        &self.keys[self.calls[i].key as usize]
    }
}

/// The header's stored line, ending in a newline.
fn header_line(stored: &[u8]) -> Vec<u8> {
    let mut line = stored.to_vec();
    if !line.ends_with(b"\n") {
        line.push(b'\n');
    }
    line
}

/// The copy's bytes, made as they are read: the header, then each entry's stored line.
struct Lines<'s> {
    session: &'s Session,
    path: &'s [usize],
    next: usize,
    buf: Vec<u8>,
    at: usize,
}

impl Read for Lines<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.buf.len() {
            let Some(&i) = self.path.get(self.next) else {
                return Ok(0);
            };
            self.next += 1;
            let mut line = self.session.raw_line(i)?;
            line.push(b'\n');
            self.buf = line;
            self.at = 0;
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}
