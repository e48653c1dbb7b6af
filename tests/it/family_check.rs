//! `check SESSION` judges the run with its subagent runs (issue 44): the family's cost, tokens
//! and turns (each token once), each run's secrets and tool errors, the failing run named;
//! `--file-only` judges the file alone; `--json` keeps the file's figures and adds `family`.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{env_in, run_with, Run};
use crate::family_stats::write;
use crate::secrets_corpus::{github_style, Rng};

const PROJECT: &str = "--home-dev-webshop--";
const PARENT: &str = "aaaa0001-0000-7000-8000-000000000001";
const CHILD: &str = "cccc0003-0000-7000-8000-000000000003";

fn run_in(root: &Path, args: &[&str]) -> Run {
    run_with(env_in(root, "/home/dev/webshop"), args, b"")
}

fn assistant(id: &str, parent: &str, cents: u32) -> Value {
    json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": "2026-07-01T10:00:02.000Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
            "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": {"input": cents * 100, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                "totalTokens": cents * 100,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                    "total": f64::from(cents) / 100.0}},
            "stopReason": "stop", "timestamp": 1_782_900_002_000u64}})
}

/// A parent costing 1 cent; its run costing 8 cents, with a failed tool call and, when asked,
/// a token in its task.
fn store(root: &Path, secret: Option<&str>) -> (PathBuf, PathBuf) {
    let dir = root.join("sessions").join(PROJECT);
    let stem = format!("2026-07-01T10-00-00-000Z_{PARENT}");
    let parent = dir.join(format!("{stem}.jsonl"));
    let run = dir.join(&stem).join("0a1b2c3d/run-0/session.jsonl");
    let user = |text: &str| {
        json!({"type": "message", "id": "u1", "parentId": null,
            "timestamp": "2026-07-01T10:00:01.000Z",
            "message": {"role": "user", "content": text, "timestamp": 1_782_900_001_000u64}})
    };
    write(
        &parent,
        PARENT,
        &[user("delegate"), assistant("a1", "u1", 1)],
    );
    let task = match secret {
        Some(s) => format!("deploy with GITHUB_TOKEN={s}"),
        None => "deploy".to_owned(),
    };
    let failed = json!({"type": "message", "id": "t1", "parentId": "b1",
        "timestamp": "2026-07-01T10:00:03.000Z",
        "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
            "content": [{"type": "text", "text": "exit 1"}], "isError": true,
            "timestamp": 1_782_900_003_000u64}});
    write(
        &run,
        CHILD,
        &[user(&task), assistant("b1", "u1", 8), failed],
    );
    (parent, run)
}

#[test]
fn check_session_judges_the_family_cost_and_names_the_failing_run() {
    let tmp = tempfile::tempdir().unwrap();
    let token = github_style(&mut Rng(46), "ghp_", true);
    let (parent, run) = store(tmp.path(), Some(&token));
    let p = parent.display().to_string();

    // The file alone is within 5 cents; its family (9 cents) is not.
    let alone = run_in(
        tmp.path(),
        &["check", &p, "--max-cost", "0.05", "--file-only"],
    );
    assert_eq!(alone.code, 0, "{}\n{}", alone.stdout, alone.stderr);
    assert!(!alone.stdout.contains("family"));
    let family = run_in(tmp.path(), &["check", &p, "--max-cost", "0.05"]);
    assert_eq!(family.code, 1, "{}\n{}", family.stdout, family.stderr);
    assert!(
        family.stdout.contains("FAIL max-cost: $0.09 > $0.05"),
        "{}",
        family.stdout
    );
    assert!(
        family.stdout.contains("with 1 subagent run"),
        "{}",
        family.stdout
    );
    let within = run_in(
        tmp.path(),
        &["check", &p, "--max-cost", "0.10", "--max-turns", "2"],
    );
    assert_eq!(within.code, 0, "{}\n{}", within.stdout, within.stderr);

    // The run's secret and its tool error fail the family, and the run is named.
    let r = run_in(
        tmp.path(),
        &["check", &p, "--no-secrets", "--no-tool-errors"],
    );
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains(&token) && !r.stderr.contains(&token));
    assert!(
        r.stdout
            .contains("run cccc0003 failed: no-tool-errors, no-secrets"),
        "{}",
        r.stdout
    );
    let alone = run_in(
        tmp.path(),
        &[
            "check",
            &p,
            "--no-secrets",
            "--no-tool-errors",
            "--file-only",
        ],
    );
    assert_eq!(alone.code, 0, "{}\n{}", alone.stdout, alone.stderr);

    // --json: the file's row as before, with `family` beside; then the run's row.
    let j = run_in(
        tmp.path(),
        &["check", &p, "--max-cost", "0.05", "--no-secrets", "--json"],
    );
    assert_eq!(j.code, 1, "{}", j.stderr);
    let rows: Vec<Value> = j
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "{}", j.stdout);
    assert_eq!(rows[0]["status"], "passed");
    assert!((rows[0]["figures"]["cost"].as_f64().unwrap() - 0.01).abs() < 1e-9);
    let f = &rows[0]["family"];
    assert_eq!(f["status"], "failed");
    assert_eq!(f["subagentRuns"], 1);
    assert!(
        (f["figures"]["cost"].as_f64().unwrap() - 0.09).abs() < 1e-9,
        "{f}"
    );
    assert_eq!(f["assertions"][0]["name"], "max-cost");
    assert_eq!(f["assertions"][0]["status"], "fail");
    assert_eq!(f["assertions"][1]["name"], "no-secrets");
    assert_eq!(f["failedRuns"][0]["sessionId"], CHILD);
    assert_eq!(f["failedRuns"][0]["path"], run.display().to_string());
    assert_eq!(f["failedRuns"][0]["assertions"], json!(["no-secrets"]));
    assert_eq!(rows[1]["subagentOf"]["session"], PARENT);
    assert!(rows[1]["figures"].is_object());
    assert!(!j.stdout.contains(&token));
}

