//! Family totals in `stats` (issue 44): a session's subagent runs are counted with it, and the
//! usage pi-subagents also puts on the parent's `subagent` tool result is counted once: by the
//! child's own file when it is found, by the figure reported for it when it is not.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{env_in, run_with, Run};

const PROJECT: &str = "--home-dev-webshop--";
const PARENT: &str = "aaaa0001-0000-7000-8000-000000000001";
const CHILD: &str = "cccc0003-0000-7000-8000-000000000003";
const RUN_ID: &str = "0a1b2c3d";

fn run_in(root: &Path, args: &[&str]) -> Run {
    let r = run_with(env_in(root, "/home/dev/webshop"), args, b"");
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    r
}

fn usage(input: u64, output: u64, cache_read: u64, cost: f64) -> Value {
    json!({"input": input, "output": output, "cacheRead": cache_read, "cacheWrite": 0,
        "totalTokens": input + output + cache_read,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}})
}

fn assistant(id: &str, parent: &str, second: u32, model: &str, u: Value) -> Value {
    json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": format!("2026-07-01T10:00:{second:02}.000Z"),
        "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
            "provider": "anthropic", "model": model, "usage": u, "stopReason": "stop",
            "timestamp": 1_782_900_000_000u64 + u64::from(second) * 1000}})
}

/// A session of the webshop project at `path`: a header with `id`, then `entries`.
pub(crate) fn write(path: &Path, id: &str, entries: &[Value]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let header = json!({"type": "session", "version": 3, "id": id,
        "timestamp": "2026-07-01T10:00:00.000Z", "cwd": "/home/dev/webshop"});
    let lines: Vec<String> = std::iter::once(&header)
        .chain(entries)
        .map(Value::to_string)
        .collect();
    fs::write(path, lines.join("\n") + "\n").unwrap();
}

/// A parent ($0.01 of its own) whose `subagent` tool result names two children and carries
/// their sum ($0.05 + $0.002, as pi-subagents 0.59 writes it); run-0's file is in the store
/// and holds $0.08 (its reported $0.05, then a turn more), run-1's is not (written elsewhere).
pub(crate) fn store(root: &Path) -> (PathBuf, PathBuf) {
    let dir = root.join("sessions").join(PROJECT);
    let stem = format!("2026-07-01T10-00-00-000Z_{PARENT}");
    let parent = dir.join(format!("{stem}.jsonl"));
    let run = dir.join(&stem).join(RUN_ID).join("run-0/session.jsonl");
    let gone = dir.join(&stem).join(RUN_ID).join("run-1/session.jsonl");
    let found = usage(1000, 200, 300, 0.05);
    let result = json!({"type": "message", "id": "r1", "parentId": "a1",
        "timestamp": "2026-07-01T10:00:09.000Z",
        "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "subagent",
            "content": [{"type": "text", "text": "done"}], "isError": false,
            "usage": usage(1010, 205, 300, 0.052),
            "details": {"mode": "parallel", "runId": RUN_ID, "results": [
                {"index": 0, "sessionFile": run.display().to_string(),
                 "usage": {"input": 1000, "output": 200, "cacheRead": 300, "cacheWrite": 0,
                           "cost": 0.05, "turns": 1}},
                {"index": 1, "sessionFile": gone.display().to_string(),
                 "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0,
                           "cost": 0.002, "turns": 1}}]},
            "timestamp": 1_782_900_009_000u64}});
    let user = json!({"type": "message", "id": "u1", "parentId": null,
        "timestamp": "2026-07-01T10:00:01.000Z",
        "message": {"role": "user", "content": "delegate", "timestamp": 1_782_900_001_000u64}});
    let own = assistant("a1", "u1", 2, "claude-opus", usage(100, 50, 0, 0.01));
    write(&parent, PARENT, &[user.clone(), own, result]);
    let more = assistant("b2", "b1", 5, "claude-haiku", usage(400, 100, 0, 0.03));
    let first = assistant("b1", "u1", 4, "claude-haiku", found);
    write(&run, CHILD, &[user, first, more]);
    (parent, run)
}

