//! `pisess stats`: what one run did and cost, or usage reports over many sessions.
//!
//! The data comes from the listing's one pass per file ([`Detail::Stats`]), which a report over
//! many sessions takes from the tally cache for the files that did not change; for one session the
//! next request's size also needs the index `context` builds, a second read of that file only.
//! Data first ([`One`], buckets, rows), then one of the renderers.

mod copies;
pub(crate) mod family;
mod human;
mod table;

use std::io::{Read, Write};
use std::ops::ControlFlow;

use anyhow::Context as _;
use jiff::tz::TimeZone;
use serde::Serialize;
use serde_json::Value;

use crate::app::cli::StatsArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::views::context;
use crate::views::prices::{self, EstimateJson, Pricer};
use crate::views::stats::{Bucket, By, FamilyTotals, Grouper, One, RowWindow};
use pisess_format::js::JsValue;
use pisess_format::model::{EntryLine, Header, Usage};
use pisess_format::scan::{Input, Pass};
use pisess_format::surrogates;
use pisess_format::time::to_json_date;
use pisess_format::util::warning::Warn;
use pisess_store::listing::{self, Scope, Window};
use pisess_store::select::{select, Selected};
use pisess_store::session::{IndexOptions, Indexer, Session};
use pisess_store::summary::{summarize, Detail, Summarizer, Summary, SummaryOptions};
use pisess_store::util::usage::UsageError;

