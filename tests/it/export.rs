//! `export`: jsonl as pi writes it, Markdown that a GFM parser reads back with every text and no
//! HTML from the session, HTML within its size budget; the arguments.

use std::path::Path;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::common::{example_env, run, run_with, NOW_MS};
use crate::export_fixture::hostile;

const SESSION: &str = "0196c9f4";

fn ok(args: &[&str]) -> String {
    let r = run(args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    r.stdout
}

fn export_stdin(args: &[&str], input: &str) -> String {
    let mut all = vec!["-q", "export", "-"];
    all.extend_from_slice(args);
    let r = run_with(example_env(), &all, input.as_bytes());
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    r.stdout
}

#[test]
fn jsonl_is_a_new_header_and_the_branch_as_stored() {
    let out = ok(&["export", SESSION, "--format", "jsonl"]);
    let lines: Vec<&str> = out.lines().collect();
    let header: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    let keys: Vec<&str> = header
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["type", "version", "id", "timestamp", "cwd"]);
    assert_eq!(header["version"], 3);
    assert_eq!(
        header["timestamp"], "2026-08-01T00:00:00.000Z",
        "now comes from Env ({NOW_MS})"
    );
    assert_eq!(header["cwd"], "/home/dev/webshop");
    // The branch: what `show --branch --json` prints, the root's parentId aside.
    let branch = ok(&["show", SESSION, "--branch", "--json", "--no-header"]);
    let stored: Vec<&str> = branch.lines().collect();
    assert_eq!(lines.len(), stored.len() + 1);
    assert!(stored.len() < 20, "one branch, not the whole file");
    for (got, want) in lines[1..].iter().zip(&stored) {
        // The same values in the same key order; numbers as JavaScript prints them
        // (`0.0` is `0`).
        assert_eq!(numbers_as_f64(got), numbers_as_f64(want));
        assert!(!got.contains(":0.0,"), "{got}");
    }
    assert!(out.ends_with("}\n"));
}

/// A line's JSON with every number as an f64, keys in their order, as text.
fn numbers_as_f64(line: &str) -> String {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Number(n) => *v = serde_json::json!(n.as_f64().unwrap()),
            serde_json::Value::Array(a) => a.iter_mut().for_each(walk),
            serde_json::Value::Object(m) => m.values_mut().for_each(walk),
            _ => {}
        }
    }
    let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
    walk(&mut v);
    v.to_string()
}

#[test]
fn jsonl_of_another_leaf_ends_there_and_roots_at_null() {
    let out = ok(&["export", SESSION, "--leaf", "be20c158", "-f", "jsonl"]);
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["id"], "be20c158");
    let root: serde_json::Value = serde_json::from_str(out.lines().nth(1).unwrap()).unwrap();
    assert_eq!(root["parentId"], serde_json::Value::Null);
}

