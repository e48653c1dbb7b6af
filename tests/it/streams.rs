//! Streams as a careful user expects them (issue 31): a pager that cannot start or fails, and
//! `show -f` that refuses what is not a file, ends promptly on Ctrl-C and reads each byte once.

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

// ---- grep ----

/// A pattern that asks for a newline finds nothing line by line: refused as ripgrep refuses it
/// (exit 2, one line naming the pattern escaped), when ripgrep refuses it.
#[test]
fn grep_refuses_a_pattern_with_a_newline_as_ripgrep_does() {
    let cases: &[(&[&str], bool)] = &[
        (&["a\nb"], true),
        (&["-F", "a\nb"], true),
        (&[r"a\nb"], true),
        (&[r"[\n]"], true),
        (&[r"\x0a"], true),
        (&[r"a\n?b"], true),
        (&["-i", r"\u000A"], true),
        (&[r"\s"], false),
        (&[r"[^a]"], false),
        (&[r"[a\n]"], false),
        (&["(?s)."], false),
        (&["plain"], false),
    ];
    for &(args, refused) in cases {
        let mut argv = vec!["grep"];
        argv.extend_from_slice(args);
        argv.push("--all");
        let r = crate::common::run(&argv);
        if refused {
            assert_eq!(r.code, 2, "{args:?}: {r:?}");
            assert!(
                r.stderr.contains(r#"is not allowed in a regex"#) && r.stderr.lines().count() == 1,
                "{args:?}: {r:?}"
            );
            assert!(!r.stderr.contains("a\nb"), "the pattern is escaped: {r:?}");
        } else {
            assert_ne!(r.code, 2, "{args:?}: {r:?}");
        }
        // ripgrep itself, when it is installed: the same refusals.
        if let Ok(rg) = std::process::Command::new("rg")
            .args(args)
            .arg("/dev/null")
            .output()
        {
            assert_eq!(rg.status.code() == Some(2), refused, "rg {args:?}: {rg:?}");
        }
    }
}

/// `-l` and `-c` print a path byte for byte into a pipe, as ripgrep does on Unix: a folder
/// whose name is not UTF-8 is not mangled (xargs gets the file that matched).
#[cfg(unix)]
#[test]
fn grep_lists_paths_byte_for_byte() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let folder = tmp
        .path()
        .join("sessions")
        .join(OsStr::from_bytes(b"--caf\xe9--"));
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("2026-01-01T00-00-00-000Z_a.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"type":"session","version":3,"id":"0196aaaa-0000-7000-8000-0000000000dd","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
            "\n",
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:01:00.000Z","message":{"role":"user","content":"needle","timestamp":1767225660000}}"#,
            "\n"
        ),
    )
    .unwrap();
    for (flag, tail) in [("-l", &b"\n"[..]), ("-c", &b":1\n"[..])] {
        let out = Command::new(BIN)
            .args(["grep", flag, "needle", "--all"])
            .env("PI_CODING_AGENT_DIR", tmp.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let mut want = file.as_os_str().as_bytes().to_vec();
        want.extend_from_slice(tail);
        assert_eq!(out.stdout, want, "{}", String::from_utf8_lossy(&out.stdout));
    }
}
