//! One module per command: each computes its data first, then renders it (human or JSON).

pub mod check;
pub mod context;
mod destination;
pub mod diff;
pub mod export;
pub mod facts;
pub mod files;
pub mod generate;
pub mod grep;
pub mod leaf;
pub mod ls;
pub mod path;
pub mod rm;
pub mod runs;
pub mod show;
pub mod started;
pub mod stats;
pub mod tree;

use std::ffi::OsStr;
use std::io::{self, Read};
use std::path::Path;

use anyhow::Context as _;

use crate::app::diag::Diag;
use crate::app::env::Env;
use pisess_format::model::PI_ENTRY_TYPES;
use pisess_format::model::{EntryKind, Header};
use pisess_format::scan::{Input, ScanError};
use pisess_format::util::warning::Warn;
use pisess_store::listing::Window;
use pisess_store::locate::Selected;
use pisess_store::session::{IndexOptions, Session};

/// The session a command's `SESSION` argument names (`None`: the default), as
/// `store::select::select` chooses it with the environment's location and `PI_SESSION_FILE`.
pub fn selected(arg: Option<&OsStr>, env: &Env) -> anyhow::Result<Selected> {
    pisess_store::select::select(arg, &env.location, env.pi_session_file.as_deref())
}

/// [`open_session`] of the session `arg` names ([`selected`]).
pub fn open_selected(
    arg: Option<&OsStr>,
    env: &Env,
    diag: &mut Diag,
    stdin: &mut dyn Read,
    options: IndexOptions<'_>,
) -> anyhow::Result<Session> {
    open_session(&selected(arg, env)?, env, diag, stdin, options)
}

/// Opens the session a command reads (`store::select::select` chose it), indexed as `options`
/// say, reporting its warnings once.
pub fn open_session(
    selected: &Selected,
    env: &Env,
    diag: &mut Diag,
    stdin: &mut dyn Read,
    options: IndexOptions<'_>,
) -> anyhow::Result<Session> {
    let session = match selected {
        Selected::Stdin => {
            Input::stdin_allowed(env.stdin_device)?;
            Session::read(Input::Stream(stdin, "-"), options).context("<stdin>")?
        }
        Selected::File(path) => {
            Session::open(path, options).with_context(|| path.display().to_string())?
        }
    };
    diag.session_warnings(&session.name, &session.warnings);
    Ok(session)
}

/// `--since` and `--until`, in the run's time zone.
pub fn window(since: &Option<String>, until: &Option<String>, env: &Env) -> anyhow::Result<Window> {
    Window::parse(since.as_deref(), until.as_deref(), env.now_ms, &env.tz)
}

/// The warning for a path walk (`Session::path_to`) that met a parent cycle at entry `id`.
pub fn warn_cycle(diag: &mut Diag, session: &Session, id: &str) {
    let line = session.find(id).map(|i| session.line(i));
    diag.warn(&session.name, line, &cycle_warning(id));
}

/// What [`warn_cycle`] says of a cycle closing at entry `id`.
pub fn cycle_warning(id: &str) -> String {
    format!("parent cycle through entry {id}; the path starts where it closes (pi would hang)")
}

/// A session whose usage totals are not finite: a stored number beyond JavaScript's range
/// (`1e999`), which pi's `JSON.parse` reads as `Infinity` and adds to its totals, as pisess
/// does. Said once per session, so a total of `Infinity` (or `null` in JSON) is never a
/// surprise.
pub fn warn_infinite_usage(diag: &mut Diag, name: &str, usage: &pisess_format::model::Usage) {
    if !usage.is_finite() {
        diag.warn(
            name,
            None,
            if usage.input.is_nan() || usage.output.is_nan() || usage.cache_read.is_nan() || usage.cache_write.is_nan() || usage.cost.is_nan() {
                "a usage holds a count pi does not add as a number (a string, an array, an object) or Infinity and -Infinity together: its totals are NaN here (pi's are text: see stats --json SESSION)"
            } else {
                "a usage holds a number beyond JavaScript's range: its totals are Infinity (or NaN), as pi counts them"
            },
        );
    }
}

/// Resolves an entry id given on the command line (exact, or a unique prefix).
pub fn find_entry(session: &Session, id: &str) -> anyhow::Result<usize> {
    if let Some(i) = session.find(id) {
        return Ok(i);
    }
    let matches: Vec<(&str, usize)> = session.ids().filter(|(k, _)| k.starts_with(id)).collect();
    match matches.as_slice() {
        [(_, one)] => Ok(*one),
        [] => anyhow::bail!("no entry '{id}' in {}", session.name),
        many => {
            let mut ids: Vec<&str> = many.iter().map(|(k, _)| *k).collect();
            ids.sort_unstable();
            anyhow::bail!(
                "entry id '{id}' is ambiguous in {}: {}",
                session.name,
                ids.join(", ")
            )
        }
    }
}

/// `--type T` with a type pi never writes is most likely a typo: warned, still matched, as
/// files hold other types (`show`, `grep`).
pub fn warn_unknown_types(types: &[String], diag: &mut Diag) {
    for t in types
        .iter()
        .filter(|t| !PI_ENTRY_TYPES.contains(&t.as_str()))
    {
        let types = PI_ENTRY_TYPES.join(", ");
        diag.warn(
            "",
            None,
            &format!("--type {t}: not one of pi's entry types ({types})"),
        );
    }
}

/// `--type` and `--role`: each repeatable (any of), both together (all of).
pub fn entry_wanted(
    types: &[String],
    roles: &[String],
    header: &Header,
    kind: &EntryKind,
    role: Option<&str>,
) -> bool {
    let type_ok = types.is_empty() || types.iter().any(|t| t == kind.as_str());
    let role_ok = roles.is_empty()
        || (*kind == EntryKind::Message
            && role.is_some_and(|role| {
                roles
                    .iter()
                    .any(|r| r == role || r == migrated_role(header, role))
            }));
    type_ok && role_ok
}

/// The index keeps roles as stored; pi reads v1/v2 `hookMessage` as `custom`, and so does
/// `--role custom` (the stored name matches too).
pub fn migrated_role<'a>(h: &Header, role: &'a str) -> &'a str {
    if role == "hookMessage" && h.renames_hook_messages() {
        "custom"
    } else {
        role
    }
}

/// A file that `grep` or `grep --secrets` could not search: a warning; true when it may
/// hide a match or a secret (exit 2).
pub(crate) fn report_unreadable(diag: &mut Diag, path: &Path, e: &ScanError) -> bool {
    let name = path.display().to_string();
    match e {
        ScanError::Io(io) if io.kind() == io::ErrorKind::NotFound => {
            diag.warn(&name, None, "removed while searching");
            false
        }
        // Not a pi session: skipped, as `ls` skips it.
        ScanError::NotASession { .. } | ScanError::Empty | ScanError::NoHeader { .. } => {
            diag.warn(&name, None, &format!("skipped: {e}"));
            false
        }
        // Listings pass over what is not a regular file before this, so this one was named
        // (or swapped in): it could not be searched.
        ScanError::Io(_) | ScanError::Changed | ScanError::NotRegular(_) => {
            diag.warn(&name, None, &format!("skipped: {e}"));
            true
        }
    }
}
