//! `pisess check`: a CI gate. Chooses the sessions, judges each (`crate::views::check`), then writes
//! the lines (or one JSON object per session) and, when asked, a Markdown and a JUnit report.
//!
//! Exit codes keep the agent's failure apart from the tool's: 0 every assertion held, 1 one
//! failed, 2 the check could not be made or some assertion could not be decided. With several
//! sessions the worst decides, in this order: a session that could not be checked (2), then a
//! failure (1), then an undecided assertion (2), then a pass (0): as within one session, a
//! failure wins over an undecided assertion.

mod baseline;
mod family;
mod reports;
mod verdicts;

use std::borrow::Cow;
use std::ffi::OsString;
use std::io::{BufReader, Read, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;

use crate::app::cli::CheckArgs;
use crate::app::diag::{self, Diag};
use crate::app::env::Env;
use crate::app::exit::{Outcome, Unanswered};
use crate::cmd::destination;
use crate::views::check::{self, Finding, Spec};
use crate::views::secrets::{search_stream_and, Hit, Scrub};
use crate::views::style::{self, Role};
use pisess_format::model::{EntryLine, Header};
use pisess_format::scan::{open_file, whole_file, Input, Pass, ScanError};
use pisess_format::surrogates;
use pisess_format::util::readahead::Reading;
use pisess_format::util::warning::Warn;
use pisess_store::family::runs::Made;
use pisess_store::listing::{self, Problem, Scope};
use pisess_store::locate::{Location, Skipped};
use pisess_store::select::{select, Selected};
use pisess_store::session::{IndexOptions, Indexer, Session};
use pisess_store::summary::{Detail, Summarizer, Summary};
use pisess_store::util::usage::UsageError;
pub use verdicts::{
    assertion_text, finding_text, listed_under, more_text, run_line, verdict_line, worst, Checked,
    Status,
};

pub fn run(
    args: &CheckArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let mut spec = spec(args)?;
    baseline::one_session(args)?;
    spec.baseline = baseline::gate(args, env, &spec).map_err(Unanswered)?;
    let dash = |f: &Option<OsString>| f.as_deref().is_some_and(|f| f == "-");
    let takers = [
        args.json,
        dash(&args.summary),
        dash(&args.junit),
        dash(&args.save_baseline),
    ];
    if takers.iter().filter(|&&t| t).count() > 1 {
        return Err(UsageError(
            "only one of --json, --summary -, --junit - and --save-baseline - can write to stdout"
                .to_owned(),
        )
        .into());
    }
    let redact = |path: &str| match &spec.no_secrets {
        Some(detector) => detector.redact(path).into_owned(),
        None => path.to_owned(),
    };
    let (targets, under) = targets(args, env, diag, &redact).map_err(Unanswered)?;
    // SESSIONs named are judged with their subagent runs (cmd/check/family.rs).
    let listing = args.all || args.since.is_some() || args.until.is_some();
    let as_family = !listing && !args.file_only && family::asked(&spec);
    let (targets, under) = if as_family {
        family::expand(targets, diag, &redact)
    } else {
        (targets, under)
    };
    let run_spec = as_family
        .then(|| -> anyhow::Result<Spec> {
            let detector = (spec.no_secrets.as_ref())
                .map(|_| crate::views::secrets::Detector::load(args.secrets_config.as_deref()))
                .transpose()?;
            Ok(family::run_spec(&spec, detector))
        })
        .transpose()?;
    refuse_destinations(args, env, &targets).map_err(Unanswered)?;
    let want_index = spec.needs_index();
    let mut checked = Vec::with_capacity(targets.len());
    let files: Vec<PathBuf> = (targets.iter())
        .filter_map(|t| match t {
            Target::File(path, _) => Some(path.clone()),
            _ => None,
        })
        .collect();
    let run = pisess_store::util::progress::begin(&files);
    let mut next_file = files.iter();
    let paths: Vec<Option<PathBuf>> = (targets.iter())
        .map(|t| match t {
            Target::File(path, _) => Some(path.clone()),
            _ => None,
        })
        .collect();
    for (i, target) in targets.into_iter().enumerate() {
        let spec = match (&run_spec, under.get(i)) {
            (Some(run_spec), Some(Some(_))) => run_spec,
            _ => &spec,
        };
        // The file targets come in the order of `files`.
        let file = matches!(target, Target::File(..))
            .then(|| next_file.next())
            .flatten();
        // A device that is no terminal (`< /dev/zero`) would never end: refused as `show -`
        // refuses it.
        let target = match (target, Input::stdin_allowed(env.stdin_device)) {
            (Target::Stdin, Err(e)) => Target::Failed("-".into(), e.to_string()),
            (target, _) => target,
        };
        let mut c = check_one(target, spec, want_index, diag, stdin);
        if c.short_id.is_none() {
            c.short_id = c.id.as_deref().map(|id| env.short_id(id));
        }
        if let Err(e) = &c.result {
            diag::error(diag.stderr(), env.err_theme(), &format!("{}: {e}", c.name));
        }
        checked.push(c);
        if let Some(file) = file {
            pisess_store::util::progress::done(file);
        }
    }
    drop(run);
    let families = if as_family {
        family::judge(&checked, &paths, &under, &spec, diag)
    } else {
        Vec::new()
    };

    let judged = reports::Run {
        checked: &checked,
        under: &under,
        families: &families,
    };
    let shown = (|| -> anyhow::Result<()> {
        if dash(&args.save_baseline) {
            baseline::write(&checked, out)?;
        } else if dash(&args.summary) {
            reports::markdown(&judged, out)?;
        } else if dash(&args.junit) {
            reports::junit(&judged, out)?;
        } else if args.json {
            for (i, c) in checked.iter().enumerate() {
                let mut row = serde_json::to_value(to_json(c))?;
                if let Some(&Some((p, made))) = under.get(i) {
                    let parent = &checked[p];
                    let id = parent.id.as_deref().unwrap_or_default();
                    row["subagentOf"] = crate::cmd::runs::json_of(id, &parent.name, made);
                }
                if let Some(Some(f)) = families.get(i) {
                    row["family"] = family::to_json(f, &checked);
                }
                surrogates::write(&mut *out, &row)?;
                out.write_all(b"\n")?;
            }
        } else {
            render_human(&checked, &under, &families, env, out)?;
        }
        Ok(out.flush()?)
    })();
    match shown {
        // A reader that went away (`| head -1`) must not turn the verdict into exit 0: the
        // reports are still written and the exit code still says what held.
        Err(e) if crate::app::exit::is_broken_pipe(&e) => {}
        other => other?,
    }
    // $GITHUB_STEP_SUMMARY collects every step's Markdown: added to, never replaced.
    let files = [
        (&args.summary, true, reports::markdown as Report),
        (&args.junit, false, reports::junit),
    ];
    for (file, append, report) in files {
        let Some(file) = file.as_deref().filter(|f| *f != "-") else {
            continue;
        };
        let mut text = Vec::new();
        report(&judged, &mut text)?;
        std::fs::OpenOptions::new()
            .create(true)
            .append(append)
            .write(true)
            .truncate(!append)
            .open(file)
            .and_then(|mut w| w.write_all(&text))
            .map_err(|e| Unanswered(anyhow::anyhow!("cannot write {}: {e}", show(file))))?;
    }
    if let Some(file) = args.save_baseline.as_deref().filter(|f| *f != "-") {
        baseline::save(file, &checked).map_err(Unanswered)?;
    }
    let families = families.iter().flatten().map(family::Judged::status);
    Ok(match families.fold(worst(&checked), Status::max) {
        Status::Passed => Outcome::Done,
        Status::Failed => Outcome::AssertionFailed,
        // Some assertion could not be decided, and none failed in any session: as for a
        // session that could not be checked.
        Status::Undecided | Status::Error => Outcome::Unsure,
    })
}

/// A report file that would overwrite (or append to) a session, anything under the sessions
/// folder, or a file this run reads: refused before anything is judged or written.
fn refuse_destinations(args: &CheckArgs, env: &Env, targets: &[Target]) -> anyhow::Result<()> {
    let loc = &env.location;
    let folders = [loc.root.as_path(), loc.session_dir.as_path()];
    let inputs: Vec<PathBuf> = targets
        .iter()
        .filter_map(|t| match t {
            Target::File(path, _) => Some(path.clone()),
            Target::Stdin | Target::Failed(..) => None,
        })
        .collect();
    let stdin = env
        .stdin_file
        .filter(|_| targets.iter().any(|t| matches!(t, Target::Stdin)));
    let reports = [
        ("--junit", &args.junit),
        ("--summary", &args.summary),
        ("--save-baseline", &args.save_baseline),
    ];
    for (flag, file) in reports {
        if file.as_deref().is_some_and(|f| f.is_empty()) {
            // `--summary "$GITHUB_STEP_SUMMARY"` outside Actions: said before any verdict.
            return Err(UsageError(format!(
                "{flag}: the file name is empty (an unset variable such as $GITHUB_STEP_SUMMARY?): name a file, - for stdout, or leave {flag} out"
            ))
            .into());
        }
        let Some(file) = file.as_deref().filter(|f| *f != "-") else {
            continue;
        };
        if let Some(why) =
            destination::refusal(std::path::Path::new(file), &folders, &inputs, stdin)
        {
            anyhow::bail!(
                "{flag}: not writing the report to {}: {why}",
                style::escape_control(&show(file), false)
            );
        }
    }
    Ok(())
}

/// A report's renderer ([`reports`]).
type Report = fn(&reports::Run, &mut dyn Write) -> std::io::Result<()>;

fn show(file: &std::ffi::OsStr) -> String {
    PathBuf::from(file).display().to_string()
}

/// The assertions the flags ask for; a bad value is a usage error. Without any, integrity.
fn spec(args: &CheckArgs) -> anyhow::Result<Spec> {
    let usage = |m: String| anyhow::Error::from(UsageError(m));
    let max_duration = match &args.max_duration {
        Some(s) => match pisess_format::time::parse_span(s) {
            Some(Ok(ms)) => Some((ms, s.trim().to_owned())),
            Some(Err(e @ pisess_format::time::BadWhen::TooLarge(_))) => {
                return Err(usage(format!("--max-duration: {e}")))
            }
            _ => {
                return Err(usage(format!(
                    "--max-duration: '{s}' is not a span (use 90s, 30m, 2h, 1d, 1w)"
                )))
            }
        },
        None => None,
    };
    let require_text = args
        .require_text
        .as_deref()
        .map(regex::Regex::new)
        .transpose()
        .map_err(|e| {
            usage(format!(
                "--require-text: {}",
                style::one_line(&e.to_string())
            ))
        })?;
    let blank = |names: &[String], flag: &str| {
        if names.iter().any(|n| n.trim().is_empty()) {
            Err(usage(format!("{flag}: a tool name cannot be empty")))
        } else {
            Ok(())
        }
    };
    blank(&args.require_tool, "--require-tool")?;
    blank(&args.forbid_tool, "--forbid-tool")?;
    let mut spec = Spec {
        integrity: args.integrity,
        max_cost: args.max_cost,
        unpriced: args.unpriced,
        prices: (args.prices.as_deref())
            .map(crate::views::prices::Pricer::read)
            .transpose()?,
        max_tokens: args.max_tokens,
        max_turns: args.max_turns,
        max_duration,
        max_tool_errors: if args.no_tool_errors {
            Some((0, true))
        } else {
            args.max_tool_errors.map(|n| (n, false))
        },
        ended: args.ended,
        require_tools: args.require_tool.clone(),
        forbid_tools: args.forbid_tool.clone(),
        require_text,
        no_malformed: args.no_malformed,
        no_secrets: args
            .no_secrets
            .then(|| crate::views::secrets::Detector::load(args.secrets_config.as_deref()))
            .transpose()?,
        report: args.summary.is_some(),
        baseline: None,
        save_baseline: args.save_baseline.is_some(),
        // A baseline keeps names the session gave (paths, tool names): never its secrets.
        // `--no-secrets`' own detector does it when there is one.
        redactor: ((args.baseline.is_some() || args.save_baseline.is_some()) && !args.no_secrets)
            .then(|| crate::views::secrets::Detector::load(args.secrets_config.as_deref()))
            .transpose()?,
    };
    let any = spec.max_cost.is_some()
        || spec.max_tokens.is_some()
        || spec.max_turns.is_some()
        || spec.max_duration.is_some()
        || spec.max_tool_errors.is_some()
        || spec.ended
        || !spec.require_tools.is_empty()
        || !spec.forbid_tools.is_empty()
        || spec.require_text.is_some()
        || spec.no_malformed
        || spec.no_secrets.is_some()
        || args.baseline.is_some();
    spec.integrity |= !any;
    Ok(spec)
}

/// A session to check: where it is, its summary when a listing already read it, or why it
/// cannot be read.
enum Target {
    Stdin,
    File(PathBuf, Option<Box<Summary>>),
    Failed(String, String),
}

/// The sessions the arguments name, and where each subagent run was found (the index of the
/// target it was found under, and how it was made). An error here means nothing could be
/// checked at all.
///
/// A listing's sessions (`--all`, `--since`, `--until`) are each followed by their subagent
/// runs (`crate::cmd::runs`), whatever the runs' own times; SESSIONs named are checked alone.
///
/// The files are listed and looked up without the summary cache: a gate reads nothing the run
/// it judges could have written but the session itself, and the cache is the same user's
/// (docs/guide.md, "What rm and check trust"). Each listed summary is then read from its file,
/// which is what the assertions are computed from.
#[allow(clippy::type_complexity)]
fn targets(
    args: &CheckArgs,
    env: &Env,
    diag: &mut Diag,
    redact: &dyn Fn(&str) -> String,
) -> anyhow::Result<(Vec<Target>, Vec<Option<(usize, Made)>>)> {
    let loc = &Location {
        cache: None,
        ..env.location.clone()
    };
    if args.all || args.since.is_some() || args.until.is_some() {
        let scope = if args.all { Scope::All } else { Scope::Project };
        let window = crate::cmd::window(&args.since, &args.until, env)?;
        let listing = listing::list(loc, scope, detail(args.prices.is_some()))?;
        let mut targets = Vec::new();
        for (path, problem) in &listing.problems {
            let name = path.display().to_string();
            match problem {
                // Each checked session's warnings are reported as it is checked.
                Problem::Warnings(_) => {}
                // A file or folder that cannot be read may hold the run that went wrong.
                Problem::Unreadable(e) => targets.push(Target::Failed(name, e.to_string())),
                Problem::Skipped(Skipped::Folder(e)) => {
                    targets.push(Target::Failed(
                        name,
                        pisess_format::util::warning::io_cause(e),
                    ));
                }
                // Not a session, not a regular file, gone: nothing pi would list either.
                Problem::Vanished
                | Problem::NotASession(_)
                | Problem::Skipped(_)
                | Problem::Cache(_) => {
                    problem.report(path, diag);
                }
            }
        }
        let listed: Vec<Summary> = (listing.sessions.into_iter())
            .filter(|s| window.holds(s))
            .collect();
        let stems = crate::cmd::runs::stem_files(listing.stem_folders);
        let paths = listed.iter().map(|s| s.path.clone());
        let units = crate::cmd::runs::with_runs(paths, &stems, diag, redact);
        let mut under = vec![None; targets.len()];
        let (offset, mut listed) = (targets.len(), listed.into_iter());
        for unit in units {
            // A listed session keeps the summary the listing read; a run is read when checked.
            let summary = match unit.under {
                None => listed.next().map(Box::new),
                Some(_) => None,
            };
            targets.push(Target::File(unit.path, summary));
            under.push(unit.under.map(|(p, made)| (offset + p, made)));
        }
        if targets.is_empty() {
            let whose = if args.all {
                "in any project"
            } else {
                "in this project"
            };
            let mut when = String::new();
            if let Some(s) = &args.since {
                when.push_str(&format!(" modified since {s}"));
            }
            if let Some(u) = &args.until {
                when.push_str(&format!(" modified before {u}"));
            }
            anyhow::bail!(
                "no session to check {whose}{when} under {}",
                loc.shown(if args.all {
                    &loc.root
                } else {
                    &loc.session_dir
                })
            );
        }
        return Ok((targets, under));
    }
    if args.sessions.is_empty() {
        return Ok((vec![one(None, loc, env)?], Vec::new()));
    }
    // Each argument is checked on its own: one that names nothing is reported with the rest.
    let targets = (args.sessions.iter())
        .map(|arg| {
            one(Some(arg), loc, env).unwrap_or_else(|e| {
                Target::Failed(arg.to_string_lossy().into_owned(), e.to_string())
            })
        })
        .collect();
    Ok((targets, Vec::new()))
}

/// What a session is read for: with `--prices`, each message's usage and model too (the
/// tally `stats` reads), to estimate what pi recorded at $0.
fn detail(prices: bool) -> Detail {
    if prices {
        Detail::Stats
    } else {
        Detail::Listing
    }
}

fn one(arg: Option<&OsString>, loc: &Location, env: &Env) -> anyhow::Result<Target> {
    Ok(
        match select(
            arg.map(OsString::as_os_str),
            loc,
            env.pi_session_file.as_deref(),
        )? {
            Selected::Stdin => Target::Stdin,
            Selected::File(path) => Target::File(path, None),
        },
    )
}

fn check_one(
    target: Target,
    spec: &Spec,
    want_index: bool,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> Checked {
    // A path holds the cwd pi was run in, which may hold a secret: even a session that could
    // not be checked is named with it redacted.
    let failed = |name: String, e: String| {
        let redact = |s: String| match &spec.no_secrets {
            Some(detector) => detector.redact(&s).into_owned(),
            None => s,
        };
        Checked {
            name: redact(name),
            id: None,
            short_id: None,
            title: String::new(),
            // The error names the file too.
            result: Err(redact(e)),
        }
    };
    let listed_errors = match &target {
        Target::File(_, Some(s)) => Some(s.counts.tool_errors),
        _ => None,
    };
    let want_index = want_index || spec.names_tool_errors(listed_errors);
    let (name, read) = match target {
        Target::Failed(name, e) => return failed(name, e),
        Target::Stdin => {
            // Counted, for the summary's size.
            let mut read = stdin.take(u64::MAX);
            let pass = read_once(Input::Stream(&mut read, "-"), None, spec, want_index);
            let counted = u64::MAX - read.limit();
            let pass = pass.map(|(mut summary, session, secrets)| {
                summary.bytes = counted;
                (summary, session, secrets)
            });
            ("-".to_owned(), pass)
        }
        Target::File(path, listed) => {
            let name = path.display().to_string();
            let listed = listed.map(|s| *s);
            let pass = match listed {
                // Listed, and nothing more to read.
                Some(s) if !want_index && spec.no_secrets.is_none() => Ok((s, None, Vec::new())),
                listed => open_file(&path)
                    .and_then(|opened| read_once(Input::File(&opened), listed, spec, want_index)),
            };
            (name, pass)
        }
    };
    let (summary, session, secrets) = match read {
        Ok(read) => read,
        Err(e) => return failed(name, e.to_string()),
    };
    let scrub = spec
        .no_secrets
        .as_ref()
        .map(|d| Scrub::new(d, secrets.iter().map(|h| &h.found)));
    let named = |s: &str| match &scrub {
        Some(scrub) => scrub.owned(s),
        None => s.to_owned(),
    };
    let shown_name = named(&name);
    let mut warn = |warnings: &[pisess_format::util::warning::Warning]| {
        let warnings: Vec<_> = warnings
            .iter()
            .map(|w| pisess_format::util::warning::Warning {
                line: w.line,
                message: named(&w.message),
            })
            .collect();
        diag.session_warnings(&shown_name, &warnings);
    };
    match &session {
        // With --integrity each of them is a finding, printed once, on stdout.
        Some(_) if spec.integrity => {}
        // The index's warnings include the summary's (the same scan) and its id checks.
        Some(s) => warn(&s.warnings),
        None => warn(&summary.warnings),
    }
    crate::cmd::warn_infinite_usage(diag, &shown_name, &summary.usage);
    if let Some(why) = check::undecidable(spec, &summary) {
        return failed(name, why);
    }
    let verdict = check::judge(spec, &summary, session.as_ref(), &secrets, scrub.as_ref());
    let title = summary
        .name
        .clone()
        .unwrap_or_else(|| summary.first_message.to_string());
    let Some(scrub) = &scrub else {
        return Checked {
            name,
            id: Some(summary.id.clone()),
            short_id: None,
            title,
            result: Ok(verdict),
        };
    };
    // The path (the cwd pi was run in, the session id), the id and the title may hold the
    // very secrets reported: each is replaced by its token. An id that held one is shown
    // whole (a cut token would say nothing).
    let id = scrub.text(&summary.id);
    let short_id = matches!(id, Cow::Owned(_)).then(|| id.to_string());
    Checked {
        name: shown_name,
        id: Some(id.into_owned()),
        short_id,
        title: scrub.owned(&title),
        result: Ok(verdict),
    }
}

/// One pass over a session, as it comes, never held whole: its summary (unless a listing gave
/// it), its index when an assertion needs it and, with `--no-secrets`, every line of it searched
/// (a secret on a line that no entry holds, the header or a line pi skips, is in the file all
/// the same) are its sinks.
fn read_once(
    input: Input<'_>,
    listed: Option<Summary>,
    spec: &Spec,
    want_index: bool,
) -> Result<(Summary, Option<Session>, Vec<Hit>), ScanError> {
    let file = match input {
        Input::File(opened) => Some(opened),
        _ => None,
    };
    let mut summary = listed
        .is_none()
        .then(|| Summarizer::new(detail(spec.prices.is_some())));
    let mut index = want_index
        .then(|| Indexer::new(&input, IndexOptions::default()))
        .transpose()?;
    let mut sinks = |h: &Header, e: &EntryLine| {
        if let Some(summary) = &mut summary {
            summary.entry(h, e);
        }
        if let Some(index) = &mut index {
            index.entry(e);
        }
    };
    let (report, secrets) = match (&spec.no_secrets, input) {
        (Some(d), Input::File(opened)) => {
            let reader = whole_file(opened, Reading::AheadIfBig)?;
            search_stream_and(reader, &opened.stem, d, &mut sinks)?
        }
        (Some(d), Input::Stream(read, stem)) => {
            let reader = BufReader::with_capacity(256 * 1024, read);
            search_stream_and(reader, stem, d, &mut sinks)?
        }
        (Some(_), Input::Path(_) | Input::Bytes(..) | Input::Buffered(..)) => {
            unreachable!("check reads an opened file or standard input")
        }
        (None, input) => {
            let pass = Pass::new().run(input, |h, e| {
                sinks(h, e);
                ControlFlow::Continue(())
            });
            (pass?, Vec::new())
        }
    };
    let summary = match (summary, file) {
        (Some(summary), Some(opened)) => summary.finish_file(&report, opened),
        // Standard input, the one stream checked.
        (Some(summary), None) => summary.finish(&report, "-"),
        (None, _) => listed.expect("a summary gathered unless listed"),
    };
    let session = index.map(|index| index.finish(report)).transpose()?;
    Ok((summary, session, secrets))
}

fn render_human(
    checked: &[Checked],
    under: &[Option<(usize, Made)>],
    families: &[Option<family::Judged>],
    env: &Env,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let theme = env.theme();
    let esc = |s: &str| style::escape_control(s, false).into_owned();
    for (i, c) in checked.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        // A subagent run says whose it is: the parent as its own heading names it.
        let of = match under.get(i) {
            Some(&Some((p, made))) => {
                let parent = &checked[p];
                let name = match parent.short_id.as_deref() {
                    Some(id) => id.to_owned(),
                    None => std::path::Path::new(&parent.name)
                        .file_name()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned(),
                };
                format!("  {}", theme.dim(&esc(&crate::cmd::runs::of(made, &name))))
            }
            _ => String::new(),
        };
        match c.short_id.as_deref() {
            Some(id) => {
                let id = theme.paint(Role::Id, &esc(id));
                writeln!(out, "{id}  {}{of}", esc(&c.name))?;
            }
            None => writeln!(out, "{}{of}", esc(&c.name))?,
        }
        let Ok(v) = &c.result else {
            writeln!(out, "{}", theme.paint(Role::Error, &esc(&verdict_line(c))))?;
            continue;
        };
        for a in &v.assertions {
            let status = if a.held {
                theme.green("ok  ")
            } else if a.undecided {
                theme.paint(Role::Warn, "UNDECIDED")
            } else {
                theme.paint(Role::Error, "FAIL")
            };
            writeln!(out, "{status} {}", esc(&assertion_text(a)))?;
            let (listed, more) = listed_under(v, a);
            for f in listed.iter() {
                writeln!(out, "     {}", esc(&finding_text(&c.name, f)))?;
            }
            if more > 0 {
                writeln!(out, "     {}", more_text(more))?;
            }
        }
        let line = verdict_line(c);
        let role = match c.status() {
            Status::Passed => Role::Assistant,
            Status::Undecided => Role::Warn,
            Status::Failed | Status::Error => Role::Error,
        };
        writeln!(out, "{}", theme.paint(role, &theme.bold(&line)))?;
        if let Some(Some(f)) = families.get(i) {
            for line in family::human(f, checked) {
                writeln!(out, "{}", esc(&line))?;
            }
        }
    }
    if checked.len() > 1 {
        // The sessions that did not pass, again at the end (as cargo test and pytest repeat
        // theirs): in a long run they scrolled by among the ones that did.
        let not_passed: Vec<&Checked> = checked
            .iter()
            .filter(|c| c.status() != Status::Passed)
            .collect();
        let family_failed = families
            .iter()
            .flatten()
            .any(|f| f.status() != Status::Passed);
        if !not_passed.is_empty() || family_failed {
            writeln!(out, "\n{}", theme.bold("not passed:"))?;
        }
        // A session that passed alone but whose family did not: under its family's name.
        for (c, f) in checked
            .iter()
            .zip(families)
            .filter_map(|(c, f)| Some((c, f.as_ref()?)))
        {
            if c.status() == Status::Passed && f.status() != Status::Passed {
                let id = c.short_id.as_deref().map(esc).unwrap_or_default();
                writeln!(
                    out,
                    "  {}  {} (its family)",
                    theme.paint(Role::Id, &id),
                    esc(&c.name)
                )?;
                for line in family::human(f, checked).iter().skip(1) {
                    writeln!(out, "  {}", esc(line))?;
                }
            }
        }
        for c in not_passed {
            let id = c.short_id.as_deref().map(esc).unwrap_or_default();
            writeln!(out, "  {}  {}", theme.paint(Role::Id, &id), esc(&c.name))?;
            match &c.result {
                Err(_) => writeln!(out, "    {}", esc(&verdict_line(c)))?,
                Ok(v) => {
                    for a in v.assertions.iter().filter(|a| !a.held) {
                        let word = if a.undecided { "UNDECIDED" } else { "FAIL" };
                        writeln!(out, "    {word} {}", esc(&assertion_text(a)))?;
                    }
                }
            }
        }
        let status = (families.iter().flatten())
            .map(family::Judged::status)
            .fold(worst(checked), Status::max);
        writeln!(out, "\n{}", theme.bold(&run_line(checked, status)))?;
    }
    Ok(())
}

/// One session as JSON (docs/json.md, `check --json`).
#[derive(Serialize)]
struct CheckRow<'a> {
    session: Option<&'a str>,
    path: &'a str,
    status: &'static str,
    #[serde(flatten)]
    result: ResultRow<'a>,
    /// `session` under the one vocabulary's name (docs/json.md); `session` stays.
    #[serde(rename = "sessionId")]
    session_id: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum ResultRow<'a> {
    Error {
        error: &'a str,
    },
    Checked {
        assertions: Vec<AssertionRow<'a>>,
        findings: &'a [Finding],
        #[serde(skip_serializing_if = "<[Finding]>::is_empty")]
        secrets: &'a [Finding],
        #[serde(rename = "failedToolCalls", skip_serializing_if = "<[_]>::is_empty")]
        failed_tool_calls: &'a [check::ToolError],
        #[serde(rename = "failedToolCallsMore", skip_serializing_if = "is_zero")]
        failed_tool_calls_more: u64,
        figures: &'a check::Figures,
    },
}

