//! What every fuzz target checks: one input (the bytes of a session file) goes through the
//! library (index, tree, context) and through every reading command in-process, and each must
//! end without a panic, with exit 0 or 1, and with output that keeps pisess's promises:
//!
//! - human output never carries a control character from the session (colour off: no ESC at
//!   all; colour on: only our own SGR colour codes);
//! - `show --json` reproduces the stored lines, `tree --json` and `context --json` are JSON,
//!   `ls --json` is NDJSON;
//! - every stderr line is `pisess: warning: …` or `pisess: error: …`;
//! - the index points at the bytes it claims, the tree holds every entry exactly once and the
//!   active path is a chain of the tree.
//!
//! A hang shows as a libFuzzer timeout (`-timeout`), a stack overflow or a panic as a crash.

pub mod gen;

use std::path::PathBuf;
use std::sync::OnceLock;

use clap::Parser;
use pisess::app::cli::Cli;
use pisess::app::global::GlobalArgs;
use pisess::app::env::{Env, Facts};
use pisess_format::scan::Input;
use pisess_store::session::Session;
use pisess::views::tree::Tree;

/// A fixed "now" (2026-08-01), so runs do not depend on the clock.
const NOW_MS: i64 = 1_785_542_400_000;

struct World {
    env: Env,
    /// Where the input is written for `ls` and path-based commands.
    file: PathBuf,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        // scripts/fuzz.sh names a dir it removes afterwards; else one under the temp dir.
        let agent = match std::env::var_os("PISESS_FUZZ_DIR") {
            Some(dir) => PathBuf::from(dir),
            None => tempfile::Builder::new()
                .prefix("pisess-fuzz")
                .tempdir()
                .expect("a temp dir")
                .keep(),
        };
        let dir = agent.join("sessions").join("--p--");
        std::fs::create_dir_all(&dir).expect("the fuzz session dir");
        let mut facts = Facts::for_test("/p", "/home/dev", NOW_MS);
        let agent_dir = agent.to_string_lossy().into_owned();
        facts.vars.insert("PI_CODING_AGENT_DIR", agent_dir);
        World {
            env: Env::new(&GlobalArgs::default(), facts),
            file: dir.join("2026-01-01T00-00-00-000Z_fuzz.jsonl"),
        }
    })
}

struct Ran {
    code: u8,
    out: Vec<u8>,
    err: String,
}

fn run(args: &[&str], stdin: &[u8]) -> Ran {
    let w = world();
    let cli = Cli::try_parse_from(std::iter::once("pisess").chain(args.iter().copied()))
        .expect("fixed arguments parse");
    let env = w.env.clone().with_flags(&cli.global);
    let mut out = Vec::new();
    let mut err = Vec::new();
    let result = pisess::run(cli, &env, &mut out, &mut err, &mut &stdin[..]);
    let code = pisess::finish(&result, &mut err);
    let err = String::from_utf8(err).expect("stderr is UTF-8");
    assert!(code <= 1, "{args:?}: exit {code}\n{err}");
    for line in err.lines() {
        assert!(
            line.starts_with("pisess: warning: ") || line.starts_with("pisess: error: "),
            "{args:?}: stray stderr line {line:?}"
        );
        assert!(!line.contains('\u{1b}'), "{args:?}: ESC on stderr {line:?}");
    }
    Ran { code, out, err }
}

/// Human output with colour off: nothing but text, newlines and tabs.
fn assert_plain(args: &[&str], out: &[u8]) {
    let text = String::from_utf8_lossy(out);
    if let Some(c) = text
        .chars()
        .find(|&c| c.is_control() && c != '\n' && c != '\t')
    {
        panic!("{args:?}: control character {c:?} in human output:\n{text}");
    }
}

/// Human output with colour on: control characters only as our own `ESC [ digits ; m` codes.
fn assert_only_sgr(args: &[&str], out: &[u8]) {
    let text = String::from_utf8_lossy(out);
    let mut rest = text.as_ref();
    while let Some(at) = rest.find('\u{1b}') {
        let after = &rest[at + 1..];
        let body = after
            .strip_prefix('[')
            .unwrap_or_else(|| panic!("{args:?}: a raw ESC in human output:\n{text}"));
        let end = body
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(body.len());
        assert!(
            body[end..].starts_with('m'),
            "{args:?}: an escape that is not a colour in human output:\n{text}"
        );
        assert_plain(args, &rest.as_bytes()[..at]);
        rest = &body[end + 1..];
    }
    assert_plain(args, rest.as_bytes());
}

