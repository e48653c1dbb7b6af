//! `pisess grep`: where something was said, across sessions.
//!
//! Each file is read once, on every core: the pass that summarizes it for the heading and for
//! `--since`/`--until` also searches it (`-l`, `-c` and `--json` need no summary and skip it;
//! `-l` stops at the first match). An entry is decoded only when its kind
//! holds searched text and its stored line can match ([`Matcher::may_match`]). Sessions are
//! printed in the listing's file order as soon as they and those before them are searched, so
//! memory holds a few files' matches, never all of them.

use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use serde_json::json;

use crate::app::cli::GrepArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::app::exit::{Outcome, Unanswered};
use crate::cmd::{entry_wanted, migrated_role, report_unreadable, warn_unknown_types, Source};
use crate::format::model::EntryLine;
use crate::format::model::Header;
use crate::format::scan::{
    open_file, read_header_of, scan_sparse, scan_until, whole_file, ScanError, ScanReport,
};
use crate::format::time::relative;
use crate::store::cache::Cache;
use crate::store::listing::{self, Problem, Projects, Window};
use crate::store::locate::tilde;
use crate::store::locate::Skipped;
use crate::store::select::{select, Selected};
use crate::store::summary::{summarize, Summary, SummaryOptions};
use crate::util::readahead::Reading;
use crate::util::usage::UsageError;
use crate::util::warning::Warning;
use crate::views::search::{matching_lines, searched, texts, Field, Matcher, Reach, Syntax};
use crate::views::style::{self, IdCut, Role, Theme};

/// One matching line of one entry.
#[derive(Debug)]
struct Hit {
    ordinal: usize,
    file_line: u64,
    entry_id: Option<String>,
    kind: String,
    role: Option<String>,
    field: Field,
    timestamp: Option<String>,
    /// The line's number within the field's text (1-based).
    number: usize,
    line: String,
    matches: Vec<(usize, usize)>,
}

/// A searched session.
struct Searched {
    path: PathBuf,
    id: String,
    cwd: String,
    warnings: Vec<Warning>,
    /// Read when the output or the filters need it.
    summary: Option<Summary>,
    hits: Vec<Hit>,
}

/// Files up to this size are read whole before they are parsed, so that one in which the
/// pattern's stored form ([`Matcher::may_match`]) has no match is passed over at the speed of a
/// byte search (as ripgrep reads it). Only its header is read then, so its damaged lines go
/// unreported; with `-l`, `-c` and `--json` (no heading, no context, no branch) the same holds
/// line by line: only the lines that may match are parsed ([`scan_sparse`]). Larger files are
/// read in a stream, line by line, and keep memory flat.
const WHOLE_FILE: u64 = 16 << 20;

thread_local! {
    /// The bytes of the file a thread is searching, at most [`WHOLE_FILE`] and a few more
    /// (a file that grew while read): kept between files.
    static WHOLE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Searched {
    /// A file that cannot hold a match.
    fn nothing(path: &Path) -> Searched {
        Searched {
            path: path.to_path_buf(),
            id: String::new(),
            cwd: String::new(),
            warnings: Vec::new(),
            summary: None,
            hits: Vec::new(),
        }
    }
}

/// What every file is searched with.
struct Search<'a> {
    args: &'a GrepArgs,
    matcher: Matcher,
    reach: Reach,
    /// Matching lines kept per session (`-m`, or one for `-l`); none with --branch, whose
    /// matches are cut once the branch is known.
    keep: Option<u64>,
    /// Whether each file is summarized (for the heading, `--since`, `--until`).
    summarize: bool,
    /// Whether a file read whole is parsed only in the lines that may match
    /// ([`scan_sparse`]): when nothing but the matches is printed (no heading, no context,
    /// no branch to walk), so entries need no ordinal and no line before them.
    sparse: bool,
    window: Window,
}

