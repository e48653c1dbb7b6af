//! Hostile files (issue #6): every command on every kind of broken session ends with exit 0 or
//! 1, names the file and line at fault in a warning, and never panics or hangs. Also: files
//! being written while they are read, files removed while `ls` reads them, closed pipes, and
//! no command but `rm` ever writing to a session file.
//!
//! Each command runs in-process on its own thread with a watchdog: a panic fails the test with
//! the command named, and so does a run that outlives [`WATCHDOG`] (pi hangs on a parent
//! cycle; pisess must not).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde::Deserialize as _;

use crate::common::{env_in, run_with, Run};
use pisess::env::Env;
use pisess::scan::Reading;

/// Far beyond any run here (the slowest, a 60 MB line in a debug build, takes about a second).
const WATCHDOG: Duration = Duration::from_secs(60);

const HEADER: &str = r#"{"type":"session","version":3,"id":"0196f000-0000-7000-8000-00000000abcd","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

/// A sessions root with one project, `/p`, acting in it.
struct Project {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    env: Env,
}

impl Project {
    fn new() -> Project {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("sessions").join("--p--");
        fs::create_dir_all(&dir).unwrap();
        let env = env_in(tmp.path(), "/p");
        Project {
            _tmp: tmp,
            dir,
            env,
        }
    }

    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.join(name);
        fs::write(&path, bytes).unwrap();
        path
    }
}

/// `pisess ARGS` in-process, on a thread, within the watchdog.
fn guarded(env: &Env, args: &[&str]) -> Run {
    guarded_stdin(env, args, Vec::new())
}

fn guarded_stdin(env: &Env, args: &[&str], stdin: Vec<u8>) -> Run {
    let (tx, rx) = mpsc::channel();
    let env = env.clone();
    let owned: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    let handle = thread::spawn(move || {
        let args: Vec<&str> = owned.iter().map(String::as_str).collect();
        let _ = tx.send(run_with(env, &args, &stdin));
    });
    match rx.recv_timeout(WATCHDOG) {
        Ok(run) => {
            handle.join().unwrap();
            run
        }
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            let panic = handle.join().expect_err("no result and no panic");
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            panic!("pisess {args:?} panicked: {what}")
        }
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("pisess {args:?} hung"),
    }
}

/// The commands every hostile file goes through, with `{}` for its path.
const COMMANDS: &[&[&str]] = &[
    &["ls"],
    &["ls", "--all", "--json"],
    &["show", "{}"],
    &["show", "--full", "{}"],
    &["show", "--branch", "{}"],
    &["show", "--json", "{}"],
    &["tree", "{}"],
    &["tree", "--filter", "all", "{}"],
    &["tree", "--json", "{}"],
    &["context", "{}"],
    &["context", "--json", "{}"],
    &["context", "--llm", "--json", "{}"],
    &["stats", "{}"],
    &["stats", "--json", "{}"],
    &["stats", "--by", "message", "--json", "{}"],
    &["path", "{}"],
    &["rm", "--dry-run", "{}"],
    &["--color", "always", "show", "{}"],
    &["--color", "always", "tree", "{}"],
    &["--color", "always", "context", "--full", "{}"],
    // No SESSION: this project's newest session, found by listing.
    &["show"],
    &["context"],
];

/// The runs of one file: (command line, result).
struct Runs {
    path: PathBuf,
    runs: Vec<(String, Run)>,
}

impl Runs {
    /// The run of a command line (as written in [`COMMANDS`], `{}` for the path).
    fn of(&self, args: &str) -> &Run {
        &self
            .runs
            .iter()
            .find(|(a, _)| a == args)
            .unwrap_or_else(|| panic!("no run of {args}"))
            .1
    }

    /// Every command that reads the file warned about `line` of it, as `FILE:LINE: …`, `ls`
    /// included: what is wrong with the line itself (malformed lines).
    fn warned_at(&self, line: u64, about: &str) -> &Self {
        self.warned_by(&["ls", "ls --all --json"], line, about)
            .index_warned_at(line, about)
    }

    /// The same from the commands that index the entries (duplicate ids, missing ids, cycles
    /// are facts of the tree, which `ls` does not build).
    fn index_warned_at(&self, line: u64, about: &str) -> &Self {
        self.warned_by(
            &["show {}", "tree {}", "context {}", "show --json {}", "show"],
            line,
            about,
        )
    }

    fn warned_by(&self, commands: &[&str], line: u64, about: &str) -> &Self {
        let place = format!("{}:{line}: ", self.path.display());
        for &args in commands {
            let run = self.of(args);
            let found = run.stderr.lines().any(|l| {
                l.starts_with("pisess: warning: ") && l.contains(&place) && l.contains(about)
            });
            assert!(
                found,
                "{args}: no warning at {place} about {about:?}; stderr:\n{}",
                run.stderr
            );
        }
        self
    }

