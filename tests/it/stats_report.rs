//! `stats` reports shaped for reading and for other programs (issue 47): two keys
//! (`--by day,model`, as ccusage's breakdown), `--sort`, `--top`, `--format csv|tsv`.

use std::fs;

use serde_json::Value;

use crate::common::{env_in, example_env, run, run_with};
use crate::snap;

fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect()
}

#[test]
fn by_day_and_model_fits_each_width() {
    for width in [60, 80, 120, 200] {
        let mut env = example_env();
        env.width = Some(width);
        let r = run_with(env, &["-q", "stats", "--all", "--by", "day,model"], b"");
        assert_eq!(r.code, 0, "{}", r.stderr);
        for line in r.stdout.lines() {
            assert!(
                pisess::views::style::width(line) <= width,
                "{width}: {line}"
            );
        }
        snap!(format!("stats_by_day_model_{width}"), r.stdout);
    }
}

#[test]
fn two_keys_split_the_one_key_rows_and_add_up_to_them() {
    let rows = |by: &str| json_lines(&run(&["-q", "stats", "--all", "--by", by, "--json"]).stdout);
    let pairs = rows("day,model");
    let (total, pairs) = pairs.split_last().unwrap();
    assert_eq!(total["total"], true);
    assert!(pairs.iter().all(|p| p["by"] == "day,model"));
    // Each pair names both keys; the rows of a day are that day's one-key row.
    for day in rows("day").iter().filter(|d| d["total"] == false) {
        let key = day["key"].as_str().unwrap();
        let mine: Vec<&Value> = pairs.iter().filter(|p| p["keys"][0] == key).collect();
        assert!(!mine.is_empty(), "{key}");
        for p in &mine {
            let keys = p["keys"].as_array().unwrap();
            assert_eq!(keys.len(), 2);
            assert_eq!(
                p["key"],
                format!(
                    "{} {}",
                    keys[0].as_str().unwrap(),
                    keys[1].as_str().unwrap()
                )
            );
        }
        let sum = |f: &dyn Fn(&Value) -> f64| mine.iter().map(|p| f(p)).sum::<f64>();
        let cost = sum(&|p| p["cost"].as_f64().unwrap());
        assert!((cost - day["cost"].as_f64().unwrap()).abs() < 1e-9, "{key}");
        let messages = sum(&|p| p["totalMessages"].as_f64().unwrap());
        assert_eq!(messages, day["totalMessages"].as_f64().unwrap(), "{key}");
    }
    // Grouped under the first key, days oldest first.
    let days: Vec<&str> = pairs
        .iter()
        .map(|p| p["keys"][0].as_str().unwrap())
        .collect();
    let mut sorted = days.clone();
    sorted.sort_unstable();
    assert_eq!(days, sorted);
    // A key twice, or a second key to tool or message, is a usage error.
    for by in ["day,day", "tool,day", "day,message", "day,model,project"] {
        let r = run(&["stats", "--all", "--by", by]);
        assert_eq!(r.code, 2, "{by}: {}", r.stderr);
    }
}

