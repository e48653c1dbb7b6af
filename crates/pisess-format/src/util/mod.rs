//! Helpers that know nothing of pi, below the reader: file facts, read-ahead, byte tests and
//! the warnings the scan finds but never prints.

pub mod bytes;
pub mod file;
pub mod readahead;
pub(crate) mod slurp;
pub mod warning;
