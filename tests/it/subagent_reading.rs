//! Reading a run with its subagent runs (issue 44): `tree` and `show` mark the entry that started
//! a run and name the run by a short id that `pisess show` opens; `tree --json` adds
//! `subagentRuns`.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{env_in, run_with, Run};
use crate::family_stats::write;
use crate::snap;

const PROJECT: &str = "--home-dev-webshop--";
pub(crate) const PARENT: &str = "aaaa0001-0000-7000-8000-000000000001";
/// Shares its first 8 characters with the parent, as ids made within a minute do: its short id
/// must be longer to select it.
pub(crate) const CHILD: &str = "aaaa0001-0000-7000-8000-0000000000c1";
const SLASH_CHILD: &str = "bbbb0002-0000-7000-8000-000000000002";
const STRAY: &str = "dddd0004-0000-7000-8000-000000000004";
const RUN_ID: &str = "0a1b2c3d";
const SLASH_RUN: &str = "1b2c3d4e";

pub(crate) fn run_in(root: &Path, args: &[&str]) -> Run {
    let r = run_with(env_in(root, "/home/dev/webshop"), args, b"");
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    r
}

fn msg(id: &str, parent: Option<&str>, second: u32, message: Value) -> Value {
    json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": format!("2026-07-01T10:00:{second:02}.000Z"), "message": message})
}

/// A child run's transcript: its task and its answer, which `payload` makes hostile when asked.
fn child(path: &Path, id: &str, task: &str, answer: &str) {
    let user = msg("u1", None, 1, json!({"role": "user", "content": task}));
    let said = msg(
        "b1",
        Some("u1"),
        4,
        json!({"role": "assistant",
        "content": [{"type": "text", "text": answer}], "provider": "anthropic",
        "model": "claude-haiku", "stopReason": "stop"}),
    );
    write(path, id, &[user, said]);
}

/// A parent whose `subagent` tool call started run-0 of `RUN_ID` (named by its `sessionFile`),
/// whose `/run` slash command started run-0 of `SLASH_RUN` (its message written twice, running
/// then final, named by run id and index alone, as after a store was moved), and a stray run no
/// entry names. `answer` is the first child's answer. Returns the parent's path and the runs'.
pub(crate) fn store(root: &Path, answer: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = root.join("sessions").join(PROJECT);
    let stem = format!("2026-07-01T10-00-00-000Z_{PARENT}");
    let parent = dir.join(format!("{stem}.jsonl"));
    let run = dir.join(&stem).join(RUN_ID).join("run-0/session.jsonl");
    let slash = dir.join(&stem).join(SLASH_RUN).join("run-0/session.jsonl");
    let stray = dir.join(&stem).join("2c3d4e5f").join("run-0/session.jsonl");
    let user = msg(
        "u1",
        None,
        1,
        json!({"role": "user", "content": "delegate the review"}),
    );
    let call = msg(
        "a1",
        Some("u1"),
        2,
        json!({"role": "assistant",
        "content": [{"type": "toolCall", "id": "c1", "name": "subagent",
            "arguments": {"agent": "reviewer", "task": "review src/"}}],
        "provider": "anthropic", "model": "claude-opus", "stopReason": "toolUse"}),
    );
    let result = msg(
        "r1",
        Some("a1"),
        9,
        json!({"role": "toolResult", "toolCallId": "c1",
        "toolName": "subagent", "content": [{"type": "text", "text": "reviewed"}],
        "isError": false,
        "details": {"mode": "single", "runId": RUN_ID,
            "results": [{"index": 0, "sessionFile": run.display().to_string()}]}}),
    );
    let done = msg(
        "a2",
        Some("r1"),
        10,
        json!({"role": "assistant",
        "content": [{"type": "text", "text": "The reviewer is done."}],
        "provider": "anthropic", "model": "claude-opus", "stopReason": "stop"}),
    );
    let slash_result = |id: &str, parent: &str| {
        json!({"type": "custom_message", "customType": "subagent-slash-result", "id": id,
            "parentId": parent, "timestamp": "2026-07-01T10:00:20.000Z",
            "content": "/run scout", "display": true,
            "details": {"result": {"details": {"mode": "single", "runId": SLASH_RUN,
                "results": [{"index": 0, "sessionFile": "/elsewhere/run-0/session.jsonl"}]}}}})
    };
    write(
        &parent,
        PARENT,
        &[
            user,
            call,
            result,
            done,
            slash_result("s1", "a2"),
            slash_result("s2", "s1"),
        ],
    );
    child(&run, CHILD, "review src/", answer);
    child(&slash, SLASH_CHILD, "scout", "Scouted.");
    child(&stray, STRAY, "stray", "Nobody named me.");
    (parent, run, slash)
}

