//! Which sessions a command reads: pi's "this project" (the `--<cwd>--` folder, or the files of
//! a custom dir whose header cwd is the cwd) or every project, summarized on every core and put
//! in pi's order; then the `--since`/`--until` window. `ls`, `rm` and the SESSION lookup all list
//! through here, so what `ls` shows is what `rm` removes and what a name or prefix can match.

use std::io;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use pisess_format::scan::ScanError;

use crate::cache::tallies::{self, Want};
use crate::cache::{Cache, CacheProblem};
use crate::locate::{name_cmp, Files, Location, Skipped};
use crate::summary::{summarize, Detail, Summary, SummaryOptions};
use crate::util::parallel;
use crate::util::usage::UsageError;
use pisess_format::time::parse_when;
use pisess_format::util::warning::{Warn, Warning};

/// Whose sessions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// This project's (pi's `SessionManager.list`).
    Project,
    /// Every project's (pi's `listAll`).
    All,
}

/// The sessions of a scope in pi's order (newest `modified` first), and what was met on the way.
#[derive(Debug, Default)]
pub struct Listing {
    pub sessions: Vec<Summary>,
    /// In the order the files were read, which is the order they are reported in.
    pub problems: Vec<(PathBuf, Problem)>,
    /// The real folders met beside the files ([`Files::folders`]): a session `X.jsonl` may
    /// have subagent runs (`family::runs`) only when `X/` is among them.
    pub stem_folders: Vec<PathBuf>,
    /// The listed files that are symbolic links ([`Files::links`]).
    pub links: Vec<PathBuf>,
}

/// Something a file of the listing had to say.
#[derive(Debug)]
pub enum Problem {
    /// It was read, with warnings (malformed lines and the like).
    Warnings(Vec<Warning>),
    /// Removed between reading the folder and reading it: the listing is still whole.
    Vanished,
    /// It could not be read (permission denied, an I/O error): the listing may miss a session.
    Unreadable(ScanError),
    /// It was read and is not a pi session (empty, no header, another program's JSONL): pi
    /// skips it too, so the listing is still whole.
    NotASession(ScanError),
    /// Not read at all: not a regular file, or a folder that could not be read (which leaves
    /// the listing incomplete).
    Skipped(Skipped),
    /// The summary cache could not be read or written (the path is the cache's): the listing
    /// is whole, only slower.
    Cache(String),
}

impl Listing {
    /// Whether some file could not be read.
    pub(crate) fn incomplete(&self) -> bool {
        self.problems.iter().any(|(_, p)| {
            matches!(
                p,
                Problem::Unreadable(_) | Problem::Skipped(Skipped::Folder(_))
            )
        })
    }

    /// Writes every problem as a warning, files with damaged lines together
    /// ([`report_damaged`]); true when the listing is [`incomplete`](Self::incomplete).
    pub fn report(&self, diag: &mut dyn Warn) -> bool {
        let mut damaged = Vec::new();
        for (path, problem) in &self.problems {
            match problem {
                Problem::Warnings(w) if !w.is_empty() => damaged.push((path.clone(), w.clone())),
                _ => problem.report(path, diag),
            }
        }
        report_damaged(&damaged, diag);
        self.incomplete()
    }
}

impl Problem {
    /// What a file that could not be summarized means for the listing.
    fn of(e: ScanError) -> Problem {
        match e {
            ScanError::Io(e) if e.kind() == io::ErrorKind::NotFound => Problem::Vanished,
            e @ (ScanError::Io(_) | ScanError::Changed) => Problem::Unreadable(e),
            // Swapped for a FIFO or the like between the listing and the open.
            ScanError::NotRegular(kind) => Problem::Skipped(Skipped::NotRegular(kind)),
            e => Problem::NotASession(e),
        }
    }