#[test]
fn sort_and_top_order_and_cut_the_rows_not_the_total() {
    let rows = |extra: &[&str]| {
        let mut args = vec!["-q", "stats", "--all", "--by", "day", "--json"];
        args.extend(extra);
        json_lines(&run(&args).stdout)
    };
    let all = rows(&[]);
    let by_cost = rows(&["--sort", "cost"]);
    assert_eq!(all.len(), by_cost.len());
    let costs: Vec<f64> = by_cost[..by_cost.len() - 1]
        .iter()
        .map(|r| r["cost"].as_f64().unwrap())
        .collect();
    assert!(costs.windows(2).all(|w| w[0] >= w[1]), "{costs:?}");
    let tokens = rows(&["--sort", "tokens", "--top", "3"]);
    assert_eq!(tokens.len(), 4);
    let t: Vec<f64> = tokens[..3]
        .iter()
        .map(|r| r["tokens"]["totalTokens"].as_f64().unwrap())
        .collect();
    assert!(t.windows(2).all(|w| w[0] >= w[1]), "{t:?}");
    // The total is the report's, whatever --top shows.
    assert_eq!(tokens.last().unwrap(), all.last().unwrap());
    // `date` is the key's order, by the name people ask for.
    let model_by_date = rows(&["--sort", "date"]);
    assert_eq!(model_by_date, all);
    // The human table says what --top left out.
    let r = run(&["-q", "stats", "--all", "--by", "model", "--top", "1"]);
    assert!(
        r.stdout.contains("more rows not shown: --top"),
        "{}",
        r.stdout
    );
    // --sort, --top and --format shape a report: not one session.
    let r = run(&["stats", "0196c9f4", "--top", "1"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

/// A session whose cwd and name are hostile to a table: a comma, quotes, a newline, a tab and
/// a leading `=` (a spreadsheet formula).
fn hostile_store() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions/--x--");
    fs::create_dir_all(&dir).unwrap();
    let cwd = "=HYPERLINK(\"http://x\"),a\"b\nc\td\\e";
    let header = serde_json::json!({"type":"session","version":3,"id":"cccc0001","timestamp":"2026-01-01T10:00:00.000Z","cwd":cwd});
    let user = r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T10:00:01.000Z","message":{"role":"user","content":"go"}}"#;
    let assistant = r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2026-01-01T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"p","model":"m","usage":{"input":100,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":110,"cost":{"total":0.25}},"stopReason":"stop"}}"#;
    fs::write(
        dir.join("cccc0001.jsonl"),
        format!("{header}\n{user}\n{assistant}\n"),
    )
    .unwrap();
    tmp
}

#[test]
fn csv_and_tsv_keep_hostile_text_as_data() {
    let tmp = hostile_store();
    let go = |format: &str| {
        let r = run_with(
            env_in(tmp.path(), "/p"),
            &[
                "stats",
                "--all",
                "--by",
                "project,model",
                "--format",
                format,
            ],
            b"",
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        r.stdout
    };
    let csv = go("csv");
    // RFC 4180: CRLF line ends, the hostile cell quoted whole with its quotes doubled, the
    // formula guard's `'` in front; numbers as JSON writes them.
    assert_eq!(
        csv,
        "project,model,sessions,userMessages,assistantMessages,toolCalls,toolResults,totalMessages,toolErrors,input,output,cacheRead,cacheWrite,totalTokens,cost,unpricedTokens\r\n\
         \"'=HYPERLINK(\"\"http://x\"\"),a\"\"b\nc\td\\e\",p/m,1,0,1,0,0,1,0,100,10,0,0,110,0.25,0\r\n\
         \"'=HYPERLINK(\"\"http://x\"\"),a\"\"b\nc\td\\e\",(no model),1,1,0,0,0,1,0,0,0,0,0,0,0,0\r\n"
    );
    let tsv = go("tsv");
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(lines.len(), 3, "{tsv}");
    let cells: Vec<&str> = lines[1].split('\t').collect();
    assert_eq!(cells[0], "=HYPERLINK(\"http://x\"),a\"b\\nc\\td\\\\e");
    assert_eq!(cells.len(), lines[0].split('\t').count());
    assert_eq!(cells[14], "0.25");
    // Not with --json (clap refuses the pair).
    let both = ["pisess", "stats", "--json", "--format", "csv"];
    assert!(<pisess::app::cli::Cli as clap::Parser>::try_parse_from(both).is_err());
}

/// The examples with one session copied beside itself (`<id>-backup.jsonl`, as a `cp` makes).
fn copied_store() -> (tempfile::TempDir, String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let from = crate::common::examples_agent_dir().join("sessions/--home-dev-webshop--");
    let dir = tmp.path().join("sessions/--home-dev-webshop--");
    fs::create_dir_all(&dir).unwrap();
    for f in fs::read_dir(&from).unwrap() {
        let f = f.unwrap().path();
        fs::copy(&f, dir.join(f.file_name().unwrap())).unwrap();
    }
    let id = "0196c9f4-6de3-72e6-909e-4956fe3ca2e7";
    let original = dir.join(format!("2025-05-13T14-02-41-507Z_{id}.jsonl"));
    let copy = dir.join(format!("{id}-backup.jsonl"));
    fs::copy(&original, &copy).unwrap();
    let s = |p: std::path::PathBuf| p.to_str().unwrap().to_owned();
    (tmp, s(original), s(copy))
}

#[test]
fn a_session_in_two_files_is_counted_once_and_both_are_named() {
    let (tmp, original, copy) = copied_store();
    let go = |args: &[&str]| run_with(env_in(tmp.path(), "/home/dev/webshop"), args, b"");
    let plain = run(&["-q", "stats", "--by", "session", "--json"]);
    let want = json_lines(&plain.stdout).pop().unwrap();
    let r = go(&["-q", "stats", "--by", "session", "--json"]);
    let mut rows = json_lines(&r.stdout);
    let total = rows.pop().unwrap();
    // The copy adds nothing: the same total as without it, one row for the session.
    assert_eq!(total, want);
    let mine: Vec<&Value> = rows
        .iter()
        .filter(|r| r["key"] == "0196c9f4-6de3-72e6-909e-4956fe3ca2e7")
        .collect();
    assert_eq!(mine.len(), 1, "{}", r.stdout);
    assert_eq!(mine[0]["path"], original.as_str());
    assert_eq!(mine[0]["copies"], serde_json::json!([copy]));
    assert!(rows
        .iter()
        .filter(|r| r["key"] != mine[0]["key"])
        .all(|r| r.get("copies").is_none()));
    // Every grouping counts it once.
    for by in ["day", "model", "project"] {
        let with = json_lines(&go(&["-q", "stats", "--by", by, "--json"]).stdout)
            .pop()
            .unwrap();
        let without = json_lines(&run(&["-q", "stats", "--by", by, "--json"]).stdout)
            .pop()
            .unwrap();
        assert_eq!(with, without, "{by}");
    }
    // The table marks the row, keeps its short id, and names both files under it.
    let human = go(&["-q", "stats", "--by", "session"]).stdout;
    let row = human
        .lines()
        .find(|l| l.starts_with("0196c9f4 "))
        .unwrap_or_else(|| panic!("{human}"));
    assert!(row.contains("(+1 copy) The cart shows"), "{row}");
    let note = human
        .lines()
        .find(|l| l.contains("is in 2 files"))
        .unwrap_or_else(|| panic!("{human}"));
    assert!(note.contains(&original) && note.contains(&copy), "{note}");
    assert!(
        note.find(&original) < note.find(&copy),
        "the file counted first: {note}"
    );
}
