//! The skim as a serde `Deserializer`: every partial view of a line is a
//! `#[derive(Deserialize)]` struct read through [`Deserializer`], one mechanism over
//! [`Skim`]. It skips what a view does not read at the skim's speed, borrows strings without
//! escapes and the spans a view asks for ([`SPAN`]), and hands any other value it would have to
//! decode (a number that is not plain digits, an escaped string, an enum) to serde_json, from
//! that value's span. It refuses ([`Unsure`]) whatever the skim is unsure of: the caller then
//! reads the line with serde_json, which decides and words the error.

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{DeserializeSeed, Visitor};

use crate::model::ContentWalk;
use crate::skim::{Members, Result, Skim, Unsure};

/// A cursor over one line, as serde walks it.
pub(crate) struct Deserializer<'a> {
    skim: Skim<'a>,
    /// What the walk of a [`CONTENT`] learned (one a line: a message's content); unsure of
    /// all (the default) when none was walked.
    walk: ContentWalk<'a>,
}

/// The name under which a type asks [`Deserializer`] for the stored bytes of its value
/// (`visit_borrowed_bytes`); other deserializers call `visit_newtype_struct` with themselves.
pub(crate) const SPAN: &str = "$pisess::Span";

/// The name under which a message's content asks for its stored bytes, as [`SPAN`] does,
/// and is walked on the way ([`ContentWalk`]).
pub(crate) const CONTENT: &str = "$pisess::Content";

/// The name under which a string type asks for a string as the one decoder reads it: a lone
/// surrogate as its stand-in (`json::decode`), where serde_json refuses it.
pub(crate) const MENDED: &str = "$pisess::Mended";

/// The name under which serde_json's `&RawValue` asks for its text (serde_json's
/// `raw::TOKEN`): a map of one key, this name, whose value is the text.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

/// `T` read from a line the skim vouches for: one value, then only whitespace.
pub(crate) fn from_slice<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8]) -> Result<T> {
    from_slice_walked(bytes, |_, _| {})
}

/// [`from_slice`], with the walk of the [`CONTENT`] it read, if any, handed to `walked` with
/// the value: put in place, not returned beside it (a line's view and its walk are hundreds
/// of bytes, and the pair was copied again on the way out). The result is the one returned,
/// never moved out of (`?` and `Ok(value)` copied the 792 bytes of a view twice more).
pub(crate) fn from_slice_walked<'a, T: serde::Deserialize<'a>>(
    bytes: &'a [u8],
    walked: impl FnOnce(&mut T, &ContentWalk<'a>),
) -> Result<T> {
    let mut de = Deserializer {
        skim: Skim::new(bytes),
        walk: ContentWalk::default(),
    };
    let mut result = T::deserialize(&mut de);
    if result.is_ok() && de.skim.end().is_err() {
        result = Err(Unsure);
    }
    if let Ok(value) = &mut result {
        walked(value, &de.walk);
    }
    result
}

impl std::fmt::Display for Unsure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("left to serde_json")
    }
}

impl std::error::Error for Unsure {}

impl serde::de::Error for Unsure {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Unsure
    }
}

impl<'a> Deserializer<'a> {
    /// The next value read by serde_json from its span, as a whole-line decode would read it.
    fn by_serde_json<T>(
        &mut self,
        read: impl FnOnce(
            &mut serde_json::Deserializer<serde_json::de::SliceRead<'a>>,
        ) -> serde_json::Result<T>,
    ) -> Result<T> {
        let span = self.skim.value()?;
        let mut de = serde_json::Deserializer::from_slice(span);
        let value = read(&mut de).map_err(|_| Unsure)?;
        de.end().map_err(|_| Unsure)?;
        Ok(value)
    }

