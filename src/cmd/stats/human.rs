//! The human renderers of `stats`: a block for one session, a table for a report.

use std::io::{self, Write};

use jiff::tz::TimeZone;

use super::One;
use crate::app::env::Env;
use crate::format::time::local_time;
use crate::store::summary::Summary;
use crate::store::tally::{Row, Tally};
use crate::views::stats::{Bucket, By};
use crate::views::style::{self, Role, Theme};

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

fn usage_line(u: &crate::format::model::Usage) -> String {
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
pub(super) fn one(one: &One, env: &Env, tz: &TimeZone, out: &mut dyn Write) -> io::Result<()> {
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
    let started = s
        .created_ms
        .map_or_else(|| "-".to_owned(), |t| local_time(t, tz));
    let span = s
        .created_ms
        .map(|t| format!(" ({})", duration(s.modified_ms - t)))
        .unwrap_or_default();
    writeln!(
        out,
        "{}{started} → {}{span}",
        field("time"),
        local_time(s.modified_ms, tz)
    )?;
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
        theme.bold(&style::cost(s.usage.cost)),
        style::cost(active),
        style::cost(abandoned)
    )?;
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
                "  {}{}  {:>10}  {:>8}  {:>8}",
                safe(model),
                " ".repeat(w - style::width(model)),
                count(*turns, "turn", "turns"),
                style::tokens(u.total_tokens()),
                style::cost(u.cost)
            )?;
        }
    }
    tools(t, theme, out)?;
    let files = [
        ("read", &t.files.read),
        ("written", &t.files.written),
        ("edited", &t.files.edited),
    ];
    if files.iter().any(|(_, f)| !f.is_empty()) {
        writeln!(out, "{}", theme.bold("files"))?;
        for (what, set) in files.iter().filter(|(_, f)| !f.is_empty()) {
            let list: Vec<String> = set.iter().map(|p| safe(p)).collect();
            writeln!(out, "  {what:<8} {}", list.join(", "))?;
        }
    }
    Ok(())
}

fn tools(t: &Tally, theme: Theme, out: &mut dyn Write) -> io::Result<()> {
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
                let line = style::truncate(&style::one_line(cmd), 100).into_owned();
                writeln!(out, "    {} {}", theme.paint(Role::Error, "✗"), safe(&line))?;
            }
        }
    }
    Ok(())
}

/// A report: one line per bucket, then the total.
pub(super) fn buckets(
    by: By,
    rows: &[Bucket],
    total: &Bucket,
    theme: Theme,
    out: &mut dyn Write,
) -> io::Result<()> {
    let head: [&str; 7] = if by == By::Tool {
        [
            "tool", "sessions", "calls", "results", "errors", "tokens", "cost",
        ]
    } else {
        [
            by.as_str(),
            "sessions",
            "messages",
            "tool calls",
            "tool errors",
            "tokens",
            "cost",
        ]
    };
    let cells = |b: &Bucket, key: &str| -> [String; 7] {
        let c = &b.counts;
        let middle = if by == By::Tool {
            [c.tool_calls, c.tool_results]
        } else {
            [b.messages, c.tool_calls]
        };
        [
            safe(key),
            b.sessions.to_string(),
            middle[0].to_string(),
            middle[1].to_string(),
            c.tool_errors.to_string(),
            style::tokens(b.usage.total_tokens()),
            style::cost(b.usage.cost),
        ]
    };
    let mut table: Vec<[String; 7]> = rows.iter().map(|b| cells(b, &b.key)).collect();
    table.push(cells(total, "total"));
    let mut widths = head.map(style::width);
    for row in &table {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(style::width(cell));
        }
    }
    let line = |row: &[String]| -> String {
        let mut s = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            let pad = " ".repeat(w - style::width(cell));
            if i == 0 {
                s.push_str(&format!("{cell}{pad}"));
            } else {
                s.push_str(&format!("  {pad}{cell}"));
            }
        }
        s
    };
    let head: Vec<String> = head.iter().map(|h| (*h).to_owned()).collect();
    writeln!(out, "{}", theme.bold(&line(&head)))?;
    let last = table.len() - 1;
    for (i, row) in table.iter().enumerate() {
        if i == last {
            writeln!(out, "{}", theme.bold(&line(row)))?;
        } else {
            writeln!(out, "{}", line(row))?;
        }
    }
    Ok(())
}

/// One fact row in human form (`--by message` without `--json`).
pub(super) fn message_row(
    s: &Summary,
    t: &Tally,
    r: &Row,
    theme: Theme,
    tz: &TimeZone,
    out: &mut dyn Write,
) -> io::Result<()> {
    let time = r
        .ts_ms
        .map_or_else(|| "-".repeat(19), |ms| local_time(ms, tz));
    let what = match (&r.tool, r.calls.is_empty()) {
        (Some(tool), _) => tool.clone(),
        (None, false) => r.calls.join(","),
        _ => String::new(),
    };
    let u = r.usage.unwrap_or_default();
    let line = format!(
        "{time}  {}  {}  {:<16} {:<28} {:>8} {:>8}  {}{}",
        theme.paint(Role::Id, &safe(&style::short_id(&s.id))),
        if r.active { '*' } else { ' ' },
        safe(&r.role),
        safe(&t.model_name(r.model).unwrap_or_default()),
        style::tokens(u.total_tokens()),
        style::cost(u.cost),
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
