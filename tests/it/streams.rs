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

/// `tail -f x | pisess grep y -`: each hit of standard input is printed when its entry is
/// read, not when the stream ends, and `-l` ends at the entry after its first hit, however
/// long the stream stays open.
#[cfg(unix)]
#[test]
fn grep_prints_the_hits_of_standard_input_as_they_come() {
    use std::io::{BufRead as _, Write as _};
    use std::process::Stdio;
    let header = r#"{"type":"session","version":3,"id":"0196aaaa-0000-7000-8000-0000000000ee","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
    let entry = |id: &str, text: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":null,"timestamp":"2026-01-01T00:01:00.000Z","message":{{"role":"user","content":"{text}","timestamp":1767225660000}}}}"#
        )
    };
    for (flags, want) in [
        (&[][..], "0196aaaa  -  /p  (standard input)"),
        (
            &["--json"][..],
            r#"{"sessionId":"0196aaaa-0000-7000-8000-0000000000ee""#,
        ),
        (&["-l"][..], "-"),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let mut child = Command::new(BIN)
            .arg("grep")
            .args(flags)
            .args(["--color", "never", "needle", "-"])
            .env_clear()
            .env("HOME", tmp.path())
            .env("PI_CODING_AGENT_DIR", tmp.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        writeln!(stdin, "{header}\n{}", entry("u1", "a needle")).unwrap();
        stdin.flush().unwrap();
        // Standard input stays open: the hit is out all the same.
        let first = lines
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("{flags:?}: no hit while standard input is open"));
        assert!(first.starts_with(want), "{flags:?}: {first}");
        // With -l, the next entry ends the search though the stream goes on.
        writeln!(stdin, "{}", entry("u2", "no match")).unwrap();
        stdin.flush().unwrap();
        if flags == ["-l"] {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            let status = loop {
                if let Some(status) = child.try_wait().unwrap() {
                    break status;
                }
                assert!(std::time::Instant::now() < deadline, "-l did not end");
                std::thread::sleep(std::time::Duration::from_millis(10));
            };
            assert!(status.success(), "{status:?}");
        }
        drop(stdin);
        assert!(child.wait().unwrap().success());
    }
}

// ---- show -f ----

#[cfg(unix)]
const FOLLOWED: &str = r#"{"type":"session","version":3,"id":"f0110000-0000-0000-0000-0000000000ff","timestamp":"2026-07-31T10:00:00.000Z","cwd":"/p"}"#;

/// `pisess show -f --json PATH` with stdout lines on a channel and stderr collected.
#[cfg(unix)]
struct Followed {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
}

#[cfg(unix)]
impl Followed {
    fn start(path: &std::path::Path) -> Followed {
        use std::io::BufRead as _;
        let mut child = Command::new(BIN)
            .args(["show", "-f", "--json", "--color", "never"])
            .arg(path)
            .env_clear()
            .env("HOME", path.parent().unwrap())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        Followed { child, lines }
    }

    fn next(&self, within: std::time::Duration) -> String {
        self.lines.recv_timeout(within).expect("a line in time")
    }

    /// How the follow ended, within `limit` (a follow that does not end fails, never hangs).
    fn end_within(&mut self, limit: std::time::Duration) -> (std::process::ExitStatus, String) {
        let deadline = std::time::Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the follow did not end within {limit:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut err).unwrap();
        (status, err)
    }

    fn interrupt(&self) {
        let pid = rustix::process::Pid::from_raw(self.child.id() as i32).unwrap();
        rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    }
}

#[cfg(unix)]
impl Drop for Followed {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The followed path swapped for a symlink to a FIFO: refused as every command refuses a FIFO
/// (never an open that blocks until a writer comes); and Ctrl-C ends a follow as a finished
/// command, exit 0 and nothing on stderr (docs/guide.md, "Following a live session").
#[cfg(unix)]
#[test]
fn follow_refuses_a_fifo_swapped_in_and_ends_on_ctrl_c() {
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    std::fs::write(&path, format!("{FOLLOWED}\n")).unwrap();
    let mut f = Followed::start(&path);
    assert!(f.next(Duration::from_secs(5)).contains("f0110000"));
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    std::fs::rename(&link, &path).unwrap();
    // The swap wakes it (an event on the folder, or the check every second).
    let (status, err) = f.end_within(Duration::from_secs(5));
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("not a regular file (a FIFO)"), "{err}");

