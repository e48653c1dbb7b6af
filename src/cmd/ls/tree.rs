//! `ls --tree` (issue 44): the listing threaded as pi's `/resume` threads it
//! (`pisess_store::family::thread`: forks and clones under the session their `parentSession`
//! names, every subtree ordered by its latest activity), with each session's subagent runs
//! under it. Human: the table with each title after its row's connectors, cut to the terminal
//! as `ls` cuts; `--json`: the `ls` objects in the same order, flat, each with `parentSessionId`
//! (the session of the row it hangs under, `null` for a root), `depth` (0 for a root) and
//! `made` (how a subagent run was made, `null` for pi's rows).

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::app::cli::LsArgs;
use crate::app::diag::Diag;
use crate::app::env::Env;
use crate::views::prices::{self, EstimateJson, Pricer};
use crate::views::style::Theme;
use pisess_format::scan::ScanError;
use pisess_store::cache::runs::{RunCache, RunKey};
use pisess_store::family::runs::{Child, Made};
use pisess_store::family::thread::{thread_keyed, Found, Listed, Node, PathKeys, Row};
use pisess_store::listing;
use pisess_store::summary::{Detail, Summary};

/// Threads `sessions` (pi's order) and the runs found under each (`found[i]` under session
/// `i`), then writes the rows; with `pricer` (`--prices`) each with its estimate, as `ls`.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    sessions: Vec<Summary>,
    found: Vec<Vec<Child>>,
    links: &[PathBuf],
    (cache, stemmed): (RunCache<'_>, Vec<PathBuf>),
    pricer: Option<&Pricer>,
    args: &LsArgs,
    env: &Env,
    out: &mut dyn Write,
    diag: &mut Diag,
) -> anyhow::Result<()> {
    // The runs, read for their rows (through the cache, as the listing's): each with the path
    // it hangs under and how it was made.
    let mut wanted: Vec<(PathBuf, PathBuf, Made)> = Vec::new();
    // Each run's session and its index among the session's runs (the run cache's record).
    let mut whose: Vec<(usize, usize)> = Vec::new();
    let mut keys = PathKeys::new(&env.location.process_cwd);
    // Each run's key, known from its place: no symlink on its way from its session's folder.
    // hashbrown's hasher, as for every path map of the tree (SipHash was slower than the keys).
    let mut known: hashbrown::HashMap<&OsStr, PathBuf> = hashbrown::HashMap::new();
    for (i, children) in found.iter().enumerate() {
        let top = &sessions[i].path;
        for (j, child) in children.iter().enumerate() {
            let parent = child.parent.map_or(top, |p| &children[p].path);
            wanted.push((child.path.clone(), parent.clone(), child.made));
            whose.push((i, j));
            let beneath = (!child.link)
                .then(|| keys.key_beneath(&child.path, top.parent()?))
                .flatten();
            if let Some(key) = beneath {
                known.insert(child.path.as_os_str(), key);
            }
        }
    }
    // `--prices` estimates from each run's rows, as `ls` from each session's.
    let detail = match pricer {
        Some(_) => Detail::Stats,
        None => Detail::Listing,
    };
    let read = read_runs(&cache, &sessions, &found, &wanted, &whose, detail, env);
    cache.save(Some(&stemmed));
    let mut runs: Vec<(Summary, PathBuf, Made, usize)> = Vec::with_capacity(read.len());
    for ((path, parent, made), result) in wanted.into_iter().zip(read) {
        match result {
            Ok(s) => runs.push((s, parent, made, 0)),
            Err(e) => diag.warn(
                &path.display().to_string(),
                None,
                &format!("cannot read this subagent run: {e}"),
            ),
        }
    }
    let listed: Vec<Listed> = (sessions.iter())
        .map(|s| Listed {
            path: &s.path,
            parent_session: s.parent_session.as_deref(),
            modified_ms: s.modified_ms,
        })
        .collect();
    let children: Vec<Found> = (runs.iter())
        .map(|(s, parent, ..)| Found {
            path: &s.path,
            parent,
            modified_ms: s.modified_ms,
        })
        .collect();
    // By the paths' bytes: a `Path` hashes component by component.
    let links: hashbrown::HashSet<&OsStr> = links.iter().map(|l| l.as_os_str()).collect();
    let listed_keys: Vec<PathBuf> = (sessions.iter())
        .map(|s| keys.key_listed(&s.path, links.contains(s.path.as_os_str())))
        .collect();
    // A listed file's key is known (a run's parent, or a `parentSession` that names a listed
    // file by its very bytes): no `lstat` and no `Path` walk again (100 forks of 1,000
    // sessions were 100 `lstat`s of `ls --tree`).
    let listed_at: hashbrown::HashMap<&OsStr, usize> = (sessions.iter().enumerate())
        .map(|(i, s)| (s.path.as_os_str(), i))
        .collect();
    let forest = thread_keyed(&listed, &listed_keys, &children, &mut |p: &Path| {
        let p = p.as_os_str();
        match (known.get(p), listed_at.get(p)) {
            (Some(key), _) => key.clone(),
            (None, Some(&i)) => listed_keys[i].clone(),
            (None, None) => keys.key(Path::new(p)),
        }
    });
    // Borrowing the sessions' paths (hashbrown's maps, unlike std's, may not outlive what
    // they borrow at their drop).
    drop((known, links, listed_at));
    for cycle in &forest.cycles {
        let names: Vec<String> = (cycle.iter())
            .map(|n| summary(*n, &sessions, &runs).path.display().to_string())
            .collect();
        diag.warn(
            &names[0],
            None,
            &format!(
                "a cycle of parentSession ({}): shown as a root, the others under it",
                names.join(" → ")
            ),
        );
    }
    // A run's count of runs: its own children among the rows.
    for row in &forest.rows {
        if let (Node::Found(_), Some(Node::Found(p))) = (row.node, row.parent) {
            runs[p].3 += 1;
        }
    }
    let estimate = |s: &Summary| Some(prices::total(pricer?, s.tally.as_deref()?));
    if args.json {
        // Written on every core in runs of rows, each run in order as it is ready, as `ls
        // --json` writes: on one thread this was a third of a warm `ls --tree --json`.
        let chunks: Vec<&[Row]> = forest.rows.chunks(256).collect();
        let mut failed = None;
        pisess_store::util::parallel::ordered(
            &chunks,
            |rows| {
                let mut buf = Vec::with_capacity(rows.len() * 2048);
                for row in *rows {
                    let s = summary(row.node, &sessions, &runs);
                    let e = estimate(s);
                    json_row(
                        &mut buf,
                        row,
                        &sessions,
                        &runs,
                        &found,
                        e.as_ref().map(Into::into),
                    );
                }
                buf
            },
            |buf| match out.write_all(&buf) {
                Ok(()) => std::ops::ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    std::ops::ControlFlow::Break(())
                }
            },
        );
        // Not freed: the process ends after a listing (as `ls`).
        std::mem::forget(sessions);
        std::mem::forget(runs);
        return match failed {
            Some(e) => Err(e.into()),
            None => Ok(()),
        };
    }
    let prefixes = connectors(&forest.rows);
    let mut rows: Vec<Summary> = Vec::with_capacity(forest.rows.len());
    let mut counts = Vec::with_capacity(forest.rows.len());
    let mut marks = Vec::with_capacity(forest.rows.len());
    let mut estimates = Vec::with_capacity(forest.rows.len());
    for (row, prefix) in forest.rows.iter().zip(prefixes) {
        let (count, mark) = match row.node {
            Node::Listed(i) => (found[i].len(), prefix),
            Node::Found(j) => (runs[j].3, format!("{prefix}[{}] ", runs[j].2.as_str())),
        };
        let s = summary(row.node, &sessions, &runs);
        estimates.push(estimate(s));
        rows.push(s.clone());
        counts.push(count);
        marks.push(mark);
    }
    let theme = Theme {
        enabled: env.color_stdout,
    };
    let default = super::default_path(env);
    super::render_human(
        &rows,
        &counts,
        pricer.map(|p| (p, &estimates[..])),
        Some(&marks),
        args,
        default.as_deref(),
        env,
        theme,
        out,
    )?;
    Ok(())
}

