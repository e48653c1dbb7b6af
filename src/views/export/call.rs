//! A tool call at a glance: the one line pi's own export page shows for it (`$ command`,
//! `read path:10-29`, `edit path (+12 −3)`, …), and how much of its output shows before the
//! disclosure. The wording is pi 1.6's (`export-html/template.js`, `formatToolCall` and
//! `renderToolCall`); the code is ours.

use serde_json::Value;

/// A headline longer than this is cut (the whole input is behind the disclosure).
const MAX_HEADLINE: usize = 200;

/// The call's line: its tool's wording for the arguments pi names, else the tool's name.
pub fn headline(name: &str, args: Option<&Value>) -> String {
    let arg = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| args.and_then(|a| a.get(*k)).and_then(Value::as_str))
            .map(str::to_owned)
    };
    let path = || arg(&["path", "file_path"]).map(|p| shorten_path(&p));
    let line = match name {
        "bash" => {
            let command = arg(&["command"]).unwrap_or_default();
            let mut lines = command.lines();
            let first = lines.next().unwrap_or("").trim_end();
            let more = if lines.next().is_some() { " …" } else { "" };
            format!("$ {first}{more}")
        }
        "read" => format!(
            "read {}{}",
            path().unwrap_or_default(),
            line_range(
                args.and_then(|a| a.get("offset")),
                args.and_then(|a| a.get("limit"))
            )
        ),
        "write" => {
            let lines = arg(&["content"]).map_or(0, |c| c.split('\n').count());
            let count = if lines > 10 {
                format!(" ({lines} lines)")
            } else {
                String::new()
            };
            format!("write {}{count}", path().unwrap_or_default())
        }
        "edit" => {
            let (added, removed) = edit_counts(args);
            format!(
                "edit {} (+{added} \u{2212}{removed})",
                path().unwrap_or_default()
            )
        }
        "grep" => format!(
            "grep /{}/ in {}",
            arg(&["pattern"]).unwrap_or_default(),
            path().unwrap_or_else(|| ".".to_owned())
        ),
        "find" => format!(
            "find {} in {}",
            arg(&["pattern"]).unwrap_or_default(),
            path().unwrap_or_else(|| ".".to_owned())
        ),
        "ls" => format!("ls {}", path().unwrap_or_else(|| ".".to_owned())),
        other => other.to_owned(),
    };
    super::transcript::one_line(&line, MAX_HEADLINE)
}

/// How many lines of a tool's output show before the disclosure, by tool, as pi's page.
pub fn preview_lines(name: &str) -> usize {
    match name {
        "bash" => 5,
        "ls" => 20,
        _ => 10,
    }
}

/// The most bytes a line of a preview or of a capped output may average: a 50 MB output of
/// one line is cut too.
pub const BYTES_PER_LINE: usize = 200;

/// Where `text` is cut after `lines` lines (or `lines` × [`BYTES_PER_LINE`] bytes, at a
/// character boundary): the byte offset, and whether anything is left after it.
pub fn cut_after(text: &str, lines: usize) -> usize {
    let limit = lines.saturating_mul(BYTES_PER_LINE).min(text.len());
    let mut at = 0;
    for _ in 0..lines {
        match memchr::memchr(b'\n', &text.as_bytes()[at..limit]) {
            Some(nl) => at += nl + 1,
            None => {
                at = limit;
                break;
            }
        }
    }
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    // A cut that leaves only the final newline leaves nothing.
    if text.len() - at == 1 && text.ends_with('\n') {
        text.len()
    } else {
        at
    }
}

/// `1 more line`, `12 more lines`.
pub fn more_lines(n: usize) -> String {
    format!("{n} more line{}", if n == 1 { "" } else { "s" })
}