    /// The warning about `path`.
    pub fn report(&self, path: &Path, diag: &mut dyn Warn) {
        let name = path.display().to_string();
        let why = match self {
            Problem::Warnings(w) => return diag.session_warnings(&name, w),
            Problem::Vanished => "removed while listing".to_owned(),
            Problem::Unreadable(e) => format!("cannot read it: {e}; not listed"),
            Problem::NotASession(e) => format!("skipped: {e}"),
            Problem::Cache(why) => why.clone(),
            Problem::Skipped(Skipped::NotRegular(kind)) => {
                format!("skipped: not a regular file ({kind})")
            }
            Problem::Skipped(Skipped::Dangling) => "skipped: a symbolic link to nothing".to_owned(),
            Problem::Skipped(Skipped::Folder(e)) => format!(
                "cannot read this folder: {}; its sessions are not listed",
                pisess_format::util::warning::io_cause(e)
            ),
        };
        diag.warn(&name, None, &why);
    }
}

/// The warnings of a listing's damaged files: one file's each (a line apiece, as commands on
/// one session give them); several files' in one line, saying how many, the first, and the
/// command that lists them all. A first listing of a store with 380 damaged files printed 380
/// lines before the table.
pub(crate) fn report_damaged(damaged: &[(PathBuf, Vec<Warning>)], diag: &mut dyn Warn) {
    match damaged {
        [] => {}
        [(path, warnings)] => diag.session_warnings(&path.display().to_string(), warnings),
        [(path, warnings), ..] => {
            let first = &warnings[0];
            let place = match first.line {
                Some(n) => format!("{}:{n}", path.display()),
                None => path.display().to_string(),
            };
            diag.warn(
                "",
                None,
                &format!(
                    "{} files have damaged lines, the first {place}: {}; 'pisess check --all' lists them all",
                    damaged.len(),
                    first.message
                ),
            );
        }
    }
}

/// Lists and summarizes the sessions of `scope`. Only the scope's own folder that cannot be read
/// is an error; a file or project folder that cannot be read, or is not a session or not a
/// regular file, is recorded in [`Listing::problems`]. Each file's one pass gathers `detail`
/// (`stats` asks for more than `ls`).
pub fn list(loc: &Location, scope: Scope, detail: Detail) -> anyhow::Result<Listing> {
    list_wanting(loc, scope, detail, Want::Whole)
}

/// [`list`] with [`Detail::Stats`] as the fact stream (`pisess facts`) wants it: a tally taken
/// from the cache holds its rows, their ids and stop reasons and its models, not its tools,
/// files and failed commands, and the summary has no first message. A file read gives the
/// whole all the same.
pub fn list_rows(loc: &Location, scope: Scope) -> anyhow::Result<Listing> {
    list_wanting(loc, scope, Detail::Stats, Want::Facts)
}

/// [`list`], taking from the tally cache what `want` says.
fn list_wanting(
    loc: &Location,
    scope: Scope,
    detail: Detail,
    want: Want,
) -> anyhow::Result<Listing> {
    let Files {
        files,
        skipped,
        folders,
        links,
        ..
    } = files(loc, scope)?;
    let mut listing = Listing {
        stem_folders: folders,
        links,
        ..Listing::default()
    };
    listing.problems.extend(
        skipped
            .into_iter()
            .map(|(p, why)| (p, Problem::Skipped(why))),
    );
    let (results, cache_problem) = summarize_all(loc, &files, detail, want);
    // Collected into the results' own memory (a new vector of 10,000 summaries was a tenth
    // of a warm listing's page faults).
    listing.sessions = results
        .into_iter()
        .zip(&files)
        .filter_map(|(result, path)| {
            let (session, problem) = match result {
                Ok(s) => {
                    let warnings =
                        (!s.warnings.is_empty()).then(|| Problem::Warnings(s.warnings.clone()));
                    (Some(s), warnings)
                }
                Err(e) => (None, Some(Problem::of(e))),
            };
            listing.problems.extend(problem.map(|p| (path.clone(), p)));
            session
        })
        .collect();
    listing
        .problems
        .extend(cache_problem.map(|(path, why)| (path, Problem::Cache(why))));
    listing.sessions.retain(|s| in_scope(loc, scope, &s.cwd));
    // pi's order: newest `modified` first; `listAll` over the default root orders the files by
    // mtime (then name) before that, and ties keep the read order above, as JavaScript's stable
    // sorts do. One sort with both keys gives the same order as those two.
    let by_mtime = scope == Scope::All && !loc.custom;
    sort_by_moving_once(&mut listing.sessions, |a, b| {
        b.modified_ms.cmp(&a.modified_ms).then_with(|| {
            if by_mtime {
                b.mtime_js
                    .total_cmp(&a.mtime_js)
                    .then_with(|| name_cmp(file_name(&b.path), file_name(&a.path)))
            } else {
                std::cmp::Ordering::Equal
            }
        })
    });
    Ok(listing)
}

