//! How the plain search's hits are printed: `-l` and `-c` a path a line, `--json` an object a
//! hit, the human view a heading a session, a line a hit, and the entries around it (`-C`).

use std::io::{self, Write};
use std::path::Path;

use serde_json::json;

use crate::app::env::Env;
use crate::views::search::{texts, Field};
use crate::views::style::{self, IdCut, Role, Theme};
use pisess_format::time::relative;
use pisess_store::locate::tilde;
use pisess_store::session::{IndexOptions, Session};

use crate::app::cli::GrepArgs;

use super::matcher::{Live, Searched};

/// One matching line of one entry.
#[derive(Debug)]
pub(super) struct Hit {
    pub(super) ordinal: usize,
    pub(super) file_line: u64,
    pub(super) entry_id: Option<String>,
    pub(super) kind: String,
    pub(super) role: Option<String>,
    pub(super) field: Field,
    pub(super) timestamp: Option<String>,
    /// The line's number within the field's text (1-based).
    pub(super) number: usize,
    pub(super) line: String,
    pub(super) matches: Vec<(usize, usize)>,
}

/// How hits are printed: as the arguments ask, for the terminal (or pipe) of `env`.
#[derive(Clone, Copy)]
pub(super) struct Printer<'a> {
    pub(super) args: &'a GrepArgs,
    pub(super) env: &'a Env,
}

impl Printer<'_> {
    pub(super) fn write_session(
        &self,
        s: &Searched<Hit>,
        first: bool,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let args = self.args;
        if args.files_with_matches || args.count {
            write_path(self.env, &s.path, out)?;
            if args.count {
                write!(out, ":{}", s.hits.len())?;
            }
            return out.write_all(b"\n");
        }
        if args.json {
            return s.hits.iter().try_for_each(|h| write_json(s, h, out));
        }
        self.write_heading(s, first, out)?;
        // ripgrep's rule: -A and -B win over -C.
        let around = args.context.unwrap_or(0);
        let before = args.before_context.unwrap_or(around);
        let after = args.after_context.unwrap_or(around);
        let wanted = (before > 0 || after > 0) && !s.hits.is_empty() && s.path != Path::new("-");
        let context = Context(
            wanted
                .then(|| Session::open(&s.path, IndexOptions::default()).ok())
                .flatten(),
        );
        let env = self.env;
        let mut last_shown: Option<usize> = None;
        for (at, h) in s.hits.iter().enumerate() {
            // The entries of context before this hit's entry (once per entry, not per line).
            if at == 0 || s.hits[at - 1].ordinal != h.ordinal {
                let from = h.ordinal.saturating_sub(before);
                context.show(from..h.ordinal, &mut last_shown, env, out)?;
            }
            self.write_hit(h, out)?;
            last_shown = Some(h.ordinal);
            let next_hit = s.hits.get(at + 1).map(|n| n.ordinal);
            if next_hit != Some(h.ordinal) {
                // The entries after it, up to the next matching entry.
                let to = (h.ordinal + after + 1).min(next_hit.unwrap_or(usize::MAX));
                context.show(h.ordinal + 1..to, &mut last_shown, env, out)?;
            }
        }
        Ok(())
    }

    /// Hits of standard input as they are found (neither `-c` nor `--branch`, and no context:
    /// it has no index): each printed as [`write_session`](Self::write_session) would, and
    /// flushed.
    pub(super) fn stream(
        &self,
        s: &Searched<Hit>,
        hits: impl Iterator<Item = Hit>,
        live: &mut Live,
    ) -> io::Result<()> {
        let args = self.args;
        for h in hits {
            let out = &mut *live.out;
            if args.files_with_matches {
                if live.shown == 0 {
                    write_path(self.env, &s.path, out)?;
                    out.write_all(b"\n")?;
                }
            } else if args.json {
                write_json(s, &h, out)?;
            } else {
                if live.shown == 0 {
                    self.write_heading(s, live.first, out)?;
                }
                self.write_hit(&h, out)?;
            }
            live.shown += 1;
        }
        live.out.flush()
    }

    /// A session's heading: its id, when, where and title, after a blank line but the first.
    fn write_heading(&self, s: &Searched<Hit>, first: bool, out: &mut dyn Write) -> io::Result<()> {
        let env = self.env;
        let theme = env.theme();
        if !first {
            out.write_all(b"\n")?;
        }
        // Standard input has no summary: its heading says so instead of a time and a title.
        let (when, title) = match &s.summary {
            Some(sm) => (
                relative(sm.modified_ms, env.now_ms),
                style::one_line(sm.name.as_deref().unwrap_or(&*sm.first_message)),
            ),
            None => ("-".to_owned(), "(standard input)".to_owned()),
        };
        let cwd = style::one_line(&tilde(Path::new(&s.cwd), &env.inputs.home));
        let short = env.short_id(&s.id);
        // A subagent run says whose it is before its title.
        let of = s.under.as_ref().map_or(String::new(), |u| {
            let parent = match u.id.as_str() {
                "" => u
                    .path
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                id => env.short_id(id),
            };
            format!(
                "{}  ",
                style::one_line(&crate::cmd::runs::of(u.made, &parent))
            )
        });
        let head = format!("{short}  {when}  {cwd}  {of}");
        let title = match env.width {
            Some(w) => style::truncate(&title, w.saturating_sub(style::width(&head))).into_owned(),
            None => title,
        };
        writeln!(
            out,
            "{}  {}  {}  {}{}",
            theme.paint(Role::Id, &short),
            theme.dim(&when),
            cwd,
            if of.is_empty() {
                String::new()
            } else {
                theme.dim(&of).to_string()
            },
            theme.bold(&title)
        )
    }

    /// One hit of the human view: the entry's id, its role or type, and the line cut around
    /// its first match.
    fn write_hit(&self, h: &Hit, out: &mut dyn Write) -> io::Result<()> {
        let env = self.env;
        let theme = env.theme();
        let id = h
            .entry_id
            .as_deref()
            .map_or("-".to_owned(), |id| style::shown_id(id, IdCut::Typed));
        // The role (or type), and the field where it says more than the role does.
        let mut what = h.role.clone().unwrap_or_else(|| h.kind.clone());
        if matches!(
            h.field,
            Field::ToolCall | Field::Thinking | Field::Command | Field::Output | Field::Error
        ) {
            what = format!("{what} {}", h.field.as_str());
        }
        let what = style::escape_control(&what, false).into_owned();
        let role = match h.role.as_deref() {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("toolResult" | "bashExecution") => Role::Muted,
            _ if h.field == Field::ToolCall => Role::Tool,
            _ => Role::Custom,
        };
        let lead = format!("  {id}  {what}  ");
        let budget = env
            .width
            .map(|w| w.saturating_sub(style::width(&lead)).max(20));
        let line = cut_around(&h.line, &h.matches, budget, theme);
        writeln!(
            out,
            "  {}  {}  {line}",
            theme.paint(Role::Id, &id),
            theme.paint(role, &what)
        )
    }
}

