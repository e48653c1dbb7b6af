//! Reading LiteLLM's price table (`model_prices_and_context_window.json`): one JSON object
//! mapping a model key to an object of prices in USD per single token.
//!
//! What is read, of each entry: `input_cost_per_token`, `output_cost_per_token`,
//! `cache_read_input_token_cost`, `cache_creation_input_token_cost`,
//! `cache_creation_input_token_cost_above_1hr`, and each of them with an `_above_<N>k_tokens`
//! (or `_above_<N>_tokens`) suffix: a tier. Every other field is skipped unread (service tiers
//! such as `_batches` or `_priority`, per-image or per-second prices, `tiered_pricing` lists).
//!
//! What is kept: every entry whose `input_cost_per_token` and `output_cost_per_token` are both
//! given, as LiteLLM's cost code and ccusage require; the others (embedding or image models
//! priced another way) are skipped, and so is `sample_spec`, LiteLLM's documentation entry. A
//! price that is `null` is absent, as LiteLLM reads it.
//!
//! What is refused, as a [`PriceError`] naming the file, the key and the field: a file that is
//! not one JSON object of objects, a price that is a string, a boolean, an array or an object, a
//! negative price, a number beyond f64 (`1e999`), and a table in which no entry is priced (a
//! wrong file). A key given twice keeps its last entry, as LiteLLM's own loader (Python's
//! `json`) keeps it.
//!
//! Bounded: the file is read whole but at most [`MAX_FILE_BYTES`], and parsed in one streaming
//! pass into the table, without a tree of the file's values.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The largest price file read. LiteLLM's table is ~3.5 MB (1.110.2, 2026); 64 MiB leaves it
/// room to grow while a wrong path (a log, a disk image) costs no more memory than that.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Which rate: the four token counts pi records, and the one-hour cache write, a part of
/// `cacheWrite` that Anthropic prices apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Input,
    Output,
    CacheRead,
    CacheWrite,
    CacheWrite1h,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Input,
        Kind::Output,
        Kind::CacheRead,
        Kind::CacheWrite,
        Kind::CacheWrite1h,
    ];

    /// LiteLLM's field for the untiered rate.
    pub fn field(self) -> &'static str {
        match self {
            Kind::Input => "input_cost_per_token",
            Kind::Output => "output_cost_per_token",
            Kind::CacheRead => "cache_read_input_token_cost",
            Kind::CacheWrite => "cache_creation_input_token_cost",
            Kind::CacheWrite1h => "cache_creation_input_token_cost_above_1hr",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.field())
    }
}

/// The per-token USD rates of one tier, each as LiteLLM stores it (an f64); `None` where the
/// table gives none. Input and output are always given (entries without them are not kept).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rates([Option<f64>; 5]);

impl Rates {
    pub fn get(&self, kind: Kind) -> Option<f64> {
        self.0[kind as usize]
    }

    fn set(&mut self, kind: Kind, rate: f64) {
        self.0[kind as usize] = Some(rate);
    }
}

/// Rates that apply to a request whose input tokens are above `above` (LiteLLM's
/// `_above_<N>k_tokens`, N × 1000). A rate the tier does not give is the one below it (the
/// next lower tier's, or the base), as LiteLLM resolves it: a tier holds every rate that
/// applies at its level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tier {
    pub above: u64,
    pub rates: Rates,
}

/// One entry's prices: the base rates and the tiers above them, in rising order of `above`.
#[derive(Debug, Clone, PartialEq)]
pub struct Prices {
    pub base: Rates,
    pub tiers: Vec<Tier>,
}

/// A read price table: its priced entries, found by key.
#[derive(Debug, Clone, Default)]
pub struct PriceTable {
    pub(super) entries: Vec<Entry>,
    index: hashbrown::HashMap<Box<str>, usize>,
}

/// A key with its prices, and the key as the matching rule compares it (ASCII lowercase, and
/// that with `.` and `@` read as `-`): computed once here rather than on every look-up.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) key: Box<str>,
    pub(super) lower: Box<str>,
    pub(super) normal: Box<str>,
    /// Whether the key spells a `.` or `@` (`normal` differs from `lower`).
    pub(super) dotted: bool,
    pub(super) prices: Prices,
}