#[test]
fn jsonl_migrates_v1_and_writes_numbers_as_javascript() {
    // v1: no ids; a compaction by index; a hookMessage (v2's rename applies too); floats pi
    // would print differently from their spelling here.
    let input = concat!(
        "{\"type\":\"session\",\"id\":\"v1s\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"rel/../proj\",\"parentSession\":\"/x.jsonl\"}\n",
        "{\"type\":\"message\",\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\",\"n\":1.0,\"e\":2.4e-05,\"big\":1e21}}\n",
        "{\"type\":\"message\",\"timestamp\":\"2025-01-01T00:00:02.000Z\",\"message\":{\"role\":\"hookMessage\",\"content\":\"h\"}}\n",
        "{\"type\":\"compaction\",\"firstKeptEntryIndex\":2,\"summary\":\"s\",\"tokensBefore\":5,\"timestamp\":\"2025-01-01T00:00:03.000Z\"}\n",
        // Kept from the entry after it: pi reads that entry's id before it has one.
        "{\"type\":\"compaction\",\"firstKeptEntryIndex\":5,\"summary\":\"t\",\"tokensBefore\":6,\"timestamp\":\"2025-01-01T00:00:04.000Z\"}\n",
        "{\"type\":\"message\",\"timestamp\":\"2025-01-01T00:00:05.000Z\",\"message\":{\"role\":\"user\",\"content\":\"after\"}}\n",
    );
    let out = export_stdin(&["--format", "jsonl"], input);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "{\"type\":\"session\",\"version\":3,\"id\":\"v1s\",\"timestamp\":\"2026-08-01T00:00:00.000Z\",\"cwd\":\"/home/dev/webshop/proj\"}"
    );
    assert_eq!(
        lines[1],
        "{\"type\":\"message\",\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\",\"n\":1,\"e\":0.000024,\"big\":1e+21},\"id\":\"00000001\",\"parentId\":null}"
    );
    assert!(lines[2].contains("\"role\":\"custom\""), "{}", lines[2]);
    assert!(lines[2].ends_with("\"id\":\"00000002\",\"parentId\":\"00000001\"}"));
    // pi adds id and parentId, then firstKeptEntryId, then deletes firstKeptEntryIndex: the
    // other keys keep their order.
    assert_eq!(
        lines[3],
        "{\"type\":\"compaction\",\"summary\":\"s\",\"tokensBefore\":5,\"timestamp\":\"2025-01-01T00:00:03.000Z\",\"id\":\"00000003\",\"parentId\":\"00000002\",\"firstKeptEntryId\":\"00000002\"}"
    );
    assert_eq!(
        lines[4],
        "{\"type\":\"compaction\",\"summary\":\"t\",\"tokensBefore\":6,\"timestamp\":\"2025-01-01T00:00:04.000Z\",\"id\":\"00000004\",\"parentId\":\"00000003\"}"
    );
}

#[test]
fn a_file_whose_last_entry_has_no_id_exports_the_branch_of_the_last_entry_with_one() {
    // The leaf of `context`, `show --branch`, `tree` and `check` (docs/format.md); pi's would
    // be undefined, its branch empty: a deliberate difference.
    let input = concat!(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n",
        "{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
        "{\"type\":\"message\",\"id\":\"b\",\"parentId\":\"a\",\"timestamp\":\"2025-01-01T00:00:02.000Z\",\"message\":{\"role\":\"user\",\"content\":\"there\"}}\n",
        "{\"type\":\"custom\",\"customType\":\"x\",\"timestamp\":\"2025-01-01T00:00:03.000Z\"}\n",
    );
    let out = export_stdin(&["--format", "jsonl"], input);
    let ids: Vec<String> = out
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].to_string())
        .collect();
    assert_eq!(ids, ["\"a\"", "\"b\""], "{out}");
    let context = run_with(
        example_env(),
        &["-q", "context", "-", "--json"],
        input.as_bytes(),
    );
    assert!(
        context.stdout.contains("\"leafId\":\"b\""),
        "{}",
        context.stdout
    );
    let md = export_stdin(&["--format", "md"], input);
    assert!(md.contains("there"), "{md}");
    let out = export_stdin(&["--format", "jsonl", "--leaf", "a"], input);
    assert_eq!(out.lines().count(), 2, "{out}");
}

#[test]
fn jsonl_of_the_hostile_session_copies_every_entry() {
    let h = hostile();
    let out = export_stdin(&["--format", "jsonl"], &h.jsonl);
    let want: Vec<&str> = h.jsonl.lines().skip(1).collect();
    let got: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(got, want);
}

#[test]
fn format_follows_the_output_extension_and_never_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.MD");
    let r = run(&["export", SESSION, "-o", file.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "");
    assert!(std::fs::read_to_string(&file).unwrap().starts_with("# "));
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "no temporary file left behind");

    // No format and no file: Markdown on stdout, as -f md writes it.
    let r = run(&["export", SESSION]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("# "), "{}", r.stdout);
    assert_eq!(r.stdout, ok(&["export", SESSION, "-f", "md"]));
    let r = run(&["export", SESSION, "-o", "x.txt"]);
    assert_eq!(
        r.code, 2,
        "a file whose extension names no format: a usage error"
    );
    assert!(r.stderr.contains("--format"), "{}", r.stderr);
    let r = run(&["export", SESSION, "-f", "jsonl", "--tools", "none"]);
    assert_eq!(r.code, 2, "--tools means nothing to jsonl");

    // The input itself as -o: refused, the file untouched.
    let input = dir.path().join("s.jsonl");
    std::fs::write(&input, hostile().jsonl).unwrap();
    let before = std::fs::read(&input).unwrap();
    let p = input.to_str().unwrap();
    let r = run(&["export", p, "-f", "md", "-o", p]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("a session this run reads"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read(&input).unwrap(), before);
}

