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
