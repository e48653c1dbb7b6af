//! Secrets in the names a session gives things (entry and session ids, `parentId`, a label's
//! `targetId`, unknown types, tool names, the project folder) are found, and then no output of
//! `grep --secrets`, `check --no-secrets` or `export --redact` prints them: each is one token,
//! `[REDACTED kind fingerprint]`, the same everywhere, so a redacted jsonl export is still the
//! same tree. Each case here printed the secret on main 63e6fc9.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{env_in, run_with, Run};
use crate::secrets_corpus::{github_style, Rng};
use pisess::views::secrets::fingerprint;

/// The token a secret is printed as (docs/secrets.md).
fn token(kind: &str, fingerprint: &str) -> String {
    format!("[REDACTED {kind} {fingerprint}]")
}

/// Whether `out` holds 5 characters in a row of `secret` (its first 4 are the preview rule's).
pub(crate) fn leaks(out: &str, secret: &str) -> Option<String> {
    let chars: Vec<char> = secret.chars().collect();
    chars
        .windows(5)
        .map(|w| w.iter().collect::<String>())
        .find(|w| out.contains(w.as_str()))
}

pub(crate) fn assert_no_leak(what: &str, run: &Run, secrets: &[&str]) {
    for s in secrets {
        for (stream, out) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
            if let Some(w) = leaks(out, s) {
                panic!("{what}: {stream} holds {w:?}, a part of a secret:\n{out}");
            }
        }
    }
}

/// Secrets of formats the detector knows, made from `seed`.
struct Keys {
    stripe: String,
    aws: String,
    slack: String,
    github: String,
    folder: String,
    /// In an object `parentId`, which `check --integrity` quotes cut to 40 characters.
    orphan: String,
}

fn keys(seed: u64) -> Keys {
    let mut rng = Rng(seed);
    let alnum = |rng: &mut Rng, n: usize| -> String {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        (0..n)
            .map(|_| A[(rng.next() % A.len() as u64) as usize] as char)
            .collect()
    };
    let base32 = |rng: &mut Rng, n: usize| -> String {
        const B: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
        (0..n)
            .map(|_| B[(rng.next() % 32) as usize] as char)
            .collect()
    };
    Keys {
        stripe: format!("sk_live_{}", alnum(&mut rng, 24)),
        aws: format!("AKIA{}", base32(&mut rng, 16)),
        slack: format!(
            "xoxb-{}-{}-{}",
            1_000_000_000_000 + rng.next() % 1_000_000_000_000,
            1_000_000_000_000 + rng.next() % 1_000_000_000_000,
            alnum(&mut rng, 24)
        ),
        github: github_style(&mut rng, "ghp_", true),
        folder: format!("sk_test_{}", alnum(&mut rng, 24)),
        orphan: format!("rk_live_{}", alnum(&mut rng, 24)),
    }
}

/// A session whose ids, types, tool names and folder hold the keys, as pi would file it.
fn leaky_session(root: &Path, k: &Keys) -> PathBuf {
    let cwd = format!("/w/{}/app", k.folder);
    let dir = root
        .join("sessions")
        .join(format!("--w-{}-app--", k.folder));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("2026-07-01T10-00-00-000Z_{}.jsonl", k.aws));
    let t = "2026-07-01T10:00:01.000Z";
    let lines = [
        json!({"type": "session", "version": 3, "id": k.aws, "timestamp": "2026-07-01T10:00:00.000Z", "cwd": cwd}),
        json!({"type": "message", "id": k.stripe, "parentId": null, "timestamp": t,
            "message": {"role": "user", "content": "deploy it", "timestamp": 1_782_900_001_000u64}}),
        json!({"type": "message", "id": "a1", "parentId": k.stripe, "timestamp": t,
            "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": k.slack, "arguments": {}}],
                "provider": "p", "model": "m", "stopReason": "toolUse", "timestamp": 1_782_900_002_000u64}}),
        json!({"type": "message", "id": "r1", "parentId": "a1", "timestamp": t,
            "message": {"role": "toolResult", "toolCallId": "c1", "toolName": k.slack, "isError": true,
                "content": [{"type": "text", "text": "failed"}], "timestamp": 1_782_900_003_000u64}}),
        json!({"type": "label", "id": "l1", "parentId": "r1", "timestamp": t, "targetId": k.stripe, "label": "start"}),
        json!({"type": k.github, "id": "x1", "parentId": "l1", "timestamp": t}),
        json!({"type": "custom", "id": "o1", "parentId": {"ref": format!("{} {}", "p".repeat(19), k.orphan)}, "timestamp": t, "customType": "x"}),
        json!({"type": "message", "id": "b1", "parentId": "x1", "timestamp": t,
            "message": {"role": "bashExecution", "command": "ls", "output": "ok", "exitCode": k.stripe,
                "cancelled": false, "truncated": false, "timestamp": 1_782_900_004_000u64}}),
        json!({"type": "message", "id": "z9", "parentId": "b1", "timestamp": t,
            "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}],
                "provider": "p", "model": "m", "stopReason": "stop", "timestamp": 1_782_900_005_000u64}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&path, text).unwrap();
    path
}

