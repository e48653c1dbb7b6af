//! Forks and clones counted once (issue 44): an entry of a session whose id and content (but
//! `parentId`) match an entry of a file up its `parentSession` chain is that file's, in every
//! report over several files, and in `stats SESSION --forks`. Bad chains (a cycle, a source
//! gone, a file outside the store, a stranger with the same ids, 10,000 forks) give a warning
//! at most, never a hang or a double count. tests/differential/families.mjs checks the sums
//! against pi's own SessionManager and getSessionStats.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{env_in, run_with, Run};

const PROJECT: &str = "--home-dev-webshop--";

fn run_in(root: &Path, args: &[&str]) -> Run {
    let r = run_with(env_in(root, "/home/dev/webshop"), args, b"");
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    r
}

fn user(id: &str, parent: Option<&str>, second: u32) -> Value {
    json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": format!("2026-07-01T10:00:{second:02}.000Z"),
        "message": {"role": "user", "content": "go", "timestamp": 1_782_900_000_000u64 + u64::from(second) * 1000}})
}

/// An assistant turn costing `cents` cents and `cents * 100` input tokens.
pub(crate) fn assistant(id: &str, parent: &str, second: u32, cents: u32) -> Value {
    json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": format!("2026-07-01T10:00:{second:02}.000Z"),
        "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
            "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": {"input": cents * 100, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                "totalTokens": cents * 100,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                    "total": f64::from(cents) / 100.0}},
            "stopReason": "stop", "timestamp": 1_782_900_000_000u64 + u64::from(second) * 1000}})
}

pub(crate) fn write(path: &Path, id: &str, parent_session: Option<&Path>, entries: &[Value]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut header = json!({"type": "session", "version": 3, "id": id,
        "timestamp": "2026-07-01T10:00:00.000Z", "cwd": "/home/dev/webshop"});
    if let Some(p) = parent_session {
        header["parentSession"] = json!(p.display().to_string());
    }
    let lines: Vec<String> = std::iter::once(&header)
        .chain(entries)
        .map(Value::to_string)
        .collect();
    fs::write(path, lines.join("\n") + "\n").unwrap();
}

pub(crate) fn session(root: &Path, n: u32) -> PathBuf {
    root.join("sessions").join(PROJECT).join(format!(
        "2026-07-01T10-00-{:02}-000Z_aaaa{n:04}-0000-7000-8000-000000000000.jsonl",
        n % 60
    ))
}

/// The source's turns: u1, a1 (1 cent), u2, a2 (2 cents).
pub(crate) fn source_entries() -> Vec<Value> {
    vec![
        user("u1", None, 1),
        assistant("a1", "u1", 2, 1),
        user("u2", Some("a1"), 3),
        assistant("a2", "u2", 4, 2),
    ]
}

/// The source's entries, re-chained (as `createBranchedSession` re-chains around a label),
/// then turns of its own.
pub(crate) fn copy_with(own: &[Value]) -> Vec<Value> {
    let mut entries = source_entries();
    entries[2]["parentId"] = json!("u1");
    entries.extend(own.iter().cloned());
    entries
}

fn total(root: &Path, args: &[&str]) -> (f64, f64) {
    let r = run_in(root, args);
    let rows: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let t = rows
        .iter()
        .find(|r| r["total"] == true)
        .expect("a total row");
    (
        t["cost"].as_f64().unwrap(),
        t["tokens"]["total"].as_f64().unwrap(),
    )
}

fn close(got: (f64, f64), cents: u32) {
    assert!(
        (got.0 - f64::from(cents) / 100.0).abs() < 1e-9 && got.1 == f64::from(cents * 100),
        "got {got:?}, want {cents} cents"
    );
}

