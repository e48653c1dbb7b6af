//! `check --baseline REF` and `--save-baseline FILE` at the edges: the flags into a
//! [`Gate`], REF read (a baseline file, checked for its schema and version, or a session,
//! measured as the run is), and the run's baseline written. The comparison itself is
//! `crate::views::check::baseline`'s.

use std::ffi::OsStr;
use std::io::Read as _;
use std::ops::ControlFlow;
use std::path::Path;

use anyhow::Context as _;

use super::verdicts::Checked;
use crate::app::cli::CheckArgs;
use crate::app::env::Env;
use crate::app::exit::Unanswered;
use crate::views::check::baseline::{Baseline, SCHEMA, VERSION};
use crate::views::check::compare::{Gate, Tolerance};
use crate::views::check::Spec;
use crate::views::style;
use pisess_format::scan::{open_file, Input, Pass};
use pisess_store::select::Selected;
use pisess_store::session::{IndexOptions, Indexer};
use pisess_store::summary::{Detail, Summarizer};
use pisess_store::util::usage::UsageError;

/// The `--baseline` assertions the flags ask for, with REF read; `None` without `--baseline`.
/// A bad tolerance, a REF that is neither a session nor a baseline this pisess reads, or no
/// assertion at all is an error (exit 2).
pub(super) fn gate(args: &CheckArgs, env: &Env, spec: &Spec) -> anyhow::Result<Option<Gate>> {
    let Some(reference) = &args.baseline else {
        return Ok(None);
    };
    let usage = |m: String| anyhow::Error::from(UsageError(m));
    let dollars = |s: &str| s.strip_prefix('$').unwrap_or(s).trim().parse().ok();
    let count = |s: &str| s.parse::<u64>().ok().map(|n| n as f64);
    #[allow(clippy::cast_precision_loss)]
    let span = |s: &str| match pisess_format::time::parse_span(s) {
        Some(Ok(ms)) => Some(ms as f64),
        _ => None,
    };
    let parse = |flag: &str,
                 given: &Option<String>,
                 absolute: &dyn Fn(&str) -> Option<f64>,
                 example: &str|
     -> anyhow::Result<Option<(Tolerance, String)>> {
        let Some(s) = given else { return Ok(None) };
        match Tolerance::parse(s, absolute) {
            Some(t) => Ok(Some((t, s.trim().to_owned()))),
            None => Err(usage(format!(
                "--{flag}: '{s}' is not a percentage (10%) or {example}"
            ))),
        }
    };
    let mut gate = Gate {
        cost: parse(
            "max-cost-increase",
            &args.max_cost_increase,
            &dollars,
            "an amount of dollars ($0.50)",
        )?,
        tokens: parse(
            "max-tokens-increase",
            &args.max_tokens_increase,
            &count,
            "a count of tokens (5000)",
        )?,
        turns: parse(
            "max-turns-increase",
            &args.max_turns_increase,
            &count,
            "a count of messages (3)",
        )?,
        duration: parse(
            "max-duration-increase",
            &args.max_duration_increase,
            &span,
            "a span (90s, 5m)",
        )?,
        no_new_tools: args.no_new_tools,
        no_new_tool_errors: args.no_new_tool_errors,
        same_tools: args.same_tools,
        priced: spec.prices.is_some(),
        unpriced: spec.unpriced,
        ..Gate::default()
    };
    if !gate.asks() {
        return Err(usage(
            "--baseline: say what to compare (--max-cost-increase, --max-tokens-increase, --max-turns-increase, --max-duration-increase, --no-new-tools, --no-new-tool-errors, --same-tools)".to_owned(),
        ));
    }
    if reference == "-" {
        return Err(usage(
            "--baseline: name a file or a session, not standard input".to_owned(),
        ));
    }
    gate.reference = Some(read_reference(reference, env, spec)?);
    Ok(Some(gate))
}

/// REF as a baseline: a baseline file when it is one (its JSON holds `schema`), else the
/// session it names, measured as `check` measures the run.
fn read_reference(reference: &OsStr, env: &Env, spec: &Spec) -> anyhow::Result<Baseline> {
    let path = pisess_store::locate::resolve(&env.location.cwd, Path::new(reference));
    let shown = |p: &Path| style::escape_control(&p.display().to_string(), false).into_owned();
    if path.is_file() {
        if let Some(value) = baseline_json(&path)? {
            return from_json(value, &shown(&path));
        }
    }
    let selected = crate::cmd::selected(Some(reference), env).context("--baseline")?;
    let Selected::File(file) = selected else {
        anyhow::bail!("--baseline: name a file or a session, not standard input");
    };
    let detector = spec.no_secrets.as_ref().or(spec.redactor.as_ref());
    let redact = |s: &str| match detector {
        Some(d) => d.redact(s).into_owned(),
        None => s.to_owned(),
    };
    let name = style::escape_control(&redact(&file.display().to_string()), false).into_owned();
    let opened = open_file(&file).with_context(|| format!("--baseline {name}"))?;
    let input = Input::File(&opened);
    let detail = if spec.prices.is_some() {
        Detail::Stats
    } else {
        Detail::Listing
    };
    let mut summary = Summarizer::new(detail);
    let mut index = Indexer::new(&input, IndexOptions::default())?;
    let report = Pass::new()
        .run(input, |h, e| {
            summary.entry(h, e);
            index.entry(e);
            ControlFlow::Continue(())
        })
        .with_context(|| format!("--baseline {name}"))?;
    let summary = summary.finish_file(&report, &opened);
    let session = index.finish(report)?;
    let estimated = (spec.prices.as_ref())
        .zip(summary.tally.as_deref())
        .map(|(p, t)| crate::views::prices::total(p, t));
    Ok(Baseline::of(
        &summary,
        &session,
        estimated.as_ref(),
        &redact,
    ))
}