fn json_lines(r: &Run) -> Vec<Value> {
    r.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn cents(v: &Value) -> f64 {
    (v.as_f64().unwrap() * 100.0 * 1e6).round() / 1e6
}

#[test]
fn stats_session_shows_its_own_figures_and_its_familys_counted_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, run) = store(tmp.path());
    let one = json_lines(&run_in(tmp.path(), &["stats", PARENT, "--json"])).remove(0);
    // Its own, as pi's /session gives them: its turn and the tool result's usage.
    assert_eq!(cents(&one["cost"]), 6.2);
    assert_eq!(one["tokens"]["total"], 150 + 1515);
    // The family: its turn, run-0's file ($0.08, 1800 tokens), run-1's reported figure.
    let family = &one["family"];
    assert_eq!(family["sessions"], 2);
    assert_eq!(family["subagentRuns"], 1);
    assert_eq!(cents(&family["cost"]), 1.0 + 8.0 + 0.2);
    assert_eq!(family["tokens"]["total"], 150 + 2000 + 15);
    assert_eq!(family["unpricedTokens"], 0);

    let human = run_in(tmp.path(), &["stats", PARENT]);
    let line = human.stdout.lines().find(|l| l.starts_with("family"));
    let line = line.unwrap_or_else(|| panic!("no family line:\n{}", human.stdout));
    assert!(
        line.contains("$0.09 ") && line.contains("1 subagent run,"),
        "{line}"
    );

    // A run (named by its path: it is no listed session) has no runs of its own: no field.
    let run = run.display().to_string();
    let child = json_lines(&run_in(tmp.path(), &["stats", &run, "--json"])).remove(0);
    assert!(child.get("family").is_none(), "{child}");
}

#[test]
fn stats_all_counts_each_subagent_token_once_in_every_grouping() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path());
    for by in ["session", "day", "week", "month", "model", "project"] {
        let rows = json_lines(&run_in(
            tmp.path(),
            &["stats", "--all", "--by", by, "--json"],
        ));
        let total = rows.last().unwrap();
        assert_eq!(total["total"], true);
        assert_eq!(cents(&total["cost"]), 9.2, "--by {by}: {total}");
        assert_eq!(total["sessions"], 2, "--by {by}");
        assert_eq!(total["tokens"]["total"], 2165, "--by {by}");
    }
    // `--by message`: the run's rows follow its parent's; the tool result keeps run-1's figure.
    let rows = json_lines(&run_in(
        tmp.path(),
        &["stats", "--all", "--by", "message", "--json"],
    ));
    let sessions: Vec<&Value> = rows.iter().map(|r| &r["session"]).collect();
    assert_eq!(sessions, [PARENT, PARENT, PARENT, CHILD, CHILD, CHILD]);
    let sum: f64 = rows.iter().map(|r| r["cost"].as_f64().unwrap()).sum();
    assert_eq!(cents(&json!(sum)), 9.2);
    // `--by tool` counts tool results' usage: the subagent's keeps run-1's reported figure.
    let rows = json_lines(&run_in(
        tmp.path(),
        &["stats", "--all", "--by", "tool", "--json"],
    ));
    let subagent = rows.iter().find(|r| r["key"] == "subagent").unwrap();
    assert_eq!(cents(&subagent["cost"]), 0.2);
    // The child's tokens are its model's; the parent's tool result keeps only run-1's figure.
    let rows = json_lines(&run_in(
        tmp.path(),
        &["stats", "--all", "--by", "model", "--json"],
    ));
    let cost = |key: &str| {
        let row = rows.iter().find(|r| r["key"] == key);
        cents(&row.unwrap_or_else(|| panic!("no {key}: {rows:?}"))["cost"])
    };
    assert_eq!(cost("anthropic/claude-haiku"), 8.0);
    assert_eq!(cost("anthropic/claude-opus"), 1.0);
    let by_session = json_lines(&run_in(tmp.path(), &["stats", "--all", "--json"]));
    let child = by_session.iter().find(|r| r["key"] == CHILD).unwrap();
    assert_eq!(cents(&child["cost"]), 8.0);
    let parent = by_session.iter().find(|r| r["key"] == PARENT).unwrap();
    assert_eq!(cents(&parent["cost"]), 1.2);
}

#[test]
fn stats_all_without_the_childs_file_counts_the_parents_figure() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, run) = store(tmp.path());
    // The stem folder stays, the run's file is gone: the tool result is the only record.
    fs::remove_file(&run).unwrap();
    let rows = json_lines(&run_in(tmp.path(), &["stats", "--all", "--json"]));
    let total = rows.last().unwrap();
    assert_eq!(cents(&total["cost"]), 6.2);
    assert_eq!(total["sessions"], 1);
    let one = json_lines(&run_in(tmp.path(), &["stats", PARENT, "--json"])).remove(0);
    assert!(one.get("family").is_none(), "{one}");
}

