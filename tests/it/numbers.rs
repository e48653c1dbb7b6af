//! Numbers as pi's JavaScript has them (issue 31): a usage number beyond f64 counted as
//! `JSON.parse` reads it (`Infinity`) and flagged, cost gates compared at the precision they
//! are shown in, and computed numbers written as `JSON.stringify` writes them.

use std::fs;
use std::path::Path;

use crate::common::{env_in, run_with, Run};

const HEADER: &str = r#"{"type":"session","version":3,"id":"0196aaaa-0000-7000-8000-0000000000aa","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

/// A session of one user message and an assistant message per usage (stored text).
fn session(usages: &[&str]) -> String {
    let mut lines = vec![
        HEADER.to_owned(),
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:01:00.000Z","message":{"role":"user","content":"hi","timestamp":1767225660000}}"#.to_owned(),
    ];
    let mut parent = "u1".to_owned();
    for (i, usage) in usages.iter().enumerate() {
        let id = format!("a{i}");
        lines.push(format!(
            r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:02:00.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"x"}}],"provider":"p","model":"m","usage":{usage},"stopReason":"stop","timestamp":1767225720000}}}}"#
        ));
        parent = id;
    }
    lines.join("\n") + "\n"
}

fn check(text: &str, flags: &[&str]) -> Run {
    let tmp = tempfile::tempdir().unwrap();
    let mut args = vec!["check", "-"];
    args.extend_from_slice(flags);
    run_with(env_in(tmp.path(), "/p"), &args, text.as_bytes())
}

/// A session written as pi's agent dir under `root`, for the commands that list.
fn agent_dir(root: &Path, text: &str) {
    let dir = root.join("sessions/--p--");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("2026-01-01T00-00-00-000Z_a.jsonl"), text).unwrap();
}

#[test]
fn ten_and_twenty_cents_are_within_thirty() {
    let text = session(&[
        r#"{"input":1,"output":1,"cost":{"total":0.1}}"#,
        r#"{"input":1,"output":1,"cost":{"total":0.2}}"#,
    ]);
    let r = check(&text, &["--max-cost", "0.3"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("ok   max-cost: $0.30 <= $0.30"), "{r:?}");
    // A nano-dollar over is over, and says by how much it differs.
    let text = session(&[r#"{"cost":{"total":0.300000001}}"#]);
    let r = check(&text, &["--max-cost", "0.3"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stdout.contains("FAIL max-cost: $0.300000001 > $0.30"),
        "{r:?}"
    );
}

#[test]
fn a_usage_beyond_range_is_counted_and_a_gate_on_it_cannot_pass() {
    let text = session(&[
        r#"{"input":1,"output":1,"cost":{"total":0.1}}"#,
        r#"{"input":1,"output":1,"cost":{"total":-1e999}}"#,
    ]);
    // -Infinity would pass any limit: a gate that cannot be sure is not checked (exit 2).
    let r = check(&text, &["--max-cost", "1"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr
            .contains("cannot decide max-cost: the cost is -Infinity"),
        "{r:?}"
    );
    assert!(r.stderr.contains("beyond JavaScript's range"), "{r:?}");
    let text = session(&[r#"{"input":1,"output":1e999,"cost":{"total":0.5}}"#]);
    let r = check(&text, &["--max-tokens", "1000"]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr
            .contains("cannot decide max-tokens: the token count is Infinity"),
        "{r:?}"
    );
    // The usage is not dropped: its cost counts (it failed to count before).
    let r = check(&text, &["--max-cost", "0.4"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(r.stdout.contains("FAIL max-cost: $0.50 > $0.40"), "{r:?}");
    assert!(r.stderr.contains("warning:"), "{r:?}");

    // stats and ls count it too, and write Infinity as JSON.stringify does: null.
    let tmp = tempfile::tempdir().unwrap();
    agent_dir(tmp.path(), &text);
    let r = run_with(env_in(tmp.path(), "/p"), &["stats", "--json"], b"");
    assert_eq!(r.code, 0, "{r:?}");
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["cost"], 0.5);
    assert_eq!(v["tokens"]["output"], serde_json::Value::Null);
    assert_eq!(v["tokens"]["input"], 1);
    assert_eq!(
        r.stderr.matches("beyond JavaScript's range").count(),
        1,
        "{r:?}"
    );
    let r = run_with(env_in(tmp.path(), "/p"), &["stats"], b"");
    assert!(r.stdout.contains("Infinity"), "{r:?}");
}

#[test]
fn computed_numbers_are_written_as_json_stringify_writes_them() {
    let text = session(&[
        r#"{"input":10000000000000000,"output":0,"cost":{"total":0.000001}}"#,
        r#"{"input":0,"output":0,"cost":{"total":0.000004}}"#,
        r#"{"input":0,"output":0,"cost":{"total":0.000002}}"#,
    ]);
    let tmp = tempfile::tempdir().unwrap();
    agent_dir(tmp.path(), &text);
    let ls = run_with(env_in(tmp.path(), "/p"), &["ls", "--json"], b"");
    let stats = run_with(env_in(tmp.path(), "/p"), &["stats", "--json"], b"");
    for r in [&ls, &stats] {
        assert!(r.stdout.contains(r#""input":10000000000000000,"#), "{r:?}");
        assert!(
            !r.stdout.contains("e-6") && !r.stdout.contains("e16"),
            "{r:?}"
        );
    }
    // The sum as pi's doubles add it, in file order, written by JSON.stringify.
    let cost = |r: &Run, key: &str| {
        let at = r.stdout.find(key).unwrap() + key.len();
        r.stdout[at..].split([',', '}']).next().unwrap().to_owned()
    };
    let ours = [cost(&ls, r#""cost":"#), cost(&stats, r#""cost":"#)];
    assert_eq!(ours[0], ours[1]);
    assert!(ours[0].starts_with("0.00000"), "{ours:?}");
    let Ok(out) = std::process::Command::new("node")
        .args([
            "-e",
            "process.stdout.write(JSON.stringify(0 + 0.000001 + 0.000004 + 0.000002))",
        ])
        .output()
    else {
        eprintln!("node not found: the fixed expectations are checked alone");
        return;
    };
    assert_eq!(String::from_utf8(out.stdout).unwrap(), ours[0]);
}
