//! `ls --touched PATH` (issue 45): the sessions whose read, write or edit calls named PATH
//! or a file under it, each call's path normalised against its own session's cwd (as `pisess
//! files` does), PATH against the directory pisess runs in; never from bash commands.

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use crate::common::{env_in, run_with};

/// A session `id` of project `cwd` whose assistant made `calls` (tool, arguments).
fn session(root: &Path, id: &str, cwd: &str, calls: &[(&str, Value)]) {
    let dir = root.join("sessions").join(format!("--{}--", &cwd[1..]));
    fs::create_dir_all(&dir).unwrap();
    let uuid = format!("0196{id}-0000-7000-8000-000000000001");
    let mut lines = vec![
        json!({"type":"session","version":3,"id":uuid,"timestamp":"2026-01-01T00:00:00.000Z","cwd":cwd}),
        json!({"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z",
               "message":{"role":"user","content":"go","timestamp":1_767_225_601_000_i64}}),
    ];
    let mut parent = "u1".to_owned();
    for (i, (name, args)) in calls.iter().enumerate() {
        let id = format!("a{i}");
        lines.push(json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-01-01T00:00:02.000Z",
            "message":{"role":"assistant","content":[{"type":"toolCall","id":format!("c{i}"),"name":name,"arguments":args}],
                       "provider":"p","model":"m","stopReason":"toolUse","timestamp":1_767_225_602_000_i64}}));
        parent = id;
    }
    // A name outside ASCII as pi's JSON may store it: escaped.
    let text: String = lines
        .iter()
        .map(|l| format!("{l}\n").replace('é', "\\u00e9"))
        .collect();
    fs::write(
        dir.join(format!("2026-01-01T00-00-00-000Z_{uuid}.jsonl")),
        text,
    )
    .unwrap();
}

fn agent() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let path = |p: &str| json!({ "path": p });
    session(root, "aaaa", "/p", &[("read", path("src/cart.ts"))]);
    session(root, "bbbb", "/p", &[("edit", path("./src/x/../cart.ts"))]);
    session(root, "cccc", "/p", &[("write", path("/p/src/cart.ts"))]);
    // Another project naming the file by its absolute path, and its own src/cart.ts.
    session(root, "dddd", "/q", &[("read", path("/p/src/cart.ts"))]);
    session(root, "eeee", "/q", &[("read", path("src/cart.ts"))]);
    // A shell command's paths are not certain: never counted.
    session(
        root,
        "ffff",
        "/p",
        &[("bash", json!({"command": "cat src/cart.ts"}))],
    );
    session(root, "0000", "/p", &[("read", path("src/café.ts"))]);
    dir
}

/// The short ids `ls --touched` lists, run in `cwd`.
fn touched(agent: &Path, cwd: &str, args: &[&str]) -> Vec<String> {
    let mut all = vec!["ls", "--all", "--json", "--touched"];
    all.extend_from_slice(args);
    let r = run_with(env_in(agent, cwd), &all, b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut ids: Vec<String> = (r.stdout.lines())
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()[4..8]
                .to_owned()
        })
        .collect();
    ids.sort();
    ids
}

#[test]
fn every_spelling_of_a_file_is_one_file() {
    let agent = agent();
    let want = ["aaaa", "bbbb", "cccc", "dddd"];
    assert_eq!(touched(agent.path(), "/p", &["src/cart.ts"]), want);
    assert_eq!(touched(agent.path(), "/p", &["./src/cart.ts"]), want);
    assert_eq!(touched(agent.path(), "/", &["/p/src/cart.ts"]), want);
    assert_eq!(touched(agent.path(), "/p/src", &["cart.ts"]), want);
    // /q's own src/cart.ts is another file.
    assert_eq!(touched(agent.path(), "/q", &["src/cart.ts"]), ["eeee"]);
}

#[test]
fn a_folder_holds_the_files_under_it() {
    let agent = agent();
    assert_eq!(
        touched(agent.path(), "/p", &["src"]),
        ["0000", "aaaa", "bbbb", "cccc", "dddd"]
    );
    // A project's root: every relative path of its sessions, and absolute ones under it.
    assert_eq!(
        touched(agent.path(), "/", &["/p"]),
        ["0000", "aaaa", "bbbb", "cccc", "dddd"]
    );
    // `src` names a folder, not a file whose name starts so.
    assert!(touched(agent.path(), "/p", &["sr"]).is_empty());
}

#[test]
fn an_escaped_name_and_no_match_at_all() {
    let agent = agent();
    assert_eq!(touched(agent.path(), "/p", &["src/café.ts"]), ["0000"]);
    assert!(touched(agent.path(), "/p", &["src/nothing.ts"]).is_empty());
    // The human listing is filtered the same way.
    let r = run_with(
        env_in(agent.path(), "/p"),
        &["ls", "--touched", "src/cart.ts"],
        b"",
    );
    assert_eq!(r.code, 0);
    let rows: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(rows.len(), 3, "{}", r.stdout);
    assert!(rows.iter().all(|r| !r.contains("0196ffff")));
    // An empty PATH names nothing: a usage error, not every file of the current dir.
    let r = run_with(env_in(agent.path(), "/p"), &["ls", "--touched", ""], b"");
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("--touched: the path is empty"),
        "{}",
        r.stderr
    );
}