/// `-o` never replaces a session: not another one (as `check --junit` refuses it), not the file
/// on stdin (`- < s.jsonl`), whatever the format; the error is one line naming the file.
#[test]
fn output_over_a_session_or_the_file_on_stdin_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("b.jsonl");
    std::fs::write(&other, hostile().jsonl).unwrap();
    let before = std::fs::read(&other).unwrap();
    let o = other.to_str().unwrap();
    for format in ["jsonl", "md"] {
        let r = run(&["export", SESSION, "-f", format, "-o", o]);
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(r.stderr.contains("holds a pi session"), "{}", r.stderr);
        assert!(
            r.stderr.contains(o) && r.stderr.lines().count() == 1,
            "{}",
            r.stderr
        );
        assert_eq!(std::fs::read(&other).unwrap(), before);
    }

    // stdin is that very file (what the binary reads with fstat).
    let mut env = example_env();
    env.stdin_file = Some(pisess_format::util::file::FileId::of(
        &std::fs::metadata(&other).unwrap(),
    ));
    let r = run_with(env, &["export", "-", "-f", "md", "-o", o], &before);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("the file on standard input"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read(&other).unwrap(), before);

    // The same through the binary, stdin redirected from the file.
    let r = std::process::Command::new(env!("CARGO_BIN_EXE_pisess"))
        .args(["export", "-f", "md", "-o", o, "-"])
        .stdin(std::fs::File::open(&other).unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&r.stderr);
    assert_eq!(r.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the file on standard input"), "{stderr}");
    assert_eq!(std::fs::read(&other).unwrap(), before);

    // A file that holds no session is replaced as before.
    let notes = dir.path().join("notes.md");
    std::fs::write(&notes, "old notes\n").unwrap();
    let r = run(&["export", SESSION, "-o", notes.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(std::fs::read_to_string(&notes).unwrap().starts_with("# "));
}

/// `-o` replaces a regular file by renaming a finished one over it, but never a FIFO or a
/// device (they are written to, as `check --junit` writes to them) nor a symbolic link (the file
/// it names is replaced, the link kept).
#[cfg(unix)]
#[test]
fn output_is_written_through_a_fifo_and_a_symlink() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.md");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let (tx, rx) = std::sync::mpsc::channel();
    let reading = fifo.clone();
    std::thread::spawn(move || {
        let _ = tx.send(std::fs::read(&reading));
    });
    let r = run(&["export", SESSION, "-f", "md", "-o", fifo.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let read = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("nothing was written to the FIFO")
        .unwrap();
    assert!(
        read.starts_with(b"# "),
        "{}",
        String::from_utf8_lossy(&read)
    );
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced: {kind:?}");

    let real = dir.path().join("real.html");
    std::fs::write(&real, "old").unwrap();
    // Written again, a file keeps its mode (not the temporary file's 0600).
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let link = dir.path().join("link.html");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let r = run(&["export", SESSION, "-o", link.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&real)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "{mode:o}");
    }
    let mut left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["link.html", "out.md", "real.html"],
        "no temporary file left"
    );

    // A link to nothing: where it would land is unknown, so nothing is written.
    let dangling = dir.path().join("dangling.md");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &dangling).unwrap();
    let r = run(&["export", SESSION, "-o", dangling.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(!dir.path().join("nowhere").exists());
}

/// What a GFM parser makes of a Markdown export.
struct Parsed {
    /// Text and code, in order (a block's end as a newline).
    text: String,
    /// Each line of raw HTML, block or inline.
    html: Vec<String>,
    /// Anchors (`<a id>`) read as HTML outside code, in order.
    anchors: Vec<String>,
    headings: usize,
    code_blocks: usize,
}

fn parse(md: &str) -> Parsed {
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let mut p = Parsed {
        text: String::new(),
        html: Vec::new(),
        anchors: Vec::new(),
        headings: 0,
        code_blocks: 0,
    };
    for event in Parser::new_ext(md, opts) {
        match event {
            Event::Text(t) | Event::Code(t) => p.text.push_str(&t),
            Event::SoftBreak
            | Event::HardBreak
            | Event::End(TagEnd::Paragraph | TagEnd::CodeBlock) => p.text.push('\n'),
            Event::Html(h) | Event::InlineHtml(h) => {
                for line in h.lines() {
                    let id = line.strip_prefix("<a id=\"");
                    if let Some(id) =
                        id.and_then(|r| r.strip_suffix("\"></a>").or_else(|| r.strip_suffix("\">")))
                    {
                        p.anchors.push(id.to_owned());
                    }
                    p.html.push(line.to_owned());
                }
            }
            Event::Start(Tag::Heading { .. }) => p.headings += 1,
            Event::Start(Tag::CodeBlock(_)) => p.code_blocks += 1,
            _ => {}
        }
    }
    p
}

/// Our own HTML: details, summaries without tags in them, anchors of safe characters.
fn ours(line: &str) -> bool {
    let anchor = line
        .strip_prefix("<a id=\"m-")
        .and_then(|r| r.strip_suffix("\"></a>").or_else(|| r.strip_suffix("\">")))
        .is_some_and(|id| {
            id.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        });
    let summary = line
        .strip_prefix("<summary>")
        .and_then(|r| r.strip_suffix("</summary>"))
        .is_some_and(|s| !s.contains(['<', '>']));
    anchor || summary || ["<details>", "<details open>", "</details>", "</a>", ""].contains(&line)
}

#[test]
fn markdown_of_the_hostile_session_parses_back_to_every_text_and_no_html_of_its_own() {
    let h = hostile();
    for tools in ["full", "collapsed"] {
        let md = export_stdin(&["--format", "md", "--tools", tools], &h.jsonl);
        let p = parse(&md);
        for line in &p.html {
            assert!(ours(line), "raw HTML from the session: {line:?}\n{md}");
        }
        for text in &h.texts {
            assert!(
                p.text.contains(text),
                "missing {text:?} ({tools})\n---\n{}",
                p.text
            );
        }
        // Each call reads at a glance, its line a code span of text: a hostile tool name
        // is its line, whole; the error shows beside it.
        assert!(p.text.contains("$ "), "the bash call's line");
        let other = h.tool_names[1];
        assert!(
            md.contains(&format!("`{other}` **error**")),
            "tool {other:?}\n{md}"
        );
        // Every item's anchor is read as HTML, the last one included: no fence swallowed the
        // rest. Items: the name note, 2 users, the assistant (its two calls hold their
        // results), the shell command, the summary, the final answer.
        let want: Vec<String> = [1, 2, 3, 4, 7, 8, 9]
            .iter()
            .map(|n| format!("m-{n:08x}"))
            .collect();
        assert_eq!(p.anchors, want, "{md}");
        assert_eq!(p.headings, 1 + 6, "the title and one heading per message");
        assert!(p.code_blocks >= 8, "{}", p.code_blocks);
        assert!(p.text.contains("final probe: done\n"));
        // The title is the hostile session name, as text.
        assert!(
            md.starts_with("# &lt;/title&gt;&lt;script&gt;") || md.starts_with("# &lt;/title>"),
            "{}",
            &md[..80]
        );
        assert!(
            p.text
                .starts_with("</title><script>window.pwned='title'</script>"),
            "{}",
            &p.text[..80]
        );
    }
}

#[test]
fn markdown_tool_and_thinking_switches() {
    let full = ok(&["export", SESSION, "-f", "md", "--tools", "full"]);
    // A call's line in pi's wording, its output's first lines in view, its input in <details>.
    assert!(
        full.contains("`read src/cart.ts`\n\n```text\nexport interface Item"),
        "{full}"
    );
    assert!(full.contains("<details open>\n<summary>Input</summary>"));
    assert!(full.contains("`edit src/cart.ts (+1 \u{2212}1)`"));
    assert!(full.contains("<summary>Thinking</summary>"));
    let collapsed = ok(&["export", SESSION, "-f", "md"]);
    assert!(collapsed.contains("`read src/cart.ts`\n\n```text\nexport interface Item"));
    assert!(collapsed.contains("<details>\n<summary>Input</summary>"));
    let none = ok(&[
        "export",
        SESSION,
        "-f",
        "md",
        "--tools",
        "none",
        "--no-thinking",
    ]);
    assert!(!none.contains("`read "), "{none}");
    assert!(!none.contains("Thinking"));
    assert!(!none.contains("export interface Item"), "no tool output");
    assert!(
        none.contains("keep prices in integer cents"),
        "the conversation stays"
    );
    // Facts.
    for fact in [
        "- **Session:** 0196c9f4",
        "- **Project:** /home/dev/webshop",
        "- **Model:** anthropic/claude",
        "- **Started:** 2025",
        "- **Duration:** ",
        "- **Cost:** $",
    ] {
        assert!(collapsed.contains(fact), "{fact}\n{collapsed}");
    }
}

#[test]
fn html_is_one_page_within_its_budget_that_allows_nothing_from_outside() {
    let h = hostile();
    let html = export_stdin(&["--format", "html", "--tools", "full"], &h.jsonl);
    assert!(html.starts_with("<!DOCTYPE html>"));
    let csp = html
        .split("http-equiv=\"Content-Security-Policy\" content=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(
        csp.starts_with("default-src 'none'; style-src 'sha256-"),
        "{csp}"
    );
    assert!(csp.contains("img-src data:") && csp.contains("base-uri 'none'"));
    assert_eq!(
        html.matches("<script").count(),
        1,
        "only the page's own script"
    );
    // Text never holds a raw `<` (it is `&lt;`), so every `<` in the page starts one of its
    // own tags: only known elements, no handler attributes, no foreign sources or links.
    let body = html.split("<script>").next().unwrap();
    let allowed = [
        "!DOCTYPE",
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "header",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "dl",
        "dt",
        "dd",
        "main",
        "nav",
        "article",
        "div",
        "b",
        "i",
        "time",
        "a",
        "details",
        "summary",
        "p",
        "pre",
        "code",
        "img",
        "ul",
        "ol",
        "li",
        "blockquote",
        "em",
        "strong",
        "del",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "hr",
        "br",
        "input",
        "footer",
        "span",
        "bdi",
    ];
    for tag in body.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap();
        let name = tag
            .trim_start_matches('/')
            .split([' ', '\n'])
            .next()
            .unwrap();
        assert!(allowed.contains(&name), "element <{tag}>");
        let lower = tag.to_ascii_lowercase();
        assert!(!lower.contains(" on"), "handler in <{tag}>");
        assert!(!lower.contains("javascript:"), "script link in <{tag}>");
        if name == "img" {
            assert!(tag.contains(" src=\"data:image/png;base64,"), "<{tag}>");
        }
    }
    assert!(html.contains("<img alt=\"image/png\" src=\"data:image/png;base64,"));
    assert!(
        html.contains("[image: image/svg+xml]"),
        "an SVG is named, not shown"
    );

    // The budget: 60 KB plus 1.1 times the text it shows, on the example sessions and the
    // research fixtures (real pi sessions) when they are there.
    let mut files = walk(&crate::common::examples_agent_dir().join("sessions"));
    files.extend(walk(Path::new("/work/shared/research/fixtures")));
    for file in files {
        let p = file.to_str().unwrap();
        let page = ok(&["-q", "export", p, "-f", "html", "--tools", "full"]);
        let text = shown_text(p);
        let budget = 60 * 1024 + text * 11 / 10;
        assert!(
            page.len() <= budget,
            "{p}: {} bytes, budget {budget}",
            page.len()
        );
        eprintln!(
            "export html: {p}: text {text} B, page {} B ({:.2}x + 60 KB budget {budget})",
            page.len(),
            page.len() as f64 / text.max(1) as f64
        );
    }
}

/// Links other than http(s), mailto and fragments are inert: relative and protocol-relative
/// ones too (a saved page must not point at what lies beside it, or at another site).
#[test]
fn html_links_that_are_relative_or_protocol_relative_are_inert() {
    let text = "[a](//evil.example/x) [b](/etc/passwd) [c](../../.ssh/id_rsa) [d](file:///etc/passwd) [e](javascript:alert(1)) ![f](//evil.example/i.png) [g](https://ok.example/) [h](#m-a1)";
    let input = format!(
        "{}\n{}\n",
        r#"{"type":"session","version":3,"id":"ht000000-0000-7000-8000-000000000001","timestamp":"2025-05-16T10:05:33.900Z","cwd":"/tmp"}"#,
        serde_json::json!({"type":"message","id":"a1","parentId":null,"timestamp":"2025-05-16T10:05:36.000Z","message":{"role":"assistant","content":[{"type":"text","text":text}],"provider":"p","model":"m","api":"a","usage":{},"stopReason":"stop","timestamp":2}})
    );
    let html = export_stdin(&["-f", "html"], &input);
    for inert in ["a", "b", "c", "d", "e", "[image] f"] {
        assert!(
            html.contains(&format!("<a href=\"#\">{inert}</a>")),
            "{inert}"
        );
    }
    assert!(html.contains("<a href=\"https://ok.example/\">g</a>"));
    assert!(html.contains("<a href=\"#m-a1\">h</a>"));
}

/// The bytes of text an export of the active branch shows, counted from the stored entries:
/// message and summary texts, thinking, each call's name and pretty arguments, results, shell
/// commands and output, image data.
fn shown_text(p: &str) -> usize {
    use serde_json::Value;
    let str_len = |v: Option<&Value>| v.and_then(Value::as_str).map_or(0, str::len);
    let mut n = 0;
    for line in ok(&["-q", "show", p, "--branch", "--json", "--no-header"]).lines() {
        let Ok(e) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        n += str_len(e.get("summary"));
        let Some(m) = e.get("message") else { continue };
        n += str_len(m.get("command")) + str_len(m.get("output")) + str_len(m.get("summary"));
        match m.get("content") {
            Some(Value::String(s)) => n += s.len(),
            Some(Value::Array(blocks)) => {
                for b in blocks {
                    n += str_len(b.get("text"))
                        + str_len(b.get("thinking"))
                        + str_len(b.get("data"))
                        + str_len(b.get("name"));
                    if let Some(a) = b.get("arguments") {
                        n += serde_json::to_string_pretty(a).unwrap().len();
                    }
                }
            }
            _ => {}
        }
    }
    n
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|x| x == "jsonl") {
            out.push(path);
        }
    }
    out.sort();
    out
}

