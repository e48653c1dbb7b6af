//! `grep`: what is searched (decoded text, never keys, escapes or image data), ripgrep's
//! matching flags, the scope and filters, the three outputs, exit codes 0/1/2.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{env_in, run_with, Run};
use crate::snap;

const HEADER: &str = r#"{"type":"session","version":3,"id":"ID","timestamp":"2026-07-01T10:00:00.000Z","cwd":"CWD"}"#;

/// Writes a session of `lines` (entries, stored as given) for project `cwd` under `root`.
fn session(root: &Path, cwd: &str, id: &str, lines: &[&str]) -> std::path::PathBuf {
    let dir = root.join("sessions").join(format!(
        "--{}--",
        cwd.trim_start_matches('/').replace('/', "-")
    ));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("2026-07-01T10-00-00-000Z_{id}.jsonl"));
    let mut text = HEADER.replace("ID", id).replace("CWD", cwd) + "\n";
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    fs::write(&path, text).unwrap();
    path
}

/// Two projects: webshop (two sessions) and infra (one).
fn corpus() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    session(
        root,
        "/home/dev/webshop",
        "aaaa0001-0000-7000-8000-000000000001",
        &[
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-07-01T10:00:01.000Z","message":{"role":"user","content":"Fix the caf\u00e9 page.\nThen say \"done\" in C:\\temp","timestamp":1782900001000}}"#,
            r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-07-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"secret plan: deploy","thinkingSignature":"deploySIG"},{"type":"text","text":"Deploying now."},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"make deploy\nmake check","content":"x"}}],"timestamp":1782900002000}}"#,
            r#"{"type":"message","id":"r1","parentId":"a1","timestamp":"2026-07-01T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"deploy ok"},{"type":"image","data":"ZGVwbG95","mimeType":"image/png"}],"isError":false,"timestamp":1782900003000}}"#,
            r#"{"type":"message","id":"b2","parentId":"u1","timestamp":"2026-07-01T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"On another branch: deploy later."}],"timestamp":1782900004000}}"#,
            r#"{"type":"session_info","id":"n1","parentId":"b2","timestamp":"2026-07-01T10:00:05.000Z","name":"café deploy"}"#,
            "not json at all",
        ],
    );
    session(
        root,
        "/home/dev/webshop",
        "bbbb0002-0000-7000-8000-000000000002",
        &[
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-07-01T11:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"nothing to see"}],"timestamp":1782903601000}}"#,
            r#"{"type":"compaction","id":"k1","parentId":"u1","timestamp":"2026-07-01T11:00:02.000Z","summary":"We planned to deploy on Friday.","firstKeptEntryId":"u1","tokensBefore":10}"#,
        ],
    );
    session(
        root,
        "/srv/infra",
        "cccc0003-0000-7000-8000-000000000003",
        &[
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-07-01T12:00:01.000Z","message":{"role":"user","content":"deploy the cluster","timestamp":1782907201000}}"#,
            r#"{"type":"branch_summary","id":"s1","parentId":"u1","timestamp":"2026-07-01T12:00:02.000Z","fromId":"u1","summary":"Tried to DEPLOY twice."}"#,
        ],
    );
    tmp
}

fn grep(tmp: &tempfile::TempDir, args: &[&str]) -> Run {
    let mut all = vec!["grep"];
    all.extend_from_slice(args);
    run_with(env_in(tmp.path(), "/home/dev/webshop"), &all, b"")
}

