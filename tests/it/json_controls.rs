//! Issue 42, "terminal and rendered output": the C1 controls (U+009B CSI, U+009D OSC) and the
//! bidi controls (U+202E) that terminals act on are written as `\u` escapes in every JSON
//! pisess writes, the same JSON value; `show --json` copies stored lines verbatim, so it escapes
//! them on a terminal only. Each case failed on 63e6fc9, which wrote them raw.

use std::path::Path;

use pisess::app::env::{Env, Facts};
use pisess::app::global::GlobalArgs;

use crate::common::{run_with, Run, NOW_MS};

/// A session whose cwd, name, first message, tool call, failed bash command and secret's line
/// hold CSI, OSC and RIGHT-TO-LEFT OVERRIDE, in a file whose name holds CSI.
const SESSION: &str = concat!(
    r#"{"type":"session","version":3,"id":"ctl1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p/x"#,
    "\u{9b}",
    r#"2J"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi "#,
    "\u{9b}31m red \u{9d}0;title\u{9c} \u{202e}txt.exe \u{200e}\u{200f}\u{61c}\u{7f}\u{2028}\u{2029}\u{feff}\u{200b}",
    r#" DATABASE_URL=postgres://app:Xk9mP2vL7qR4zT8w@db/app","timestamp":1767225601000}}
{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"echo "#,
    "\u{9b}1A\u{2066}",
    r#""}}],"provider":"p","model":"m","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.01}},"stopReason":"toolUse","timestamp":1767225602000}}
{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"no"}],"isError":true,"timestamp":1767225603000}}
{"type":"session_info","id":"d","parentId":"c","name":"name "#,
    "\u{202e}\u{9b}\u{200f}\u{61c}",
    r#""}
"#
);

fn env(dir: &Path, terminal: bool) -> Env {
    let mut facts = Facts::for_test("/p/x\u{9b}2J", "/home/dev", NOW_MS);
    facts
        .vars
        .insert("PI_CODING_AGENT_DIR", dir.to_string_lossy().into_owned());
    facts.stdout_tty = terminal;
    Env::new(&GlobalArgs::default(), facts)
}

fn pisess(dir: &Path, terminal: bool, args: &[&str]) -> Run {
    let mut all = vec!["--no-pager", "--session-dir", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    run_with(env(dir, terminal), &all, b"")
}

fn session() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s\u{9b}.jsonl");
    std::fs::write(&file, SESSION).unwrap();
    (dir, file.to_str().unwrap().to_owned())
}

fn is_control(c: char) -> bool {
    matches!(
        c,
        '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

/// Red team repro 06: the bidi marks (LRM, RLM, ALM), DEL, the separators and the zero-width
/// characters were written raw by every JSON output.
const MARKS: [char; 8] = [
    '\u{200e}', '\u{200f}', '\u{61c}', '\u{7f}', '\u{2028}', '\u{2029}', '\u{feff}', '\u{200b}',
];

/// Every string inside a JSON value.
fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| {
            out.push(k.clone());
            strings(x, out);
        }),
        _ => {}
    }
}

/// The output holds no control raw, writes `want` as escapes, and each line reads back to
/// strings that hold the characters themselves.
fn escaped(r: &Run, args: &[&str], want: &[char]) {
    assert!(!r.stdout.chars().any(is_control), "{args:?}: {}", r.stdout);
    let mut all = Vec::new();
    for line in r.stdout.lines() {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{args:?}: {e}: {line}"));
        strings(&v, &mut all);
    }
    for &c in want {
        let escape = format!("\\u{:04x}", c as u32);
        assert!(
            r.stdout.contains(&escape),
            "{args:?}: no {escape} in {}",
            r.stdout
        );
        assert!(
            all.iter().any(|s| s.contains(c)),
            "{args:?}: {c:?} not read back from {}",
            r.stdout
        );
    }
}