    fn all_exit(&self, code: u8) -> &Self {
        for (args, run) in &self.runs {
            // `path` and `rm --dry-run` do not read the entries.
            assert_eq!(run.code, code, "{args}: stderr:\n{}", run.stderr);
        }
        self
    }

    /// No stderr line but warnings (and no error).
    fn no_errors(&self) -> &Self {
        for (args, run) in &self.runs {
            assert!(
                !run.stderr.contains("pisess: error:"),
                "{args}: {}",
                run.stderr
            );
        }
        self
    }
}

/// Writes `bytes` as the project's only session and runs every command on it, checking what
/// holds for any input: exit 0 or 1, stderr lines are warnings or errors, no raw ESC anywhere
/// but in our own colour codes, and the file is left as it was.
fn every_command(bytes: &[u8]) -> Runs {
    let p = Project::new();
    let path = p.write("2026-01-01T00-00-00-000Z_0196f000.jsonl", bytes);
    every_command_on(&p.env, &path, bytes)
}

fn every_command_on(env: &Env, path: &Path, bytes: &[u8]) -> Runs {
    let shown = path.to_str().unwrap();
    let mut runs = Vec::new();
    for args in COMMANDS {
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == "{}" { shown } else { a })
            .collect();
        let run = guarded(env, &args);
        let line = args.join(" ").replace(shown, "{}");
        assert!(run.code <= 1, "{line}: exit {}: {}", run.code, run.stderr);
        // `--color always` colours stderr too, as in the binary: only pisess's own labels.
        let stderr = run
            .stderr
            .replace("\u{1b}[33mwarning:\u{1b}[39m", "warning:")
            .replace("\u{1b}[31merror:\u{1b}[39m", "error:");
        for l in stderr.lines() {
            assert!(
                l.starts_with("pisess: warning: ") || l.starts_with("pisess: error: "),
                "{line}: stray stderr line {l:?}"
            );
        }
        assert!(!stderr.contains('\u{1b}'), "{line}: ESC on stderr");
        if line.contains("--json") {
            // JSON escapes what it must; `show --json` is the stored lines, which parsed.
            assert!(!run.stdout.contains('\u{1b}'), "{line}: raw ESC in JSON");
        } else {
            assert_no_raw_escapes(&line, &run.stdout);
        }
        runs.push((line, run));
    }
    assert_eq!(fs::read(path).unwrap(), bytes, "a command changed the file");
    Runs {
        path: path.to_path_buf(),
        runs,
    }
}

/// Control characters in human output only as our own colour codes (`ESC [ … m`).
fn assert_no_raw_escapes(what: &str, out: &str) {
    let mut rest = out;
    while let Some(at) = rest.find('\u{1b}') {
        check_plain(what, &rest[..at]);
        let body = rest[at + 1..]
            .strip_prefix('[')
            .unwrap_or_else(|| panic!("{what}: raw ESC in the output:\n{out}"));
        let end = body
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(body.len());
        assert!(
            body[end..].starts_with('m'),
            "{what}: an escape that is not a colour:\n{out}"
        );
        rest = &body[end + 1..];
    }
    check_plain(what, rest);
}

fn check_plain(what: &str, text: &str) {
    if let Some(c) = text
        .chars()
        .find(|&c| c.is_control() && c != '\n' && c != '\t' && c != '\r')
    {
        panic!("{what}: control character {c:?} in the output:\n{text}");
    }
}

/// A session of `lines` after the header, each ending with `\n`.
fn session(lines: &[&str]) -> Vec<u8> {
    let mut text = format!("{HEADER}\n");
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    text.into_bytes()
}

fn msg(id: &str, parent: Option<&str>, text: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{text}","timestamp":1767225601000}}}}"#
    )
}

#[test]
fn parent_cycles_are_cut_with_a_warning() {
    // a ⇄ b; c hangs off b and is the leaf.
    let r = every_command(&session(&[
        &msg("a", Some("b"), "one"),
        &msg("b", Some("a"), "two"),
        &msg("c", Some("b"), "three"),
    ]));
    r.all_exit(0).no_errors();
    assert!(r.of("tree {}").stderr.contains("parent cycle"));
    assert!(r.of("context {}").stderr.contains("parent cycle"));
    assert!(r.of("show --branch {}").stderr.contains("parent cycle"));
    assert!(r.of("tree {}").stdout.contains("three"));

    // An entry that is its own parent.
    let r = every_command(&session(&[
        &msg("a", None, "root"),
        &msg("s", Some("s"), "self"),
    ]));
    r.all_exit(0).no_errors();
    assert!(r.of("context --json {}").stdout.contains("self"));

    // A long cycle: 500 entries, the first one's parent the last.
    let mut lines = vec![msg("n0", Some("n499"), "start")];
    for k in 1..500 {
        lines.push(msg(&format!("n{k}"), Some(&format!("n{}", k - 1)), "x"));
    }
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let r = every_command(&session(&refs));
    r.all_exit(0).no_errors();
    assert!(r
        .of("tree {}")
        .stderr
        .contains("parent cycle through 500 entries"));
}

