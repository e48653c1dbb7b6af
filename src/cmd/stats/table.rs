//! `stats --format csv|tsv`: a report's rows for a spreadsheet or a database, one header row,
//! the figures `--json` gives under the same names, numbers as JavaScript writes them.
//!
//! Every key and title is text a session gave (a cwd, a model, a name), so it is written as
//! data, never as structure: CSV quotes a cell holding `,`, `"`, CR or LF (RFC 4180, quotes
//! doubled, CRLF line ends); TSV, whose cells cannot hold a tab or a line end, escapes `\t`,
//! `\n`, `\r` and `\\` as PostgreSQL's and ClickHouse's TSV do. A CSV text cell that starts with
//! `=`, `+`, `-`, `@`, a tab or CR is also prefixed with `'` (OWASP's guard against formula
//! injection): a CSV is most often opened in a spreadsheet, which would run a title such as
//! `=HYPERLINK(…)` as a formula. Numbers are never prefixed. TSV stays exact, for programs.
//! No total row: a spreadsheet sums, and a total among the rows would be summed again.

use std::io::{self, Write};

use crate::app::cli::TableFormat;
use crate::views::stats::{Bucket, By};

/// The header and one line per row.
pub(super) fn write(
    format: TableFormat,
    by: By,
    then: Option<By>,
    rows: &[Bucket],
    priced: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    let keys: Vec<By> = std::iter::once(by).chain(then).collect();
    let titled = keys.contains(&By::Session);
    let mut head: Vec<&str> = keys.iter().map(|b| b.as_str()).collect();
    if titled {
        head.push("title");
    }
    head.extend(FIGURES);
    if priced {
        head.extend(ESTIMATES);
    }
    let line = |cells: &mut dyn Iterator<Item = Cell>| -> Vec<u8> {
        let mut l = Vec::new();
        for (i, cell) in cells.enumerate() {
            if i > 0 {
                l.push(if format == TableFormat::Csv {
                    b','
                } else {
                    b'\t'
                });
            }
            cell.push(format, &mut l);
        }
        l.extend_from_slice(if format == TableFormat::Csv {
            b"\r\n"
        } else {
            b"\n"
        });
        l
    };
    out.write_all(&line(&mut head.iter().map(|h| Cell::Text(h))))?;
    for b in rows {
        let u = &b.usage;
        let c = &b.counts;
        let mut cells: Vec<Cell> = b.keys.iter().map(|k| Cell::Text(k)).collect();
        if titled {
            cells.push(Cell::Text(&b.title));
        }
        #[allow(clippy::cast_precision_loss)]
        let counts = [
            b.sessions,
            c.user_messages,
            c.assistant_messages,
            c.tool_calls,
            c.tool_results,
            b.messages,
            c.tool_errors,
        ]
        .map(|n| n as f64);
        cells.extend(counts.into_iter().map(Cell::Number));
        cells.extend(
            [
                u.input,
                u.output,
                u.cache_read,
                u.cache_write,
                u.total_tokens(),
                u.cost,
                u.unpriced,
            ]
            .map(Cell::Number),
        );
        if priced {
            let e = &b.estimated;
            #[allow(clippy::cast_precision_loss)]
            let more = [
                e.cost,
                e.priced as f64,
                e.unpriced as f64,
                e.unpriced_tokens,
            ];
            cells.extend(more.map(Cell::Number));
        }
        out.write_all(&line(&mut cells.into_iter()))?;
    }
    Ok(())
}

/// The figure columns, `stats --json`'s names (`tokens` spread out as `ls --json`'s `usage`).
const FIGURES: [&str; 14] = [
    "sessions",
    "userMessages",
    "assistantMessages",
    "toolCalls",
    "toolResults",
    "totalMessages",
    "toolErrors",
    "input",
    "output",
    "cacheRead",
    "cacheWrite",
    "totalTokens",
    "cost",
    "unpricedTokens",
];

/// With `--prices` (docs/json.md, the estimate fields).
const ESTIMATES: [&str; 4] = [
    "estimatedCost",
    "estimatedMessages",
    "unestimatedMessages",
    "unestimatedTokens",
];

enum Cell<'a> {
    Text(&'a str),
    Number(f64),
}

impl Cell<'_> {
    fn push(&self, format: TableFormat, out: &mut Vec<u8>) {
        match self {
            // As JSON writes it; a total that is not finite (JSON's null) is an empty cell.
            Cell::Number(x) if x.is_finite() => pisess_format::model::push_number(out, *x),
            Cell::Number(_) => {}
            Cell::Text(t) => match format {
                TableFormat::Csv => csv_cell(t, out),
                TableFormat::Tsv => tsv_cell(t, out),
            },
        }
    }
}

fn csv_cell(t: &str, out: &mut Vec<u8>) {
    let formula = t.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let quoted = formula || t.contains([',', '"', '\r', '\n']);
    if quoted {
        out.push(b'"');
    }
    if formula {
        out.push(b'\'');
    }
    for ch in t.chars() {
        if ch == '"' {
            out.push(b'"');
        }
        let mut buf = [0; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
    }
    if quoted {
        out.push(b'"');
    }
}

fn tsv_cell(t: &str, out: &mut Vec<u8>) {
    for ch in t.chars() {
        match ch {
            '\t' => out.extend_from_slice(b"\\t"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\\' => out.extend_from_slice(b"\\\\"),
            _ => {
                let mut buf = [0; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(t: &str) -> String {
        let mut out = Vec::new();
        csv_cell(t, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn csv_cells_are_quoted_as_rfc_4180_says_and_formulas_stay_text() {
        assert_eq!(csv("/home/dev/webshop"), "/home/dev/webshop");
        assert_eq!(csv("a,b"), "\"a,b\"");
        assert_eq!(csv("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv("two\r\nlines"), "\"two\r\nlines\"");
        assert_eq!(csv("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv("-2+3"), "\"'-2+3\"");
        assert_eq!(csv("@SUM(A1)"), "\"'@SUM(A1)\"");
        assert_eq!(csv("a=b"), "a=b");
    }

    #[test]
    fn tsv_cells_escape_what_would_end_a_cell_or_a_line() {
        let mut out = Vec::new();
        tsv_cell("a\tb\nc\\d\r=e", &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "a\\tb\\nc\\\\d\\r=e");
    }
}
