//! What `grep` searches and how: the pattern as ripgrep reads it, a test on a line's stored bytes
//! that rules out lines that cannot match before they are decoded, and the decoded texts of an
//! entry (what was said and done, never keys, escapes or image data), each cut into lines.

use std::borrow::Cow;

use regex::Regex;
use regex_automata::meta;
use serde_json::Value;

use pisess_format::model::content::{Block, Content};
use pisess_format::model::{Entry, EntryKind, Role};

mod stored;

/// How the pattern is read (ripgrep's flags).
#[derive(Debug, Clone, Copy, Default)]
#[allow(clippy::struct_excessive_bools)] // one per flag
pub struct Syntax {
    pub fixed: bool,
    pub ignore_case: bool,
    pub smart_case: bool,
    pub word: bool,
}

/// A compiled pattern: the regex over decoded lines, and what a stored line must match for any
/// of its decoded lines to match.
#[derive(Debug)]
pub struct Matcher {
    regex: Regex,
    /// The pattern over stored bytes (`search::stored`); `None`: every line may match.
    stored: Option<meta::Regex>,
    /// The stored regex is one literal (`stored::is_one_literal`).
    literal: bool,
}

/// The regex source of a pattern under `syntax`, and whether it ignores case.
fn source(pattern: &str, syntax: Syntax) -> (String, bool) {
    let mut source = if syntax.fixed {
        regex::escape(pattern)
    } else {
        pattern.to_owned()
    };
    if syntax.word {
        source = format!(r"\b(?:{source})\b");
    }
    let ignore_case =
        syntax.ignore_case || (syntax.smart_case && !has_uppercase_literal(pattern, syntax.fixed));
    (source, ignore_case)
}

/// Whether the pattern asks for a newline, which no line holds: a literal `\n` (typed, or
/// escaped as `\n`, `\x0a`, `\u000A`) or a class of nothing else (`[\n]`). ripgrep refuses
/// such a pattern without `--multiline` rather than find nothing; a class that holds more
/// (`[a\n]`, `\s`, `[^a]`) is taken, its newline never matching, as ripgrep takes it.
pub fn asks_for_newline(pattern: &str, syntax: Syntax) -> bool {
    use regex_syntax::hir::{Class, Hir, HirKind};
    fn walk(hir: &Hir) -> bool {
        match hir.kind() {
            HirKind::Literal(lit) => lit.0.contains(&b'\n'),
            HirKind::Class(Class::Unicode(c)) => {
                let ranges = c.ranges();
                !ranges.is_empty() && ranges.iter().all(|r| r.start() == '\n' && r.end() == '\n')
            }
            HirKind::Class(Class::Bytes(c)) => {
                let ranges = c.ranges();
                !ranges.is_empty()
                    && ranges
                        .iter()
                        .all(|r| r.start() == b'\n' && r.end() == b'\n')
            }
            HirKind::Repetition(r) => walk(&r.sub),
            HirKind::Capture(c) => walk(&c.sub),
            HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().any(walk),
            HirKind::Empty | HirKind::Look(_) => false,
        }
    }
    let (source, ignore_case) = source(pattern, syntax);
    regex_syntax::ParserBuilder::new()
        .case_insensitive(ignore_case)
        .build()
        .parse(&source)
        .is_ok_and(|hir| walk(&hir))
}

impl Matcher {
    pub fn new(pattern: &str, syntax: Syntax) -> Result<Matcher, regex::Error> {
        let (source, ignore_case) = source(pattern, syntax);
        let regex = regex::RegexBuilder::new(&source)
            .case_insensitive(ignore_case)
            .build()?;
        // Parsed again as `regex` parses it (same crate, same flags), for the stored regex.
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(ignore_case)
            .build()
            .parse(&source)
            .ok();
        let stored = hir.as_ref().and_then(stored::regex);
        let literal = stored.is_some() && hir.as_ref().is_some_and(stored::is_one_literal);
        Ok(Matcher {
            regex,
            stored,
            literal,
        })
    }

    /// Whether stored JSON (a line, or a whole file) can hold a decoded line that matches.
    /// False only when it surely cannot: outside `\u` escapes, the stored bytes of a match
    /// match the stored regex; bytes with a `\u` escape are always decoded (it may spell any
    /// character).
    pub fn may_match(&self, stored: &[u8]) -> bool {
        match &self.stored {
            None => true,
            Some(r) => r.is_match(stored) || memchr::memmem::find(stored, b"\\u").is_some(),
        }
    }