#[test]
fn a_fork_counts_only_its_own_entries_in_every_report() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, b, c) = (session(root, 1), session(root, 2), session(root, 3));
    write(&a, "a", None, &source_entries());
    write(
        &b,
        "b",
        Some(&a),
        &copy_with(&[assistant("b1", "a2", 5, 4)]),
    );
    // A fork of the fork: its chain is b, then a.
    let mut own = copy_with(&[assistant("b1", "a2", 5, 4)]);
    own.push(assistant("c1", "b1", 6, 8));
    write(&c, "c", Some(&b), &own);
    for by in ["day", "model", "session", "week"] {
        close(
            total(root, &["stats", "--all", "--by", by, "--json"]),
            3 + 4 + 8,
        );
    }
    close(total(root, &["stats", "--by", "day", "--json"]), 15);
    // Named files: each entry once among them; the fork alone keeps all it holds.
    let (bs, cs) = (b.display().to_string(), c.display().to_string());
    close(
        total(root, &["stats", "--by", "day", "--json", &bs, &cs]),
        3 + 4 + 8,
    );
    close(total(root, &["stats", "--by", "day", "--json", &bs]), 3 + 4);
    // `--by message` lists each entry once.
    let r = run_in(root, &["stats", "--all", "--by", "message", "--json"]);
    let mut ids: Vec<String> = (r.stdout.lines())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["total"] != true)
        .map(|r| format!("{}:{}", r["session"], r["entryId"]))
        .collect();
    ids.sort();
    let want = [
        "\"a\":\"a1\"",
        "\"a\":\"a2\"",
        "\"a\":\"u1\"",
        "\"a\":\"u2\"",
        "\"b\":\"b1\"",
        "\"c\":\"c1\"",
    ];
    assert_eq!(ids, want, "{}", r.stdout);
    // A session's own figures stay pi's; its family with --forks counts each entry once.
    let one: Value = serde_json::from_str(&run_in(root, &["stats", "--json", &cs]).stdout).unwrap();
    assert!((one["cost"].as_f64().unwrap() - 0.15).abs() < 1e-9);
    assert!(one.get("family").is_none());
    let a_s = a.display().to_string();
    let one: Value =
        serde_json::from_str(&run_in(root, &["stats", "--json", "--forks", &a_s]).stdout).unwrap();
    assert!((one["cost"].as_f64().unwrap() - 0.03).abs() < 1e-9);
    let family = &one["family"];
    assert_eq!(
        (family["forks"].as_u64(), family["sessions"].as_u64()),
        (Some(2), Some(3))
    );
    assert!(
        (family["cost"].as_f64().unwrap() - 0.15).abs() < 1e-9,
        "{family}"
    );
    let human = run_in(root, &["stats", "--forks", &a_s]).stdout;
    assert!(
        human.contains("with 0 subagent runs and 2 forks, each token once"),
        "{human}"
    );
    // Without --forks, a session without runs has no family line.
    let r = run_in(root, &["stats", "--json", &a_s]);
    assert!(serde_json::from_str::<Value>(&r.stdout)
        .unwrap()
        .get("family")
        .is_none());
    assert_eq!(r.stderr, "");
}

#[test]
fn content_that_differs_or_a_stranger_off_the_chain_is_not_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, b, d) = (session(root, 1), session(root, 2), session(root, 4));
    write(&a, "a", None, &source_entries());
    // Same ids, but a2 changed (a cost of its own): not a copy, counted.
    let mut entries = copy_with(&[]);
    entries[3] = assistant("a2", "u2", 4, 16);
    write(&b, "b", Some(&a), &entries);
    // A stranger with the very same entries, not on any chain: counted, as pi counts it.
    write(&d, "d", None, &source_entries());
    close(
        total(root, &["stats", "--all", "--by", "day", "--json"]),
        3 + 16 + 3,
    );
}

