//! `context`: the next request rebuilt from the example sessions.

use serde_json::Value;

use crate::common::run;
use crate::snap;

fn context(args: &[&str]) -> Value {
    let mut all = vec!["-q", "context", "--json"];
    all.extend_from_slice(args);
    let r = run(&all);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 1, "one JSON object");
    serde_json::from_str(&r.stdout).unwrap()
}

fn roles(ctx: &Value) -> Vec<String> {
    ctx["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap_or("?").to_owned())
        .collect()
}

#[test]
fn json_object_shape() {
    let ctx = context(&["0196c3c5"]);
    let keys: Vec<&str> = ctx
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["leafId", "thinkingLevel", "model", "messages"]);
    assert!(ctx["leafId"].is_string());
    assert!(ctx["model"]["modelId"].is_string());
}

#[test]
fn compaction_starts_the_context_and_keeps_from_first_kept() {
    let ctx = context(&["0196cdea"]);
    let r = roles(&ctx);
    assert_eq!(r[0], "compactionSummary");
    assert!(r.iter().filter(|x| *x == "compactionSummary").count() == 1);
    let retain_none = context(&["0196d4d5"]);
    assert_eq!(roles(&retain_none)[0], "compactionSummary");
}

#[test]
fn edits_apply_only_after_they_happen() {
    let ctx = context(&["0196d88e"]);
    let text = ctx["messages"].to_string();
    assert!(text.contains("REDACTED"));
    assert!(
        !text.contains("sk_test_51Hc9Xw2eZvKYlo2C0f3a9"),
        "the redacted key is gone"
    );
    // The user's request (line 3) predates every edit: there the original shows.
    let path = run(&["path", "0196d88e"]).stdout;
    let text = std::fs::read_to_string(path.trim_end()).unwrap();
    let first: Value = serde_json::from_str(text.lines().nth(2).unwrap()).unwrap();
    assert_eq!(first["message"]["role"], "user");
    let leaf = first["id"].as_str().unwrap();
    let before = context(&["0196d88e", "--leaf", leaf]);
    assert!(before["messages"]
        .to_string()
        .contains("sk_test_51Hc9Xw2eZvKYlo2C0f3a9"));
}

#[test]
fn llm_view_wraps_summaries_and_drops_excluded_bash() {
    let llm = context(&["0196cdea", "--llm"]);
    let first = llm["messages"][0]["content"][0]["text"].as_str().unwrap();
    assert!(first.starts_with("The conversation history before this point was compacted"));
    assert!(roles(&llm)
        .iter()
        .all(|r| ["user", "assistant", "toolResult", "system"].contains(&r.as_str())));
    let plain = context(&["0196dfb0"]);
    let llm = context(&["0196dfb0", "--llm"]);
    let bash = roles(&plain)
        .iter()
        .filter(|r| *r == "bashExecution")
        .count();
    assert_eq!(bash, 2);
    assert!(llm["messages"].to_string().contains("Ran `"));
    assert!(
        llm["messages"].as_array().unwrap().len() < plain["messages"].as_array().unwrap().len()
    );
}

#[test]
fn v1_ids_are_stable_so_leaf_works() {
    let full = context(&["01944689"]);
    assert_eq!(full["leafId"].as_str().unwrap().len(), 8);
    let early = context(&["01944689", "--leaf", "00000002"]);
    assert_eq!(early["leafId"], "00000002");
    assert_eq!(early["messages"].as_array().unwrap().len(), 2);
}

#[test]
fn seed000_compaction_keeps_nothing_before_it() {
    let ctx = context(&["0196f3a2"]);
    let r = roles(&ctx);
    assert_eq!(r[0], "compactionSummary", "{r:?}");
}

#[test]
fn max_tool_chars_cuts_tool_results() {
    let ctx = context(&["0196cdea", "--max-tool-chars", "10"]);
    let cut = ctx["messages"].to_string();
    assert!(cut.contains("more characters cut by --max-tool-chars"));
}

#[test]
fn unknown_leaf_is_an_error() {
    let r = run(&["context", "0196cdea", "--leaf", "zzzz"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("no entry 'zzzz'"), "{}", r.stderr);
}

#[test]
fn human_view() {
    snap!("context_edits", run(&["context", "0196d88e"]).stdout);
    snap!("context_compaction", run(&["context", "0196cdea"]).stdout);
}

/// pi's `new Date(entry.timestamp).getTime()` for the messages it builds from entries (a number
/// is the time, `null` is 0), and a `message` that is no object pushed as it is (pi 1.6.0's
/// `buildSessionContext` of this file gives exactly these messages); `--llm` drops it, as pi's
/// `convertToLlm` does.
#[test]
fn entry_times_and_odd_messages_as_pi_has_them() {
    let text = [
        r#"{"type":"session","version":3,"id":"cm000000-0000-7000-8000-000000000001","timestamp":"2025-05-16T10:05:33.900Z","cwd":"/tmp/p"}"#,
        r#"{"type":"custom_message","id":"c","parentId":null,"timestamp":1747389935000.7,"customType":"x","content":"c","display":true}"#,
        r#"{"type":"branch_summary","id":"b","parentId":"c","timestamp":null,"fromId":"c","summary":"s"}"#,
        r#"{"type":"branch_summary","id":"t","parentId":"b","timestamp":1e300,"fromId":"c","summary":"far"}"#,
        r#"{"type":"message","id":"m","parentId":"t","timestamp":"2025-05-16T10:05:36.000Z","message":"x"}"#,
        r#"{"type":"message","id":"u","parentId":"m","timestamp":"2025-05-16T10:05:37.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
    ]
    .join("\n")
        + "\n";
    let tmp = tempfile::tempdir().unwrap();
    let messages = |flags: &[&str]| {
        let mut args = vec!["context", "--json"];
        args.extend_from_slice(flags);
        args.push("-");
        let r = crate::common::run_with(
            crate::common::env_in(tmp.path(), "/p"),
            &args,
            text.as_bytes(),
        );
        assert_eq!(r.code, 0, "{r:?}");
        serde_json::from_str::<Value>(&r.stdout).unwrap()["messages"].to_string()
    };
    assert_eq!(
        messages(&[]),
        r#"[{"role":"custom","customType":"x","content":"c","display":true,"timestamp":1747389935000},{"role":"branchSummary","summary":"s","fromId":"c","timestamp":0},{"role":"branchSummary","summary":"far","fromId":"c","timestamp":null},"x",{"role":"user","content":"hi","timestamp":1}]"#
    );
    assert!(!messages(&["--llm"]).contains(r#""x""#));
}
