//! One JSON vocabulary (issue 47): every command's JSON names a session's id `sessionId`, an
//! entry's `entryId`, a file line `fileLine`, a line within a text `lineNumber`, token totals
//! `totalTokens`, beside the names it had (which stay: docs/json.md adds fields only).

use serde_json::Value;

use crate::common::{example_env, run, run_with};

fn rows(args: &[&str]) -> Vec<Value> {
    let r = run(args);
    assert!(r.code == 0 || r.code == 1, "{args:?}: {}", r.stderr);
    r.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Each row has `new` and it equals `old`.
fn same(what: &str, rows: &[Value], new: &str, old: &str) {
    assert!(!rows.is_empty(), "{what}: no rows");
    for r in rows {
        assert!(r.get(new).is_some(), "{what}: no {new} in {r}");
        assert_eq!(r[new], r[old], "{what}: {new} is not {old}");
    }
}

#[test]
fn ls_tree_and_rm_name_ids_as_the_vocabulary_does() {
    same("ls", &rows(&["ls", "--all", "--json"]), "sessionId", "id");
    same(
        "tree",
        &rows(&["tree", "0196c9f4", "--json"]),
        "entryId",
        "id",
    );
    let rm = rows(&["rm", "0196c9f4", "--json", "--dry-run"]);
    let planned: Vec<Value> = rm.into_iter().filter(|r| r["event"] == "planned").collect();
    same("rm", &planned, "sessionId", "id");
}

#[test]
fn stats_names_ids_and_token_totals_as_the_vocabulary_does() {
    let one = rows(&["stats", "0196c9f4", "--json"]);
    same("stats SESSION", &one, "sessionId", "id");
    same(
        "stats tokens",
        &[one[0]["tokens"].clone()],
        "totalTokens",
        "total",
    );
    let models: Vec<Value> = one[0]["models"].as_array().unwrap().clone();
    let tokens: Vec<Value> = models.iter().map(|m| m["tokens"].clone()).collect();
    same("stats models", &tokens, "totalTokens", "total");
    same(
        "stats --by message",
        &rows(&["stats", "--all", "--by", "message", "--json"]),
        "sessionId",
        "session",
    );
    let mut sessions = rows(&["stats", "--all", "--by", "session", "--json"]);
    let total = sessions.pop().unwrap();
    assert!(total.get("sessionId").is_none(), "{total}");
    same("stats --by session", &sessions, "sessionId", "key");
    let days = rows(&["stats", "--all", "--by", "day", "--json"]);
    assert!(days.iter().all(|r| r.get("sessionId").is_none()));
    let tokens: Vec<Value> = days.iter().map(|d| d["tokens"].clone()).collect();
    same("stats --by day tokens", &tokens, "totalTokens", "total");
}

#[test]
fn check_names_sessions_lines_and_entries_as_the_vocabulary_does() {
    let r = run_with(
        example_env(),
        &[
            "check",
            "0196dfb0",
            "--no-tool-errors",
            "--integrity",
            "--json",
        ],
        b"",
    );
    let row: Value = serde_json::from_str(r.stdout.lines().next().unwrap()).unwrap();
    same("check", std::slice::from_ref(&row), "sessionId", "session");
    let calls = row["failedToolCalls"].as_array().unwrap();
    same("failedToolCalls", calls, "fileLine", "line");
    same("failedToolCalls", calls, "entryId", "entry");
    // A damaged file's findings.
    let damaged = rows(&["check", "0196f4e5", "--integrity", "--json"]);
    let findings = damaged[0]["findings"].as_array().unwrap();
    same("findings", findings, "fileLine", "line");
}