pub fn run(
    args: &GrepArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Outcome> {
    // Every failure before the search is exit 2: exit 1 means "nothing matched".
    let prepared = prepare(args, env, diag, stdin).map_err(|e| {
        if e.is::<UsageError>() {
            e
        } else {
            Unanswered(e).into()
        }
    })?;
    let (search, files, explicit, window, projects, incomplete) = prepared;
    let scope = projects.scope(args.all);
    let mut matched = false;
    let mut trouble = incomplete;
    let mut failed: Option<io::Error> = None;
    let mut first = true;
    let theme = env.theme();
    // A summary the cache vouches for gives the human view's heading (read only: what grep
    // reads of a file is not what a listing keeps of it). It never narrows what is searched:
    // with --since/--until each file's own summary decides, so the cache is not read at all.
    let paths: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| match f {
            Source::File(p) => Some(p.clone()),
            Source::Stdin(_) => None,
        })
        .collect();
    let unbounded = search.window.since.is_none() && search.window.until.is_none();
    let cache = (search.summarize && unbounded)
        .then_some(env.location.cache.as_ref())
        .flatten()
        .map(|dir| Cache::load(dir, &paths));
    if let Some((path, why)) = cache.as_ref().and_then(|c| c.problem.as_ref()) {
        diag.warn(&path.display().to_string(), None, why);
    }
    crate::util::parallel::ordered(
        &files,
        |source| search_source(source, &search, cache.as_ref()),
        |result| {
            let s = match result {
                Ok(s) => s,
                Err((path, e)) => {
                    trouble |= report_unreadable(diag, &path, &e);
                    return ControlFlow::Continue(());
                }
            };
            diag.session_warnings(&s.path.display().to_string(), &s.warnings);
            // SESSIONs given are searched whatever their project; --since/--until still apply.
            let kept = (explicit
                || (listing::in_scope(&env.location, scope, &s.cwd) && projects.holds(&s.cwd)))
                && s.summary.as_ref().is_none_or(|sm| window.holds(sm));
            if !kept || s.hits.is_empty() {
                return ControlFlow::Continue(());
            }
            matched = true;
            let written = write_session(args, env, theme, &s, first, out);
            first = false;
            match written {
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
    } else if matched {
        Outcome::Done
    } else {
        Outcome::NoMatch
    })
}

/// The search, its files, whether they were named, the filters, and whether the listing may
/// have missed a file (an unreadable folder: exit 2, as an unreadable file).
type Prepared<'a> = (
    Search<'a>,
    Vec<Source<SearchedSource>>,
    bool,
    Window,
    Projects,
    bool,
);

/// The pattern, the filters and the files, each checked before any file is read.
fn prepare<'a>(
    args: &'a GrepArgs,
    env: &Env,
    diag: &mut Diag,
    stdin: &mut dyn Read,
) -> anyhow::Result<Prepared<'a>> {
    let syntax = Syntax {
        fixed: args.fixed_strings,
        ignore_case: args.ignore_case,
        smart_case: args.smart_case,
        word: args.word_regexp,
    };
    let pattern = args.pattern.as_deref().unwrap_or_default();
    let shown = style::escape_control(pattern, false);
    if crate::views::search::asks_for_newline(pattern, syntax) {
        // ripgrep's refusal (it has --multiline for this; grep matches a line at a time).
        return Err(UsageError(format!(
            "bad pattern '{shown}': the literal '\"\\n\"' is not allowed in a regex: grep matches one line at a time"
        ))
        .into());
    }
    // regex's message draws the pattern over several lines; its last line says what is wrong.
    let matcher = Matcher::new(pattern, syntax).map_err(|e| {
        let e = e.to_string();
        let why = e.lines().last().unwrap_or(&e).trim_start_matches("error: ");
        UsageError(format!("bad pattern '{shown}': {why}"))
    })?;
    let window = Window::parse(
        args.since.as_deref(),
        args.until.as_deref(),
        env.now_ms,
        &env.tz,
    )?;
    let projects = Projects::parse(&args.projects, &env.inputs.home)?;
    warn_unknown_types(&args.types, diag);
    // With --branch every match is kept until the branch is known, then cut.
    let keep = match (args.branch, args.files_with_matches) {
        (true, _) => None,
        (false, true) => Some(1),
        (false, false) => args.max_count,
    };
    let summarize = !(args.json || args.count || args.files_with_matches)
        || window.since.is_some()
        || window.until.is_some();
    let search = Search {
        args,
        matcher,
        reach: Reach {
            tools: args.tools,
            thinking: args.thinking,
        },
        keep,
        summarize,
        sparse: !summarize && !args.branch,
        window,
    };
    let loc = &env.location;
    let mut incomplete = false;
    let (files, explicit) = if args.sessions.is_empty() {
        let scope = projects.scope(args.all);
        let listed = listing::files(loc, scope)?;
        if listed.files.is_empty() {
            // Exit 1 alone would read as "no match": say there was nothing to search, and where.
            let message = match scope {
                listing::Scope::All => format!(
                    "no sessions to search in {}",
                    loc.shown(if loc.custom {
                        &loc.session_dir
                    } else {
                        &loc.root
                    })
                ),
                listing::Scope::Project => format!(
                    "no sessions to search in {} (every project's: 'pisess grep --all')",
                    loc.shown(&loc.session_dir)
                ),
            };
            diag.note(&crate::views::style::escape_control(&message, false));
        }
        for (path, why) in listed.skipped {
            incomplete |= matches!(why, Skipped::Folder(_));
            Problem::Skipped(why).report(&path, diag);
        }
        (listed.files.into_iter().map(Source::File).collect(), false)
    } else {
        let mut files = Vec::new();
        for arg in &args.sessions {
            match select(Some(arg), loc, env.pi_session_file.as_deref())? {
                Selected::File(path) => files.push(Source::File(path)),
                // Searched as it comes (never held whole), its result shown in its place
                // among the files.
                Selected::Stdin => {
                    super::stdin_is_a_stream(env)?;
                    files.push(Source::stdin(search_stdin(stdin, &search)));
                }
            }
        }
        (files, true)
    };
    Ok((search, files, explicit, window, projects, incomplete))
}

