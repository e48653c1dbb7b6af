//! `diff`: two branches compared: where they part, figures and their changes, aligned calls,
//! files; hostile names escaped; exit codes; and pi's own figures for two leaves it branched.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{example_env, run_with, Run};
use crate::snap;

fn usage(cost: f64) -> Value {
    json!({"input": 100, "output": 10, "cacheRead": 5, "cacheWrite": 1, "totalTokens": 116,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}})
}

/// 2026-01-01T00:00:00Z in ms, the start of every fixture.
const START_MS: u64 = 1_767_225_600_000;

/// A message's own ms time, `s` seconds after the start.
fn ms(s: u32) -> u64 {
    START_MS + u64::from(s) * 1000
}

fn at(s: u32) -> String {
    format!("2026-01-01T00:{:02}:{:02}.000Z", s / 60, s % 60)
}

fn user(id: &str, parent: Option<&str>, text: &str, t: u32) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": at(t),
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ms(t)}})
}

fn assistant(id: &str, parent: &str, calls: Value, cost: f64, model: &str, t: u32) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": at(t),
        "message": {"role": "assistant", "content": calls, "provider": "p", "model": model,
            "usage": usage(cost), "stopReason": "toolUse", "timestamp": ms(t)}})
}

fn call(id: &str, name: &str, args: Value) -> Value {
    json!({"type": "toolCall", "id": id, "name": name, "arguments": args})
}

fn result(id: &str, parent: &str, call: &str, tool: &str, error: bool, t: u32) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": at(t),
        "message": {"role": "toolResult", "toolCallId": call, "toolName": tool,
            "content": [{"type": "text", "text": "ok"}], "isError": error, "timestamp": ms(t)}})
}

/// The shared start: a user's request, a read, an answer (`a2`, where the branches part).
fn start(session: &str) -> Vec<Value> {
    vec![
        json!({"type": "session", "version": 3, "id": session, "timestamp": at(0), "cwd": "/w"}),
        user("u1", None, "fix the bug", 1),
        assistant(
            "a1",
            "u1",
            json!([call("c1", "read", json!({"path": "/w/src/x.rs"}))]),
            0.01,
            "m",
            2,
        ),
        result("r1", "a1", "c1", "read", false, 3),
        assistant(
            "a2",
            "r1",
            json!([{"type": "text", "text": "found it"}]),
            0.01,
            "m",
            4,
        ),
    ]
}

/// Left: edits the file and runs the tests once (they fail).
fn left() -> Vec<Value> {
    vec![
        user("uL", Some("a2"), "edit it", 10),
        assistant(
            "aL",
            "uL",
            json!([
                call(
                    "cL1",
                    "edit",
                    json!({"path": "src/x.rs", "oldText": "a", "newText": "b"})
                ),
                call("cL2", "bash", json!({"command": "cargo test -q"}))
            ]),
            0.02,
            "m",
            20,
        ),
        result("rL1", "aL", "cL1", "edit", false, 21),
        result("rL2", "rL1", "cL2", "bash", true, 22),
        assistant(
            "aL2",
            "rL2",
            json!([{"type": "text", "text": "done"}]),
            0.01,
            "m",
            30,
        ),
    ]
}

/// Right: a hostile write, the tests twice, a compaction, and a model pi could not price.
fn right() -> Vec<Value> {
    vec![
        user("uR", Some("a2"), "rewrite it", 11),
        assistant(
            "aR",
            "uR",
            json!([
                call(
                    "cR1",
                    "write",
                    json!({"path": "src/\u{1b}[31mred\ny.rs", "content": ""})
                ),
                call("cR2", "bash", json!({"command": "cargo test"})),
                call("cR3", "bash", json!({"command": "cargo test"}))
            ]),
            0.0,
            "local\u{1b}[2J",
            40,
        ),
        result("rR1", "aR", "cR1", "write", false, 41),
        result("rR2", "rR1", "cR2", "bash", false, 42),
        result("rR3", "rR2", "cR3", "bash", false, 43),
        json!({"type": "compaction", "id": "cmp", "parentId": "rR3", "timestamp": at(50),
            "summary": "s", "firstKeptEntryId": "uR", "tokensBefore": 1000}),
        assistant(
            "aR2",
            "cmp",
            json!([{"type": "text", "text": "done"}]),
            0.0,
            "local\u{1b}[2J",
            90,
        ),
    ]
}

