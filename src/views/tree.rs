//! The entry tree as pi's `getTree` builds it, the active path, pi's `/tree` filter modes and
//! its layout (connectors, gutters, single-child chains that do not drift right).
//!
//! Everything here is pure: it takes the session index (and per-entry facts the caller decoded)
//! and returns rows; nothing is printed. Every walk is iterative and cycle-safe, since a parent
//! cycle would make pi hang and a 100k-entry chain would overflow a recursive walk.

use std::sync::Arc;

use pisess_format::model::{EntryKind, Role};
use pisess_format::util::warning::Warning;
use pisess_store::session::Session;

/// A list of entry positions per entry, all in one vector (a `Vec` per entry cost 56 bytes an
/// entry: most of `tree`'s memory on a session of a million small entries).
#[derive(Debug, Clone, Default)]
pub struct Lists {
    /// Where each entry's list starts in `items`; one more at the end.
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl Lists {
    /// `n` lists from `(list, item)` pairs, each list in the pairs' order.
    fn from_pairs(n: usize, pairs: impl Iterator<Item = (u32, u32)> + Clone) -> Lists {
        // Counted, then filled with each list's start as its cursor (which leaves it at the
        // next list's start), then shifted back: no second vector of cursors.
        let mut starts = vec![0u32; n + 1];
        for (list, _) in pairs.clone() {
            starts[list as usize + 1] += 1;
        }
        for k in 0..n {
            starts[k + 1] += starts[k];
        }
        let mut items = vec![0u32; starts[n] as usize];
        for (list, item) in pairs {
            let at = &mut starts[list as usize];
            items[*at as usize] = item;
            *at += 1;
        }
        starts.copy_within(0..n, 1);
        starts[0] = 0;
        Lists { starts, items }
    }

    /// Entry `i`'s list.
    pub fn of(&self, i: usize) -> &[u32] {
        &self.items[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    fn of_mut(&mut self, i: usize) -> &mut [u32] {
        &mut self.items[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Items in all the lists.
    pub fn total(&self) -> usize {
        self.items.len()
    }
}

/// Parent/child structure over `Session::entries` positions.
#[derive(Debug, Clone)]
pub struct Tree {
    pub roots: Vec<usize>,
    pub children: Lists,
    /// Entries in the tree (those with an id that won over duplicates).
    pub in_tree: Vec<bool>,
    pub leaf: Option<usize>,
    /// Entries on the path from the leaf to its root.
    pub active: Vec<bool>,
    pub warnings: Vec<Warning>,
}

impl Tree {
    pub fn build(session: &Session) -> Tree {
        let n = session.entries.len();
        let mut warnings = Vec::new();
        let in_tree: Vec<bool> = (0..n)
            .map(|i| session.id(i).is_some_and(|id| session.find(id) == Some(i)))
            .collect();
        // An entry of the tree that is not a root hangs from its parent in the file.
        let mut is_root = vec![false; n];
        let up = |is_root: &[bool], i: usize| {
            if is_root[i] {
                None
            } else {
                session.parent_of(i)
            }
        };
        let mut roots = Vec::new();
        for i in (0..n).filter(|&i| in_tree[i]) {
            match session.parent_id(i) {
                None => roots.push(i),
                Some(p) if Some(p) == session.id(i) => roots.push(i),
                Some(p) => match session.parent_of(i) {
                    Some(_) => {}
                    None => {
                        warnings.push(Warning {
                            line: Some(session.line(i)),
                            message: format!(
                                "entry {} names a parent {p} that is not in the file; shown as a root",
                                session.id(i).unwrap_or("?")
                            ),
                        });
                        roots.push(i);
                    }
                },
            }
        }
        for &r in &roots {
            is_root[r] = true;
        }
        // Entries whose parents never lead to a root sit on a parent cycle (or below one): in
        // file order, the first entry of each such chain cuts its cycle at the cycle's first
        // entry in file order, which becomes a root.
        let mut reached = vec![false; n];
        let mut on_walk = vec![false; n];
        let mut walk = Vec::new();
        for i in (0..n).filter(|&i| in_tree[i]) {
            let mut cur = i;
            // Up to a root, an entry known to reach one, or back onto this walk (a cycle).
            let cycle_at = loop {
                if reached[cur] {
                    break None;
                }
                if on_walk[cur] {
                    break Some(cur);
                }
                on_walk[cur] = true;
                walk.push(cur);
                match up(&is_root, cur) {
                    None => break None,
                    Some(p) => cur = p,
                }
            };
            if let Some(cur) = cycle_at {
                let mut cycle = vec![cur];
                let mut next = up(&is_root, cur);
                while let Some(p) = next.filter(|&p| p != cur) {
                    cycle.push(p);
                    next = up(&is_root, p);
                }
                let cut = *cycle.iter().min().unwrap_or(&cur);
                warnings.push(Warning {
                    line: Some(session.line(cut)),
                    message: format!(
                        "parent cycle through {} entries; entry {} is shown as a root",
                        cycle.len(),
                        session.id(cut).unwrap_or("?")
                    ),
                });
                is_root[cut] = true;
                roots.push(cut);
            }
            for j in walk.drain(..) {
                on_walk[j] = false;
                reached[j] = true;
            }
        }
        drop((reached, on_walk));
        // (The index keeps positions below u32::MAX.)
        let pairs = (0..n)
            .filter(|&i| in_tree[i])
            .filter_map(|i| Some((up(&is_root, i)? as u32, i as u32)));
        let mut children = Lists::from_pairs(n, pairs);
        // pi sorts children (not roots) by entry timestamp, stably.
        let key = |i: &u32| {
            session.entries[*i as usize]
                .timestamp_ms()
                .unwrap_or(i64::MIN)
        };
        for i in 0..n {
            children.of_mut(i).sort_by_key(key);
        }
        roots.sort_unstable();

        let leaf = session.leaf().filter(|&l| in_tree[l]);
        // The active path is walked in the drawn tree, not through `parentId`s: below a cut
        // cycle, `path_to` would continue past the cut into the cycle's other members, marking
        // entries that are drawn under the leaf's root as if they were above it.
        let mut active = vec![false; n];
        let mut cur = leaf;
        while let Some(i) = cur {
            active[i] = true;
            cur = up(&is_root, i);
        }
        Tree {
            roots,
            children,
            in_tree,
            leaf,
            active,
            warnings,
        }
    }

    /// Entries in display order (pre-order, children in order).
    pub fn preorder(&self) -> Vec<usize> {
        let mut out = Vec::new();
        let mut stack: Vec<usize> = self.roots.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            out.push(i);
            stack.extend(self.children.of(i).iter().rev().map(|&c| c as usize));
        }
        out
    }
}

/// What the filter needs to know of an entry beyond the index.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// For assistant messages: some text block with non-blank text.
    pub has_text: bool,
    /// For assistant messages: `stopReason` is set and is neither "stop" nor "toolUse".
    pub error_or_aborted: bool,
    /// The entry has a current label.
    pub labelled: bool,
}

/// pi's `/tree` filter modes (`--filter`; the doc comments are the help text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TreeFilter {
    /// Hide bookkeeping entries and assistant messages without text
    Default,
    /// Default, and hide tool results
    NoTools,
    /// Only user messages
    UserOnly,
    /// Only labelled entries
    LabeledOnly,
    /// Everything but usage entries and tool-call-only assistant messages (as pi's "all")
    All,
}

/// pi's `/tree` filter for one entry.
pub fn shown(session: &Session, i: usize, facts: &Facts, is_leaf: bool, mode: TreeFilter) -> bool {
    let kind = session.kind(i);
    let role = match kind {
        EntryKind::Message => Some(Role::parse(session.role(i).unwrap_or(""))),
        _ => None,
    };
    if role == Some(Role::Assistant) && !is_leaf && !facts.has_text && !facts.error_or_aborted {
        return false;
    }
    // pi's settings entries, which only `all` and `labeled-only` show.
    let settings = match kind {
        EntryKind::Usage => return false,
        EntryKind::Label
        | EntryKind::ContextEdit
        | EntryKind::Custom
        | EntryKind::ModelChange
        | EntryKind::ThinkingLevelChange
        | EntryKind::SessionInfo => true,
        EntryKind::Message
        | EntryKind::Compaction
        | EntryKind::BranchSummary
        | EntryKind::CustomMessage
        | EntryKind::ToolCall
        | EntryKind::Thinking
        | EntryKind::Unknown(_) => false,
    };
    match mode {
        TreeFilter::UserOnly => role == Some(Role::User),
        TreeFilter::NoTools => !settings && role != Some(Role::ToolResult),
        TreeFilter::LabeledOnly => facts.labelled,
        TreeFilter::All => true,
        TreeFilter::Default => !settings,
    }
}

/// One drawn line of the tree.
#[derive(Debug, Clone)]
pub struct Row {
    pub entry: usize,
    /// Connectors and gutters (`│  ├─ `), three columns per level.
    pub prefix: Prefix,
}

/// A row's prefix: the start of the gutters drawn for its path, shared with the rows drawn
/// while they stay (a session that keeps branching draws rows of tens of KB of gutters: 16 GB
/// for a million entries, each copied once more for its row), then the row's own levels.
#[derive(Debug, Clone, Default)]
pub struct Prefix {
    head: Arc<String>,
    head_len: usize,
    tail: String,
}

impl Prefix {
    /// The prefix in its two pieces, in order.
    pub fn parts(&self) -> [&str; 2] {
        [&self.head[..self.head_len], &self.tail]
    }

    /// Its bytes.
    pub fn len(&self) -> usize {
        self.head_len + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::fmt::Display for Prefix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [head, tail] = self.parts();
        write!(f, "{head}{tail}")
    }
}

/// The shown entries re-attached to their nearest shown ancestor.
#[derive(Debug, Clone)]
pub struct Visible {
    pub roots: Vec<usize>,
    /// Shown children per entry position.
    pub children: Lists,
}

impl Visible {
    /// The last shown entry of the active path in display order: the leaf, or when the filter
    /// hides it its nearest shown ancestor. The shown part of the path is a chain down from one
    /// root (each shown entry's anchor is an ancestor, so on the path too), found without
    /// laying the tree out.
    pub fn active_end(&self, active: &[bool]) -> Option<usize> {
        let is_active = |i: &&usize| active.get(**i) == Some(&true);
        let mut cur = *self.roots.iter().find(is_active)?;
        while let Some(&c) = self.children.of(cur).iter().find(|&&c| active[c as usize]) {
            cur = c as usize;
        }
        Some(cur)
    }
}

/// pi's `/tree` draws the branch holding the active leaf first (`flattenTree` puts the root and
/// the child that contain it ahead of their siblings, the rest keep their order), while `getTree`
/// itself orders children by timestamp only.
fn active_first<T: Copy + TryInto<usize>>(list: &[T], active: &[bool]) -> Vec<T> {
    let (mut first, rest): (Vec<T>, Vec<T>) = list
        .iter()
        .partition(|&&c| c.try_into().ok().is_some_and(|c| active[c]));
    first.extend(rest);
    first
}

/// Re-attaches shown entries to their nearest shown ancestor, in pi's display order.
pub fn visible(tree: &Tree, shown: &[bool]) -> Visible {
    let walk = ShownWalk {
        tree,
        shown,
        stack: active_first(&tree.roots, &tree.active)
            .into_iter()
            .rev()
            .map(|r| (r, None))
            .collect(),
    };
    // The walk is made again rather than held: its pairs would cost as much as the lists.
    let roots = walk
        .clone()
        .filter_map(|(anchor, i)| anchor.is_none().then_some(i))
        .collect();
    let pairs = walk.filter_map(|(anchor, i)| anchor.map(|a| (a as u32, i as u32)));
    Visible {
        roots,
        children: Lists::from_pairs(tree.in_tree.len(), pairs),
    }
}

/// The shown entries in pi's display order, each with its nearest shown ancestor.
#[derive(Debug, Clone)]
struct ShownWalk<'a> {
    tree: &'a Tree,
    shown: &'a [bool],
    /// Entries to visit, each with the nearest shown ancestor above it.
    stack: Vec<(usize, Option<usize>)>,
}

impl Iterator for ShownWalk<'_> {
    type Item = (Option<usize>, usize);

