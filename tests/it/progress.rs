//! Issue 49: the progress line of a run over a store, under a pseudo-terminal (rexpect) and in a
//! pipe. The test hook `PISESS_PROGRESS_FRAMES` shows the line at once and draws it once per
//! file, so what the terminal shows depends on the count of files, never on time; whether it is
//! shown at all is decided as without the hook.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::examples_agent_dir;

const BIN: &str = env!("CARGO_BIN_EXE_pisess");

/// The commands that run over every session of the store.
const RUNS: [&str; 4] = [
    "ls --all --json --no-cache",
    "stats --all --by day --no-cache",
    "grep --all --no-cache -l cart",
    "check --all",
];

fn command(program: &str, home: &Path, vars: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(program);
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        // A terminal that moves its cursor: a dumb one (or none named) gets no line.
        .env("TERM", "xterm")
        .env("PI_CODING_AGENT_DIR", examples_agent_dir());
    cmd.envs(vars.iter().copied());
    cmd
}

/// `args` with stderr a terminal and stdout a file: what the terminal showed, and stdout.
fn on_a_terminal(vars: &[(&str, &str)], args: &str) -> (String, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = command("sh", dir.path(), vars);
    // A terminal of some width: rexpect's has none.
    let script = format!("stty cols 200; exec \"$0\" {args} > '{}'", out.display());
    cmd.arg("-c").arg(script).arg(BIN);
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).unwrap();
    let shown = p.exp_eof().unwrap();
    (shown, fs::read(&out).unwrap())
}

/// `args` in pipes: stdout and stderr.
fn in_pipes(vars: &[(&str, &str)], args: &str) -> (Vec<u8>, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = command(BIN, dir.path(), vars);
    let out = cmd
        .args(args.split(' '))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.stdout, out.stderr)
}

/// The counts of files done in each frame drawn, and the total each frame names.
fn frames(shown: &str) -> Vec<(u64, u64)> {
    let re = regex::Regex::new(r"(\d+)/(\d+) files").unwrap();
    re.captures_iter(shown)
        .map(|c| (c[1].parse().unwrap(), c[2].parse().unwrap()))
        .collect()
}

/// The session files of the examples, as `--all` lists them.
fn example_files() -> u64 {
    let root = examples_agent_dir().join("sessions");
    let mut n = 0;
    for folder in fs::read_dir(root).unwrap() {
        let folder = folder.unwrap().path();
        if folder.is_dir() {
            for f in fs::read_dir(folder).unwrap() {
                let f = f.unwrap().path();
                n += u64::from(f.extension().is_some_and(|e| e == "jsonl") && f.is_file());
            }
        }
    }
    n
}

#[cfg(unix)]
#[test]
fn the_line_appears_counts_every_file_and_is_cleared_on_a_terminal() {
    let all = example_files();
    assert!(all > 10, "{all} example files");
    for args in RUNS {
        let (shown, stdout) = on_a_terminal(&[("PISESS_PROGRESS_FRAMES", "1")], args);
        let frames = frames(&shown);
        // One run or more (check lists, then checks), each drawn at 0, once per file, and
        // never counting back within a run.
        let mut runs: Vec<Vec<(u64, u64)>> = Vec::new();
        for f in &frames {
            if f.0 == 0 {
                runs.push(Vec::new());
            }
            runs.last_mut().expect("a run starts at 0").push(*f);
        }
        assert!(!runs.is_empty(), "{args}: no line drawn: {shown:?}");
        assert_eq!(
            runs[0][0].1, all,
            "{args}: the first run is over every file"
        );
        for run in &runs {
            let total = run[0].1;
            assert_eq!(run.len() as u64, total + 1, "{args}: {run:?}");
            assert!(run.windows(2).all(|w| w[0].0 <= w[1].0 && w[1].1 == total));
            assert_eq!(run.last().unwrap().0, total, "{args}: {run:?}");
        }
        assert!(shown.contains(" B/"), "{args}: bytes shown: {shown:?}");
        // Cleared: after the last frame the line is erased and nothing of it is written again.
        let last = shown.rfind(" files").unwrap();
        assert!(shown[last..].contains("\u{1b}[2K"), "{args}: {shown:?}");
        // stdout is the same bytes as without the line.
        let (piped, _) = in_pipes(&[], args);
        assert_eq!(stdout, piped, "{args}: stdout changed");
    }
}

