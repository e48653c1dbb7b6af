//! `--secrets-config FILE`: rules and allowlists in gitleaks's TOML where it fits.
//!
//! Read: `[[rules]]` `id`, `regex`, `secretGroup`, `entropy`, `keywords`, and their
//! `[rules.allowlist]`/`[[rules.allowlists]]`; the global `[allowlist]`/`[[allowlists]]`
//! `regexes`, `stopwords`, `regexTarget` (`secret`, `match`, `line`); `[extend]`
//! `useDefault` (default true here: the file adds to the built-in rules) and
//! `disabledRules`. gitleaks's other keys (`description`, `tags`, `path`, `paths`,
//! `commits`, `title`) are accepted and have nothing to act on in a session.

use std::path::Path;

use anyhow::{anyhow, bail};
use serde::Deserialize;

use super::rules::{Check, Filters};
use super::{compile, Allow, Detector, Rule, Target};

#[derive(Deserialize, Default)]
#[serde(default)]
struct File {
    extend: Extend,
    rules: Vec<RuleConfig>,
    allowlist: Option<AllowConfig>,
    allowlists: Vec<AllowConfig>,
}

#[derive(Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Extend {
    use_default: bool,
    disabled_rules: Vec<String>,
}

impl Default for Extend {
    fn default() -> Extend {
        Extend {
            use_default: true,
            disabled_rules: Vec::new(),
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct RuleConfig {
    id: String,
    regex: Option<String>,
    secret_group: Option<usize>,
    entropy: Option<f64>,
    keywords: Vec<String>,
    allowlist: Option<AllowConfig>,
    allowlists: Vec<AllowConfig>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct AllowConfig {
    regexes: Vec<String>,
    stopwords: Vec<String>,
    regex_target: Option<String>,
}

pub(super) fn load(path: &Path) -> anyhow::Result<Detector> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| anyhow!("{name}: {e}"))?;
    parse(&text).map_err(|e| anyhow!("{name}: {e}"))
}

/// The detector a config's text describes; an error says where (`line N: …`).
fn parse(text: &str) -> anyhow::Result<Detector> {
    let file: File = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| super::LineIndex::default().line_of(text, s.start.min(text.len())));
        let message = e.message().to_owned();
        match line {
            Some(n) => anyhow!("line {n}: {message}"),
            None => anyhow!("{message}"),
        }
    })?;
    let mut rules: Vec<Rule> = Vec::new();
    if file.extend.use_default {
        let defaults = Detector::default();
        // A built-in rule is disabled by its id or by gitleaks's id for it (an alias).
        rules.extend(defaults.rules.into_iter().filter(|r| {
            !file
                .extend
                .disabled_rules
                .iter()
                .any(|id| builtin_answers_to(&r.kind, id))
        }));
    }
    for (n, r) in file.rules.into_iter().enumerate() {
        let which = if r.id.is_empty() {
            format!("rule {}", n + 1)
        } else {
            format!("rule '{}'", r.id)
        };
        if r.id.trim().is_empty() {
            bail!("{which}: no id");
        }
        let Some(pattern) = r.regex else {
            bail!("{which}: no regex (path-only rules have nothing to match in a session)");
        };
        let regex = compile(&pattern).map_err(|e| {
            anyhow!(
                "{which}: bad regex: {}",
                crate::views::style::one_line(&e.to_string())
            )
        })?;
        if let Some(g) = r.secret_group {
            if g >= regex.captures_len() {
                bail!(
                    "{which}: secretGroup {g} but the regex has {} groups",
                    regex.captures_len() - 1
                );
            }
        }
        let mut allow = Allow::default();
        for a in r.allowlist.into_iter().chain(r.allowlists) {
            add_allow(&mut allow, a, &which)?;
        }
        let rule = Rule {
            kind: r.id.clone(),
            regex: super::rules::LazyRegex::compiled(regex),
            group: r.secret_group,
            entropy: r.entropy.unwrap_or(0.0),
            check: Check::None,
            filters: Filters::default(),
            keywords: r.keywords,
            allow,
        };
        // A rule of a built-in id (or gitleaks's id for it) replaces every rule answering
        // to that id, in the first one's place, as gitleaks's extension does.
        let answering = |x: &Rule| x.kind == rule.kind || builtin_answers_to(&x.kind, &rule.kind);
        match rules.iter().position(answering) {
            Some(at) => {
                let mut i = 0;
                rules.retain(|x| {
                    i += 1;
                    i - 1 == at || !answering(x)
                });
                rules[at] = rule;
            }
            None => rules.push(rule),
        }
    }
    let mut allow = Allow::default();
    for a in file.allowlist.into_iter().chain(file.allowlists) {
        add_allow(&mut allow, a, "allowlist")?;
    }
    Ok(Detector::new(rules, allow))
}

