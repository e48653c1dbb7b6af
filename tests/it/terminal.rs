//! Issue 17, at the terminal: `show -f`, the pager, the `ls` table at several widths, dynamic
//! completion of session ids. Follow and completion run the binary; the pager runs it under a
//! pseudo-terminal (rexpect), since it pages only a terminal.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use pisess::app::env::{Env, Facts};
use pisess::app::global::GlobalArgs;

use crate::common::{examples_agent_dir, run_with, NOW_MS};

const BIN: &str = env!("CARGO_BIN_EXE_pisess");

/// The examples in the webshop project, with stdout a terminal of `columns` (as `COLUMNS`).
fn terminal_env(columns: &str) -> Env {
    terminal_env_at_home(columns, "/home/dev")
}

fn terminal_env_at_home(columns: &str, home: &str) -> Env {
    let mut facts = Facts::for_test("/home/dev/webshop", home, NOW_MS);
    facts.vars.insert(
        "PI_CODING_AGENT_DIR",
        examples_agent_dir().to_string_lossy().into_owned(),
    );
    facts.vars.insert("COLUMNS", columns.to_owned());
    facts.stdout_tty = true;
    facts.width = Some(100);
    Env::new(&GlobalArgs::default(), facts)
}

// ---- ls on a terminal ----

#[test]
fn ls_fits_every_width_and_always_shows_the_title() {
    let json = run_with(terminal_env("80"), &["ls", "--all", "--json"], b"");
    let titles: Vec<(String, String)> = json
        .stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let title = v["name"].as_str().or(v["firstMessage"].as_str()).unwrap();
            let id: String = v["id"].as_str().unwrap().chars().take(8).collect();
            (id, title.split_whitespace().next().unwrap().to_owned())
        })
        .collect();
    assert!(titles.len() > 10);
    for columns in [40, 60, 80, 200] {
        for sort in ["modified", "size"] {
            let env = terminal_env(&columns.to_string());
            let r = run_with(
                env,
                &["ls", "--all", "--sort", sort, "--color", "never"],
                b"",
            );
            assert_eq!(r.code, 0, "{}", r.stderr);
            let lines: Vec<&str> = r.stdout.lines().collect();
            assert_eq!(lines.len(), titles.len() + 1, "a heading and a row each");
            assert!(lines[0].trim_start().starts_with("ID "), "{}", lines[0]);
            assert!(lines[0].ends_with("TITLE"), "{}", lines[0]);
            for line in &lines {
                let w = unicode_width::UnicodeWidthStr::width(*line);
                assert!(w <= columns, "{w} > {columns} columns: {line}");
            }
            for (id, first_word) in &titles {
                let row = lines
                    .iter()
                    .find(|l| l.trim_start_matches(['*', ' ']).starts_with(id.as_str()))
                    .unwrap();
                let shown: String = first_word.chars().take(5).collect();
                assert!(row.contains(&shown), "{columns}: no title in {row}");
            }
            if columns >= 80 {
                assert!(lines[0].contains("CWD"), "{columns}: {}", lines[0]);
                assert_eq!(lines[0].contains("SIZE"), sort == "size", "{}", lines[0]);
            }
        }
    }
}

#[test]
fn ls_columns_line_up_and_a_cwd_is_cut_from_the_left() {
    let env = terminal_env_at_home("60", "/elsewhere");
    let r = run_with(env, &["ls", "--all", "--color", "never"], b"");
    let lines: Vec<&str> = r.stdout.lines().collect();
    let title_at = lines[0].find("TITLE").unwrap();
    for line in &lines[1..] {
        let prefix: String = line.chars().take(title_at).collect();
        assert!(
            prefix.ends_with("  "),
            "the title column starts at one place: {line}"
        );
    }
    assert!(r.stdout.contains("…/webshop"), "{}", r.stdout);
    // Piped (no terminal): no heading, nothing cut, the cwd padded all the same.
    let mut env = crate::common::example_env();
    env.width = None;
    let r = run_with(env, &["ls", "--all", "--color", "never"], b"");
    assert!(
        !r.stdout.contains("TITLE") && !r.stdout.contains('…'),
        "{}",
        r.stdout
    );
    // `~/pisess` padded to the width of `/Users/x/app`, then the gap.
    for line in r.stdout.lines().filter(|l| l.contains("~/pisess")) {
        assert!(
            line.contains("~/pisess      Wh") || line.contains("~/pisess      Im"),
            "{line}"
        );
    }
}

