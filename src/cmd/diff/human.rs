//! `diff`'s human output: the two sides, where they part, the figures side by side with B's
//! change, tools as `git diff --stat` shows files, the aligned calls (long runs alike folded)
//! and the files. Every session text escaped; lines cut to the terminal's width.

use std::io::{self, Write};

use crate::cmd::diff::{Report, Side, Touched};
use crate::cmd::files::Counts;
use crate::views::diff::align::Op;
use crate::views::diff::parting::By;
use crate::views::export::transcript::duration;
use crate::views::prices;
use crate::views::style::{self, Role, Theme};

/// Calls alike kept at each end of a folded run.
const KEEP: usize = 2;

pub(super) fn write(r: &Report, theme: Theme, width: usize, out: &mut dyn Write) -> io::Result<()> {
    let w = width.max(40);
    for (mark, side) in [("A", &r.a), ("B", &r.b)] {
        let text = format!("{mark}  {}", name(side));
        writeln!(out, "{}", theme.bold(&style::truncate_middle(&text, w)))?;
    }
    for line in parted(r) {
        writeln!(out, "{}", style::truncate(&line, w))?;
    }
    writeln!(out)?;
    figures(r, theme, w, out)?;
    tools(r, theme, w, out)?;
    calls(r, theme, w, out)?;
    files(r, theme, w, out)
}

/// `FILE@LEAF`: the session's file name (or `-`) and its leaf's short id, escaped.
pub(super) fn name(s: &Side) -> String {
    let file = std::path::Path::new(&s.session.name)
        .file_name()
        .map_or_else(
            || s.session.name.clone(),
            |f| f.to_string_lossy().into_owned(),
        );
    let leaf = (s.leaf().and_then(|i| s.session.id(i))).map_or("(no entries)".to_owned(), short);
    format!("{}@{leaf}", style::escape_control(&file, false))
}

fn short(id: &str) -> String {
    style::escape_control(&style::short_id(id), false).into_owned()
}

/// An entry as `ID (line N)`.
fn entry(s: &Side, i: usize) -> String {
    let id = s.session.id(i).map_or("(no id)".to_owned(), short);
    format!("{id} (line {})", s.session.line(i))
}

/// Where the sides part: the last common entry, then the first of each side after it.
pub(super) fn parted(r: &Report) -> Vec<String> {
    let next = |s: &Side, i: Option<usize>| match i {
        Some(i) => entry(s, i),
        None => "(ends there)".to_owned(),
    };
    let (na, nb) = (next(&r.a, r.parting.next.0), next(&r.b, r.parting.next.1));
    let Some((x, y)) = r.parting.common else {
        return vec![
            "no common entry (by id, nor by what the model was sent)".to_owned(),
            format!("  first  A {na}"),
            format!("         B {nb}"),
        ];
    };
    let common = if std::ptr::eq(r.a.session, r.b.session) {
        entry(&r.a, x)
    } else {
        format!("A {}, B {}", entry(&r.a, x), entry(&r.b, y))
    };
    let by = match r.parting.by {
        By::Id => "",
        By::Context => " (the same messages sent)",
    };
    vec![
        format!("parted after {common}{by}"),
        format!("  then  A {na}"),
        format!("        B {nb}"),
    ]
}

/// The rows of the figures' table: label, A, B, B's change.
pub(super) fn figure_rows(r: &Report) -> Vec<[String; 4]> {
    let (a, b, d) = (&r.a.figures, &r.b.figures, &r.delta);
    let mut rows = vec![[
        "cost".to_owned(),
        a.money(),
        b.money(),
        d.cost.map_or("?".to_owned(), signed_cost),
    ]];
    if let (Some(ea), Some(eb)) = (&a.estimated, &b.estimated) {
        rows.push([
            "estimated".to_owned(),
            prices::shown(ea),
            prices::shown(eb),
            (d.estimated_cost).map_or("?".to_owned(), |c| format!("~{}", signed_cost(c))),
        ]);
    }
    let tokens = |label: &str, x: f64, y: f64, dx: f64| {
        let shown = [style::tokens(x), style::tokens(y), signed_tokens(dx)];
        let [x, y, dx] = shown;
        [label.to_owned(), x, y, dx]
    };
    rows.push(tokens("input", a.input, b.input, d.input));
    rows.push(tokens("output", a.output, b.output, d.output));
    rows.push(tokens(
        "cache read",
        a.cache_read,
        b.cache_read,
        d.cache_read,
    ));
    rows.push(tokens(
        "cache write",
        a.cache_write,
        b.cache_write,
        d.cache_write,
    ));
    let count = |label: &str, x: u64, y: u64, dx: i64| {
        [label.to_owned(), x.to_string(), y.to_string(), signed(dx)]
    };
    rows.push(count(
        "turns",
        a.assistant_messages,
        b.assistant_messages,
        d.assistant_messages,
    ));
    let time = |ms: Option<i64>| ms.map_or("-".to_owned(), duration);
    rows.push([
        "duration".to_owned(),
        time(a.active_ms),
        time(b.active_ms),
        d.active_ms.map_or("-".to_owned(), |ms| match ms {
            0 => "0".to_owned(),
            ms => format!("{}{}", if ms < 0 { "-" } else { "+" }, duration(ms.abs())),
        }),
    ]);
    rows.push(count(
        "tool calls",
        a.tool_calls,
        b.tool_calls,
        d.tool_calls,
    ));
    rows.push(count(
        "tool errors",
        a.tool_errors,
        b.tool_errors,
        d.tool_errors,
    ));
    rows.push(count(
        "compactions",
        a.compactions,
        b.compactions,
        d.compactions,
    ));
    rows
}