/// The file's JSON when it is a baseline (or claims a schema), `None` when it is no JSON
/// document with a `schema` (a session, whose lines are each a document). Only the first
/// 64 KiB are read of a file that cannot be one (a session of 400 MB starts with its header).
fn baseline_json(path: &Path) -> anyhow::Result<Option<serde_json::Value>> {
    let mut file = std::fs::File::open(path).with_context(|| path.display().to_string())?;
    let mut start = vec![0; 64 * 1024];
    let mut got = 0;
    while got < start.len() {
        match file.read(&mut start[got..])? {
            0 => break,
            n => got += n,
        }
    }
    start.truncate(got);
    // A session's first line is a complete object without a `schema`.
    let first = start.split(|&b| b == b'\n').next().unwrap_or_default();
    if let Ok(serde_json::Value::Object(header)) = serde_json::from_slice(first) {
        if !header.contains_key("schema") {
            return Ok(None);
        }
    }
    let mut all = start;
    file.read_to_end(&mut all)?;
    match serde_json::from_slice::<serde_json::Value>(&all) {
        Ok(v @ serde_json::Value::Object(_)) if v.get("schema").is_some() => Ok(Some(v)),
        _ => Ok(None),
    }
}

/// A baseline file's JSON as a [`Baseline`]: another schema or a newer version is refused in
/// one line (exit 2), never read as if it were this one.
fn from_json(value: serde_json::Value, name: &str) -> anyhow::Result<Baseline> {
    let usage = |m: String| anyhow::Error::from(UsageError(m));
    let schema = value.get("schema").and_then(serde_json::Value::as_str);
    if schema != Some(SCHEMA) {
        let said = style::one_line(&value["schema"].to_string());
        return Err(usage(format!(
            "--baseline {name}: not a pisess baseline (schema {}, want \"{SCHEMA}\")",
            style::truncate(&said, 60)
        )));
    }
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v > VERSION => {
            return Err(usage(format!(
                "--baseline {name}: a {SCHEMA} of version {v}, written by a newer pisess; this one reads version {VERSION}"
            )))
        }
        Some(_) => {}
        None => {
            return Err(usage(format!(
                "--baseline {name}: its version is not a whole number"
            )))
        }
    }
    serde_json::from_value(value).map_err(|e| {
        usage(format!(
            "--baseline {name}: not a valid {SCHEMA}: {}",
            style::one_line(&e.to_string())
        ))
    })
}

/// `--save-baseline` asks for one session's: several named (or a listing) is a usage error.
pub(super) fn one_session(args: &CheckArgs) -> anyhow::Result<()> {
    let several =
        args.sessions.len() > 1 || args.all || args.since.is_some() || args.until.is_some();
    if args.save_baseline.is_some() && several {
        return Err(UsageError(
            "--save-baseline writes one session's baseline: name one SESSION (or none, for the newest)"
                .to_owned(),
        )
        .into());
    }
    Ok(())
}

/// The first checked session's baseline (the one named; subagent runs come after it),
/// pretty-printed so a committed baseline reads and diffs line by line.
fn text(checked: &[Checked], to: &str) -> anyhow::Result<Vec<u8>> {
    let run = checked
        .first()
        .and_then(|c| c.result.as_ref().ok())
        .and_then(|v| v.baseline.as_ref());
    let Some((run, _)) = run else {
        // Exit 2, as for the session that could not be checked.
        return Err(Unanswered(anyhow::anyhow!(
            "--save-baseline: the session could not be checked, so no baseline was written to {to}"
        ))
        .into());
    };
    let mut text = serde_json::to_vec_pretty(run)?;
    text.push(b'\n');
    Ok(text)
}

/// `--save-baseline -`: the baseline on stdout, in place of the lines.
pub(super) fn write(checked: &[Checked], out: &mut dyn std::io::Write) -> anyhow::Result<()> {
    Ok(out.write_all(&text(checked, "stdout")?)?)
}

/// Writes the baseline to `file`.
pub(super) fn save(file: &OsStr, checked: &[Checked]) -> anyhow::Result<()> {
    let shown = style::escape_control(&Path::new(file).display().to_string(), false).into_owned();
    let text = text(checked, &shown)?;
    std::fs::write(file, text).with_context(|| format!("cannot write {shown}"))
}
