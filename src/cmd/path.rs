//! `pisess path`: the session dir for this cwd, a session's file, or the sessions root;
//! with `--explain`, every source of the session dir in order and which one won.

use std::io::Write;

use crate::cli::PathArgs;
use crate::diag::Diag;
use crate::env::Env;
use crate::exit::{Outcome, UsageError};
use crate::select::{select, Selected};

pub fn run(
    args: &PathArgs,
    env: &Env,
    out: &mut dyn Write,
    _diag: &mut Diag,
) -> anyhow::Result<Outcome> {
    let loc = &env.location;
    if args.explain {
        let winner = loc.source;
        writeln!(out, "cwd            {}", loc.cwd.display())?;
        writeln!(out, "agent dir      {}", loc.agent_dir.display())?;
        writeln!(out, "sessions root  {}", loc.root.display())?;
        for c in &loc.candidates {
            let value = match (&c.dir, &c.note) {
                (Some(d), _) => d.display().to_string(),
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
                writeln!(out, "{:<32}   from {}", "", c.origin)?;
            }
        }
        let kind = if loc.custom {
            "custom (flat, shared by projects, filtered by header cwd)"
        } else {
            "per project (--<cwd>-- under the root)"
        };
        writeln!(out, "session dir    {} [{kind}]", loc.session_dir.display())?;
        return Ok(Outcome::Done);
    }
    if args.root {
        writeln!(out, "{}", loc.root.display())?;
        return Ok(Outcome::Done);
    }
    match &args.session {
        None => writeln!(out, "{}", loc.session_dir.display())?,
        Some(arg) => match select(Some(arg.as_os_str()), loc, env.pi_session_file.as_deref())? {
            Selected::File(p) => writeln!(out, "{}", p.display())?,
            Selected::Stdin => {
                return Err(UsageError("a session read from stdin has no path".into()).into())
            }
        },
    }
    Ok(Outcome::Done)
}
