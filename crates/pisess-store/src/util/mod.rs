//! Helpers that know nothing of pi: a parallel map over files, the progress of a run over
//! files, and the usage error a lookup returns for a blank argument.

pub mod parallel;
pub mod progress;
pub mod stack;
pub mod usage;
