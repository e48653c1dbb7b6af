//! `pisess ls`: one row per session, in pi's order (newest `modified` first); `--tree`
//! threaded as pi's `/resume` threads them ([`tree`]).

mod tree;

mod touched;

use std::io::{self, Write};

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::app::cli::{LsArgs, SortKey};
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::views::ids::ShortIds;
use crate::views::prices::{self, EstimateJson, Pricer};
use crate::views::style::{self, Theme};
use pisess_format::model::{number, push_number};
use pisess_format::surrogates;
use pisess_format::time::{json_date, relative, to_json_date};
use pisess_store::cache::runs::RunCache;
use pisess_store::family;
use pisess_store::listing::{self, Problem, Projects};
use pisess_store::prices::Estimated;
use pisess_store::select::{select, Selected};
use pisess_store::summary::{Detail, Summary};

/// The sessions `ls` lists, in pi's order, the subagent runs of each (a run is no row: pi's
/// listing never sees one), whether some file failed, and the listed files that are symbolic
/// links (`--tree` keys the others without a `stat`).
#[allow(clippy::type_complexity)]
pub fn collect<'e>(
    args: &LsArgs,
    env: &'e Env,
    diag: &mut Diag,
) -> anyhow::Result<(
    Vec<Summary>,
    Vec<Vec<family::runs::Child>>,
    bool,
    Vec<std::path::PathBuf>,
    (RunCache<'e>, Vec<std::path::PathBuf>),
)> {
    let window = crate::cmd::window(&args.since, &args.until, env)?;
    let projects = Projects::parse(&args.projects, &env.inputs.home)?;
    let scope = projects.scope(args.all);
    // `--prices` estimates from each session's rows: the tally (`stats`' cache) is read too.
    let detail = match args.prices {
        Some(_) => Detail::Stats,
        None => Detail::Listing,
    };
    let mut listing = listing::list(&env.location, scope, detail)?;
    let mut sessions = std::mem::take(&mut listing.sessions);
    sessions.retain(|s| window.holds(s) && projects.holds(&s.cwd));
    let unread = match &args.touched {
        Some(path) => touched::retain(&mut sessions, path, &env.inputs.cwd, diag)?,
        None => false,
    };

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
    // Warnings about files left out (`--since`, `-n`) would be about sessions not shown; a file
    // that could not be read is reported whatever the filter, since it might have matched.
    // The set only when there are warnings to sort out (10,000 paths hashed component by
    // component were 5% of a warm listing that had none), by the paths' bytes.
    if listing
        .problems
        .iter()
        .any(|(_, p)| matches!(p, Problem::Warnings(_)))
    {
        let listed: hashbrown::HashSet<&[u8]> = sessions.iter().map(|s| bytes(&s.path)).collect();
        listing
            .problems
            .retain(|(path, p)| !matches!(p, Problem::Warnings(_)) || listed.contains(bytes(path)));
    }
    let failed = listing.report(diag) || unread;
    // Only a session with its stem folder beside it is looked under (the listing noted the
    // folders as it read them), on every core, through the run cache (`cache::runs`: a
    // folder's `lstat` for its listing); what cannot be read there is a warning.
    // In no order: the cache finds each folder's file by hashing.
    let stemmed: Vec<std::path::PathBuf> =
        crate::cmd::runs::stem_files(std::mem::take(&mut listing.stem_folders))
            .into_iter()
            .collect();
    // By the paths' bytes: a `PathBuf` hashes and compares component by component (2 M
    // instructions of a warm listing of 1,000 sessions, 100 of them with runs).
    let stems: hashbrown::HashSet<&[u8]> = stemmed.iter().map(|p| bytes(p)).collect();
    let looked: Vec<&std::path::Path> = (sessions.iter())
        .filter(|s| stems.contains(bytes(&s.path)))
        .map(|s| s.path.as_path())
        .collect();
    let cache = RunCache::open(env.location.cache.as_ref(), &stemmed).keeping_summaries(args.tree);
    let mut found = cache
        .find_all(&looked, family::runs::Limits::default())
        .into_iter();
    let runs = (sessions.iter())
        .map(|s| {
            if !stems.contains(bytes(&s.path)) {
                return Vec::new();
            }
            let found = found.next().unwrap_or_default();
            for (path, problem) in &found.problems {
                diag.warn(&path.display().to_string(), None, &problem.describe());
            }
            found.children
        })
        .collect();
    drop(stems);
    // Saved by the caller: `ls --tree` keeps the runs' summaries in the records.
    let links = std::mem::take(&mut listing.links);
    Ok((sessions, runs, failed, links, (cache, stemmed)))
}

/// A path's bytes, to hash and compare as bytes.
fn bytes(p: &std::path::Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
}

pub fn run(
    args: &LsArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
) -> anyhow::Result<Outcome> {
    // Read before anything is written: a bad table stops the command with nothing emitted.
    let pricer = args.prices.as_deref().map(Pricer::read).transpose()?;
    let (sessions, found, failed, links, (cache, stemmed)) = collect(args, env, diag)?;
    if args.tree {
        tree::run(
            sessions,
            found,
            &links,
            (cache, stemmed),
            pricer.as_ref(),
            args,
            env,
            out,
            diag,
        )?;
        return Ok(Outcome::partly_failed_if(failed));
    }
    cache.save(Some(&stemmed));
    let runs: Vec<usize> = found.iter().map(Vec::len).collect();
    let estimates: Vec<Option<Estimated>> = (sessions.iter())
        .map(|s| Some(prices::total(pricer.as_ref()?, s.tally.as_deref()?)))
        .collect();
    if args.json {
        // Written on every core in runs of sessions, each run in order as it is ready: a listing
        // of 10,000 from the cache spent a fifth of its time in one thread writing JSON.
        let chunks: Vec<Chunk> = (sessions.chunks(256))
            .zip(runs.chunks(256))
            .zip(estimates.chunks(256))
            .collect();
        let mut failed = None;
        // Each run's buffer handed back once written, for a later run: fresh ones (mapped
        // afresh above glibc's threshold) were a quarter of a warm listing's page faults.
        let spare: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::default();
        pisess_store::util::parallel::ordered(
            &chunks,
            |((chunk, runs), estimates)| {
                let mut buf = spare
                    .lock()
                    .ok()
                    .and_then(|mut spare| spare.pop())
                    .unwrap_or_default();
                buf.clear();
                buf.reserve(chunk.len() * 2048);
                for ((s, &runs), e) in chunk.iter().zip(*runs).zip(*estimates) {
                    push_json(&mut buf, s, runs, e.as_ref().map(Into::into));
                    buf.push(b'\n');
                }
                buf
            },
            |buf| match out.write_all(&buf) {
                Ok(()) => {
                    if let Ok(mut spare) = spare.lock() {
                        spare.push(buf);
                    }
                    std::ops::ControlFlow::Continue(())
                }
                Err(e) => {
                    failed = Some(e);
                    std::ops::ControlFlow::Break(())
                }
            },
        );
        if let Some(e) = failed {
            return Err(e.into());
        }
    } else {
        let theme = Theme {
            enabled: env.color_stdout,
        };
        let default = default_path(env);
        if sessions.is_empty() && env.stdout_tty {
            say_empty(args, env, diag);
        }
        let priced = pricer.as_ref().map(|p| (p, &estimates[..]));
        render_human(
            &sessions,
            &runs,
            priced,
            None,
            args,
            default.as_deref(),
            env,
            theme,
            out,
        )?;
    }
    // Not freed: the process ends after a listing, and 10,000 summaries freed string by
    // string (allocated on the workers, freed here) were a tenth of a warm `ls --all --json`.
    std::mem::forget(sessions);
    Ok(Outcome::partly_failed_if(failed))
}

/// A run of sessions written together, with their subagent runs and estimates.
type Chunk<'a> = ((&'a [Summary], &'a [usize]), &'a [Option<Estimated>]);

