//! `tree`: pi's `/tree` drawing of the example sessions, its filter modes, the JSON form checked
//! against an independent walk of the file, cycles, deep chains and terminal width.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;

use serde_json::Value;

use crate::common::{example_env, run, run_with, Run};
use crate::show::{all_examples, example, temp_session, HEADER};
use crate::snap;

fn ok(args: &[&str]) -> Run {
    let r = run(args);
    assert_eq!(r.code, 0, "pisess {args:?}: {}", r.stderr);
    r
}

fn tree(id: &str, extra: &[&str]) -> String {
    let path = example(id);
    let mut args = vec!["tree", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    ok(&args).stdout
}

#[test]
fn linear_session_leaf_hidden_by_the_filter() {
    // The leaf is a label entry, hidden by default: `← active` marks its nearest shown ancestor.
    snap!("tree_linear", tree("0196c3c5", &[]));
    snap!("tree_linear_all", tree("0196c3c5", &["--filter", "all"]));
}

#[test]
fn branched_session_active_branch_first() {
    snap!("tree_branched", tree("0196c9f4", &[]));
    snap!(
        "tree_branched_no_tools",
        tree("0196c9f4", &["--filter", "no-tools"])
    );
    snap!(
        "tree_branched_user_only",
        tree("0196c9f4", &["--filter", "user-only"])
    );
}

#[test]
fn compacted_sessions() {
    snap!("tree_compacted", tree("0196cdea", &[]));
    snap!("tree_retain_none", tree("0196d4d5", &["--filter", "all"]));
}

#[test]
fn labelled_entries() {
    // Without the final line (which clears it) the label is current.
    let text = fs::read_to_string(example("0196c3c5")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let kept = lines[..lines.len() - 1].join("\n") + "\n";
    let tree = |filter: &str| {
        let r = run_with(
            example_env(),
            &["tree", "-", "--filter", filter],
            kept.as_bytes(),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    snap!("tree_labelled", tree("default"));
    snap!("tree_labeled_only", tree("labeled-only"));
}

#[test]
fn version_1_and_2() {
    snap!("tree_v1", tree("01944689", &[]));
    snap!("tree_v2", tree("0194cb09", &["--filter", "all"]));
}

#[test]
fn seed_000_dialect() {
    snap!("tree_seed000", tree("0196f3a2", &["--filter", "all"]));
}

#[test]
fn several_roots_and_an_orphan() {
    let path = example("01957fed");
    let r = ok(&["tree", path.to_str().unwrap(), "--filter", "all"]);
    snap!("tree_roots", r.stdout);
    assert!(
        r.stderr
            .contains(":9: entry 48b3f6fa names a parent 0badc0de that is not in the file"),
        "{}",
        r.stderr
    );
}

#[test]
fn other_examples_draw() {
    snap!(
        "tree_images_bash_custom",
        tree("0196dfb0", &["--filter", "all"])
    );
    snap!("tree_context_edits", tree("0196d88e", &["--filter", "all"]));
    snap!("tree_unicode", tree("0196e317", &[]));
}

#[test]
fn json_of_the_branched_session() {
    let rows = json_rows(&tree("0196c9f4", &["--json"]));
    snap!(
        "tree_branched_json",
        serde_json::to_string_pretty(&rows).unwrap()
    );
    // Display order: the human tree's rows, read back through `--ids`.
    let human = tree("0196c9f4", &["--ids"]);
    let human_ids: Vec<&str> = human
        .lines()
        .map(|l| {
            let l = l.trim_start_matches([' ', '│', '├', '└', '─', '•']);
            l.split(' ').next().unwrap()
        })
        .collect();
    let json_ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(human_ids, json_ids);
    // The one `← active` row is the one `leaf` row.
    let marked = human.lines().position(|l| l.ends_with("← active"));
    assert_eq!(marked, rows.iter().position(|r| r["leaf"] == true));
    assert_eq!(rows.iter().filter(|r| r["leaf"] == true).count(), 1);
}

/// `tree --json`: one object a line, every line one object.
fn json_rows(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).expect("every line is one JSON object"))
        .collect()
}

#[test]
fn ids_are_printed_before_each_entry() {
    let plain = tree("0196c9f4", &[]);
    let with_ids = tree("0196c9f4", &["--ids"]);
    let rows = json_rows(&tree("0196c9f4", &["--json"]));
    assert_eq!(plain.lines().count(), with_ids.lines().count());
    for ((p, w), r) in plain.lines().zip(with_ids.lines()).zip(&rows) {
        let id = r["id"].as_str().unwrap();
        // The same row with `ID ` inserted after the connectors and the active marker.
        let cut = p.len() - p.trim_start_matches([' ', '│', '├', '└', '─', '•']).len();
        assert_eq!(w, format!("{}{id} {}", &p[..cut], &p[cut..]), "{w}");
    }
}

/// What the file says, walked here without pisess: entries with ids, their parents, and which
/// of them `--filter all` hides (usage entries; assistant messages without text that are not
/// the leaf and did not end in an error or abort), hidden ones' children re-attached to the
/// nearest shown ancestor.
fn expected_edges(text: &str) -> (Edges, String) {
    let entries: Vec<Value> = text
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|v: &Value| v.is_object())
        .collect();
    let leaf = entries.last().unwrap()["id"].as_str().unwrap().to_owned();
    let parent: HashMap<&str, Option<&str>> = entries
        .iter()
        .map(|e| (e["id"].as_str().unwrap(), e["parentId"].as_str()))
        .collect();
    let hidden: HashMap<&str, bool> = entries
        .iter()
        .map(|e| {
            let m = &e["message"];
            let texty = m["content"].as_array().is_some_and(|blocks| {
                blocks.iter().any(|b| {
                    b["type"] == "text" && b["text"].as_str().is_some_and(|t| !t.trim().is_empty())
                })
            }) || m["content"].as_str().is_some_and(|t| !t.trim().is_empty());
            let normal_stop = matches!(m["stopReason"].as_str(), None | Some("stop" | "toolUse"));
            let id = e["id"].as_str().unwrap();
            let tool_only =
                e["type"] == "message" && m["role"] == "assistant" && !texty && normal_stop;
            (id, e["type"] == "usage" || (tool_only && id != leaf))
        })
        .collect();
    let mut edges = BTreeSet::new();
    for (&id, _) in hidden.iter().filter(|(_, &h)| !h) {
        let mut up = parent[id];
        // Up past hidden entries; a parent not in the file makes a root.
        while let Some(p) = up {
            match hidden.get(p) {
                Some(false) => break,
                Some(true) => up = parent[p],
                None => up = None,
            }
        }
        edges.insert((up.map(str::to_owned), id.to_owned()));
    }
    (edges, leaf)
}

/// (parent, child) pairs: a tree's shape.
type Edges = BTreeSet<(Option<String>, String)>;

/// The edges of `tree --json`, every id in it (each must appear once) and the active flags.
/// Checks on the way that the rows are a pre-order walk: a parent comes before its children,
/// `depth` is its parent's plus one, and `children` counts the rows that name it as parent.
fn json_edges(rows: &[Value]) -> (Edges, Vec<String>, BTreeMap<String, bool>) {
    let mut edges = BTreeSet::new();
    let mut ids = Vec::new();
    let mut active = BTreeMap::new();
    let mut depth: HashMap<String, u64> = HashMap::new();
    let mut children: HashMap<String, u64> = HashMap::new();
    for row in rows {
        let id = row["id"].as_str().unwrap().to_owned();
        let parent = row["parentId"].as_str().map(str::to_owned);
        let want_depth = parent.as_ref().map_or(0, |p| depth[p] + 1);
        assert_eq!(row["depth"], want_depth, "{row}");
        if let Some(p) = &parent {
            *children.get_mut(p).expect("the parent's row came first") += 1;
        }
        depth.insert(id.clone(), want_depth);
        children.insert(id.clone(), 0);
        edges.insert((parent, id.clone()));
        ids.push(id.clone());
        active.insert(id.clone(), row["active"].as_bool().unwrap());
    }
    for row in rows {
        assert_eq!(
            row["children"],
            children[row["id"].as_str().unwrap()],
            "{row}"
        );
    }
    (edges, ids, active)
}

#[test]
fn json_shape_matches_an_independent_walk_of_the_file() {
    let mut checked = 0;
    for path in all_examples() {
        let text = fs::read_to_string(&path).unwrap();
        let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        // v1 files have no ids to compare and seed-000 files are mapped first; the damaged
        // example is covered by its own tests.
        let parsable = text
            .lines()
            .all(|l| serde_json::from_str::<Value>(l).is_ok());
        if header["type"] != "session" || header["version"].as_u64() < Some(2) || !parsable {
            continue;
        }
        let r = ok(&["tree", path.to_str().unwrap(), "--filter", "all", "--json"]);
        let rows = json_rows(&r.stdout);
        let (want, leaf) = expected_edges(&text);
        let (got, ids, active) = json_edges(&rows);
        assert_eq!(got, want, "{}", path.display());
        let unique: BTreeSet<&String> = ids.iter().collect();
        assert_eq!(
            unique.len(),
            ids.len(),
            "each entry once: {}",
            path.display()
        );
        // `leaf` marks the leaf itself when it is shown (`--filter all` hides only usage
        // entries and tool-only assistant messages that are not the leaf).
        let leaf_rows: Vec<&Value> = rows.iter().filter(|r| r["leaf"] == true).collect();
        assert_eq!(leaf_rows.len(), 1, "{}", path.display());
        if ids.contains(&leaf) {
            assert_eq!(leaf_rows[0]["id"], leaf.as_str(), "{}", path.display());
        }
        assert_eq!(leaf_rows[0]["active"], true);
        // Active: the leaf and its ancestors, nothing else.
        let parents: HashMap<String, Option<String>> = text
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|e| {
                (
                    e["id"].as_str().unwrap().to_owned(),
                    e["parentId"].as_str().map(str::to_owned),
                )
            })
            .collect();
        let mut on_path = BTreeSet::new();
        let mut cur = Some(leaf);
        while let Some(id) = cur.filter(|id| parents.contains_key(id)) {
            cur = parents[&id].clone();
            on_path.insert(id);
        }
        for (id, is_active) in active {
            assert_eq!(
                is_active,
                on_path.contains(&id),
                "{id} in {}",
                path.display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 9, "only {checked} examples walked");
}

#[test]
fn a_parent_cycle_is_cut_with_a_warning() {
    let e = |id: &str, parent: &str, s: u32| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:{s:02}.000Z","message":{{"role":"user","content":"{id}"}}}}"#
        )
    };
    let (_tmp, path) = temp_session(&[
        HEADER,
        &e("a", r#""b""#, 1),
        &e("b", r#""a""#, 2),
        &e("c", r#""a""#, 3),
    ]);
    let r = ok(&["tree", &path]);
    assert_eq!(
        r.stdout, "• user: a\n├─ • user: c ← active\n└─ user: b\n",
        "the cycle is cut at its first entry, which becomes the root"
    );
    assert!(
        r.stderr
            .contains(":2: parent cycle through 2 entries; entry a is shown as a root"),
        "{}",
        r.stderr
    );
    let rows = json_rows(&ok(&["tree", &path, "--json"]).stdout);
    assert_eq!(rows.iter().filter(|r| r["parentId"].is_null()).count(), 1);
    assert_eq!(rows.len(), 3);
}

#[test]
fn a_deep_chain_neither_recurses_nor_drifts_right() {
    const N: usize = 100_000;
    let mut lines = vec![HEADER.to_owned()];
    for k in 0..N {
        let parent = if k == 0 {
            "null".to_owned()
        } else {
            format!("\"n{}\"", k - 1)
        };
        lines.push(format!(
            r#"{{"type":"message","id":"n{k}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"m{k}"}}}}"#
        ));
    }
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (_tmp, path) = temp_session(&refs);
    let json = ok(&["tree", &path, "--json"]).stdout;
    // Flat: every row parses on its own, however deep the chain.
    let rows = json_rows(&json);
    assert_eq!(rows.len(), N);
    let last = &rows[N - 1];
    assert_eq!(
        (&last["id"], &last["parentId"]),
        (&"n99999".into(), &"n99998".into())
    );
    assert_eq!(last["depth"], N - 1);
    assert!(json.lines().all(|l| l.len() < 300), "no row holds another");
    // jq (1.6 failed from about 90 levels of the nested form) reads it whole.
    if let Some(out) = jq(
        &json,
        &["-s", "-c", "[length, (map(.depth) | max), .[-1].leaf]"],
    ) {
        assert_eq!(out, format!("[{N},{},true]\n", N - 1));
    }
    let human = ok(&["tree", &path]).stdout;
    assert_eq!(human.lines().count(), N);
    assert!(human.lines().all(|l| l.starts_with("• user: m")));
}

#[test]
fn rows_are_cut_to_the_terminal_width() {
    let mut env = example_env();
    env.width = Some(40);
    let path = example("0196c9f4");
    let r = run_with(env, &["tree", path.to_str().unwrap()], b"");
    assert_eq!(r.code, 0);
    for line in r.stdout.lines() {
        assert!(
            unicode_width::UnicodeWidthStr::width(line) <= 40,
            "{line:?}"
        );
    }
    snap!("tree_branched_width_40", r.stdout);
}

#[test]
fn colour_marks_the_active_path_bold() {
    let path = example("0196c9f4");
    let r = ok(&["tree", path.to_str().unwrap(), "--color", "always"]);
    let active_row = r
        .stdout
        .lines()
        .find(|l| l.contains("Prices are now"))
        .unwrap();
    assert!(active_row.contains("\u{1b}[1m"), "{active_row:?}");
    let other_row = r
        .stdout
        .lines()
        .find(|l| l.contains("Try rounding"))
        .unwrap();
    assert!(!other_row.contains("\u{1b}[1m"), "{other_row:?}");
}

#[test]
fn empty_session() {
    let (_tmp, path) = temp_session(&[HEADER]);
    assert_eq!(ok(&["tree", &path]).stdout, "(no entries)\n");
    assert_eq!(
        ok(&["tree", &path, "--json"]).stdout,
        "",
        "no entries, no rows"
    );
}

/// `jq ARGS` on `input`, or `None` when jq is not installed (the shape is checked without it).
fn jq(input: &str, args: &[&str]) -> Option<String> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = match Command::new("jq")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(_) => {
            crate::common::missing_tool("jq (the rows were checked with serde_json alone)");
            return None;
        }
    };
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "jq failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8(out.stdout).unwrap())
}

/// issue 42: `tree` of a session retried at every turn printed rows as wide as the tree is deep,
/// an output quadratic in the depth (8,000 retries in 2.6 MB printed 320 MB; 3,000 here printed
/// ~40 MB on 63e6fc9). Capped at 40 levels, the output grows with the number of entries.
#[test]
fn deep_retries_print_output_linear_in_the_file() {
    let entry = |id: &str, parent: &str, text: &str, ts: usize| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.{:03}Z","message":{{"role":"user","content":"{text}"}}}}"#,
            ts % 1000
        )
    };
    let mut lines = vec![HEADER.to_owned(), entry("n0", "null", "start", 0)];
    for k in 1..3_000 {
        let parent = format!("\"n{}\"", k - 1);
        lines.push(entry(&format!("r{k}"), &parent, "retry", k));
        lines.push(entry(&format!("n{k}"), &parent, "go on", k));
    }
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let (_tmp, path) = temp_session(&refs);
    let size = fs::metadata(&path).unwrap().len();
    let out = ok(&["tree", &path]).stdout;
    assert_eq!(out.lines().count(), lines.len() - 1);
    // 40 levels of at most 5 bytes, `+N `, the marker and the text: a few hundred bytes a row.
    assert!(out.lines().all(|l| l.len() < 300), "a row over 300 bytes");
    assert!(
        (out.len() as u64) < 3 * size,
        "{} bytes from a {size}-byte file",
        out.len()
    );
    assert!(
        out.contains("+2959 "),
        "the deepest rows say the levels left out"
    );
}
