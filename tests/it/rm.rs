//! Tests of `rm`, each in its own temporary agent dir. In-process runs use `--permanent` or
//! `--dry-run` (the trash crate reads `$XDG_DATA_HOME`, which a test must not change for the
//! whole process); the trash and the terminal prompt are tested on the real binary.

use std::collections::hash_map::DefaultHasher;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use pisess::app::env::Env;
use pisess_store::locate::encode_cwd;
use serde_json::{json, Value};
use tempfile::TempDir;

use crate::common::{env_in, run_with, Run, NOW_MS};

const DAY: i64 = 86_400_000;
/// A message time a day before the tests' "now".
const RECENT: i64 = NOW_MS - DAY;
/// A message time three months before it.
const OLD: i64 = NOW_MS - 90 * DAY;

/// An agent dir in a temp dir, acting in `<tmp>/proj`.
struct Fx {
    tmp: TempDir,
}

impl Fx {
    fn new() -> Fx {
        let fx = Fx {
            tmp: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(fx.cwd()).unwrap();
        fs::create_dir_all(fx.project()).unwrap();
        fx
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    fn agent(&self) -> PathBuf {
        self.path("agent")
    }

    fn root(&self) -> PathBuf {
        self.agent().join("sessions")
    }

    fn cwd(&self) -> PathBuf {
        self.path("proj")
    }

    fn cwd_str(&self) -> String {
        self.cwd().to_string_lossy().into_owned()
    }

    /// This project's folder under the default root.
    fn project(&self) -> PathBuf {
        self.root().join(encode_cwd(&self.cwd_str()))
    }

    /// Another project's folder.
    fn elsewhere(&self) -> PathBuf {
        self.root().join(encode_cwd("/elsewhere"))
    }

    /// Writes a pi session into `dir`, one user message per time in `messages`.
    fn session(&self, dir: &Path, id: &str, cwd: &str, messages: &[i64]) -> PathBuf {
        self.session_named(dir, id, cwd, messages, None)
    }

    fn session_named(
        &self,
        dir: &Path,
        id: &str,
        cwd: &str,
        messages: &[i64],
        name: Option<&str>,
    ) -> PathBuf {
        fs::create_dir_all(dir).unwrap();
        let mut lines = vec![json!({"type": "session", "version": 3, "id": id,
            "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd})];
        let mut parent = serde_json::Value::Null;
        for (i, ms) in messages.iter().enumerate() {
            let entry_id = format!("m{i}");
            lines.push(json!({"type": "message", "id": entry_id, "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": {"role": "user", "content": format!("hello from {id}"), "timestamp": ms}}));
            parent = json!(entry_id);
        }
        if let Some(name) = name {
            lines.push(
                json!({"type": "session_info", "id": "n", "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z", "name": name}),
            );
        }
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let path = dir.join(format!("2026-01-01T00-00-00-000Z_{id}.jsonl"));
        fs::write(&path, text).unwrap();
        path
    }

    /// A session of this project.
    fn here(&self, id: &str, messages: &[i64]) -> PathBuf {
        self.session(&self.project(), id, &self.cwd_str(), messages)
    }

    fn env(&self) -> Env {
        env_in(&self.agent(), &self.cwd_str())
    }

    fn run(&self, args: &[&str]) -> Run {
        run_with(self.env(), args, b"")
    }

    /// Every file, folder and link under the temp dir, with sizes, times and contents.
    fn listing(&self) -> Vec<String> {
        let mut out = Vec::new();
        walk(self.tmp.path(), self.tmp.path(), &mut out);
        out.sort();
        out
    }

    /// The real binary, with an environment of its own (no PI_SESSION_FILE from a pi that
    /// runs the tests, no real trash).
    fn command(&self) -> std::process::Command {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_pisess"));
        cmd.env_clear()
            .env("HOME", self.path("home"))
            .env("XDG_DATA_HOME", self.path("xdg"))
            .env("PI_CODING_AGENT_DIR", self.agent())
            .current_dir(self.cwd())
            .args(["--color", "never"]);
        cmd
    }
}

fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let rel = path.strip_prefix(base).unwrap().display().to_string();
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.file_type().is_symlink() {
            out.push(format!(
                "{rel} -> {}",
                fs::read_link(&path).unwrap().display()
            ));
        } else if meta.is_dir() {
            out.push(format!("{rel}/"));
            walk(base, &path, out);
        } else {
            let mut h = DefaultHasher::new();
            fs::read(&path).unwrap().hash(&mut h);
            out.push(format!(
                "{rel} {} {:?} {:x}",
                meta.len(),
                meta.modified().unwrap(),
                h.finish()
            ));
        }
    }
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[test]
fn needs_a_session_or_a_filter() {
    let fx = Fx::new();
    fx.here("aaa", &[OLD]);
    let before = fx.listing();
    for args in [
        &["rm"][..],
        &["rm", "--yes", "--permanent"],
        &["rm", "--all", "--yes", "--permanent"],
        &["rm", "--older-than", "soon", "--yes", "--permanent"],
    ] {
        let r = fx.run(args);
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
        assert!(r.stderr.starts_with("pisess: error: "), "{r:?}");
    }
    assert!(fx.run(&["rm"]).stderr.contains("--older-than or --empty"));
    assert_eq!(fx.listing(), before);
}

#[test]
fn without_a_terminal_it_refuses_unless_yes() {
    let fx = Fx::new();
    let path = fx.here("abc123", &[OLD]);
    let r = fx.run(&["rm", "abc", "--permanent"]);
    assert_eq!(r.code, 1, "{r:?}");
    // The plan is printed all the same: path, id, first message, size.
    assert!(r.stdout.contains("Will delete 1 session ("), "{}", r.stdout);
    assert!(r.stdout.contains(&s(&path)), "{}", r.stdout);
    assert!(r.stdout.contains("abc123"), "{}", r.stdout);
    assert!(r.stdout.contains("hello from abc123"), "{}", r.stdout);
    let size = fs::metadata(&path).unwrap().len();
    assert!(r.stdout.contains(&format!("{size} B")), "{}", r.stdout);
    assert!(r.stderr.contains("not a terminal"), "{}", r.stderr);
    assert!(r.stderr.contains("--yes"), "{}", r.stderr);
    assert!(path.is_file());

    let r = fx.run(&["rm", "abc", "--permanent", "--yes"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!path.exists());
    let plan = r.stdout.find("Will delete").unwrap();
    let done = r.stdout.find(&format!("deleted {}", s(&path))).unwrap();
    assert!(plan < done, "the plan comes first: {}", r.stdout);
    assert!(r
        .stdout
        .ends_with(&format!("Deleted 1 session ({size} B) permanently.\n")));
}

#[test]
fn the_plan_shows_the_name_when_there_is_one() {
    let fx = Fx::new();
    let cwd = fx.cwd_str();
    fx.session_named(&fx.project(), "named1", &cwd, &[OLD], Some("fix the cart"));
    let r = fx.run(&["rm", "named1", "--dry-run"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("fix the cart"), "{}", r.stdout);
    assert!(!r.stdout.contains("hello from"), "{}", r.stdout);
}

#[cfg(unix)]
#[test]
fn dry_run_changes_nothing() {
    let fx = Fx::new();
    let a = fx.here("aaa", &[OLD]);
    fx.here("bbb", &[]);
    fx.session(&fx.elsewhere(), "ccc", "/elsewhere", &[OLD]);
    symlink(&a, &fx.project().join("link.jsonl"));
    fs::write(fx.project().join("notes.jsonl"), "{\"type\":\"note\"}\n").unwrap();
    let before = fx.listing();
    for args in [
        &["rm", "--dry-run", "--yes", "--older-than", "30d", "--all"][..],
        &["rm", "--dry-run", "--yes", "--permanent", "--empty"],
        &["rm", "--dry-run", "aaa", "bbb", "ccc"],
    ] {
        let r = fx.run(args);
        assert!(r.stdout.starts_with("Would "), "{args:?}: {r:?}");
        assert!(
            r.stdout.ends_with("Dry run: nothing was removed.\n"),
            "{r:?}"
        );
        assert_eq!(fx.listing(), before, "{args:?}");
    }
    // The listing names what would go: the old sessions of every project.
    let r = fx.run(&["rm", "--dry-run", "--older-than", "30d", "--all"]);
    assert!(
        r.stdout.contains("aaa") && r.stdout.contains("ccc"),
        "{}",
        r.stdout
    );
    // The symlink is found by the listing and refused even in a dry run.
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("link.jsonl: it is a symlink"),
        "{}",
        r.stderr
    );
}

#[test]
fn older_than_goes_by_pi_modified_and_stays_in_this_project() {
    let fx = Fx::new();
    let old = fx.here("old", &[OLD]);
    let recent = fx.here("recent", &[OLD, RECENT]);
    let other = fx.session(&fx.elsewhere(), "other", "/elsewhere", &[OLD]);
    // The file times say the opposite of the messages: `modified` must win, as in `ls`.
    let long_ago = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000);
    fs::File::options()
        .write(true)
        .open(&recent)
        .unwrap()
        .set_modified(long_ago)
        .unwrap();
    let r = fx.run(&["rm", "--older-than", "30d", "--yes", "--permanent"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!old.exists());
    assert!(recent.exists());
    assert!(
        other.exists(),
        "another project is left alone without --all"
    );

    let r = fx.run(&["rm", "--older-than", "30d", "--all", "--yes", "--permanent"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!other.exists());
    assert!(recent.exists());
    // An ISO date works as well as a span.
    let r = fx.run(&["rm", "--older-than", "2026-08-01", "--yes", "--permanent"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!recent.exists());
}

#[test]
fn empty_selects_sessions_without_messages_and_both_filters_must_hold() {
    let fx = Fx::new();
    let cwd = fx.cwd_str();
    // An empty session's `modified` is its header time (2026-01-01: old).
    let empty_old = fx.here("empty-old", &[]);
    let full_old = fx.here("full-old", &[OLD]);
    let empty_new = fx.project().join("empty-new.jsonl");
    fs::write(
        &empty_new,
        format!(
            "{}\n",
            json!({"type": "session", "version": 3, "id": "empty-new",
            "timestamp": "2026-07-31T00:00:00.000Z", "cwd": cwd})
        ),
    )
    .unwrap();
    let r = fx.run(&[
        "rm",
        "--empty",
        "--older-than",
        "30d",
        "--yes",
        "--permanent",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!empty_old.exists());
    assert!(full_old.exists());
    assert!(empty_new.exists());

    let r = fx.run(&["rm", "--empty", "--yes", "--permanent"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!empty_new.exists());
    assert!(full_old.exists());

    let r = fx.run(&["rm", "--empty", "--yes", "--permanent"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout, "Nothing to remove.\n");
}

/// issue 42: "empty" is nothing a person would miss. On 63e6fc9 `rm --empty` trashed a
/// session whose only content was a custom message pi showed the user (a subagent's report),
/// and a named one. Settings, usage and hidden custom messages alone still make it empty.
#[test]
fn empty_keeps_what_a_person_would_miss() {
    let fx = Fx::new();
    let cwd = fx.cwd_str();
    let write = |id: &str, entries: &[Value]| {
        let path = fx.project().join(format!("{id}.jsonl"));
        let mut text = json!({"type": "session", "version": 3, "id": id,
            "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd})
        .to_string();
        for (k, e) in entries.iter().enumerate() {
            let mut e = e.clone();
            e["id"] = json!(format!("e{k}"));
            e["parentId"] = if k == 0 {
                Value::Null
            } else {
                json!(format!("e{}", k - 1))
            };
            e["timestamp"] = json!("2026-01-01T00:00:01.000Z");
            text.push('\n');
            text.push_str(&e.to_string());
        }
        text.push('\n');
        fs::write(&path, text).unwrap();
        path
    };
    let model = json!({"type": "model_change", "provider": "anthropic", "modelId": "m"});
    let report = write(
        "report",
        &[
            model.clone(),
            json!({"type": "custom_message", "customType": "subagent", "content": "Found 3 bugs", "display": true}),
        ],
    );
    let named = write(
        "named",
        &[json!({"type": "session_info", "name": "keep me"})],
    );
    let future = write("future", &[json!({"type": "checkpoint_v9", "note": "?"})]);
    let settings = write(
        "settings",
        &[
            model,
            json!({"type": "thinking_level_change", "thinkingLevel": "high"}),
            json!({"type": "custom_message", "customType": "ctx", "content": "hidden", "display": false}),
            json!({"type": "custom", "customType": "ext", "data": {"x": 1}}),
            json!({"type": "session_info", "name": "  "}),
        ],
    );
    let r = fx.run(&["rm", "--empty", "--yes", "--permanent"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!settings.exists(), "settings alone are empty");
    for kept in [&report, &named, &future] {
        assert!(kept.exists(), "{} removed: {r:?}", kept.display());
    }
    assert!(r.stdout.contains("Deleted 1 session"), "{r:?}");
}

#[test]
fn sessions_by_prefix_name_and_path_and_one_failure_does_not_stop_the_others() {
    let fx = Fx::new();
    let cwd = fx.cwd_str();
    let a = fx.here("aaa111", &[OLD]);
    let b = fx.session_named(&fx.project(), "bbb222", &cwd, &[OLD], Some("refactor"));
    let c = fx.here("ccc333", &[OLD]);
    let d1 = fx.here("ddd444", &[OLD]);
    let d2 = fx.here("ddd555", &[OLD]);
    let r = fx.run(&[
        "rm",
        "aaa",
        "refactor",
        &s(&c),
        "ddd",
        "nothing",
        "-",
        "--yes",
        "--permanent",
    ]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(!a.exists() && !b.exists() && !c.exists());
    assert!(
        d1.exists() && d2.exists(),
        "an ambiguous prefix removes nothing"
    );
    assert!(
        r.stderr.contains("'ddd' matches 2 sessions"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("no session matches 'nothing'"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("'-' is standard input"), "{}", r.stderr);
    assert!(r.stdout.contains("Deleted 3 sessions"), "{}", r.stdout);
}

#[test]
fn a_session_named_twice_goes_once() {
    let fx = Fx::new();
    let a = fx.here("aaa111", &[OLD]);
    let r = fx.run(&["rm", "aaa111", &s(&a), "--empty", "--yes", "--permanent"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("Will delete 1 session"), "{}", r.stdout);
    assert!(!a.exists());
}

#[cfg(unix)]
#[test]
fn symlinks_are_refused_and_neither_they_nor_their_targets_are_touched() {
    let fx = Fx::new();
    let outside = fx.path("outside");
    let target = fx.session(&outside, "target", &fx.cwd_str(), &[]);
    let link = fx.project().join("link.jsonl");
    symlink(&target, &link);
    let dangling = fx.project().join("dangling.jsonl");
    symlink(&fx.path("gone.jsonl"), &dangling);
    let before = fx.listing();
    // By path, by id (found through the link by the selection) and by a filter.
    for args in [
        &["rm", &s(&link), "--yes", "--permanent"][..],
        &["rm", &s(&dangling), "--yes", "--permanent"],
        &["rm", "target", "--yes", "--permanent"],
        &["rm", "--empty", "--yes", "--permanent"],
    ] {
        let r = fx.run(args);
        assert_eq!(r.code, 1, "{args:?}: {r:?}");
        assert!(
            r.stderr.contains("it is a symlink"),
            "{args:?}: {}",
            r.stderr
        );
        assert_eq!(fx.listing(), before, "{args:?}");
    }
}

#[test]
fn directories_and_files_that_are_not_sessions_are_refused() {
    let fx = Fx::new();
    let dir = fx.project().join("dir.jsonl");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("inner.jsonl"), "x").unwrap();
    let notes = fx.project().join("notes.jsonl");
    fs::write(&notes, "{\"type\":\"message\",\"id\":\"x\"}\n").unwrap();
    let no_id = fx.project().join("no-id.jsonl");
    fs::write(&no_id, "{\"type\":\"session\",\"version\":3}\n").unwrap();
    let blank = fx.project().join("blank.jsonl");
    fs::write(&blank, "\n\n").unwrap();
    let txt = fx.project().join("session.txt");
    fs::copy(fx.here("real", &[OLD]), &txt).unwrap();
    let good = fx.here("good", &[OLD]);
    let before: Vec<String> = fx
        .listing()
        .into_iter()
        .filter(|l| !l.contains("_good.jsonl"))
        .collect();
    let r = fx.run(&[
        "rm",
        &s(&dir),
        &s(&notes),
        &s(&no_id),
        &s(&blank),
        &s(&txt),
        "good",
        "--yes",
        "--permanent",
    ]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(!good.exists(), "the valid session still goes");
    for expected in [
        "dir.jsonl: it is a directory",
        "notes.jsonl: it is not a pi session (line 1: first line is not a session header (type \"message\"))",
        "no-id.jsonl: it is not a pi session (line 1: session header has no string \"id\")",
        "blank.jsonl: it is not a pi session (it holds no session header)",
        "session.txt: it is not a .jsonl file",
    ] {
        assert!(r.stderr.contains(expected), "{expected}: {}", r.stderr);
    }
    let after: Vec<String> = fx.listing();
    assert_eq!(after, before);
}

#[test]
fn seed_000_sessions_can_be_removed() {
    let fx = Fx::new();
    let seed = crate::common::repo()
        .join("examples/sessions/Users-x-app/0196f3a2-7c41-7a0e-9b7d-3f1c2a8e5d40.jsonl");
    let copy = fx.path("0196f3a2-7c41-7a0e-9b7d-3f1c2a8e5d40.jsonl");
    fs::copy(seed, &copy).unwrap();
    let r = fx.run(&["rm", &s(&copy), "--yes", "--permanent"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains("0196f3a2"), "{}", r.stdout);
    assert!(!copy.exists());
}

#[cfg(unix)]
#[test]
fn outside_the_root_only_by_explicit_path() {
    let fx = Fx::new();
    // A project folder that is a symlink to a folder outside the root: its sessions are
    // listed and found by id, but they live outside.
    let outside = fx.path("outside");
    let away = fx.session(&outside, "away", "/linked", &[OLD]);
    symlink(&outside, &fx.root().join(encode_cwd("/linked")));
    let before = fx.listing();
    for args in [
        &["rm", "away", "--yes", "--permanent"][..],
        &["rm", "--all", "--older-than", "30d", "--yes", "--permanent"],
    ] {
        let r = fx.run(args);
        assert_eq!(r.code, 1, "{args:?}: {r:?}");
        assert!(
            r.stderr.contains("it is outside the sessions root"),
            "{args:?}: {}",
            r.stderr
        );
        assert_eq!(fx.listing(), before, "{args:?}");
    }
    // Named by its path, it goes (through its own folder, not the link).
    let r = fx.run(&["rm", &s(&away), "--yes", "--permanent"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!away.exists());
}

#[test]
fn a_custom_session_dir_is_the_root() {
    let fx = Fx::new();
    let custom = fx.path("custom");
    let cwd = fx.cwd_str();
    let mine = fx.session(&custom, "mine", &cwd, &[]);
    let theirs = fx.session(&custom, "theirs", "/elsewhere", &[]);
    let default_root = fx.here("default", &[]);
    let dir = s(&custom);
    let r = fx.run(&[
        "--session-dir",
        &dir,
        "rm",
        "--empty",
        "--yes",
        "--permanent",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!mine.exists());
    assert!(
        theirs.exists(),
        "another project's session in the shared dir stays"
    );
    let r = fx.run(&[
        "--session-dir",
        &dir,
        "rm",
        "--empty",
        "--all",
        "--yes",
        "--permanent",
    ]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!theirs.exists());
    assert!(
        default_root.exists(),
        "the default root is not the custom dir's business"
    );
    // By id, the default root's session is not found from the custom dir.
    let r = fx.run(&[
        "--session-dir",
        &dir,
        "rm",
        "default",
        "--yes",
        "--permanent",
    ]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(default_root.exists());
}

#[test]
fn the_live_session_needs_force() {
    let fx = Fx::new();
    let live = fx.here("live", &[RECENT]);
    let mut env = fx.env();
    // Another spelling of the same file: compared as files, not as strings.
    let spelled = fx
        .project()
        .join("..")
        .join(encode_cwd(&fx.cwd_str()))
        .join(live.file_name().unwrap());
    env.pi_session_file = Some(s(&spelled));
    for args in [
        &["rm", "live", "--yes", "--permanent"][..],
        &["rm", &s(&live), "--yes", "--permanent"],
        &["rm", "--older-than", "1s", "--yes", "--permanent"],
    ] {
        let r = run_with(env.clone(), args, b"");
        assert_eq!(r.code, 1, "{args:?}: {r:?}");
        assert!(r.stderr.contains("it is the live session"), "{}", r.stderr);
        assert!(r.stderr.contains("--force"), "{}", r.stderr);
        assert!(live.exists());
    }
    let r = run_with(env, &["rm", "live", "--yes", "--permanent", "--force"], b"");
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!live.exists());
}

#[test]
fn the_prompt_reads_the_answer_from_stdin() {
    let fx = Fx::new();
    let path = fx.here("asked", &[OLD]);
    let mut env = fx.env();
    env.stdin_tty = true;
    for answer in [&b"n\n"[..], b"", b"\n", b"maybe\n"] {
        let r = run_with(env.clone(), &["rm", "asked", "--permanent"], answer);
        assert_eq!(r.code, 0, "{r:?}");
        assert_eq!(r.stderr, "Remove 1 session? [y/N] ");
        assert!(r.stdout.ends_with("Nothing was removed.\n"), "{}", r.stdout);
        assert!(path.exists());
    }
    let r = run_with(env, &["rm", "asked", "--permanent"], b"Yes\n");
    assert_eq!(r.code, 0, "{r:?}");
    assert!(!path.exists());
}

// The freedesktop trash (what the trash crate uses on Linux) lives in $XDG_DATA_HOME;
// elsewhere the test would reach the real trash.
#[cfg(target_os = "linux")]
#[test]
fn trashes_by_default() {
    let fx = Fx::new();
    let path = fx.here("trashme", &[OLD]);
    let out = fx
        .command()
        .args(["rm", "trashme", "--yes"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(!path.exists());
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(fx.path("xdg/Trash/files").join(&name).is_file());
    assert!(fx
        .path("xdg/Trash/info")
        .join(format!("{name}.trashinfo"))
        .is_file());
    assert!(
        stdout.contains(&format!("trashed {}", s(&path))),
        "{stdout}"
    );
    assert!(stdout.contains("Moved 1 session ("), "{stdout}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_trash_that_fails_is_an_error_never_a_permanent_delete() {
    let fx = Fx::new();
    let path = fx.here("kept", &[OLD]);
    // A file where the trash's folder should be: the trash cannot be made.
    fs::write(fx.path("xdg"), "").unwrap();
    let out = fx.command().args(["rm", "kept", "--yes"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(path.is_file());
    assert!(stderr.contains("cannot move it to the trash"), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Nothing was removed; 1 failed."));
}

/// The binary under a real pseudo-terminal (rexpect forks it on a pty's slave side): the plan
/// must be on the screen before the question, and the answer is typed after it appears.
#[cfg(unix)]
fn answer_under_a_pty(answer: &str) -> (Fx, PathBuf, String, i32) {
    use rexpect::process::WaitStatus;

    let fx = Fx::new();
    let path = fx.here("ptysess", &[OLD]);
    let mut cmd = fx.command();
    cmd.args(["rm", "ptysess", "--permanent"]);
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    let before = p.exp_string("Remove 1 session? [y/N] ").unwrap();
    assert!(before.contains("Will delete 1 session"), "{before}");
    assert!(before.contains(&s(&path)), "{before}");
    assert!(path.exists(), "nothing goes before the answer");
    p.send_line(answer).unwrap();
    let after = p.exp_eof().unwrap();
    let code = match p.process().wait().unwrap() {
        WaitStatus::Exited(_, code) => code,
        other => panic!("pisess did not exit: {other:?}"),
    };
    (fx, path, after, code)
}

#[cfg(unix)]
#[test]
fn the_prompt_under_a_terminal_answered_yes() {
    let (_fx, path, after, code) = answer_under_a_pty("y");
    assert_eq!(code, 0, "{after}");
    assert!(!path.exists());
    assert!(after.contains("Deleted 1 session"), "{after}");
}

#[cfg(unix)]
#[test]
fn the_prompt_under_a_terminal_answered_no() {
    let (_fx, path, after, code) = answer_under_a_pty("n");
    assert_eq!(code, 0, "{after}");
    assert!(path.exists());
    assert!(after.contains("Nothing was removed."), "{after}");
}

// ---- Issue 12: one selection rule, removal by identity, an honest report ----

/// `(exit code, stdout, stderr)` of the binary with `args`, from this fixture's cwd.
fn binary(fx: &Fx, args: &[&str]) -> (Option<i32>, String, String) {
    let out = fx.command().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_name_here_beats_an_id_prefix_in_another_project() {
    let fx = Fx::new();
    let mine = fx.session_named(
        &fx.project(),
        "0196aaaa-mine",
        &fx.cwd_str(),
        &[OLD],
        Some("cafe"),
    );
    let theirs = fx.session(&fx.elsewhere(), "cafe9999-theirs", "/elsewhere", &[OLD]);
    let r = fx.run(&["rm", "--dry-run", "cafe"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(r.stdout.contains(&s(&mine)), "{}", r.stdout);
    assert!(!r.stdout.contains(&s(&theirs)), "{}", r.stdout);
    let r = fx.run(&["path", "cafe"]);
    assert_eq!(r.stdout.trim(), s(&mine), "{r:?}");
    let r = fx.run(&["show", "--json", "cafe"]);
    assert!(
        r.stdout.lines().next().unwrap().contains("0196aaaa-mine"),
        "{r:?}"
    );
    // From a third project, both are candidates of "all projects": an error naming each.
    let mut env = fx.env();
    env.inputs.cwd = fx.path("third");
    env.location = pisess_store::locate::Location::resolve(&env.inputs);
    let r = run_with(env, &["path", "cafe"], b"");
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("'cafe' matches 2 sessions"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("0196aaaa-mine (name, "), "{}", r.stderr);
    assert!(
        r.stderr.contains("cafe9999-theirs (id prefix, /elsewhere)"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_name_elsewhere_is_found_when_nothing_here_matches() {
    let fx = Fx::new();
    fx.here("0196bbbb-here", &[OLD]);
    let theirs = fx.session_named(
        &fx.elsewhere(),
        "0196cccc-theirs",
        "/elsewhere",
        &[OLD],
        Some("feed"),
    );
    let r = fx.run(&["path", "feed"]);
    assert_eq!(r.stdout.trim(), s(&theirs), "{r:?}");
}

#[test]
fn an_id_prefix_and_a_name_in_this_project_are_ambiguous_and_both_are_listed() {
    let fx = Fx::new();
    let before = {
        fx.session_named(
            &fx.project(),
            "0196dddd-named",
            &fx.cwd_str(),
            &[OLD],
            Some("add"),
        );
        fx.here("add00000-prefixed", &[OLD]);
        // Another project's exact match must not settle what this project finds ambiguous.
        fx.session(&fx.elsewhere(), "add", "/elsewhere", &[OLD]);
        fx.listing()
    };
    let r = fx.run(&["rm", "--permanent", "--yes", "add"]);
    assert_eq!(r.code, 1, "{r:?}");
    assert!(
        r.stderr.contains("'add' matches 2 sessions of "),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("0196dddd-named (name)"), "{}", r.stderr);
    assert!(
        r.stderr.contains("add00000-prefixed (id prefix)"),
        "{}",
        r.stderr
    );
    assert_eq!(fx.listing(), before, "nothing was removed");
}

#[test]
fn an_exact_id_beats_longer_ids_that_start_with_it() {
    let fx = Fx::new();
    let exact = fx.here("abc", &[OLD]);
    fx.here("abcd", &[OLD]);
    let r = fx.run(&["path", "abc"]);
    assert_eq!(r.stdout.trim(), s(&exact), "{r:?}");
    let r = fx.run(&["path", "ab"]);
    assert_eq!(r.code, 1, "{r:?}");
}

#[test]
fn empty_and_blank_sessions_are_usage_errors_on_every_command() {
    let fx = Fx::new();
    fx.here("only", &[OLD]);
    let before = fx.listing();
    for blank in ["", " ", "\t\n"] {
        for args in [
            vec!["show", blank],
            vec!["tree", blank],
            vec!["path", blank],
            vec!["context", blank],
            vec!["rm", "--yes", "--permanent", blank],
            vec!["rm", "--yes", "--permanent", "only", blank],
        ] {
            let (code, _, stderr) = binary(&fx, &args);
            assert_eq!(code, Some(2), "{args:?}: {stderr}");
            assert!(
                stderr.contains("cannot be empty or blank"),
                "{args:?}: {stderr}"
            );
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
        }
    }
    assert_eq!(fx.listing(), before);
}

#[test]
fn plan_rows_are_one_line_and_cut_when_piped() {
    let fx = Fx::new();
    let path = fx.here("huge", &[OLD]);
    // A first message of 5 MB, with newlines: the title must not be the message.
    let text = fs::read_to_string(&path).unwrap();
    let long = "word ".repeat(1_000_000) + "\nsecond line";
    fs::write(&path, text.replace("hello from huge", &long)).unwrap();
    let r = fx.run(&["rm", "--dry-run", "huge"]);
    assert_eq!(r.code, 0, "{r:?}");
    let row = r.stdout.lines().find(|l| l.contains("huge")).unwrap();
    assert!(row.chars().count() <= 130, "{} chars", row.chars().count());
    assert!(r.stdout.len() < 1000, "{} bytes", r.stdout.len());
}

#[test]
fn quiet_prints_only_totals_and_json_is_ndjson_events() {
    let fx = Fx::new();
    let a = fx.here("qa", &[OLD]);
    fx.here("qb", &[OLD]);
    let r = fx.run(&["-q", "rm", "--dry-run", "qa", "qb"]);
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(r.stdout.lines().count(), 2, "{}", r.stdout);
    assert!(
        r.stdout.starts_with("Would delete 2 sessions")
            || r.stdout.starts_with("Would move 2 sessions")
    );
    let r = fx.run(&["rm", "--json", "--permanent", "--yes", "qa", "nosuch"]);
    assert_eq!(r.code, 1, "{r:?}");
    let events: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["refused", "planned", "removed", "total"],
        "{}",
        r.stdout
    );
    assert_eq!(events[1]["path"], s(&a));
    assert_eq!(events[3]["removed"], 1);
    assert!(!a.exists());
}

#[test]
fn a_plan_that_cannot_be_written_removes_nothing() {
    let fx = Fx::new();
    let path = fx.here("kept", &[OLD]);
    let full = fs::File::options().write(true).open("/dev/full").unwrap();
    let out = fx
        .command()
        .args(["rm", "--yes", "--permanent", "kept"])
        .stdout(full)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("standard output"), "{stderr}");
    assert!(path.is_file());

    // A closed stdout: a pipe whose read end is closed before the child starts.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = fx
        .command()
        .args(["rm", "--yes", "--permanent", "kept"])
        .stdout(writer)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("nothing was removed"), "{stderr}");
    assert!(path.is_file());
}

#[cfg(target_os = "linux")]
#[test]
fn a_trashed_session_restores_to_its_path_and_name() {
    let fx = Fx::new();
    let path = fx.here("restore me", &[OLD]);
    let bytes = fs::read(&path).unwrap();
    let (code, stdout, stderr) = binary(&fx, &["rm", "--yes", &s(&path)]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(!path.exists());
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let info =
        fs::read_to_string(fx.path("xdg/Trash/info").join(format!("{name}.trashinfo"))).unwrap();
    let line = info.lines().find_map(|l| l.strip_prefix("Path=")).unwrap();
    assert!(line.contains("%20"), "a space is percent-encoded: {line}");
    assert!(
        info.lines().any(|l| l.starts_with("DeletionDate=20")),
        "{info}"
    );
    let original = PathBuf::from(percent_decode(line));
    assert_eq!(original, path);
    // Restore as a trash tool does: the file under files/ goes back to Path.
    fs::rename(fx.path("xdg/Trash/files").join(&name), &original).unwrap();
    assert_eq!(fs::read(&path).unwrap(), bytes);
    // No staging folder is left behind.
    let left: Vec<_> = fs::read_dir(fx.project())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    // An independent reader of the trash, when installed (trash-cli, from PyPI or Debian).
    if let Ok(out) = std::process::Command::new("trash-list")
        .env("XDG_DATA_HOME", fx.path("xdg"))
        .env("HOME", fx.path("home"))
        .output()
    {
        let _ = out; // The entry was restored above: trash-list runs on a second trashing.
        let (code, _, stderr) = binary(&fx, &["rm", "--yes", &s(&path)]);
        assert_eq!(code, Some(0), "{stderr}");
        let listed = std::process::Command::new("trash-list")
            .env("XDG_DATA_HOME", fx.path("xdg"))
            .env("HOME", fx.path("home"))
            .output()
            .unwrap();
        let listed = String::from_utf8_lossy(&listed.stdout);
        assert!(listed.contains(&s(&path)), "trash-list: {listed}");
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap()
}

/// The attack of issue 12: another process swaps the session's path with a file outside the
/// sessions root (`renameat2(RENAME_EXCHANGE)`, in a loop) while `rm` runs. Whatever `rm`
/// reports, the outside file must survive, and a session reported removed must be gone.
#[cfg(target_os = "linux")]
fn swap_attack(mode: &str, tries: usize) -> (usize, usize) {
    use rustix::fs::{renameat_with, RenameFlags, CWD};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::Arc;

    let (mut removed, mut refused, mut during) = (0, 0, 0);
    for _ in 0..tries {
        let fx = Fx::new();
        let victim = fx.here("victim", &[OLD]);
        let victim_bytes = fs::read(&victim).unwrap();
        // Outside the root, and a pi session too, so only identity tells the two apart.
        let outside = fx.session(&fx.path("outside"), "outside", "/outside", &[OLD]);
        let outside_bytes = fs::read(&outside).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let swaps = Arc::new(AtomicUsize::new(0));
        let swapper = {
            let (stop, swaps) = (Arc::clone(&stop), Arc::clone(&swaps));
            let (a, b) = (victim.clone(), outside.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    if renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE).is_ok() {
                        swaps.fetch_add(1, Ordering::Relaxed);
                    }
                }
            })
        };
        // The race is on before rm starts.
        while swaps.load(Ordering::Relaxed) < 50 {
            std::hint::spin_loop();
        }
        let before = swaps.load(Ordering::Relaxed);
        let mut env = fx.env();
        env.trash = pisess_store::removal::TrashHome {
            xdg_data_home: Some(fx.path("xdg").into()),
            home: None,
        };
        let mut args = vec!["rm", "--yes", "victim"];
        if mode == "permanent" {
            args.push("--permanent");
        }
        let r = run_with(env, &args, b"");
        during += swaps.load(Ordering::Relaxed) - before;
        stop.store(true, Ordering::Relaxed);
        swapper.join().unwrap();

        let holds = |bytes: &[u8]| {
            [&victim, &outside]
                .iter()
                .any(|p| fs::read(p).is_ok_and(|b| b == bytes))
        };
        assert!(holds(&outside_bytes), "the outside file went: {r:?}");
        let said_removed = r.stdout.contains("deleted ") || r.stdout.contains("trashed ");
        if said_removed {
            assert_eq!(r.code, 0, "{r:?}");
            assert!(
                !holds(&victim_bytes),
                "reported removed but still there: {r:?}"
            );
            if mode == "trash" {
                let name = victim.file_name().unwrap();
                assert_eq!(
                    fs::read(fx.path("xdg/Trash/files").join(name)).unwrap(),
                    victim_bytes
                );
            }
            removed += 1;
        } else {
            assert_eq!(r.code, 1, "{r:?}");
            assert!(
                holds(&victim_bytes),
                "refused, yet the session is gone: {r:?}"
            );
            refused += 1;
        }
        // Never a staging folder left behind.
        let staged = fs::read_dir(fx.project())
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(".pisess"));
        assert!(!staged, "{r:?}");
    }
    eprintln!(
        "swap attack ({mode}): {tries} tries, {removed} removed, {refused} refused, {} swaps per rm",
        during / tries
    );
    (removed, refused)
}

#[cfg(target_os = "linux")]
#[test]
fn removal_under_a_concurrent_exchange_loop_never_takes_another_file() {
    for mode in ["permanent", "trash"] {
        let (removed, _refused) = swap_attack(mode, 300);
        assert!(
            removed > 0,
            "{mode}: the race never let a removal through, so it proved nothing"
        );
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_finishes_the_file_in_hand_and_the_report_equals_what_was_removed() {
    use std::io::{BufRead, BufReader};

    let fx = Fx::new();
    let count = 3000;
    let text = fs::read(fx.here("template", &[OLD])).unwrap();
    for i in 0..count {
        let id = format!("s{i:05}");
        let body = String::from_utf8_lossy(&text).replace("template", &id);
        fs::write(
            fx.project()
                .join(format!("2026-01-01T00-00-00-000Z_{id}.jsonl")),
            body,
        )
        .unwrap();
    }
    let mut child = fx
        .command()
        .args(["rm", "--yes", "--permanent", "--older-than", "30d"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut deleted = 0;
    let mut line = String::new();
    let mut signalled = false;
    let mut last = String::new();
    while stdout.read_line(&mut line).unwrap() > 0 {
        if line.starts_with("deleted ") {
            deleted += 1;
            if !signalled && deleted == 10 {
                let pid = rustix::process::Pid::from_child(&child);
                rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
                signalled = true;
            }
        }
        last = std::mem::take(&mut line);
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    let left = fs::read_dir(fx.project()).unwrap().count();
    assert_eq!(
        count + 1 - left,
        deleted,
        "the report says {deleted}, the disk says otherwise"
    );
    assert!(left > 0, "Ctrl-C came too late to prove anything");
    assert!(
        last.starts_with(&format!("Deleted {deleted} sessions")),
        "{last}"
    );
}
