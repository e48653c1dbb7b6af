//! `pisess check`: every assertion holding and failing on crafted sessions, the integrity
//! findings, the exit codes (0 held, 1 failed, 2 could not check), the JSON, the JUnit XML read
//! back by a real XML parser, the Markdown summary, and the guide's GitHub Actions steps.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::common::{env_in, examples_agent_dir, repo, run_with, Run};
use crate::snap;

const BIN: &str = env!("CARGO_BIN_EXE_pisess");

const HEADER: &str = r#"{"type":"session","version":3,"id":"0196aaaa-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

fn usage(cost: f64) -> Value {
    json!({"input":1000,"output":200,"cacheRead":50,"cacheWrite":0,"totalTokens":1250,"cost":{"total":cost}})
}

/// `id` → `parent`, a message entry at minute `min`.
fn message(id: &str, parent: Option<&str>, min: u32, message: Value) -> Value {
    let mut message = message;
    message["timestamp"] = json!(1_767_225_600_000_i64 + i64::from(min) * 60_000);
    json!({"type":"message","id":id,"parentId":parent,
           "timestamp":format!("2026-01-01T00:{min:02}:00.000Z"),"message":message})
}

/// A run that asked for a fix, ran bash (which failed once), and ended with a stop. An
/// abandoned branch (off `u1`) called `edit`; the active branch never did.
fn good_run() -> Vec<Value> {
    vec![
        message(
            "u1",
            None,
            0,
            json!({"role":"user","content":"fix the test"}),
        ),
        message(
            "a1",
            Some("u1"),
            1,
            json!({"role":"assistant","content":[
            {"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"npm test"}}],
            "provider":"anthropic","model":"m","usage":usage(0.75),"stopReason":"toolUse"}),
        ),
        message(
            "r1",
            Some("a1"),
            2,
            json!({"role":"toolResult","toolCallId":"c1","toolName":"bash",
            "content":[{"type":"text","text":"1 failing"}],"isError":true}),
        ),
        message(
            "x1",
            Some("u1"),
            3,
            json!({"role":"assistant","content":[
            {"type":"toolCall","id":"c9","name":"edit","arguments":{}}],
            "provider":"anthropic","model":"m","usage":usage(0.0),"stopReason":"toolUse"}),
        ),
        message(
            "a2",
            Some("r1"),
            10,
            json!({"role":"assistant","content":[
            {"type":"thinking","thinking":"done"},{"type":"text","text":"Fixed <it> & all tests pass."}],
            "provider":"anthropic","model":"m","usage":usage(0.75),"stopReason":"stop"}),
        ),
    ]
}

fn text(lines: &[Value]) -> String {
    let mut text = format!("{HEADER}\n");
    for l in lines {
        text.push_str(&l.to_string());
        text.push('\n');
    }
    text
}

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, body).unwrap();
    path
}

/// `pisess check ARGS...` in-process, with `body` on stdin (read when ARGS hold `-`).
fn check(args: &[&str], body: &str) -> Run {
    let env = env_in(&examples_agent_dir(), "/home/dev/webshop");
    let args: Vec<&str> = std::iter::once("check")
        .chain(args.iter().copied())
        .collect();
    run_with(env, &args, body.as_bytes())
}

fn lines_of(r: &Run) -> Vec<&str> {
    r.stdout.lines().collect()
}

#[test]
fn every_assertion_holds_on_a_good_run() {
    let r = check(
        &[
            "-",
            "--max-cost",
            "2",
            // The abandoned branch's message recorded cost 0 for its tokens (no price).
            "--unpriced",
            "ok",
            "--max-tokens",
            "5000",
            "--max-turns",
            "3",
            "--max-duration",
            "15m",
            "--max-tool-errors",
            "1",
            "--ended",
            "--require-tool",
            "bash",
            "--forbid-tool",
            "edit",
            "--require-text",
            "(?i)ALL TESTS PASS",
            "--no-malformed",
            "--integrity",
        ],
        &text(&good_run()),
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        lines_of(&r),
        [
            "0196aaaa  -",
            "ok   integrity: 0 findings",
            "ok   max-cost: $1.50+ (1.2k tokens without a price) <= $2.00",
            "ok   max-tokens: 3750 <= 5000",
            "ok   max-turns: 3 <= 3",
            "ok   max-duration: 10m 0s <= 15m",
            "ok   max-tool-errors: 1 <= 1",
            "ok   no-malformed: 0 malformed lines",
            "ok   ended: assistant, stopReason stop",
            "ok   require-tool bash: 1 call on the active branch",
            "ok   forbid-tool edit: 0 calls on the active branch",
            "ok   require-text: matched \"all tests pass\"",
            "ok: all 11 assertions held",
        ]
    );
}

#[test]
fn each_assertion_fails_with_its_measure_and_limit() {
    let body = text(&good_run());
    let cases: [(&[&str], &str); 10] = [
        (&["--max-cost", "1"], "FAIL max-cost: $1.50 > $1.00"),
        (&["--max-cost", "1.4999"], "FAIL max-cost: $1.5000 > $1.50"),
        (&["--max-tokens", "3749"], "FAIL max-tokens: 3750 > 3749"),
        (&["--max-turns", "2"], "FAIL max-turns: 3 > 2"),
        (&["--max-duration", "5m"], "FAIL max-duration: 10m 0s > 5m"),
        (&["--no-tool-errors"], "FAIL no-tool-errors: 1 > 0"),
        (&["--max-tool-errors", "0"], "FAIL max-tool-errors: 1 > 0"),
        // The call to edit is on the abandoned branch only.
        (
            &["--require-tool", "edit"],
            "FAIL require-tool edit: 0 calls on the active branch; want at least 1",
        ),
        (
            &["--forbid-tool", "bash"],
            "FAIL forbid-tool bash: 1 call on the active branch; want none",
        ),
        (
            &["--require-text", "^nope"],
            "FAIL require-text: no match in the final assistant text; want /^nope/",
        ),
    ];
    for (flags, want) in cases {
        let mut args = vec!["-"];
        args.extend_from_slice(flags);
        let r = check(&args, &body);
        assert_eq!(r.code, 1, "{flags:?}: {}{}", r.stdout, r.stderr);
        let lines = lines_of(&r);
        assert_eq!(lines[1], want, "{flags:?}");
        // A failed tool-error assertion lists the calls between.
        assert_eq!(
            lines.last(),
            Some(&"FAIL: 1 of 1 assertions failed"),
            "{flags:?}"
        );
    }
}

