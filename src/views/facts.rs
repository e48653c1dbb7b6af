//! The fact stream (`pisess facts`, issue 46): one row per message-bearing entry, keyed by
//! `(sessionId, entryId)` and versioned, for an engine that adds many machines up (DuckDB,
//! ClickHouse: docs/team.md). The schema is docs/json.md's "`facts`"; this module holds the row,
//! the labels every row carries and the redaction of paths. It holds no message text, no tool
//! argument, and (with a [`Redactor`]) no path: only ids, names of models and tools, counts,
//! times and money.

use serde::Serialize;
use sha2::{Digest, Sha256};

use pisess_store::tally::Name;
use pisess_store::util::usage::UsageError;

/// The stream's schema: a reader checks it, an engine may keep it as a column. Bumped only when
/// a field changes meaning or type (fields are only ever added within a version).
pub const SCHEMA: &str = "pisess.facts";
pub const SCHEMA_VERSION: u32 = 1;

/// The machine and the person a row was emitted by (`--label host=… --label user=…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    pub host: String,
    pub user: String,
}

impl Labels {
    /// The defaults (`host`, `user`: what the system says) overridden by each `KEY=VALUE`. A
    /// label is a column of a team's table and a word on its dashboard: a control character
    /// (a newline, an escape) in one is refused, as is a key other than `host` and `user`.
    pub fn parse(defaults: Labels, given: &[String]) -> Result<Labels, UsageError> {
        let mut labels = defaults;
        for g in given {
            let Some((key, value)) = g.split_once('=') else {
                return Err(UsageError(format!(
                    "--label {}: expected KEY=VALUE (host=… or user=…)",
                    crate::views::style::escape_control(g, false)
                )));
            };
            if value.chars().any(char::is_control) || key.chars().any(char::is_control) {
                return Err(UsageError(format!(
                    "--label {}: a label may not hold a control character",
                    crate::views::style::escape_control(key, false)
                )));
            }
            match key {
                "host" => labels.host = value.to_owned(),
                "user" => labels.user = value.to_owned(),
                _ => {
                    return Err(UsageError(format!(
                        "--label {key}=…: unknown label (host or user)"
                    )))
                }
            }
        }
        // The system's own are checked too: a hostname or $USER is text from outside.
        for value in [&labels.host, &labels.user] {
            if value.chars().any(char::is_control) {
                return Err(UsageError(
                    "a default label (the hostname or $USER) holds a control character: give \
                     --label host=… --label user=…"
                        .to_owned(),
                ));
            }
        }
        Ok(labels)
    }
}

/// Replaces paths by stable salted hashes (`--redact-paths`): the same path and salt give the
/// same hash on every machine, so a team's projects still group, and without the salt a
/// guessed path cannot be checked against the stream.
#[derive(Debug, Clone)]
pub struct Redactor {
    salt: Vec<u8>,
}

impl Redactor {
    /// The salt is a secret the team shares (`PISESS_FACTS_SALT`); an empty one is refused,
    /// since a hash without a secret is a dictionary lookup away from the path.
    pub fn new(salt: &[u8]) -> Result<Redactor, UsageError> {
        if salt.is_empty() {
            return Err(UsageError(
                "--redact-paths: set PISESS_FACTS_SALT to a secret the team shares (the same \
                 on every machine, so that one project hashes alike)"
                    .to_owned(),
            ));
        }
        Ok(Redactor {
            salt: salt.to_vec(),
        })
    }

