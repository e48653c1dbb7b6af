//! The tally cache is a pure accelerator too: every `stats` report (human and `--json`, every
//! `--by`, several `--tz` and windows) gives, byte for byte, what it gives with `--no-cache`,
//! over a store changed between runs in every way a file can be (the store of `cache.rs`), with
//! the tally cache damaged now and then; and a warm report reads the cache, not the sessions.

use std::fs;

use pisess_format::model::Usage;
use pisess_store::tally::{ModelKey, Row};

use crate::cache::{cache_files, damage, env_for, same, Store};
use crate::common::run_with;

const REPORTS: [&[&str]; 14] = [
    &["stats", "--all", "--by", "day"],
    &[
        "stats",
        "--all",
        "--by",
        "day",
        "--json",
        "--tz",
        "Asia/Kolkata",
    ],
    &["stats", "--all", "--by", "week", "--tz", "America/New_York"],
    &["stats", "--all", "--by", "month", "--json"],
    &["stats", "--all", "--by", "model"],
    &[
        "stats",
        "--all",
        "--by",
        "model",
        "--json",
        "--tz",
        "Pacific/Kiritimati",
    ],
    &["stats", "--all", "--by", "project", "--json"],
    &["stats", "--all", "--by", "session", "--since", "2026-03-01"],
    &["stats", "--all", "--by", "session", "--json"],
    &["stats", "--all", "--by", "tool", "--json"],
    &[
        "stats",
        "--all",
        "--by",
        "message",
        "--json",
        "--until",
        "2026-05-01",
    ],
    &["stats", "--all", "--by", "message", "--tz", "UTC"],
    &["stats", "--by", "day", "--json"],
    &[
        "stats",
        "--all",
        "--json",
        "--since",
        "2026-02-01",
        "--until",
        "2026-06-01",
    ],
];

