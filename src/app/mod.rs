//! The application's edge: the clap declarations, the facts of the run read once ([`env::Env`]),
//! shell completion, diagnostics on stderr, exit codes, the pager and the progress line.

pub mod cli;
pub mod complete;
pub mod diag;
pub mod env;
pub mod exit;
pub mod global;
pub mod pager;
pub mod progress;
