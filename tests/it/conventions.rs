//! The conventions of a command-line tool: help that documents everything, generated files that
//! match the clap definition, colour decided per stream, quiet exits on a closed pipe, and
//! one-line error messages. Colour, pipes and exit codes of the parser are properties of the
//! real process, so those tests run the binary; the rest run in-process.

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Output, Stdio};

use clap::CommandFactory;
use pisess::app::cli::Cli;

use crate::common::{env_in, example_env, examples_agent_dir, repo, run, run_with};
use crate::snap;

const BIN: &str = env!("CARGO_BIN_EXE_pisess");
const ESC: u8 = 0x1b;

/// The generated files and the `pisess generate` argument that writes each.
const ASSETS: [(&str, &str); 6] = [
    ("bash", "completions/pisess.bash"),
    ("zsh", "completions/_pisess"),
    ("fish", "completions/pisess.fish"),
    ("powershell", "completions/_pisess.ps1"),
    ("elvish", "completions/pisess.elv"),
    ("man", "docs/pisess.1"),
];

#[test]
fn committed_completions_and_man_page_are_up_to_date() {
    let mut stale = Vec::new();
    for (kind, file) in ASSETS {
        let cli = <Cli as clap::Parser>::try_parse_from(["pisess", "generate", kind]).unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let result = pisess::run(cli, &example_env(), &mut out, &mut err, &mut &b""[..]);
        assert_eq!(
            pisess::finish(&result, &mut err),
            0,
            "generate {kind} failed"
        );
        assert!(!out.is_empty(), "generate {kind} wrote nothing");
        let committed = fs::read(repo().join(file)).unwrap_or_default();
        if committed != out {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "out of date with the clap definition: {}; run scripts/generate-assets.sh and commit the result",
        stale.join(", ")
    );
}

/// Every subcommand has a description and examples, and every visible argument a help text:
/// a new option without a doc comment fails here, not in a user's terminal.
#[test]
fn every_command_and_option_is_documented() {
    let mut cmd = Cli::command();
    cmd.build();
    let mut missing = Vec::new();
    let commands = std::iter::once(&cmd).chain(
        cmd.get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help"),
    );
    for c in commands {
        let name = c.get_bin_name().unwrap_or(c.get_name()).to_owned();
        if c.get_about().is_none() {
            missing.push(format!("{name}: about"));
        }
        if !c
            .get_after_long_help()
            .is_some_and(|h| h.to_string().contains("Examples:"))
        {
            missing.push(format!("{name}: examples in after_long_help"));
        }
        for arg in c.get_arguments().filter(|a| !a.is_hide_set()) {
            if arg.get_help().is_none() {
                missing.push(format!("{name} {}: help", arg.get_id()));
            }
        }
    }
    assert!(missing.is_empty(), "undocumented: {missing:#?}");
    let long = Cli::command()
        .term_width(100)
        .render_long_help()
        .to_string();
    for needle in [
        "Exit codes:",
        "PI_CODING_AGENT_DIR",
        "PI_CODING_AGENT_SESSION_DIR",
        "PI_SESSION_FILE",
        "NO_COLOR",
        "jq -e",
    ] {
        assert!(long.contains(needle), "--help lacks {needle}");
    }
}

/// The help as the parser prints it, at a fixed width (clap wraps at the terminal's).
fn help(args: &[&str]) -> String {
    let err = Cli::command()
        .term_width(100)
        .try_get_matches_from(std::iter::once("pisess").chain(args.iter().copied()))
        .expect_err("--help ends parsing");
    assert_eq!(err.kind(), clap::error::ErrorKind::DisplayHelp);
    err.render().to_string()
}

#[test]
fn help_snapshots() {
    snap!("help_long", help(&["--help"]));
    snap!("help_ls", help(&["ls", "--help"]));
    // The exit codes of grep are ripgrep's, and said in its help.
    snap!("help_grep", help(&["grep", "--help"]));
}

/// `$ ARGS` then what the run printed on stderr and its exit code, for the error snapshot.
fn transcript(args: &[&str], code: u8, stderr: &str) -> String {
    format!("$ pisess {}\n{stderr}(exit {code})\n\n", args.join(" "))
}

/// Writes a minimal session file.
fn session(dir: &Path, id: &str, cwd: &str) {
    fs::create_dir_all(dir).unwrap();
    fs::write(
        dir.join(format!("2026-01-01T00-00-00-000Z_{id}.jsonl")),
        format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"{cwd}\"}}\n"
        ),
    )
    .unwrap();
}

