//! Warnings parity (issue 47): a damaged file is one line of stderr in every command, as in
//! `ls`, and a command over a time window says nothing of sessions outside it.

use std::fs;

use crate::common::{env_in, run_with};

/// A session 60 days old with five malformed lines, and a clean one from yesterday (the tests'
/// now is 2026-08-01).
fn store() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions/--p--");
    fs::create_dir_all(&dir).unwrap();
    let message = |id: &str, parent: &str, t: &str, text: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"{t}","message":{{"role":"user","content":"{text}"}}}}"#
        )
    };
    let mut old = vec![
        r#"{"type":"session","version":3,"id":"dddd0001","timestamp":"2026-06-01T10:00:00.000Z","cwd":"/p"}"#.to_owned(),
        message("u1", "null", "2026-06-01T10:00:01.000Z", "hello old"),
    ];
    old.extend((0..5).map(|i| format!(r#"{{"type":"message", broken {i}"#)));
    old.push(message(
        "u2",
        "\"u1\"",
        "2026-06-01T10:00:02.000Z",
        "hello again",
    ));
    fs::write(dir.join("dddd0001.jsonl"), old.join("\n") + "\n").unwrap();
    let new = [
        r#"{"type":"session","version":3,"id":"eeee0001","timestamp":"2026-07-31T10:00:00.000Z","cwd":"/p"}"#.to_owned(),
        message("u1", "null", "2026-07-31T10:00:01.000Z", "hello new"),
    ];
    fs::write(dir.join("eeee0001.jsonl"), new.join("\n") + "\n").unwrap();
    tmp
}

fn stderr(tmp: &tempfile::TempDir, args: &[&str]) -> String {
    let r = run_with(env_in(tmp.path(), "/p"), args, b"");
    assert!(r.code < 2, "{args:?}: {}", r.stderr);
    r.stderr
}

#[test]
fn a_window_says_nothing_of_damaged_sessions_outside_it() {
    let tmp = store();
    for args in [
        &["ls", "--since", "1d"][..],
        &["grep", "--since", "1d", "hello"],
        &["grep", "--all", "--since", "1d", "hello"],
        &["stats", "--all", "--since", "1d"],
        &["stats", "--since", "1d", "--by", "day"],
        &[
            "stats", "--all", "--since", "1d", "--by", "message", "--json",
        ],
    ] {
        let err = stderr(&tmp, args);
        assert!(!err.contains("dddd0001"), "{args:?}: {err}");
    }
    // Without the window, the damage is said.
    for args in [&["grep", "hello"][..], &["stats", "--all"]] {
        let err = stderr(&tmp, args);
        assert!(
            err.contains("dddd0001.jsonl:3: malformed JSON"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_damaged_file_is_one_line_with_a_count_in_every_command() {
    let tmp = store();
    let file = tmp.path().join("sessions/--p--/dddd0001.jsonl");
    let file = file.to_str().unwrap();
    for args in [
        &["ls"][..],
        &["grep", "hello"],
        &["grep", "hello", file],
        &["show", file],
        &["tree", file],
        &["stats", file],
        &["context", file],
    ] {
        let err = stderr(&tmp, args);
        let lines: Vec<&str> = err.lines().filter(|l| l.contains("dddd0001")).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        assert!(
            lines[0].contains(":3: malformed JSON")
                && lines[0].contains("and 4 more warnings about this file"),
            "{args:?}: {err}"
        );
    }
    // --verbose says each line.
    let err = stderr(&tmp, &["--verbose", "show", file]);
    assert_eq!(err.lines().count(), 5, "{err}");
    assert!(
        (3..=7).all(|n| err.contains(&format!(":{n}: malformed JSON"))),
        "{err}"
    );
    // The detail is check's: each line a finding.
    let r = run_with(env_in(tmp.path(), "/p"), &["check", file, "--json"], b"");
    let v: serde_json::Value = serde_json::from_str(r.stdout.trim()).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 5, "{v}");
}
