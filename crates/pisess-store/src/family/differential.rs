//! What the family tests share to run pi 1.6's own code (tests/differential/*.mjs under node):
//! pi is found as tests/differential/run.sh finds it (`PI_PKG_DIR`, an npm prefix), else in
//! /tmp/pipkg. Without node or pi a test says it is skipped, except under CI, where it fails (a
//! skip there would be a silent pass).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Runs `tests/differential/<script>` with pi's `dist` folder and `args` in `cwd`, `stdin` on its
/// standard input; its standard output, or `None` when node or pi is not there.
#[allow(clippy::print_stderr)]
pub(super) fn node(script: &str, args: &[&Path], stdin: &[u8], cwd: &Path) -> Option<Vec<u8>> {
    let skip = |why: &str| {
        assert!(
            std::env::var_os("CI").is_none(),
            "{script}: cannot run under CI: {why}"
        );
        eprintln!("{script}: SKIPPED ({why})");
        None
    };
    let prefix =
        std::env::var_os("PI_PKG_DIR").map_or_else(|| PathBuf::from("/tmp/pipkg"), PathBuf::from);
    let dist = prefix.join("node_modules/@earendil-works/pi-coding-agent/dist");
    if !dist.join("core/session-manager.js").is_file() {
        return skip("pi 1.6 not found: set PI_PKG_DIR to an npm prefix that has it");
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/differential")
        .join(script);
    let child = Command::new("node")
        .arg(&path)
        .arg(&dist)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        return skip("node not found");
    };
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{script} failed");
    Some(out.stdout)
}
