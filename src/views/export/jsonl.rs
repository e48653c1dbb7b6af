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

use serde_json::{Map, Value};

use super::Redact;
use pisess_store::session::Session;

/// The header pi writes for an export.
pub struct Header<'a> {
    pub id: &'a str,
    /// `new Date().toISOString()` at export time.
    pub timestamp: &'a str,
    /// The header's cwd resolved (`resolvePath`), else the process's cwd.
    pub cwd: &'a str,
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
    line.extend_from_slice(b"{\"type\":\"session\",\"version\":3,\"id\":");
    write_string(&mut line, &redact.text(header.id));
    line.extend_from_slice(b",\"timestamp\":");
    write_string(&mut line, header.timestamp);
    line.extend_from_slice(b",\"cwd\":");
    write_string(&mut line, &redact.text(header.cwd));
    line.extend_from_slice(b"}\n");
    out.write_all(&line)?;
    // `{ ...entry, parentId }`: the previous entry's id (`undefined` drops the key).
    let mut previous_id = Some(Value::Null);
    for &i in path {
        let mut entry = session.load(i)?;
        let id = entry.get("id").cloned();
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
        write_value(&mut line, &redacted(&entry, redact));
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

/// `JSON.stringify(value)`.
pub(crate) fn write_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        // The one JSON writer's numbers: JavaScript's `Number.prototype.toString`.
        Value::Number(n) => {
            let _ = pisess_format::surrogates::write(&mut *out, n);
        }
        Value::String(s) => write_string(out, s),
        Value::Array(items) => {
            out.push(b'[');
            for (k, x) in items.iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                write_value(out, x);
            }
            out.push(b']');
        }
        Value::Object(map) => {
            out.push(b'{');
            for (k, (key, x)) in js_order(map).into_iter().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                write_string(out, key);
                out.push(b':');
                write_value(out, x);
            }
            out.push(b'}');
        }
    }
}

/// A string as `JSON.stringify` escapes it (lone surrogates as `\udxxx`).
fn write_string(out: &mut Vec<u8>, s: &str) {
    // Writing a string to a Vec cannot fail.
    let _ = pisess_format::surrogates::write(&mut *out, s);
}

/// An object's keys in JavaScript's property order: array-index keys (`"0"` to
/// `"4294967294"`, canonical) first in ascending order, then the others as inserted.
fn js_order(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let index = |k: &str| -> Option<u32> {
        let canonical = k == "0" || (!k.starts_with('0') && !k.is_empty());
        if !canonical || !k.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        k.parse::<u32>().ok().filter(|&n| n != u32::MAX)
    };
    let mut pairs: Vec<(&String, &Value)> = map.iter().collect();
    if pairs.iter().any(|(k, _)| index(k).is_some()) {
        // Stable: the other keys keep their order.
        pairs.sort_by_key(|(k, _)| index(k).map_or((1, 0), |n| (0, n)));
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