fn objects(r: &Run) -> Vec<Value> {
    r.stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

/// `(entry id, field, line)` of each JSON match.
fn found(r: &Run) -> Vec<(String, String, String)> {
    objects(r)
        .iter()
        .map(|o| {
            let s = |k: &str| o[k].as_str().unwrap_or("-").to_owned();
            (s("entryId"), s("field"), s("line"))
        })
        .collect()
}

fn t(id: &str, field: &str, line: &str) -> (String, String, String) {
    (id.to_owned(), field.to_owned(), line.to_owned())
}

#[test]
fn escaped_text_is_found_decoded() {
    let tmp = corpus();
    // Stored as `caf\u00e9`, `\"done\"`, `C:\\temp` and after a `\n`.
    let said = "Then say \"done\" in C:\\temp";
    let cafe = vec![
        t("u1", "text", "Fix the café page."),
        t("n1", "name", "café deploy"),
    ];
    for (pattern, want) in [
        ("café", cafe),
        ("say \"done\"", vec![t("u1", "text", said)]),
        ("C:\\temp", vec![t("u1", "text", said)]),
    ] {
        let r = grep(&tmp, &["--json", "-F", pattern, "aaaa0001"]);
        assert_eq!(r.code, 0, "{pattern}: {}", r.stderr);
        assert_eq!(found(&r), want, "{pattern}");
    }
    // `^` and `$` are a decoded line's ends.
    let r = grep(&tmp, &["--json", "^Then say", "aaaa0001"]);
    assert_eq!(found(&r).len(), 1, "{}", r.stdout);
    let r = grep(&tmp, &["--json", "^make check$", "aaaa0001"]);
    assert_eq!(found(&r), [t("a1", "toolCall", "make check")]);
    // The escape itself is not text.
    let r = grep(&tmp, &["-F", "u00e9", "aaaa0001"]);
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
}

#[test]
fn only_what_was_said_and_done_is_searched() {
    let tmp = corpus();
    let r = grep(&tmp, &["--json", "deploy", "aaaa0001"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Not the thinking, its signature, the tool result, the image, or the JSON key `content`.
    assert_eq!(
        found(&r),
        [
            t("a1", "toolCall", "make deploy"),
            t("b2", "text", "On another branch: deploy later."),
            t("n1", "name", "café deploy"),
        ]
    );
    assert_eq!(grep(&tmp, &["content", "aaaa0001"]).code, 1);
    assert_eq!(grep(&tmp, &["ZGVwbG95", "--tools", "aaaa0001"]).code, 1);
    let r = grep(
        &tmp,
        &["--json", "--tools", "--thinking", "deploy", "aaaa0001"],
    );
    let fields: Vec<String> = found(&r).into_iter().map(|f| f.1).collect();
    assert_eq!(
        fields,
        ["thinking", "toolCall", "toolResult", "text", "name"]
    );
    assert!(!r.stdout.contains("SIG"));
}

#[test]
fn json_objects_carry_the_documented_fields() {
    let tmp = corpus();
    let r = grep(&tmp, &["--json", "-F", "café", "aaaa0001"]);
    let o = &objects(&r)[0];
    assert_eq!(o["sessionId"], "aaaa0001-0000-7000-8000-000000000001");
    assert!(o["path"]
        .as_str()
        .unwrap()
        .ends_with("aaaa0001-0000-7000-8000-000000000001.jsonl"));
    assert_eq!(o["cwd"], "/home/dev/webshop");
    assert_eq!(o["type"], "message");
    assert_eq!(o["role"], "user");
    assert_eq!(o["timestamp"], "2026-07-01T10:00:01.000Z");
    assert_eq!(o["fileLine"], 2);
    assert_eq!(o["lineNumber"], 1);
    // Byte offsets in the UTF-8 line (`é` is two bytes), and the matched text itself, which
    // jq cannot slice out by bytes.
    assert_eq!(
        o["matches"],
        serde_json::json!([{"start": 8, "end": 13, "text": "café"}])
    );
    let line = o["line"].as_str().unwrap();
    assert_eq!(&line[8..13], o["matches"][0]["text"]);
    let name = &objects(&r)[1];
    assert_eq!(
        (name["field"].as_str(), name["role"].is_null()),
        (Some("name"), true)
    );
}

#[test]
fn matching_flags_as_ripgrep() {
    let tmp = corpus();
    let count = |args: &[&str]| objects(&grep(&tmp, args)).len();
    assert_eq!(count(&["--json", "--all", "DEPLOY"]), 1);
    // "Deploying now." and six lines with "deploy" in any case.
    assert_eq!(count(&["--json", "--all", "-i", "DEPLOY"]), 7);
    assert_eq!(count(&["--json", "--all", "-S", "deploy"]), 7);
    assert_eq!(count(&["--json", "--all", "-S", "Deploy"]), 1);
    assert_eq!(count(&["--json", "--all", "-w", "-i", "deploy"]), 6);
    // No "deploy." as written; as a regex: "deploy later", "deploy on", "deploy the".
    assert_eq!(count(&["--json", "--all", "-F", "deploy."]), 0);
    assert_eq!(count(&["--json", "--all", "deploy."]), 3);
}

#[test]
fn scope_filters_and_limits() {
    let tmp = corpus();
    let paths = |r: &Run| -> Vec<String> {
        r.stdout
            .lines()
            .map(|l| Path::new(l).file_name().unwrap().to_string_lossy()[25..29].to_owned())
            .collect()
    };
    // In the files' name order, newest first (here the names differ by id only). This project
    // by default; --all; --project (every project, then the glob).
    assert_eq!(
        paths(&grep(&tmp, &["-l", "-i", "deploy"])),
        ["bbbb", "aaaa"]
    );
    assert_eq!(
        paths(&grep(&tmp, &["-l", "-i", "--all", "deploy"])),
        ["cccc", "bbbb", "aaaa"]
    );
    assert_eq!(
        paths(&grep(&tmp, &["-l", "-i", "--project", "/srv/*", "deploy"])),
        ["cccc"]
    );
    assert_eq!(
        paths(&grep(
            &tmp,
            &["-l", "-i", "--project", "*/webshop", "deploy"]
        )),
        ["bbbb", "aaaa"]
    );
    // The sessions' last messages: 10:00:04, 11:00:01 and 12:00:01 on 2026-07-01.
    assert_eq!(
        paths(&grep(
            &tmp,
            &[
                "-l",
                "--all",
                "-i",
                "--since",
                "2026-07-01T10:30:00Z",
                "deploy"
            ]
        )),
        ["cccc", "bbbb"]
    );
    // The window applies to SESSIONs given too.
    assert_eq!(
        paths(&grep(
            &tmp,
            &[
                "-l",
                "--since",
                "2026-07-01T10:30:00Z",
                "-i",
                "deploy",
                "aaaa0001",
                "bbbb0002"
            ]
        )),
        ["bbbb"]
    );
    // -c counts matching lines; -m stops after N per session.
    let r = grep(&tmp, &["-c", "-i", "--all", "deploy"]);
    let counts: Vec<&str> = r
        .stdout
        .lines()
        .map(|l| l.rsplit(':').next().unwrap())
        .collect();
    assert_eq!(counts, ["2", "1", "4"]);
    let r = grep(&tmp, &["-c", "-m", "1", "-i", "--all", "deploy"]);
    assert!(r.stdout.lines().all(|l| l.ends_with(":1")), "{}", r.stdout);
    // --branch: the leaf is n1, on u1 → b2 → n1; a1's call is on another branch.
    let r = grep(&tmp, &["--json", "--branch", "deploy", "aaaa0001"]);
    let ids: Vec<String> = found(&r).into_iter().map(|f| f.0).collect();
    assert_eq!(ids, ["b2", "n1"]);
    // -m counts on the branch, not before it: a1's match comes first in the file.
    let r = grep(
        &tmp,
        &["--json", "--branch", "-m", "1", "deploy", "aaaa0001"],
    );
    let ids: Vec<String> = found(&r).into_iter().map(|f| f.0).collect();
    assert_eq!(ids, ["b2"]);
    // --role and --type, as in `show`.
    let r = grep(&tmp, &["--json", "--all", "-i", "--role", "user", "deploy"]);
    assert_eq!(found(&r), [t("u1", "text", "deploy the cluster")]);
    let r = grep(&tmp, &["--json", "--all", "--type", "compaction", "deploy"]);
    assert_eq!(
        found(&r),
        [t("k1", "summary", "We planned to deploy on Friday.")]
    );
}

#[test]
fn ls_and_rm_take_project_globs() {
    let tmp = corpus();
    let r = run_with(
        env_in(tmp.path(), "/elsewhere"),
        &["ls", "--json", "--project", "~/web*"],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    // `~` is the home dir, /home/dev in tests.
    assert_eq!(objects(&r).len(), 2);
    let r = run_with(
        env_in(tmp.path(), "/elsewhere"),
        &[
            "ls",
            "--json",
            "--project",
            "*/webshop",
            "--project",
            "/srv/infra",
        ],
        b"",
    );
    assert_eq!(objects(&r).len(), 3);
    let r = run_with(
        env_in(tmp.path(), "/elsewhere"),
        &["ls", "--json", "--project", "*/infra"],
        b"",
    );
    let ids: Vec<Value> = objects(&r).iter().map(|o| o["id"].clone()).collect();
    assert_eq!(ids, ["cccc0003-0000-7000-8000-000000000003"]);
    let r = run_with(
        env_in(tmp.path(), "/elsewhere"),
        &["rm", "--empty", "--dry-run", "--project", "*/infra"],
        b"",
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run_with(
        env_in(tmp.path(), "/elsewhere"),
        &["rm", "--project", "*/infra"],
        b"",
    );
    assert_eq!(
        r.code, 2,
        "--project alone selects nothing to remove: {}",
        r.stderr
    );
    let r = run_with(
        env_in(tmp.path(), "/elsewhere"),
        &["ls", "--project", "[x"],
        b"",
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--project [x"), "{}", r.stderr);
}

#[test]
fn exit_codes_as_ripgrep() {
    let tmp = corpus();
    let r = grep(&tmp, &["zzz-nowhere", "--all"]);
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
    let r = grep(&tmp, &["(unclosed", "--all"]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert!(
        r.stderr
            .starts_with("pisess: error: bad pattern '(unclosed': "),
        "{}",
        r.stderr
    );
    let r = grep(&tmp, &["deploy", "no-such-session"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("no session matches 'no-such-session'"),
        "{}",
        r.stderr
    );
    let r = grep(&tmp, &["deploy", "--project", "[x"]);
    assert_eq!(r.code, 2);
    // A damaged line is a warning naming FILE:LINE, and changes nothing.
    let r = grep(&tmp, &["deploy", "aaaa0001"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stderr
            .contains("aaaa0001-0000-7000-8000-000000000001.jsonl:7: "),
        "{}",
        r.stderr
    );
    // A file that cannot be read may hide a match: a warning, and exit 2 even beside a match.
    let dir = tmp.path().join("sessions/--home-dev-webshop--/a-dir.jsonl");
    fs::create_dir_all(&dir).unwrap();
    let r = grep(&tmp, &["-l", "deploy", "aaaa0001", dir.to_str().unwrap()]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    assert!(
        r.stderr
            .contains("a-dir.jsonl: skipped: not a regular file (a directory)"),
        "{}",
        r.stderr
    );
    fs::remove_dir(&dir).unwrap();
    // A .jsonl that is not a session is skipped with a warning, as in `ls`.
    fs::write(
        tmp.path().join("sessions/--home-dev-webshop--/x.jsonl"),
        "{}\n",
    )
    .unwrap();
    let r = grep(&tmp, &["-l", "deploy"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("x.jsonl: skipped: "), "{}", r.stderr);
}

#[test]
fn standard_input_is_searched_in_its_place() {
    let tmp = corpus();
    let bbbb = tmp
        .path()
        .join("sessions/--home-dev-webshop--/2026-07-01T10-00-00-000Z_bbbb0002-0000-7000-8000-000000000002.jsonl");
    let aaaa = fs::read(
        tmp.path()
            .join("sessions/--home-dev-webshop--/2026-07-01T10-00-00-000Z_aaaa0001-0000-7000-8000-000000000001.jsonl"),
    )
    .unwrap();
    let env = || env_in(tmp.path(), "/home/dev/webshop");
    let r = run_with(
        env(),
        &["grep", "-q", "-l", "deploy", "-", bbbb.to_str().unwrap()],
        &aaaa,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, format!("-\n{}\n", bbbb.display()));
    let r = run_with(env(), &["grep", "-q", "Deploying", "-"], &aaaa);
    assert_eq!(
        r.stdout,
        "aaaa0001  -  ~/webshop  (standard input)\n  a1  assistant  Deploying now.\n"
    );
}

#[test]
fn human_output() {
    let tmp = corpus();
    let r = grep(&tmp, &["-i", "--all", "--tools", "deploy"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    snap!("grep_human", r.stdout);
    // On a terminal: cut around the match to the width, the match highlighted, text escaped.
    let path = session(
        tmp.path(),
        "/home/dev/webshop",
        "dddd0004-0000-7000-8000-000000000004",
        &[&format!(
            r#"{{"type":"message","id":"u1","parentId":null,"timestamp":"2026-07-01T13:00:01.000Z","message":{{"role":"user","content":"{}\u001b[2J needle {}","timestamp":1782910801000}}}}"#,
            "left ".repeat(30),
            "right ".repeat(30)
        )],
    );
    let mut env = env_in(tmp.path(), "/home/dev/webshop");
    env.width = Some(60);
    env.stdout_tty = true;
    env.color_stdout = true;
    let r = run_with(env, &["grep", "needle", path.to_str().unwrap()], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    snap!("grep_terminal", r.stdout);
    assert!(!r.stdout.contains("\x1b[2J"));
}

/// `-l`, `-c` and `--json` parse only the lines whose stored bytes may match (a sparse scan):
/// what is found only decoded (`\u00e9`, an escaped capital, a line after `\n`), case folding
/// beyond ASCII, line numbers counted over the lines passed over, and a damaged or unsearched
/// line among them.
#[test]
fn lines_passed_over_unparsed_change_no_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let user = |id: &str, content: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":"2026-07-01T10:00:01.000Z","message":{{"role":"user","content":"{content}","timestamp":1782900001000}}}}"#
        )
    };
    let tool = r#"{"type":"message","id":"t1","parentId":null,"timestamp":"2026-07-01T10:00:02.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"école café ÉCOLE"}],"isError":false,"timestamp":1782900002000}}"#;
    let filler: Vec<String> = (0..50).map(|i| user(&format!("f{i}"), "nothing")).collect();
    let mut lines: Vec<String> = filler[..20].to_vec();
    lines.push(tool.to_owned());
    lines.push("{\"broken".to_owned());
    lines.push(user("u1", r"une \u00c9cole"));
    lines.extend(filler[20..40].iter().cloned());
    lines.push(user("u2", r"the caf\u00e9\nÉCOLE again"));
    lines.extend(filler[40..].iter().cloned());
    lines.push(user("u3", "école, Ecole"));
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    session(
        tmp.path(),
        "/w",
        "dddd0004-0000-7000-8000-000000000004",
        &refs,
    );
    let json = |args: &[&str]| {
        let mut all = vec!["--json", "--all"];
        all.extend_from_slice(args);
        let r = grep(&tmp, &all);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        objects(&r)
            .iter()
            .map(|o| {
                (
                    o["entryId"].as_str().unwrap().to_owned(),
                    o["fileLine"].as_u64().unwrap(),
                    o["lineNumber"].as_u64().unwrap(),
                    o["line"].as_str().unwrap().to_owned(),
                )
            })
            .collect::<Vec<_>>()
    };
    let at = |id: &str, file: u64, n: u64, line: &str| (id.to_owned(), file, n, line.to_owned());
    // Header line 1, filler 2-21, the tool result 22, the damaged line 23, u1 24, u2 45, u3 56.
    assert_eq!(
        json(&["-i", "école"]),
        [
            at("u1", 24, 1, "une École"),
            at("u2", 45, 2, "ÉCOLE again"),
            at("u3", 56, 1, "école, Ecole"),
        ]
    );
    assert_eq!(json(&["^ÉCOLE"]), [at("u2", 45, 2, "ÉCOLE again")]);
    assert_eq!(json(&["-F", "café"]), [at("u2", 45, 1, "the café")]);
    assert_eq!(
        json(&["-i", r"\bEcole\b"]),
        [at("u3", 56, 1, "école, Ecole")]
    );
    let tools = json(&["--tools", "-F", "ÉCOLE"]);
    assert_eq!(tools[0], at("t1", 22, 1, "école café ÉCOLE"));
    assert_eq!(tools.len(), 2);
    // -c counts lines as --json lists them; -l stops at the first.
    let r = grep(&tmp, &["-c", "--all", "-i", "école"]);
    assert!(r.stdout.trim_end().ends_with(".jsonl:3"), "{}", r.stdout);
    let r = grep(&tmp, &["-l", "--all", "-i", "école"]);
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    // The human view reads every line: the same matches, and the damaged line reported.
    let r = grep(&tmp, &["--all", "-i", "école"]);
    assert_eq!(r.stdout.matches("user  ").count(), 3, "{}", r.stdout);
    assert!(r.stderr.contains(":23: "), "{}", r.stderr);
}

/// Nothing matched in what grep searches, but the pattern is in tool results or thinking, which
/// it leaves out unless asked: one line on stderr names the flag (rg would have found it), the
/// exit is still 1; never with -q, never when --tools or --thinking was given.
#[test]
fn a_pattern_only_in_unsearched_text_is_said_with_the_flag() {
    let r = crate::common::run(&["grep", "--all", "Successfully replaced"]);
    assert_eq!((r.code, r.stdout.as_str()), (1, ""));
    let hint =
        "no match in what grep searches, but the pattern occurs in tool results: add --tools";
    assert_eq!(
        r.stderr.lines().filter(|l| *l == hint).count(),
        1,
        "{}",
        r.stderr
    );
    let r = crate::common::run(&["grep", "--all", "computes its total"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("occurs in thinking: add --thinking"),
        "{}",
        r.stderr
    );
    let r = crate::common::run(&["grep", "--all", "-q", "Successfully replaced"]);
    assert_eq!((r.code, r.stderr.as_str()), (1, ""));
    let r = crate::common::run(&["grep", "--all", "--tools", "-l", "Successfully replaced"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Found nowhere: nothing said but the files' own warnings.
    let r = crate::common::run(&["grep", "--all", "no such words anywhere"]);
    assert_eq!(r.code, 1);
    assert!(
        !r.stderr.contains("no match in what grep searches"),
        "{}",
        r.stderr
    );
    // With --role the user said what to search: no hint.
    let r = crate::common::run(&["grep", "--all", "--role", "user", "Successfully replaced"]);
    assert!(!r.stderr.contains("add --tools"), "{}", r.stderr);
}
