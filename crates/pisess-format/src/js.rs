//! JavaScript's coercions, reproduced where pisess must print what pi's code prints:
//! truthiness, `String(x)` in template literals and `Array.prototype.join`, UTF-16 lengths and
//! slices, `trim()`. One place, so `context`, `show`, `tree` and `ls` agree on every quirk.

use serde_json::Value;

/// JavaScript truthiness (`if (x)`); an absent field is `undefined`.
pub fn js_truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

/// JavaScript's `String(x)`, as template literals apply it.
pub fn js_string(v: Option<&Value>) -> String {
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
pub fn js_number(n: &serde_json::Number) -> String {
    match n.as_f64() {
        Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
        _ => n.to_string(),
    }
}

/// JavaScript's `ToNumber(x)`, as a relational comparison (`version >= 3`) or `+x` applies it
/// to a parsed JSON value: `true` is 1, `null` 0, a string its numeric literal (`" 3 "`, `"0x10"`,
/// `"Infinity"`; `""` is 0; anything else NaN), an array its `join` read as a string (`[3]` is
/// 3), an object and `undefined` (an absent field) NaN.
pub(crate) fn js_to_number(v: Option<&Value>) -> f64 {
    match v {
        None | Some(Value::Object(_)) => f64::NAN,
        Some(Value::Null) => 0.0,
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(Value::String(s)) => js_string_to_number(s),
        Some(array @ Value::Array(_)) => js_string_to_number(&js_string(Some(array))),
    }
}

/// JavaScript's `StringToNumber`: the string without surrounding white space is empty (0), a
/// decimal literal with an optional sign, `Infinity` with an optional sign, or an unsigned
/// `0x`/`0o`/`0b` integer; anything else is NaN.
pub(crate) fn js_string_to_number(s: &str) -> f64 {
    // JavaScript's white space and line terminators (Rust's also holds U+0085, which JS's lacks).
    let s = s.trim_matches(|c: char| (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}');
    if s.is_empty() {
        return 0.0;
    }
    let radix = |digits: &str, radix: u32| {
        if digits.is_empty() {
            return f64::NAN;
        }
        digits
            .chars()
            .try_fold(0.0_f64, |acc, c| {
                c.to_digit(radix)
                    .map(|d| acc * f64::from(radix) + f64::from(d))
            })
            .unwrap_or(f64::NAN)
    };
    let lower = s.get(..2).map(str::to_ascii_lowercase);
    match lower.as_deref() {
        Some("0x") => return radix(&s[2..], 16),
        Some("0o") => return radix(&s[2..], 8),
        Some("0b") => return radix(&s[2..], 2),
        _ => {}
    }
    let (sign, unsigned) = match s.as_bytes()[0] {
        b'-' => (-1.0, &s[1..]),
        b'+' => (1.0, &s[1..]),
        _ => (1.0, s),
    };
    if unsigned == "Infinity" {
        return sign * f64::INFINITY;
    }
    // A decimal literal: digits with at most one point and digits on one side of it at least,
    // then an optional exponent. Rust's parser would also take `inf` and `nan`.
    let bytes = unsigned.as_bytes();
    let mut at = 0;
    let digits = |at: &mut usize| {
        let start = *at;
        while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        *at - start
    };
    let mut mantissa = digits(&mut at);
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        mantissa += digits(&mut at);
    }
    if mantissa == 0 {
        return f64::NAN;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        if digits(&mut at) == 0 {
            return f64::NAN;
        }
    }
    if at != bytes.len() {
        return f64::NAN;
    }
    unsigned.parse::<f64>().map_or(f64::NAN, |x| sign * x)
}

/// A value as JavaScript's `+` sees it after `ToPrimitive`: an array or an object has become
/// its string (`[3]` is `"3"`, `{}` is `"[object Object]"`), so a sum is a number or a string.
#[derive(Debug, Clone, PartialEq)]
pub enum JsValue {
    Undefined,
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
}

impl JsValue {
    /// A parsed JSON value (`None`: an absent field, `undefined`).
    pub fn of(v: Option<&Value>) -> JsValue {
        match v {
            None => JsValue::Undefined,
            Some(Value::Null) => JsValue::Null,
            Some(Value::Bool(b)) => JsValue::Bool(*b),
            Some(Value::Number(n)) => JsValue::Num(n.as_f64().unwrap_or(f64::NAN)),
            Some(Value::String(s)) => JsValue::Str(s.clone()),
            Some(other) => JsValue::Str(js_string(Some(other))),
        }
    }

    /// `a + b`: string concatenation when either side is a string, else numeric addition
    /// (`true` is 1, `null` 0, `undefined` NaN).
    pub fn plus(&self, b: &JsValue) -> JsValue {
        match (self, b) {
            (JsValue::Str(_), _) | (_, JsValue::Str(_)) => {
                JsValue::Str(self.to_js_string() + &b.to_js_string())
            }
            _ => JsValue::Num(self.to_number() + b.to_number()),
        }
    }

    fn to_number(&self) -> f64 {
        match self {
            JsValue::Undefined => f64::NAN,
            JsValue::Null => 0.0,
            JsValue::Bool(b) => f64::from(u8::from(*b)),
            JsValue::Num(n) => *n,
            JsValue::Str(s) => js_string_to_number(s),
        }
    }

    /// `String(x)`; a number as JavaScript prints it (`0.30000000000000004`, `1e+21`).
    fn to_js_string(&self) -> String {
        match self {
            JsValue::Undefined => "undefined".to_owned(),
            JsValue::Null => "null".to_owned(),
            JsValue::Bool(b) => b.to_string(),
            JsValue::Num(n) => ryu_js::Buffer::new().format(*n).to_owned(),
            JsValue::Str(s) => s.clone(),
        }
    }

    /// What `JSON.stringify` writes of it (NaN and the infinities are `null`).
    pub fn to_json(&self) -> Value {
        match self {
            JsValue::Undefined | JsValue::Null => Value::Null,
            JsValue::Bool(b) => Value::Bool(*b),
            JsValue::Num(n) => crate::model::number(*n),
            JsValue::Str(s) => Value::String(s.clone()),
        }
    }

    pub fn is_string(&self) -> bool {
        matches!(self, JsValue::Str(_))
    }
}

/// The longest prefix of `s` that is at most `units` UTF-16 code units (JavaScript's
/// `s.slice(0, units)`, without splitting a surrogate pair).
pub fn js_slice(s: &str, units: usize) -> &str {
    let mut used = 0;
    for (at, c) in s.char_indices() {
        used += crate::surrogates::units(c);
        if used > units {
            return &s[..at];
        }
    }
    s
}

/// JavaScript's `s.length` (a lone surrogate, held as a stand-in, is one unit).
pub fn js_len(s: &str) -> usize {
    crate::surrogates::js_len_of(s)
}

/// JavaScript's `trim()` (which also strips the byte-order mark).
pub fn js_trim(s: &str) -> &str {
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
        // ToNumber, as `version >= 3` applies it (issue 42: each of these was version 1).
        for (v, n) in [
            (json!(3.0), 3.0),
            (json!(3e0), 3.0),
            (json!("3"), 3.0),
            (json!(" 3\n"), 3.0),
            (json!("0x10"), 16.0),
            (json!("-Infinity"), f64::NEG_INFINITY),
            (json!(""), 0.0),
            (json!([3]), 3.0),
            (json!([[2.5]]), 2.5),
            (json!([]), 0.0),
            (json!(true), 1.0),
            (json!(null), 0.0),
            (json!(".5"), 0.5),
            (json!("5."), 5.0),
            (json!("1e3"), 1000.0),
        ] {
            assert_eq!(js_to_number(Some(&v)).to_bits(), f64::to_bits(n), "{v}");
        }
        for v in [
            json!("inf"),
            json!("nan"),
            json!("3a"),
            json!("-0x10"),
            json!("."),
            json!("1e"),
            json!([1, 2]),
            json!({}),
            json!("\u{85}3"),
        ] {
            assert!(js_to_number(Some(&v)).is_nan(), "{v}");
        }
        assert!(js_to_number(None).is_nan());
        // `+` as pi's usage totals apply it (issue 42): numbers add, a string concatenates.
        let sum = |vs: &[Value]| {
            vs.iter()
                .fold(JsValue::Num(0.0), |acc, v| acc.plus(&JsValue::of(Some(v))))
        };
        assert_eq!(sum(&[json!(1250), json!(true)]), JsValue::Num(1251.0));
        assert_eq!(sum(&[json!(1250), json!(null)]), JsValue::Num(1250.0));
        assert_eq!(
            sum(&[json!(1250), json!("5"), json!(3)]),
            JsValue::Str("12505".to_owned() + "3")
        );
        assert_eq!(
            sum(&[json!(0.1), json!(0.2), json!("")]),
            JsValue::Str("0.30000000000000004".into())
        );
        assert_eq!(sum(&[json!(1), json!([2, 3])]), JsValue::Str("12,3".into()));
        assert_eq!(
            sum(&[json!(1), json!({})]),
            JsValue::Str("1[object Object]".into())
        );
        assert_eq!(
            sum(&[json!("a"), json!(true), json!(null)]),
            JsValue::Str("0atruenull".into())
        );
        let undefined = JsValue::Num(1.0).plus(&JsValue::of(None));
        assert!(matches!(undefined, JsValue::Num(n) if n.is_nan()));
        assert_eq!(undefined.to_json(), json!(null));
        assert_eq!(
            JsValue::Str("x".into()).plus(&JsValue::of(None)),
            JsValue::Str("xundefined".into())
        );
        assert_eq!(
            JsValue::Num(1e21).plus(&JsValue::Str(String::new())),
            JsValue::Str("1e+21".into())
        );
        assert!(!js_truthy(Some(&json!(0))));
        assert!(!js_truthy(Some(&json!(""))));
        assert!(js_truthy(Some(&json!([]))));
        assert_eq!(js_len("a😀"), 3);
        // `slice` counts UTF-16 units and does not split a surrogate pair.
        assert_eq!(js_slice("a😀b", 2), "a");
        assert_eq!(js_slice("a😀b", 3), "a😀");
        assert_eq!(js_trim("\u{feff} x "), "x");
        // A lone surrogate is one unit, as in JavaScript.
        let lone = format!("a{}b", crate::surrogates::standin(0xD83D));
        assert_eq!(js_len(&lone), 3);
        assert_eq!(js_slice(&lone, 2).chars().count(), 2);
    }
}