/// Searches a file, or standard input: without a file there is no summary (its heading is the
/// header's).
fn search_source(
    source: &Source<SearchedSource>,
    search: &Search,
    cache: Option<&Cache>,
) -> Result<Searched, (PathBuf, ScanError)> {
    match source {
        Source::File(path) => search_file(path, search, cache),
        Source::Stdin(searched) => searched
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
            .unwrap_or_else(|| {
                Err((
                    PathBuf::from("-"),
                    ScanError::Io(io::Error::other("standard input was already searched")),
                ))
            }),
    }
}

/// Searches standard input as it is read: without a file there is no summary (its heading is
/// the header's).
fn search_stdin(stdin: &mut dyn Read, search: &Search) -> SearchedSource {
    let mut found = Found::default();
    let input = io::BufReader::with_capacity(256 * 1024, stdin);
    let report = scan_until(input, "-", |header, e| found.entry(search, header, e))
        .map_err(|e| (PathBuf::from("-"), e))?;
    Ok(found.into_searched(PathBuf::from("-"), search, None, Some(report)))
}

/// What searching one source gives.
type SearchedSource = Result<Searched, (PathBuf, ScanError)>;

/// Searches one file, always all of it that can match. The human view's heading needs the
/// file's summary: from the cache when it vouches for the file (the heading only: the id and
/// cwd that decide the project come from the file's header), else found in the same pass, as
/// for `--since`/`--until`. The other outputs read only as far as they must (`-l` stops at the
/// first match, as ripgrep does).
fn search_file(
    path: &Path,
    search: &Search,
    cache: Option<&Cache>,
) -> Result<Searched, (PathBuf, ScanError)> {
    let mut found = Found::default();
    let failed = |e| (path.to_path_buf(), e);
    if let Some(summary) = cache
        .filter(|_| search.summarize)
        .and_then(|c| c.peek(path))
    {
        let report = search_stream(path, search, &mut found).map_err(failed)?;
        return Ok(found.into_searched(path.to_path_buf(), search, Some(summary), report));
    }
    if search.summarize {
        let mut also = |header: &Header, e: &EntryLine| {
            let _ = found.entry(search, header, e);
        };
        let options = SummaryOptions {
            reading: Reading::OnThisThread,
            also: Some(&mut also),
            ..SummaryOptions::default()
        };
        let summary = summarize(path, options).map_err(failed)?;
        return Ok(found.into_searched(path.to_path_buf(), search, Some(summary), None));
    }
    Ok(
        match search_stream(path, search, &mut found).map_err(failed)? {
            Some(report) => found.into_searched(path.to_path_buf(), search, None, Some(report)),
            None => Searched::nothing(path),
        },
    )
}

