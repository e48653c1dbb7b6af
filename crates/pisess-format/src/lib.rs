//! pi's JSON as pi reads it: the one line reader, the scan, the skim (and its serde face) and its escapes, lone
//! surrogates, JavaScript's numbers, strings and dates, and the entry model.

pub mod de;
pub mod escaped;
pub mod js;
pub mod json;
pub mod model;
pub mod reader;
pub mod scan;
pub mod skim;
pub mod surrogates;
pub mod time;
pub mod util;

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
