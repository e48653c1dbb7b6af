//! `check`'s reports for CI systems: Markdown for `$GITHUB_STEP_SUMMARY` and JUnit XML (one test
//! case per assertion) for GitLab, Jenkins and the rest.
//!
//! XML is written by hand with its own escaping: the format is a few fixed elements, and no
//! writer crate spares the one hard part, characters XML 1.0 forbids even as references
//! (control characters from a session's text), which are shown as `\u{1b}` as on a terminal.

use std::io::{self, Write};

use super::family::Judged;
use super::verdicts::{
    assertion_text, finding_text, listed_under, more_text, run_line, verdict_line, worst, Checked,
    Status,
};
use crate::views::check::LastMessage;
use crate::views::style;
use pisess_format::time::span_text;
use pisess_store::family::runs::Made;

/// How many findings and characters of the last message a report carries: enough to act on,
/// short enough for a step summary (GitHub keeps 1 MiB of it).
const MAX_FINDINGS: usize = 20;
const MAX_TEXT: usize = 1000;

/// What a report says: the sessions checked, for each the unit it is a subagent run of (an
/// index into `checked`), and for each session named with runs its family's verdict.
pub(super) struct Run<'a> {
    pub checked: &'a [Checked],
    pub under: &'a [Option<(usize, Made)>],
    pub families: &'a [Option<Judged>],
}

impl Run<'_> {
    /// The worst of every verdict, the families' included: what the exit code says.
    fn status(&self) -> Status {
        (self.families.iter().flatten())
            .map(Judged::status)
            .fold(worst(self.checked), Status::max)
    }

    /// `subagent run of <parent>` for a run (the parent by its short id, else its file).
    fn parent_of(&self, i: usize) -> Option<String> {
        let &(p, made) = self.under.get(i)?.as_ref()?;
        let parent = &self.checked[p];
        let name = parent.short_id.as_deref().unwrap_or(&parent.name);
        Some(crate::cmd::runs::of(made, name))
    }

    fn family(&self, i: usize) -> Option<&Judged> {
        self.families.get(i)?.as_ref()
    }
}

/// The mark of an assertion in a Markdown table.
fn mark_of(a: &crate::views::check::Assertion) -> &'static str {
    match a.status() {
        "ok" => "✅",
        "undecided" => "❔",
        _ => "❌",
    }
}