#[test]
fn bold_marks_the_name_only() {
    let mut env = terminal_env("200");
    env.color_stdout = true;
    let r = run_with(env, &["ls", "--all"], b"");
    let named = r
        .stdout
        .lines()
        .find(|l| l.contains("discount codes"))
        .unwrap();
    // The cwd before it is not inside the bold run.
    let bold_at = named.find("\u{1b}[1m").unwrap();
    assert!(
        named[bold_at..].starts_with("\u{1b}[1mCheckout: discount codes"),
        "{named:?}"
    );
}

#[test]
fn an_empty_listing_says_where_it_looked() {
    let mut env = terminal_env("80");
    env.inputs.cwd = PathBuf::from("/home/dev/nothing-here");
    env.location = pisess_store::locate::Location::resolve(&env.inputs);
    let r = run_with(env, &["ls"], b"");
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.contains("no sessions for ~/nothing-here in "),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("--home-dev-nothing-here--"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("pisess ls --all"), "{}", r.stderr);
}

#[test]
fn ls_warns_only_about_files_it_lists() {
    // The damaged example (a torn line) is the pisess project's, from 2025-05-21.
    let everything = run_with(terminal_env("80"), &["ls", "--all"], b"");
    assert!(
        everything.stderr.contains("malformed JSON"),
        "{}",
        everything.stderr
    );
    let env = terminal_env("80");
    let r = run_with(env, &["ls", "--all", "--until", "2025-05-01"], b"");
    assert!(r.stdout.contains("/Users/x/app"), "{}", r.stdout);
    assert_eq!(r.stderr, "", "the damaged file is not listed");
}

// ---- show -f ----

/// A session file being written, and a follow of it whose stdout lines arrive on a channel.
struct Follow {
    _dir: tempfile::TempDir,
    path: PathBuf,
    child: Child,
    lines: mpsc::Receiver<String>,
}

const HEADER: &str = r#"{"type":"session","version":3,"id":"f0110000-0000-0000-0000-000000000000","timestamp":"2026-07-31T10:00:00.000Z","cwd":"/p"}"#;

fn entry(id: &str, parent: Option<&str>, text: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-07-31T10:00:01.000Z","message":{{"role":"user","content":"{text}","timestamp":1785492001000}}}}"#
    )
}

