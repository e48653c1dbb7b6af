//! What a session did and cost, beyond pi's `/session` figures: gathered by [`Tally`] in the same
//! pass of the shared scan that builds a [`Summary`](crate::summary::Summary), so `stats` reads
//! each file once, like `ls`. [`buckets`] folds the rows of many sessions into report lines.
//!
//! Every usage pi's totals count (assistant and toolResult messages, `usage`, `compaction` and
//! `branch_summary` entries) becomes one [`Row`], so whatever the rows are grouped by, the groups
//! add up to pi's totals.

pub mod buckets;

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::model::{EntryKind, Header, LooseNum, LooseObj, LooseStr, Usage};
use crate::scan::EntryLine;
use crate::time::parse_js_date;

/// pi's name for the usage of tool results, compactions and branch summaries, which name no model.
pub const TOOLS_AND_SUMMARIES: &str = "Tools/summaries";

/// One message-bearing entry, or an entry with usage: the fact table of `stats --by message`.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub id: Option<String>,
    /// The entry's own time (its ISO `timestamp`, else the message's ms, else the header's).
    pub ts_ms: Option<i64>,
    /// The message role, or the entry type for `usage`, `compaction` and `branch_summary`.
    pub role: String,
    /// A `message` entry (what pi's `totalMessages` counts), not an entry with usage.
    pub message: bool,
    /// Index into [`Tally::models`], as pi's `getUsageCostBreakdown` keys usage: an assistant's
    /// `provider/(responseModel ?? model)`, a `usage` entry's `provider/model`, and
    /// [`TOOLS_AND_SUMMARIES`] for tool results, compactions and branch summaries.
    pub model: Option<u32>,
    pub usage: Option<Usage>,
    /// A tool result's `toolName`.
    pub tool: Option<String>,
    /// An assistant message's tool calls, by name (`""` when a call has none).
    pub calls: Vec<String>,
    pub is_error: Option<bool>,
    pub stop_reason: Option<String>,
    /// On the path from the leaf to its root.
    pub active: bool,
}

/// A model as stored, and pi's breakdown key for it: `provider/model`, where JavaScript's
/// template spells a missing part `undefined`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelKey {
    pub provider: Option<String>,
    pub model: Option<String>,
    pub key: String,
}

/// Per tool name.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ToolCount {
    pub calls: u64,
    /// Results with `isError: true`.
    pub errors: u64,
}

/// Stop reasons of assistant messages.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Stops {
    pub error: u64,
    pub aborted: u64,
    pub length: u64,
    /// The last assistant message's (file order) `stopReason` and `errorMessage`.
    pub last: Option<String>,
    pub last_error: Option<String>,
}

/// Paths named by the built-in tools' `path` argument, each once, sorted.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Files {
    pub read: BTreeSet<String>,
    pub written: BTreeSet<String>,
    pub edited: BTreeSet<String>,
}

/// What `stats` learns from one file, in file order.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub rows: Vec<Row>,
    /// The models the rows point into.
    pub models: Vec<ModelKey>,
    pub tools: BTreeMap<String, ToolCount>,
    /// `bash` commands whose result was an error, in file order.
    pub failed_commands: Vec<String>,
    pub stops: Stops,
    pub compactions: u64,
    /// The sum of the compactions' `tokensBefore`.
    pub tokens_before: f64,
    pub branch_summaries: u64,
    pub files: Files,
    /// Every entry's parent, to find the active branch at the end.
    links: hashbrown::HashMap<String, Option<String>>,
    /// `bash` tool-call ids and their commands, to name the ones whose result failed.
    bash_calls: hashbrown::HashMap<String, String>,
}

/// The fields of a line `stats` needs beyond the listing's [`LineView`](crate::model::LineView).
#[derive(Deserialize)]
struct Extra<'a> {
    #[serde(default, borrow)]
    message: LooseObj<ExtraMessage<'a>>,
    /// A `usage` entry's model.
    #[serde(default, borrow)]
    model: LooseStr<'a>,
    #[serde(rename = "tokensBefore", default)]
    tokens_before: LooseNum,
}

#[derive(Deserialize)]
struct ExtraMessage<'a> {
    #[serde(rename = "stopReason", default, borrow)]
    stop_reason: LooseStr<'a>,
    #[serde(rename = "errorMessage", default, borrow)]
    error_message: LooseStr<'a>,
    #[serde(rename = "toolName", default, borrow)]
    tool_name: LooseStr<'a>,
    #[serde(rename = "toolCallId", default, borrow)]
    tool_call_id: LooseStr<'a>,
    #[serde(rename = "isError", default)]
    is_error: Option<serde_json::Value>,
    #[serde(default, borrow)]
    content: Option<&'a RawValue>,
    #[serde(rename = "responseModel", default, borrow)]
    response_model: LooseStr<'a>,
}

