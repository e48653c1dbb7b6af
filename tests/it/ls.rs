//! `ls`: pi's list fields and order, filters, human table, partial failures.

use std::fs;

use crate::common::{env_in, example_env, run, run_with, Run};
use crate::snap;

fn json_lines(r: &Run) -> Vec<serde_json::Value> {
    r.stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

#[test]
fn human_listing_of_this_project() {
    let r = run_with(default_is("0196c9f4"), &["ls"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    snap!("ls_webshop", r.stdout);
}

/// The examples' modification times are the checkout's, so the tests that snapshot a listing
/// name the default session through `$PI_SESSION_FILE` (which beats pi's `-c` rule).
fn default_is(id: &str) -> pisess::app::env::Env {
    let mut env = example_env();
    env.pi_session_file = Some(crate::show::example(id).to_string_lossy().into_owned());
    env
}

/// The session a bare command reads is marked `*`: pi's `-c` choice, the newest file by
/// modification time, which is not the top row when an older session was touched last.
#[test]
fn the_default_session_is_marked() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions/--p--");
    fs::create_dir_all(&dir).unwrap();
    for (id, said) in [
        ("aaaa0001", 1_767_312_000_000_u64),
        ("bbbb0002", 1_767_398_400_000),
    ] {
        let text = format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}}\n\
             {{\"type\":\"message\",\"id\":\"m1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"hi {id}\",\"timestamp\":{said}}}}}\n"
        );
        fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
    }
    // The older conversation's file was written last (a copy, a clone): pi -c resumes it.
    let newest = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
    fs::File::options()
        .append(true)
        .open(dir.join("aaaa0001.jsonl"))
        .unwrap()
        .set_modified(newest)
        .unwrap();
    let r = run_with(env_in(tmp.path(), "/p"), &["ls"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(lines[0].starts_with("  bbbb0002 "), "{}", r.stdout);
    assert!(lines[1].starts_with("* aaaa0001 "), "{}", r.stdout);
    // The mark is what `show` opens without SESSION.
    let shown = run_with(env_in(tmp.path(), "/p"), &["show", "--json"], b"");
    assert!(
        shown.stdout.contains("\"id\":\"aaaa0001\""),
        "{}",
        shown.stdout
    );
    // JSON stays the contract's fields: no mark there.
    let json = run_with(env_in(tmp.path(), "/p"), &["ls", "--json"], b"");
    assert!(!json.stdout.contains('*'));
}

#[test]
fn human_listing_of_all_projects_shows_cwd() {
    let r = run_with(default_is("0196c9f4"), &["-q", "ls", "--all"], b"");
    assert_eq!(r.code, 0);
    snap!("ls_all", r.stdout);
}

/// `resume` is the command that opens the session in pi, the path single-quoted for a POSIX
/// shell: a hostile file name (quotes, `$(...)`, a newline) stays one argument, never code.
#[test]
fn json_gives_the_command_that_resumes_in_pi() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions/--p--");
    fs::create_dir_all(&dir).unwrap();
    let name = "it's $(touch pwned) `x` \"q\" \\\n'';.jsonl";
    let text = "{\"type\":\"session\",\"version\":3,\"id\":\"aaaa0001\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n";
    fs::write(dir.join(name), text).unwrap();
    let r = run_with(env_in(tmp.path(), "/p"), &["ls", "--json"], b"");
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rows = json_lines(&r);
    assert_eq!(rows.len(), 1, "{}", r.stdout);
    let path = rows[0]["path"].as_str().unwrap();
    assert!(path.ends_with(name), "{path}");
    let resume = rows[0]["resume"].as_str().unwrap();
    assert!(resume.starts_with("pi --session '"), "{resume}");
    // A shell with `pi` standing for a function that prints its arguments.
    let shell = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("pi() {{ printf '%s|' \"$@\"; }}; {resume}"))
        .current_dir(tmp.path())
        .output()
        .unwrap();
    assert!(shell.status.success(), "{shell:?}");
    assert_eq!(
        String::from_utf8(shell.stdout).unwrap(),
        format!("--session|{path}|")
    );
    assert!(!tmp.path().join("pwned").exists());
}

#[test]
fn json_has_the_contract_fields_in_pi_order() {
    let r = run(&["ls", "--json"]);
    assert_eq!(r.code, 0);
    let rows = json_lines(&r);
    assert!(rows.len() >= 5);
    let keys: Vec<&str> = rows[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "path",
            "cwd",
            "name",
            "parentSession",
            "version",
            "created",
            "modified",
            "messageCount",
            "firstMessage",
            "entries",
            "leafId",
            "branches",
            "usage",
            "models",
            "bytes",
            "malformedLines",
            "userMessages",
            "assistantMessages",
            "toolCalls",
            "toolResults",
            "totalMessages",
            "toolErrors",
            // Added by issue 44.
            "subagentRuns",
            // Added by issue 47.
            "resume",
            // The one vocabulary's name for `id` (issue 47).
            "sessionId"
        ]
    );
    // The counts add up as pi's `/session` counts do, on every row.
    for r in &rows {
        let n = |k: &str| r[k].as_u64().unwrap();
        assert_eq!(n("totalMessages"), n("messageCount"));
        assert!(
            n("userMessages") + n("assistantMessages") + n("toolResults") <= n("totalMessages")
        );
        assert!(n("toolErrors") <= n("toolResults"));
    }
    assert!(
        rows.iter().any(|r| r["toolCalls"].as_u64() > Some(0)),
        "the examples call tools"
    );
    let modified: Vec<&str> = rows
        .iter()
        .map(|r| r["modified"].as_str().unwrap())
        .collect();
    let mut sorted = modified.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(modified, sorted, "newest modified first");
    for row in &rows {
        assert_eq!(row["cwd"], "/home/dev/webshop");
        let u = &row["usage"];
        let sum = ["input", "output", "cacheRead", "cacheWrite"]
            .iter()
            .map(|k| u[*k].as_f64().unwrap())
            .sum::<f64>();
        assert_eq!(u["totalTokens"].as_f64().unwrap(), sum);
    }
}

