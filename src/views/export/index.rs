//! An archive's index (`export --all -o DIR`): one row per session page, as a sortable HTML
//! table (sorted newest first without JavaScript; the script sorts by any column) or a
//! Markdown table. Every link is a page's file name beside the index: nothing points out of
//! the folder.

use std::fmt::Write as _;

use super::transcript::{self, Transcript};
use super::Out;

/// What the index says of one session, every text as its page shows it (redacted with it).
#[derive(Debug)]
pub struct Row {
    /// The page's file name in the folder (`[A-Za-z0-9._-]` only).
    pub page: String,
    pub title: String,
    pub project: String,
    pub start_ms: Option<i64>,
    pub messages: usize,
    pub cost: f64,
    pub unpriced_tokens: f64,
    pub models: Vec<String>,
}

impl Row {
    pub fn of(t: &Transcript, page: String) -> Row {
        Row {
            page,
            title: t.title.clone(),
            project: t.cwd.clone(),
            start_ms: t.start_ms,
            messages: t.items.len(),
            cost: t.cost,
            unpriced_tokens: t.unpriced_tokens,
            models: t.models.clone(),
        }
    }

    fn date(&self) -> String {
        self.start_ms.map(transcript::utc_time).unwrap_or_default()
    }
}

const JS: &str = include_str!("assets/index.js");

/// The index page; `rows` newest first.
pub fn html(rows: &[Row], out: &mut Out<'_>) {
    let title = format!("Sessions ({})", rows.len());
    super::html::head(out, &title, JS);
    let _ = writeln!(
        out,
        "<header><h1>{title}</h1><p class=facts>All times UTC. Each title links to its page.</p></header>\n<main>\n<table id=index>\n<thead><tr><th aria-sort=descending>Date</th><th>Project</th><th>Title</th><th>Messages</th><th>Cost</th><th>Models</th></tr></thead>\n<tbody>"
    );
    for r in rows {
        let esc = super::html::esc;
        let _ = writeln!(
            out,
            "<tr><td data-v={}>{}</td><td>{}</td><td><a href=\"{}\">{}</a></td><td class=ar data-v={}>{}</td><td class=ar data-v={}>{}</td><td>{}</td></tr>",
            r.start_ms.unwrap_or(0),
            esc(&r.date()),
            super::html::name(&r.project),
            r.page,
            super::html::name(&r.title),
            r.messages,
            r.messages,
            r.cost,
            esc(&crate::views::style::money(r.cost, r.unpriced_tokens)),
            super::html::name(&r.models.join(", "))
        );
        out.spill();
    }
    let _ = write!(
        out,
        "</tbody>\n</table>\n</main>\n<footer>Exported by pisess {}.</footer>\n<script>{JS}</script>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
}

/// The index as a Markdown table; `rows` newest first.
pub fn md(rows: &[Row], out: &mut Out<'_>) {
    let inline = super::md::inline;
    let _ = writeln!(
        out,
        "# Sessions ({})\n\nAll times UTC.\n\n| Date | Project | Title | Messages | Cost | Models |\n|---|---|---|--:|--:|---|",
        rows.len()
    );
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | [{}]({}) | {} | {} | {} |",
            inline(&r.date()),
            inline(&r.project),
            inline(&r.title),
            r.page,
            r.messages,
            inline(&crate::views::style::money(r.cost, r.unpriced_tokens)),
            inline(&r.models.join(", "))
        );
        out.spill();
    }
}

/// A page's file name for a session: its start date and the first characters of its id,
/// kept to `[A-Za-z0-9_-]` (an id may be anything), made unique among `taken` (compared
/// without case, for a case-insensitive file system) by `-2`, `-3`…
pub fn page_name(
    t: &Transcript,
    ext: &str,
    taken: &mut std::collections::HashSet<String>,
) -> String {
    let date = t
        .start_ms
        .map(transcript::utc_time)
        .and_then(|d| d.get(..10).map(str::to_owned))
        .unwrap_or_else(|| "undated".to_owned());
    let id: String = t
        .session_id
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(8)
        .collect();
    let id = if id.is_empty() {
        "session".to_owned()
    } else {
        id
    };
    let stem = format!("{date}-{id}");
    let mut name = format!("{stem}.{ext}");
    let mut n = 1;
    while !taken.insert(name.to_ascii_lowercase()) {
        n += 1;
        name = format!("{stem}-{n}.{ext}");
    }
    name
}