/// The NDJSON object of one session (the documented, append-only contract), borrowed from the
/// summary and written as it is: a listing of 10,000 sessions from the cache spent a quarter
/// of its time building and dropping `Value`s of them.
pub fn to_json(
    s: &Summary,
    subagent_runs: usize,
    estimate: Option<EstimateJson>,
) -> SessionJson<'_> {
    let u = &s.usage;
    SessionJson {
        id: &s.id,
        path: s.path.to_string_lossy(),
        cwd: &s.cwd,
        name: s.name.as_deref(),
        parent_session: s.parent_session.as_deref(),
        version: s.version,
        created: s.created_ms.and_then(to_json_date),
        modified: to_json_date(s.modified_ms),
        message_count: s.message_count,
        first_message: &s.first_message,
        entries: s.entries,
        leaf_id: s.leaf_id.as_deref(),
        branches: s.branches,
        usage: UsageJson {
            input: number(u.input),
            output: number(u.output),
            cache_read: number(u.cache_read),
            cache_write: number(u.cache_write),
            total_tokens: number(u.total_tokens()),
            cost: number(u.cost),
            unpriced_tokens: number(u.unpriced),
            estimate,
        },
        models: &s.models,
        bytes: s.bytes,
        malformed_lines: s.malformed_lines,
        user_messages: s.counts.user_messages,
        assistant_messages: s.counts.assistant_messages,
        tool_calls: s.counts.tool_calls,
        tool_results: s.counts.tool_results,
        total_messages: s.message_count,
        tool_errors: s.counts.tool_errors,
        subagent_runs,
        resume: resume_command(&s.path.to_string_lossy()),
        session_id: &s.id,
    }
}

