//! Which key of the table prices a pi model: pi records a `provider` (`anthropic`,
//! `openrouter`, a custom name) and a `model` (`claude-sonnet-4-5`, `z-ai/glm-4.6`), and
//! LiteLLM keys some models bare (`claude-sonnet-4-5`, `gpt-5`) and others by provider
//! (`zai/glm-4.6`, `gemini/gemini-2.5-pro`, `us.anthropic.claude-...-v1:0`).
//!
//! The rule, first step that finds a key wins:
//! 1. [`MatchedBy::Provider`]: the key `provider/model`, exactly (`zai` + `glm-4.6`).
//! 2. [`MatchedBy::ProviderPrefix`]: LiteLLM's prefix for pi's provider where the two names
//!    differ ([`litellm_prefix`]: `google` is `gemini/`, `amazon-bedrock` `bedrock/`...), then
//!    `/model`, exactly.
//! 3. [`MatchedBy::Model`]: the bare model, exactly.
//! 4. Containment within punctuation, ccusage's test: a key is found in the model's name (or
//!    the name in a key) only where the bytes on both sides are not ASCII letters or digits,
//!    and, where the found text ends in a digit, not before `-<digits>` or `.<digits>` unless
//!    those are an 8-digit date (so `claude-sonnet-4` is not found in `claude-sonnet-4-5`, but
//!    `claude-sonnet-4-5` is in `claude-sonnet-4-5-20250929`). Both sides are compared ASCII
//!    lowercased, as they are and with `.` and `@` read as `-` (`claude-opus-4.6` finds
//!    `claude-opus-4-6`).
//!    - [`MatchedBy::InName`]: of the keys found in the name, the longest (the most specific:
//!      `anthropic/claude-sonnet-4.5` is priced by `claude-sonnet-4-5`);
//!    - [`MatchedBy::AroundName`]: only if none is, of the keys the name is found in, the
//!      shortest (the least decorated: `glm-4.6` by `zai/glm-4.6`, not by
//!      `vercel_ai_gateway/zai/glm-4.6`).
//!
//!    Keys of the same length: the smallest by bytes wins, so the rule never depends on the
//!    file's order. A name longer than [`MAX_FUZZY_NAME`] skips this step.
//!
//! Where pisess departs from ccusage, and why:
//! - ccusage takes the longest key of both directions at once. Against pi 1.6's catalogue and
//!   LiteLLM 1.110.2 that prices `openai/gpt-5.4` by `perplexity/openai/gpt-5.4-mini` and
//!   `grok-4.7` by `bedrock_mantle/us-gov-east-1/xai.grok-4.7`; preferring a key in the name,
//!   then the shortest around it, gives `gpt-5.4` and `xai/grok-4.7`, and agrees with pi's own
//!   input and output prices for 268 of the models it fuzzily prices where ccusage's agrees for 225.
//! - Case is folded in step 4 (not in the exact steps): providers spell the same model
//!   `zai-org/GLM-4.7` and `zai-org/glm-4.7`, LiteLLM keys are mixed case (590 of them), and
//!   no two of its keys differ only by case. ccusage does not fold.
//! - pisess knows the provider, so steps 1 and 2 come first; ccusage ignores pi's provider.
//!
//! The fuzzy step can misprice (`gpt-5.3-codex-spark` finds `gpt-5.3-codex`), so a [`Match`]
//! always says its key and step, for the report to show.

use std::borrow::Cow;

use super::table::{Entry, PriceTable, Prices};

/// How a key was found, in the order the rule tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MatchedBy {
    /// `provider/model`.
    Provider,
    /// LiteLLM's prefix for pi's provider, then `/model`.
    ProviderPrefix,
    /// The bare model.
    Model,
    /// The longest key found in the model's name.
    InName,
    /// The shortest key the model's name is found in.
    AroundName,
}

impl MatchedBy {
    /// A name for reports and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchedBy::Provider => "provider",
            MatchedBy::ProviderPrefix => "provider-prefix",
            MatchedBy::Model => "model",
            MatchedBy::InName => "in-name",
            MatchedBy::AroundName => "around-name",
        }
    }

    /// Whether the key is the model's own (steps 1-3), not a likeness (step 4).
    pub fn is_exact(self) -> bool {
        matches!(
            self,
            MatchedBy::Provider | MatchedBy::ProviderPrefix | MatchedBy::Model
        )
    }
}