    /// A byte of the first stretch of `stored` that may hold a match (where
    /// [`may_match`](Self::may_match) of the line around it is true): in the stored regex's
    /// leftmost match, or the first `\u`; `None` when nothing in `stored` can match. The stored
    /// regex matches no raw newline, so every line that ends before this byte cannot match.
    pub fn first_may_match(&self, stored: &[u8]) -> Option<usize> {
        self.stretches(stored).next_from(0)
    }

    /// The stretches of `stored` (lines of stored JSON) that may hold a match, one after the
    /// other: [`first_may_match`](Self::first_may_match) from any offset on.
    pub fn stretches<'a>(&'a self, stored: &'a [u8]) -> Stretches<'a> {
        Stretches {
            matcher: self,
            stored,
            last: None,
        }
    }

    /// Whether the stretches that may match are found faster than lines are parsed: the stored
    /// regex is one literal (a byte search). Else only the first is looked for, and every line
    /// from its own on is parsed.
    pub fn stretches_are_cheap(&self) -> bool {
        self.literal
    }

    /// Whether [`may_match`](Self::may_match) can ever say no.
    pub fn prefilters(&self) -> bool {
        self.stored.is_some()
    }

    /// The byte ranges of the matches within one line (no `\n` in it).
    pub fn find_in(&self, line: &str) -> Vec<(usize, usize)> {
        self.regex
            .find_iter(line)
            .map(|m| (m.start(), m.end()))
            .collect()
    }
}

/// Where in stored JSON held in memory a match may be, from any offset on (`grep` reads only
/// those lines of a file).
pub struct Stretches<'a> {
    matcher: &'a Matcher,
    stored: &'a [u8],
    /// The last search of the stored regex: where it started, where the next search may
    /// start and find the same (no match starts in between), and a byte of the leftmost match
    /// it found (`None`: no match after the start).
    last: Option<(usize, usize, Option<usize>)>,
}

impl Stretches<'_> {
    /// A byte at or after `from` of the first stretch there that may hold a match (see
    /// [`Matcher::first_may_match`]); `None` when no byte from `from` on can.
    pub fn next_from(&mut self, from: usize) -> Option<usize> {
        let stored = self.stored;
        if from > stored.len() {
            return None;
        }
        let Some(r) = &self.matcher.stored else {
            return Some(from);
        };
        // The last search still answers when it started at or before `from` and no match
        // starts between the two. (Searching again each time would read the same bytes again
        // for every `\u` before a match.)
        let matched = match self.last {
            Some((start, clear, at)) if start <= from && from <= clear => at,
            _ => {
                let input = regex_automata::Input::new(stored).span(from..stored.len());
                // Its last byte: a match is never empty. The stored regex matches no
                // raw newline, so the match started in that byte's line.
                let at = r
                    .search_half(&input)
                    .map(|m| m.offset().saturating_sub(1).max(from));
                let line_start =
                    |at: usize| memchr::memrchr(b'\n', &stored[..at]).map_or(0, |n| n + 1);
                let clear = at.map_or(usize::MAX, line_start);
                self.last = Some((from, clear, at));
                at
            }
        };
        let end = matched.unwrap_or(stored.len());
        let escape = memchr::memmem::find(&stored[from..end], b"\\u").map(|at| from + at);
        escape.or(matched)
    }
}

/// ripgrep's smart case: an uppercase letter written in the pattern makes it case-sensitive;
/// escapes (`\W`, `\S`, `\p{Lu}`) are not letters written.
fn has_uppercase_literal(pattern: &str, fixed: bool) -> bool {
    if fixed {
        return pattern.chars().any(char::is_uppercase);
    }
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            // The guard consumes what follows a `\`: one character (`\W`, `\\`), two (`\pL`), or
            // a class name to its `}` (`\p{Lu}`).
            '\\' if matches!(chars.next(), Some('p' | 'P')) && chars.next() == Some('{') => {
                chars.by_ref().find(|&c| c == '}');
            }
            c if c.is_uppercase() => return true,
            _ => {}
        }
    }
    false
}

/// Which optional kinds of text are searched too.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reach {
    /// Tool results and bash output.
    pub tools: bool,
    pub thinking: bool,
}

/// Where in an entry a text was found (`field` in `grep --json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// User, assistant, custom message text.
    Text,
    /// A tool call's name or one of its string arguments.
    ToolCall,
    ToolResult,
    Thinking,
    /// Branch and compaction summaries.
    Summary,
    /// A session name (`session_info`).
    Name,
    /// The command of a `!` bash execution.
    Command,
    /// Its output.
    Output,
    /// The provider's `errorMessage` of an assistant message that stopped with an error.
    Error,
}