#[test]
fn a_source_gone_or_outside_the_store_leaves_the_copies_counted_in_the_fork() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let b = session(root, 2);
    // Gone: never written.
    write(
        &b,
        "b",
        Some(&session(root, 1)),
        &copy_with(&[assistant("b1", "a2", 5, 4)]),
    );
    let (cost, tokens) = total(root, &["stats", "--all", "--by", "day", "--json"]);
    close((cost, tokens), 3 + 4);
    // Elsewhere, outside the store: the report does not count it, so the fork does.
    let outside = root.join("elsewhere/a.jsonl");
    write(&outside, "a", None, &source_entries());
    write(
        &b,
        "b",
        Some(&outside),
        &copy_with(&[assistant("b1", "a2", 5, 4)]),
    );
    let r = run_in(root, &["stats", "--all", "--by", "day", "--json"]);
    assert_eq!(r.stderr, "");
    close(
        total(root, &["stats", "--all", "--by", "day", "--json"]),
        3 + 4,
    );
    // A parentSession naming something that is no session (a folder, this store's root).
    write(&b, "b", Some(root), &copy_with(&[]));
    close(total(root, &["stats", "--all", "--by", "day", "--json"]), 3);
}

#[test]
fn a_cycle_of_parent_sessions_counts_each_entry_once_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (x, y, z) = (session(root, 1), session(root, 2), session(root, 3));
    // x → y → z → x, all holding the source's entries; y and z share one more.
    write(&x, "x", Some(&y), &source_entries());
    write(
        &y,
        "y",
        Some(&z),
        &copy_with(&[assistant("s1", "a2", 5, 4)]),
    );
    write(
        &z,
        "z",
        Some(&x),
        &copy_with(&[assistant("s1", "a2", 5, 4), assistant("z1", "s1", 6, 8)]),
    );
    let r = run_in(root, &["stats", "--all", "--by", "day", "--json"]);
    assert!(
        r.stderr.contains("parentSession chain comes back"),
        "{}",
        r.stderr
    );
    close(
        total(root, &["stats", "--all", "--by", "day", "--json"]),
        3 + 4 + 8,
    );
    // The family of one member, with --forks: the same, once.
    let xs = x.display().to_string();
    let one: Value =
        serde_json::from_str(&run_in(root, &["stats", "--json", "--forks", &xs]).stdout).unwrap();
    assert!(
        (one["family"]["cost"].as_f64().unwrap() - 0.15).abs() < 1e-9,
        "{one}"
    );
    // A session naming itself.
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path(), 1);
    write(&s, "s", Some(&s), &source_entries());
    close(
        total(dir.path(), &["stats", "--all", "--by", "day", "--json"]),
        3,
    );
}

#[test]
fn ten_thousand_forks_of_one_source_count_once_without_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let a = session(root, 0);
    write(&a, "a", None, &source_entries());
    let folder = a.parent().unwrap().to_owned();
    let copy: Vec<String> = copy_with(&[]).iter().map(Value::to_string).collect();
    for n in 1..=10_000u32 {
        let header = json!({"type": "session", "version": 3, "id": format!("f{n}"),
            "timestamp": "2026-07-01T10:00:00.000Z", "cwd": "/home/dev/webshop",
            "parentSession": a.display().to_string()});
        let own = assistant(&format!("o{n}"), "a2", 5, 1);
        let text = [header.to_string()]
            .into_iter()
            .chain(copy.iter().cloned())
            .chain([own.to_string()])
            .collect::<Vec<_>>()
            .join("\n");
        fs::write(
            folder.join(format!("2026-07-01T11-00-00-000Z_f{n:05}.jsonl")),
            text + "\n",
        )
        .unwrap();
    }
    let started = std::time::Instant::now();
    close(
        total(root, &["stats", "--all", "--by", "day", "--json"]),
        3 + 10_000,
    );
    let a_s = a.display().to_string();
    let one: Value =
        serde_json::from_str(&run_in(root, &["stats", "--json", "--forks", &a_s]).stdout).unwrap();
    assert_eq!(one["family"]["forks"], 10_000);
    assert!(
        (one["family"]["cost"].as_f64().unwrap() - 100.03).abs() < 1e-6,
        "{one}"
    );
    eprintln!("10,000 forks: {:?}", started.elapsed());
}
