//! `pisess grep` and `pisess grep --secrets`: one driver, two matchers (ripgrep's shape: the
//! driver picks the sessions and reads them on every core; the matcher decides what a hit is;
//! its printer prints it).
//!
//! The driver owns what the two share: which files (the listing, or the SESSIONs named, `-`
//! among them), the fan-out, a session's project and warnings, the order of the output (the
//! listing's file order, each session printed as soon as it and those before it are searched,
//! so memory holds a few files' hits, never all of them) and the exit code (0 a hit, 1 none,
//! 2 an error). [`text`] searches what was said for a pattern; [`secrets`] finds what leaked.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;

use crate::app::cli::GrepArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::{Outcome, Unanswered};
use crate::cmd::report_unreadable;
use pisess_format::scan::{read_header, Input};
use pisess_store::listing::{self, Problem, Projects, Scope};
use pisess_store::locate::Skipped;
use pisess_store::select::{select, Selected};
use pisess_store::util::usage::UsageError;

mod matcher;
mod print;
mod secrets;
mod text;

use matcher::{Live, Matcher, Under};
use pisess_store::family::runs;

pub fn run(
    args: &GrepArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    if args.secrets {
        let (mut secrets, projects) = secrets::Secrets::new(args, env)?;
        return drive(&mut secrets, &projects, args.all, env, out, diag, stdin);
    }
    // Every failure before the search is exit 2: exit 1 means "nothing matched".
    let (mut text, projects) = text::Text::new(args, env, diag).map_err(unanswered)?;
    drive(&mut text, &projects, args.all, env, out, diag, stdin)
}

/// An error that is not a usage error, as exit 2.
fn unanswered(e: anyhow::Error) -> anyhow::Error {
    if e.is::<UsageError>() {
        e
    } else {
        Unanswered(e).into()
    }
}

/// Searches every input with `matcher` and prints its hits in the inputs' order.
fn drive<M: Matcher>(
    matcher: &mut M,
    projects: &Projects,
    all: bool,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let named = matcher.named();
    let scope = projects.scope(all);
    let (inputs, under, mut trouble) =
        inputs(&named, scope, matcher, env, diag).map_err(unanswered)?;
    let explicit = !named.is_empty();
    // Each input's id and whether it is in scope, for the runs found under it (which come
    // after it): a run is searched when its parent's project is, whatever its own cwd.
    let mut parents: Vec<Option<(String, Option<bool>)>> = Vec::with_capacity(inputs.len());
    let paths: Vec<PathBuf> = inputs.iter().flatten().cloned().collect();
    matcher.files_chosen(&paths, diag);
    let matcher = &*matcher;
    let mut matched = false;
    let mut failed: Option<io::Error> = None;
    let _run = pisess_store::util::progress::begin(&paths);
    pisess_store::util::parallel::ordered(
        &inputs,
        |input| {
            let path = input.as_ref()?;
            let searched = matcher.file(path).map_err(|e| (path.clone(), e));
            pisess_store::util::progress::done(path);
            Some(searched)
        },
        |result| {
            // Standard input is searched here, in its turn (a second `-` finds it read).
            let result = result.unwrap_or_else(|| {
                let mut live = Live {
                    out: &mut *out,
                    first: !matched,
                    shown: 0,
                    failed: None,
                };
                let searched = matcher.stdin(stdin, &mut live);
                matched |= live.shown > 0;
                failed = live.failed.take();
                searched.map_err(|e| (PathBuf::from("-"), e))
            });
            if failed.is_some() {
                return ControlFlow::Break(());
            }
            let at = parents.len();
            parents.push(None);
            let mut s = match result {
                Ok(s) => s,
                Err((path, e)) => {
                    trouble |= report_unreadable(diag, &path, &e);
                    return ControlFlow::Continue(());
                }
            };
            let parent = under.get(at).copied().flatten();
            // A parent passed over unread (no id, no cwd: `None`) leaves a run to its own cwd.
            let scoped = match parent.and_then(|(p, _)| parents[p].as_ref()?.1) {
                Some(scoped) => scoped,
                // SESSIONs given are searched whatever their project.
                None => {
                    explicit
                        || (listing::in_scope(&env.location, scope, &s.cwd)
                            && projects.holds(&s.cwd))
                }
            };
            let read = !s.id.is_empty() || !s.cwd.is_empty();
            parents[at] = Some((s.id.clone(), read.then_some(scoped)));
            if let Some((p, made)) = parent.filter(|_| !s.hits.is_empty()) {
                let path = inputs[p].clone().unwrap_or_default();
                let known = parents[p].as_ref().map(|(id, _)| id.clone());
                // A parent without a hit may have been passed over after its header (or not
                // read at all): its id is read again for the run that names it.
                let id = known
                    .filter(|id| !id.is_empty())
                    .unwrap_or_else(|| read_header(&path).map(|h| h.id).unwrap_or_default());
                s.under = Some(Under { id, path, made });
            }
            // --since/--until still apply.
            let kept = scoped && matcher.holds(&s);
            // A session the search leaves out is not warned about (as `ls --since` and
            // `check --since`): `grep --since 1d` warned about damaged files 60 days old.
            if kept {
                matcher.warn(diag, &s);
            }
            if !kept || s.hits.is_empty() {
                return ControlFlow::Continue(());
            }
            let first = !std::mem::replace(&mut matched, true);
            match matcher.write(&s, first, out) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            }
        },
    );
    if let Some(e) = failed {
        return Err(e.into());
    }
    if !matched && !trouble {
        let kept = |s: &matcher::Searched<M::Hit>| {
            explicit || (listing::in_scope(&env.location, scope, &s.cwd) && projects.holds(&s.cwd))
        };
        let files: Vec<PathBuf> = inputs.iter().flatten().cloned().collect();
        if let Some(flag) = matcher.unsearched(&files, &kept) {
            let what = if flag == "--tools" {
                "tool results"
            } else {
                "thinking"
            };
            diag.hint(&format!(
                "no match in what grep searches, but the pattern occurs in {what}: add {flag}"
            ));
        }
    }
    Ok(if trouble {
        Outcome::Unsure
    } else if matched {
        Outcome::Done
    } else {
        Outcome::NoMatch
    })
}