    fn next(&mut self) -> Option<(Option<usize>, usize)> {
        while let Some((i, anchor)) = self.stack.pop() {
            let next_anchor = if self.shown[i] { Some(i) } else { anchor };
            let kids = active_first(self.tree.children.of(i), &self.tree.active);
            self.stack
                .extend(kids.into_iter().rev().map(|c| (c as usize, next_anchor)));
            if self.shown[i] {
                return Some((anchor, i));
            }
        }
        None
    }
}

/// pi's layout (`recalculateVisualStructure` and `render`): branch points indent their
/// children, the first generation after a branch indents once more, single-child chains stay
/// flat, and several roots hang off an invisible common root.
///
/// The rows are drawn one at a time as they are iterated: a session that keeps branching
/// indents deeper and deeper, and its prefixes add up to far more than the file (3 GB for a
/// 400 MB one), so they are never all held.
pub fn layout(v: &Visible) -> Layout<'_> {
    Layout { v }
}

/// The laid-out tree of `layout`; iterate it for its rows, in display order.
#[derive(Debug, Clone, Copy)]
pub struct Layout<'a> {
    v: &'a Visible,
}

impl Layout<'_> {
    /// Rows in all: one per shown entry.
    pub fn len(&self) -> usize {
        self.v.roots.len() + self.v.children.total()
    }

    pub fn is_empty(&self) -> bool {
        self.v.roots.is_empty()
    }
}

