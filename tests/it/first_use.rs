//! What a new user trips over (issue 32): durations, provider errors, short ids, duplicate
//! files, stats tables at every width, models of tool errors, unpriced usage, and the small
//! things. Every store here is made by the test.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common::{env_in, run_with, Run};

/// A store under a temporary agent dir; sessions are written into it by [`Store::session`].
struct Store {
    tmp: tempfile::TempDir,
}

impl Store {
    fn new() -> Store {
        Store {
            tmp: tempfile::tempdir().unwrap(),
        }
    }

    /// Writes session `id` of project `cwd` with header time `header_time` and `entries`.
    fn session(&self, cwd: &str, id: &str, header_time: &str, entries: &[Value]) -> PathBuf {
        let dir = self.tmp.path().join("sessions").join(format!(
            "--{}--",
            cwd.trim_start_matches('/').replace('/', "-")
        ));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{}_{id}.jsonl", header_time.replace(':', "-")));
        let header =
            json!({"type":"session","version":3,"id":id,"timestamp":header_time,"cwd":cwd});
        let mut text = format!("{header}\n");
        for e in entries {
            text.push_str(&e.to_string());
            text.push('\n');
        }
        fs::write(&path, text).unwrap();
        path
    }

    fn root(&self) -> &Path {
        self.tmp.path()
    }

    fn run(&self, args: &[&str]) -> Run {
        run_with(env_in(self.root(), "/home/dev/app"), args, b"")
    }

    /// On a terminal of `width` columns (headings shown), never paged.
    fn run_width(&self, width: usize, args: &[&str]) -> Run {
        let mut env = env_in(self.root(), "/home/dev/app");
        env.width = Some(width);
        env.columns = Some(width);
        env.stdout_tty = true;
        let args: Vec<&str> = ["--no-pager", "--color", "never"]
            .into_iter()
            .chain(args.iter().copied())
            .collect();
        run_with(env, &args, b"")
    }
}

/// A message entry `id` (child of `parent`) at `time`.
fn message(id: &str, parent: Option<&str>, time: &str, message: Value) -> Value {
    json!({"type":"message","id":id,"parentId":parent,"timestamp":time,"message":message})
}

fn user(id: &str, parent: Option<&str>, time: &str, text: &str) -> Value {
    message(id, parent, time, json!({"role":"user","content":text}))
}

fn usage(cost: f64) -> Value {
    json!({"input":1000,"output":200,"cacheRead":0,"cacheWrite":0,"totalTokens":1200,"cost":{"total":cost}})
}

fn assistant(id: &str, parent: Option<&str>, time: &str, model: &str, content: Value) -> Value {
    message(
        id,
        parent,
        time,
        json!({"role":"assistant","content":content,"provider":"p","model":model,
               "usage":usage(0.5),"stopReason":"stop"}),
    )
}