#[test]
fn ended_fails_on_an_error_an_abort_or_a_tool_result_last() {
    // The leaf is the last entry: without the final answer and the abandoned call, the result.
    let mut run = good_run();
    run.pop();
    run.remove(3);
    let r = check(&["-", "--ended"], &text(&run));
    assert_eq!(r.code, 1);
    assert_eq!(
        lines_of(&r)[1],
        "FAIL ended: the last message is toolResult; want assistant, stopReason stop"
    );
    for reason in ["error", "aborted", "length"] {
        let mut run = good_run();
        let last = run.last_mut().unwrap();
        last["message"]["stopReason"] = json!(reason);
        last["message"]["errorMessage"] = json!("overloaded\nretry");
        let r = check(&["-", "--ended"], &text(&run));
        assert_eq!(r.code, 1, "{reason}");
        assert_eq!(
            lines_of(&r)[1],
            format!("FAIL ended: assistant, stopReason {reason}: overloaded retry; want assistant, stopReason stop")
        );
    }
    // The leaf pi resumes at is the last entry in the file: here the abandoned branch's call.
    let mut run = good_run();
    let abandoned = run.remove(3);
    run.push(abandoned);
    let r = check(&["-", "--ended", "--require-tool", "edit"], &text(&run));
    assert_eq!(r.code, 1);
    assert!(r
        .stdout
        .contains("FAIL ended: assistant, stopReason toolUse"));
    assert!(r.stdout.contains("ok   require-tool edit: 1 call"));
    // No message at all: nothing ended, and nothing to match.
    let r = check(&["-", "--ended", "--require-text", "x"], &text(&[]));
    assert_eq!(r.code, 1);
    assert!(r
        .stdout
        .contains("FAIL ended: no message on the active branch"));
    assert!(r
        .stdout
        .contains("FAIL require-text: no assistant message on the active branch"));
}

#[test]
fn no_malformed_counts_malformed_lines() {
    let mut body = text(&good_run());
    body.insert_str(HEADER.len() + 1, "{not json\n");
    let r = check(&["-", "--no-malformed", "-q"], &body);
    assert_eq!(r.code, 1);
    assert_eq!(
        lines_of(&r)[1],
        "FAIL no-malformed: 1 malformed line; want none"
    );
    // The warning is on stderr, with its line, unless -q.
    let r = check(&["-", "--no-malformed"], &body);
    assert!(r.stderr.contains("pisess: warning: -:2: "), "{}", r.stderr);
}

#[test]
fn integrity_is_the_default_and_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let ok = write(dir.path(), "ok.jsonl", &text(&good_run()));
    let r = check(&[ok.to_str().unwrap()], "");
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        lines_of(&r)[1..],
        ["ok   integrity: 0 findings", "ok: the assertion held"]
    );

    let broken = [
        message("a", Some("c"), 0, json!({"role":"user","content":"x"})),
        message("b", Some("a"), 1, json!({"role":"user","content":"x"})),
        message("c", Some("b"), 2, json!({"role":"user","content":"x"})),
        message("d", Some("gone"), 3, json!({"role":"user","content":"x"})),
        json!({"type":"label","id":"e","parentId":"d","targetId":"nobody","label":"l"}),
        json!({"type":"context_edit","id":"f","parentId":"e","targetId":"ghost","replacement":null}),
        json!({"type":"compaction","id":"g","parentId":"f","firstKeptEntryId":"lost","summary":"s","tokensBefore":1}),
        json!({"type":"mystery","id":"h","parentId":"g"}),
        message("i", Some("h"), 4, json!({"role":"wizard","content":"x"})),
        message("i", Some("h"), 5, json!({"role":"user","content":"again"})),
    ];
    let mut body = text(&broken);
    body.push_str("{\"type\":\"message\",\"id\":\"j\"");
    let bad = write(dir.path(), "bad.jsonl", &body);
    let name = bad.display().to_string();
    let r = check(&[&name, "-q"], "");
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let findings: Vec<String> = r
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("     "))
        .map(|l| l.strip_prefix(&format!("{name}:")).unwrap().to_owned())
        .collect();
    assert_eq!(
        findings,
        [
            "2: entry a: its parents loop back to it (a cycle; pi would hang)",
            "5: entry d: parent gone is not in the file",
            "6: entry e: label targetId nobody names no entry",
            "7: entry f: context_edit targetId ghost names no entry",
            "8: entry g: compaction firstKeptEntryId lost names no entry",
            "9: entry h: unknown type \"mystery\"",
            "10: entry i: unknown message role \"wizard\"",
            "11: duplicate id i (also on line 10); the later entry wins",
            "12: the last line is cut short (no newline, not JSON): pi may still be writing it",
        ]
    );
    assert_eq!(lines_of(&r)[1], "FAIL integrity: 9 findings; want none");

    // A session pi cannot read at all is not a failed check but no check: exit 2.
    let foreign = write(dir.path(), "foreign.jsonl", "{\"type\":\"message\"}\n");
    let r = check(&[foreign.to_str().unwrap()], "");
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("not a pi session"), "{}", r.stderr);
}