impl<'a> IntoIterator for Layout<'a> {
    type Item = Row;
    type IntoIter = Rows<'a>;

    fn into_iter(self) -> Rows<'a> {
        let v = self.v;
        let multiple_roots = v.roots.len() > 1;
        let stack = v
            .roots
            .iter()
            .enumerate()
            .rev()
            .map(|(k, &r)| Frame {
                entry: r,
                indent: usize::from(multiple_roots),
                just_branched: multiple_roots,
                show_connector: multiple_roots,
                is_last: k == v.roots.len() - 1,
                gutters: 0,
                virtual_root_child: multiple_roots,
            })
            .collect();
        Rows {
            v,
            multiple_roots,
            stack,
            gutters: Vec::new(),
            drawn: Some(Drawn::default()),
        }
    }
}

/// The gutter an entry that shows a connector leaves for its descendants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Gutter {
    position: usize,
    show: bool,
}

/// Where one entry sits in the layout, before its row is drawn.
#[derive(Debug)]
struct Frame {
    entry: usize,
    indent: usize,
    just_branched: bool,
    show_connector: bool,
    is_last: bool,
    /// How many of the shared gutters (`Rows::gutters`) are this entry's.
    gutters: usize,
    virtual_root_child: bool,
}

/// The rows of a `Layout`: a pre-order walk with an explicit stack.
#[derive(Debug)]
pub struct Rows<'a> {
    v: &'a Visible,
    multiple_roots: bool,
    stack: Vec<Frame>,
    /// The gutters of the path being drawn. pi copies the list into every child, which costs
    /// time and memory in the depth for every entry: quadratic in a session that keeps
    /// branching. A frame keeps only its length instead, since everything drawn between an
    /// entry and its next sibling sits below their parent and leaves the parent's gutters alone.
    gutters: Vec<Gutter>,
    /// The gutters' part of the prefix, drawn as they are pushed; `None` once a gutter came
    /// at or left of the one before it (never, by the comment on `next`), and the prefix is
    /// then drawn level by level.
    drawn: Option<Drawn>,
}

