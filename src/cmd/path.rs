//! `pisess path`: the session dir for this cwd, a session's file, or the sessions root;
//! with `--explain`, every source of the session dir in order and which one won.

use std::io::{self, Write};
use std::path::Path;

use crate::app::cli::PathArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::views::style;
use pisess_store::select::{select, Selected};
use pisess_store::util::usage::UsageError;

pub fn run(
    args: &PathArgs,
    env: &Env,
    out: &mut dyn Write,
    _diag: &mut Diag,
) -> anyhow::Result<Outcome> {
    let loc = &env.location;
    let tty = env.stdout_tty;
    if args.explain {
        let winner = loc.source;
        let shown = |p: &Path| shown(p, tty);
        writeln!(out, "cwd            {}", shown(&loc.cwd))?;
        writeln!(out, "agent dir      {}", shown(&loc.agent_dir))?;
        writeln!(out, "sessions root  {}", shown(&loc.root))?;
        for c in &loc.candidates {
            let value = match (&c.dir, &c.note) {
                (Some(d), _) => shown(d),
                (None, Some(note)) => note.clone(),
                (None, None) => "(unset)".to_owned(),
            };
            // Every value a source holds is shown, with what beats it: the first usable source
            // in order, or for the global setting a project key that replaces it in the merge.
            let mark = if c.source == winner {
                "  <- used".to_owned()
            } else if let Some(by) = c.masked_by.filter(|_| c.dir.is_some() || c.note.is_some()) {
                format!("  (overridden by {})", by.describe())
            } else if c.dir.is_some() {
                format!("  (overridden by {})", winner.describe())
            } else {
                String::new()
            };
            writeln!(out, "{:<32} {value}{mark}", c.source.describe())?;
            if c.origin != c.source.describe() {
                let origin = style::escape_control(&c.origin, false);
                let origin = if tty {
                    origin
                } else {
                    c.origin.as_str().into()
                };
                writeln!(out, "{:<32}   from {origin}", "")?;
            }
        }
        let kind = if loc.custom {
            "custom (flat, shared by projects, filtered by header cwd)"
        } else {
            "per project (--<cwd>-- under the root)"
        };
        writeln!(out, "session dir    {} [{kind}]", shown(&loc.session_dir))?;
        return Ok(Outcome::Done);
    }
    if args.root {
        write_path(out, &loc.root, tty)?;
        return Ok(Outcome::Done);
    }
    match &args.session {
        None => write_path(out, &loc.session_dir, tty)?,
        Some(arg) => match select(Some(arg.as_os_str()), loc, env.pi_session_file.as_deref())? {
            Selected::File(p) => write_path(out, &p, tty)?,
            Selected::Stdin => {
                return Err(UsageError("a session read from stdin has no path".into()).into())
            }
        },
    }
    Ok(Outcome::Done)
}

/// A path for a line of `path`'s output: on a terminal escaped (a name can hold ESC or a
/// newline), else as it is.
fn shown(path: &Path, tty: bool) -> String {
    let text = path.display().to_string();
    if tty {
        style::escape_control(&text, false).into_owned()
    } else {
        text
    }
}

/// One path a line: on a terminal escaped, piped the exact bytes (not UTF-8 ones included),
/// so `$(pisess path S)` is the real path.
fn write_path(out: &mut dyn Write, path: &Path, tty: bool) -> io::Result<()> {
    if tty {
        writeln!(out, "{}", shown(path, true))
    } else {
        out.write_all(path.as_os_str().as_encoded_bytes())?;
        out.write_all(b"\n")
    }
}
