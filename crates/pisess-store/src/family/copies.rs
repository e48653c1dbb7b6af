//! Counting a family once: which entries of a fork or clone are copies of its source's, and
//! which side counts the usage that pi-subagents reports twice.
//!
//! **Copies.** pi's `--fork` (`forkFrom`) copies every entry of the source; `/fork`, `/clone`
//! and pi-subagents' fork children (`createBranchedSession`) copy one branch. Both keep the
//! entries' ids and write the source's path as the copy's header `parentSession`. An entry of a
//! session is its source's, and counted there only, when a file up its `parentSession` chain
//! ([`chain`]) holds an entry with:
//!
//! - the same `id` (a string: an entry without one is never a copy), and
//! - the same content, compared as parsed JSON (key order, number spelling and escapes do not
//!   matter: `forkFrom` writes each entry again with `JSON.stringify`), leaving out the fields a
//!   copy rewrites: `parentId` (re-chained around the labels `createBranchedSession` drops) and,
//!   on a `compaction`, `firstKeptEntryId` (moved off a dropped label).
//!
//! Only the chain is searched: 8-hex entry ids collide across a big store, and a match anywhere
//! would take a stranger's entry for a copy. A label `createBranchedSession` makes again has a new
//! id, so it is the clone's own; labels carry no usage.
//!
//! pi-subagents' fork children ([`Copying::Rewritten`], the `forks/` layout) are copies that
//! were changed after the copy: signed thinking blocks are taken out of assistant messages and
//! the "pruned" mode summarizes tool bodies. Their entries match on what those rewrites keep: the
//! id, `type` and `timestamp`, and the message's `role`, `timestamp`, `responseId` and `usage`
//! (and an entry's own `usage`). That is still an identity (an id and a millisecond time, along
//! one chain), and it keeps their cost from being counted twice.
//!
//! **A source that is gone.** When the file a `parentSession` names cannot be read, the copy
//! holds the only record of those entries: they count once, in the copy (there is nothing else
//! to count them in), and the chain says where it ended ([`End::Missing`]). Sources further up
//! past a missing one are not searched: their path is in the missing file's header.
//!
//! **Usage reported twice.** pi-subagents 0.59 and later put the sum of a run's children's usage
//! on the parent's tool result (`toolResult.usage` of tool `subagent` or `bg_wait`), and pi's
//! `/session` (`getSessionStats`) adds it to the parent's totals; the children's own files hold
//! the same turns. A session's own figures stay pi's (so they agree with `/session`). A family's
//! total counts the children's side: their files say which model and which day each token
//! belongs to, and they are read for `grep` and `check` anyway. So a subagent tool result's usage
//! is left out of a family total when every child it names (`details.results[].sessionFile`) is a
//! member of the family; a child it names that was not found (written outside the store, removed,
//! an in-memory run) is counted by the figure the extension reported for it
//! (`details.results[i].usage`), which is then its only record ([`Share`]).

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use pisess_format::model::{Entry, Message, Role};
use serde_json::Value;
use xxhash_rust::xxh3::Xxh3;

use super::thread::PathKeys;

/// How a copy was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Copying {
    /// By pi (`forkFrom`, `createBranchedSession`): the content is the source's.
    Verbatim,
    /// By pi-subagents' fork children: the content may have lost thinking blocks or tool bodies.
    Rewritten,
}

/// The entries of a chain's files, as a copy is matched against them.
#[derive(Debug, Default)]
pub struct Source {
    contents: HashSet<u128>,
    stamps: HashSet<u128>,
}

impl Source {
    /// Adds an entry of a file up the chain.
    pub fn add(&mut self, entry: &Value) {
        if let Some(key) = content_key(entry) {
            self.contents.insert(key);
        }
        if let Some(key) = stamp_key(entry) {
            self.stamps.insert(key);
        }
    }

