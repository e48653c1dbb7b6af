//! The plain search: where something was said.
//!
//! The pass that summarizes a file for the heading and for `--since`/`--until` also searches it
//! (`-l`, `-c` and `--json` need no summary and skip it; `-l` stops at the first match). An
//! entry is decoded only when its kind holds searched text and its stored line can match
//! ([`Matcher::may_match`]).

use std::io::{self, Read, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::app::cli::GrepArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::cmd::{entry_wanted, migrated_role, warn_unknown_types};
use crate::views::search::{matching_lines, searched, texts, Matcher, Reach, Syntax};
use crate::views::style;
use pisess_format::model::{EntryLine, Header};
use pisess_format::scan::{open_file, read_header_of, Input, Pass, ScanError, ScanReport};
use pisess_format::util::readahead::Reading;
use pisess_format::util::warning::Warn;
use pisess_store::cache::Cache;
use pisess_store::listing::{Projects, Window};
use pisess_store::summary::{summarize, Summary, SummaryOptions};
use pisess_store::util::usage::UsageError;

use super::matcher::{Live, Searched};
use super::print::{Hit, Printer};

/// Files up to this size are read whole before they are parsed, so that one in which the
/// pattern's stored form ([`Matcher::may_match`]) has no match is passed over at the speed of a
/// byte search (as ripgrep reads it). Only its header is read then, so its damaged lines go
/// unreported; with `-l`, `-c` and `--json` (no heading, no context, no branch) the same holds
/// line by line: only the lines that may match are parsed ([`Pass::prefilter`]). Larger files are
/// read in a stream, line by line, and keep memory flat.
const WHOLE_FILE: u64 = 16 << 20;

/// What every file is searched with.
pub(super) struct Text<'a> {
    args: &'a GrepArgs,
    env: &'a Env,
    print: Printer<'a>,
    matcher: Matcher,
    reach: Reach,
    /// Matching lines kept per session (`-m`, or one for `-l`); none with --branch, whose
    /// matches are cut once the branch is known.
    keep: Option<u64>,
    /// Whether each file is summarized (for the heading, `--since`, `--until`).
    summarize: bool,
    /// Whether a file read whole is parsed only in the lines that may match
    /// ([`Pass::prefilter`]): when nothing but the matches is printed (no heading, no context,
    /// no branch to walk), so entries need no ordinal and no line before them.
    sparse: bool,
    window: Window,
    /// Summaries the cache vouches for, for the human view's heading.
    cache: Option<Cache<'a>>,
    /// The buffers of files read whole, handed back after each file: a fresh one per file
    /// had its pages faulted in and zeroed afresh, twice rg's system time for the same reads.
    buffers: Mutex<Vec<Vec<u8>>>,
}

impl<'a> Text<'a> {
    /// The pattern and the filters (and the projects asked for), each checked before any file
    /// is read.
    pub(super) fn new(
        args: &'a GrepArgs,
        env: &'a Env,
        diag: &mut Diag,
    ) -> anyhow::Result<(Self, Projects)> {
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
        let window = crate::cmd::window(&args.since, &args.until, env)?;
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
        let text = Text {
            args,
            env,
            print: Printer { args, env },
            matcher,
            reach: Reach {
                tools: args.tools,
                thinking: args.thinking,
            },
            keep,
            summarize,
            sparse: !summarize && !args.branch,
            window,
            cache: None,
            buffers: Mutex::new(Vec::new()),
        };
        Ok((text, projects))
    }

    /// Searches a file without summarizing it; `None` when it cannot hold a match and was
    /// passed over after its header.
    fn read(&self, path: &Path, found: &mut Found) -> Result<Option<ScanReport>, ScanError> {
        let opened = open_file(path)?;
        if !self.matcher.prefilters() || opened.meta.len() > WHOLE_FILE {
            return Pass::new()
                .reading(Reading::OnThisThread)
                .run(Input::File(&opened), |header, e| {
                    found.entry(self, header, e)
                })
                .map(Some);
        }
        // Read whole first: a file that cannot hold a match is passed over unparsed.
        let pool = || self.buffers.lock().unwrap_or_else(|e| e.into_inner());
        let mut bytes = pool().pop().unwrap_or_default();
        bytes.clear();
        let len = usize::try_from(opened.meta.len()).unwrap_or(0);
        bytes.reserve(len.saturating_add(1));
        let searched = match (&opened.file).read_to_end(&mut bytes) {
            Ok(_) => self.search_bytes(&bytes, &opened.stem, found),
            Err(e) => Err(ScanError::Io(e)),
        };
        pool().push(bytes);
        searched
    }

