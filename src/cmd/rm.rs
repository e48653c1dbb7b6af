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

use crate::cli::{LsArgs, RmArgs, SortKey};
use crate::diag::Diag;
use crate::env::Env;
use crate::exit::{Outcome, UsageError};
use crate::locate::{self, Location};
use crate::scan::{read_header, Reading, ScanError};
use crate::select::{self, SelectError, Selected};
use crate::style::{self, Theme};
use crate::summary::{summarize, Summary};
use crate::time::parse_when;

/// Which file a path named when it was checked: device and inode where the platform has them.
/// A path that names another file at removal time was replaced, and is left alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity(Option<(u64, u64)>);

impl Identity {
    #[cfg(unix)]
    fn of(meta: &Metadata) -> Identity {
        use std::os::unix::fs::MetadataExt;
        Identity(Some((meta.dev(), meta.ino())))
    }

    #[cfg(not(unix))]
    fn of(_meta: &Metadata) -> Identity {
        Identity(None)
    }

    /// Known on both sides and equal (unknown never proves sameness).
    fn same(self, other: Identity) -> bool {
        self.0.is_some() && self == other
    }
}

/// A file an argument or a filter picked, not yet checked.
struct Candidate {
    path: PathBuf,
    /// Named by its path on the command line: the one way a file outside the root may go.
    explicit: bool,
    /// The listing's summary when a filter picked it (spares reading the file twice).
    summary: Option<Summary>,
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
    identity: Identity,
}

/// Something that will not be removed, and why.
#[derive(Debug)]
struct Refusal {
    /// The file; `None` when an argument named no file at all.
    path: Option<PathBuf>,
    reason: String,
}

/// Everything decided before anything is touched.
#[derive(Debug)]
struct Plan {
    targets: Vec<Target>,
    refused: Vec<Refusal>,
    /// Some listed files could not be read, so a filter may have missed sessions.
    incomplete: bool,
}

/// Where removed files go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Trash,
    Permanent,
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
    identity: Identity,
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
                    identity: fs::metadata(&path).map_or(Identity(None), |m| Identity::of(&m)),
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
            live.identity.same(Identity::of(meta)) || live.canonical == canonical(path)
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
    let err_theme = Theme {
        enabled: env.color_stderr,
    };
    render_refusals(&plan.refused, err_theme, diag.stderr());
    let failed_already = !plan.refused.is_empty() || plan.incomplete;
    let outcome = |failed: bool| {
        if failed {
            Outcome::Partial
        } else {
            Outcome::Done
        }
    };
    if plan.targets.is_empty() {
        writeln!(out, "Nothing to remove.")?;
        return Ok(outcome(failed_already));
    }
    render_plan(&plan.targets, mode, args.dry_run, env, out)?;
    if args.dry_run {
        writeln!(out, "Dry run: nothing was removed.")?;
        return Ok(outcome(failed_already));
    }
    if !confirm(args, env, plan.targets.len(), out, diag, stdin)? {
        writeln!(out, "Nothing was removed.")?;
        return Ok(outcome(failed_already));
    }
    let mut removed = Vec::new();
    let mut failures = 0;
    for target in &plan.targets {
        let result = remove(target, mode);
        render_result(target, &result, mode, env, err_theme, out, diag.stderr())?;
        match result {
            Ok(()) => removed.push(target),
            Err(_) => failures += 1,
        }
    }
    render_total(&removed, failures, mode, out)?;
    Ok(outcome(failed_already || failures > 0))
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
    if args.all && !filtering {
        return Err(UsageError(
            "--all widens --older-than and --empty to every project; give one of them".into(),
        )
        .into());
    }
    if let Some(span) = &args.older_than {
        // Checked before anything else so a typo fails as a usage error, exit 2.
        parse_when(span, env.now_ms).map_err(UsageError)?;
    }

    let loc = &env.location;
    let mut refused = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
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
        // The same listing as `ls` (pi's `modified`, this project or --all), so what
        // `pisess ls --until 30d` shows is what `pisess rm --older-than 30d` removes.
        let ls_args = LsArgs {
            all: args.all,
            limit: None,
            since: None,
            until: args.older_than.clone(),
            sort: SortKey::Modified,
            reverse: false,
            json: false,
        };
        let (sessions, failed) = crate::cmd::ls::collect(&ls_args, env, diag)?;
        incomplete = failed;
        for s in sessions {
            if args.empty && s.message_count > 0 {
                continue;
            }
            add(Candidate {
                path: s.path.clone(),
                explicit: false,
                summary: Some(s),
            });
        }
    }

    let rules = Rules::new(env, args.force);
    let mut targets: Vec<Target> = Vec::new();
    for c in candidates {
        match check(c.path.clone(), c.explicit, c.summary, &rules) {
            // One file named twice (an id and a path, a hard link) goes once.
            Ok(t) if targets.iter().any(|x| x.identity.same(t.identity)) => {}
            Ok(t) => targets.push(t),
            Err(reason) => refused.push(Refusal {
                path: Some(c.path),
                reason,
            }),
        }
    }
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
    match select::select(Some(arg), loc, pi_session_file) {
        Ok(Selected::File(path)) => Ok(Candidate {
            path,
            explicit,
            summary: None,
        }),
        Ok(Selected::Stdin) => Err(Refusal {
            path: None,
            reason: "'-' is standard input, not a file: there is nothing to remove".into(),
        }),
        // A dangling symlink "does not exist" to the selection; it goes on to be refused as
        // a symlink, which says more than "no such file".
        Err(SelectError::MissingPath(path)) if path.symlink_metadata().is_ok() => Ok(Candidate {
            path,
            explicit: true,
            summary: None,
        }),
        Err(e) => Err(Refusal {
            path: None,
            reason: e.to_string(),
        }),
    }
}

