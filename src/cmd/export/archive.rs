//! `export --all | --since WHEN | SESSION SESSION… -o DIR`: an archive, one page per session
//! (its active branch, as `export` writes it) and an index, in a folder of their own.
//!
//! Nothing is written outside DIR: DIR is made, or must be an empty folder (any folder with
//! --force), never a symlink or a file; no page is written through a symlink, over a session,
//! or over a file this run reads. Links are the pages' own file names. A session that cannot
//! be read is reported and left out (exit 1); the others are written.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::app::cli::{ExportArgs, ExportFormat};
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::Outcome;
use crate::cmd::destination;
use crate::views::export::index::{self, Row};
use crate::views::export::Out;
use crate::views::style;
use pisess_store::listing::{self, Scope};
use pisess_store::select::{select, Selected};
use pisess_store::summary::Detail;
use pisess_store::util::usage::UsageError;

/// Whether the arguments ask for an archive: --all, --since, two sessions or more, or `-o`
/// naming a folder (`out/`).
pub(super) fn wanted(args: &ExportArgs) -> bool {
    let folder = args
        .output
        .as_deref()
        .is_some_and(|o| o.as_encoded_bytes().ends_with(b"/"));
    args.all || args.since.is_some() || args.sessions.len() > 1 || folder
}

pub(super) fn run(args: &ExportArgs, env: &Env, diag: &mut Diag) -> anyhow::Result<Outcome> {
    let usage = |m: &str| -> anyhow::Result<Outcome> { Err(UsageError(m.to_owned()).into()) };
    let Some(dir) = args.output.as_deref().filter(|o| *o != OsStr::new("-")) else {
        return usage("an archive (--all, --since, several sessions) is a folder: give -o DIR");
    };
    let format = match args.format {
        None | Some(ExportFormat::Html) => ExportFormat::Html,
        Some(ExportFormat::Md) => ExportFormat::Md,
        Some(ExportFormat::Jsonl) => {
            return usage("an archive is of md or html pages (--format md|html)");
        }
    };
    if args.leaf.is_some() {
        return usage("--leaf names one session's entry; an archive exports each active branch");
    }
    let dir = Path::new(dir);
    let paths = sessions(args, env, diag)?;
    let folders = [
        env.location.root.as_path(),
        env.location.session_dir.as_path(),
    ];
    prepare(dir, args.force, args.redact, &folders)?;
    let job = super::Job::new(args, format, env)?;
    let ext = if format == ExportFormat::Md {
        "md"
    } else {
        "html"
    };
    let mut taken: HashSet<String> = HashSet::new();
    taken.insert(format!("index.{ext}"));
    let mut rows: Vec<Row> = Vec::new();
    let mut failed = false;
    for path in &paths {
        let shown = style::escape_control(&path.display().to_string(), false).into_owned();
        let written = (|| -> anyhow::Result<Row> {
            let session = job.open(
                &Selected::File(path.clone()),
                env,
                diag,
                &mut std::io::empty(),
            )?;
            let branch = job.branch(&session, session.leaf(), diag)?;
            let t = branch
                .transcript
                .as_ref()
                .expect("md and html have a transcript");
            let page = index::page_name(t, ext, &mut taken);
            let file = dir.join(&page);
            refuse(&file, &folders, &paths)?;
            destination::write_whole(&file, !args.redact, |w| {
                job.write(&session, &branch, false, w)
            })?;
            Ok(Row::of(t, page))
        })();
        match written {
            Ok(row) => rows.push(row),
            Err(e) => {
                // An error, said even with -q: the archive is short of a session.
                let theme = env.err_theme();
                crate::app::diag::error(
                    diag.stderr(),
                    theme,
                    &format!("{shown}: left out of the archive: {e:#}"),
                );
                failed = true;
            }
        }
    }
    // Newest first: the order of the index without JavaScript.
    rows.sort_by_key(|r| std::cmp::Reverse(r.start_ms));
    let file = dir.join(format!("index.{ext}"));
    refuse(&file, &folders, &paths)?;
    destination::write_whole(&file, !args.redact, |w| {
        let mut out = Out::new(w, false);
        if format == ExportFormat::Md {
            index::md(&rows, &mut out);
        } else {
            index::html(&rows, &mut out);
        }
        Ok(out.finish()?)
    })?;
    Ok(if failed {
        Outcome::PartlyFailed
    } else {
        Outcome::Done
    })
}

