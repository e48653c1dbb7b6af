//! `pisess rm`: delete sessions, safely.
//!
//! Removing is the one thing pisess does that cannot be taken back, so the command works in
//! two phases. First it decides: every SESSION argument and filter becomes a candidate file,
//! and each candidate is checked (a regular `.jsonl` file that holds a pi session header,
//! inside the sessions root unless the user named it by its path, not the live session).
//! Then it acts: it shows the plan, asks (or requires `--yes`), and checks every file again
//! right before removing it, because the file may have been swapped since (for a symlink, or
//! another file). The trash is the default; a trash that fails is an error for that file,
//! never a reason to delete it permanently.

use std::fs::{self, Metadata};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::Serialize;
use std::borrow::Cow;

use crate::app::cli::RmArgs;
use crate::app::diag::{self, Diag};
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::views::ids::ShortIds;
use crate::views::style::{self, Theme};
use pisess_format::scan::OpenedFile;
use pisess_format::surrogates;
use pisess_format::util::file::FileId;
use pisess_store::listing::{self, Projects, Window};
use pisess_store::locate::{self, Location};
use pisess_store::removal::{self, Checked, Mode, NotRemoved};
use pisess_store::select::{self, SelectError, Selected};
use pisess_store::summary::{Detail, Summary};
use pisess_store::util::usage::UsageError;

mod ask;
mod empty;
mod family;
use empty::{holds_what_a_person_would_miss, summarize_keeping};

/// How wide a plan row's title may be when stdout is not a terminal: enough to recognise a
/// session, never a whole first message (which can be megabytes).
const PIPED_TITLE_WIDTH: usize = 100;

/// A file an argument or a filter picked, not yet checked.
struct Candidate {
    path: PathBuf,
    /// Named by its path on the command line: the one way a file outside the root may go.
    explicit: bool,
    /// The id a lookup matched it by: the file must still hold that session.
    expected: Option<String>,
    rule: Rule,
}

/// What a candidate was chosen for, which its own bytes must still show when it is checked and
/// again when it is taken to be removed: no listing or cache decides what goes.
#[derive(Debug, Clone, Default)]
struct Rule {
    /// The id prefix or name a lookup chose it by.
    query: Option<String>,
    /// Chosen by `--empty`: it holds nothing a person would miss ([`kept`]).
    empty: bool,
    /// Chosen by `--older-than`: pi's `modified` is before this (ms since the epoch).
    before: Option<i64>,
}

impl Rule {
    /// `keeps`: what of the file a person would miss, from [`summarize_keeping`] (asked for
    /// when the rule is `--empty`).
    fn judge(&self, s: &Summary, keeps: Option<&str>) -> Result<(), NotRemoved> {
        if let Some(q) = &self.query {
            if !s.id.starts_with(q.as_str()) && s.name.as_deref() != Some(q.as_str()) {
                return Err(NotRemoved::NotNamed(q.clone()));
            }
        }
        if self.empty && s.message_count > 0 {
            return Err(NotRemoved::NotEmpty(format!(
                "{} messages",
                s.message_count
            )));
        }
        if let Some(what) = keeps.filter(|_| self.empty) {
            return Err(NotRemoved::NotEmpty(what.to_owned()));
        }
        if self.before.is_some_and(|t| s.modified_ms >= t) {
            return Err(NotRemoved::Is(
                "it is not older than --older-than (it was modified since)",
            ));
        }
        Ok(())
    }

    /// [`Rule::judge`] on an open file, read whole.
    fn judge_file(&self, file: fs::File, path: &Path) -> Result<(), NotRemoved> {
        let meta = file.metadata().map_err(NotRemoved::Unreadable)?;
        let (summary, keeps) = summarize_keeping(&as_opened(path, file, meta), self.empty)
            .map_err(NotRemoved::NotASession)?;
        self.judge(&summary, keeps.as_deref())
    }
}

/// `file`, open at `path` with `meta` its fstat, as the summary reads it.
fn as_opened(path: &Path, file: fs::File, meta: Metadata) -> OpenedFile {
    OpenedFile {
        path: path.to_path_buf(),
        file,
        meta,
        stem: pisess_format::scan::stem_of(path),
    }
}