#[test]
fn duplicate_ids_orphans_and_several_roots() {
    let r = every_command(&session(&[
        &msg("a", None, "first root"),
        &msg("a", None, "same id again"),
        &msg("o", Some("gone"), "orphan"),
        &msg("r2", None, "second root"),
    ]));
    r.all_exit(0)
        .no_errors()
        .index_warned_at(3, "duplicate id a")
        .index_warned_at(3, "the later entry wins");
    assert!(r
        .of("tree {}")
        .stderr
        .contains(&format!("{}:4: ", r.path.display())));
    assert!(r.of("tree {}").stderr.contains("not in the file"));
    let tree = r.of("tree {}").stdout.clone();
    for text in ["same id again", "orphan", "second root"] {
        assert!(tree.contains(text), "{tree}");
    }
}

#[test]
fn header_only_empty_and_headerless_files() {
    let r = every_command(format!("{HEADER}\n").as_bytes());
    r.all_exit(0).no_errors();
    assert!(r.of("tree {}").stdout.contains("(no entries)"));
    assert!(r.of("context --json {}").stdout.contains("\"messages\":[]"));

    // Empty: not a session. Reading it fails (exit 1) naming the file; ls skips it.
    for bytes in [&b""[..], b"\n\n  \n"] {
        let r = every_command(bytes);
        let name = r.path.display().to_string();
        let show = r.of("show {}");
        assert_eq!(show.code, 1);
        assert!(show.stderr.contains(&name) && show.stderr.contains("not a pi session"));
        assert!(r.of("ls").stderr.contains(&name));
    }

    // Entries but no header.
    let r = every_command(format!("{}\n", msg("a", None, "hi")).as_bytes());
    let show = r.of("show {}");
    assert_eq!(show.code, 1);
    assert!(
        show.stderr.contains("line 1: not a pi session"),
        "{}",
        show.stderr
    );
}

#[test]
fn a_header_after_blank_and_broken_lines() {
    let bytes = format!(
        "\n   \nnot json at all\n{HEADER}\n{}\n",
        msg("a", None, "hi")
    );
    let r = every_command(bytes.as_bytes());
    r.all_exit(0).no_errors().warned_at(3, "malformed JSON");
    assert!(r.of("show {}").stdout.contains("hi"));
}

#[test]
fn a_torn_last_line_is_not_an_error() {
    // pi is still writing the last line: it is left out, quietly.
    let mut bytes = session(&[&msg("a", None, "done")]);
    bytes.extend_from_slice(&msg("b", Some("a"), "half written").as_bytes()[..60]);
    let r = every_command(&bytes);
    r.all_exit(0).no_errors();
    for (args, run) in &r.runs {
        assert_eq!(run.stderr, "", "{args}: a torn tail is not reported");
    }
    assert!(r.of("show {}").stdout.contains("done"));
    // `show --json` gives back what is complete.
    assert_eq!(r.of("show --json {}").stdout.lines().count(), 2);
}

#[test]
fn glued_lines_are_dropped_with_a_warning() {
    let glued = format!("{}{}", msg("b", Some("a"), "x"), msg("c", Some("b"), "y"));
    let r = every_command(&session(&[&msg("a", None, "first"), &glued]));
    r.all_exit(0).no_errors().warned_at(3, "two JSON values");
}

