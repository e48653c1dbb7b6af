//! The mechanics of the secrets scan as the commands show them (issue 42, lane sec-engine):
//! each distinct secret of a line once in every mode, seed-000 lines read whole, lines the
//! reader passes over read for secrets, redaction as deep as detection.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{env_in, run_with, Run};

fn run_in(root: &Path, args: &[&str], stdin: &[u8]) -> Run {
    run_with(env_in(root, "/home/dev/webshop"), args, stdin)
}

/// An AWS-format access key id, random at run time (no real key is ever in a test).
pub(crate) fn aws_id(seed: u64) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let tail: String = (0..16)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % 32) as usize] as char
        })
        .collect();
    format!("AKIA{tail}")
}

const HEADER: &str = r#"{"type":"session","version":3,"id":"5e000000-0000-7000-8000-0000000000e1","timestamp":"2026-07-01T10:00:00.000Z","cwd":"/home/dev/webshop"}"#;

/// A session file of `lines` after a v3 header, in pi's folder for the webshop.
pub(crate) fn session(root: &Path, lines: &[String]) -> PathBuf {
    let dir = root.join("sessions").join("--home-dev-webshop--");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("2026-07-01T10-00-00-000Z_5e000000-0000-7000-8000-0000000000e1.jsonl");
    let mut text = format!("{HEADER}\n");
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    fs::write(&path, text).unwrap();
    path
}

pub(crate) fn user(id: &str, text: &str) -> String {
    serde_json::json!({"type": "message", "id": id, "parentId": null,
        "timestamp": "2026-07-01T10:00:01.000Z",
        "message": {"role": "user", "content": text, "timestamp": 1}})
    .to_string()
}

/// Case "the same secret twice on one line is reported twice": once in the human view, in
/// `--json`, in `-c`'s count and in `check --no-secrets`'s.
#[test]
fn a_secret_twice_on_a_line_is_one_finding_in_every_mode() {
    let tmp = tempfile::tempdir().unwrap();
    let key = aws_id(7);
    let file = session(
        tmp.path(),
        &[user("u1", &format!("export A={key}; echo {key}"))],
    );
    let f = file.to_str().unwrap();
    let human = run_in(tmp.path(), &["grep", "--secrets", f], b"");
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert_eq!(
        human.stdout.matches("aws-access-key-id").count(),
        1,
        "{}",
        human.stdout
    );
    let json = run_in(tmp.path(), &["grep", "--secrets", "--json", f], b"");
    assert_eq!(json.stdout.lines().count(), 1, "{}", json.stdout);
    let count = run_in(tmp.path(), &["grep", "--secrets", "-c", f], b"");
    assert_eq!(count.stdout, format!("{f}:1\n"));
    let check = run_in(tmp.path(), &["check", "--no-secrets", "--json", f], b"");
    assert_eq!(check.code, 1, "{}", check.stderr);
    let v: Value = serde_json::from_str(check.stdout.lines().next().unwrap()).unwrap();
    let text = v.to_string();
    assert_eq!(text.matches("aws-access-key-id").count(), 1, "{text}");
    for run in [&human, &json, &count, &check] {
        assert!(!run.stdout.contains(&key) && !run.stderr.contains(&key));
    }
}