/// The command that resumes the session in pi: `pi --session '<path>'`, the path quoted for a
/// POSIX shell. A file name is hostile data: inside single quotes nothing is special but the
/// quote itself, which closes, is escaped and reopens (`'\''`), so no name breaks out.
pub fn resume_command(path: &str) -> String {
    format!("pi --session '{}'", path.replace('\'', r"'\''"))
}

/// What [`to_json`] writes through [`surrogates::write`], byte for byte, written without
/// serde (serde_json's escape a byte at a time, a `String` for every date and integer and a
/// `Value` for every usage figure were half of a warm `ls --all --json` of 10,000): the
/// strings through [`surrogates::push_str`], the numbers as the same formatter writes them.
/// `to_json` stays the contract, and a test holds the two equal.
pub fn push_json(
    out: &mut Vec<u8>,
    s: &Summary,
    subagent_runs: usize,
    estimate: Option<EstimateJson>,
) {
    use surrogates::{push_str, push_u64};
    let opt_str = |out: &mut Vec<u8>, v: Option<&str>| match v {
        Some(v) => push_str(out, v),
        None => out.extend_from_slice(b"null"),
    };
    let date = |out: &mut Vec<u8>, ms: Option<i64>| match ms.and_then(json_date) {
        // Digits and `-+:.TZ`: nothing to escape.
        Some(d) => {
            out.push(b'"');
            out.extend_from_slice(d.as_str().as_bytes());
            out.push(b'"');
        }
        None => out.extend_from_slice(b"null"),
    };
    let u = &s.usage;
    out.extend_from_slice(b"{\"id\":");
    push_str(out, &s.id);
    out.extend_from_slice(b",\"path\":");
    push_str(out, &s.path.to_string_lossy());
    out.extend_from_slice(b",\"cwd\":");
    push_str(out, &s.cwd);
    out.extend_from_slice(b",\"name\":");
    opt_str(out, s.name.as_deref());
    out.extend_from_slice(b",\"parentSession\":");
    opt_str(out, s.parent_session.as_deref());
    out.extend_from_slice(b",\"version\":");
    push_u64(out, s.version);
    out.extend_from_slice(b",\"created\":");
    date(out, s.created_ms);
    out.extend_from_slice(b",\"modified\":");
    date(out, Some(s.modified_ms));
    out.extend_from_slice(b",\"messageCount\":");
    push_u64(out, s.message_count);
    out.extend_from_slice(b",\"firstMessage\":");
    push_str(out, &s.first_message);
    out.extend_from_slice(b",\"entries\":");
    push_u64(out, s.entries as u64);
    out.extend_from_slice(b",\"leafId\":");
    opt_str(out, s.leaf_id.as_deref());
    out.extend_from_slice(b",\"branches\":");
    push_u64(out, s.branches as u64);
    for (key, value) in [
        (&b",\"usage\":{\"input\":"[..], u.input),
        (b",\"output\":", u.output),
        (b",\"cacheRead\":", u.cache_read),
        (b",\"cacheWrite\":", u.cache_write),
        (b",\"totalTokens\":", u.total_tokens()),
        (b",\"cost\":", u.cost),
        (b",\"unpricedTokens\":", u.unpriced),
    ] {
        out.extend_from_slice(key);
        push_number(out, value);
    }
    // `--prices`: the estimate beside pi's cost, never in it.
    if let Some(e) = estimate {
        for (key, value) in [
            (&b",\"estimatedCost\":"[..], e.estimated_cost),
            (b",\"estimatedMessages\":", e.estimated_messages as f64),
            (b",\"unestimatedMessages\":", e.unestimated_messages as f64),
            (b",\"unestimatedTokens\":", e.unestimated_tokens),
        ] {
            out.extend_from_slice(key);
            push_number(out, value);
        }
    }
    out.extend_from_slice(b"},\"models\":[");
    for (i, model) in s.models.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_str(out, model);
    }
    out.push(b']');
    let c = &s.counts;
    for (key, value) in [
        (&b",\"bytes\":"[..], s.bytes),
        (b",\"malformedLines\":", s.malformed_lines),
        (b",\"userMessages\":", c.user_messages),
        (b",\"assistantMessages\":", c.assistant_messages),
        (b",\"toolCalls\":", c.tool_calls),
        (b",\"toolResults\":", c.tool_results),
        (b",\"totalMessages\":", s.message_count),
        (b",\"toolErrors\":", c.tool_errors),
        (b",\"subagentRuns\":", subagent_runs as u64),
    ] {
        out.extend_from_slice(key);
        push_u64(out, value);
    }
    out.extend_from_slice(b",\"resume\":");
    push_str(out, &resume_command(&s.path.to_string_lossy()));
    out.extend_from_slice(b",\"sessionId\":");
    push_str(out, &s.id);
    out.push(b'}');
}