/// The inputs (`None`: standard input, searched on the calling thread in its turn), where each
/// subagent run was found (the index of its parent among the inputs, and how it was made), and
/// whether the listing may have missed a file (an unreadable folder: exit 2, as an unreadable
/// file). Each SESSION is checked before any file is read. A listing's sessions are followed by
/// their subagent runs (`crate::cmd::runs`); SESSIONs named are read alone.
#[allow(clippy::type_complexity)]
fn inputs<M: Matcher>(
    named: &[OsString],
    scope: Scope,
    matcher: &M,
    env: &Env,
    diag: &mut Diag,
) -> anyhow::Result<(Vec<Option<PathBuf>>, Vec<Option<(usize, runs::Made)>>, bool)> {
    let loc = &env.location;
    if named.is_empty() {
        let listed = listing::files(loc, scope)?;
        if listed.files.is_empty() && matcher.notes_no_sessions() {
            let (dir, hint) = match scope {
                Scope::All if loc.custom => (&loc.session_dir, ""),
                Scope::All => (&loc.root, ""),
                Scope::Project => (&loc.session_dir, " (every project's: 'pisess grep --all')"),
            };
            let message = format!("no sessions to search in {}{hint}", loc.shown(dir));
            diag.note(&crate::views::style::escape_control(&message, false));
        }
        let mut incomplete = false;
        for (path, why) in listed.skipped {
            incomplete |= matches!(why, Skipped::Folder(_));
            Problem::Skipped(why).report(&path, diag);
        }
        let stems = crate::cmd::runs::stem_files(listed.folders);
        let redact = |p: &str| matcher.redact(p);
        let units = crate::cmd::runs::with_runs(listed.files, &stems, diag, &redact);
        let under = units.iter().map(|u| u.under).collect();
        let inputs = units.into_iter().map(|u| Some(u.path)).collect();
        return Ok((inputs, under, incomplete));
    }
    let mut inputs = Vec::new();
    for arg in named {
        inputs.push(
            match select(Some(arg), loc, env.pi_session_file.as_deref())? {
                Selected::File(path) => Some(path),
                Selected::Stdin => {
                    Input::stdin_allowed(env.stdin_device)?;
                    None
                }
            },
        );
    }
    Ok((inputs, Vec::new(), false))
}
