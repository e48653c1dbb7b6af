//! `pisess ls`: one row per session, in pi's order (newest `modified` first).

use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context as _;
use serde_json::{json, Value};

use crate::cli::{LsArgs, SortKey};
use crate::env::Env;
use crate::locate::name_cmp;
use crate::model::number;
use crate::select::{select, Selected};
use crate::session::{Reading, ScanError};
use crate::style::{self, Theme};
use crate::summary::{summarize, Summary};
use crate::time::{parse_when, relative, to_json_date};
use crate::{Diag, Outcome, UsageError};

/// Reads every file on the available cores; results keep the input order.
///
/// Each worker takes the next unread file, so one large session does not leave the other cores
/// idle at the end of a fixed share (sizes are very uneven: a few sessions hold most bytes).
fn summarize_all(files: &[PathBuf]) -> Vec<Result<Summary, ScanError>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    if threads <= 1 || files.len() < 8 {
        return files
            .iter()
            .map(|p| summarize(p, Reading::AheadIfBig))
            .collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = files.get(i) else {
                return done;
            };
            done.push((i, summarize(path, Reading::OnThisThread)));
        }
    };
    let mut results: Vec<Option<Result<Summary, ScanError>>> =
        std::iter::repeat_with(|| None).take(files.len()).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
        for h in handles {
            // A panic in a worker is a bug: re-raise it rather than hide it.
            for (i, r) in h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)) {
                results[i] = Some(r);
            }
        }
    });
    results
        .into_iter()
        .map(|r| r.expect("every file is summarized once"))
        .collect()
}

fn file_name(p: &std::path::Path) -> &[u8] {
    p.file_name().map_or(&[][..], |n| n.as_encoded_bytes())
}

/// The sessions `ls` lists, in pi's order.
pub fn collect(args: &LsArgs, env: &Env, diag: &mut Diag) -> anyhow::Result<(Vec<Summary>, bool)> {
    let loc = &env.location;
    let (mut files, dir) = if args.all {
        (
            loc.all_files(),
            if loc.custom {
                &loc.session_dir
            } else {
                &loc.root
            },
        )
    } else {
        (loc.project_files(), &loc.session_dir)
    };
    let mut files = files
        .as_mut()
        .map(std::mem::take)
        .map_err(|e| anyhow::anyhow!("{e}"))
        .with_context(|| format!("cannot list {}", dir.display()))?;
    // pi reads a dir's files in `b.localeCompare(a)` order (newest name first); `listAll` over the
    // default root orders by mtime. Names that tie keep the directory's order, as in pi.
    files.sort_by(|a, b| name_cmp(file_name(b), file_name(a)));
    let mut failed = false;
    let mut sessions = Vec::with_capacity(files.len());
    for (path, result) in files.iter().zip(summarize_all(&files)) {
        let name = path.display().to_string();
        match result {
            Ok(s) => {
                diag.session_warnings(&name, &s.warnings);
                sessions.push(s);
            }
            // Removed between listing and reading: the listing is still whole.
            Err(ScanError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
                diag.warn(&name, None, "removed while listing");
            }
            Err(e) => {
                failed = true;
                diag.warn(&name, None, &format!("skipped: {e}"));
            }
        }
    }
    if !args.all && loc.custom {
        sessions.retain(|s| loc.cwd_matches(Some(&s.cwd)));
    }
    if args.all && !loc.custom {
        sessions.sort_by(|a, b| {
            b.mtime_js
                .total_cmp(&a.mtime_js)
                .then_with(|| name_cmp(file_name(&b.path), file_name(&a.path)))
        });
    }
    // A stable sort, like JavaScript's: ties keep the read order above.
    sessions.sort_by_key(|s| std::cmp::Reverse(s.modified_ms));

    // The flag's name leads the message: `ls --since 2d --until x` has two times to get wrong.
    let when = |flag: &str, value: Option<&str>| {
        value
            .map(|w| parse_when(w, env.now_ms))
            .transpose()
            .map_err(|e| UsageError(format!("{flag}: {e}")))
    };
    let since = when("--since", args.since.as_deref())?;
    let until = when("--until", args.until.as_deref())?;
    sessions.retain(|s| {
        since.is_none_or(|t| s.modified_ms >= t) && until.is_none_or(|t| s.modified_ms < t)
    });

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
            serde_json::to_writer(&mut *out, &to_json(s))?;
            out.write_all(b"\n")?;
        }
    } else {
        let theme = Theme {
            enabled: env.color_stdout,
        };
        let default = default_path(env);
        render_human(&sessions, args.all, default.as_deref(), env, theme, out)?;
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
    })
}

/// The file a command without SESSION reads: `$PI_SESSION_FILE`, else pi's `-c` choice (this
/// project's newest file by modification time). `ls` orders by last message instead, so after a
/// copy or a clone its top row need not be that session: the listing marks it.
fn default_path(env: &Env) -> Option<PathBuf> {
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