#[test]
fn crlf_bom_and_invalid_utf8() {
    // CRLF: read as usual, stored bytes kept by `show --json`.
    let text = format!(
        "{HEADER}\r\n{}\r\n{}\r\n",
        msg("a", None, "one"),
        msg("b", Some("a"), "two")
    );
    let r = every_command(text.as_bytes());
    r.all_exit(0).no_errors();
    assert!(r.of("show {}").stdout.contains("two"));
    assert_eq!(r.of("show --json {}").stdout, text);

    // A BOM before the header: pi cannot parse that line, so the file is no session to it.
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(session(&[&msg("a", None, "one")]));
    let r = every_command(&bom);
    let show = r.of("show {}");
    assert_eq!(show.code, 1);
    let name = r.path.display().to_string();
    for run in [show, r.of("ls")] {
        let err = &run.stderr;
        assert!(err.contains(&name), "{err}");
        assert!(
            err.contains("line 1: not a pi session: a byte-order mark"),
            "{err}"
        );
    }
    // A BOM on an entry line: that line is left out, the rest is read.
    let mut text = session(&[&msg("a", None, "one")]);
    text.extend_from_slice(b"\xEF\xBB\xBF");
    text.extend(format!("{}\n", msg("b", Some("a"), "bom")).into_bytes());
    let r = every_command(&text);
    r.all_exit(0).no_errors().warned_at(3, "byte-order mark");

    // Invalid UTF-8 inside a string and outside one.
    let mut bytes = format!("{HEADER}\n").into_bytes();
    bytes.extend_from_slice(b"{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"caf\xff\xfe\"}}\n");
    bytes.extend_from_slice(b"\xff\xfe{\n");
    let r = every_command(&bytes);
    r.all_exit(0).no_errors().warned_at(3, "malformed JSON");
    assert!(r.of("show {}").stdout.contains("caf\u{fffd}\u{fffd}"));
}

#[test]
fn wrong_json_types_in_every_field() {
    let lines = [
        // Entry fields.
        r#"{"type":42,"id":"t1","parentId":null}"#,
        r#"{"type":"message","id":7,"parentId":null,"message":{"role":"user","content":"id 7"}}"#,
        r#"{"type":"message","id":"p1","parentId":7,"message":{"role":"user","content":"parent 7"}}"#,
        r#"{"type":"message","id":"p2","parentId":{},"message":{"role":"user","content":"parent {}"}}"#,
        r#"{"type":"message","id":"ts","parentId":"p1","timestamp":5,"message":{"role":"user","content":"ts 5"}}"#,
        r#"{"type":"message","id":"m1","parentId":"ts","message":"x"}"#,
        r#"{"type":"message","id":"m2","parentId":"m1","message":null}"#,
        r#"{"type":"message","id":"m3","parentId":"m2","message":[1,2]}"#,
        // Message fields.
        r#"{"type":"message","id":"r1","parentId":"m3","message":{"role":42,"content":"role 42"}}"#,
        r#"{"type":"message","id":"c1","parentId":"r1","message":{"role":"user","content":{}}}"#,
        r#"{"type":"message","id":"c2","parentId":"c1","message":{"role":"assistant","content":"str","usage":"x","stopReason":5,"model":[],"provider":{}}}"#,
        r#"{"type":"message","id":"c3","parentId":"c2","message":{"role":"assistant","content":[5,null,{"type":7},{"type":"text","text":{}},{"type":"toolCall","name":3,"arguments":"s"},{"type":"image","data":1,"mimeType":null}],"usage":{"input":"x","cost":"y"}}}"#,
        r#"{"type":"message","id":"c4","parentId":"c3","message":{"role":"toolResult","toolCallId":1,"toolName":{},"content":7,"isError":"yes"}}"#,
        r#"{"type":"message","id":"c5","parentId":"c4","message":{"role":"bashExecution","command":[],"output":5,"exitCode":"x","cancelled":"no"}}"#,
        r#"{"type":"message","id":"c6","parentId":"c5","message":{"role":"system","content":5,"sections":[],"toolsAdded":"x"}}"#,
        r#"{"type":"message","id":"c7","parentId":"c6","message":{"role":"user","content":"ms","timestamp":"yesterday"}}"#,
        // The other entry types.
        r#"{"type":"compaction","id":"k1","parentId":"c7","summary":null,"firstKeptEntryId":5,"tokensBefore":"x","systemMessage":"s"}"#,
        r#"{"type":"context_edit","id":"e1","parentId":"k1","targetId":"c7","replacement":"str"}"#,
        r#"{"type":"context_edit","id":"e2","parentId":"e1","targetId":{},"replacement":{"content":5}}"#,
        r#"{"type":"branch_summary","id":"b1","parentId":"e2","fromId":5,"summary":[]}"#,
        r#"{"type":"label","id":"l1","parentId":"b1","targetId":"c7","label":5}"#,
        r#"{"type":"session_info","id":"i1","parentId":"l1","name":{}}"#,
        r#"{"type":"model_change","id":"mc","parentId":"i1","provider":1,"modelId":null}"#,
        r#"{"type":"thinking_level_change","id":"tl","parentId":"mc","thinkingLevel":7}"#,
        r#"{"type":"usage","id":"u1","parentId":"tl","usage":[],"kind":5}"#,
        r#"{"type":"custom","id":"cu","parentId":"u1","customType":5,"data":"x"}"#,
        r#"{"type":"custom_message","id":"cm","parentId":"cu","customType":[],"content":{},"display":"yes"}"#,
        r#"{"type":"compaction","id":"k2","parentId":"cm","summary":5,"firstKeptEntryId":"c7","tokensBefore":"x"}"#,
    ];
    let r = every_command(&session(&lines));
    r.all_exit(0).no_errors();
    // Entries without a string id are reported by line and left out of the tree.
    r.index_warned_at(3, "no string \"id\"");

    // The header's own fields.
    for header in [
        r#"{"type":"session","version":"3","id":"h","timestamp":5,"cwd":7,"parentSession":[]}"#,
        r#"{"type":"session","version":-1,"id":"h","timestamp":null,"cwd":null}"#,
        r#"{"type":"session","version":1e300,"id":"h","timestamp":"x","cwd":{}}"#,
    ] {
        let bytes = format!("{header}\n{}\n", msg("a", None, "hi"));
        let r = every_command(bytes.as_bytes());
        r.all_exit(0).no_errors();
    }
    // An id of the wrong type: not a session.
    let r = every_command(
        format!(
            "{{\"type\":\"session\",\"id\":5}}\n{}\n",
            msg("a", None, "x")
        )
        .as_bytes(),
    );
    assert_eq!(r.of("show {}").code, 1);
}