    /// The string at the cursor: borrowed when it holds no escape and no character a
    /// surrogate's stand-in could be taken for (after the UTF-8 check serde_json makes), else
    /// decoded by serde_json, or `mended` by the one decoder.
    fn string<V: Visitor<'a>>(&mut self, visitor: V, mended: bool) -> Result<V::Value> {
        let mut probe = self.skim.clone();
        let span = probe.string()?;
        let inner = &span[1..span.len() - 1];
        if !inner.contains(&b'\\') && memchr::memchr(0xF4, inner).is_none() {
            let text = if inner.is_ascii() {
                // Ids, roles, times and names are short ASCII, where the UTF-8 check's setup
                // cost more than a look at each byte's high bit.
                #[allow(unsafe_code)]
                // SAFETY: bytes below 0x80 are each a character of UTF-8.
                unsafe {
                    std::str::from_utf8_unchecked(inner)
                }
            } else {
                std::str::from_utf8(inner).map_err(|_| Unsure)?
            };
            self.skim = probe;
            return visitor.visit_borrowed_str(text);
        }
        if mended && crate::json::may_hold_surrogates(span) {
            self.skim = probe;
            return match crate::json::decode(span) {
                Ok(serde_json::Value::String(text)) => visitor.visit_string(text),
                _ => Err(Unsure),
            };
        }
        self.by_serde_json(|de| serde::Deserializer::deserialize_any(de, visitor))
    }

    /// The number at the cursor: plain digits (pi's times in ms, on every message) read in
    /// place, up to 15 of them (exact in an f64, as serde_json's u64 made one is); anything
    /// else by serde_json.
    fn number<V: Visitor<'a>>(&mut self, visitor: V) -> Result<V::Value> {
        let mut probe = self.skim.clone();
        probe.number()?;
        let span = probe.since(self.skim.at);
        let plain = span.len() <= 15
            && span.iter().all(u8::is_ascii_digit)
            && (span[0] != b'0' || span.len() == 1);
        if !plain {
            return self.by_serde_json(|de| serde::Deserializer::deserialize_any(de, visitor));
        }
        self.skim = probe;
        visitor.visit_u64(span.iter().fold(0, |n, &d| n * 10 + u64::from(d - b'0')))
    }
}

/// The members of one object or the items of one array, as serde walks them; `done` once
/// its closing bracket is eaten, which a visitor that stops early never gets to.
struct Access<'d, 'a> {
    de: &'d mut Deserializer<'a>,
    members: Members,
    done: bool,
}

impl<'a> serde::de::MapAccess<'a> for Access<'_, 'a> {
    type Error = Unsure;

    fn next_key_seed<K: DeserializeSeed<'a>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.de.skim.next_key(&mut self.members)? {
            Some(key) => seed.deserialize(Key(key)).map(Some),
            None => {
                self.done = true;
                Ok(None)
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'a>>(&mut self, seed: S) -> Result<S::Value> {
        seed.deserialize(&mut *self.de)
    }
}

impl<'a> serde::de::SeqAccess<'a> for Access<'_, 'a> {
    type Error = Unsure;

    fn next_element_seed<S: DeserializeSeed<'a>>(&mut self, seed: S) -> Result<Option<S::Value>> {
        if self.de.skim.next_item(&mut self.members)? {
            seed.deserialize(&mut *self.de).map(Some)
        } else {
            self.done = true;
            Ok(None)
        }
    }
}

impl<'a> Deserializer<'a> {
    /// The object (`is_object`) or array at the cursor, walked by `visit`, which must eat its
    /// closing bracket: serde's derives stop at no member early.
    fn container<V>(
        &mut self,
        is_object: bool,
        visit: impl FnOnce(&mut Access<'_, 'a>) -> Result<V>,
    ) -> Result<V> {
        let members = if is_object {
            self.skim.object()?
        } else {
            self.skim.array()?
        };
        let mut access = Access {
            de: self,
            members,
            done: false,
        };
        let value = visit(&mut access)?;
        access.done.then_some(value).ok_or(Unsure)
    }
}

impl<'de> serde::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Unsure;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.skim.peek().ok_or(Unsure)? {
            b'{' => self.container(true, |access| visitor.visit_map(access)),
            b'[' => self.container(false, |access| visitor.visit_seq(access)),
            b'"' => self.string(visitor, false),
            b't' => {
                self.skim.literal(b"true")?;
                visitor.visit_bool(true)
            }
            b'f' => {
                self.skim.literal(b"false")?;
                visitor.visit_bool(false)
            }
            b'n' => {
                self.skim.literal(b"null")?;
                visitor.visit_unit()
            }
            _ => self.number(visitor),
        }
    }

    /// Only an object: serde's derive would also take an array, as a tuple.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if self.skim.peek() != Some(b'{') {
            return Err(Unsure);
        }
        self.container(true, |access| visitor.visit_map(access))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.skim.peek() == Some(b'n') {
            self.skim.literal(b"null")?;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        match name {
            SPAN => visitor.visit_borrowed_bytes(self.skim.value()?),
            CONTENT => {
                let span = crate::model::walk_content(&mut self.skim, &mut self.walk)?;
                visitor.visit_borrowed_bytes(span)
            }
            // The span the skim checked is the text serde_json would check again (its
            // `ignore_value` takes what the skim takes), once it is known to be UTF-8.
            RAW_VALUE => {
                let span = self.skim.value()?;
                let text = simdutf8::basic::from_utf8(span).map_err(|_| Unsure)?;
                visitor.visit_map(RawValueAccess { text, keyed: false })
            }
            MENDED if self.skim.peek() == Some(b'"') => self.string(visitor, true),
            MENDED => self.deserialize_any(visitor),
            // serde_json's own (`RawValue`), and any other.
            _ => self.by_serde_json(|de| {
                serde::Deserializer::deserialize_newtype_struct(de, name, visitor)
            }),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.by_serde_json(|de| serde::Deserializer::deserialize_enum(de, name, variants, visitor))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skim.value()?;
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map identifier
    }
}

