//! The family cache (issue 44) is a pure accelerator: a report over a store of forks and
//! subagent runs gives, byte for byte, what `--no-cache` gives, after every change a record
//! depends on (a fork appended to, a file up its chain appended to, edited or removed, a run
//! appended to, added or removed), with the files settled (recorded) or just written (racy,
//! not recorded).

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::cache::{cache_files, env_for};
use crate::common::run_with;
use crate::family_forks::{assistant, copy_with, session, source_entries, write};

const REPORTS: [&[&str]; 4] = [
    &["stats", "--all", "--by", "day", "--json"],
    &["stats", "--all", "--by", "session", "--json"],
    &["stats", "--all", "--by", "model"],
    &["stats", "--all", "--by", "tool", "--json"],
];

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = e.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// Every session file an hour old: settled, so a run records what it made of it.
fn age(root: &Path) {
    let mut files = Vec::new();
    files_under(&root.join("sessions"), &mut files);
    for path in files {
        let when = SystemTime::now() - Duration::from_secs(3600);
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }
}

/// Each report twice with the cache (the first may write, the second reads), each the same as
/// without it, warnings included.
fn same(root: &Path, cache: &Path, step: &str) {
    for args in REPORTS {
        let plain_args: Vec<&str> = std::iter::once("--no-cache")
            .chain(args.iter().copied())
            .collect();
        let plain = run_with(env_for(root, Some(cache)), &plain_args, b"");
        assert_eq!(plain.code, 0, "{args:?} {step}: {}", plain.stderr);
        for _ in 0..2 {
            let cached = run_with(env_for(root, Some(cache)), args, b"");
            assert_eq!(
                (cached.code, &cached.stdout, &cached.stderr),
                (plain.code, &plain.stdout, &plain.stderr),
                "{args:?} after {step}"
            );
        }
    }
}

/// Each of `listings`, run with the cache, says what it says with `--no-cache` (as [`same`],
/// one cached run each).
fn listings_as_without_cache(listings: &[&[&str]], root: &Path, cache: &Path, what: &str) {
    for args in listings {
        let plain_args: Vec<&str> = std::iter::once("--no-cache")
            .chain(args.iter().copied())
            .collect();
        let plain = run_with(env_for(root, Some(cache)), &plain_args, b"");
        let cached = run_with(env_for(root, Some(cache)), args, b"");
        assert_eq!(
            (cached.code, &cached.stdout, &cached.stderr),
            (plain.code, &plain.stdout, &plain.stderr),
            "{args:?} after {what}"
        );
    }
}

/// Each of `listings` run twice with the cache: the first records, the second reads back.
fn warm(listings: &[&[&str]], root: &Path, cache: &Path, what: &str) {
    for args in listings {
        for _ in 0..2 {
            let warm = run_with(env_for(root, Some(cache)), args, b"");
            assert_eq!(warm.code, 0, "{args:?} before {what}: {}", warm.stderr);
        }
    }
}

fn append(path: &Path, entry: &Value) {
    let mut text = fs::read_to_string(path).unwrap();
    text.push_str(&entry.to_string());
    text.push('\n');
    fs::write(path, text).unwrap();
}

/// A change made to the store, by name.
type Change<'a> = Box<dyn Fn() + 'a>;