#[derive(Deserialize)]
struct CallBlock<'a> {
    #[serde(rename = "type", default, borrow)]
    kind: LooseStr<'a>,
    #[serde(default, borrow)]
    id: LooseStr<'a>,
    #[serde(default, borrow)]
    name: LooseStr<'a>,
    #[serde(default, borrow)]
    arguments: LooseObj<Arguments<'a>>,
}

#[derive(Deserialize)]
struct Arguments<'a> {
    #[serde(default, borrow)]
    path: LooseStr<'a>,
    #[serde(default, borrow)]
    command: LooseStr<'a>,
}

impl Tally {
    /// Takes one entry of the scan.
    pub fn observe(&mut self, header: &Header, e: &EntryLine) {
        if let Some(id) = &e.id {
            self.links
                .insert(id.to_string(), e.parent.as_deref().map(str::to_owned));
        }
        let v = e.view;
        let ts_ms = v
            .timestamp
            .get()
            .and_then(parse_js_date)
            .or_else(|| {
                #[allow(clippy::cast_possible_truncation)]
                v.message
                    .0
                    .as_ref()
                    .and_then(|m| m.timestamp.0)
                    .map(|t| t as i64)
            })
            .or(header.timestamp_ms);
        let row = |role: &str, model, usage| Row {
            id: e.id.as_deref().map(str::to_owned),
            ts_ms,
            role: role.to_owned(),
            message: e.kind == EntryKind::Message,
            model,
            usage,
            tool: None,
            calls: Vec::new(),
            is_error: None,
            stop_reason: None,
            active: false,
        };
        match e.kind {
            EntryKind::Usage | EntryKind::Compaction | EntryKind::BranchSummary => {
                let extra = serde_json::from_slice::<Extra>(e.json).ok();
                let usage = v.usage.and_then(Usage::from_raw);
                let model = match e.kind {
                    EntryKind::Usage => {
                        let model = extra.as_ref().and_then(|x| x.model.get());
                        Some(self.intern(v.provider.get(), model))
                    }
                    _ => Some(self.tools_and_summaries()),
                };
                if e.kind == EntryKind::Compaction {
                    self.compactions += 1;
                    self.tokens_before += extra.and_then(|x| x.tokens_before.0).unwrap_or(0.0);
                } else if e.kind == EntryKind::BranchSummary {
                    self.branch_summaries += 1;
                }
                // An entry pi adds nothing for is no row: only usage makes these count.
                if usage.is_some() || e.kind == EntryKind::Usage {
                    self.rows.push(row(e.kind.as_str(), model, usage));
                }
            }
            EntryKind::Message => self.observe_message(e, row),
            _ => {}
        }
    }

    fn observe_message(
        &mut self,
        e: &EntryLine,
        row: impl Fn(&str, Option<u32>, Option<Usage>) -> Row,
    ) {
        let Some(m) = e.view.message.0.as_ref() else {
            self.rows.push(row("", None, None));
            return;
        };
        let role = m.role.get().unwrap_or("");
        let usage = m.usage.and_then(Usage::from_raw);
        match role {
            "assistant" => {
                let extra = serde_json::from_slice::<Extra>(e.json).ok();
                let message = extra.as_ref().and_then(|x| x.message.0.as_ref());
                let model = message
                    .and_then(|x| x.response_model.get())
                    .or(m.model.get());
                let model = Some(self.intern(m.provider.get(), model));
                let mut r = row(role, model, usage);
                if let Some(x) = message {
                    let stop = x.stop_reason.get();
                    match stop {
                        Some("error") => self.stops.error += 1,
                        Some("aborted") => self.stops.aborted += 1,
                        Some("length") => self.stops.length += 1,
                        _ => {}
                    }
                    self.stops.last = stop.map(str::to_owned);
                    self.stops.last_error = x.error_message.get().map(str::to_owned);
                    r.stop_reason = stop.map(str::to_owned);
                    // Only content that could hold a call is decoded block by block.
                    if let Some(content) = x.content.filter(|c| c.get().contains("toolCall")) {
                        self.take_calls(content, &mut r.calls);
                    }
                } else {
                    self.stops.last = None;
                    self.stops.last_error = None;
                }
                self.rows.push(r);
            }
            "toolResult" => {
                let model = usage.map(|_| self.tools_and_summaries());
                let mut r = row(role, model, usage);
                let extra = serde_json::from_slice::<Extra>(e.json).ok();
                if let Some(x) = extra.as_ref().and_then(|x| x.message.0.as_ref()) {
                    let is_error = x.is_error == Some(serde_json::Value::Bool(true));
                    let name = x.tool_name.get().unwrap_or("");
                    if is_error {
                        self.tools.entry(name.to_owned()).or_default().errors += 1;
                        if let Some(cmd) =
                            x.tool_call_id.get().and_then(|id| self.bash_calls.get(id))
                        {
                            if name == "bash" {
                                self.failed_commands.push(cmd.clone());
                            }
                        }
                    }
                    r.tool = x.tool_name.get().map(str::to_owned);
                    r.is_error = Some(is_error);
                }
                self.rows.push(r);
            }
            _ => self.rows.push(row(role, None, None)),
        }
    }

