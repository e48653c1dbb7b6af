//! `pisess grep --secrets`: what the sessions leaked, by kind, place and fingerprint, never
//! the secret itself (`crate::secrets`).
//!
//! Each file is read once, as a stream, on every core; an entry is decoded only when its
//! stored line holds a rule's keyword or an escape that could hide one
//! ([`Detector::may_hold`]), so memory is one line and one session's findings, whatever the
//! size of the store. Sessions print in the listing's order as they are done. Exits as grep:
//! 0 something found, 1 nothing, 2 an error.

use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::app::cli::GrepArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::{Outcome, Unanswered};
use crate::cmd::{migrated_role, report_unreadable, Source};
use crate::format::scan::{open_file, whole_file, ScanError};
use crate::store::listing::{self, Problem, Projects};
use crate::store::locate::{tilde, Skipped};
use crate::store::select::{select, Selected};
use crate::util::readahead::Reading;
use crate::util::usage::UsageError;
use crate::util::warning::Warning;
use crate::views::secrets::{search_stream, Detector, Located, Place, Scrub};
use crate::views::style::{self, IdCut, Role};

/// One secret in one entry.
struct Hit {
    file_line: u64,
    entry_id: Option<String>,
    /// The entry's type; `session` for the header; `None` for a line pi skips.
    kind: Option<String>,
    role: Option<String>,
    found: Located,
}

/// One session's findings.
struct Searched {
    path: PathBuf,
    id: String,
    cwd: String,
    warnings: Vec<Warning>,
    hits: Vec<Hit>,
}

