//! The pattern carried over to a line's stored JSON bytes: a necessary condition, tested before
//! the line is decoded.
//!
//! A JSON string stores its text character by character, each as its UTF-8 bytes or as an
//! escape, so the stored bytes of a decoded text are the concatenation of its characters'
//! spellings. The regex built here matches the spelling of every text the pattern matches:
//! each character that a string may store otherwise than as its UTF-8 bytes becomes the
//! alternation of its spellings, and each look-around (`^`, `$`, `\b`, `\B`) matches always,
//! since in stored bytes a line's ends and a word's edges sit beside escapes. So a decoded line
//! with a match lies in a stored line with a match, and a stored line without one can hold no
//! match (nor can a file). Case folding needs nothing here: the parser has already turned each
//! folded letter into a class of its variants, which are stored as they read.
//!
//! `\uXXXX` may spell any character: text holding such an escape is not covered, and
//! [`Matcher::may_match`](super::Matcher::may_match) decodes it. Outside those escapes, the
//! characters stored differently are:
//!
//! - `"` and `\`: only `\"` and `\\` (a string holds neither raw);
//! - `/`: itself or `\/`;
//! - the controls: `\n`, `\t`, `\r`, `\b`, `\f` for five of them, and `\u00XX` alone for the
//!   others (a string holds no raw control, and the decoder refuses the line that does);
//! - U+FFFD: itself, or a byte sequence that is not UTF-8, which the decoder reads as U+FFFD
//!   (`json::decode`, as Node does: one U+FFFD for each maximal invalid sequence, 1 to 3 bytes
//!   of `0x80..=0xFF`).

use regex_automata::meta;
use regex_syntax::hir::{
    Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Hir, HirKind, Repetition,
};

/// The characters stored as `\` and one more byte, with that byte.
const NAMED: [(char, u8); 8] = [
    ('"', b'"'),
    ('\\', b'\\'),
    ('/', b'/'),
    ('\n', b'n'),
    ('\t', b't'),
    ('\r', b'r'),
    ('\u{8}', b'b'),
    ('\u{c}', b'f'),
];

/// The regex over stored bytes for a pattern's `hir`, or `None` when it would not rule out
/// anything (it matches the empty string) or cannot be built (past the size limits).
pub(super) fn regex(hir: &Hir) -> Option<meta::Regex> {
    let stored = spelled(hir)?;
    if stored.properties().minimum_len() == Some(0) {
        return None;
    }
    meta::Regex::builder()
        // Matches are only tested for, never split: no rule for empty matches inside a character.
        .configure(meta::Config::new().utf8_empty(false))
        .build_from_hir(&stored)
        .ok()
}

/// Whether the stored regex of `hir` is one literal, which a byte search finds faster than the
/// scan reads lines (the many literals of a pattern that ignores case are slower than that).
pub(super) fn is_one_literal(hir: &Hir) -> bool {
    use regex_syntax::hir::literal::Extractor;
    spelled(hir).is_some_and(|stored| {
        let seq = Extractor::new().extract(&stored);
        seq.is_exact() && seq.len() == Some(1)
    })
}

/// What matches the stored spellings of what `hir` matches; `None` where `hir` holds bytes that
/// are not whole characters (not a pattern over text).
pub(super) fn spelled(hir: &Hir) -> Option<Hir> {
    Some(match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Hir::empty(),
        HirKind::Literal(literal) => {
            let text = std::str::from_utf8(&literal.0).ok()?;
            // `Hir::concat` joins the runs of plain characters back into literals.
            Hir::concat(
                text.chars()
                    .map(|c| {
                        if stored_as_read(c) {
                            Hir::literal(c.encode_utf8(&mut [0; 4]).as_bytes())
                        } else {
                            class(&ClassUnicode::new([ClassUnicodeRange::new(c, c)]))
                        }
                    })
                    .collect(),
            )
        }
        HirKind::Class(Class::Unicode(c)) => class(c),
        HirKind::Class(Class::Bytes(c)) => class(&c.to_unicode_class()?),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            min: r.min,
            max: r.max,
            greedy: r.greedy,
            sub: Box::new(spelled(&r.sub)?),
        }),
        HirKind::Capture(c) => spelled(&c.sub)?,
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(spelled).collect::<Option<_>>()?),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.iter().map(spelled).collect::<Option<_>>()?)
        }
    })
}