/// JSON syntax, checked without serde_json's depth limit (a context message may nest deeply).
fn assert_json(args: &[&str], out: &[u8]) {
    use serde::Deserialize;
    let mut de = serde_json::Deserializer::from_slice(out);
    let checked = serde::de::IgnoredAny::deserialize(&mut de).and_then(|_| de.end());
    if let Err(e) = checked {
        panic!(
            "{args:?}: not JSON ({e}):\n{}",
            String::from_utf8_lossy(out)
        );
    }
}

/// The library's own promises about an index.
fn check_index(data: &[u8]) -> Option<Session> {
    let session = Session::read(Input::Bytes(data, "-"), Default::default()).ok()?;
    let mut last_line = session.header_line;
    for (i, e) in session.entries.iter().enumerate() {
        assert!(session.line(i) > last_line, "entry lines increase");
        last_line = session.line(i);
        let start = usize::try_from(session.offset(i)).unwrap();
        let end = start + usize::try_from(e.stored_len()).unwrap();
        assert_eq!(session.stored_line(i).unwrap(), &data[start..end]);
        session.load(i).expect("an indexed entry decodes again");
    }
    let tree = Tree::build(&session);
    let order = tree.preorder();
    let mut seen = vec![false; session.entries.len()];
    for &i in &order {
        assert!(!std::mem::replace(&mut seen[i], true), "entry drawn twice");
    }
    for (i, &in_tree) in tree.in_tree.iter().enumerate() {
        assert_eq!(seen[i], in_tree, "every tree entry is drawn once");
    }
    if let Some(leaf) = tree.leaf {
        assert!(tree.active[leaf]);
    }
    let plan = pisess::views::context::plan(&session, None).expect("a plan");
    for item in &plan.items {
        pisess::views::context::project(&session, item).expect("a selected entry projects");
    }
    Some(session)
}

/// The scan's shortcut (`LineView::skim`) only takes lines serde_json reads the same way.
pub fn check_skim(data: &[u8]) {
    for line in data.split(|&b| b == b'\n') {
        if let Some(skimmed) = pisess_format::model::LineView::skim(line) {
            let decoded: pisess_format::model::LineView = serde_json::from_slice(line)
                .unwrap_or_else(|e| panic!("skimmed a line serde_json refuses: {e}"));
            assert_eq!(format!("{skimmed:?}"), format!("{decoded:?}"));
        }
    }
}

/// Runs everything on one input.
pub fn check(data: &[u8]) {
    check_skim(data);
    let session = check_index(data);

    let human: &[&[&str]] = &[
        &["show", "-"],
        &["show", "--branch", "-"],
        &["tree", "-"],
        &["tree", "--filter", "all", "-"],
        &["context", "-"],
        &["context", "--llm", "--full", "-"],
    ];
    for args in human {
        let r = run(args, data);
        assert_plain(args, &r.out);
    }
    for args in [
        &["--color", "always", "show", "--full", "-"][..],
        &["--color", "always", "tree", "-"],
        &["--color", "always", "context", "--full", "-"],
    ] {
        let r = run(args, data);
        assert_only_sgr(args, &r.out);
    }
    // `tree --json` is NDJSON: every line one value.
    let args = ["tree", "--json", "-"];
    let r = run(&args, data);
    if r.code == 0 {
        for line in r.out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            assert_json(&args, line);
        }
    }
    for args in [
        &["context", "--json", "-"][..],
        &["context", "--llm", "--json", "-"],
    ] {
        let r = run(args, data);
        if r.code == 0 {
            assert_json(args, &r.out);
        }
    }
    let args = ["show", "--json", "-"];
    let r = run(&args, data);
    match &session {
        Some(s) => {
            assert_eq!(r.code, 0, "{args:?}: {}", r.err);
            let lines = r.out.iter().filter(|&&b| b == b'\n').count();
            assert_eq!(lines, s.entries.len() + 1, "show --json: header + entries");
        }
        None => assert_eq!(r.code, 1, "not a session is an error"),
    }

    // The file-based paths: the listing (its own scan) and rm's plan.
    let w = world();
    std::fs::write(&w.file, data).expect("write the fuzz session");
    let r = run(&["ls", "--all"], b"");
    assert_plain(&["ls"], &r.out);
    let r = run(&["ls", "--all", "--json"], b"");
    for line in r.out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        assert_json(&["ls", "--json"], line);
    }
    let path = w.file.to_string_lossy();
    run(&["rm", "--dry-run", &path], b"");
    run(&["show", &path], b"");
    run(&["--color", "always", "ls", "--all"], b"");
    assert_eq!(
        std::fs::read(&w.file).expect("the session is still there"),
        data,
        "no command writes to a session"
    );
}
