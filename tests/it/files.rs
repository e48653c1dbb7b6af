//! `files`: the files a run read, wrote and edited, one spelling per file, failed calls counted.

use serde_json::{json, Value};

use crate::common::{example_env, run, run_with, Run};
use crate::snap;

/// A session in `/w`: `read`, `write` and `edit` calls under several spellings of one file, a
/// failed edit, a `bash` call (never read), a hostile path, and an abandoned branch whose call
/// `--branch` leaves out.
fn fixture() -> String {
    let call = |id: &str, name: &str, args: Value| json!({"type": "toolCall", "id": id, "name": name, "arguments": args});
    let assistant = |id: &str, parent: &str, calls: Vec<Value>| {
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": "assistant", "content": calls, "provider": "p", "model": "m",
                "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                "stopReason": "toolUse", "timestamp": 1}})
    };
    let result = |id: &str, parent: &str, call: &str, error: bool| {
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:02.000Z",
            "message": {"role": "toolResult", "toolCallId": call, "toolName": "x",
                "content": [{"type": "text", "text": "done"}], "isError": error, "timestamp": 2}})
    };
    let lines = [
        json!({"type": "session", "version": 3, "id": "s-files", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}),
        json!({"type": "message", "id": "u1", "parentId": null, "timestamp": "2026-01-01T00:00:00.500Z",
            "message": {"role": "user", "content": "go", "timestamp": 0}}),
        // The abandoned branch: its write is in the file, not on the active branch.
        assistant(
            "a0",
            "u1",
            vec![call(
                "c0",
                "write",
                json!({"path": "gone.txt", "content": "x"}),
            )],
        ),
        result("r0", "a0", "c0", false),
        assistant(
            "a1",
            "u1",
            vec![
                call("c1", "read", json!({"path": "src/x.rs"})),
                call("c2", "read", json!({"path": "./src/x.rs"})),
                call(
                    "c3",
                    "edit",
                    json!({"path": "/w/src/x.rs", "oldText": "a", "newText": "b"}),
                ),
                call("c4", "bash", json!({"command": "cat src/y.rs"})),
                call(
                    "c5",
                    "write",
                    json!({"path": "src/\u{1b}[31mred\nline.rs", "content": ""}),
                ),
                call("c6", "read", json!({"path": "../up/../out.txt"})),
            ],
        ),
        result("r1", "a1", "c1", false),
        result("r2", "r1", "c2", false),
        result("r3", "r2", "c3", true),
        result("r4", "r3", "c4", false),
        result("r5", "r4", "c5", false),
        result("r6", "r5", "c6", true),
    ];
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn files(args: &[&str]) -> Run {
    let mut all = vec!["files"];
    all.extend_from_slice(args);
    let r = run_with(example_env(), &all, fixture().as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    r
}

fn rows(json: &str) -> Vec<Value> {
    json.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn one_row_per_file_with_counts_and_failures() {
    let r = files(&["--json", "-"]);
    let rows = rows(&r.stdout);
    let paths: Vec<&str> = rows.iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            "../out.txt",
            "gone.txt",
            "src/\u{1b}[31mred\nline.rs",
            "src/x.rs"
        ],
        "sorted by path; bash's cat is not read"
    );
    let x = &rows[3];
    assert_eq!(
        x,
        &json!({"sessionId": "s-files", "path": "src/x.rs", "reads": 2, "writes": 0, "edits": 1, "errors": 1})
    );
    assert_eq!(rows[0]["errors"], 1);
    snap!("files_json", r.stdout);
}

#[test]
fn branch_leaves_out_the_abandoned_calls() {
    let r = files(&["--json", "--branch", "-"]);
    let paths: Vec<String> = rows(&r.stdout)
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_owned())
        .collect();
    assert!(!paths.iter().any(|p| p == "gone.txt"), "{paths:?}");
    assert_eq!(paths.len(), 3);
}

#[test]
fn human_rows_show_a_hostile_path_escaped() {
    let r = files(&["-"]);
    assert_eq!(
        r.stdout.lines().count(),
        5,
        "a header and one line per file"
    );
    assert!(!r.stdout.contains('\u{1b}'), "{}", r.stdout);
    assert!(
        r.stdout.contains(r"src/\u{1b}[31mred\nline.rs"),
        "{}",
        r.stdout
    );
    snap!("files_human", r.stdout);
}

#[test]
fn paths_are_cut_from_the_left_to_the_terminal() {
    let mut env = example_env();
    env.width = Some(40);
    let r = run_with(env, &["files", "-"], fixture().as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    for line in r.stdout.lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(line) <= 40,
            "{line:?}"
        );
    }
    assert!(r.stdout.contains("line.rs\n"), "the file's name is kept");
    snap!("files_width_40", r.stdout);
}

#[test]
fn example_sessions_agree_with_stats() {
    // The examples name their files under one spelling, so stats' sets (as stored) compare.
    for id in ["0196cdea", "0196d88e", "0196c3c5"] {
        let r = run(&["files", "--json", id]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let rows = rows(&r.stdout);
        let stats: Value = serde_json::from_str(&run(&["stats", "--json", id]).stdout).unwrap();
        for (kind, set) in [
            ("reads", "read"),
            ("writes", "written"),
            ("edits", "edited"),
        ] {
            let ours: Vec<&str> = (rows.iter())
                .filter(|r| r[kind].as_u64() > Some(0))
                .map(|r| r["path"].as_str().unwrap())
                .collect();
            let theirs: Vec<&str> = (stats["files"][set].as_array().unwrap().iter())
                .map(|p| p.as_str().unwrap())
                .collect();
            assert_eq!(ours, theirs, "{id} {kind}");
        }
        assert!(!rows.is_empty(), "{id} touched files");
    }
}

#[test]
fn a_seed000_failure_in_a_user_message_counts() {
    let session = concat!(
        r#"{"type":"session_header","version":1,"createdAt":"2025-04-03T08:00:00Z","cwd":"/Users/x/app"}"#,
        "\n",
        r#"{"type":"user_message","id":"e1","parentId":null,"timestamp":"2025-04-03T08:00:01Z","content":[{"type":"text","text":"Read a."}]}"#,
        "\n",
        r#"{"type":"assistant_message","id":"e2","parentId":"e1","timestamp":"2025-04-03T08:00:02Z","modelId":"m","content":[{"type":"tool_use","id":"tc_001","name":"read","input":{"path":"/Users/x/app/src/a.rs"}}],"usage":{"inputTokens":9,"outputTokens":2,"cacheReadTokens":0,"cacheWriteTokens":0},"cost":0.003}"#,
        "\n",
        r#"{"type":"user_message","id":"e3","parentId":"e2","timestamp":"2025-04-03T08:00:03Z","content":[{"type":"tool_result","toolUseId":"tc_001","content":[{"type":"text","text":"no such file"}],"isError":true}]}"#,
        "\n",
    );
    let r = run_with(example_env(), &["files", "--json", "-"], session.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rows = rows(&r.stdout);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["path"], "src/a.rs");
    assert_eq!(
        (&rows[0]["reads"], &rows[0]["errors"]),
        (&json!(1), &json!(1))
    );
}

#[test]
fn a_session_that_is_not_there_is_an_error() {
    let r = run(&["files", "no-such-session"]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.is_empty());
    assert!(r.stderr.contains("no-such-session"), "{}", r.stderr);
}
