//! `pisess facts` (issue 46): the fact stream's rows are `stats --by message`'s, keyed and
//! versioned; bad input (labels, cursors, price tables) stops it before a row is written; a
//! cursor emits each row once, again only when its facts changed; and the stream holds no text
//! of the sessions: no message, tool argument, path (with `--redact-paths`) or planted secret.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{env_in, examples_agent_dir, repo, run_with, Run};

const LABELS: [&str; 4] = ["--label", "host=ci-1", "--label", "user=ana"];

fn facts_in(agent: &Path, args: &[&str]) -> Run {
    let mut all = vec!["facts"];
    all.extend_from_slice(&LABELS);
    all.extend_from_slice(args);
    run_with(env_in(agent, "/p"), &all, b"")
}

fn rows(r: &Run) -> Vec<Value> {
    assert!(r.code == 0 || r.code == 1, "{}", r.stderr);
    (r.stdout.lines())
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

#[test]
fn rows_are_stats_by_message_rows_keyed_labelled_and_versioned() {
    let agent = examples_agent_dir();
    let facts = rows(&facts_in(&agent, &["--all"]));
    let stats = run_with(
        env_in(&agent, "/p"),
        &["stats", "--all", "--by", "message", "--json"],
        b"",
    );
    let stats: Vec<Value> = stats
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(facts.len(), stats.len());
    let mut keys = HashSet::new();
    for (f, s) in facts.iter().zip(&stats) {
        assert_eq!(f["schemaVersion"], 1);
        assert_eq!(f["host"], "ci-1");
        assert_eq!(f["user"], "ana");
        assert!(f["version"].as_u64().unwrap() > 0);
        // The examples hold no fork: every row is its own file's.
        assert_eq!(f["sessionId"], s["session"]);
        assert!(f["copiedIn"].is_null());
        if s["entryId"].is_string() {
            assert!(f["entryId"]
                .as_str()
                .unwrap()
                .starts_with(s["entryId"].as_str().unwrap()));
        }
        for k in [
            "cwd",
            "timestamp",
            "type",
            "role",
            "provider",
            "model",
            "modelKey",
            "input",
            "output",
            "cacheRead",
            "cacheWrite",
            "totalTokens",
            "cost",
            "toolName",
            "isError",
            "stopReason",
            "active",
        ] {
            assert_eq!(f[k], s[k], "{k} of {f}");
        }
        assert_eq!(f["toolCalls"], s["toolCalls"].as_array().unwrap().len());
        assert!(
            keys.insert((f["sessionId"].clone(), f["entryId"].clone())),
            "a key given twice: {f}"
        );
    }
}

/// A store of one session, in a temporary agent dir.
fn store(lines: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("sessions/--p--");
    fs::create_dir_all(&folder).unwrap();
    let file = folder.join("2026-01-01T10-00-00-000Z_0196cccc-0000-7000-8000-000000000001.jsonl");
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    (dir, file)
}

const HEADER: &str = r#"{"type":"session","version":3,"id":"0196cccc-0000-7000-8000-000000000001","timestamp":"2026-01-01T10:00:00.000Z","cwd":"/p"}"#;

fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T10:00:0{}.000Z","message":{{"role":"user","content":"{text}"}}}}"#,
        id.len() % 10
    )
}

fn assistant(id: &str, parent: &str, cost: f64) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T10:01:00.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"ok"}}],"provider":"zai","model":"glm-4.6","usage":{{"input":100,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":110,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":{cost}}}}}}}}}"#
    )
}

/// Each key's row of the highest version, as an engine keeps it.
fn latest(runs: &[Vec<Value>]) -> BTreeMap<(String, String), Value> {
    let mut out: BTreeMap<(String, String), Value> = BTreeMap::new();
    for r in runs.iter().flatten() {
        let key = (r["sessionId"].to_string(), r["entryId"].to_string());
        let newer = out
            .get(&key)
            .is_none_or(|old| old["version"].as_u64() <= r["version"].as_u64());
        if newer {
            out.insert(key, r.clone());
        }
    }
    out
}

