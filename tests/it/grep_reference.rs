//! `grep --json` against an independent reference: every line of a generated corpus decoded
//! with serde_json, the searched fields picked from the `Value`s by hand, each line of them
//! matched. Equal sets, so nothing is missed (the raw-bytes prefilter and the skim included)
//! and nothing is found that is not there (keys, escapes, image data, skipped kinds).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use crate::common::{env_in, run_with};

/// Words with what JSON escapes (`"`, `\`, `/`, tab, newline) and what it may (non-ASCII).
const WORDS: &[&str] = &[
    "deploy",
    "log",
    "logs",
    "catalog",
    "say \"hi\"",
    "C:\\dir",
    "a/b",
    "café",
    "CAFÉ",
    "naïve",
    "日本語",
    "🚀",
    "tab\there",
    "line\nsecond",
    "second",
    "x123y",
    "\r",
    "é",
    "e\u{301}",
    "LOG",
    "the",
    "\\n",
    "\\u00e9",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn text(&mut self) -> String {
        let n = 1 + self.next(8);
        (0..n)
            .map(|_| WORDS[self.next(WORDS.len())])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// JSON text with every non-ASCII character as `\uXXXX` and `/` as `\/`: what other writers
/// store (`JSON.stringify` does neither); the same values decoded.
fn escaped(json: &str) -> String {
    let mut out = String::new();
    for c in json.chars() {
        match c {
            '/' => out.push_str("\\/"),
            c if c.is_ascii() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out
}

fn entry(rng: &mut Rng, i: usize) -> Value {
    let id = format!("e{i:04}");
    let parent = if i == 0 {
        Value::Null
    } else {
        json!(format!("e{:04}", rng.next(i)))
    };
    let mut e = json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-07-01T10:00:00.000Z"});
    let body = match rng.next(12) {
        0 => json!({"type": "message", "message": {"role": "user", "content": rng.text()}}),
        1 => json!({"type": "message", "message": {"role": "user", "content": [
            {"type": "text", "text": rng.text()},
            {"type": "image", "data": "ZGVwbG95IGNhZsOp", "mimeType": "image/png"}]}}),
        2 | 3 => json!({"type": "message", "message": {"role": "assistant", "content": [
            {"type": "thinking", "thinking": rng.text(), "thinkingSignature": "deploy"},
            {"type": "text", "text": rng.text()},
            {"type": "toolCall", "id": "c", "name": "bash",
             "arguments": {"command": rng.text(), "deploy": [rng.text(), 3, {"k": rng.text()}]}}]}}),
        4 => json!({"type": "message", "message": {"role": "toolResult", "toolName": "bash",
            "content": [{"type": "text", "text": rng.text()}], "isError": false}}),
        5 => json!({"type": "message", "message": {"role": "bashExecution", "command": rng.text(),
            "output": rng.text(), "exitCode": 0}}),
        6 => {
            json!({"type": "compaction", "summary": rng.text(), "firstKeptEntryId": "e0000", "tokensBefore": 1})
        }
        7 => json!({"type": "branch_summary", "fromId": "e0000", "summary": rng.text()}),
        8 => {
            json!({"type": "custom_message", "customType": "note", "content": rng.text(), "display": true})
        }
        9 => json!({"type": "session_info", "name": rng.text()}),
        10 => json!({"type": "label", "targetId": "e0000", "label": rng.text()}),
        _ => json!({"type": "message", "message": {"role": "system", "content": rng.text()}}),
    };
    for (k, v) in body.as_object().unwrap() {
        e[k] = v.clone();
    }
    e
}

fn corpus(root: &Path) {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for s in 0..24 {
        let dir = root.join(format!("sessions/--p{}--", s % 3));
        fs::create_dir_all(&dir).unwrap();
        let id = format!("{s:08x}-0000-7000-8000-000000000000");
        let mut text = json!({"type": "session", "version": 3, "id": id,
            "timestamp": "2026-07-01T10:00:00.000Z", "cwd": format!("/p{}", s % 3)})
        .to_string();
        text.push('\n');
        for i in 0..40 {
            let line = entry(&mut rng, i).to_string();
            // Half the sessions stored by a writer that escapes what it may.
            text.push_str(&if s % 2 == 0 { line } else { escaped(&line) });
            text.push('\n');
        }
        text.push_str("{\"type\":\"message\",\"torn\n");
        let mut bytes = text.into_bytes();
        if s % 4 == 2 {
            plain_and_damaged(&mut bytes);
        }
        fs::write(
            dir.join(format!("2026-07-01T10-00-00-000Z_{id}.jsonl")),
            bytes,
        )
        .unwrap();
    }
}

/// A quarter of the sessions without a `\u` anywhere (the text `\u00e9` made `\x00e9`), so
/// that whole files and their lines are ruled out on their stored bytes alone, and with
/// invalid UTF-8 (read as U+FFFD): `é` as Latin-1's one byte, `日` cut after two of its three.
fn plain_and_damaged(bytes: &mut Vec<u8>) {
    let swaps: [(&[u8], &[u8]); 3] = [
        (b"\\\\u00e9", b"\\\\x00e9"),
        ("é".as_bytes(), b"\xe9"),
        ("日".as_bytes(), b"\xe6\x97"),
    ];
    for (from, to) in swaps {
        let mut out = Vec::with_capacity(bytes.len());
        let mut rest = &bytes[..];
        while let Some(at) = rest.windows(from.len()).position(|w| w == from) {
            out.extend_from_slice(&rest[..at]);
            out.extend_from_slice(to);
            rest = &rest[at + from.len()..];
        }
        out.extend_from_slice(rest);
        *bytes = out;
    }
    assert!(!bytes.windows(2).any(|w| w == b"\\u"));
}

/// `(file, entry id, field, line number, line, matches)`.
type Found = BTreeSet<(String, String, String, u64, String, String)>;

/// The searched texts of a decoded line, chosen from the docs' list without pisess's code.
fn reference_texts(v: &Value, tools: bool, thinking: bool) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let s = |v: &Value| v.as_str().map(str::to_owned);
    let blocks = |c: &Value, field: &'static str, out: &mut Vec<(&'static str, String)>| {
        if let Some(text) = c.as_str() {
            out.push((field, text.to_owned()));
        }
        for b in c.as_array().into_iter().flatten() {
            if b["type"] == "text" {
                out.extend(s(&b["text"]).map(|t| (field, t)));
            }
        }
    };
    fn leaves(v: &Value, out: &mut Vec<(&'static str, String)>) {
        match v {
            Value::String(t) => out.push(("toolCall", t.clone())),
            Value::Array(a) => a.iter().for_each(|x| leaves(x, out)),
            Value::Object(o) => o.values().for_each(|x| leaves(x, out)),
            _ => {}
        }
    }
    let m = &v["message"];
    match (v["type"].as_str(), m["role"].as_str()) {
        (Some("message"), Some("user" | "custom")) => blocks(&m["content"], "text", &mut out),
        (Some("message"), Some("assistant")) => {
            for b in m["content"].as_array().into_iter().flatten() {
                match b["type"].as_str() {
                    Some("text") => out.extend(s(&b["text"]).map(|t| ("text", t))),
                    Some("thinking") if thinking => {
                        out.extend(s(&b["thinking"]).map(|t| ("thinking", t)));
                    }
                    Some("toolCall") => {
                        out.extend(s(&b["name"]).map(|t| ("toolCall", t)));
                        leaves(&b["arguments"], &mut out);
                    }
                    _ => {}
                }
            }
        }
        (Some("message"), Some("toolResult")) if tools => {
            blocks(&m["content"], "toolResult", &mut out);
        }
        (Some("message"), Some("bashExecution")) => {
            out.extend(s(&m["command"]).map(|t| ("command", t)));
            if tools {
                out.extend(s(&m["output"]).map(|t| ("output", t)));
            }
        }
        (Some("compaction" | "branch_summary"), _) => {
            out.extend(s(&v["summary"]).map(|t| ("summary", t)));
        }
        (Some("custom_message"), _) => blocks(&v["content"], "text", &mut out),
        (Some("session_info"), _) => out.extend(s(&v["name"]).map(|t| ("name", t))),
        _ => {}
    }
    out
}

fn reference(root: &Path, regex: &regex::Regex, tools: bool, thinking: bool) -> Found {
    let mut found = Found::new();
    let mut files: Vec<_> = walk(&root.join("sessions"));
    files.sort();
    for path in files {
        // Invalid UTF-8 reads as U+FFFD, as Node reads it.
        let text = String::from_utf8_lossy(&fs::read(&path).unwrap()).into_owned();
        for line in text.lines().skip(1) {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            for (field, t) in reference_texts(&v, tools, thinking) {
                for (n, l) in t.split('\n').enumerate() {
                    let matches: Vec<_> =
                        regex.find_iter(l).map(|m| (m.start(), m.end())).collect();
                    if !matches.is_empty() {
                        found.insert((
                            path.to_string_lossy().into_owned(),
                            v["id"].as_str().unwrap().to_owned(),
                            field.to_owned(),
                            n as u64 + 1,
                            l.to_owned(),
                            format!("{matches:?}"),
                        ));
                    }
                }
            }
        }
    }
    found
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn pisess(root: &Path, args: &[&str]) -> Found {
    let mut all = vec!["-q", "grep", "--all", "--json"];
    all.extend_from_slice(args);
    let r = run_with(env_in(root, "/p0"), &all, b"");
    assert!(r.code <= 1, "{args:?}: {}", r.stderr);
    r.stdout
        .lines()
        .map(|l| {
            let o: Value = serde_json::from_str(l).unwrap();
            let matches: Vec<(usize, usize)> = o["matches"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["start"].as_u64().unwrap() as usize,
                        m["end"].as_u64().unwrap() as usize,
                    )
                })
                .collect();
            (
                o["path"].as_str().unwrap().to_owned(),
                o["entryId"].as_str().unwrap().to_owned(),
                o["field"].as_str().unwrap().to_owned(),
                o["lineNumber"].as_u64().unwrap(),
                o["line"].as_str().unwrap().to_owned(),
                format!("{matches:?}"),
            )
        })
        .collect()
}

#[test]
fn grep_json_equals_an_independent_reference() {
    let tmp = tempfile::tempdir().unwrap();
    corpus(tmp.path());
    // (flags, the regex the reference builds for them)
    let cases: &[(&[&str], &str)] = &[
        (&["-F", "say \"hi\""], "say \"hi\""),
        (&["-F", "C:\\dir"], r"C:\\dir"),
        (&["-F", "a/b"], "a/b"),
        (&["-F", "café"], "café"),
        (&["-F", "日本語"], "日本語"),
        (&["-F", "🚀"], "🚀"),
        (&["-F", "tab\there"], "tab\there"),
        (&["-F", "\\u00e9"], r"\\u00e9"),
        (&["-F", "\\n"], r"\\n"),
        (&["^second"], "^second"),
        (&["dir$"], "dir$"),
        (&["x\\d+y"], r"x\d+y"),
        (&["-i", "café"], "(?i)café"),
        (&["-i", "LOG"], "(?i)LOG"),
        (&["-S", "log"], "(?i)log"),
        (&["-w", "log"], r"\b(?:log)\b"),
        (&["-w", "-i", "-F", "log"], r"(?i)\b(?:log)\b"),
        (&["deploy|naïve"], "deploy|naïve"),
        (&["e\u{301}"], "e\u{301}"),
        // Regexes whose matches sit on text stored escaped, or read from invalid UTF-8.
        (&["say \"\\w+\""], r#"say "\w+""#),
        (&[r"C:\\\w+"], r"C:\\\w+"),
        (&[r"\w/\w"], r"\w/\w"),
        (&[r"tab\s\w+"], r"tab\s\w+"),
        (&["[\t/\"]"], "[\t/\"]"),
        (&[r"\r$"], r"\r$"),
        (&[r"^\\n"], r"^\\n"),
        (&[r#""hi"$"#], r#""hi"$"#),
        (&["-i", r#"SAY "HI""#], r#"(?i)SAY "HI""#),
        (&["-w", r"C:\\dir"], r"\b(?:C:\\dir)\b"),
        (&[r"[^\w ]{2,}"], r"[^\w ]{2,}"),
        (&[r"caf\W"], r"caf\W"),
        (&["-F", "\u{fffd}"], "\u{fffd}"),
        (&["-i", r"\x{fffd}."], r"(?i)\x{fffd}."),
    ];
    let mut compared = 0;
    for (flags, regex) in cases {
        let regex = regex::Regex::new(regex).unwrap();
        for (extra, tools, thinking) in [
            (&[][..], false, false),
            (&["--tools", "--thinking"][..], true, true),
        ] {
            let mut args: Vec<&str> = extra.to_vec();
            args.extend_from_slice(flags);
            let got = pisess(tmp.path(), &args);
            let want = reference(tmp.path(), &regex, tools, thinking);
            let missed: Vec<_> = want.difference(&got).take(3).collect();
            let extra: Vec<_> = got.difference(&want).take(3).collect();
            assert!(
                missed.is_empty() && extra.is_empty(),
                "{args:?}: missed {missed:?}, extra {extra:?}"
            );
            compared += want.len();
            // The pass that also summarizes each file (taken for --since) finds the same.
            args.extend(["--since", "2000-01-01"]);
            assert!(pisess(tmp.path(), &args) == want, "{args:?}");
        }
    }
    // The corpus gives every case something to find.
    assert!(compared > 2000, "{compared}");
}
