//! The fact stream (`pisess facts`, issue 46): one row per message-bearing entry, keyed by
//! `(sessionId, entryId)` and versioned, for an engine that adds many machines up (DuckDB,
//! ClickHouse: docs/team.md). The schema is docs/json.md's "`facts`"; this module holds the row,
//! the labels every row carries and the redaction of paths. It holds no message text, no tool
//! argument, and (with a [`Redactor`]) no path: only ids, names of models and tools, counts,
//! times and money.

use serde::Serialize;
use sha2::{Digest, Sha256};

use pisess_store::tally::Name;
use pisess_store::util::usage::UsageError;

/// The stream's schema: a reader checks it, an engine may keep it as a column. Bumped only when
/// a field changes meaning or type (fields are only ever added within a version).
pub const SCHEMA: &str = "pisess.facts";
pub const SCHEMA_VERSION: u32 = 1;

/// The machine and the person a row was emitted by (`--label host=… --label user=…`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labels {
    pub host: String,
    pub user: String,
}

impl Labels {
    /// The defaults (`host`, `user`: what the system says) overridden by each `KEY=VALUE`. A
    /// label is a column of a team's table and a word on its dashboard: a control character
    /// (a newline, an escape) in one is refused, as is a key other than `host` and `user`.
    pub fn parse(defaults: Labels, given: &[String]) -> Result<Labels, UsageError> {
        let mut labels = defaults;
        for g in given {
            let Some((key, value)) = g.split_once('=') else {
                return Err(UsageError(format!(
                    "--label {}: expected KEY=VALUE (host=… or user=…)",
                    crate::views::style::escape_control(g, false)
                )));
            };
            if value.chars().any(char::is_control) || key.chars().any(char::is_control) {
                return Err(UsageError(format!(
                    "--label {}: a label may not hold a control character",
                    crate::views::style::escape_control(key, false)
                )));
            }
            match key {
                "host" => labels.host = value.to_owned(),
                "user" => labels.user = value.to_owned(),
                _ => {
                    return Err(UsageError(format!(
                        "--label {key}=…: unknown label (host or user)"
                    )))
                }
            }
        }
        // The system's own are checked too: a hostname or $USER is text from outside.
        for value in [&labels.host, &labels.user] {
            if value.chars().any(char::is_control) {
                return Err(UsageError(
                    "a default label (the hostname or $USER) holds a control character: give \
                     --label host=… --label user=…"
                        .to_owned(),
                ));
            }
        }
        Ok(labels)
    }
}

/// Replaces paths by stable salted hashes (`--redact-paths`): the same path and salt give the
/// same hash on every machine, so a team's projects still group, and without the salt a
/// guessed path cannot be checked against the stream.
#[derive(Debug, Clone)]
pub struct Redactor {
    salt: Vec<u8>,
}

impl Redactor {
    /// The salt is a secret the team shares (`PISESS_FACTS_SALT`); an empty one is refused,
    /// since a hash without a secret is a dictionary lookup away from the path.
    pub fn new(salt: &[u8]) -> Result<Redactor, UsageError> {
        if salt.is_empty() {
            return Err(UsageError(
                "--redact-paths: set PISESS_FACTS_SALT to a secret the team shares (the same \
                 on every machine, so that one project hashes alike)"
                    .to_owned(),
            ));
        }
        Ok(Redactor {
            salt: salt.to_vec(),
        })
    }