/// serde_json's `&RawValue` protocol: one key (the token), its value the borrowed text.
struct RawValueAccess<'a> {
    text: &'a str,
    keyed: bool,
}

impl<'a> serde::de::MapAccess<'a> for RawValueAccess<'a> {
    type Error = Unsure;

    fn next_key_seed<K: DeserializeSeed<'a>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if std::mem::replace(&mut self.keyed, true) {
            return Ok(None);
        }
        seed.deserialize(BorrowedStrDeserializer::new(RAW_VALUE))
            .map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'a>>(&mut self, seed: S) -> Result<S::Value> {
        seed.deserialize(BorrowedStrDeserializer::new(self.text))
    }
}

/// A key the skim read (unescaped, UTF-8): bytes to a derive's field names, which compare
/// them as they are; a `str` to anything else.
struct Key<'a>(&'a [u8]);

impl<'de> serde::Deserializer<'de> for Key<'de> {
    type Error = Unsure;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_str(std::str::from_utf8(self.0).map_err(|_| Unsure)?)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_borrowed_bytes(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LineView, LooseStr, Skipped};

    #[test]
    fn spans_strings_and_what_is_left_to_serde_json() {
        #[derive(serde::Deserialize)]
        struct Probe<'a> {
            #[serde(borrow)]
            a: Skipped<'a>,
            #[serde(borrow)]
            b: LooseStr<'a>,
            c: f64,
        }
        let line = br#"{"a": [1, {"x": "y"}] ,"b":"\ud83d","c":1.5e3,"d":{"e":[]}}"#;
        let p: Probe = from_slice(line).unwrap();
        assert_eq!(p.a, Skipped(true, Some(&br#"[1, {"x": "y"}]"#[..])));
        // A lone surrogate as the one decoder holds it, where serde_json refuses the line.
        let lone = crate::json::decode(br#""\ud83d""#).unwrap();
        assert_eq!(p.b.get(), lone.as_str());
        assert!(serde_json::from_slice::<Probe>(line).is_err());
        assert!((p.c - 1500.0).abs() < f64::EPSILON);
        // Only an object is a struct; a field given twice, trailing bytes and numbers serde_json
        // refuses are left to serde_json.
        for bad in [
            &b"[]"[..],
            br#"{"type":"a","type":"b"}"#,
            br#"{"type":"a"} x"#,
            br#"{"message":{"timestamp":1e999}}"#,
        ] {
            assert!(from_slice::<LineView>(bad).is_err(), "{bad:?}");
        }
        assert!(from_slice::<LineView>(br#"{"x":1e999,"y":[01]}"#).is_err());
        assert!(from_slice::<LineView>(br#"{"x":1e999,"y":[0.1]}"#).is_ok());
    }

    /// serde_json's `&RawValue` from the skim's span: the text serde_json gives, and refused
    /// where serde_json refuses it (not UTF-8).
    #[test]
    fn raw_values_are_the_spans_serde_json_gives() {
        #[derive(serde::Deserialize)]
        struct Probe<'a> {
            #[serde(borrow)]
            u: Option<&'a serde_json::value::RawValue>,
        }
        for line in [
            &br#"{"u": {"input": 1, "cost": {"total": 0.5}} }"#[..],
            br#"{"u":[1,"\ud83d",{}]}"#,
            br#"{"u":null}"#,
            br#"{"u":"x"}"#,
            br#"{"v":1}"#,
        ] {
            let skimmed: Probe = from_slice(line).unwrap();
            let read: Probe = serde_json::from_slice(line).unwrap();
            assert_eq!(skimmed.u.map(|r| r.get()), read.u.map(|r| r.get()));
        }
        let bad = b"{\"u\":\"\xff\"}";
        assert!(from_slice::<Probe>(bad).is_err());
        assert!(serde_json::from_slice::<Probe>(bad).is_err());
    }
}
