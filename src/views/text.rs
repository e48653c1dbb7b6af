//! Reading the content of decoded entries for display, shared by `show` and `tree`: the text of
//! message content, image sizes, pi's `/tree` form of a tool call, and cutting long text (our
//! one-line form of a tool call is `model::content::ToolCall::line`).
//!
//! Entries are `serde_json::Value`s exactly as stored, so every accessor here takes any JSON
//! type without panicking. Where pi's own display code is the reference, JavaScript's coercions
//! (`String(x)`, truthiness, UTF-16 `slice`) are reproduced, because a preview that differs from
//! pi's by a quirk would make the two tools disagree about the same file. Nothing here escapes
//! or colours: callers pass the results through [`crate::views::style::escape_control`].

use serde_json::Value;

use pisess_format::escaped::Rest;
use pisess_format::js::{js_len, js_number, js_slice, js_string, js_trim, js_truthy};
use pisess_format::model::content::{Block, Content, ToolArgs};

/// pi's preview `normalize`: newlines and tabs become spaces, then trim.
pub(crate) fn normalize(s: &str) -> String {
    js_trim(&s.replace(['\n', '\t'], " ")).to_owned()
}

/// pi's `extractFullContent`: a string as is, else the `text` blocks concatenated.
pub(crate) fn full_text(content: Option<&Value>) -> String {
    match Content::of(content) {
        Content::Text(s) => s.to_owned(),
        blocks => blocks
            .blocks()
            .filter_map(|b| match b {
                // pi would print "undefined"; an empty string is what the reader means.
                Block::Text {
                    text: None | Some(Value::Null),
                } => Some(String::new()),
                Block::Text { text } => Some(js_string(text)),
                _ => None,
            })
            .collect(),
    }
}

/// pi's `hasTextContent`: some non-blank text (the `/tree` filter's test for assistants).
pub(crate) fn has_text(content: Option<&Value>) -> bool {
    match Content::of(content) {
        Content::Text(s) => !js_trim(s).is_empty(),
        blocks => blocks
            .blocks()
            .any(|b| b.text_str().is_some_and(|t| !js_trim(t).is_empty())),
    }
}

/// The decoded size of base64 data, from its length (no need to decode megabytes to count).
pub(crate) fn base64_size(data: &str) -> u64 {
    base64_digits(data.as_bytes()) * 3 / 4
}

/// The base64 digits of data (what is neither ASCII whitespace nor padding).
pub(crate) fn base64_digits(data: &[u8]) -> u64 {
    // Sums of comparisons in byte lanes rather than `filter`: they compile to vector
    // instructions (images are megabytes). A chunk of 255 cannot overflow a byte.
    let other = |b: u8| b == b' ' || b == b'=' || (b'\t'..=b'\r').contains(&b) && b != 0x0B;
    let others: u64 = data
        .chunks(255)
        .map(|chunk| u64::from(chunk.iter().map(|&b| u8::from(other(b))).sum::<u8>()))
        .sum();
    data.len() as u64 - others
}

/// `[image/png 120 KB]` for an image block (pi's `{data, mimeType}` shape, as strings), the
/// data's decoded size given by `size` (`base64_size`, unless the caller knows it without the
/// data).
pub(crate) fn image_label(
    mime_type: Option<&str>,
    data: Option<&str>,
    size: impl FnOnce(&str) -> u64,
) -> String {
    let mime = mime_type.unwrap_or("image");
    match data {
        Some(data) => format!("[{mime} {}]", crate::views::style::bytes(size(data))),
        None => format!("[{mime}]"),
    }
}