#[test]
fn error_messages_are_one_line_and_say_where() {
    let mut text = String::new();
    let examples = examples_agent_dir().display().to_string();

    // A lookup that finds nothing, in the examples (their path replaced for a stable snapshot).
    for args in [
        &["context", "nosuch"][..],
        &["path", "0196"],
        &["--cwd", "/home/dev/nowhere", "context"],
        &["ls", "--since", "last-week"],
        &["context", "no/such/file.jsonl"],
        &["path", "fix/login"],
    ] {
        let r = run(args);
        text.push_str(&transcript(
            args,
            r.code,
            &r.stderr.replace(&examples, "<examples>"),
        ));
    }

    // pi's default agent dir under a home of our own: paths in messages start with `~`.
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    let sessions = home.join(".pi/agent/sessions");
    session(&sessions.join("--p--"), "abc11111-0000", "/p");
    session(&sessions.join("--p--"), "abc22222-0000", "/p");
    session(&sessions.join("--q--"), "abd33333-0000", "/q");
    let env = || {
        let mut env = env_in(Path::new("unused"), "/p");
        env.inputs.home.clone_from(&home);
        env.inputs.env_agent_dir = None;
        env
    };
    for args in [
        &["path", "abc"][..],
        &["--cwd", "/r", "path", "ab"],
        &["path", "zzz"],
        &["--cwd", "/r", "context"],
    ] {
        let r = run_with(env(), args, b"");
        text.push_str(&transcript(args, r.code, &r.stderr));
    }
    let empty = tempfile::tempdir().unwrap();
    let mut nowhere = env();
    nowhere.inputs.home = empty.path().to_path_buf();
    let r = run_with(nowhere, &["path", "abc"], b"");
    text.push_str(&transcript(
        &["path", "abc"],
        r.code,
        &r.stderr
            .replace(&empty.path().display().to_string(), "<empty home>"),
    ));

    // Usage errors come from the parser, in the real process.
    for args in [&["frobnicate"][..], &["lss"], &["ls", "--sort", "price"]] {
        let out = Command::new(BIN).args(args).output().unwrap();
        let code = u8::try_from(out.status.code().unwrap()).unwrap();
        assert!(out.stdout.is_empty());
        text.push_str(&transcript(
            args,
            code,
            &String::from_utf8_lossy(&out.stderr),
        ));
    }

    for case in text.split("\n\n").filter(|c| !c.is_empty()) {
        let lines: Vec<&str> = case.lines().collect();
        // `$ command`, one `pisess: error:` line, `(exit N)`.
        assert_eq!(lines.len(), 3, "not one line:\n{case}");
        assert!(lines[1].starts_with("pisess: error: "), "{case}");
    }
    snap!("error_messages", text);
}

#[test]
fn usage_errors_exit_2_and_lookups_exit_1() {
    let out = Command::new(BIN).arg("frobnicate").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(run(&["ls", "--since", "last-week"]).code, 2);
    assert_eq!(run(&["context", "nosuch"]).code, 1);
    // Help and version are not errors.
    let out = Command::new(BIN).arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty());
}

/// `program` on the bundled examples: no live session, `NO_COLOR` as given, stdin closed.
fn on_examples(program: &str, no_color: Option<&str>) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("PI_CODING_AGENT_DIR", examples_agent_dir())
        .env_remove("NO_COLOR")
        .env_remove("PI_SESSION_FILE")
        .stdin(Stdio::null());
    if let Some(v) = no_color {
        cmd.env("NO_COLOR", v);
    }
    cmd
}

