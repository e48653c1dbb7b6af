//! The SESSION argument shared by every command: `-`, a path, or an id prefix or exact name
//! looked up together (this project first, then all); or, when omitted, `$PI_SESSION_FILE` or
//! the session `pi -c` would continue. Unlike pi, more than one match is an error.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::listing::{self, Scope};
pub use crate::locate::Selected;
use crate::locate::{tilde, Location};
use crate::summary::{Detail, Summary};
use crate::util::usage::{is_blank, UsageError};
use pisess_format::scan::read_header;

/// Why no single session could be chosen (exit 1).
///
/// Each message is one line that names what was looked for and where (home shown as `~`), with
/// a hint at the next step.
#[derive(Debug)]
pub enum SelectError {
    /// An argument taken as a path (see [`names_a_path`]) names no file.
    MissingPath(PathBuf),
    /// A path that cannot be looked at (a folder on the way is unreadable): the cause.
    Unreadable(PathBuf, String),
    /// A path to a device (`/dev/zero`), which is no session and may never end; FIFOs and
    /// `/dev/stdin` are read as streams.
    NotRegular(PathBuf, &'static str),
    NoMatch {
        query: String,
        /// Where the lookup searched, ready to print.
        searched: String,
        /// Whether any session at all was there (if not, the dir is the likelier mistake).
        found_any: bool,
        /// Files or folders the listings could not read, where a match may hide: the first
        /// one's message, and how many.
        unread: Option<(String, usize)>,
    },
    Ambiguous {
        query: String,
        candidates: Vec<Found>,
        home: PathBuf,
    },
    NoSessions {
        dir: PathBuf,
        cwd: PathBuf,
        /// A custom dir, where "this project" means the files whose header `cwd` is `cwd`.
        custom: bool,
        home: PathBuf,
    },
    /// `PI_SESSION_FILE` names something that cannot be read as a session (nothing, a device,
    /// a folder, a path that cannot be looked at): what it is.
    EnvFileUnusable(PathBuf, String),
    /// An empty or blank argument: a usage error, since it names nothing.
    Blank,
}

/// How many candidates an ambiguity lists before "and N more": enough to choose from, short
/// enough for one line.
const MAX_CANDIDATES: usize = 5;

impl fmt::Display for SelectError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            SelectError::MissingPath(p) => {
                write!(f, "no such file: {}", p.display())?;
                // Something like `fix/login` may have been meant as a session name.
                if p.extension().is_none_or(|x| x != "jsonl") {
                    f.write_str(" (a SESSION with / or \\ in it is read as a path)")?;
                }
                Ok(())
            }
            SelectError::Unreadable(p, cause) => write!(f, "{}: {cause}", p.display()),
            SelectError::NotRegular(p, kind) => write!(
                f,
                "{}: not a regular file ({kind}); a session is a regular file, or '-' for standard input",
                p.display()
            ),
            SelectError::NoMatch {
                query,
                searched,
                found_any,
                unread,
            } => {
                write!(
                    f,
                    "no session matches '{query}' by id, id prefix or name in {searched}"
                )?;
                if let Some((first, n)) = unread {
                    let more = match n {
                        1 => String::new(),
                        n => format!(" and {} more", n - 1),
                    };
                    write!(f, ", but some could not be read ({first}{more})")?;
                    return f.write_str(" (see 'pisess ls --all')");
                }
                if *found_any {
                    f.write_str(" (list them with 'pisess ls --all')")
                } else {
                    f.write_str(
                        ", which hold no sessions (see where pisess looks: 'pisess path --explain')",
                    )
                }
            }
            SelectError::Ambiguous {
                query,
                candidates,
                home,
            } => {
                let project = |c: &Found| {
                    if c.cwd.is_empty() {
                        "no cwd".to_owned()
                    } else {
                        tilde(Path::new(&c.cwd), home)
                    }
                };
                // Files that hold one session id (a copy) differ only by their paths: those
                // are what tell them apart, and what the user can give.
                let copied = |c: &Found| candidates.iter().filter(|d| d.id == c.id).count() > 1;
                if candidates.iter().all(copied) && candidates.iter().all(|c| c.id == candidates[0].id) {
                    write!(
                        f,
                        "'{query}' matches session {} in {} files:",
                        candidates[0].id,
                        candidates.len()
                    )?;
                    for (i, c) in candidates.iter().take(MAX_CANDIDATES).enumerate() {
                        let sep = if i == 0 { " " } else { ", " };
                        write!(f, "{sep}{}", tilde(&c.path, home))?;
                    }
                    if candidates.len() > MAX_CANDIDATES {
                        write!(f, " and {} more", candidates.len() - MAX_CANDIDATES)?;
                    }
                    return f.write_str(
                        "; they are copies of one session: name the one you mean by its path",
                    );
                }
                // One project is said once; otherwise each candidate says its own.
                let one_project = candidates.iter().all(|c| c.cwd == candidates[0].cwd);
                write!(f, "'{query}' matches {} sessions", candidates.len())?;
                if one_project {
                    write!(f, " of {}", project(&candidates[0]))?;
                }
                f.write_str(":")?;
                for (i, c) in candidates.iter().take(MAX_CANDIDATES).enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    write!(f, "{sep}{} ({}", c.id, c.why.describe())?;
                    if copied(c) {
                        write!(f, ", {}", tilde(&c.path, home))?;
                    } else if !one_project {
                        write!(f, ", {}", project(c))?;
                    }
                    f.write_str(")")?;
                }
                if candidates.len() > MAX_CANDIDATES {
                    write!(f, " and {} more", candidates.len() - MAX_CANDIDATES)?;
                }
                if candidates.iter().all(|c| c.why != Match::Name) {
                    f.write_str("; give more of the id, or the path")
                } else {
                    f.write_str("; give the id or the path")
                }
            }
            SelectError::NoSessions {
                dir,
                cwd,
                custom,
                home,
            } => {
                let (dir, cwd) = (tilde(dir, home), cwd.display());
                if *custom {
                    write!(f, "no sessions with cwd {cwd} in {dir}")?;
                } else {
                    write!(f, "no sessions for {cwd} in {dir}")?;
                }
                f.write_str(" (list every project's with 'pisess ls --all', or name a SESSION)")
            }
            SelectError::Blank => f.write_str(
                "a SESSION cannot be empty or blank (is the variable that should hold it unset?)",
            ),
            SelectError::EnvFileUnusable(p, what) => write!(
                f,
                "PI_SESSION_FILE names {}, {what} (unset it to read this project's newest session)",
                p.display()
            ),
        }
    }
}

