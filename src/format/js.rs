//! JavaScript's coercions, reproduced where pisess must print what pi's code prints:
//! truthiness, `String(x)` in template literals and `Array.prototype.join`, UTF-16 lengths and
//! slices, `trim()`. One place, so `context`, `show`, `tree` and `ls` agree on every quirk.

use serde_json::Value;

/// JavaScript truthiness (`if (x)`); an absent field is `undefined`.
pub(crate) fn js_truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// JavaScript's `String(x)`, as template literals apply it.
pub(crate) fn js_string(v: Option<&Value>) -> String {
    match v {
        None => "undefined".to_owned(),
        Some(Value::Null) => "null".to_owned(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => js_number(n),
        Some(Value::String(s)) => s.clone(),
        // `Array.prototype.join`: null and undefined elements are empty.
        Some(Value::Array(items)) => items
            .iter()
            .map(|x| match x {
                Value::Null => String::new(),
                other => js_string(Some(other)),
            })
            .collect::<Vec<_>>()
            .join(","),
        Some(Value::Object(_)) => "[object Object]".to_owned(),
    }
}

/// A number as JavaScript prints it: integral values without `.0`.
pub(crate) fn js_number(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
        _ => n.to_string(),
    }
}

/// The longest prefix of `s` that is at most `units` UTF-16 code units (JavaScript's
/// `s.slice(0, units)`, without splitting a surrogate pair).
pub(crate) fn js_slice(s: &str, units: usize) -> &str {
    let mut used = 0;
    for (at, c) in s.char_indices() {
        used += crate::format::surrogates::units(c);
        if used > units {
            return &s[..at];
        }
    }
    s
}

/// JavaScript's `s.length` (a lone surrogate, held as a stand-in, is one unit).
pub(crate) fn js_len(s: &str) -> usize {
    crate::format::surrogates::js_len_of(s)
}

/// JavaScript's `trim()` (which also strips the byte-order mark).
pub(crate) fn js_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

/// An element as `Array.prototype.join` writes it: null and undefined are empty.
pub(crate) fn js_join_element(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        other => js_string(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn coercions() {
        assert_eq!(js_string(None), "undefined");
        assert_eq!(js_string(Some(&json!(null))), "null");
        assert_eq!(js_string(Some(&json!(2.0))), "2");
        assert_eq!(js_string(Some(&json!(2.5))), "2.5");
        assert_eq!(js_string(Some(&json!([1, null, "a"]))), "1,,a");
        assert_eq!(js_string(Some(&json!({"a": 1}))), "[object Object]");
        assert_eq!(js_join_element(Some(&json!(null))), "");
        assert!(!js_truthy(Some(&json!(0))));
        assert!(!js_truthy(Some(&json!(""))));
        assert!(js_truthy(Some(&json!([]))));
        assert_eq!(js_len("a😀"), 3);
        // `slice` counts UTF-16 units and does not split a surrogate pair.
        assert_eq!(js_slice("a😀b", 2), "a");
        assert_eq!(js_slice("a😀b", 3), "a😀");
        assert_eq!(js_trim("\u{feff} x "), "x");
        // A lone surrogate is one unit, as in JavaScript.
        let lone = format!("a{}b", crate::format::surrogates::standin(0xD83D));
        assert_eq!(js_len(&lone), 3);
        assert_eq!(js_slice(&lone, 2).chars().count(), 2);
    }
}
