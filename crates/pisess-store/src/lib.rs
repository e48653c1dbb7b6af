//! Where sessions are and what we know of them: locating the session dir, listing and selecting
//! sessions, families (subagent runs, forks), the opened session's index, summaries and
//! tallies, the two caches, and removal.

pub mod cache;
pub mod family;
pub mod listing;
pub mod locate;
pub mod prices;
pub mod removal;
pub mod select;
pub mod session;
pub mod summary;
pub mod tally;
pub mod util;