impl std::error::Error for SelectError {}

impl SelectError {
    /// This error as a run's, of the type that says its exit code: a blank SESSION names
    /// nothing, a [`UsageError`] (2); the rest (the session could not be found or read) exit 1.
    pub(crate) fn into_run_error(self) -> anyhow::Error {
        match self {
            SelectError::Blank => UsageError(self.to_string()).into(),
            e => e.into(),
        }
    }
}

/// Whether an argument is meant as a path rather than an id or name.
fn looks_like_path(arg: &str) -> bool {
    arg.contains('/') || arg.contains('\\') || arg.to_ascii_lowercase().ends_with(".jsonl")
}

/// Whether [`select`] takes a SESSION argument as a path (an existing file, or anything that
/// looks like a path) rather than an id or name. `rm` needs this: only a session named by its
/// path may lie outside the sessions root.
pub fn names_a_path(arg: &OsStr, loc: &Location) -> bool {
    // Ids and names are text: an argument that is not UTF-8 can only name a file.
    arg != "-"
        && (std::fs::metadata(crate::locate::resolve(&loc.cwd, Path::new(arg)))
            .is_ok_and(|m| !m.is_dir())
            || arg.to_str().is_none_or(looks_like_path))
}

/// Why a session answered a lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Match {
    /// Its id is the argument.
    Id,
    /// Its id starts with the argument.
    IdPrefix,
    /// Its name (pi's `/name`) is the argument.
    Name,
}

impl Match {
    fn describe(self) -> &'static str {
        match self {
            Match::Id => "id",
            Match::IdPrefix => "id prefix",
            Match::Name => "name",
        }
    }
}

/// A session a lookup found, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub(crate) id: String,
    pub(crate) path: PathBuf,
    /// The header's cwd: the project it belongs to.
    pub(crate) cwd: String,
    pub(crate) why: Match,
}