impl Rows<'_> {
    /// The prefix of `levels` levels with the gutters that fall on them, and the connector on
    /// the last level where no gutter does (pi's `render`, one level at a time).
    fn prefix_level_by_level(&self, levels: usize, connector: Option<&str>) -> String {
        self.prefix_levels(0, levels, connector)
    }

    /// Levels `from..levels` of [`Rows::prefix_level_by_level`]'s prefix.
    fn prefix_levels(&self, from: usize, levels: usize, connector: Option<&str>) -> String {
        let mut prefix = String::with_capacity((levels - from) * "│  ".len());
        // The gutters rise along a path while `drawn` holds (see its comment): then the first
        // one on the drawn levels is found by halving, not by a walk over the path.
        let first = if self.drawn.is_some() {
            self.gutters.partition_point(|g| g.position < from)
        } else {
            0
        };
        let mut gutters = self.gutters[first..].iter().peekable();
        for level in from..levels {
            while gutters.next_if(|g| g.position < level).is_some() {}
            if let Some(g) = gutters.next_if(|g| g.position == level) {
                prefix.push_str(g.glyph());
            } else if let Some(corner) = connector.filter(|_| level + 1 == levels) {
                prefix.push_str(corner);
            } else {
                prefix.push_str(BLANK);
            }
        }
        prefix
    }
}

