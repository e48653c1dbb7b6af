//! What a message's tokens cost at a table's prices, computed as pi computes a cost
//! (`calculateCost` in pi-ai 1.6, `models.js`), with LiteLLM's per-token rates in place of pi's
//! per-million ones:
//! - One tier for the whole request: the one with the highest threshold that the request's
//!   input tokens (`input + cacheRead + cacheWrite`) are strictly above, else the base rates.
//!   It prices every kind of token, output included (pi's rule, and LiteLLM's; not ccusage's
//!   marginal split at 200k).
//! - `input × rate`, `output × rate`, `cacheRead × rate`, and cache writes
//!   `(cacheWrite − cacheWrite1h) × rate + cacheWrite1h × one-hour rate`; the total is their sum,
//!   in that order.
//!
//! The arithmetic is f64, as the table stores its rates and pi its costs: each rate is the
//! decimal the file spells rounded once, each product rounded once, and the sums a few times
//! more, so an estimate is within 1e-15 (relative) of the exact product of the tokens and the
//! file's decimal prices: far below a cent for any real sum.
//!
//! What is not priced stays [`Unpriced`], never $0:
//! - tokens of a kind the table has no rate for (LiteLLM would charge the input rate for a
//!   missing cache rate and ccusage 10% or 125% of it: two guesses, so pisess makes none; pi's
//!   rule of twice the input rate for a one-hour write is Anthropic's and is not assumed either);
//! - counts that are no count (negative, NaN, infinite, or a one-hour write above all writes).
//!
//! A rate of 0 in the table is a price: the tokens are priced at $0.

use pisess_format::model::Usage;

use super::matching::Match;
use super::table::{Kind, Prices, Rates};

/// A message's token counts, as pi records them in `usage`. `cache_write_1h` is the part of
/// `cache_write` written for an hour (pi's `cacheWrite1h`, absent: 0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tokens {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub cache_write_1h: f64,
}

impl From<&Usage> for Tokens {
    /// pisess's [`Usage`] does not keep `cacheWrite1h`: every write is priced at the
    /// five-minute rate (an understatement for sessions that wrote for an hour).
    fn from(u: &Usage) -> Tokens {
        Tokens {
            input: u.input,
            output: u.output,
            cache_read: u.cache_read,
            cache_write: u.cache_write,
            cache_write_1h: 0.0,
        }
    }
}

/// An estimated cost in USD, in pi's parts, and the tier it was priced at. Its own type, so
/// it is never added to pi's recorded cost by mistake.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cost {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total: f64,
    /// The threshold of the tier applied (input tokens above it); `None`: the base rates.
    pub tier: Option<u64>,
}

/// Why a message has no estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unpriced {
    /// No key of the table matches the model ([`PriceTable::find`](super::PriceTable::find)
    /// found none).
    #[error("no price for the model")]
    NoKey,
    /// The message has tokens of this kind and the matched key no rate for them.
    #[error("no `{0}` for its tokens")]
    NoRate(Kind),
    /// A count is negative, not a number or infinite, or the one-hour writes exceed the writes.
    #[error("token counts that are no counts")]
    BadTokens,
}

impl Match<'_> {
    /// [`Prices::estimate`] of the matched key.
    pub fn estimate(&self, tokens: &Tokens) -> Result<Cost, Unpriced> {
        self.prices.estimate(tokens)
    }
}

impl Prices {
    /// The cost of `tokens` at these prices, by the rule in the module doc.
    pub fn estimate(&self, tokens: &Tokens) -> Result<Cost, Unpriced> {
        let t = tokens;
        let counts = [
            t.input,
            t.output,
            t.cache_read,
            t.cache_write,
            t.cache_write_1h,
        ];
        if !counts.iter().all(|c| c.is_finite() && *c >= 0.0) || t.cache_write_1h > t.cache_write {
            return Err(Unpriced::BadTokens);
        }
        let prompt = t.input + t.cache_read + t.cache_write;
        // Tiers rise: the last one the prompt is above.
        #[allow(clippy::cast_precision_loss)] // thresholds are far below 2^53
        let tier = self.tiers.iter().rev().find(|x| prompt > x.above as f64);
        let rates = tier.map_or(&self.base, |x| &x.rates);
        let short_write = t.cache_write - t.cache_write_1h;
        let input = priced(rates, Kind::Input, t.input)?;
        let output = priced(rates, Kind::Output, t.output)?;
        let cache_read = priced(rates, Kind::CacheRead, t.cache_read)?;
        let cache_write = priced(rates, Kind::CacheWrite, short_write)?
            + priced(rates, Kind::CacheWrite1h, t.cache_write_1h)?;
        Ok(Cost {
            input,
            output,
            cache_read,
            cache_write,
            total: input + output + cache_read + cache_write,
            tier: tier.map(|x| x.above),
        })
    }
}

