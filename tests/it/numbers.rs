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
        crate::common::missing_tool("node (the fixed expectations are checked alone)");
        return;
    };
    assert_eq!(String::from_utf8(out.stdout).unwrap(), ours[0]);
}

/// Two assistant messages: 23:30 on February 28th in Berlin, and 00:30 on March 1st there
/// (22:30 and 23:30 UTC on the 28th).
fn around_berlin_midnight() -> String {
    let message = |id: &str, parent: &str, iso: &str, ms: i64| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"{iso}","message":{{"role":"assistant","content":[{{"type":"text","text":"x"}}],"provider":"p","model":"m","usage":{{"input":1,"output":1,"cost":{{"total":0.25}}}},"stopReason":"stop","timestamp":{ms}}}}}"#
        )
    };
    [
        r#"{"type":"session","version":3,"id":"0196aaaa-0000-7000-8000-0000000000bb","timestamp":"2026-02-28T22:00:00.000Z","cwd":"/p"}"#.to_owned(),
        r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-02-28T22:00:00.000Z","message":{"role":"user","content":"hi","timestamp":1772316000000}}"#.to_owned(),
        message("late", "u1", "2026-02-28T22:30:00.000Z", 1_772_317_800_000),
        message("early", "late", "2026-02-28T23:30:00.000Z", 1_772_321_400_000),
    ]
    .join("\n")
        + "\n"
}