/// A session that passed every check and will be removed.
#[derive(Debug)]
struct Target {
    path: PathBuf,
    id: String,
    /// The session's name, else its first user message.
    title: String,
    named: bool,
    bytes: u64,
    identity: FileId,
    /// The folder it is in, which the removal opens and must find unchanged (`None`: it could
    /// not be looked at, and the removal refuses).
    folder: Option<FileId>,
    rule: Rule,
    family: family::Family,
}

/// Something that will not be removed, and why.
#[derive(Debug)]
struct Refusal {
    /// The file; `None` when an argument named no file at all.
    path: Option<PathBuf>,
    reason: NotRemoved,
}

/// Everything decided before anything is touched.
#[derive(Debug)]
struct Plan {
    targets: Vec<Target>,
    refused: Vec<Refusal>,
    /// Some listed files could not be read, so a filter may have missed sessions.
    incomplete: bool,
}

/// The facts every check compares against, gathered once.
struct Rules {
    /// The sessions root (the custom dir when there is one), canonical; `None` when it does
    /// not exist, and then nothing is inside it.
    root: Option<PathBuf>,
    /// The root as resolved, for messages.
    root_shown: PathBuf,
    live: Option<Live>,
    force: bool,
}

/// `$PI_SESSION_FILE`, as a canonical path and as the file it names (so another spelling, a
/// symlink to it or a hard link is still recognised).
struct Live {
    canonical: PathBuf,
    /// `None` when it could not be looked at: then only its path tells.
    identity: Option<FileId>,
}

impl Rules {
    fn new(env: &Env, force: bool) -> Rules {
        let loc = &env.location;
        let root = if loc.custom {
            &loc.session_dir
        } else {
            &loc.root
        };
        let live = env
            .pi_session_file
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(|file| {
                let path = locate::resolve(&loc.cwd, Path::new(file));
                Live {
                    canonical: canonical(&path),
                    identity: fs::metadata(&path).ok().map(|m| FileId::of(&m)),
                }
            });
        Rules {
            root: root.canonicalize().ok(),
            root_shown: root.clone(),
            live,
            force,
        }
    }

    /// Inside the root, judged by where the file really is: its folder is resolved, so a
    /// symlinked project folder pointing elsewhere is outside.
    fn inside_root(&self, path: &Path) -> bool {
        let (Some(root), Some(parent)) = (&self.root, path.parent()) else {
            return false;
        };
        parent.canonicalize().is_ok_and(|p| p.starts_with(root))
    }

    fn is_live(&self, path: &Path, meta: &Metadata) -> bool {
        self.live.as_ref().is_some_and(|live| {
            live.identity.is_some_and(|id| id.same(FileId::of(meta)))
                || live.canonical == canonical(path)
        })
    }
}

fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

