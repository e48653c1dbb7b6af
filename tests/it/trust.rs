//! What `rm`, `check` and `grep` decide is the session files' word, never the summary cache's:
//! each cache here is forged through the crate's own cache code (a record edited, stored with
//! every checksum recomputed, as anyone who can write the cache can), and each command still
//! does what it does with `--no-cache`. And `check`'s reports never land on a session.

use std::fs;
use std::path::{Path, PathBuf};

use pisess::app::env::Env;
use pisess_store::cache::{forge, CacheDir};
use pisess_store::summary::Summary;
use serde_json::{json, Value};
use tempfile::TempDir;

use crate::cache::{env_for, Store, PROJECTS};
use crate::common::{run_with, Run, NOW_MS};

const DAY: i64 = 86_400_000;

/// A store of this project (`PROJECTS[0]`) and a summary cache, in a temp dir.
struct Fx {
    tmp: TempDir,
}

impl Fx {
    fn new() -> Fx {
        Fx {
            tmp: tempfile::tempdir().unwrap(),
        }
    }

    fn agent(&self) -> PathBuf {
        self.tmp.path().join("agent")
    }

    fn cache(&self) -> PathBuf {
        self.tmp.path().join("cache")
    }

    fn project(&self) -> PathBuf {
        self.agent()
            .join("sessions")
            .join(pisess_store::locate::encode_cwd(PROJECTS[0]))
    }

    fn env(&self) -> Env {
        env_for(&self.agent(), Some(&self.cache()))
    }

    fn run(&self, args: &[&str]) -> Run {
        run_with(self.env(), args, b"")
    }

    /// A session of this project: one user message per time in `messages` (saying `said`),
    /// an assistant reply costing `cost`, and a name.
    fn session(&self, id: &str, messages: &[i64], said: &str, cost: f64, name: &str) -> PathBuf {
        let dir = self.project();
        fs::create_dir_all(&dir).unwrap();
        let mut lines = vec![json!({"type": "session", "version": 3, "id": id,
            "timestamp": "2026-01-01T00:00:00.000Z", "cwd": PROJECTS[0]})];
        let mut parent = Value::Null;
        for (i, ms) in messages.iter().enumerate() {
            let user = format!("u{i}");
            lines.push(json!({"type": "message", "id": user, "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": {"role": "user", "content": said, "timestamp": ms}}));
            let reply = format!("a{i}");
            lines.push(json!({"type": "message", "id": reply, "parentId": user,
                "timestamp": "2026-01-01T00:00:01.000Z",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                    "provider": "anthropic", "model": "m", "stopReason": "stop",
                    "usage": {"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0,
                        "totalTokens": 15, "cost": {"total": cost}},
                    "timestamp": ms}}));
            parent = json!(reply);
        }
        lines.push(
            json!({"type": "session_info", "id": "n", "parentId": parent,
            "timestamp": "2026-01-01T00:00:02.000Z", "name": name}),
        );
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let path = dir.join(format!("2026-01-01T00-00-00-000Z_{id}.jsonl"));
        fs::write(&path, text).unwrap();
        settle(&path);
        path
    }

    /// Fills the cache (a listing writes it), then forges `path`'s record.
    fn forge(&self, path: &Path, edit: impl FnOnce(&mut Summary)) {
        assert_eq!(self.run(&["ls", "--all"]).code, 0);
        let dir = CacheDir::new(self.cache());
        assert!(
            forge(&dir, path, None, edit),
            "no record of {}",
            path.display()
        );
    }
}

/// An hour into the past: a file the cache trusts by its key (not being written).
fn settle(path: &Path) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

