//! `pisess export`: the arguments to a format, a branch and a destination, or to an archive
//! of many sessions ([`archive`]); the data and the renderers are `views::export`'s.

mod archive;
mod runs;

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::Path;

use crate::app::cli::{ExportArgs, ExportFormat, ToolsArg};
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::cmd::{cycle_warning, destination, find_entry, open_session, warn_cycle};
use crate::views::export::{self, jsonl, Redact, Tools, Verbatim, View};
use crate::views::prices::{self, Pricer};
use crate::views::secrets::{Detector, Scrub};
use crate::views::style;
use pisess_format::model::{Entry, Role, Usage};
use pisess_store::locate::Selected;
use pisess_store::prices::Estimated;
use pisess_store::session::Session;
use pisess_store::tally::{ModelKey, Name, Row, Tally};
use pisess_store::util::usage::UsageError;
use std::ffi::OsString;

pub fn run(
    args: &ExportArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    if args.output_lines.is_some() && args.tools != Some(ToolsArg::Full) {
        return Err(UsageError(
            "--output-lines caps the outputs --tools full shows; --tools collapsed keeps each whole"
                .to_owned(),
        )
        .into());
    }
    if archive::wanted(args) {
        return archive::run(args, env, diag);
    }
    if args.force {
        return Err(UsageError(
            "--force is for an archive's folder (--all, --since or two sessions, -o DIR)"
                .to_owned(),
        )
        .into());
    }
    let format = format_of(args)?;
    if format == ExportFormat::Jsonl && (args.tools.is_some() || args.no_thinking) {
        return Err(UsageError(
            "--tools and --no-thinking apply to md and html; a jsonl export holds every entry as it is"
                .to_owned(),
        )
        .into());
    }
    let destination = args.output.as_deref().filter(|o| *o != OsStr::new("-"));
    let selected = crate::cmd::selected(args.sessions.first().map(OsString::as_os_str), env)?;
    let job = Job::new(args, format, env)?;
    let session = job.open(&selected, env, diag, stdin)?;
    if let Some(file) = destination {
        refuse_destination(&selected, Path::new(file), env)?;
    }
    let leaf = match args.leaf.as_deref() {
        Some(id) => Some(find_entry(&session, id)?),
        // The leaf every command takes (the last entry with an id; docs/format.md). pi's
        // would be the last entry's id, none when it has none: an empty branch, a deliberate
        // difference.
        None => session.leaf(),
    };
    // Session text may hold escape sequences (OSC 52, ESC[2J): on a terminal they are shown
    // escaped, as `show` shows them; a file or a pipe gets the bytes.
    let escape = destination.is_none() && env.stdout_tty;
    let branch = job.branch(&session, leaf, diag)?;
    match destination {
        None => job.write(&session, &branch, escape, out)?,
        Some(file) => destination::write_whole(Path::new(file), !args.redact, |w| {
            job.write(&session, &branch, false, w)
        })?,
    }
    Ok(Outcome::Done)
}

/// What every session of one run is exported with: the format, what md and html show, the
/// secrets detector (`--redact`), the time a jsonl header gets.
pub(crate) struct Job<'e> {
    format: ExportFormat,
    view: View,
    detector: Option<Detector>,
    /// `--prices`: the branch's estimate shown beside its cost (md, html).
    pricer: Option<Pricer>,
    /// md and html show the subagent runs the branch started (not `--no-subagents`).
    subagents: bool,
    env: &'e Env,
}

/// A session's branch made ready to write: its entries, its cwd, the secrets it holds, and for
/// md and html what a reader sees.
pub(crate) struct Branch<'d> {
    path: Vec<usize>,
    cwd: String,
    scrub: Option<Scrub<'d>>,
    pub transcript: Option<export::transcript::Transcript>,
}

impl<'e> Job<'e> {
    pub(crate) fn new(
        args: &ExportArgs,
        format: ExportFormat,
        env: &'e Env,
    ) -> anyhow::Result<Self> {
        let view = View {
            tools: match args.tools {
                Some(ToolsArg::Full) => Tools::Full,
                Some(ToolsArg::None) => Tools::None,
                Some(ToolsArg::Collapsed) | None => Tools::Collapsed,
            },
            thinking: !args.no_thinking,
            output_lines: match args.output_lines {
                Some(0) => None,
                Some(n) => Some(n),
                None => Some(View::FULL_OUTPUT_LINES),
            },
        };
        let detector = args
            .redact
            .then(|| Detector::load(args.secrets_config.as_deref()))
            .transpose()?;
        if format == ExportFormat::Jsonl && args.prices.is_some() {
            return Err(UsageError(
                "--prices applies to md and html; a jsonl export shows no cost".to_owned(),
            )
            .into());
        }
        // Read before anything is written: a bad table stops the command with nothing emitted.
        let pricer = args.prices.as_deref().map(Pricer::read).transpose()?;
        Ok(Job {
            format,
            view,
            detector,
            pricer,
            subagents: !args.no_subagents && format != ExportFormat::Jsonl,
            env,
        })
    }

