//! Helpers that know nothing of pi: a parallel map, read-ahead, the stack size, following a
//! growing file.

pub(crate) mod bytes;
pub mod file;
pub(crate) mod follow;
pub(crate) mod parallel;
pub mod readahead;
pub mod stack;
pub(crate) mod tee;
pub mod usage;
pub mod warning;

/// A unit test that needs an outside tool and cannot find it: a failure under `CI` (where
/// `.ci/run` installs what the tests drive), elsewhere a note on stderr and a skip.
#[cfg(test)]
#[allow(clippy::print_stderr)] // a test's note, not a run's output
pub(crate) fn missing_tool(what: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{what} is missing under CI: .ci/run must install it"
    );
    eprintln!("SKIPPED: {what} is missing");
}
