//! Helpers that know nothing of pi: a parallel map, read-ahead, the stack size, following a
//! growing file.

pub(crate) mod follow;
