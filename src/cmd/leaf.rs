//! `SESSION@ENTRY`: a session and an entry of it, as one argument (`diff`), so a leaf of a
//! session can be named anywhere a session is. The argument splits at its last `@` (ids hold
//! none), unless the whole argument names a file that exists: a path with an `@` in it stays
//! a path. `@ENTRY` alone is an entry of the default session; an `@` with nothing after it is
//! a usage error.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use pisess_store::util::usage::UsageError;

/// A SESSION argument and the entry it names, if it names one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeafArg {
    /// The session part, as a SESSION argument (`None`: the default session).
    pub session: Option<OsString>,
    /// The entry id or unique prefix after the last `@`.
    pub entry: Option<String>,
}

/// Splits `arg` as the module says.
pub fn parse(arg: &OsStr) -> Result<LeafArg, UsageError> {
    let whole = LeafArg {
        session: Some(arg.to_owned()),
        entry: None,
    };
    let Some(text) = arg.to_str() else {
        return Ok(whole);
    };
    let Some((session, entry)) = text.rsplit_once('@') else {
        return Ok(whole);
    };
    if Path::new(arg).exists() {
        return Ok(whole);
    }
    if entry.is_empty() {
        return Err(UsageError(format!(
            "'{text}': no entry after the @ (SESSION@ENTRY names an entry of a session)"
        )));
    }
    Ok(LeafArg {
        session: (!session.is_empty()).then(|| OsString::from(session)),
        entry: Some(entry.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(s: &str) -> (Option<String>, Option<String>) {
        let l = parse(OsStr::new(s)).unwrap();
        (l.session.map(|s| s.into_string().unwrap()), l.entry)
    }

    #[test]
    fn splits_at_the_last_at_unless_the_whole_is_a_file() {
        let s = |x: &str| Some(x.to_owned());
        assert_eq!(of("0196cdea"), (s("0196cdea"), None));
        assert_eq!(of("0196cdea@a1b2"), (s("0196cdea"), s("a1b2")));
        assert_eq!(of("dir@x/s.jsonl@a1b2"), (s("dir@x/s.jsonl"), s("a1b2")));
        assert_eq!(of("@a1b2"), (None, s("a1b2")));
        assert!(parse(OsStr::new("0196cdea@")).is_err());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("run@2.jsonl");
        std::fs::write(&file, "").unwrap();
        let named = file.to_str().unwrap();
        assert_eq!(of(named), (s(named), None));
    }
}
