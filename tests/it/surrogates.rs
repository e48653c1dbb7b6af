//! Lone surrogates (issue 14): pi's `JSON.parse` keeps `"\ud83d"` (a text cut inside an emoji)
//! and `JSON.stringify` writes it back; every JSON output of pisess writes the same escape, and
//! text for people shows U+FFFD.

use std::path::Path;

use crate::common::{env_in, run_with, Run};

/// A session whose first user message, name, cwd, tool call and bash command hold lone
/// surrogates, and whose second user message must not be taken for the first.
const SESSION: &str = r#"{"type":"session","version":3,"id":"sg1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p/\ud83d"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"cut \ud83d"},{"type":"text","text":"\ude00 tail"}],"timestamp":1767225601000}}
{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok \uDBFF"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"echo \ud800"}}],"provider":"p","model":"m","timestamp":1767225602000}}
{"type":"session_info","id":"c","parentId":"b","name":"named \ud83d"}
{"type":"message","id":"d","parentId":"c","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"bashExecution","command":"ls \ud83d","output":"x","exitCode":0,"timestamp":1767225603000}}
{"type":"message","id":"e","parentId":"d","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"second","timestamp":1767225604000}}
"#;

fn pisess(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["--session-dir", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    let r = run_with(env_in(dir, "/p"), &all, b"");
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    r
}

fn session() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    std::fs::write(&file, SESSION).unwrap();
    (dir, file.to_str().unwrap().to_owned())
}

/// The characters pisess holds lone surrogates as: none may reach any output.
fn no_stand_ins(r: &Run, args: &[&str]) {
    assert!(
        !r.stdout.chars().any(|c| c >= '\u{10f800}'),
        "{args:?}: {}",
        r.stdout
    );
}

#[test]
fn json_output_writes_the_escape_pi_writes() {
    let (dir, file) = session();
    let dir = dir.path();
    let context = pisess(dir, &["context", &file, "--json"]).stdout;
    for want in [
        r#"{"type":"text","text":"cut \ud83d"},{"type":"text","text":"\ude00 tail"}"#,
        // A message JSON.stringify writes again: lowercase, as pi writes it.
        r#"{"type":"text","text":"ok \udbff"}"#,
        r#""arguments":{"command":"echo \ud800"}"#,
        r#""command":"ls \ud83d""#,
    ] {
        assert!(context.contains(want), "{want} in {context}");
    }
    let llm = pisess(dir, &["context", &file, "--llm", "--json"]).stdout;
    assert!(
        llm.contains(r#""text":"Ran `ls \ud83d`\n```\nx\n```""#),
        "{llm}"
    );
    let ls = pisess(dir, &["ls", "--all", "--json"]).stdout;
    for want in [
        r#""firstMessage":"cut \ud83d \ude00 tail""#,
        r#""name":"named \ud83d""#,
        r#""cwd":"/p/\ud83d""#,
    ] {
        assert!(ls.contains(want), "{want} in {ls}");
    }
    // The two halves of a pair, in two blocks, join into the character, as in JavaScript.
    let tree = pisess(dir, &["tree", &file, "--json"]).stdout;
    assert!(tree.contains(r#""preview":"user: cut 😀 tail""#), "{tree}");
    assert!(
        tree.contains(r#""preview":"assistant: ok \udbff""#),
        "{tree}"
    );
    // Stored lines are copied as they are.
    let show = pisess(dir, &["show", &file, "--json"]).stdout;
    assert_eq!(show, SESSION);
}

#[test]
fn human_output_shows_replacement_characters() {
    let (dir, file) = session();
    let dir = dir.path();
    let commands: [&[&str]; 6] = [
        &["ls", "--all"],
        &["show", &file],
        &["show", &file, "--full"],
        &["tree", &file],
        &["context", &file],
        &["context", &file, "--full", "--llm"],
    ];
    for args in commands {
        let r = pisess(dir, args);
        no_stand_ins(&r, args);
        assert!(r.stdout.contains('\u{fffd}'), "{args:?}: {}", r.stdout);
    }
    let ls = pisess(dir, &["ls", "--all"]).stdout;
    assert!(ls.contains("named \u{fffd}"), "{ls}");
    let show = pisess(dir, &["show", &file]).stdout;
    assert!(show.contains("cut \u{fffd}"), "{show}");
    assert!(show.contains("echo \u{fffd}"), "{show}");
}

/// Lines the scan re-encodes (a key given twice, the seed-000 dialect) keep their lone
/// surrogates too: the re-encoded text is read again for `ls`'s first message and name.
#[test]
fn re_encoded_lines_keep_them() {
    let dir = tempfile::tempdir().unwrap();
    let pi = concat!(
        r#"{"type":"session","version":3,"id":"dup","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
        "\n",
        r#"{"type":"message","id":"a","id":"a","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"dup \ud83d key"}}"#,
        "\n",
        r#"{"type":"session_info","id":"b","parentId":"a","parentId":"a","name":"dup \ude00"}"#,
        "\n",
    );
    let seed = concat!(
        r#"{"type":"session_header","version":1,"createdAt":"2026-01-02T00:00:00Z","cwd":"/p"}"#,
        "\n",
        r#"{"type":"user_message","id":"u1","parentId":null,"timestamp":"2026-01-02T00:00:01Z","content":"seed \ud83d"}"#,
        "\n",
    );
    std::fs::write(dir.path().join("dup.jsonl"), pi).unwrap();
    std::fs::write(dir.path().join("seed.jsonl"), seed).unwrap();
    let ls = pisess(dir.path(), &["ls", "--all", "--json"]).stdout;
    for want in [
        r#""firstMessage":"dup \ud83d key""#,
        r#""name":"dup \ude00""#,
        r#""firstMessage":"seed \ud83d""#,
    ] {
        assert!(ls.contains(want), "{want} in {ls}");
    }
}