/// `tokens × rate`; no tokens need no rate.
fn priced(rates: &Rates, kind: Kind, tokens: f64) -> Result<f64, Unpriced> {
    if tokens == 0.0 {
        return Ok(0.0);
    }
    rates
        .get(kind)
        .map(|rate| tokens * rate)
        .ok_or(Unpriced::NoRate(kind))
}

#[cfg(test)]
mod tests {
    use super::super::PriceTable;
    use super::*;

    fn sample() -> PriceTable {
        PriceTable::from_json(include_str!("litellm-sample.json").as_bytes()).unwrap()
    }

    fn tokens(input: f64, output: f64, cache_read: f64, cache_write: f64) -> Tokens {
        Tokens {
            input,
            output,
            cache_read,
            cache_write,
            cache_write_1h: 0.0,
        }
    }

    /// The exact decimal product of integer tokens and a decimal rate `mantissa × 10^-exp`,
    /// in units of 10^-24 USD: the reference the f64 estimate is held to.
    fn exact(parts: &[(u64, u128, u32)]) -> f64 {
        let yocto: u128 = parts
            .iter()
            .map(|&(tokens, mantissa, exp)| u128::from(tokens) * mantissa * 10u128.pow(24 - exp))
            .sum();
        #[allow(clippy::cast_precision_loss)]
        let x = yocto as f64 / 1e24;
        x
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= b.abs() * 1e-15
    }

    #[test]
    fn claude_sonnet_as_pi_prices_it() {
        let t = sample();
        let m = t.find(Some("anthropic"), "claude-sonnet-4-5").unwrap();
        let c = m
            .estimate(&tokens(1200.0, 350.0, 40_000.0, 2_000.0))
            .unwrap();
        // pi's catalogue: 3, 15, 0.3, 3.75 USD per million.
        assert_eq!(c.input, 1200.0 * 3e-06);
        assert_eq!(c.output, 350.0 * 1.5e-05);
        assert_eq!(c.cache_read, 40_000.0 * 3e-07);
        assert_eq!(c.cache_write, 2_000.0 * 3.75e-06);
        assert_eq!(c.total, c.input + c.output + c.cache_read + c.cache_write);
        assert_eq!(c.tier, None);
        let want = exact(&[(1200, 3, 6), (350, 15, 6), (40_000, 3, 7), (2_000, 375, 8)]);
        assert!(close(c.total, want), "{} {want}", c.total);
        assert!((c.total - 0.028_35).abs() < 1e-12);
    }

    #[test]
    fn one_tier_for_the_whole_request_strictly_above() {
        let t = sample();
        let p = t.get("gemini-2.5-pro").unwrap();
        // 200,000 input tokens in all: not above 200k, base rates.
        let at = p
            .estimate(&tokens(150_000.0, 1000.0, 50_000.0, 0.0))
            .unwrap();
        assert_eq!(at.tier, None);
        assert_eq!(at.output, 1000.0 * 1e-05);
        assert_eq!(at.input, 150_000.0 * 1.25e-06);
        // One more cache read and every kind, output too, is priced at the tier.
        let above = p
            .estimate(&tokens(150_000.0, 1000.0, 50_001.0, 0.0))
            .unwrap();
        assert_eq!(above.tier, Some(200_000));
        assert_eq!(above.output, 1000.0 * 1.5e-05);
        assert_eq!(above.input, 150_000.0 * 2.5e-06);
        assert_eq!(above.cache_read, 50_001.0 * 2.5e-07);
        // Output tokens do not count toward the threshold.
        let out = p.estimate(&tokens(100.0, 500_000.0, 0.0, 0.0)).unwrap();
        assert_eq!(out.tier, None);
    }