#[test]
fn a_60_mb_line() {
    // One user message of 60 MB, then an ordinary entry: read whole, cut for display.
    let big = "word ".repeat(12 * 1024 * 1024);
    let mut bytes = format!("{HEADER}\n").into_bytes();
    bytes.extend(msg("a", None, &big).into_bytes());
    bytes.push(b'\n');
    bytes.extend(msg("b", Some("a"), "after the big one").into_bytes());
    bytes.push(b'\n');
    let p = Project::new();
    let path = p.write("2026-01-01T00-00-00-000Z_big.jsonl", &bytes);
    let shown = path.to_str().unwrap();
    // Side by side: in a debug build, writing 60 MB of JSON alone takes a second or two.
    let runs: Vec<_> = [
        &["show", shown][..],
        &["tree", shown],
        &["context", shown],
        &["ls", "--json"],
        &["context", "--json", shown],
        &["show", "--json", shown],
    ]
    .into_iter()
    .map(|args| {
        let env = p.env.clone();
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        thread::spawn(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            (args.join(" "), guarded(&env, &args))
        })
    })
    .collect();
    for handle in runs {
        let (args, run) = handle.join().unwrap();
        assert_eq!(run.code, 0, "{args}: {}", run.stderr);
        if args.starts_with("show --json") {
            // Read on a second thread (the file is big), copied out as stored.
            assert!(
                run.stdout.as_bytes() == bytes,
                "{args}: not the file as stored"
            );
        } else if args.contains("--json") {
            // JSON is whole: pi's `firstMessage` is the whole text, the context the message.
            assert!(run.stdout.len() > 60_000_000, "{args}");
        } else {
            assert!(run.stdout.len() < 1 << 20, "{args}: the big line is cut");
            assert!(run.stdout.contains("after the big one"), "{args}");
        }
    }
    // No wall-clock bound here: each run has the watchdog against hangs, and speed is the
    // benchmark's business (a loaded machine took 45 s for what takes 3 s alone).
}