#[test]
fn exit_codes_separate_the_agent_from_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.jsonl", &text(&good_run()));
    let good = good.to_str().unwrap();
    // No session for this project: never 0.
    let empty = tempfile::tempdir().unwrap();
    let env = env_in(empty.path(), "/home/dev/nothing");
    let r = run_with(env.clone(), &["check"], b"");
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r
        .stderr
        .starts_with("pisess: error: no sessions for /home/dev/nothing"));
    assert!(r.stdout.is_empty());
    let r = run_with(env, &["check", "--all", "--since", "1h", "--ended"], b"");
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("no session to check in any project modified since 1h"),
        "{}",
        r.stderr
    );
    // An unreadable file (a directory by a session's name), and a name that matches nothing.
    let unreadable = dir.path().join("dir.jsonl");
    fs::create_dir(&unreadable).unwrap();
    let r = check(&[unreadable.to_str().unwrap()], "");
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("dir.jsonl: not a regular file (a directory)"),
        "{}",
        r.stderr
    );
    // The worst result decides: held + failed is 1, held + not checked is 2.
    let failing = write(dir.path(), "failing.jsonl", &text(&good_run()[..3]));
    let r = check(&[good, failing.to_str().unwrap(), "--ended"], "");
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout
            .ends_with("\nFAIL: 2 sessions checked, 1 passed, 1 failed\n"),
        "{}",
        r.stdout
    );
    let r = check(&[good, "nosuch", "--ended"], "");
    assert_eq!(r.code, 2);
    assert!(r
        .stdout
        .contains("nosuch\nERROR: could not check: no session matches 'nosuch'"));
    assert!(
        r.stdout.ends_with(", 1 could not be checked\n"),
        "{}",
        r.stdout
    );
    assert!(r
        .stderr
        .starts_with("pisess: error: nosuch: no session matches"));
    // Bad values are usage errors, 2, before anything is read.
    for bad in [
        &["--max-cost", "two"][..],
        &["--max-cost", "-1"],
        &["--max-duration", "soon"],
        &["--max-duration", "3y"],
        &["--require-text", "("],
        &["--require-tool", " "],
        &["--json", "--summary", "-"],
    ] {
        let out = Command::new(BIN)
            .arg("check")
            .arg(good)
            .args(bad)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("pisess: error: "), "{bad:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{bad:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{bad:?}");
    }
    let out = Command::new(BIN)
        .args(["check", "--max-cots", "2", good])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // The real process maps them the same way.
    let out = Command::new(BIN)
        .args(["check", good, "--max-turns", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = Command::new(BIN).args(["check", good]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn several_sessions_by_listing() {
    // Every bundled session: the damaged one has findings, so the run fails.
    let r = check(&["--all", "-q"], "");
    assert_eq!(r.code, 1, "{}", r.stdout);
    let last = r.stdout.lines().last().unwrap();
    assert_eq!(last, "FAIL: 14 sessions checked, 12 passed, 2 failed");
    assert!(r.stdout.contains(
        "2025-05-21T22-10-05-005Z_0196f4e5-864d-7b22-bdcc-527238d11c42.jsonl:6: malformed JSON"
    ));
    // This project's, in a window that holds none of them: nothing to check is not a pass.
    let r = check(&["--since", "2025-06-01"], "");
    assert_eq!(r.code, 2);
    assert!(r
        .stderr
        .contains("no session to check in this project modified since 2025-06-01"));
    let r = check(&["--since", "2025-05-17", "--max-cost", "1"], "");
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.stdout.matches("ok   max-cost").count(), 2);
}

#[test]
fn json_is_one_object_per_session() {
    let r = check(
        &["-", "--max-cost", "1", "--ended", "--json"],
        &text(&good_run()),
    );
    assert_eq!(r.code, 1);
    let lines: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    let v = &lines[0];
    assert_eq!(v["session"], "0196aaaa-0000-7000-8000-000000000001");
    assert_eq!(v["path"], "-");
    assert_eq!(v["status"], "failed");
    assert_eq!(
        v["assertions"][0],
        json!({"name":"max-cost","status":"fail","measured":1.5,"limit":1,
               "message":"max-cost: $1.50 > $1.00"})
    );
    assert_eq!(v["assertions"][1]["status"], "ok");
    assert_eq!(
        v["assertions"][1]["measured"],
        json!({"role":"assistant","stopReason":"stop"})
    );
    assert_eq!(
        v["figures"],
        json!({"cost":1.5,"unpricedTokens":1250,"totalTokens":3750,"negativeCost":false,"negativeTokens":false,"assistantMessages":3,"userMessages":1,
               "toolCalls":2,"toolResults":1,"toolErrors":1,"durationMs":600_000,"activeMs":600_000,
               "malformedLines":0,"entries":5})
    );
    assert_eq!(v["findings"], json!([]));
    // A session that could not be checked is an object too, with its error.
    let r = check(&["nosuch", "--json"], "");
    assert_eq!(r.code, 2);
    let v: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["status"], "error");
    assert!(v["error"].as_str().unwrap().contains("no session matches"));
}

#[test]
fn junit_reads_back_with_an_xml_parser() {
    let dir = tempfile::tempdir().unwrap();
    let xml_path = dir.path().join("check.xml");
    let mut run = good_run();
    // Text from the session (a tool name) with XML's specials and a control character.
    run[1]["message"]["content"][0]["name"] = json!("b<a>s&h\"\u{1b}'");
    let body = text(&run);
    let r = check(
        &[
            "-",
            "--max-cost",
            "1",
            "--ended",
            "--forbid-tool",
            "b<a>s&h\"\u{1b}'",
            "--junit",
            xml_path.to_str().unwrap(),
        ],
        &body,
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let xml = fs::read_to_string(&xml_path).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(
        (
            root.attribute("tests"),
            root.attribute("failures"),
            root.attribute("errors")
        ),
        (Some("3"), Some("2"), Some("0"))
    );
    let suite = root.first_element_child().unwrap();
    assert_eq!(
        suite.attribute("name"),
        Some("0196aaaa-0000-7000-8000-000000000001")
    );
    let cases: Vec<_> = suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let names: Vec<_> = cases.iter().map(|c| c.attribute("name").unwrap()).collect();
    assert_eq!(
        names,
        ["max-cost", "ended", "forbid-tool b<a>s&h\"\\u{1b}'"]
    );
    let failure = |i: usize| cases[i].children().find(|n| n.has_tag_name("failure"));
    assert_eq!(
        failure(0).unwrap().attribute("message"),
        Some("max-cost: $1.50 > $1.00")
    );
    assert!(failure(1).is_none());
    assert_eq!(failure(2).unwrap().attribute("type"), Some("forbid-tool"));

    // Integrity findings are the failure's text; an unreadable session is an <error>.
    let bad = write(dir.path(), "bad.jsonl", &format!("{HEADER}\nnot json\n"));
    let r = check(&[bad.to_str().unwrap(), "nosuch", "-q", "--junit", "-"], "");
    assert_eq!(r.code, 2);
    let doc = roxmltree::Document::parse(&r.stdout).unwrap();
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert!(
        failure
            .text()
            .unwrap()
            .ends_with("bad.jsonl:2: malformed JSON (expected ident at line 1 column 2)"),
        "{:?}",
        failure.text()
    );
    let error = doc.descendants().find(|n| n.has_tag_name("error")).unwrap();
    assert!(error
        .attribute("message")
        .unwrap()
        .contains("no session matches 'nosuch'"));
    assert_eq!(doc.root_element().attribute("errors"), Some("1"));
}

#[test]
fn markdown_summary() {
    let r = check(
        &[
            "-",
            "--summary",
            "-",
            "--max-cost",
            "1",
            "--ended",
            "--no-tool-errors",
        ],
        &text(&good_run()),
    );
    assert_eq!(r.code, 1);
    snap!("check_summary", r.stdout);
    // A file is appended to, as GitHub's step summary collects every step's.
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "summary.md", "earlier step\n");
    let r = check(
        &["-", "--summary", file.to_str().unwrap(), "--ended"],
        &text(&good_run()),
    );
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains("ok   ended"),
        "the lines still go to stdout"
    );
    let md = fs::read_to_string(&file).unwrap();
    assert!(
        md.starts_with("earlier step\n## ✅ pisess check: passed\n"),
        "{md}"
    );
    // `--summary "$GITHUB_STEP_SUMMARY"` with the variable unset: a usage error that says so,
    // before any verdict is printed.
    for flag in ["--summary", "--junit"] {
        let r = check(&["-", flag, "", "--ended"], &text(&good_run()));
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert_eq!(r.stdout, "", "no verdict before the error");
        assert!(
            r.stderr
                .contains(&format!("{flag}: the file name is empty")),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("GITHUB_STEP_SUMMARY"), "{}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    }
}

/// The GitHub Actions steps of docs/guide.md, run as written (each `run:` under bash -eo
/// pipefail, as Actions runs it): `pi` is a stand-in that writes a bundled example session
/// where pi would, then the guide's `pisess check` line must pass and write its reports.
#[cfg(unix)]
#[test]
fn the_guides_github_actions_steps_pass_on_an_example_session() {
    let guide = fs::read_to_string(repo().join("docs/guide.md")).unwrap();
    let section = &guide[guide.find("## Recipes: CI checks").unwrap()..];
    let yaml = section
        .split("```yaml\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let runs = run_lines(yaml);
    assert!(runs.iter().any(|r| r.starts_with("pi ")), "{runs:?}");
    assert!(runs.iter().any(|r| r.contains("pisess check")), "{runs:?}");

    let tmp = tempfile::tempdir().unwrap();
    let (bin, agent, work) = (
        tmp.path().join("bin"),
        tmp.path().join("agent"),
        tmp.path().join("work"),
    );
    for d in [&bin, &agent, &work] {
        fs::create_dir_all(d).unwrap();
    }
    std::os::unix::fs::symlink(BIN, bin.join("pisess")).unwrap();
    let example = repo().join(
        "examples/sessions/--home-dev-webshop--/2025-05-13T14-02-41-507Z_0196c9f4-6de3-72e6-909e-4956fe3ca2e7.jsonl",
    );
    let folder = agent
        .join("sessions")
        .join(pisess_store::locate::encode_cwd(&work.to_string_lossy()));
    let stub = format!(
        "#!/bin/sh\nmkdir -p '{}' && cp '{}' '{}/'\n",
        folder.display(),
        example.display(),
        folder.display()
    );
    fs::write(bin.join("pi"), stub).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(bin.join("pi"), fs::Permissions::from_mode(0o755)).unwrap();
    let summary = tmp.path().join("step_summary.md");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for script in &runs {
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
            .current_dir(&work)
            .env("PATH", &path)
            .env("PI_CODING_AGENT_DIR", &agent)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env_remove("PI_SESSION_FILE")
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{script}: {:?}\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let md = fs::read_to_string(&summary).unwrap();
    assert!(md.starts_with("## ✅ pisess check: passed"), "{md}");
    assert!(md.contains("`0196c9f4`"), "{md}");
    for junit in fs::read_dir(&work).unwrap().flatten() {
        let text = fs::read_to_string(junit.path()).unwrap();
        roxmltree::Document::parse(&text).unwrap();
    }
}

/// The shell of each `run:` in a workflow's steps: one line, or the indented block after `|`.
pub(crate) fn run_lines(yaml: &str) -> Vec<String> {
    let mut runs = Vec::new();
    let mut lines = yaml.lines().peekable();
    while let Some(line) = lines.next() {
        let Some((indent, rest)) = line.split_once("run:") else {
            continue;
        };
        let rest = rest.trim();
        if rest != "|" {
            runs.push(rest.to_owned());
            continue;
        }
        let depth = indent.len() + 2;
        let mut block = String::new();
        while let Some(next) = lines.next_if(|l| l.len() > depth && l[..depth].trim().is_empty()) {
            block.push_str(&next[depth..]);
            block.push('\n');
        }
        runs.push(block);
    }
    runs
}

#[test]
fn colour_only_when_asked_and_session_text_escaped() {
    let body = text(&good_run());
    let plain = check(&["-", "--ended", "--max-cost", "1"], &body);
    assert!(!plain.stdout.contains('\u{1b}'), "{}", plain.stdout);
    let coloured = check(
        &["-", "--ended", "--max-cost", "1", "--color", "always"],
        &body,
    );
    assert!(coloured.stdout.contains("\u{1b}["), "{}", coloured.stdout);
    // A tool name from the command line or a session is text from outside: escaped.
    let r = check(
        &["-", "--require-tool", "x\u{1b}[2J", "--color", "always"],
        &body,
    );
    assert!(
        r.stdout.contains("require-tool x\\u{1b}[2J: 0 calls"),
        "{}",
        r.stdout
    );
}

/// `pisess check … | head -1`: quiet, and the verdict still decides the exit code, so a closed
/// pipe cannot make a failed check pass.
#[test]
fn a_closed_pipe_keeps_the_verdict() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions").join("--p--");
    fs::create_dir_all(&dir).unwrap();
    // Far more output than a pipe holds: each session fails --ended (no assistant message).
    for i in 0..600 {
        let id = format!("{i:08x}-0000-7000-8000-000000000000");
        let body = format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}}\n{}\n",
            message("m", None, 1, json!({"role":"user","content":"hi"}))
        );
        fs::write(
            dir.join(format!("2026-01-01T00-00-00-000Z_{id}.jsonl")),
            body,
        )
        .unwrap();
    }
    let mut child = Command::new(BIN)
        .args(["--cwd", "/p", "check", "--all", "--ended"])
        .env("PI_CODING_AGENT_DIR", tmp.path())
        .env_remove("PI_SESSION_FILE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert!(first.ends_with(".jsonl\n"), "{first}");
    drop(reader);
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert_eq!(out.status.code(), Some(1));
}

/// The seed-000 dialect carries a failed tool's result as a `tool_result` block of a user
/// message: `check` counts it as a result and an error, as it does pi's toolResult messages.
#[test]
fn a_seed000_tool_result_block_with_is_error_is_a_tool_error() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp
        .path()
        .join("0196f8c8-1b00-7d21-8a44-6e0f9c3b7a12.jsonl");
    fs::write(&path, crate::common::SEED000_FAILED_TOOL).unwrap();
    let path = path.to_str().unwrap();
    let run = run_with(
        env_in(tmp.path(), "/Users/x/app"),
        &["check", "--no-tool-errors", "--json", path],
        b"",
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let v: Value = serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    let figures = &v["figures"];
    assert_eq!(
        (&figures["toolResults"], &figures["toolErrors"]),
        (&json!(1), &json!(1)),
        "{}",
        run.stdout
    );
}

/// A report is not written over the file on stdin (`check - --junit f < f`), session or not:
/// the run reads it.
#[test]
fn a_report_over_the_file_on_stdin_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.xml");
    fs::write(&notes, "not a session\n").unwrap();
    let mut env = env_in(&examples_agent_dir(), "/home/dev/webshop");
    env.stdin_file = Some(pisess_format::util::file::FileId::of(
        &fs::metadata(&notes).unwrap(),
    ));
    let file = notes.to_str().unwrap();
    let r = run_with(env, &["check", "-", "--junit", file], b"not a session\n");
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("the file on standard input"), "{r:?}");
    assert_eq!(fs::read_to_string(&notes).unwrap(), "not a session\n");
}

