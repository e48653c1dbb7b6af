//! `--prices FILE` (issue 46): usage pi recorded at $0 estimated from a LiteLLM price table,
//! beside pi's recorded cost and never added into it, in `stats` and `check --max-cost`.
//!
//! The fixture (tests/prices/) is one session with a message pi priced, one it recorded at $0
//! that the table prices by `provider/model`, one by the bare model, one whose model no key
//! matches, and one whose key has no rate for its cache reads.

use std::fs;
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::common::{env_in, repo, run_with, Run};
use crate::snap;

fn fixture() -> PathBuf {
    repo().join("tests/prices")
}

fn table() -> String {
    fixture()
        .join("litellm.json")
        .to_string_lossy()
        .into_owned()
}

fn stats(args: &[&str]) -> Run {
    let mut all = vec!["stats"];
    all.extend_from_slice(args);
    run_with(env_in(&fixture().join("agent"), "/p"), &all, b"")
}

fn json_lines(r: &Run) -> Vec<Value> {
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

/// The keys `--prices` adds to a row.
const ADDED: [&str; 8] = [
    "estimatedCost",
    "estimatedMessages",
    "unestimatedMessages",
    "unestimatedTokens",
    "priceKey",
    "priceMatch",
    "unestimated",
    "models",
];

/// A row without what `--prices` adds (and without the per-model rows, compared apart).
fn without_estimates(row: &Value) -> Value {
    let mut row = row.clone();
    for key in ADDED {
        row.as_object_mut().unwrap().remove(key);
    }
    row
}

/// `tokens × rate`, summed in pi's order, from the table's own numbers: the estimate is exactly
/// this for a priced message.
fn expected(row: &Value, rates: &Value) -> f64 {
    let fields = [
        ("input", "input_cost_per_token"),
        ("output", "output_cost_per_token"),
        ("cacheRead", "cache_read_input_token_cost"),
        ("cacheWrite", "cache_creation_input_token_cost"),
    ];
    fields
        .iter()
        .map(|(count, rate)| {
            let n = row[count].as_f64().unwrap();
            if n == 0.0 {
                0.0
            } else {
                n * rates[rate].as_f64().unwrap()
            }
        })
        .sum()
}

#[test]
fn an_estimate_is_tokens_times_the_tables_prices_and_never_pis_cost() {
    let prices: Value =
        serde_json::from_str(&fs::read_to_string(fixture().join("litellm.json")).unwrap()).unwrap();
    let plain = json_lines(&stats(&["--all", "--by", "message", "--json"]));
    let priced = json_lines(&stats(&[
        "--all",
        "--by",
        "message",
        "--json",
        "--prices",
        &table(),
    ]));
    assert_eq!(plain.len(), priced.len());
    let mut estimated = 0;
    for (p, e) in plain.iter().zip(&priced) {
        // pi's figures are untouched.
        assert_eq!(*p, without_estimates(e));
        let cost = e["cost"].as_f64().unwrap();
        match e["estimatedCost"].as_f64() {
            Some(est) => {
                estimated += 1;
                assert_eq!(cost, 0.0, "only what pi recorded at $0 is estimated: {e}");
                let key = e["priceKey"].as_str().unwrap();
                assert_eq!(est, expected(e, &prices[key]), "{e}");
                assert!(e["unestimated"].is_null());
            }
            None => {
                assert!(e["priceKey"].is_null() && e["priceMatch"].is_null());
            }
        }
    }
    assert_eq!(estimated, 2);
    let by_id = |id: &str| priced.iter().find(|r| r["entryId"] == id).unwrap();
    // pi priced it: its cost, no estimate.
    assert_eq!(by_id("a1")["cost"], 0.0045);
    assert!(by_id("a1")["unestimated"].is_null());
    // `zai` + `glm-4.6` by provider, `deepseek-chat` bare.
    assert_eq!(
        (
            by_id("a2")["priceKey"].clone(),
            by_id("a2")["priceMatch"].clone()
        ),
        (json!("zai/glm-4.6"), json!("provider"))
    );
    assert_eq!(
        (
            by_id("a5")["priceKey"].clone(),
            by_id("a5")["priceMatch"].clone()
        ),
        (json!("deepseek-chat"), json!("model"))
    );
    // Unpriced stays unpriced, with why: never an estimate of $0.
    assert_eq!(by_id("a3")["unestimated"], "no price for the model");
    assert!(by_id("a3")["estimatedCost"].is_null());
    assert!(by_id("a4")["unestimated"]
        .as_str()
        .unwrap()
        .contains("cache_read_input_token_cost"));
}

#[test]
fn every_grouping_keeps_the_recorded_cost_and_adds_the_estimate_beside_it() {
    let messages = json_lines(&stats(&[
        "--all",
        "--by",
        "message",
        "--json",
        "--prices",
        &table(),
    ]));
    let sum: f64 = messages
        .iter()
        .filter_map(|r| r["estimatedCost"].as_f64())
        .sum();
    for by in [
        "day", "week", "month", "model", "project", "session", "tool",
    ] {
        let plain = json_lines(&stats(&["--all", "--by", by, "--json"]));
        let priced = json_lines(&stats(&[
            "--all",
            "--by",
            by,
            "--json",
            "--prices",
            &table(),
        ]));
        assert_eq!(plain.len(), priced.len(), "{by}");
        for (p, e) in plain.iter().zip(&priced) {
            assert_eq!(*p, without_estimates(e), "{by}");
            assert!(e["estimatedCost"].is_number(), "{by}: {e}");
        }
        let total = priced.last().unwrap();
        assert_eq!(total["total"], true);
        if by == "tool" {
            // Tool rows hold tool results' usage only; none here.
            assert_eq!(total["estimatedMessages"], 0, "{by}");
            continue;
        }
        assert!((total["estimatedCost"].as_f64().unwrap() - sum).abs() < 1e-15);
        assert_eq!(total["cost"], 0.0045, "{by}");
        assert_eq!(total["estimatedMessages"], 2, "{by}");
        assert_eq!(total["unestimatedMessages"], 2, "{by}");
        assert_eq!(total["unestimatedTokens"], 2500, "{by}");
        let rows: f64 = priced[..priced.len() - 1]
            .iter()
            .map(|r| r["estimatedCost"].as_f64().unwrap())
            .sum();
        assert!((rows - sum).abs() < 1e-15, "{by}");
    }
    // One session's object: the same total, and each model's share.
    let one = json_lines(&stats(&["0196bbbb", "--json", "--prices", &table()]));
    let one = &one[0];
    assert_eq!(one["cost"], 0.0045);
    assert_eq!(one["estimatedCost"].as_f64().unwrap(), sum);
    assert_eq!(one["unestimatedMessages"], 2);
    let model = |name: &str| {
        one["models"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["model"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(model("zai/glm-4.6")["estimatedCost"], 0.01095);
    assert_eq!(model("ollama/qwen3:8b")["unestimatedMessages"], 1);
    assert_eq!(model("anthropic/claude-sonnet-4-5")["estimatedMessages"], 0);
}

/// The table's place is no part of a snapshot.
fn portable(stdout: &str) -> String {
    stdout.replace(&*repo().to_string_lossy(), "[repo]")
}

#[test]
fn human_output_marks_estimates_and_unpriced_usage() {
    let r = stats(&["0196bbbb", "--prices", &table()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    snap!("prices_stats_one", portable(&r.stdout));
    let r = stats(&["--all", "--by", "model", "--prices", &table()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    snap!("prices_stats_by_model", portable(&r.stdout));
    let r = stats(&["--all", "--by", "message", "--prices", &table()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    snap!("prices_stats_by_message", portable(&r.stdout));
    // Usage priced by neither is never shown as $0.
    assert!(!r.stdout.contains("~$0.00 "), "{}", r.stdout);
}

fn check(args: &[&str], stdin: &str) -> Run {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    run_with(
        env_in(&fixture().join("agent"), "/p"),
        &all,
        stdin.as_bytes(),
    )
}

#[test]
fn max_cost_judges_recorded_plus_estimated() {
    // The fixture: $0.0045 recorded, ~$0.01172 estimated, two messages priced by neither.
    let r = check(
        &["0196bbbb", "--max-cost", "0.01", "--prices", &table()],
        "",
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("FAIL max-cost: $0.02 (recorded $0.0045 + estimated ~$0.01) > $0.01"),
        "{}",
        r.stdout
    );
    // Without the table, the recorded cost under the limit and usage without a price: the
    // rules of issue 42, unchanged.
    let r = check(&["0196bbbb", "--max-cost", "0.01"], "");
    assert_eq!(r.code, 2, "{}", r.stdout);
    let r = check(&["0196bbbb", "--max-cost", "0.01", "--unpriced", "ok"], "");
    assert_eq!(r.code, 0, "{}", r.stdout);
    // Under the limit with the estimate, some usage still unpriced: undecided unless told.
    let r = check(
        &["0196bbbb", "--max-cost", "0.02", "--prices", &table()],
        "",
    );
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "UNDECIDED max-cost: $0.02+ (recorded $0.0045 + estimated ~$0.01; 2.5k tokens without a price); cannot decide"
        ),
        "{}",
        r.stdout
    );
    let args = [
        "0196bbbb",
        "--max-cost",
        "0.02",
        "--prices",
        &table(),
        "--unpriced",
        "ok",
        "--json",
    ];
    let r = check(&args, "");
    assert_eq!(r.code, 0, "{}", r.stdout);
    let v: Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["assertions"][0]["status"], "ok");
    assert_eq!(
        v["assertions"][0]["measured"].as_f64().unwrap(),
        0.0045 + 0.01172
    );
    assert_eq!(v["figures"]["cost"], 0.0045);
    assert_eq!(v["figures"]["estimatedCost"], 0.01172);
    assert_eq!(v["figures"]["unestimatedTokens"], 2500);

    // A run the table prices whole: decided on the estimate alone.
    let header = r#"{"type":"session","version":3,"id":"0196cccc-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
    let glm = json!({"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:01:00.000Z",
        "message":{"role":"assistant","content":[],"provider":"zai","model":"glm-4.6","stopReason":"stop",
        "usage":{"input":10000,"output":2000,"cacheRead":5000,"cacheWrite":0,"totalTokens":17000,"cost":{"total":0}}}});
    let run = format!("{header}\n{glm}\n");
    let ok = check(&["-", "--max-cost", "0.02", "--prices", &table()], &run);
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    assert!(
        ok.stdout
            .contains("ok   max-cost: $0.01 (recorded $0.00 + estimated ~$0.01) <= $0.02"),
        "{}",
        ok.stdout
    );
    let fail = check(&["-", "--max-cost", "0.01", "--prices", &table()], &run);
    assert_eq!(fail.code, 1, "{}", fail.stdout);
    assert_eq!(check(&["-", "--max-cost", "0.02"], &run).code, 2);
}

#[test]
fn a_bad_table_is_a_one_line_usage_error_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        ("not-json.json", "{\"a\": "),
        ("array.json", "[1, 2]"),
        (
            "negative.json",
            r#"{"m": {"input_cost_per_token": -1e-6, "output_cost_per_token": 1e-6}}"#,
        ),
        (
            "string.json",
            r#"{"m": {"input_cost_per_token": "3e-6", "output_cost_per_token": 1e-6}}"#,
        ),
        ("nothing-priced.json", r#"{"m": {"mode": "chat"}}"#),
    ];
    for (name, text) in cases {
        let path = tmp.path().join(name);
        fs::write(&path, text).unwrap();
        let path = path.to_string_lossy().into_owned();
        for r in [
            stats(&["--all", "--by", "day", "--prices", &path]),
            stats(&["0196bbbb", "--json", "--prices", &path]),
            check(&["0196bbbb", "--max-cost", "1", "--prices", &path], ""),
        ] {
            assert_eq!(r.code, 2, "{name}: {}{}", r.stdout, r.stderr);
            assert_eq!(r.stdout, "", "{name}: nothing is emitted");
            assert_eq!(r.stderr.lines().count(), 1, "{name}: {}", r.stderr);
            assert!(r.stderr.contains(&path), "{name}: {}", r.stderr);
        }
    }
    let missing = tmp.path().join("missing.json");
    let r = stats(&["--all", "--prices", &missing.to_string_lossy()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// The estimate is made from the tally's rows at report time: a warm report from the tally
/// cache estimates what a cold one does.
#[test]
fn a_report_from_the_tally_cache_estimates_the_same() {
    let tmp = tempfile::tempdir().unwrap();
    let agent = tmp.path().join("agent");
    let sessions = agent.join("sessions/--p--");
    fs::create_dir_all(&sessions).unwrap();
    let source = fixture().join("agent/sessions/--p--");
    for f in fs::read_dir(&source).unwrap() {
        let f = f.unwrap();
        let to = sessions.join(f.file_name());
        fs::copy(f.path(), &to).unwrap();
        // An hour old: the cache keeps files that are not being written.
        let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        fs::File::options()
            .write(true)
            .open(&to)
            .unwrap()
            .set_modified(hour_ago)
            .unwrap();
    }
    let cache = tmp.path().join("cache");
    let table = table();
    for by in ["model", "day", "message"] {
        let args = ["stats", "--all", "--by", by, "--json", "--prices", &table];
        let report = || {
            let env = crate::cache::env_for(&agent, Some(&cache));
            let r = run_with(env, &args, b"");
            assert_eq!(r.code, 0, "{}", r.stderr);
            r.stdout
        };
        let cold = report();
        assert!(!crate::cache::cache_files(&cache, "tallies").is_empty());
        assert_eq!(report(), cold, "{by}");
        let uncached = run_with(crate::cache::env_for(&agent, None), &args, b"");
        assert_eq!(uncached.stdout, cold, "{by}");
        assert!(cold.contains("\"estimatedCost\":0.01095"), "{by}: {cold}");
    }
}

/// A run pi priced whole: nothing to estimate, the verdict as without `--prices`.
#[test]
fn max_cost_with_nothing_to_estimate_reads_as_without_prices() {
    let header = r#"{"type":"session","version":3,"id":"0196dddd-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
    let priced = json!({"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:01:00.000Z",
        "message":{"role":"assistant","content":[],"provider":"anthropic","model":"claude-sonnet-4-5","stopReason":"stop",
        "usage":{"input":1000,"output":100,"cacheRead":0,"cacheWrite":0,"totalTokens":1100,"cost":{"total":0.75}}}});
    let run = format!("{header}\n{priced}\n");
    let with = check(&["-", "--max-cost", "1", "--prices", &table()], &run);
    let without = check(&["-", "--max-cost", "1"], &run);
    assert_eq!((with.code, &with.stdout), (0, &without.stdout));
    let over = check(&["-", "--max-cost", "0.5", "--prices", &table()], &run);
    assert_eq!(over.code, 1, "{}", over.stdout);
    assert!(
        over.stdout.contains("FAIL max-cost: $0.75 > $0.50"),
        "{}",
        over.stdout
    );
}

#[test]
fn ls_shows_the_estimate_beside_pis_cost_never_in_it() {
    let ls = |args: &[&str]| {
        let mut all = vec!["ls", "--all"];
        all.extend_from_slice(args);
        run_with(env_in(&fixture().join("agent"), "/p"), &all, b"")
    };
    let plain = json_lines(&ls(&["--json"]));
    let priced = json_lines(&ls(&["--json", "--prices", &table()]));
    let one = json_lines(&stats(&["--json", "--prices", &table()]));
    let usage = &priced[0]["usage"];
    // pi's figures unchanged; the estimate is stats' for the same session.
    assert_eq!(usage["cost"], plain[0]["usage"]["cost"]);
    assert!(plain[0]["usage"].get("estimatedCost").is_none());
    for k in [
        "estimatedCost",
        "estimatedMessages",
        "unestimatedMessages",
        "unestimatedTokens",
    ] {
        assert_eq!(usage[k], one[0][k], "{k}");
    }
    let mut without = priced[0].clone();
    for k in [
        "estimatedCost",
        "estimatedMessages",
        "unestimatedMessages",
        "unestimatedTokens",
    ] {
        without["usage"].as_object_mut().unwrap().remove(k);
    }
    assert_eq!(without, plain[0]);
    // The human row marks the estimate `~$`, apart from pi's cost.
    let human = ls(&["--prices", &table()]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(human.stdout.contains("~$0.01+"), "{}", human.stdout);
    assert!(human.stdout.contains("$0.0045+"), "{}", human.stdout);
    // A table that is no table stops it before a row.
    let bad = ls(&["--json", "--prices", "/dev/null"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stdout.is_empty());
}

#[test]
fn export_shows_the_estimate_beside_the_cost_in_md_and_refuses_it_for_jsonl() {
    let export = |args: &[&str]| {
        let mut all = vec!["export", "0196bbbb"];
        all.extend_from_slice(args);
        run_with(env_in(&fixture().join("agent"), "/p"), &all, b"")
    };
    let plain = export(&["--format", "md"]);
    let priced = export(&["--format", "md", "--prices", &table()]);
    assert_eq!(priced.code, 0, "{}", priced.stderr);
    // pi's cost line unchanged, the estimate on its own line after it.
    let cost = plain
        .stdout
        .lines()
        .find(|l| l.contains("**Cost:**"))
        .unwrap();
    assert!(priced.stdout.contains(cost));
    let estimated = priced
        .stdout
        .lines()
        .find(|l| l.contains("**Estimated:**"))
        .unwrap();
    assert!(estimated.contains("~$0.01+"), "{estimated}");
    assert!(!plain.stdout.contains("Estimated"));
    let jsonl = export(&["--format", "jsonl", "--prices", &table()]);
    assert_eq!(jsonl.code, 2);
    assert!(jsonl.stdout.is_empty());
}