#[cfg(unix)]
#[test]
fn never_in_a_pipe_with_q_on_ci_or_when_turned_off() {
    for args in RUNS {
        let (stdout, stderr) = in_pipes(&[], args);
        let asked = [("PISESS_PROGRESS_FRAMES", "1"), ("PISESS_PROGRESS", "1")];
        assert_eq!(in_pipes(&asked, args), (stdout, stderr), "{args}");
    }
    let args = RUNS[0];
    let hook = ("PISESS_PROGRESS_FRAMES", "1");
    let never: [&[(&str, &str)]; 3] = [
        &[hook, ("CI", "true")],
        &[hook, ("PISESS_PROGRESS", "0")],
        &[hook, ("PISESS_PROGRESS", "0"), ("CI", "true")],
    ];
    for vars in never {
        let (shown, _) = on_a_terminal(vars, args);
        assert_eq!(frames(&shown), [], "{vars:?}: {shown:?}");
    }
    let (shown, _) = on_a_terminal(&[hook], &format!("{args} -q"));
    assert_eq!(frames(&shown), [], "-q: {shown:?}");
    // Asked for on CI: shown.
    let (shown, _) = on_a_terminal(&[hook, ("CI", "true"), ("PISESS_PROGRESS", "1")], args);
    assert!(!frames(&shown).is_empty(), "{shown:?}");
}

/// Without the hook, a run shorter than the threshold (the examples are read in a few
/// milliseconds) draws nothing at all.
#[cfg(unix)]
#[test]
fn a_short_run_draws_nothing() {
    for args in RUNS {
        let (shown, _) = on_a_terminal(&[], args);
        assert_eq!(frames(&shown), [], "{args}: {shown:?}");
        assert!(!shown.contains("\u{1b}[2K"), "{args}: {shown:?}");
    }
}

/// The real thing, without the hook: a run held open past the threshold (by standard input,
/// searched in its turn after the file, which the test feeds only once the line is seen) shows
/// the line, redraws it on indicatif's tick, and erases it at the end. Bound by what the test
/// writes, not by time: the run cannot end before the line has appeared.
#[cfg(unix)]
#[test]
fn a_run_held_past_the_threshold_shows_the_line_then_erases_it() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        crate::common::missing_tool("mkfifo");
        return;
    }
    let session = examples_agent_dir()
        .join("sessions/--home-dev-webshop--")
        .join("2025-05-13T14-02-41-507Z_0196c9f4-6de3-72e6-909e-4956fe3ca2e7.jsonl");
    let mut cmd = command("sh", dir.path(), &[]);
    let script = format!(
        "stty cols 200; cat '{}' | exec \"$0\" grep -c cart \"$1\" - > /dev/null",
        fifo.display()
    );
    cmd.arg("-c").arg(script).arg(BIN).arg(&session);
    let mut p = rexpect::session::spawn_command(cmd, Some(60_000)).unwrap();
    let (_, first) = p.exp_regex(r"\d+/1 files[^\r]*").unwrap();
    assert!(first.starts_with("1/1 files"), "{first:?}");
    // A second frame: redrawn while the run waits.
    p.exp_string("\r\u{1b}[2K").unwrap();
    p.exp_regex(r"1/1 files").unwrap();
    fs::write(&fifo, fs::read(&session).unwrap()).unwrap();
    let rest = p.exp_eof().unwrap();
    let last = rest.rfind(" files").map_or(0, |at| at);
    assert!(rest[last..].contains("\u{1b}[2K"), "not erased: {rest:?}");
}
