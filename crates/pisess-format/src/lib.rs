//! pi's JSON as pi reads it: the one line reader, the scan, the skim (and its serde face) and
//! its escapes, lone surrogates, JavaScript's numbers, strings and dates, and the entry model.
//!
//! A session file of the pi coding agent is JSONL: a header line, then entries linked by `id`
//! and `parentId` into a tree. This crate reads one as pi 1.6 does (which lines it skips, how
//! it migrates v1 and v2 files, the seed-000 dialect, JavaScript's coercions) and knows nothing
//! of session folders, caches or a command line: [`scan::Pass`] reads an [`scan::Input`] (a
//! path, an open file, a stream, bytes) and hands out each entry ([`model::EntryLine`]: its
//! effective id and parent, its type, the few fields every listing needs, its JSON), with the
//! warnings a damaged line earns in the report; [`model::Entry`] and [`model::Message`] are
//! the typed view of a decoded entry.
//!
//! ```
//! use std::ops::ControlFlow;
//! use pisess_format::model::{Entry, Role};
//! use pisess_format::scan::{Input, Pass};
//!
//! let session = br#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}
//! {"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}
//! not json
//! {"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x"}}]}}
//! "#;
//! let mut calls = Vec::new();
//! let report = Pass::new().run(Input::Bytes(session, "s1"), |_header, entry| {
//!     let value = pisess_format::json::decode(entry.json).expect("an entry's JSON decodes");
//!     if let Some(message) = Entry::of(&value).message() {
//!         if message.role() == Role::Assistant {
//!             let names = message.tool_calls().filter_map(|c| c.name?.as_str());
//!             calls.extend(names.map(str::to_owned));
//!         }
//!     }
//!     ControlFlow::Continue(())
//! })?;
//! assert_eq!(calls, ["read"]);
//! // The line that is not JSON is skipped, as pi skips it, and reported.
//! assert_eq!(report.warnings.len(), 1);
//! # Ok::<(), pisess_format::scan::ScanError>(())
//! ```
//!
//! The index of a whole session (random access to its entries, the tree), listings, summaries
//! and caches are `pisess-store`'s; the command line is `pisess`'s.

pub(crate) mod de;
pub mod escaped;
pub mod js;
pub mod json;
pub mod model;
pub(crate) mod reader;
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