/// A price table that could not be read: the file, and what is wrong with it.
#[derive(Debug, thiserror::Error)]
#[error("price table {}: {problem}", path.display())]
pub struct PriceError {
    pub path: PathBuf,
    pub problem: Problem,
}

/// What is wrong with a price table. A command given one should stop with exit 2 (the
/// user's input is wrong), before emitting anything.
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    #[error("cannot read it: {0}")]
    Io(std::io::Error),
    #[error("larger than {MAX_FILE_BYTES} bytes, so not a price table (LiteLLM's is a few MB)")]
    TooLarge,
    /// Not JSON, or JSON of another shape (an array, an entry that is no object), with the
    /// key being read, if any, and serde_json's line and column.
    #[error("not in LiteLLM's format: {}{error}", at_key(key.as_deref()))]
    Json {
        key: Option<String>,
        error: serde_json::Error,
    },
    #[error("not in LiteLLM's format: no entry has both `input_cost_per_token` and `output_cost_per_token`")]
    NothingPriced,
    /// A price that cannot be one. `key` is shown quoted and escaped (a key is anyone's text).
    #[error("key {key}: `{field}` is {fault}")]
    Price {
        key: String,
        field: String,
        fault: Fault,
    },
}

/// Why a price is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// What it is instead: "a string", "a boolean", "an array", "an object".
    #[error("{0}, not a number")]
    NotANumber(&'static str),
    #[error("negative ({0})")]
    Negative(String),
    #[error("beyond any finite number ({0})")]
    NotFinite(String),
}

fn at_key(key: Option<&str>) -> String {
    key.map_or_else(String::new, |k| format!("at key {}: ", shown(k)))
}

/// A key as an error shows it: quoted and escaped, and cut to 80 characters (a hostile file's
/// key may be megabytes of anything).
fn shown(key: &str) -> String {
    const MAX: usize = 80;
    match key.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{:?}...", &key[..cut]),
        None => format!("{key:?}"),
    }
}

impl PriceTable {
    /// Reads the table at `path`, at most [`MAX_FILE_BYTES`] of it.
    pub fn read(path: &Path) -> Result<PriceTable, PriceError> {
        let error = |problem| PriceError {
            path: path.to_owned(),
            problem,
        };
        let file = std::fs::File::open(path).map_err(|e| error(Problem::Io(e)))?;
        // A regular file's size says it before any byte is read; `take` bounds the others.
        if file.metadata().is_ok_and(|m| m.len() > MAX_FILE_BYTES) {
            return Err(error(Problem::TooLarge));
        }
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| error(Problem::Io(e)))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(error(Problem::TooLarge));
        }
        PriceTable::from_json(&bytes).map_err(error)
    }

    /// Reads a table from the bytes of a LiteLLM price file (or a snapshot built in).
    pub fn from_json(bytes: &[u8]) -> Result<PriceTable, Problem> {
        let mut state = State {
            table: PriceTable::default(),
            key: None,
            problem: None,
        };
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let parsed = TableSeed(&mut state)
            .deserialize(&mut de)
            .and_then(|()| de.end());
        if let Some(problem) = state.problem {
            return Err(problem);
        }
        if let Err(error) = parsed {
            return Err(Problem::Json {
                key: state.key,
                error,
            });
        }
        if state.table.entries.is_empty() {
            return Err(Problem::NothingPriced);
        }
        Ok(state.table)
    }

    /// How many entries are priced.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The prices of exactly this key.
    pub fn get(&self, key: &str) -> Option<&Prices> {
        self.index.get(key).map(|&i| &self.entries[i].prices)
    }

    /// The priced keys, in the file's order (a key given twice where it first stood).
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| &*e.key)
    }

    /// The entry of exactly this key, for the matching rule.
    pub(super) fn entry(&self, key: &str) -> Option<&Entry> {
        self.index.get(key).map(|&i| &self.entries[i])
    }

    fn insert(&mut self, key: String, prices: Prices) {
        let lower = key.to_ascii_lowercase();
        let normal = super::matching::normalized(&lower).into_owned();
        let entry = Entry {
            key: key.into(),
            dotted: normal != lower,
            lower: lower.into(),
            normal: normal.into(),
            prices,
        };
        match self.index.get(&entry.key) {
            Some(&i) => self.entries[i] = entry,
            None => {
                self.index.insert(entry.key.clone(), self.entries.len());
                self.entries.push(entry);
            }
        }
    }
}

