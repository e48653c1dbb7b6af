//! Shared test helpers: run pisess in-process on the bundled examples with a fixed clock.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use clap::Parser;
use pisess::cli::Cli;
use pisess::env::Env;
use pisess::locate::Inputs;

/// 2026-08-01T00:00:00Z: "now" for every in-process test, so relative times are stable.
pub const NOW_MS: i64 = 1_785_542_400_000;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled examples as pi's agent dir (`examples/sessions` is its sessions root).
pub fn examples_agent_dir() -> PathBuf {
    repo().join("examples")
}

/// An environment acting in `cwd` with `agent_dir` as PI_CODING_AGENT_DIR.
pub fn env_in(agent_dir: &Path, cwd: &str) -> Env {
    Env::for_test(
        Inputs {
            home: PathBuf::from("/home/dev"),
            cwd: PathBuf::from(cwd),
            process_cwd: PathBuf::from(cwd),
            flag: None,
            env_agent_dir: Some(agent_dir.to_string_lossy().into_owned()),
            env_session_dir: None,
        },
        NOW_MS,
    )
}

/// The examples, acting in the webshop project.
pub fn example_env() -> Env {
    env_in(&examples_agent_dir(), "/home/dev/webshop")
}

/// What a run printed and how it ended.
#[derive(Debug)]
pub struct Run {
    pub code: u8,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `pisess ARGS...` in-process. Global flags in `args` (e.g. `--session-dir`) are applied
/// to `env` the way `Env::from_process` would.
pub fn run_with(mut env: Env, args: &[&str], stdin: &[u8]) -> Run {
    let cli = Cli::try_parse_from(std::iter::once("pisess").chain(args.iter().copied()))
        .unwrap_or_else(|e| panic!("bad test arguments {args:?}: {e}"));
    if let Some(dir) = &cli.global.session_dir {
        env.inputs.flag = Some(dir.clone());
    }
    if let Some(cwd) = &cli.global.cwd {
        env.inputs.cwd = PathBuf::from(cwd);
    }
    env.location = pisess::locate::Location::resolve(&env.inputs);
    env.quiet = cli.global.quiet;
    env.color_stdout = cli.global.color == pisess::cli::ColorChoice::Always;
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

pub fn run(args: &[&str]) -> Run {
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