pub fn run(
    args: &GrepArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    let detector = Detector::load(args.secrets_config.as_deref())?;
    let projects = Projects::parse(&args.projects, &env.inputs.home)?;
    // Without a pattern, the first SESSION is clap's `pattern`.
    let named: Vec<std::ffi::OsString> = args
        .pattern
        .iter()
        .map(Into::into)
        .chain(args.sessions.iter().cloned())
        .collect();
    if !named.is_empty() && (args.all || !args.projects.is_empty()) {
        return Err(UsageError("SESSIONs cannot be given with --all or --project".into()).into());
    }
    let (files, explicit, mut trouble) =
        sources(&named, args.all, &projects, env, diag, stdin, &detector).map_err(|e| {
            if e.is::<UsageError>() {
                e
            } else {
                Unanswered(e).into()
            }
        })?;
    let scope = projects.scope(args.all);
    let theme = env.theme();
    let mut found = false;
    let mut failed: Option<io::Error> = None;
    crate::util::parallel::ordered(
        &files,
        |source| search(source, &detector),
        |result| {
            let s = match result {
                Ok(s) => s,
                Err((path, e)) => {
                    trouble |= report_unreadable(diag, &path, &e);
                    return ControlFlow::Continue(());
                }
            };
            // Warnings name ids and the path too: out of stderr the same secrets stay out.
            let scrub = Scrub::new(&detector, s.hits.iter().map(|h| &h.found));
            let warnings: Vec<Warning> = s
                .warnings
                .iter()
                .map(|w| Warning {
                    line: w.line,
                    message: scrub.owned(&w.message),
                })
                .collect();
            diag.session_warnings(&scrub.owned(&s.path.display().to_string()), &warnings);
            let kept = explicit
                || (listing::in_scope(&env.location, scope, &s.cwd) && projects.holds(&s.cwd));
            if !kept || s.hits.is_empty() {
                return ControlFlow::Continue(());
            }
            let first = !found;
            found = true;
            match write_session(args, env, theme, &detector, &s, first, out) {
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
    Ok(if trouble {
        Outcome::Unsure
    } else if found {
        Outcome::Done
    } else {
        Outcome::NoMatch
    })
}

/// Standard input's search, done as it was read.
type StdinSearched = Result<
    (
        crate::format::scan::ScanReport,
        Vec<crate::views::secrets::Hit>,
    ),
    (PathBuf, ScanError),
>;

/// The files to read, whether they were named, and whether a listing may have missed one.
fn sources(
    named: &[std::ffi::OsString],
    all: bool,
    projects: &Projects,
    env: &Env,
    diag: &mut Diag,
    stdin: &mut dyn Read,
    detector: &Detector,
) -> anyhow::Result<(Vec<Source<StdinSearched>>, bool, bool)> {
    let loc = &env.location;
    if named.is_empty() {
        let listed = listing::files(loc, projects.scope(all))?;
        let mut incomplete = false;
        for (path, why) in listed.skipped {
            incomplete |= matches!(why, Skipped::Folder(_));
            Problem::Skipped(why).report(&path, diag);
        }
        return Ok((
            listed.files.into_iter().map(Source::File).collect(),
            false,
            incomplete,
        ));
    }
    let mut files = Vec::new();
    for arg in named {
        match select(Some(arg), loc, env.pi_session_file.as_deref())? {
            Selected::File(path) => files.push(Source::File(path)),
            // Searched as it comes (never held whole), its result reported in its place.
            Selected::Stdin => {
                super::stdin_is_a_stream(env)?;
                let input = std::io::BufReader::with_capacity(256 * 1024, &mut *stdin);
                let searched =
                    search_stream(input, "-", detector).map_err(|e| (PathBuf::from("-"), e));
                files.push(Source::stdin(searched));
            }
        }
    }
    Ok((files, true, false))
}

/// Every finding of one session, read as a stream by the one reader: every line of it, entry
/// or not ([`search_stream`]).
fn search(
    source: &Source<StdinSearched>,
    detector: &Detector,
) -> Result<Searched, (PathBuf, ScanError)> {
    let (path, (report, found)) = match source {
        Source::File(path) => {
            let failed = |e| (path.clone(), e);
            let opened = open_file(path).map_err(failed)?;
            let input = whole_file(&opened, Reading::OnThisThread).map_err(failed)?;
            let searched = search_stream(input, &opened.stem, detector).map_err(failed)?;
            (path.clone(), searched)
        }
        Source::Stdin(searched) => {
            let searched = searched
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
                .unwrap_or_else(|| {
                    let again = std::io::Error::other("standard input was already searched");
                    Err((PathBuf::from("-"), ScanError::Io(again)))
                })?;
            (PathBuf::from("-"), searched)
        }
    };
    let header = &report.header;
    let hits = found
        .into_iter()
        .map(|h| {
            let (entry_id, kind, role) = match h.place {
                Place::Entry { id, kind, role } => (
                    id,
                    Some(kind),
                    role.map(|r| migrated_role(header, &r).to_owned()),
                ),
                Place::Header => (None, Some("session".to_owned()), None),
                Place::Skipped => (None, None, None),
            };
            Hit {
                file_line: h.file_line,
                entry_id,
                kind,
                role,
                found: h.found,
            }
        })
        .collect();
    Ok(Searched {
        path,
        id: report.header.id,
        cwd: report.header.cwd.unwrap_or_default(),
        warnings: report.warnings,
        hits,
    })
}

fn write_session(
    args: &GrepArgs,
    env: &Env,
    theme: style::Theme,
    detector: &Detector,
    s: &Searched,
    first: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    // Every name printed (the path, the session and entry ids, types, roles) may hold a
    // secret the session was found to hold: each is replaced by its token (`Scrub`).
    let scrub = Scrub::new(detector, s.hits.iter().map(|h| &h.found));
    let path = scrub.owned(&s.path.display().to_string());
    let session_cwd = scrub.owned(&s.cwd);
    let shown = |p: &str| -> String {
        if env.stdout_tty {
            style::escape_control(p, false).into_owned()
        } else {
            p.to_owned()
        }
    };
    if args.files_with_matches {
        return writeln!(out, "{}", shown(&path));
    }
    if args.count {
        return writeln!(out, "{}:{}", shown(&path), s.hits.len());
    }
    let opt = |o: &Option<String>| o.as_deref().map(|t| scrub.owned(t));
    if args.json {
        let session_id = scrub.owned(&s.id);
        for h in &s.hits {
            let object = json!({
                "session": session_id,
                "path": path,
                "cwd": session_cwd,
                "entry": opt(&h.entry_id),
                "type": opt(&h.kind),
                "role": opt(&h.role),
                "fileLine": h.file_line,
                "field": scrub.owned(&h.found.field),
                "line": h.found.line,
                "kind": h.found.kind,
                "fingerprint": h.found.fingerprint,
                "preview": h.found.preview,
            });
            crate::format::surrogates::write(&mut *out, &object)?;
            out.write_all(b"\n")?;
        }
        return Ok(());
    }
    if !first {
        out.write_all(b"\n")?;
    }
    let esc = |t: &str| style::escape_control(t, false).into_owned();
    // An id that held a secret is its token, whole: a cut token would say nothing.
    let id_shown = |id: &str, cut: IdCut| match scrub.text(id) {
        std::borrow::Cow::Borrowed(id) => style::shown_id(id, cut),
        std::borrow::Cow::Owned(token) => esc(&token),
    };
    let session_id = id_shown(&s.id, IdCut::Column);
    let mut cwd = esc(&tilde(Path::new(&session_cwd), &env.inputs.home));
    let mut file = esc(&path);
    if let Some(w) = env.width {
        // The heading fits the terminal: the path gives way first, down to what the cwd
        // leaves of the room (the cwd keeps at most half of it), then the cwd; 20 columns
        // each at least.
        let room = w.saturating_sub(style::width(&session_id) + 4);
        let cwd_share = style::width(&cwd).min(room / 2);
        file = style::truncate(&file, room.saturating_sub(cwd_share).max(20)).into_owned();
        cwd = style::truncate(&cwd, room.saturating_sub(style::width(&file)).max(20)).into_owned();
    }
    writeln!(
        out,
        "{}  {}  {}",
        theme.paint(Role::Id, &session_id),
        cwd,
        theme.dim(&file)
    )?;
    for h in &s.hits {
        let id = match (&h.entry_id, h.kind.as_deref()) {
            (Some(id), _) => id_shown(id, IdCut::Typed),
            (None, Some("session")) => "header".to_owned(),
            (None, _) => "-".to_owned(),
        };
        let f = &h.found;
        let preview = esc(&f.preview);
        let mut field = esc(&scrub.text(&f.field));
        if let Some(w) = env.width {
            // Everything but the field is short: the field gives way (to 20 columns at least).
            let rest = 2
                + style::width(&id)
                + 2
                + 1
                + f.line.to_string().len()
                + 2
                + style::width(&f.kind)
                + 2
                + style::width(&preview)
                + 1
                + 2
                + f.fingerprint.len();
            field = style::truncate(&field, w.saturating_sub(rest).max(20)).into_owned();
        }
        writeln!(
            out,
            "  {}  {}:{}  {}  {}…  {}",
            theme.paint(Role::Id, &id),
            field,
            f.line,
            theme.bold(&theme.paint(Role::Error, &f.kind)),
            preview,
            theme.dim(&f.fingerprint)
        )?;
    }
    Ok(())
}
