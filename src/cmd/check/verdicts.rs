//! A check's verdicts as data and as the one-line texts every report form shares (human,
//! Markdown, JUnit): below both `check.rs` and its reports, so neither imports the other.

use crate::views::check::{self, Verdict};

/// One session, checked or not.
#[derive(Debug)]
pub struct Checked {
    /// The file as named in messages (`FILE:LINE`), or `-`.
    pub name: String,
    pub id: Option<String>,
    /// The id as printed ([`crate::app::env::Env::short_id`]).
    pub short_id: Option<String>,
    /// The session's name, else its first user message.
    pub title: String,
    /// `Err`: why it could not be checked.
    pub result: Result<Verdict, String>,
}

impl Checked {
    pub(super) fn status(&self) -> Status {
        match &self.result {
            Err(_) => Status::Error,
            Ok(v) => match v.tally() {
                (0, 0) => Status::Passed,
                (0, _) => Status::Undecided,
                _ => Status::Failed,
            },
        }
    }
}

/// The verdict on a session or a run; the order is how bad it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Passed,
    /// Checked, nothing failed, and some assertion could not be decided (exit 2, as an error).
    /// A failure elsewhere in the run wins over it (exit 1), as it does within one session.
    Undecided,
    Failed,
    /// Could not be checked (unreadable, or a total not a finite number): worst of all (exit 2).
    Error,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::Undecided => "undecided",
            Status::Error => "error",
        }
    }
}

/// The run's status: the worst of its sessions'.
pub fn worst(checked: &[Checked]) -> Status {
    checked
        .iter()
        .map(Checked::status)
        .max()
        .unwrap_or(Status::Error)
}

/// `FAIL max-cost: $2.31 > $2.00`, without the status word.
pub fn assertion_text(a: &check::Assertion) -> String {
    let mut text = format!("{}: {}", a.name, a.measured);
    match a.relation.as_str() {
        "" => {}
        r if r.starts_with(';') => text.push_str(&format!("{r} {}", a.limit)),
        r => text.push_str(&format!(" {r} {}", a.limit)),
    }
    text
}

/// A session's one-line verdict.
pub fn verdict_line(c: &Checked) -> String {
    match &c.result {
        Err(e) => format!("ERROR: could not check: {e}"),
        Ok(v) => {
            let n = v.assertions.len();
            match v.tally() {
                (0, 0) => format!("ok: {}", held_text(n)),
                (0, undecided) => {
                    format!("UNDECIDED: {undecided} of {n} assertions could not be decided")
                }
                (failed, _) => format!("FAIL: {failed} of {n} assertions failed"),
            }
        }
    }
}

fn held_text(n: usize) -> String {
    match n {
        1 => "the assertion held".to_owned(),
        2 => "both assertions held".to_owned(),
        n => format!("all {n} assertions held"),
    }
}

/// The run's one-line verdict over several sessions; `status` is the run's, which a family
/// judged on its total can make worse than any one session's.
pub fn run_line(checked: &[Checked], status: Status) -> String {
    let count = |s| checked.iter().filter(|c| c.status() == s).count();
    let (passed, failed, undecided, errors) = (
        count(Status::Passed),
        count(Status::Failed),
        count(Status::Undecided),
        count(Status::Error),
    );
    let mut line = format!(
        "{}: {} checked, {passed} passed, {failed} failed",
        match status {
            Status::Passed => "ok",
            Status::Failed => "FAIL",
            Status::Undecided => "UNDECIDED",
            Status::Error => "ERROR",
        },
        if checked.len() == 1 {
            "1 session".to_owned()
        } else {
            format!("{} sessions", checked.len())
        }
    );
    if undecided > 0 {
        line.push_str(&format!(", {undecided} undecided"));
    }
    if errors > 0 {
        line.push_str(&format!(", {errors} could not be checked"));
    }
    line
}

/// What a report lists under assertion `a`: its findings (integrity, secrets, failed tool
/// calls), and how many more there are than it lists.
pub fn listed_under<'v>(
    v: &'v check::Verdict,
    a: &check::Assertion,
) -> (std::borrow::Cow<'v, [check::Finding]>, u64) {
    use std::borrow::Cow;
    match a.name.as_str() {
        "integrity" => (Cow::Borrowed(&v.findings[..]), 0),
        "no-secrets" => (Cow::Borrowed(&v.secrets[..]), 0),
        "no-tool-errors" | "max-tool-errors" => (
            Cow::Owned(
                v.tool_errors
                    .iter()
                    .map(check::ToolError::finding)
                    .collect(),
            ),
            v.tool_errors_more,
        ),
        _ => (Cow::Borrowed(&[][..]), 0),
    }
}

/// The line that stands for findings a report leaves out.
pub fn more_text(n: u64) -> String {
    format!("… and {n} more")
}

/// `FILE:LINE: message`.
pub fn finding_text(file: &str, f: &check::Finding) -> String {
    match f.line {
        Some(line) => format!("{file}:{line}: {}", f.message),
        None => format!("{file}: {}", f.message),
    }
}