/// Searches a file without summarizing it; `None` when it cannot hold a match and was passed
/// over after its header.
fn search_stream(
    path: &Path,
    search: &Search,
    found: &mut Found,
) -> Result<Option<ScanReport>, ScanError> {
    let opened = open_file(path)?;
    if search.matcher.prefilters() && opened.meta.len() <= WHOLE_FILE {
        // Read whole first: a file that cannot hold a match is passed over unparsed. Into
        // this thread's buffer of the last file: a fresh one a file was grown and its pages
        // faulted in and zeroed afresh, twice rg's system time for the same reads.
        WHOLE.with_borrow_mut(|bytes| {
            bytes.clear();
            let len = usize::try_from(opened.meta.len()).unwrap_or(0);
            bytes.reserve(len.saturating_add(1));
            (&opened.file).read_to_end(bytes).map_err(ScanError::Io)?;
            search_bytes(bytes, &opened.stem, search, found)
        })
    } else {
        let input = whole_file(&opened, Reading::OnThisThread)?;
        scan_until(input, &opened.stem, |header, e| {
            found.entry(search, header, e)
        })
        .map(Some)
    }
}

/// Searches a file's lines held in memory; `None` when the pattern's stored form has no match
/// in them, and they are passed over unparsed but for the header.
fn search_bytes(
    bytes: &[u8],
    stem: &str,
    search: &Search,
    found: &mut Found,
) -> Result<Option<ScanReport>, ScanError> {
    let mut stretches = search.matcher.stretches(bytes);
    let Some(first) = stretches.next_from(0) else {
        // Still a pi session? A file that is not is reported, as everywhere.
        read_header_of(bytes, stem)?;
        return Ok(None);
    };
    if search.sparse {
        // Past the first stretch, a search for the next that is slower than the scan (the
        // many literals of `-i`) would cost more than it saves: every line is read from there.
        let cheap = search.matcher.stretches_are_cheap();
        let next = |from: u64| {
            if !cheap && from >= first as u64 {
                return Some(from);
            }
            let at = stretches.next_from(usize::try_from(from).ok()?)?;
            u64::try_from(at).ok()
        };
        found.vetted = cheap;
        return scan_sparse(bytes, stem, next, |header, e| {
            found.entry(search, header, e)
        })
        .map(Some);
    }
    found.clear_before = first as u64;
    scan_until(bytes, stem, |header, e| found.entry(search, header, e)).map(Some)
}

/// What the search of one file has found so far.
#[derive(Default)]
struct Found {
    hits: Vec<Hit>,
    lines_kept: u64,
    /// With --branch, every entry's id and parent, to walk the active branch at the end.
    links: Vec<(Option<String>, Option<String>)>,
    /// In a file read whole, the lines that end before this offset cannot match
    /// ([`Matcher::first_may_match`]).
    clear_before: u64,
    /// [`Matcher::may_match`] is not asked: [`scan_sparse`] hands out only lines that hold a
    /// stretch that may match (but in the rare v1 and seed-000 files, which it reads whole and
    /// whose entries are then all decoded; the test only ever saved a decode).
    vetted: bool,
}

impl Found {
    /// The session searched, its hits cut to the active branch with --branch. One of
    /// `summary` and `report` is the pass that ran.
    fn into_searched(
        self,
        path: PathBuf,
        search: &Search,
        summary: Option<Summary>,
        report: Option<ScanReport>,
    ) -> Searched {
        let args = search.args;
        let Found {
            mut hits, links, ..
        } = self;
        if args.branch {
            let on_path = active_branch(&links);
            hits.retain(|h| on_path[h.ordinal]);
            if let Some(k) = args.max_count.or(args.files_with_matches.then_some(1)) {
                hits.truncate(usize::try_from(k).unwrap_or(usize::MAX));
            }
        }
        // The file's own header, when it was read, over a summary from the cache.
        let (id, cwd, warnings) = match (&summary, report) {
            (_, Some(r)) => (r.header.id, r.header.cwd.unwrap_or_default(), r.warnings),
            (Some(s), None) => (s.id.clone(), s.cwd.clone(), s.warnings.clone()),
            (None, None) => unreachable!("one of the two passes ran"),
        };
        Searched {
            path,
            id,
            cwd,
            warnings,
            summary,
            hits,
        }
    }

