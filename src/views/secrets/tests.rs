//! Each rule: a positive and a near miss. Every planted value is built here at run time, and
//! no assertion message prints a text that holds one.

use super::validate::{base62_6, crc32};
use super::*;

mod forms;
mod vendors;

/// Deterministic characters from `alphabet` (an LCG: tests must not depend on a seed).
pub(crate) fn chars(seed: u64, n: usize, alphabet: &[u8]) -> String {
    let mut x = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            alphabet[((x >> 33) % alphabet.len() as u64) as usize] as char
        })
        .collect()
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URLSAFE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const DIGITS: &[u8] = b"0123456789";
const HEX: &[u8] = b"0123456789abcdef";

/// A GitHub/npm style token whose checksum is right (or, with `valid` false, wrong).
pub(crate) fn checksummed(prefix: &str, seed: u64, valid: bool) -> String {
    let random = chars(seed, 30, ALNUM);
    let mut sum = base62_6(crc32(random.as_bytes()));
    if !valid {
        sum[5] = if sum[5] == b'0' { b'1' } else { b'0' };
    }
    format!("{prefix}{random}{}", String::from_utf8_lossy(&sum))
}

fn b64url(bytes: &[u8]) -> String {
    const T: &[u8] = URLSAFE;
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |a, &b| (a << 8) | u32::from(b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn b64std(bytes: &[u8]) -> String {
    let mut s = b64url(bytes).replace('-', "+").replace('_', "/");
    while !s.len().is_multiple_of(4) {
        s.push('=');
    }
    s
}

/// (kind, a text holding one, a near miss that must hold none).
pub(crate) fn cases() -> Vec<(&'static str, String, String)> {
    let s = 17;
    let jwt = |alg: bool| {
        let header = if alg {
            r#"{"alg":"HS256","typ":"JWT"}"#
        } else {
            r#"{"typ":"JWT","x":1}"#
        };
        format!(
            "{}.{}.{}",
            b64url(header.as_bytes()),
            b64url(br#"{"sub":"1234567890","name":"dev"}"#),
            chars(s, 43, URLSAFE)
        )
    };
    let pem_body = (0..5)
        .map(|i| chars(i, 64, B64))
        .collect::<Vec<_>>()
        .join("\n");
    vec![
        (
            "private-key",
            format!("-----BEGIN RSA PRIVATE KEY-----\n{pem_body}\n-----END RSA PRIVATE KEY-----"),
            "-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----".to_owned(),
        ),
        (
            "github-pat",
            format!("token {}", checksummed("ghp_", s, true)),
            format!("token {}", checksummed("ghp_", s, false)),
        ),
        (
            "github-oauth",
            checksummed("gho_", s + 1, true),
            checksummed("gho_", s + 1, false),
        ),
        (
            "github-user-to-server",
            checksummed("ghu_", s + 2, true),
            checksummed("ghu_", s + 2, false),
        ),
        (
            "github-server-to-server",
            checksummed("ghs_", s + 3, true),
            checksummed("ghs_", s + 3, false),
        ),
        (
            "github-refresh",
            checksummed("ghr_", s + 4, true),
            format!("ghr_{}", chars(s, 30, ALNUM)),
        ),
        (
            "github-fine-grained-pat",
            format!(
                "github_pat_{}_{}",
                chars(s, 22, ALNUM),
                chars(s + 1, 59, ALNUM)
            ),
            format!(
                "github_pat_{}_{}",
                chars(s, 22, ALNUM),
                chars(s + 1, 40, ALNUM)
            ),
        ),
        (
            "gitlab-pat",
            format!("glpat-{}", chars(s, 20, URLSAFE)),
            format!("glpat-{}", chars(s, 12, URLSAFE)),
        ),
        (
            "npm-token",
            format!(
                "//registry.npmjs.org/:_authToken={}",
                checksummed("npm_", s + 5, true)
            ),
            checksummed("npm_", s + 5, false),
        ),
        (
            "pypi-token",
            format!("pypi-AgEIcHlwaS5vcmc{}", chars(s, 60, URLSAFE)),
            format!("pypi-AgEIcHlwaS5vcmc{}", chars(s, 20, URLSAFE)),
        ),
        (
            "aws-access-key-id",
            format!("AWS_ACCESS_KEY_ID=AKIA{}", chars(s, 16, UPPER32)),
            "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE".to_owned(),
        ),
        (
            "aws-secret-access-key",
            format!("aws_secret_access_key = {}", chars(s, 40, B64)),
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".to_owned(),
        ),
        (
            "aws-session-token",
            format!("AWS_SESSION_TOKEN=FwoGZXIvYXdzE{}", chars(s, 200, B64)),
            format!("FwoGZXIvYXdz{}", chars(s, 40, B64)),
        ),
        (
            "gcp-api-key",
            format!("key=AIza{}", chars(s, 35, URLSAFE)),
            format!("key=AIza{}", chars(s, 20, URLSAFE)),
        ),
        (
            "slack-bot-token",
            format!(
                "xoxb-{}-{}-{}",
                chars(s, 12, DIGITS),
                chars(s + 1, 13, DIGITS),
                chars(s, 24, ALNUM)
            ),
            // Too short a secret for the bot token and for gitleaks's legacy bot token.
            format!("xoxb-{}-{}", chars(s, 12, DIGITS), chars(s, 10, ALNUM)),
        ),
        (
            "slack-user-token",
            format!(
                "xoxp-{}-{}-{}-{}",
                chars(s, 12, DIGITS),
                chars(s + 1, 12, DIGITS),
                chars(s + 2, 13, DIGITS),
                chars(s, 32, ALNUM)
            ),
            format!("xoxp-{}-{}", chars(s, 12, DIGITS), chars(s, 32, ALNUM)),
        ),
        (
            "slack-app-token",
            format!(
                "xapp-1-A{}-{}-{}",
                chars(s, 10, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
                chars(s, 13, DIGITS),
                chars(s, 64, HEX)
            ),
            format!(
                "xapp-1-A{}-{}",
                chars(s, 10, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
                chars(s, 13, DIGITS)
            ),
        ),
        (
            "slack-webhook",
            format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                chars(s, 8, UPPER32),
                chars(s + 1, 10, UPPER32),
                chars(s, 24, ALNUM)
            ),
            "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXX".to_owned(),
        ),
        (
            "stripe-secret-key",
            format!("sk_live_{}", chars(s, 32, ALNUM)),
            format!("pk_live_{}", chars(s, 32, ALNUM)),
        ),
        (
            "stripe-restricted-key",
            format!("rk_test_{}", chars(s, 32, ALNUM)),
            format!("rk_test_{}", chars(s, 6, ALNUM)),
        ),
        (
            "anthropic-api-key",
            format!("ANTHROPIC_API_KEY=sk-ant-api03-{}AA", chars(s, 93, URLSAFE)),
            format!("sk-ant-api03-{}", chars(s, 20, LETTERS)),
        ),
        (
            "openai-api-key",
            format!(
                "sk-proj-{}T3BlbkFJ{}",
                chars(s, 74, URLSAFE),
                chars(s + 1, 74, URLSAFE)
            ),
            format!("sk-proj-{}", chars(s, 40, LETTERS)),
        ),
        (
            "huggingface-token",
            format!("hf_{}", chars(s, 34, LETTERS)),
            format!("hf_{}1", chars(s, 33, LETTERS)),
        ),
        (
            "telegram-bot-token",
            format!("bot{}:AA{}", chars(s, 10, DIGITS), chars(s, 33, URLSAFE)),
            format!("{}:AB{}", chars(s, 10, DIGITS), chars(s, 33, URLSAFE)),
        ),
        (
            "sendgrid-api-key",
            format!("SG.{}.{}", chars(s, 22, URLSAFE), chars(s + 1, 43, URLSAFE)),
            format!("SG.{}.{}", chars(s, 22, URLSAFE), chars(s + 1, 20, URLSAFE)),
        ),
        ("jwt", jwt(true), jwt(false)),
        (
            "postgres-url",
            format!(
                "DATABASE_URL=postgres://app:{}@db.internal:5432/app",
                chars(s, 16, ALNUM)
            ),
            "DATABASE_URL=postgres://app:${DB_PASSWORD}@db.internal:5432/app".to_owned(),
        ),
        (
            "mysql-url",
            format!("mysql://root:{}@127.0.0.1/shop", chars(s, 12, ALNUM)),
            "mysql://root@127.0.0.1/shop".to_owned(),
        ),
        (
            "mongodb-url",
            format!(
                "mongodb+srv://svc:{}@cluster0.mongodb.net/db",
                chars(s, 14, ALNUM)
            ),
            "mongodb+srv://svc:<password>@cluster0.mongodb.net/db".to_owned(),
        ),
        (
            "redis-url",
            format!("REDIS_URL=redis://:{}@cache:6379/0", chars(s, 20, ALNUM)),
            "redis://cache:6379/0".to_owned(),
        ),
        (
            "amqp-url",
            format!("amqps://rabbit:{}@mq.local/vhost", chars(s, 18, ALNUM)),
            "amqp://guest:password@mq.local/".to_owned(),
        ),
        (
            "basic-auth-url",
            format!(
                "git clone https://deploy:{}@git.corp.example/x.git",
                chars(s, 20, ALNUM)
            ),
            "https://deploy@git.corp/x.git".to_owned(),
        ),
        (
            "bearer-token",
            format!(
                "curl -H 'Authorization: Bearer {}' https://api",
                chars(s, 40, URLSAFE)
            ),
            "curl -H \"Authorization: Bearer $API_TOKEN\" https://api".to_owned(),
        ),
        (
            "basic-auth-header",
            format!(
                "Authorization: Basic {}",
                b64std(format!("admin:{}", chars(s, 12, ALNUM)).as_bytes())
            ),
            "Basic usage of Authorization headers is documented".to_owned(),
        ),
        (
            "generic-secret",
            format!("export STRIPE_WEBHOOK_SECRET={}", chars(s, 32, ALNUM)),
            // Hex under a name that says digest (a secret's name says secret: issue 42).
            format!("token_sha1: {}", chars(s, 40, HEX)),
        ),
    ]
}

#[test]
fn every_rule_finds_its_positive_and_not_its_near_miss() {
    let d = Detector::default();
    let cases = cases();
    let mut kinds: Vec<&str> = cases
        .iter()
        .map(|c| c.0)
        .chain(vendors::CASES.iter().map(|c| c.0))
        .collect();
    kinds.sort_unstable();
    let mut all: Vec<&str> = d.kinds().collect();
    all.sort_unstable();
    assert_eq!(kinds, all, "a case for every built-in rule");
    let mut failures = Vec::new();
    for (kind, positive, negative) in &cases {
        let found: Vec<String> = d.find(positive).into_iter().map(|f| f.kind).collect();
        if found != [*kind] {
            failures.push(format!("{kind}: positive found {found:?}"));
        }
        let missed: Vec<String> = d.find(negative).into_iter().map(|f| f.kind).collect();
        if !missed.is_empty() {
            failures.push(format!("{kind}: near miss found {missed:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn checksum_invalid_github_and_npm_tokens_are_not_flagged() {
    let d = Detector::default();
    for (i, prefix) in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "npm_"]
        .iter()
        .enumerate()
    {
        for seed in 0..20 {
            let seed = seed + 100 * i as u64;
            assert_eq!(
                d.find(&checksummed(prefix, seed, true)).len(),
                1,
                "{prefix} valid, seed {seed}"
            );
            assert!(
                d.find(&checksummed(prefix, seed, false)).is_empty(),
                "{prefix} invalid, seed {seed}"
            );
        }
    }
}

#[test]
fn findings_span_the_secret_and_redaction_replaces_it() {
    let d = Detector::default();
    let token = checksummed("ghp_", 5, true);
    let password = chars(9, 16, ALNUM);
    let text = format!("push with {token}\nDATABASE_URL=postgres://u:{password}@h/db\n");
    let found = d.find(&text);
    assert_eq!(found.len(), 2);
    assert!(text[found[0].start..found[0].end] == token);
    assert!(text[found[1].start..found[1].end] == password);
    assert_eq!(found[0].fingerprint, fingerprint(&token));
    assert_eq!(found[0].fingerprint.len(), 8);
    let redacted = d.redact(&text);
    assert!(!redacted.contains(&token) && !redacted.contains(&password));
    assert!(redacted.contains(&format!("[REDACTED github-pat {}]", found[0].fingerprint)));
    assert!(redacted.contains("postgres://u:[REDACTED postgres-url "));
    assert!(matches!(d.redact("nothing here"), Cow::Borrowed(_)));
}

#[test]
fn the_preview_shows_at_most_four_characters_and_less_of_short_ones() {
    assert_eq!(preview("ghp_abcdefghijklmnop"), "ghp_");
    assert_eq!(preview("abcdefgh"), "ab");
    assert_eq!(preview("abc"), "");
}

#[test]
fn adjacent_assignments_are_each_found() {
    let d = Detector::default();
    let (a, b) = (chars(1, 24, ALNUM), chars(2, 24, ALNUM));
    let text = format!("API_KEY={a} CLIENT_SECRET={b}");
    assert_eq!(d.find(&text).len(), 2);
}

#[test]
fn look_alikes_are_not_secrets() {
    let d = Detector::default();
    let sha1 = chars(3, 40, HEX);
    let sha256 = chars(4, 64, HEX);
    let texts = [
        format!("commit {sha1}\nAuthor: dev"),
        format!("sha256sum: {sha256}  dist/app.tar.gz"),
        format!("\"integrity\": \"sha512-{}==\"", chars(5, 86, B64)),
        format!("golang.org/x/oauth2 v0.21.0 h1:{}=", chars(6, 43, B64)),
        "request_id = 123e4567-e89b-12d3-a456-426614174000".to_owned(),
        format!("session_token: {}", "123e4567-e89b-12d3-a456-426614174000"),
        format!("cache_token_sha256 = {sha256}"),
        format!("\"password_hash\": \"{sha256}\""),
        format!("api_key_checksum: {sha1}"),
        "function(e){var token=e.token||t.apiKey;return{password:n.password}}".to_owned(),
        format!("Key fingerprint = {}", chars(7, 40, b"0123456789ABCDEF")),
        "password=changeme\nsecret: ${SECRET}\napi_key=<your-api-key>".to_owned(),
        format!("data:image/png;base64,{}", chars(8, 4000, B64)),
    ];
    for (i, t) in texts.iter().enumerate() {
        let kinds: Vec<String> = d.find(t).into_iter().map(|f| f.kind).collect();
        assert!(kinds.is_empty(), "look-alike {i} flagged as {kinds:?}");
    }
}

#[test]
fn hostile_text_does_not_panic() {
    let d = Detector::default();
    let odd = "é".repeat(50);
    for t in [
        format!("password={odd}"),
        format!("ghp_{odd}"),
        "-----BEGIN PRIVATE KEY-----".repeat(1000),
        "token=".repeat(10_000),
        format!("postgres://a:\u{1F600}{odd}@h"),
    ] {
        let _ = d.redact(&t);
    }
}

/// An entry line as pi stores it, from a Value (so escapes are JSON's own).
fn stored(v: &serde_json::Value) -> String {
    serde_json::to_string(v).unwrap()
}

#[test]
fn an_entry_is_walked_through_escapes_and_json_inside_json() {
    let d = Detector::default();
    let hook = format!(
        "https://hooks.slack.com/services/T{}/B{}/{}",
        chars(1, 9, UPPER32),
        chars(2, 9, UPPER32),
        chars(3, 24, ALNUM)
    );
    let token = checksummed("ghp_", 77, true);
    let password = chars(4, 18, ALNUM);
    // A tool result holding JSON that holds JSON, its slashes escaped as `\/`.
    let inner = stored(&serde_json::json!({"config": {"webhook": hook}})).replace('/', "\\/");
    let outer = stored(&serde_json::json!({"body": inner, "db": {"password": password}}));
    let entry = serde_json::json!({
        "type": "message", "id": "e1",
        "message": {"role": "toolResult", "content": [
            {"type": "text", "text": "ok"},
            {"type": "text", "text": outer},
            {"type": "image", "data": token, "mimeType": "image/png"},
        ]},
    });
    // Stored, the webhook is `\\\/`-escaped twice over: no raw-byte regex sees it.
    let line = stored(&entry);
    assert!(!line.contains("hooks.slack.com/services"));
    let decoded: serde_json::Value = serde_json::from_str(&line).unwrap();
    let found = d.find_in_entry(&decoded);
    let got: Vec<(&str, &str)> = found
        .iter()
        .map(|f| (f.field.as_str(), f.kind.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "message.content[1].text@json.body@json.config.webhook",
                "slack-webhook"
            ),
            ("message.content[1].text@json.db.password", "generic-secret"),
        ],
        "image data is not text"
    );
    assert_eq!(found[0].fingerprint, fingerprint(&hook));
    assert!(found[1].preview == password[..4]);
}

#[test]
fn lines_and_ndjson_within_a_text_are_located() {
    let d = Detector::default();
    let key = format!("AKIA{}", chars(11, 16, UPPER32));
    let escaped =
        stored(&serde_json::json!({"url": format!("https://u:{}@h.io/x", chars(12, 20, ALNUM))}))
            .replace('/', "\\/");
    let text = format!("$ env\nHOME=/root\nAWS_ACCESS_KEY_ID={key}\n{escaped}\n");
    let entry = serde_json::json!({"type": "message", "message": {"role": "bashExecution", "command": "env", "output": text}});
    let found = d.find_in_entry(&entry);
    let got: Vec<(&str, usize, &str)> = found
        .iter()
        .map(|f| (f.field.as_str(), f.line, f.kind.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("message.output", 3, "aws-access-key-id"),
            ("message.output@json(line 4).url", 1, "basic-auth-url"),
        ]
    );
}

#[test]
fn a_stored_line_without_keywords_need_not_be_decoded() {
    let d = Detector::default();
    assert!(!d.may_hold(br#"{"type":"message","message":{"role":"user","content":"hello"}}"#));
    assert!(d.may_hold(br#"{"content":"\u0067hp_..."}"#));
    assert!(d.may_hold(br#"{"content":"my_token=1"}"#));
}

#[test]
fn redaction_reaches_into_json_inside_a_text() {
    let d = Detector::default();
    let token = checksummed("ghs_", 3, true);
    let inner = stored(&serde_json::json!({"auth": {"token": token}})).replace('/', "\\/");
    let text =
        serde_json::to_string_pretty(&serde_json::json!({"ok": true, "body": inner})).unwrap();
    let redacted = d.redact(&text);
    assert!(!redacted.contains(&token));
    let v: serde_json::Value = serde_json::from_str(&redacted).expect("still JSON");
    assert!(d.find_in_entry(&v).is_empty());
    assert!(redacted.contains("[REDACTED github-server-to-server "));
    // A line of NDJSON in a log, too.
    let log = format!(
        "start\n{}\nend",
        stored(&serde_json::json!({"t": token})).replace('_', "\\u005f")
    );
    let redacted = d.redact(&log);
    assert!(
        !redacted.contains(&token)
            && redacted.starts_with("start\n")
            && redacted.ends_with("\nend")
    );
}

#[test]
fn hostile_entries_do_not_panic_or_recurse_without_end() {
    let d = Detector::default();
    // JSON inside a string inside a string ... 12 deep (each level doubles the escapes):
    // followed to a depth of 8.
    let mut v = serde_json::json!({"password": chars(1, 20, ALNUM)});
    for _ in 0..12 {
        v = serde_json::json!({"s": stored(&v)});
    }
    let _ = d.find_in_entry(&v);
    let _ = d.redact(&stored(&v));
    // Deep arrays, control characters in keys, many findings in one text.
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let _ = d.find_in_entry(&serde_json::json!({"a\u{1b}\n": deep}));
    let many: String = (0..5000)
        .map(|i| format!("TOKEN_{i}=a1{} ", chars(i, 20, ALNUM)))
        .collect();
    assert!(
        d.find(&many).len() > 4900,
        "a random value may hold a placeholder word"
    );
    let v = serde_json::json!({"k\u{1b}[31m": {"token": chars(2, 24, ALNUM)}});
    let found = d.find_in_entry(&v);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].field, "[\"k\\u001b[31m\"].token",
        "a key that is not a name is quoted"
    );
    // A key that is a secret is a finding of its own (`@key`), and is redacted in every path
    // that names it.
    let token = checksummed("ghp_", 8, true);
    let v = serde_json::json!({ token.clone(): {"api_key": chars(3, 24, ALNUM)} });
    let found = d.find_in_entry(&v);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].kind, "github-pat");
    assert!(found[0].field.ends_with("]@key"), "{}", found[0].field);
    for f in &found {
        assert!(!f.field.contains(&token) && f.field.contains("[REDACTED github-pat"));
    }
}