#[test]
fn deeply_nested_arguments_do_not_blow_up_the_export() {
    // Pretty JSON indents each level: 2,000 nested arrays would be 8 MB of spaces.
    let depth = 2000;
    let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let input = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"d\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}}\n\
         {{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"toolCall\",\"id\":\"c\",\"name\":\"x\",\"arguments\":{deep}}}]}}}}\n"
    );
    for format in ["md", "html", "jsonl"] {
        let args = ["--format", format, "--tools", "full"];
        let args = args[..if format == "jsonl" { 2 } else { 4 }].to_vec();
        let text = input.clone();
        // On the stack the binary runs its command on (`pisess::stack`), as deep lines need.
        let out = std::thread::Builder::new()
            .stack_size(pisess_store::util::stack::SIZE)
            .spawn(move || export_stdin(&args, &text))
            .unwrap()
            .join()
            .unwrap();
        assert!(out.contains(&deep), "{format}: the arguments, compact");
        assert!(
            out.len() < input.len() + 64 * 1024,
            "{format}: {} bytes",
            out.len()
        );
    }
}

/// A session with terminal escapes in its text (OSC 52 sets the clipboard, ESC[2J clears the
/// screen) and a bidi override.
const ESCAPES: &str = concat!(
    "{\"type\":\"session\",\"version\":3,\"id\":\"es000000-0000-7000-8000-000000000001\",\"timestamp\":\"2025-05-16T10:05:33.900Z\",\"cwd\":\"/tmp\"}\n",
    "{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2025-05-16T10:05:35.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi \\u001b]52;c;ZWNobyBwd25lZA==\\u0007 \\u001b[2J \\u009b2J \\u202e there\",\"timestamp\":1}}\n",
);