    /// Opens a session. With --redact, its warnings (they quote ids and the path) wait until
    /// the secrets its branch holds are known ([`Job::branch`] says them).
    pub(crate) fn open(
        &self,
        selected: &Selected,
        env: &Env,
        diag: &mut Diag,
        stdin: &mut dyn Read,
    ) -> anyhow::Result<Session> {
        if self.detector.is_some() {
            let mut unsaid = std::io::sink();
            let mut muted = Diag::new(&mut unsaid, true, env.err_theme());
            open_session(selected, env, &mut muted, stdin, Default::default())
        } else {
            open_session(selected, env, diag, stdin, Default::default())
        }
    }

    /// The branch root → `leaf`, its secrets found, the session's warnings said (redacted
    /// with --redact), its transcript built for md and html.
    pub(crate) fn branch(
        &self,
        session: &Session,
        leaf: Option<usize>,
        diag: &mut Diag,
    ) -> anyhow::Result<Branch<'_>> {
        let (path, cycle) = match leaf {
            Some(leaf) => session.path_to(leaf),
            None => (Vec::new(), None),
        };
        // pi's SessionManager holds the header's cwd resolved against the process's cwd.
        let env = self.env;
        let cwd = match &session.header.cwd {
            Some(cwd) => {
                pisess_store::locate::resolve_path(cwd, &env.location.process_cwd, &env.inputs.home)
            }
            None => env.location.process_cwd.clone(),
        };
        let cwd = cwd.to_string_lossy().into_owned();
        let runs = if self.subagents {
            // With --redact a run's path is not said: its secrets are not known yet.
            let redacted = self.detector.is_some();
            let name = |p: &str| {
                if redacted {
                    "a subagent run".to_owned()
                } else {
                    p.to_owned()
                }
            };
            runs::load(session, &path, env, diag, &name, 0)
        } else {
            Vec::new()
        };
        let scrub = match &self.detector {
            Some(d) => Some(branch_secrets(d, session, &path, &cwd, &runs)?),
            None => None,
        };
        match &scrub {
            Some(scrub) => {
                let name = scrub.owned(&session.name);
                for w in &session.warnings {
                    diag.warn(&name, w.line, &scrub.owned(&w.message));
                }
                if let Some(id) = &cycle {
                    let line = session.find(id).map(|i| session.line(i));
                    diag.warn(&name, line, &cycle_warning(&scrub.owned(id)));
                }
            }
            None => {
                if let Some(id) = &cycle {
                    warn_cycle(diag, session, id);
                }
            }
        }
        let transcript = match self.format {
            ExportFormat::Jsonl => None,
            ExportFormat::Md | ExportFormat::Html => {
                let redact: &dyn Redact = match &scrub {
                    Some(s) => s,
                    None => &Verbatim,
                };
                let mut t = export::transcript::build(session, &path, &cwd, redact)?;
                runs::attach(&mut t, &runs, &cwd, redact, &mut 0)?;
                if let Some(p) = &self.pricer {
                    let e = branch_estimate(session, &path, p)?;
                    t.estimated =
                        Some(format!("{} ({})", prices::shown(&e), prices::legend(p, &e)));
                }
                Some(t)
            }
        };
        Ok(Branch {
            path,
            cwd,
            scrub,
            transcript,
        })
    }

    /// Writes the branch in the job's format; `escape`: control characters made visible (a
    /// terminal).
    pub(crate) fn write(
        &self,
        session: &Session,
        branch: &Branch<'_>,
        escape: bool,
        w: &mut dyn Write,
    ) -> anyhow::Result<()> {
        let redact: &dyn Redact = match &branch.scrub {
            Some(s) => s,
            None => &Verbatim,
        };
        match (&branch.transcript, self.format) {
            (Some(t), ExportFormat::Md | ExportFormat::Html) => {
                // Written as it is rendered, never held whole (`Out`).
                let mut out = export::Out::new(w, escape);
                if self.format == ExportFormat::Md {
                    export::md::render(t, self.view, &mut out);
                } else {
                    export::html::render(t, self.view, &mut out);
                }
                Ok(out.finish()?)
            }
            _ => {
                let timestamp =
                    pisess_format::time::to_json_date(self.env.now_ms).unwrap_or_default();
                let header = jsonl::Header {
                    id: &session.header.id,
                    timestamp: &timestamp,
                    cwd: &branch.cwd,
                };
                jsonl::write(session, &branch.path, &header, redact, w)
            }
        }
    }
}

