//! The error of a command line that parsed but asks for something that cannot be (exit 2, as
//! SPEC says): the caller's mistake, not the job's. It lives below every layer that finds one
//! (a listing's `--since`, a command's flags), so none of them reaches up to `app::exit` for it.

use std::ffi::OsStr;

/// A usage error found after parsing (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Whether an argument cannot name anything: empty, or only whitespace (`rm "$S"` with `S`
/// unset must not match every id). The clap declarations refuse such a SESSION, as `rm` does.
pub fn is_blank(arg: &OsStr) -> bool {
    arg.to_str().is_some_and(|s| s.trim().is_empty())
}