/// The real binary on the bundled examples, stdout and stderr piped.
fn piped(args: &[&str], no_color: Option<&str>) -> Output {
    on_examples(BIN, no_color).args(args).output().unwrap()
}

fn has_esc(bytes: &[u8]) -> bool {
    bytes.contains(&ESC)
}

/// `--cwd /home/dev/pisess ls`: a listing on stdout and, for the damaged example session, a
/// warning on stderr, so both streams have something to colour.
const LS_WITH_WARNING: [&str; 4] = ["--cwd", "/home/dev/pisess", "ls", "--all"];

#[test]
fn piped_output_is_not_coloured_unless_asked() {
    let out = piped(&LS_WITH_WARNING, None);
    assert_eq!(out.status.code(), Some(0));
    assert!(!out.stdout.is_empty() && !out.stderr.is_empty());
    assert!(!has_esc(&out.stdout), "auto, piped stdout");
    assert!(!has_esc(&out.stderr), "auto, piped stderr");

    let mut always = vec!["--color", "always"];
    always.extend(LS_WITH_WARNING);
    let out = piped(&always, None);
    assert!(has_esc(&out.stdout), "--color always, stdout");
    assert!(has_esc(&out.stderr), "--color always, stderr");
    // An explicit --color always beats NO_COLOR.
    let out = piped(&always, Some("1"));
    assert!(has_esc(&out.stdout) && has_esc(&out.stderr));

    let out = piped(&LS_WITH_WARNING, Some("1"));
    assert!(
        !has_esc(&out.stdout) && !has_esc(&out.stderr),
        "NO_COLOR + auto"
    );

    let mut never = vec!["--color", "never"];
    never.extend(LS_WITH_WARNING);
    let out = piped(&never, None);
    assert!(!has_esc(&out.stdout) && !has_esc(&out.stderr));

    // JSON is data: never coloured, even when asked.
    let out = piped(&["--color", "always", "ls", "--all", "--json", "-q"], None);
    assert!(!out.stdout.is_empty() && !has_esc(&out.stdout));
}

/// Runs a shell command line on a pseudo-terminal (rexpect forks `sh` on a pty's slave side,
/// as the `rm` prompt tests do) and returns what reached the terminal. Nothing to install, so
/// the test cannot skip itself.
#[cfg(unix)]
fn on_terminal(command_line: &str, no_color: Option<&str>) -> Vec<u8> {
    use rexpect::process::WaitStatus;

    let mut cmd = on_examples("sh", no_color);
    cmd.args(["-c", command_line]);
    let mut p = rexpect::session::spawn_command(cmd, Some(30_000)).unwrap();
    let shown = p.exp_eof().unwrap();
    let status = p.process().wait().unwrap();
    assert!(
        matches!(status, WaitStatus::Exited(_, 0)),
        "{command_line}: {status:?}\n{shown}"
    );
    shown.into_bytes()
}

/// Quotes for `sh`: the paths here hold no single quote.
#[cfg(unix)]
fn sh_quote(s: &str) -> String {
    assert!(!s.contains('\''));
    format!("'{s}'")
}

