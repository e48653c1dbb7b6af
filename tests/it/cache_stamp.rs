//! Issue 42: the summary and tally caches are stamped with a hash of the code that fills them
//! (build.rs), not with the version alone: a cache a build of other code wrote, of the same
//! version, is not served (the output is the cold one) and is written again under this build's
//! stamp. On 63e6fc9 the stamp was the version and the time zone, so a fix shipped without a
//! version bump was served the summaries the old code made.

use std::fs;
use std::path::PathBuf;

use pisess_store::cache::{forge, tallies, this_stamp, CacheDir};
use serde_json::json;

use crate::cache::{env_for, PROJECTS};
use crate::common::run_with;

/// A session of this project in `tmp`'s agent dir, an hour old (its key alone vouches).
fn session(tmp: &std::path::Path) -> PathBuf {
    let dir = tmp
        .join("agent/sessions")
        .join(pisess_store::locate::encode_cwd(PROJECTS[0]));
    fs::create_dir_all(&dir).unwrap();
    let lines = [
        json!({"type":"session","version":3,"id":"stamp","timestamp":"2026-01-01T00:00:00.000Z","cwd":PROJECTS[0]}),
        json!({"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z",
               "message":{"role":"user","content":"fresh","timestamp":1_767_225_600_000_i64}}),
        json!({"type":"message","id":"a","parentId":"u","timestamp":"2026-01-01T00:00:01.000Z",
               "message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"p","model":"m",
               "stopReason":"stop","usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,
               "cost":{"total":2.5}},"timestamp":1_767_225_601_000_i64}}),
    ];
    let path = dir.join("2026-01-01T00-00-00-000Z_stamp.jsonl");
    fs::write(
        &path,
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    path
}

/// This build's stamp with another code hash: what a build of other code, of the same version,
/// in the same time zone, writes.
fn other_codes_stamp() -> String {
    let ours = this_stamp();
    let other = ours.replace(pisess_store::cache::key::CODE_HASH, "0123456789abcdef");
    assert_ne!(other, ours, "the stamp holds the code hash: {ours}");
    other
}

#[test]
fn a_summary_cache_of_other_code_is_not_served() {
    let tmp = tempfile::tempdir().unwrap();
    let path = session(tmp.path());
    let cache = tmp.path().join("cache");
    let run = || {
        run_with(
            env_for(&tmp.path().join("agent"), Some(&cache)),
            &["ls", "--all", "--json"],
            b"",
        )
    };
    let cold = run();
    assert_eq!(cold.code, 0, "{}", cold.stderr);
    let dir = CacheDir::new(cache.clone());
    // The other code summarized the session otherwise.
    assert!(forge(&dir, &path, Some(&other_codes_stamp()), |s| {
        s.name = Some("stale".into());
        s.message_count = 99;
    }));
    let warm = run();
    assert_eq!(warm.code, 0, "{}", warm.stderr);
    assert_eq!(
        warm.stdout, cold.stdout,
        "the other code's summary was served"
    );
    // Written again under this build's stamp: a record this build reads.
    assert!(
        forge(&dir, &path, None, |_| {}),
        "the cache file was not rewritten"
    );
}

#[test]
fn a_tally_cache_of_other_code_is_not_served() {
    let tmp = tempfile::tempdir().unwrap();
    let path = session(tmp.path());
    let cache = tmp.path().join("cache");
    let run = || {
        run_with(
            env_for(&tmp.path().join("agent"), Some(&cache)),
            &["stats", "--all", "--by", "model", "--json"],
            b"",
        )
    };
    let cold = run();
    assert_eq!(cold.code, 0, "{}", cold.stderr);
    let dir = CacheDir::new(cache.clone());
    assert!(tallies::forge(
        &dir,
        &path,
        Some(&other_codes_stamp()),
        |s, t| {
            s.usage.cost = 0.01;
            for r in &mut t.rows {
                if let Some(u) = &mut r.usage {
                    u.cost = 0.01;
                }
            }
        }
    ));
    let warm = run();
    assert_eq!(warm.code, 0, "{}", warm.stderr);
    assert_eq!(
        warm.stdout, cold.stdout,
        "the other code's tally was served"
    );
    assert!(
        tallies::forge(&dir, &path, None, |_, _| {}),
        "the cache file was not rewritten"
    );
}