/// Whether the built-in rule `kind` answers to `id`: its own id or one of its aliases.
fn builtin_answers_to(kind: &str, id: &str) -> bool {
    kind == id || super::catalog::all().any(|d| d.kind == kind && super::catalog::answers_to(d, id))
}

fn add_allow(allow: &mut Allow, a: AllowConfig, which: &str) -> anyhow::Result<()> {
    let target = match a.regex_target.as_deref() {
        None | Some("secret") => Target::Secret,
        Some("match") => Target::Match,
        Some("line") => Target::Line,
        Some(other) => bail!("{which}: regexTarget '{other}' (use secret, match or line)"),
    };
    for r in a.regexes {
        let re = compile(&r).map_err(|e| {
            anyhow!(
                "{which}: bad allowlist regex: {}",
                crate::views::style::one_line(&e.to_string())
            )
        })?;
        allow.regexes.push((re, target));
    }
    allow
        .stopwords
        .extend(a.stopwords.into_iter().map(|w| w.to_ascii_lowercase()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_adds_rules_and_allowlists() {
        let d = parse(
            r#"
title = "mine"
[[rules]]
id = "internal-token"
regex = '''itk_([a-z0-9]{16})'''
secretGroup = 1
keywords = ["itk_"]

[allowlist]
stopwords = ["00000000"]
"#,
        )
        .unwrap();
        let token = format!("itk_{}", "a1b2c3d4e5f6a7b8");
        let found = d.find(&format!("x {token} y"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, "internal-token");
        assert_eq!(found[0].end - found[0].start, 16);
        assert!(
            d.find("itk_a1b2c3d400000000").is_empty(),
            "a stopword allows it"
        );
        assert!(d.kinds().any(|k| k == "github-pat"), "built-ins kept");
    }

    #[test]
    fn use_default_false_keeps_only_the_files_rules() {
        let d = parse("[extend]\nuseDefault = false\n[[rules]]\nid = 'x'\nregex = 'zz[0-9]+'\n")
            .unwrap();
        assert_eq!(d.kinds().collect::<Vec<_>>(), ["x"]);
        assert!(
            d.may_hold(b"anything"),
            "a rule without keywords reads every line"
        );
    }

    #[test]
    fn allowlists_by_line_and_disabled_rules() {
        let token = format!("sk_live_{}", "Zx9Qv2Lm8Rt4Wk6Yp3Nb7Hc1");
        let d = parse("[[allowlists]]\nregexTarget = 'line'\nregexes = ['fixture:']\n").unwrap();
        assert!(d.find(&format!("fixture: {token}")).is_empty());
        assert_eq!(d.find(&format!("live: {token}")).len(), 1);
        let d = parse("[extend]\ndisabledRules = ['stripe-secret-key']\n").unwrap();
        assert!(d.find(&token).is_empty());
        assert!(!d.kinds().any(|k| k == "stripe-secret-key"));
        let e = parse("[allowlist]\nregexTarget = 'path'\n")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("regexTarget 'path'"), "{e}");
    }

    #[test]
    fn gitleaks_ids_disable_and_replace_the_rules_that_answer_to_them() {
        // Issue 42: a gitleaks user's config names gitleaks's ids.
        let secret = format!("sk_live_{}", "Zx9Qv2Lm8Rt4Wk6Yp3Nb7Hc1");
        let restricted = format!("rk_live_{}", "Zx9Qv2Lm8Rt4Wk6Yp3Nb7Hc1");
        let d = parse("[extend]\ndisabledRules = ['stripe-access-token']\n").unwrap();
        assert!(d.find(&secret).is_empty() && d.find(&restricted).is_empty());
        assert!(!d.kinds().any(|k| k.starts_with("stripe-")));
        let d = parse(
            "[[rules]]\nid = 'generic-api-key'\nregex = 'acme=([0-9]{6})'\nkeywords = ['acme']\n",
        )
        .unwrap();
        assert!(!d.kinds().any(|k| k == "generic-secret"), "replaced");
        let at = |k: &str| d.kinds().position(|x| x == k).unwrap();
        assert!(at("generic-api-key") > at("postgres-url"), "in its place");
        assert_eq!(d.find("acme=123456")[0].kind, "generic-api-key");
        let d = parse(
            "[[rules]]\nid = 'stripe-access-token'\nregex = 'zz([0-9]+)'\nkeywords = ['zz']\n",
        )
        .unwrap();
        assert_eq!(
            d.kinds().filter(|k| k.starts_with("stripe-")).count(),
            1,
            "both stripe rules replaced by one"
        );
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse("[[rules]]\nid = 'x'\nregex = 'a(b'\n")
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("rule 'x': bad regex"), "{e}");
        let e = parse("[[rules]]\nid = 'x'\nregex = 3\n")
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("line 3:"), "{e}");
        let e = parse("[[rules]]\nid = 'x'\n").err().unwrap().to_string();
        assert!(e.contains("no regex"), "{e}");
    }
}
