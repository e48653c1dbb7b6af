//! Human output helpers: colours as a value (never global state), escaping of terminal
//! control characters from session content, cutting by display width, and number formats.

use std::borrow::Cow;
use std::fmt::Write as _;

use owo_colors::OwoColorize;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Colours on or off for one stream.
#[derive(Debug, Clone, Copy)]
pub struct Theme {
    pub enabled: bool,
}

macro_rules! styles {
    ($($name:ident => $apply:ident),* $(,)?) => {
        $(pub fn $name(&self, s: &str) -> String {
            // Nothing to colour: no escape codes around an empty string.
            if self.enabled && !s.is_empty() { s.$apply().to_string() } else { s.to_owned() }
        })*
    };
}

/// What a piece of output is, which decides its colour: one palette for every command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Plain,
    /// Ids and labels.
    Id,
    User,
    Assistant,
    /// Tool calls (`show`).
    Tool,
    /// Custom messages, summaries and media: neither said nor called.
    Custom,
    /// Compactions in the tree.
    Border,
    Warn,
    Error,
    /// Bookkeeping, tool results, notes.
    Muted,
}

impl Theme {
    /// `s` in the colour of its role.
    pub fn paint(&self, role: Role, s: &str) -> String {
        match role {
            Role::Plain => s.to_owned(),
            Role::Id | Role::Warn => self.yellow(s),
            Role::User | Role::Tool => self.cyan(s),
            Role::Assistant => self.green(s),
            Role::Custom => self.magenta(s),
            Role::Border => self.blue(s),
            Role::Error => self.red(s),
            Role::Muted => self.dim(s),
        }
    }

    styles! {
        dim => dimmed,
        bold => bold,
        red => red,
        green => green,
        yellow => yellow,
        blue => blue,
        cyan => cyan,
        magenta => magenta,
    }
}

/// Makes session text safe to print: control characters (ESC, C1, BEL, CR...) become visible
/// escapes so a session cannot repaint the terminal. Newlines and tabs are kept when `keep_lines`.
/// A lone surrogate (held as a stand-in, `pisess_format::surrogates`) shows as U+FFFD.
pub fn escape_control(s: &str, keep_lines: bool) -> Cow<'_, str> {
    if pisess_format::surrogates::has_standins(s) {
        let shown = pisess_format::surrogates::for_display(s);
        return Cow::Owned(escape_control(&shown, keep_lines).into_owned());
    }
    let is_bad = |c: char| is_bad(c, keep_lines);
    if !has_bad(s.as_bytes(), keep_lines) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' if !keep_lines => out.push_str("\\n"),
            '\t' if !keep_lines => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_bad(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A character [`escape_control`] makes visible.
fn is_bad(c: char, keep_lines: bool) -> bool {
    (c.is_control() && !(keep_lines && (c == '\n' || c == '\t')))
        || matches!(
            c,
            '\u{61c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{feff}'
        )
}

/// Whether UTF-8 text holds a character [`is_bad`], by its bytes: a pass that compiles to vector
/// instructions finds the ASCII controls, and the C1 controls and the invisible marks are
/// looked for only where a C2, D8, E2 or EF byte starts a character (`memchr`: text with arrows
/// and check marks, E2 all, was read byte by byte).
fn has_bad(b: &[u8], keep_lines: bool) -> bool {
    let ascii_bad = |x: u8| x < 0x20 && !(keep_lines && matches!(x, b'\n' | b'\t')) || x == 0x7f;
    let wide = |i: usize| match b[i] {
        // U+0080..=U+009F
        0xC2 => b.get(i + 1).is_some_and(|n| (0x80..=0x9F).contains(n)),
        // U+061C
        0xD8 => b.get(i + 1) == Some(&0x9C),
        // U+FEFF
        0xEF => b.get(i + 1..i + 3) == Some(&[0xBB, 0xBF][..]),
        // U+200B..=U+200F, U+2028..=U+202E, U+2066..=U+2069
        _ => matches!(
            (b.get(i + 1), b.get(i + 2)),
            (Some(0x80), Some(0x8B..=0x8F | 0xA8..=0xAE)) | (Some(0x81), Some(0xA6..=0xA9))
        ),
    };
    pisess_format::util::bytes::any_byte(b, ascii_bad)
        || memchr::memchr3_iter(0xC2, 0xD8, 0xE2, b).any(wide)
        || memchr::memchr_iter(0xEF, b).any(wide)
}

/// A session or entry id cut to its first 8 characters (what tables show), escaped: ids come
/// from the file like any other text.
pub fn short_id(id: &str) -> String {
    shown_id(id, IdCut::Column)
}

/// Where an id is shown, which decides how much of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdCut {
    /// A table column (`ls`, `rm`, `context`): the first 8 characters.
    Column,
    /// An id the user types back (`show`): pi's 8-character ids whole, ids of up to 16
    /// characters too, longer ones by their first 8 UTF-16 units (pi's `slice`).
    Typed,
}