/// The summaries of the runs `wanted` (`whose`: each one's session and index among its
/// session's runs). A listing's (`Detail::Listing`) come from the run cache's records where
/// they hold (a `statx` a run: the summary cache's file is per folder, and each run has its
/// own, some 8 calls a run), the others through the listing's cache, then kept in the
/// records; `--prices`' (with their tallies) through the tally cache.
fn read_runs(
    cache: &RunCache<'_>,
    sessions: &[Summary],
    found: &[Vec<Child>],
    wanted: &[(PathBuf, PathBuf, Made)],
    whose: &[(usize, usize)],
    detail: Detail,
    env: &Env,
) -> Vec<Result<Summary, ScanError>> {
    let paths: Vec<PathBuf> = wanted.iter().map(|w| w.0.clone()).collect();
    if detail != Detail::Listing {
        return listing::summaries(&env.location, &paths, detail);
    }
    let mut read: Vec<Option<Result<Summary, ScanError>>> = (sessions.iter().zip(found))
        .filter(|(_, runs)| !runs.is_empty())
        .flat_map(|(s, runs)| cache.summaries(&s.path, runs))
        .map(|s| s.map(Ok))
        .collect();
    let missed: Vec<usize> = (0..read.len()).filter(|&k| read[k].is_none()).collect();
    if !missed.is_empty() {
        let missed_paths: Vec<PathBuf> = missed.iter().map(|&k| paths[k].clone()).collect();
        // Each key before its read: what is kept is what the key names.
        let before: Vec<Option<RunKey>> = missed_paths.iter().map(|p| RunKey::of(p)).collect();
        let fresh = listing::summaries(&env.location, &missed_paths, detail);
        for ((k, key), result) in missed.into_iter().zip(before).zip(fresh) {
            if let (Some(key), Ok(s)) = (key, &result) {
                let (i, j) = whose[k];
                cache.remember_summary(&sessions[i].path, j, &paths[k], key, s);
            }
            read[k] = Some(result);
        }
    }
    read.into_iter().flatten().collect()
}