/// Every rule a file must pass to be removed; the reason when it does not.
fn check(
    path: PathBuf,
    explicit: bool,
    summary: Option<Summary>,
    rules: &Rules,
) -> Result<Target, String> {
    // lstat: a symlink is judged as itself, and its target is never looked at.
    let meta = fs::symlink_metadata(&path).map_err(|e| cannot_read(&e))?;
    let kind = meta.file_type();
    if kind.is_symlink() {
        return Err("it is a symlink (pisess removes neither a link nor its target)".into());
    }
    if kind.is_dir() {
        return Err("it is a directory".into());
    }
    if !kind.is_file() {
        return Err("it is not a regular file".into());
    }
    if path.extension().is_none_or(|x| x != "jsonl") {
        return Err("it is not a .jsonl file".into());
    }
    if !explicit && !rules.inside_root(&path) {
        return Err(format!(
            "it is outside the sessions root {} (name it by its path to remove it anyway)",
            rules.root_shown.display()
        ));
    }
    read_header(&path).map_err(|e| not_a_session(&e))?;
    if !rules.force && rules.is_live(&path, &meta) {
        return Err(
            "it is the live session ($PI_SESSION_FILE); add --force to remove it anyway".into(),
        );
    }
    let summary = match summary {
        Some(s) => s,
        None => summarize(&path, Reading::AheadIfBig).map_err(|e| not_a_session(&e))?,
    };
    Ok(Target {
        title: summary.name.clone().unwrap_or(summary.first_message),
        named: summary.name.is_some(),
        id: summary.id,
        bytes: meta.len(),
        identity: Identity::of(&meta),
        path,
    })
}

fn cannot_read(e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::NotFound {
        "no such file".into()
    } else {
        format!("cannot read it: {e}")
    }
}

fn not_a_session(e: &ScanError) -> String {
    match e {
        ScanError::Io(e) => cannot_read(e),
        ScanError::NotASession { line, reason } => {
            format!("it is not a pi session (line {line}: {reason})")
        }
        ScanError::Empty => "it is not a pi session (it holds no session header)".into(),
    }
}