/// The one rule for shortening ids, escaped.
pub fn shown_id(id: &str, cut: IdCut) -> String {
    let kept: Cow<str> = match cut {
        IdCut::Column => Cow::Owned(id.chars().take(8).collect()),
        IdCut::Typed if id.chars().count() <= 16 => Cow::Borrowed(id),
        IdCut::Typed => Cow::Borrowed(pisess_format::js::js_slice(id, 8)),
    };
    escape_control(&kept, false).into_owned()
}

/// One line of preview: whitespace runs folded to one space, control characters escaped.
pub fn one_line(s: &str) -> String {
    let folded: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    escape_control(&folded, false).into_owned()
}

/// Cuts `s` to at most `width` display columns, ending with `…` when cut.
pub fn truncate(s: &str, width: usize) -> Cow<'_, str> {
    if s.width() <= width {
        return Cow::Borrowed(s);
    }
    if width == 0 {
        return Cow::Borrowed("");
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    Cow::Owned(out)
}

/// Cuts `s` to at most `width` display columns by taking out its middle (`deepseek/…-chat-v3`):
/// for a name whose start (a provider) and end (a version) both say which it is.
pub fn truncate_middle(s: &str, width: usize) -> Cow<'_, str> {
    if s.width() <= width {
        return Cow::Borrowed(s);
    }
    if width < 3 {
        return truncate(s, width);
    }
    let head_width = (width - 1) / 2;
    let (mut head, mut used) = (0, 0);
    for (i, c) in s.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > head_width {
            break;
        }
        used += w;
        head = i + c.len_utf8();
    }
    let tail_width = width - 1 - used;
    let (mut tail, mut used) = (s.len(), 0);
    for (i, c) in s.char_indices().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > tail_width || i < head {
            break;
        }
        used += w;
        tail = i;
    }
    Cow::Owned(format!("{}…{}", &s[..head], &s[tail..]))
}

/// Cuts a path to `width` columns from the left, at a `/` where it can (`…/webshop`): a
/// project is told by its last names.
pub fn truncate_left(s: &str, width: usize) -> Cow<'_, str> {
    if s.width() <= width {
        return Cow::Borrowed(s);
    }
    if width == 0 {
        return Cow::Borrowed("");
    }
    let mut used = 0;
    let mut start = s.len();
    for (i, c) in s.char_indices().rev() {
        let w = c.width().unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        used += w;
        start = i;
    }
    let tail = &s[start..];
    // From a separator on, unless that leaves nothing of the last name.
    let tail = match tail.find('/') {
        Some(at) if at + 1 < tail.len() => &tail[at..],
        _ => tail,
    };
    Cow::Owned(format!("…{tail}"))
}

/// Display width of a string (for aligning columns).
pub fn width(s: &str) -> usize {
    s.width()
}

/// `950`, `12.3k`, `4.5M` (tokens).
pub fn tokens(n: f64) -> String {
    if !n.is_finite() {
        js_non_finite(n).to_owned()
    } else if n < 1000.0 {
        format!("{n:.0}")
    } else if n < 1_000_000.0 {
        format!("{:.1}k", n / 1000.0)
    } else {
        format!("{:.1}M", n / 1_000_000.0)
    }
}