/// issue 42: a header `"version": 3.0` (or `3e0`, `"3"`, `[3]`) is version 3 to pi (`version >=
/// 3` on the parsed value); on 63e6fc9 it was read as version 1, the tree flattened, and a call
/// made only on an abandoned branch counted as on the active one.
#[test]
fn a_header_version_is_compared_as_pi_compares_it() {
    for version in ["3.0", "3e0", r#""3""#, "[3]"] {
        let body =
            text(&good_run()).replacen(r#""version":3"#, &format!(r#""version":{version}"#), 1);
        let r = check(
            &["-", "--require-tool", "edit", "--forbid-tool", "edit"],
            &body,
        );
        assert_eq!(r.code, 1, "version {version}: {}", r.stdout);
        assert!(
            r.stdout
                .contains("FAIL require-tool edit: 0 calls on the active branch"),
            "version {version}: {}",
            r.stdout
        );
        assert!(
            r.stdout.contains("ok   forbid-tool edit: 0 calls"),
            "version {version}: {}",
            r.stdout
        );
    }
}

/// issue 42: `--max-cost` over usage pi had no price for (tokens at a recorded cost of 0, as pi
/// writes for a model its registry cannot price) said a plain "ok" on 63e6fc9. Now it is
/// undecided (exit 2) in every report form unless `--unpriced ok|fail` says how to treat it;
/// a recorded cost over the limit still fails.
#[test]
fn max_cost_over_unpriced_usage_is_undecided_unless_told() {
    let unpriced = text(&[
        message("u1", None, 0, json!({"role":"user","content":"hi"})),
        message(
            "a1",
            Some("u1"),
            1,
            json!({"role":"assistant","content":[{"type":"text","text":"done"}],
            "provider":"ollama","model":"qwen","usage":usage(0.0),"stopReason":"stop"}),
        ),
    ]);
    let r = check(&["-", "--max-cost", "5"], &unpriced);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        lines_of(&r)[1..],
        [
            "UNDECIDED max-cost: $0.00+ (1.2k tokens without a price); cannot decide (--unpriced ok|fail says how to treat them), limit $5.00",
            "UNDECIDED: 1 of 1 assertions could not be decided",
        ]
    );
    let ok = check(&["-", "--max-cost", "5", "--unpriced", "ok"], &unpriced);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    assert!(
        ok.stdout
            .contains("ok   max-cost: $0.00+ (1.2k tokens without a price) <= $5.00"),
        "{}",
        ok.stdout
    );
    let fail = check(&["-", "--max-cost", "5", "--unpriced", "fail"], &unpriced);
    assert_eq!(fail.code, 1, "{}", fail.stdout);
    assert!(
        fail.stdout.contains(
            "FAIL max-cost: $0.00+ (1.2k tokens without a price); --unpriced fail, limit $5.00"
        ),
        "{}",
        fail.stdout
    );
    // Over the limit on the recorded cost alone: failed, whatever the rest would cost.
    let over = text(&good_run());
    assert_eq!(check(&["-", "--max-cost", "1"], &over).code, 1);
    // Other assertions are still judged beside an undecided one; a failure decides.
    let r = check(&["-", "--max-cost", "5", "--max-turns", "0"], &unpriced);
    assert_eq!(r.code, 1, "{}", r.stdout);

    // --json: the assertion's and the session's status, and the unpriced tokens.
    let r = check(&["-", "--max-cost", "5", "--json"], &unpriced);
    assert_eq!(r.code, 2);
    let v: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["status"], "undecided");
    assert_eq!(v["assertions"][0]["status"], "undecided");
    assert_eq!(v["figures"]["unpricedTokens"], 1250);
    assert_eq!(v["figures"]["cost"], 0);
    // --junit: an error of type undecided, not a failure.
    let r = check(&["-", "--max-cost", "5", "--junit", "-"], &unpriced);
    assert_eq!(r.code, 2);
    assert!(
        r.stdout.contains(r#"failures="0" errors="1""#),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(r#"type="undecided""#), "{}", r.stdout);
    // --summary: the mark, the money with its legend.
    let r = check(&["-", "--max-cost", "5", "--summary", "-"], &unpriced);
    assert_eq!(r.code, 2);
    assert!(
        r.stdout.contains("## ❔ pisess check: undecided"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("| ❔ | max-cost |"), "{}", r.stdout);
    assert!(r.stdout.contains("| \\$0.00+ |"), "{}", r.stdout);
    assert!(
        r.stdout.contains("1.2k tokens had no price"),
        "{}",
        r.stdout
    );
}

/// An assistant message at minute 1 with `usage` as given.
fn spent(id: &str, parent: Option<&str>, usage: Value) -> Value {
    message(
        id,
        parent,
        1,
        json!({"role":"assistant","content":[{"type":"text","text":"done"}],
        "provider":"p","model":"m","usage":usage,"stopReason":"stop"}),
    )
}

/// Red team 02 (issue 42): a token count that is a string (pi concatenates it: `"10" + 5` is
/// `"105"`, no number) at a recorded cost of 0 passed `--max-cost 1` with `ok $0.00` on main,
/// even under `--unpriced fail`, and `stats` printed a bare `$0.00`. Such usage is unpriced of
/// unknown size: undecided by default, failed under `--unpriced fail`, judged on the recorded
/// cost under `--unpriced ok`, in every report form.
#[test]
fn a_token_count_that_is_a_string_is_unpriced_usage() {
    let body = text(&[spent(
        "a1",
        None,
        json!({"input":"10","output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,
               "cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}),
    )]);
    let r = check(&["-", "--max-cost", "1"], &body);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "UNDECIDED max-cost: $0.00+ (tokens without a price, a count of them not a number)"
        ),
        "{}",
        r.stdout
    );
    let fail = check(&["-", "--max-cost", "1", "--unpriced", "fail"], &body);
    assert_eq!(fail.code, 1, "{}", fail.stdout);
    let ok = check(&["-", "--max-cost", "1", "--unpriced", "ok"], &body);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    assert!(
        ok.stdout.contains("ok   max-cost: $0.00+ ("),
        "{}",
        ok.stdout
    );
    let r = check(&["-", "--max-cost", "1", "--json"], &body);
    assert_eq!(r.code, 2);
    let v: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["status"], "undecided");
    assert_eq!(v["assertions"][0]["status"], "undecided");
    assert_eq!(v["figures"]["unpricedTokens"], Value::Null);
    let r = check(&["-", "--max-cost", "1", "--junit", "-"], &body);
    assert_eq!(r.code, 2);
    assert!(r.stdout.contains(r#"type="undecided""#), "{}", r.stdout);
    let r = check(&["-", "--max-cost", "1", "--summary", "-"], &body);
    assert_eq!(r.code, 2);
    assert!(r.stdout.contains("| \\$0.00+ |"), "{}", r.stdout);
    assert!(
        r.stdout.contains("a token count is not a number"),
        "{}",
        r.stdout
    );
    // stats marks the money too, with its legend.
    let env = env_in(&examples_agent_dir(), "/home/dev/webshop");
    let r = run_with(env, &["stats", "-"], body.as_bytes());
    assert!(r.stdout.contains("$0.00+ (active branch"), "{}", r.stdout);
    assert!(
        r.stdout.contains("some tokens had no price"),
        "{}",
        r.stdout
    );
}

/// Red team 07 (issue 42): over several sessions, one failing and one undecided gave
/// "UNDECIDED ..." and exit 2 on main, while within one session a failure wins. A failure
/// wins across sessions too (exit 1, FAIL), the undecided one still counted as undecided; a
/// session that could not be checked still makes the run exit 2.
#[test]
fn a_failure_wins_over_an_undecided_session() {
    let dir = tempfile::tempdir().unwrap();
    let unpriced = write(
        dir.path(),
        "a.jsonl",
        &text(&[spent("a", None, usage(0.0))]),
    );
    let over = write(
        dir.path(),
        "b.jsonl",
        &text(&[spent("a", None, usage(5.0))]),
    );
    let (unpriced, over) = (unpriced.to_str().unwrap(), over.to_str().unwrap());
    let r = check(&[unpriced, over, "--max-cost", "1"], "");
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout
            .ends_with("\nFAIL: 2 sessions checked, 0 passed, 1 failed, 1 undecided\n"),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("UNDECIDED: 1 of 1 assertions could not be decided"));
    let r = check(&[unpriced, over, "--max-cost", "1", "--summary", "-"], "");
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains("## ❌ pisess check: failed"),
        "{}",
        r.stdout
    );
    let r = check(&[unpriced, over, "--max-cost", "1", "--json"], "");
    assert_eq!(r.code, 1);
    let statuses: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["status"].clone())
        .collect();
    assert_eq!(statuses, [json!("undecided"), json!("failed")]);
    // Undecided alone is still 2, and a session not checked still outranks a failure.
    assert_eq!(check(&[unpriced, "--max-cost", "1"], "").code, 2);
    assert_eq!(check(&[over, "nosuch", "--max-cost", "1"], "").code, 2);
}