/// One hit as a `--json` line.
fn write_json(s: &Searched<Hit>, h: &Hit, out: &mut dyn Write) -> io::Result<()> {
    let matches: Vec<_> = h
        .matches
        .iter()
        // The matched text beside its byte offsets (as ripgrep's `match.text`): jq slices a
        // string by code points, so `.line[.start:.end]` is wrong on a line that is not ASCII.
        .map(|&(start, end)| json!({"start": start, "end": end, "text": h.line.get(start..end)}))
        .collect();
    let mut object = json!({
        "sessionId": s.id,
        "path": s.path.display().to_string(),
        "cwd": s.cwd,
        "entryId": h.entry_id,
        "type": h.kind,
        "role": h.role,
        "field": h.field.as_str(),
        "timestamp": h.timestamp,
        "fileLine": h.file_line,
        "lineNumber": h.number,
        "line": h.line,
        "matches": matches,
    });
    if let Some(u) = &s.under {
        let of = crate::cmd::runs::json_of(&u.id, &u.path.display().to_string(), u.made);
        object["subagentOf"] = of;
    }
    pisess_format::surrogates::write(&mut *out, &object)?;
    out.write_all(b"\n")
}

/// `-A`/`-B`/`-C`: the session's index to read the entries around a match from (opened only
/// when some are asked for; standard input has none).
struct Context(Option<Session>);

impl Context {
    /// The entries of `range` not yet shown, after a `--` when they do not follow on.
    fn show(
        &self,
        range: std::ops::Range<usize>,
        last_shown: &mut Option<usize>,
        env: &Env,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let Some(session) = &self.0 else {
            return Ok(());
        };
        let from = last_shown.map_or(range.start, |l| range.start.max(l + 1));
        if last_shown.is_some_and(|l| from > l + 1) {
            writeln!(out, "  {}", env.theme().dim("--"))?;
        }
        for i in from..range.end.min(session.entries.len()) {
            self.line(i, env, out)?;
            *last_shown = Some(i);
        }
        Ok(())
    }