/// pi's `/tree` one-liner for a tool call (`formatToolCall`): `[bash: npm test]`,
/// `[read: ~/src/a.ts:10-29]`, `[mytool: {"x":1}...]`. `home` shortens paths as pi's
/// `shortenHomePath` does.
pub(crate) fn pi_tool_call(name: Option<&Value>, args: Option<&Value>, home: &str) -> String {
    let a = ToolArgs::of(args);
    // `String(args.path || args.file_path || "")`
    let or = |args: &[Option<&Value>], default: &str| {
        args.iter()
            .find(|v| js_truthy(**v))
            .map_or_else(|| default.to_owned(), |v| js_string(*v))
    };
    let short = |p: String| shorten_home(&p, home);
    let path = || short(or(&[a.path, a.file_path], ""));
    match name.and_then(Value::as_str) {
        Some("read") => {
            let range = read_line_range(a.offset, a.limit);
            format!("[read: {}{range}]", path())
        }
        Some("write") => format!("[write: {}]", path()),
        Some("edit") => format!("[edit: {}]", path()),
        Some("bash") => {
            let raw = or(&[a.command], "");
            let cmd = js_slice(js_trim(&raw.replace(['\n', '\t'], " ")), 50).to_owned();
            let more = if js_len(&raw) > 50 { "..." } else { "" };
            format!("[bash: {cmd}{more}]")
        }
        Some("grep") => format!(
            "[grep: /{}/ in {}]",
            or(&[a.pattern], ""),
            short(or(&[a.path], "."))
        ),
        Some("find") => format!(
            "[find: {} in {}]",
            or(&[a.pattern], ""),
            short(or(&[a.path], "."))
        ),
        Some("ls") => format!("[ls: {}]", short(or(&[a.path], "."))),
        _ => {
            // `JSON.stringify(undefined)` has no text; pi would throw on `.slice` here.
            let json = args.map(Value::to_string).unwrap_or_default();
            let more = if js_len(&json) > 40 { "..." } else { "" };
            format!("[{}: {}{more}]", js_string(name), js_slice(&json, 40))
        }
    }
}

/// The arguments [`pi_tool_call`] reads of a call to the tool `name`; `None`: it writes them
/// all (a tool it does not know).
pub(crate) fn pi_tool_call_keys(name: &str) -> Option<&'static [&'static [u8]]> {
    Some(match name {
        "read" => &[b"path", b"file_path", b"offset", b"limit"],
        "write" | "edit" => &[b"path", b"file_path"],
        "bash" => &[b"command"],
        "grep" | "find" => &[b"pattern", b"path"],
        "ls" => &[b"path"],
        _ => return None,
    })
}

/// pi's `shortenHomePath`: an absolute path inside the home directory as `~/…`.
fn shorten_home(path: &str, home: &str) -> String {
    if !path.starts_with('/') {
        return path.to_owned();
    }
    pisess_store::locate::tilde(std::path::Path::new(path), std::path::Path::new(home))
}

/// pi's `formatReadLineRange`: `:10`, `:10-29`, or nothing for malformed values.
fn read_line_range(offset: Option<&Value>, limit: Option<&Value>) -> String {
    let absent = |v: Option<&Value>| v.is_none_or(Value::is_null);
    let number = |v: Option<&Value>| match v {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) if !js_trim(s).is_empty() => {
            js_trim(s).parse::<f64>().ok().filter(|f| f.is_finite())
        }
        _ => None,
    };
    if absent(offset) && absent(limit) {
        return String::new();
    }
    let start = if absent(offset) {
        Some(1.0)
    } else {
        number(offset)
    };
    let Some(start) = start else {
        return String::new();
    };
    let show = |f: f64| js_number(&serde_json::Number::from_f64(f).unwrap_or_else(|| 0.into()));
    if absent(limit) {
        return format!(":{}", show(start));
    }
    let Some(count) = number(limit) else {
        return String::new();
    };
    let end = start + count - 1.0;
    if end == 0.0 {
        format!(":{}", show(start))
    } else {
        format!(":{}-{}", show(start), show(end))
    }
}