/// The most levels a row's prefix draws (three columns each). A session that retries thousands
/// of times is thousands of levels deep: drawn whole, its rows grow with the depth and the output
/// with its square (8,000 retries in 2.6 MB drew 320 MB). A deeper row draws its last
/// `MAX_LEVELS` levels after `+N `, the N levels left out (docs/guide.md, `tree --help`).
pub const MAX_LEVELS: usize = 40;

/// A level without a gutter or connector.
const BLANK: &str = "   ";

impl Gutter {
    fn glyph(self) -> &'static str {
        if self.show {
            "│  "
        } else {
            BLANK
        }
    }
}

/// The levels up to the last gutter of the path, drawn: a row is hundreds of levels deep in a
/// session that keeps branching, and drawing each row's levels one by one cost a tenth of
/// `tree`'s time; the rows of a path share all but their ends.
#[derive(Debug, Default)]
struct Drawn {
    /// Shared with the rows drawn from it: changed (copied, when a row still holds it) only
    /// where the path's gutters change, at a branch.
    text: Arc<String>,
    /// The gutters drawn, and where each one's drawing ends in `text`.
    gutters: Vec<(Gutter, usize)>,
}

impl Drawn {
    /// Draws `gutter`, right of every gutter drawn.
    fn push(&mut self, gutter: Gutter) {
        let from = self.gutters.last().map_or(0, |(g, _)| g.position + 1);
        let text = Arc::make_mut(&mut self.text);
        for _ in from..gutter.position {
            text.push_str(BLANK);
        }
        text.push_str(gutter.glyph());
        self.gutters.push((gutter, text.len()));
    }

    /// Keeps the first `n` gutters.
    fn truncate(&mut self, n: usize) {
        self.gutters.truncate(n);
        let end = self.gutters.last().map_or(0, |&(_, end)| end);
        if self.text.len() != end {
            Arc::make_mut(&mut self.text).truncate(end);
        }
    }

    /// What [`Rows::prefix_level_by_level`] draws, from the drawn gutters.
    fn prefix(&self, levels: usize, connector: Option<&str>) -> Prefix {
        // The gutters on the prefix's levels (positions rise, so they are a run from the
        // first), and the levels after the last of them.
        let on = self.gutters.partition_point(|(g, _)| g.position < levels);
        let (at, level) = match on.checked_sub(1).map(|k| self.gutters[k]) {
            Some((g, end)) => (end, g.position + 1),
            None => (0, 0),
        };
        let mut tail = String::with_capacity(levels.saturating_sub(level) * "│  ".len());
        for l in level..levels {
            tail.push_str(connector.filter(|_| l + 1 == levels).unwrap_or(BLANK));
        }
        Prefix {
            head: Arc::clone(&self.text),
            head_len: at,
            tail,
        }
    }
}