fn run_in(root: &Path, args: &[&str]) -> Run {
    run_with(env_in(root, "/home/dev/webshop"), args, b"")
}

#[test]
fn ids_types_tool_names_and_the_folder_are_found_and_printed_as_tokens() {
    let tmp = tempfile::tempdir().unwrap();
    let k = keys(42);
    let path = leaky_session(tmp.path(), &k);
    let f = path.to_str().unwrap();
    let all = [k.stripe.as_str(), &k.aws, &k.slack, &k.github, &k.folder];
    let stripe = token("stripe-secret-key", &fingerprint(&k.stripe));
    let aws = token("aws-access-key-id", &fingerprint(&k.aws));

    let json = run_in(tmp.path(), &["grep", "--secrets", "--json", f]);
    assert_eq!(json.code, 0, "{}", json.stderr);
    assert_no_leak("grep --secrets --json", &json, &all);
    let rows: Vec<Value> = json
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let found: std::collections::HashSet<String> = rows
        .iter()
        .map(|r| r["fingerprint"].as_str().unwrap().to_owned())
        .collect();
    for s in all {
        assert!(found.contains(&fingerprint(s)), "not found: {}", &s[..4]);
    }
    assert!(rows.iter().all(|r| r["session"] == aws.as_str()));
    assert!(rows.iter().any(|r| r["entry"] == stripe.as_str()));
    // The one vocabulary's names hold the same tokens.
    assert!(rows.iter().all(|r| r["sessionId"] == aws.as_str()));
    assert!(rows.iter().any(|r| r["entryId"] == stripe.as_str()));
    assert!(rows.iter().all(|r| r["lineNumber"] == r["line"]));
    // The folder's token, ended by pi's `-`, is found in the path and replaced there.
    let folder = token("stripe-secret-key", &fingerprint(&k.folder));
    assert!(
        rows[0]["path"]
            .as_str()
            .unwrap()
            .contains(&format!("--w-{folder}-app--")),
        "{}",
        rows[0]["path"]
    );
    for args in [
        &["grep", "--secrets", f][..],
        &["grep", "--secrets", "-l", f],
        &["grep", "--secrets", "-c", f],
        &["grep", "--secrets", "--all"],
        &["check", "--no-secrets", "--integrity", f],
        &["check", "--no-secrets", "--integrity", "--json", f],
        &["check", "--no-secrets", "--integrity", "--summary", "-", f],
        &["check", "--no-secrets", "--integrity", "--junit", "-", f],
        &["check", "--no-secrets", "--ended", "--summary", "-", f],
    ] {
        let run = run_in(tmp.path(), args);
        assert_ne!(run.code, 2, "{args:?}: {}", run.stderr);
        assert_no_leak(&args.join(" "), &run, &all);
    }
    // The human view shows a redacted id whole, not cut to its first characters.
    let human = run_in(tmp.path(), &["grep", "--secrets", f]);
    assert!(
        human.stdout.contains(&format!("  {stripe}  ")),
        "{}",
        human.stdout
    );
    let check = run_in(tmp.path(), &["check", "--no-secrets", "--json", f]);
    let v: Value = serde_json::from_str(check.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(v["session"], aws.as_str());
    assert_eq!(v["sessionId"], aws.as_str());
    let check = run_in(tmp.path(), &["check", "--no-secrets", f]);
    assert!(
        check.stdout.starts_with(&format!("{aws}  ")),
        "{}",
        check.stdout
    );
}

#[test]
fn a_redacted_export_keeps_no_id_anchor_or_exit_code_and_is_the_same_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let k = keys(7);
    let path = leaky_session(tmp.path(), &k);
    let f = path.to_str().unwrap();
    let all = [k.stripe.as_str(), &k.aws, &k.slack, &k.github, &k.folder];
    for format in ["jsonl", "md", "html"] {
        let plain = run_in(tmp.path(), &["-q", "export", f, "--format", format]);
        assert!(
            plain.stdout.contains(&k.stripe),
            "{format}: the test could fail"
        );
        let run = run_in(tmp.path(), &["export", f, "--format", format, "--redact"]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_no_leak(&format!("export {format} --redact"), &run, &all);
    }
    // The redacted jsonl is a session pisess (and pi) reads as the same tree.
    let tree = |redact: bool| -> Vec<Value> {
        let mut args = vec!["-q", "export", f, "--format", "jsonl"];
        if redact {
            args.push("--redact");
        }
        let export = run_in(tmp.path(), &args);
        let file = tmp.path().join(if redact { "r.jsonl" } else { "p.jsonl" });
        fs::write(&file, export.stdout).unwrap();
        let t = run_in(
            tmp.path(),
            &["tree", "--json", "--filter", "all", file.to_str().unwrap()],
        );
        assert_eq!(t.code, 0, "{}", t.stderr);
        t.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (plain, redacted) = (tree(false), tree(true));
    assert!(plain.len() >= 6, "{plain:?}");
    assert_eq!(shape(&plain), shape(&redacted));
    let stripe = token("stripe-secret-key", &fingerprint(&k.stripe));
    assert_eq!(redacted[0]["id"], stripe.as_str());
    assert_eq!(redacted[1]["parentId"], stripe.as_str());
}

/// A tree's rows without their ids: each row's depth, children, flags, and its parent's row.
pub(crate) fn shape(rows: &[Value]) -> Vec<(Value, Value, Value, Value, Option<usize>)> {
    let ids: Vec<&Value> = rows.iter().map(|r| &r["id"]).collect();
    let unique: std::collections::HashSet<String> = ids.iter().map(|i| i.to_string()).collect();
    assert_eq!(unique.len(), ids.len(), "ids stay distinct");
    rows.iter()
        .map(|r| {
            (
                r["depth"].clone(),
                r["children"].clone(),
                r["active"].clone(),
                r["leaf"].clone(),
                ids.iter().position(|i| **i == r["parentId"]),
            )
        })
        .collect()
}

#[test]
fn the_human_view_of_grep_secrets_fits_the_terminal() {
    let tmp = tempfile::tempdir().unwrap();
    let k = keys(3);
    let cwd = "/home/dev/a-project-with-a-rather-long-name/and/a/deep/folder/inside/it";
    let dir = tmp
        .path()
        .join("sessions")
        .join(format!("-{}--", cwd.replace('/', "-")));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("2026-07-01T10-00-00-000Z_0196d88e-694c-7a1c-816a-89e3bcf11f1a.jsonl");
    let lines = [
        json!({"type": "session", "version": 3, "id": "0196d88e-694c-7a1c-816a-89e3bcf11f1a", "timestamp": "2026-07-01T10:00:00.000Z", "cwd": cwd}),
        json!({"type": "message", "id": "u1", "parentId": null, "timestamp": "2026-07-01T10:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": json!({"deployment": {"environments": {"production": {"credentials": {"stripe": k.stripe}}}}}).to_string()}], "timestamp": 1_782_900_001_000u64}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(&path, text).unwrap();
    let f = path.to_str().unwrap();
    let bytes = fs::read(&path).unwrap();
    for width in [80, 200] {
        // From the file (a long path) and from standard input (a stable snapshot).
        for (args, stdin) in [
            (&["grep", "--secrets", f][..], &b""[..]),
            (&["grep", "--secrets", "-"], &bytes[..]),
        ] {
            let mut env = env_in(tmp.path(), "/home/dev/webshop");
            env.width = Some(width);
            let run = run_with(env, args, stdin);
            assert_eq!(run.code, 0, "{}", run.stderr);
            let widest = run
                .stdout
                .lines()
                .map(pisess::views::style::width)
                .max()
                .unwrap();
            assert!(
                widest <= width,
                "{widest} columns at {width}:\n{}",
                run.stdout
            );
            if args[2] == "-" {
                crate::snap!(format!("grep_secrets_width_{width}"), run.stdout);
            }
        }
    }
}