pub fn run(
    args: &StatsArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let tz = match &args.tz {
        Some(name) => TimeZone::get(name)
            .map_err(|e| UsageError(format!("--tz: unknown time zone '{name}': {e}")))?,
        None => env.tz.clone(),
    };
    let window = Window::parse(
        args.since.as_deref(),
        args.until.as_deref(),
        env.now_ms,
        &tz,
    )?;
    // Read before anything is written: a bad table stops the command with nothing emitted.
    let pricer = args.prices.as_deref().map(Pricer::read).transpose()?;
    let pricer = pricer.as_ref();
    let report = args.all
        || args.sessions.len() > 1
        || !args.by.is_empty()
        || window.since.is_some()
        || window.until.is_some();
    let (by, then) = keys(&args.by)?;
    let shaped = args.sort.is_some() || args.top.is_some() || args.format.is_some();
    if shaped && (!report || by == By::Message) {
        return Err(UsageError(
            "--sort, --top and --format shape a report (--all, --by day|week|month|model|project|session|tool, --since): not one session, not --by message".into(),
        ).into());
    }
    if !report {
        let one = read_one(
            args.sessions.first().map(|s| s.as_os_str()),
            args.forks,
            env,
            diag,
            stdin,
        )?;
        if args.json {
            surrogates::write(&mut *out, &one_json(&one, pricer))?;
            out.write_all(b"\n")?;
        } else {
            human::one(&one, pricer, env, &tz, out)?;
        }
        return Ok(Outcome::Done);
    }

    let rows = RowWindow {
        since: window.since,
        until: window.until,
    };
    let failed;
    if by == By::Message {
        let (sessions, read_failed) = read_many(args, rows, env, diag, stdin)?;
        failed = read_failed;
        write_messages(&sessions, rows, args.json, pricer, env, &tz, out)?;
    } else {
        let mut grouper = Grouper::new(by, &tz, rows, pricer).then(then);
        let mut members = Vec::new();
        if args.sessions.is_empty() {
            // Each session is grouped and dropped on the thread that read it; only its share
            // is kept until the shares are added in file order.
            // A session with subagent runs brings its family's shares (family.rs: each token
            // once), and what its runs had to say.
            let scope = if args.all { Scope::All } else { Scope::Project };
            // A fork or clone leaves out what it copied from a file the report counts.
            let rules = grouper.rules();
            // The listed files, as the walk hands them to the first session with a family.
            let listed: std::sync::OnceLock<Vec<std::path::PathBuf>> = std::sync::OnceLock::new();
            let counted = family::counted(|| match listed.get() {
                Some(files) => files.clone(),
                None => {
                    listing::files(&env.location, scope).map_or_else(|_| Vec::new(), |f| f.files)
                }
            });
            let remember = family::Remember::new(env.location.cache.as_ref(), &listed);
            failed = listing::walk(
                &env.location,
                scope,
                Detail::Stats,
                by == By::Session || then == Some(By::Session),
                diag,
                // A session the window does not count is not warned about.
                |s, stem, files| {
                    let said = rows.counts(&s);
                    let forked = s.parent_session.as_deref().is_some_and(|p| !p.is_empty());
                    // Nothing allocated for a session without runs or copies.
                    if !stem && !forked {
                        let share = rules.share(&s);
                        return (copies::Member::alone(s.id, s.path, share), said);
                    }
                    let (id, path) = (s.id.clone(), s.path.clone());
                    let (first, runs, warnings) =
                        family::member(s, stem, files, &counted, &remember);
                    let member = copies::Member {
                        id,
                        path,
                        share: rules.share(&first),
                        runs: runs.iter().map(|m| rules.share(m)).collect(),
                        warnings,
                    };
                    (member, said)
                },
                |member| members.push(member),
            )?;
            remember.save();
        } else {
            let (sessions, read_failed) = read_many(args, rows, env, diag, stdin)?;
            failed = read_failed;
            let rules = grouper.rules();
            members.extend(sessions.iter().map(|s| copies::Member {
                id: s.id.clone(),
                path: s.path.clone(),
                share: rules.share(s),
                runs: Vec::new(),
                warnings: Vec::new(),
            }));
        }
        // A session in two files (a backup, a `cp`) counted once, its copies named.
        let (members, copied) = copies::once(members);
        for m in members {
            grouper.merge(m.share);
            m.runs.into_iter().for_each(|share| grouper.merge(share));
            for (place, why) in m.warnings {
                diag.warn(&place.display().to_string(), None, &why);
            }
        }
        if by == By::Session && then.is_none() {
            for c in &copied {
                let files = std::iter::once(&c.counted).chain(&c.copies);
                grouper.name_files(&c.id, files.map(|p| p.display().to_string()).collect());
            }
        }
        let (mut buckets, total) = grouper.finish(args.sort);
        // The total row keeps what `--top` leaves out: it is the report's, not the rows'.
        let left_out = args.top.map_or(0, |n| buckets.len().saturating_sub(n));
        buckets.truncate(buckets.len() - left_out);
        let by_name = match then {
            Some(then) => format!("{},{}", by.as_str(), then.as_str()),
            None => by.as_str().to_owned(),
        };
        if let Some(format) = args.format {
            table::write(format, by, then, &buckets, pricer.is_some(), out)?;
        } else if args.json {
            for b in buckets.iter().chain(std::iter::once(&total)) {
                let is_total = std::ptr::eq(b, &total);
                let row = bucket_json(&by_name, by, b, is_total, pricer.is_some());
                surrogates::write(&mut *out, &row)?;
                out.write_all(b"\n")?;
            }
        } else {
            human::buckets(by, then, &buckets, &total, pricer, env, out)?;
            if left_out > 0 {
                let theme = env.theme();
                let rows = if left_out == 1 { "row" } else { "rows" };
                let note =
                    format!("({left_out} more {rows} not shown: --top; the total counts them)");
                writeln!(out, "{}", theme.dim(&note))?;
            }
        }
    }
    Ok(Outcome::partly_failed_if(failed))
}

/// `--by`'s keys: one, or two that make a pair (`day,model`); none is `session`.
fn keys(by: &[By]) -> Result<(By, Option<By>), UsageError> {
    match *by {
        [] => Ok((By::Session, None)),
        [one] => Ok((one, None)),
        [first, then] if first == then => Err(UsageError(format!(
            "--by {0},{0}: the same key twice",
            first.as_str()
        ))),
        [first, then]
            if [first, then]
                .iter()
                .any(|b| matches!(b, By::Tool | By::Message)) =>
        {
            Err(UsageError(format!(
                "--by {},{}: tool and message take no second key",
                first.as_str(),
                then.as_str()
            )))
        }
        [first, then] => Ok((first, Some(then))),
        _ => Err(UsageError("--by takes one key or two (day,model)".into())),
    }
}