    /// `path:` and 32 hex digits of SHA-256 over the salt's length, the salt and the path.
    pub fn path(&self, path: &str) -> String {
        let mut h = Sha256::new();
        h.update(b"pisess-facts-path\0");
        h.update((self.salt.len() as u64).to_le_bytes());
        h.update(&self.salt);
        h.update(path.as_bytes());
        let digest = h.finalize();
        let mut out = String::with_capacity(37);
        out.push_str("path:");
        for b in &digest[..16] {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }
}

/// One row of the stream (docs/json.md, "`facts`").
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FactRow<'a> {
    pub schema_version: u32,
    /// The session the entry belongs to: for an entry a fork or clone copied, its source's.
    pub session_id: &'a str,
    /// Unique within the session: the entry's id; `#<n>` (the n-th row) for an entry without
    /// one, `<id>#<n>` for an id met before in the same file.
    pub entry_id: &'a str,
    /// Higher when the same row's facts may have changed: the number of entries of the file it
    /// was read from; 0 for a copy, so that its source's own row wins.
    pub version: u64,
    /// The session whose file the row was read from, when it is not `session_id` (a copy).
    pub copied_in: Option<&'a str>,
    /// The session the file's header `parentSession` names (a fork or clone's source).
    pub fork_of: Option<&'a str>,
    /// The listed session a subagent run was found under.
    pub subagent_of: Option<&'a str>,
    pub host: &'a str,
    pub user: &'a str,
    pub cwd: &'a str,
    pub timestamp: Option<&'a str>,
    pub r#type: &'a str,
    pub role: Option<&'a str>,
    pub provider: Option<&'a str>,
    pub model: Option<&'a str>,
    pub model_key: Option<&'a str>,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total_tokens: f64,
    pub cost: f64,
    pub unpriced_tokens: f64,
    /// With `--prices`: the table's price of usage pi recorded at $0, never part of `cost`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<Option<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_key: Option<Option<&'a str>>,
    pub tool_name: Option<&'a Name>,
    pub tool_calls: usize,
    pub is_error: Option<bool>,
    pub stop_reason: Option<&'a str>,
    pub active: bool,
}