/// One row of `--json`: `ls`'s object with the tree's fields.
fn json_row(
    buf: &mut Vec<u8>,
    row: &Row,
    sessions: &[Summary],
    runs: &[(Summary, PathBuf, Made, usize)],
    found: &[Vec<Child>],
    estimate: Option<EstimateJson>,
) {
    let s = summary(row.node, sessions, runs);
    let (count, made) = match row.node {
        Node::Listed(i) => (found[i].len(), None),
        Node::Found(j) => (runs[j].3, Some(runs[j].2)),
    };
    super::push_json(buf, s, count, estimate);
    buf.pop();
    buf.extend_from_slice(b",\"parentSessionId\":");
    match row.parent {
        Some(p) => {
            pisess_format::surrogates::push_str(buf, &summary(p, sessions, runs).id);
        }
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b",\"depth\":");
    pisess_format::surrogates::push_u64(buf, row.depth as u64);
    buf.extend_from_slice(b",\"made\":");
    match made {
        Some(m) => pisess_format::surrogates::push_str(buf, m.as_str()),
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b"}\n");
}

fn summary<'a>(
    node: Node,
    sessions: &'a [Summary],
    runs: &'a [(Summary, PathBuf, Made, usize)],
) -> &'a Summary {
    match node {
        Node::Listed(i) => &sessions[i],
        Node::Found(j) => &runs[j].0,
    }
}

/// Each row's connectors (`│  ├─ `), three columns a level, from the rows in pre-order: a
/// level's gutter is `│` while the row's ancestor at that level has siblings still to come.
pub(super) fn connectors(rows: &[Row]) -> Vec<String> {
    let mut open: Vec<bool> = Vec::new();
    rows.iter()
        .map(|row| {
            if row.depth == 0 {
                open.clear();
                return String::new();
            }
            open.truncate(row.depth - 1);
            let mut prefix: String = (open.iter())
                .map(|&more| if more { "│  " } else { "   " })
                .collect();
            prefix.push_str(if row.last { "└─ " } else { "├─ " });
            open.push(!row.last);
            prefix
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(depth: usize, last: bool) -> Row {
        Row {
            node: Node::Listed(0),
            depth,
            parent: None,
            last,
            latest_ms: 0,
        }
    }

    #[test]
    fn connectors_keep_a_gutter_while_an_ancestor_has_siblings_to_come() {
        let rows = [
            row(0, false),
            row(1, false),
            row(2, true),
            row(1, true),
            row(2, false),
            row(3, true),
            row(2, true),
            row(0, true),
        ];
        assert_eq!(
            connectors(&rows),
            [
                "",
                "├─ ",
                "│  └─ ",
                "└─ ",
                "   ├─ ",
                "   │  └─ ",
                "   └─ ",
                ""
            ]
        );
    }
}