    /// Searches a file's lines held in memory; `None` when the pattern's stored form has no
    /// match in them, and they are passed over unparsed but for the header.
    fn search_bytes(
        &self,
        bytes: &[u8],
        stem: &str,
        found: &mut Found,
    ) -> Result<Option<ScanReport>, ScanError> {
        let mut stretches = self.matcher.stretches(bytes);
        let Some(first) = stretches.next_from(0) else {
            // Still a pi session? A file that is not is reported, as everywhere.
            read_header_of(bytes, stem)?;
            return Ok(None);
        };
        if self.sparse {
            // Past the first stretch, a search for the next that is slower than the scan (the
            // many literals of `-i`) would cost more than it saves: every line is read from there.
            let cheap = self.matcher.stretches_are_cheap();
            let mut next = |from: u64| {
                if !cheap && from >= first as u64 {
                    return Some(from);
                }
                let at = stretches.next_from(usize::try_from(from).ok()?)?;
                u64::try_from(at).ok()
            };
            found.vetted = cheap;
            return Pass::new()
                .prefilter(&mut next)
                .run(Input::Bytes(bytes, stem), |header, e| {
                    found.entry(self, header, e)
                })
                .map(Some);
        }
        found.clear_before = first as u64;
        Pass::new()
            .run(Input::Bytes(bytes, stem), |header, e| {
                found.entry(self, header, e)
            })
            .map(Some)
    }
}