    /// Whether `entry`, of a copy made as `copying` says, is one of the chain's.
    pub fn holds(&self, entry: &Value, copying: Copying) -> bool {
        let by_content = || content_key(entry).is_some_and(|k| self.contents.contains(&k));
        let by_stamp = || stamp_key(entry).is_some_and(|k| self.stamps.contains(&k));
        match copying {
            Copying::Verbatim => by_content(),
            Copying::Rewritten => by_content() || by_stamp(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.contents.is_empty()
    }
}

/// The entry's string id; `None` without one.
fn id(entry: &Value) -> Option<&str> {
    entry.get("id")?.as_str()
}

/// The id and the content but for `parentId` (and a compaction's `firstKeptEntryId`).
fn content_key(entry: &Value) -> Option<u128> {
    id(entry)?;
    let Value::Object(map) = entry else {
        return None;
    };
    let compaction = matches!(Entry::of(entry), Entry::Compaction { .. });
    let mut hasher = Xxh3::new();
    hasher.update(b"content");
    hash_object(&mut hasher, map, &|key| {
        key == "parentId" || (compaction && key == "firstKeptEntryId")
    });
    Some(hasher.digest128())
}

/// The fields a pi-subagents rewrite of a copied entry keeps.
fn stamp_key(entry: &Value) -> Option<u128> {
    let id = id(entry)?;
    let field = |key: &str| entry.get(key);
    // Whatever the entry's type: both sides of a match are keyed alike.
    let message = entry.get("message").map(Message);
    let stamp = Value::Array(
        [
            Some(&Value::String(id.to_owned())),
            field("type"),
            field("timestamp"),
            field("usage"),
            message.and_then(Message::role_value),
            message.and_then(Message::timestamp),
            message.and_then(Message::response_id),
            message.and_then(Message::usage),
        ]
        .into_iter()
        .map(|v| v.cloned().unwrap_or(Value::Null))
        .collect(),
    );
    let mut hasher = Xxh3::new();
    hasher.update(b"stamp");
    hash_value(&mut hasher, &stamp);
    Some(hasher.digest128())
}

fn hash_object(
    hasher: &mut Xxh3,
    map: &serde_json::Map<String, Value>,
    left_out: &dyn Fn(&str) -> bool,
) {
    let mut keys: Vec<&String> = map.keys().filter(|k| !left_out(k)).collect();
    keys.sort_unstable();
    hasher.update(b"{");
    hasher.update(&(keys.len() as u64).to_le_bytes());
    for key in keys {
        hash_str(hasher, key);
        hash_value(hasher, &map[key]);
    }
}

/// A value as JSON means it, whatever its spelling: objects by sorted keys, numbers as the
/// doubles JavaScript reads (`-0` as `0`, which `JSON.stringify` writes). Iterative: a hostile
/// line may nest deeper than a stack.
fn hash_value(hasher: &mut Xxh3, value: &Value) {
    enum Work<'a> {
        Value(&'a Value),
        Key(&'a str),
    }
    let mut work = vec![Work::Value(value)];
    while let Some(item) = work.pop() {
        let value = match item {
            Work::Key(key) => {
                hash_str(hasher, key);
                continue;
            }
            Work::Value(value) => value,
        };
        match value {
            Value::Null => hasher.update(b"n"),
            Value::Bool(b) => hasher.update(if *b { b"t" } else { b"f" }),
            Value::Number(n) => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                let x = if x == 0.0 { 0.0 } else { x };
                hasher.update(b"#");
                hasher.update(&x.to_bits().to_le_bytes());
            }
            Value::String(s) => hash_str(hasher, s),
            Value::Array(items) => {
                hasher.update(b"[");
                hasher.update(&(items.len() as u64).to_le_bytes());
                work.extend(items.iter().rev().map(Work::Value));
            }
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort_unstable();
                hasher.update(b"{");
                hasher.update(&(keys.len() as u64).to_le_bytes());
                for key in keys.into_iter().rev() {
                    work.push(Work::Value(&map[key]));
                    work.push(Work::Key(key));
                }
            }
        }
    }
}

fn hash_str(hasher: &mut Xxh3, s: &str) {
    hasher.update(b"\"");
    hasher.update(&(s.len() as u64).to_le_bytes());
    hasher.update(s.as_bytes());
}

/// The files up a session's `parentSession` chain, nearest first.
#[derive(Debug)]
pub struct Chain {
    pub files: Vec<PathBuf>,
    pub end: End,
}

/// Where a chain ends.
#[derive(Debug)]
pub enum End {
    /// At a file without a `parentSession`.
    Root,
    /// At a `parentSession` naming a file that cannot be read (gone, most often): its copies
    /// count in the file below it.
    Missing(PathBuf, io::ErrorKind),
    /// At a file already on the chain (or the session itself): the walk stops there.
    Cycle(PathBuf),
    /// After `max` files.
    Limit,
}

/// Follows `parent_session` (the session's header's, non-empty) up the chain: each path keyed
/// as pi keys it ([`PathKeys`]: canonical, relative ones against the process cwd), each file's
/// own `parentSession` read by `read_parent` (its header's; an error when the file cannot be
/// read), at most `max` files, stopping at the first file already seen.
pub fn chain(
    session: &Path,
    parent_session: &str,
    keys: &mut PathKeys,
    max: usize,
    mut read_parent: impl FnMut(&Path) -> io::Result<Option<String>>,
) -> Chain {
    let mut seen = HashSet::from([keys.key(session)]);
    let mut files = Vec::new();
    let mut next = Some(parent_session.to_owned());
    while let Some(parent) = next.take().filter(|p| !p.is_empty()) {
        let key = keys.key(Path::new(&parent));
        if !seen.insert(key.clone()) {
            return Chain {
                files,
                end: End::Cycle(key),
            };
        }
        if files.len() == max {
            return Chain {
                files,
                end: End::Limit,
            };
        }
        match read_parent(&key) {
            Ok(up) => {
                files.push(key);
                next = up;
            }
            Err(e) => {
                return Chain {
                    files,
                    end: End::Missing(key, e.kind()),
                }
            }
        }
    }
    Chain {
        files,
        end: End::Root,
    }
}

/// What an entry of a parent reports of the subagent children it ran (pi-subagents' `Details`):
/// for `share`, and for the views that name the child a call started.
#[derive(Debug, Clone, PartialEq)]
pub struct Delegation {
    /// `details.runId`: the `<runId>` folder of its children.
    pub run_id: Option<String>,
    /// One per child, in `details.results` order.
    pub children: Vec<Delegated>,
    /// Whether the entry carries usage pi counts: a tool result's `usage` (pi-subagents 0.59 and
    /// later). A slash command's message never does.
    pub has_usage: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Delegated {
    /// `sessionFile`: the child's file, absolute, as the extension wrote it.
    pub session_file: Option<String>,
    /// `index`: the `n` of its `run-<n>` folder.
    pub index: Option<u64>,
    /// `usage` as written (`input`, `output`, `cacheRead`, `cacheWrite`, `cost`, `turns`).
    pub usage: Option<Value>,
}

/// The delegation an entry reports, where pi-subagents itself reads one
/// (`detailsFromSessionEntry`, slash/slash-commands.ts): a `toolResult` message of tool
/// `subagent` or `bg_wait`, or a `custom_message` of type `subagent-slash-result` (its
/// `details.result.details`; written twice per run, running then final). The details must have a
/// string `mode` and a `results` array. `None` for any other entry.
pub fn delegation(entry: &Value) -> Option<Delegation> {
    let (details, has_usage) = match Entry::of(entry) {
        Entry::Message(Some(message)) => {
            let tool = message.tool_name().and_then(Value::as_str);
            if message.role() != Role::ToolResult
                || !tool.is_some_and(|t| SUBAGENT_TOOLS.contains(&t))
            {
                return None;
            }
            let usage = message.usage().is_some_and(Value::is_object);
            (message.details()?, usage)
        }
        Entry::CustomMessage {
            custom_type,
            details,
            ..
        } if custom_type?.as_str()? == SLASH_RESULT => {
            (details?.get("result")?.get("details")?, false)
        }
        _ => return None,
    };
    details.get("mode")?.as_str()?;
    let children = details
        .get("results")?
        .as_array()?
        .iter()
        .map(|r| Delegated {
            session_file: r
                .get("sessionFile")
                .and_then(Value::as_str)
                .map(str::to_owned),
            index: r.get("index").and_then(Value::as_u64),
            usage: r.get("usage").filter(|u| u.is_object()).cloned(),
        })
        .collect();
    Some(Delegation {
        run_id: details
            .get("runId")
            .and_then(Value::as_str)
            .map(str::to_owned),
        children,
        has_usage,
    })
}

/// The tools whose results report subagent children: pi-subagents' `subagent` and its
/// background `bg_wait`.
const SUBAGENT_TOOLS: [&str; 2] = ["subagent", "bg_wait"];

/// The custom message pi-subagents' slash commands (`/run`, `/chain`, `/parallel`) write.
const SLASH_RESULT: &str = "subagent-slash-result";

/// What a family total takes of a subagent tool result's usage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Share {
    /// All of it: the result carries usage and names no child file found in the family (or no
    /// child file at all), so it is the only record.
    Whole,
    /// None of it: the children's files are in the family and count themselves (or the result
    /// carries no usage: pi-subagents before 0.59 counted nothing there).
    Nothing,
    /// Instead of it, the reported usage of these children (indexes into
    /// [`Delegation::children`]): the ones not found, when others were.
    Children(Vec<usize>),
}

/// Which side counts a delegation's usage in a family total; `in_family` says whether a
/// `sessionFile` is a member of the family (compare keyed paths: [`PathKeys`]).
pub fn share(delegation: &Delegation, in_family: impl Fn(&str) -> bool) -> Share {
    if !delegation.has_usage {
        return Share::Nothing;
    }
    if delegation.children.is_empty() {
        return Share::Whole;
    }
    let missing: Vec<usize> = delegation
        .children
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.session_file.as_deref().is_some_and(&in_family))
        .map(|(i, _)| i)
        .collect();
    if missing.is_empty() {
        Share::Nothing
    } else if missing.len() == delegation.children.len() {
        Share::Whole
    } else {
        Share::Children(missing)
    }
}

#[cfg(test)]
mod tests;