/// Case "a line over about 1.5 MB that cannot start JSON is passed over unread": a raw log
/// line, and a run of NUL bytes a crash left followed by text, with a key near their ends, are
/// read for secrets by `grep --secrets` (a file and stdin) and `check --no-secrets`.
#[test]
fn a_long_line_that_is_no_json_is_read_for_secrets() {
    let tmp = tempfile::tempdir().unwrap();
    let (k1, k2) = (aws_id(11), aws_id(12));
    let log = format!("Error: {} key {k1} end", "x ".repeat(900_000));
    let crash = format!("{}then {k2} and more", "\0".repeat(1_600_000));
    let file = session(tmp.path(), &[user("u1", "hello"), log, crash]);
    let f = file.to_str().unwrap();
    let (fp1, fp2) = (
        pisess::views::secrets::fingerprint(&k1),
        pisess::views::secrets::fingerprint(&k2),
    );
    let bytes = fs::read(&file).unwrap();
    for (source, input) in [(f, &b""[..]), ("-", &bytes[..])] {
        let json = run_in(tmp.path(), &["grep", "--secrets", "--json", source], input);
        assert_eq!(json.code, 0, "{source}: {}", json.stderr);
        let found: Vec<Value> = json
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let got: Vec<(&str, &str)> = found
            .iter()
            .map(|v| {
                (
                    v["field"].as_str().unwrap(),
                    v["fingerprint"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [("(raw line)", fp1.as_str()), ("(raw line)", fp2.as_str())],
            "{source}: {}",
            json.stdout
        );
        assert!(!json.stdout.contains(&k1) && !json.stdout.contains(&k2));
    }
    let check = run_in(tmp.path(), &["check", "--no-secrets", f], b"");
    assert_eq!(check.code, 1, "{}", check.stdout);
    assert!(
        check.stdout.contains(&fp1) && check.stdout.contains(&fp2),
        "{}",
        check.stdout
    );
    assert!(!check.stdout.contains(&k1) && !check.stdout.contains(&k2));
}

/// Case "seed-000 files are searched only as mapped": fields the dialect mapping drops (an
/// extra field, `output.stdout`) are read by `grep --secrets` and `check --no-secrets`, named
/// by their stored path, and `export --redact` (every format) publishes none of them.
#[test]
fn seed000_fields_the_mapping_drops_are_searched_and_never_exported() {
    let tmp = tempfile::tempdir().unwrap();
    let (k1, k2, k3) = (aws_id(21), aws_id(22), aws_id(23));
    let lines = [
        r#"{"type":"session_header","version":1,"createdAt":"2025-04-03T08:00:00Z","cwd":"/home/dev/webshop"}"#.to_owned(),
        serde_json::json!({"type": "user_message", "id": "e1", "parentId": null,
            "timestamp": "2025-04-03T08:00:01Z", "content": [{"type": "text", "text": "List src."}],
            "env": {"AWS_ACCESS_KEY_ID": k1}}).to_string(),
        serde_json::json!({"type": "assistant_message", "id": "e2", "parentId": "e1",
            "timestamp": "2025-04-03T08:00:02Z", "modelId": "m",
            "content": [{"type": "tool_use", "id": "tc_001", "name": "bash", "input": {"command": "env"}}],
            "usage": {"inputTokens": 9, "outputTokens": 2}, "cost": 0.003}).to_string(),
        serde_json::json!({"type": "tool_result", "id": "e3", "parentId": "e2",
            "timestamp": "2025-04-03T08:00:03Z", "toolCallId": "tc_001", "toolName": "bash",
            "output": {"content": [{"type": "text", "text": "done"}], "stdout": format!("KEY={k2}"),
                       "extra": [{"note": format!("{k3}")}]}}).to_string(),
    ];
    let dir = tmp.path().join("sessions").join("--home-dev-webshop--");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("seed-session-0001.jsonl");
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    let f = file.to_str().unwrap();
    let fp = |k: &str| pisess::views::secrets::fingerprint(k);

    let json = run_in(tmp.path(), &["grep", "--secrets", "--json", f], b"");
    assert_eq!(json.code, 0, "{}", json.stderr);
    let mut got: Vec<(String, String)> = json
        .stdout
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["field"].as_str().unwrap().to_owned(),
                v["fingerprint"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    got.sort();
    let mut want = vec![
        ("env.AWS_ACCESS_KEY_ID".to_owned(), fp(&k1)),
        ("output.stdout".to_owned(), fp(&k2)),
        ("output.extra[0].note".to_owned(), fp(&k3)),
    ];
    want.sort();
    assert_eq!(got, want, "{}", json.stdout);

    let check = run_in(tmp.path(), &["check", "--no-secrets", f], b"");
    assert_eq!(check.code, 1, "{}", check.stdout);
    for k in [&k1, &k2, &k3] {
        assert!(check.stdout.contains(&fp(k)), "{}", check.stdout);
    }
    for format in ["jsonl", "md", "html"] {
        let args = [
            "-q", "export", f, "--format", format, "--tools", "full", "--redact",
        ];
        let args: Vec<&str> = if format == "jsonl" {
            args.iter()
                .copied()
                .filter(|a| *a != "--tools" && *a != "full")
                .collect()
        } else {
            args.to_vec()
        };
        let out = run_in(tmp.path(), &args, b"");
        assert_eq!(out.code, 0, "{format}: {}", out.stderr);
        assert!(
            out.stdout.contains("List src."),
            "{format}: the export is there"
        );
        for k in [&k1, &k2, &k3] {
            assert!(
                !out.stdout.contains(k.as_str()),
                "{format}: a key was exported"
            );
        }
    }
    for run in [&json, &check] {
        for k in [&k1, &k2, &k3] {
            assert!(!run.stdout.contains(k.as_str()));
        }
    }
}

/// A text holding JSON in a string `levels` times: the innermost holds `key` with its first
/// letter written as a JSON escape, so only a reader that decodes every level sees the key.
fn nested(levels: usize, key: &str) -> String {
    let hidden = format!("\\u0041{}", &key[1..]);
    let mut text = format!("{{\"v\":\"{hidden}\"}}");
    for _ in 1..levels {
        text = serde_json::json!({ "v": text }).to_string();
    }
    text
}

/// Case "redaction follows JSON inside strings one level less deep than detection": at 7, 8
/// and 9 levels, in a message's text and in a tool call's arguments, `export --redact` (jsonl,
/// md, html) removes exactly what `grep --secrets` reports (at 8 the key was reported and then
/// exported). Detection follows 8 levels: a key at 9 is neither found nor redacted.
#[test]
fn redaction_follows_json_in_strings_as_deep_as_detection() {
    for levels in [7, 8, 9] {
        let tmp = tempfile::tempdir().unwrap();
        let (k1, k2) = (aws_id(30 + levels as u64), aws_id(40 + levels as u64));
        let call = serde_json::json!({"type": "message", "id": "a1", "parentId": "u1",
            "timestamp": "2026-07-01T10:00:02.000Z",
            "message": {"role": "assistant", "content": [
                {"type": "toolCall", "id": "c1", "name": "bash",
                 "arguments": {"command": nested(levels, &k2)}}],
                "provider": "p", "model": "m", "stopReason": "toolUse", "timestamp": 2,
                "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0,
                    "totalTokens": 2, "cost": {"input": 0, "output": 0, "cacheRead": 0,
                    "cacheWrite": 0, "total": 0}}}})
        .to_string();
        let file = session(tmp.path(), &[user("u1", &nested(levels, &k1)), call]);
        let f = file.to_str().unwrap();
        let json = run_in(tmp.path(), &["grep", "--secrets", "--json", f], b"");
        let reported: Vec<String> = json
            .stdout
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                v["fingerprint"].as_str().unwrap().to_owned()
            })
            .collect();
        for k in [&k1, &k2] {
            let fp = pisess::views::secrets::fingerprint(k);
            let found = reported.contains(&fp);
            assert_eq!(found, levels <= 8, "{levels} levels: found {found}");
            for format in ["jsonl", "md", "html"] {
                let mut args = vec!["-q", "export", f, "--format", format, "--redact"];
                if format != "jsonl" {
                    args.extend(["--tools", "full"]);
                }
                let out = run_in(tmp.path(), &args, b"");
                assert_eq!(out.code, 0, "{}", out.stderr);
                // The key as a reader of the export would see it: JSON escapes undone as
                // often as they were written.
                let mut seen = out.stdout.clone();
                for _ in 0..12 {
                    seen = seen.replace("\\\\", "\\").replace("\\u0041", "A");
                }
                let left = seen.contains(k.as_str());
                assert_eq!(
                    left, !found,
                    "{levels} levels, {format}: reported {found}, left in the export {left}"
                );
                if found {
                    assert!(out.stdout.contains(&fp), "{levels} levels, {format}: named");
                }
            }
        }
    }
}

/// Red team repro 09: an escape JSON does not have (`\q`) just before a key makes the line
/// malformed and glued its letter to the key, so `grep --secrets` found nothing and
/// `check --no-secrets` passed; with `\n` there the key was found. Both are found now, and
/// `export` (which writes entries only, never a malformed line) leaks neither.
#[test]
fn a_key_after_an_invalid_escape_on_a_malformed_line_is_found() {
    let tmp = tempfile::tempdir().unwrap();
    for esc in ["q", "n"] {
        let key = aws_id(21);
        let line = format!(
            r#"{{"type":"message","id":"x","parentId":null,"message":{{"role":"user","content":"key:\{esc}{key}"}}}}"#
        );
        let file = session(tmp.path(), &[user("u1", "hello"), line]);
        let f = file.to_str().unwrap();
        let count = run_in(tmp.path(), &["grep", "--secrets", "-c", f], b"");
        assert_eq!(count.code, 0, "\\{esc}: {}", count.stderr);
        assert!(
            count.stdout.trim_end().ends_with(":1"),
            "\\{esc}: {}",
            count.stdout
        );
        let check = run_in(tmp.path(), &["check", "--no-secrets", f], b"");
        assert_eq!(check.code, 1, "\\{esc}: {}", check.stdout);
        assert!(!check.stdout.contains(&key));
        let export = run_in(tmp.path(), &["export", "--redact", "-f", "jsonl", f], b"");
        assert_eq!(export.code, 0, "\\{esc}: {}", export.stderr);
        assert!(!export.stdout.contains(&key), "\\{esc}: {}", export.stdout);
    }
}
