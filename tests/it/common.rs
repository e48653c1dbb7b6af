//! Shared test helpers: run pisess in-process on the bundled examples with a fixed clock.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use clap::Parser;
use pisess::app::cli::Cli;
use pisess::app::env::{Env, Facts};
use pisess::app::global::GlobalArgs;

/// 2026-08-01T00:00:00Z: "now" for every in-process test, so relative times are stable.
pub(crate) const NOW_MS: i64 = 1_785_542_400_000;

/// A test that needs an outside tool and cannot find it: under `CI` (where `.ci/run` installs
/// every tool the tests drive) that is a failure, not a silent pass; elsewhere the test says
/// what it skipped and returns. Call it where the tool was looked for and not found.
pub(crate) fn missing_tool(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what} is missing under CI: .ci/run must install it"
    );
    eprintln!("SKIPPED: {what} is missing (.ci/run installs it)");
}

pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled examples as pi's agent dir (`examples/sessions` is its sessions root).
pub(crate) fn examples_agent_dir() -> PathBuf {
    repo().join("examples")
}

/// An environment acting in `cwd` with `agent_dir` as PI_CODING_AGENT_DIR.
pub(crate) fn env_in(agent_dir: &Path, cwd: &str) -> Env {
    let mut facts = Facts::for_test(cwd, "/home/dev", NOW_MS);
    let agent_dir = agent_dir.to_string_lossy().into_owned();
    facts.vars.insert("PI_CODING_AGENT_DIR", agent_dir);
    Env::new(&GlobalArgs::default(), facts)
}

/// The examples, acting in the webshop project.
pub(crate) fn example_env() -> Env {
    env_in(&examples_agent_dir(), "/home/dev/webshop")
}

/// What a run printed and how it ended.
#[derive(Debug)]
pub(crate) struct Run {
    pub code: u8,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `pisess ARGS...` in-process. Global flags in `args` (e.g. `--session-dir`) are applied
/// to `env` by the code the binary uses.
pub(crate) fn run_with(env: Env, args: &[&str], stdin: &[u8]) -> Run {
    let cli = Cli::try_parse_from(std::iter::once("pisess").chain(args.iter().copied()))
        .unwrap_or_else(|e| panic!("bad test arguments {args:?}: {e}"));
    let env = env.with_flags(&cli.global);
    let mut out = Vec::new();
    let mut err = Vec::new();
    let result = pisess::run(cli, &env, &mut out, &mut err, &mut &stdin[..]);
    let code = pisess::finish(&result, &mut err);
    Run {
        code,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
    }
}

pub(crate) fn run(args: &[&str]) -> Run {
    run_with(example_env(), args, b"")
}

/// Snapshot assertions land in the top-level `snapshots/` folder.
#[macro_export]
macro_rules! snap {
    ($name:expr, $value:expr) => {
        insta::with_settings!({
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots"),
            prepend_module_to_snapshot => false,
        }, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

/// A seed-000 session whose one tool call fails: the result is a `tool_result` block with
/// `isError` in a user message, as that dialect carries it (`check` and `stats` count it).
pub(crate) const SEED000_FAILED_TOOL: &str = concat!(
    r#"{"type":"session_header","version":1,"createdAt":"2025-04-03T08:00:00Z","cwd":"/Users/x/app"}"#,
    "\n",
    r#"{"type":"user_message","id":"e1","parentId":null,"timestamp":"2025-04-03T08:00:01Z","content":[{"type":"text","text":"List src."}]}"#,
    "\n",
    r#"{"type":"assistant_message","id":"e2","parentId":"e1","timestamp":"2025-04-03T08:00:02Z","modelId":"m","content":[{"type":"tool_use","id":"tc_001","name":"bash","input":{"command":"ls src"}}],"usage":{"inputTokens":9,"outputTokens":2,"cacheReadTokens":0,"cacheWriteTokens":0},"cost":0.003}"#,
    "\n",
    r#"{"type":"user_message","id":"e3","parentId":"e2","timestamp":"2025-04-03T08:00:03Z","content":[{"type":"tool_result","toolUseId":"tc_001","content":[{"type":"text","text":"ls: src: No such file"}],"isError":true}]}"#,
    "\n",
    r#"{"type":"assistant_message","id":"e4","parentId":"e3","timestamp":"2025-04-03T08:00:05Z","modelId":"m","content":[{"type":"text","text":"Done."}],"usage":{"inputTokens":9,"outputTokens":2,"cacheReadTokens":0,"cacheWriteTokens":0},"cost":0.001}"#,
    "\n",
);
