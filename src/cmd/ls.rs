//! `pisess ls`: one row per session, in pi's order (newest `modified` first).

use std::io::{self, Write};

use serde_json::{json, Value};

use crate::cli::{LsArgs, SortKey};
use crate::diag::Diag;
use crate::env::Env;
use crate::exit::Outcome;
use crate::listing::{self, Projects, Window};
use crate::model::number;
use crate::select::{select, Selected};
use crate::style::{self, Theme};
use crate::summary::Summary;
use crate::surrogates;
use crate::time::{relative, to_json_date};

/// The sessions `ls` lists, in pi's order.
pub fn collect(args: &LsArgs, env: &Env, diag: &mut Diag) -> anyhow::Result<(Vec<Summary>, bool)> {
    let window = Window::parse(args.since.as_deref(), args.until.as_deref(), env.now_ms)?;
    let projects = Projects::parse(&args.projects, &env.inputs.home)?;
    let scope = projects.scope(args.all);
    let listing = listing::list(&env.location, scope)?;
    let failed = listing.report(diag);
    let mut sessions = listing.sessions;
    sessions.retain(|s| window.holds(s) && projects.holds(&s.cwd));

    match args.sort {
        SortKey::Modified => {}
        SortKey::Created => sessions.sort_by_key(|s| std::cmp::Reverse(s.created_ms)),
        SortKey::Size => sessions.sort_by_key(|s| std::cmp::Reverse(s.bytes)),
        SortKey::Messages => sessions.sort_by_key(|s| std::cmp::Reverse(s.message_count)),
        SortKey::Cost => sessions.sort_by(|a, b| b.usage.cost.total_cmp(&a.usage.cost)),
    }
    if args.reverse {
        sessions.reverse();
    }
    if let Some(n) = args.limit {
        sessions.truncate(n);
    }
    Ok((sessions, failed))
}

pub fn run(
    args: &LsArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
) -> anyhow::Result<Outcome> {
    let (sessions, failed) = collect(args, env, diag)?;
    if args.json {
        for s in &sessions {
            surrogates::write(&mut *out, &to_json(s))?;
            out.write_all(b"\n")?;
        }
    } else {
        let theme = Theme {
            enabled: env.color_stdout,
        };
        let default = default_path(env);
        render_human(
            &sessions,
            args.all || !args.projects.is_empty(),
            default.as_deref(),
            env,
            theme,
            out,
        )?;
    }
    Ok(if failed {
        Outcome::Partial
    } else {
        Outcome::Done
    })
}

/// The NDJSON object of one session (the documented, append-only contract).
pub fn to_json(s: &Summary) -> Value {
    json!({
        "id": s.id,
        "path": s.path.to_string_lossy(),
        "cwd": s.cwd,
        "name": s.name,
        "parentSession": s.parent_session,
        "version": s.version,
        "created": s.created_ms.and_then(to_json_date),
        "modified": to_json_date(s.modified_ms),
        "messageCount": s.message_count,
        "firstMessage": s.first_message,
        "entries": s.entries,
        "leafId": s.leaf_id,
        "branches": s.branches,
        "usage": {
            "input": number(s.usage.input),
            "output": number(s.usage.output),
            "cacheRead": number(s.usage.cache_read),
            "cacheWrite": number(s.usage.cache_write),
            "totalTokens": number(s.usage.total_tokens()),
            "cost": number(s.usage.cost),
        },
        "models": s.models,
        "bytes": s.bytes,
        "malformedLines": s.malformed_lines,
        "userMessages": s.counts.user_messages,
        "assistantMessages": s.counts.assistant_messages,
        "toolCalls": s.counts.tool_calls,
        "toolResults": s.counts.tool_results,
        "totalMessages": s.message_count,
        "toolErrors": s.counts.tool_errors,
    })
}

/// The file a command without SESSION reads: `$PI_SESSION_FILE`, else pi's `-c` choice (this
/// project's newest file by modification time). `ls` orders by last message instead, so after a
/// copy or a clone its top row need not be that session: the listing marks it.
fn default_path(env: &Env) -> Option<std::path::PathBuf> {
    match select(None, &env.location, env.pi_session_file.as_deref()) {
        Ok(Selected::File(path)) => Some(path),
        _ => None,
    }
}

fn render_human(
    sessions: &[Summary],
    all: bool,
    default: Option<&std::path::Path>,
    env: &Env,
    theme: Theme,
    out: &mut dyn Write,
) -> io::Result<()> {
    let rows: Vec<[String; 5]> = sessions
        .iter()
        .map(|s| {
            [
                style::short_id(&s.id),
                relative(s.modified_ms, env.now_ms),
                format!("{} msgs", s.message_count),
                style::tokens(s.usage.total_tokens()),
                style::cost(s.usage.cost),
            ]
        })
        .collect();
    // A mark column only when the default session is among the rows: `*` on its row.
    let marked = sessions.iter().any(|s| Some(s.path.as_path()) == default);
    let mut widths = [0usize; 5];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(style::width(cell));
        }
    }
    for (s, row) in sessions.iter().zip(&rows) {
        let title = s.name.as_deref().unwrap_or(&s.first_message);
        let mut title = style::one_line(title);
        if all {
            let cwd = crate::locate::tilde(std::path::Path::new(&s.cwd), &env.inputs.home);
            title = format!("{}  {title}", style::one_line(&cwd));
        }
        let fixed: usize =
            widths.iter().sum::<usize>() + 2 * widths.len() + if marked { 2 } else { 0 };
        if let Some(width) = env.width {
            title = style::truncate(&title, width.saturating_sub(fixed)).into_owned();
        }
        let pad = |i: usize, right: bool| {
            let cell = &row[i];
            let fill = " ".repeat(widths[i] - style::width(cell));
            if right {
                format!("{fill}{cell}")
            } else {
                format!("{cell}{fill}")
            }
        };
        let title = if s.name.is_some() {
            theme.bold(&title)
        } else {
            title
        };
        let mark = match (marked, Some(s.path.as_path()) == default) {
            (false, _) => String::new(),
            (true, true) => format!("{} ", theme.bold("*")),
            (true, false) => "  ".to_owned(),
        };
        writeln!(
            out,
            "{mark}{}  {}  {}  {}  {}  {}",
            theme.yellow(&pad(0, false)),
            theme.dim(&pad(1, false)),
            pad(2, true),
            pad(3, true),
            pad(4, true),
            title
        )?;
    }
    Ok(())
}