/// The bytes of `path` without its extension (`X` of `X.jsonl`), as `with_extension("")`
/// spells it: cut by bytes for the listing's `.jsonl` files.
fn stem_of(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    let bytes = path.as_os_str().as_encoded_bytes();
    match bytes.strip_suffix(b".jsonl") {
        Some(stem) if !stem.ends_with(b"/") && !stem.is_empty() => std::borrow::Cow::Borrowed(stem),
        _ => std::borrow::Cow::Owned(
            path.with_extension("")
                .into_os_string()
                .into_encoded_bytes(),
        ),
    }
}

/// [`list`] without holding the listing: each session of `scope` goes to `work` on the thread
/// that read it, and is dropped there; what `work` makes of it goes to `each` in file order, on
/// the calling thread, once every file is read. A report over thousands of sessions then holds
/// a small share of each, not every message. A session with [`Detail::Stats`] has no first
/// message unless `titles`, and a tally of its rows (without ids) and models only, whether
/// taken from the tally cache or read ([`Detail::Rows`]). Problems are reported in file order; true when some file could not
/// be read. `work` is also told whether the session has a real folder of its stem beside it
/// (where subagent runs are, `family::runs`) and the files listed (the family cache and
/// `family::chains` match against them), and says with what it made whether the session's
/// warnings are to be said (a report over a window leaves out the sessions it does not count,
/// as `ls` and `check` do).
///
/// Every file is read as `list` reads them ([`parallel::map`]), not handed over one at a time:
/// a hand-over per file, and each session's rows freed on the calling thread while the workers
/// allocated in the same arenas (malloc's lock), made warm `stats` wait more than it worked.
pub fn walk<T: Send>(
    loc: &Location,
    scope: Scope,
    detail: Detail,
    titles: bool,
    diag: &mut dyn Warn,
    work: impl Fn(Summary, bool, &[PathBuf]) -> (T, bool) + Sync,
    mut each: impl FnMut(T),
) -> anyhow::Result<bool> {
    let Files {
        files,
        skipped,
        folders,
        ..
    } = files(loc, scope)?;
    // Whether a session has a real folder of its stem beside it (`X/` for `X.jsonl`): only
    // those can have subagent runs, so the others are asked nothing more.
    // By bytes with hashbrown's hasher: a `PathBuf` hashed by SipHash, and `with_extension`'s
    // walk of the components, were 3 M instructions of a warm `stats` over 1,000 sessions.
    let stems: hashbrown::HashSet<Vec<u8>> = (folders.into_iter())
        .map(|f| f.into_os_string().into_encoded_bytes())
        .collect();
    let has_stem = |s: &Summary| !stems.is_empty() && stems.contains(stem_of(&s.path).as_ref());
    let mut incomplete = false;
    let mut damaged = Vec::new();
    for (path, why) in skipped {
        let problem = Problem::Skipped(why);
        incomplete |= matches!(problem, Problem::Skipped(Skipped::Folder(_)));
        problem.report(&path, diag);
    }
    let made = |result: Result<Summary, ScanError>| {
        result.map(|mut s| {
            let mut warnings = std::mem::take(&mut s.warnings);
            let stem = has_stem(&s);
            let made = in_scope(loc, scope, &s.cwd).then(|| {
                let (made, said) = work(s, stem, &files);
                if !said {
                    warnings.clear();
                }
                made
            });
            (warnings, made)
        })
    };
    // A report is served from the tally cache where there is one (a display, like `ls`).
    let (done, cache_problem) = match &loc.cache {
        Some(dir) if detail == Detail::Stats => {
            let want = if titles { Want::Titles } else { Want::Rows };
            tallies::map(dir, &files, want, made)
        }
        _ => {
            // Without a cache, a report reads what the tally cache would have given it: no
            // more (nothing is written for a later report to take the rest from).
            let detail = match (detail, titles) {
                (Detail::Stats, false) => Detail::Rows,
                (Detail::Stats, true) => Detail::Titles,
                (other, _) => other,
            };
            let done = parallel::map_files(&files, |path, reading| {
                made(summarize(
                    path,
                    SummaryOptions {
                        reading,
                        detail,
                        also: None,
                    },
                ))
            });
            (done, None)
        }
    };
    for (result, path) in done.into_iter().zip(&files) {
        match result {
            Ok((warnings, made)) => {
                if !warnings.is_empty() {
                    damaged.push((path.clone(), warnings));
                }
                if let Some(made) = made {
                    each(made);
                }
            }
            Err(e) => {
                let problem = Problem::of(e);
                incomplete |= matches!(problem, Problem::Unreadable(_));
                problem.report(path, diag);
            }
        }
    }
    if let Some((path, why)) = cache_problem {
        Problem::Cache(why).report(&path, diag);
    }
    report_damaged(&damaged, diag);
    Ok(incomplete)
}