#[test]
fn every_json_output_escapes_terminal_controls() {
    let (dir, file) = session();
    let dir = dir.path();
    let csi = '\u{9b}';
    let cases: Vec<(Vec<&str>, Vec<char>)> = vec![
        (
            vec!["ls", "--json"],
            vec![csi, '\u{202e}', '\u{9d}', '\u{200f}', '\u{61c}'],
        ),
        (
            vec!["tree", &file, "--json"],
            vec![csi, '\u{202e}', '\u{9d}'],
        ),
        (
            vec!["context", &file, "--json"],
            vec![csi, '\u{202e}', '\u{2066}'],
        ),
        (
            vec!["context", &file, "--llm", "--json"],
            vec![csi, '\u{202e}'],
        ),
        (
            vec!["stats", &file, "--json"],
            vec![csi, '\u{202e}', '\u{2066}'],
        ),
        (vec!["stats", "--by", "project", "--json"], vec![csi]),
        (vec!["stats", &file, "--by", "message", "--json"], vec![csi]),
        (vec!["check", &file, "--json", "--no-secrets"], vec![csi]),
        (
            vec!["grep", "red", "--json"],
            [&[csi, '\u{202e}', '\u{9d}'][..], &MARKS].concat(),
        ),
        (vec!["grep", "--secrets", "--json"], vec![csi]),
        (
            vec!["rm", &file, "--dry-run", "--json"],
            vec![csi, '\u{202e}'],
        ),
        (
            vec!["export", &file, "-f", "jsonl"],
            [&[csi, '\u{202e}', '\u{9d}'][..], &MARKS].concat(),
        ),
    ];
    for (args, want) in cases {
        for terminal in [false, true] {
            let r = pisess(dir, terminal, &args);
            assert!(r.code <= 1, "{args:?}: {}", r.stderr);
            escaped(&r, &args, &want);
        }
    }
}

#[test]
fn show_json_escapes_stored_lines_on_a_terminal_only() {
    let (dir, file) = session();
    let dir = dir.path();
    for args in [
        vec!["show", file.as_str(), "--json"],
        vec!["show", file.as_str(), "--json", "--branch"],
    ] {
        let piped = pisess(dir, false, &args);
        assert_eq!(piped.code, 0, "{}", piped.stderr);
        assert_eq!(piped.stdout, SESSION, "{args:?}: verbatim in a pipe");
        let shown = pisess(dir, true, &args);
        assert_eq!(shown.code, 0, "{}", shown.stderr);
        escaped(
            &shown,
            &args,
            &[
                &['\u{9b}', '\u{9d}', '\u{9c}', '\u{202e}', '\u{2066}'][..],
                &MARKS,
            ]
            .concat(),
        );
        for (a, b) in piped.stdout.lines().zip(shown.stdout.lines()) {
            let a: serde_json::Value = serde_json::from_str(a).unwrap();
            let b: serde_json::Value = serde_json::from_str(b).unwrap();
            assert_eq!(a, b, "the same value");
        }
    }
}

/// Red team repro 06, export html: a session name holding U+202E (RIGHT-TO-LEFT OVERRIDE) or
/// a mark rendered reordered in the page's title, heading and facts. Names and titles now show
/// each as its escape, in a `<bdi>`; message text keeps its characters.
#[test]
fn html_names_show_bidi_controls_as_escapes() {
    let (dir, file) = session();
    let r = pisess(dir.path(), false, &["export", &file, "-f", "html"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let head = &r.stdout[..r.stdout.find("<main>").expect("a main")];
    assert!(!head.chars().any(is_control), "{head}");
    for name in [
        "<title>name \\u{202e}\\u{200f}\\u{61c}</title>",
        "<h1><bdi>name \\u{202e}\\u{200f}\\u{61c}</bdi></h1>",
        "<dd><bdi>/p/x\\u{9b}2J</bdi></dd>",
    ] {
        assert!(head.contains(name), "no {name} in {head}");
    }
    // The message's own text is the page's too, as written.
    assert!(r.stdout.contains("\u{202e}txt.exe"));
}
