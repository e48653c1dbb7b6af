//! `ls --touched PATH`: only the sessions whose `read`, `write` or `edit` calls named PATH or
//! a file under it, each call's path normalised against its session's cwd as `pisess files`
//! normalises it ([`crate::cmd::files::touched`]), PATH against the directory pisess runs in.
//! So `src/x`, `./src/x` and `/cwd/src/x` in a session of `/cwd` all touch `/cwd/src/x`.
//!
//! Every session of the scope is read, so a file that cannot hold PATH is skipped unread: a
//! call naming PATH names its last component, or the session's cwd (in its header) holds it.

use std::path::Path;

use crate::app::diag::Diag;
use crate::views::paths;
use pisess_store::session::{IndexOptions, Session};
use pisess_store::summary::Summary;

/// Keeps the sessions that touched `path` (given relative to `cwd` or absolute); whether some
/// session could not be read (it is reported, and left out). An empty PATH (an unset
/// variable) is a usage error, not "the current dir".
pub(super) fn retain(
    sessions: &mut Vec<Summary>,
    path: &str,
    cwd: &Path,
    diag: &mut Diag,
) -> anyhow::Result<bool> {
    if path.trim().is_empty() {
        return Err(pisess_store::util::usage::UsageError(
            "--touched: the path is empty (an unset variable?): name a file or a folder".to_owned(),
        )
        .into());
    }
    let absolute = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("{}/{path}", cwd.display())
    };
    // The last name PATH has, when the file would hold it as it is (no JSON escapes).
    let name = paths::normal(&absolute, "");
    let name = name.rsplit('/').next().unwrap_or_default().to_owned();
    let plain = !name.is_empty()
        && name != ".."
        && (name.bytes()).all(|b| b.is_ascii_alphanumeric() || b"._-+@ ,=".contains(&b));
    // Each file on every core, the verdicts (and the reasons a file could not be read) in
    // the listing's order.
    let mut verdicts = Vec::with_capacity(sessions.len());
    pisess_store::util::parallel::ordered(
        sessions,
        |s| {
            if plain {
                match std::fs::read(&s.path) {
                    Ok(bytes) if memchr::memmem::find(&bytes, name.as_bytes()).is_none() => {
                        return Ok(false)
                    }
                    Ok(_) => {}
                    Err(e) => return Err(pisess_format::util::warning::io_cause(&e)),
                }
            }
            touches(&s.path, &absolute).map_err(|e| format!("{e:#}"))
        },
        |verdict| {
            verdicts.push(verdict);
            std::ops::ControlFlow::Continue(())
        },
    );
    let mut failed = false;
    let mut verdicts = verdicts.into_iter();
    sessions.retain(|s| match verdicts.next() {
        Some(Ok(yes)) => yes,
        Some(Err(why)) => {
            diag.warn(&s.path.display().to_string(), None, &why);
            failed = true;
            false
        }
        None => false,
    });
    Ok(failed)
}

/// Whether a read, write or edit call of the session at `file` named `absolute` or a file
/// under it.
fn touches(file: &Path, absolute: &str) -> anyhow::Result<bool> {
    let session = Session::open(file, IndexOptions::default())?;
    let cwd = session.header.cwd.as_deref().unwrap_or("");
    let target = paths::normal(absolute, cwd);
    // PATH is the session's cwd itself: every relative path lies under it.
    let is_cwd = target == paths::normal(cwd, cwd);
    let order: Vec<usize> = (0..session.entries.len()).collect();
    let files = crate::cmd::files::touched(&session, &order)?;
    Ok(files.keys().any(|f| {
        *f == target
            || f.strip_prefix(target.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
            || (is_cwd && !f.starts_with(['/', '~']) && !f.starts_with(".."))
    }))
}
