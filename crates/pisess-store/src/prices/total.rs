//! Estimates added up for a report, kept apart from pi's recorded cost and from what the table
//! could not price, so that `recorded + estimated` counts each token once and an unpriced
//! token is never counted as $0.
//!
//! Which usage to estimate: only what pi recorded at cost 0 ([`Tokens::left_unpriced`], the
//! usage pisess already counts as unpriced, `Usage::unpriced`). Usage pi priced keeps pi's
//! figure: estimating it as well would count it twice in `recorded + estimated`.

use pisess_format::model::Usage;

use super::estimate::{Cost, Tokens, Unpriced};

impl Tokens {
    /// The tokens of a usage pi did not price (a cost of 0 with tokens), to be estimated;
    /// `None` for usage pi priced, or without tokens.
    pub fn left_unpriced(usage: &Usage) -> Option<Tokens> {
        // NaN (a count that is no number) is not 0: estimated, and found to be no count.
        (usage.unpriced != 0.0).then(|| Tokens::from(usage))
    }
}

/// The estimates of many messages: the sum of those priced, and how much was left unpriced.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Estimated {
    /// The priced estimates' total, USD.
    pub cost: f64,
    /// Messages the table priced.
    pub priced: u64,
    /// Messages it did not ([`Unpriced`]): the cost is a lower bound while there are any.
    pub unpriced: u64,
    /// Their tokens: each count above 0 (a negative one does not cancel the others), NaN if
    /// some count is no number, as `Usage::unpriced` counts them.
    pub unpriced_tokens: f64,
}

impl Estimated {
    /// Adds one message's estimate.
    pub fn add(&mut self, tokens: &Tokens, estimate: &Result<Cost, Unpriced>) {
        match estimate {
            Ok(cost) => {
                self.cost += cost.total;
                self.priced += 1;
            }
            Err(_) => {
                self.unpriced += 1;
                self.unpriced_tokens += [
                    tokens.input,
                    tokens.output,
                    tokens.cache_read,
                    tokens.cache_write,
                ]
                .iter()
                .map(|&c| if c.is_nan() { c } else { c.max(0.0) })
                .sum::<f64>();
            }
        }
    }

    /// Adds another total (a session's to a project's).
    pub fn merge(&mut self, other: &Estimated) {
        self.cost += other.cost;
        self.priced += other.priced;
        self.unpriced += other.unpriced;
        self.unpriced_tokens += other.unpriced_tokens;
    }

    /// Whether every message estimated was priced: the cost is the whole estimate, not a
    /// lower bound.
    pub fn is_complete(&self) -> bool {
        self.unpriced == 0
    }
}

#[cfg(test)]
mod tests {
    use super::super::Kind;
    use super::*;

    /// A usage as pisess reads it from pi's JSON.
    fn usage(json: &str) -> Usage {
        let raw: Box<serde_json::value::RawValue> = serde_json::from_str(json).unwrap();
        Usage::from_raw(&raw).unwrap()
    }

    #[test]
    fn only_usage_pi_left_unpriced_is_estimated() {
        let priced = usage(r#"{"input":10,"output":5,"cost":{"total":0.01}}"#);
        assert_eq!(Tokens::left_unpriced(&priced), None);
        let empty = usage(r#"{"input":0,"output":0,"cost":{"total":0}}"#);
        assert_eq!(Tokens::left_unpriced(&empty), None);
        let free =
            usage(r#"{"input":10,"output":5,"cacheRead":1,"cacheWrite":2,"cost":{"total":0}}"#);
        let t = Tokens::left_unpriced(&free).unwrap();
        assert_eq!(
            (t.input, t.output, t.cache_read, t.cache_write),
            (10.0, 5.0, 1.0, 2.0)
        );
        // A count that is no number: estimated, and found to be no count.
        let odd = usage(r#"{"input":"5","output":1,"cost":{"total":0}}"#);
        let t = Tokens::left_unpriced(&odd).unwrap();
        assert!(t.input.is_nan());
    }

    #[test]
    fn priced_and_unpriced_are_added_apart() {
        let cost = |total| Cost {
            total,
            ..Cost::default()
        };
        let t = Tokens {
            input: 100.0,
            output: -5.0,
            cache_read: 7.0,
            ..Tokens::default()
        };
        let mut a = Estimated::default();
        assert!(a.is_complete());
        a.add(&t, &Ok(cost(0.25)));
        a.add(&t, &Ok(cost(0.5)));
        assert!(a.is_complete());
        a.add(&t, &Err(Unpriced::NoKey));
        a.add(&t, &Err(Unpriced::NoRate(Kind::CacheRead)));
        assert_eq!(
            (a.cost, a.priced, a.unpriced, a.unpriced_tokens),
            (0.75, 2, 2, 214.0)
        );
        assert!(!a.is_complete());

        let mut b = Estimated::default();
        let nan = Tokens {
            input: f64::NAN,
            ..Tokens::default()
        };
        b.add(&nan, &Err(Unpriced::BadTokens));
        b.merge(&a);
        assert_eq!((b.cost, b.priced, b.unpriced), (0.75, 2, 3));
        assert!(b.unpriced_tokens.is_nan());
    }
}