/// The estimate of the branch's assistant messages (the cost the export shows) that pi
/// recorded at $0, from `--prices`: their rows as `stats` keeps them, each model matched once.
fn branch_estimate(
    session: &Session,
    path: &[usize],
    pricer: &Pricer,
) -> anyhow::Result<Estimated> {
    let mut t = Tally::default();
    for &i in path {
        let entry = session.load(i)?;
        let Entry::Message(Some(m)) = Entry::of_kind(session.kind(i), &entry) else {
            continue;
        };
        if m.role() != Role::Assistant {
            continue;
        }
        let name = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).map(str::to_owned);
        let key = ModelKey {
            provider: name(m.provider()),
            model: name(m.model()),
            key: String::new(),
        };
        let at = match t.models.iter().position(|k| *k == key) {
            Some(at) => at,
            None => {
                t.models.push(key);
                t.models.len() - 1
            }
        };
        t.rows.push(Row {
            id: None,
            ts_ms: None,
            role: Name::new("assistant"),
            message: true,
            model: u32::try_from(at).ok(),
            usage: Some(Usage::of_value(m.usage())),
            tool: None,
            calls: Vec::new(),
            is_error: None,
            stop_reason: None,
            answers: None,
            active: true,
        });
    }
    Ok(prices::total(pricer, &t))
}

/// The secrets an export of `path` holds (its entries, the session id, the cwd), to be taken
/// out wherever they occur, ids and types included, by one token each.
fn branch_secrets<'d>(
    detector: &'d Detector,
    session: &Session,
    path: &[usize],
    cwd: &str,
    runs: &[runs::Loaded],
) -> anyhow::Result<Scrub<'d>> {
    let header = serde_json::json!({"id": session.header.id, "cwd": cwd});
    let mut found = detector.find_in_entry(&header);
    for &i in path {
        found.extend(detector.find_in_entry(&session.load(i)?));
    }
    // The runs shown inline: a secret a run holds is taken out wherever it occurs, too.
    runs::Loaded::entries(runs, &mut |entry| {
        found.extend(detector.find_in_entry(entry))
    })?;
    Ok(Scrub::new(detector, &found))
}

/// `--format`, else what `-o`'s extension says.
fn format_of(args: &ExportArgs) -> anyhow::Result<ExportFormat> {
    if let Some(f) = args.format {
        return Ok(f);
    }
    let ext = args
        .output
        .as_deref()
        .and_then(|o| Path::new(o).extension())
        .and_then(OsStr::to_str)
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("jsonl") => Ok(ExportFormat::Jsonl),
        Some("md" | "markdown") => Ok(ExportFormat::Md),
        Some("html" | "htm") => Ok(ExportFormat::Html),
        _ => match &args.output {
            Some(o) if *o != OsStr::new("-") => Err(UsageError(format!(
                "cannot tell the format from {}: give --format jsonl, md or html",
                Path::new(o).display()
            ))
            .into()),
            // On stdout, what reads in a terminal or a pager and pastes into an issue.
            _ => Ok(ExportFormat::Md),
        },
    }
}

/// pisess never writes to a session it reads, nor over any session: `-o` naming the input
/// (by any name, or as the file on stdin) or an existing file that holds a session is refused,
/// by the rule `check --junit` follows.
fn refuse_destination(selected: &Selected, file: &Path, env: &Env) -> anyhow::Result<()> {
    let (inputs, stdin) = match selected {
        Selected::File(input) => (vec![input.clone()], None),
        Selected::Stdin => (Vec::new(), env.stdin_file),
    };
    if let Some(why) = destination::refusal(file, &[], &inputs, stdin) {
        anyhow::bail!(
            "-o {}: not writing the export there: {why}",
            style::escape_control(&file.display().to_string(), false)
        );
    }
    Ok(())
}
