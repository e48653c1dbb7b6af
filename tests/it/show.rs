//! `show`: human blocks of the example sessions, `--json` as the file's own bytes, the
//! selection flags, escaping and cutting, and parent cycles.

use std::fs;
use std::path::PathBuf;

use crate::common::{example_env, repo, run, run_with, Run};
use crate::snap;

/// The example file whose name holds `id` (examples are looked up by file, not by selection,
/// where a test is about something else than selection).
pub(crate) fn example(id: &str) -> PathBuf {
    let root = repo().join("examples/sessions");
    let mut found = Vec::new();
    for dir in fs::read_dir(&root).unwrap() {
        for file in fs::read_dir(dir.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            if path.to_string_lossy().contains(id) {
                found.push(path);
            }
        }
    }
    assert_eq!(found.len(), 1, "example {id}: {found:?}");
    found.pop().unwrap()
}

/// Every example session file.
pub(crate) fn all_examples() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in fs::read_dir(repo().join("examples/sessions")).unwrap() {
        for file in fs::read_dir(dir.unwrap().path()).unwrap() {
            files.push(file.unwrap().path());
        }
    }
    files.sort();
    files
}

/// A session file in a temp dir, from its lines.
pub(crate) fn temp_session(lines: &[&str]) -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("s.jsonl");
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    let path = path.to_string_lossy().into_owned();
    (tmp, path)
}

pub(crate) const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

fn ok(args: &[&str]) -> Run {
    let r = run(args);
    assert_eq!(r.code, 0, "pisess {args:?}: {}", r.stderr);
    r
}