/// The key that prices a model, how it was found, and its prices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Match<'t> {
    pub key: &'t str,
    pub by: MatchedBy,
    pub prices: &'t Prices,
}

/// LiteLLM's key prefix for a pi provider whose name differs from LiteLLM's (pi 1.6's
/// `KnownProvider` names). Providers LiteLLM names as pi does (`zai`, `xai`, `deepseek`,
/// `mistral`, `groq`, `azure`...) need none: step 1 finds them.
pub fn litellm_prefix(provider: &str) -> Option<&'static str> {
    Some(match provider {
        "google" => "gemini",
        "google-vertex" => "vertex_ai",
        "amazon-bedrock" => "bedrock",
        "moonshotai" => "moonshot",
        "fireworks" => "fireworks_ai",
        "together" => "together_ai",
        "vercel-ai-gateway" => "vercel_ai_gateway",
        _ => return None,
    })
}

impl PriceTable {
    /// The key that prices pi's `(provider, model)` by the rule above; `None`: no key does
    /// (the usage stays unpriced). `provider` is `None` where pi recorded none.
    ///
    /// Steps 1-3 are hash look-ups; step 4 searches every key (about 1 ms in a release build
    /// against LiteLLM's 3,900), so a caller looks each distinct model up once, not each
    /// message, and a name longer than [`MAX_FUZZY_NAME`] bytes is matched only exactly.
    pub fn find(&self, provider: Option<&str>, model: &str) -> Option<Match<'_>> {
        let exact = |key: &str, by| {
            self.entry(key).map(|e| Match {
                key: &e.key,
                by,
                prices: &e.prices,
            })
        };
        let by_provider = provider.and_then(|p| {
            exact(&format!("{p}/{model}"), MatchedBy::Provider).or_else(|| {
                let prefix = litellm_prefix(p)?;
                exact(&format!("{prefix}/{model}"), MatchedBy::ProviderPrefix)
            })
        });
        by_provider
            .or_else(|| exact(model, MatchedBy::Model))
            .or_else(|| self.find_contained(model))
    }

    /// The match [`find`](Self::find) gave, again from its key: for a caller that remembers
    /// matches by key (across threads, or owning the table) rather than by borrow.
    pub fn matched(&self, key: &str, by: MatchedBy) -> Option<Match<'_>> {
        self.entry(key).map(|e| Match {
            key: &e.key,
            by,
            prices: &e.prices,
        })
    }

    /// Step 4.
    fn find_contained(&self, model: &str) -> Option<Match<'_>> {
        // A name without a letter or digit is found around almost anything; a name longer
        // than any model id is some file's hostile text, which every key would be searched
        // in.
        if model.len() > MAX_FUZZY_NAME || !model.bytes().any(|b| b.is_ascii_alphanumeric()) {
            return None;
        }
        let lower = model.to_ascii_lowercase();
        let normal = normalized(&lower);
        let mut inside: Option<&Entry> = None;
        let mut around: Option<&Entry> = None;
        let sep = matches!(normal, Cow::Owned(_));
        for e in &self.entries {
            // A key is found in the name only if it is no longer, and around it only if it is
            // no shorter (`.`/`@` to `-` keeps lengths); the normalised forms differ from the
            // lowercase ones only if either spells a `.` or `@`.
            let both = sep || e.dotted;
            let (short, long) = (e.key.len() <= lower.len(), e.key.len() >= lower.len());
            if short && (contains(&lower, &e.lower) || both && contains(&normal, &e.normal)) {
                // Longest, then smallest.
                if inside.is_none_or(|b| {
                    (e.key.len(), std::cmp::Reverse(&e.key))
                        > (b.key.len(), std::cmp::Reverse(&b.key))
                }) {
                    inside = Some(e);
                }
            } else if inside.is_none()
                && long
                && (contains(&e.lower, &lower) || both && contains(&e.normal, &normal))
                // Shortest, then smallest.
                && around.is_none_or(|b| (e.key.len(), &e.key) < (b.key.len(), &b.key))
            {
                around = Some(e);
            }
        }
        let (e, by) = match (inside, around) {
            (Some(e), _) => (e, MatchedBy::InName),
            (None, Some(e)) => (e, MatchedBy::AroundName),
            (None, None) => return None,
        };
        Some(Match {
            key: &e.key,
            by,
            prices: &e.prices,
        })
    }
}

/// The longest model name step 4 reads: LiteLLM's longest key is 76 bytes (1.110.2).
pub const MAX_FUZZY_NAME: usize = 256;