#[test]
fn limit_reverse_sort_and_time_filters() {
    let all = json_lines(&run(&["ls", "--all", "--json", "-q"]));
    let two = json_lines(&run(&["ls", "--all", "--json", "-q", "-n", "2"]));
    assert_eq!(two[..], all[..2]);
    let rev = json_lines(&run(&["ls", "--all", "--json", "-q", "--reverse"]));
    assert_eq!(rev.first(), all.last());
    let by_size = json_lines(&run(&["ls", "--all", "--json", "-q", "--sort", "size"]));
    let sizes: Vec<u64> = by_size
        .iter()
        .map(|r| r["bytes"].as_u64().unwrap())
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
    // The clock is fixed at 2026-08-01; everything in the examples is older than a week.
    assert!(json_lines(&run(&["ls", "--all", "--json", "-q", "--since", "1w"])).is_empty());
    let may = json_lines(&run(&[
        "ls",
        "--all",
        "--json",
        "-q",
        "--since",
        "2025-05-01",
        "--until",
        "2025-05-15",
    ]));
    assert!(!may.is_empty());
    for r in &may {
        let m = r["modified"].as_str().unwrap();
        assert!(("2025-05-01".."2025-05-15").contains(&m), "{m}");
    }
    // today and yesterday are the starts of those days (2026-08-01 and 07-31 here): nothing
    // of the examples since, all of them until.
    let all = json_lines(&run(&["ls", "--all", "--json", "-q"]));
    assert!(json_lines(&run(&[
        "ls",
        "--all",
        "--json",
        "-q",
        "--since",
        "yesterday"
    ]))
    .is_empty());
    assert_eq!(
        json_lines(&run(&["ls", "--all", "--json", "-q", "--until", "today"])).len(),
        all.len()
    );
    let bad = run(&["ls", "--since", "last-week"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("invalid time 'last-week'"));
}

#[test]
fn missing_dir_lists_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let r = run_with(env_in(tmp.path(), "/nowhere"), &["ls", "--all"], b"");
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
}

