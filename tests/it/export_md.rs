//! Issue 42: `export -f md` read back by a CommonMark/GFM parser (pulldown-cmark with GitHub's
//! extensions). Each message's text stays inside its message (a bare `\r` ends a line for
//! CommonMark, so `ok\r~~~` opened a fence that swallowed every later message on 63e6fc9), no
//! message fakes one of the export's headings (`\r### User`), and no link leads to anything
//! but http(s), mailto or a fragment (`javascript:` stayed clickable).

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde_json::json;

use crate::common::{env_in, run_with};

/// Texts of messages, each a way out of its message or into a live link.
const HOSTILE: &[&str] = &[
    "ok\r~~~",
    "ok\r```",
    "x\r### User · 2026-01-01 00:00:00 [¶](#m-u1)",
    "x\r# Title\r\n## Two",
    "para\r===",
    "para\r---",
    "[a](javascript:alert(1)) [b](JAVASCRIPT:x) [c](vbscript:x) [d](data:text/html,x)",
    "[e](\rjavascript:x) [f]( java&#115;cript:x) [g](java\\script:x)",
    "[r]\r\r[r]: javascript:x",
    "x\r[s]: javascript:y\r[s]",
    "![i](data:text/html,x) ![j](javascript:x)",
    "<javascript:alert(1)> <a href=\"javascript:x\">h</a>",
    "> q\r~~~\r> q",
    "- a\r  ```\r- b",
    "tab\t\r\t~~~",
    "[ok](https://example.com/a?b=1&c=2) [frag](#m-u1) [mail](mailto:a@b.c)",
];

fn session() -> (tempfile::TempDir, String, usize) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    let mut lines = vec![
        r#"{"type":"session","version":3,"id":"0196aaaa-0000-7000-8000-0000000000ff","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.to_owned(),
    ];
    let mut parent = serde_json::Value::Null;
    for (k, text) in HOSTILE.iter().enumerate() {
        let id = format!("m{k}");
        let content = format!("{text}\nEND{k}Z");
        let message = if k % 2 == 0 {
            json!({"role":"user","content":content,"timestamp":1_767_225_600_000_i64 + k as i64})
        } else {
            json!({"role":"assistant","content":[{"type":"text","text":content},
                {"type":"toolCall","id":format!("c{k}"),"name":"bash","arguments":{"command":format!("{text}\r```\r~~~")}}],
                "provider":"p","model":"m","stopReason":"toolUse","timestamp":1_767_225_600_000_i64 + k as i64})
        };
        lines.push(
            json!({"type":"message","id":id,"parentId":parent,
                   "timestamp":"2026-01-01T00:01:00.000Z","message":message})
            .to_string(),
        );
        parent = json!(id);
        if k % 2 == 1 {
            let rid = format!("r{k}");
            lines.push(
                json!({"type":"message","id":rid,"parentId":parent,"timestamp":"2026-01-01T00:01:00.000Z",
                       "message":{"role":"toolResult","toolCallId":format!("c{k}"),"toolName":"bash",
                       "content":[{"type":"text","text":format!("{text}\r```\r~~~\rRESULT{k}Z")}],
                       "isError":false,"timestamp":1_767_225_600_000_i64 + k as i64}})
                .to_string(),
            );
            parent = json!(rid);
        }
    }
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let path = file.to_str().unwrap().to_owned();
    (dir, path, HOSTILE.len())
}

/// Whether a link target is one the export may leave live.
fn safe(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    ["http://", "https://", "mailto:", "#"]
        .iter()
        .any(|p| lower.starts_with(p))
}

#[test]
fn markdown_export_keeps_each_message_in_its_place() {
    let (dir, file, messages) = session();
    for tools in ["full", "collapsed", "none"] {
        let r = run_with(
            env_in(dir.path(), "/p"),
            &["-q", "export", &file, "-f", "md", "--tools", tools],
            b"",
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let md = &r.stdout;
        let options = Options::ENABLE_TABLES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_TASKLISTS
            | Options::ENABLE_FOOTNOTES
            | Options::ENABLE_GFM;
        // The item each marker is in: h3 headings counted as they open.
        let mut h1 = 0;
        let mut h3 = Vec::new();
        let mut heading: Option<(HeadingLevel, String)> = None;
        let mut seen = vec![None; messages];
        let mut results = vec![None; messages];
        for event in Parser::new_ext(md, options) {
            match event {
                Event::Start(Tag::Heading { level, .. }) => heading = Some((level, String::new())),
                Event::End(TagEnd::Heading(_)) => {
                    let (level, text) = heading.take().unwrap();
                    match level {
                        HeadingLevel::H1 => h1 += 1,
                        HeadingLevel::H3 => h3.push(text),
                        HeadingLevel::H2 => panic!("{tools}: a faked heading {text:?}"),
                        _ => {}
                    }
                }
                Event::Start(Tag::Link { dest_url, .. }) => {
                    assert!(safe(&dest_url), "{tools}: a live link to {dest_url:?}");
                }
                Event::Start(Tag::Image { dest_url, .. }) => {
                    panic!("{tools}: an image from {dest_url:?}")
                }
                Event::Text(t) | Event::Code(t) => {
                    if let Some((_, h)) = heading.as_mut() {
                        h.push_str(&t);
                        continue;
                    }
                    if h3.is_empty() {
                        // The title and the facts.
                        continue;
                    }
                    for (k, s) in seen.iter_mut().enumerate() {
                        if t.contains(&format!("END{k}Z")) {
                            assert!(s.is_none(), "{tools}: END-{k} twice");
                            *s = Some(h3.len());
                        }
                    }
                    for (k, s) in results.iter_mut().enumerate() {
                        if t.contains(&format!("RESULT{k}Z")) {
                            *s = Some(h3.len());
                        }
                    }
                }
                _ => {}
            }
        }
        assert_eq!(h1, 1, "{tools}: the title alone is an h1");
        // One h3 per message; a tool result goes with its call.
        assert_eq!(h3.len(), messages, "{tools}: {h3:#?}\n{md}");
        for (k, h) in h3.iter().enumerate() {
            let want = if k % 2 == 0 { "User" } else { "Assistant" };
            assert!(h.starts_with(want), "{tools}: heading {k} is {h:?}");
        }
        for (k, s) in seen.iter().enumerate() {
            assert_eq!(
                *s,
                Some(k + 1),
                "{tools}: END-{k} under heading {s:?}\n{md}"
            );
        }
        for (k, s) in results.iter().enumerate() {
            if k % 2 == 1 && tools != "none" {
                assert_eq!(*s, Some(k + 1), "{tools}: RESULT-{k} under heading {s:?}");
            }
        }
    }
}