    #[test]
    fn the_highest_tier_passed() {
        let t = PriceTable::from_json(
            br#"{"m": {"input_cost_per_token": 1, "output_cost_per_token": 1,
                "input_cost_per_token_above_1k_tokens": 2,
                "input_cost_per_token_above_10k_tokens": 3,
                "output_cost_per_token_above_10k_tokens": 4}}"#,
        )
        .unwrap();
        let p = t.get("m").unwrap();
        let at = |input: f64| {
            let c = p.estimate(&tokens(input, 1.0, 0.0, 0.0)).unwrap();
            (c.tier, c.input / input, c.output)
        };
        assert_eq!(at(1000.0), (None, 1.0, 1.0));
        assert_eq!(at(1001.0), (Some(1000), 2.0, 1.0));
        assert_eq!(at(10_001.0), (Some(10_000), 3.0, 4.0));
    }

    #[test]
    fn missing_rates_leave_it_unpriced_never_zero() {
        let t = sample();
        // deepseek-chat has no cache-write price.
        let p = t.get("deepseek-chat").unwrap();
        assert_eq!(
            p.estimate(&tokens(10.0, 10.0, 10.0, 5.0)),
            Err(Unpriced::NoRate(Kind::CacheWrite))
        );
        // No cache-write tokens: no rate needed.
        assert!(p.estimate(&tokens(10.0, 10.0, 10.0, 0.0)).is_ok());
        // gemini-2.5-pro prices cache writes only above 200k.
        let g = t.get("gemini-2.5-pro").unwrap();
        assert_eq!(
            g.estimate(&tokens(10.0, 0.0, 0.0, 5.0)),
            Err(Unpriced::NoRate(Kind::CacheWrite))
        );
        assert!(g.estimate(&tokens(200_000.0, 0.0, 0.0, 5.0)).is_ok());
        // An explicit 0 is a price.
        let glm = t.get("zai/glm-4.6").unwrap();
        let c = glm.estimate(&tokens(0.0, 0.0, 0.0, 100.0)).unwrap();
        assert_eq!(c.total, 0.0);
    }

    #[test]
    fn one_hour_writes() {
        let t = sample();
        let p = t.get("claude-opus-4-6").unwrap();
        let c = p
            .estimate(&Tokens {
                cache_write: 1000.0,
                cache_write_1h: 400.0,
                ..Tokens::default()
            })
            .unwrap();
        assert_eq!(c.cache_write, 600.0 * 6.25e-06 + 400.0 * 1e-05);
        // gpt-5 has no one-hour rate: unpriced, not guessed.
        let g = t.get("gpt-5").unwrap();
        let one_hour = Tokens {
            input: 5.0,
            cache_write: 10.0,
            cache_write_1h: 10.0,
            ..Tokens::default()
        };
        assert_eq!(
            g.estimate(&one_hour),
            Err(Unpriced::NoRate(Kind::CacheWrite1h))
        );
    }

    #[test]
    fn counts_that_are_no_counts() {
        let t = sample();
        let p = t.get("claude-sonnet-4-5").unwrap();
        for bad in [
            tokens(-1.0, 0.0, 0.0, 0.0),
            tokens(f64::NAN, 0.0, 0.0, 0.0),
            tokens(0.0, f64::INFINITY, 0.0, 0.0),
            Tokens {
                cache_write: 1.0,
                cache_write_1h: 2.0,
                ..Tokens::default()
            },
        ] {
            assert_eq!(p.estimate(&bad), Err(Unpriced::BadTokens), "{bad:?}");
        }
        let zero = p.estimate(&Tokens::default()).unwrap();
        assert_eq!(zero.total, 0.0);
    }

    #[test]
    fn from_usage_keeps_pi_cost_out() {
        let u = Usage {
            input: 1.0,
            output: 2.0,
            cache_read: 3.0,
            cache_write: 4.0,
            cost: 99.0,
            ..Usage::default()
        };
        assert_eq!(Tokens::from(&u), tokens(1.0, 2.0, 3.0, 4.0));
    }

    /// A JSON number's text as `(digits, exponent)`: `2.5e-06` is `(25, 7)`, 25 × 10^-7.
    fn decimal(text: &str) -> (u128, u32) {
        let (m, e) = text.split_once(['e', 'E']).unwrap_or((text, "0"));
        let (whole, frac) = m.split_once('.').unwrap_or((m, ""));
        let digits: u128 = format!("{whole}{frac}").parse().unwrap();
        let exp = i64::try_from(frac.len()).unwrap() - e.parse::<i64>().unwrap();
        (digits, u32::try_from(exp).unwrap())
    }

    #[test]
    fn exact_to_the_decimal_on_every_sample_entry() {
        // Every priced sample key: the estimate is the exact product of the tokens and the
        // decimal the file spells, up to f64's own rounding.
        use serde_json::value::RawValue;
        let raw: std::collections::HashMap<
            String,
            std::collections::HashMap<String, Box<RawValue>>,
        > = serde_json::from_str(include_str!("litellm-sample.json")).unwrap();
        let t = sample();
        let n = (123_457, 9_876, 3_001);
        for key in t.keys() {
            let fields = &raw[key];
            let rate = |f: &str| decimal(fields[f].get());
            let (i, o) = (rate("input_cost_per_token"), rate("output_cost_per_token"));
            let mut parts = vec![(n.0, i.0, i.1), (n.1, o.0, o.1)];
            let mut count = tokens(123_457.0, 9_876.0, 0.0, 0.0);
            if let Some(r) = fields.get("cache_read_input_token_cost") {
                let r = decimal(r.get());
                parts.push((n.2, r.0, r.1));
                count.cache_read = 3_001.0;
            }
            let c = t.get(key).unwrap().estimate(&count).unwrap();
            assert_eq!(c.tier, None, "{key}");
            let want = exact(&parts);
            assert!(close(c.total, want), "{key}: {} {want}", c.total);
        }
    }
}