/// Reads the one session and what `context` would send after its leaf.
fn read_one(
    arg: Option<&std::ffi::OsStr>,
    with_forks: bool,
    env: &Env,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<One> {
    let selected = select(arg, &env.location, env.pi_session_file.as_deref())?;
    let mut js = JsTotals::default();
    let mut family = None;
    let (summary, session) = match &selected {
        Selected::Stdin => {
            Input::stdin_allowed(env.stdin_device)?;
            // The summary and the index are sinks of one pass: the stream can be read once,
            // and is, as it comes, never held whole.
            let mut summary = Summarizer::new(Detail::Stats);
            let input = Input::Stream(stdin, "-");
            let mut index = Indexer::new(&input, IndexOptions::default())?;
            let report = Pass::new()
                .run(input, |h, e| {
                    js.observe(e);
                    summary.entry(h, e);
                    index.entry(e);
                    ControlFlow::Continue(())
                })
                .context("<stdin>")?;
            let summary = summary.finish(&report, "-");
            (summary, index.finish(report).context("<stdin>")?)
        }
        Selected::File(path) => {
            let name = path.display().to_string();
            let mut observe = |_: &Header, e: &EntryLine| js.observe(e);
            let options = SummaryOptions {
                also: Some(&mut observe),
                ..stats()
            };
            let summary = summarize(path, options).context(name.clone())?;
            let runs = family::read(path);
            let forks = with_forks
                .then(|| family::forks(path, &env.location))
                .transpose()?;
            family = family_totals(&summary, runs, forks, diag);
            (
                summary,
                Session::open(path, IndexOptions::default()).context(name)?,
            )
        }
    };
    diag.session_warnings(&session.name, &summary.warnings);
    crate::cmd::warn_infinite_usage(diag, &session.name, &summary.usage);
    let plan = context::plan(&session, None)?;
    let (mut next_messages, mut next_tokens) = (0, 0);
    for item in &plan.items {
        let (messages, _) = context::project(&session, item)?;
        next_messages += messages.len();
        next_tokens += messages.iter().map(context::estimate_tokens).sum::<usize>();
    }
    Ok(One {
        summary,
        next_messages,
        next_tokens,
        pi_totals: js.strings().then(|| js.to_json()),
        family,
    })
}

/// The family's figures beside the session's: with its subagent runs (`runs`, when any were
/// found) and, when asked, its forks and theirs; `None` when it has neither.
fn family_totals(
    summary: &Summary,
    runs: Option<family::Family>,
    forks: Option<family::Forks>,
    diag: &mut Diag,
) -> Option<FamilyTotals> {
    let forks = forks.filter(|f| !f.forks.is_empty() || !f.warnings.is_empty());
    if runs.is_none() && forks.as_ref().is_none_or(|f| f.forks.is_empty()) {
        for (place, why) in forks.iter().flat_map(|f| &f.warnings) {
            diag.warn(&place.display().to_string(), None, why);
        }
        return None;
    }
    let own = std::slice::from_ref(summary);
    let members = runs.as_ref().map_or(own, |r| &r.members[..]);
    let (forks, fork_runs, mut warnings) = match forks {
        Some(f) => (f.forks, f.runs, f.warnings),
        None => Default::default(),
    };
    warnings.extend(runs.iter().flat_map(|r| r.warnings.iter().cloned()));
    for (place, why) in &warnings {
        diag.warn(&place.display().to_string(), None, why);
    }
    let all = members.iter().chain(&forks).chain(&fork_runs);
    Some(FamilyTotals {
        sessions: members.len() + forks.len() + fork_runs.len(),
        subagent_runs: members.len() - 1 + fork_runs.len(),
        forks: forks.len(),
        usage: family::usage(all),
    })
}

/// pi's `getSessionStats` totals as JavaScript adds them: `totals.input += usage.input` and so
/// on from 0, over the entries it counts, so a string count makes the total a string (`0 + "5"`
/// is `"05"`) and an object or array one its text. Kept beside the numeric [`Usage`] (which
/// cannot hold a string: NaN there) for `stats --json SESSION` to give what pi gives. In the
/// order of [`JS_FIELDS`], then the cost.
struct JsTotals([JsValue; 5]);

/// pi's token counts of a usage, as it names them.
const JS_FIELDS: [&str; 4] = ["input", "output", "cacheRead", "cacheWrite"];

impl Default for JsTotals {
    fn default() -> Self {
        JsTotals(std::array::from_fn(|_| JsValue::Num(0.0)))
    }
}

impl JsTotals {
    /// pi's choice of usages: every `usage` entry's, a compaction's or branch summary's and a
    /// tool result's when it has one, every assistant message's. (Where pi would throw, an
    /// absent usage of a `usage` entry or an assistant message, nothing is added.)
    fn observe(&mut self, e: &EntryLine) {
        use pisess_format::model::EntryKind as K;
        let message = e.view.message.0.as_ref();
        let (raw, always) = match &e.kind {
            K::Usage => (e.view.usage, true),
            K::Compaction | K::BranchSummary => (e.view.usage, false),
            K::Message => match message.and_then(|m| m.role.get()) {
                Some("assistant") => (message.and_then(|m| m.usage), true),
                Some("toolResult") => (message.and_then(|m| m.usage), false),
                _ => return,
            },
            _ => return,
        };
        let Some(usage) = raw.and_then(|r| serde_json::from_str::<Value>(r.get()).ok()) else {
            return;
        };
        if !always && !pisess_format::js::js_truthy(Some(&usage)) {
            return;
        }
        let cost = usage.get("cost").and_then(|c| c.get("total"));
        let figures = JS_FIELDS.iter().map(|k| usage.get(*k)).chain([cost]);
        for (total, figure) in self.0.iter_mut().zip(figures) {
            *total = total.plus(&JsValue::of(figure));
        }
    }

    /// Whether a total is a string: only then do pi's totals differ from the numeric ones in
    /// more than a count pisess reads as 0 where pi has NaN (format.md).
    fn strings(&self) -> bool {
        self.0.iter().any(JsValue::is_string)
    }

    /// `{tokens: {input, output, cacheRead, cacheWrite, total}, cost}` as pi's object has them
    /// (and `totalTokens`).
    fn to_json(&self) -> (Value, Value) {
        let [input, output, cache_read, cache_write, cost] = &self.0;
        let total = input.plus(output).plus(cache_read).plus(cache_write);
        // `totalTokens`: `total` under the one vocabulary's name, as [`Tokens`] has it.
        let counts =
            (JS_FIELDS.iter().zip(&self.0)).chain([(&"total", &total), (&"totalTokens", &total)]);
        let tokens = counts
            .map(|(k, v)| ((*k).to_owned(), v.to_json()))
            .collect();
        (Value::Object(tokens), cost.to_json())
    }
}

/// The sessions of a report: `--all`, the SESSIONs given, or this project's.
fn read_many(
    args: &StatsArgs,
    rows: RowWindow,
    env: &Env,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<(Vec<Summary>, bool)> {
    if args.sessions.is_empty() {
        let scope = if args.all { Scope::All } else { Scope::Project };
        let mut listing = listing::list(&env.location, scope, Detail::Stats)?;
        // A damaged session the window does not count is not warned about (as `ls --since`).
        let counted: std::collections::HashSet<std::path::PathBuf> = (listing.sessions.iter())
            .filter(|s| rows.counts(s))
            .map(|s| s.path.clone())
            .collect();
        listing.problems.retain(|(path, p)| {
            !matches!(p, listing::Problem::Warnings(_)) || counted.contains(path)
        });
        let failed = listing.report(diag);
        // Each session with subagent runs followed by them, as `--all` reports count them.
        let stems = crate::cmd::runs::stem_files(std::mem::take(&mut listing.stem_folders));
        let paths: Vec<std::path::PathBuf> =
            listing.sessions.iter().map(|s| s.path.clone()).collect();
        let counted = family::counted(|| paths.clone());
        let mut sessions = Vec::with_capacity(listing.sessions.len());
        for s in listing.sessions {
            let (s, mut warnings) = family::without_copies(s, &counted);
            match (stems.contains(&s.path).then(|| family::read(&s.path))).flatten() {
                Some(mut f) => {
                    let (first, mut more) =
                        family::first_without_copies(f.members.remove(0), &counted);
                    warnings.append(&mut more);
                    warnings.append(&mut f.warnings);
                    sessions.push(first);
                    sessions.extend(f.members);
                }
                None => sessions.push(s),
            }
            for (place, why) in &warnings {
                diag.warn(&place.display().to_string(), None, why);
            }
        }
        for s in &sessions {
            crate::cmd::warn_infinite_usage(diag, &s.path.display().to_string(), &s.usage);
        }
        return Ok((sessions, failed));
    }
    let mut sessions: Vec<Summary> = Vec::new();
    for arg in &args.sessions {
        let summary = match select(Some(arg), &env.location, env.pi_session_file.as_deref())? {
            Selected::Stdin => {
                Input::stdin_allowed(env.stdin_device)?;
                summarize(Input::Stream(&mut *stdin, "-"), stats()).context("<stdin>")?
            }
            Selected::File(path) => {
                summarize(&path, stats()).with_context(|| path.display().to_string())?
            }
        };
        diag.session_warnings(&summary.path.display().to_string(), &summary.warnings);
        crate::cmd::warn_infinite_usage(diag, &summary.path.display().to_string(), &summary.usage);
        // The same session named twice is read, and counted, once.
        if !sessions.iter().any(|s| s.path == summary.path) {
            sessions.push(summary);
        }
    }
    // A fork or clone named with its source leaves out what it copied from it.
    let paths: Vec<std::path::PathBuf> = sessions.iter().map(|s| s.path.clone()).collect();
    let counted = family::counted(|| paths.clone());
    let sessions = (sessions.into_iter())
        .map(|s| {
            let (s, warnings) = family::without_copies(s, &counted);
            for (place, why) in &warnings {
                diag.warn(&place.display().to_string(), None, why);
            }
            s
        })
        .collect();
    Ok((sessions, false))
}

/// `{input, output, cacheRead, cacheWrite, total}`, numbers as JavaScript writes them.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Tokens {
    input: f64,
    output: f64,
    cache_read: f64,
    cache_write: f64,
    total: f64,
    /// `total` under the one vocabulary's name (docs/json.md); `total` stays.
    total_tokens: f64,
}

impl From<&Usage> for Tokens {
    fn from(u: &Usage) -> Tokens {
        Tokens {
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            total: u.total_tokens(),
            total_tokens: u.total_tokens(),
        }
    }
}

/// pi's totals where they differ from the numeric ones ([`One::pi_totals`]), else ours.
#[derive(Serialize)]
#[serde(untagged)]
enum Figure<'a, T> {
    Ours(T),
    Pis(&'a Value),
}

/// The object of `stats --json SESSION`: pi's `getSessionStats` fields first, then the rest.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OneRow<'a> {
    id: &'a str,
    name: Option<&'a str>,
    cwd: &'a str,
    path: std::borrow::Cow<'a, str>,
    started: Option<String>,
    last_active: Option<String>,
    duration_ms: Option<i64>,
    user_messages: u64,
    assistant_messages: u64,
    tool_calls: u64,
    tool_results: u64,
    total_messages: u64,
    tokens: Figure<'a, Tokens>,
    cost: Figure<'a, f64>,
    unpriced_tokens: f64,
    /// With `--prices`.
    #[serde(flatten)]
    estimate: Option<EstimateJson>,
    tool_errors: u64,
    models: Vec<ModelRow>,
    tools: Vec<ToolRow<'a>>,
    stop_reasons: StopsRow<'a>,
    compactions: CompactionsRow,
    branches: usize,
    branch_summaries: u64,
    files: &'a pisess_store::tally::Files,
    active_branch_cost: f64,
    abandoned_branch_cost: f64,
    next_request: NextRow,
    /// With subagent runs: the family's figures, each token once (family.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    family: Option<FamilyRow>,
    /// `id` under the one vocabulary's name (docs/json.md); `id` stays.
    session_id: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FamilyRow {
    sessions: usize,
    subagent_runs: usize,
    /// With `--forks`: the sessions descending from it by `parentSession`.
    forks: usize,
    tokens: Tokens,
    cost: f64,
    unpriced_tokens: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ModelRow {
    model: String,
    assistant_messages: u64,
    tokens: Tokens,
    cost: f64,
    /// With `--prices`.
    #[serde(flatten)]
    estimate: Option<EstimateJson>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolRow<'a> {
    name: &'a str,
    calls: u64,
    errors: u64,
    /// `bash`'s alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    failed_commands: Option<&'a [String]>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StopsRow<'a> {
    error: u64,
    aborted: u64,
    length: u64,
    last: Option<&'a str>,
    last_error_message: Option<&'a str>,
    error_messages: Vec<ErrorMessageRow<'a>>,
}

#[derive(Serialize)]
struct ErrorMessageRow<'a> {
    message: &'a str,
    count: u64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompactionsRow {
    count: u64,
    tokens_before: f64,
}

#[derive(Serialize)]
struct NextRow {
    messages: usize,
    tokens: usize,
}

fn one_json<'a>(one: &'a One, pricer: Option<&Pricer>) -> OneRow<'a> {
    let s = &one.summary;
    let t = one.tally();
    let per_model = pricer.map(|p| prices::per_model(p, t));
    let (active, abandoned) = t.cost_split();
    let stops = &t.stops;
    OneRow {
        id: &s.id,
        name: s.name.as_deref(),
        cwd: &s.cwd,
        path: s.path.to_string_lossy(),
        started: s.created_ms.and_then(to_json_date),
        last_active: to_json_date(s.modified_ms),
        duration_ms: s.duration_ms(),
        user_messages: s.counts.user_messages,
        assistant_messages: s.counts.assistant_messages,
        tool_calls: s.counts.tool_calls,
        tool_results: s.counts.tool_results,
        total_messages: s.message_count,
        tokens: one
            .pi_totals
            .as_ref()
            .map_or_else(|| Figure::Ours((&s.usage).into()), |t| Figure::Pis(&t.0)),
        cost: one
            .pi_totals
            .as_ref()
            .map_or(Figure::Ours(s.usage.cost), |t| Figure::Pis(&t.1)),
        unpriced_tokens: s.usage.unpriced,
        estimate: pricer.map(|p| (&prices::total(p, t)).into()),
        tool_errors: s.counts.tool_errors,
        models: t
            .per_model()
            .into_iter()
            .map(|(model, turns, u)| ModelRow {
                estimate: per_model
                    .as_ref()
                    .map(|m| (&m.get(&model).copied().unwrap_or_default()).into()),
                model,
                assistant_messages: turns,
                tokens: (&u).into(),
                cost: u.cost,
            })
            .collect(),
        tools: t
            .tools
            .iter()
            .map(|(name, c)| ToolRow {
                name,
                calls: c.calls,
                errors: c.errors,
                failed_commands: (name == "bash").then_some(&t.failed_commands[..]),
            })
            .collect(),
        stop_reasons: StopsRow {
            error: stops.error,
            aborted: stops.aborted,
            length: stops.length,
            last: stops.last.as_deref(),
            last_error_message: stops.last_error.as_deref(),
            error_messages: (stops.error_messages.iter())
                .map(|(message, count)| ErrorMessageRow {
                    message,
                    count: *count,
                })
                .collect(),
        },
        compactions: CompactionsRow {
            count: t.compactions,
            tokens_before: t.tokens_before,
        },
        branches: s.branches,
        branch_summaries: t.branch_summaries,
        files: &t.files,
        active_branch_cost: active,
        abandoned_branch_cost: abandoned,
        next_request: NextRow {
            messages: one.next_messages,
            tokens: one.next_tokens,
        },
        family: one.family.as_ref().map(|f| FamilyRow {
            sessions: f.sessions,
            subagent_runs: f.subagent_runs,
            forks: f.forks,
            tokens: (&f.usage).into(),
            cost: f.usage.cost,
            unpriced_tokens: f.usage.unpriced,
        }),
        session_id: &s.id,
    }
}