/// Text cut for display: at most `max_lines` lines and `max_chars` characters.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Cut<'a> {
    pub text: &'a str,
    /// Lines left out after the kept text (counting a line cut in the middle); 0 when nothing
    /// but whitespace was left out, so a marker is due exactly when this is not 0.
    pub more_lines: usize,
    /// Characters left out.
    pub more_chars: usize,
}

/// Whether [`cut`] of `text` ends inside it, so that what follows it cannot change the kept
/// text: it has more than `max_chars` characters or at least `max_lines` newlines.
pub(crate) fn cuts_within(text: &str, max_lines: usize, max_chars: usize) -> bool {
    nth_char_start(text, max_chars).is_some()
        || memchr::memchr_iter(b'\n', text.as_bytes())
            .nth(max_lines.saturating_sub(1))
            .is_some()
}

/// Where character `n` (from 0) of `text` starts, if it has one: byte `n` when the bytes before
/// it are ASCII, as most text is, else counted by the bytes that start a character (all but
/// UTF-8 continuations), 64 at a time up to the block that holds it.
fn nth_char_start(text: &str, n: usize) -> Option<usize> {
    let b = text.as_bytes();
    if b.len() <= n {
        return None;
    }
    if b[..n].is_ascii() {
        return Some(n);
    }
    let starts = |bytes: &[u8]| bytes.iter().filter(|&&x| x & 0xC0 != 0x80).count();
    let (mut at, mut seen) = (0, 0);
    for block in b.chunks_exact(64) {
        let here = starts(block);
        if seen + here > n {
            break;
        }
        (at, seen) = (at + 64, seen + here);
    }
    let mut starts_from = b[at..]
        .iter()
        .enumerate()
        .filter(|(_, &x)| x & 0xC0 != 0x80);
    starts_from.nth(n - seen).map(|(k, _)| at + k)
}

/// `text` cut, as if followed by `rest` (which the cut must not reach: [`cuts_within`]).
pub(crate) fn cut<'a>(
    text: &'a str,
    rest: Option<&Rest>,
    max_lines: usize,
    max_chars: usize,
) -> Cut<'a> {
    debug_assert!(rest.is_none() || cuts_within(text, max_lines, max_chars));
    let mut end = text.len();
    // Cut after `max_lines` lines, then after `max_chars` characters, whichever comes first.
    // Newlines found with memchr: a tool result of 50 KB is counted through to its end.
    if let Some(at) = memchr::memchr_iter(b'\n', text.as_bytes()).nth(max_lines.saturating_sub(1)) {
        end = at;
    }
    if let Some(at) = nth_char_start(text, max_chars) {
        end = end.min(at);
    }
    let kept = text[..end].trim_end_matches('\n');
    let left = &text[end..];
    let after = rest.copied().unwrap_or(Rest {
        chars: 0,
        newlines: 0,
        has_text: false,
    });
    // A cut in the middle of a line counts that line's rest as one more line.
    let more_lines = if left.trim().is_empty() && !after.has_text {
        0
    } else {
        // `lines().count()` of a text that holds something and ends in no newline: one more
        // than its newlines. Trailing whitespace is the rest's when it has text.
        let left = left.strip_prefix('\n').unwrap_or(left);
        let left = if after.has_text {
            left
        } else {
            left.trim_end()
        };
        memchr::memchr_iter(b'\n', left.as_bytes()).count() + after.newlines + 1
    };
    Cut {
        text: kept,
        more_lines,
        more_chars: left.chars().count() + after.chars,
    }
}