pub fn run(
    args: &RmArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let plan = plan(args, env, diag)?;
    let mode = if args.permanent {
        Mode::Permanent
    } else {
        Mode::Trash
    };
    let report = Report {
        json: args.json,
        quiet: env.quiet,
        theme: env.theme(),
        err_theme: env.err_theme(),
        width: env.width,
        mode,
        ids: env.short_ids().clone(),
        with_subagents: args.with_subagents,
    };
    let failed_already = !plan.refused.is_empty() || plan.incomplete;
    // The plan, whole and flushed, before anything is touched: a report that cannot be written
    // is a removal nobody can see, so then nothing is removed.
    report
        .refusals(&plan.refused, out, diag.stderr())
        .and_then(|()| report.plan(&plan.targets, args.dry_run, out))
        .and_then(|()| out.flush())
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot write the plan to standard output ({e}), so nothing was removed"
            )
        })?;
    let planned = plan.targets.len();
    let nothing = if planned == 0 {
        Some(Nothing::Planned)
    } else if args.dry_run {
        Some(Nothing::DryRun)
    } else if !ask::confirm(args, env, planned, diag, stdin)? {
        Some(Nothing::Declined)
    } else {
        None
    };
    if let Some(why) = nothing {
        report.nothing(why, planned, out).map_err(unwritten)?;
        return Ok(Outcome::partly_failed_if(failed_already));
    }

    // From here Ctrl-C asks to stop: the file in hand is finished and reported, then no more.
    let interrupted = Arc::new(AtomicBool::new(false));
    #[cfg(unix)]
    let hook = signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&interrupted))
        .map_err(|e| anyhow::anyhow!("cannot catch Ctrl-C, so nothing was removed: {e}"))?;
    let mut removed = Vec::new();
    let mut failures = 0;
    for target in &plan.targets {
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        let judge = |file: fs::File| target.rule.judge_file(file, &target.path);
        let result = removal::remove(
            Checked {
                path: &target.path,
                file: target.identity,
                folder: target.folder,
                id: &target.id,
                judge: Some(&judge),
            },
            mode,
            &env.trash,
        );
        // Each outcome reaches stdout as it happens; if it cannot, the removals stop with it.
        report
            .outcome(target, &result, out, diag.stderr())
            .and_then(|()| out.flush())
            .map_err(|e| {
                let done = removed.len() + usize::from(result.is_ok());
                anyhow::anyhow!(
                    "cannot write to standard output ({e}); stopped after removing {}",
                    sessions(done)
                )
            })?;
        match result {
            Ok(()) => removed.push(target),
            Err(_) => failures += 1,
        }
    }
    #[cfg(unix)]
    signal_hook::low_level::unregister(hook);
    let stopped = interrupted.load(Ordering::SeqCst);
    report
        .total(&removed, failures, planned, stopped, out)
        .and_then(|()| out.flush())
        .map_err(unwritten)?;
    if stopped {
        let left = plan.targets.len() - removed.len() - failures;
        diag.note(&format!(
            "pisess: interrupted: {} left in place",
            sessions(left)
        ));
        return Ok(Outcome::Interrupted);
    }
    Ok(Outcome::partly_failed_if(failed_already || failures > 0))
}

/// A write to stdout that failed before or after the removals: said as such, never taken for
/// the quiet end of a closed pipe (`rm` must not look done when its report was lost).
fn unwritten(e: io::Error) -> anyhow::Error {
    anyhow::anyhow!("cannot write to standard output: {e}")
}