/// See [`to_json`]; the fields in the order `docs/json.md` gives them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionJson<'a> {
    id: &'a str,
    path: Cow<'a, str>,
    cwd: &'a str,
    name: Option<&'a str>,
    parent_session: Option<&'a str>,
    version: u64,
    created: Option<String>,
    modified: Option<String>,
    message_count: u64,
    first_message: &'a str,
    entries: usize,
    leaf_id: Option<&'a str>,
    branches: usize,
    usage: UsageJson,
    models: &'a [String],
    bytes: u64,
    malformed_lines: u64,
    user_messages: u64,
    assistant_messages: u64,
    tool_calls: u64,
    tool_results: u64,
    total_messages: u64,
    tool_errors: u64,
    subagent_runs: usize,
    resume: String,
    /// `id` under the one vocabulary's name (docs/json.md); `id` stays.
    session_id: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UsageJson {
    input: Value,
    output: Value,
    cache_read: Value,
    cache_write: Value,
    total_tokens: Value,
    cost: Value,
    /// Tokens of usage records whose cost is 0 (a model without a price).
    unpriced_tokens: Value,
    /// With `--prices`.
    #[serde(flatten)]
    estimate: Option<EstimateJson>,
}

/// An empty listing on a terminal says where it looked, and what to try next.
fn say_empty(args: &LsArgs, env: &Env, diag: &mut Diag) {
    let loc = &env.location;
    let home = &env.inputs.home;
    let filtered = args.since.is_some() || args.until.is_some();
    let window = if filtered { " in that time" } else { "" };
    let message = if args.all {
        let dir = if loc.custom {
            &loc.session_dir
        } else {
            &loc.root
        };
        format!(
            "no sessions{window} in {}",
            pisess_store::locate::tilde(dir, home)
        )
    } else {
        let dir = pisess_store::locate::tilde(&loc.session_dir, home);
        format!(
            "no sessions{window} for {} in {dir} (every project's: 'pisess ls --all')",
            loc_cwd(env)
        )
    };
    diag.note(&style::escape_control(&message, false));
}