    // Ctrl-C while it waits on a regular file: a finished command. Only the interrupt's wake
    // ends a follow (the check every second never does), so an exit 0 at all says the signal
    // woke it; the 5 s limit only keeps a broken build from hanging the suite.
    let path = dir.path().join("quiet.jsonl");
    std::fs::write(&path, format!("{FOLLOWED}\n")).unwrap();
    let mut f = Followed::start(&path);
    assert!(f.next(Duration::from_secs(5)).contains("f0110000"));
    f.interrupt();
    let (status, err) = f.end_within(Duration::from_secs(5));
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}

/// The bytes a running process has read so far (`rchar` of /proc/PID/io: every `read`, from
/// files and pipes alike): a counter, so the bound below holds on a loaded machine as on a
/// quiet one, where a bound on CPU time did not.
#[cfg(target_os = "linux")]
fn bytes_read(pid: u32) -> u64 {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap();
    io.lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .expect("rchar in /proc/PID/io")
        .trim()
        .parse()
        .unwrap()
}

/// A line that grows to 96 MiB over 96 wakes before its `\n` comes: each byte is read once,
/// not the whole line again at every wake (which read 4.5 GiB), and the line, once whole, is
/// the entry shown.
#[cfg(target_os = "linux")]
#[test]
fn follow_reads_a_growing_unfinished_line_once() {
    use std::io::Write as _;
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    std::fs::write(&path, format!("{FOLLOWED}\n")).unwrap();
    let mut f = Followed::start(&path);
    assert!(f.next(Duration::from_secs(5)).contains("f0110000"));
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    let start = br#"{"type":"message","id":"big","parentId":null,"timestamp":"2026-07-31T10:00:01.000Z","message":{"role":"user","timestamp":1785492001000,"content":""#;
    file.write_all(start).unwrap();
    let chunk = vec![b'x'; 1 << 20];
    let before = bytes_read(f.child.id());
    for _ in 0..96 {
        file.write_all(&chunk).unwrap();
        file.flush().unwrap();
        std::thread::sleep(Duration::from_millis(15));
    }
    std::thread::sleep(Duration::from_millis(200));
    let read = bytes_read(f.child.id()) - before;
    file.write_all(b"\"}}\n").unwrap();
    // A hang detector, not a time budget.
    let line = f.next(Duration::from_secs(120));
    assert_eq!(
        line.len(),
        start.len() + (96 << 20) + 3,
        "the whole line, once"
    );
    assert!(line.starts_with(r#"{"type":"message","id":"big""#));
    f.interrupt();
    let (status, err) = f.end_within(Duration::from_secs(5));
    assert_eq!(status.code(), Some(0), "{err}");
    eprintln!("bytes read while the line grew: {read}");
    // Each byte read once is 96 MiB (and the file's first line); again at every wake it was
    // 4.5 GiB. The bound leaves room for reads of anything else, not for a second pass.
    assert!(
        read < 2 * (96 << 20),
        "{read} bytes read while a 96 MiB line grew"
    );
}

/// A line nested 10,000 deep on standard input (pi's `JSON.parse` reads it): every command that
/// reads stdin answers, as for the same file named. `stats -` and `check -` read stdin on
/// threads of their own (a tee to the summary and the index), which had the default stack and
/// died of a stack overflow (SIGABRT) from about 1,000 levels on dd4c2b5 and 884989d.
#[cfg(unix)]
#[test]
fn deep_lines_on_standard_input_are_read_on_a_big_stack() {
    use std::io::Write as _;
    use std::process::Stdio;
    let deep = format!("{}1{}", r#"{"k":"#.repeat(10_000), "}".repeat(10_000));
    let session = format!(
        "{}\n{}\n{}\n",
        r#"{"type":"session","version":3,"id":"0196aaaa-0000-7000-8000-0000000000ff","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
        format_args!(
            r#"{{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:01:00.000Z","message":{{"role":"user","content":"deep","timestamp":1767225660000,"x":{deep}}}}}"#
        ),
        r#"{"type":"custom","id":"a2","parentId":"a1","data":1}"#,
    );
    for args in [
        &["stats", "-"][..],
        &["stats", "--json", "-"],
        &["check", "-"],
        &["show", "-"],
        &["grep", "deep", "-"],
    ] {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let body = session.clone();
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(body.as_bytes());
        });
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "pisess {args:?}: {stderr}");
    }
}