fn show(id: &str, extra: &[&str]) -> String {
    let path = example(id);
    let mut args = vec!["show", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    ok(&args).stdout
}

#[test]
fn linear_session() {
    snap!("show_linear", show("0196c3c5", &[]));
}

#[test]
fn branched_session_with_summary() {
    // Both branches, in file order: the abandoned one, then its summary and the active one.
    snap!("show_branched", show("0196c9f4", &[]));
}

#[test]
fn compacted_session_with_usage_entry() {
    snap!("show_compacted", show("0196cdea", &[]));
}

#[test]
fn context_edits() {
    snap!("show_context_edits", show("0196d88e", &[]));
}

#[test]
fn images_bash_custom_and_errors() {
    snap!("show_images_bash_custom", show("0196dfb0", &[]));
}

#[test]
fn system_messages_and_compaction_checkpoint() {
    snap!("show_system", show("0196ec7d", &[]));
}

#[test]
fn version_1_gets_ids_and_version_2_renames_hook_messages() {
    snap!("show_v1", show("01944689", &[]));
    snap!("show_v2", show("0194cb09", &[]));
}

#[test]
fn seed_000_dialect() {
    snap!("show_seed000", show("0196f3a2", &[]));
    snap!("show_seed000_tool_result_block", show("0196f8c8", &[]));
}

#[test]
fn several_roots_and_an_orphan() {
    snap!("show_roots", show("01957fed", &[]));
}

#[test]
fn labelled_entry_shows_its_label() {
    // The linear session sets a label and clears it on its last line: without that line the
    // label is current. Read from stdin, so the file stays as generated.
    let text = fs::read_to_string(example("0196c3c5")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let kept = lines[..lines.len() - 1].join("\n") + "\n";
    let r = run_with(example_env(), &["show", "-", "1e9aceb3"], kept.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    snap!("show_labelled_entry", r.stdout);
}

#[test]
fn branch_and_leaf_select_a_path() {
    let branch = show("0196c9f4", &["--branch"]);
    assert!(branch.contains("f5da2b2d") && branch.contains("9117e1dd"));
    assert!(!branch.contains("f3b9d3cf"), "abandoned branch left out");
    let abandoned = show("0196c9f4", &["--leaf", "1df9294d"]);
    assert!(abandoned.contains("f3b9d3cf") && abandoned.contains("1df9294d"));
    assert!(!abandoned.contains("9117e1dd"));
    // A unique prefix is enough.
    assert_eq!(show("0196c9f4", &["--leaf", "1df9"]), abandoned);
}

fn json_lines(out: &str) -> Vec<serde_json::Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

#[test]
fn type_and_role_filters() {
    let lines = json_lines(&show(
        "0196cdea",
        &["--json", "--no-header", "--type", "compaction"],
    ));
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["id"], "ca81dad7");

    let users = json_lines(&show(
        "0196c3c5",
        &["--json", "--no-header", "--role", "user"],
    ));
    assert_eq!(users.len(), 2);
    assert!(users.iter().all(|l| l["message"]["role"] == "user"));

    // Repeated flags are alternatives; --type and --role together must both hold.
    let some = json_lines(&show(
        "0196c3c5",
        &["--json", "--no-header", "-t", "label", "-t", "session_info"],
    ));
    assert_eq!(some.len(), 4);
    let none = show(
        "0196c3c5",
        &["--json", "--no-header", "-t", "label", "--role", "user"],
    );
    assert_eq!(none, "");

    // v2's hookMessage is pi's custom role.
    let custom = json_lines(&show(
        "0194cb09",
        &["--json", "--no-header", "--role", "custom"],
    ));
    assert_eq!(custom.len(), 1);
    assert_eq!(
        custom[0]["message"]["role"], "hookMessage",
        "stored bytes, unmigrated"
    );

    // The human view filters alike.
    let human = show("0196c3c5", &["--role", "assistant", "--branch"]);
    assert_eq!(human.matches("  assistant  ").count(), 8);
}

/// A role typo is a usage error naming pi's roles (a CI check "no tool errors" must not pass on
/// `--role toolresult`); a type typo is matched as given but warned about.
#[test]
fn unknown_roles_are_refused_and_unknown_types_warned() {
    let path = example("0196c3c5");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pisess"))
        .args(["show", path.to_str().unwrap(), "--role", "toolresult"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    for role in pisess_format::model::PI_ROLES {
        assert!(err.contains(role), "{role} not listed in: {err}");
    }
    // Every pi role is accepted.
    for role in pisess_format::model::PI_ROLES {
        let r = run(&["show", path.to_str().unwrap(), "--role", role]);
        assert_eq!(r.code, 0, "--role {role}: {}", r.stderr);
    }

    let r = run(&["show", path.to_str().unwrap(), "--type", "mesage"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr
            .starts_with("pisess: warning: --type mesage: not one of pi's entry types (message, "),
        "{}",
        r.stderr
    );
    let r = run(&["show", path.to_str().unwrap(), "-q", "--type", "mesage"]);
    assert_eq!(r.stderr, "", "-q hides the warning");
    for t in pisess_format::model::PI_ENTRY_TYPES {
        let r = run(&["show", path.to_str().unwrap(), "--type", t]);
        assert_eq!(r.stderr, "", "--type {t} is pi's");
    }
}

#[test]
fn json_round_trips_every_well_formed_file() {
    let mut checked = 0;
    for path in all_examples() {
        let bytes = fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let well_formed = text.ends_with('\n')
            && text
                .lines()
                .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.is_object()));
        if !well_formed {
            continue;
        }
        let r = ok(&["show", "--json", path.to_str().unwrap()]);
        assert_eq!(r.stdout.as_bytes(), &bytes[..], "{}", path.display());
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} well-formed examples");
}

#[test]
fn json_keeps_crlf_and_ends_an_unterminated_last_line() {
    let entry = r#"{"type":"custom","id":"a","parentId":null,"customType":"x"}"#;
    let text = format!("{HEADER}\r\n\r\n{entry}");
    let r = run_with(example_env(), &["show", "-", "--json"], text.as_bytes());
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The blank line is not an entry; the rest is byte for byte, plus the final newline.
    assert_eq!(r.stdout, format!("{HEADER}\r\n{entry}\n"));
    let r = run_with(
        example_env(),
        &["show", "-", "--json", "--no-header"],
        text.as_bytes(),
    );
    assert_eq!(r.stdout, format!("{entry}\n"));
}

#[test]
fn json_of_the_seed_dialect_is_the_stored_lines() {
    let path = example("0196f8c8");
    let r = ok(&["show", "--json", path.to_str().unwrap(), "entry-003"]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with(r#"{"type":"session_header""#));
    assert!(lines[1].starts_with(r#"{"type":"user_message""#));
}

#[test]
fn one_entry_in_full_and_long_text_cut_otherwise() {
    let long: Vec<String> = (1..=40).map(|n| format!("line {n}")).collect();
    let entry = serde_json::json!({"type":"message","id":"m1","parentId":null,
        "timestamp":"2026-01-01T00:00:01.000Z",
        "message":{"role":"user","content":long.join("\n")}});
    let (_tmp, path) = temp_session(&[HEADER, &entry.to_string()]);
    let cut = ok(&["show", &path]).stdout;
    assert!(cut.contains("line 12\n") && !cut.contains("line 13"));
    assert!(cut.contains("… 28 more lines (--full shows all)"));
    let full = ok(&["show", &path, "--full"]).stdout;
    assert!(full.contains("line 40") && !full.contains("more lines"));
    assert_eq!(ok(&["show", &path, "m1"]).stdout, full);
}

#[test]
fn entry_id_cannot_be_combined_with_selections() {
    let path = example("0196c3c5");
    let r = run(&["show", path.to_str().unwrap(), "1e9aceb3", "--branch"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("ENTRY_ID"), "{}", r.stderr);
    let r = run(&["show", path.to_str().unwrap(), "nope"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("no entry 'nope'"), "{}", r.stderr);
}

#[test]
fn control_characters_cannot_reach_the_terminal() {
    let entry = serde_json::json!({"type":"message","id":"m1\u{1b}[31m","parentId":null,
        "timestamp":"2026-01-01T00:00:01.000Z",
        "message":{"role":"user","content":[{"type":"text","text":"a\u{1b}[2Jb\u{9b}c\rd"},
            {"type":"image","mimeType":"image/\u{7}png","data":"AAAA"},
            {"type":"toolCall","name":"x\u{1b}","arguments":{"k":"\u{202e}"}}]}});
    let label = serde_json::json!({"type":"label","id":"l1","parentId":"m1\u{1b}[31m",
        "targetId":"m1\u{1b}[31m","label":"\u{1b}]0;title\u{7}"});
    let (_tmp, path) = temp_session(&[HEADER, &entry.to_string(), &label.to_string()]);
    for args in [
        vec!["show", &path],
        vec!["show", &path, "--full"],
        vec!["tree", &path, "--filter", "all"],
    ] {
        let r = ok(&args);
        assert!(
            !r.stdout.chars().any(|c| c.is_control() && c != '\n'),
            "{args:?}: {:?}",
            r.stdout
        );
        assert!(r.stdout.contains("\\u{1b}"), "{args:?}: {}", r.stdout);
    }
}

#[test]
fn a_parent_cycle_ends_the_branch_with_a_warning() {
    let e = |id: &str, parent: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{id}"}}}}"#
        )
    };
    let (_tmp, path) = temp_session(&[
        HEADER,
        &e("a", r#""b""#),
        &e("b", r#""a""#),
        &e("c", r#""a""#),
    ]);
    let r = ok(&["show", &path, "--branch", "--json", "--no-header"]);
    let ids: Vec<String> = json_lines(&r.stdout)
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_owned())
        .collect();
    // Walking up from c: a, then b, whose parent a is already on the path.
    assert_eq!(ids, ["b", "a", "c"]);
    assert!(
        r.stderr.contains("warning:") && r.stderr.contains(":2: parent cycle through entry a"),
        "{}",
        r.stderr
    );
}

#[test]
fn an_empty_session_shows_nothing_but_its_header() {
    let (_tmp, path) = temp_session(&[HEADER]);
    assert_eq!(ok(&["show", &path]).stdout, "");
    assert_eq!(ok(&["show", &path, "--branch"]).stdout, "");
    assert_eq!(ok(&["show", &path, "--json"]).stdout, format!("{HEADER}\n"));
}

#[test]
fn wrong_json_types_do_not_panic() {
    let odd = [
        r#"{"type":"message","id":"1","parentId":null,"timestamp":5,"message":{"role":"assistant","content":{"x":1},"model":7,"stopReason":3,"errorMessage":["e"]}}"#,
        r#"{"type":"message","id":"2","parentId":"1","message":{"role":"user","content":[1,null,{"type":5},{"type":"image","data":null},{"type":"toolCall","name":null,"arguments":"s"}]}}"#,
        r#"{"type":"message","id":"3","parentId":"2","message":"text"}"#,
        r#"{"type":"message","id":"4","parentId":"3","message":{"role":"toolResult","toolName":{},"isError":"yes","content":"x"}}"#,
        r#"{"type":"message","id":"5","parentId":"4","message":{"role":"bashExecution","command":1,"output":null,"exitCode":"0"}}"#,
        r#"{"type":"message","id":"6","parentId":"5","message":{"role":"system","content":[],"sections":[],"toolsAdded":{}}}"#,
        r#"{"type":"compaction","id":"7","parentId":"6","summary":{},"tokensBefore":"many","firstKeptEntryId":1}"#,
        r#"{"type":"context_edit","id":"8","parentId":"7","targetId":null,"replacement":"x"}"#,
        r#"{"type":"label","id":"9","parentId":"8","targetId":["1"],"label":5}"#,
        r#"{"type":"usage","id":"10","parentId":"9","usage":"lots"}"#,
        r#"{"type":"model_change","id":"11","parentId":"10","provider":null}"#,
        r#"{"type":"session_info","id":"12","parentId":"11","name":false}"#,
        r#"{"type":"branch_summary","id":"13","parentId":"12","summary":null,"fromId":3}"#,
        r#"{"type":"custom_message","id":"14","parentId":"13","content":{"a":1},"display":"no"}"#,
        r#"{"type":"checkpoint_v9","id":"15","parentId":"14","note":"future"}"#,
        r#"{"id":"16","parentId":"15"}"#,
        r#"{"type":"message","id":"17","parentId":"16","message":{"role":"weird","x":1}}"#,
    ];
    let mut lines = vec![HEADER];
    lines.extend_from_slice(&odd);
    let (_tmp, path) = temp_session(&lines);
    let r = ok(&["show", &path]);
    assert_eq!(r.stdout.matches("\n\n").count(), odd.len() - 1);
    snap!("show_odd_types", r.stdout);
    for filter in ["default", "all"] {
        ok(&["tree", &path, "--filter", filter]);
        ok(&["tree", &path, "--filter", filter, "--json"]);
    }
}

/// issue 42: a `usage` entry whose tokens recorded cost 0 (no price) showed a bare `$0.00`; it
/// is the money every command prints, marked and said.
#[test]
fn a_usage_entry_without_a_price_is_marked() {
    let (_tmp, path) = temp_session(&[
        HEADER,
        r#"{"type":"usage","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","kind":"title","provider":"ollama","model":"qwen","usage":{"input":700,"output":50,"cacheRead":0,"cacheWrite":0,"cost":{"total":0}}}"#,
    ]);
    let out = ok(&["show", &path]).stdout;
    assert!(
        out.contains("title · ollama/qwen · 750 tokens · $0.00+ (no price)"),
        "{out}"
    );
}