impl super::matcher::Matcher for Text<'_> {
    type Hit = Hit;

    fn named(&self) -> Vec<std::ffi::OsString> {
        self.args.sessions.clone()
    }

    fn notes_no_sessions(&self) -> bool {
        true
    }

    /// A summary the cache vouches for gives the human view's heading (read only: what grep
    /// reads of a file is not what a listing keeps of it). It never narrows what is searched:
    /// with --since/--until each file's own summary decides, so the cache is not read at all.
    fn files_chosen(&mut self, paths: &[PathBuf], diag: &mut Diag) {
        let unbounded = self.window.since.is_none() && self.window.until.is_none();
        self.cache = (self.summarize && unbounded)
            .then_some(self.env.location.cache.as_ref())
            .flatten()
            .map(|dir| Cache::load(dir, paths));
        if let Some((path, why)) = self.cache.as_ref().and_then(|c| c.problem.as_ref()) {
            diag.warn(&path.display().to_string(), None, why);
        }
    }

    /// Searches one file, always all of it that can match. The human view's heading needs the
    /// file's summary: from the cache when it vouches for the file (the heading only: the id
    /// and cwd that decide the project come from the file's header), else found in the same
    /// pass, as for `--since`/`--until`. The other outputs read only as far as they must (`-l`
    /// stops at the first match, as ripgrep does).
    fn file(&self, path: &Path) -> Result<Searched<Hit>, ScanError> {
        let mut found = Found::default();
        let cached = self.cache.as_ref().and_then(|c| c.peek(path));
        if self.summarize && cached.is_none() {
            let mut also = |header: &Header, e: &EntryLine| {
                let _ = found.entry(self, header, e);
            };
            let options = SummaryOptions {
                reading: Reading::OnThisThread,
                also: Some(&mut also),
                ..SummaryOptions::default()
            };
            let summary = summarize(path, options)?;
            return Ok(found.into_searched(path, self, Some(summary), None));
        }
        Ok(match (self.read(path, &mut found)?, cached) {
            (None, None) => Searched::nothing(path),
            (report, cached) => found.into_searched(path, self, cached, report),
        })
    }

    /// Standard input, its hits printed as they are found (but with --branch, cut once the
    /// branch is known, and with -c, a count at the end). Without a file there is no summary
    /// (its heading is the header's).
    fn stdin(&self, stdin: &mut dyn Read, live: &mut Live) -> Result<Searched<Hit>, ScanError> {
        let mut found = Found::default();
        let streams = !self.args.branch && !self.args.count;
        let mut shown: Option<Searched<Hit>> = None;
        let report = Pass::new().run(Input::Stream(stdin, "-"), |header, e| {
            let flow = found.entry(self, header, e);
            if !streams || found.hits.is_empty() {
                return flow;
            }
            let s = shown.get_or_insert_with(|| Searched {
                id: header.id.clone(),
                cwd: header.cwd.clone().unwrap_or_default(),
                ..Searched::nothing(Path::new("-"))
            });
            match self.print.stream(s, found.hits.drain(..), live) {
                Ok(()) => flow,
                Err(e) => {
                    live.failed = Some(e);
                    ControlFlow::Break(())
                }
            }
        })?;
        Ok(found.into_searched(Path::new("-"), self, None, Some(report)))
    }

    fn holds(&self, s: &Searched<Hit>) -> bool {
        s.summary.as_ref().is_none_or(|sm| self.window.holds(sm))
    }

    /// Tool results and thinking, which grep leaves out unless asked (`rg` would have found
    /// them): searched again, to the first hit, only when nothing matched. Not with `--type`
    /// or `--role`, which say what to search.
    fn unsearched(
        &self,
        paths: &[PathBuf],
        kept: &dyn Fn(&Searched<Hit>) -> bool,
    ) -> Option<&'static str> {
        if !self.args.types.is_empty() || !self.args.roles.is_empty() {
            return None;
        }
        let flags = [
            ("--tools", self.args.tools),
            ("--thinking", self.args.thinking),
        ];
        for (flag, asked) in flags {
            if asked {
                continue;
            }
            let mut args = self.args.clone();
            args.tools |= flag == "--tools";
            args.thinking |= flag == "--thinking";
            (args.files_with_matches, args.count, args.json) = (true, false, false);
            let mut sink = io::sink();
            let mut quiet = Diag::new(
                &mut sink,
                true,
                crate::views::style::Theme { enabled: false },
            );
            let Ok((wider, _)) = Text::new(&args, self.env, &mut quiet) else {
                continue;
            };
            let found = |path: &PathBuf| {
                wider
                    .file(path)
                    .is_ok_and(|s| !s.hits.is_empty() && wider.holds(&s) && kept(&s))
            };
            if paths.iter().any(found) {
                return Some(flag);
            }
        }
        None
    }

    fn warn(&self, diag: &mut Diag, s: &Searched<Hit>) {
        diag.session_warnings(&s.path.display().to_string(), &s.warnings);
    }

    fn write(&self, s: &Searched<Hit>, first: bool, out: &mut dyn Write) -> io::Result<()> {
        self.print.write_session(s, first, out)
    }
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
    /// [`Matcher::may_match`] is not asked: [`Pass::prefilter`] hands out only lines that hold a
    /// stretch that may match (but in the rare v1 and seed-000 files, which it reads whole and
    /// whose entries are then all decoded; the test only ever saved a decode).
    vetted: bool,
}

impl Found {
    /// The session searched, its hits cut to the active branch with --branch. One of
    /// `summary` and `report` is the pass that ran.
    fn into_searched(
        self,
        path: &Path,
        search: &Text,
        summary: Option<Summary>,
        report: Option<ScanReport>,
    ) -> Searched<Hit> {
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
            path: path.to_path_buf(),
            id,
            cwd,
            warnings,
            summary,
            hits,
            under: None,
        }
    }

    /// Searches one entry; breaks when no later entry can add a hit that is kept.
    fn entry(&mut self, search: &Text, header: &Header, e: &EntryLine) -> ControlFlow<()> {
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
        let Ok(value) = pisess_format::json::decode(e.json) else {
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

#[cfg(test)]
mod tests {
    use super::*;

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
