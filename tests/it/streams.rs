//! Streams as a careful user expects them (issue 31): a pager that cannot start or fails, and
//! `show -f` that refuses what is not a file, ends promptly on Ctrl-C and reads each byte once.

#[cfg(unix)]
use std::process::Command;

#[cfg(unix)]
use crate::common::examples_agent_dir;

#[cfg(unix)]
const BIN: &str = env!("CARGO_BIN_EXE_pisess");

/// Runs `pisess ARGS` under a pseudo-terminal of 10 rows with `PAGER` set as given (and no
/// `PISESS_PAGER`): what the terminal showed and the exit code.
#[cfg(unix)]
fn paged_by(pager: &str, args: &[&str]) -> (String, i32) {
    use rexpect::process::WaitStatus;
    let mut cmd = Command::new("sh");
    let script = "stty rows 10 cols 100; exec \"$0\" --cwd /home/dev/webshop \"$@\"";
    cmd.arg("-c").arg(script).arg(BIN).args(args);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", "/home/dev")
        .env("PI_CODING_AGENT_DIR", examples_agent_dir())
        .env("PAGER", pager);
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    let shown = p.exp_eof().unwrap();
    let code = match p.process().wait().unwrap() {
        WaitStatus::Exited(_, code) => code,
        other => panic!("{pager}: ended by {other:?}"),
    };
    (shown, code)
}

/// A pager that does not exist: the output is on the terminal, after one warning, exit 0.
#[cfg(unix)]
#[test]
fn a_pager_that_cannot_start_leaves_the_output_on_the_terminal() {
    let (unpaged, code) = paged_by("", &["--no-pager", "show", "0196c9f4"]);
    assert_eq!(code, 0);
    for pager in ["/nonexistent", "/nonexistent -R", "no-such-pager-anywhere"] {
        let (shown, code) = paged_by(pager, &["show", "0196c9f4"]);
        assert_eq!(code, 0, "{pager}: {shown}");
        assert_eq!(
            shown.matches("warning: cannot start the pager").count(),
            1,
            "{shown}"
        );
        // Every line the command prints, on the terminal.
        let last = unpaged.trim_end().lines().last().unwrap();
        assert!(shown.contains(last), "{pager}: {shown}");
        assert!(
            shown.lines().count() > unpaged.lines().count(),
            "{pager}: {shown}"
        );
    }
}

/// A pager that fails (exits non-zero) is an error: exit 1 with the pager named, never a
/// silent exit 0 with nothing shown.
#[cfg(unix)]
#[test]
fn a_pager_that_fails_is_an_error() {
    for pager in ["false", "/nonexistent '-R'", "cat > /dev/null; exit 3"] {
        let (shown, code) = paged_by(pager, &["show", "0196c9f4"]);
        assert_eq!(code, 1, "{pager}: {shown}");
        assert!(
            shown.contains("pisess: error: the pager `"),
            "{pager}: {shown}"
        );
        assert!(shown.contains("failed (exit status: "), "{pager}: {shown}");
    }
    // A pager that quits at once with success (`q` in less) is the user's choice: exit 0.
    let (shown, code) = paged_by("true", &["show", "0196c9f4"]);
    assert_eq!(code, 0, "{shown}");
    assert!(!shown.contains("error"), "{shown}");
}