/// One report row (`total: true` and no key on the last).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BucketRow<'a> {
    by: &'a str,
    key: Option<&'a str>,
    total: bool,
    sessions: u64,
    user_messages: u64,
    assistant_messages: u64,
    tool_calls: u64,
    tool_results: u64,
    total_messages: u64,
    tool_errors: u64,
    tokens: Tokens,
    cost: f64,
    unpriced_tokens: f64,
    /// With `--prices`.
    #[serde(flatten)]
    estimate: Option<EstimateJson>,
    /// `--by session`: the key under the one vocabulary's name (docs/json.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a str>,
    /// With two keys: each, in `by`'s order (`key` is them joined by a space).
    #[serde(skip_serializing_if = "Option::is_none")]
    keys: Option<&'a [String]>,
    /// `--by session`, a session in several files: the file counted, and its copies (not
    /// counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    copies: Option<&'a [String]>,
}

fn bucket_json<'a>(
    by_name: &'a str,
    by: By,
    b: &'a Bucket,
    total: bool,
    priced: bool,
) -> BucketRow<'a> {
    BucketRow {
        by: by_name,
        key: (!total).then_some(b.key.as_str()),
        total,
        sessions: b.sessions,
        user_messages: b.counts.user_messages,
        assistant_messages: b.counts.assistant_messages,
        tool_calls: b.counts.tool_calls,
        tool_results: b.counts.tool_results,
        total_messages: b.messages,
        tool_errors: b.counts.tool_errors,
        tokens: (&b.usage).into(),
        cost: b.usage.cost,
        unpriced_tokens: b.usage.unpriced,
        estimate: priced.then(|| (&b.estimated).into()),
        session_id: (by == By::Session && !total && b.keys.len() == 1).then_some(b.key.as_str()),
        keys: (!total && b.keys.len() > 1).then_some(&b.keys[..]),
        path: b.files.first().map(String::as_str),
        copies: b.files.get(1..),
    }
}

