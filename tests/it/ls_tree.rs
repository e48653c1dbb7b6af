//! `ls --tree` (issue 44): sessions threaded as pi's `/resume` threads them (forks under their
//! source, each subtree by its latest activity), subagent runs under their parent (never
//! lifting it); a cycle of `parentSession`s, a source gone, a symlinked run folder and 10,000
//! runs give a warning at most. pi's own threading is checked against pisess-store's `thread`
//! by tests/differential/threads.mjs; these tests hold the command's two outputs.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::common::{env_in, run_with, Run};
use crate::snap;

const PROJECT: &str = "--home-dev-webshop--";

/// A session with one user message at `10:<minute>` (its pi `modified`).
fn session(path: &Path, id: &str, parent: Option<&Path>, text: &str, minute: u32) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut header = json!({"type": "session", "version": 3, "id": id,
        "timestamp": "2026-07-01T09:00:00.000Z", "cwd": "/home/dev/webshop"});
    if let Some(p) = parent {
        header["parentSession"] = json!(p.display().to_string());
    }
    let user = json!({"type": "message", "id": "u1", "parentId": null,
        "timestamp": format!("2026-07-01T10:{minute:02}:00.000Z"),
        "message": {"role": "user", "content": text,
            "timestamp": 1_782_900_000_000u64 + u64::from(minute) * 60_000}});
    fs::write(path, format!("{header}\n{user}\n")).unwrap();
    // Each file a second newer than the one written before: the `*` marks pi's `-c` choice,
    // the newest by modification time, and files written within the kernel's coarse clock tick
    // would otherwise tie.
    static WRITTEN: AtomicU64 = AtomicU64::new(0);
    let n = WRITTEN.fetch_add(1, Ordering::Relaxed);
    let at = UNIX_EPOCH + Duration::from_secs(1_782_900_000 + n);
    fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(at))
        .unwrap();
}

fn file(root: &Path, id: &str) -> PathBuf {
    root.join("sessions")
        .join(PROJECT)
        .join(format!("2026-07-01T09-00-00-000Z_{id}.jsonl"))
}

/// The store: a source with a clone (the newest activity) and a fork of the clone; the
/// source's subagent run (newer still, but a run never lifts pi's order); an unrelated
/// session between; a fork whose source is gone; a cycle.
fn store(root: &Path) -> PathBuf {
    let source = file(root, "aaaa0001");
    session(&source, "aaaa0001", None, "the source", 5);
    let clone = file(root, "aaaa0002");
    session(&clone, "aaaa0002", Some(&source), "the clone", 30);
    session(
        &file(root, "aaaa0003"),
        "aaaa0003",
        Some(&clone),
        "a fork of the clone",
        20,
    );
    session(&file(root, "bbbb0001"), "bbbb0001", None, "unrelated", 10);
    session(
        &file(root, "cccc0001"),
        "cccc0001",
        Some(&file(root, "gone")),
        "its source is gone",
        1,
    );
    session(
        &file(root, "dddd0001"),
        "dddd0001",
        Some(&file(root, "dddd0002")),
        "cycle one",
        2,
    );
    session(
        &file(root, "dddd0002"),
        "dddd0002",
        Some(&file(root, "dddd0001")),
        "cycle two",
        3,
    );
    let run = source
        .with_extension("")
        .join("0a1b2c3d/run-0/session.jsonl");
    session(&run, "eeee0001", None, "the subagent's task", 40);
    run
}

fn run_in(root: &Path, args: &[&str], width: Option<usize>) -> Run {
    let mut env = env_in(root, "/home/dev/webshop");
    if let Some(w) = width {
        env.width = Some(w);
        env.stdout_tty = true;
    }
    let args: Vec<&str> = ["--color", "never"].iter().chain(args).copied().collect();
    run_with(env, &args, b"")
}

#[test]
fn ls_tree_threads_forks_and_runs_as_pi_resume_does() {
    let tmp = tempfile::tempdir().unwrap();
    let run = store(tmp.path());
    let r = run_in(tmp.path(), &["ls", "--tree", "--json"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("a cycle of parentSession"),
        "{}",
        r.stderr
    );
    let rows: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let got: Vec<(String, Value, u64, Value)> = (rows.iter())
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_owned(),
                r["parentSessionId"].clone(),
                r["depth"].as_u64().unwrap(),
                r["made"].clone(),
            )
        })
        .collect();
    let want = [
        ("aaaa0001", Value::Null, 0, Value::Null),
        // Among its siblings by its own activity (the newest), without lifting its parent.
        ("eeee0001", json!("aaaa0001"), 1, json!("subagent")),
        ("aaaa0002", json!("aaaa0001"), 1, Value::Null),
        ("aaaa0003", json!("aaaa0002"), 2, Value::Null),
        ("bbbb0001", Value::Null, 0, Value::Null),
        // The cycle cut at its member listed first (the newest), the other under it.
        ("dddd0002", Value::Null, 0, Value::Null),
        ("dddd0001", json!("dddd0002"), 1, Value::Null),
        ("cccc0001", Value::Null, 0, Value::Null),
    ];
    let want: Vec<(String, Value, u64, Value)> = (want.iter())
        .map(|(a, b, c, d)| ((*a).to_owned(), b.clone(), *c, d.clone()))
        .collect();
    assert_eq!(got, want, "{}", r.stdout);
    // The ls object as `ls --json` has it, plus the three fields.
    let plain = run_in(tmp.path(), &["ls", "--json"], None);
    let first: Value = serde_json::from_str(plain.stdout.lines().next().unwrap()).unwrap();
    let mut tree_row = rows
        .iter()
        .find(|r| r["id"] == first["id"])
        .unwrap()
        .clone();
    for key in ["parentSessionId", "depth", "made"] {
        tree_row.as_object_mut().unwrap().remove(key);
    }
    assert_eq!(tree_row, first);
    assert_eq!(rows[1]["path"], run.display().to_string());
    // pi's rows alone are `ls`'s rows, the run left out.
    assert_eq!(plain.stdout.lines().count(), rows.len() - 1);

    let human = run_in(tmp.path(), &["ls", "--tree"], Some(100));
    snap!("ls_tree_human", human.stdout);
    // A narrow terminal: every row fits it, the connectors kept.
    let narrow = run_in(tmp.path(), &["ls", "--tree"], Some(40));
    assert!(
        narrow
            .stdout
            .lines()
            .all(|l| unicode_width::UnicodeWidthStr::width(l) <= 40),
        "{}",
        narrow.stdout
    );
    snap!("ls_tree_width_40", narrow.stdout);
}