/// The parse's state: the table so far, the key being read (for errors), and a refused price,
/// which aborts the parse through serde's error and is then reported as itself.
struct State {
    table: PriceTable,
    key: Option<String>,
    problem: Option<Problem>,
}

impl State {
    fn refuse<E: de::Error>(&mut self, field: &str, fault: Fault) -> E {
        self.problem = Some(Problem::Price {
            key: shown(self.key.as_deref().unwrap_or_default()),
            field: field.to_owned(),
            fault,
        });
        E::custom("refused price")
    }
}

struct TableSeed<'s>(&'s mut State);

impl<'de> DeserializeSeed<'de> for TableSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TableSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object of model keys")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            let state = &mut *self.0;
            if key == "sample_spec" {
                state.key = Some(key);
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            state.key = Some(key);
            let prices = map.next_value_seed(EntrySeed(state))?;
            if let (Some(prices), Some(key)) = (prices, state.key.take()) {
                state.table.insert(key, prices);
            }
        }
        self.0.key = None;
        Ok(())
    }
}

/// One entry: `Some` prices if its input and output prices are given.
struct EntrySeed<'s>(&'s mut State);

impl<'de> DeserializeSeed<'de> for EntrySeed<'_> {
    type Value = Option<Prices>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Prices>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EntrySeed<'_> {
    type Value = Option<Prices>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an entry of LiteLLM's table (an object of prices)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Prices>, A::Error> {
        // (kind, tier threshold or None for the base, rate), in the file's order.
        let mut rates: Vec<(Kind, Option<u64>, f64)> = Vec::new();
        while let Some(field) = map.next_key_seed(FieldSeed)? {
            let Some((name, kind, above)) = field else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let raw: &RawValue = map.next_value()?;
            match price(raw.get()) {
                Ok(Some(rate)) => rates.push((kind, above, rate)),
                Ok(None) => {}
                Err(fault) => return Err(self.0.refuse(&name, fault)),
            }
        }
        Ok(prices(&rates))
    }
}

/// The prices of an entry's rates, or `None` if its base input or output price is missing.
fn prices(rates: &[(Kind, Option<u64>, f64)]) -> Option<Prices> {
    let mut base = Rates::default();
    for &(kind, above, rate) in rates {
        if above.is_none() {
            // A field given twice: the last, as Python's `json` keeps it.
            base.set(kind, rate);
        }
    }
    base.get(Kind::Input)?;
    base.get(Kind::Output)?;
    let mut thresholds: Vec<u64> = rates.iter().filter_map(|r| r.1).collect();
    thresholds.sort_unstable();
    thresholds.dedup();
    let mut tiers: Vec<Tier> = Vec::with_capacity(thresholds.len());
    for above in thresholds {
        let mut tier = Tier {
            above,
            rates: tiers.last().map_or(base, |t| t.rates),
        };
        for &(kind, at, rate) in rates {
            if at == Some(above) {
                tier.rates.set(kind, rate);
            }
        }
        tiers.push(tier);
    }
    Some(Prices { base, tiers })
}

/// A price's JSON text as a rate: `Ok(None)` for `null` (absent, as LiteLLM reads it).
fn price(text: &str) -> Result<Option<f64>, Fault> {
    let what = match text.as_bytes().first() {
        Some(b'"') => "a string",
        Some(b't' | b'f') => "a boolean",
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        Some(b'n') => return Ok(None),
        // serde_json checked the number's syntax; Rust's parse rounds it correctly (and reads
        // `1e999` as infinity, refused below).
        _ => {
            let rate: f64 = text.parse().map_err(|_| Fault::NotANumber("no number"))?;
            return if !rate.is_finite() {
                Err(Fault::NotFinite(text.to_owned()))
            } else if rate < 0.0 {
                Err(Fault::Negative(text.to_owned()))
            } else {
                Ok(Some(rate))
            };
        }
    };
    Err(Fault::NotANumber(what))
}

/// A field's name: `Some((name, kind, tier))` for a price field read, `None` for the others.
struct FieldSeed;

type Field = Option<(String, Kind, Option<u64>)>;