/// Decides what would be removed, touching nothing.
fn plan(args: &RmArgs, env: &Env, diag: &mut Diag) -> anyhow::Result<Plan> {
    let filtering = args.older_than.is_some() || args.empty;
    if args.sessions.is_empty() && !filtering {
        return Err(UsageError(
            "name the sessions to remove, or select them with --older-than or --empty".into(),
        )
        .into());
    }
    if (args.all || !args.projects.is_empty()) && !filtering {
        return Err(UsageError(
            "--all and --project widen --older-than and --empty to other projects; give one of them"
                .into(),
        )
        .into());
    }
    if let Some(span) = &args.older_than {
        // Checked before anything else so a typo fails as a usage error, exit 2.
        pisess_format::time::parse_when(span, env.now_ms, &env.tz)
            .map_err(|e| UsageError(e.to_string()))?;
    }
    if args
        .sessions
        .iter()
        .any(|s| pisess_store::util::usage::is_blank(s))
    {
        return Err(UsageError(select::SelectError::Blank.to_string()).into());
    }

    // Every lookup and filter reads the session files themselves: what the summary cache says
    // of a file (its name, id, messages, time) is never what picks it for removal.
    let loc = &Location {
        cache: None,
        ..env.location.clone()
    };
    let mut refused = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    // Arguments come first, so a file both named and filtered keeps the rule of its name.
    let mut add = |c: Candidate| match candidates.iter_mut().find(|x| x.path == c.path) {
        Some(seen) => seen.explicit |= c.explicit,
        None => candidates.push(c),
    };
    for arg in &args.sessions {
        match pick(arg, loc, env.pi_session_file.as_deref()) {
            Ok(c) => add(c),
            Err(r) => refused.push(r),
        }
    }
    let mut incomplete = false;
    if filtering {
        // The listing `ls` shows (pi's `modified`, this project or --all), so what
        // `pisess ls --until 30d` shows is what `pisess rm --older-than 30d` removes.
        let window = Window::parse(None, args.older_than.as_deref(), env.now_ms, &env.tz)?;
        let projects = Projects::parse(&args.projects, &env.inputs.home)?;
        let scope = projects.scope(args.all);
        let listing = listing::list(loc, scope, Detail::Listing)?;
        incomplete = listing.report(diag);
        for s in listing.sessions {
            if !window.holds(&s) || !projects.holds(&s.cwd) || (args.empty && s.message_count > 0) {
                continue;
            }
            // Without messages, and yet holding what a person would miss: not chosen (the
            // check reads it again, through the descriptor it removes by).
            if args.empty && holds_what_a_person_would_miss(&s.path) {
                continue;
            }
            add(Candidate {
                path: s.path.clone(),
                explicit: false,
                expected: Some(s.id.clone()),
                rule: Rule {
                    query: None,
                    empty: args.empty,
                    before: window.until,
                },
            });
        }
    }

    let rules = Rules::new(env, args.force);
    let mut targets: Vec<Target> = Vec::new();
    for c in candidates {
        let path = c.path.clone();
        match check(c, &rules) {
            // One file named twice (an id and a path, a hard link) goes once.
            Ok(t) if targets.iter().any(|x| x.identity.same(t.identity)) => {}
            Ok(t) => targets.push(t),
            Err(reason) => refused.push(Refusal {
                path: Some(path),
                reason,
            }),
        }
    }
    let targets = family::family(targets, args.with_subagents, &rules, &mut refused, diag);
    Ok(Plan {
        targets,
        refused,
        incomplete,
    })
}

/// One SESSION argument through the shared selection.
fn pick(
    arg: &std::ffi::OsStr,
    loc: &Location,
    pi_session_file: Option<&str>,
) -> Result<Candidate, Refusal> {
    let explicit = select::names_a_path(arg, loc);
    match select::choose(Some(arg), loc, pi_session_file) {
        Ok(select::Choice {
            selected: Selected::File(path),
            id,
        }) => Ok(Candidate {
            path,
            explicit,
            rule: Rule {
                // Only a lookup has a query: a path names its file whatever it holds.
                query: id.as_ref().and(arg.to_str()).map(str::to_owned),
                ..Rule::default()
            },
            expected: id,
        }),
        Ok(select::Choice {
            selected: Selected::Stdin,
            ..
        }) => Err(Refusal {
            path: None,
            reason: NotRemoved::Is("'-' is standard input, not a file: there is nothing to remove"),
        }),
        // A dangling symlink "does not exist" to the selection; it goes on to be refused as
        // a symlink, which says more than "no such file".
        Err(SelectError::MissingPath(path)) if path.symlink_metadata().is_ok() => Ok(Candidate {
            path,
            explicit: true,
            expected: None,
            rule: Rule::default(),
        }),
        Err(e) => Err(Refusal {
            path: None,
            reason: NotRemoved::Unselected(Box::new(e)),
        }),
    }
}

