//! `path`: the dir pi uses, a session's file, the root, and `--explain`.

use crate::common::{examples_agent_dir, run};
use crate::snap;

#[test]
fn dir_for_this_cwd_and_root() {
    let agent = examples_agent_dir();
    let r = run(&["path"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        format!(
            "{}\n",
            agent.join("sessions/--home-dev-webshop--").display()
        )
    );
    let r = run(&["path", "--root"]);
    assert_eq!(r.stdout, format!("{}\n", agent.join("sessions").display()));
    let r = run(&["path", "--cwd", "/C:/x y/ü"]);
    assert!(
        r.stdout.ends_with("/sessions/--C--x y-ü--\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn session_file_by_id_prefix() {
    let r = run(&["path", "0196c3c5"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r
        .stdout
        .trim_end()
        .ends_with("_0196c3c5-cff0-747e-b5dc-747bba961fb2.jsonl"));
    let r = run(&["path", "no-such-session"]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr
            .starts_with("pisess: error: no session matches 'no-such-session'"),
        "{}",
        r.stderr
    );
}

#[test]
fn explain_lists_every_source_and_the_winner() {
    let r = run(&["path", "--explain", "--session-dir", "/tmp/flagdir"]);
    assert_eq!(r.code, 0);
    let text = r
        .stdout
        .replace(&examples_agent_dir().display().to_string(), "<agent>");
    snap!("path_explain_flag", text);
    let r = run(&["path", "--explain"]);
    let text = r
        .stdout
        .replace(&examples_agent_dir().display().to_string(), "<agent>");
    snap!("path_explain_default", text);
}

/// An environment value that is not UTF-8 reads as Node reads it for pi: U+FFFD for each bad
/// byte, not as if it were unset (which would silently fall back to `~/.pi/agent`).
#[cfg(unix)]
#[test]
fn agent_dir_that_is_not_utf8_reads_as_pi_reads_it() {
    use std::os::unix::ffi::OsStrExt;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pisess"))
        .args(["path", "--root"])
        .env(
            "PI_CODING_AGENT_DIR",
            std::ffi::OsStr::from_bytes(b"/tmp/agent-\xff-dir"),
        )
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "/tmp/agent-\u{fffd}-dir/sessions\n"
    );
}