    /// Searches one entry; breaks when no later entry can add a hit that is kept.
    fn entry(&mut self, search: &Search, header: &Header, e: &EntryLine) -> ControlFlow<()> {
        let args = search.args;
        if args.branch {
            self.links.push((
                e.id.as_deref().map(str::to_owned),
                e.parent.as_deref().map(str::to_owned),
            ));
        }
        let full = |kept: u64| search.keep.is_some_and(|k| kept >= k);
        if full(self.lines_kept) {
            return ControlFlow::Break(());
        }
        let stored_role = e.view.message.0.as_ref().and_then(|m| m.role.get());
        let role = stored_role.map(|r| migrated_role(header, r));
        if !searched(&e.kind, role, search.reach)
            || !entry_wanted(&args.types, &args.roles, header, &e.kind, stored_role)
            || e.offset + e.stored.len() as u64 <= self.clear_before
            || !(self.vetted || search.matcher.may_match(e.json))
        {
            return ControlFlow::Continue(());
        }
        // The scan read the line as an object; a decode that fails now has nothing to say.
        let Ok(value) = crate::format::json::decode(e.json) else {
            return ControlFlow::Continue(());
        };
        for (field, text) in texts(&value, &e.kind, role, search.reach) {
            for m in matching_lines(&search.matcher, text) {
                if full(self.lines_kept) {
                    return ControlFlow::Continue(());
                }
                self.lines_kept += 1;
                self.hits.push(Hit {
                    ordinal: e.ordinal,
                    file_line: e.line,
                    entry_id: e.id.as_deref().map(str::to_owned),
                    kind: e.kind.as_str().to_owned(),
                    role: role.map(str::to_owned),
                    field,
                    timestamp: e.view.timestamp.get().map(str::to_owned),
                    number: m.number,
                    line: m.line,
                    matches: m.matches,
                });
            }
        }
        ControlFlow::Continue(())
    }
}

/// Which entries lie on the active branch: from the last entry with an id (pi's leaf) up its
/// parents (the last entry of each id, as pi's `byId`), stopping at a cycle as `Session::path_to`.
fn active_branch(links: &[(Option<String>, Option<String>)]) -> Vec<bool> {
    let mut on_path = vec![false; links.len()];
    let by_id: hashbrown::HashMap<&str, usize> = links
        .iter()
        .enumerate()
        .filter_map(|(i, (id, _))| Some((id.as_deref()?, i)))
        .collect();
    let mut at = links.iter().rposition(|(id, _)| id.is_some());
    while let Some(i) = at {
        if std::mem::replace(&mut on_path[i], true) {
            break;
        }
        at = links[i].1.as_deref().and_then(|p| by_id.get(p).copied());
    }
    on_path
}

fn write_session(
    args: &GrepArgs,
    env: &Env,
    theme: Theme,
    s: &Searched,
    first: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let path = s.path.display().to_string();
    if args.files_with_matches || args.count {
        write_path(env, &s.path, out)?;
        if args.count {
            write!(out, ":{}", s.hits.len())?;
        }
        return out.write_all(b"\n");
    }
    if args.json {
        for h in &s.hits {
            let matches: Vec<_> = h
                .matches
                .iter()
                .map(|&(start, end)| json!({"start": start, "end": end}))
                .collect();
            let object = json!({
                "sessionId": s.id,
                "path": path,
                "cwd": s.cwd,
                "entryId": h.entry_id,
                "type": h.kind,
                "role": h.role,
                "field": h.field.as_str(),
                "timestamp": h.timestamp,
                "fileLine": h.file_line,
                "lineNumber": h.number,
                "line": h.line,
                "matches": matches,
            });
            crate::format::surrogates::write(&mut *out, &object)?;
            out.write_all(b"\n")?;
        }
        return Ok(());
    }
    if !first {
        out.write_all(b"\n")?;
    }
    // Standard input has no summary: its heading says so instead of a time and a title.
    let (when, title) = match &s.summary {
        Some(sm) => (
            relative(sm.modified_ms, env.now_ms),
            style::one_line(sm.name.as_deref().unwrap_or(&*sm.first_message)),
        ),
        None => ("-".to_owned(), "(standard input)".to_owned()),
    };
    let cwd = style::one_line(&tilde(Path::new(&s.cwd), &env.inputs.home));
    let short = env.short_id(&s.id);
    let head = format!("{short}  {when}  {cwd}  ");
    let title = match env.width {
        Some(w) => style::truncate(&title, w.saturating_sub(style::width(&head))).into_owned(),
        None => title,
    };
    writeln!(
        out,
        "{}  {}  {}  {}",
        theme.paint(Role::Id, &short),
        theme.dim(&when),
        cwd,
        theme.bold(&title)
    )?;
    // ripgrep's rule: -A and -B win over -C.
    let around = args.context.unwrap_or(0);
    let before = args.before_context.unwrap_or(around);
    let after = args.after_context.unwrap_or(around);
    let context = Context::of((before, after), s);
    let mut last_shown: Option<usize> = None;
    for (at, h) in s.hits.iter().enumerate() {
        // The entries of context before this hit's entry (once per entry, not per line).
        if at == 0 || s.hits[at - 1].ordinal != h.ordinal {
            context.before(h.ordinal, &mut last_shown, env, out)?;
        }
        let id = h
            .entry_id
            .as_deref()
            .map_or("-".to_owned(), |id| style::shown_id(id, IdCut::Typed));
        // The role (or type), and the field where it says more than the role does.
        let mut what = h.role.clone().unwrap_or_else(|| h.kind.clone());
        if matches!(
            h.field,
            Field::ToolCall | Field::Thinking | Field::Command | Field::Output | Field::Error
        ) {
            what = format!("{what} {}", h.field.as_str());
        }
        let what = style::escape_control(&what, false).into_owned();
        let role = match h.role.as_deref() {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("toolResult" | "bashExecution") => Role::Muted,
            _ if h.field == Field::ToolCall => Role::Tool,
            _ => Role::Custom,
        };
        let lead = format!("  {id}  {what}  ");
        let budget = env
            .width
            .map(|w| w.saturating_sub(style::width(&lead)).max(20));
        let line = cut_around(&h.line, &h.matches, budget, theme);
        writeln!(
            out,
            "  {}  {}  {line}",
            theme.paint(Role::Id, &id),
            theme.paint(role, &what)
        )?;
        last_shown = Some(h.ordinal);
        if s.hits
            .get(at + 1)
            .is_none_or(|next| next.ordinal != h.ordinal)
        {
            let next_hit = s.hits.get(at + 1).map(|n| n.ordinal);
            context.after(h.ordinal, next_hit, &mut last_shown, env, out)?;
        }
    }
    Ok(())
}