/// Every rule a file must pass to be removed; the reason when it does not.
///
/// The file is opened once (not following a symlink) and everything after the first look is
/// read through that descriptor, so the identity recorded and the header checked are one file's.
/// When a lookup or a listing chose it as session `expected`, it must still hold that session.
fn check(c: Candidate, rules: &Rules) -> Result<Target, NotRemoved> {
    let path = c.path;
    // lstat: a symlink is judged as itself, and its target is never looked at.
    let meta = fs::symlink_metadata(&path).map_err(NotRemoved::Unreadable)?;
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Err(NotRemoved::Is(
            "it is a symlink (pisess removes neither a link nor its target)",
        ));
    }
    if kind.is_dir() {
        return Err(NotRemoved::Is("it is a directory"));
    }
    if !kind.is_file() {
        return Err(NotRemoved::Is("it is not a regular file"));
    }
    if path.extension().is_none_or(|x| x != "jsonl") {
        return Err(NotRemoved::Is("it is not a .jsonl file"));
    }
    if !c.explicit && !rules.inside_root(&path) {
        return Err(NotRemoved::OutsideRoot(rules.root_shown.clone()));
    }
    let changed = || NotRemoved::Is("it changed while it was being checked; left alone");
    let file = open_no_follow(&path).map_err(NotRemoved::Unreadable)?;
    let opened = file.metadata().map_err(NotRemoved::Unreadable)?;
    if !opened.is_file() || FileId::of(&opened) != FileId::of(&meta) {
        return Err(changed());
    }
    // Everything decided from here on is read through the descriptor just checked.
    let opened = as_opened(&path, file, opened);
    let (summary, keeps) =
        summarize_keeping(&opened, c.rule.empty).map_err(NotRemoved::NotASession)?;
    if let Some(id) = c.expected.filter(|id| *id != summary.id) {
        return Err(NotRemoved::OtherSession {
            expected: id,
            found: Some(summary.id),
        });
    }
    c.rule
        .judge(&summary, keeps.as_deref())
        .map_err(NotRemoved::left_alone)?;
    if !rules.force && rules.is_live(&path, &meta) {
        return Err(NotRemoved::Is(
            "it is the live session ($PI_SESSION_FILE); add --force to remove it anyway",
        ));
    }
    let folder = removal::folder_of(&path)
        .and_then(|p| fs::metadata(p).ok())
        .map(|m| FileId::of(&m));
    Ok(Target {
        title: summary
            .name
            .clone()
            .unwrap_or_else(|| summary.first_message.to_string()),
        named: summary.name.is_some(),
        id: summary.id,
        bytes: opened.meta.len(),
        identity: FileId::of(&opened.meta),
        folder,
        path,
        rule: c.rule,
        family: family::Family::default(),
    })
}

/// Opens a file for reading without following a symlink and without waiting on a FIFO.
fn open_no_follow(path: &Path) -> io::Result<fs::File> {
    pisess_format::util::file::open_nonblocking(path, pisess_format::util::file::Links::Refuse)
}

/// `1 session`, `2 sessions`.
fn sessions(n: usize) -> String {
    if n == 1 {
        "1 session".to_owned()
    } else {
        format!("{n} sessions")
    }
}

fn path_text(path: &Path) -> String {
    style::escape_control(&path.display().to_string(), false).into_owned()
}

/// Why nothing was removed although the command ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nothing {
    /// No target passed the checks.
    Planned,
    DryRun,
    /// The question was answered no.
    Declined,
}

/// How the plan and the outcomes are written: human lines (with `-q` only the totals) or NDJSON
/// events (all of them, `-q` or not). Errors go to stderr in every form.
struct Report {
    json: bool,
    quiet: bool,
    theme: Theme,
    err_theme: Theme,
    /// The terminal's width, when stdout is one.
    width: Option<usize>,
    mode: Mode,
    /// How session ids are shortened ([`Env::short_id`]).
    ids: ShortIds,
    with_subagents: bool,
}

/// One line of `rm --json` (docs/json.md): `{"event": …}` and the event's fields.
#[derive(Serialize)]
#[serde(
    tag = "event",
    rename_all = "lowercase",
    rename_all_fields = "camelCase"
)]
enum Event<'a> {
    Refused {
        path: Option<Cow<'a, str>>,
        reason: String,
    },
    Planned {
        id: &'a str,
        path: Cow<'a, str>,
        bytes: u64,
        name: Option<&'a String>,
        title: &'a str,
        mode: &'static str,
        dry_run: bool,
        subagent_runs: usize,
        with_subagents: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        subagent_of: Option<&'a str>,
        /// `id` under the one vocabulary's name (docs/json.md); `id` stays.
        session_id: &'a str,
    },
    Removed {
        id: &'a str,
        path: Cow<'a, str>,
        mode: &'static str,
        session_id: &'a str,
    },
    Failed {
        id: &'a str,
        path: Cow<'a, str>,
        reason: String,
        session_id: &'a str,
    },
    Total {
        planned: usize,
        removed: usize,
        failed: usize,
        bytes: u64,
        dry_run: bool,
        declined: bool,
        interrupted: bool,
    },
}