/// The one rule, within one listing: every session whose id starts with `query` and every
/// session whose name equals it. An exact id is the most specific answer there is, so it beats
/// sessions that only share its prefix (names still count). A session matched both ways is
/// one candidate, listed by its id.
fn lookup(sessions: &[Summary], query: &str) -> Vec<Found> {
    let exact = sessions.iter().any(|s| s.id == query);
    let mut found: Vec<Found> = Vec::new();
    for s in sessions {
        let why = if s.id == query {
            Match::Id
        } else if !exact && s.id.starts_with(query) {
            Match::IdPrefix
        } else if s.name.as_deref() == Some(query) {
            Match::Name
        } else {
            continue;
        };
        // One file listed twice (a hard link is two files, and may be two candidates).
        if found.iter().all(|f| f.path != s.path) {
            found.push(Found {
                id: s.id.clone(),
                path: s.path.clone(),
                cwd: s.cwd.clone(),
                why,
            });
        }
    }
    found
}

/// Looks a query up in one scope: `Ok(None)` when nothing there matches.
fn one_in(
    sessions: &[Summary],
    query: &str,
    loc: &Location,
) -> Result<Option<Choice>, SelectError> {
    decide(lookup(sessions, query), query, loc)
}

/// One candidate is the answer, several an error that lists them, none `Ok(None)`.
fn decide(
    mut found: Vec<Found>,
    query: &str,
    loc: &Location,
) -> Result<Option<Choice>, SelectError> {
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop().map(|f| Choice {
            selected: Selected::File(f.path),
            id: Some(f.id),
        })),
        _ => {
            found.sort_by(|a, b| a.path.cmp(&b.path));
            Err(SelectError::Ambiguous {
                query: query.to_owned(),
                candidates: found,
                home: loc.home.clone(),
            })
        }
    }
}

/// Resolves a SESSION argument (or its absence) to one session. The error is the run's: a
/// blank SESSION is a [`UsageError`] (exit 2), the rest a [`SelectError`] (exit 1).
pub fn select(
    arg: Option<&OsStr>,
    loc: &Location,
    pi_session_file: Option<&str>,
) -> anyhow::Result<Selected> {
    choose(arg, loc, pi_session_file)
        .map(|c| c.selected)
        .map_err(SelectError::into_run_error)
}

/// A selected session, and the id the lookup matched it by (so `rm` can check that the file it
/// is about to remove still holds that session).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub selected: Selected,
    /// `None` for stdin, a path, and the default session.
    pub id: Option<String>,
}

/// [`select`], saying which id matched.
///
/// The rule, the same for every command: `-` is stdin; a path is that file; anything else is
/// looked up by id prefix and by name together, in this project first (see [`lookup`]): one
/// session is the answer, several are an error that lists them, none sends the lookup on to
/// every project, under the same rule.
pub fn choose(
    arg: Option<&OsStr>,
    loc: &Location,
    pi_session_file: Option<&str>,
) -> Result<Choice, SelectError> {
    let plain = |selected| Choice { selected, id: None };
    let Some(arg) = arg else {
        return default_session(loc, pi_session_file).map(plain);
    };
    if is_blank(arg) {
        return Err(SelectError::Blank);
    }
    if arg == "-" {
        return Ok(plain(Selected::Stdin));
    }
    let as_path = crate::locate::resolve(&loc.cwd, Path::new(arg));
    let Some(arg) = arg.to_str().filter(|_| !names_a_path(arg, loc)) else {
        return explicit_path(as_path).map(plain);
    };
    // What could not be read is said when nothing matches: the session may be there.
    let mut unread = Vec::new();
    let mut stems = Vec::new();
    let mut sessions = |scope| match listing::list(loc, scope, Detail::Listing) {
        Ok(l) => {
            stems = l.stem_folders;
            unread.extend(l.problems.iter().filter_map(|(path, p)| {
                let cause = match p {
                    listing::Problem::Unreadable(e) => e.to_string(),
                    listing::Problem::Skipped(crate::locate::Skipped::Folder(e)) => {
                        pisess_format::util::warning::io_cause(e)
                    }
                    _ => return None,
                };
                Some(format!("{}: {cause}", loc.shown(path)))
            }));
            l.sessions
        }
        Err(e) => {
            unread.push(format!("{e:#}"));
            Vec::new()
        }
    };
    if let Some(s) = one_in(&sessions(Scope::Project), arg, loc)? {
        return Ok(s);
    }
    let all = sessions(Scope::All);
    if let Some(s) = one_in(&all, arg, loc)? {
        return Ok(s);
    }
    if let Some(s) = decide(runs_under(&stems, arg), arg, loc)? {
        return Ok(s);
    }
    // The project's files are listed again with every project's: each is said once.
    let mut seen = std::collections::HashSet::new();
    unread.retain(|u| seen.insert(u.clone()));
    Err(SelectError::NoMatch {
        query: arg.to_owned(),
        searched: if loc.custom {
            loc.shown(&loc.session_dir)
        } else {
            format!(
                "{} or any other project under {}",
                loc.shown(&loc.session_dir),
                loc.shown(&loc.root)
            )
        },
        found_any: !all.is_empty(),
        unread: unread.first().map(|first| (first.clone(), unread.len())),
    })
}