#[cfg(unix)]
#[test]
fn a_terminal_gets_colour_unless_no_color_and_each_stream_decides_alone() {
    let ls = format!("{} {}", sh_quote(BIN), LS_WITH_WARNING.join(" "));
    let tty = on_terminal(&ls, None);
    assert!(has_esc(&tty), "auto on a terminal: colour");
    assert!(String::from_utf8_lossy(&tty).contains("0196ec7d"));

    let plain = on_terminal(&ls, Some("1"));
    assert!(!has_esc(&plain), "NO_COLOR=1 on a terminal: none");
    assert!(String::from_utf8_lossy(&plain).contains("0196ec7d"));
    // An empty NO_COLOR is unset (no-color.org).
    assert!(has_esc(&on_terminal(&ls, Some(""))));

    // stdout on the terminal, stderr into a file: only stdout is coloured.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("stream");
    let file_q = sh_quote(&file.display().to_string());
    let tty = on_terminal(&format!("{ls} 2>{file_q}"), None);
    let err = fs::read(&file).unwrap();
    assert!(has_esc(&tty), "stdout on the terminal");
    assert!(String::from_utf8_lossy(&err).contains("pisess: warning:"));
    assert!(!has_esc(&err), "stderr into a file");

    // And the other way round.
    let tty = on_terminal(&format!("{ls} >{file_q}"), None);
    let out = fs::read(&file).unwrap();
    assert!(String::from_utf8_lossy(&tty).contains("warning:"));
    assert!(has_esc(&tty), "stderr on the terminal");
    assert!(!out.is_empty() && !has_esc(&out), "stdout into a file");
}

#[test]
fn a_closed_pipe_ends_the_listing_quietly() {
    // Far more than a pipe holds (64 KiB), so pisess is still writing when the reader goes,
    // as in `pisess ls | head -1` or `pisess grep … | head -1`.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("sessions").join("--p--");
    fs::create_dir_all(&dir).unwrap();
    let long = "a long first message ".repeat(30);
    for i in 0..2000 {
        let id = format!("{i:08x}-0000-7000-8000-000000000000");
        fs::write(
            dir.join(format!("2026-01-01T00-00-00-000Z_{id}.jsonl")),
            format!(
                "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}}\n\
                 {{\"type\":\"message\",\"id\":\"m\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"{i} {long}\"}}}}\n"
            ),
        )
        .unwrap();
    }
    // `grep` prints from worker threads' results: the closed pipe must stop them too.
    for command in [&["ls"][..], &["grep", "first message"]] {
        let mut child = Command::new(BIN)
            .args(["--cwd", "/p"])
            .args(command)
            .env("PI_CODING_AGENT_DIR", tmp.path())
            .env_remove("PI_SESSION_FILE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        reader.read_line(&mut first).unwrap();
        assert!(
            first.contains("a long first message"),
            "{command:?}: {first}"
        );
        drop(reader);
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "",
            "{command:?}: a closed pipe is not an error"
        );
        assert_eq!(out.status.code(), Some(0), "{command:?}");
    }
}

/// `rust-version` is a promise to packagers: every locked dependency (any target, dev ones too)
/// must build with it. `cargo metadata` carries each package's own `rust_version`, so a
/// `cargo update` that pulls in a crate needing a newer Rust fails here, not on a user's machine.
#[test]
fn rust_version_covers_every_locked_dependency() {
    fn parse(v: &str) -> (u64, u64, u64) {
        let mut parts = v
            .split('.')
            .map(|p| p.parse::<u64>().expect("numeric rust-version"));
        let mut next = || parts.next().unwrap_or(0);
        (next(), next(), next())
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(repo())
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let packages = metadata["packages"].as_array().unwrap();
    let ours = packages
        .iter()
        .find(|p| p["name"] == "pisess")
        .and_then(|p| p["rust_version"].as_str())
        .expect("Cargo.toml sets rust-version");
    let too_new: Vec<String> = packages
        .iter()
        .filter_map(|p| {
            let needs = p["rust_version"].as_str()?;
            (parse(needs) > parse(ours))
                .then(|| format!("{} {} needs {needs}", p["name"], p["version"]))
        })
        .collect();
    // Guards against a vacuous pass: the lock file does hold crates that declare a version.
    assert!(
        packages
            .iter()
            .filter(|p| p["rust_version"].is_string())
            .count()
            > 5
    );
    assert!(
        too_new.is_empty(),
        "rust-version = {ours} in Cargo.toml, but: {}",
        too_new.join("; ")
    );
}