/// A number that is not finite (a stored `1e999` that pi counts), as JavaScript writes it.
pub fn js_non_finite(x: f64) -> &'static str {
    if x.is_nan() {
        "NaN"
    } else if x > 0.0 {
        "Infinity"
    } else {
        "-Infinity"
    }
}

/// `$0.00`, `$0.0012`, `$12.34`: one rendering everywhere, zero included. A negative amount
/// (a stored negative cost) carries its sign before the dollar, `-$2.00`, never `$-2.00`.
pub fn cost(c: f64) -> String {
    if !c.is_finite() {
        format!("${}", js_non_finite(c))
    } else if c < 0.0 {
        format!("-{}", cost(-c))
    } else if c == 0.0 {
        "$0.00".to_owned()
    } else if c < 0.01 {
        format!("${c:.4}")
    } else {
        format!("${c:.2}")
    }
}

/// [`money`] of `usage`, marked [`NEGATIVE`] as well when some record of it holds a cost below
/// 0 (the sum then hides what was spent: `-5 + 3` is `-$2.00?`, for a real `$3`).
pub fn cost_of(usage: &pisess_format::model::Usage) -> String {
    let m = money(usage.cost, usage.unpriced);
    if usage.negative_cost {
        format!("{m}{NEGATIVE}")
    } else {
        m
    }
}

/// Whether a count of tokens without a price means some were: above 0, or not a number (a
/// count pi would concatenate as a string is not known, and never taken for 0).
pub fn has_unpriced(unpriced_tokens: f64) -> bool {
    unpriced_tokens > 0.0 || unpriced_tokens.is_nan()
}

/// Money as every command and format prints it (`ls`, `stats`, `check`, `export`): the
/// recorded cost ([`cost`]), marked [`UNPRICED`] when `unpriced_tokens` of its usage had no
/// price (pi records a cost of 0 for a model it cannot price), or when that count is not a
/// number ([`has_unpriced`]): a total that leaves them out is a lower bound and must not look
/// complete, so there is never a bare `$0.00` for usage that was not free. (An estimate, from
/// prices pisess would supply, is to be written apart: `~$1.23`.)
pub fn money(recorded: f64, unpriced_tokens: f64) -> String {
    let c = cost(recorded);
    if has_unpriced(unpriced_tokens) {
        format!("{c}{UNPRICED}")
    } else {
        c
    }
}

/// The mark of a cost that leaves out tokens without a price: "at least". Not `*`, which
/// marks the default session in `ls`.
pub const UNPRICED: &str = "+";

/// The mark of a cost summed over a negative recorded cost: not a bound on what was spent.
pub const NEGATIVE: &str = "?";

/// The legend printed once under a table (or a report) with [`UNPRICED`] costs.
pub fn unpriced_legend(n: f64) -> String {
    if n.is_nan() {
        format!("{UNPRICED} at least: some tokens had no price (a token count is not a number)")
    } else {
        format!("{UNPRICED} at least: {} tokens had no price", tokens(n))
    }
}

/// [`unpriced_legend`], as `stats` has named it.
pub fn unpriced_note(n: f64) -> String {
    unpriced_legend(n)
}

/// The legend printed once under a table (or a report) with [`NEGATIVE`] costs.
pub fn negative_legend() -> String {
    format!("{NEGATIVE} not known: a usage record holds a negative cost, which the sum subtracts")
}