fn json_of(r: &Run) -> Value {
    assert_eq!(r.code, 0, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

// 1. Durations never negative.

/// The header is three minutes later than the messages (a clock change, a hand-made file).
fn late_header(store: &Store) {
    store.session(
        "/home/dev/app",
        "0196aaaa-0000-7000-8000-000000000001",
        "2026-07-01T10:05:00.000Z",
        &[
            user("u1", None, "2026-07-01T10:00:00.000Z", "hello"),
            assistant(
                "a1",
                Some("u1"),
                "2026-07-01T10:02:00.000Z",
                "m",
                json!([{"type":"text","text":"hi"}]),
            ),
        ],
    );
}

#[test]
fn a_header_after_its_messages_gives_the_span_of_every_line() {
    let store = Store::new();
    late_header(&store);
    let stats = json_of(&store.run(&["stats", "--json", "0196aaaa"]));
    // From the first message (10:00) to the header (10:05).
    assert_eq!(stats["durationMs"], json!(300_000), "{stats}");
    let human = store.run(&["stats", "0196aaaa"]);
    assert!(human.stdout.contains("(5m 00s)"), "{}", human.stdout);
    // check --max-duration judges the run, from the start (10:00) to the last user or
    // assistant message (10:02), not the late header (issue 47's decision).
    let check = store.run(&["check", "--max-duration", "1m", "0196aaaa"]);
    assert_eq!(check.code, 1, "{}{}", check.stdout, check.stderr);
    let check = store.run(&["check", "--json", "--max-duration", "4m", "0196aaaa"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
    let v: Value = serde_json::from_str(check.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(v["figures"]["durationMs"], json!(300_000), "{v}");
    assert_eq!(v["figures"]["activeMs"], json!(120_000), "{v}");
}

// 2. The provider's errorMessage.

fn failed_turns(store: &Store) {
    let failed = |id: &str, parent: &str, time: &str, error: &str| {
        message(
            id,
            Some(parent),
            time,
            json!({"role":"assistant","content":[],"provider":"p","model":"m","usage":usage(0.0),
                   "stopReason":"error","errorMessage":error}),
        )
    };
    store.session(
        "/home/dev/app",
        "0196bbbb-0000-7000-8000-000000000001",
        "2026-07-01T10:00:00.000Z",
        &[
            user("u1", None, "2026-07-01T10:00:01.000Z", "deploy"),
            failed(
                "a1",
                "u1",
                "2026-07-01T10:00:02.000Z",
                "529 overloaded_error: Overloaded",
            ),
            failed(
                "a2",
                "a1",
                "2026-07-01T10:00:03.000Z",
                "529 overloaded_error: Overloaded",
            ),
            failed("a3", "a2", "2026-07-01T10:00:04.000Z", "rate limit reached"),
        ],
    );
}

#[test]
fn an_error_message_is_searched_shown_and_counted() {
    let store = Store::new();
    failed_turns(&store);
    let grep = store.run(&["grep", "--json", "overloaded_error"]);
    assert_eq!(grep.code, 0, "{}{}", grep.stdout, grep.stderr);
    let hits: Vec<Value> = grep
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &Value| v["type"] == "match" || v.get("field").is_some())
        .collect();
    assert!(!hits.is_empty(), "{}", grep.stdout);
    assert!(
        grep.stdout.contains(r#""field":"error""#),
        "{}",
        grep.stdout
    );
    let human = store.run(&["grep", "rate limit"]);
    assert!(human.stdout.contains("assistant error"), "{}", human.stdout);
    let show = store.run(&["show", "0196bbbb"]);
    assert!(
        show.stdout.contains("error: rate limit reached"),
        "{}",
        show.stdout
    );
    let stats = json_of(&store.run(&["stats", "--json", "0196bbbb"]));
    assert_eq!(stats["stopReasons"]["error"], json!(3));
    assert_eq!(
        stats["stopReasons"]["errorMessages"],
        json!([{"message":"529 overloaded_error: Overloaded","count":2},
               {"message":"rate limit reached","count":1}])
    );
    let human = store.run(&["stats", "0196bbbb"]);
    assert!(
        human
            .stdout
            .contains("2× 529 overloaded_error: Overloaded; 1× rate limit reached"),
        "{}",
        human.stdout
    );
}

// 3. Short ids and copies.

/// Three sessions whose ids share 8 and 12 characters (UUIDv7s started within a minute), and
/// one in another project that shares 8 with them.
const CLOSE_IDS: [&str; 4] = [
    "0196cccc-1111-7000-8000-000000000001",
    "0196cccc-1112-7000-8000-000000000002",
    "0196cccc-2222-7000-8000-000000000003",
    "0196cccc-3333-7000-8000-000000000004",
];

fn close_ids(store: &Store) {
    for (i, id) in CLOSE_IDS.iter().enumerate() {
        let cwd = if i == 3 {
            "/srv/other"
        } else {
            "/home/dev/app"
        };
        let time = format!("2026-07-01T10:0{i}:00.000Z");
        store.session(
            cwd,
            id,
            &time,
            &[user("u1", None, &time, &format!("task {i}"))],
        );
    }
}

/// The first column of each row of `ls`-like output.
fn first_words(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.split_whitespace().find(|w| *w != "*").map(str::to_owned))
        .collect()
}

#[test]
fn short_ids_are_unique_in_the_store_and_select_their_session() {
    let store = Store::new();
    close_ids(&store);
    let ls = store.run(&["ls"]);
    assert_eq!(ls.code, 0, "{}", ls.stderr);
    let mut shown = first_words(&ls.stdout);
    shown.sort();
    // Told apart from the other project's session too, which `ls` does not show.
    assert_eq!(
        shown,
        ["0196cccc-1111", "0196cccc-1112", "0196cccc-2"],
        "{}",
        ls.stdout
    );
    let all = store.run(&["ls", "--all"]);
    assert!(
        first_words(&all.stdout).contains(&"0196cccc-3".to_owned()),
        "{}",
        all.stdout
    );
    for (short, id) in shown.iter().zip(CLOSE_IDS) {
        let stats = json_of(&store.run(&["stats", "--json", short]));
        assert_eq!(stats["id"], json!(id), "{short}");
    }
    // The same abbreviation wherever a session id is printed.
    let check = store.run(&["check", "--all"]);
    let ids = first_words(&check.stdout);
    for short in &shown {
        assert!(ids.contains(short), "check: {}", check.stdout);
    }
    let grep = store.run(&["grep", "task 1"]);
    assert!(
        grep.stdout.starts_with("0196cccc-1112  "),
        "{}",
        grep.stdout
    );
    let rm = store.run(&["rm", "--dry-run", "0196cccc-2"]);
    assert!(rm.stdout.contains("  0196cccc-2  "), "{}", rm.stdout);
}

#[test]
fn a_copied_file_is_named_with_its_original_and_a_path_picks_one() {
    let store = Store::new();
    let id = "0196dddd-0000-7000-8000-000000000001";
    let time = "2026-07-01T10:00:00.000Z";
    let original = store.session("/home/dev/app", id, time, &[user("u1", None, time, "hi")]);
    let copy = original.with_file_name(format!("2026-07-01T11-00-00.000Z_{id}.jsonl"));
    fs::copy(&original, &copy).unwrap();
    let r = store.run(&["show", "0196dddd"]);
    assert_eq!(r.code, 1);
    let message = r.stderr.trim_end();
    assert_eq!(message.lines().count(), 1, "{message}");
    for file in [&original, &copy] {
        let name = file.file_name().unwrap().to_string_lossy();
        assert!(message.contains(&*name), "{message}");
    }
    assert!(message.contains("by its path"), "{message}");
    let by_path = store.run(&["show", copy.to_str().unwrap()]);
    assert_eq!(by_path.code, 0, "{}", by_path.stderr);
}

// 5. Tool errors under the model that called the tool.

fn call(id: &str, parent: &str, time: &str, model: &str, call_id: &str) -> Value {
    assistant(
        id,
        Some(parent),
        time,
        model,
        json!([{"type":"toolCall","id":call_id,"name":"bash","arguments":{"command":"make"}}]),
    )
}

fn failed_result(id: &str, parent: &str, time: &str, call_id: &str) -> Value {
    message(
        id,
        Some(parent),
        time,
        json!({"role":"toolResult","toolCallId":call_id,"toolName":"bash",
               "content":[{"type":"text","text":"error"}],"isError":true}),
    )
}

#[test]
fn tool_errors_are_counted_under_the_model_whose_call_they_answer() {
    let store = Store::new();
    let t = |s: u32| format!("2026-07-01T10:00:{s:02}.000Z");
    store.session(
        "/home/dev/app",
        "0196eeee-0000-7000-8000-000000000001",
        &t(0),
        &[
            user("u1", None, &t(1), "build"),
            call("a1", "u1", &t(2), "fast", "c1"),
            failed_result("r1", "a1", &t(3), "c1"),
            call("a2", "r1", &t(4), "smart", "c2"),
            failed_result("r2", "a2", &t(5), "c2"),
            call("a3", "r2", &t(6), "smart", "c3"),
            failed_result("r3", "a3", &t(7), "c3"),
        ],
    );
    let r = store.run(&["stats", "--json", "--by", "model"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rows: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let errors = |model: &str| {
        rows.iter()
            .find(|b| b["key"] == model)
            .map(|b| b["toolErrors"].clone())
    };
    assert_eq!(errors("p/fast"), Some(json!(1)), "{}", r.stdout);
    assert_eq!(errors("p/smart"), Some(json!(2)), "{}", r.stdout);
    // The user's message has no model; no tool error is left there.
    assert_eq!(errors("(no model)"), Some(json!(0)), "{}", r.stdout);
}

// 4. stats tables fit the terminal; 6. unpriced usage is marked.

/// Sessions with long titles and long model names, one model without a price, a long failed
/// bash command and many files read.
fn report_store() -> Store {
    let store = Store::new();
    let ids = [
        "0196f000-0000-7000-8000-000000000001",
        "0196f000-3c4d-7000-8000-000000000002",
        "0196f111-0000-7000-8000-000000000003",
    ];
    for (i, id) in ids.iter().enumerate() {
        let t = |s: u32| format!("2026-07-0{}T10:00:{s:02}.000Z", i + 1);
        let model = [
            "anthropic-claude-sonnet-4-5-20250929-long-name",
            "local-llama",
            "gpt-5",
        ][i];
        let cost = if i == 1 { 0.0 } else { 0.25 };
        let mut reads: Vec<Value> = (0..40)
            .map(|n| {
                json!({"type":"toolCall","id":format!("c{n}"),"name":"read",
                            "arguments":{"path":format!("src/module_{n}/file_{n}.rs")}})
            })
            .collect();
        reads.push(json!({"type":"toolCall","id":"cb","name":"bash","arguments":{
            "command": format!("cargo test --workspace --all-features {}", "-- --nocapture ".repeat(20))}}));
        store.session(
            "/home/dev/app",
            id,
            &t(0),
            &[
                user("u1", None, &t(1), &format!("Session {i}: refactor the whole billing module so that invoices are generated lazily")),
                message("a1", Some("u1"), &t(2), json!({"role":"assistant","content":reads,
                    "provider":"p","model":model,"usage":usage(cost),"stopReason":"toolUse"})),
                failed_result("r1", "a1", &t(3), "cb"),
            ],
        );
    }
    store
}

fn widest(stdout: &str) -> usize {
    stdout
        .lines()
        .map(unicode_width::UnicodeWidthStr::width)
        .max()
        .unwrap_or(0)
}

#[test]
fn stats_tables_fit_every_width() {
    let store = report_store();
    for width in [60, 80, 120, 200] {
        for by in ["session", "model", "day", "tool", "project"] {
            let r = store.run_width(width, &["stats", "--by", by]);
            assert_eq!(r.code, 0, "{}", r.stderr);
            assert!(
                widest(&r.stdout) <= width,
                "--by {by} at {width}:\n{}",
                r.stdout
            );
            if by == "session" || by == "model" {
                crate::snap!(format!("stats_by_{by}_{width}"), r.stdout);
            }
        }
        let one = store.run_width(width, &["stats", "0196f111"]);
        let one_text = one
            .stdout
            .replace(&*store.root().to_string_lossy(), "[store]");
        for line in one_text.lines().filter(|l| l.starts_with("  ")) {
            assert!(
                unicode_width::UnicodeWidthStr::width(line) <= width,
                "one at {width}: {line}"
            );
        }
        let failed = one.stdout.lines().find(|l| l.contains('✗')).unwrap();
        assert!(
            unicode_width::UnicodeWidthStr::width(failed) <= width,
            "{failed}"
        );
        // The files read are wrapped, not one long line.
        assert!(
            one.stdout.lines().filter(|l| l.contains("file_")).count() > 1,
            "{}",
            one.stdout
        );
        crate::snap!(format!("stats_one_{width}"), one_text);
    }
    let by_session = store.run_width(120, &["stats", "--by", "session"]);
    assert!(
        !by_session.stdout.contains("sessions"),
        "{}",
        by_session.stdout
    );
    assert!(by_session
        .stdout
        .contains("0196f000-0000-7000-8000-000000000001".get(..8).unwrap()));
    assert!(
        by_session.stdout.contains("Session 2: refactor"),
        "{}",
        by_session.stdout
    );
}

#[test]
fn unpriced_tokens_are_marked_and_counted() {
    let store = report_store();
    let r = store.run_width(120, &["stats", "--by", "model"]);
    let local = r
        .stdout
        .lines()
        .find(|l| l.starts_with("p/local-llama"))
        .unwrap();
    // issue 42: `+` ("at least"), not `*` (the default session in `ls`).
    assert!(local.trim_end().ends_with("$0.00+"), "{}", r.stdout);
    assert!(
        r.stdout.contains("+ at least: 1.2k tokens had no price"),
        "{}",
        r.stdout
    );
    let json_rows: Vec<Value> = store
        .run(&["stats", "--json", "--by", "model"])
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let total = json_rows
        .iter()
        .find(|b| b["total"] == json!(true))
        .unwrap();
    assert_eq!(total["unpricedTokens"], json!(1200));
    let priced = json_rows.iter().find(|b| b["key"] == "p/gpt-5").unwrap();
    assert_eq!(priced["unpricedTokens"], json!(0));
    let ls = store.run(&["ls", "--json"]);
    assert!(
        ls.stdout.contains(r#""unpricedTokens":1200"#),
        "{}",
        ls.stdout
    );
    // Zero is one rendering: the same `$0.00` in every table, marked apart from `ls`'s `*`
    // (the default session) and explained once under the table (issue 42).
    let ls = store.run_width(120, &["ls"]);
    assert!(ls.stdout.contains("$0.00+"), "{}", ls.stdout);
    assert_eq!(
        ls.stdout.lines().last(),
        Some("+ at least: 1.2k tokens had no price"),
        "{}",
        ls.stdout
    );
}

// 7. ls gives spare width to the project and the title.

#[test]
fn ls_shares_spare_width_between_project_and_title() {
    let store = Store::new();
    let projects = [
        "/home/dev/clients/acme-corporation/billing-service",
        "/home/dev/app",
        "/srv/infrastructure/terraform-modules",
    ];
    for (i, cwd) in projects.iter().enumerate() {
        let id = format!("0197{i:04}-0000-7000-8000-000000000001");
        let time = format!("2026-07-01T1{i}:00:00.000Z");
        let text = format!(
            "Task {i}: {}",
            "a long request that goes on and on ".repeat(8)
        );
        store.session(cwd, &id, &time, &[user("u1", None, &time, &text)]);
    }
    for width in [60, 80, 120, 200] {
        for sort in ["modified", "size"] {
            let r = store.run_width(width, &["ls", "--all", "--sort", sort]);
            assert_eq!(r.code, 0, "{}", r.stderr);
            assert!(widest(&r.stdout) <= width, "{width}:\n{}", r.stdout);
            let rows: Vec<&str> = r.stdout.lines().skip(1).collect();
            assert_eq!(rows.len(), 3, "{}", r.stdout);
            let head = r.stdout.lines().next().unwrap();
            for row in &rows {
                // A column shown has a cell on every row, where its heading starts.
                for column in ["CWD", "SIZE"] {
                    let Some(at) = head.find(column) else {
                        continue;
                    };
                    let cell = row.chars().nth(at).unwrap_or(' ');
                    assert_ne!(
                        cell, ' ',
                        "{width} {sort}: a row without its {column}:\n{}",
                        r.stdout
                    );
                }
            }
            if width == 200 {
                // Every project whole beside the titles, not cut to 12.
                for cwd in projects {
                    let shown = cwd.replacen("/home/dev", "~", 1);
                    assert!(r.stdout.contains(&shown), "{sort}:\n{}", r.stdout);
                }
            }
        }
    }
}

/// A copy of a session (a backup: same header id, a name that says more) leaves every row's id
/// short and the other columns shown: its whole id told it from nothing (issue 47).
#[test]
fn ls_keeps_short_ids_beside_a_copy() {
    let store = Store::new();
    let mut copied = PathBuf::new();
    for i in 0..3 {
        let id = format!("0199{i:04}-0000-7000-8000-000000000001");
        let time = format!("2026-07-01T1{i}:00:00.000Z");
        let path = store.session(
            "/home/dev/app",
            &id,
            &time,
            &[
                user("u1", None, &time, &format!("Task {i}")),
                assistant("a1", Some("u1"), &time, "gpt-5", json!("done")),
            ],
        );
        if i == 1 {
            copied = path;
        }
    }
    let backup = copied.with_file_name(format!(
        "{}-backup.jsonl",
        copied.file_stem().unwrap().to_str().unwrap()
    ));
    fs::copy(&copied, backup).unwrap();
    for width in [60, 80, 120, 200] {
        let r = store.run_width(width, &["ls"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(widest(&r.stdout) <= width, "{width}:\n{}", r.stdout);
        let rows: Vec<&str> = r.stdout.lines().skip(1).collect();
        assert_eq!(rows.len(), 4, "{}", r.stdout);
        assert!(!r.stdout.contains("-0000-7000"), "{width}:\n{}", r.stdout);
        if width >= 80 {
            assert!(r.stdout.contains("TOKENS"), "{width}:\n{}", r.stdout);
        }
        crate::snap!(format!("ls_copy_width_{width}"), r.stdout);
    }
}

/// A table sorted by a column keeps that column longest as it narrows: `--sort size` at 60
/// columns showed no size at all, ordered by something not shown (issue 47).
#[test]
fn ls_keeps_the_column_it_is_sorted_by() {
    let store = Store::new();
    for i in 0..3 {
        let id = format!("0198{i:04}-0000-7000-8000-000000000001");
        let time = format!("2026-07-01T1{i}:00:00.000Z");
        let text = format!("Task {i}: {}", "more words ".repeat(i * 40));
        store.session(
            "/home/dev/clients/acme-corporation/billing-service",
            &id,
            &time,
            &[user("u1", None, &time, &text)],
        );
    }
    for width in [60, 80, 120, 200] {
        for (sort, column) in [("size", "SIZE"), ("messages", "MESSAGES"), ("cost", "COST")] {
            let r = store.run_width(width, &["ls", "--all", "--sort", sort]);
            assert_eq!(r.code, 0, "{}", r.stderr);
            assert!(widest(&r.stdout) <= width, "{width}:\n{}", r.stdout);
            let head = r.stdout.lines().next().unwrap();
            assert!(head.contains(column), "{width} {sort}:\n{}", r.stdout);
            if sort == "size" {
                crate::snap!(format!("ls_sort_size_width_{width}"), r.stdout);
            }
        }
    }
}

// 8. Small things.

#[test]
fn small_things_a_new_user_meets() {
    let store = Store::new();
    // grep with no sessions at all says where it looked.
    let r = store.run(&["grep", "anything"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("no sessions to search in"),
        "{}",
        r.stderr
    );
    let r = store.run(&["grep", "--all", "anything"]);
    assert!(
        r.stderr.contains("no sessions to search in"),
        "{}",
        r.stderr
    );

    // Encrypted thinking: a label, never an empty `thinking:` line.
    let t = "2026-07-01T10:00:00.000Z";
    store.session(
        "/home/dev/app",
        "0198aaaa-0000-7000-8000-000000000001",
        t,
        &[
            user("u1", None, t, "think"),
            assistant(
                "a1",
                Some("u1"),
                t,
                "m",
                json!([{"type":"thinking","thinking":"","thinkingSignature":"gAAAAB-encrypted"},
                       {"type":"text","text":"done"}]),
            ),
        ],
    );
    let show = store.run(&["show", "0198aaaa"]);
    assert!(
        show.stdout.contains("[encrypted thinking]"),
        "{}",
        show.stdout
    );
    assert!(
        !show
            .stdout
            .lines()
            .any(|l| l.trim_end().ends_with("thinking:")),
        "{}",
        show.stdout
    );

    // -q quiets human lines, never JSON events.
    let r = store.run(&["-q", "rm", "--json", "--dry-run", "0198aaaa"]);
    let events: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["planned", "total"], "{}", r.stdout);

    // --idle-exit's error suggests a span, the only form it takes.
    let r = store.run(&["show", "-f", "--idle-exit", "5x", "0198aaaa"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("use 30s, 15m"), "{}", r.stderr);
    assert!(!r.stderr.contains("ISO date"), "{}", r.stderr);
}

#[test]
fn damaged_files_are_said_once() {
    let store = Store::new();
    let t = "2026-07-01T10:00:00.000Z";
    let mut paths = Vec::new();
    for i in 0..3 {
        let id = format!("0199{i:04}-0000-7000-8000-000000000001");
        let path = store.session("/home/dev/app", &id, t, &[user("u1", None, t, "hi")]);
        let mut text = fs::read_to_string(&path).unwrap();
        text.push_str("{\"type\":\"message\", broken\n");
        text.push_str("also not json\n");
        fs::write(&path, text).unwrap();
        paths.push(path);
    }
    // A listing says it once: how many, the first, and what lists them all.
    let ls = store.run(&["ls"]);
    assert_eq!(ls.code, 0, "{}", ls.stderr);
    assert_eq!(ls.stderr.lines().count(), 1, "{}", ls.stderr);
    assert!(
        ls.stderr.contains("3 files have damaged lines"),
        "{}",
        ls.stderr
    );
    assert!(ls.stderr.contains("'pisess check --all'"), "{}", ls.stderr);
    let stats = store.run(&["stats", "--by", "day"]);
    assert_eq!(stats.stderr.lines().count(), 1, "{}", stats.stderr);

    // A command on one session says the first line and how many more (issue 47: one line per
    // file, as ls); --verbose names each line, each once.
    let show = store.run(&["show", "01990001"]);
    assert_eq!(show.stderr.lines().count(), 1, "{}", show.stderr);
    assert!(
        show.stderr.contains(":3: ") && show.stderr.contains("and 1 more warning about"),
        "{}",
        show.stderr
    );
    let show = store.run(&["--verbose", "show", "01990001"]);
    let lines: Vec<&str> = show.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", show.stderr);
    assert!(
        lines[0].contains(":3: ") && lines[1].contains(":4: "),
        "{}",
        show.stderr
    );

    // check prints each finding once, on stdout, and no warning about it on stderr.
    let check = store.run(&["check", "01990001"]);
    assert_eq!(check.code, 1);
    assert_eq!(check.stderr, "", "{}", check.stderr);
    assert_eq!(
        check.stdout.matches(":3: malformed JSON").count(),
        1,
        "{}",
        check.stdout
    );
}

/// Cargo.toml's description names every command a user can run (it is what `cargo search` and
/// crates.io show, the first place a new user learns what pisess does).
#[test]
fn cargo_description_names_every_command() {
    let manifest = fs::read_to_string(crate::common::repo().join("Cargo.toml")).unwrap();
    let description = manifest
        .lines()
        .find_map(|l| l.strip_prefix("description = "))
        .unwrap();
    let cli = <pisess::app::cli::Cli as clap::CommandFactory>::command();
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        assert!(
            description.contains(&format!(" {name}")),
            "{name} missing from {description}"
        );
    }
}

// 9. grep -A/-B/-C: entries of context around a match.

#[test]
fn grep_shows_entries_of_context() {
    let store = Store::new();
    let t = |s: u32| format!("2026-07-01T10:00:{s:02}.000Z");
    let entries: Vec<Value> = (0..8)
        .map(|i| {
            let parent = (i > 0).then(|| format!("e{}", i - 1));
            let text = if i == 3 || i == 6 {
                format!("needle {i}")
            } else {
                format!("hay {i}\nsecond line")
            };
            user(&format!("e{i}"), parent.as_deref(), &t(i), &text)
        })
        .collect();
    store.session(
        "/home/dev/app",
        "019aaaaa-0000-7000-8000-000000000001",
        &t(0),
        &entries,
    );
    let r = store.run(&["grep", "-C", "1", "needle"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let body: Vec<&str> = r.stdout.lines().skip(1).map(str::trim_end).collect();
    assert_eq!(
        body,
        [
            "  e2- user  hay 2",
            "  e3  user  needle 3",
            "  e4- user  hay 4",
            "  e5- user  hay 5",
            "  e6  user  needle 6",
            "  e7- user  hay 7",
        ],
        "{}",
        r.stdout
    );
    let r = store.run(&["grep", "-A", "1", "-B", "0", "needle"]);
    let body: Vec<&str> = r.stdout.lines().skip(1).map(str::trim_end).collect();
    assert_eq!(
        body,
        [
            "  e3  user  needle 3",
            "  e4- user  hay 4",
            "  --",
            "  e6  user  needle 6",
            "  e7- user  hay 7"
        ],
        "{}",
        r.stdout
    );
    // Context is for people: with --json it is a usage error.
    let parsed = <pisess::app::cli::Cli as clap::Parser>::try_parse_from([
        "pisess", "grep", "--json", "-C", "1", "x",
    ]);
    assert!(parsed.is_err());
}

/// One file read under three spellings is one file in `stats`' files line (issue 47).
#[test]
fn stats_lists_a_file_once_under_each_spelling() {
    let store = Store::new();
    let reads: Vec<Value> = ["src/x.rs", "./src/x.rs", "/home/dev/app/src/x.rs", "/etc/hosts"]
        .iter()
        .enumerate()
        .map(|(n, p)| json!({"type":"toolCall","id":format!("c{n}"),"name":"read","arguments":{"path":p}}))
        .collect();
    store.session(
        "/home/dev/app",
        "0196f222-0000-7000-8000-000000000001",
        "2026-07-01T10:00:00.000Z",
        &[
            user("u1", None, "2026-07-01T10:00:01.000Z", "read it"),
            assistant(
                "a1",
                Some("u1"),
                "2026-07-01T10:00:02.000Z",
                "m",
                json!(reads),
            ),
        ],
    );
    let r = store.run(&["stats", "0196f222"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let files = &r.stdout[r.stdout.find("\nfiles\n").expect("a files block")..];
    let line = files
        .lines()
        .find(|l| l.trim_start().starts_with("read "))
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert_eq!(line.trim(), "read     /etc/hosts, src/x.rs", "{}", r.stdout);
}
