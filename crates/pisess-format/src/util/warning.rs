//! A warning as the layers that find one keep it, and the sink they report it to. The reader,
//! the scan and the listing find warnings but never print them: [`crate::app::diag::Diag`]
//! does, and it is the [`Warn`] they are given. `-q` is its business, not theirs.

/// Something wrong with one line; it never stops a command.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Warning {
    pub line: Option<u64>,
    pub message: String,
}

/// Where warnings go: on the command line, [`crate::app::diag::Diag`] (stderr, silenced by `-q`).
pub trait Warn {
    /// A warning about `file` (and a line of it).
    fn warn(&mut self, file: &str, line: Option<u64>, message: &str);

    /// Every warning a session collected while it was read.
    fn session_warnings(&mut self, name: &str, warnings: &[Warning]) {
        for w in warnings {
            self.warn(name, w.line, &w.message);
        }
    }
}

/// An I/O error's cause in the words of a message: "permission denied", "no such file"; the
/// OS's text for the rest, without its "(os error N)".
pub fn io_cause(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        std::io::ErrorKind::NotFound => "no such file".to_owned(),
        _ => {
            let text = e.to_string();
            match text.find(" (os error ") {
                Some(at) => text[..at].to_owned(),
                None => text,
            }
        }
    }
}