#[test]
fn stats_is_the_same_with_and_without_the_tally_cache_under_every_change() {
    for seed in [11u64, 12, 13] {
        let tmp = tempfile::tempdir().unwrap();
        let agent = tmp.path().join("agent");
        let cache = tmp.path().join("cache");
        let mut store = Store::new(&agent, seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        store.age(80);
        let mut history = Vec::new();
        let mut used = 0;
        for step in 0..30 {
            for _ in 0..1 + store.rng.below(3) {
                history.push(store.change());
            }
            if store.rng.chance(70) {
                store.age(80);
            }
            if store.rng.chance(30) {
                history.extend(damage(&cache, "tallies", &mut store.rng));
            }
            let context = format!("seed {seed} step {step}: {}", history.join(", "));
            // Twice: the first run may read and write, the second reads what it wrote.
            for (i, args) in REPORTS.iter().enumerate() {
                // Not every report every step: each one often enough, the test in seconds.
                if (i + step) % 3 != 0 {
                    continue;
                }
                same(&agent, &cache, args, &context);
                same(&agent, &cache, args, &context);
            }
            used += usize::from(!cache_files(&cache, "tallies").is_empty());
        }
        assert!(
            used > 20,
            "the tally cache was hardly ever written ({used})"
        );
        assert!(
            !cache.join("summaries").exists(),
            "stats wrote the summary cache"
        );
    }
}

/// A warm report takes each unchanged session from the cache: a record forged (with its key
/// kept, as a writer of the cache can) shows in `stats`, where `--no-cache` reads the file;
/// a record whose file changed since is not used.
#[test]
fn a_warm_report_reads_the_cache_not_the_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let agent = tmp.path().join("agent");
    let cache = tmp.path().join("cache");
    let mut store = Store::new(&agent, 5);
    store.age(100);
    let env = || env_for(&agent, Some(&cache));
    let args = ["stats", "--all", "--by", "model", "--json"];
    let first = run_with(env(), &args, b"");
    assert_eq!(first.code, 0, "{first:?}");
    assert!(
        !cache_files(&cache, "tallies").is_empty(),
        "no tally cache written"
    );
    let path = store.files[0].0.clone();
    let dir = pisess_store::cache::CacheDir::new(cache.clone());
    assert!(pisess_store::cache::tallies::forge(
        &dir,
        &path,
        None,
        |_, tally| {
            tally.models.push(ModelKey {
                provider: Some("forged".into()),
                model: Some("model".into()),
                key: "forged/model".into(),
            });
            tally.rows.push(Row {
                id: Some("forged".into()),
                ts_ms: Some(1_767_225_600_000),
                role: "assistant".into(),
                message: true,
                model: Some(tally.models.len() as u32 - 1),
                usage: Some(Usage {
                    cost: 1_000_000.0,
                    ..Usage::default()
                }),
                tool: None,
                calls: Vec::new(),
                is_error: None,
                stop_reason: None,
                answers: None,
                active: false,
            });
        }
    ));
    let warm = run_with(env(), &args, b"");
    let plain = run_with(
        env(),
        &["--no-cache", "stats", "--all", "--by", "model", "--json"],
        b"",
    );
    assert_eq!(plain.stdout, first.stdout, "{plain:?}");
    assert!(
        warm.stdout.contains("forged/model") && warm.stdout.contains("1000000"),
        "the warm run read the session, not its record:\n{}",
        warm.stdout
    );
    assert!(!plain.stdout.contains("forged"));
    // `check`, which decides, reads the file.
    let check = run_with(env(), &["check", "--all", "--max-cost", "1000"], b"");
    let plain_check = run_with(
        env(),
        &["--no-cache", "check", "--all", "--max-cost", "1000"],
        b"",
    );
    assert_eq!(
        (check.code, &check.stdout),
        (plain_check.code, &plain_check.stdout),
        "the forged record steered check"
    );
    // The file changes: its record no longer vouches for it.
    let mut text = fs::read(&path).unwrap();
    text.extend_from_slice(b"\n");
    fs::write(&path, &text).unwrap();
    let after = run_with(env(), &args, b"");
    let plain = run_with(
        env(),
        &["--no-cache", "stats", "--all", "--by", "model", "--json"],
        b"",
    );
    assert_eq!(after.stdout, plain.stdout);
}

/// What follows a tally file's index (each record's first message and the rest of its tally,
/// read only by `--by session` and `--by message`) is checked record by record: a byte changed
/// there is passed over (that session is read instead), and a report by day, which reads the
/// index alone, still reads the cache.
#[test]
fn a_damaged_record_after_the_index_is_read_from_its_file() {
    let tmp = tempfile::tempdir().unwrap();
    let agent = tmp.path().join("agent");
    let cache = tmp.path().join("cache");
    let mut store = Store::new(&agent, 7);
    store.age(100);
    let env = || env_for(&agent, Some(&cache));
    let reports: [&[&str]; 4] = [
        &["stats", "--all", "--by", "session", "--json"],
        &["stats", "--all", "--by", "session"],
        &["stats", "--all", "--by", "message", "--json"],
        &["stats", "--all", "--by", "day", "--json"],
    ];
    for args in reports {
        let plain = run_with(env(), &[&["--no-cache"], args].concat(), b"");
        // Written, read, then read again after each file's last byte is changed.
        for damaged in [false, false, true] {
            if damaged {
                for file in cache_files(&cache, "tallies") {
                    let mut bytes = fs::read(&file).unwrap();
                    *bytes.last_mut().unwrap() ^= 0x5a;
                    fs::write(&file, &bytes).unwrap();
                }
            }
            let warm = run_with(env(), args, b"");
            assert_eq!(warm.code, 0, "{args:?}: {warm:?}");
            assert_eq!(warm.stdout, plain.stdout, "{args:?}, damaged {damaged}");
            assert!(!warm.stderr.contains("panicked"), "{warm:?}");
        }
    }
}
