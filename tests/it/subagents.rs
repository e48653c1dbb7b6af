//! Subagent runs (issue 44) in the `--all` scans: `grep --all`, `grep --secrets --all` and
//! `check --all` read each run found under a session (`<stem>/<runId>/run-<n>/session.jsonl`)
//! as a unit of its own, reported under its parent; nothing through a symlinked folder, and
//! 10,000 runs in bounded time.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{env_in, run_with, Run};
use crate::secrets_corpus::{github_style, Rng};
use crate::snap;

const PROJECT: &str = "--home-dev-webshop--";
const PARENT: &str = "aaaa0001-0000-7000-8000-000000000001";
const CHILD: &str = "cccc0003-0000-7000-8000-000000000003";
const RUN_ID: &str = "0a1b2c3d";

fn run_in(root: &Path, args: &[&str]) -> Run {
    run_with(env_in(root, "/home/dev/webshop"), args, b"")
}

/// A session file of `id` with one user message saying `text`.
fn session(path: &Path, id: &str, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let header = json!({"type": "session", "version": 3, "id": id,
        "timestamp": "2026-07-01T10:00:00.000Z", "cwd": "/home/dev/webshop"});
    let user = json!({"type": "message", "id": "u1", "parentId": null,
        "timestamp": "2026-07-01T10:00:01.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1_782_900_001_000u64}});
    fs::write(path, format!("{header}\n{user}\n")).unwrap();
}

/// The store: one parent session (clean) and one pi-subagents run under it, saying `child`.
fn store(root: &Path, child: &str) -> (PathBuf, PathBuf) {
    let dir = root.join("sessions").join(PROJECT);
    let parent = dir.join(format!("2026-07-01T10-00-00-000Z_{PARENT}.jsonl"));
    session(&parent, PARENT, "delegate the deploy to a subagent");
    let run = dir
        .join(format!("2026-07-01T10-00-00-000Z_{PARENT}"))
        .join(RUN_ID)
        .join("run-0")
        .join("session.jsonl");
    session(&run, CHILD, child);
    (parent, run)
}

fn json_lines(r: &Run) -> Vec<Value> {
    r.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What a test prints with the temporary folder named `<tmp>`.
fn shown(r: &Run, root: &Path) -> String {
    r.stdout.replace(&root.display().to_string(), "<tmp>")
}

fn assert_silent(r: &Run, secret: &str) {
    assert!(
        !r.stdout.contains(secret) && !r.stderr.contains(secret),
        "a secret printed in clear:\n{}\n{}",
        r.stdout,
        r.stderr
    );
}

#[test]
fn grep_secrets_all_finds_a_token_only_a_subagent_run_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let token = github_style(&mut Rng(44), "ghp_", true);
    let (_, run) = store(tmp.path(), &format!("deploy with GITHUB_TOKEN={token}"));

    let found = run_in(tmp.path(), &["grep", "--secrets", "--all"]);
    assert_eq!(found.code, 0, "{}", found.stderr);
    assert_silent(&found, &token);
    snap!("subagents_grep_secrets_all", shown(&found, tmp.path()));

    let json = run_in(tmp.path(), &["grep", "--secrets", "--all", "--json"]);
    assert_silent(&json, &token);
    let rows = json_lines(&json);
    assert_eq!(rows.len(), 1, "{}", json.stdout);
    assert_eq!(rows[0]["session"], CHILD);
    assert_eq!(rows[0]["path"], run.display().to_string());
    assert_eq!(rows[0]["subagentOf"]["session"], PARENT);
    assert_eq!(rows[0]["subagentOf"]["made"], "subagent");

    // -l names the run's own file.
    let files = run_in(tmp.path(), &["grep", "--secrets", "--all", "-l"]);
    assert_eq!(files.stdout, format!("{}\n", run.display()));
}

#[test]
fn check_all_no_secrets_fails_on_a_subagent_runs_token() {
    let tmp = tempfile::tempdir().unwrap();
    let token = github_style(&mut Rng(45), "ghp_", true);
    store(tmp.path(), &format!("deploy with GITHUB_TOKEN={token}"));

    let checked = run_in(tmp.path(), &["check", "--all", "--no-secrets"]);
    assert_eq!(checked.code, 1, "{}\n{}", checked.stdout, checked.stderr);
    assert_silent(&checked, &token);
    snap!(
        "subagents_check_all_no_secrets",
        shown(&checked, tmp.path())
    );

    let json = run_in(tmp.path(), &["check", "--all", "--no-secrets", "--json"]);
    assert_silent(&json, &token);
    let rows = json_lines(&json);
    assert_eq!(rows.len(), 2, "{}", json.stdout);
    assert_eq!(rows[0]["status"], "passed");
    assert!(rows[0].get("subagentOf").is_none());
    assert_eq!(rows[1]["session"], CHILD);
    assert_eq!(rows[1]["status"], "failed");
    assert_eq!(rows[1]["subagentOf"]["session"], PARENT);
    assert_eq!(rows[1]["subagentOf"]["sessionId"], PARENT);
    assert_eq!(rows[1]["subagentOf"]["made"], "subagent");

    // The other assertions judge each run too.
    let turns = run_in(
        tmp.path(),
        &["check", "--all", "--max-turns", "0", "--json"],
    );
    assert_eq!(json_lines(&turns).len(), 2, "{}", turns.stdout);
}

#[test]
fn grep_all_reports_a_run_under_its_parent() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path(), "the subagent ran the migrations");

    let found = run_in(tmp.path(), &["grep", "--all", "migrations"]);
    assert_eq!(found.code, 0, "{}", found.stderr);
    snap!("subagents_grep_all", shown(&found, tmp.path()));

    let json = run_in(tmp.path(), &["grep", "--all", "--json", "migrations"]);
    let rows = json_lines(&json);
    assert_eq!(rows.len(), 1, "{}", json.stdout);
    assert_eq!(rows[0]["sessionId"], CHILD);
    assert_eq!(rows[0]["subagentOf"]["session"], PARENT);
    // The one vocabulary's name beside the old one (docs/json.md).
    assert_eq!(rows[0]["subagentOf"]["sessionId"], PARENT);

    // A run is read with its parent's project: --project keeps it, another project drops it.
    let other = run_in(
        tmp.path(),
        &["grep", "--project", "/elsewhere", "migrations"],
    );
    assert_eq!(other.code, 1, "{}{}", other.stdout, other.stderr);
}