pub(super) fn markdown(run: &Run, out: &mut dyn Write) -> io::Result<()> {
    let checked = run.checked;
    let (mark, word) = match run.status() {
        Status::Passed => ("✅", "passed"),
        Status::Failed => ("❌", "failed"),
        Status::Undecided => ("❔", "undecided"),
        Status::Error => ("⚠️", "could not check"),
    };
    writeln!(out, "## {mark} pisess check: {word}\n")?;
    writeln!(out, "{}\n", md(&run_line(checked, run.status())))?;
    let families = run.families.iter().flatten();
    let failed = families.filter(|j| j.status() != Status::Passed).count();
    if failed > 0 {
        let s = if failed == 1 { "family" } else { "families" };
        writeln!(
            out,
            "{failed} {s} of a session with its subagent runs not passed\n"
        )?;
    }
    for (i, c) in checked.iter().enumerate() {
        let id = c.short_id.clone().unwrap_or_default();
        let title = style::truncate(&style::one_line(&c.title), 80).into_owned();
        if id.is_empty() {
            writeln!(out, "### {}\n", md(&c.name))?;
        } else {
            writeln!(out, "### `{id}` {}\n", md(&title))?;
        }
        writeln!(out, "{}\n", code(&c.name))?;
        if let Some(parent) = run.parent_of(i) {
            writeln!(out, "*{}*\n", md(&parent))?;
        }
        writeln!(out, "**{}**\n", md(&verdict_line(c)))?;
        let Ok(v) = &c.result else {
            continue;
        };
        assertion_table(out, "assertion", &v.assertions)?;
        if let Some(j) = run.family(i) {
            family_markdown(j, checked, out)?;
        }
        let f = &v.figures;
        writeln!(
            out,
            "| cost | tokens | turns | tool calls | tool errors | duration | malformed lines |"
        )?;
        writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|")?;
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            md(&f.money()),
            style::tokens(f.tokens),
            f.turns,
            f.tool_calls,
            f.tool_errors,
            f.duration_ms.map_or("?".to_owned(), span_text),
            f.malformed_lines
        )?;
        if style::has_unpriced(f.unpriced_tokens) {
            writeln!(out, "\n{}", md(&style::unpriced_legend(f.unpriced_tokens)))?;
        }
        if f.negative_cost {
            writeln!(out, "\n{}", md(&style::negative_legend()))?;
        }
        if !f.tools_with_errors.is_empty() {
            let tools: Vec<String> = f
                .tools_with_errors
                .iter()
                .map(|(name, n)| format!("{} ×{n}", code(name)))
                .collect();
            writeln!(out, "\n**Tools with errors:** {}", tools.join(", "))?;
        }
        if !v.findings.is_empty() {
            writeln!(out, "\n**Findings:**\n")?;
            for finding in v.findings.iter().take(MAX_FINDINGS) {
                writeln!(out, "- {}", code(&finding_text(&c.name, finding)))?;
            }
            if v.findings.len() > MAX_FINDINGS {
                writeln!(out, "- and {} more", v.findings.len() - MAX_FINDINGS)?;
            }
        }
        if !v.secrets.is_empty() {
            writeln!(out, "\n**Secrets:**\n")?;
            for finding in v.secrets.iter().take(MAX_FINDINGS) {
                writeln!(out, "- `{}`", code(&finding_text(&c.name, finding)))?;
            }
            if v.secrets.len() > MAX_FINDINGS {
                writeln!(out, "- and {} more", v.secrets.len() - MAX_FINDINGS)?;
            }
        }
        if !v.tool_errors.is_empty() {
            writeln!(out, "\n**Failed tool calls:**\n")?;
            for e in &v.tool_errors {
                writeln!(out, "- {}", code(&finding_text(&c.name, &e.finding())))?;
            }
            if v.tool_errors_more > 0 {
                writeln!(out, "- {}", md(&more_text(v.tool_errors_more)))?;
            }
        }
        if let Some(last) = &f.last {
            last_message(last, out)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// A family's verdict (the session with its subagent runs, each token once): its assertions,
/// then the runs that failed, each by its short id and what it failed. Shown even when the
/// session itself passed: a family that failed on its total alone fails the run.
fn family_markdown(j: &Judged, checked: &[Checked], out: &mut dyn Write) -> io::Result<()> {
    let n = j.family.runs;
    let word = match j.status() {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::Undecided => "undecided",
        Status::Error => "could not be checked",
    };
    writeln!(
        out,
        "**Family** (with {n} subagent run{}): **{word}**\n",
        if n == 1 { "" } else { "s" }
    )?;
    assertion_table(out, "family assertion", &j.family.verdict.assertions)?;
    for (k, names) in &j.failed {
        let c = &checked[*k];
        let id = c.short_id.as_deref().unwrap_or(&c.name);
        writeln!(out, "- run {} failed: {}", code(id), md(&names.join(", ")))?;
    }
    if !j.failed.is_empty() {
        writeln!(out)?;
    }
    Ok(())
}

fn last_message(m: &LastMessage, out: &mut dyn Write) -> io::Result<()> {
    let reason = m
        .stop_reason
        .as_deref()
        .map(|r| format!(", stopReason {}", md(r)))
        .unwrap_or_default();
    writeln!(out, "\n**Last message** ({}{reason}):\n", md(&m.role))?;
    let mut text = m.text.trim().to_owned();
    if let Some(e) = &m.error_message {
        text = format!("{text}\n{e}").trim().to_owned();
    }
    if text.is_empty() {
        text = "(no text)".to_owned();
    }
    let cut = style::truncate(&text, MAX_TEXT);
    for line in cut.lines() {
        writeln!(out, "> {}", md(line))?;
    }
    Ok(())
}

/// Session text made inert in Markdown (GitHub's, GFM), for a table cell or a line of plain
/// text: rendered, it reads as the text itself. No HTML (`<`, `>`, `&` as entities), every
/// inline construct's punctuation backslash-escaped (emphasis, strikethrough, links, code),
/// `|` as `\|` (a cell's end in a table; in plain text, a line of a table to come), the marks
/// that open a block at the start of a line (a list, a heading's underline) escaped, and no
/// control characters.
/// The Markdown table of `assertions`, under a column named `heading`, and a blank line.
fn assertion_table(
    out: &mut dyn Write,
    heading: &str,
    assertions: &[crate::views::check::Assertion],
) -> io::Result<()> {
    writeln!(out, "| | {heading} | measured | limit |")?;
    writeln!(out, "|---|---|---|---|")?;
    for a in assertions {
        writeln!(
            out,
            "| {} | {} | {} | {} |",
            mark_of(a),
            md(&a.name),
            md(&a.measured),
            md(&a.limit)
        )?;
    }
    writeln!(out)
}

fn md(s: &str) -> String {
    let s = style::escape_control(s, false);
    // Leading blanks would make an indented code block of a quoted line; a paragraph drops
    // them anyway.
    let s = s.trim_start();
    let mut out = String::with_capacity(s.len());
    for (at, c) in s.char_indices() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' | '*' | '_' | '`' | '[' | ']' | '#' | '\\' | '~' | '!' | '$' => {
                out.push('\\');
                out.push(c);
            }
            // A list item (`- `, `+ `, `1. `, `1) `) or a setext underline (`===`, `---`)
            // where the text starts.
            '-' | '+' | '=' if at == 0 => {
                out.push('\\');
                out.push(c);
            }
            '.' | ')' if s[..at].bytes().all(|b| b.is_ascii_digit()) && at > 0 => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A code span of any text, outside a table: its content is literal there (a backslash is a
/// backslash, `|` is `|`), so nothing is escaped; the fence is one backtick more than the
/// longest run inside, with a space each side when the text starts or ends with a backtick or
/// a space (CommonMark strips one space each side again). Control characters are made visible.
fn code(s: &str) -> String {
    let s = style::escape_control(s, false);
    let mut longest = 0;
    let mut run = 0;
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let all_spaces = s.chars().all(|c| c == ' ');
    let pad = !all_spaces && (s.starts_with(['`', ' ']) || s.ends_with(['`', ' ']));
    let pad = if pad { " " } else { "" };
    format!("{fence}{pad}{s}{pad}{fence}")
}

pub(super) fn junit(run: &Run, out: &mut dyn Write) -> io::Result<()> {
    let checked = run.checked;
    let mut tests = 0;
    let mut failures = 0;
    let mut errors = 0;
    for j in run.families.iter().flatten() {
        tests += j.family.verdict.assertions.len();
        let (failed, undecided) = j.family.verdict.tally();
        failures += failed;
        errors += undecided;
    }
    for c in checked {
        match &c.result {
            Ok(v) => {
                tests += v.assertions.len();
                let (failed, undecided) = v.tally();
                failures += failed;
                errors += undecided;
            }
            Err(_) => {
                tests += 1;
                errors += 1;
            }
        }
    }
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="pisess check" tests="{tests}" failures="{failures}" errors="{errors}">"#
    )?;
    for (i, c) in checked.iter().enumerate() {
        let suite = c.id.as_deref().unwrap_or(&c.name);
        // A run names its parent (`subagent run of <parent>`) as a property of its suite.
        let parent = run.parent_of(i).map(|p| {
            format!(
                "    <properties><property name=\"subagentOf\" value=\"{}\"/></properties>\n",
                xml(&p)
            )
        });
        let parent = parent.unwrap_or_default();
        match &c.result {
            Err(e) => {
                writeln!(
                    out,
                    r#"  <testsuite name="{}" tests="1" failures="0" errors="1" file="{}">"#,
                    xml(suite),
                    xml(&c.name)
                )?;
                out.write_all(parent.as_bytes())?;
                writeln!(
                    out,
                    r#"    <testcase classname="{}" name="read"><error message="{}" type="not-checked"/></testcase>"#,
                    xml(suite),
                    xml(e)
                )?;
            }
            Ok(v) => {
                let (failed, undecided) = v.tally();
                writeln!(
                    out,
                    r#"  <testsuite name="{}" tests="{}" failures="{failed}" errors="{undecided}" file="{}">"#,
                    xml(suite),
                    v.assertions.len(),
                    xml(&c.name)
                )?;
                out.write_all(parent.as_bytes())?;
                for a in &v.assertions {
                    let open = format!(
                        r#"    <testcase classname="{}" name="{}""#,
                        xml(suite),
                        xml(&a.name)
                    );
                    if a.held {
                        writeln!(out, "{open}/>")?;
                        continue;
                    }
                    let name = a.name.split(' ').next().unwrap_or_default();
                    if a.undecided {
                        // Not a failure of the run: the check itself could not be made.
                        writeln!(
                            out,
                            r#"{open}><error message="{}" type="undecided"/></testcase>"#,
                            xml(&assertion_text(a)),
                        )?;
                        continue;
                    }
                    let (listed, more) = listed_under(v, a);
                    let mut body: Vec<String> =
                        listed.iter().map(|f| finding_text(&c.name, f)).collect();
                    if more > 0 {
                        body.push(more_text(more));
                    }
                    writeln!(
                        out,
                        r#"{open}><failure message="{}" type="{}">{}</failure></testcase>"#,
                        xml(&assertion_text(a)),
                        xml(name),
                        xml_text(&body.join("\n"))
                    )?;
                }
            }
        }
        writeln!(out, "  </testsuite>")?;
        if let Some(j) = run.family(i) {
            family_junit(j, checked, suite, &c.name, out)?;
        }
    }
    writeln!(out, "</testsuites>")
}

/// A family's verdict as a suite of its own (`<id> (family)`), one case per assertion, a failed
/// one listing the runs that failed: the total a family failed on alone is a failure here too.
fn family_junit(
    j: &Judged,
    checked: &[Checked],
    suite: &str,
    file: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    let v = &j.family.verdict;
    let (failed, undecided) = v.tally();
    let suite = format!("{suite} (family)");
    writeln!(
        out,
        r#"  <testsuite name="{}" tests="{}" failures="{failed}" errors="{undecided}" file="{}">"#,
        xml(&suite),
        v.assertions.len(),
        xml(file)
    )?;
    let runs: Vec<String> = (j.failed.iter())
        .map(|(k, names)| {
            let c = &checked[*k];
            let id = c.short_id.as_deref().unwrap_or(&c.name);
            format!("run {id} failed: {}", names.join(", "))
        })
        .collect();
    for a in &v.assertions {
        let open = format!(
            r#"    <testcase classname="{}" name="{}""#,
            xml(&suite),
            xml(&a.name)
        );
        if a.held {
            writeln!(out, "{open}/>")?;
        } else if a.undecided {
            writeln!(
                out,
                r#"{open}><error message="{}" type="undecided"/></testcase>"#,
                xml(&assertion_text(a)),
            )?;
        } else {
            writeln!(
                out,
                r#"{open}><failure message="{}" type="{}">{}</failure></testcase>"#,
                xml(&assertion_text(a)),
                xml(a.name.split(' ').next().unwrap_or_default()),
                xml_text(&runs.join("\n"))
            )?;
        }
    }
    writeln!(out, "  </testsuite>")
}

/// An attribute value: the five entities, and characters XML 1.0 forbids shown as escapes.
fn xml(s: &str) -> String {
    escape_xml(&style::escape_control(s, false))
}

/// Element text: newlines kept.
fn xml_text(s: &str) -> String {
    escape_xml(&style::escape_control(s, true))
}

fn escape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Not XML characters at all (escape_control leaves them).
            '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}