/// The files of `scope` in the order pi reads them (`b.localeCompare(a)` of their names: newest
/// name first, which is newest created first). `listAll` over the default root then orders by
/// mtime; names that tie keep the directory's order, as in pi.
pub fn files(loc: &Location, scope: Scope) -> anyhow::Result<Files> {
    let (files, dir) = match scope {
        Scope::All => (
            loc.all_files(),
            if loc.custom {
                &loc.session_dir
            } else {
                &loc.root
            },
        ),
        Scope::Project => (loc.project_files(), &loc.session_dir),
    };
    let files = files
        .map_err(|e| anyhow::anyhow!("{}", pisess_format::util::warning::io_cause(&e)))
        .with_context(|| format!("cannot list {}", dir.display()))?;
    let files = files.newest_name_first();
    Ok(files)
}

/// Whether a session read from `scope`'s files belongs to it: in a custom dir, "this project"
/// is the files whose header cwd is the cwd.
pub fn in_scope(loc: &Location, scope: Scope, header_cwd: &str) -> bool {
    scope == Scope::All || !loc.custom || loc.cwd_matches(Some(header_cwd))
}

/// `--project GLOB` (repeatable): sessions whose header cwd matches any of the shell globs
/// (`~` is the home dir); none given keeps every session.
#[derive(Debug, Clone, Default)]
pub struct Projects(Vec<glob::Pattern>);

impl Projects {
    /// A bad glob is a usage error naming it.
    pub fn parse(globs: &[String], home: &Path) -> anyhow::Result<Projects> {
        let patterns = globs
            .iter()
            .map(|g| {
                let expanded = crate::locate::expand_tilde(g, home);
                glob::Pattern::new(&expanded.to_string_lossy())
                    .map_err(|e| UsageError(format!("--project {g}: {e}")).into())
            })
            .collect::<anyhow::Result<_>>()?;
        Ok(Projects(patterns))
    }

    /// The scope a command reads: every project with `--all` or any `--project` (the globs
    /// choose among all projects), else this project.
    pub fn scope(&self, all: bool) -> Scope {
        if all || !self.0.is_empty() {
            Scope::All
        } else {
            Scope::Project
        }
    }

    /// The whole cwd must match, and `*` crosses `/`: `*/webshop` is a project named webshop
    /// anywhere, `~/work/*` everything under ~/work.
    pub fn holds(&self, cwd: &str) -> bool {
        self.0.is_empty() || self.0.iter().any(|p| p.matches(cwd))
    }
}

/// `--since`/`--until` on pi's `modified`: `[since, until)`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Window {
    pub since: Option<i64>,
    pub until: Option<i64>,
}