#[test]
fn the_family_cache_follows_every_change_up_a_chain_and_under_a_session() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("agent");
    let cache = tmp.path().join("cache");
    // A session with a subagent run whose tool result names it (and one run not in the store).
    let (parent, run) = crate::family_stats::store(&root);
    // A source, its fork, and a fork of the fork.
    let (a, b, c) = (session(&root, 1), session(&root, 2), session(&root, 3));
    write(&a, "a", None, &source_entries());
    let b_entries = copy_with(&[assistant("b1", "a2", 5, 4)]);
    write(&b, "b", Some(&a), &b_entries);
    let mut c_entries = b_entries.clone();
    c_entries.push(assistant("c1", "b1", 6, 8));
    write(&c, "c", Some(&b), &c_entries);
    age(&root);
    same(&root, &cache, "the first runs");
    assert!(
        !cache_files(&cache, "families").is_empty(),
        "no family cache written"
    );

    let steps: Vec<(&str, Change)> = vec![
        (
            "the fork appended to",
            Box::new(|| append(&c, &assistant("c2", "c1", 7, 16))),
        ),
        (
            "its source appended to",
            Box::new(|| append(&b, &assistant("b2", "b1", 8, 32))),
        ),
        (
            "the top of the chain appended to",
            Box::new(|| append(&a, &assistant("a3", "a2", 9, 64))),
        ),
        (
            "the chain edited (b no fork now)",
            Box::new(|| write(&b, "b", None, &b_entries)),
        ),
        (
            "the chain edited back",
            Box::new(|| write(&b, "b", Some(&a), &b_entries)),
        ),
        (
            "the run appended to",
            Box::new(|| append(&run, &assistant("r9", "b2", 10, 128))),
        ),
        (
            "a run added",
            Box::new(|| {
                let other = run
                    .parent()
                    .unwrap()
                    .parent()
                    .unwrap()
                    .join("run-1/session.jsonl");
                fs::create_dir_all(other.parent().unwrap()).unwrap();
                fs::copy(&run, &other).unwrap();
            }),
        ),
        ("a run removed", Box::new(|| fs::remove_file(&run).unwrap())),
        (
            "the parent appended to",
            Box::new(|| append(&parent, &assistant("p9", "r1", 11, 256))),
        ),
        (
            "the source removed",
            Box::new(|| fs::remove_file(&a).unwrap()),
        ),
        (
            "a session added to the store",
            Box::new(|| write(&session(&root, 4), "d", None, &source_entries())),
        ),
    ];
    for (what, change) in &steps {
        change();
        // Just written: racy, so not recorded; then settled, recorded, and read back.
        same(&root, &cache, &format!("{what} (racy)"));
        age(&root);
        same(&root, &cache, what);
    }
}

/// Every file and folder under `dir` (and `dir`) an hour old: settled, so the run cache
/// (`cache::runs`) records the walk over them.
fn age_all(dir: &Path) {
    let when = SystemTime::now() - Duration::from_secs(3600);
    for e in fs::read_dir(dir).unwrap().flatten() {
        let kind = e.file_type().unwrap();
        if kind.is_dir() {
            age_all(&e.path());
        } else if kind.is_file() {
            let file = File::options().write(true).open(e.path()).unwrap();
            file.set_modified(when).unwrap();
        }
    }
    File::open(dir).unwrap().set_modified(when).unwrap();
}

/// A run added or removed at each level the runs' walk reads (the stem folder, a `<runId>/`,
/// a `run-<n>/`, a nested run's folders), after warm runs that recorded the walk, is seen by
/// the next `ls`, `ls --tree` and `stats`: each gives what `--no-cache` gives.
#[test]
fn the_run_cache_sees_a_run_added_or_removed_at_every_level() {
    const LISTINGS: [&[&str]; 3] = [
        &["ls", "--all", "--json"],
        &["ls", "--all", "--tree", "--json"],
        &["stats", "--all", "--by", "session", "--json"],
    ];
    at_every_level(&LISTINGS, |_, cache| {
        assert!(!cache_files(cache, "runs").is_empty(), "no run cache");
    });
}

/// `stats` finds a family's runs by the walk its family record keeps (`cache::runs::Walked`)
/// while the folders it read are as they were: with the run cache gone, a warm `stats` writes
/// none (it never asked it). A run added or removed at every level after that is seen.
#[test]
fn stats_finds_a_familys_runs_by_its_records_walk_and_sees_every_change() {
    const STATS: [&[&str]; 1] = [&["stats", "--all", "--by", "session", "--json"]];
    at_every_level(&STATS, |root, cache| {
        fs::remove_dir_all(cache.join("runs")).unwrap();
        let again = run_with(env_for(root, Some(cache)), STATS[0], b"");
        assert_eq!(again.code, 0, "{}", again.stderr);
        assert!(
            cache_files(cache, "runs").is_empty(),
            "the run cache was asked: the family record's walk did not vouch"
        );
    });
}