/// The session files: those named (each once), else this project's or with --all every
/// project's, modified since --since.
fn sessions(args: &ExportArgs, env: &Env, diag: &mut Diag) -> anyhow::Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = Vec::new();
    if !args.sessions.is_empty() {
        if args.since.is_some() {
            return Err(UsageError(
                "--since picks the sessions; name sessions or give --since, not both".to_owned(),
            )
            .into());
        }
        for arg in &args.sessions {
            match select(Some(arg), &env.location, env.pi_session_file.as_deref())? {
                Selected::Stdin => {
                    return Err(UsageError(
                        "an archive reads session files, not standard input".to_owned(),
                    )
                    .into())
                }
                Selected::File(p) => {
                    if !paths.contains(&p) {
                        paths.push(p);
                    }
                }
            }
        }
        return Ok(paths);
    }
    let window = crate::cmd::window(&args.since, &None, env)?;
    let scope = if args.all { Scope::All } else { Scope::Project };
    let listing = listing::list(&env.location, scope, Detail::Listing)?;
    listing.report(diag);
    Ok((listing.sessions.iter())
        .filter(|s| window.holds(s))
        .map(|s| s.path.clone())
        .collect())
}

/// Makes DIR, or accepts it: an empty folder, any folder with `force`; never a symlink (what
/// is written would land outside it) or anything but a folder; never a sessions folder.
fn prepare(dir: &Path, force: bool, redact: bool, folders: &[&Path]) -> anyhow::Result<()> {
    let shown = style::escape_control(&dir.display().to_string(), false).into_owned();
    let refuse = |why: &str| -> anyhow::Result<()> {
        anyhow::bail!("-o {shown}: not writing the archive there: {why}")
    };
    // Where DIR is, or would be once made.
    let landing = dir.canonicalize().ok().or_else(|| {
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Some(parent.canonicalize().ok()?.join(dir.file_name()?))
    });
    for folder in folders {
        if let (Ok(f), Some(d)) = (folder.canonicalize(), &landing) {
            if d.starts_with(&f) {
                return refuse(&format!(
                    "it is inside the sessions folder {}",
                    folder.display()
                ));
            }
        }
    }
    match dir.symlink_metadata() {
        Ok(m) if m.file_type().is_symlink() => {
            refuse("it is a symlink (the pages would land where it points)")
        }
        Ok(m) if !m.is_dir() => refuse("it is not a folder"),
        Ok(_) => {
            let mut entries =
                std::fs::read_dir(dir).map_err(|e| anyhow::anyhow!("cannot read {shown}: {e}"))?;
            if !force && entries.next().is_some() {
                return refuse(
                    "it is not empty (--force writes into it, replacing files of the same names)",
                );
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut builder = std::fs::DirBuilder::new();
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt as _;
                // Pages as they are may hold secrets: the folder is the user's alone.
                builder.mode(if redact { 0o777 } else { 0o700 });
            }
            #[cfg(not(unix))]
            let _ = redact;
            builder
                .create(dir)
                .map_err(|e| anyhow::anyhow!("cannot make {shown}: {e}"))
        }
        Err(e) => Err(anyhow::anyhow!("cannot read {shown}: {e}")),
    }
}

/// A page of the archive is never written through a symlink (it would land outside DIR),
/// over a session, or over a file this run reads.
fn refuse(file: &Path, folders: &[&Path], inputs: &[PathBuf]) -> anyhow::Result<()> {
    let shown = style::escape_control(&file.display().to_string(), false).into_owned();
    if file
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
    {
        anyhow::bail!("{shown}: not writing a page through a symlink");
    }
    if let Some(why) = destination::refusal(file, folders, inputs, None) {
        anyhow::bail!("{shown}: not writing a page there: {why}");
    }
    Ok(())
}
