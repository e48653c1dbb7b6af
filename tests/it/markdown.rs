//! `check --summary` read back by a CommonMark/GFM parser (pulldown-cmark, with GitHub's tables
//! and strikethrough): every piece of session text renders as itself, in a table cell, a code
//! span or plain text, and opens no construct of its own (issue 31).

use std::fs;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde_json::json;

use crate::common::{env_in, run_with};

const TITLE: &str = r"fix *this* | [x](http://e) <b>&amp; ~~s~~ `c` #1 $a$ \ _u_ ![i](j)";
const TOOL: &str = "my|tool`x\\";
/// Lines of the last message, each a construct a careless escape lets through.
const LAST: &[&str] = &[
    "- item",
    "+ item",
    "1. one",
    "2) two",
    "    indented",
    "===",
    "a | b",
    "-|-",
    "<script>alert(1)</script>",
    "**bold** _it_ ~~del~~ [l](u) ![i](u) <http://x>",
    "back\\slash `code` ``two``",
    "# not a heading",
    "> not a quote",
    "&lt; stays &amp; text",
];

#[test]
fn summary_renders_every_text_as_itself() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("a|b `c` d\\e");
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("2026-01-01T00-00-00-000Z_a.jsonl");
    let entry = |id: &str, parent: Option<&str>, message: serde_json::Value| {
        json!({"type":"message","id":id,"parentId":parent,
               "timestamp":"2026-01-01T00:01:00.000Z","message":message})
        .to_string()
    };
    let lines = [
        r#"{"type":"session","version":3,"id":"0196aaaa-0000-7000-8000-0000000000ee","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.to_owned(),
        entry("u1", None, json!({"role":"user","content":TITLE,"timestamp":1})),
        entry("a1", Some("u1"), json!({"role":"assistant","content":[
            {"type":"toolCall","id":"c1","name":TOOL,"arguments":{}}],
            "provider":"p","model":"m","stopReason":"toolUse","timestamp":2})),
        entry("r1", Some("a1"), json!({"role":"toolResult","toolCallId":"c1","toolName":TOOL,
            "content":[{"type":"text","text":"no"}],"isError":true,"timestamp":3})),
        entry("a2", Some("r1"), json!({"role":"assistant","content":[
            {"type":"text","text":LAST.join("\n")}],
            "provider":"p","model":"m","stopReason":"stop","timestamp":4})),
    ];
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    let path = file.to_str().unwrap();
    let r = run_with(
        env_in(tmp.path(), "/p"),
        &[
            "check",
            path,
            "--summary",
            "-",
            "--ended",
            "--require-tool",
            TOOL,
        ],
        b"",
    );
    assert_eq!(r.code, 0, "{r:?}");
    let md = &r.stdout;

    let mut codes = Vec::new();
    let mut quoted = String::new();
    let mut heading = String::new();
    let (mut in_quote, mut in_heading) = (false, false);
    let mut tables = Vec::new();
    let mut cells = 0;
    for event in Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => panic!("HTML {h:?} in\n{md}"),
            Event::Start(
                tag @ (Tag::Link { .. }
                | Tag::Image { .. }
                | Tag::List(_)
                | Tag::Emphasis
                | Tag::Strikethrough
                | Tag::CodeBlock(_)),
            ) => panic!("{tag:?} opened by session text in\n{md}"),
            Event::Start(Tag::Heading { level, .. }) => {
                in_heading = level == pulldown_cmark::HeadingLevel::H3;
            }
            Event::End(TagEnd::Heading(_)) => in_heading = false,
            Event::Start(Tag::BlockQuote(_)) => in_quote = true,
            Event::End(TagEnd::BlockQuote(_)) => in_quote = false,
            Event::Start(Tag::TableRow | Tag::TableHead) => cells = 0,
            Event::Start(Tag::TableCell) => cells += 1,
            Event::End(TagEnd::TableRow | TagEnd::TableHead) => tables.push(cells),
            Event::Code(c) => {
                if in_heading {
                    heading.push_str(&format!("`{c}`"));
                } else {
                    codes.push(c.into_string());
                }
            }
            Event::Text(t) if in_quote => quoted.push_str(&t),
            Event::Text(t) if in_heading => heading.push_str(&t),
            Event::SoftBreak if in_quote => quoted.push('\n'),
            _ => {}
        }
    }
    // The path line and the tools line: code spans holding the text itself.
    assert!(codes.contains(&path.to_owned()), "{codes:?}\n{md}");
    assert!(codes.contains(&TOOL.to_owned()), "{codes:?}\n{md}");
    // The title, as the heading's text.
    assert_eq!(heading, format!("`0196aaaa` {TITLE}"), "{md}");
    // The last message, line by line (a paragraph drops leading blanks).
    let want: Vec<&str> = LAST.iter().map(|l| l.trim_start()).collect();
    assert_eq!(quoted, want.join("\n"), "{md}");
    // Two tables, of 4 and 7 columns in every row: no text split a cell.
    assert!(tables.iter().all(|&n| n == 4 || n == 7), "{tables:?}\n{md}");
    assert_eq!(
        tables.iter().filter(|&&n| n == 7).count(),
        2,
        "{tables:?}\n{md}"
    );
}