impl Window {
    /// Parses the flags' WHEN values, a date or time without an offset in `tz` (the zone the
    /// command reports in); a bad one is a usage error led by the flag's name (`ls --since 2d
    /// --until x` has two times to get wrong).
    pub fn parse(
        since: Option<&str>,
        until: Option<&str>,
        now_ms: i64,
        tz: &jiff::tz::TimeZone,
    ) -> anyhow::Result<Window> {
        let when = |flag: &str, value: Option<&str>| {
            value
                .map(|w| parse_when(w, now_ms, tz))
                .transpose()
                .map_err(|e| UsageError(format!("{flag}: {e}")))
        };
        Ok(Window {
            since: when("--since", since)?,
            until: when("--until", until)?,
        })
    }

    pub fn holds(&self, s: &Summary) -> bool {
        self.since.is_none_or(|t| s.modified_ms >= t)
            && self.until.is_none_or(|t| s.modified_ms < t)
    }
}

/// Summarizes `files` found otherwise than by a listing (the subagent runs `ls --tree` shows),
/// on every core, through the cache as a listing's are; results in the order of `files`.
pub fn summaries(
    loc: &Location,
    files: &[PathBuf],
    detail: Detail,
) -> Vec<Result<Summary, ScanError>> {
    summarize_all(loc, files, detail, Want::Whole).0
}

/// Summarizes every file, through the summary cache (`ls`) or the tally cache (`stats`, as
/// much of each record as `want`) when there is one; also the cache's one problem, if it had
/// any.
fn summarize_all(
    loc: &Location,
    files: &[PathBuf],
    detail: Detail,
    want: Want,
) -> (Vec<Result<Summary, ScanError>>, Option<CacheProblem>) {
    match &loc.cache {
        Some(dir) if detail == Detail::Listing => {
            Cache::load(dir, files).map(files, Cache::summarize, |result| result)
        }
        Some(dir) => tallies::map(dir, files, want, |result| result),
        _ => (
            parallel::map_files(files, |path, reading| {
                let also = None;
                summarize(
                    path,
                    SummaryOptions {
                        reading,
                        detail,
                        also,
                    },
                )
            }),
            None,
        ),
    }
}

/// A stable sort that moves each item at most once: the order is found on their indexes, then
/// followed cycle by cycle. Sorted in place, 10,000 summaries of some 400 bytes were moved
/// about 130,000 times, into a scratch copy of half of them.
fn sort_by_moving_once<T>(items: &mut [T], cmp: impl Fn(&T, &T) -> std::cmp::Ordering) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| cmp(&items[a], &items[b]));
    // `items[at]` is to become what was at `order[at]`; a place done is marked by `order[at]
    // == at`.
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != start && order[at] != at {
            let from = order[at];
            items.swap(at, from);
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
}

fn file_name(p: &Path) -> &[u8] {
    pisess_format::util::file::split_name(p).1
}

#[cfg(test)]
mod tests {
    use super::{sort_by_moving_once, stem_of};
    use std::path::Path;

    #[test]
    fn a_stem_by_bytes_is_with_extensions_stem() {
        for p in [
            "/s/--p--/2025-01-01T00-00-00-000Z_u.jsonl",
            "rel/x.jsonl",
            "x.jsonl",
            "/s/.jsonl",
            ".jsonl",
            "/s/a..jsonl",
            "/s/a.b.jsonl",
            "/s/a.json",
            "/s/a",
            "/s/a.jsonl/",
            "/s.d/a",
        ] {
            let want = Path::new(p).with_extension("");
            assert_eq!(
                &stem_of(Path::new(p))[..],
                want.as_os_str().as_encoded_bytes(),
                "{p}"
            );
        }
    }

    #[test]
    fn sorting_by_moving_once_is_a_stable_sort() {
        // Many ties (keys 0-6) and every length up to 200, against the standard stable sort.
        for len in 0..200u64 {
            let items: Vec<(u64, u64)> = (0..len).map(|i| ((i * 7919 + len) % 7, i)).collect();
            let mut want = items.clone();
            want.sort_by_key(|a| std::cmp::Reverse(a.0));
            let mut got = items;
            sort_by_moving_once(&mut got, |a, b| b.0.cmp(&a.0));
            assert_eq!(got, want, "length {len}");
        }
    }
}