impl FactRow<'_> {
    /// The bytes [`surrogates::write`](pisess_format::surrogates::write) writes of the row,
    /// written without serde: the stream's budget is half a million rows a second, and serde's
    /// byte-at-a-time escapes and per-field calls were most of a row (as `ls --json`'s
    /// `push_json`). The derive stays the contract; a test holds the two equal.
    pub fn push(&self, out: &mut Vec<u8>) {
        use pisess_format::model::push_number;
        use pisess_format::surrogates::{push_str, push_u64};
        fn opt_str(out: &mut Vec<u8>, key: &[u8], v: Option<&str>) {
            out.extend_from_slice(key);
            match v {
                Some(v) => push_str(out, v),
                None => out.extend_from_slice(b"null"),
            }
        }
        fn opt_bool(out: &mut Vec<u8>, key: &[u8], v: Option<bool>) {
            out.extend_from_slice(key);
            out.extend_from_slice(match v {
                Some(true) => b"true",
                Some(false) => b"false",
                None => b"null",
            });
        }
        out.extend_from_slice(b"{\"schemaVersion\":");
        push_u64(out, u64::from(self.schema_version));
        opt_str(out, b",\"sessionId\":", Some(self.session_id));
        opt_str(out, b",\"entryId\":", Some(self.entry_id));
        out.extend_from_slice(b",\"version\":");
        push_u64(out, self.version);
        opt_str(out, b",\"copiedIn\":", self.copied_in);
        opt_str(out, b",\"forkOf\":", self.fork_of);
        opt_str(out, b",\"subagentOf\":", self.subagent_of);
        opt_str(out, b",\"host\":", Some(self.host));
        opt_str(out, b",\"user\":", Some(self.user));
        opt_str(out, b",\"cwd\":", Some(self.cwd));
        opt_str(out, b",\"timestamp\":", self.timestamp);
        opt_str(out, b",\"type\":", Some(self.r#type));
        opt_str(out, b",\"role\":", self.role);
        opt_str(out, b",\"provider\":", self.provider);
        opt_str(out, b",\"model\":", self.model);
        opt_str(out, b",\"modelKey\":", self.model_key);
        for (key, value) in [
            (&b",\"input\":"[..], self.input),
            (b",\"output\":", self.output),
            (b",\"cacheRead\":", self.cache_read),
            (b",\"cacheWrite\":", self.cache_write),
            (b",\"totalTokens\":", self.total_tokens),
            (b",\"cost\":", self.cost),
            (b",\"unpricedTokens\":", self.unpriced_tokens),
        ] {
            out.extend_from_slice(key);
            push_number(out, value);
        }
        if let Some(e) = self.estimated_cost {
            out.extend_from_slice(b",\"estimatedCost\":");
            match e {
                Some(e) => push_number(out, e),
                None => out.extend_from_slice(b"null"),
            }
        }
        if let Some(k) = self.price_key {
            opt_str(out, b",\"priceKey\":", k);
        }
        opt_str(out, b",\"toolName\":", self.tool_name.map(Name::as_str));
        out.extend_from_slice(b",\"toolCalls\":");
        push_u64(out, self.tool_calls as u64);
        opt_bool(out, b",\"isError\":", self.is_error);
        opt_str(out, b",\"stopReason\":", self.stop_reason);
        opt_bool(out, b",\"active\":", Some(self.active));
        out.push(b'}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_row_is_the_contracts_byte_for_byte() {
        let strings = [
            "",
            "plain",
            "quote \" back \\ nl \n tab \t",
            "\u{1b}[31m csi \u{9b} bidi \u{202e} zw \u{200b} del \u{7f}",
            "ünï 🛒 \u{2028}",
        ];
        let numbers = [
            0.0,
            -0.0,
            1.0,
            3000.0,
            0.028_409_999_999_999_998,
            1.5e-7,
            1e21,
            -5.0,
            1e300,
            f64::NAN,
            f64::INFINITY,
            9_007_199_254_740_993.0,
        ];
        let tool = Name::new("mcp__x");
        for (i, s) in strings.iter().enumerate() {
            for (j, x) in numbers.iter().enumerate() {
                let some = |k: usize| (i + j + k).is_multiple_of(2).then_some(*s);
                let row = FactRow {
                    schema_version: SCHEMA_VERSION,
                    session_id: s,
                    entry_id: s,
                    version: (i * j) as u64,
                    copied_in: some(0),
                    fork_of: some(1),
                    subagent_of: some(0),
                    host: s,
                    user: s,
                    cwd: s,
                    timestamp: some(1),
                    r#type: s,
                    role: some(0),
                    provider: some(1),
                    model: some(0),
                    model_key: some(1),
                    input: *x,
                    output: -*x,
                    cache_read: *x * 3.0,
                    cache_write: *x,
                    total_tokens: *x,
                    cost: *x,
                    unpriced_tokens: *x,
                    estimated_cost: [None, Some(None), Some(Some(*x))][(i + j) % 3],
                    price_key: [None, Some(None), Some(Some(*s))][(i + j) % 3],
                    tool_name: (i + j).is_multiple_of(2).then_some(&tool),
                    tool_calls: i + j,
                    is_error: [None, Some(true), Some(false)][j % 3],
                    stop_reason: some(0),
                    active: j.is_multiple_of(2),
                };
                let mut want = Vec::new();
                pisess_format::surrogates::write(&mut want, &row).unwrap();
                let mut got = Vec::new();
                row.push(&mut got);
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "{s:?} {x}"
                );
            }
        }
    }

    fn system() -> Labels {
        Labels {
            host: "h".into(),
            user: "u".into(),
        }
    }

    #[test]
    fn labels_override_the_system_and_refuse_controls_and_unknown_keys() {
        let l = Labels::parse(system(), &["host=build-1".into(), "user=ana=b".into()]).unwrap();
        assert_eq!((l.host.as_str(), l.user.as_str()), ("build-1", "ana=b"));
        for bad in ["host=a\nb", "user=\u{1b}[31m", "ho\tst=x", "team=x", "host"] {
            assert!(Labels::parse(system(), &[bad.into()]).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn redaction_is_stable_salted_and_refuses_no_salt() {
        let a = Redactor::new(b"s1").unwrap();
        let b = Redactor::new(b"s2").unwrap();
        assert_eq!(a.path("/home/ana/p"), a.path("/home/ana/p"));
        assert_ne!(a.path("/home/ana/p"), b.path("/home/ana/p"));
        assert_ne!(a.path("/home/ana/p"), a.path("/home/ana/q"));
        assert!(!a.path("/home/ana/p").contains("ana"));
        assert_eq!(a.path("x").len(), 37);
        assert!(Redactor::new(b"").is_err());
    }
}