    /// `path:` and 32 hex digits of SHA-256 over the salt's length, the salt and the path.
    pub fn path(&self, path: &str) -> String {
        let mut h = Sha256::new();
        h.update(b"pisess-facts-path\0");
        h.update((self.salt.len() as u64).to_le_bytes());
        h.update(&self.salt);
        h.update(path.as_bytes());
        let digest = h.finalize();
        let mut out = String::with_capacity(37);
        out.push_str("path:");
        for b in &digest[..16] {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }
}

/// One row of the stream (docs/json.md, "`facts`").
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FactRow<'a> {
    pub schema_version: u32,
    /// The session the entry belongs to: for an entry a fork or clone copied, its source's.
    pub session_id: &'a str,
    /// Unique within the session: the entry's id; `#<n>` (the n-th row) for an entry without
    /// one, `<id>#<n>` for an id met before in the same file.
    pub entry_id: &'a str,
    /// Higher when the same row's facts may have changed: the number of entries of the file it
    /// was read from; 0 for a copy, so that its source's own row wins.
    pub version: u64,
    /// The session whose file the row was read from, when it is not `session_id` (a copy).
    pub copied_in: Option<&'a str>,
    /// The session the file's header `parentSession` names (a fork or clone's source).
    pub fork_of: Option<&'a str>,
    /// The listed session a subagent run was found under.
    pub subagent_of: Option<&'a str>,
    pub host: &'a str,
    pub user: &'a str,
    pub cwd: &'a str,
    pub timestamp: Option<&'a str>,
    pub r#type: &'a str,
    pub role: Option<&'a str>,
    pub provider: Option<&'a str>,
    pub model: Option<&'a str>,
    pub model_key: Option<&'a str>,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total_tokens: f64,
    pub cost: f64,
    pub unpriced_tokens: f64,
    /// With `--prices`: the table's price of usage pi recorded at $0, never part of `cost`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimated_cost: Option<Option<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_key: Option<Option<&'a str>>,
    pub tool_name: Option<&'a Name>,
    pub tool_calls: usize,
    pub is_error: Option<bool>,
    pub stop_reason: Option<&'a str>,
    pub active: bool,
}

/// Writes rows as the derive (the contract, through [`pisess_format::surrogates::write`])
/// writes them, byte for byte, at a fraction of serde's cost: the
/// strings a session's rows share (its id, its place and labels, its few models) are escaped
/// once and copied after, known by comparing them with the last ones (not by where they are in
/// memory), and short ASCII strings and whole numbers are written without the general escape.
/// The stream's budget is half a million rows a second, and escaping the same dozen strings
/// again each row was most of a warm run.
#[derive(Default)]
pub struct RowWriter {
    /// The last `sessionId` and its JSON.
    session: Memo<1>,
    /// `copiedIn`, `forkOf`, `subagentOf`, `host`, `user`, `cwd`, as the JSON from the first
    /// of them to the last.
    place: Memo<6>,
    /// `provider`, `model` and `modelKey` as JSON, of the last few models (a session's rows
    /// alternate between its model and pi's key for tool results).
    models: Vec<Memo<3>>,
    /// Which of `models` the next new one replaces.
    next_model: usize,
}

/// Some strings and the JSON made of them.
struct Memo<const N: usize> {
    made: bool,
    of: [Option<String>; N],
    json: Vec<u8>,
}

impl<const N: usize> Default for Memo<N> {
    fn default() -> Self {
        Memo {
            made: false,
            of: std::array::from_fn(|_| None),
            json: Vec::new(),
        }
    }
}

impl<const N: usize> Memo<N> {
    fn holds(&self, of: &[Option<&str>; N]) -> bool {
        self.made && self.of.iter().zip(of).all(|(a, b)| a.as_deref() == *b)
    }

    fn set(&mut self, of: &[Option<&str>; N], json: impl FnOnce(&mut Vec<u8>)) {
        self.made = true;
        for (a, b) in self.of.iter_mut().zip(of) {
            match (a.as_mut(), b) {
                (Some(a), Some(b)) => {
                    a.clear();
                    a.push_str(b);
                }
                (_, b) => *a = b.map(str::to_owned),
            }
        }
        self.json.clear();
        json(&mut self.json);
    }
}

/// How many models a [`RowWriter`] keeps the JSON of.
const MODELS_KEPT: usize = 4;