#[test]
fn a_cursor_emits_each_row_once_and_again_when_the_branch_moved() {
    let (dir, file) = store(&[
        HEADER,
        &user("a", None, "one"),
        &assistant("b", "a", 0.5),
        &user("c", Some("b"), "two"),
        &assistant("d", "c", 0.25),
    ]);
    let cursor = dir.path().join("facts.cursor");
    let cursor_arg = cursor.to_str().unwrap();
    let first = rows(&facts_in(dir.path(), &["--cursor", cursor_arg]));
    assert_eq!(first.len(), 4);
    assert!(first
        .iter()
        .all(|r| r["active"] == true && r["version"] == 4));
    assert!(rows(&facts_in(dir.path(), &["--cursor", cursor_arg])).is_empty());
    // The branch moves: a retry from b; c and d leave the active branch.
    let mut text = fs::read_to_string(&file).unwrap();
    text.push_str(&(user("e", Some("b"), "three") + "\n" + &assistant("f", "e", 0.125) + "\n"));
    fs::write(&file, text).unwrap();
    let second = rows(&facts_in(dir.path(), &["--cursor", cursor_arg]));
    let ids: Vec<&str> = second
        .iter()
        .map(|r| r["entryId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["c", "d", "e", "f"]);
    assert!(second.iter().all(|r| r["version"] == 6));
    assert_eq!(second[0]["active"], false);
    assert!(rows(&facts_in(dir.path(), &["--cursor", cursor_arg])).is_empty());
    // What an engine keeps of the two runs is a fresh run's rows (but the versions of rows
    // that did not change): nothing lost, none twice.
    let facts = |rows: BTreeMap<(String, String), Value>| -> Vec<Value> {
        (rows.into_values())
            .map(|mut r| {
                r.as_object_mut().unwrap().remove("version");
                r
            })
            .collect()
    };
    let fresh = latest(&[rows(&facts_in(dir.path(), &[]))]);
    assert_eq!(facts(latest(&[first, second])), facts(fresh));
    // Other labels: every row again, with them (an engine keeps the later of equal versions).
    let relabelled = rows(&facts_in(
        dir.path(),
        &["--label", "user=bob", "--cursor", cursor_arg],
    ));
    assert_eq!(relabelled.len(), 6);
    assert!(relabelled.iter().all(|r| r["user"] == "bob"));
    assert!(rows(&facts_in(
        dir.path(),
        &["--label", "user=bob", "--cursor", cursor_arg]
    ))
    .is_empty());
    // The store is the same from another project's cwd.
    let mut args = vec!["facts", "--label", "host=ci-1", "--label", "user=bob"];
    args.extend(["--cursor", cursor_arg]);
    let elsewhere = run_with(env_in(dir.path(), "/somewhere/else"), &args, b"");
    assert_eq!(
        (elsewhere.code, elsewhere.stdout.as_str()),
        (0, ""),
        "{}",
        elsewhere.stderr
    );
}

#[test]
fn bad_input_stops_before_a_row_and_leaves_the_cursor() {
    let (dir, _) = store(&[HEADER, &user("a", None, "x"), &assistant("b", "a", 0.0)]);
    let (other, _) = store(&[HEADER]);
    let cursor = dir.path().join("facts.cursor");
    let c = cursor.to_str().unwrap();
    assert_eq!(rows(&facts_in(dir.path(), &["--cursor", c])).len(), 2);
    let kept = fs::read(&cursor).unwrap();
    let refused = |r: Run, says: &str| {
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        assert!(r.stderr.contains(says), "{}", r.stderr);
    };
    // Another store's cursor.
    refused(
        facts_in(other.path(), &["--cursor", c]),
        "another session store",
    );
    // A newer pisess's cursor.
    let newer = dir.path().join("newer.cursor");
    let mut v: Value = serde_json::from_slice(&kept).unwrap();
    v["schemaVersion"] = 2.into();
    fs::write(&newer, v.to_string()).unwrap();
    refused(
        facts_in(dir.path(), &["--cursor", newer.to_str().unwrap()]),
        "newer pisess",
    );
    // Labels with control characters, or unknown ones.
    for bad in ["host=a\u{1b}[2J", "user=x\ny", "team=x"] {
        refused(
            facts_in(dir.path(), &["--label", bad, "--cursor", c]),
            "--label",
        );
    }
    // Price tables not in LiteLLM's shape, with a negative or a non-numeric price.
    let tables = [
        ("[1, 2]", "prices"),
        (
            r#"{"m": {"input_cost_per_token": -1e-6, "output_cost_per_token": 1e-6}}"#,
            "negative",
        ),
        (
            r#"{"m": {"input_cost_per_token": "3e-6", "output_cost_per_token": 1e-6}}"#,
            "input_cost_per_token",
        ),
    ];
    for (i, (table, says)) in tables.iter().enumerate() {
        let path = dir.path().join(format!("t{i}.json"));
        fs::write(&path, table).unwrap();
        refused(
            facts_in(
                dir.path(),
                &["--prices", path.to_str().unwrap(), "--cursor", c],
            ),
            says,
        );
    }
    // Nothing of that moved the cursor: the rows are still all emitted, none again.
    assert_eq!(fs::read(&cursor).unwrap(), kept);
    assert!(rows(&facts_in(dir.path(), &["--cursor", c])).is_empty());
}

#[test]
fn prices_add_an_estimate_and_the_provider_key_wins_over_the_bare_one() {
    let (dir, _) = store(&[HEADER, &user("a", None, "x"), &assistant("b", "a", 0.0)]);
    let table = dir.path().join("t.json");
    // Both keys match glm-4.6 of provider zai: `provider/model` is the rule's first step.
    fs::write(
        &table,
        r#"{"glm-4.6": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6},
            "zai/glm-4.6": {"input_cost_per_token": 6e-07, "output_cost_per_token": 2.2e-06}}"#,
    )
    .unwrap();
    let out = rows(&facts_in(
        dir.path(),
        &["--prices", table.to_str().unwrap()],
    ));
    assert_eq!(out[0]["estimatedCost"], Value::Null);
    assert_eq!(out[1]["priceKey"], "zai/glm-4.6");
    assert_eq!(out[1]["cost"], 0);
    assert_eq!(out[1]["estimatedCost"], 100.0 * 6e-07 + 10.0 * 2.2e-06);
    // Without --prices the fields are absent, not null.
    assert!(rows(&facts_in(dir.path(), &[]))[1]
        .get("estimatedCost")
        .is_none());
}

/// Every string of a session that is text someone wrote or a tool's input: message and
/// thinking text, tool-call arguments, tool output, summaries, error messages, and paths.
fn texts(v: &Value, key: Option<&str>, out: &mut Vec<String>) {
    const TEXT: [&str; 10] = [
        "text",
        "thinking",
        "content",
        "arguments",
        "summary",
        "errorMessage",
        "cwd",
        "parentSession",
        "command",
        "output",
    ];
    match v {
        Value::String(s) if key.is_some_and(|k| TEXT.contains(&k)) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|i| texts(i, key, out)),
        Value::Object(map) => {
            for (k, item) in map {
                // Below a text key, every string is text (a tool call's whole arguments) but
                // a block's type, id and tool name.
                if key.is_some_and(|k| TEXT.contains(&k))
                    && ["type", "id", "name", "toolCallId", "mimeType"].contains(&k.as_str())
                {
                    continue;
                }
                let inner = if key.is_some_and(|k| TEXT.contains(&k)) {
                    key
                } else {
                    Some(k.as_str())
                };
                texts(item, inner, out);
            }
        }
        _ => {}
    }
}

