//! What the summary and `stats` read of a message's content, from the span the skim found
//! for it ([`MessageView::content`]): the first message's text and the tool calls, without
//! decoding the line again. Each walk gives what the decode of the whole line gives, or
//! `None` where the skim is unsure (an escaped or non-UTF-8 key, which could spell a key
//! looked for): then the caller decodes the line, as before.

use serde_json::Value;

use super::entry::LooseStr;
use super::view::{decoded_span, MessageView};
use crate::skim::Skim;

/// What the skim learns of a message's content as it passes it, once (the summary asks it of
/// every message): its `toolCall` blocks counted, the `text` of its text blocks, and the
/// `toolCall` blocks' values for `stats`. Each `None` where a second walk over the span would
/// be unsure, or for more than are kept: then [`MessageView::tool_call_count`],
/// [`MessageView::content_text`] and [`MessageView::each_content_item`] walk the span.
#[derive(Debug, Clone, Copy, Default)]
pub struct ContentWalk<'a> {
    tool_calls: Option<u64>,
    texts: Option<TextSpans<'a>>,
    calls: Option<CallSpans<'a>>,
}

/// The stored `type`, `id`, `name` and `arguments` of each `toolCall` block, in order, of a
/// content whose every item is an object with plain keys, each of those four at most once, a
/// `type` (if any) that is a plain UTF-8 string, and none of the other three unless it is a
/// `toolCall` block: the blocks [`MessageView::each_content_item`] would hand out, but for
/// the others, from which nothing can be read.
#[derive(Debug, Clone, Copy, Default)]
struct CallSpans<'a> {
    blocks: [[Option<&'a [u8]>; 4]; 3],
    len: usize,
}

/// The stored `text` of each text block, in order (`None`: a text block without one).
#[derive(Debug, Clone, Copy, Default)]
struct TextSpans<'a> {
    spans: [Option<&'a [u8]>; 4],
    len: usize,
}

/// The content value at the cursor, read past: its stored bytes, and what [`ContentWalk`]
/// learns of an array of blocks on the way, into `walk` (the members of each block object are
/// skipped as `value` skips them; only their keys are looked at). Unsure only where the skim
/// is, and then `walk` is left half done (the line is the decoder's). Written in place: built
/// here and returned, the walk (304 bytes) was copied piece by piece on its way into the
/// view, ten copies a message.
pub(crate) fn walk_content<'a>(
    s: &mut Skim<'a>,
    walk: &mut ContentWalk<'a>,
) -> crate::skim::Result<&'a [u8]> {
    s.peek();
    let start = s.at;
    if !s.at_array() {
        let span = s.value()?;
        // No blocks: no calls; a string's text is decoded from the span.
        *walk = ContentWalk {
            tool_calls: Some(0),
            texts: None,
            calls: None,
        };
        return Ok(span);
    }
    *walk = ContentWalk {
        tool_calls: Some(0),
        texts: Some(TextSpans::default()),
        calls: Some(CallSpans::default()),
    };
    let ContentWalk {
        tool_calls: calls,
        texts,
        calls: call_spans,
    } = walk;
    let mut items = s.array()?;
    while s.next_item(&mut items)? {
        if !s.at_object() {
            s.value()?;
            *call_spans = None;
            continue;
        }
        let (mut kind, mut text) = (None, None);
        let [mut id, mut name, mut arguments] = [None; 3];
        let mut members = s.object()?;
        while let Some(key) = s.next_raw_key(&mut members)? {
            let value = s.value()?;
            match key {
                // Given twice, as `members` is unsure of it.
                b"type" if kind.replace(value).is_some() => {
                    (*calls, *texts, *call_spans) = (None, None, None);
                }
                b"text" if text.replace(value).is_some() => *texts = None,
                b"id" if id.replace(value).is_some() => *call_spans = None,
                b"name" if name.replace(value).is_some() => *call_spans = None,
                b"arguments" if arguments.replace(value).is_some() => *call_spans = None,
                b"type" | b"text" | b"id" | b"name" | b"arguments" => {}
                // An escaped key may spell either; one not UTF-8 is left to the line.
                _ if key.contains(&b'\\')
                    || !key.is_ascii() && std::str::from_utf8(key).is_err() =>
                {
                    (*calls, *texts, *call_spans) = (None, None, None);
                }
                _ => {}
            }
        }
        if let Some(c) = call_spans.as_mut() {
            // A plain UTF-8 string, or none: the type `serde_json_str` reads as stored.
            let plain = kind.is_none_or(|k| {
                let inner = k.strip_prefix(b"\"").unwrap_or(b"\\");
                !inner.contains(&b'\\') && (k.is_ascii() || std::str::from_utf8(inner).is_ok())
            });
            let is_call = kind == Some(&b"\"toolCall\""[..]);
            if !plain || !is_call && (id.is_some() || name.is_some() || arguments.is_some()) {
                *call_spans = None;
            } else if is_call && c.len < c.blocks.len() {
                c.blocks[c.len] = [kind, id, name, arguments];
                c.len += 1;
            } else if is_call {
                *call_spans = None;
            }
        }
        let kind = kind.unwrap_or(b"");
        if let Some(n) = calls.as_mut() {
            match spells(kind, "toolCall") {
                Some(is_call) => *n += u64::from(is_call),
                None => *calls = None,
            }
        }
        if let Some(t) = texts.as_mut() {
            match spells(kind, "text") {
                Some(false) => {}
                Some(true) if t.len < t.spans.len() => {
                    t.spans[t.len] = text;
                    t.len += 1;
                }
                _ => *texts = None,
            }
        }
    }
    Ok(s.since(start))
}