/// `.` and `@` read as `-` (`claude-opus-4.6`, `vertex_ai/claude-sonnet-4-5@20250929`).
pub(super) fn normalized(s: &str) -> Cow<'_, str> {
    if s.contains(['.', '@']) {
        Cow::Owned(s.replace(['.', '@'], "-"))
    } else {
        Cow::Borrowed(s)
    }
}

/// Whether `key` is found in `value` within punctuation (ccusage's `contains_pricing_key`).
fn contains(value: &str, key: &str) -> bool {
    if key.is_empty() {
        return false;
    }
    value.match_indices(key).any(|(at, _)| {
        let before = at.checked_sub(1).map(|i| value.as_bytes()[i]);
        before.is_none_or(is_boundary) && suffix_allows(key, &value[at + key.len()..])
    })
}

fn is_boundary(byte: u8) -> bool {
    !byte.is_ascii_alphanumeric()
}

/// What follows a found key: nothing, or punctuation that does not start another version
/// number after a key ending in a digit (`-5` after `claude-sonnet-4`), an 8-digit date aside.
fn suffix_allows(key: &str, suffix: &str) -> bool {
    let Some(&first) = suffix.as_bytes().first() else {
        return true;
    };
    if !is_boundary(first) {
        return false;
    }
    if !key.as_bytes().last().is_some_and(u8::is_ascii_digit) || !matches!(first, b'-' | b'.') {
        return true;
    }
    let rest = &suffix.as_bytes()[1..];
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    digits == 0 || (digits == 8 && rest.get(8).copied().is_none_or(is_boundary))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> PriceTable {
        PriceTable::from_json(include_str!("litellm-sample.json").as_bytes()).unwrap()
    }

    fn found(t: &PriceTable, provider: Option<&str>, model: &str) -> Option<(String, MatchedBy)> {
        t.find(provider, model).map(|m| (m.key.to_owned(), m.by))
    }

    fn table(keys: &[&str]) -> PriceTable {
        let entries: Vec<String> = keys
            .iter()
            .map(|k| format!(r#""{k}": {{"input_cost_per_token": 1, "output_cost_per_token": 1}}"#))
            .collect();
        PriceTable::from_json(format!("{{{}}}", entries.join(",")).as_bytes()).unwrap()
    }

    #[test]
    fn exact_steps_in_order() {
        let t = sample();
        use MatchedBy::*;
        let cases: &[(Option<&str>, &str, &str, MatchedBy)] = &[
            (Some("zai"), "glm-4.6", "zai/glm-4.6", Provider),
            // `deepseek/deepseek-chat` exists beside the bare key: the provider's wins.
            (
                Some("deepseek"),
                "deepseek-chat",
                "deepseek/deepseek-chat",
                Provider,
            ),
            (None, "deepseek-chat", "deepseek-chat", Model),
            (Some("custom"), "deepseek-chat", "deepseek-chat", Model),
            (
                Some("google"),
                "gemini-2.5-pro",
                "gemini/gemini-2.5-pro",
                ProviderPrefix,
            ),
            (
                Some("google-vertex"),
                "claude-sonnet-4-5",
                "vertex_ai/claude-sonnet-4-5",
                ProviderPrefix,
            ),
            (
                Some("anthropic"),
                "claude-sonnet-4-5",
                "claude-sonnet-4-5",
                Model,
            ),
            (Some("openai"), "gpt-5", "gpt-5", Model),
            // An openrouter id is `vendor/model`: the bare key is LiteLLM's deepseek entry.
            (
                Some("openrouter"),
                "deepseek/deepseek-chat",
                "deepseek/deepseek-chat",
                Model,
            ),
        ];
        for &(provider, model, key, by) in cases {
            assert_eq!(
                found(&t, provider, model),
                Some((key.to_owned(), by)),
                "{provider:?} {model}"
            );
        }
    }

    #[test]
    fn contained_steps() {
        let t = sample();
        use MatchedBy::*;
        let cases: &[(&str, &str, MatchedBy)] = &[
            // `.` read as `-`; in the name, the longest.
            ("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5", InName),
            (
                "claude-sonnet-4-5-20250929-thinking",
                "claude-sonnet-4-5-20250929",
                InName,
            ),
            ("[pi] claude-opus-4.6", "claude-opus-4-6", InName),
            // Case folded.
            ("Claude-Opus-4-6", "claude-opus-4-6", InName),
            ("qwen/QWEN3-32B", "nebius/Qwen/Qwen3-32B", AroundName),
            // Around the name: the shortest (`nebius/Qwen/Qwen3-32B`, not
            // `deepinfra/Qwen/Qwen3-32B`).
            ("Qwen3-32B", "nebius/Qwen/Qwen3-32B", AroundName),
            ("glm-4.6", "zai/glm-4.6", AroundName),
            // `@` read as `-`: the date after the version is not another version.
            (
                "claude-sonnet-4-5@20250929",
                "claude-sonnet-4-5-20250929",
                InName,
            ),
            // The fuzzy step's known misprice: a longer model with a key's name inside.
            ("gpt-5.3-codex-spark", "gpt-5.3-codex", InName),
        ];
        for &(model, key, by) in cases {
            assert_eq!(
                found(&t, Some("custom"), model),
                Some((key.to_owned(), by)),
                "{model}"
            );
        }
        for model in [
            // A version number after a key ending in a digit is another model.
            "claude-opus-4-6-1",
            "gpt-5.9",
            // Letters on either side are no boundary.
            "xgpt-5",
            "gpt-5x",
            "",
            "-/.",
            "unknown-model",
        ] {
            assert_eq!(found(&t, Some("custom"), model), None, "{model}");
        }
    }

    #[test]
    fn long_names_are_matched_only_exactly() {
        let long = format!("{}/claude-opus-4-6", "x".repeat(MAX_FUZZY_NAME));
        let t = table(&["claude-opus-4-6", &long]);
        assert_eq!(
            found(&t, None, &long),
            Some((long.clone(), MatchedBy::Model))
        );
        assert_eq!(found(&t, None, &format!("{long}-x")), None);
        let fits = &long[long.len() - MAX_FUZZY_NAME..];
        assert_eq!(
            found(&t, None, fits),
            Some(("claude-opus-4-6".to_owned(), MatchedBy::InName))
        );
    }

    #[test]
    fn ties_are_decided_by_bytes_not_file_order() {
        for keys in [["a/m-1", "b/m-1"], ["b/m-1", "a/m-1"]] {
            let t = table(&keys);
            assert_eq!(
                found(&t, None, "m-1"),
                Some(("a/m-1".to_owned(), MatchedBy::AroundName))
            );
        }
        for keys in [["x-m", "m-y"], ["m-y", "x-m"]] {
            let t = table(&keys);
            assert_eq!(
                found(&t, None, "x-m-y"),
                Some(("m-y".to_owned(), MatchedBy::InName))
            );
        }
        // Keys equal under case folding: the smaller by bytes (uppercase first).
        for keys in [["Model-A", "model-a"], ["model-a", "Model-A"]] {
            let t = table(&keys);
            assert_eq!(
                found(&t, None, "MODEL-A"),
                Some(("Model-A".to_owned(), MatchedBy::InName))
            );
        }
    }

    #[test]
    fn a_key_in_the_name_beats_a_longer_one_around_it() {
        let t = table(&[
            "gpt-5.4",
            "perplexity/openai/gpt-5.4-mini",
            "openai/gpt-5.4",
        ]);
        assert_eq!(
            found(&t, Some("vercel-ai-gateway"), "openai/gpt-5.4"),
            Some(("openai/gpt-5.4".to_owned(), MatchedBy::Model))
        );
        let t = table(&["gpt-5.4", "perplexity/openai/gpt-5.4-mini"]);
        assert_eq!(
            found(&t, Some("vercel-ai-gateway"), "openai/gpt-5.4"),
            Some(("gpt-5.4".to_owned(), MatchedBy::InName))
        );
    }

    #[test]
    fn boundaries() {
        assert!(contains("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"));
        assert!(contains(
            "claude-sonnet-4-5-20250929-v1:0",
            "claude-sonnet-4-5"
        ));
        assert!(!contains("claude-sonnet-4-5", "claude-sonnet-4"));
        assert!(!contains("claude-sonnet-4.5", "claude-sonnet-4"));
        assert!(!contains("claude-sonnet-4-202509291", "claude-sonnet-4"));
        assert!(contains("claude-sonnet-4-beta", "claude-sonnet-4"));
        assert!(contains("us.claude-sonnet-4:0", "claude-sonnet-4"));
        // The second occurrence may be the one within punctuation.
        assert!(contains("xgpt-4o/gpt-4o", "gpt-4o"));
        assert!(!contains("abc", ""));
        assert_eq!(normalized("a.b@c"), "a-b-c");
    }
}