impl Follow {
    fn start(initial: &str, args: &[&str]) -> Follow {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("live.jsonl");
        fs::write(&path, initial).unwrap();
        let mut child = Command::new(BIN)
            .args(["show", "-f", "--color", "never"])
            .args(args)
            .arg(&path)
            .env_clear()
            .env("HOME", dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        Follow {
            _dir: dir,
            path,
            child,
            lines,
        }
    }

    fn append(&self, text: &str) {
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(&self.path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    /// The next line printed, which must come within a second.
    fn next(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(1))
            .expect("a line within a second")
    }

    fn nothing_for(&self, wait: Duration) {
        if let Ok(line) = self.lines.recv_timeout(wait) {
            panic!("printed {line} too early");
        }
    }

    fn stderr_and_code(mut self) -> (String, Option<i32>) {
        // A follow that does not end is a failure, never a hung test run.
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the follow did not end");
            std::thread::sleep(Duration::from_millis(20));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut err).unwrap();
        (err, status.code())
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn id_of(line: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v["id"].as_str().unwrap().to_owned()
}

#[test]
fn follow_prints_appends_waits_for_torn_lines_and_starts_again() {
    let initial = format!("{HEADER}\n{}\n", entry("a1", None, "first"));
    let f = Follow::start(&initial, &["--json"]);
    assert_eq!(id_of(&f.next()), "f0110000-0000-0000-0000-000000000000");
    assert_eq!(id_of(&f.next()), "a1");

    f.append(&format!("{}\n", entry("a2", Some("a1"), "second")));
    assert_eq!(id_of(&f.next()), "a2");

    // A torn line: nothing until pi finishes it.
    let torn = entry("a3", Some("a2"), "third");
    let (head, tail) = torn.split_at(40);
    f.append(head);
    f.nothing_for(Duration::from_millis(600));
    f.append(&format!("{tail}\n"));
    assert_eq!(id_of(&f.next()), "a3");

    // Truncated, then written again: the header and its entries once more.
    fs::write(&f.path, format!("{HEADER}\n")).unwrap();
    assert_eq!(id_of(&f.next()), "f0110000-0000-0000-0000-000000000000");
    f.append(&format!("{}\n", entry("b1", None, "after truncation")));
    assert_eq!(id_of(&f.next()), "b1");

    // Replaced by another file (a rename over it).
    let other = f.path.with_extension("new");
    fs::write(
        &other,
        format!("{HEADER}\n{}\n", entry("c1", None, "new file")),
    )
    .unwrap();
    fs::rename(&other, &f.path).unwrap();
    assert_eq!(id_of(&f.next()), "f0110000-0000-0000-0000-000000000000");
    assert_eq!(id_of(&f.next()), "c1");
}

#[test]
fn follow_says_when_it_starts_again_and_idle_exit_ends_it() {
    let initial = format!("{HEADER}\n{}\n", entry("a1", None, "first"));
    let f = Follow::start(&initial, &["--idle-exit", "2s"]);
    let started = Instant::now();
    assert!(f.next().contains("a1"));
    fs::write(&f.path, format!("{HEADER}\n")).unwrap();
    // The blank line between blocks, then the new block.
    f.append(&format!("{}\n", entry("b1", None, "again")));
    let mut seen = String::new();
    while !seen.contains("b1") {
        seen.push_str(&f.next());
    }
    let (err, code) = f.stderr_and_code();
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("live.jsonl was truncated; showing it again"),
        "{err}"
    );
    let took = started.elapsed();
    assert!(
        took >= Duration::from_secs(2),
        "idle for 2s after the last entry: {took:?}"
    );
}

#[cfg(unix)]
#[test]
fn follow_ends_quietly_on_ctrl_c_and_on_a_closed_pipe() {
    let initial = format!("{HEADER}\n{}\n", entry("a1", None, "first"));
    let f = Follow::start(&initial, &["--json"]);
    f.next();
    f.next();
    let pid = rustix::process::Pid::from_raw(i32::try_from(f.child.id()).unwrap()).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    let (err, code) = f.stderr_and_code();
    assert_eq!((code, err.as_str()), (Some(0), ""));

    // `pisess show -f S | head -1`: the reader goes; the next write ends the follow.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.jsonl");
    fs::write(&path, &initial).unwrap();
    let mut child = Command::new(BIN)
        .args(["show", "-f", "--json"])
        .arg(&path)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    drop(stdout);
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the follow did not end");
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        writeln!(f, "{}", entry("a9", None, "more")).unwrap();
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!((status.code(), err.as_str()), (Some(0), ""));
}

#[test]
fn follow_of_stdin_reads_as_it_comes() {
    let mut child = Command::new(BIN)
        .args(["show", "-f", "--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let _ = tx.send(line.unwrap());
        }
    });
    writeln!(stdin, "{HEADER}\n{}", entry("s1", None, "piped")).unwrap();
    stdin.flush().unwrap();
    let wait = Duration::from_secs(1);
    assert!(rx.recv_timeout(wait).unwrap().contains("\"session\""));
    assert!(
        rx.recv_timeout(wait).unwrap().contains("s1"),
        "before stdin ends"
    );
    drop(stdin);
    assert!(child.wait().unwrap().success());
}

// ---- the pager ----

/// Runs `pisess ARGS` under a pseudo-terminal of `rows` rows, with a stub pager that records
/// what it was given: (what the terminal showed, what the pager got, if it ran).
#[cfg(unix)]
fn under_a_terminal(rows: u16, pager: Option<&str>, args: &[&str]) -> (String, Option<String>) {
    under_a_terminal_of(rows, 100, pager, args)
}

#[cfg(unix)]
fn under_a_terminal_of(
    rows: u16,
    cols: u16,
    pager: Option<&str>,
    args: &[&str],
) -> (String, Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let got = dir.path().join("paged");
    let mut cmd = Command::new("sh");
    let script =
        format!("stty rows {rows} cols {cols}; exec \"$0\" --cwd /home/dev/webshop \"$@\"",);
    cmd.arg("-c").arg(script).arg(BIN).args(args);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", "/home/dev")
        .env("PI_CODING_AGENT_DIR", examples_agent_dir());
    let stub = format!("cat > '{}'", got.display());
    cmd.env("PISESS_PAGER", pager.unwrap_or(&stub));
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    let shown = p.exp_eof().unwrap();
    let paged = fs::read_to_string(&got).ok();
    (shown, paged)
}

#[cfg(unix)]
#[test]
fn the_pager_takes_output_taller_than_the_terminal() {
    let (shown, paged) = under_a_terminal(10, None, &["show", "0196c9f4"]);
    let paged = paged.expect("the pager ran");
    assert!(paged.lines().count() > 10, "{paged}");
    assert!(paged.contains("user"), "{paged}");
    assert!(
        !shown.contains("user"),
        "nothing went around the pager: {shown}"
    );
    // Colour is kept: the terminal's decision, not the pipe's.
    assert!(paged.contains('\u{1b}'), "{paged:?}");
}

#[cfg(unix)]
#[test]
fn the_pager_is_skipped_when_output_fits_or_with_no_pager() {
    let (shown, paged) = under_a_terminal(200, None, &["tree", "0196c3c5"]);
    assert_eq!(paged, None);
    assert!(shown.contains(" active"), "{shown}");
    let (shown, paged) = under_a_terminal(5, None, &["--no-pager", "tree", "0196c3c5"]);
    assert_eq!(paged, None);
    assert!(shown.contains(" active"), "{shown}");
    // A pager that quits at once (`q` in less) is not an error.
    let (shown, paged) = under_a_terminal(5, Some("true"), &["context", "0196c9f4"]);
    assert_eq!(paged, None);
    assert!(!shown.contains("error"), "{shown}");
}

/// The terminal's own width, read from the pseudo-terminal (no COLUMNS set).
#[cfg(unix)]
#[test]
fn ls_under_a_40_column_terminal() {
    let (shown, _) = under_a_terminal_of(50, 40, None, &["ls", "--all", "-q", "--color", "never"]);
    let rows: Vec<&str> = shown.lines().filter(|l| l.contains("0196")).collect();
    assert!(rows.len() > 10, "{shown}");
    // rexpect reads bytes as Latin-1: count characters of the UTF-8 text instead.
    for row in rows {
        let text = String::from_utf8(row.chars().map(|c| c as u8).collect()).unwrap();
        let width = unicode_width::UnicodeWidthStr::width(text.trim_end_matches('\r'));
        assert!(width <= 40, "{width}: {text}");
    }
}

#[test]
fn never_a_pager_into_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let got = dir.path().join("paged");
    let out = Command::new(BIN)
        .args(["--cwd", "/home/dev/webshop", "show", "0196c9f4"])
        .env("PI_CODING_AGENT_DIR", examples_agent_dir())
        .env("PISESS_PAGER", format!("cat > '{}'", got.display()))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!got.exists());
    assert!(String::from_utf8_lossy(&out.stdout).contains("user"));
}