    /// The `toolCall` blocks of an assistant's content: counted by name, files noted, `bash`
    /// commands kept by call id.
    fn take_calls(&mut self, content: &RawValue, names: &mut Vec<String>) {
        let Ok(blocks) = serde_json::from_str::<Vec<LooseObj<CallBlock>>>(content.get()) else {
            return;
        };
        for b in blocks.iter().filter_map(|b| b.0.as_ref()) {
            if b.kind.get() != Some("toolCall") {
                continue;
            }
            let name = b.name.get().unwrap_or("");
            names.push(name.to_owned());
            self.tools.entry(name.to_owned()).or_default().calls += 1;
            let args = b.arguments.0.as_ref();
            let path = args.and_then(|a| a.path.get()).map(str::to_owned);
            match (name, path) {
                ("read", Some(p)) => {
                    self.files.read.insert(p);
                }
                ("write", Some(p)) => {
                    self.files.written.insert(p);
                }
                ("edit", Some(p)) => {
                    self.files.edited.insert(p);
                }
                ("bash", _) => {
                    if let (Some(id), Some(cmd)) = (b.id.get(), args.and_then(|a| a.command.get()))
                    {
                        self.bash_calls.insert(id.to_owned(), cmd.to_owned());
                    }
                }
                _ => {}
            }
        }
    }

    fn intern(&mut self, provider: Option<&str>, model: Option<&str>) -> u32 {
        let key = format!(
            "{}/{}",
            provider.unwrap_or("undefined"),
            model.unwrap_or("undefined")
        );
        self.intern_key(ModelKey {
            provider: provider.map(str::to_owned),
            model: model.map(str::to_owned),
            key,
        })
    }

    fn tools_and_summaries(&mut self) -> u32 {
        self.intern_key(ModelKey {
            provider: None,
            model: None,
            key: TOOLS_AND_SUMMARIES.to_owned(),
        })
    }

    fn intern_key(&mut self, model: ModelKey) -> u32 {
        let i = match self.models.iter().position(|m| *m == model) {
            Some(i) => i,
            None => {
                self.models.push(model);
                self.models.len() - 1
            }
        };
        u32::try_from(i).unwrap_or(u32::MAX)
    }

    /// Marks the rows on the active branch (leaf to root) once the file is read, and drops what
    /// only the pass needed.
    pub fn finish(&mut self, leaf: Option<&str>) {
        let mut active: hashbrown::HashSet<&str> = hashbrown::HashSet::new();
        let mut at = leaf;
        // A parent cycle ends the walk where it closes.
        while let Some(id) = at {
            if !active.insert(id) {
                break;
            }
            at = self.links.get(id).and_then(Option::as_deref);
        }
        for r in &mut self.rows {
            r.active = r.id.as_deref().is_some_and(|id| active.contains(id));
        }
        drop(active);
        self.links = hashbrown::HashMap::new();
        self.bash_calls = hashbrown::HashMap::new();
    }

    /// `provider/model` of a row's model index.
    pub fn model_name(&self, i: Option<u32>) -> Option<String> {
        self.models.get(i? as usize).map(|m| m.key.clone())
    }

    /// Cost on the active branch and off it.
    pub fn cost_split(&self) -> (f64, f64) {
        let (mut on, mut off) = (0.0, 0.0);
        for r in &self.rows {
            let c = r.usage.map_or(0.0, |u| u.cost);
            if r.active {
                on += c;
            } else {
                off += c;
            }
        }
        (on, off)
    }

    /// Per model, in order of first use: assistant turns and usage.
    pub fn per_model(&self) -> Vec<(String, u64, Usage)> {
        let mut out: Vec<(Option<u32>, u64, Usage)> = Vec::new();
        for r in self
            .rows
            .iter()
            .filter(|r| r.usage.is_some() || r.role == "assistant")
        {
            let i = match out.iter().position(|(m, ..)| *m == r.model) {
                Some(i) => i,
                None => {
                    out.push((r.model, 0, Usage::default()));
                    out.len() - 1
                }
            };
            out[i].1 += u64::from(r.role == "assistant");
            if let Some(u) = &r.usage {
                out[i].2.add(u);
            }
        }
        out.into_iter()
            .map(|(m, turns, u)| {
                (
                    self.model_name(m).unwrap_or_else(|| "(no model)".into()),
                    turns,
                    u,
                )
            })
            .collect()
    }
}
