//! `diff --format md`: the comparison as GitHub Markdown, for a pull request's comment. The
//! figures are a table of numbers and fixed labels; everything from a session (file names,
//! ids, models, tool keys, paths) is written inside fenced blocks, whose fence is longer than
//! any run of backticks in them, so no session text can become Markdown or HTML.

use std::io::{self, Write};

use super::human::{self, figure_rows, legends, models, parted, shown_steps, sides};
use crate::cmd::diff::{Report, Touched};
use crate::views::diff::align::Op;
use crate::views::style;

pub(super) fn write(r: &Report, out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "### pisess diff\n")?;
    let mut head = vec![
        format!("A  {}", human::name(&r.a)),
        format!("B  {}", human::name(&r.b)),
    ];
    head.extend(parted(r));
    fenced(out, "", &head)?;
    writeln!(out, "| | A | B | change |\n|---|--:|--:|--:|")?;
    for [label, a, b, d] in figure_rows(r) {
        // Numbers, money and fixed labels only; GitHub reads `$…$` as math and `~…~` as
        // struck out, so those are escaped.
        let cell = |s: &str| s.replace('$', "\\$").replace('~', "\\~");
        writeln!(
            out,
            "| {label} | {} | {} | {} |",
            cell(&a),
            cell(&b),
            cell(&d)
        )?;
    }
    writeln!(out)?;
    let mut notes = vec![
        format!("models A: {}", models(&r.a)),
        format!("models B: {}", models(&r.b)),
    ];
    notes.extend(legends(r));
    fenced(out, "", &notes)?;
    if !r.steps.is_empty() {
        let differ = r.steps.iter().filter(|s| s.op != Op::Same).count();
        writeln!(
            out,
            "<details><summary>Tool calls aligned: {differ} differ</summary>\n"
        )?;
        let lines: Vec<String> = shown_steps(r)
            .into_iter()
            .map(|row| match row {
                Ok(i) => {
                    let s = r.steps[i];
                    let mark = match s.op {
                        Op::Same => ' ',
                        Op::OnlyA => '-',
                        Op::OnlyB => '+',
                    };
                    let key = (s.a.map(|k| r.a.branch.key(k)))
                        .or(s.b.map(|k| r.b.branch.key(k)))
                        .unwrap_or("");
                    format!("{mark} {key}{}", human::failure(r, i))
                }
                Err(n) => format!("@@ {n} calls alike @@"),
            })
            .collect();
        fenced(out, "diff", &lines)?;
        writeln!(out, "</details>\n")?;
    }
    let files = r.files();
    if !files.is_empty() {
        writeln!(
            out,
            "<details><summary>Files: {} both, {} A only, {} B only</summary>\n",
            files.iter().filter(|f| f.touched == Touched::Both).count(),
            files.iter().filter(|f| f.touched == Touched::OnlyA).count(),
            files.iter().filter(|f| f.touched == Touched::OnlyB).count()
        )?;
        let lines: Vec<String> = files
            .iter()
            .map(|f| {
                let mark = match f.touched {
                    Touched::Both => ' ',
                    Touched::OnlyA => '-',
                    Touched::OnlyB => '+',
                };
                format!("{mark} {}  ({})", f.path, sides(f.a, f.b))
            })
            .collect();
        fenced(out, "diff", &lines)?;
        writeln!(out, "</details>")?;
    }
    Ok(())
}

/// `lines` in a fenced code block of `info`, control characters made visible.
fn fenced(out: &mut dyn Write, info: &str, lines: &[String]) -> io::Result<()> {
    let lines: Vec<String> = (lines.iter())
        .map(|l| style::escape_control(l, false).into_owned())
        .collect();
    let mut longest = 0;
    for l in &lines {
        let mut run = 0;
        for c in l.chars() {
            run = if c == '`' { run + 1 } else { 0 };
            longest = longest.max(run);
        }
    }
    let fence = "`".repeat((longest + 1).max(3));
    writeln!(out, "{fence}{info}")?;
    for l in &lines {
        writeln!(out, "{l}")?;
    }
    writeln!(out, "{fence}\n")
}