// ---- dynamic completion ----

/// A session file of `id` (with one user message `said`) in `dir`.
fn write_session(dir: &std::path::Path, id: &str, cwd: &str, said: &str) {
    fs::create_dir_all(dir).unwrap();
    let header = format!(
        r#"{{"type":"session","version":3,"id":"{id}","timestamp":"2026-07-01T10:00:00.000Z","cwd":"{cwd}"}}"#
    );
    let user = entry("e1", None, said);
    let file = dir.join(format!("2026-07-01T10-00-00-000Z_{id}.jsonl"));
    fs::write(file, format!("{header}\n{user}\n")).unwrap();
}

#[test]
fn completion_offers_this_projects_ids_first() {
    let tmp = tempfile::tempdir().unwrap();
    let here = tmp.path().join("here");
    fs::create_dir_all(&here).unwrap();
    let here = here.canonicalize().unwrap();
    let agent = tmp.path().join("agent");
    let folder = |cwd: &str| {
        let cwd = cwd.trim_start_matches('/').replace(['/', '\\', ':'], "-");
        agent.join("sessions").join(format!("--{cwd}--"))
    };
    let here_str = here.to_string_lossy().into_owned();
    write_session(&folder(&here_str), "abc2-mine", &here_str, "mine");
    write_session(&folder("/other"), "abc1-theirs", "/other", "theirs");
    write_session(&folder("/other"), "zzz9-other", "/other", "unrelated");
    let complete = |shell: &str, word: &str| {
        let out = Command::new(BIN)
            .args(["--", "pisess", "show", word])
            .current_dir(&here)
            .env_clear()
            // What the bash and zsh hooks pass: the word's index, the separator to print.
            .env("_CLAP_COMPLETE_INDEX", "2")
            .env("_CLAP_IFS", "\n")
            .env("HOME", tmp.path())
            .env("PI_CODING_AGENT_DIR", &agent)
            .env("COMPLETE", shell)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let got = complete("fish", "abc");
    let values: Vec<&str> = got.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(values, ["abc2-mine", "abc1-theirs"], "{got}");
    assert!(
        got.lines().next().unwrap().ends_with("\tmine"),
        "the title is the help: {got}"
    );
    assert!(!complete("fish", "zzz").contains("abc"));
    for shell in ["bash", "zsh"] {
        let got = complete(shell, "abc");
        let first = |v: &str| got.find(v).unwrap_or_else(|| panic!("{shell}: {got}"));
        assert!(first("abc2-mine") < first("abc1-theirs"), "{shell}: {got}");
    }
}

#[test]
fn context_previews_follow_the_width_given() {
    let widest = |columns: Option<&str>| {
        let mut facts = Facts::for_test("/home/dev/webshop", "/home/dev", NOW_MS);
        facts.vars.insert(
            "PI_CODING_AGENT_DIR",
            examples_agent_dir().to_string_lossy().into_owned(),
        );
        if let Some(c) = columns {
            facts.vars.insert("COLUMNS", c.to_owned());
        }
        let env = Env::new(&GlobalArgs::default(), facts);
        let r = run_with(env, &["context", "0196c9f4"], b"");
        // The previews: the lines under each message's head.
        r.stdout
            .lines()
            .filter(|l| l.starts_with("      "))
            .map(unicode_width::UnicodeWidthStr::width)
            .max()
            .unwrap()
    };
    assert!(widest(Some("60")) <= 60);
    assert!(widest(Some("200")) > 130, "not the fixed 120 columns");
    assert!(widest(None) <= 130, "piped without COLUMNS: the default");
}