/// The models each side used, escaped; `-` for none.
pub(super) fn models(s: &Side) -> String {
    let models: Vec<_> = (s.figures.models.iter())
        .map(|m| style::escape_control(m, false))
        .collect();
    if models.is_empty() {
        "-".to_owned()
    } else {
        models.join(", ")
    }
}

/// The notes under the figures: where estimates come from, what `+` and `?` mean.
pub(super) fn legends(r: &Report) -> Vec<String> {
    let mut notes = Vec::new();
    if let (Some(p), Some(ea), Some(eb)) =
        (&r.pricer, &r.a.figures.estimated, &r.b.figures.estimated)
    {
        let mut both = *ea;
        both.cost += eb.cost;
        both.priced += eb.priced;
        both.unpriced += eb.unpriced;
        both.unpriced_tokens += eb.unpriced_tokens;
        notes.push(prices::legend(p, &both));
    }
    if r.delta.cost.is_none() {
        notes.push(format!(
            "{} at least (usage pi could not price, or a cost below 0); ? cannot be told",
            style::UNPRICED
        ));
    }
    notes
}

fn figures(r: &Report, theme: Theme, w: usize, out: &mut dyn Write) -> io::Result<()> {
    let head = format!("{:<12}{:>14}{:>14}{:>14}", "", "A", "B", "change");
    writeln!(out, "{}", theme.bold(&head))?;
    for [label, a, b, d] in figure_rows(r) {
        let d = format!("{d:>14}");
        let d = if d.trim() == "0" { theme.dim(&d) } else { d };
        writeln!(out, "{label:<12}{a:>14}{b:>14}{d}")?;
    }
    let a = format!("{:<12}A: {}", "models", models(&r.a));
    let b = format!("{:<12}B: {}", "", models(&r.b));
    for line in [a, b] {
        writeln!(out, "{}", style::truncate(&line, w))?;
    }
    for note in legends(r) {
        writeln!(out, "{}", theme.dim(&style::truncate(&note, w)))?;
    }
    writeln!(out)
}

/// Tools as `git diff --stat` shows files: calls in A → in B, and a bar of the change.
fn tools(r: &Report, theme: Theme, w: usize, out: &mut dyn Write) -> io::Result<()> {
    if r.tools.is_empty() {
        return Ok(());
    }
    writeln!(out, "{}", theme.bold("tool calls (A -> B)"))?;
    let names: Vec<String> = (r.tools.iter())
        .map(|t| style::truncate(&style::escape_control(&t.tool, false), 24).into_owned())
        .collect();
    let name_w = names.iter().map(|n| style::width(n)).max().unwrap_or(0);
    let room = w.saturating_sub(name_w + 18).clamp(1, 20);
    let most = (r.tools.iter())
        .map(|t| t.a.calls.abs_diff(t.b.calls))
        .max()
        .unwrap_or(0)
        .max(1);
    for (t, name) in r.tools.iter().zip(&names) {
        let change = t.a.calls.abs_diff(t.b.calls);
        // At least one mark for any change, as git's --stat.
        let len = usize::try_from((change.saturating_mul(room as u64)).div_ceil(most))
            .unwrap_or(room)
            .min(room);
        let bar = if t.b.calls > t.a.calls {
            theme.green(&"+".repeat(len))
        } else {
            theme.red(&"-".repeat(len))
        };
        let pad = name_w - style::width(name);
        let row = format!(
            " {name}{:pad$} | {:>5} -> {:<5} {bar}",
            "", t.a.calls, t.b.calls
        );
        writeln!(out, "{}", row.trim_end())?;
        if t.a.errors + t.b.errors > 0 {
            let errors = format!("{:name_w$}   failed {} -> {}", "", t.a.errors, t.b.errors);
            writeln!(out, "{}", theme.dim(&errors))?;
        }
    }
    writeln!(out)
}

/// One row of the aligned calls: its mark, the key and whether it failed.
fn call_line(r: &Report, i: usize, w: usize) -> (Role, String, &'static str) {
    let s = r.steps[i];
    let (mark, role) = match s.op {
        Op::Same => (' ', Role::Plain),
        Op::OnlyA => ('-', Role::Error),
        Op::OnlyB => ('+', Role::Assistant),
    };
    let key = (s.a.map(|k| r.a.branch.key(k)))
        .or(s.b.map(|k| r.b.branch.key(k)))
        .unwrap_or("");
    let failed = failure(r, i);
    let shown = style::escape_control(key, false);
    let room = w.saturating_sub(2 + failed.len()).max(8);
    (
        role,
        format!("{mark} {}", style::truncate(&shown, room)),
        failed,
    )
}