#[test]
fn markdown_and_html_on_a_terminal_show_escapes_escaped_and_elsewhere_as_they_are() {
    for format in ["md", "html"] {
        let mut tty = example_env();
        tty.stdout_tty = true;
        let r = run_with(
            tty,
            &["-q", "export", "-", "-f", format],
            ESCAPES.as_bytes(),
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let bad = |c: char| c.is_control() && c != '\n' && c != '\t' || c == '\u{202e}';
        assert!(!r.stdout.contains(bad), "{format}: {:?}", r.stdout);
        assert!(r.stdout.contains("hi \\u{1b}]52;c;"), "{format}");
        // A file or a pipe gets the bytes.
        let piped = export_stdin(&["-f", format], ESCAPES);
        assert!(piped.contains("hi \u{1b}]52;c;"), "{format}");
    }
}

/// issue 42: the cost fact of a branch whose assistant messages recorded cost 0 for their
/// tokens (a model without a price) was a bare `$0.00`; it is the money every command prints,
/// marked `+` (at least) with its legend, in Markdown and HTML.
#[test]
fn export_marks_a_cost_that_leaves_out_unpriced_tokens() {
    let input = [
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1}}"#,
        r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"ollama","model":"qwen","usage":{"input":900,"output":300,"cacheRead":0,"cacheWrite":0,"cost":{"total":0}},"stopReason":"stop","timestamp":2}}"#,
    ]
    .join("\n")
        + "\n";
    let md = export_stdin(&["-f", "md"], &input);
    assert!(
        md.contains("$0.00+ (+ at least: 1.2k tokens had no price)"),
        "{md}"
    );
    let html = export_stdin(&["-f", "html"], &input);
    assert!(
        html.contains("$0.00+ (+ at least: 1.2k tokens had no price)"),
        "html"
    );
}

