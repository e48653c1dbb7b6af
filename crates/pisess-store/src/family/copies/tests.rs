//! The copy rule on entries as pi and pi-subagents rewrite them, the chain walk, and the share of
//! a subagent tool result's usage.

use super::*;
use serde_json::json;

mod differential;

fn entry(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

fn source(entries: &[&str]) -> Source {
    let mut source = Source::default();
    for e in entries {
        source.add(&entry(e));
    }
    source
}

const ASSISTANT: &str = r#"{"type":"message","id":"a1b2c3d4","parentId":"00000001","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm","thinkingSignature":"sig"},{"type":"text","text":"hi"}],"provider":"anthropic","model":"m","responseId":"r1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"total":0.5}},"timestamp":1767225601000}}"#;

#[test]
fn a_copy_written_again_by_json_stringify_is_the_sources() {
    let source = source(&[ASSISTANT]);
    // Keys in another order, `2` spelt `2.0`, `0.5` as `5e-1`, a letter escaped.
    let copy = r#"{"id":"a1b2c3d4","type":"message","parentId":"00000001","timestamp":"2026-01-01T00:00:01.000Z","message":{"timestamp":1767225601000,"role":"assistant","content":[{"type":"thinking","thinking":"h\u006d","thinkingSignature":"sig"},{"type":"text","text":"hi"}],"provider":"anthropic","model":"m","responseId":"r1","usage":{"input":10,"output":2.0,"cacheRead":0,"cacheWrite":-0,"totalTokens":12,"cost":{"total":5e-1}}}}"#;
    assert!(source.holds(&entry(copy), Copying::Verbatim));
}

#[test]
fn only_the_fields_a_copy_rewrites_may_differ() {
    let compaction = r#"{"type":"compaction","id":"c0000001","parentId":"l0000001","timestamp":"t","summary":"s","firstKeptEntryId":"l0000001","tokensBefore":5}"#;
    let custom = r#"{"type":"custom","id":"d0000001","parentId":"p","timestamp":"t","firstKeptEntryId":"x"}"#;
    let source = source(&[ASSISTANT, compaction, custom]);
    let rechained = ASSISTANT.replace(r#""parentId":"00000001""#, r#""parentId":"00000009""#);
    assert!(source.holds(&entry(&rechained), Copying::Verbatim));
    let unparented = ASSISTANT.replace(r#""parentId":"00000001","#, "");
    assert!(source.holds(&entry(&unparented), Copying::Verbatim));
    // createBranchedSession moves a compaction's first kept entry off a dropped label.
    let moved = compaction
        .replace(
            r#""firstKeptEntryId":"l0000001""#,
            r#""firstKeptEntryId":"m0000001""#,
        )
        .replace(r#""parentId":"l0000001""#, r#""parentId":"m0000001""#);
    assert!(source.holds(&entry(&moved), Copying::Verbatim));
    // On anything else it is content.
    let other = custom.replace(r#""firstKeptEntryId":"x""#, r#""firstKeptEntryId":"y""#);
    assert!(!source.holds(&entry(&other), Copying::Verbatim));
    // Same id, other content: an entry of its own (an 8-hex id met again).
    let edited = ASSISTANT.replace(r#""text":"hi""#, r#""text":"ho""#);
    assert!(!source.holds(&entry(&edited), Copying::Verbatim));
    let renamed = ASSISTANT.replace("a1b2c3d4", "a1b2c3d5");
    assert!(!source.holds(&entry(&renamed), Copying::Verbatim));
    // A label made again by createBranchedSession has a new id.
    let label = r#"{"type":"label","id":"e0000001","parentId":"a1b2c3d4","timestamp":"t","targetId":"a1b2c3d4","label":"x"}"#;
    let source = self::source(&[label]);
    let again = label.replace("e0000001", "e0000002");
    assert!(!source.holds(&entry(&again), Copying::Verbatim));
}

#[test]
fn entries_without_a_string_id_are_never_copies() {
    let v1 = r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"x"}}"#;
    let numbered =
        r#"{"type":"message","id":7,"timestamp":"t","message":{"role":"user","content":"x"}}"#;
    let source = source(&[v1, numbered, "[1]", "null"]);
    assert!(source.is_empty());
    assert!(!source.holds(&entry(v1), Copying::Rewritten));
    assert!(!source.holds(&entry(numbered), Copying::Rewritten));
}

#[test]
fn a_rewritten_fork_child_matches_on_what_the_rewrite_keeps() {
    let source = source(&[ASSISTANT]);
    // pi-subagents took the signed thinking block out.
    let sanitized = ASSISTANT.replace(
        r#"{"type":"thinking","thinking":"hm","thinkingSignature":"sig"},"#,
        "",
    );
    assert!(!source.holds(&entry(&sanitized), Copying::Verbatim));
    assert!(source.holds(&entry(&sanitized), Copying::Rewritten));
    // Another usage, time or response is another turn.
    for (from, to) in [
        (r#""input":10"#, r#""input":11"#),
        (
            r#""timestamp":1767225601000"#,
            r#""timestamp":1767225601001"#,
        ),
        (r#""responseId":"r1""#, r#""responseId":"r2""#),
        ("00:00:01.000Z", "00:00:02.000Z"),
    ] {
        let other = sanitized.replace(from, to);
        assert!(!source.holds(&entry(&other), Copying::Rewritten), "{from}");
    }
}

#[test]
fn a_line_nested_deeper_than_a_stack_is_hashed() {
    let mut deep = json!("core");
    for _ in 0..100_000 {
        deep = Value::Array(vec![deep]);
    }
    // Built and taken apart by hand: `json!` and `Drop` would both recurse.
    let mut e = json!({"type": "custom", "id": "f0000001"});
    e["data"] = deep;
    let mut source = Source::default();
    source.add(&e);
    assert!(source.holds(&e, Copying::Verbatim));
    let mut v = e["data"].take();
    while let Value::Array(mut items) = v {
        v = items.pop().unwrap_or(Value::Null);
    }
}

fn parents(
    map: &[(&str, Option<&str>)],
) -> impl FnMut(&Path) -> io::Result<Option<String>> + use<> {
    let map: std::collections::HashMap<PathBuf, Option<String>> = map
        .iter()
        .map(|(p, up)| (PathBuf::from(p), up.map(str::to_owned)))
        .collect();
    move |p: &Path| {
        map.get(p)
            .cloned()
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
    }
}

const D: &str = "/nonexistent-pisess-family";

#[test]
fn the_chain_ends_at_a_root_a_missing_file_a_cycle_or_the_limit() {
    let files = [
        (
            "/nonexistent-pisess-family/b.jsonl",
            Some("/nonexistent-pisess-family/a.jsonl"),
        ),
        ("/nonexistent-pisess-family/a.jsonl", None),
        ("/nonexistent-pisess-family/x.jsonl", Some("y.jsonl")),
        (
            "/nonexistent-pisess-family/y.jsonl",
            Some("/nonexistent-pisess-family/x.jsonl"),
        ),
        (
            "/nonexistent-pisess-family/m.jsonl",
            Some("/nonexistent-pisess-family/gone.jsonl"),
        ),
    ];
    let mut keys = PathKeys::new(Path::new(D));
    let c = Path::new("/nonexistent-pisess-family/c.jsonl");
    let p = |s: &str| PathBuf::from(format!("{D}/{s}"));

    let got = chain(c, &format!("{D}/b.jsonl"), &mut keys, 10, parents(&files));
    assert_eq!(got.files, [p("b.jsonl"), p("a.jsonl")]);
    assert!(matches!(got.end, End::Root));

    // The source gone: its copies count in the fork.
    let got = chain(c, &format!("{D}/m.jsonl"), &mut keys, 10, parents(&files));
    assert_eq!(got.files, [p("m.jsonl")]);
    assert!(
        matches!(got.end, End::Missing(ref f, io::ErrorKind::NotFound) if *f == p("gone.jsonl"))
    );

    // Relative: against the process cwd, as pi resolves it. x→y→x.
    let got = chain(c, "x.jsonl", &mut keys, 10, parents(&files));
    assert_eq!(got.files, [p("x.jsonl"), p("y.jsonl")]);
    assert!(matches!(got.end, End::Cycle(ref f) if *f == p("x.jsonl")));

    // A session naming itself.
    let got = chain(c, &format!("{D}/./c.jsonl"), &mut keys, 10, parents(&files));
    assert!(got.files.is_empty());
    assert!(matches!(got.end, End::Cycle(_)));

    let got = chain(c, &format!("{D}/b.jsonl"), &mut keys, 1, parents(&files));
    assert_eq!(got.files, [p("b.jsonl")]);
    assert!(matches!(got.end, End::Limit));
}

fn subagent_result(results: Value, usage: bool) -> Value {
    let mut message = json!({
        "role": "toolResult",
        "toolCallId": "call_1",
        "toolName": "subagent",
        "content": [{"type": "text", "text": "done"}],
        "details": {"mode": "parallel", "runId": "ab12cd34", "results": results},
        "isError": false,
        "timestamp": 1
    });
    if usage {
        message["usage"] = json!({"input": 30, "output": 3, "cost": {"total": 0.3}});
    }
    json!({"type": "message", "id": "t0000001", "parentId": "a0000001", "timestamp": "t", "message": message})
}

#[test]
fn a_family_counts_delegated_usage_on_the_childrens_side() {
    let results = json!([
        {"index": 0, "sessionFile": "/p/s/ab12cd34/run-0/session.jsonl", "usage": {"input": 10, "cost": 0.1}},
        {"index": 1, "sessionFile": "/p/s/ab12cd34/run-1/session.jsonl", "usage": {"input": 20, "cost": 0.2}},
    ]);
    let d = delegation(&subagent_result(results.clone(), true)).unwrap();
    assert!(d.has_usage);
    assert_eq!(d.run_id.as_deref(), Some("ab12cd34"));
    assert_eq!(
        d.children[1],
        Delegated {
            session_file: Some("/p/s/ab12cd34/run-1/session.jsonl".into()),
            index: Some(1),
            usage: Some(json!({"input": 20, "cost": 0.2})),
        }
    );
    let found = |files: &'static [&'static str]| move |f: &str| files.contains(&f);
    const BOTH: [&str; 2] = [
        "/p/s/ab12cd34/run-0/session.jsonl",
        "/p/s/ab12cd34/run-1/session.jsonl",
    ];
    assert_eq!(share(&d, found(&BOTH)), Share::Nothing);
    assert_eq!(share(&d, found(&BOTH[1..])), Share::Children(vec![0]));
    assert_eq!(share(&d, found(&[])), Share::Whole);
    // Before pi-subagents 0.59 the result carried no usage: nothing to leave out.
    let old = delegation(&subagent_result(results.clone(), false)).unwrap();
    assert_eq!(share(&old, found(&[])), Share::Nothing);
    // Usage with no child named: the only record.
    let bare = delegation(&subagent_result(json!([]), true)).unwrap();
    assert!(bare.children.is_empty());
    assert_eq!(share(&bare, found(&[])), Share::Whole);

    // A slash command's message names its children and carries no usage pi counts.
    let slash = json!({
        "type": "custom_message", "customType": "subagent-slash-result", "id": "s0000001",
        "content": "done", "display": true,
        "details": {"requestId": "r", "result": {"content": [], "details":
            {"mode": "single", "runId": "cd34ab12", "results": results}}}
    });
    let d = delegation(&slash).unwrap();
    assert_eq!(
        (d.run_id.as_deref(), d.children.len(), d.has_usage),
        (Some("cd34ab12"), 2, false)
    );
    assert_eq!(share(&d, found(&[])), Share::Nothing);

    // What pi-subagents itself does not read as details is none.
    let mut read = subagent_result(json!([]), true);
    read["message"]["toolName"] = json!("read");
    assert_eq!(delegation(&read), None);
    let mut no_mode = subagent_result(json!([]), true);
    no_mode["message"]["details"]["mode"] = json!(1);
    assert_eq!(delegation(&no_mode), None);
    let mut no_results = subagent_result(json!([]), true);
    no_results["message"]["details"]["results"] = json!(null);
    assert_eq!(delegation(&no_results), None);
    let mut assistant = subagent_result(json!([]), true);
    assistant["message"]["role"] = json!("assistant");
    assert_eq!(delegation(&assistant), None);
    let mut other = slash.clone();
    other["customType"] = json!("note");
    assert_eq!(delegation(&other), None);
    let mut waited = subagent_result(json!([]), true);
    waited["message"]["toolName"] = json!("bg_wait");
    assert!(delegation(&waited).is_some());
}