#[test]
fn a_forged_cache_does_not_make_rm_empty_remove_a_session_with_messages() {
    let fx = Fx::new();
    let full = fx.session("full", &[NOW_MS - DAY], "keep me", 0.1, "full");
    // No name either: a named session is not empty (issue 42, `rm --empty`).
    let empty = fx.session("empty", &[], "", 0.0, "");
    fx.forge(&full, |s| s.message_count = 0);
    // The forgery shows where only display follows the cache.
    assert!(fx.run(&["ls"]).stdout.contains("full"));
    let r = fx.run(&["rm", "--empty", "--permanent", "-y"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(full.is_file(), "a session with messages was removed: {r:?}");
    assert!(!empty.exists());
}

#[test]
fn a_forged_cache_does_not_make_rm_older_than_remove_a_recent_session() {
    let fx = Fx::new();
    let recent = fx.session("recent", &[NOW_MS - DAY], "new", 0.1, "recent");
    let old = fx.session("old", &[NOW_MS - 90 * DAY], "old", 0.1, "old");
    fx.forge(&recent, |s| s.modified_ms = NOW_MS - 90 * DAY);
    let r = fx.run(&["rm", "--older-than", "30d", "--permanent", "-y"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(recent.is_file(), "a recent session was removed: {r:?}");
    assert!(!old.exists());
}

#[test]
fn a_forged_name_in_the_cache_does_not_choose_what_rm_removes() {
    let fx = Fx::new();
    let precious = fx.session("precious", &[NOW_MS - DAY], "a", 1.0, "precious");
    let scratch = fx.session("scratch", &[NOW_MS - DAY], "b", 1.0, "scratch");
    fx.forge(&precious, |s| s.name = Some("scratch".into()));
    let dir = CacheDir::new(fx.cache());
    assert!(forge(&dir, &scratch, None, |s| s.name = Some("other".into())));
    let r = fx.run(&["rm", "-y", "--permanent", "scratch"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        precious.is_file(),
        "the session named precious was removed: {r:?}"
    );
    assert!(!scratch.exists(), "{r:?}");
}

#[test]
fn a_forged_cost_in_the_cache_does_not_pass_check_max_cost() {
    let fx = Fx::new();
    let dear = fx.session("dear", &[NOW_MS - DAY], "spend", 50.0, "dear");
    fx.forge(&dear, |s| s.usage.cost = 0.01);
    let r = fx.run(&["check", "--all", "--max-cost", "1"]);
    assert_eq!(r.code, 1, "a $50 run passed --max-cost 1: {r:?}");
    assert!(r.stdout.contains("$50"), "{r:?}");
}

#[test]
fn check_reports_are_never_written_over_a_session_or_into_the_sessions_folder() {
    let fx = Fx::new();
    let session = fx.session("judged", &[NOW_MS - DAY], "q", 0.1, "judged");
    let other = fx.session("other", &[NOW_MS - DAY], "q", 0.1, "other");
    let before = fs::read(&session).unwrap();
    let link = fx.tmp.path().join("link.xml");
    std::os::unix::fs::symlink(&session, &link).unwrap();
    let inside = fx.project().join("report.xml");
    let arg = session.display().to_string();
    let targets = [
        (session.clone(), "a session this run reads"),
        (link.clone(), "a session this run reads"),
        (inside.clone(), "inside the sessions folder"),
        // Not read by this run, but a session all the same.
        (other.clone(), "inside the sessions folder"),
    ];
    for (file, why) in &targets {
        for flag in ["--junit", "--summary"] {
            let file_arg = file.display().to_string();
            let r = fx.run(&["check", &arg, flag, &file_arg]);
            assert_eq!(r.code, 2, "{flag} {file_arg}: {r:?}");
            assert!(r.stdout.is_empty(), "judged before refusing: {r:?}");
            assert_eq!(r.stderr.lines().count(), 1, "{r:?}");
            assert!(
                r.stderr.contains("not writing the report") && r.stderr.contains(why),
                "{r:?}"
            );
        }
    }
    assert_eq!(fs::read(&session).unwrap(), before);
    assert!(!inside.exists());
    // A session outside every sessions folder, not read by this run: still refused.
    let copy = fx.tmp.path().join("copy.jsonl");
    fs::copy(&session, &copy).unwrap();
    let r = fx.run(&["check", &arg, "--junit", &copy.display().to_string()]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("holds a pi session"), "{r:?}");
    // Elsewhere the report is written, and --summary still appends.
    let summary = fx.tmp.path().join("summary.md");
    fs::write(&summary, "earlier step\n").unwrap();
    let r = fx.run(&["check", &arg, "--summary", &summary.display().to_string()]);
    assert_eq!(r.code, 0, "{r:?}");
    let text = fs::read_to_string(&summary).unwrap();
    assert!(text.starts_with("earlier step\n") && text.contains("pisess check"));
}

/// Random forgeries whose checksums are consistent: every decision `rm`, `check` and `grep`
/// make (rm's plan and what it removes, check's verdict, grep's matches) is the one they make
/// with `--no-cache`.
#[test]
fn decisions_equal_no_cache_under_random_forged_caches() {
    for seed in 1u64..=6 {
        let tmp = tempfile::tempdir().unwrap();
        let agent = tmp.path().join("agent");
        let cache = tmp.path().join("cache");
        let mut store = Store::new(&agent, seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        store.age(100);
        let env = || env_for(&agent, Some(&cache));
        assert_eq!(run_with(env(), &["ls", "--all"], b"").code, 0);
        let dir = CacheDir::new(cache.clone());
        let files: Vec<PathBuf> = store.files.iter().map(|(p, _)| p.clone()).collect();
        let ids: Vec<String> = files
            .iter()
            .map(|p| pisess_format::scan::read_header(p).unwrap().id)
            .collect();
        for path in &files {
            let rng = &mut store.rng;
            let (a, b, c) = (rng.next(), rng.next(), rng.next());
            let other_id = ids[rng.below(ids.len())].clone();
            forge(&dir, path, None, |s| {
                if a % 2 == 0 {
                    s.message_count = if b % 2 == 0 { 0 } else { 7 };
                }
                if a % 3 == 0 {
                    s.modified_ms = if b % 3 == 0 {
                        NOW_MS - 400 * DAY
                    } else {
                        NOW_MS
                    };
                }
                if a % 5 < 2 {
                    s.name = Some(format!("name {}", c % 4));
                }
                if a % 7 == 0 {
                    s.id = other_id;
                }
                if a % 11 < 4 {
                    s.usage.cost = 0.0;
                }
                if a % 13 < 5 {
                    s.cwd = PROJECTS[(c % 2) as usize].to_owned();
                }
            });
        }
        let name = format!("name {}", seed % 4);
        let commands: [&[&str]; 9] = [
            &["rm", "--all", "--empty", "--dry-run", "--json"],
            &["rm", "--all", "--older-than", "30d", "--dry-run", "--json"],
            &["rm", &name, "--dry-run", "--json"],
            &["check", "--all", "--max-cost", "1", "--json"],
            &["check", "--all", "--max-turns", "2"],
            &["grep", "--all", "-l", "secret|question 2"],
            &["grep", "--all", "-c", "question|answer"],
            &["grep", "-l", "question"],
            &["grep", "--all", "--json", "question 1"],
        ];
        for args in commands {
            let cached = run_with(env(), args, b"");
            let mut plain_args = vec!["--no-cache"];
            plain_args.extend_from_slice(args);
            let plain = run_with(env(), &plain_args, b"");
            assert_eq!(
                (cached.code, &cached.stdout, &cached.stderr),
                (plain.code, &plain.stdout, &plain.stderr),
                "seed {seed}: {args:?}"
            );
        }
        // And a real removal, on this store and on a copy of it with no cache.
        let twin = tmp.path().join("twin");
        copy_tree(&agent, &twin);
        let rm = ["rm", "--all", "--empty", "--permanent", "-y", "--json"];
        let cached = run_with(env(), &rm, b"");
        let mut plain_args = vec!["--no-cache"];
        plain_args.extend_from_slice(&rm);
        let plain = run_with(env_for(&twin, None), &plain_args, b"");
        let agent_text = agent.display().to_string();
        let twin_text = twin.display().to_string();
        assert_eq!(
            (cached.code, cached.stdout.replace(&agent_text, "AGENT")),
            (plain.code, plain.stdout.replace(&twin_text, "AGENT")),
            "seed {seed}: a real rm --empty"
        );
        assert_eq!(tree_of(&agent), tree_of(&twin), "seed {seed}");
    }
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
            let mtime = entry.metadata().unwrap().modified().unwrap();
            let f = fs::File::options().write(true).open(&target).unwrap();
            f.set_modified(mtime).unwrap();
        }
    }
}

/// The files under `root`, relative to it.
fn tree_of(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// The tally cache is a display's, like the summary cache: a forged cost (its key kept) shows
/// in a warm `stats` report, and never in `check --max-cost`, which reads the file.
#[test]
fn a_forged_tally_shows_in_stats_but_does_not_pass_check_max_cost() {
    let fx = Fx::new();
    let dear = fx.session("dear", &[NOW_MS - DAY], "spend", 50.0, "dear");
    settle(&dear);
    assert_eq!(fx.run(&["stats", "--all", "--json"]).code, 0);
    let dir = CacheDir::new(fx.cache());
    assert!(pisess_store::cache::tallies::forge(
        &dir,
        &dear,
        None,
        |s, t| {
            s.usage.cost = 0.01;
            for r in &mut t.rows {
                if let Some(u) = &mut r.usage {
                    u.cost = 0.01;
                }
            }
        }
    ));
    let shown = fx.run(&["stats", "--all", "--json"]);
    assert!(
        shown.stdout.contains("\"cost\":0.01") && !shown.stdout.contains("\"cost\":50"),
        "the forgery did not show where only display follows the cache: {shown:?}"
    );
    let r = fx.run(&["check", "--all", "--max-cost", "1"]);
    assert_eq!(r.code, 1, "a $50 run passed --max-cost 1: {r:?}");
    assert!(r.stdout.contains("$50"), "{r:?}");
}