/// A new export file is 0600 (it may hold secrets); with --redact it takes the umask's mode, so
/// that a page made to be shared is readable where it is copied.
#[cfg(target_os = "linux")]
#[test]
fn a_new_export_is_private_unless_redacted() {
    use std::os::unix::fs::PermissionsExt;
    // The process's umask, read without setting it (other tests' threads create files).
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let umask = status
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .map(|m| u32::from_str_radix(m.trim(), 8).unwrap())
        .expect("Umask in /proc/self/status");
    let dir = tempfile::tempdir().unwrap();
    let mode = |name: &str, redact: bool| {
        let file = dir.path().join(name);
        let mut args = vec!["export", SESSION, "-o", file.to_str().unwrap()];
        if redact {
            args.push("--redact");
        }
        let r = run(&args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(mode("as-is.html", false), 0o600);
    assert_eq!(mode("shared.html", true), 0o666 & !umask);
}

/// A session of one bash call whose output is `lines` numbered lines, failed.
fn long_output_session(lines: usize) -> String {
    let output: String = (1..=lines).map(|n| format!("line {n}\n")).collect();
    let rows = [
        serde_json::json!({"type":"session","version":3,"id":"lo000000-0000-7000-8000-000000000001","timestamp":"2025-05-16T10:05:33.900Z","cwd":"/tmp"}),
        serde_json::json!({"type":"message","id":"a1","parentId":null,"timestamp":"2025-05-16T10:05:36.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"seq 1 500 | sed 's/^/line /'"}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":2}}),
        serde_json::json!({"type":"message","id":"r1","parentId":"a1","timestamp":"2025-05-16T10:05:37.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":output}],"isError":true,"timestamp":3}}),
    ];
    rows.iter().map(|r| format!("{r}\n")).collect()
}