impl Report {
    fn mode_name(&self) -> &'static str {
        match self.mode {
            Mode::Trash => "trash",
            Mode::Permanent => "permanent",
        }
    }

    fn event(&self, out: &mut dyn Write, event: Event) -> io::Result<()> {
        surrogates::write(&mut *out, &event)?;
        out.write_all(b"\n")
    }

    fn refusals(
        &self,
        refused: &[Refusal],
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> io::Result<()> {
        for r in refused {
            // The error line escapes the path and the reason (which may quote the file).
            let message = match &r.path {
                Some(path) => format!("not removing {}: {}", path.display(), r.reason),
                None => r.reason.to_string(),
            };
            diag::error(err, self.err_theme, &message);
            if self.json {
                let path = r.path.as_ref().map(|p| p.to_string_lossy());
                let reason = r.reason.to_string();
                self.event(out, Event::Refused { path, reason })?;
            }
        }
        Ok(())
    }

    /// The plan: what goes, how, and how much; the path of each on a line of its own.
    fn plan(&self, targets: &[Target], dry_run: bool, out: &mut dyn Write) -> io::Result<()> {
        if targets.is_empty() {
            return Ok(());
        }
        // `-q` is for human lines: the JSON events are data, every one of them written.
        if self.json {
            for t in targets {
                self.event(
                    out,
                    Event::Planned {
                        id: &t.id,
                        path: t.path.to_string_lossy(),
                        bytes: t.bytes,
                        name: t.named.then_some(&t.title),
                        title: &t.title,
                        mode: self.mode_name(),
                        dry_run,
                        subagent_runs: t.family.runs,
                        with_subagents: self.with_subagents,
                        subagent_of: t.family.subagent_of.as_deref(),
                        session_id: &t.id,
                    },
                )?;
            }
            return Ok(());
        }
        let total: u64 = targets.iter().map(|t| t.bytes).sum();
        let what = format!("{} ({})", sessions(targets.len()), style::bytes(total));
        let heading = match (self.mode, dry_run) {
            (Mode::Trash, true) => format!("Would move {what} to the trash:"),
            (Mode::Trash, false) => format!("Will move {what} to the trash:"),
            (Mode::Permanent, true) => format!("Would delete {what} permanently:"),
            (Mode::Permanent, false) => format!("Will delete {what} permanently:"),
        };
        writeln!(out, "{heading}")?;
        if self.quiet {
            return Ok(());
        }
        let rows: Vec<(String, String)> = targets
            .iter()
            .map(|t| (self.ids.short(&t.id), style::bytes(t.bytes)))
            .collect();
        let id_width = rows.iter().map(|r| style::width(&r.0)).max().unwrap_or(0);
        let size_width = rows.iter().map(|r| style::width(&r.1)).max().unwrap_or(0);
        let fixed = 2 + id_width + 2 + size_width + 2;
        let room = match self.width {
            Some(width) => width.saturating_sub(fixed).max(10),
            None => PIPED_TITLE_WIDTH,
        };
        for (t, (id, size)) in targets.iter().zip(&rows) {
            // Only the head of a title can be shown: fold and measure no more than that.
            let head: String = t.title.chars().take(room.saturating_mul(4) + 1).collect();
            let title = style::truncate(&style::one_line(&head), room).into_owned();
            let title = if t.named {
                self.theme.bold(&title)
            } else {
                title
            };
            let id_pad = " ".repeat(id_width - style::width(id));
            let size_pad = " ".repeat(size_width - style::width(size));
            writeln!(
                out,
                "  {}{id_pad}  {size_pad}{size}  {title}",
                self.theme.yellow(id)
            )?;
            writeln!(out, "    {}", self.theme.dim(&path_text(&t.path)))?;
            if let Some(note) = family::note(t, self.with_subagents, &self.ids) {
                writeln!(out, "    {}", self.theme.dim(&note))?;
            }
        }
        Ok(())
    }

    fn outcome(
        &self,
        target: &Target,
        result: &Result<(), NotRemoved>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> io::Result<()> {
        let path = path_text(&target.path);
        if let Err(reason) = result {
            // Keep the order of events readable when stdout and stderr share a terminal.
            out.flush()?;
            let message = format!("not removing {}: {reason}", target.path.display());
            diag::error(err, self.err_theme, &message);
        }
        if self.quiet && !self.json {
            return Ok(());
        }
        match (result, self.json) {
            (Ok(()), false) => {
                let verb = match self.mode {
                    Mode::Trash => "trashed",
                    Mode::Permanent => "deleted",
                };
                writeln!(out, "{} {path}", self.theme.green(verb))
            }
            (Ok(()), true) => self.event(
                out,
                Event::Removed {
                    id: &target.id,
                    path: target.path.to_string_lossy(),
                    mode: self.mode_name(),
                    session_id: &target.id,
                },
            ),
            (Err(_), false) => Ok(()),
            (Err(reason), true) => self.event(
                out,
                Event::Failed {
                    id: &target.id,
                    path: target.path.to_string_lossy(),
                    reason: reason.to_string(),
                    session_id: &target.id,
                },
            ),
        }
    }

    /// The last line when nothing was to be removed, or the answer was no.
    fn nothing(&self, why: Nothing, planned: usize, out: &mut dyn Write) -> io::Result<()> {
        if self.json {
            return self.event(
                out,
                Event::Total {
                    planned,
                    removed: 0,
                    failed: 0,
                    bytes: 0,
                    dry_run: why == Nothing::DryRun,
                    declined: why == Nothing::Declined,
                    interrupted: false,
                },
            );
        }
        writeln!(
            out,
            "{}",
            match why {
                Nothing::Planned => "Nothing to remove.",
                Nothing::DryRun => "Dry run: nothing was removed.",
                Nothing::Declined => "Nothing was removed.",
            }
        )
    }

    fn total(
        &self,
        removed: &[&Target],
        failures: usize,
        planned: usize,
        interrupted: bool,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let bytes: u64 = removed.iter().map(|t| t.bytes).sum();
        if self.json {
            return self.event(
                out,
                Event::Total {
                    planned,
                    removed: removed.len(),
                    failed: failures,
                    bytes,
                    dry_run: false,
                    declined: false,
                    interrupted,
                },
            );
        }
        if removed.is_empty() {
            return writeln!(out, "Nothing was removed; {failures} failed.");
        }
        let count = if failures == 0 {
            sessions(removed.len())
        } else {
            format!(
                "{} of {}",
                removed.len(),
                sessions(removed.len() + failures)
            )
        };
        let bytes = style::bytes(bytes);
        let line = match self.mode {
            Mode::Trash => format!("Moved {count} ({bytes}) to the trash"),
            Mode::Permanent => format!("Deleted {count} ({bytes}) permanently"),
        };
        if failures == 0 {
            writeln!(out, "{line}.")
        } else {
            writeln!(out, "{line}; {failures} failed.")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(path: &Path, id: &str) {
        fs::write(
            path,
            format!(
                "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}}\n"
            ),
        )
        .unwrap();
    }

    use pisess_store::removal::TrashHome;

    fn remove_target(t: &Target) -> Result<(), String> {
        // The reason in words, as the tests look for them.
        let checked = Checked {
            path: &t.path,
            file: t.identity,
            folder: t.folder,
            id: &t.id,
            judge: None,
        };
        removal::remove(checked, Mode::Permanent, &TrashHome::default()).map_err(|e| e.to_string())
    }

    fn explicit(path: &Path) -> Candidate {
        Candidate {
            path: path.to_path_buf(),
            explicit: true,
            expected: None,
            rule: Rule::default(),
        }
    }

    fn rules() -> Rules {
        Rules {
            root: None,
            root_shown: PathBuf::from("/nowhere"),
            live: None,
            force: false,
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_file_swapped_for_a_symlink_after_the_check_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        let other = dir.path().join("other.jsonl");
        session(&path, "a");
        session(&other, "other");
        let target = check(explicit(&path), &rules()).unwrap();
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&other, &path).unwrap();
        let err = remove_target(&target).unwrap_err();
        assert!(err.contains("symlink"), "{err}");
        assert!(path.symlink_metadata().unwrap().file_type().is_symlink());
        assert!(other.is_file());
    }

    #[cfg(unix)]
    #[test]
    fn a_file_replaced_by_another_after_the_check_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        let keep = dir.path().join("keep.jsonl");
        session(&path, "a");
        let target = check(explicit(&path), &rules()).unwrap();
        // Same name, another file (kept alive so its inode cannot be reused).
        fs::rename(&path, &keep).unwrap();
        session(&path, "b");
        let err = remove_target(&target).unwrap_err();
        assert!(err.contains("replaced by another file"), "{err}");
        assert!(path.is_file());
    }

    #[test]
    fn a_file_that_stopped_being_a_session_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        session(&path, "a");
        let target = check(explicit(&path), &rules()).unwrap();
        fs::write(&path, "{\"type\":\"message\"}\n").unwrap();
        let err = remove_target(&target).unwrap_err();
        assert!(err.contains("not a pi session"), "{err}");
        assert!(path.is_file());
    }

    #[test]
    fn a_file_that_stopped_being_what_it_was_chosen_for_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        session(&path, "a");
        let mut candidate = explicit(&path);
        candidate.rule.empty = true;
        let target = check(candidate, &rules()).unwrap();
        // A message arrives between the plan and the removal: the same file, no longer empty.
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"type\":\"message\",\"id\":\"m\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n").unwrap();
        let judge = |file: fs::File| target.rule.judge_file(file, &target.path);
        let checked = Checked {
            path: &target.path,
            file: target.identity,
            folder: target.folder,
            id: &target.id,
            judge: Some(&judge),
        };
        let err = removal::remove(checked, Mode::Permanent, &TrashHome::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not empty"), "{err}");
        assert!(path.is_file());
    }

    /// issue 42: chosen as empty, a file that holds a custom message pi showed the user is
    /// refused, saying what it holds and where (on 63e6fc9 it went).
    #[test]
    fn a_file_chosen_as_empty_that_holds_a_shown_custom_message_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        session(&path, "a");
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"type\":\"custom_message\",\"id\":\"m\",\"parentId\":null,\"customType\":\"subagent\",\"content\":\"report\",\"display\":true}\n").unwrap();
        let mut candidate = explicit(&path);
        candidate.rule.empty = true;
        let err = check(candidate, &rules()).unwrap_err().to_string();
        assert!(
            err.contains("not empty (it holds a custom message shown to the user, line 2)"),
            "{err}"
        );
    }

    /// Red team, item 3: a session whose only prompt is on a line cut short by a crash (no
    /// newline, not JSON), or on a malformed line, was chosen as empty and trashed.
    #[test]
    fn a_file_chosen_as_empty_with_a_line_that_does_not_parse_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        for (tail, said) in [
            (
                &b"{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"a long prompt"[..],
                "not empty (it holds a last line cut short, line 2)",
            ),
            (
                b"{\"type\":\"message\",\"content\":\"a prompt\"\n",
                "not empty (it holds a line that does not parse, line 2)",
            ),
        ] {
            let path = dir.path().join("a.jsonl");
            session(&path, "a");
            let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
            f.write_all(tail).unwrap();
            let mut candidate = explicit(&path);
            candidate.rule.empty = true;
            let err = check(candidate, &rules()).unwrap_err().to_string();
            assert!(err.contains(said), "{err}");
            assert!(holds_what_a_person_would_miss(&path));
        }
    }

    #[test]
    fn answers() {
        assert_eq!(super::ask::read_line(&mut &b"y\nrest"[..]).unwrap(), "y");
        assert_eq!(super::ask::read_line(&mut &b""[..]).unwrap(), "");
        assert_eq!(sessions(1), "1 session");
        assert_eq!(sessions(3), "3 sessions");
    }
}