/// The question on a terminal; without one, only `--yes` lets the removal go on.
fn confirm(
    args: &RmArgs,
    env: &Env,
    count: usize,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<bool> {
    if args.yes {
        return Ok(true);
    }
    if !env.stdin_tty {
        // The plan first, then the refusal, even when both streams are one terminal.
        out.flush()?;
        anyhow::bail!(
            "not removing {}: standard input is not a terminal, so nobody can confirm (add --yes)",
            sessions(count)
        );
    }
    // The plan must be on the screen before the question (stdout may be buffered).
    out.flush()?;
    let err = diag.stderr();
    write!(err, "Remove {}? [y/N] ", sessions(count))?;
    err.flush()?;
    let answer = read_line(stdin)?;
    Ok(matches!(
        answer.trim().to_ascii_lowercase().as_str(),
        "y" | "yes"
    ))
}

/// One line of the answer, byte by byte so nothing past it is consumed; EOF is "no".
fn read_line(stdin: &mut dyn Read) -> io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match stdin.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(String::from_utf8_lossy(&line).into_owned())
}

/// Removes one file after checking, once more, that the path still names what was checked.
fn remove(target: &Target, mode: Mode) -> Result<(), String> {
    still_the_same(target)?;
    read_header(&target.path).map_err(|e| format!("{}; left alone", not_a_session(&e)))?;
    // Again, as close to the removal as it gets: reading the header took time.
    still_the_same(target)?;
    match mode {
        // unlink never follows a symlink, and the trash moves the path itself.
        Mode::Permanent => fs::remove_file(&target.path).map_err(|e| format!("cannot delete it: {e}")),
        Mode::Trash => trash::delete(&target.path).map_err(|e| {
            format!(
                "cannot move it to the trash ({}); it was left in place (--permanent deletes without the trash)",
                trash_error(&e)
            )
        }),
    }
}

/// The trash crate's `Display` is its `Debug`; say the same in words.
fn trash_error(e: &trash::Error) -> String {
    match e {
        #[cfg(all(
            unix,
            not(target_os = "macos"),
            not(target_os = "ios"),
            not(target_os = "android")
        ))]
        trash::Error::FileSystem { path, source } => format!("{}: {source}", path.display()),
        trash::Error::Unknown { description } | trash::Error::Os { description, .. } => {
            description.clone()
        }
        trash::Error::CouldNotAccess { target } => format!("cannot access {target}"),
        trash::Error::CanonicalizePath { original } => {
            format!("cannot resolve {}", original.display())
        }
        other => format!("{other:?}"),
    }
}