/// The subagent runs (`family::runs`) of the sessions that have a folder of their stem whose
/// id is `query` or starts with it (a run has no name in its header): a run is no row of pi's
/// listing, but `tree` and `show` name it by its short id. Read only when nothing listed
/// matched, so only such a lookup pays for reading their headers.
fn runs_under(stem_folders: &[PathBuf], query: &str) -> Vec<Found> {
    let mut found: Vec<Found> = Vec::new();
    for folder in stem_folders {
        let mut session = folder.clone().into_os_string();
        session.push(".jsonl");
        let runs = crate::family::runs::find(Path::new(&session), Default::default());
        for child in runs.children {
            let Ok(header) = read_header(&child.path) else {
                continue;
            };
            let why = if header.id == query {
                Match::Id
            } else if header.id.starts_with(query) {
                Match::IdPrefix
            } else {
                continue;
            };
            found.push(Found {
                id: header.id,
                path: child.path,
                cwd: header.cwd.unwrap_or_default(),
                why,
            });
        }
    }
    // An exact id beats those that only share its prefix, as in a listing.
    if found.iter().any(|f| f.why == Match::Id) {
        found.retain(|f| f.why == Match::Id);
    }
    found
}

/// A SESSION given as a path: a regular file, or a FIFO, socket or `/dev/stdin` (read as a
/// stream); a device such as `/dev/zero` is refused before it is read, and so is `/dev/stdin`
/// (or `/dev/fd/0`...) when it is one (`< /dev/zero`), as `-` is: only a terminal is read.
fn explicit_path(path: PathBuf) -> Result<Selected, SelectError> {
    match std::fs::metadata(&path) {
        Ok(meta) => {
            let kind = meta.file_type();
            if is_device(kind) && !(names_stdin(&path) && is_terminal(&path)) {
                return Err(SelectError::NotRegular(
                    path,
                    pisess_format::util::file::kind_of(kind),
                ));
            }
            Ok(Selected::File(path))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(SelectError::MissingPath(path)),
        Err(e) => Err(SelectError::Unreadable(
            path,
            pisess_format::util::warning::io_cause(&e),
        )),
    }
}

fn is_device(kind: std::fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        kind.is_char_device() || kind.is_block_device()
    }
    #[cfg(not(unix))]
    {
        let _ = kind;
        false
    }
}

/// Whether `path` opens on a terminal (opened without waiting, and closed at once).
fn is_terminal(path: &Path) -> bool {
    use std::io::IsTerminal;
    pisess_format::util::file::open_nonblocking(path, pisess_format::util::file::Links::Follow)
        .is_ok_and(|f| f.is_terminal())
}

/// `/dev/stdin` and the descriptor paths it stands for: a terminal or whatever stdin is.
fn names_stdin(path: &Path) -> bool {
    path == Path::new("/dev/stdin")
        || path.starts_with("/dev/fd")
        || path.starts_with("/proc/self/fd")
}