/// Issue 48: a call reads at a glance (its line in pi's wording, its error, its output's first
/// five lines outside the disclosure); `--tools full` shows 200 lines of an output and says
/// how to see the rest; `--output-lines 0` shows all of it.
#[test]
fn tool_calls_read_at_a_glance_and_full_outputs_are_capped() {
    let input = long_output_session(500);
    let html = export_stdin(&["-f", "html"], &input);
    let glance = "<div class=\"tc e\"><p>$ seq 1 500 | sed &#39;s/^/line /&#39; <b class=e>error</b></p>\n<pre class=o>line 1\nline 2\nline 3\nline 4\nline 5\n</pre>\n<details><summary>495 more lines · input</summary>";
    assert!(html.contains(glance), "{html}");
    assert!(html.contains("line 500\n"), "collapsed keeps every line");
    let full = export_stdin(&["-f", "html", "--tools", "full"], &input);
    assert!(full.contains("line 200\n</pre>"), "200 lines shown");
    assert!(!full.contains("line 201\n"));
    assert!(full.contains("300 more lines not shown: --tools full shows 200 lines of each output; --output-lines 0 shows all."));
    let md = export_stdin(
        &["-f", "md", "--tools", "full", "--output-lines", "10"],
        &input,
    );
    assert!(
        md.contains("`$ seq 1 500 | sed 's/^/line /'` **error**\n\n```text\nline 1\n"),
        "{md}"
    );
    assert!(
        md.contains("line 10\n```") && !md.contains("line 11\n"),
        "{md}"
    );
    assert!(md.contains("*490 more lines not shown"), "{md}");
    let all = export_stdin(
        &["-f", "md", "--tools", "full", "--output-lines", "0"],
        &input,
    );
    assert!(all.contains("line 500\n") && !all.contains("not shown"));
    let r = run_with(
        example_env(),
        &[
            "export",
            "-",
            "-f",
            "md",
            "--tools",
            "collapsed",
            "--output-lines",
            "3",
        ],
        input.as_bytes(),
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    // 50 MB of output on one line: --tools full shows 200 × 200 bytes of it.
    let big = long_output_session(1).replace("line 1\\n", &"x".repeat(50 << 20));
    let page = export_stdin(&["-f", "html", "--tools", "full"], &big);
    assert!(page.len() < 200 * 1024, "{} bytes", page.len());
    assert!(page.contains("1 more line not shown"));
    // Collapsed, the whole 50 MB is behind its disclosure, the page complete.
    let page = export_stdin(&["-f", "html"], &big);
    assert!(page.len() > 50 << 20 && page.ends_with("</html>\n"));
    // A preview of one line is cut at 5 × 200 bytes; the rest of the line follows it.
    assert!(page.contains(&format!(
        "<pre class=o>{}</pre>\n<details><summary>1 more line · input</summary>",
        "x".repeat(1000)
    )));
}

/// Issue 48: the page lists the session's other branches (first message, cost, the command's
/// `--leaf`) and shows the system prompt and tools the session holds.
#[test]
fn other_branches_and_the_system_prompt_are_shown() {
    let md = ok(&["export", SESSION, "-f", "md"]);
    assert!(
        md.contains("- Try rounding each line with Math.round first, that's the smallest change. · $0.01 · 6 messages · [from here](#m-be20c158) · `--leaf 1df9294d`"),
        "{md}"
    );
    let html = ok(&["export", SESSION, "-f", "html"]);
    assert!(html.contains("<li aria-current=true><b>This branch</b>"));
    assert!(html.contains("<a href=\"#m-be20c158\">from here</a> · <code>--leaf 1df9294d</code>"));
    // The other branch's own leaf, exported, lists this one in turn.
    let other = ok(&["export", SESSION, "-f", "md", "--leaf", "1df9294d"]);
    assert!(other.contains("`--leaf daa71fc5`"), "{other}");
    let md = ok(&["export", "0196ec7d", "-f", "md"]);
    assert!(md.contains("System prompt · 2025-05-20 07:00:01"), "{md}");
    assert!(md.contains("**Available tools:**\n\n- `read`: Read the contents of a file.\n"));
    assert!(md.contains("System prompt update"));
    assert!(md.contains("**Tools removed:** `write`"), "{md}");
    let html = ok(&["export", "0196ec7d", "-f", "html"]);
    assert!(html.contains("<summary>Available tools: read, bash, edit, write</summary>"));
}