/// Red team 08 (issue 42): a negative count hid spending on main: `input: -5, output: 5` at
/// cost 0 passed as `ok $0.00` (5 output tokens had no price), and costs of -5 and 3 passed a
/// $1 gate as `ok $-2.00`. A negative cost or token count makes `--max-cost` undecided (and a
/// negative token count `--max-tokens`), whatever `--unpriced` says; unpriced usage is judged
/// per count; the money shows the sign before the dollar and the `?` mark.
#[test]
fn negative_counts_make_the_budget_gates_undecided() {
    let counts = |input: i64, cost: f64| {
        json!({"input":input,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":0,
               "cost":{"total":cost}})
    };
    let negative_tokens = text(&[spent("a", None, counts(-5, 0.0))]);
    for unpriced in [&[][..], &["--unpriced", "ok"]] {
        let mut args = vec!["-", "--max-cost", "1"];
        args.extend_from_slice(unpriced);
        let r = check(&args, &negative_tokens);
        assert_eq!(r.code, 2, "{unpriced:?}: {}", r.stdout);
        assert!(
            r.stdout.contains(
                "UNDECIDED max-cost: $0.00+ (a usage record holds a negative token count); cannot decide, limit $1.00"
            ),
            "{}",
            r.stdout
        );
    }
    let r = check(&["-", "--max-tokens", "100"], &negative_tokens);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("UNDECIDED max-tokens: 0 (a usage record holds a negative token count)"),
        "{}",
        r.stdout
    );
    let negative_cost = text(&[
        spent("a", None, counts(10, -5.0)),
        spent("b", Some("a"), counts(10, 3.0)),
    ]);
    let r = check(
        &["-", "--max-cost", "1", "--unpriced", "ok"],
        &negative_cost,
    );
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "UNDECIDED max-cost: -$2.00? (a usage record holds a negative cost); cannot decide, limit $1.00"
        ),
        "{}",
        r.stdout
    );
    let r = check(&["-", "--max-cost", "1", "--json"], &negative_cost);
    let v: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["status"], "undecided");
    assert_eq!(v["figures"]["negativeCost"], true);
    assert_eq!(v["figures"]["negativeTokens"], false);
    let r = check(&["-", "--max-cost", "1", "--summary", "-"], &negative_cost);
    assert!(r.stdout.contains("| \\-\\$2.00? |"), "{}", r.stdout);
    assert!(r.stdout.contains("holds a negative cost"), "{}", r.stdout);
    let r = check(&["-", "--max-cost", "1", "--junit", "-"], &negative_cost);
    assert!(r.stdout.contains(r#"type="undecided""#), "{}", r.stdout);
    // A recorded total over the limit still fails: its positive parts are over it too.
    let r = check(
        &["-", "--max-cost", "1"],
        &text(&[
            spent("a", None, counts(10, -1.0)),
            spent("b", Some("a"), counts(10, 4.0)),
        ]),
    );
    assert_eq!(r.code, 1, "{}", r.stdout);
}

/// `check --all`: the sessions that did not pass are named again after the last one, each with
/// the assertions that failed, above the run's line (in a long run they scrolled by).
#[test]
fn a_run_over_many_sessions_repeats_what_did_not_pass_at_the_end() {
    let r = crate::common::run(&["check", "--all", "--max-cost", "0.06", "-q"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let examples = crate::common::examples_agent_dir().display().to_string();
    let tail = &r.stdout[r.stdout.find("\nnot passed:\n").expect("a recap")..];
    snap!("check_all_recap", tail.replace(&examples, "<examples>"));
    // Every session whose own verdict is FAIL is in the recap, and no other.
    let failed: Vec<&str> = r
        .stdout
        .split("\n\n")
        .filter(|block| block.contains("\nFAIL: "))
        .filter_map(|block| block.lines().next())
        .collect();
    assert!(failed.len() >= 2, "{}", r.stdout);
    for head in &failed {
        assert!(
            tail.contains(&format!("  {head}\n")),
            "{head} not in {tail}"
        );
    }
    assert_eq!(
        tail.matches("\n    FAIL max-cost: ").count(),
        failed.len(),
        "{tail}"
    );
    assert!(
        tail.trim_end()
            .ends_with(&format!("{} failed", failed.len())),
        "{tail}"
    );
}

/// `--max-duration` judges the run: from its start to its last user or assistant message (pi's
/// last activity). A label set three hours later lengthens the file's span (`durationMs`), not
/// the run (`activeMs`), so a 10-minute run passes a 15-minute limit.
#[test]
fn max_duration_ends_at_the_last_message_not_a_later_label() {
    let mut lines = good_run();
    lines.push(
        json!({"type":"label","id":"l1","parentId":"a2","targetId":"a2","label":"ok",
                      "timestamp":"2026-01-01T03:00:00.000Z"}),
    );
    let r = check(&["-", "--max-duration", "15m", "--json"], &text(&lines));
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let v: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["figures"]["durationMs"], 3 * 3_600_000);
    assert_eq!(v["figures"]["activeMs"], 600_000);
    assert_eq!(v["assertions"][0]["measured"], 600_000);
    // Without a user or assistant message, the whole span is all there is to judge.
    let only_label = text(&lines[5..]);
    let r = check(&["-", "--max-duration", "15m"], &only_label);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(
        r.stdout.contains("FAIL max-duration: 3h 0m > 15m"),
        "{}",
        r.stdout
    );
}

/// 25 failed tool calls (and one that did not fail): one whose text starts with blank lines and
/// holds escape codes, one quoting a secret, one a long line, then 22 short ones.
fn failing_run() -> Vec<Value> {
    let result = |i: u32, tool: &str, content: Value, is_error: bool| {
        let parent = if i == 0 {
            "a1".to_owned()
        } else {
            format!("r{}", i - 1)
        };
        message(
            &format!("r{i}"),
            Some(&parent),
            2,
            json!({"role":"toolResult","toolCallId":format!("c{i}"),"toolName":tool,
                   "content":content,"isError":is_error}),
        )
    };
    let mut run = vec![
        message("u1", None, 0, json!({"role":"user","content":"fix it"})),
        message(
            "a1",
            Some("u1"),
            1,
            json!({"role":"assistant","content":[
            {"type":"toolCall","id":"c0","name":"bash","arguments":{"command":"npm test"}}],
            "provider":"anthropic","model":"m","usage":usage(0.1),"stopReason":"toolUse"}),
        ),
        result(
            0,
            "bash",
            json!([{"type":"text","text":"\n   \n\u{1b}[31mnpm ERR!\u{1b}[0m\tmissing script\nsecond line"}]),
            true,
        ),
        result(
            1,
            "read",
            json!("DATABASE_URL=postgres://app:h7Kq2Lw9Zt@db/app refused"),
            true,
        ),
        result(
            2,
            "edit",
            json!([{"type":"text","text":"x".repeat(300)}]),
            true,
        ),
        result(3, "bash", json!([{"type":"text","text":"fine"}]), false),
    ];
    for i in 4..26 {
        run.push(result(
            i,
            "bash",
            json!([{"type":"text","text":format!("exit code {i}")}]),
            true,
        ));
    }
    run
}

#[test]
fn failed_tool_calls_are_named_in_every_report() {
    let body = text(&failing_run());
    let r = check(&["-", "--no-tool-errors"], &body);
    assert_eq!(r.code, 1, "{}", r.stderr);
    snap!("check_failed_tool_calls", r.stdout);

    let r = check(&["-", "--max-tool-errors", "2", "--summary", "-"], &body);
    assert_eq!(r.code, 1, "{}", r.stderr);
    snap!("check_failed_tool_calls_summary", r.stdout);

    let r = check(&["-", "--no-tool-errors", "--json"], &body);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let listed = v["failedToolCalls"].as_array().unwrap();
    assert_eq!(listed.len(), 20);
    assert_eq!(v["failedToolCallsMore"], 5);
    assert_eq!(v["figures"]["toolErrors"], 25);
    assert_eq!(
        listed[0],
        json!({"line":4,"entry":"r0","tool":"bash",
               "text":"\\u{1b}[31mnpm ERR!\\u{1b}[0m missing script",
               "fileLine":4,"entryId":"r0"})
    );
    assert_eq!(
        listed[3]["entry"], "r4",
        "the result that did not fail is left out"
    );
    assert!(listed[2]["text"].as_str().unwrap().ends_with('…'));

    let r = check(&["-", "--no-tool-errors", "--junit", "-"], &body);
    let doc = roxmltree::Document::parse(&r.stdout).unwrap_or_else(|e| panic!("{e}"));
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert_eq!(failure.attribute("message"), Some("no-tool-errors: 25 > 0"));
    let body_lines: Vec<&str> = failure.text().unwrap().lines().collect();
    assert_eq!(body_lines.len(), 21);
    assert_eq!(
        body_lines[0],
        "-:4: bash (entry r0): \\u{1b}[31mnpm ERR!\\u{1b}[0m missing script"
    );
    assert_eq!(body_lines[20], "… and 5 more");

    // A check that held lists nothing.
    let r = check(&["-", "--max-tool-errors", "25", "--json"], &body);
    assert_eq!(r.code, 0);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v.get("failedToolCalls").is_none(), "{v}");
}

#[test]
fn failed_tool_calls_quote_no_secret_with_no_secrets() {
    let body = text(&failing_run());
    for form in [&[][..], &["--json"], &["--summary", "-"], &["--junit", "-"]] {
        let mut args = vec!["-", "--no-tool-errors", "--no-secrets"];
        args.extend_from_slice(form);
        let r = check(&args, &body);
        assert_eq!(r.code, 1, "{form:?}: {}", r.stderr);
        assert!(!r.stdout.contains("h7Kq2Lw9Zt"), "{form:?}: {}", r.stdout);
        assert!(
            r.stdout
                .contains("DATABASE_URL=postgres://app:[REDACTED postgres-url"),
            "{form:?}: {}",
            r.stdout
        );
    }
}

/// `show --errors` lists what check's failure names, every one, with the call that made it.
#[test]
fn show_errors_lists_each_failed_call_with_its_call() {
    let show = |body: &str| {
        let env = env_in(&examples_agent_dir(), "/home/dev/webshop");
        run_with(env, &["show", "-", "--errors"], body.as_bytes())
    };
    let r = show(&text(&failing_run()));
    assert_eq!(r.code, 0, "{}", r.stderr);
    let blocks: Vec<&str> = r.stdout.split("\n\n").collect();
    assert_eq!(blocks.len(), 25, "{}", r.stdout);
    assert_eq!(
        blocks[0],
        "-:4  bash  entry r0\n  call   bash(command: \"npm test\")  (entry a1)\n  \
         error  \\u{1b}[31mnpm ERR!\\u{1b}[0m missing script"
    );
    assert_eq!(
        blocks[24],
        "-:29  bash  entry r25\n  call   (not in the file)\n  error  exit code 25\n"
    );
    assert!(!r.stdout.contains("entry r3\n"), "r3 did not fail");

    // None: nothing on stdout, and stderr says so.
    let mut run = good_run();
    run[2]["message"]["isError"] = json!(false);
    let r = show(&text(&run));
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
    assert!(
        r.stderr.contains("no tool result reports an error"),
        "{}",
        r.stderr
    );
}
