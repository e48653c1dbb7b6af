//! The forms issue 42 found missed or misread on real sessions, each with its near miss:
//! JSON with escaped quotes inside shell commands, passwords with a password manager's
//! symbols, `curl -u`, `mysql -p`, hex secrets under a secret's name, and Feishu/Lark
//! document ids (not secrets). Every value is built at run time.

use super::chars;
use crate::views::secrets::{fingerprint, Detector};

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &[u8] = b"0123456789abcdef";
/// What a password manager mixes in (1Password's and Bitwarden's default symbols, less
/// quotes, blanks and backslash).
const SYMBOLS: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789$&?!@#%^*";

/// The kinds found in `text` and the secrets' fingerprints.
fn found(d: &Detector, text: &str) -> Vec<(String, String)> {
    d.find(text)
        .into_iter()
        .map(|f| (f.kind, f.fingerprint))
        .collect()
}

/// `text` holds exactly `secret`, found whole as `kind`.
fn assert_found(d: &Detector, text: &str, kind: &str, secret: &str, case: &str) {
    assert_eq!(
        found(d, text),
        [(kind.to_owned(), fingerprint(secret))],
        "{case}: not found whole as {kind}"
    );
}

/// A password with symbols, sure to hold `$`, `&`, `?` and a digit (the issue's
/// `xK9$mP2&vL7?qR4z`).
fn symbol_password(seed: u64) -> String {
    let mut p = chars(seed, 12, SYMBOLS);
    p.insert(1, '9');
    p.insert(3, '$');
    p.insert(7, '&');
    p.insert(11, '?');
    p
}

