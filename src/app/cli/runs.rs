//! The arguments of the commands about runs rather than one file's entries: `files`, `diff`
//! and `facts` (apart from cli.rs, which the 900-line rule keeps to the other commands).

use std::ffi::OsString;

use clap::{Args, ValueEnum};

use super::session_arg;

#[derive(Debug, Args)]
pub struct FilesArgs {
    /// The session (see SESSION below); default: the one `ls` marks *
    #[arg(value_parser = session_arg())]
    pub session: Option<OsString>,
    /// Only the calls on the active branch (root to the leaf pi resumes at)
    #[arg(long)]
    pub branch: bool,
    /// NDJSON, one object per file, sorted by path: {sessionId, path, reads, writes, edits,
    /// errors}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The first run: a SESSION (see below), or SESSION@ENTRY for the branch ending at ENTRY
    #[arg(value_parser = session_arg())]
    pub a: OsString,
    /// The second run, as A
    #[arg(value_parser = session_arg())]
    pub b: OsString,
    /// One JSON object (docs/json.md)
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    /// md: GitHub Markdown, for a pull request's comment
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<DiffFormat>,
    /// Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)
    #[arg(long, value_name = "FILE")]
    pub prices: Option<std::path::PathBuf>,
    /// Align the tool calls with the fewest rows, however long that takes (see below)
    #[arg(long)]
    pub minimal: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// GitHub-flavoured Markdown
    Md,
}

#[derive(Debug, Args)]
pub struct FactsArgs {
    /// Every project's sessions, not only this project's
    #[arg(short, long)]
    pub all: bool,
    /// A label every row carries, KEY=VALUE: host=NAME or user=NAME; repeatable
    ///
    /// Defaults: the system's hostname and $USER. A label holding a control character is
    /// refused (exit 2).
    #[arg(long = "label", value_name = "KEY=VALUE")]
    pub labels: Vec<String>,
    /// Write each cwd as a salted hash (the salt: $PISESS_FACTS_SALT)
    ///
    /// The same path and salt give the same hash on every machine, so a team that shares the
    /// salt still groups by project; without a salt the command refuses (exit 2).
    #[arg(long)]
    pub redact_paths: bool,
    /// Emit only the rows FILE does not record as emitted, then record them (created if absent)
    ///
    /// A row whose facts changed since (its active flag, once the branch moved) is emitted
    /// again with a higher version. A cursor of another store or of a newer pisess is refused
    /// (exit 2); it is updated only after every row was written.
    #[arg(long, value_name = "FILE")]
    pub cursor: Option<std::path::PathBuf>,
    /// Estimate usage pi recorded at $0 from FILE, a LiteLLM price table, apart (docs/prices.md)
    #[arg(long, value_name = "FILE")]
    pub prices: Option<std::path::PathBuf>,
}