/// `$PI_SESSION_FILE`, else the newest file of this project by modification time
/// (pi's `findMostRecentSession`).
fn default_session(loc: &Location, pi_session_file: Option<&str>) -> Result<Selected, SelectError> {
    if let Some(file) = pi_session_file.filter(|s| !s.is_empty()) {
        let path = crate::locate::resolve(&loc.cwd, Path::new(file));
        return match std::fs::metadata(&path) {
            Ok(meta) if meta.is_file() => Ok(Selected::File(path)),
            Ok(meta) => {
                let what = format!(
                    "which is {}",
                    pisess_format::util::file::kind_of(meta.file_type())
                );
                Err(SelectError::EnvFileUnusable(path, what))
            }
            Err(e) => {
                let what = match e.kind() {
                    std::io::ErrorKind::NotFound => "which does not exist".to_owned(),
                    _ => format!(
                        "which cannot be read ({})",
                        pisess_format::util::warning::io_cause(&e)
                    ),
                };
                Err(SelectError::EnvFileUnusable(path, what))
            }
        };
    }
    // Regular files only (a FIFO would block the open); the listing warns about the rest.
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = loc
        .project_files()
        .map(|f| f.files)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, p)))
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.0));
    files
        .into_iter()
        .find(|(_, p)| {
            read_header(p).is_ok_and(|h| !loc.custom || loc.cwd_matches(h.cwd.as_deref()))
        })
        .map(|(_, p)| Selected::File(p))
        .ok_or_else(|| SelectError::NoSessions {
            dir: loc.session_dir.clone(),
            cwd: loc.cwd.clone(),
            custom: loc.custom,
            home: loc.home.clone(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locate::{encode_cwd, Inputs};
    use std::fs;

    fn write(dir: &Path, file: &str, id: &str, cwd: &str, name: Option<&str>) -> PathBuf {
        fs::create_dir_all(dir).unwrap();
        let mut text = format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"{cwd}\"}}\n"
        );
        if let Some(n) = name {
            text.push_str(&format!(
                "{{\"type\":\"session_info\",\"id\":\"i\",\"parentId\":null,\"name\":\"{n}\"}}\n"
            ));
        }
        let p = dir.join(file);
        fs::write(&p, text).unwrap();
        p
    }

    fn setup() -> (tempfile::TempDir, Location, PathBuf, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let cwd = tmp.path().join("proj");
        let inputs = Inputs {
            home: tmp.path().join("home"),
            cwd: cwd.clone(),
            process_cwd: cwd.clone(),
            ..Inputs::default()
        };
        let loc = Location::resolve(&inputs);
        let here = loc.session_dir.clone();
        let other = loc.root.join(encode_cwd("/elsewhere"));
        let a = write(
            &here,
            "a.jsonl",
            "abc111",
            &cwd.to_string_lossy(),
            Some("fix bug"),
        );
        let b = write(&here, "b.jsonl", "abd222", &cwd.to_string_lossy(), None);
        let c = write(&other, "c.jsonl", "xyz333", "/elsewhere", Some("fix bug"));
        (tmp, loc, a, b, c)
    }

    #[test]
    fn ids_prefixes_names_and_ambiguity() {
        let (_tmp, loc, a, b, c) = setup();
        assert_eq!(
            select(Some(OsStr::new("abc")), &loc, None).unwrap(),
            Selected::File(a.clone())
        );
        assert_eq!(
            select(Some(OsStr::new("abd222")), &loc, None).unwrap(),
            Selected::File(b)
        );
        assert_eq!(
            select(Some(OsStr::new("xy")), &loc, None).unwrap(),
            Selected::File(c)
        );
        let err = choose(Some(OsStr::new("ab")), &loc, None).unwrap_err();
        assert!(matches!(&err, SelectError::Ambiguous { candidates, .. } if candidates.len() == 2));
        assert!(err.to_string().contains("abc111"));
        // The name exists in this project and elsewhere: this project wins.
        assert_eq!(
            select(Some(OsStr::new("fix bug")), &loc, None).unwrap(),
            Selected::File(a)
        );
        assert!(matches!(
            choose(Some(OsStr::new("nothing")), &loc, None).unwrap_err(),
            SelectError::NoMatch { .. }
        ));
        assert_eq!(
            select(Some(OsStr::new("-")), &loc, None).unwrap(),
            Selected::Stdin
        );
        assert!(matches!(
            choose(Some(OsStr::new("missing.jsonl")), &loc, None).unwrap_err(),
            SelectError::MissingPath(_)
        ));
    }

    #[test]
    fn default_is_env_then_newest() {
        let (_tmp, loc, a, b, _c) = setup();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000);
        fs::File::options()
            .write(true)
            .open(&b)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(select(None, &loc, None).unwrap(), Selected::File(a));
        let env = b.to_string_lossy().into_owned();
        assert_eq!(select(None, &loc, Some(&env)).unwrap(), Selected::File(b));
        assert!(matches!(
            choose(None, &loc, Some("/no/such.jsonl")).unwrap_err(),
            SelectError::EnvFileUnusable(_, what) if what == "which does not exist"
        ));
    }
}
