//! `path`: the dir pi uses, a session's file, the root, and `--explain`.

use std::fs;

use crate::common::{env_in, examples_agent_dir, run, run_with};
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

/// Every source that holds a value shows it, with what beats it: a global `sessionDir` hidden by
/// the project's is not "(unset)", and a project `null` is shown as the null it is.
#[test]
fn explain_shows_overridden_values() {
    let tmp = tempfile::tempdir().unwrap();
    let agent = tmp.path().join("agent");
    let proj = tmp.path().join("proj");
    fs::create_dir_all(&agent).unwrap();
    fs::create_dir_all(proj.join(".pi")).unwrap();
    fs::write(
        agent.join("settings.json"),
        r#"{"sessionDir": "/global/s"}"#,
    )
    .unwrap();
    fs::write(proj.join(".pi/settings.json"), r#"{"sessionDir": "rel/s"}"#).unwrap();
    let cwd = proj.to_str().unwrap();
    let shown = |env, args: &[&str]| {
        let r = run_with(env, args, b"");
        assert_eq!(r.code, 0, "{}", r.stderr);
        let tmp = tmp.path().to_str().unwrap();
        let folder = pisess_store::locate::encode_cwd(tmp);
        r.stdout
            .replace(tmp, "<tmp>")
            .replace(folder.strip_suffix("--").unwrap(), "--<tmp>")
    };
    let mut env = env_in(&agent, cwd);
    env.inputs.env_session_dir = Some("/env/s".into());
    snap!(
        "path_explain_every_source",
        shown(env, &["path", "--explain", "--session-dir", "/flag/s"])
    );

    // The project setting wins over the global one, which is shown with what beats it.
    let text = shown(env_in(&agent, cwd), &["path", "--explain"]);
    let line = |prefix: &str| {
        text.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} line in {text}"))
            .to_owned()
    };
    assert_eq!(
        line("sessionDir in project"),
        "sessionDir in project settings   <tmp>/proj/rel/s  <- used"
    );
    assert_eq!(
        line("sessionDir in global"),
        "sessionDir in global settings    /global/s  (overridden by sessionDir in project settings)"
    );

    // A project null still replaces the global value (pi's deep merge): the default is used.
    fs::write(proj.join(".pi/settings.json"), r#"{"sessionDir": null}"#).unwrap();
    let text = shown(env_in(&agent, cwd), &["path", "--explain"]);
    assert!(
        text.contains("sessionDir in project settings   null (sets no dir)\n"),
        "{text}"
    );
    assert!(
        text.contains("/global/s  (overridden by sessionDir in project settings)"),
        "{text}"
    );
    assert!(
        text.contains("<- used\n                                   from <tmp>/agent/sessions"),
        "{text}"
    );
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
