//! Prices for usage pi recorded as free: pi writes `cost.total: 0` for every model its registry
//! cannot price, so pisess estimates what such usage cost from a price table in LiteLLM's format
//! (`model_prices_and_context_window.json`, the table ccusage prices from), given by the user.
//!
//! Three steps, each its own type, so that an estimate can never pass for pi's recorded cost:
//! - [`PriceTable::read`] reads the table: per-token USD rates for input, output, cache read,
//!   cache write (and Anthropic's one-hour cache write), with LiteLLM's `_above_<N>k_tokens`
//!   tiers. A file that is not LiteLLM's shape, a negative, non-numeric or non-finite price, is a
//!   [`PriceError`] naming the file, the key and the field ([`table`]).
//! - [`PriceTable::find`] matches pi's `(provider, model)` to one key and says which key won and
//!   by which step of the rule ([`Match`], [`matching`]): `provider/model`, then LiteLLM's prefix
//!   for pi's provider, then the bare model, then a containment rule within punctuation.
//! - [`Prices::estimate`] prices one message's tokens as pi prices them: one tier for the whole
//!   request, chosen by its input tokens ([`estimate`]). Tokens the table has no rate for leave
//!   the message [`Unpriced`], never $0.
//!
//! The estimate is a [`Cost`] of its own, returned beside pi's recorded cost and never added to
//! it: pi's `cost` stays pi's. Only usage pi recorded at cost 0 is estimated
//! ([`Tokens::left_unpriced`]), so `recorded + estimated` counts each token once; [`Estimated`]
//! adds estimates up with what was left unpriced beside them ([`total`]).
//!
//! docs/prices.md is the user's account of the same rules.

pub mod estimate;
pub mod matching;
pub mod table;
pub mod total;

pub use estimate::{Cost, Tokens, Unpriced};
pub use matching::{Match, MatchedBy};
pub use table::{Fault, Kind, PriceError, PriceTable, Prices, Problem, Rates, Tier};
pub use total::Estimated;