#[test]
fn the_stream_holds_no_text_argument_path_or_secret_of_the_corpus() {
    // The examples and a session holding planted secrets in a message, a tool call's
    // arguments, a tool's output and its cwd.
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &examples_agent_dir().join("sessions"),
        &dir.path().join("sessions"),
    );
    let secret = "ghp_16C7e42F292c6912E7710c838347Ae178B4a";
    let aws = "AKIAIOSFODNN7EXAMPLE";
    let folder = dir.path().join("sessions/--srv-acme-secret-project--");
    fs::create_dir_all(&folder).unwrap();
    fs::write(
        folder.join("2026-02-02T10-00-00-000Z_0196dddd-0000-7000-8000-000000000001.jsonl"),
        [
            r#"{"type":"session","version":3,"id":"0196dddd-0000-7000-8000-000000000001","timestamp":"2026-02-02T10:00:00.000Z","cwd":"/srv/acme-secret-project"}"#.to_owned(),
            format!(r#"{{"type":"message","id":"u1","parentId":null,"timestamp":"2026-02-02T10:00:01.000Z","message":{{"role":"user","content":"deploy with token {secret}"}}}}"#),
            format!(r#"{{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-02-02T10:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c1","name":"bash","arguments":{{"command":"AWS_ACCESS_KEY_ID={aws} ./deploy.sh"}}}}],"provider":"anthropic","model":"claude-sonnet-4-5","usage":{{"input":5,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":10,"cost":{{"total":0.001}}}}}}}}"#),
            format!(r#"{{"type":"message","id":"t1","parentId":"a1","timestamp":"2026-02-02T10:00:03.000Z","message":{{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{{"type":"text","text":"deployed as {secret}"}}],"isError":false}}}}"#),
        ]
        .join("\n")
            + "\n",
    )
    .unwrap();
    let mut corpus = vec![secret.to_owned(), aws.to_owned()];
    for file in walk(&dir.path().join("sessions")) {
        for line in fs::read_to_string(&file).unwrap_or_default().lines() {
            if let Ok(v) = serde_json::from_str::<Value>(line) {
                texts(&v, None, &mut corpus);
            }
        }
        corpus.push(file.to_string_lossy().into_owned());
    }
    // Short strings ("ok", "ls") are words of any JSON; names the stream keeps (models,
    // tools, ids) are no text.
    corpus.retain(|s| s.chars().count() >= 6);
    assert!(
        corpus.len() > 100,
        "the corpus is too small: {}",
        corpus.len()
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pisess"))
        .args(["-q", "facts", "--all", "--redact-paths"])
        .args(LABELS)
        .env("PI_CODING_AGENT_DIR", dir.path())
        .env("PISESS_FACTS_SALT", "team-secret")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stream = String::from_utf8(out.stdout).unwrap();
    assert!(stream.lines().count() > 100);
    // Compared as the JSON writer writes strings, and as written.
    let found: Vec<&String> = corpus
        .iter()
        .filter(|s| {
            let json = serde_json::to_string(s).unwrap();
            stream.contains(json.trim_matches('"')) || stream.contains(s.as_str())
        })
        .collect();
    assert!(found.is_empty(), "the stream holds {found:?}");
    // Without a salt, --redact-paths refuses.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pisess"))
        .args(["-q", "facts", "--all", "--redact-paths"])
        .env("PI_CODING_AGENT_DIR", dir.path())
        .env_remove("PISESS_FACTS_SALT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn the_team_test_and_its_doc_agree() {
    // docs/team.md's statements are what tests/clickhouse/team.py runs: each named once.
    let team = fs::read_to_string(repo().join("docs/team.md")).unwrap();
    let mut names = HashSet::new();
    for line in team.lines() {
        if let Some(name) = line
            .strip_prefix("-- clickhouse: ")
            .or_else(|| line.strip_prefix("-- duckdb: "))
        {
            assert!(names.insert(line.to_owned()), "{name} twice");
        }
    }
    for needed in ["cost per day", "cost per model", "cost per project"] {
        assert!(names.contains(&format!("-- clickhouse: {needed}")));
        assert!(names.contains(&format!("-- duckdb: {needed}")));
    }
}

#[test]
fn a_subagent_run_names_its_parent_and_the_family_counts_each_token_once() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("sessions/--p--");
    let stem = "2026-07-01T10-00-00-000Z_0196eeee-0000-7000-8000-000000000001";
    let run = folder.join(stem).join("0a1b2c3d/run-0/session.jsonl");
    fs::create_dir_all(run.parent().unwrap()).unwrap();
    let parent = [
        HEADER.replace("0196cccc", "0196eeee"),
        assistant("a1", "u0", 0.01).replace("\"parentId\":\"u0\"", "\"parentId\":null"),
        // The run's usage, reported again on the parent's tool result (pi-subagents 0.59).
        format!(
            r#"{{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-01-01T10:02:00.000Z","message":{{"role":"toolResult","toolCallId":"c1","toolName":"subagent","content":[],"isError":false,"usage":{{"input":100,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":110,"cost":{{"total":0.5}}}},"details":{{"mode":"single","runId":"0a1b2c3d","results":[{{"index":0,"sessionFile":"{}"}}]}}}}}}"#,
            run.display()
        ),
    ];
    fs::write(
        folder.join(format!("{stem}.jsonl")),
        parent.join("\n") + "\n",
    )
    .unwrap();
    let child = [
        HEADER.replace(
            "0196cccc-0000-7000-8000-000000000001",
            "0196ffff-0000-7000-8000-000000000009",
        ),
        assistant("b1", "x", 0.5).replace("\"parentId\":\"x\"", "\"parentId\":null"),
    ];
    fs::write(&run, child.join("\n") + "\n").unwrap();
    let out = rows(&facts_in(dir.path(), &["--all"]));
    let run_rows: Vec<&Value> = out.iter().filter(|r| r["subagentOf"].is_string()).collect();
    assert_eq!(run_rows.len(), 1, "{out:?}");
    assert_eq!(
        run_rows[0]["subagentOf"],
        "0196eeee-0000-7000-8000-000000000001"
    );
    assert_eq!(
        run_rows[0]["sessionId"],
        "0196ffff-0000-7000-8000-000000000009"
    );
    // $0.01 of the parent's own and the run's $0.5 once, as stats --all counts the family.
    let cost: f64 = out.iter().map(|r| r["cost"].as_f64().unwrap()).sum();
    let stats = run_with(
        env_in(dir.path(), "/p"),
        &["stats", "--all", "--by", "day", "--json"],
        b"",
    );
    let total: Value = serde_json::from_str(stats.stdout.lines().last().unwrap()).unwrap();
    assert!((cost - 0.51).abs() < 1e-12, "{cost}");
    assert!((total["cost"].as_f64().unwrap() - cost).abs() < 1e-12);
}