/// A `toolCall` block's stored values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CallBlockSpans<'a> {
    pub id: Option<&'a [u8]>,
    pub name: Option<&'a [u8]>,
    pub arguments: Option<&'a [u8]>,
}

/// An item of a content array: an object's values under the keys asked for, or the stored
/// bytes of anything else.
pub enum Item<'a, const N: usize> {
    Block([Option<&'a [u8]>; N]),
    Other(&'a [u8]),
}

/// Walks the items of a content span, each handed to `item`. Content that is no array holds
/// no blocks (pi's `Array.isArray`).
fn each_item<'a, const N: usize>(
    span: &'a [u8],
    keys: [&[u8]; N],
    mut item: impl FnMut(Item<'a, N>) -> Option<()>,
) -> Option<()> {
    let mut s = Skim::new(span);
    if !s.at_array() {
        return Some(());
    }
    let mut items = s.array().ok()?;
    while s.next_item(&mut items).ok()? {
        if s.at_object() {
            item(Item::Block(members(&mut s, keys)?))?;
        } else {
            item(Item::Other(s.value().ok()?))?;
        }
    }
    s.end().ok()
}

/// [`each_item`] of the objects only.
fn each_block<'a, const N: usize>(
    span: &'a [u8],
    keys: [&[u8]; N],
    mut block: impl FnMut([Option<&'a [u8]>; N]) -> Option<()>,
) -> Option<()> {
    each_item(span, keys, |item| match item {
        Item::Block(found) => block(found),
        Item::Other(_) => Some(()),
    })
}

/// The values under `keys` of the object at the cursor, read past it. `None` (unsure) where
/// one is given twice: serde_json's derives refuse it, a full decode keeps the last, and which
/// reading a caller copies is theirs to decide, from the line.
fn members<'a, const N: usize>(
    s: &mut Skim<'a>,
    keys: [&[u8]; N],
) -> Option<[Option<&'a [u8]>; N]> {
    let mut found = [None; N];
    let mut members = s.object().ok()?;
    // The skim refuses escaped and non-UTF-8 keys: one might spell a key looked for.
    while let Some(key) = s.next_key(&mut members).ok()? {
        let value = s.value().ok()?;
        if let Some(at) = keys.iter().position(|k| *k == key) {
            if found[at].replace(value).is_some() {
                return None;
            }
        }
    }
    Some(found)
}

/// The values under `keys` of the object stored in `span` (`None`: no object, or unsure, as
/// [`each_item`] reads a block).
pub fn object_members<'a, const N: usize>(
    span: &'a [u8],
    keys: [&[u8]; N],
) -> Option<[Option<&'a [u8]>; N]> {
    let mut s = Skim::new(span);
    if !s.at_object() {
        return None;
    }
    let found = members(&mut s, keys)?;
    s.end().ok()?;
    Some(found)
}

/// A string field as serde_json reads it in place in a line (`LooseStr` through
/// `serde_json::from_slice`): a plain string borrowed, anything else given to serde_json.
/// `None` where serde_json refuses it (a lone surrogate, invalid UTF-8, a number beyond f64),
/// which fails a derive over the whole line.
pub fn serde_json_str(span: &[u8]) -> Option<LooseStr<'_>> {
    let inner = span.strip_prefix(b"\"").and_then(|s| s.strip_suffix(b"\""));
    match inner {
        Some(inner) if !inner.contains(&b'\\') => {
            let text = std::str::from_utf8(inner).ok()?;
            Some(LooseStr(Some(std::borrow::Cow::Borrowed(text))))
        }
        _ => serde_json::from_slice(span).ok(),
    }
}

