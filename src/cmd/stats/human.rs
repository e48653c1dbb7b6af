//! The human renderers of `stats`: a block for one session, a table for a report.

use std::io::{self, Write};

use jiff::tz::TimeZone;

use crate::app::env::Env;
use crate::views::paths;
use crate::views::prices::{self, Estimate, Pricer};
use crate::views::stats::{Bucket, By, One};
use crate::views::style::{self, Role};
use pisess_format::time::local_time;
use pisess_store::summary::Summary;
use pisess_store::tally::{Row, Tally};

/// Text from the file, made safe for a terminal.
fn safe(s: &str) -> String {
    style::escape_control(s, false).into_owned()
}

/// `1 call`, `2 calls`.
fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn duration(ms: i64) -> String {
    let secs = ms.max(0) / 1000;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 {
        format!("{h}h {m:02}m")
    } else if m > 0 {
        format!("{m}m {s:02}s")
    } else {
        format!("{s}s")
    }
}

fn usage_line(u: &pisess_format::model::Usage) -> String {
    format!(
        "{} (input {}, output {}, cache read {}, cache write {})",
        style::tokens(u.total_tokens()),
        style::tokens(u.input),
        style::tokens(u.output),
        style::tokens(u.cache_read),
        style::tokens(u.cache_write)
    )
}