#[test]
fn date_flags_are_read_in_the_zone_the_command_reports_in() {
    let tmp = tempfile::tempdir().unwrap();
    agent_dir(tmp.path(), &around_berlin_midnight());
    let berlin = || {
        let mut env = env_in(tmp.path(), "/p");
        env.tz = jiff::tz::TimeZone::get("Europe/Berlin").unwrap();
        env
    };
    // --tz names the zone of stats: its March begins at 23:00 UTC.
    let stats = |env, flags: &[&str]| {
        let mut args = vec!["stats", "--by", "message", "--json"];
        args.extend_from_slice(flags);
        let r = run_with(env, &args, b"");
        assert_eq!(r.code, 0, "{r:?}");
        r.stdout
    };
    let utc = env_in(tmp.path(), "/p");
    let march = stats(utc, &["--tz", "Europe/Berlin", "--since", "2026-03-01"]);
    assert!(
        march.contains(r#""early""#) && !march.contains(r#""late""#),
        "{march}"
    );
    let feb = stats(
        env_in(tmp.path(), "/p"),
        &["--tz", "Europe/Berlin", "--until", "2026-03-01T00:00"],
    );
    assert!(
        feb.contains(r#""late""#) && !feb.contains(r#""early""#),
        "{feb}"
    );
    // In UTC, both are February's; an explicit offset is that instant in any zone.
    let utc_march = stats(env_in(tmp.path(), "/p"), &["--since", "2026-03-01"]);
    assert!(!utc_march.contains(r#""early""#), "{utc_march}");
    let offset = stats(berlin(), &["--since", "2026-02-28T23:00:00Z"]);
    assert!(
        offset.contains(r#""early""#) && !offset.contains(r#""late""#),
        "{offset}"
    );
    // ls, check and grep read theirs in the local zone, which stats reports in without --tz.
    let ls = run_with(berlin(), &["ls", "--since", "2026-03-01"], b"");
    assert!(ls.stdout.contains("0196aaaa"), "{ls:?}");
    let ls = run_with(
        env_in(tmp.path(), "/p"),
        &["ls", "--since", "2026-03-01"],
        b"",
    );
    assert!(!ls.stdout.contains("0196aaaa"), "{ls:?}");
    let check = run_with(
        berlin(),
        &["check", "--since", "2026-03-01", "--max-cost", "1"],
        b"",
    );
    assert_eq!(check.code, 0, "{check:?}");
    let grep = run_with(
        berlin(),
        &["grep", "-l", "hi", "--since", "2026-03-01"],
        b"",
    );
    assert_eq!(grep.code, 0, "{grep:?}");
}

/// Timestamps `new Date()` accepts are times, not damage: a session started on the last day
/// of year 9999, or on February 30th (March 2nd), is listed at that time.
#[test]
fn timestamps_javascript_accepts_are_read_as_it_reads_them() {
    for (stored, shown) in [
        ("9999-12-31T00:00:00.000Z", "9999-12-31T00:00:00.000Z"),
        ("+275760-09-13T00:00:00.000Z", "+275760-09-13T00:00:00.000Z"),
        ("2021-02-30T00:00:00.000Z", "2021-03-02T00:00:00.000Z"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let header = format!(
            r#"{{"type":"session","version":3,"id":"0196aaaa-0000-7000-8000-0000000000cc","timestamp":"{stored}","cwd":"/p"}}"#
        );
        agent_dir(tmp.path(), &(header + "\n"));
        let r = run_with(env_in(tmp.path(), "/p"), &["ls", "--json"], b"");
        assert_eq!(r.code, 0, "{r:?}");
        assert!(
            r.stdout.contains(&format!(r#""created":"{shown}""#)),
            "{stored}: {r:?}"
        );
        assert!(!r.stderr.contains("invalid"), "{stored}: {r:?}");
    }
}

/// `context --json` copies a stored message only when its text is what `JSON.stringify` writes
/// of it (pi's files always are); any other spelling (numbers in exponent form, `1.50`, `-0`,
/// spaces, `\/` and `\u00e9` escapes, a key twice, array-index keys, which JavaScript moves to
/// the front) is written as pi writes it. Each expected text is pi 1.6.0's `buildSessionContext`
/// of the same line, through `JSON.stringify`.
#[test]
fn context_writes_stored_messages_as_json_stringify_would() {
    let cases = [
        (
            r#"{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"p","model":"m","usage":{"input":1E3,"output":12e-1,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"total":5e9}},"stopReason":"stop","timestamp":1747389936000}"#,
            r#"{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"p","model":"m","usage":{"input":1000,"output":1.2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"total":5000000000}},"stopReason":"stop","timestamp":1747389936000}"#,
        ),
        (
            r#"{"role":"user", "content":"sp\u00e9\/","timestamp":1747389936000, "n":-0, "m":1.50}"#,
            r#"{"role":"user","content":"spé/","timestamp":1747389936000,"n":0,"m":1.5}"#,
        ),
        (
            r#"{"role":"user","content":"dup","content":"second","timestamp":1747389936000}"#,
            r#"{"role":"user","content":"second","timestamp":1747389936000}"#,
        ),
        (
            r#"{"role":"user","content":[{"type":"text","text":"x","2":"b","1":"a"}],"timestamp":1747389936000}"#,
            r#"{"role":"user","content":[{"1":"a","2":"b","type":"text","text":"x"}],"timestamp":1747389936000}"#,
        ),
        // Already as JSON.stringify writes it: copied as it is.
        (
            r#"{"role":"user","content":"tab\t\u001f \"q\" 1e+21","timestamp":1747389936000,"x":[1e+21,1.5e-7,0.1,-3]}"#,
            r#"{"role":"user","content":"tab\t\u001f \"q\" 1e+21","timestamp":1747389936000,"x":[1e+21,1.5e-7,0.1,-3]}"#,
        ),
    ];
    for (stored, want) in cases {
        let text = format!(
            "{HEADER}\n{{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2025-05-16T10:05:36.000Z\",\"message\":{stored}}}\n"
        );
        let tmp = tempfile::tempdir().unwrap();
        let r = run_with(
            env_in(tmp.path(), "/p"),
            &["context", "--json", "-"],
            text.as_bytes(),
        );
        assert_eq!(r.code, 0, "{r:?}");
        let messages = r.stdout.split_once(r#""messages":["#).unwrap().1;
        assert_eq!(
            messages.trim_end().strip_suffix("]}").unwrap(),
            want,
            "{stored}"
        );
    }
}