/// After `listings` ran warm (then `warmed`), a run added or removed at every level the
/// runs' walk reads: each of `listings` gives what `--no-cache` gives.
fn at_every_level(listings: &[&[&str]], warmed: impl Fn(&Path, &Path)) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("agent");
    let cache = tmp.path().join("cache");
    let (parent, run) = crate::family_stats::store(&root);
    let stem = parent.with_extension("");
    let run_id = run.parent().unwrap().parent().unwrap().to_path_buf();
    let copy = |to: PathBuf| {
        let run = run.clone();
        Box::new(move || {
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(&run, &to).unwrap();
        }) as Change
    };
    let steps: Vec<(&str, Change)> = vec![
        ("nothing", Box::new(|| {})),
        (
            "a run id added",
            copy(stem.join("0000beef/run-0/session.jsonl")),
        ),
        (
            "a run added to a run id",
            copy(run_id.join("run-1/session.jsonl")),
        ),
        (
            "a file added to a run folder",
            copy(run_id.join("run-0/2026-01-02T10-00-00-000Z_x.jsonl")),
        ),
        (
            "a nested run added",
            copy(run_id.join("run-0/session/1111beef/run-0/session.jsonl")),
        ),
        (
            "a nested run's run added",
            copy(run_id.join("run-0/session/1111beef/run-2/session.jsonl")),
        ),
        (
            "a run folder removed",
            Box::new(|| fs::remove_dir_all(run_id.join("run-1")).unwrap()),
        ),
        (
            "a run id renamed",
            Box::new(|| {
                fs::rename(stem.join("0000beef"), stem.join("2222beef")).unwrap();
            }),
        ),
        (
            "a run id removed",
            Box::new(|| fs::remove_dir_all(stem.join("2222beef")).unwrap()),
        ),
    ];
    for (what, change) in &steps {
        age_all(&root);
        // Warm: the first run records the walk, the second reads it back.
        warm(listings, &root, &cache, what);
        warmed(&root, &cache);
        change();
        listings_as_without_cache(listings, &root, &cache, what);
    }
}

/// `ls --tree` keeps each run's summary in the run cache's record, trusted by the run file's
/// key: a run's file grown, rewritten to the same size with its mtime put back (only its
/// ctime tells), or removed after warm runs is read again, each listing what `--no-cache`
/// lists.
#[test]
fn the_run_cache_reads_a_run_again_when_its_file_changed() {
    const LISTINGS: [&[&str]; 2] = [
        &["ls", "--all", "--tree", "--json"],
        &["ls", "--all", "--tree"],
    ];
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("agent");
    let cache = tmp.path().join("cache");
    let (_, run) = crate::family_stats::store(&root);
    let steps: Vec<(&str, Change)> = vec![
        ("nothing", Box::new(|| {})),
        (
            "the run grown",
            Box::new(|| {
                let line = assistant("b3", "b2", 6, 7);
                let mut bytes = fs::read(&run).unwrap();
                bytes.extend_from_slice(format!("{line}\n").as_bytes());
                fs::write(&run, bytes).unwrap();
            }),
        ),
        (
            "the run rewritten to the same size, its mtime put back",
            Box::new(|| {
                let was = fs::metadata(&run).unwrap().modified().unwrap();
                let text = fs::read_to_string(&run)
                    .unwrap()
                    .replace("delegate", "DELEGATE");
                fs::write(&run, text).unwrap();
                File::options()
                    .write(true)
                    .open(&run)
                    .unwrap()
                    .set_modified(was)
                    .unwrap();
            }),
        ),
        (
            "the run removed",
            Box::new(|| fs::remove_file(&run).unwrap()),
        ),
    ];
    for (what, change) in &steps {
        age_all(&root);
        warm(&LISTINGS, &root, &cache, what);
        // The run's summary (its first message) is in the run cache's record.
        if run.exists() {
            let text = fs::read_to_string(&run).unwrap();
            let first = if text.contains("DELEGATE") {
                "DELEGATE"
            } else {
                "delegate"
            };
            let kept = (cache_files(&cache, "runs").iter()).any(|f| {
                fs::read(f)
                    .unwrap()
                    .windows(8)
                    .any(|w| w == first.as_bytes())
            });
            assert!(kept, "no run summary in the run cache before {what}");
        }
        change();
        listings_as_without_cache(&LISTINGS, &root, &cache, what);
    }
}