/// `-A`/`-B`/`-C`: how many entries around a matching one are shown, and the session's index
/// to read them from (opened only when some are asked for; standard input has none).
struct Context {
    before: usize,
    after: usize,
    session: Option<crate::store::session::Session>,
}

impl Context {
    fn of((before, after): (usize, usize), s: &Searched) -> Context {
        let wanted = (before > 0 || after > 0) && !s.hits.is_empty() && s.path != Path::new("-");
        Context {
            before,
            after,
            session: wanted
                .then(|| {
                    crate::store::session::Session::open(
                        &s.path,
                        crate::store::session::IndexOptions::default(),
                    )
                    .ok()
                })
                .flatten(),
        }
    }

    /// The entries before `ordinal` not yet shown, after a `--` when they do not follow on.
    fn before(
        &self,
        ordinal: usize,
        last_shown: &mut Option<usize>,
        env: &Env,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        if self.session.is_none() {
            return Ok(());
        }
        let from = ordinal.saturating_sub(self.before);
        let from = last_shown.map_or(from, |l| from.max(l + 1));
        if last_shown.is_some_and(|l| from > l + 1) {
            writeln!(out, "  {}", env.theme().dim("--"))?;
        }
        for i in from..ordinal {
            self.line(i, env, out)?;
            *last_shown = Some(i);
        }
        Ok(())
    }

    /// The entries after `ordinal`, up to the next matching entry.
    fn after(
        &self,
        ordinal: usize,
        next_hit: Option<usize>,
        last_shown: &mut Option<usize>,
        env: &Env,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let Some(session) = &self.session else {
            return Ok(());
        };
        let end = (ordinal + self.after + 1).min(session.entries.len());
        let end = next_hit.map_or(end, |n| end.min(n));
        for i in ordinal + 1..end {
            self.line(i, env, out)?;
            *last_shown = Some(i);
        }
        Ok(())
    }