/// The summary block of one session.
pub(super) fn one(
    one: &One,
    pricer: Option<&Pricer>,
    env: &Env,
    tz: &TimeZone,
    out: &mut dyn Write,
) -> io::Result<()> {
    let theme = env.theme();
    let s = &one.summary;
    let t = one.tally();
    let c = &s.counts;
    let field = |name: &str| theme.bold(&format!("{name:<13}"));
    writeln!(
        out,
        "{}{}{}",
        field("session"),
        theme.paint(Role::Id, &safe(&s.id)),
        s.name
            .as_deref()
            .map(|n| format!("  {}", safe(n)))
            .unwrap_or_default()
    )?;
    writeln!(out, "{}{}", field("cwd"), safe(&s.cwd))?;
    writeln!(out, "{}{}", field("path"), safe(&s.path.to_string_lossy()))?;
    // The span's own ends, so the two times and the duration between them agree.
    let time = match s.span_ms {
        Some((first, last)) => format!(
            "{} → {} ({})",
            local_time(first, tz),
            local_time(last, tz),
            duration(last - first)
        ),
        None => format!("- → {}", local_time(s.modified_ms, tz)),
    };
    writeln!(out, "{}{time}", field("time"))?;
    writeln!(
        out,
        "{}{} (user {}, assistant {}, tool results {}); tool calls {}, errors {}",
        field("messages"),
        s.message_count,
        c.user_messages,
        c.assistant_messages,
        c.tool_results,
        c.tool_calls,
        c.tool_errors
    )?;
    writeln!(out, "{}{}", field("tokens"), usage_line(&s.usage))?;
    let (active, abandoned) = t.cost_split();
    writeln!(
        out,
        "{}{} (active branch {}, abandoned branches {})",
        field("cost"),
        theme.bold(&style::cost_of(&s.usage)),
        style::cost(active),
        style::cost(abandoned)
    )?;
    if style::has_unpriced(s.usage.unpriced) {
        writeln!(
            out,
            "{}{}",
            field(""),
            style::unpriced_note(s.usage.unpriced)
        )?;
    }
    if s.usage.negative_cost {
        writeln!(out, "{}{}", field(""), style::negative_legend())?;
    }
    if let Some(f) = &one.family {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let forks = if f.forks > 0 {
            format!(" and {} fork{}", f.forks, plural(f.forks))
        } else {
            String::new()
        };
        writeln!(
            out,
            "{}{} with {} subagent run{}{forks}, each token once: {}",
            field("family"),
            theme.bold(&style::cost_of(&f.usage)),
            f.subagent_runs,
            plural(f.subagent_runs),
            usage_line(&f.usage)
        )?;
    }
    // Beside pi's cost, never added into it.
    if let Some(p) = pricer {
        let e = prices::total(p, t);
        writeln!(
            out,
            "{}{} ({})",
            field("estimated"),
            theme.bold(&prices::shown(&e)),
            prices::legend(p, &e)
        )?;
    }
    writeln!(
        out,
        "{}~{} tokens in {} (estimated as pi does: characters / 4)",
        field("next request"),
        style::tokens(one.next_tokens as f64),
        count(one.next_messages as u64, "message", "messages")
    )?;
    writeln!(
        out,
        "{}error {}, aborted {}, length {}; last {}{}",
        field("stop reasons"),
        t.stops.error,
        t.stops.aborted,
        t.stops.length,
        t.stops.last.as_deref().map_or_else(|| "-".to_owned(), safe),
        t.stops
            .last_error
            .as_deref()
            .map(|e| format!(": {}", safe(e)))
            .unwrap_or_default()
    )?;
    if !t.stops.error_messages.is_empty() {
        let errors: Vec<String> = t
            .stops
            .error_messages
            .iter()
            .map(|(text, n)| format!("{n}× {}", style::truncate(&safe(text), 200)))
            .collect();
        writeln!(out, "{}{}", field("errors"), errors.join("; "))?;
    }
    writeln!(
        out,
        "{}{} ({} tokens before), {}, {}",
        field("tree"),
        count(t.compactions, "compaction", "compactions"),
        style::tokens(t.tokens_before),
        count(s.branches as u64, "branch", "branches"),
        count(t.branch_summaries, "branch summary", "branch summaries")
    )?;
    let models = t.per_model();
    let estimates = pricer.map(|p| prices::per_model(p, t));
    if !models.is_empty() {
        writeln!(out, "{}", theme.bold("models"))?;
        let w = models
            .iter()
            .map(|(m, ..)| style::width(m))
            .max()
            .unwrap_or(0);
        for (model, turns, u) in &models {
            writeln!(
                out,
                "  {}{}  {:>10}  {:>8}  {:>8}{}",
                safe(model),
                " ".repeat(w - style::width(model)),
                count(*turns, "turn", "turns"),
                style::tokens(u.total_tokens()),
                style::cost_of(u),
                estimates.as_ref().map_or_else(String::new, |m| format!(
                    "  {:>8}",
                    prices::shown(&m.get(model).copied().unwrap_or_default())
                ))
            )?;
        }
    }
    tools(t, env, out)?;
    // One file under each spelling (`src/x`, `./src/x`, `/cwd/src/x`), as the session's cwd says.
    let one_spelling =
        |set: &std::collections::BTreeSet<String>| -> std::collections::BTreeSet<String> {
            set.iter().map(|p| paths::normal(p, &s.cwd)).collect()
        };
    let (read, written, edited) = (
        one_spelling(&t.files.read),
        one_spelling(&t.files.written),
        one_spelling(&t.files.edited),
    );
    let files = [("read", &read), ("written", &written), ("edited", &edited)];
    if files.iter().any(|(_, f)| !f.is_empty()) {
        writeln!(out, "{}", theme.bold("files"))?;
        // One path after another, wrapped at the terminal's width (100 when piped), each
        // line after the first under the first path.
        let width = env.columns.unwrap_or(100);
        for (what, set) in files.iter().filter(|(_, f)| !f.is_empty()) {
            let lead = format!("  {what:<8} ");
            let indent = " ".repeat(lead.len());
            let mut line = lead.clone();
            let mut empty = true;
            for (i, p) in set.iter().enumerate() {
                let item = safe(p) + if i + 1 < set.len() { "," } else { "" };
                if !empty && style::width(&line) + 1 + style::width(&item) > width {
                    writeln!(out, "{line}")?;
                    line.clone_from(&indent);
                    empty = true;
                }
                if !empty {
                    line.push(' ');
                }
                line.push_str(&item);
                empty = false;
            }
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

fn tools(t: &Tally, env: &Env, out: &mut dyn Write) -> io::Result<()> {
    let theme = env.theme();
    if t.tools.is_empty() {
        return Ok(());
    }
    writeln!(out, "{}", theme.bold("tools"))?;
    let w = t.tools.keys().map(|k| style::width(k)).max().unwrap_or(0);
    for (name, c) in &t.tools {
        let shown = if name.is_empty() { "(unnamed)" } else { name };
        let errors = if c.errors > 0 {
            format!(
                "  {}",
                theme.paint(Role::Error, &count(c.errors, "error", "errors"))
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "  {}{}  {:>10}{errors}",
            safe(shown),
            " ".repeat(w.saturating_sub(style::width(shown))),
            count(c.calls, "call", "calls")
        )?;
        if name == "bash" {
            for cmd in &t.failed_commands {
                // Cut to the terminal (`    ✗ ` before it), 100 columns when piped.
                let room = env.columns.map_or(100, |w| w.saturating_sub(6).max(20));
                let line = style::truncate(&style::one_line(cmd), room).into_owned();
                writeln!(out, "    {} {}", theme.paint(Role::Error, "✗"), safe(&line))?;
            }
        }
    }
    Ok(())
}

/// One column of a report table.
struct Col {
    head: &'static str,
    cells: Vec<String>,
    right: bool,
    /// The least it is cut to before columns are dropped (0: never cut).
    min: usize,
    /// How a cell is cut: from the right, unless a key says more at its ends.
    cut: fn(&str, usize) -> std::borrow::Cow<'_, str>,
}

impl Col {
    fn natural(&self) -> usize {
        self.cells
            .iter()
            .map(|c| style::width(c))
            .chain([style::width(self.head)])
            .max()
            .unwrap_or(0)
    }
}

/// A report: one line per bucket, then the total. On a terminal of known width the table fits
/// it, as `ls` does: the key (and a session's title) are cut first, then the columns that say
/// least are dropped (tool calls, messages, sessions, tool errors, tokens). `--by session`
/// shows each session's short id and title, and no sessions column (always 1). With two keys
/// (`--by day,model`) each has its column, the first written once for the rows under it.
pub(super) fn buckets(
    by: By,
    then: Option<By>,
    rows: &[Bucket],
    total: &Bucket,
    pricer: Option<&Pricer>,
    env: &Env,
    out: &mut dyn Write,
) -> io::Result<()> {
    let theme = env.theme();
    let all: Vec<&Bucket> = rows.iter().chain([total]).collect();
    // A copy of a session (`<id>-backup.jsonl`) does not lengthen its id, as in `ls`.
    let ids = (by == By::Session || then == Some(By::Session)).then(|| {
        let i = usize::from(by != By::Session);
        let keys = rows
            .iter()
            .filter_map(|b| b.keys.get(i))
            .map(String::as_str);
        crate::cmd::ls::short_ids_of(keys, env)
    });
    let short_id = |id: &str| {
        ids.as_ref()
            .map_or_else(|| env.short_id(id), |s| s.short(id))
    };
    let last = all.len() - 1;
    let col = |head, right, min, f: &dyn Fn(&Bucket) -> String| Col {
        head,
        cells: all.iter().map(|b| f(b)).collect(),
        right,
        min,
        cut: style::truncate,
    };
    let key_col = |i: usize, by: By| {
        let key = |n: usize, b: &Bucket| {
            let k = b.keys.get(i).map_or(b.key.as_str(), String::as_str);
            let same = n > 0 && all[n - 1].keys.first() == b.keys.first();
            if std::ptr::eq(b, total) {
                if i == 0 { "total" } else { "" }.to_owned()
            } else if then.is_some() && i == 0 && same {
                // The first key once for the rows under it, as ccusage's breakdown.
                String::new()
            } else if by == By::Session {
                short_id(k)
            } else {
                safe(k)
            }
        };
        let mut c = Col {
            head: if by == By::Session { "id" } else { by.as_str() },
            cells: all.iter().enumerate().map(|(n, b)| key(n, b)).collect(),
            right: false,
            min: 0,
            cut: style::truncate,
        };
        if by != By::Session {
            // The key is what a row is about: number columns go before it is cut, down to a
            // width that still tells keys apart; a project keeps its last names
            // (`…/webshop`, as `ls` cuts it), a model its provider and its version
            // (`deepseek/…-chat-v3`).
            c.min = c.natural().clamp(12, 32);
            c.cut = match by {
                By::Project => style::truncate_left,
                By::Model => style::truncate_middle,
                _ => style::truncate,
            };
        }
        c
    };
    let mut cols: Vec<Col> = std::iter::once(by)
        .chain(then)
        .enumerate()
        .map(|(i, b)| key_col(i, b))
        .collect();
    let by_session = by == By::Session && then.is_none();
    if !by_session {
        cols.push(col("sessions", true, 0, &|b| b.sessions.to_string()));
    }
    if by == By::Tool {
        cols.push(col("calls", true, 0, &|b| b.counts.tool_calls.to_string()));
        cols.push(col("results", true, 0, &|b| {
            b.counts.tool_results.to_string()
        }));
        cols.push(col("errors", true, 0, &|b| {
            b.counts.tool_errors.to_string()
        }));
    } else {
        cols.push(col("messages", true, 0, &|b| b.messages.to_string()));
        cols.push(col("tool calls", true, 0, &|b| {
            b.counts.tool_calls.to_string()
        }));
        cols.push(col("tool errors", true, 0, &|b| {
            b.counts.tool_errors.to_string()
        }));
    }
    // pi records usage per message, not per tool call: a tool's columns of tokens and cost are
    // shown only when some tool result carries usage of its own (a subagent's run).
    let usage_known = by != By::Tool
        || rows
            .iter()
            .any(|b| b.usage.total_tokens() != 0.0 || b.usage.cost != 0.0);
    if usage_known {
        cols.push(col("tokens", true, 0, &|b| {
            style::tokens(b.usage.total_tokens())
        }));
        cols.push(col("cost", true, 0, &|b| style::cost_of(&b.usage)));
    }
    if pricer.is_some() && usage_known {
        cols.push(col("estimated", true, 0, &|b| prices::shown(&b.estimated)));
    }
    if by_session {
        cols.push(col("title", false, 10, &|b| {
            if std::ptr::eq(b, total) {
                String::new()
            } else if b.files.len() > 1 {
                // Marked first: a cut title still says it.
                let n = b.files.len() - 1;
                let copies = if n == 1 { "copy" } else { "copies" };
                format!("(+{n} {copies}) {}", style::one_line(&b.title))
            } else {
                style::one_line(&b.title)
            }
        }));
    }
    let mut widths: Vec<usize> = cols.iter().map(Col::natural).collect();
    if let Some(width) = env.width {
        let used = |w: &[usize]| w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
        // The cut columns (the key, a title) counted at their least, the columns that say
        // least are dropped until the rest fits ...
        let least = |cols: &[Col], widths: &[usize]| -> Vec<usize> {
            cols.iter()
                .zip(widths)
                .map(|(c, &w)| if c.min > 0 { w.min(c.min) } else { w })
                .collect()
        };
        let drop_order = [
            "tool calls",
            "results",
            "messages",
            "calls",
            "sessions",
            "tool errors",
            "errors",
            "tokens",
        ];
        let mut keep = vec![true; cols.len()];
        let fits = |keep: &[bool], widths: &[usize]| {
            let kept = |v: &[usize]| -> Vec<usize> {
                v.iter()
                    .zip(keep)
                    .filter(|(_, k)| **k)
                    .map(|(w, _)| *w)
                    .collect()
            };
            let kept_cols: Vec<&Col> = cols
                .iter()
                .zip(keep)
                .filter(|(_, k)| **k)
                .map(|(c, _)| c)
                .collect();
            let least: Vec<usize> = kept_cols
                .iter()
                .zip(kept(widths))
                .map(|(c, w)| if c.min > 0 { w.min(c.min) } else { w })
                .collect();
            used(&least) <= width
        };
        let mut dropped = Vec::new();
        for head in drop_order {
            if fits(&keep, &widths) {
                break;
            }
            if let Some(i) = cols.iter().position(|c| c.head == head) {
                keep[i] = false;
                dropped.push(i);
            }
        }
        // A column dropped on the way may fit again once a wider one has gone.
        for &i in dropped.iter().rev() {
            keep[i] = true;
            if !fits(&keep, &widths) {
                keep[i] = false;
            }
        }
        let mut k = keep.iter();
        cols.retain(|_| *k.next().unwrap());
        let mut k = keep.iter();
        widths.retain(|_| *k.next().unwrap());
        // ... and the cut columns then share what is left, the last (a title) first.
        let natural = widths.clone();
        widths = least(&cols, &widths);
        for i in (0..cols.len()).rev().filter(|&i| cols[i].min > 0) {
            let spare = width.saturating_sub(used(&widths));
            widths[i] = natural[i].min(widths[i] + spare);
        }
    }
    let line = |cells: &[&str]| -> String {
        let mut s = String::new();
        for (i, ((cell, w), c)) in cells.iter().zip(&widths).zip(&cols).enumerate() {
            let cell = (c.cut)(cell, *w);
            let pad = " ".repeat(w.saturating_sub(style::width(&cell)));
            if i > 0 {
                s.push_str("  ");
            }
            if c.right {
                s.push_str(&format!("{pad}{cell}"));
            } else {
                s.push_str(&format!("{cell}{pad}"));
            }
        }
        s.trim_end().to_owned()
    };
    let head: Vec<&str> = cols.iter().map(|c| c.head).collect();
    writeln!(out, "{}", theme.bold(&line(&head)))?;
    for i in 0..all.len() {
        let row: Vec<&str> = cols.iter().map(|c| c.cells[i].as_str()).collect();
        if i == last {
            writeln!(out, "{}", theme.bold(&line(&row)))?;
        } else {
            writeln!(out, "{}", line(&row))?;
        }
    }
    if style::has_unpriced(total.usage.unpriced) {
        writeln!(
            out,
            "{}",
            theme.dim(&style::unpriced_note(total.usage.unpriced))
        )?;
    }
    // A session in several files: which file was counted, and its copies.
    for b in rows.iter().filter(|b| b.files.len() > 1) {
        let note = format!(
            "{} is in {} files, counted once: {}; copy of it, not counted: {}",
            short_id(&b.key),
            b.files.len(),
            b.files[0],
            b.files[1..].join(", ")
        );
        writeln!(out, "{}", theme.dim(&safe(&note)))?;
    }
    if total.usage.negative_cost {
        writeln!(out, "{}", theme.dim(&style::negative_legend()))?;
    }
    if let Some(p) = pricer {
        writeln!(out, "{}", theme.dim(&prices::legend(p, &total.estimated)))?;
    }
    Ok(())
}

/// One fact row in human form (`--by message` without `--json`).
pub(super) fn message_row(
    s: &Summary,
    t: &Tally,
    r: &Row,
    estimate: Option<&Option<Estimate>>,
    env: &Env,
    tz: &TimeZone,
    out: &mut dyn Write,
) -> io::Result<()> {
    let theme = env.theme();
    let time = r
        .ts_ms
        .map_or_else(|| "-".repeat(19), |ms| local_time(ms, tz));
    let what = match (&r.tool, r.calls.is_empty()) {
        (Some(tool), _) => tool.to_string(),
        (None, false) => r.calls.join(","),
        _ => String::new(),
    };
    let u = r.usage.unwrap_or_default();
    let line = format!(
        "{time}  {}  {}  {:<16} {:<28} {:>8} {:>8}{}  {}{}",
        theme.paint(Role::Id, &env.short_id(&s.id)),
        if r.active { '*' } else { ' ' },
        safe(&r.role),
        safe(&t.model_name(r.model).unwrap_or_default()),
        style::tokens(u.total_tokens()),
        style::cost(u.cost),
        // With --prices: the estimate of usage pi recorded at $0, or that it has none.
        estimate.map_or_else(String::new, |e| format!(
            " {:>9}",
            match e {
                None => "-".to_owned(),
                Some((_, Ok((c, _)))) => format!("~{}", style::cost(c.total)),
                Some((_, Err(_))) => "unpriced".to_owned(),
            }
        )),
        safe(&what),
        if r.is_error == Some(true) {
            theme.paint(Role::Error, " error")
        } else {
            String::new()
        }
    );
    // No trailing blanks when a row has no tool.
    writeln!(out, "{}", line.trim_end())
}