/// `512 B`, `120 KB`, `3.4 MB` (sizes, 1 KB = 1024 B).
#[allow(clippy::cast_precision_loss)]
pub fn bytes(n: u64) -> String {
    let f = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if f < 1024.0 * 1024.0 {
        format!("{:.0} KB", f / 1024.0)
    } else if f < 1024.0 * 1024.0 * 1024.0 {
        format!("{:.1} MB", f / (1024.0 * 1024.0))
    } else {
        format!("{:.1} GB", f / (1024.0 * 1024.0 * 1024.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte test agrees with the character test on every character, alone and between
    /// others.
    #[test]
    fn bad_bytes_are_bad_characters() {
        for keep in [false, true] {
            for c in (0..=0x10FFFF).filter_map(char::from_u32) {
                let alone = c.to_string();
                let within = format!("a{c}é");
                for s in [&alone, &within] {
                    assert_eq!(
                        has_bad(s.as_bytes(), keep),
                        s.chars().any(|c| is_bad(c, keep)),
                        "{c:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn escapes_terminal_controls() {
        assert_eq!(escape_control("a\u{1b}[2Jb", true), "a\\u{1b}[2Jb");
        assert_eq!(escape_control("x\ny\tz", true), "x\ny\tz");
        assert_eq!(escape_control("x\ny", false), "x\\ny");
        assert_eq!(escape_control("\u{9b}31m", true), "\\u{9b}31m");
        assert_eq!(escape_control("a\u{202e}b", true), "a\\u{202e}b");
        // Red team repro 06: U+061C ARABIC LETTER MARK, the separators and U+FEFF were raw.
        assert_eq!(
            escape_control("a\u{61c}b\u{2028}\u{2029}\u{feff}\u{200e}", true),
            "a\\u{61c}b\\u{2028}\\u{2029}\\u{feff}\\u{200e}"
        );
        assert!(matches!(
            escape_control("\u{600}\u{fefe}ﻻ", true),
            Cow::Borrowed(_)
        ));
        assert!(matches!(escape_control("plain", true), Cow::Borrowed(_)));
    }

    #[test]
    fn truncates_by_display_width() {
        assert_eq!(truncate("hello", 10), "hello");
        assert_eq!(truncate("hello world", 6), "hello…");
        assert_eq!(truncate("日本語テキスト", 5), "日本…");
        assert_eq!(one_line("a\n  b\tc"), "a b c");
        // A model keeps its provider and its version; a path its last names.
        assert_eq!(
            truncate_middle("deepseek/deepseek-chat-v3-0324", 18),
            "deepseek…t-v3-0324"
        );
        assert_eq!(truncate_middle("gpt-5", 18), "gpt-5");
        assert_eq!(truncate_middle("日本語のモデル名前", 9), "日本…名前");
        assert_eq!(
            truncate_left("/Users/someone/gh/webshop", 12),
            "…/gh/webshop"
        );
        assert_eq!(truncate_left("/Users/someone/gh/webshop", 11), "…/webshop");
        assert_eq!(truncate_left("/home/dev/app", 20), "/home/dev/app");
        for w in 0..12 {
            for s in [
                "deepseek/deepseek-chat-v3-0324",
                "日本語のモデル名前",
                "/a/日本/webshop",
            ] {
                assert!(width(&truncate_middle(s, w)) <= w, "{s} at {w}");
                assert!(width(&truncate_left(s, w)) <= w, "{s} at {w}");
            }
        }
    }

    #[test]
    fn number_formats() {
        assert_eq!(tokens(950.0), "950");
        assert_eq!(tokens(12_345.0), "12.3k");
        assert_eq!(tokens(4_500_000.0), "4.5M");
        assert_eq!(cost(0.0), "$0.00");
        let unpriced = pisess_format::model::Usage {
            input: 10.0,
            unpriced: 10.0,
            ..Default::default()
        };
        assert_eq!(cost_of(&unpriced), "$0.00+");
        assert_eq!(money(1.5, 0.0), "$1.50");
        assert_eq!(money(1.5, 3.0), "$1.50+");
        assert_eq!(cost_of(&pisess_format::model::Usage::default()), "$0.00");
        assert_eq!(cost(0.1234), "$0.12");
        assert_eq!(cost(0.001), "$0.0010");
        // Issue 42 (red team 08): a negative sum shows its sign, a sum over a negative cost
        // its mark; a count that is no number is unpriced (red team 02).
        assert_eq!(cost(-2.0), "-$2.00");
        assert_eq!(cost(-0.001), "-$0.0010");
        assert_eq!(money(0.0, f64::NAN), "$0.00+");
        let hidden = pisess_format::model::Usage {
            cost: -2.0,
            negative_cost: true,
            ..Default::default()
        };
        assert_eq!(cost_of(&hidden), "-$2.00?");
        assert!(unpriced_legend(f64::NAN).contains("not a number"));
        assert_eq!(bytes(120 * 1024), "120 KB");
    }
}