#[cfg(test)]
mod tests {
    /// The counts of every split of random strings equal those of the whole decoded text, as
    /// `cut` counts them after a prefix; refusals are only where the string is not plain.
    #[test]
    fn counts_equal_the_decoded_texts() {
        let mut next = pisess_format::skim::rng(18);
        let (mut counted, mut refused) = (0, 0);
        for _ in 0..4000 {
            let inner = pisess_format::escaped::random_inner(&mut next);
            let quoted = [&b"\""[..], &inner, b"\""].concat();
            // `\n\n` raw is not JSON: the decoder refuses it, the skim never hands it over.
            let Ok(serde_json::Value::String(whole)) = pisess_format::json::decode(&quoted) else {
                continue;
            };
            let from = next(inner.len() + 1);
            let Some(at) = pisess_format::escaped::boundary(&inner, from) else {
                continue;
            };
            let decode =
                |b: &[u8]| match pisess_format::json::decode(&[&b"\""[..], b, b"\""].concat()) {
                    Ok(serde_json::Value::String(s)) => s,
                    other => panic!("{other:?}"),
                };
            let (head, tail) = (decode(&inner[..at]), decode(&inner[at..]));
            assert_eq!(format!("{head}{tail}"), whole, "{:?} at {at}", inner);
            let plain = std::str::from_utf8(&inner[at..]).is_ok()
                && !pisess_format::json::may_hold_surrogates(&inner[at..]);
            let Some(r) = pisess_format::escaped::rest(&inner[at..]) else {
                assert!(!plain, "{:?}", String::from_utf8_lossy(&inner[at..]));
                refused += 1;
                continue;
            };
            counted += 1;
            assert_eq!(r.chars, tail.chars().count(), "{tail:?}");
            let trimmed = tail.trim_end();
            assert_eq!(r.has_text, !trimmed.is_empty(), "{tail:?}");
            assert_eq!(r.newlines, trimmed.matches('\n').count(), "{tail:?}");
            // And `cut` of a long enough head with these counts is `cut` of the whole.
            for (lines, chars) in [(2, 5), (1, 1), (3, 40), (12, 1500)] {
                if cuts_within(&head, lines, chars) {
                    let full = cut(&whole, None, lines, chars);
                    assert_eq!(cut(&head, Some(&r), lines, chars), full, "{whole:?}");
                }
            }
        }
        assert!(counted > 1000 && refused > 100, "{counted} {refused}");
    }

    #[test]
    fn the_nth_character_starts_where_counting_finds_it() {
        let long = [
            "aé😀\n".repeat(90),
            "é".repeat(300),
            format!("{}😀", "x".repeat(200)),
        ];
        let short = ["", "abc", "ab😀cd", "é", &"x".repeat(70), &"é".repeat(40)];
        for text in short.into_iter().chain(long.iter().map(String::as_str)) {
            for n in 0..text.len() + 2 {
                let counted = text.char_indices().nth(n).map(|(at, _)| at);
                assert_eq!(super::nth_char_start(text, n), counted, "{text:?} {n}");
            }
        }
    }

    use super::*;
    use serde_json::json;

    #[test]
    fn normalize_folds_newlines_and_tabs() {
        // JavaScript's coercions themselves are js.rs's to test.
        assert_eq!(normalize("\t a\nb  "), "a b");
    }