#[test]
fn a_fork_childs_copy_of_its_parents_branch_counts_in_the_parent_only() {
    let tmp = tempfile::tempdir().unwrap();
    let (parent, _) = store(tmp.path());
    // pi-subagents' `context: "fork"` child: the parent's branch copied (ids kept, its signed
    // thinking taken out: the content differs), then a turn of its own ($0.004).
    let text = fs::read_to_string(&parent).unwrap();
    let mut copied: Vec<Value> = (text.lines().skip(1).take(2))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    copied[1]["message"]["content"] = json!([]);
    copied.push(assistant(
        "f1",
        "a1",
        7,
        "claude-haiku",
        usage(30, 10, 0, 0.004),
    ));
    let stem = parent.with_extension("");
    let fork = stem.join("forks/2026-07-01T10-00-06-000Z_ffff0006.jsonl");
    write(&fork, "ffff0006-0000-7000-8000-000000000006", &copied);

    let one = json_lines(&run_in(tmp.path(), &["stats", PARENT, "--json"])).remove(0);
    assert_eq!(one["family"]["sessions"], 3);
    assert_eq!(cents(&one["family"]["cost"]), 9.2 + 0.4);
    assert_eq!(one["family"]["tokens"]["total"], 2165 + 40);
    let rows = json_lines(&run_in(
        tmp.path(),
        &["stats", "--all", "--by", "day", "--json"],
    ));
    let total = rows.last().unwrap();
    assert_eq!(cents(&total["cost"]), 9.6);
    assert_eq!(total["sessions"], 3);
    // The copied user message is the parent's: the fork adds its own assistant turn only.
    assert_eq!(total["userMessages"], 2);
}

/// A parent that is also a fork (its source counted in the report): leaving out what it copied
/// keeps what its family changed, so the usage pi-subagents reported on its tool result for a
/// run counted by its own file is still not counted twice.
#[test]
fn a_fork_with_subagent_runs_counts_its_runs_usage_once() {
    let tmp = tempfile::tempdir().unwrap();
    let (parent, _) = store(tmp.path());
    let dir = parent.parent().unwrap();
    let source = dir.join("2026-07-01T09-00-00-000Z_bbbb0002-0000-7000-8000-000000000002.jsonl");
    let first = json!({"type": "message", "id": "s0", "parentId": null,
        "timestamp": "2026-07-01T09:00:01.000Z",
        "message": {"role": "user", "content": "start", "timestamp": 1_782_896_401_000u64}});
    let answer = assistant("s1", "s0", 3, "claude-opus", usage(300, 40, 0, 0.04));
    write(
        &source,
        "bbbb0002-0000-7000-8000-000000000002",
        &[first.clone(), answer.clone()],
    );
    // The parent as a fork of it: the source's entries copied, then its own, as before.
    let text = fs::read_to_string(&parent).unwrap();
    let mut lines = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap());
    let mut header = lines.next().unwrap();
    header["parentSession"] = json!(source.display().to_string());
    let mut own: Vec<Value> = lines.collect();
    own[0]["parentId"] = json!("s1");
    let all: Vec<String> = [header, first, answer]
        .into_iter()
        .chain(own)
        .map(|v| v.to_string())
        .collect();
    fs::write(&parent, all.join("\n") + "\n").unwrap();
    for cache in [&["--no-cache"][..], &[], &[]] {
        let args = [&["stats", "--all", "--by", "day", "--json"][..], cache].concat();
        let rows = json_lines(&run_in(tmp.path(), &args));
        let total = rows.last().unwrap();
        // The source's $0.04 once, the parent's own $0.01 and run-1's reported $0.002, run-0's
        // file $0.08: not the tool result's whole $0.052 beside run-0's file.
        assert_eq!(
            cents(&total["cost"]),
            4.0 + 1.0 + 0.2 + 8.0,
            "{args:?}: {total}"
        );
    }
    // The fact stream, keyed as an engine keys it (the latest version of each session and
    // entry id), counts it as `stats --all` does (docs/team.md's totals).
    let facts = json_lines(&run_in(tmp.path(), &["facts", "--all"]));
    let mut latest = std::collections::BTreeMap::new();
    for r in &facts {
        let key = (r["sessionId"].to_string(), r["entryId"].to_string());
        let version = r["version"].as_u64().unwrap();
        if latest.get(&key).is_none_or(|(v, _)| *v <= version) {
            latest.insert(key, (version, r["cost"].as_f64().unwrap()));
        }
    }
    let sum: f64 = latest.values().map(|(_, cost)| cost).sum();
    assert_eq!(cents(&json!(sum)), 4.0 + 1.0 + 0.2 + 8.0, "{facts:?}");
}
