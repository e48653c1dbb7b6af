//! Sessions as families: the subagent runs written beside a session, forks threaded under their
//! source as pi's `/resume` threads them, and the entries a fork or clone copied from its source,
//! so that a family's figures count each entry once.
//!
//! Three jobs, one file each, all pure over paths, already-read headers and entries (only
//! [`runs`] and [`thread::PathKeys`] touch the disk):
//!
//! - [`runs`]: the child sessions an extension wrote under a session's stem folder
//!   (`<stem>/<runId>/run-<n>/session.jsonl`, `<stem>/forks/*.jsonl`, ...), found by their
//!   place, bounded in depth and count, never through a symlinked folder.
//! - [`thread`]: a listing as a forest, pi 1.6's `buildSessionTree` exactly for pi's rows (a
//!   session under the file its header `parentSession` names when that file is listed too; every
//!   subtree ordered by its latest activity, newest first), subagent runs under the file they were
//!   found under, and `parentSession` cycles shown rather than dropped.
//! - [`copies`]: which entries of a fork or clone are its source's (same id, same content but the
//!   fields pi rewrites when it copies), matched only along the `parentSession` chain, and which
//!   side counts usage that pi-subagents reports twice.
//!
//! docs/format.md ("Subagent runs, forks and clones") lists the layouts and the rules for users.

pub mod chains;
pub mod copies;
#[cfg(test)]
mod differential;
pub mod runs;
pub mod thread;