    /// One entry of context: its id, `-`, its role or type, and the first line of its text.
    fn line(&self, i: usize, env: &Env, out: &mut dyn Write) -> io::Result<()> {
        let Some(session) = &self.0 else {
            return Ok(());
        };
        let id = session
            .id(i)
            .map_or("-".to_owned(), |id| style::shown_id(id, IdCut::Typed));
        let kind = session.kind(i);
        let role = session.role(i);
        let what = role.unwrap_or(kind.as_str()).to_owned();
        let reach = crate::views::search::Reach {
            tools: true,
            thinking: true,
        };
        let text = session
            .load(i)
            .ok()
            .and_then(|v| {
                texts(&v, kind, role, reach)
                    .first()
                    .map(|(_, t)| style::one_line(t.split('\n').next().unwrap_or("")))
            })
            .unwrap_or_default();
        let what = style::escape_control(&what, false).into_owned();
        let lead = format!("  {id}- {what}  ");
        let text = match env.width {
            Some(w) => {
                style::truncate(&text, w.saturating_sub(style::width(&lead)).max(20)).into_owned()
            }
            None => text,
        };
        let theme = env.theme();
        writeln!(
            out,
            "  {}{}  {}",
            theme.dim(&format!("{id}-")),
            theme.dim(&format!(" {what}")),
            theme.dim(&text)
        )
    }
}

/// A path for `-l`/`-c`: byte for byte into a pipe (for xargs; a folder name need not be
/// UTF-8, and ripgrep prints it as it is on Unix), escaped on a terminal.
fn write_path(env: &Env, path: &Path, out: &mut dyn Write) -> io::Result<()> {
    if env.stdout_tty {
        let shown = path.display().to_string();
        return out.write_all(style::escape_control(&shown, false).as_bytes());
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        out.write_all(path.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        out.write_all(path.display().to_string().as_bytes())
    }
}

/// The line with its matches highlighted and its text escaped; with a `budget` of columns,
/// cut to it around the first match (a third of the budget before it at most), `…` marking
/// each cut.
fn cut_around(
    line: &str,
    matches: &[(usize, usize)],
    budget: Option<usize>,
    theme: Theme,
) -> String {
    let escape = |s: &str| style::escape_control(s, false).into_owned();
    let first = matches.first().map_or(0, |m| m.0);
    let mut start = 0;
    if let Some(budget) = budget {
        let before = &line[..first];
        let lead = budget / 3;
        if style::width(&escape(before)) > lead {
            // Keep the last `lead - 1` columns before the match (one for the `…`).
            let mut cols = 0;
            start = first;
            for (i, c) in before.char_indices().rev() {
                cols += style::width(&escape(c.encode_utf8(&mut [0; 4])));
                if cols > lead.saturating_sub(1) {
                    break;
                }
                start = i;
            }
        }
    }
    let mut out = String::new();
    let mut used = 0;
    if start > 0 {
        out.push('…');
        used += 1;
    }
    let mut at = start;
    let mut pieces: Vec<(&str, bool)> = Vec::new();
    for &(s, e) in matches {
        if s < at {
            continue;
        }
        pieces.push((&line[at..s], false));
        pieces.push((&line[s..e], true));
        at = e;
    }
    pieces.push((&line[at..], false));
    for (text, hit) in pieces {
        let text = escape(text);
        let shown = match budget {
            Some(b) if used + style::width(&text) > b => {
                let cut = style::truncate(&text, b.saturating_sub(used)).into_owned();
                out.push_str(&paint_hit(theme, &cut, hit));
                return out;
            }
            _ => text,
        };
        used += style::width(&shown);
        out.push_str(&paint_hit(theme, &shown, hit));
    }
    out
}

fn paint_hit(theme: Theme, s: &str, hit: bool) -> String {
    if hit {
        theme.bold(&theme.paint(Role::Error, s))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_around_its_match() {
        let plain = Theme { enabled: false };
        let line = format!("{}needle{}", "a".repeat(100), "b".repeat(100));
        let got = cut_around(&line, &[(100, 106)], Some(30), plain);
        assert!(got.starts_with('…') && got.ends_with('…'), "{got}");
        assert!(got.contains("needle"));
        assert_eq!(style::width(&got), 30, "{got}");
        assert_eq!(
            cut_around("a\x1bneedle", &[(2, 8)], None, plain),
            "a\\u{1b}needle"
        );
    }
}
