//! `--prices FILE` for the commands that show or judge cost (`stats`, `check`): the usage pi
//! recorded at cost 0 estimated from a LiteLLM price table ([`pisess_store::prices`]), kept
//! beside pi's recorded cost and never added into it (docs/prices.md).
//!
//! The rows come from the tally ([`Tally`]), which interns each session's models: a session's
//! models are matched once each, and each distinct `(provider, model)` of the whole run is
//! looked up in the table once ([`Pricer`]), since the rule's last step searches every key.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use pisess_store::prices::{Cost, Estimated, Match, MatchedBy, PriceTable, Tokens, Unpriced};
use pisess_store::tally::{ModelKey, Row, Tally};
use pisess_store::util::usage::UsageError;

/// A read price table, and the key each `(provider, model)` met so far matched (or none).
#[derive(Debug)]
pub struct Pricer {
    table: PriceTable,
    /// The file, as reports name it.
    pub path: PathBuf,
    /// Keyed by pi's provider and model; the value is the key found and how. Behind a lock:
    /// `stats` shares one pricer among the threads that read sessions.
    memo: Mutex<hashbrown::HashMap<(Option<String>, String), Found>>,
}

/// The key a model matched, and by which step; `None`: no key.
type Found = Option<(String, MatchedBy)>;

/// One message's estimate: its tokens (pi recorded them at cost 0), and their cost at the
/// table's prices or why they have none.
pub type Estimate<'t> = (Tokens, Result<(Cost, Match<'t>), Unpriced>);

impl Pricer {
    /// Reads `--prices FILE`; a file that is no price table is the user's mistake (exit 2),
    /// said on one line naming the file.
    pub fn read(path: &Path) -> anyhow::Result<Pricer> {
        let table = PriceTable::read(path).map_err(|e| UsageError(format!("--prices: {e}")))?;
        Ok(Pricer {
            table,
            path: path.to_owned(),
            memo: Mutex::default(),
        })
    }

    /// The match of each of a tally's models, by [`Row::model`]'s index.
    pub fn models(&self, t: &Tally) -> Vec<Option<Match<'_>>> {
        t.models.iter().map(|m| self.find(m)).collect()
    }

    fn find(&self, m: &ModelKey) -> Option<Match<'_>> {
        // Tool results, compactions and branch summaries name no model: nothing prices them.
        let model = m.model.as_deref()?;
        let memo_key = (m.provider.clone(), model.to_owned());
        let found = {
            let mut memo = self
                .memo
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            memo.entry(memo_key)
                .or_insert_with(|| {
                    self.table
                        .find(m.provider.as_deref(), model)
                        .map(|x| (x.key.to_owned(), x.by))
                })
                .clone()
        };
        let (key, by) = found?;
        self.table.matched(&key, by)
    }
}

/// The estimate of one row, given its tally's [`Pricer::models`]; `None` when there is
/// nothing to estimate (pi priced the usage, or there is none).
pub fn estimate<'t>(matches: &[Option<Match<'t>>], r: &Row) -> Option<Estimate<'t>> {
    let tokens = Tokens::left_unpriced(r.usage.as_ref()?)?;
    let found = r
        .model
        .and_then(|i| matches.get(i as usize).copied().flatten());
    let cost = match found {
        Some(m) => m.estimate(&tokens).map(|c| (c, m)),
        None => Err(Unpriced::NoKey),
    };
    Some((tokens, cost))
}

/// Adds one row's estimate to a total.
pub fn add(total: &mut Estimated, e: &Estimate) {
    total.add(&e.0, &e.1.map(|(c, _)| c));
}

/// The estimates of a tally's rows, added up.
pub fn total(pricer: &Pricer, t: &Tally) -> Estimated {
    let matches = pricer.models(t);
    let mut total = Estimated::default();
    for e in t.rows.iter().filter_map(|r| estimate(&matches, r)) {
        add(&mut total, &e);
    }
    total
}

/// The estimate fields a JSON row gains with `--prices` (docs/json.md).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EstimateJson {
    /// The table's price of the usage pi recorded at cost 0; never part of `cost`.
    pub estimated_cost: f64,
    /// Messages (usage records) it prices.
    pub estimated_messages: u64,
    /// Usage records pi recorded at cost 0 that the table does not price either, and their
    /// tokens: while there are any, `estimatedCost` is a lower bound.
    pub unestimated_messages: u64,
    pub unestimated_tokens: f64,
}

impl From<&Estimated> for EstimateJson {
    fn from(e: &Estimated) -> EstimateJson {
        EstimateJson {
            estimated_cost: e.cost,
            estimated_messages: e.priced,
            unestimated_messages: e.unpriced,
            unestimated_tokens: e.unpriced_tokens,
        }
    }
}

/// An estimate for people: `~$1.23`, marked `+` (at least) while some usage stays unpriced;
/// `-` when there was nothing to estimate.
pub fn shown(e: &Estimated) -> String {
    if e.priced == 0 {
        // Nothing priced is no estimate of $0.
        let none = if e.unpriced == 0 { "-" } else { "unpriced" };
        return none.to_owned();
    }
    let mark = if e.is_complete() {
        ""
    } else {
        crate::views::style::UNPRICED
    };
    format!("~{}{mark}", crate::views::style::cost(e.cost))
}

/// The legend under a report with estimates: where they come from, and what stays unpriced.
pub fn legend(pricer: &Pricer, e: &Estimated) -> String {
    let mut s = format!(
        "~ estimated from {} for {} pi recorded at $0.00",
        crate::views::style::escape_control(&pricer.path.display().to_string(), false),
        messages(e.priced)
    );
    if !e.is_complete() {
        let tokens = if e.unpriced_tokens.is_nan() {
            "a count of tokens not a number".to_owned()
        } else {
            format!("{} tokens", crate::views::style::tokens(e.unpriced_tokens))
        };
        s.push_str(&format!(
            "; {} at least: {} ({tokens}) it has no price for",
            crate::views::style::UNPRICED,
            messages(e.unpriced),
        ));
    }
    s
}

fn messages(n: u64) -> String {
    if n == 1 {
        "1 message".to_owned()
    } else {
        format!("{n} messages")
    }
}

/// A session's estimates per model, keyed as [`Tally::per_model`] names its models.
pub fn per_model(pricer: &Pricer, t: &Tally) -> hashbrown::HashMap<String, Estimated> {
    let matches = pricer.models(t);
    let mut out: hashbrown::HashMap<String, Estimated> = hashbrown::HashMap::new();
    for r in &t.rows {
        if let Some(e) = estimate(&matches, r) {
            let name = t.model_name(r.model).unwrap_or_else(|| "(no model)".into());
            add(out.entry(name).or_default(), &e);
        }
    }
    out
}