#[test]
fn a_session_without_runs_or_only_integrity_is_checked_as_before() {
    let tmp = tempfile::tempdir().unwrap();
    let (parent, _) = store(tmp.path(), None);
    let p = parent.display().to_string();
    // Integrity alone is the file's own: no runs checked, no family.
    let r = run_in(tmp.path(), &["check", &p, "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1);
    assert!(!r.stdout.contains("\"family\""));
    // The run itself named: it has no runs, nothing more.
    let run = tmp.path().join("sessions").join(PROJECT).join(format!(
        "2026-07-01T10-00-00-000Z_{PARENT}/0a1b2c3d/run-0/session.jsonl"
    ));
    let r = run_in(
        tmp.path(),
        &[
            "check",
            &run.display().to_string(),
            "--max-cost",
            "1",
            "--json",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1);
}

#[cfg(unix)]
#[test]
fn a_symlinked_run_folder_is_said_and_not_judged() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    let dir = root.join("sessions").join(PROJECT);
    let parent = dir.join(format!("2026-07-01T10-00-00-000Z_{PARENT}.jsonl"));
    write(&parent, PARENT, &[assistant("a1", "u1", 1)]);
    let outside = root.join("outside/0a1b2c3d/run-0/session.jsonl");
    write(&outside, CHILD, &[assistant("b1", "u1", 80)]);
    let stem = parent.with_extension("");
    fs::create_dir_all(&stem).unwrap();
    std::os::unix::fs::symlink(root.join("outside/0a1b2c3d"), stem.join("0a1b2c3d")).unwrap();
    let r = run_in(
        root,
        &["check", &parent.display().to_string(), "--max-cost", "0.05"],
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("not followed"), "{}", r.stderr);
}

/// The reports for CI (issue 44): a family that failed on its total alone (the parent and the
/// run each within the limit) fails the Markdown summary and the JUnit report too, not only the
/// exit code; the run's section and suite name its parent.
#[test]
fn check_reports_carry_the_family_verdict_and_name_a_runs_parent() {
    let tmp = tempfile::tempdir().unwrap();
    let (parent, _) = store(tmp.path(), None);
    let p = parent.display().to_string();
    // 1 cent and 8 cents: each within 8.5, together 9.
    let md = run_in(
        tmp.path(),
        &["check", &p, "--max-cost", "0.085", "--summary", "-"],
    );
    assert_eq!(md.code, 1, "{}\n{}", md.stdout, md.stderr);
    assert!(
        md.stdout.starts_with("## ❌ pisess check: failed"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout
            .contains("**Family** (with 1 subagent run): **failed**"),
        "{}",
        md.stdout
    );
    assert!(md.stdout.contains("| ❌ | max-cost |"), "{}", md.stdout);
    assert!(
        md.stdout
            .contains("1 family of a session with its subagent runs not passed"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout.contains("*subagent run of aaaa0001*"),
        "{}",
        md.stdout
    );
    crate::snap!(
        "check_summary_family",
        md.stdout.replace(&*tmp.path().to_string_lossy(), "TMP")
    );

    let junit = run_in(
        tmp.path(),
        &["check", &p, "--max-cost", "0.085", "--junit", "-"],
    );
    assert_eq!(junit.code, 1, "{}\n{}", junit.stdout, junit.stderr);
    let x = &junit.stdout;
    assert!(
        x.contains(&format!(
            r#"<testsuite name="{PARENT} (family)" tests="1" failures="1""#
        )),
        "{x}"
    );
    assert!(
        x.contains(r#"<property name="subagentOf" value="subagent run of aaaa0001"/>"#),
        "{x}"
    );
    // The totals count the family's case.
    assert!(
        x.contains(r#"<testsuites name="pisess check" tests="2" failures="1" errors="0">"#),
        "{x}"
    );

    // Within the family's limit too: both reports pass.
    let md = run_in(
        tmp.path(),
        &["check", &p, "--max-cost", "0.10", "--summary", "-"],
    );
    assert_eq!(md.code, 0, "{}", md.stdout);
    assert!(
        md.stdout
            .contains("**Family** (with 1 subagent run): **passed**"),
        "{}",
        md.stdout
    );
}