/// Whether row `i`'s call failed: ` (failed)`, or on which side when both made it.
pub(super) fn failure(r: &Report, i: usize) -> &'static str {
    let s = r.steps[i];
    let ca = s.a.is_some_and(|k| r.a.branch.calls[k].failed);
    let cb = s.b.is_some_and(|k| r.b.branch.calls[k].failed);
    match (ca, cb, s.op) {
        (true, true, _) | (true, _, Op::OnlyA) | (_, true, Op::OnlyB) => " (failed)",
        (true, false, _) => " (failed in A)",
        (false, true, _) => " (failed in B)",
        (false, false, _) => "",
    }
}

/// The rows the aligned calls show: every call that differs, and of each run alike the
/// [`KEEP`] calls next to a difference (`None`: how many are left out there).
pub(super) fn shown_steps(r: &Report) -> Vec<Result<usize, usize>> {
    let n = r.steps.len();
    let mut rows = Vec::new();
    let mut i = 0;
    while i < n {
        if r.steps[i].op != Op::Same {
            rows.push(Ok(i));
            i += 1;
            continue;
        }
        let end = (i..n).find(|&k| r.steps[k].op != Op::Same).unwrap_or(n);
        let head = if i == 0 { 0 } else { KEEP };
        let tail = if end == n { 0 } else { KEEP };
        if end - i > head + tail + 1 {
            rows.extend((i..i + head).map(Ok));
            rows.push(Err(end - i - head - tail));
            rows.extend((end - tail..end).map(Ok));
        } else {
            rows.extend((i..end).map(Ok));
        }
        i = end;
    }
    rows
}

/// The aligned calls: ` ` both, `-` A only, `+` B only; runs alike folded.
fn calls(r: &Report, theme: Theme, w: usize, out: &mut dyn Write) -> io::Result<()> {
    if r.steps.is_empty() {
        return Ok(());
    }
    let differ = r.steps.iter().filter(|s| s.op != Op::Same).count();
    let head = format!("calls aligned ({differ} differ; - A only, + B only)");
    writeln!(out, "{}", theme.bold(&head))?;
    for row in shown_steps(r) {
        match row {
            Ok(i) => {
                let (role, text, failed) = call_line(r, i, w);
                writeln!(out, "{}{}", theme.paint(role, &text), theme.dim(failed))?;
            }
            Err(n) => writeln!(out, "{}", theme.dim(&format!("  ... {n} calls alike")))?,
        }
    }
    writeln!(out)
}

/// `2 reads, 1 edit, 1 failed`.
pub(super) fn counts(c: &Counts) -> String {
    let mut parts = Vec::new();
    for (n, one, many) in [
        (c.reads, "read", "reads"),
        (c.writes, "write", "writes"),
        (c.edits, "edit", "edits"),
        (c.errors, "failed", "failed"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    }
    parts.join(", ")
}

/// What each side did to a file: `A: 2 reads; B: 1 read, 1 edit`.
pub(super) fn sides(a: Option<&Counts>, b: Option<&Counts>) -> String {
    [("A", a), ("B", b)]
        .iter()
        .filter_map(|(m, c)| c.map(|c| format!("{m}: {}", counts(c))))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The files: `=` both, `-` A only, `+` B only, each with what each side did.
fn files(r: &Report, theme: Theme, w: usize, out: &mut dyn Write) -> io::Result<()> {
    let rows = r.files();
    if rows.is_empty() {
        return Ok(());
    }
    let count = |t: Touched| rows.iter().filter(|f| f.touched == t).count();
    let head = format!(
        "files ({} both, {} A only, {} B only)",
        count(Touched::Both),
        count(Touched::OnlyA),
        count(Touched::OnlyB)
    );
    writeln!(out, "{}", theme.bold(&head))?;
    for f in rows {
        let (mark, role) = match f.touched {
            Touched::Both => ("=", Role::Plain),
            Touched::OnlyA => ("-", Role::Error),
            Touched::OnlyB => ("+", Role::Assistant),
        };
        let what = sides(f.a, f.b);
        let path = style::escape_control(f.path, false);
        // The path cut from the left (its file's name kept), what was done kept whole.
        let room = w.saturating_sub(style::width(&what) + 4).max(12);
        let path = style::truncate_left(&path, room);
        writeln!(
            out,
            "{} {path}  {}",
            theme.paint(role, mark),
            theme.dim(&what)
        )?;
    }
    Ok(())
}

fn signed(d: i64) -> String {
    if d == 0 {
        "0".to_owned()
    } else {
        format!("{d:+}")
    }
}

/// A change with its sign; `0` for none.
fn signed_with(d: f64, shown: impl Fn(f64) -> String) -> String {
    if d == 0.0 {
        "0".to_owned()
    } else if d.is_nan() {
        "NaN".to_owned()
    } else {
        format!("{}{}", if d < 0.0 { "-" } else { "+" }, shown(d.abs()))
    }
}

fn signed_tokens(d: f64) -> String {
    signed_with(d, style::tokens)
}

fn signed_cost(d: f64) -> String {
    signed_with(d, style::cost)
}