#[test]
fn foreign_files_warn_and_leave_the_listing_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions").join("--p--");
    fs::create_dir_all(&dir).unwrap();
    fs::write(
        dir.join("good.jsonl"),
        "{\"type\":\"session\",\"version\":3,\"id\":\"good\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\nnot json\n",
    )
    .unwrap();
    fs::write(dir.join("notes.jsonl"), "{\"hello\":1}\n").unwrap();
    fs::create_dir(dir.join("dir.jsonl")).unwrap();
    let r = run_with(env_in(tmp.path(), "/p"), &["ls", "--json"], b"");
    // pi skips them too: the listing is complete (unreadable files: `robustness.rs`).
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rows = json_lines(&r);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["malformedLines"], 1);
    assert!(
        r.stderr.contains("good.jsonl:2: malformed JSON"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("notes.jsonl: skipped: line 1: not a pi session"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("dir.jsonl: skipped: not a regular file (a directory)"),
        "{}",
        r.stderr
    );
    let q = run_with(env_in(tmp.path(), "/p"), &["-q", "ls"], b"");
    assert_eq!((q.code, q.stderr.as_str()), (0, ""));
}

#[test]
fn custom_dir_is_flat_and_filtered_by_header_cwd() {
    let custom = crate::common::repo().join("examples/custom-dir");
    let custom = custom.to_str().unwrap();
    let all = json_lines(&run(&["ls", "--all", "--json", "--session-dir", custom]));
    assert_eq!(all.len(), 3);
    let mut env = example_env();
    env.inputs.cwd = "/home/dev/pisess".into();
    let mine = json_lines(&run_with(
        env,
        &["ls", "--json", "--session-dir", custom],
        b"",
    ));
    assert!(!mine.is_empty() && mine.len() < all.len());
    assert!(mine.iter().all(|r| r["cwd"] == "/home/dev/pisess"));
}

/// pi compares `resolvePath(header.cwd)` with the resolved cwd, both against the process cwd:
/// on Linux a Windows project's `E:\Repos\app` is relative, and so is `webshop`.
#[test]
fn custom_dir_resolves_header_cwds_as_pi_does() {
    let tmp = tempfile::tempdir().unwrap();
    let header = |id: &str, cwd: &str| {
        let cwd = serde_json::to_string(cwd).unwrap();
        format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":{cwd}}}\n"
        )
    };
    for (id, cwd) in [
        ("win", "E:\\Repos\\app"),
        ("rel", "webshop"),
        ("dot", "./webshop/"),
        ("abs", "/work/p/webshop"),
        ("other", "E:\\Repos\\other"),
    ] {
        fs::write(tmp.path().join(format!("{id}.jsonl")), header(id, cwd)).unwrap();
    }
    let dir = tmp.path().to_str().unwrap();
    let ids = |cwd: &str| {
        let r = run_with(
            env_in(tmp.path(), "/work/p"),
            &["ls", "--json", "--session-dir", dir, "--cwd", cwd],
            b"",
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let mut ids: Vec<String> = json_lines(&r)
            .iter()
            .map(|row| row["id"].as_str().unwrap().to_owned())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids("E:\\Repos\\app"), ["win"]);
    // `--cwd` is resolved against the process cwd, and so is each header's relative cwd.
    assert_eq!(ids("webshop"), ["abs", "dot", "rel"]);
    assert_eq!(ids("/work/p/webshop/"), ["abs", "dot", "rel"]);
    assert_eq!(ids("file:///work/p/webshop"), ["abs", "dot", "rel"]);
}

/// The committed table of names in Node's `localeCompare` order (tests/collation/gen.mjs):
/// `[rank, name]` lines, equal ranks comparing equal.
fn collation_table() -> Vec<(u64, String)> {
    let text =
        fs::read_to_string(crate::common::repo().join("tests/collation/names.jsonl")).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).expect("a [rank, name] line"))
        .collect()
}