/// The lines in `text` (a last line without `\n` counts).
pub fn count_lines(text: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// pi's `shortenPath`: a path under `/home/USER` or `/Users/USER` as `~…`.
fn shorten_path(p: &str) -> String {
    for root in ["/Users/", "/home/"] {
        if let Some(rest) = p.strip_prefix(root) {
            if let Some(slash) = rest.find('/') {
                return format!("~{}", &rest[slash..]);
            }
            return "~".to_owned();
        }
    }
    p.to_owned()
}

/// pi's `formatReadLineRange`: `:offset` or `:first-last`, when they are line numbers.
fn line_range(offset: Option<&Value>, limit: Option<&Value>) -> String {
    let number = |v: Option<&Value>| v.filter(|v| !v.is_null()).map(Value::as_u64);
    match (number(offset), number(limit)) {
        (None, None) | (Some(None), _) | (_, Some(None)) => String::new(),
        (start, None) => format!(":{}", start.flatten().unwrap_or(1)),
        (start, Some(Some(count))) => {
            let start = start.flatten().unwrap_or(1);
            match (start + count).checked_sub(1) {
                Some(end) if end > 0 => format!(":{start}-{end}"),
                _ => format!(":{start}"),
            }
        }
    }
}

/// Lines an edit adds and removes: each replacement's old and new text less the lines they
/// share at the start and the end (`edits[]`, or the older single `oldText`/`newText`).
fn edit_counts(args: Option<&Value>) -> (usize, usize) {
    let Some(args) = args else { return (0, 0) };
    let one = |e: &Value| -> Option<(usize, usize)> {
        let old = e.get("oldText")?.as_str()?;
        let new = e.get("newText")?.as_str()?;
        let (old, new): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
        let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
        let tail = old[head..]
            .iter()
            .rev()
            .zip(new[head..].iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        Some((new.len() - head - tail, old.len() - head - tail))
    };
    let mut total = one(args).unwrap_or((0, 0));
    if let Some(edits) = args.get("edits").and_then(Value::as_array) {
        for (a, r) in edits.iter().filter_map(one) {
            total = (total.0 + a, total.1 + r);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_read_in_pis_wording() {
        let h = |name: &str, args: Value| headline(name, Some(&args));
        assert_eq!(h("bash", json!({"command": "ls -la"})), "$ ls -la");
        assert_eq!(
            h("bash", json!({"command": "cat <<EOF\nx\nEOF"})),
            "$ cat <<EOF …"
        );
        assert_eq!(
            h("read", json!({"path": "/home/ann/p/a.rs"})),
            "read ~/p/a.rs"
        );
        assert_eq!(
            h("read", json!({"path": "a.rs", "offset": 10, "limit": 20})),
            "read a.rs:10-29"
        );
        assert_eq!(
            h("read", json!({"path": "a.rs", "offset": 7})),
            "read a.rs:7"
        );
        assert_eq!(
            h("read", json!({"path": "a.rs", "offset": "x"})),
            "read a.rs"
        );
        assert_eq!(
            h("write", json!({"path": "b", "content": "1\n2"})),
            "write b"
        );
        let long = "l\n".repeat(12);
        assert_eq!(
            h("write", json!({"path": "b", "content": long})),
            "write b (13 lines)"
        );
        assert_eq!(
            h(
                "edit",
                json!({"path": "c", "edits": [{"oldText": "a\nb\nc", "newText": "a\nB\nB2\nc"}]})
            ),
            "edit c (+2 \u{2212}1)"
        );
        assert_eq!(
            h("edit", json!({"path": "c", "oldText": "x", "newText": "y"})),
            "edit c (+1 \u{2212}1)"
        );
        assert_eq!(
            h("grep", json!({"pattern": "TODO", "path": "src"})),
            "grep /TODO/ in src"
        );
        assert_eq!(h("find", json!({"pattern": "*.rs"})), "find *.rs in .");
        assert_eq!(h("ls", json!({})), "ls .");
        assert_eq!(h("todo", json!({"x": 1})), "todo");
        assert_eq!(headline("bash", None), "$");
        assert_eq!(
            h("bash", json!({"command": "x".repeat(500)}))
                .chars()
                .count(),
            200
        );
    }

    #[test]
    fn outputs_are_cut_by_lines_and_by_bytes() {
        assert_eq!(cut_after("a\nb\nc\n", 2), 4);
        assert_eq!(cut_after("a\nb\n", 2), 4);
        assert_eq!(cut_after("a\nb\nc", 5), 5);
        // The final newline alone is not a rest.
        assert_eq!(cut_after("a\nb\n", 1), 2);
        assert_eq!(cut_after("a\n", 1), 2);
        let one = "é".repeat(1000);
        let at = cut_after(&one, 1);
        assert!(at <= BYTES_PER_LINE && one.is_char_boundary(at), "{at}");
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("a\nb"), 2);
        assert_eq!(count_lines("a\nb\n"), 2);
    }
}