impl RowWriter {
    /// `row` as the derive writes it, into `out`.
    pub fn push(&mut self, row: &FactRow, out: &mut Vec<u8>) {
        #[cfg(debug_assertions)]
        let start = out.len();
        out.extend_from_slice(b"{\"schemaVersion\":");
        push_count(out, u64::from(row.schema_version));
        out.extend_from_slice(b",\"sessionId\":");
        let session = [Some(row.session_id)];
        if !self.session.holds(&session) {
            self.session
                .set(&session, |j| push_short(j, Some(row.session_id)));
        }
        out.extend_from_slice(&self.session.json);
        out.extend_from_slice(b",\"entryId\":");
        push_short(out, Some(row.entry_id));
        out.extend_from_slice(b",\"version\":");
        push_count(out, row.version);
        let place = [
            row.copied_in,
            row.fork_of,
            row.subagent_of,
            Some(row.host),
            Some(row.user),
            Some(row.cwd),
        ];
        if !self.place.holds(&place) {
            self.place.set(&place, |j| {
                for (key, v) in [
                    &b",\"copiedIn\":"[..],
                    b",\"forkOf\":",
                    b",\"subagentOf\":",
                    b",\"host\":",
                    b",\"user\":",
                    b",\"cwd\":",
                ]
                .into_iter()
                .zip(place)
                {
                    j.extend_from_slice(key);
                    push_short(j, v);
                }
            });
        }
        out.extend_from_slice(&self.place.json);
        out.extend_from_slice(b",\"timestamp\":");
        push_short(out, row.timestamp);
        out.extend_from_slice(b",\"type\":");
        push_short(out, Some(row.r#type));
        out.extend_from_slice(b",\"role\":");
        push_short(out, row.role);
        let model = [row.provider, row.model, row.model_key];
        let at = match self.models.iter().position(|m| m.holds(&model)) {
            Some(at) => at,
            None => {
                if self.models.len() < MODELS_KEPT {
                    self.models.push(Memo::default());
                }
                let at = self.next_model % self.models.len();
                self.next_model = at + 1;
                self.models[at].set(&model, |j| {
                    for (key, v) in [&b",\"provider\":"[..], b",\"model\":", b",\"modelKey\":"]
                        .into_iter()
                        .zip(model)
                    {
                        j.extend_from_slice(key);
                        push_short(j, v);
                    }
                });
                at
            }
        };
        out.extend_from_slice(&self.models[at].json);
        for (key, value) in [
            (&b",\"input\":"[..], row.input),
            (b",\"output\":", row.output),
            (b",\"cacheRead\":", row.cache_read),
            (b",\"cacheWrite\":", row.cache_write),
            (b",\"totalTokens\":", row.total_tokens),
            (b",\"cost\":", row.cost),
            (b",\"unpricedTokens\":", row.unpriced_tokens),
        ] {
            out.extend_from_slice(key);
            push_num(out, value);
        }
        if let Some(e) = row.estimated_cost {
            out.extend_from_slice(b",\"estimatedCost\":");
            match e {
                Some(e) => push_num(out, e),
                None => out.extend_from_slice(b"null"),
            }
        }
        if let Some(k) = row.price_key {
            out.extend_from_slice(b",\"priceKey\":");
            push_short(out, k);
        }
        out.extend_from_slice(b",\"toolName\":");
        push_short(out, row.tool_name.map(Name::as_str));
        out.extend_from_slice(b",\"toolCalls\":");
        push_count(out, row.tool_calls as u64);
        out.extend_from_slice(match row.is_error {
            Some(true) => b",\"isError\":true",
            Some(false) => b",\"isError\":false",
            None => b",\"isError\":null",
        });
        out.extend_from_slice(b",\"stopReason\":");
        push_short(out, row.stop_reason);
        out.extend_from_slice(if row.active {
            b",\"active\":true}"
        } else {
            b",\"active\":false}"
        });
        // Every debug run (the tests, same-output.sh) checks each row against the contract's.
        #[cfg(debug_assertions)]
        {
            let mut want = Vec::new();
            pisess_format::surrogates::write(&mut want, row).expect("a row is JSON");
            debug_assert_eq!(
                String::from_utf8_lossy(&out[start..]),
                String::from_utf8_lossy(&want)
            );
        }
    }
}

/// A string's JSON, or `null`: a string of printable ASCII needing no escape (ids, times,
/// names) copied between its quotes, which is what [`push_str`](pisess_format::surrogates::push_str)
/// writes of it (nothing in it is a stand-in, a control or escaped); any other through it.
fn push_short(out: &mut Vec<u8>, v: Option<&str>) {
    let Some(s) = v else {
        out.extend_from_slice(b"null");
        return;
    };
    // Without an early exit, so that it compiles to vector instructions.
    let plain = |b: u8| (0x20..0x7f).contains(&b) & (b != b'"') & (b != b'\\');
    if s.as_bytes().iter().fold(true, |all, &b| all & plain(b)) {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        pisess_format::surrogates::push_str(out, s);
    }
}

/// 2^53: integers below it are exact in a double, and written as integers.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// A number as [`push_number`](pisess_format::model::push_number) writes it: a whole one
/// below 2^53 (nearly all: token counts) by [`push_digits`], any other by it.
fn push_num(out: &mut Vec<u8>, x: f64) {
    if x.abs() < EXACT {
        #[allow(clippy::cast_possible_truncation)]
        let i = x as i64;
        #[allow(clippy::cast_precision_loss)]
        if i as f64 == x {
            if i < 0 {
                out.push(b'-');
            }
            push_digits(out, i.unsigned_abs());
            return;
        }
    }
    pisess_format::model::push_number(out, x);
}

/// A count as [`push_u64`](pisess_format::surrogates::push_u64) writes it.
fn push_count(out: &mut Vec<u8>, n: u64) {
    if n < 1 << 53 {
        push_digits(out, n);
    } else {
        pisess_format::surrogates::push_u64(out, n);
    }
}

/// The decimal digits of `n`, two at a time.
fn push_digits(out: &mut Vec<u8>, mut n: u64) {
    // Most counts of most rows are 0.
    if n < 10 {
        out.push(b'0' + n as u8);
        return;
    }
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    while n >= 100 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        at -= 2;
        buf[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = n as usize * 2;
        at -= 2;
        buf[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        at -= 1;
        buf[at] = b'0' + n as u8;
    }
    out.extend_from_slice(&buf[at..]);
}

/// [`json_date`](pisess_format::time::json_date) of many times, most on the same few days: the
/// date part of the last day is kept and only the time of day is written (a run's rows are in
/// file order, so most follow one of the same day).
#[derive(Default)]
pub struct Dates {
    /// The day (since the epoch) `prefix` is of, when it is a four-digit year's.
    day: Option<i64>,
    /// `YYYY-MM-DDT`.
    prefix: [u8; 11],
    text: [u8; 27],
    len: usize,
}

impl Dates {
    /// The time `ms` as `Date.toJSON` writes it; `None` where JavaScript has no date.
    pub fn format(&mut self, ms: i64) -> Option<&str> {
        const DAY: i64 = 86_400_000;
        let day = ms.div_euclid(DAY);
        if self.day == Some(day) {
            let of_day = ms.rem_euclid(DAY);
            let mut t = [0u8; 13];
            for (at, value) in [
                (0, of_day / 3_600_000),
                (3, of_day / 60_000 % 60),
                (6, of_day / 1000 % 60),
            ] {
                t[at] = b'0' + (value / 10) as u8;
                t[at + 1] = b'0' + (value % 10) as u8;
            }
            t[2] = b':';
            t[5] = b':';
            t[8] = b'.';
            let milli = of_day % 1000;
            t[9] = b'0' + (milli / 100) as u8;
            t[10] = b'0' + (milli / 10 % 10) as u8;
            t[11] = b'0' + (milli % 10) as u8;
            t[12] = b'Z';
            self.text[..11].copy_from_slice(&self.prefix);
            self.text[11..24].copy_from_slice(&t);
            self.len = 24;
        } else {
            let date = pisess_format::time::json_date(ms)?;
            let s = date.as_str().as_bytes();
            self.text[..s.len()].copy_from_slice(s);
            self.len = s.len();
            // Only `YYYY-MM-DDTHH:MM:SS.mmmZ` (a year of four digits) is kept: the others are
            // rare, and their day's last milliseconds may be past JavaScript's last date.
            self.day = (s.len() == 24).then_some(day);
            if self.day.is_some() {
                self.prefix.copy_from_slice(&s[..11]);
            }
        }
        // Only ASCII is written.
        std::str::from_utf8(&self.text[..self.len]).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_row_is_the_contracts_byte_for_byte() {
        let strings = [
            "",
            "plain",
            "quote \" back \\ nl \n tab \t",
            "\u{1b}[31m csi \u{9b} bidi \u{202e} zw \u{200b} del \u{7f}",
            "ünï 🛒 \u{2028}",
        ];
        let numbers = [
            0.0,
            -0.0,
            1.0,
            3000.0,
            0.028_409_999_999_999_998,
            1.5e-7,
            1e21,
            -5.0,
            1e300,
            f64::NAN,
            f64::INFINITY,
            9_007_199_254_740_993.0,
        ];
        let tool = Name::new("mcp__x");
        for (i, s) in strings.iter().enumerate() {
            for (j, x) in numbers.iter().enumerate() {
                let some = |k: usize| (i + j + k).is_multiple_of(2).then_some(*s);
                let row = FactRow {
                    schema_version: SCHEMA_VERSION,
                    session_id: s,
                    entry_id: s,
                    version: (i * j) as u64,
                    copied_in: some(0),
                    fork_of: some(1),
                    subagent_of: some(0),
                    host: s,
                    user: s,
                    cwd: s,
                    timestamp: some(1),
                    r#type: s,
                    role: some(0),
                    provider: some(1),
                    model: some(0),
                    model_key: some(1),
                    input: *x,
                    output: -*x,
                    cache_read: *x * 3.0,
                    cache_write: *x,
                    total_tokens: *x,
                    cost: *x,
                    unpriced_tokens: *x,
                    estimated_cost: [None, Some(None), Some(Some(*x))][(i + j) % 3],
                    price_key: [None, Some(None), Some(Some(*s))][(i + j) % 3],
                    tool_name: (i + j).is_multiple_of(2).then_some(&tool),
                    tool_calls: i + j,
                    is_error: [None, Some(true), Some(false)][j % 3],
                    stop_reason: some(0),
                    active: j.is_multiple_of(2),
                };
                let mut want = Vec::new();
                pisess_format::surrogates::write(&mut want, &row).unwrap();
                let mut got = Vec::new();
                RowWriter::default().push(&row, &mut got);
                assert_eq!(
                    String::from_utf8_lossy(&got),
                    String::from_utf8_lossy(&want),
                    "{s:?} {x}"
                );
            }
        }
    }

    #[test]
    fn the_row_writer_writes_the_contracts_rows_with_memos_kept_across_them() {
        // Rows whose strings repeat and change (the writer's memos) and hold every kind of
        // text and number, each written by a writer kept across them all.
        let strings = [
            "plain",
            "",
            "0196c9f4-aaaa",
            "quote \" back \\ nl \n",
            "\u{1b}[31m \u{9b} \u{202e} \u{7f}",
            "ünï 🛒 \u{2028}",
            "~ tilde and space",
        ];
        let numbers = [
            0.0,
            -0.0,
            7.0,
            -12_345.0,
            99.0,
            100.0,
            0.25,
            9_007_199_254_740_991.0,
            9_007_199_254_740_992.0,
            -9_007_199_254_740_993.0,
            1e21,
            f64::NAN,
            f64::NEG_INFINITY,
            1.5e-7,
        ];
        let tool = Name::new("read");
        let odd_tool = Name::new("weird \u{1b} tool");
        let mut writer = RowWriter::default();
        let (mut got, mut want) = (Vec::new(), Vec::new());
        for i in 0..600usize {
            let s = |k: usize| strings[(i / (k + 1) + k) % strings.len()];
            let some = |k: usize| (!(i / 3 + k).is_multiple_of(3)).then(|| s(k));
            let x = |k: usize| numbers[(i * (k + 1) + k) % numbers.len()];
            let row = FactRow {
                schema_version: SCHEMA_VERSION,
                session_id: s(7),
                entry_id: s(0),
                version: [0, 9, 10, 99, 100, 12_345, 1 << 53, (1 << 53) + 1, u64::MAX][i % 9],
                copied_in: some(1),
                fork_of: some(11),
                subagent_of: some(13),
                host: s(17),
                user: s(19),
                cwd: s(23),
                timestamp: some(2),
                r#type: s(3),
                role: some(4),
                provider: some(5),
                model: some(6),
                model_key: some(i % 5),
                input: x(0),
                output: x(1),
                cache_read: x(2),
                cache_write: x(3),
                total_tokens: x(4),
                cost: x(5),
                unpriced_tokens: x(6),
                estimated_cost: [None, Some(None), Some(Some(x(7)))][i % 3],
                price_key: [None, Some(None), Some(Some(s(8)))][i % 3],
                tool_name: [None, Some(&tool), Some(&odd_tool)][i % 3],
                tool_calls: [0, 1, 10, 123_456][i % 4],
                is_error: [None, Some(true), Some(false)][i % 3],
                stop_reason: some(9),
                active: i.is_multiple_of(2),
            };
            writer.push(&row, &mut got);
            got.push(b'\n');
            pisess_format::surrogates::write(&mut want, &row).unwrap();
            want.push(b'\n');
        }
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want)
        );
    }

    #[test]
    fn dates_are_json_dates() {
        use pisess_format::time::json_date;
        const MAX: i64 = 8_640_000_000_000_000;
        const DAY: i64 = 86_400_000;
        let mut dates = Dates::default();
        let mut check = |ms: i64| {
            let want = json_date(ms);
            assert_eq!(dates.format(ms), want.as_ref().map(|d| d.as_str()), "{ms}");
        };
        // Runs within a day, back and forth across its edges, and the ends of the range.
        for base in [
            0,
            1_733_000_000_000,
            -DAY,
            -62_167_219_200_000,
            253_402_300_799_999,
            MAX - DAY,
            MAX,
            -MAX,
        ] {
            for step in [
                -DAY - 1,
                -1,
                0,
                1,
                999,
                1000,
                59_999,
                3_599_999,
                DAY - 1,
                DAY,
            ] {
                for k in 0..5 {
                    check(base.saturating_add(step.saturating_mul(k)));
                }
                check(base.saturating_add(step));
                check(base);
            }
        }
        for ms in [MAX + 1, -MAX - 1, i64::MAX, i64::MIN, MAX - 1, MAX + DAY] {
            check(ms);
            check(ms.saturating_sub(1));
        }
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Mostly nearby times, some anywhere.
            let ms = if x.is_multiple_of(7) {
                (x as i64) % (MAX + 2)
            } else {
                1_733_000_000_000 + (x % (40 * DAY as u64)) as i64
            };
            check(ms);
        }
    }

    fn system() -> Labels {
        Labels {
            host: "h".into(),
            user: "u".into(),
        }
    }

    #[test]
    fn labels_override_the_system_and_refuse_controls_and_unknown_keys() {
        let l = Labels::parse(system(), &["host=build-1".into(), "user=ana=b".into()]).unwrap();
        assert_eq!((l.host.as_str(), l.user.as_str()), ("build-1", "ana=b"));
        for bad in ["host=a\nb", "user=\u{1b}[31m", "ho\tst=x", "team=x", "host"] {
            assert!(Labels::parse(system(), &[bad.into()]).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn redaction_is_stable_salted_and_refuses_no_salt() {
        let a = Redactor::new(b"s1").unwrap();
        let b = Redactor::new(b"s2").unwrap();
        assert_eq!(a.path("/home/ana/p"), a.path("/home/ana/p"));
        assert_ne!(a.path("/home/ana/p"), b.path("/home/ana/p"));
        assert_ne!(a.path("/home/ana/p"), a.path("/home/ana/q"));
        assert!(!a.path("/home/ana/p").contains("ana"));
        assert_eq!(a.path("x").len(), 37);
        assert!(Redactor::new(b"").is_err());
    }
}