#[test]
fn ls_tree_refuses_an_order_of_its_own() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path());
    for flag in [&["--sort", "size"][..], &["--reverse"][..]] {
        let args: Vec<&str> = ["ls", "--tree"].iter().chain(flag).copied().collect();
        let cli = <pisess::app::cli::Cli as clap::Parser>::try_parse_from(
            std::iter::once("pisess").chain(args.iter().copied()),
        );
        assert!(cli.is_err(), "{args:?}");
    }
}

#[cfg(unix)]
#[test]
fn ls_tree_follows_no_symlinked_run_folder_and_bears_ten_thousand_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let source = file(root, "aaaa0001");
    session(&source, "aaaa0001", None, "the source", 5);
    // A run folder that is a link out of the store: said, not followed.
    let outside = root.join("outside/0a1b2c3d/run-0/session.jsonl");
    session(&outside, "ffff0001", None, "outside", 6);
    let stem = source.with_extension("");
    fs::create_dir_all(&stem).unwrap();
    std::os::unix::fs::symlink(root.join("outside/0a1b2c3d"), stem.join("0a1b2c3d")).unwrap();
    // 10,000 runs under the other session.
    let other = file(root, "bbbb0001");
    session(&other, "bbbb0001", None, "ten thousand", 7);
    let header = json!({"type": "session", "version": 3, "id": "r",
        "timestamp": "2026-07-01T09:00:00.000Z", "cwd": "/home/dev/webshop"});
    for n in 0..10_000 {
        let dir = other.with_extension("").join(format!("{n:08x}/run-0"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("session.jsonl"), format!("{header}\n")).unwrap();
    }
    let started = std::time::Instant::now();
    let r = run_in(root, &["ls", "--tree", "--json"], None);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("not followed"), "{}", r.stderr);
    let rows: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2 + 10_000);
    assert!(rows.iter().all(|r| r["id"] != "ffff0001"));
    assert_eq!(rows[0]["id"], "bbbb0001");
    assert_eq!(rows[0]["subagentRuns"], 10_000);
    assert!(rows[1..=10_000]
        .iter()
        .all(|r| r["parentSessionId"] == "bbbb0001" && r["depth"] == 1));
    eprintln!("ls --tree with 10,000 runs: {:?}", started.elapsed());
}

/// `ls --tree --prices FILE` gives each row the estimate `ls --prices` gives it: the same
/// `estimatedCost` fields beside `usage.cost` in `--json`, `~$` (and `+` for what stays
/// unpriced) in the human table.
#[test]
fn ls_tree_with_prices_estimates_each_row_as_ls_does() {
    let root = crate::common::repo().join("tests/prices");
    let table = root.join("litellm.json").display().to_string();
    let agent = root.join("agent");
    let ls = |args: &[&str]| {
        let r = run_with(env_in(&agent, "/p"), args, b"");
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        r
    };
    let lines = |r: &Run| -> Vec<Value> {
        (r.stdout.lines())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let flat = lines(&ls(&["ls", "--all", "--json", "--prices", &table]));
    let tree = lines(&ls(&[
        "ls", "--all", "--tree", "--json", "--prices", &table,
    ]));
    assert_eq!(flat.len(), tree.len());
    assert!(flat
        .iter()
        .any(|r| r["usage"].get("estimatedCost").is_some()));
    for row in &tree {
        let same = (flat.iter())
            .find(|f| f["path"] == row["path"])
            .expect("every tree row is an ls row");
        assert_eq!(row["usage"], same["usage"], "{}", row["path"]);
    }
    let plain = lines(&ls(&["ls", "--all", "--tree", "--json"]));
    assert!(plain
        .iter()
        .all(|r| r["usage"].get("estimatedCost").is_none()));
    let human = ls(&["ls", "--all", "--tree", "--prices", &table]);
    assert!(human.stdout.contains("~$0.01+"), "{}", human.stdout);
    assert!(human.stdout.contains("$0.0045+"), "{}", human.stdout);
}
