//! The files a run's calls named, counted as its calls and results pass (a call before the
//! result that answers it): for `files` and for `diff`, which counts them from the index's
//! pass ([`Touch`] read once per call, applied per branch).

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use crate::views::paths;
use pisess_format::model::content::ToolArgs;
use pisess_format::model::ToolCall;

/// What the calls naming one file did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub reads: u64,
    pub writes: u64,
    pub edits: u64,
    /// The calls among them whose tool result said `isError: true`.
    pub errors: u64,
}

/// The files calls named, counted as the calls and their results pass (a call before the
/// result that answers it): for [`touched`], and for a reader that decodes the messages for
/// more than this (`diff`), so they are decoded once.
#[derive(Debug, Default)]
pub struct Touches {
    pub files: BTreeMap<String, Counts>,
    /// A call's id → the file it named, until its result says whether it failed.
    waiting: HashMap<String, String>,
}

/// What a `read`, `write` or `edit` call naming a path did: one count on that file.
#[derive(Debug, Clone)]
pub struct Touch {
    kind: Kind,
    /// Its one spelling ([`paths::normal`]).
    path: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Read,
    Write,
    Edit,
}

impl Touch {
    pub fn kind(&self) -> Kind {
        self.kind
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    /// What `call` did, if it is a `read`, `write` or `edit` naming a path.
    pub fn of(call: ToolCall<'_>, cwd: &str) -> Option<Touch> {
        let name = call.name.and_then(Value::as_str)?;
        let path = ToolArgs::of(call.arguments).path.and_then(Value::as_str)?;
        let kind = match name {
            "read" => Kind::Read,
            "write" => Kind::Write,
            "edit" => Kind::Edit,
            _ => return None,
        };
        Some(Touch {
            kind,
            path: paths::normal(path, cwd),
        })
    }
}

impl Touches {
    /// A tool call: a `read`, `write` or `edit` naming a path counts on that file.
    pub fn call(&mut self, call: ToolCall<'_>, cwd: &str) {
        if let Some(touch) = Touch::of(call, cwd) {
            self.touched(touch.kind, &touch.path, call.id.and_then(Value::as_str));
        }
    }

    /// A call with id `id` that did `kind` to `path` (read beforehand, [`Touch::of`]).
    pub fn touched(&mut self, kind: Kind, path: &str, id: Option<&str>) {
        let counts = self.files.entry(path.to_owned()).or_default();
        *match kind {
            Kind::Read => &mut counts.reads,
            Kind::Write => &mut counts.writes,
            Kind::Edit => &mut counts.edits,
        } += 1;
        if let Some(id) = id {
            self.waiting.insert(id.to_owned(), path.to_owned());
        }
    }

    /// A result answering call `id` (once); a failed one counts on that call's file.
    pub fn result(&mut self, id: Option<&str>, failed: bool) {
        let path = id.and_then(|id| self.waiting.remove(id));
        if let (Some(path), true) = (path, failed) {
            if let Some(counts) = self.files.get_mut(&path) {
                counts.errors += 1;
            }
        }
    }
}