#[test]
fn deep_nesting_is_stack_safe() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let d = deep(100_000);
    let lines = [
        msg("a", None, "before"),
        // Deep in a field the index skips (the lenient view), in one it reads, and in content.
        format!(r#"{{"type":"custom","id":"b","parentId":"a","data":{d}}}"#),
        format!(r#"{{"type":"message","id":"c","parentId":"a","message":{d}}}"#),
        format!(
            r#"{{"type":"message","id":"d","parentId":"a","message":{{"role":"user","content":{d}}}}}"#
        ),
        format!(r#"{{"type":"message","id":{d},"parentId":"a"}}"#),
        // Not an object at all.
        d.clone(),
        msg("e", Some("a"), "after"),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let r = every_command(&session(&refs));
    r.all_exit(0).no_errors();
    for line in 3..=7 {
        r.warned_at(line, "nested more than 128 levels");
    }
    assert!(r.of("show {}").stdout.contains("after"));

    // Deep enough to decode (under 128 levels) stays an entry.
    let ok = format!(
        r#"{{"type":"custom","id":"b","parentId":"a","data":{}}}"#,
        deep(120)
    );
    let r = every_command(&session(&[&msg("a", None, "x"), &ok]));
    r.all_exit(0).no_errors();
    assert!(r.of("show {}").stdout.contains("[[[["));

    // A deep header line.
    let r = every_command(format!("{}\n{HEADER}\n", deep(100_000)).as_bytes());
    r.all_exit(0).no_errors().warned_at(1, "nested");
}

#[test]
fn control_characters_and_ansi_escapes_are_escaped() {
    let evil = r#"\u001b[2J\u001b]0;pwned\u0007\u009b31m\r\u0000\u202eevil\u001b[31mred"#;
    let lines = [
        msg("a", None, evil),
        format!(
            r#"{{"type":"message","id":"b","parentId":"a","message":{{"role":"assistant","content":[{{"type":"text","text":"{evil}"}},{{"type":"thinking","thinking":"{evil}"}},{{"type":"toolCall","name":"{evil}","arguments":{{"k":"{evil}"}}}}],"model":"{evil}","stopReason":"{evil}","errorMessage":"{evil}"}}}}"#
        ),
        format!(r#"{{"type":"label","id":"l","parentId":"b","targetId":"a","label":"{evil}"}}"#),
        format!(r#"{{"type":"session_info","id":"n","parentId":"l","name":"{evil}"}}"#),
        format!(r#"{{"type":"{evil}","id":"{evil}","parentId":"n"}}"#),
        format!(
            r#"{{"type":"custom_message","id":"cm","parentId":"n","customType":"{evil}","content":"{evil}","display":true}}"#
        ),
        format!(
            r#"{{"type":"compaction","id":"k","parentId":"cm","summary":"{evil}","firstKeptEntryId":"a","tokensBefore":5}}"#
        ),
        format!(
            r#"{{"type":"message","id":"z","parentId":"k","message":{{"role":"bashExecution","command":"{evil}","output":"{evil}","exitCode":1}}}}"#
        ),
    ];
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    // `every_command` checks that no raw ESC, BEL, CSI or NUL reaches the output, colour or not.
    let r = every_command(&session(&refs));
    r.all_exit(0).no_errors();
    let coloured = &r.of("--color always show {}").stdout;
    assert!(coloured.contains("\\u{1b}[2J"), "{coloured}");
    assert!(
        coloured.contains('\u{1b}'),
        "colour codes are still ours to write"
    );
    // JSON output keeps the text as stored (escaped by JSON itself).
    assert!(r.of("show --json {}").stdout.contains(r"\u001b[2J"));

    // In the header: the id (`ls` and `rm` show its first 8 characters; found by fuzzing),
    // the cwd, and a name.
    let header = format!(
        r#"{{"type":"session","version":3,"id":"\u001b[2J{evil}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p{evil}"}}"#
    );
    let name = format!(r#"{{"type":"session_info","id":"n","parentId":"a","name":"{evil}"}}"#);
    let bytes = format!("{header}\n{}\n{name}\n", msg("a", None, evil));
    let r = every_command(bytes.as_bytes());
    r.no_errors();
    assert!(r.of("ls").stdout.contains("\\u{1b}[2J"));

    // Quoted in an error: a header whose type is not `session` (found by fuzzing: `rm` wrote
    // its refusal with the type raw). `every_command` checks stderr for ESC.
    let header = r#"{"type":"session_\u001b[2J","id":"x","cwd":"/p"}"#;
    let r = every_command(format!("{header}\n{}\n", msg("a", None, "x")).as_bytes());
    let rm = r.of("rm --dry-run {}");
    assert!(rm.stderr.contains("session_\\u{1b}[2J"), "{}", rm.stderr);
}

#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let p = Project::new();
    let name = OsStr::from_bytes(b"2026-01-01T00-00-00-000Z_caf\xe9\xff.jsonl");
    let path = p.dir.join(name);
    fs::write(&path, session(&[&msg("a", None, "from a strange name")])).unwrap();
    for args in [
        &["ls"][..],
        &["ls", "--all", "--json"],
        &["show"],
        &["tree"],
        &["context", "--json"],
        &["show", "0196f000"],
        &["path", "0196f000"],
        &["rm", "--dry-run", "0196f000"],
    ] {
        let run = guarded(&p.env, args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
    }
    assert!(guarded(&p.env, &["show"])
        .stdout
        .contains("from a strange name"));
    let ls = guarded(&p.env, &["ls", "--json"]).stdout;
    let row: serde_json::Value = serde_json::from_str(ls.lines().next().unwrap()).unwrap();
    assert!(row["path"]
        .as_str()
        .unwrap()
        .contains("caf\u{fffd}\u{fffd}"));

    // Named by its path on the command line (the real binary: arguments are OS strings).
    let agent_dir = p.dir.parent().unwrap().parent().unwrap();
    for args in [
        &["show"][..],
        &["tree"],
        &["context", "--json"],
        &["path"],
        &["rm", "--dry-run"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pisess"))
            .args(["--cwd", "/p"])
            .args(args)
            .arg(&path)
            .env("PI_CODING_AGENT_DIR", agent_dir)
            .env_remove("PI_SESSION_FILE")
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
    assert!(path.exists());

    // A name with ESC in it, in a warning about one of its lines.
    let evil = p.dir.join("2026-01-02T00-00-00-000Z_\u{1b}[2J.jsonl");
    fs::write(&evil, session(&[&msg("a", None, "x"), "not json"])).unwrap();
    let run = guarded(&p.env, &["ls"]);
    assert!(
        run.stderr.contains("_\\u{1b}[2J.jsonl:3: malformed JSON"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains('\u{1b}'));
}

#[test]
fn stdin_gets_the_same_care() {
    let mut bytes = session(&[&msg("a", Some("a"), "self"), "garbage"]);
    bytes.extend_from_slice(b"{\"type\":\"mess");
    let p = Project::new();
    for args in [
        &["show", "-"][..],
        &["tree", "-"],
        &["context", "--json", "-"],
    ] {
        let run = guarded_stdin(&p.env, args, bytes.clone());
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("pisess: warning: -:3: "),
            "{}",
            run.stderr
        );
    }
}

/// A writer appends whole lines, each in three chunks with pauses between them (as a process
/// pi's size would: torn tails happen), while every reading command runs on the file: none
/// may report the half-written line, or anything else, or fail.
#[test]
fn reading_a_session_while_pi_appends_to_it() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    let p = Project::new();
    let path = p.write(
        "2026-01-01T00-00-00-000Z_live.jsonl",
        &session(&[&msg("e0", None, "start")]),
    );
    let shown = path.to_str().unwrap().to_owned();
    let done = Arc::new(AtomicBool::new(false));
    const LINES: usize = 300;
    let writer = {
        let (path, done) = (path.clone(), done.clone());
        thread::spawn(move || {
            let mut file = fs::OpenOptions::new().append(true).open(&path).unwrap();
            for k in 1..=LINES {
                let line = format!(
                    "{}\n",
                    msg(
                        &format!("e{k}"),
                        Some(&format!("e{}", k - 1)),
                        &"x".repeat(k * 7)
                    )
                );
                let bytes = line.as_bytes();
                let (a, b) = (bytes.len() / 3, 2 * bytes.len() / 3);
                for chunk in [&bytes[..a], &bytes[a..b], &bytes[b..]] {
                    file.write_all(chunk).unwrap();
                    thread::sleep(Duration::from_micros(300));
                }
                thread::sleep(Duration::from_millis(2));
            }
            done.store(true, Ordering::SeqCst);
        })
    };
    let commands: &[&[&str]] = &[
        &["show", &shown],
        &["show", "--json", &shown],
        &["show", "--branch", &shown],
        &["tree", &shown],
        &["tree", "--json", &shown],
        &["context", &shown],
        &["context", "--json", &shown],
        &["ls"],
        &["ls", "--json"],
    ];
    let mut runs = 0;
    while !done.load(Ordering::SeqCst) {
        for args in commands {
            let run = guarded(&p.env, args);
            assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
            assert_eq!(run.stderr, "", "{args:?}: a line being written is no error");
            if args.contains(&"--json") {
                for line in run.stdout.lines() {
                    // Syntax only, which has no depth limit: `tree --json` nests a chain of
                    // 300 entries 300 levels deep.
                    let mut de = serde_json::Deserializer::from_str(line);
                    serde::de::IgnoredAny::deserialize(&mut de)
                        .and_then(|_| de.end())
                        .unwrap_or_else(|e| panic!("{args:?}: half a line out: {e}: {line}"));
                }
            }
            runs += 1;
        }
    }
    writer.join().unwrap();
    assert!(
        runs >= commands.len(),
        "the readers ran while the writer wrote"
    );
    let show = guarded(&p.env, &["show", "--json", &shown]);
    assert_eq!(
        show.stdout.lines().count(),
        LINES + 2,
        "every line, once written"
    );
}

/// Files removed while `ls` reads them are warnings (`removed while listing`), never a failure
/// of the listing. `ls` lists, then reads each file, with no seam in between to pause at, so a
/// remover races many listings; whether it wins any is chance, what `ls` does when it does is
/// asserted every time.
#[test]
fn files_removed_while_listing_are_warnings() {
    let p = Project::new();
    let files: Vec<PathBuf> = (0..400)
        .map(|k| {
            let id = format!("0196f000-0000-7000-8000-{k:012}");
            let header = HEADER.replace("0196f000-0000-7000-8000-00000000abcd", &id);
            let text = format!("{header}\n{}\n", msg("a", None, &format!("session {k}")));
            p.write(
                &format!("2026-01-01T00-00-00-000Z_{id}.jsonl"),
                text.as_bytes(),
            )
        })
        .collect();
    let remover = thread::spawn(move || {
        for f in files {
            fs::remove_file(f).unwrap();
            thread::sleep(Duration::from_micros(50));
        }
    });
    let mut lost = 0;
    while !remover.is_finished() {
        for args in [&["ls"][..], &["ls", "--json"], &["ls", "--all"]] {
            let run = guarded(&p.env, args);
            assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
            for line in run.stderr.lines() {
                assert!(
                    line.ends_with(": removed while listing"),
                    "{args:?}: {line}"
                );
                lost += 1;
            }
        }
    }
    remover.join().unwrap();
    // The warning is what `ls` says when the file is gone by the time it is read.
    let gone =
        pisess::summary::summarize(&p.dir.join("gone.jsonl"), Reading::AheadIfBig).unwrap_err();
    assert!(
        matches!(&gone, pisess::scan::ScanError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    );
    eprintln!("files_removed_while_listing_are_warnings: {lost} files lost mid-listing");
}

/// Every command stops quietly (exit 0, nothing on stderr) when its reader goes away, as in
/// `pisess show | head`.
#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};

    let p = Project::new();
    // One long session (its human views are far more than a pipe holds) and many short ones.
    let mut lines = vec![msg("e0", None, &"long text ".repeat(50))];
    for k in 1..3000 {
        lines.push(msg(
            &format!("e{k}"),
            Some(&format!("e{}", k - 1)),
            &"long text ".repeat(50),
        ));
    }
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let big = p.write("2026-01-02T00-00-00-000Z_big.jsonl", &session(&refs));
    for k in 0..1500 {
        let id = format!("0196f000-0000-7000-8000-{k:012}");
        let header = HEADER.replace("0196f000-0000-7000-8000-00000000abcd", &id);
        let text = format!("{header}\n{}\n", msg("a", None, &"first words ".repeat(20)));
        p.write(
            &format!("2026-01-01T00-00-00-000Z_{id}.jsonl"),
            text.as_bytes(),
        );
    }
    let agent_dir = p.dir.parent().unwrap().parent().unwrap();
    let big = big.to_str().unwrap();
    for args in [
        &["ls"][..],
        &["ls", "--json"],
        &["show", big],
        &["show", "--json", big],
        &["tree", big],
        &["tree", "--json", big],
        &["context", big],
        &["context", "--json", big],
        &["context", "--llm", big],
        &["stats", big],
        &["stats", "--by", "message", big],
        &["path", big],
        &["path", "--explain"],
        &["rm", "--dry-run", big],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pisess"))
            .args(["--cwd", "/p"])
            .args(args)
            .env("PI_CODING_AGENT_DIR", agent_dir)
            .env_remove("PI_SESSION_FILE")
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 64];
        let _ = stdout.read(&mut first).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "{args:?}: a closed pipe is not an error"
        );
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
    assert!(Path::new(big).exists());
}

/// Reading never writes: every example file has the same bytes and modification time after
/// every read command has run on it (and `rm --dry-run`, which only plans).
#[test]
fn no_read_command_writes_to_a_session() {
    use crate::common::{example_env, examples_agent_dir};

    let root = examples_agent_dir();
    let mut files = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "jsonl") {
                files.push(path);
            }
        }
    }
    assert!(files.len() >= 10, "the examples are there");
    let snapshot = |files: &[PathBuf]| -> Vec<(Vec<u8>, std::time::SystemTime)> {
        files
            .iter()
            .map(|f| {
                (
                    fs::read(f).unwrap(),
                    fs::metadata(f).unwrap().modified().unwrap(),
                )
            })
            .collect()
    };
    let before = snapshot(&files);
    let env = example_env();
    let custom = root.join("custom-dir");
    let custom = custom.to_str().unwrap();
    for args in [
        &["ls"][..],
        &["ls", "--all"],
        &["ls", "--all", "--json"],
        &["--session-dir", custom, "ls", "--all", "--json"],
        &["show"],
        &["tree"],
        &["context"],
        &["path"],
        &["path", "--explain"],
    ] {
        let run = guarded(&env, args);
        assert!(run.code <= 1, "{args:?}: {}", run.stderr);
    }
    for f in &files {
        let f = f.to_str().unwrap();
        for args in [
            &["show", f][..],
            &["show", "--json", f],
            &["show", "--full", "--branch", f],
            &["tree", f],
            &["tree", "--json", f],
            &["tree", "--filter", "all", f],
            &["context", f],
            &["context", "--json", f],
            &["context", "--llm", "--json", f],
            &["path", f],
            &["rm", "--dry-run", f],
        ] {
            let run = guarded(&env, args);
            assert!(run.code <= 1, "{args:?}: {}", run.stderr);
        }
    }
    assert!(
        before == snapshot(&files),
        "a read command changed a session file"
    );
}
