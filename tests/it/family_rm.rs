//! `rm` of a session with subagent runs (issue 44): without `--with-subagents` its runs are
//! kept and the plan says so; with it the runs found under it go too, and nothing else: not a
//! foreign file in its folder, not a fork that names it, not a run behind a symlinked folder,
//! not another session.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{env_in, run_with, Run};

const PROJECT: &str = "--home-dev-webshop--";
const PARENT: &str = "aaaa0001-0000-7000-8000-000000000001";

fn run_in(root: &Path, args: &[&str]) -> Run {
    run_with(env_in(root, "/home/dev/webshop"), args, b"")
}

fn session(path: &Path, id: &str, parent: Option<&Path>) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut header = json!({"type": "session", "version": 3, "id": id,
        "timestamp": "2026-07-01T10:00:00.000Z", "cwd": "/home/dev/webshop"});
    if let Some(p) = parent {
        header["parentSession"] = json!(p.display().to_string());
    }
    let user = json!({"type": "message", "id": "u1", "parentId": null,
        "timestamp": "2026-07-01T10:00:01.000Z",
        "message": {"role": "user", "content": "go", "timestamp": 1_782_900_001_000u64}});
    fs::write(path, format!("{header}\n{user}\n")).unwrap();
}

struct Store {
    parent: PathBuf,
    runs: Vec<PathBuf>,
    /// Everything that must outlive the parent's removal, with or without its runs.
    others: Vec<PathBuf>,
}

fn store(root: &Path) -> Store {
    let dir = root.join("sessions").join(PROJECT);
    let parent = dir.join(format!("2026-07-01T10-00-00-000Z_{PARENT}.jsonl"));
    session(&parent, PARENT, None);
    let stem = parent.with_extension("");
    let runs = vec![
        stem.join("0a1b2c3d/run-0/session.jsonl"),
        stem.join("0a1b2c3d/run-1/session.jsonl"),
        stem.join("forks/2026-07-01T10-05-00-000Z_cccc0003.jsonl"),
    ];
    session(&runs[0], "cccc0001", None);
    session(&runs[1], "cccc0002", None);
    session(&runs[2], "cccc0003", Some(&parent));
    let notes = stem.join("0a1b2c3d/notes.txt");
    fs::write(&notes, "not a session").unwrap();
    let artifact = stem.join("subagent-artifacts/0a1b2c3d_worker.jsonl");
    fs::create_dir_all(artifact.parent().unwrap()).unwrap();
    fs::write(&artifact, "{\"event\":\"x\"}\n").unwrap();
    let fork = dir.join("2026-07-01T11-00-00-000Z_dddd0001.jsonl");
    session(&fork, "dddd0001", Some(&parent));
    let other = dir.join("2026-07-01T12-00-00-000Z_eeee0001.jsonl");
    session(&other, "eeee0001", None);
    // A run folder that is a link out of the store: never followed, never removed through.
    let outside = root.join("outside/ffff/run-0/session.jsonl");
    session(&outside, "ffff0001", None);
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("outside/ffff"), stem.join("ffff")).unwrap();
    Store {
        parent,
        runs,
        others: vec![notes, artifact, fork, other, outside],
    }
}

#[test]
fn rm_of_a_parent_keeps_its_runs_and_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    let p = s.parent.display().to_string();
    let r = run_in(tmp.path(), &["rm", &p, "--yes", "--permanent"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("keeps its 3 subagent runs in"),
        "{}",
        r.stdout
    );
    assert!(!s.parent.exists());
    for f in s.runs.iter().chain(&s.others) {
        assert!(f.exists(), "{} was removed", f.display());
    }
}

#[test]
fn rm_with_subagents_removes_the_family_and_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    let p = s.parent.display().to_string();
    let plan = run_in(
        tmp.path(),
        &["rm", &p, "--with-subagents", "--dry-run", "--json"],
    );
    assert_eq!(plan.code, 0, "{}\n{}", plan.stdout, plan.stderr);
    let events: Vec<Value> = plan
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let planned: Vec<&Value> = events.iter().filter(|e| e["event"] == "planned").collect();
    assert_eq!(planned.len(), 4, "{}", plan.stdout);
    // The runs first, each naming its session; the session last, counting them.
    for e in &planned[..3] {
        assert_eq!(e["subagentOf"], PARENT);
    }
    assert_eq!(planned[3]["id"], PARENT);
    assert_eq!(planned[3]["subagentRuns"], 3);
    assert_eq!(planned[3]["withSubagents"], true);
    assert!(
        cfg!(not(unix)) || plan.stderr.contains("not followed"),
        "{}",
        plan.stderr
    );

    let r = run_in(
        tmp.path(),
        &["rm", &p, "--with-subagents", "--yes", "--permanent"],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(!s.parent.exists());
    for f in &s.runs {
        assert!(!f.exists(), "{} was kept", f.display());
    }
    for f in &s.others {
        assert!(f.exists(), "{} was removed", f.display());
    }
}

#[test]
fn rm_of_a_run_named_alone_removes_only_it() {
    let tmp = tempfile::tempdir().unwrap();
    let s = store(tmp.path());
    let run = s.runs[0].display().to_string();
    let r = run_in(
        tmp.path(),
        &["rm", &run, "--yes", "--permanent", "--with-subagents"],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(!s.runs[0].exists());
    assert!(s.parent.exists() && s.runs[1].exists() && s.runs[2].exists());
    for f in &s.others {
        assert!(f.exists(), "{} was removed", f.display());
    }
}