fn loc_cwd(env: &Env) -> String {
    pisess_store::locate::tilde(&env.inputs.cwd, &env.inputs.home)
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

/// The abbreviations of the listed ids among the store's names, where a file named after a
/// listed session's id and more (`<id>-backup`, `<id>.bak`, `<id> copy`: a copy of it) counts as
/// that id. Its whole id would not tell the copies apart either (a selection of it names them
/// both and asks for a path), and it widened the ID column of every row until the other
/// columns were dropped at 80 (issue 47).
fn short_ids(sessions: &[Summary], env: &Env) -> ShortIds {
    short_ids_of(sessions.iter().map(|s| s.id.as_str()), env)
}

/// [`short_ids`] of these ids (`stats --by session`'s rows too).
pub(crate) fn short_ids_of<'a>(ids: impl Iterator<Item = &'a str>, env: &Env) -> ShortIds {
    let mut listed: Vec<&str> = ids.filter(|id| !id.is_empty()).collect();
    listed.sort_unstable();
    listed.dedup();
    let names = env.location.ids_by_name();
    // The listed id a name begins with sorts last among those not after it.
    let of_copy = |name: &str| {
        let at = listed.partition_point(|id| *id <= name);
        let id = *listed.get(at.checked_sub(1)?)?;
        // Where a suffix starts: pi's ids are uuids, one never another's start and a letter on.
        let rest = name.strip_prefix(id)?;
        rest.starts_with(|c: char| !c.is_alphanumeric())
            .then_some(id)
    };
    ShortIds::new(names.iter().map(|n| of_copy(n).unwrap_or(n)))
}

/// A column of the table: its heading, the cells, and which side they align to.
struct Column {
    heading: &'static str,
    cells: Vec<String>,
    right: bool,
    width: usize,
}

impl Column {
    fn new(heading: &'static str, right: bool, cells: Vec<String>) -> Column {
        Column {
            heading,
            cells,
            right,
            width: 0,
        }
    }

    /// Widest cell (with the heading when it is shown).
    fn natural(&self, header: bool) -> usize {
        let cells = self
            .cells
            .iter()
            .map(|c| style::width(c))
            .max()
            .unwrap_or(0);
        cells.max(if header {
            style::width(self.heading)
        } else {
            0
        })
    }
}

/// What the table is cut to: below this a title is not worth showing beside other columns.
const TITLE_MIN: usize = 20;
/// The least a cut cwd keeps (`…/webshop`).
const CWD_MIN: usize = 12;