    #[test]
    fn content_text_and_has_text() {
        let blocks = json!([{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"},
            {"type":"text"},"junk",{"type":"toolCall"}]);
        assert_eq!(full_text(Some(&blocks)), "ab");
        assert_eq!(full_text(Some(&json!("s"))), "s");
        assert_eq!(full_text(Some(&json!({"x":1}))), "");
        assert!(has_text(Some(&json!([{"type":"text","text":" x "}]))));
        assert!(!has_text(Some(
            &json!([{"type":"text","text":"  "}, {"type":"toolCall"}])
        )));
        assert!(!has_text(Some(&json!([{"type":"text","text":5}]))));
        assert!(!has_text(None));
    }

    #[test]
    fn images() {
        assert_eq!(base64_size("AAAA"), 3);
        assert_eq!(base64_size("AA=="), 1);
        // What `is_ascii_whitespace` skips, and nothing else (not a vertical tab).
        assert_eq!(base64_digits(b"A B\tC\nD\x0BE\x0CF\rG=="), 8);
        let big = "A".repeat(163_840);
        assert_eq!(
            image_label(Some("image/png"), Some(&big), base64_size),
            "[image/png 120 KB]"
        );
        assert_eq!(image_label(None, None, base64_size), "[image]");
    }

    #[test]
    fn tool_calls() {
        let home = "/home/dev";
        let pi = |name: &str, args: Value| pi_tool_call(Some(&json!(name)), Some(&args), home);
        assert_eq!(
            pi("read", json!({"path":"/home/dev/a.ts"})),
            "[read: ~/a.ts]"
        );
        assert_eq!(
            pi("read", json!({"path":"a.ts","offset":10,"limit":20})),
            "[read: a.ts:10-29]"
        );
        assert_eq!(
            pi("read", json!({"path":"a.ts","limit":5})),
            "[read: a.ts:1-5]"
        );
        assert_eq!(
            pi("read", json!({"file_path":"b","offset":"x"})),
            "[read: b]"
        );
        assert_eq!(pi("bash", json!({"command":"ls\n-la"})), "[bash: ls -la]");
        let long = "x".repeat(60);
        assert_eq!(
            pi("bash", json!({ "command": long })),
            format!("[bash: {}...]", "x".repeat(50))
        );
        assert_eq!(pi("grep", json!({"pattern":"a+"})), "[grep: /a+/ in .]");
        assert_eq!(pi("ls", json!({"path":"/home/dev"})), "[ls: ~]");
        assert_eq!(
            pi(
                "mytool",
                json!({"k":"0123456789012345678901234567890123456789"})
            ),
            r#"[mytool: {"k":"0123456789012345678901234567890123...]"#
        );
        assert_eq!(pi_tool_call(None, None, home), "[undefined: ]");
        assert_eq!(
            pi_tool_call(Some(&json!("read")), Some(&json!("s")), home),
            "[read: ]"
        );
    }

    #[test]
    fn cut_counts_what_is_left_as_lines_does() {
        // The counts of `str::lines`, which `cut` once used, on texts of every shape.
        let parts = ["a", "\n", "\r\n", " ", "é", "\t", "\n\n", "🚀b"];
        let mut seed = 7u64;
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..(seed % 14) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                text.push_str(parts[(seed >> 33) as usize % parts.len()]);
            }
            for (lines, chars) in [(1, 100), (2, 3), (3, 1), (0, 5)] {
                let c = cut(&text, None, lines, chars);
                // The old way, with `str` methods.
                let mut end = text.len();
                if let Some((at, _)) = text.match_indices('\n').nth(lines.saturating_sub(1)) {
                    end = at;
                }
                if let Some((at, _)) = text.char_indices().nth(chars) {
                    end = end.min(at);
                }
                let rest = &text[end..];
                let want = if rest.trim().is_empty() {
                    0
                } else {
                    rest.strip_prefix('\n')
                        .unwrap_or(rest)
                        .trim_end()
                        .lines()
                        .count()
                };
                assert_eq!(c.text, text[..end].trim_end_matches('\n'));
                assert_eq!(c.more_lines, want, "{text:?} {lines} {chars}");
            }
        }
    }

    #[test]
    fn cutting() {
        let c = cut("a\nb\nc\nd", None, 2, 100);
        assert_eq!((c.text, c.more_lines), ("a\nb", 2));
        let c = cut("abcdef", None, 5, 3);
        assert_eq!((c.text, c.more_lines, c.more_chars), ("abc", 1, 3));
        let c = cut("short\n", None, 5, 100);
        assert_eq!((c.text, c.more_lines, c.more_chars), ("short", 0, 0));
        // Only blank lines left out: nothing worth a marker.
        assert_eq!(cut("a\n\n\n", None, 1, 100).more_lines, 0);
        let c = cut("é", None, 1, 0);
        assert_eq!((c.text, c.more_chars), ("", 1));
    }
}