#[test]
fn json_with_escaped_quotes_in_a_shell_command_is_read() {
    let d = Detector::default();
    let secret = chars(42, 32, ALNUM);
    let password = symbol_password(43);
    let key = chars(44, 40, ALNUM);
    // The text the detector sees once the stored line is decoded still holds `\"`.
    let cases = [
        (
            format!(
                r#"curl -X POST https://open.feishu.cn/open-apis/auth/v3/tenant_access_token/internal -H "Content-Type: application/json" -d "{{\"app_id\":\"cli_a5f2c3d4e5f6a7b8\",\"app_secret\":\"{secret}\"}}""#
            ),
            &secret,
        ),
        (
            format!(r#"curl -s -d '{{\"password\":\"{password}\"}}' https://api.internal/login"#),
            &password,
        ),
        (
            format!(
                r#"python3 -c "import requests; print(requests.post(u, json={{\"api_key\": \"{key}\"}}).text)""#
            ),
            &key,
        ),
    ];
    for (i, (text, value)) in cases.iter().enumerate() {
        assert_found(&d, text, "generic-secret", value, &format!("form {i}"));
    }
    // As stored in a tool call: the command is a JSON string whose text holds `\"`.
    let entry = serde_json::json!({"type": "message", "id": "e1", "message": {"role": "assistant",
        "content": [{"type": "toolCall", "id": "t1", "name": "bash",
                     "arguments": {"command": cases[0].0}}]}});
    let located = d.find_in_entry(&entry);
    assert_eq!(located.len(), 1);
    assert_eq!(located[0].fingerprint, fingerprint(&secret));
    assert!(!d.redact(&cases[0].0).contains(&secret));
    // Near misses: a variable, and a value of one word.
    for text in [
        r#"curl -d "{\"app_secret\":\"${APP_SECRET}\"}""#,
        r#"curl -d '{\"password\":\"password\"}'"#,
        r#"python3 -c "print({\"api_key\": None})""#,
    ] {
        assert!(found(&d, text).is_empty(), "near miss {text}");
    }
}

#[test]
fn passwords_with_symbols_are_found_whole() {
    let d = Detector::default();
    let p = symbol_password(7);
    for (i, text) in [
        format!("DB_PASSWORD={p}\nDB_HOST=db"),
        format!("database:\n  password: {p}\n  host: db"),
        format!("{{\"db\": {{\"password\": \"{p}\"}}}}"),
        format!("export ADMIN_PASSWORD='{p}'"),
    ]
    .iter()
    .enumerate()
    {
        assert_found(&d, text, "generic-secret", &p, &format!("form {i}"));
    }
    // In a query string, `&` ends the value: the next parameter is not part of it.
    let token = chars(8, 32, ALNUM);
    assert_found(
        &d,
        &format!("GET /v1/items?access_token={token}&page=2"),
        "generic-secret",
        &token,
        "query",
    );
    // Near misses: code, not a value; a variable.
    for text in [
        "password = get_password(user_id2)",
        "DB_PASSWORD=$DB_PASSWORD&&echo ok",
    ] {
        assert!(found(&d, text).is_empty(), "near miss {text}");
    }
}

#[test]
fn curl_user_and_mysql_passwords_are_found() {
    let d = Detector::default();
    let p = chars(9, 18, ALNUM);
    let s = symbol_password(10);
    for (text, kind, value) in [
        (
            format!("curl -u admin:{p} https://ci.internal/api/json"),
            "curl-auth-user",
            &p,
        ),
        (
            format!("curl -sS --user deploy:{p} -X POST https://x.internal/hook"),
            "curl-auth-user",
            &p,
        ),
        (
            format!("curl -sS --user=deploy:{s} https://x.internal"),
            "curl-auth-user",
            &s,
        ),
        (
            format!("mysql -h 10.0.0.5 -uroot -p{p} shop < dump.sql"),
            "mysql-cli-password",
            &p,
        ),
        (
            format!("mysqldump -u root -p'{s}' shop > shop.sql"),
            "mysql-cli-password",
            &s,
        ),
        (
            format!("mysql --user=root --password={p} -e 'select 1'"),
            "mysql-cli-password",
            &p,
        ),
    ] {
        assert_found(&d, &text, kind, value, &text.replace(value.as_str(), "…"));
    }
    for text in [
        "curl -u \"$USER:$PASS\" https://ci.internal",
        "curl -u admin https://ci.internal",
        "mysql -h db -u root -p shop",
        "mysql -u root -p$MYSQL_PWD shop",
    ] {
        assert!(found(&d, text).is_empty(), "near miss {text}");
    }
}

#[test]
fn hex_values_are_secrets_or_digests_by_their_name() {
    let d = Detector::default();
    let h128 = chars(11, 128, HEX);
    let h64 = chars(12, 64, HEX);
    let h40 = chars(13, 40, HEX);
    for (text, value) in [
        (format!("SECRET_KEY_BASE={h128}"), &h128),
        // `openssl rand -hex 32`
        (format!("secret = {h64}"), &h64),
        (format!("{{\"webhook_secret\": \"{h64}\"}}"), &h64),
        (format!("GITHUB_TOKEN={h40}"), &h40),
    ] {
        assert_found(
            &d,
            &text,
            "generic-secret",
            value,
            &text.replace(value.as_str(), "…"),
        );
    }
    for text in [
        format!("sha256 = {h64}"),
        format!("checksum = \"{h64}\""),
        format!("\"digest\": \"sha256:{h64}\""),
        format!("{h64}  dist/app.tar.gz"),
        format!("password_hash: {h64}"),
        format!("SECRET_KEY_BASE_SHA256={h64}"),
        format!("\"integrity\": \"sha512-{}\"", chars(14, 86, ALNUM)),
        format!("golang.org/x/oauth2 v0.21.0 h1:{}=", chars(15, 43, ALNUM)),
        format!("[[package]]\nname = \"tokenizers\"\nchecksum = \"{h64}\""),
    ] {
        assert!(
            found(&d, &text).is_empty(),
            "near miss {}",
            text.replace(&h64, "…")
        );
    }
}

#[test]
fn feishu_document_ids_are_not_secrets_and_its_credentials_are() {
    let d = Detector::default();
    let node = chars(16, 27, ALNUM);
    let old = format!("doxcn{}", chars(17, 22, ALNUM));
    for text in [
        format!("{{\"node_token\": \"{node}\", \"obj_token\": \"{old}\", \"obj_type\": \"docx\"}}"),
        format!("{{\"data\":{{\"node\":{{\"space_id\":\"7{}\",\"node_token\":\"{node}\",\"obj_token\":\"{node}\",\"parent_node_token\":\"{node}\"}}}}}}", chars(18, 18, b"0123456789")),
        format!("wiki_token={node} document_id={node}"),
        format!("\"token\": \"wikcn{}\"", chars(19, 22, ALNUM)),
        format!("https://acme.feishu.cn/wiki/{node}?from=from_copylink"),
        format!("https://acme.larksuite.com/docx/{node}"),
        format!("lark-cli docs get --document_id {old} --page_token {node}"),
    ] {
        assert!(found(&d, &text).is_empty(), "near miss {}", text.replace(&node, "…"));
    }
    let secret = chars(20, 32, ALNUM);
    let tenant = format!("t-g1044{}", chars(21, 33, ALNUM));
    assert_found(
        &d,
        &format!("{{\"app_id\": \"cli_a5f2c3d4e5f6a7b8\", \"app_secret\": \"{secret}\"}}"),
        "generic-secret",
        &secret,
        "app_secret",
    );
    assert_found(
        &d,
        &format!(
            "{{\"code\":0,\"expire\":7200,\"msg\":\"ok\",\"tenant_access_token\":\"{tenant}\"}}"
        ),
        "generic-secret",
        &tenant,
        "tenant_access_token",
    );
}