impl<'de> DeserializeSeed<'de> for FieldSeed {
    type Value = Field;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Field, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for FieldSeed {
    type Value = Field;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Field, E> {
        Ok(field(name).map(|(kind, above)| (name.to_owned(), kind, above)))
    }
}

/// A price field's kind and tier: `input_cost_per_token` is `(Input, None)`,
/// `input_cost_per_token_above_200k_tokens` `(Input, Some(200_000))`, and
/// `cache_creation_input_token_cost_above_1hr_above_200k_tokens` `(CacheWrite1h, Some(200_000))`.
fn field(name: &str) -> Option<(Kind, Option<u64>)> {
    if let Some(&kind) = Kind::ALL.iter().find(|k| k.field() == name) {
        return Some((kind, None));
    }
    Kind::ALL.iter().find_map(|&kind| {
        let n = name
            .strip_prefix(kind.field())?
            .strip_prefix("_above_")?
            .strip_suffix("_tokens")?;
        Some((kind, Some(threshold(n)?)))
    })
}

/// `200k` is 200,000 tokens, `128` 128; anything else is no threshold (the field is not read).
fn threshold(n: &str) -> Option<u64> {
    let (digits, scale) = match n.strip_suffix('k') {
        Some(d) => (d, 1000),
        None => (n, 1),
    };
    if digits.is_empty() || digits.len() > 12 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 24 entries cut whole from LiteLLM 1.110.2's table (sha256 8943af58...dcc2; MIT, see
    /// LITELLM-LICENSE): one of each shape the reader meets.
    const SAMPLE: &str = include_str!("litellm-sample.json");

    fn table(json: &str) -> Result<PriceTable, Problem> {
        PriceTable::from_json(json.as_bytes())
    }

    fn problem(json: &str) -> String {
        table(json).unwrap_err().to_string()
    }

    #[test]
    fn sample_reads_priced_entries_only() {
        let t = table(SAMPLE).unwrap();
        assert!(t.get("sample_spec").is_none());
        // Priced per second and per image: no input and output price per token.
        assert!(t.get("azure/gpt-realtime-whisper-2026-05-06").is_none());
        assert!(t
            .get("1024-x-1024/50-steps/bedrock/amazon.nova-canvas-v1:0")
            .is_none());
        // An embedding model with an output price of 0 is priced.
        assert!(t.get("text-embedding-3-small").is_some());
        // Priced only by a `tiered_pricing` list, which is not read: unpriced, not mispriced.
        assert!(t.get("dashscope/qwen-flash").is_none());
        assert_eq!(t.len(), 20);
        let keys: Vec<&str> = t.keys().take(2).collect();
        assert_eq!(keys, ["claude-sonnet-4-5", "claude-sonnet-4-5-20250929"]);
    }

    #[test]
    fn sample_rates_and_tiers() {
        let t = table(SAMPLE).unwrap();
        let opus = t.get("claude-opus-4-6").unwrap();
        assert_eq!(opus.base.get(Kind::Input), Some(5e-06));
        assert_eq!(opus.base.get(Kind::Output), Some(2.5e-05));
        assert_eq!(opus.base.get(Kind::CacheRead), Some(5e-07));
        assert_eq!(opus.base.get(Kind::CacheWrite), Some(6.25e-06));
        assert_eq!(opus.base.get(Kind::CacheWrite1h), Some(1e-05));
        assert!(opus.tiers.is_empty());

        let gemini = t.get("gemini-2.5-pro").unwrap();
        assert_eq!(gemini.base.get(Kind::CacheWrite), None);
        assert_eq!(gemini.tiers.len(), 1);
        let tier = gemini.tiers[0];
        assert_eq!(tier.above, 200_000);
        assert_eq!(tier.rates.get(Kind::Input), Some(2.5e-06));
        assert_eq!(tier.rates.get(Kind::Output), Some(1.5e-05));
        assert_eq!(tier.rates.get(Kind::CacheRead), Some(2.5e-07));
        // Given only above 200k: the tier has it, the base not.
        assert_eq!(tier.rates.get(Kind::CacheWrite), Some(2.5e-07));

        // `_batches`, `_flex`, `_priority` variants are not tiers.
        let gpt = t.get("gpt-5.4").unwrap();
        assert_eq!(gpt.tiers.len(), 1);
        assert_eq!(gpt.tiers[0].above, 272_000);
        assert_eq!(gpt.tiers[0].rates.get(Kind::Input), Some(5e-06));
        assert_eq!(gpt.base.get(Kind::Input), Some(2.5e-06));

        // The one-hour write has tiers of its own.
        let bedrock = t
            .get("us.anthropic.claude-sonnet-4-5-20250929-v1:0")
            .unwrap();
        let above = bedrock.tiers.iter().find(|t| t.above == 200_000).unwrap();
        assert!(above.rates.get(Kind::CacheWrite1h) > bedrock.base.get(Kind::CacheWrite1h));

        // An explicit 0 is a price.
        let glm = t.get("zai/glm-4.6").unwrap();
        assert_eq!(glm.base.get(Kind::CacheWrite), Some(0.0));
    }

    #[test]
    fn tiers_inherit_from_the_tier_below() {
        let t = table(
            r#"{"m": {"input_cost_per_token": 1, "output_cost_per_token": 2,
                "cache_read_input_token_cost": 0.5,
                "input_cost_per_token_above_100_tokens": 3,
                "output_cost_per_token_above_1k_tokens": 4}}"#,
        )
        .unwrap();
        let p = t.get("m").unwrap();
        let tiers: Vec<(u64, [Option<f64>; 3])> = p
            .tiers
            .iter()
            .map(|t| {
                let r = t.rates;
                (
                    t.above,
                    [
                        r.get(Kind::Input),
                        r.get(Kind::Output),
                        r.get(Kind::CacheRead),
                    ],
                )
            })
            .collect();
        assert_eq!(
            tiers,
            [
                (100, [Some(3.0), Some(2.0), Some(0.5)]),
                (1000, [Some(3.0), Some(4.0), Some(0.5)]),
            ]
        );
    }

    #[test]
    fn field_names() {
        assert_eq!(field("input_cost_per_token"), Some((Kind::Input, None)));
        assert_eq!(
            field("cache_creation_input_token_cost_above_1hr"),
            Some((Kind::CacheWrite1h, None))
        );
        assert_eq!(
            field("cache_creation_input_token_cost_above_1hr_above_200k_tokens"),
            Some((Kind::CacheWrite1h, Some(200_000)))
        );
        assert_eq!(
            field("cache_read_input_token_cost_above_128_tokens"),
            Some((Kind::CacheRead, Some(128)))
        );
        for other in [
            "input_cost_per_token_batches",
            "input_cost_per_token_above_200k_tokens_priority",
            "input_cost_per_token_above_1.5k_tokens",
            "input_cost_per_token_above_k_tokens",
            "input_cost_per_token_above_99999999999999k_tokens",
            "input_cost_per_character",
            "output_cost_per_image_token",
        ] {
            assert_eq!(field(other), None, "{other}");
        }
    }

    #[test]
    fn skipped_rows_and_null() {
        let t = table(
            r#"{"sample_spec": {"input_cost_per_token": "USD", "output_cost_per_token": 0.0},
                "no-output": {"input_cost_per_token": 1e-6},
                "null-output": {"input_cost_per_token": 1e-6, "output_cost_per_token": null},
                "ok": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6,
                       "cache_read_input_token_cost": null, "extra": {"deep": [1, "x"]}}}"#,
        )
        .unwrap();
        assert_eq!(t.keys().collect::<Vec<_>>(), ["ok"]);
        assert_eq!(t.get("ok").unwrap().base.get(Kind::CacheRead), None);
    }

    #[test]
    fn last_of_a_repeated_key_or_field_wins() {
        let t = table(
            r#"{"a": {"input_cost_per_token": 1, "output_cost_per_token": 1},
                "b": {"input_cost_per_token": 5, "output_cost_per_token": 5},
                "a": {"input_cost_per_token": 2, "output_cost_per_token": 3, "output_cost_per_token": 4}}"#,
        )
        .unwrap();
        assert_eq!(t.keys().collect::<Vec<_>>(), ["a", "b"]);
        let a = t.get("a").unwrap().base;
        assert_eq!(
            (a.get(Kind::Input), a.get(Kind::Output)),
            (Some(2.0), Some(4.0))
        );
    }

    #[test]
    fn bad_prices_name_key_and_field() {
        assert_eq!(
            problem(
                r#"{"m\u0007x": {"input_cost_per_token": "3e-06", "output_cost_per_token": 1}}"#
            ),
            "key \"m\\u{7}x\": `input_cost_per_token` is a string, not a number"
        );
        assert_eq!(
            problem(r#"{"m": {"input_cost_per_token": 1, "output_cost_per_token": -1e-6}}"#),
            "key \"m\": `output_cost_per_token` is negative (-1e-6)"
        );
        assert_eq!(
            problem(r#"{"m": {"input_cost_per_token": 1, "output_cost_per_token": 1, "cache_read_input_token_cost_above_200k_tokens": 1e999}}"#),
            "key \"m\": `cache_read_input_token_cost_above_200k_tokens` is beyond any finite number (1e999)"
        );
        for (value, what) in [
            ("true", "a boolean"),
            ("[1]", "an array"),
            ("{}", "an object"),
        ] {
            let json = format!(r#"{{"m": {{"cache_read_input_token_cost": {value}}}}}"#);
            assert_eq!(
                problem(&json),
                format!("key \"m\": `cache_read_input_token_cost` is {what}, not a number")
            );
        }
        // A row skipped for its missing output price still has its prices checked.
        assert!(problem(r#"{"m": {"input_cost_per_token": -1}}"#).contains("negative"));
        // A long key is cut.
        let long = "k".repeat(1000);
        let msg = problem(&format!(
            r#"{{"{long}": {{"input_cost_per_token": false}}}}"#
        ));
        assert!(msg.len() < 200, "{msg}");
        // Other fields are not prices: not checked.
        table(r#"{"m": {"input_cost_per_token": 1, "output_cost_per_token": 1, "input_cost_per_image": "x", "max_tokens": -5}}"#).unwrap();
    }

    #[test]
    fn wrong_shapes() {
        for (json, says) in [
            ("[]", "not in LiteLLM's format: invalid type: sequence, expected a JSON object of model keys"),
            ("", "not in LiteLLM's format: EOF while parsing"),
            ("{\"a\": 5}", "not in LiteLLM's format: at key \"a\": invalid type: integer `5`, expected an entry of LiteLLM's table"),
            ("{\"a\": {\"input_cost_per_token\": 1, \"output_cost_per_token\": 1}} x", "not in LiteLLM's format: trailing characters"),
            ("{\"a\": {\"input_cost_per_token\": 1,", "not in LiteLLM's format: at key \"a\": EOF while parsing"),
            ("{\"a\": {\"input_cost_per_token\": 01}}", "not in LiteLLM's format: at key \"a\": invalid number"),
            ("{}", "not in LiteLLM's format: no entry has both"),
            ("{\"sample_spec\": {}, \"name\": {\"version\": \"1\"}}", "not in LiteLLM's format: no entry has both"),
        ] {
            let msg = problem(json);
            assert!(msg.starts_with(says), "{json}: {msg}");
        }
        // Deep nesting in a field that is not read is skipped without recursion (serde_json
        // ignores a value with a stack of its own): no stack overflow.
        let deep = format!(
            r#"{{"m": {{"x": {}{}, "input_cost_per_token": 1, "output_cost_per_token": 2}}}}"#,
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert!(table(&deep).unwrap().get("m").is_some());
    }

    #[test]
    fn read_names_the_file_and_bounds_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("prices.json");
        std::fs::write(&path, r#"{"m": {"input_cost_per_token": "x"}}"#).unwrap();
        let e = PriceTable::read(&path).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "price table {}: key \"m\": `input_cost_per_token` is a string, not a number",
                path.display()
            )
        );
        let missing = dir.path().join("missing.json");
        let e = PriceTable::read(&missing).unwrap_err();
        assert!(matches!(e.problem, Problem::Io(_)), "{e}");

        // One byte over the bound: refused without reading further.
        let big = std::fs::File::create(&path).unwrap();
        big.set_len(MAX_FILE_BYTES + 1).unwrap();
        let e = PriceTable::read(&path).unwrap_err();
        assert!(matches!(e.problem, Problem::TooLarge), "{e}");

        std::fs::write(&path, SAMPLE).unwrap();
        assert_eq!(PriceTable::read(&path).unwrap().len(), 20);
    }
}