#[test]
fn tree_marks_the_entries_that_started_runs_by_a_short_id_show_opens() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path(), "Looks fine.");
    let tree = run_in(tmp.path(), &["tree", PARENT]);
    snap!("tree_subagent_runs", tree.stdout);
    // The child shares 8 characters with the parent: its short id is longer, and opens it.
    let short = "aaaa0001-0000-7000-8000-0000000000c";
    assert!(
        tree.stdout.contains(&format!("subagent run {short}")),
        "{}",
        tree.stdout
    );
    let shown = run_in(tmp.path(), &["show", short]);
    assert!(shown.stdout.contains("Looks fine."), "{}", shown.stdout);
    // The slash command's run, tied by its run id and index, once (its message is written
    // twice); the stray run is on no row.
    assert_eq!(tree.stdout.matches("subagent run bbbb0002").count(), 1);
    assert!(!tree.stdout.contains("dddd0004"), "{}", tree.stdout);
    let shown = run_in(tmp.path(), &["show", "bbbb0002"]);
    assert!(shown.stdout.contains("Scouted."), "{}", shown.stdout);
}

#[test]
fn tree_json_adds_subagent_runs_to_the_entry_that_started_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, run, slash) = store(tmp.path(), "Looks fine.");
    let out = run_in(tmp.path(), &["tree", PARENT, "--json"]);
    let rows: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let with: Vec<&Value> = rows
        .iter()
        .filter(|r| r.get("subagentRuns").is_some())
        .collect();
    assert_eq!(with.len(), 2, "{}", out.stdout);
    assert_eq!(with[0]["entryId"], "r1");
    assert_eq!(
        with[0]["subagentRuns"],
        json!([{"sessionId": CHILD, "shortId": "aaaa0001-0000-7000-8000-0000000000c",
            "path": run.display().to_string(), "made": "subagent"}])
    );
    assert_eq!(with[1]["entryId"], "s1");
    assert_eq!(with[1]["subagentRuns"][0]["sessionId"], SLASH_CHILD);
    assert_eq!(
        with[1]["subagentRuns"][0]["path"],
        slash.display().to_string()
    );
}

#[test]
fn show_names_the_run_on_the_entry_that_started_it() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path(), "Looks fine.");
    let out = run_in(tmp.path(), &["show", PARENT]);
    snap!("show_subagent_runs", out.stdout);
    let marked: Vec<&str> = out.stdout.lines().filter(|l| l.contains("⤷")).collect();
    assert_eq!(marked.len(), 2, "{}", out.stdout);
    assert!(
        marked[0].contains(" r1 ") || marked[0].contains("r1"),
        "{marked:?}"
    );
}

#[test]
fn a_session_without_runs_has_no_marks() {
    let tmp = tempfile::tempdir().unwrap();
    let (parent, ..) = store(tmp.path(), "Looks fine.");
    // Its runs' folder gone: the entries still name runs, but none is there to open.
    let stem = parent.with_extension("");
    fs::remove_dir_all(stem).unwrap();
    let tree = run_in(tmp.path(), &["tree", PARENT]);
    assert!(!tree.stdout.contains("⤷"), "{}", tree.stdout);
    let json = run_in(tmp.path(), &["tree", PARENT, "--json"]);
    assert!(!json.stdout.contains("subagentRuns"), "{}", json.stdout);
}