/// pisess orders file names as pi's `localeCompare` does, checked on every pair of the table
/// (case, `-`, `_`, `.`, digits, accents precomposed and combining, CJK), without node.
#[test]
fn file_names_compare_as_nodes_locale_compare() {
    let table = collation_table();
    assert!(table.len() > 500);
    let mut wrong = Vec::new();
    for (ra, a) in &table {
        for (rb, b) in &table {
            let ours = pisess_store::locate::name_cmp(a.as_bytes(), b.as_bytes());
            if ours != ra.cmp(rb) {
                wrong.push(format!(
                    "{a:?} vs {b:?}: pisess {ours:?}, node {:?}",
                    ra.cmp(rb)
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} pairs differ, e.g. {}",
        wrong.len(),
        wrong[..wrong.len().min(5)].join("; ")
    );
    // The table is not byte order: a byte sort would pass nothing above by accident.
    let mut bytes: Vec<&String> = table.iter().map(|(_, n)| n).collect();
    bytes.sort();
    assert_ne!(bytes, table.iter().map(|(_, n)| n).collect::<Vec<_>>());
}

/// The table is what Node says today: regenerated and compared when node is on the PATH.
#[test]
fn collation_table_matches_node() {
    let script = crate::common::repo().join("tests/collation/gen.mjs");
    let Ok(out) = std::process::Command::new("node").arg(script).output() else {
        crate::common::missing_tool("node (the committed collation table is checked alone)");
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let committed =
        fs::read_to_string(crate::common::repo().join("tests/collation/names.jsonl")).unwrap();
    assert!(
        String::from_utf8(out.stdout).unwrap() == committed,
        "node orders the names differently from tests/collation/names.jsonl; regenerate it with node tests/collation/gen.mjs"
    );
}

/// Sessions whose `modified` ties (started in the same millisecond, no messages) come out in
/// pi's order: file names by `b.localeCompare(a)`, then stably by `modified`.
#[test]
fn ties_on_modified_keep_pis_name_order() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions/--p--");
    fs::create_dir_all(&dir).unwrap();
    let ids = [
        "ci-run-1",
        "CI-run-1",
        "ci_run_1",
        "ci.run.1",
        "cirun1",
        "ci-run-10",
        "ci-run-2",
        "Ci-Run-1",
    ];
    for id in ids {
        let header = format!(
            r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}}"#
        );
        fs::write(
            dir.join(format!("2026-01-01T00-00-00-000Z_{id}.jsonl")),
            header + "\n",
        )
        .unwrap();
    }
    let listed: Vec<String> =
        json_lines(&run_with(env_in(tmp.path(), "/p"), &["ls", "--json"], b""))
            .iter()
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect();
    // Node: [...].sort((a, b) => b.localeCompare(a)) on these names.
    assert_eq!(
        listed,
        [
            "cirun1",
            "ci.run.1",
            "ci-run-2",
            "ci-run-10",
            "CI-run-1",
            "Ci-Run-1",
            "ci-run-1",
            "ci_run_1"
        ]
    );
}

/// `ls --all` over the default root reads files newest mtime first as pi's `listAll` does, by
/// Node's `mtimeMs` (nanoseconds included): two files written within one millisecond do not
/// tie, so the name order does not decide between them.
#[test]
fn all_orders_by_mtime_below_the_millisecond() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::time::UNIX_EPOCH + std::time::Duration::from_millis(1_767_225_600_123);
    // "a" sorts before "b" by name, so a name order would put b first (newest name first).
    for (folder, id, offset_us) in [("--p--", "a", 700), ("--q--", "b", 200)] {
        let dir = tmp.path().join("sessions").join(folder);
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("{id}.jsonl"));
        fs::write(
            &file,
            format!("{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}}\n"),
        )
        .unwrap();
        let t = base + std::time::Duration::from_micros(offset_us);
        fs::File::options()
            .append(true)
            .open(&file)
            .unwrap()
            .set_modified(t)
            .unwrap();
    }
    let ids: Vec<String> = json_lines(&run_with(
        env_in(tmp.path(), "/p"),
        &["ls", "--all", "--json"],
        b"",
    ))
    .iter()
    .map(|s| s["id"].as_str().unwrap().to_owned())
    .collect();
    assert_eq!(ids, ["a", "b"], "a's file is 0.5 ms newer");
}