    /// One entry of context: its id, `-`, its role or type, and the first line of its text.
    fn line(&self, i: usize, env: &Env, out: &mut dyn Write) -> io::Result<()> {
        let Some(session) = &self.session else {
            return Ok(());
        };
        let id = session
            .id(i)
            .map_or("-".to_owned(), |id| style::shown_id(id, IdCut::Typed));
        let kind = session.kind(i);
        let role = session.role(i);
        let what = role.unwrap_or(kind.as_str()).to_owned();
        let reach = crate::views::search::Reach {
            tools: true,
            thinking: true,
        };
        let text = session
            .load(i)
            .ok()
            .and_then(|v| {
                texts(&v, kind, role, reach)
                    .first()
                    .map(|(_, t)| style::one_line(t.split('\n').next().unwrap_or("")))
            })
            .unwrap_or_default();
        let what = style::escape_control(&what, false).into_owned();
        let lead = format!("  {id}- {what}  ");
        let text = match env.width {
            Some(w) => {
                style::truncate(&text, w.saturating_sub(style::width(&lead)).max(20)).into_owned()
            }
            None => text,
        };
        let theme = env.theme();
        writeln!(
            out,
            "  {}{}  {}",
            theme.dim(&format!("{id}-")),
            theme.dim(&format!(" {what}")),
            theme.dim(&text)
        )
    }
}

/// A path for `-l`/`-c`: byte for byte into a pipe (for xargs; a folder name need not be
/// UTF-8, and ripgrep prints it as it is on Unix), escaped on a terminal.
fn write_path(env: &Env, path: &Path, out: &mut dyn Write) -> io::Result<()> {
    if env.stdout_tty {
        let shown = path.display().to_string();
        return out.write_all(style::escape_control(&shown, false).as_bytes());
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        out.write_all(path.as_os_str().as_bytes())
    }
    #[cfg(not(unix))]
    {
        out.write_all(path.display().to_string().as_bytes())
    }
}

/// The line with its matches highlighted and its text escaped; with a `budget` of columns,
/// cut to it around the first match (a third of the budget before it at most), `…` marking
/// each cut.
fn cut_around(
    line: &str,
    matches: &[(usize, usize)],
    budget: Option<usize>,
    theme: Theme,
) -> String {
    let escape = |s: &str| style::escape_control(s, false).into_owned();
    let first = matches.first().map_or(0, |m| m.0);
    let mut start = 0;
    if let Some(budget) = budget {
        let before = &line[..first];
        let lead = budget / 3;
        if style::width(&escape(before)) > lead {
            // Keep the last `lead - 1` columns before the match (one for the `…`).
            let mut cols = 0;
            start = first;
            for (i, c) in before.char_indices().rev() {
                cols += style::width(&escape(c.encode_utf8(&mut [0; 4])));
                if cols > lead.saturating_sub(1) {
                    break;
                }
                start = i;
            }
        }
    }
    let mut out = String::new();
    let mut used = 0;
    if start > 0 {
        out.push('…');
        used += 1;
    }
    let mut at = start;
    let mut pieces: Vec<(&str, bool)> = Vec::new();
    for &(s, e) in matches {
        if s < at {
            continue;
        }
        pieces.push((&line[at..s], false));
        pieces.push((&line[s..e], true));
        at = e;
    }
    pieces.push((&line[at..], false));
    for (text, hit) in pieces {
        let text = escape(text);
        let shown = match budget {
            Some(b) if used + style::width(&text) > b => {
                let cut = style::truncate(&text, b.saturating_sub(used)).into_owned();
                out.push_str(&paint_hit(theme, &cut, hit));
                return out;
            }
            _ => text,
        };
        used += style::width(&shown);
        out.push_str(&paint_hit(theme, &shown, hit));
    }
    out
}

fn paint_hit(theme: Theme, s: &str, hit: bool) -> String {
    if hit {
        theme.bold(&theme.paint(Role::Error, s))
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_around_its_match() {
        let plain = Theme { enabled: false };
        let line = format!("{}needle{}", "a".repeat(100), "b".repeat(100));
        let got = cut_around(&line, &[(100, 106)], Some(30), plain);
        assert!(got.starts_with('…') && got.ends_with('…'), "{got}");
        assert!(got.contains("needle"));
        assert_eq!(style::width(&got), 30, "{got}");
        assert_eq!(
            cut_around("a\x1bneedle", &[(2, 8)], None, plain),
            "a\\u{1b}needle"
        );
    }

    #[test]
    fn the_active_branch_is_walked_from_the_last_entry() {
        let s = |x: &str| Some(x.to_owned());
        let links = [
            (s("a"), None),
            (s("b"), s("a")),
            (s("c"), s("a")),
            (None, None),
            (s("d"), s("c")),
        ];
        assert_eq!(active_branch(&links), [true, false, true, false, true]);
        // A cycle stops the walk.
        let cyclic = [(s("a"), s("b")), (s("b"), s("a"))];
        assert_eq!(active_branch(&cyclic), [true, true]);
    }
}
