//! `check --save-baseline` and `check --baseline` (issue 45): a baseline holds figures and
//! call keys, never content or a secret; each comparison holds and fails with the baseline's
//! value, the run's and the limit, in % and absolute tolerances, in every report form; unpriced
//! usage leaves the cost undecided as `--max-cost` does; another schema, a newer version and a
//! missing session are refused with exit 2.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{env_in, examples_agent_dir, repo, run_with, Run};
use crate::snap;

const HEADER: &str = r#"{"type":"session","version":3,"id":"0196bbbb-0000-7000-8000-00000000000b","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

/// A Stripe key planted in a path the run read.
const PLANTED: &str = "sk_live_R8x2Lq9Zt4Vb7Nc1Md6Kf3Hj";

/// A call: tool, arguments, whether its result failed.
type Call = (&'static str, Value, bool);

/// A run: a prompt, then one assistant message per call (each answered by its result a
/// minute later), then a final answer; every assistant message costs `cost` for 1250 tokens
/// (a cost of 0: usage pi had no price for), with model `model`.
fn session(calls: &[Call], cost: f64, model: &str) -> String {
    let mut lines = vec![HEADER.to_owned()];
    let mut minute = 0;
    let mut parent: Option<String> = None;
    let mut push = |lines: &mut Vec<String>, id: String, message: Value| {
        let mut message = message;
        message["timestamp"] = json!(1_767_225_600_000_i64 + minute * 60_000);
        lines.push(
            json!({"type":"message","id":id,"parentId":parent,
               "timestamp":format!("2026-01-01T00:{minute:02}:00.000Z"),"message":message})
            .to_string(),
        );
        parent = Some(id);
        minute += 1;
    };
    let usage = json!({"input":1000,"output":200,"cacheRead":50,"cacheWrite":0,"totalTokens":1250,"cost":{"total":cost}});
    push(
        &mut lines,
        "u1".into(),
        json!({"role":"user","content":"fix the cart"}),
    );
    for (i, (name, args, failed)) in calls.iter().enumerate() {
        push(
            &mut lines,
            format!("a{i}"),
            json!({"role":"assistant","content":[{"type":"toolCall","id":format!("c{i}"),"name":name,"arguments":args}],
                   "provider":"anthropic","model":model,"usage":usage,"stopReason":"toolUse"}),
        );
        push(
            &mut lines,
            format!("r{i}"),
            json!({"role":"toolResult","toolCallId":format!("c{i}"),"toolName":name,
                   "content":[{"type":"text","text":"SECRET-OUTPUT"}],"isError":failed}),
        );
    }
    push(
        &mut lines,
        "fin".into(),
        json!({"role":"assistant","content":[{"type":"text","text":"Done."}],
               "provider":"anthropic","model":model,"usage":usage,"stopReason":"stop"}),
    );
    lines.join("\n") + "\n"
}

fn read(path: &str) -> Call {
    ("read", json!({ "path": path }), false)
}

fn bash(command: &str, failed: bool) -> Call {
    ("bash", json!({ "command": command }), failed)
}

/// The last good run: 4 calls, 5 turns, $0.50, 6250 tokens, 9 minutes, one failed bash.
fn good() -> Vec<Call> {
    vec![
        read("/p/src/cart.ts"),
        bash("npm test", true),
        ("edit", json!({"path": "src/cart.ts"}), false),
        bash("npm test -- cart", false),
    ]
}

/// The same run, worse: a new tool, a second failed bash, two more calls; 7 turns, $0.84,
/// 8750 tokens, 13 minutes.
fn worse() -> Vec<Call> {
    vec![
        read("./src/cart.ts"),
        bash("npm test", true),
        ("edit", json!({"path": "src/cart.ts"}), false),
        bash("npm test", true),
        (
            "write",
            json!({"path": "src/new.ts", "content": "SECRET-CONTENT"}),
            false,
        ),
        bash("npm test", false),
    ]
}

struct Files {
    _dir: tempfile::TempDir,
    good: PathBuf,
    worse: PathBuf,
    baseline: PathBuf,
}

fn files() -> Files {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.jsonl");
    let worse = dir.path().join("worse.jsonl");
    fs::write(&good, session(&self::good(), 0.10, "m")).unwrap();
    fs::write(&worse, session(&self::worse(), 0.12, "m")).unwrap();
    let baseline = dir.path().join("baseline.json");
    Files {
        _dir: dir,
        good,
        worse,
        baseline,
    }
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// `pisess check ARGS...` in-process.
fn check(args: &[&str]) -> Run {
    let env = env_in(&examples_agent_dir(), "/home/dev/webshop");
    let all: Vec<&str> = std::iter::once("check")
        .chain(args.iter().copied())
        .collect();
    run_with(env, &all, b"")
}

/// Saves `session`'s baseline to `to`; it must pass its default check.
fn save(session: &Path, to: &Path) {
    let r = check(&[&s(session), "--save-baseline", &s(to)]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

#[test]
fn a_baseline_holds_figures_and_call_keys_and_no_content() {
    let f = files();
    save(&f.good, &f.baseline);
    let text = fs::read_to_string(&f.baseline).unwrap();
    let b: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(b["schema"], "pisess-baseline");
    assert_eq!(b["version"], 1);
    assert_eq!(b["sessionId"], "0196bbbb-0000-7000-8000-00000000000b");
    assert_eq!(b["cost"], 0.5);
    assert_eq!(b["totalTokens"], 6250);
    assert_eq!(b["assistantMessages"], 5);
    assert_eq!(b["activeMs"], 9 * 60_000);
    assert_eq!(
        b["toolCallsByTool"],
        json!({"bash": 2, "edit": 1, "read": 1})
    );
    assert_eq!(b["toolErrorsByTool"], json!({"bash": 1}));
    // The path in one spelling against the cwd; a command's first word only.
    assert_eq!(
        b["toolSequence"],
        json!([
            "read src/cart.ts",
            "bash npm",
            "edit src/cart.ts",
            "bash npm"
        ])
    );
    for content in [
        "fix the cart",
        "SECRET-OUTPUT",
        "Done.",
        "-- cart",
        "npm test",
    ] {
        assert!(!text.contains(content), "{content} in {text}");
    }
}

#[test]
fn the_same_run_passes_every_comparison() {
    let f = files();
    save(&f.good, &f.baseline);
    let r = check(&[
        &s(&f.good),
        "--baseline",
        &s(&f.baseline),
        "--max-cost-increase",
        "0%",
        "--max-tokens-increase",
        "0",
        "--max-turns-increase",
        "0%",
        "--max-duration-increase",
        "0s",
        "--no-new-tools",
        "--no-new-tool-errors",
        "--same-tools",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout.lines().skip(1).collect::<Vec<_>>(),
        [
            "ok   max-cost-increase: $0.50 <= $0.50 (baseline $0.50 + 0%)",
            "ok   max-tokens-increase: 6250 <= 6250 (baseline 6250 + 0)",
            "ok   max-turns-increase: 5 <= 5 (baseline 5 + 0%)",
            "ok   max-duration-increase: 9m 0s <= 9m 0s (baseline 9m 0s + 0s)",
            "ok   no-new-tools: no new tool (3 used)",
            "ok   no-new-tool-errors: no tool with more errors than the baseline (1 error now)",
            "ok   same-tools: the baseline's 4 calls in order and 0 more",
            "ok: all 7 assertions held",
        ]
    );
}

#[test]
fn each_comparison_fails_naming_the_baseline_the_run_and_the_limit() {
    let f = files();
    save(&f.good, &f.baseline);
    let cases: [(&[&str], &str); 7] = [
        (
            &["--max-cost-increase", "10%"],
            "FAIL max-cost-increase: $0.84 > $0.55 (baseline $0.50 + 10%)",
        ),
        (
            &["--max-tokens-increase", "10%"],
            "FAIL max-tokens-increase: 8750 > 6875 (baseline 6250 + 10%)",
        ),
        (
            &["--max-turns-increase", "1"],
            "FAIL max-turns-increase: 7 > 6 (baseline 5 + 1)",
        ),
        (
            &["--max-duration-increase", "2m"],
            "FAIL max-duration-increase: 13m 0s > 11m 0s (baseline 9m 0s + 2m)",
        ),
        (
            &["--no-new-tools"],
            "FAIL no-new-tools: 1 new tool: write; want none beyond the baseline's 3 tools (bash, edit, read)",
        ),
        (
            &["--no-new-tool-errors"],
            "FAIL no-new-tool-errors: 1 tool with more errors: bash 2 (baseline 1); want at most the baseline's per tool (1 error in all)",
        ),
        (
            &["--same-tools=1"],
            "FAIL same-tools: the baseline's 4 calls in order and 2 more; the first, call 5 (write src/new.ts); want the baseline's 4 calls in order, at most 1 more",
        ),
    ];
    let mut all = String::new();
    for (flags, want) in cases {
        let mut args = vec![s(&f.worse), "--baseline".into(), s(&f.baseline)];
        args.extend(flags.iter().map(|f| (*f).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = check(&args);
        assert_eq!(r.code, 1, "{flags:?}: {}{}", r.stdout, r.stderr);
        let lines: Vec<&str> = r.stdout.lines().collect();
        assert_eq!(lines[1], want, "{flags:?}");
        all.push_str(&format!(
            "$ check --baseline B {}\n{}\n",
            flags.join(" "),
            lines[1]
        ));
    }
    snap!("baseline_failures", all);
}

#[test]
fn tolerances_in_percent_and_dollars_hold_within_them() {
    let f = files();
    save(&f.good, &f.baseline);
    let cases: [(&[&str], &str); 6] = [
        (
            &["--max-cost-increase", "$0.50"],
            "ok   max-cost-increase: $0.84 <= $1.00 (baseline $0.50 + $0.50)",
        ),
        (
            &["--max-cost-increase", "0.34"],
            "ok   max-cost-increase: $0.84 <= $0.84 (baseline $0.50 + $0.34)",
        ),
        (
            &["--max-cost-increase", "68%"],
            "ok   max-cost-increase: $0.84 <= $0.84 (baseline $0.50 + 68%)",
        ),
        (
            &["--max-tokens-increase", "40%"],
            "ok   max-tokens-increase: 8750 <= 8750 (baseline 6250 + 40%)",
        ),
        // 5 + 50% is 7.5 messages: at most 7.
        (
            &["--max-turns-increase", "50%"],
            "ok   max-turns-increase: 7 <= 7 (baseline 5 + 50%)",
        ),
        (
            &["--max-duration-increase", "50%"],
            "ok   max-duration-increase: 13m 0s <= 13m 30s (baseline 9m 0s + 50%)",
        ),
    ];
    for (flags, want) in cases {
        let mut args = vec![s(&f.worse), "--baseline".into(), s(&f.baseline)];
        args.extend(flags.iter().map(|f| (*f).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = check(&args);
        assert_eq!(r.code, 0, "{flags:?}: {}{}", r.stdout, r.stderr);
        assert_eq!(r.stdout.lines().nth(1), Some(want), "{flags:?}");
    }
    // Just over, by a cent's fraction: digits enough to tell them apart.
    let r = check(&[
        &s(&f.worse),
        "--baseline",
        &s(&f.baseline),
        "--max-cost-increase",
        "0.3399",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout.lines().nth(1),
        Some("FAIL max-cost-increase: $0.8400 > $0.8399 (baseline $0.5000 + $0.3399)")
    );
}

#[test]
fn same_tools_allows_insertions_and_names_a_missing_call() {
    let f = files();
    save(&f.good, &f.baseline);
    let r = check(&[
        &s(&f.worse),
        "--baseline",
        &s(&f.baseline),
        "--same-tools=2",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    // The edit left out: the last bash matches the baseline's, the edit is nowhere after.
    let dir = tempfile::tempdir().unwrap();
    let skipped = dir.path().join("skipped.jsonl");
    let mut calls = good();
    calls.remove(2);
    fs::write(&skipped, session(&calls, 0.1, "m")).unwrap();
    let r = check(&[
        &s(&skipped),
        "--baseline",
        &s(&f.baseline),
        "--same-tools=5",
    ]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stdout.lines().nth(1),
        Some("FAIL same-tools: the baseline's call 3 of 4 (edit src/cart.ts) is not in the run's 3 calls in order; want the baseline's 4 calls in order, at most 5 more")
    );
}

#[test]
fn a_session_is_a_reference_too() {
    let f = files();
    let r = check(&[
        &s(&f.worse),
        "--baseline",
        &s(&f.good),
        "--max-turns-increase",
        "2",
        "--no-new-tools",
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout.lines().skip(1).take(2).collect::<Vec<_>>(),
        [
            "ok   max-turns-increase: 7 <= 7 (baseline 5 + 2)",
            "FAIL no-new-tools: 1 new tool: write; want none beyond the baseline's 3 tools (bash, edit, read)",
        ]
    );
}

#[test]
fn every_report_form_carries_the_comparison() {
    let f = files();
    save(&f.good, &f.baseline);
    let base = [
        s(&f.worse),
        "--baseline".into(),
        s(&f.baseline),
        "--max-cost-increase".into(),
        "10%".into(),
        "--same-tools".into(),
    ];
    let with = |more: &str| {
        let mut args: Vec<&str> = base.iter().map(String::as_str).collect();
        args.extend(more.split_whitespace());
        check(&args)
    };
    let r = with("--json");
    assert_eq!(r.code, 1);
    let row: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    let a = &row["assertions"];
    assert_eq!(
        a[0],
        json!({"name":"max-cost-increase","status":"fail","measured":0.84,"limit":0.55,
               "message":"max-cost-increase: $0.84 > $0.55 (baseline $0.50 + 10%)","baseline":0.5})
    );
    assert_eq!(a[1]["name"], "same-tools");
    assert_eq!(
        a[1]["measured"],
        json!({"calls": 6, "baselineCalls": 4, "extra": 2})
    );
    assert_eq!(a[1]["limit"], 0);
    assert_eq!(a[1]["baseline"], 4);
    let r = with("--summary -");
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("| ❌ | max-cost-increase | \\$0.84 | \\$0.55 (baseline \\$0.50 + 10%) |"),
        "{}",
        r.stdout
    );
    let r = with("--junit -");
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains(
            r#"<failure message="max-cost-increase: $0.84 &gt; $0.55 (baseline $0.50 + 10%)" type="max-cost-increase">"#
        ),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("want the baseline&apos;s 4 calls in order, at most 0 more"));
}

#[test]
fn unpriced_usage_on_either_side_leaves_the_cost_undecided() {
    let dir = tempfile::tempdir().unwrap();
    let (free, paid) = (dir.path().join("free.jsonl"), dir.path().join("paid.jsonl"));
    fs::write(&free, session(&good(), 0.0, "claude-sonnet-4-5")).unwrap();
    fs::write(&paid, session(&good(), 0.10, "m")).unwrap();
    let b = dir.path().join("b.json");
    // `--unpriced ok` judges the recorded costs: $0.50 against a baseline recorded at $0 fails,
    // $0 against $0.50 holds.
    for (run, reference, ok_code) in [(&paid, &free, 1), (&free, &paid, 0)] {
        save(reference, &b);
        let gate = [
            s(run),
            "--baseline".into(),
            s(&b),
            "--max-cost-increase".into(),
            "1000%".into(),
        ];
        let args: Vec<&str> = gate.iter().map(String::as_str).collect();
        let r = check(&args);
        assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
        assert!(
            r.stdout
                .lines()
                .nth(1)
                .unwrap()
                .starts_with("UNDECIDED max-cost-increase: "),
            "{}",
            r.stdout
        );
        assert!(
            r.stdout.contains("tokens without a price)")
                && r.stdout
                    .contains("cannot decide (--unpriced ok|fail says how to treat them)"),
            "{}",
            r.stdout
        );
        let mut ok = args.clone();
        ok.extend(["--unpriced", "ok"]);
        assert_eq!(check(&ok).code, ok_code);
        let mut fail = args.clone();
        fail.extend(["--unpriced", "fail"]);
        assert_eq!(check(&fail).code, 1);
    }
    // --prices prices what pi recorded at $0 on both sides, saved and compared: decided.
    let table = repo().join("tests/prices/litellm.json");
    let r = check(&[&s(&free), "--prices", &s(&table), "--save-baseline", &s(&b)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let saved: Value = serde_json::from_str(&fs::read_to_string(&b).unwrap()).unwrap();
    assert_eq!(saved["unestimatedTokens"], 0);
    let r = check(&[
        &s(&free),
        "--baseline",
        &s(&b),
        "--prices",
        &s(&table),
        "--max-cost-increase",
        "0%",
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        r.stdout.lines().nth(1),
        Some("ok   max-cost-increase: $0.03 <= $0.03 (baseline $0.03 + 0%)")
    );
}

#[test]
fn a_baseline_of_another_schema_or_a_newer_version_is_refused() {
    let f = files();
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            json!({"schema":"pisess-baseline","version":2}),
            "a pisess-baseline of version 2, written by a newer pisess; this one reads version 1",
        ),
        (
            json!({"schema":"agenttrace","version":1}),
            "not a pisess baseline (schema \"agenttrace\", want \"pisess-baseline\")",
        ),
        (
            json!({"schema":"pisess-baseline","version":1,"cost":1}),
            "not a valid pisess-baseline: missing field",
        ),
    ];
    for (i, (body, want)) in cases.into_iter().enumerate() {
        let b = dir.path().join(format!("b{i}.json"));
        fs::write(&b, serde_json::to_string_pretty(&body).unwrap()).unwrap();
        let r = check(&[&s(&f.good), "--baseline", &s(&b), "--no-new-tools"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert_eq!(r.stdout, "");
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert!(r.stderr.contains(want), "{}", r.stderr);
    }
    // A missing session, as check's own SESSION: exit 2, nothing judged.
    let r = check(&[&s(&f.good), "--baseline", "0000dead", "--no-new-tools"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.starts_with("pisess: error: --baseline: "),
        "{}",
        r.stderr
    );
    // Bad tolerances and a baseline with nothing to compare are usage errors.
    for bad in [
        &["--max-cost-increase", "ten"][..],
        &["--max-turns-increase=-1"],
        &["--max-duration-increase", "soon"],
        &[],
    ] {
        let mut args = vec![s(&f.good), "--baseline".into(), s(&f.good)];
        args.extend(bad.iter().map(|b| (*b).to_owned()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = check(&args);
        assert_eq!(r.code, 2, "{bad:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    }
    // On stdout, in place of the lines; with another report there, a usage error.
    let r = check(&[&s(&f.good), "--save-baseline", "-"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let b: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(b["schema"], "pisess-baseline");
    let r = check(&[&s(&f.good), "--save-baseline", "-", "--json"]);
    assert_eq!(r.code, 2);
    // A session that could not be checked has no baseline: exit 2, nothing written.
    let r = check(&["/nonexistent/s.jsonl", "--save-baseline", &s(&f.baseline)]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no baseline was written"), "{}", r.stderr);
    // One session's baseline only.
    let r = check(&[
        &s(&f.good),
        &s(&f.worse),
        "--save-baseline",
        &s(&f.baseline),
    ]);
    assert_eq!(r.code, 2);
    assert!(!f.baseline.exists());
}

#[test]
fn a_secret_in_a_path_never_reaches_a_baseline_or_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let leaky = dir.path().join("leaky.jsonl");
    let path = format!("notes/{PLANTED}.md");
    let mut calls = good();
    calls.push(read(&path));
    fs::write(&leaky, session(&calls, 0.1, "m")).unwrap();
    let b = dir.path().join("b.json");
    save(&leaky, &b);
    let text = fs::read_to_string(&b).unwrap();
    assert!(!text.contains(PLANTED), "{text}");
    assert!(text.contains("\"read notes/[REDACTED "), "{text}");
    // Compared with a run that lacks the call: the missing key is named redacted, in every
    // form, with or without --no-secrets.
    let f = files();
    for extra in ["", "--json", "--summary -", "--junit -", "--no-secrets"] {
        let mut args = vec![
            s(&f.good),
            "--baseline".into(),
            s(&b),
            "--same-tools".into(),
        ];
        args.extend(extra.split_whitespace().map(str::to_owned));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = check(&args);
        assert_eq!(r.code, 1, "{extra}: {}{}", r.stdout, r.stderr);
        assert!(!r.stdout.contains(PLANTED), "{extra}: {}", r.stdout);
        assert!(r.stdout.contains("REDACTED"), "{extra}: {}", r.stdout);
    }
    // The session itself as the reference: redacted as it is read.
    let r = check(&[&s(&f.good), "--baseline", &s(&leaky), "--same-tools"]);
    assert_eq!(r.code, 1);
    assert!(!r.stdout.contains(PLANTED), "{}", r.stdout);
}

/// The guide's "compare to the last good run" steps, run as written (each `run:` under bash
/// -eo pipefail, as Actions runs it) after a first baseline: the run passes against its own
/// baseline, and the new one takes the old one's place.
#[cfg(unix)]
#[test]
fn the_guides_baseline_steps_pass_and_move_the_baseline() {
    use std::os::unix::fs::PermissionsExt;
    use std::process::Command;

    let guide = fs::read_to_string(repo().join("docs/guide.md")).unwrap();
    let section = &guide[guide.find("### Compare to the last good run").unwrap()..];
    let yaml = section
        .split("```yaml\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let runs = crate::check::run_lines(yaml);
    assert!(runs.iter().any(|r| r.contains("--baseline")), "{runs:?}");

    let tmp = tempfile::tempdir().unwrap();
    let (bin, agent, work) = (
        tmp.path().join("bin"),
        tmp.path().join("agent"),
        tmp.path().join("work"),
    );
    for d in [&bin, &agent, &work] {
        fs::create_dir_all(d).unwrap();
    }
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pisess"), bin.join("pisess")).unwrap();
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
    fs::set_permissions(bin.join("pi"), fs::Permissions::from_mode(0o755)).unwrap();
    let summary = tmp.path().join("step_summary.md");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let first =
        "pi -p first && mkdir -p .pisess && pisess check --save-baseline .pisess/baseline.json";
    for script in std::iter::once(first).chain(runs.iter().map(String::as_str)) {
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
    assert!(md.contains("max-cost-increase"), "{md}");
    assert!(!work.join("new-baseline.json").exists());
    let kept: Value =
        serde_json::from_str(&fs::read_to_string(work.join(".pisess/baseline.json")).unwrap())
            .unwrap();
    assert_eq!(kept["schema"], "pisess-baseline");
}

/// Seed 000 names its calls and answers them in its own shapes: the same figures, and its
/// failed `tool_result` blocks counted under their call's tool, read from standard input.
#[test]
fn a_seed000_run_from_stdin_has_its_calls_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("b.json");
    let env = env_in(&examples_agent_dir(), "/home/dev/webshop");
    let r = run_with(
        env,
        &["check", "-", "--save-baseline", &s(&b)],
        crate::common::SEED000_FAILED_TOOL.as_bytes(),
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let saved: Value = serde_json::from_str(&fs::read_to_string(&b).unwrap()).unwrap();
    assert_eq!(saved["toolCallsByTool"], json!({"bash": 1}));
    assert_eq!(saved["toolErrorsByTool"], json!({"bash": 1}));
    assert_eq!(saved["toolSequence"], json!(["bash ls"]));
}