#[derive(Serialize)]
struct AssertionRow<'a> {
    name: &'a str,
    status: &'static str,
    measured: &'a Value,
    limit: &'a Value,
    message: String,
    /// With `--baseline`: the baseline's value of what the assertion compares.
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline: Option<&'a Value>,
}

// serde's skip_serializing_if passes a reference.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn to_json(c: &Checked) -> CheckRow<'_> {
    let result = match &c.result {
        Err(e) => ResultRow::Error { error: e },
        Ok(v) => ResultRow::Checked {
            assertions: (v.assertions.iter())
                .map(|a| AssertionRow {
                    name: &a.name,
                    status: a.status(),
                    measured: &a.measured_json,
                    limit: &a.limit_json,
                    message: assertion_text(a),
                    baseline: (v.baseline.iter())
                        .flat_map(|(_, values)| values)
                        .find(|(name, _)| *name == a.name)
                        .map(|(_, was)| was),
                })
                .collect(),
            findings: &v.findings,
            secrets: &v.secrets,
            failed_tool_calls: &v.tool_errors,
            failed_tool_calls_more: v.tool_errors_more,
            figures: &v.figures,
        },
    };
    CheckRow {
        session: c.id.as_deref(),
        path: &c.name,
        status: c.status().as_str(),
        result,
        session_id: c.id.as_deref(),
    }
}