#[cfg(unix)]
#[test]
fn a_symlinked_run_folder_out_of_the_store_is_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let token = github_style(&mut Rng(46), "ghp_", true);
    let (parent, _) = store(tmp.path(), "nothing to see");
    // A run folder that leads out of the store, holding a token.
    let away = outside.path().join("run-0").join("session.jsonl");
    session(&away, CHILD, &format!("GITHUB_TOKEN={token}"));
    let stem = parent.with_extension("");
    std::os::unix::fs::symlink(outside.path(), stem.join("0f0f0f0f")).unwrap();

    let found = run_in(tmp.path(), &["grep", "--secrets", "--all"]);
    assert_eq!(found.code, 1, "{}\n{}", found.stdout, found.stderr);
    assert!(
        found
            .stderr
            .contains("a symbolic link to a folder: not followed"),
        "{}",
        found.stderr
    );
    let checked = run_in(tmp.path(), &["check", "--all", "--no-secrets", "--json"]);
    assert_eq!(checked.code, 0, "{}\n{}", checked.stdout, checked.stderr);
    assert_eq!(json_lines(&checked).len(), 2);
}

#[test]
fn ten_thousand_runs_are_each_read_in_bounded_time() {
    let tmp = tempfile::tempdir().unwrap();
    let (parent, _) = store(tmp.path(), "fan out");
    let stem = parent.with_extension("");
    let header = |i: u32| {
        format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"dddd{i:04x}-0000-7000-8000-000000000000\",\"timestamp\":\"2026-07-01T10:00:00.000Z\",\"cwd\":\"/home/dev/webshop\"}}\n"
        )
    };
    for i in 0..10_000u32 {
        let run = stem.join(format!("{i:08x}")).join("run-0");
        fs::create_dir_all(&run).unwrap();
        fs::write(run.join("session.jsonl"), header(i)).unwrap();
    }
    let started = std::time::Instant::now();
    let found = run_in(tmp.path(), &["grep", "--secrets", "--all", "-c"]);
    assert_eq!(found.code, 1, "{}", found.stderr);
    let checked = run_in(tmp.path(), &["check", "--all", "--json"]);
    assert_eq!(json_lines(&checked).len(), 10_002, "{}", checked.stderr);
    let listed = run_in(tmp.path(), &["ls", "--all", "--json"]);
    let rows = json_lines(&listed);
    assert_eq!(rows.len(), 1, "a run is no row");
    assert_eq!(rows[0]["subagentRuns"], 10_001);
    let elapsed = started.elapsed();
    assert!(elapsed.as_secs() < 120, "took {elapsed:?}");
}