/// One row of `--by message`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageRow<'a> {
    session: &'a str,
    cwd: &'a str,
    entry_id: Option<&'a str>,
    timestamp: Option<String>,
    r#type: &'a str,
    role: Option<&'a str>,
    provider: Option<&'a str>,
    model: Option<&'a str>,
    model_key: Option<String>,
    input: f64,
    output: f64,
    cache_read: f64,
    cache_write: f64,
    total_tokens: f64,
    cost: f64,
    /// With `--prices`.
    #[serde(flatten)]
    estimate: Option<MessageEstimate<'a>>,
    tool_name: &'a Option<pisess_store::tally::Name>,
    tool_calls: &'a [pisess_store::tally::Name],
    is_error: Option<bool>,
    stop_reason: Option<&'a str>,
    active: bool,
    /// `session` under the one vocabulary's name (docs/json.md); `session` stays.
    session_id: &'a str,
}

/// A fact row's estimate (`--prices`): null where pi priced the usage, or there is none.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MessageEstimate<'a> {
    estimated_cost: Option<f64>,
    /// The table's key that priced it, and the step of the rule that found the key.
    price_key: Option<&'a str>,
    price_match: Option<&'static str>,
    /// Why usage pi recorded at cost 0 has no estimate either.
    unestimated: Option<String>,
}