/// What a hostile run answers: markup that would end the run's disclosure, its article, or the
/// Markdown quote, and a script.
pub(crate) const HOSTILE: &str = "</details></article><script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\">\n\n# not a heading of the page\n```\nfence\n\u{1b}]52;c;AAAA\u{7}";

#[test]
fn export_md_quotes_each_run_under_the_call_that_started_it() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path(), HOSTILE);
    let out = run_in(tmp.path(), &["export", PARENT, "-f", "md"]).stdout;
    let start = out.find("> **⤷ subagent run aaaa0001").expect(&out);
    // Under the assistant item that made the call, before the next item.
    let call = out.find("Assistant · anthropic/claude-opus").unwrap();
    let next = out.find("The reviewer is done.").unwrap();
    assert!(call < start && start < next, "{out}");
    // Every line of the run's section is quoted, its hostile lines included: the quote holds.
    let section: Vec<&str> = out[start..next]
        .lines()
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(section.iter().all(|l| l.starts_with('>')), "{section:#?}");
    assert!(section
        .iter()
        .any(|l| l.contains("Looks") || l.contains("not a heading")));
    assert!(!out.contains("\n# not a heading"), "{out}");
    assert!(!out.contains("<script>"), "{out}");
    // The slash command's run, once, under its message.
    assert_eq!(out.matches("subagent run bbbb0002").count(), 1, "{out}");
    assert!(out.contains("> Scouted."), "{out}");
    snap!("export_md_subagent_runs", out);

    let without = run_in(
        tmp.path(),
        &["export", PARENT, "-f", "md", "--no-subagents"],
    )
    .stdout;
    assert!(!without.contains("subagent run"), "{without}");
    assert!(!without.contains("Scouted."), "{without}");
}

#[test]
fn export_html_nests_each_run_in_a_collapsed_disclosure_escaped_as_the_parent() {
    let tmp = tempfile::tempdir().unwrap();
    store(tmp.path(), HOSTILE);
    let out = run_in(tmp.path(), &["export", PARENT, "-f", "html"]).stdout;
    let run = out.find("<details class=run>").expect("a run");
    let end = out[run..].find("</details>\n</article>").unwrap() + run;
    let section = &out[run..end];
    assert!(
        section.contains("&lt;/details&gt;&lt;/article&gt;&lt;script&gt;"),
        "{section}"
    );
    assert!(
        !section.contains("<script>") && !section.contains("<img"),
        "{section}"
    );
    // Inside the assistant's article, whose anchors stay unique: the run's are prefixed.
    let article = out[..run].rfind("<article").unwrap();
    assert!(
        out[article..run].contains("id=m-a1"),
        "{}",
        &out[article..run]
    );
    assert!(section.contains("id=r1-m-u1"), "{section}");
    assert_eq!(out.matches("id=m-u1>").count(), 1);
    assert_eq!(out.matches("<details class=run>").count(), 2);
    let without = run_in(
        tmp.path(),
        &["export", PARENT, "-f", "html", "--no-subagents"],
    );
    assert!(!without.stdout.contains("class=run"));
}

#[test]
fn export_redact_takes_a_runs_secret_out_of_the_page() {
    let tmp = tempfile::tempdir().unwrap();
    let token = "sk-ant-api03-PtYgjmUhBel31iEl2hpChYgCfrL1spNxnyVmihA_2O76UMFxFkM_R5Kjp1vRt-1fjORS_6ilI8ihN5KXSc7Tvo_hBKqFYAA";
    store(tmp.path(), &format!("the token is {token}"));
    let out = run_in(tmp.path(), &["export", PARENT, "-f", "md", "--redact"]).stdout;
    assert!(out.contains("subagent run aaaa0001"), "{out}");
    assert!(!out.contains(token), "{out}");
}