fn still_the_same(target: &Target) -> Result<(), String> {
    let meta = fs::symlink_metadata(&target.path).map_err(|e| cannot_read(&e))?;
    if meta.file_type().is_symlink() {
        return Err("it was replaced by a symlink since it was checked; left alone".into());
    }
    if !meta.is_file() {
        return Err("it is no longer a regular file; left alone".into());
    }
    if Identity::of(&meta) != target.identity {
        return Err("it was replaced by another file since it was checked; left alone".into());
    }
    Ok(())
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

fn render_refusals(refused: &[Refusal], theme: Theme, err: &mut dyn Write) {
    for r in refused {
        let message = match &r.path {
            // The reason may quote the file (`type "session_\u{1b}"`): escaped like the path.
            Some(path) => format!(
                "not removing {}: {}",
                path_text(path),
                style::escape_control(&r.reason, false)
            ),
            None => style::escape_control(&r.reason, false).into_owned(),
        };
        // A closed stderr must not stop the command.
        let _ = writeln!(err, "pisess: {} {message}", theme.red("error:"));
    }
}

/// The plan: what goes, how, and how much; the path of each on a line of its own.
fn render_plan(
    targets: &[Target],
    mode: Mode,
    dry_run: bool,
    env: &Env,
    out: &mut dyn Write,
) -> io::Result<()> {
    let theme = Theme {
        enabled: env.color_stdout,
    };
    let total: u64 = targets.iter().map(|t| t.bytes).sum();
    let what = format!("{} ({})", sessions(targets.len()), style::bytes(total));
    let heading = match (mode, dry_run) {
        (Mode::Trash, true) => format!("Would move {what} to the trash:"),
        (Mode::Trash, false) => format!("Will move {what} to the trash:"),
        (Mode::Permanent, true) => format!("Would delete {what} permanently:"),
        (Mode::Permanent, false) => format!("Will delete {what} permanently:"),
    };
    writeln!(out, "{heading}")?;
    let rows: Vec<(String, String)> = targets
        .iter()
        .map(|t| (style::short_id(&t.id), style::bytes(t.bytes)))
        .collect();
    let id_width = rows.iter().map(|r| style::width(&r.0)).max().unwrap_or(0);
    let size_width = rows.iter().map(|r| style::width(&r.1)).max().unwrap_or(0);
    for (t, (id, size)) in targets.iter().zip(&rows) {
        let fixed = 2 + id_width + 2 + size_width + 2;
        let mut title = style::one_line(&t.title);
        if let Some(width) = env.width.filter(|w| *w > fixed) {
            title = style::truncate(&title, width - fixed).into_owned();
        }
        let title = if t.named { theme.bold(&title) } else { title };
        let id_pad = " ".repeat(id_width - style::width(id));
        let size_pad = " ".repeat(size_width - style::width(size));
        writeln!(
            out,
            "  {}{id_pad}  {size_pad}{size}  {title}",
            theme.yellow(id)
        )?;
        writeln!(out, "    {}", theme.dim(&path_text(&t.path)))?;
    }
    Ok(())
}

fn render_result(
    target: &Target,
    result: &Result<(), String>,
    mode: Mode,
    env: &Env,
    err_theme: Theme,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<()> {
    let path = path_text(&target.path);
    match result {
        Ok(()) => {
            let theme = Theme {
                enabled: env.color_stdout,
            };
            let verb = match mode {
                Mode::Trash => "trashed",
                Mode::Permanent => "deleted",
            };
            writeln!(out, "{} {path}", theme.green(verb))
        }
        Err(reason) => {
            // Keep the order of events readable when stdout and stderr share a terminal.
            out.flush()?;
            let _ = writeln!(
                err,
                "pisess: {} not removing {path}: {}",
                err_theme.red("error:"),
                style::escape_control(reason, false)
            );
            Ok(())
        }
    }
}

fn render_total(
    removed: &[&Target],
    failures: usize,
    mode: Mode,
    out: &mut dyn Write,
) -> io::Result<()> {
    if removed.is_empty() {
        return writeln!(out, "Nothing was removed; {failures} failed.");
    }
    let bytes = style::bytes(removed.iter().map(|t| t.bytes).sum());
    let count = if failures == 0 {
        sessions(removed.len())
    } else {
        format!(
            "{} of {}",
            removed.len(),
            sessions(removed.len() + failures)
        )
    };
    let line = match mode {
        Mode::Trash => format!("Moved {count} ({bytes}) to the trash"),
        Mode::Permanent => format!("Deleted {count} ({bytes}) permanently"),
    };
    if failures == 0 {
        writeln!(out, "{line}.")
    } else {
        writeln!(out, "{line}; {failures} failed.")
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
        let target = check(path.clone(), true, None, &rules()).unwrap();
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&other, &path).unwrap();
        let err = remove(&target, Mode::Permanent).unwrap_err();
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
        let target = check(path.clone(), true, None, &rules()).unwrap();
        // Same name, another file (kept alive so its inode cannot be reused).
        fs::rename(&path, &keep).unwrap();
        session(&path, "b");
        let err = remove(&target, Mode::Permanent).unwrap_err();
        assert!(err.contains("replaced by another file"), "{err}");
        assert!(path.is_file());
    }

    #[test]
    fn a_file_that_stopped_being_a_session_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.jsonl");
        session(&path, "a");
        let target = check(path.clone(), true, None, &rules()).unwrap();
        fs::write(&path, "{\"type\":\"message\"}\n").unwrap();
        let err = remove(&target, Mode::Permanent).unwrap_err();
        assert!(err.contains("not a pi session"), "{err}");
        assert!(path.is_file());
    }

    #[test]
    fn answers() {
        assert_eq!(read_line(&mut &b"y\nrest"[..]).unwrap(), "y");
        assert_eq!(read_line(&mut &b""[..]).unwrap(), "");
        assert_eq!(sessions(1), "1 session");
        assert_eq!(sessions(3), "3 sessions");
    }
}