fn write(dir: &Path, name: &str, lines: &[Value]) -> PathBuf {
    let path = dir.join(name);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// One file holding both branches (the right one last: the active leaf is `aR2`).
fn branched(dir: &Path) -> PathBuf {
    let mut lines = start("s-diff");
    lines.extend(left());
    lines.extend(right());
    write(dir, "2026-01-01T00-00-00-000Z_s-diff.jsonl", &lines)
}

fn diff(env_width: Option<usize>, args: &[&str]) -> Run {
    let mut env = example_env();
    env.width = env_width;
    let mut all = vec!["diff"];
    all.extend_from_slice(args);
    run_with(env, &all, b"")
}

fn json_of(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let r = diff(None, &all);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1, "one object");
    serde_json::from_str(&r.stdout).unwrap()
}

#[test]
fn two_leaves_of_one_file_part_at_their_common_entry() {
    let dir = tempfile::tempdir().unwrap();
    let file = branched(dir.path());
    let f = file.to_str().unwrap();
    let (a, b) = (format!("{f}@aL2"), format!("{f}@aR2"));
    let j = json_of(&[&a, &b]);
    assert_eq!(j["parted"]["by"], "id");
    assert_eq!(j["parted"]["common"]["a"]["entryId"], "a2");
    assert_eq!(j["parted"]["common"]["b"]["entryId"], "a2");
    assert_eq!(j["parted"]["next"]["a"]["entryId"], "uL");
    assert_eq!(j["parted"]["next"]["b"]["entryId"], "uR");
    assert_eq!(j["a"]["leaf"], json!({"entryId": "aL2", "fileLine": 10}));
    let (fa, fb, d) = (&j["a"]["figures"], &j["b"]["figures"], &j["delta"]);
    assert_eq!(fa["assistantMessages"], 4);
    assert_eq!(fb["assistantMessages"], 4);
    assert_eq!(fa["toolErrors"], 1);
    assert_eq!(fb["compactions"], 1);
    assert_eq!(d["toolCalls"], 1);
    assert_eq!(d["toolErrors"], -1);
    assert_eq!(d["compactions"], 1);
    // The same file without @: its active leaf, the right branch.
    let j2 = json_of(&[&a, f]);
    assert_eq!(j2["b"]["leaf"]["entryId"], "aR2");
    assert_eq!(j2["delta"], j["delta"]);
    // A leaf and its own ancestor: B ends where they part.
    let j3 = json_of(&[&a, &format!("{f}@a2")]);
    assert_eq!(j3["parted"]["common"]["a"]["entryId"], "a2");
    assert_eq!(j3["parted"]["next"]["b"], Value::Null);
    // The calls aligned: the read both made, then each side's own.
    let ops: Vec<(String, String)> = (j["calls"].as_array().unwrap().iter())
        .map(|c| {
            (
                c["op"].as_str().unwrap().to_owned(),
                c["key"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(ops[0], ("same".to_owned(), "read src/x.rs".to_owned()));
    assert_eq!(
        ops.iter().filter(|(op, _)| op == "onlyA").count(),
        1,
        "{ops:?}"
    );
    assert!(
        ops.contains(&("same".to_owned(), "bash cargo".to_owned())),
        "{ops:?}"
    );
    assert_eq!(
        ops.iter().filter(|(op, _)| op == "onlyB").count(),
        2,
        "{ops:?}"
    );
    let failed = (j["calls"].as_array().unwrap().iter())
        .find(|c| c["key"] == "bash cargo" && c["op"] == "same")
        .unwrap();
    assert_eq!(failed["a"]["failed"], true);
    assert_eq!(failed["b"]["failed"], false);
    // Files: the read both, the edit A's, the hostile write B's.
    let files: Vec<(&str, &str)> = (j["files"].as_array().unwrap().iter())
        .map(|f| (f["path"].as_str().unwrap(), f["touched"].as_str().unwrap()))
        .collect();
    assert_eq!(
        files,
        [("src/\u{1b}[31mred\ny.rs", "onlyB"), ("src/x.rs", "both")]
    );
}

#[test]
fn unpriced_usage_on_one_side_makes_the_cost_change_unknown_never_zero() {
    let dir = tempfile::tempdir().unwrap();
    let file = branched(dir.path());
    let f = file.to_str().unwrap();
    let j = json_of(&[&format!("{f}@aL2"), &format!("{f}@aR2")]);
    assert_eq!(j["b"]["figures"]["cost"], 0.02);
    assert!(j["b"]["figures"]["unpricedTokens"].as_f64().unwrap() > 0.0);
    assert_eq!(j["delta"]["cost"], Value::Null, "cannot be told");
    assert!((j["delta"]["input"].as_f64().unwrap()).abs() < 1e-9);
    let r = diff(None, &[&format!("{f}@aL2"), &format!("{f}@aR2")]);
    let cost = r.stdout.lines().find(|l| l.starts_with("cost")).unwrap();
    assert!(
        cost.contains("$0.02+") && cost.trim_end().ends_with('?'),
        "{cost}"
    );
    // Priced both sides: a number.
    let j = json_of(&[&format!("{f}@aL2"), &format!("{f}@a2")]);
    assert!(
        (j["delta"]["cost"].as_f64().unwrap() + 0.03).abs() < 1e-12,
        "{}",
        j["delta"]
    );
}

#[test]
fn unrelated_files_part_where_what_the_model_was_sent_differs() {
    let dir = tempfile::tempdir().unwrap();
    let a = branched(dir.path());
    // Another run of the same request: other ids, other times, the same first messages.
    let mut other: Vec<Value> = start("s-other")
        .into_iter()
        .map(|mut e| {
            for key in ["id", "parentId"] {
                if let Some(id) = e[key].as_str() {
                    e[key] = json!(format!("{id}-b"));
                }
            }
            if e["type"] == "message" {
                e["timestamp"] = json!(at(300));
                e["message"]["timestamp"] = json!(ms(300));
            }
            e
        })
        .collect();
    other.push(user("x", Some("a2-b"), "something else", 301));
    let b = write(dir.path(), "other.jsonl", &other);
    // At A's left leaf (its right one starts from a compaction's summary).
    let left = format!("{}@aL2", a.display());
    let j = json_of(&[&left, b.to_str().unwrap()]);
    assert_eq!(j["parted"]["by"], "context");
    assert_eq!(j["parted"]["common"]["a"]["entryId"], "a2");
    assert_eq!(j["parted"]["common"]["b"]["entryId"], "a2-b");
    assert_eq!(j["parted"]["next"]["b"]["entryId"], "x");
    // Nothing shared: said, and the figures still compared.
    let c = write(
        dir.path(),
        "third.jsonl",
        &[
            json!({"type": "session", "version": 3, "id": "s3", "timestamp": at(0), "cwd": "/w"}),
            user("q", None, "another task", 1),
        ],
    );
    let j = json_of(&[a.to_str().unwrap(), c.to_str().unwrap()]);
    assert_eq!(j["parted"]["common"], Value::Null);
    assert_eq!(j["parted"]["by"], Value::Null);
    assert_eq!(j["delta"]["assistantMessages"], -4);
    let r = diff(None, &[a.to_str().unwrap(), c.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("no common entry"), "{}", r.stdout);
}

#[test]
fn hostile_names_are_escaped_in_every_form() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = start("s-\u{1b}]0;x\u{7}");
    lines.extend(right());
    let file = write(dir.path(), "run\u{1b}[2J.jsonl", &lines);
    let f = file.to_str().unwrap();
    for format in [&[][..], &["--format", "md"][..]] {
        let mut args = vec![f, f];
        args.extend_from_slice(format);
        let r = diff(Some(80), &args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(!r.stdout.contains('\u{1b}'), "{}", r.stdout);
        assert!(r.stdout.contains(r"run\u{1b}[2J.jsonl"), "{}", r.stdout);
    }
    let md = diff(None, &[&format!("{f}@a2"), f, "--format", "md"]).stdout;
    assert!(md.contains("```diff\n"), "{md}");
    assert!(md.contains(r"+ write src/\u{1b}[31mred\ny.rs"), "{md}");
}

#[test]
fn exit_codes_say_whether_it_compared() {
    let dir = tempfile::tempdir().unwrap();
    let file = branched(dir.path());
    let f = file.to_str().unwrap();
    let missing = dir.path().join("missing.jsonl");
    let r = diff(None, &[f, missing.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let r = diff(None, &[f, &format!("{f}@nosuch")]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("no entry 'nosuch'"), "{}", r.stderr);
    let r = diff(None, &[f, &format!("{f}@")]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    // A file whose name holds an @ is that file.
    let at_name = write(dir.path(), "run@2.jsonl", &start("s-at"));
    let r = diff(None, &[f, at_name.to_str().unwrap(), "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn human_output_fits_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let file = branched(dir.path());
    let f = file.to_str().unwrap();
    for width in [80, 120] {
        let r = diff(Some(width), &[&format!("{f}@aL2"), f]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        for line in r.stdout.lines() {
            assert!(
                unicode_width::UnicodeWidthStr::width(line) <= width,
                "{line:?}"
            );
        }
        snap!(format!("diff_width_{width}"), r.stdout);
    }
    let md = diff(None, &[&format!("{f}@aL2"), f, "--format", "md"]);
    snap!("diff_md", md.stdout);
}

/// `tests/differential/diff.mjs` run by node with pi 1.6.0 (`$PI_PKG_DIR`, else /tmp/pipkg),
/// writing into `dir`: its JSON, or `None` when pi or node is missing (a failure under CI).
fn pi_branches(dir: &Path) -> Option<Value> {
    let prefix =
        std::env::var_os("PI_PKG_DIR").map_or_else(|| PathBuf::from("/tmp/pipkg"), PathBuf::from);
    let dist = prefix.join("node_modules/@earendil-works/pi-coding-agent/dist");
    if !dist.join("core/session-manager.js").is_file() {
        crate::common::missing_tool("pi 1.6.0 (set PI_PKG_DIR to an npm prefix that has it)");
        return None;
    }
    let script = crate::common::repo().join("tests/differential/diff.mjs");
    let Ok(out) = std::process::Command::new("node")
        .arg(script)
        .arg(&dist)
        .arg(dir)
        .output()
    else {
        crate::common::missing_tool("node");
        return None;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// Exact: for two leaves pi's SessionManager branched at a known entry, the common entry is
/// that entry, the first entry of each side is the one pi appended after it, and every change
/// is the difference of pi's getSessionStats of each branch's createBranchedSession copy.
#[test]
fn two_leaves_pi_branched_part_where_pi_branched_them_and_differ_by_pis_figures() {
    let dir = tempfile::tempdir().unwrap();
    let Some(pi) = pi_branches(dir.path()) else {
        return;
    };
    let file = pi["file"].as_str().unwrap();
    let a = format!("{file}@{}", pi["leafA"].as_str().unwrap());
    let b = format!("{file}@{}", pi["leafB"].as_str().unwrap());
    let j = json_of(&[&a, &b]);
    assert_eq!(j["parted"]["by"], "id");
    assert_eq!(j["parted"]["common"]["a"]["entryId"], pi["fork"]);
    assert_eq!(j["parted"]["common"]["b"]["entryId"], pi["fork"]);
    assert_eq!(j["parted"]["next"]["a"]["entryId"], pi["firstA"]);
    assert_eq!(j["parted"]["next"]["b"]["entryId"], pi["firstB"]);
    let (sa, sb) = (&pi["statsA"], &pi["statsB"]);
    let num = |v: &Value| v.as_f64().unwrap();
    for (ours, theirs) in [
        ("userMessages", "/userMessages"),
        ("assistantMessages", "/assistantMessages"),
        ("toolCalls", "/toolCalls"),
        ("toolResults", "/toolResults"),
        ("input", "/tokens/input"),
        ("output", "/tokens/output"),
        ("cacheRead", "/tokens/cacheRead"),
        ("cacheWrite", "/tokens/cacheWrite"),
        ("totalTokens", "/tokens/total"),
    ] {
        let want = num(sb.pointer(theirs).unwrap()) - num(sa.pointer(theirs).unwrap());
        assert_eq!(num(&j["delta"][ours]), want, "{ours}");
        assert_eq!(
            num(&j["a"]["figures"][ours]),
            num(sa.pointer(theirs).unwrap()),
            "A {ours}"
        );
        assert_eq!(
            num(&j["b"]["figures"][ours]),
            num(sb.pointer(theirs).unwrap()),
            "B {ours}"
        );
    }
    let want = num(&sb["cost"]) - num(&sa["cost"]);
    let got = num(&j["delta"]["cost"]);
    assert!((got - want).abs() <= 1e-12, "cost {got} != {want}");
    // The branches differ in every way the fixture made them: nothing compared is trivially 0.
    assert_ne!(j["delta"]["toolCalls"], 0);
    assert_eq!(j["delta"]["compactions"], 1);
}

#[test]
fn prices_estimate_the_unpriced_side_apart_from_the_recorded_cost() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines = start("s-priced");
    let mut free = assistant(
        "f1",
        "a2",
        json!([{"type": "text", "text": "cheap"}]),
        0.0,
        "deepseek-chat",
        5,
    );
    free["message"]["provider"] = json!("deepseek");
    // The table has no cache prices for this model: only input and output tokens.
    free["message"]["usage"]["cacheRead"] = json!(0);
    free["message"]["usage"]["cacheWrite"] = json!(0);
    lines.push(free);
    let file = write(dir.path(), "priced.jsonl", &lines);
    let f = file.to_str().unwrap();
    let table = crate::common::repo().join("tests/prices/litellm.json");
    let args = [
        &format!("{f}@a2") as &str,
        f,
        "--prices",
        table.to_str().unwrap(),
    ];
    let j = json_of(&args);
    let (fa, fb) = (&j["a"]["figures"], &j["b"]["figures"]);
    assert_eq!(fa["estimatedMessages"], 0);
    assert_eq!(fb["estimatedMessages"], 1, "{fb}");
    let estimated = fb["estimatedCost"].as_f64().unwrap();
    assert!(estimated > 0.0, "{fb}");
    assert_eq!(
        fb["cost"], fa["cost"],
        "the estimate is never added to pi's cost"
    );
    assert_eq!(j["delta"]["cost"], Value::Null);
    assert_eq!(j["delta"]["estimatedCost"].as_f64(), Some(estimated));
    let r = diff(Some(80), &args);
    let row = r
        .stdout
        .lines()
        .find(|l| l.starts_with("estimated"))
        .unwrap();
    assert!(
        row.contains('~')
            && row
                .trim_end()
                .ends_with(&format!("~+{}", pisess::views::style::cost(estimated))),
        "{row}"
    );
    assert!(r.stdout.contains("estimated from"), "{}", r.stdout);
}

#[test]
fn standard_input_is_read_once_for_two_leaves_and_seed000_failures_count() {
    let r = run_with(
        example_env(),
        // `-@e2` starts with a dash: after `--`, as any such argument.
        &["diff", "--json", "--", "-@e2", "-"],
        crate::common::SEED000_FAILED_TOOL.as_bytes(),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(j["a"]["path"], "-");
    assert_eq!(j["parted"]["common"]["a"]["entryId"], "e2");
    assert_eq!(j["parted"]["next"]["b"]["entryId"], "e3");
    // The one call, `ls src`, failed in a seed-000 `tool_result` block of a user message.
    let call = &j["calls"][0];
    assert_eq!(
        (&call["op"], &call["key"], &call["b"]["failed"]),
        (&json!("same"), &json!("bash ls"), &json!(true))
    );
    assert_eq!(j["delta"]["toolErrors"], 1);
}

#[test]
fn each_sides_files_are_what_files_branch_counts() {
    let dir = tempfile::tempdir().unwrap();
    let file = branched(dir.path());
    let f = file.to_str().unwrap();
    let j = json_of(&[&format!("{f}@aL2"), f]);
    let r = run_with(example_env(), &["files", "--branch", "--json", f], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ours: Vec<(Value, Value)> = (j["files"].as_array().unwrap().iter())
        .filter(|f| !f["b"].is_null())
        .map(|f| (f["path"].clone(), f["b"].clone()))
        .collect();
    let theirs: Vec<(Value, Value)> = (files.iter())
        .map(|f| {
            let counts = json!({"reads": f["reads"], "writes": f["writes"], "edits": f["edits"], "errors": f["errors"]});
            (f["path"].clone(), counts)
        })
        .collect();
    assert_eq!(ours, theirs);
    assert_eq!(ours.len(), 2);
}

/// The figures summed from the index's pass (`views/diff/records`) are those of the branch
/// read as a file of its own (the read `--prices` still makes, for its tally): on two leaves
/// of one file, on two files, and on every pair of the bundled examples.
#[test]
fn summed_branches_equal_the_branch_read_as_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = branched(dir.path());
    let f = file.to_str().unwrap();
    let other = write(dir.path(), "left.jsonl", &{
        let mut lines = start("s-left");
        lines.extend(left());
        lines
    });
    let table = crate::common::repo().join("tests/prices/litellm.json");
    let mut pairs = vec![
        (format!("{f}@aL2"), f.to_owned()),
        (other.to_str().unwrap().to_owned(), f.to_owned()),
    ];
    let examples: Vec<String> = std::fs::read_dir(crate::common::repo().join("examples/sessions"))
        .unwrap()
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).into_iter().flatten())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| p.to_str().unwrap().to_owned())
        .collect();
    assert!(examples.len() > 3, "{examples:?}");
    for w in examples.windows(2) {
        pairs.push((w[0].clone(), w[1].clone()));
    }
    let drop_estimates = |mut j: Value| {
        for side in ["a", "b"] {
            let figures = j[side]["figures"].as_object_mut().unwrap();
            figures.retain(|k, _| !k.starts_with("estimated") && !k.starts_with("unestimated"));
        }
        j["delta"].as_object_mut().unwrap().remove("estimatedCost");
        j
    };
    for (a, b) in &pairs {
        let summed = json_of(&[a, b]);
        let read = json_of(&[a, b, "--prices", table.to_str().unwrap()]);
        assert_eq!(summed, drop_estimates(read), "{a} {b}");
    }
}

/// Runs with few differences are aligned as before whatever the limit; `--minimal` is the
/// fewest rows for runs with very many.
#[test]
fn minimal_aligns_with_the_fewest_rows() {
    let dir = tempfile::tempdir().unwrap();
    // Two runs of 2,000 calls over eight keys, unrelated: past the limit's 512 differences.
    let run = |name: &str, seed: u64| {
        let mut s = seed;
        let mut lines = vec![
            json!({"type": "session", "version": 3, "id": name, "timestamp": at(0), "cwd": "/w"}),
        ];
        let mut parent = "u".to_owned();
        lines.push(user("u", None, "go", 1));
        for i in 0..2000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let id = format!("a{i}");
            let path = format!("/w/f{}", s % 8);
            let calls = json!([call(&format!("c{i}"), "read", json!({"path": path}))]);
            lines.push(assistant(&id, &parent, calls, 0.01, "m", 2));
            parent = id;
        }
        write(dir.path(), &format!("{name}.jsonl"), &lines)
    };
    let (a, b) = (run("x", 0x9e37_79b9), run("y", 0x7f4a_7c15));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let rows = |j: &Value| j["calls"].as_array().unwrap().len();
    let (limited, minimal) = (json_of(&[a, b]), json_of(&[a, b, "--minimal"]));
    // The limit cut these (2,994 rows, not 2,976): fewer rows only with --minimal.
    assert!(
        rows(&minimal) < rows(&limited),
        "{} {}",
        rows(&minimal),
        rows(&limited)
    );
    for j in [&limited, &minimal] {
        for side in ["a", "b"] {
            let order: Vec<u64> = (j["calls"].as_array().unwrap().iter())
                .filter_map(|c| c[side]["index"].as_u64())
                .collect();
            assert_eq!(
                order,
                (0..2000).collect::<Vec<u64>>(),
                "every call once, in order"
            );
        }
    }
    // A run against itself with a call more: the same, limited or not.
    assert_eq!(json_of(&[&format!("{a}@a1990"), a]), {
        json_of(&[&format!("{a}@a1990"), a, "--minimal"])
    });
}