impl Iterator for Rows<'_> {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        let f = self.stack.pop()?;
        self.gutters.truncate(f.gutters);
        if let Some(drawn) = self.drawn.as_mut() {
            drawn.truncate(f.gutters);
        }
        let display_indent = if self.multiple_roots {
            f.indent.saturating_sub(1)
        } else {
            f.indent
        };
        let connector = f.show_connector && !f.virtual_root_child;
        let connector_position = display_indent.saturating_sub(1);
        // pi takes, per level, the first gutter at that position. Positions grow strictly down
        // a path (branch points indent their children, so a connector sits right of every
        // connector above it), so one pass over the gutters finds them all.
        let corner = if f.is_last { "└─ " } else { "├─ " };
        let prefix = if display_indent > MAX_LEVELS {
            // Our rule, not pi's (its `/tree` scrolls sideways): only the last levels are
            // drawn, after how many were left out, so a row costs the same at any depth.
            let from = display_indent - MAX_LEVELS;
            let mut tail = format!("+{from} ");
            tail.push_str(&self.prefix_levels(from, display_indent, connector.then_some(corner)));
            Prefix {
                tail,
                ..Prefix::default()
            }
        } else {
            match self.drawn.as_mut() {
                Some(drawn) => drawn.prefix(display_indent, connector.then_some(corner)),
                None => Prefix {
                    tail: self.prefix_level_by_level(display_indent, connector.then_some(corner)),
                    ..Prefix::default()
                },
            }
        };

        let kids = self.v.children.of(f.entry);
        let multiple = kids.len() > 1;
        let child_indent = if multiple || (f.just_branched && f.indent > 0) {
            f.indent + 1
        } else {
            f.indent
        };
        if connector {
            let gutter = Gutter {
                position: connector_position,
                show: !f.is_last,
            };
            let rising = self
                .gutters
                .last()
                .is_none_or(|g| g.position < gutter.position);
            match self.drawn.as_mut() {
                Some(drawn) if rising => drawn.push(gutter),
                _ => self.drawn = None,
            }
            self.gutters.push(gutter);
        }
        let child_gutters = self.gutters.len();
        for (k, &c) in kids.iter().enumerate().rev() {
            self.stack.push(Frame {
                entry: c as usize,
                indent: child_indent,
                just_branched: multiple,
                show_connector: multiple,
                is_last: k == kids.len() - 1,
                gutters: child_gutters,
                virtual_root_child: false,
            });
        }
        Some(Row {
            entry: f.entry,
            prefix,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn session(lines: &[Value]) -> Session {
        pisess_store::session::test_session(lines)
    }

    fn e(id: &str, parent: Option<&str>, ts: u32) -> Value {
        json!({"type":"message","id":id,"parentId":parent,"timestamp":format!("2026-01-01T00:00:{ts:02}.000Z"),
               "message":{"role":"user","content":id}})
    }

    fn draw(s: &Session) -> Vec<String> {
        let t = Tree::build(s);
        let v = visible(&t, &vec![true; s.entries.len()]);
        layout(&v)
            .into_iter()
            .map(|r| format!("{}{}", r.prefix, s.id(r.entry).unwrap()))
            .collect()
    }

    #[test]
    fn branches_indent_and_chains_stay_flat() {
        let s = session(&[
            e("a", None, 1),
            e("b", Some("a"), 2),
            e("c", Some("b"), 3),
            e("d", Some("c"), 4),
            e("x", Some("b"), 5),
            e("y", Some("x"), 6),
        ]);
        assert_eq!(
            draw(&s),
            // pi indents the first generation after a branch once more, and draws the branch
            // holding the active leaf (y) first.
            ["a", "b", "├─ x", "│     y", "└─ c", "      d"]
        );
        let t = Tree::build(&s);
        assert_eq!(t.leaf, Some(5));
        let active: Vec<_> = (0..6).filter(|&i| t.active[i]).collect();
        assert_eq!(active, [0, 1, 4, 5]);
    }

    fn nested_branches() -> Session {
        session(&[
            e("a", None, 1),
            e("b", Some("a"), 2),
            e("c", Some("a"), 3),
            e("d", Some("b"), 4),
            e("e", Some("b"), 5),
            e("f", Some("d"), 6),
            e("g", Some("d"), 7),
            e("h", Some("g"), 8),
            e("j", Some("e"), 9),
            e("k", Some("f"), 10),
            e("i", Some("c"), 11),
        ])
    }

    #[test]
    fn gutters_of_nested_branches() {
        // The leaf (i) is under c, drawn first; b's branch comes last, so its gutter is blank
        // while d's, below it, is drawn.
        assert_eq!(
            draw(&nested_branches()),
            [
                "a",
                "├─ c",
                "│     i",
                "└─ b",
                "   ├─ d",
                "   │  ├─ f",
                "   │  │     k",
                "   │  └─ g",
                "   │        h",
                "   └─ e",
                "         j",
            ]
        );
    }

    #[test]
    fn active_end_is_the_last_active_row() {
        let s = nested_branches();
        let t = Tree::build(&s);
        // Hide the leaf (i), then its parent (c), then everything.
        for (hidden, end) in [
            (vec![], Some(10)),
            (vec![10], Some(2)),
            (vec![10, 2], Some(0)),
            ((0..11).collect(), None),
        ] {
            let shown: Vec<bool> = (0..11).map(|i| !hidden.contains(&i)).collect();
            let v = visible(&t, &shown);
            let rows: Vec<Row> = layout(&v).into_iter().collect();
            assert_eq!(rows.len(), layout(&v).len());
            let last = rows.iter().rev().find(|r| t.active[r.entry]);
            assert_eq!(last.map(|r| r.entry), end);
            assert_eq!(v.active_end(&t.active), end);
        }
    }

    #[test]
    fn children_sorted_by_timestamp_and_several_roots() {
        let s = session(&[
            e("r1", None, 1),
            e("late", Some("r1"), 9),
            e("early", Some("r1"), 2),
            e("orphan", Some("missing"), 3),
        ]);
        // Several roots hang off an invisible root: no connectors of their own. The root
        // holding the leaf (the orphan) comes first.
        assert_eq!(draw(&s), ["orphan", "r1", "├─ early", "└─ late"]);
        assert_eq!(Tree::build(&s).warnings.len(), 1);
    }

    #[test]
    fn cycles_become_roots_with_a_warning() {
        let s = session(&[
            e("a", Some("b"), 1),
            e("b", Some("a"), 2),
            e("self", Some("self"), 3),
        ]);
        let t = Tree::build(&s);
        assert_eq!(t.warnings.len(), 1);
        let order: Vec<_> = t.preorder();
        assert_eq!(order.len(), 3);
    }

    #[test]
    fn active_path_stops_at_a_cut_cycle() {
        // a and b point at each other; c (the leaf) hangs off b. The cycle is cut at a, so the
        // drawn tree is a → b → c and the walk must not continue from a into b again.
        let s = session(&[
            e("a", Some("b"), 1),
            e("b", Some("a"), 2),
            e("x", Some("a"), 3),
            e("c", Some("x"), 4),
        ]);
        let t = Tree::build(&s);
        assert_eq!(t.roots, [0]);
        let active: Vec<_> = (0..4).filter(|&i| t.active[i]).collect();
        assert_eq!(active, [0, 2, 3]);
    }

    #[test]
    fn hidden_entries_attach_to_nearest_shown_ancestor() {
        let s = session(&[
            e("a", None, 1),
            e("b", Some("a"), 2),
            e("c", Some("b"), 3),
            e("d", Some("b"), 4),
        ]);
        let t = Tree::build(&s);
        let v = visible(&t, &[true, false, true, true]);
        assert_eq!(v.roots, [0]);
        // d is the leaf: its branch is drawn first.
        assert_eq!(v.children.of(0), [3, 2]);
    }

    /// The gutters drawn as they are pushed give the prefix drawn level by level, for any
    /// depth of row, with or without a connector, as gutters come and go.
    #[test]
    fn drawn_gutters_draw_what_each_level_draws() {
        let mut next = pisess_format::skim::rng(0x6077);
        let (mut gutters, mut drawn) = (Vec::new(), Drawn::default());
        for _ in 0..5_000 {
            if next(3) == 0 {
                let keep = next(gutters.len() + 1);
                gutters.truncate(keep);
                drawn.truncate(keep);
            } else {
                let from = gutters.last().map_or(0, |g: &Gutter| g.position + 1);
                let gutter = Gutter {
                    position: from + next(4),
                    show: next(2) == 0,
                };
                gutters.push(gutter);
                drawn.push(gutter);
            }
            let top = gutters.last().map_or(0, |g| g.position + 1);
            let levels = next(top + 4);
            let connector = [None, Some("├─ "), Some("└─ ")][next(3)];
            let rows = Rows {
                v: &Visible {
                    roots: Vec::new(),
                    children: Lists::from_pairs(0, std::iter::empty()),
                },
                multiple_roots: false,
                stack: Vec::new(),
                gutters: gutters.clone(),
                drawn: None,
            };
            assert_eq!(
                drawn.prefix(levels, connector).to_string(),
                rows.prefix_level_by_level(levels, connector),
                "{gutters:?} {levels} {connector:?}"
            );
        }
    }

    /// issue 42: a session that retries at every turn (each entry has a retry and a
    /// continuation) draws rows of at most `MAX_LEVELS` levels: its output grows with the
    /// entries, not with their square. On 63e6fc9 the prefixes of 2,000 retries took 12 MB.
    #[test]
    fn deep_retries_draw_capped_prefixes() {
        let depth = 2_000;
        let mut lines = vec![e("n0", None, 0)];
        for k in 1..depth {
            let ts = u32::try_from(2 * k).unwrap();
            lines.push(e(&format!("r{k}"), Some(&format!("n{}", k - 1)), ts));
            lines.push(e(&format!("n{k}"), Some(&format!("n{}", k - 1)), ts + 1));
        }
        let s = session(&lines);
        let t = Tree::build(&s);
        let v = visible(&t, &vec![true; lines.len()]);
        let rows: Vec<Row> = layout(&v).into_iter().collect();
        assert_eq!(rows.len(), lines.len());
        let widest = rows.iter().map(|r| r.prefix.len()).max().unwrap();
        // `+N ` and at most MAX_LEVELS levels of at most 5 bytes (`│  `).
        assert!(widest <= 8 + MAX_LEVELS * 5, "{widest}");
        let total: usize = rows.iter().map(|r| r.prefix.len()).sum();
        assert!(total <= rows.len() * (8 + MAX_LEVELS * 5), "{total}");
        // The deepest rows say how many levels were left out, and draw MAX_LEVELS levels.
        let deepest = rows
            .iter()
            .map(|r| r.prefix.to_string())
            .filter(|p| p.starts_with('+'))
            .max_by_key(|p| p.split(' ').next().unwrap()[1..].parse::<usize>().unwrap())
            .unwrap();
        let (skipped, drawn) = deepest.split_once(' ').unwrap();
        let skipped: usize = skipped.strip_prefix('+').unwrap().parse().unwrap();
        assert!(skipped > depth - MAX_LEVELS - 10, "{deepest}");
        assert_eq!(drawn.chars().count(), MAX_LEVELS * 3, "{deepest:?}");
        // A row within the cap is drawn whole, as before.
        assert!(!rows[3].prefix.to_string().starts_with('+'));
    }

    #[test]
    fn deep_chain_does_not_recurse() {
        let mut lines = vec![e("n0", None, 0)];
        for k in 1..50_000 {
            lines.push(json!({"type":"custom","id":format!("n{k}"),"parentId":format!("n{}", k - 1),"customType":"x"}));
        }
        let s = session(&lines);
        let t = Tree::build(&s);
        assert_eq!(t.preorder().len(), 50_000);
        let v = visible(&t, &vec![true; 50_000]);
        assert_eq!(layout(&v).len(), 50_000);
    }
}