/// Whether a string always stores `c` as its UTF-8 bytes (outside `\u` escapes).
fn stored_as_read(c: char) -> bool {
    !matches!(c, '\0'..='\u{1f}' | '"' | '\\' | '/' | '\u{fffd}')
}

/// The spellings of a class's characters: those stored raw, `\` and a byte for the named
/// escapes, and invalid UTF-8 for U+FFFD.
fn class(c: &ClassUnicode) -> Hir {
    let has = |ch: char| c.ranges().iter().any(|r| r.start() <= ch && ch <= r.end());
    let mut raw = c.clone();
    raw.difference(&ClassUnicode::new([
        ClassUnicodeRange::new('\0', '\u{1f}'),
        ClassUnicodeRange::new('"', '"'),
        ClassUnicodeRange::new('\\', '\\'),
    ]));
    let mut spellings = Vec::new();
    if !raw.ranges().is_empty() {
        spellings.push(Hir::class(Class::Unicode(raw)));
    }
    let escaped: Vec<_> = NAMED
        .iter()
        .filter(|(ch, _)| has(*ch))
        .map(|&(_, b)| ClassBytesRange::new(b, b))
        .collect();
    if !escaped.is_empty() {
        spellings.push(Hir::concat(vec![
            Hir::literal(*b"\\"),
            Hir::class(Class::Bytes(ClassBytes::new(escaped))),
        ]));
    }
    if has('\u{fffd}') {
        spellings.push(Hir::repetition(Repetition {
            min: 1,
            max: Some(3),
            greedy: true,
            sub: Box::new(Hir::class(Class::Bytes(ClassBytes::new([
                ClassBytesRange::new(0x80, 0xff),
            ])))),
        }));
    }
    // No spelling (a control stored only as `\u00XX`): an empty alternation never matches.
    Hir::alternation(spellings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The stored regex of `pattern` as regex-syntax prints it.
    fn shown(pattern: &str, ignore_case: bool) -> String {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(ignore_case)
            .build()
            .parse(pattern)
            .unwrap();
        spelled(&hir).unwrap().to_string()
    }

    fn stored(pattern: &str) -> meta::Regex {
        let hir = regex_syntax::parse(pattern).unwrap();
        regex(&hir).unwrap()
    }

    #[test]
    fn plain_text_is_kept_and_escaped_characters_become_their_spellings() {
        assert_eq!(shown("deploy", false), "(?:deploy)");
        assert_eq!(shown(r#"say "hi""#, false), r#"(?:say \\"hi\\")"#);
        let quote = stored(r#"say "hi""#);
        assert!(quote.is_match(br#"{"text":"we say \"hi\" here"}"#));
        assert!(!quote.is_match(br#"{"text":"say hi"}"#));
        let path = stored(r"C:\\dir/a");
        assert!(path.is_match(br#"{"t":"C:\\dir/a"}"#));
        assert!(path.is_match(br#"{"t":"C:\\dir\/a"}"#));
        assert!(!path.is_match(br#"{"t":"C:dir/a"}"#));
        let lines = stored("a\tb\r\nc");
        assert!(lines.is_match(br#""a\tb\r\nc""#));
        assert!(
            !lines.is_match(b"\"a\tb\r\nc\""),
            "raw controls are not JSON"
        );
        // Controls without a named escape are spelled `\u00XX` alone, which `may_match` leaves
        // to the decoder: no stored spelling at all here.
        assert!(!stored("x\u{1}").is_match(b"x\x01 x\\u0001"));
    }

    #[test]
    fn classes_gain_the_escapes_of_their_members() {
        let space = stored(r"a\sb");
        assert!(space.is_match(br#""a b""#));
        assert!(space.is_match(br#""a\nb""#));
        assert!(space.is_match(br#""a\tb""#));
        assert!(!space.is_match(br#""a\"b""#));
        // `.` is every character but a newline: escaped quotes and backslashes, not `\n`.
        let dot = stored("x.y");
        for hay in [
            r#""x\"y""#,
            r#""x\\y""#,
            r#""x\/y""#,
            r#""x/y""#,
            r#""xéy""#,
            r#""x\ty""#,
        ] {
            assert!(dot.is_match(hay.as_bytes()), "{hay}");
        }
        assert!(!dot.is_match(br#""x\ny""#));
        assert!(
            !dot.is_match(br#""x","y""#),
            "a raw quote is not a character of the text"
        );
        // U+FFFD also reads invalid UTF-8, one to three bytes of it.
        for hay in [&b"x\xffy"[..], b"x\xe2\x82y", "x\u{fffd}y".as_bytes()] {
            assert!(dot.is_match(hay), "{hay:?}");
        }
        let negated = stored(r#"[^"a]+z"#);
        assert!(negated.is_match(br#""b\\z""#));
        assert!(!negated.is_match(br#""\"z""#));
    }

    #[test]
    fn case_folding_words_and_anchors() {
        // -i: the folded variants, Kelvin sign and long s included, are stored as they read.
        assert_eq!(shown("ks", true), "(?:[Kk\u{212a}][Ss\u{17f}])");
        let folded = {
            let hir = regex_syntax::ParserBuilder::new()
                .case_insensitive(true)
                .build()
                .parse(r"parse \w+ error")
                .unwrap();
            regex(&hir).unwrap()
        };
        assert!(folded.is_match(br#"{"text":"PARSE json ERROR"}"#));
        assert!(folded.is_match("{\"text\":\"PAR\u{17f}E x error\"}".as_bytes()));
        assert!(!folded.is_match(br#"{"text":"parse error"}"#));
        // Look-arounds match always: in stored bytes `\nfix` has `n` before `fix`.
        assert_eq!(shown(r"^fix$", false), "(?:fix)");
        assert_eq!(shown(r"\b(?:log)\b", false), "(?:log)");
        assert!(stored(r"^fix\b").is_match(br#""a\nfix\tb""#));
        // What may match the empty string rules nothing out.
        assert!(regex(&regex_syntax::parse("a*|^").unwrap()).is_none());
    }

    /// Random texts and patterns over the characters JSON stores otherwise: wherever the
    /// pattern matches a line of a text, the stored regex matches the text as JSON stores it
    /// (with `/` raw and as `\/`, U+FFFD as itself and as invalid UTF-8).
    #[test]
    fn a_match_in_a_text_is_a_match_in_its_stored_bytes() {
        const CHARS: &[char] = &[
            'a', 'k', 'K', 'é', ' ', '"', '\\', '/', '\n', '\t', '\r', '\u{8}', '\u{c}',
            '\u{fffd}', '\u{17f}', '\u{212a}', 'x',
        ];
        const PIECES: &[&str] = &[
            "a",
            "k",
            r#"""#,
            r"\\",
            "/",
            r"\n",
            r"\t",
            r"\r",
            ".",
            r"\s",
            r"\W",
            r"\w",
            "[^a]",
            r"\x{fffd}",
            "é",
            "^",
            "$",
            r"\b",
            r"\B",
            "a+",
            r#"["/]"#,
            r"[\x08\x0c]",
            "(?:x|/)",
            r"\S{2}",
            "(?s:.)",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            usize::try_from(seed % n as u64).unwrap()
        };
        let mut checked = 0;
        for _ in 0..10_000 {
            let text: String = (0..1 + next(12))
                .map(|_| CHARS[next(CHARS.len())])
                .collect();
            let pattern: String = (0..1 + next(3))
                .map(|_| PIECES[next(PIECES.len())])
                .collect();
            let ignore_case = next(2) == 0;
            let user = regex::RegexBuilder::new(&pattern)
                .case_insensitive(ignore_case)
                .build()
                .unwrap();
            if !text.split('\n').any(|line| user.is_match(line)) {
                continue;
            }
            let hir = regex_syntax::ParserBuilder::new()
                .case_insensitive(ignore_case)
                .build()
                .parse(&pattern)
                .unwrap();
            let Some(stored) = regex(&hir) else {
                continue;
            };
            let json = serde_json::to_string(&text).unwrap();
            let invalid = json.replace('\u{fffd}', "\u{1}").into_bytes();
            let invalid: Vec<u8> = invalid
                .iter()
                .map(|&b| if b == 1 { 0xff } else { b })
                .collect();
            for stored_form in [
                json.as_bytes(),
                json.replace('/', r"\/").as_bytes(),
                &invalid,
            ] {
                assert!(
                    stored.is_match(stored_form),
                    "{pattern:?} (i: {ignore_case}) matches {text:?}, not {:?}",
                    String::from_utf8_lossy(stored_form)
                );
            }
            checked += 1;
        }
        assert!(checked > 2000, "{checked}");
    }
}