impl Field {
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Text => "text",
            Field::ToolCall => "toolCall",
            Field::ToolResult => "toolResult",
            Field::Thinking => "thinking",
            Field::Summary => "summary",
            Field::Name => "name",
            Field::Command => "command",
            Field::Output => "output",
            Field::Error => "error",
        }
    }
}

/// Whether an entry of this kind and role has any text `reach` searches: the rest are never
/// decoded. `role` is pi's (v1/v2 `hookMessage` read as `custom`).
pub fn searched(kind: &EntryKind, role: Option<&str>, reach: Reach) -> bool {
    match kind {
        EntryKind::Message => match Role::parse(role.unwrap_or("")) {
            Role::ToolResult => reach.tools,
            Role::User
            | Role::Assistant
            | Role::Custom
            | Role::BashExecution
            | Role::BranchSummary
            | Role::CompactionSummary => true,
            Role::System | Role::Other(_) => false,
        },
        EntryKind::Compaction
        | EntryKind::BranchSummary
        | EntryKind::CustomMessage
        | EntryKind::SessionInfo => true,
        EntryKind::ModelChange
        | EntryKind::ThinkingLevelChange
        | EntryKind::Usage
        | EntryKind::ContextEdit
        | EntryKind::Custom
        | EntryKind::Label
        | EntryKind::ToolCall
        | EntryKind::Thinking
        | EntryKind::Unknown(_) => false,
    }
}

/// The searched texts of a decoded entry (pi's shape), in the order they appear: [`searched`]
/// says which entries have any.
pub fn texts<'a>(
    entry: &'a Value,
    kind: &'a EntryKind,
    role: Option<&str>,
    reach: Reach,
) -> Vec<(Field, &'a str)> {
    let mut out = Vec::new();
    let mut push = |field, v: Option<&'a Value>| {
        if let Some(s) = v.and_then(Value::as_str) {
            out.push((field, s));
        }
    };
    match Entry::of_kind(kind, entry) {
        Entry::Message(Some(m)) => match Role::parse(role.unwrap_or("")) {
            Role::User | Role::Custom => content(m.content_value(), Field::Text, &mut out),
            Role::Assistant => {
                assistant(m.content_value(), reach, &mut out);
                let error = m.error_message().and_then(Value::as_str);
                out.extend(error.map(|e| (Field::Error, e)));
            }
            Role::ToolResult if reach.tools => {
                content(m.content_value(), Field::ToolResult, &mut out);
            }
            Role::BashExecution => {
                push(Field::Command, m.command());
                if reach.tools {
                    push(Field::Output, m.output());
                }
            }
            Role::BranchSummary | Role::CompactionSummary => push(Field::Summary, m.summary()),
            _ => {}
        },
        Entry::Compaction { summary, .. } | Entry::BranchSummary { summary, .. } => {
            push(Field::Summary, summary);
        }
        Entry::CustomMessage { content: c, .. } => content(c, Field::Text, &mut out),
        Entry::SessionInfo { name } => push(Field::Name, name),
        _ => {}
    }
    out
}

/// A string content, or the text blocks of a block content (images and the rest skipped).
fn content<'a>(c: Option<&'a Value>, field: Field, out: &mut Vec<(Field, &'a str)>) {
    match Content::of(c) {
        Content::Text(s) => out.push((field, s)),
        blocks => out.extend(blocks.blocks().filter_map(|b| Some((field, b.text_str()?)))),
    }
}

fn assistant<'a>(c: Option<&'a Value>, reach: Reach, out: &mut Vec<(Field, &'a str)>) {
    for block in Content::of(c).blocks() {
        match block {
            Block::Text { text } => {
                out.extend(text.and_then(Value::as_str).map(|s| (Field::Text, s)))
            }
            // Redacted thinking is an opaque provider payload, not text.
            Block::Thinking {
                thinking,
                redacted: false,
                ..
            } if reach.thinking => {
                out.extend(
                    thinking
                        .and_then(Value::as_str)
                        .map(|s| (Field::Thinking, s)),
                );
            }
            Block::ToolCall(call) => {
                out.extend(
                    call.name
                        .and_then(Value::as_str)
                        .map(|s| (Field::ToolCall, s)),
                );
                if let Some(args) = call.arguments {
                    strings(args, &mut |s| out.push((Field::ToolCall, s)));
                }
            }
            _ => {}
        }
    }
}