impl<'a> From<Option<&prices::Estimate<'a>>> for MessageEstimate<'a> {
    fn from(e: Option<&prices::Estimate<'a>>) -> Self {
        let cost = e.map(|e| &e.1);
        let found = cost.and_then(|c| c.as_ref().ok());
        MessageEstimate {
            estimated_cost: found.map(|(c, _)| c.total),
            price_key: found.map(|(_, m)| m.key),
            price_match: found.map(|(_, m)| m.by.as_str()),
            unestimated: cost.and_then(|c| c.as_ref().err()).map(ToString::to_string),
        }
    }
}

/// `--by message`: the fact table, one row per message-bearing entry, in each file's order.
fn write_messages(
    sessions: &[Summary],
    window: RowWindow,
    json: bool,
    pricer: Option<&Pricer>,
    env: &Env,
    tz: &TimeZone,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    for s in sessions {
        let Some(t) = s.tally.as_deref() else {
            continue;
        };
        let matches = pricer.map(|p| p.models(t));
        for r in t.rows.iter().filter(|r| window.holds(r)) {
            let e = matches.as_deref().map(|m| prices::estimate(m, r));
            let (provider, model) = r
                .model
                .and_then(|i| t.models.get(i as usize))
                .map_or((None, None), |m| {
                    (m.provider.as_deref(), m.model.as_deref())
                });
            let u = r.usage.unwrap_or_default();
            if json {
                let row = MessageRow {
                    session: &s.id,
                    cwd: &s.cwd,
                    entry_id: r.id.as_deref(),
                    timestamp: r.ts_ms.and_then(to_json_date),
                    r#type: if r.message {
                        "message"
                    } else {
                        r.role.as_str()
                    },
                    role: r.message.then_some(r.role.as_str()),
                    provider,
                    model,
                    model_key: t.model_name(r.model),
                    input: u.input,
                    output: u.output,
                    cache_read: u.cache_read,
                    cache_write: u.cache_write,
                    total_tokens: u.total_tokens(),
                    cost: u.cost,
                    estimate: e.as_ref().map(|e| e.as_ref().into()),
                    tool_name: &r.tool,
                    tool_calls: &r.calls,
                    is_error: r.is_error,
                    stop_reason: r.stop_reason.as_deref(),
                    active: r.active,
                    session_id: &s.id,
                };
                surrogates::write(&mut *out, &row)?;
                out.write_all(b"\n")?;
            } else {
                human::message_row(s, t, r, e.as_ref(), env, tz, out)?;
            }
        }
    }
    Ok(())
}

/// A summary with what `stats` reports ([`Detail::Stats`]).
fn stats() -> SummaryOptions<'static> {
    SummaryOptions {
        detail: Detail::Stats,
        ..SummaryOptions::default()
    }
}
