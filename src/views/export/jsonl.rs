//! The branch as a pi session file, exactly as pi's `serializeSessionBranch` writes it
//! (`dist/core/session-export.js`, used by `/export file.jsonl`): a fresh v3 header
//! `{type, version, id, timestamp: now, cwd}` (the session's id, its cwd resolved as pi's
//! `SessionManager` holds it; `parentSession` and any other header field dropped), then each
//! entry of the branch from the root to the leaf, migrated from v1/v2 as pi migrates in memory,
//! unchanged but for `parentId`, which pi sets to the previous entry's id (`null` at the root).
//!
//! Lines are `JSON.stringify`'s: keys in JavaScript's property order (integer keys first,
//! ascending), numbers and strings as the one JSON writer (`format::surrogates`) writes them,
//! which is `JSON.stringify`'s.

use std::io::Write;

use serde::Serialize;
use serde_json::Value;

use super::Redact;
use pisess_format::json::js_key_order;
use pisess_format::model::Entry;
use pisess_format::surrogates;
use pisess_store::session::Session;

/// The header pi writes for an export.
pub struct Header<'a> {
    pub id: &'a str,
    /// `new Date().toISOString()` at export time.
    pub timestamp: &'a str,
    /// The header's cwd resolved (`resolvePath`), else the process's cwd.
    pub cwd: &'a str,
}

/// The first line: `{type, version, id, timestamp, cwd}`.
#[derive(Serialize)]
struct HeaderLine<'a> {
    r#type: &'static str,
    version: u8,
    id: &'a str,
    timestamp: &'a str,
    cwd: &'a str,
}

/// Fields that hold the tree and the entry's kind: each is redacted on its own, as a name
/// (the same id gives the same text wherever it is), so the export stays the same tree.
const STRUCTURE: [&str; 5] = ["type", "id", "parentId", "timestamp", "firstKeptEntryId"];

/// Writes the header and the entries of `path` (root first).
pub fn write(
    session: &Session,
    path: &[usize],
    header: &Header,
    redact: &dyn Redact,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut line = Vec::with_capacity(256);
    surrogates::write(
        &mut line,
        &HeaderLine {
            r#type: "session",
            version: 3,
            id: &redact.text(header.id),
            timestamp: header.timestamp,
            cwd: &redact.text(header.cwd),
        },
    )?;
    line.push(b'\n');
    out.write_all(&line)?;
    // `{ ...entry, parentId }`: the previous entry's id (`undefined` drops the key).
    let mut previous_id = Some(Value::Null);
    for &i in path {
        let mut entry = session.load(i)?;
        let id = Entry::id(&entry).cloned();
        if let Value::Object(obj) = &mut entry {
            match previous_id {
                Some(parent) => {
                    obj.insert("parentId".into(), parent);
                }
                None => {
                    obj.shift_remove("parentId");
                }
            }
        }
        previous_id = id;
        line.clear();
        // In JavaScript's key order once redacted, as a redacted key may no longer be an index.
        let redacted = match redacted(&entry, redact) {
            std::borrow::Cow::Owned(v) => Some(v),
            std::borrow::Cow::Borrowed(_) => None,
        };
        let mut entry = redacted.unwrap_or(entry);
        js_key_order(&mut entry);
        surrogates::write(&mut line, &entry)?;
        line.push(b'\n');
        out.write_all(&line)?;
    }
    Ok(())
}

/// The entry through `redact` as a value, so that a detector judges each string with the key
/// it is under (`"password": …`) and at the depth `grep --secrets` finds it at; its structure
/// fields each redacted on its own as a name (an id is the same token in `id`, `parentId`,
/// `targetId`), so the export stays the same tree.
fn redacted<'e>(entry: &'e Value, redact: &dyn Redact) -> std::borrow::Cow<'e, Value> {
    let (std::borrow::Cow::Owned(Value::Object(mut obj)), Value::Object(original)) =
        (redact.value(entry), entry)
    else {
        return std::borrow::Cow::Borrowed(entry);
    };
    for key in STRUCTURE {
        match original.get(key) {
            Some(Value::String(s)) => {
                obj.insert(key.into(), Value::String(redact.text(s).into_owned()));
            }
            Some(v) => {
                obj.insert(key.into(), v.clone());
            }
            None => {
                obj.shift_remove(key);
            }
        }
    }
    std::borrow::Cow::Owned(Value::Object(obj))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `JSON.stringify(value)`, as [`write`] writes an entry.
    fn write_value(out: &mut Vec<u8>, value: &Value) {
        let mut value = value.clone();
        js_key_order(&mut value);
        surrogates::write(out, &value).unwrap();
    }

    #[test]
    fn numbers_print_as_javascript_prints_them() {
        let cases: [(f64, &str); 16] = [
            (0.0, "0"),
            (-0.0, "0"),
            (1.0, "1"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (123_456_789_012_345_680_000.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (0.000_123, "0.000123"),
            (9_007_199_254_740_993.0, "9007199254740992"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (100.0, "100"),
        ];
        for (f, want) in cases {
            let mut out = Vec::new();
            write_value(&mut out, &json!(f));
            assert_eq!(String::from_utf8(out).unwrap(), want, "{f:e}");
        }
    }

    #[test]
    fn objects_keep_javascript_property_order() {
        let v: Value = serde_json::from_str(
            r#"{"b":1,"10":2,"a":[1.0,1e2,12345678901234567890],"2":3,"01":4,"4294967295":5}"#,
        )
        .unwrap();
        let mut out = Vec::new();
        write_value(&mut out, &v);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"2":3,"10":2,"b":1,"a":[1,100,12345678901234567000],"01":4,"4294967295":5}"#
        );
        let mut out = Vec::new();
        write_value(&mut out, &json!({"t": "\u{1}\u{7f}\n\"\\/\u{2028}é"}));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            // DEL and U+2028 as escapes (the same value), as every JSON pisess writes them.
            "{\"t\":\"\\u0001\\u007f\\n\\\"\\\\/\\u2028é\"}"
        );
    }
}