/// The table: a heading row on a terminal; the numeric columns right-aligned; on a terminal of
/// known width every row fits it, the title and the cwd (with `--all`) sharing the room, the
/// cwd cut from the left, and columns dropped when even that does not fit (the cwd last). Piped, no
/// row is cut.
#[allow(clippy::too_many_arguments)]
fn render_human(
    sessions: &[Summary],
    runs: &[usize],
    priced: Option<(&Pricer, &[Option<Estimated>])>,
    tree: Option<&[String]>,
    args: &LsArgs,
    default: Option<&std::path::Path>,
    env: &Env,
    theme: Theme,
    out: &mut dyn Write,
) -> io::Result<()> {
    let header = env.stdout_tty && !sessions.is_empty();
    let cells = |f: &dyn Fn(&Summary) -> String| sessions.iter().map(f).collect::<Vec<_>>();
    // In the order they are dropped when the terminal is narrow (the id and title never are).
    let mut droppable = vec![
        Column::new(
            "TOKENS",
            true,
            cells(&|s| style::tokens(s.usage.total_tokens())),
        ),
        Column::new("COST", true, cells(&|s| style::cost_of(&s.usage))),
    ];
    // `--prices`: the estimate of what pi recorded at $0, `~$`, beside pi's cost.
    if let Some((_, estimates)) = priced {
        let shown = estimates
            .iter()
            .map(|e| e.as_ref().map_or_else(|| "-".to_owned(), prices::shown));
        droppable.push(Column::new("ESTIMATED", true, shown.collect()));
    }
    droppable.extend([Column::new(
        "MESSAGES",
        true,
        cells(&|s| format!("{} msgs", s.message_count)),
    )]);
    if args.sort == SortKey::Size {
        droppable.push(Column::new("SIZE", true, cells(&|s| style::bytes(s.bytes))));
    }
    // A column of runs only when some row has them (pi's table has none).
    if runs.iter().any(|&n| n > 0) {
        let cells = runs.iter().map(|&n| match n {
            0 => String::new(),
            1 => "1 run".to_owned(),
            n => format!("{n} runs"),
        });
        droppable.push(Column::new("RUNS", true, cells.collect()));
    }
    droppable.push(Column::new(
        "MODIFIED",
        false,
        cells(&|s| relative(s.modified_ms, env.now_ms)),
    ));
    if args.all || !args.projects.is_empty() {
        let home = &env.inputs.home;
        let cwd = |s: &Summary| {
            style::one_line(&pisess_store::locate::tilde(
                std::path::Path::new(&s.cwd),
                home,
            ))
        };
        droppable.push(Column::new("CWD", false, cells(&cwd)));
    }
    // The column the rows are sorted by is the last dropped before the cwd: a table ordered by
    // size showed no size at 60 columns (issue 47).
    let sorted_by = match args.sort {
        SortKey::Modified => "MODIFIED",
        SortKey::Size => "SIZE",
        SortKey::Messages => "MESSAGES",
        SortKey::Cost => "COST",
        SortKey::Created => "",
    };
    if let Some(at) = droppable.iter().position(|c| c.heading == sorted_by) {
        let column = droppable.remove(at);
        let before_cwd = droppable.iter().position(|c| c.heading == "CWD");
        droppable.insert(before_cwd.unwrap_or(droppable.len()), column);
    }
    let short = short_ids(sessions, env);
    let ids = Column::new("ID", false, cells(&|s| short.short(&s.id)));
    let mut titles = cells(&|s| style::one_line(s.name.as_deref().unwrap_or(&*s.first_message)));
    // `--tree`: each title after its row's connectors, so that a cut title keeps them.
    if let Some(prefixes) = tree {
        for (title, prefix) in titles.iter_mut().zip(prefixes) {
            title.insert_str(0, prefix);
        }
    }
    let title_natural = titles.iter().map(|t| style::width(t)).max().unwrap_or(0);
    let title_natural = title_natural.max(if header { "TITLE".len() } else { 0 });

    // A mark column only when the default session is among the rows: `*` on its row.
    let marked = sessions.iter().any(|s| Some(s.path.as_path()) == default);
    let mark_width = if marked { 2 } else { 0 };
    let fixed = |cols: &[Column]| -> usize {
        mark_width
            + ids.natural(header)
            + cols.iter().map(|c| c.natural(header) + 2).sum::<usize>()
            + 2
    };
    let is_cwd = |c: &Column| c.heading == "CWD";
    let cwd_floor = |cols: &[Column]| {
        cols.iter()
            .filter(|c| is_cwd(c))
            .map(|c| c.natural(header).min(CWD_MIN))
            .sum::<usize>()
    };
    if let Some(width) = env.width {
        // Drop columns until the title gets its share (the cwd counted at its shortest).
        let title_floor = title_natural.min(TITLE_MIN);
        while !droppable.is_empty() {
            let cwd_natural: usize = droppable
                .iter()
                .filter(|c| is_cwd(c))
                .map(|c| c.natural(header))
                .sum();
            let need = fixed(&droppable) - cwd_natural + cwd_floor(&droppable) + title_floor;
            if need <= width {
                break;
            }
            // The cwd goes last: the first column that is not the cwd, else the cwd.
            let at = droppable.iter().position(|c| !is_cwd(c)).unwrap_or(0);
            droppable.remove(at);
        }
    }
    for c in &mut droppable {
        c.width = c.natural(header);
    }
    let mut title_width = title_natural;
    if let Some(width) = env.width {
        let cwd_natural: usize = droppable
            .iter()
            .filter(|c| is_cwd(c))
            .map(|c| c.width)
            .sum();
        let room = width.saturating_sub(fixed(&droppable) - cwd_natural);
        let cwd_floor = cwd_floor(&droppable);
        // Spare width is shared (as eza and gh do): the cwd may take a third of the room, and
        // all beyond the 60 columns a title reads well in (never less than its shortest); the
        // title the rest; what either leaves unused goes to the other. A long title no longer
        // cuts the cwd to its shortest at 200 columns.
        let cwd_share = cwd_natural.min(cwd_floor.max(room / 3).max(room.saturating_sub(60)));
        title_width = title_natural.min(room.saturating_sub(cwd_share));
        let left = room.saturating_sub(title_width);
        if let Some(cwd) = droppable.iter_mut().find(|c| is_cwd(c)) {
            cwd.width = cwd.width.min(left);
        }
    }
    // Shown left to right in this order.
    let order = [
        "MODIFIED",
        "MESSAGES",
        "TOKENS",
        "COST",
        "ESTIMATED",
        "SIZE",
        "CWD",
    ];
    droppable.sort_by_key(|c| order.iter().position(|h| *h == c.heading));
    let ids = Column {
        width: ids.natural(header),
        ..ids
    };

    let pad = |text: &str, width: usize, right: bool| {
        let fill = " ".repeat(width.saturating_sub(style::width(text)));
        if right {
            format!("{fill}{text}")
        } else {
            format!("{text}{fill}")
        }
    };
    if header {
        let mut line = if marked {
            "  ".to_owned()
        } else {
            String::new()
        };
        line.push_str(&pad(ids.heading, ids.width, false));
        for c in &droppable {
            line.push_str("  ");
            line.push_str(&pad(c.heading, c.width, c.right));
        }
        line.push_str("  TITLE");
        writeln!(out, "{}", theme.dim(&line))?;
    }
    for (row, s) in sessions.iter().enumerate() {
        let mut line = match (marked, Some(s.path.as_path()) == default) {
            (false, _) => String::new(),
            (true, true) => format!("{} ", theme.bold("*")),
            (true, false) => "  ".to_owned(),
        };
        line.push_str(&theme.yellow(&pad(&ids.cells[row], ids.width, false)));
        for c in &droppable {
            let cell = &c.cells[row];
            let cell = if is_cwd(c) {
                style::truncate_left(cell, c.width)
            } else {
                std::borrow::Cow::Borrowed(cell.as_str())
            };
            let cell = pad(&cell, c.width, c.right);
            line.push_str("  ");
            line.push_str(&if c.heading == "MODIFIED" {
                theme.dim(&cell)
            } else {
                cell
            });
        }
        let title = style::truncate(&titles[row], title_width);
        line.push_str("  ");
        // Bold marks a named session: on its name only.
        line.push_str(&if s.name.is_some() {
            theme.bold(&title)
        } else {
            title.into_owned()
        });
        writeln!(out, "{}", line.trim_end())?;
    }
    // The legend of a cost marked as leaving out tokens without a price, once under the table
    // that shows one (on a terminal, as the headings: piped rows stay rows).
    let unpriced: f64 = sessions.iter().map(|s| s.usage.unpriced).sum();
    let cost_shown = header && droppable.iter().any(|c| c.heading == "COST");
    if cost_shown && style::has_unpriced(unpriced) {
        writeln!(out, "{}", theme.dim(&style::unpriced_legend(unpriced)))?;
    }
    if cost_shown && sessions.iter().any(|s| s.usage.negative_cost) {
        writeln!(out, "{}", theme.dim(&style::negative_legend()))?;
    }
    let estimate_shown = header && droppable.iter().any(|c| c.heading == "ESTIMATED");
    if let (true, Some((pricer, estimates))) = (estimate_shown, priced) {
        let mut all = Estimated::default();
        estimates.iter().flatten().for_each(|e| all.merge(e));
        writeln!(out, "{}", theme.dim(&prices::legend(pricer, &all)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{push_json, surrogates, to_json};
    use crate::views::style::truncate_left as shorten_left;
    use pisess_format::model::Usage;
    use pisess_store::summary::{Counts, Summary};

    /// Strings and numbers where a writer of JSON can go wrong: every control character,
    /// quotes and backslashes at each place of an eight-byte word, stand-ins (lone and
    /// paired), the characters beside the stand-ins' range, integers past 2^53, negative,
    /// fractional and non-finite usage, dates before 0 and past 9999 and past JavaScript's.
    #[test]
    fn the_fast_row_is_the_contracts_byte_for_byte() {
        let lone = surrogates::standin(0xD83D);
        let low = surrogates::standin(0xDE00);
        let mut texts: Vec<String> = vec![
            String::new(),
            "plain".into(),
            format!("cut {lone} here, pair {lone}{low}, tab\t"),
            "\u{10f7ff} \u{10ffff} é 😀 \u{7f}\u{80}".into(),
            "\"\\/\u{8}\u{c}\n\r\t".into(),
            "x".repeat(100) + "\"",
            "it's '' $(x)".into(),
        ];
        for c in 0u8..0x20 {
            for at in 0..9 {
                texts.push(format!(
                    "{}{}{}",
                    "a".repeat(at),
                    char::from(c),
                    "b".repeat(9 - at)
                ));
            }
        }
        for at in 0..17 {
            texts.push(format!("{}\\{}\"", "é".repeat(at), "z".repeat(at)));
        }
        let numbers = [
            0.0,
            -0.0,
            1.0,
            -7.0,
            0.5,
            1e-7,
            1e21,
            123_456.789,
            9_007_199_254_740_991.0,
            9_007_199_254_740_992.0,
            1e300,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        let ints = [0, 1, 42, 1 << 53, (1 << 53) + 1, u64::MAX];
        let dates = [
            Some(0),
            Some(-1),
            Some(1_765_241_609_825),
            Some(-62_198_755_200_001),
            Some(253_402_300_800_000),
            Some(8_640_000_000_000_000),
            Some(8_640_000_000_000_001),
            Some(-8_640_000_000_000_000),
            None,
        ];
        for (i, text) in texts.iter().enumerate() {
            let pick = |k: usize| texts[(i * 7 + k) % texts.len()].clone();
            let n = |k: usize| numbers[(i + k) % numbers.len()];
            let int = |k: usize| ints[(i + k) % ints.len()];
            let s = Summary {
                path: format!("/p/{}/s.jsonl", pick(1)).into(),
                id: text.clone(),
                cwd: pick(2),
                name: (i % 3 != 0).then(|| pick(3)),
                parent_session: (i % 4 == 1).then(|| pick(4)),
                version: int(0),
                created_ms: dates[i % dates.len()],
                modified_ms: dates[(i + 3) % dates.len()].unwrap_or(i64::MIN),
                span_ms: None,
                active_ms: None,
                mtime_ms: 0,
                mtime_js: 0.0,
                message_count: int(1),
                counts: Counts {
                    user_messages: int(2),
                    assistant_messages: int(3),
                    tool_calls: int(4),
                    tool_results: int(5),
                    tool_errors: int(6),
                },
                first_message: pick(5).into(),
                entries: int(7) as usize,
                leaf_id: (i % 2 == 0).then(|| pick(6)),
                branches: i,
                usage: Usage {
                    input: n(0),
                    output: n(1),
                    cache_read: n(2),
                    cache_write: n(3),
                    cost: n(4),
                    unpriced: n(5),
                    negative_cost: i % 2 == 0,
                    negative_tokens: i % 3 == 0,
                },
                models: (0..i % 4).map(pick).collect(),
                bytes: int(8),
                malformed_lines: int(9),
                warnings: Vec::new(),
                torn_line: None,
                tally: None,
                file_key: None,
            };
            let mut want = Vec::new();
            surrogates::write(&mut want, &to_json(&s, i * 7 % 5, None)).unwrap();
            let mut got = Vec::new();
            push_json(&mut got, &s, i * 7 % 5, None);
            assert_eq!(
                String::from_utf8_lossy(&got),
                String::from_utf8_lossy(&want),
                "row {i}"
            );
        }
    }

    #[test]
    fn a_cwd_is_cut_from_the_left_at_a_slash() {
        assert_eq!(shorten_left("~/code/webshop", 20), "~/code/webshop");
        assert_eq!(shorten_left("~/code/webshop", 10), "…/webshop");
        assert_eq!(shorten_left("~/code/webshop", 5), "…shop");
    }
}