#[test]
fn ls_counts_runs_and_lists_pis_rows_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let (parent, _) = store(tmp.path(), "a run");
    // A second run of the same call, a fork child, and a session without runs.
    let stem = parent.with_extension("");
    session(
        &stem.join(RUN_ID).join("run-1").join("session.jsonl"),
        "cccc0004-0000-7000-8000-000000000004",
        "another run",
    );
    session(
        &stem
            .join("forks")
            .join("2026-07-01T10-05-00-000Z_cccc0005.jsonl"),
        "cccc0005-0000-7000-8000-000000000005",
        "a fork",
    );
    // Foreign files and folders are no runs.
    fs::create_dir_all(stem.join("subagent-artifacts")).unwrap();
    fs::write(
        stem.join("subagent-artifacts").join("x_transcript.jsonl"),
        "{}\n",
    )
    .unwrap();
    let dir = parent.parent().unwrap();
    session(
        &dir.join("2026-06-01T10-00-00-000Z_bbbb0002-0000-7000-8000-000000000002.jsonl"),
        "bbbb0002-0000-7000-8000-000000000002",
        "no runs here",
    );
    // Older than the parent: the rows' order is fixed.
    let older = dir.join("2026-06-01T10-00-00-000Z_bbbb0002-0000-7000-8000-000000000002.jsonl");
    let text = fs::read_to_string(&older).unwrap();
    let text = (text.replace("2026-07-01T10:00:0", "2026-06-01T10:00:0"))
        .replace("1782900001000", "1780308001000");
    fs::write(&older, text).unwrap();

    let json = run_in(tmp.path(), &["ls", "--all", "--json"]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    let rows = json_lines(&json);
    let mut runs: Vec<(&str, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap(),
                r["subagentRuns"].as_u64().unwrap(),
            )
        })
        .collect();
    runs.sort_unstable();
    assert_eq!(
        runs,
        [
            ("aaaa0001-0000-7000-8000-000000000001", 3),
            ("bbbb0002-0000-7000-8000-000000000002", 0)
        ]
    );
    // From another project: no row is marked as the one `pi -c` would continue.
    let human = run_with(env_in(tmp.path(), "/elsewhere"), &["ls", "--all"], b"");
    snap!("subagents_ls_all", shown(&human, tmp.path()));

    // No row has runs: no column.
    fs::remove_dir_all(&stem).unwrap();
    let plain = run_in(tmp.path(), &["ls", "--all"]);
    assert!(
        plain.stdout.contains("aaaa0001  2026-07-01"),
        "{}",
        plain.stdout
    );
}

#[cfg(unix)]
#[test]
fn ls_does_not_follow_a_symlinked_stem_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions").join(PROJECT);
    let parent = dir.join(format!("2026-07-01T10-00-00-000Z_{PARENT}.jsonl"));
    session(&parent, PARENT, "linked");
    session(
        &outside
            .path()
            .join(RUN_ID)
            .join("run-0")
            .join("session.jsonl"),
        CHILD,
        "away",
    );
    std::os::unix::fs::symlink(outside.path(), parent.with_extension("")).unwrap();
    let json = run_in(tmp.path(), &["ls", "--all", "--json"]);
    assert_eq!(json_lines(&json)[0]["subagentRuns"], 0);
    let found = run_in(tmp.path(), &["grep", "--all", "away"]);
    assert_eq!(found.code, 1, "{}", found.stdout);
    // The listing met no real folder there: nothing is looked under, nothing said.
    assert_eq!(found.stdout, "");
}