/// Every string value inside `v`, depth first (keys are not text anyone said).
fn strings<'a>(v: &'a Value, each: &mut impl FnMut(&'a str)) {
    match v {
        Value::String(s) => each(s),
        Value::Array(items) => items.iter().for_each(|i| strings(i, each)),
        Value::Object(map) => map.values().for_each(|i| strings(i, each)),
        _ => {}
    }
}

/// One line of a text that matched: its 1-based number within the text, the line, and the
/// byte ranges of the matches in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMatch {
    pub number: usize,
    pub line: String,
    pub matches: Vec<(usize, usize)>,
}

/// The matching lines of a text, line by line as ripgrep: `\n` ends a line (a `\r` before it
/// stays), so `^` and `$` are a line's ends.
pub fn matching_lines<'a>(
    matcher: &'a Matcher,
    text: &'a str,
) -> impl Iterator<Item = LineMatch> + 'a {
    text.split('\n').enumerate().filter_map(|(i, line)| {
        let matches = matcher.find_in(line);
        (!matches.is_empty()).then(|| LineMatch {
            number: i + 1,
            line: Cow::Borrowed(line).into_owned(),
            matches,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn m(pattern: &str, syntax: Syntax) -> Matcher {
        Matcher::new(pattern, syntax).unwrap()
    }

    #[test]
    fn stored_bytes_rule_out_only_lines_that_cannot_match() {
        let plain = Syntax::default();
        let lit = m("deploy", plain);
        assert!(lit.prefilters());
        assert!(!lit.may_match(br#"{"text":"nothing here\n"}"#));
        assert!(lit.may_match(br#"{"text":"we deploy"}"#));
        // `\u0064` is `d`: an escape may spell anything, so such lines are decoded.
        assert!(lit.may_match(br#"{"text":"\u0064eploy"}"#));
        // Characters JSON escapes are looked for in their stored spellings.
        let fixed = Syntax {
            fixed: true,
            ..plain
        };
        for (p, yes, no) in [
            (r#"say "hi""#, r#"{"t":"say \"hi\""}"#, r#"{"say":"hi"}"#),
            (r"C:\x", r#"{"t":"C:\\x"}"#, r#"{"t":"C:x"}"#),
            ("a/b", r#"{"t":"a\/b"}"#, r#"{"t":"a b"}"#),
        ] {
            let f = m(p, fixed);
            assert!(
                f.may_match(yes.as_bytes()) && !f.may_match(no.as_bytes()),
                "{p}"
            );
        }
        // A regex without a leading literal is tested whole.
        let ing = m(r"\w+ing", plain);
        assert!(!ing.may_match(br#"{"text":"ing"}"#));
        assert!(ing.may_match(br#"{"text":"a thing"}"#));
        // One that matches the empty string cannot rule anything out.
        assert!(!m("(?:rate|limit)?", plain).prefilters());
        // Where a file may first match: its first stored match, or an earlier `\u`.
        let file = b"{\"a\":\"x\"}\n{\"t\":\"we deploy\"}\n{\"t\":\"\\u0064eploy\"}\n";
        assert_eq!(lit.first_may_match(file), Some(24));
        assert_eq!(lit.first_may_match(&file[..22]), None);
        let escaped_first = b"{\"t\":\"\\u0064eploy\"}\n{\"t\":\"deploy\"}";
        assert_eq!(lit.first_may_match(escaped_first), Some(6));
        assert_eq!(lit.first_may_match(b"{\"t\":\"nothing\"}"), None);
        let ci = m(
            "Deploy",
            Syntax {
                ignore_case: true,
                ..plain
            },
        );
        assert!(ci.may_match(br#"{"text":"DEPLOY"}"#));
        assert!(!ci.may_match(br#"{"text":"nope"}"#));
        let smart = m(
            "deploy",
            Syntax {
                smart_case: true,
                ..plain
            },
        );
        assert_eq!(smart.find_in("DePloy"), [(0, 6)]);
        // Escapes are not letters written: `\W` keeps smart case insensitive.
        let escaped = m(
            r"\Wdeploy\p{Lu}?",
            Syntax {
                smart_case: true,
                ..plain
            },
        );
        assert_eq!(escaped.find_in(" DEPLOY"), [(0, 7)]);
        let strict = m(
            "Deploy",
            Syntax {
                smart_case: true,
                ..plain
            },
        );
        assert!(strict.find_in("deploy").is_empty());
    }

    /// Walking a file from stretch to stretch, as `grep` does, reaches every line that
    /// [`Matcher::may_match`], whatever the `\u` lines before a match (the cached search).
    #[test]
    fn stretches_reach_every_line_that_may_match() {
        let lines = [
            r#"{"t":"nothing"}"#,
            r#"{"t":"\u0041 first escape"}"#,
            r#"{"t":"more \u00e9"}"#,
            r#"{"t":"none"}"#,
            r#"{"t":"we deploy"}"#,
            r#"{"t":"\u0042"}"#,
            r#"{"t":"DEPLOY"}"#,
            r#"{"t":"deploy again"}"#,
            r#"{"t":"end"}"#,
        ];
        let file = lines.join("\n");
        for (pattern, ignore_case) in [("deploy", false), ("deploy", true), (r"d\w+y", false)] {
            let m = m(
                pattern,
                Syntax {
                    ignore_case,
                    ..Syntax::default()
                },
            );
            let mut stretches = m.stretches(file.as_bytes());
            let mut reached = Vec::new();
            let mut from = 0;
            while let Some(at) = stretches.next_from(from) {
                let start = file[..at].rfind('\n').map_or(0, |n| n + 1);
                let end = file[at..].find('\n').map_or(file.len(), |n| at + n);
                assert!(start >= from, "{pattern}: back to {start} from {from}");
                reached.push(&file[start..end]);
                from = end + 1;
            }
            let wanted: Vec<_> = lines
                .iter()
                .filter(|l| m.may_match(l.as_bytes()))
                .copied()
                .collect();
            assert_eq!(reached, wanted, "{pattern} (i: {ignore_case})");
        }
        // Only one literal is cheap to look for: `-i` spells `deploy` 64 ways, `/` two.
        assert!(m("deploy", Syntax::default()).stretches_are_cheap());
        let ci = Syntax {
            ignore_case: true,
            ..Syntax::default()
        };
        assert!(!m("deploy", ci).stretches_are_cheap());
        assert!(!m("a/b", Syntax::default()).stretches_are_cheap());
        assert!(!m(r"\w+ing", Syntax::default()).stretches_are_cheap());
    }

    #[test]
    fn words_and_lines_as_ripgrep() {
        let w = m(
            "log",
            Syntax {
                word: true,
                ..Syntax::default()
            },
        );
        assert_eq!(w.find_in("a log, logs"), [(2, 5)]);
        let anchored = m("^fix$", Syntax::default());
        let got: Vec<_> = matching_lines(&anchored, "a\nfix\nfix it").collect();
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].number, got[0].line.as_str()), (2, "fix"));
    }

    #[test]
    fn texts_are_what_was_said_and_done() {
        let reach = Reach::default();
        let e = json!({"type":"message","message":{"role":"assistant","content":[
            {"type":"thinking","thinking":"hmm","signature":"sig"},
            {"type":"text","text":"done"},
            {"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls\n-la","n":3}},
            {"type":"image","data":"AAAA","mimeType":"image/png"}
        ]}});
        let got = texts(&e, &EntryKind::Message, Some("assistant"), reach);
        assert_eq!(
            got,
            [
                (Field::Text, "done"),
                (Field::ToolCall, "bash"),
                (Field::ToolCall, "ls\n-la")
            ]
        );
        let all = Reach {
            tools: true,
            thinking: true,
        };
        assert_eq!(
            texts(&e, &EntryKind::Message, Some("assistant"), all)[0],
            (Field::Thinking, "hmm")
        );
        let failed = json!({"message":{"role":"assistant","content":[],"stopReason":"error",
            "errorMessage":"529 overloaded_error"}});
        assert_eq!(
            texts(&failed, &EntryKind::Message, Some("assistant"), reach),
            [(Field::Error, "529 overloaded_error")]
        );
        let result =
            json!({"message":{"role":"toolResult","content":[{"type":"text","text":"out"}]}});
        assert!(texts(&result, &EntryKind::Message, Some("toolResult"), reach).is_empty());
        assert!(!searched(&EntryKind::Message, Some("toolResult"), reach));
        assert!(searched(&EntryKind::Message, Some("toolResult"), all));
        let bash = json!({"message":{"role":"bashExecution","command":"make","output":"ok"}});
        assert_eq!(
            texts(&bash, &EntryKind::Message, Some("bashExecution"), all),
            [(Field::Command, "make"), (Field::Output, "ok")]
        );
        let info = json!({"type":"session_info","name":"fix login"});
        assert_eq!(
            texts(&info, &EntryKind::SessionInfo, None, reach),
            [(Field::Name, "fix login")]
        );
        assert!(!searched(&EntryKind::Label, None, all));
    }
}
