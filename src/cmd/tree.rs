//! `pisess tree`: the entry tree as pi's `/tree` draws it (filters, layout, previews), with the
//! active path marked; or the same rows as NDJSON, one object per shown entry.
//!
//! Two passes over the entries, each decoding one entry at a time: the first decodes assistant
//! messages only (the filter needs their text and stop reason, tool results need their calls'
//! names), the second decodes each shown entry for its preview while writing its row.

use std::collections::HashMap;
use std::io::{Read, Write};

use serde_json::{Map, Value};

use crate::cli::TreeArgs;
use crate::cmd::open_session;
use crate::diag::Diag;
use crate::env::Env;
use crate::exit::Outcome;
use crate::js::js_truthy;
use crate::model::EntryKind;
use crate::preview::{preview, tool_calls_of, Preview, Tone};
use crate::session::Session;
use crate::style::{self, escape_control, Role, Theme};
use crate::surrogates;
use crate::tree::{layout, shown, visible, Facts, Tree, Visible};

pub fn run(
    args: &TreeArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let session = open_session(args.session.as_deref(), env, diag, stdin)?;
    let tree = Tree::build(&session);
    diag.session_warnings(&session.name, &tree.warnings);
    let home = env.inputs.home.to_string_lossy();
    let (facts, tool_calls) = facts(&session, &tree, &home)?;
    let is_shown: Vec<bool> = (0..session.entries.len())
        .map(|i| {
            tree.in_tree[i] && shown(&session, i, &facts[i], tree.leaf == Some(i), args.filter)
        })
        .collect();
    let v = visible(&tree, &is_shown);
    let view = View {
        session: &session,
        tree: &tree,
        facts: &facts,
        tool_calls: &tool_calls,
        home: &home,
    };
    if args.json {
        view.write_json(&v, out)?;
    } else {
        view.write_human(&v, args.ids, env.width, env.theme(), out)?;
    }
    Ok(Outcome::Done)
}

/// The filter's facts per entry, and the tool-call one-liners by call id.
fn facts(
    session: &Session,
    tree: &Tree,
    home: &str,
) -> anyhow::Result<(Vec<Facts>, HashMap<String, String>)> {
    let labels = session.labels();
    let mut facts = vec![Facts::default(); session.entries.len()];
    let mut tool_calls = HashMap::new();
    for (i, f) in facts.iter_mut().enumerate() {
        if !tree.in_tree[i] {
            continue;
        }
        f.label = session.id(i).and_then(|id| labels.get(id)).cloned();
        if *session.kind(i) == EntryKind::Message && session.role(i) == Some("assistant") {
            let entry = session.load(i)?;
            let message = entry.get("message").unwrap_or(&Value::Null);
            f.has_text = crate::render::has_text(message.get("content"));
            // pi: `msg.stopReason && msg.stopReason !== "stop" && msg.stopReason !== "toolUse"`.
            let stop = message.get("stopReason");
            f.error_or_aborted = js_truthy(stop)
                && !matches!(stop.and_then(Value::as_str), Some("stop" | "toolUse"));
            tool_calls_of(message, home, &mut tool_calls);
        }
    }
    Ok((facts, tool_calls))
}

struct View<'a> {
    session: &'a Session,
    tree: &'a Tree,
    facts: &'a [Facts],
    tool_calls: &'a HashMap<String, String>,
    home: &'a str,
}

impl View<'_> {
    fn preview(&self, i: usize, entry: &Value) -> Preview {
        let kind = &self.session.kind(i);
        preview(entry, kind, self.tool_calls, self.home)
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
        let marked = v.active_end(&self.tree.active);
        for row in rows {
            let i = row.entry;
            let entry = self.session.load(i)?;
            let active = self.tree.active[i];
            // pi's `pathMarker` before the text, and ours after the leaf.
            let marker = if active { "• " } else { "" };
            let suffix = if marked == Some(i) { " ← active" } else { "" };
            let mut parts: Vec<(Tone, String)> = Vec::new();
            // The id as `show S ID` and `--leaf ID` take it back, ahead of the label.
            if ids {
                let id = self.session.id(i).unwrap_or("?");
                parts.push((Tone::Dim, format!("{id} ")));
            }
            if let Some(label) = &self.facts[i].label {
                parts.push((Tone::Warning, format!("[{label}] ")));
            }
            parts.extend(self.preview(i, &entry).parts);
            for (_, text) in &mut parts {
                *text = escape_control(text, false).into_owned();
            }
            if let Some(width) = width {
                let fixed = style::width(&row.prefix) + style::width(marker) + style::width(suffix);
                cut_parts(&mut parts, width.saturating_sub(fixed));
            }
            let mut line = theme.dim(&row.prefix);
            line.push_str(&theme.cyan(marker));
            for (tone, text) in &parts {
                line.push_str(&paint(theme, *tone, text, active));
            }
            line.push_str(&theme.bold(&theme.cyan(suffix)));
            writeln!(out, "{line}")?;
        }
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
        while let Some((i, parent, depth)) = stack.pop() {
            let kids = &v.children[i];
            let node = self.node(i, parent, depth, kids.len(), marked == Some(i))?;
            surrogates::write(&mut *out, &node)?;
            out.write_all(b"\n")?;
            stack.extend(kids.iter().rev().map(|&c| (c, Some(i), depth + 1)));
        }
        Ok(())
    }

    /// One row of `--json`: `{id, parentId, depth, type, role?, label?, active, leaf, preview,
    /// children}` (docs/json.md). `leaf` is the row the human view marks `← active`: the leaf,
    /// or its nearest shown ancestor when the filter hides it.
    fn node(
        &self,
        i: usize,
        parent: Option<usize>,
        depth: usize,
        children: usize,
        leaf: bool,
    ) -> anyhow::Result<Value> {
        let entry = self.session.load(i)?;
        let mut node = Map::new();
        node.insert("id".into(), self.session.id(i).into());
        node.insert(
            "parentId".into(),
            parent.and_then(|p| self.session.id(p)).into(),
        );
        node.insert("depth".into(), depth.into());
        node.insert("type".into(), self.session.kind(i).as_str().into());
        if *self.session.kind(i) == EntryKind::Message {
            // The decoded role: migrations apply (v2's `hookMessage` is `custom`).
            if let Some(role) = entry.pointer("/message/role").and_then(Value::as_str) {
                node.insert("role".into(), role.into());
            }
        }
        if let Some(label) = &self.facts[i].label {
            node.insert("label".into(), label.clone().into());
        }
        node.insert("active".into(), self.tree.active[i].into());
        node.insert("leaf".into(), leaf.into());
        node.insert("preview".into(), self.preview(i, &entry).text().into());
        node.insert("children".into(), children.into());
        Ok(Value::Object(node))
    }
}

/// Cuts styled parts to `width` columns in total, ending with `…` when anything was cut.
fn cut_parts(parts: &mut Vec<(Tone, String)>, width: usize) {
    let full: String = parts.iter().map(|(_, s)| s.as_str()).collect();
    let cut = style::truncate(&full, width);
    if cut.len() == full.len() {
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
    }
}