/// Whether a stored value is the string `word` (escapes decoded, as a full decode reads it).
fn spells(span: &[u8], word: &str) -> Option<bool> {
    let inner = span.strip_prefix(b"\"").and_then(|s| s.strip_suffix(b"\""));
    match inner {
        None => Some(false),
        Some(inner) if !inner.contains(&b'\\') => Some(inner == word.as_bytes()),
        // Escaped letters still spell it.
        Some(_) => Some(decoded_span(span)?.as_str() == Some(word)),
    }
}

impl<'a> MessageView<'a> {
    /// The content's stored bytes when the skim read the message (`Some(None)`: no content).
    fn content_span(&self) -> Option<Option<&'a [u8]>> {
        self.skimmed.then_some(self.content.1)
    }

    /// [`message_content_text`](super::message_content_text) of the line this view was read
    /// from, out of the content's span: the text blocks' texts decoded, nothing else. `None`
    /// when the skim did not read the message or is unsure: then ask the line.
    pub fn content_text(&self) -> Option<Option<String>> {
        let Some(span) = self.content_span()? else {
            return Some(None);
        };
        match span.first()? {
            b'"' => match decoded_span(span)? {
                Value::String(text) => Some(Some(text)),
                _ => None,
            },
            b'[' => {
                if let Some(texts) = self.walk.texts {
                    let mut parts = Vec::with_capacity(texts.len);
                    for text in &texts.spans[..texts.len] {
                        let text = match text {
                            Some(text) => Some(decoded_span(text)?),
                            None => None,
                        };
                        parts.push(crate::js::js_join_element(text.as_ref()));
                    }
                    return Some(Some(parts.join(" ")));
                }
                let mut parts: Vec<String> = Vec::new();
                each_block(span, [b"type", b"text"], |[kind, text]| {
                    if spells(kind.unwrap_or(b""), "text")? {
                        let text = match text {
                            Some(text) => Some(decoded_span(text)?),
                            None => None,
                        };
                        parts.push(crate::js::js_join_element(text.as_ref()));
                    }
                    Some(())
                })?;
                Some(Some(parts.join(" ")))
            }
            // `null`, or another JSON type: no text (pi drops such sessions from its list).
            _ => Some(None),
        }
    }

    /// The items of the content (none unless it is an array), each object's values under
    /// `keys` (see [`Item`]); `None` when the skim did not read the message or is unsure.
    pub fn each_content_item<const N: usize>(
        &self,
        keys: [&[u8]; N],
        item: impl FnMut(Item<'a, N>) -> Option<()>,
    ) -> Option<()> {
        match self.content_span()? {
            Some(span) => each_item(span, keys, item),
            None => Some(()),
        }
    }

    /// The stored `type`, `id`, `name` and `arguments` of the content's `toolCall` blocks,
    /// as the skim found them on its pass, when [`MessageView::each_content_item`] would hand
    /// out nothing else that can be read: every other item an object without `id`, `name` or
    /// `arguments`, of a plain string `type` or none (see [`ContentWalk`]). `None` otherwise:
    /// then walk the content.
    pub fn walked_call_blocks(&self) -> Option<&[[Option<&'a [u8]>; 4]]> {
        let calls = self.walk.calls.as_ref()?;
        self.content_span()??;
        Some(&calls.blocks[..calls.len])
    }

    /// The `toolCall` blocks of the content, in order, as [`CallBlockSpans`]; `None` when the
    /// skim did not read the message or is unsure.
    pub fn tool_call_blocks(&self) -> Option<Vec<CallBlockSpans<'a>>> {
        let mut calls = Vec::new();
        let Some(span) = self.content_span()? else {
            return Some(calls);
        };
        each_block(
            span,
            [b"type", b"id", b"name", b"arguments"],
            |[kind, id, name, arguments]| {
                if spells(kind.unwrap_or(b""), "toolCall")? {
                    calls.push(CallBlockSpans {
                        id,
                        name,
                        arguments,
                    });
                }
                Some(())
            },
        )?;
        Some(calls)
    }

    /// The number of `toolCall` blocks of the content (pi's `getSessionStats`); `None` when
    /// the skim did not read the message or is unsure.
    pub fn tool_call_count(&self) -> Option<u64> {
        let Some(span) = self.content_span()? else {
            return Some(0);
        };
        if let Some(n) = self.walk.tool_calls {
            return Some(n);
        }
        // Most assistant messages call nothing: no block spells the type, even escaped.
        if memchr::memmem::find(span, b"\"toolCall\"").is_none()
            && memchr::memmem::find(span, b"\\u").is_none()
        {
            return Some(0);
        }
        let mut n = 0;
        each_block(span, [b"type"], |[kind]| {
            n += u64::from(spells(kind.unwrap_or(b""), "toolCall")?);
            Some(())
        })?;
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{message_call_facts, message_content_text, LineView};

    fn lossy(line: &[u8]) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(line)
    }

    /// Where the skim answers from the spans, the answer is the line's decode's; whether it
    /// answered.
    fn agrees(line: &[u8]) -> bool {
        let Some(view) = LineView::skim(line) else {
            return false;
        };
        let Some(m) = view.message.0.as_ref() else {
            return false;
        };
        let mut answered = false;
        if let Some(text) = m.content_text() {
            assert_eq!(text, message_content_text(line), "{}", lossy(line));
            answered = true;
        }
        let count = m.tool_call_count();
        if let Some(n) = count {
            assert_eq!(n, message_call_facts(line).tool_calls, "{}", lossy(line));
            answered = true;
        }
        if let (Some(n), Some(blocks)) = (count, m.tool_call_blocks()) {
            assert_eq!(blocks.len() as u64, n, "{}", lossy(line));
        }
        // The walk made on the skim's pass and the walk of the span after it agree, and the
        // first answers wherever the second does, but for more texts than it keeps.
        let mut unwalked = LineView::skim(line).unwrap();
        let u = unwalked.message.0.as_mut().unwrap();
        u.walk = super::ContentWalk::default();
        let (text, calls) = (u.content_text(), u.tool_call_count());
        if let Some(n) = calls {
            assert_eq!(count, Some(n), "{}", lossy(line));
        }
        let is_array = m.content.1.is_some_and(|span| span.first() == Some(&b'['));
        if is_array && m.walk.tool_calls.is_none() {
            // Where the second walk answers anyway, no block spells a call.
            let span = m.content.1.unwrap();
            let plain = memchr::memmem::find(span, b"\"toolCall\"").is_none()
                && memchr::memmem::find(span, b"\\u").is_none();
            assert!(calls.is_none() || plain, "{}", lossy(line));
        }
        if text.is_some() {
            assert_eq!(m.content_text(), text, "{}", lossy(line));
        }
        // The call blocks found on the pass are those the walk of the span hands out, and
        // the walk hands out no other block with anything in it.
        if let Some(walked) = m.walked_call_blocks() {
            let mut blocks = Vec::new();
            let walk = u.each_content_item([b"type", b"id", b"name", b"arguments"], |item| {
                match item {
                    super::Item::Block(found) if found[0] == Some(&b"\"toolCall\""[..]) => {
                        blocks.push(found);
                    }
                    super::Item::Block([kind, None, None, None]) => {
                        assert!(kind.is_none_or(|k| k.first() == Some(&b'"')));
                    }
                    _ => panic!("{}", lossy(line)),
                }
                Some(())
            });
            assert_eq!(walk, Some(()), "{}", lossy(line));
            assert_eq!(walked, &blocks[..], "{}", lossy(line));
            answered = true;
        }
        answered
    }

    fn text(line: &str) -> Option<Option<String>> {
        let view = LineView::skim(line.as_bytes()).unwrap();
        let text = view.message.0.unwrap().content_text();
        assert!(agrees(line.as_bytes()) || text.is_none());
        text
    }

    fn calls(line: &str) -> Option<u64> {
        let view = LineView::skim(line.as_bytes()).unwrap();
        let n = view.message.0.unwrap().tool_call_count();
        assert!(agrees(line.as_bytes()) || n.is_none());
        n
    }

    #[test]
    fn the_first_text_is_decoded_from_its_span() {
        // Escapes decoded; a plain string as it is.
        assert_eq!(
            text(r#"{"message":{"role":"user","content":"a\n\"b\" \u00e9 \ud83d\ude00"}}"#),
            Some(Some("a\n\"b\" é 😀".to_owned()))
        );
        // Text after a thinking block (whose text is no message text), texts joined.
        assert_eq!(
            text(
                r#"{"message":{"content":[{"type":"thinking","thinking":"no","text":"nor this"},{"type":"text","text":"a\tb"},{"type":"te\u0078t","text":"c"}]}}"#
            ),
            Some(Some("a\tb c".to_owned()))
        );
        // A text that is no string as JavaScript joins it.
        assert_eq!(
            text(
                r#"{"message":{"content":[{"type":"text","text":"y"},{"type":"image","text":"z"},{"type":"text","text":5},{"type":"text"},{"type":"text","text":null},"text",7]}}"#
            ),
            Some(Some("y 5  ".to_owned()))
        );
        // A key given twice is left to the line.
        assert_eq!(
            text(r#"{"message":{"content":[{"type":"text","text":"x","text":"y"}]}}"#),
            None
        );
        // No content, `null`, or another type: no text.
        for line in [
            r#"{"message":{"role":"user"}}"#,
            r#"{"message":{"content":null}}"#,
            r#"{"message":{"content":{"text":"x"}}}"#,
            r#"{"message":{"content":12}}"#,
        ] {
            assert_eq!(text(line), Some(None), "{line}");
        }
        // A lone surrogate, as the one decoder holds it.
        assert!(text(r#"{"message":{"content":[{"type":"text","text":"\ud83d!"}]}}"#).is_some());
        // An escaped key might spell `type` or `text`: unsure, the line decides.
        assert_eq!(
            text(r#"{"message":{"content":[{"t\u0065xt":"x","type":"text"}]}}"#),
            None
        );
    }

    #[test]
    fn tool_calls_are_counted_from_the_span() {
        let line = r#"{"message":{"role":"assistant","content":[{"type":"thinking","thinking":"{\"type\":\"toolCall\"}"},{"type":"text","text":"\"type\":\"toolCall\""},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls","nested":{"type":"toolCall"}}},{"type":"tool\u0043all","id":"c2"},"toolCall",{"type":"text","name":"toolCall"}]}}"#;
        // Neither the texts that spell a call nor the nested object nor the last block count.
        assert_eq!(calls(line), Some(2));
        let view = LineView::skim(line.as_bytes()).unwrap();
        let blocks = view.message.0.unwrap().tool_call_blocks().unwrap();
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].id, Some(&br#""c1""#[..]));
        assert_eq!(blocks[0].name, Some(&br#""bash""#[..]));
        assert_eq!(
            blocks[0].arguments,
            Some(&br#"{"command":"ls","nested":{"type":"toolCall"}}"#[..])
        );
        assert_eq!(
            (blocks[1].id, blocks[1].name),
            (Some(&br#""c2""#[..]), None)
        );
        // Content that is no array holds none.
        assert_eq!(calls(r#"{"message":{"content":"toolCall"}}"#), Some(0));
        assert_eq!(
            calls(r#"{"message":{"content":{"type":"toolCall"}}}"#),
            Some(0)
        );
        assert_eq!(calls(r#"{"message":{"role":"assistant"}}"#), Some(0));
        assert_eq!(
            calls(r#"{"message":{"content":[{"typ\u0065":"toolCall"}]}}"#),
            None
        );
    }

    /// A line cut short is no line the skim reads: nothing is answered from it, and the
    /// callers decode it (or report it) as before.
    #[test]
    fn truncated_lines_answer_nothing() {
        let line = r#"{"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"toolCall","id":"c"}]}}"#;
        assert!(agrees(line.as_bytes()));
        for end in 0..line.len() {
            assert!(!agrees(&line.as_bytes()[..end]), "{}", &line[..end]);
        }
    }

    /// Invalid UTF-8 in a text reads as pi reads it, each bad run a U+FFFD.
    #[test]
    fn invalid_utf8_reads_as_the_line_does() {
        let line = b"{\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"caf\xc3\xff \\n x\xf0\x9f\"},{\"type\":\"toolCall\"}]}}";
        assert!(agrees(line));
        let line = b"{\"message\":{\"content\":\"\xff\xfe\\u00e9\"}}";
        assert!(agrees(line));
    }

    /// Every line of the bundled examples and thousands of damaged copies: whatever the spans
    /// answer, the line's decode answers alike.
    #[test]
    fn spans_agree_with_the_line_on_damaged_lines() {
        let mut lines = crate::skim::example_lines();
        lines.retain(|l| memchr::memmem::find(l, b"\"content\"").is_some());
        let answered = lines.iter().filter(|l| agrees(l)).count();
        assert!(answered > 100, "{answered}");
        let specials = [
            b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'u', 0x01, 0xff, b't',
        ];
        let took = crate::skim::damaged(&lines, &specials, 0x51ce_5eed_0049, 20_000)
            .filter(|line| agrees(line))
            .count();
        assert!((1_000..19_000).contains(&took), "{took} of 20000 answered");
    }
}
