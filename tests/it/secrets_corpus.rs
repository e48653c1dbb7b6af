//! A corpus of pi sessions built as real ones are, with planted fake secrets of every kind
//! and hundreds of look-alikes, for `grep --secrets`'s recall and false positives (the test
//! here, on a small corpus) and for `benches/secrets.sh` (30 MB, written by the ignored test
//! `write_corpus_for_the_benchmark`).
//!
//! Secrets sit where sessions hold them: `env` dumps, `.env` reads, tool-call arguments,
//! thinking, compaction and branch summaries, custom entries, `bashExecution` output, JSON
//! inside a tool result's JSON, lines stored with `\/` and `\u…` escapes. Every value is made
//! at run time; nothing here prints one.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// A deterministic generator (SplitMix64).
pub(crate) struct Rng(pub u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn text(&mut self, n: usize, alphabet: &[u8]) -> String {
        (0..n)
            .map(|_| alphabet[self.below(alphabet.len())] as char)
            .collect()
    }
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER32: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const UPNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URLSAFE: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const DIGITS: &[u8] = b"0123456789";
const HEX: &[u8] = b"0123456789abcdef";
const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// A token in GitHub's format: 30 random base62 characters and their CRC32 in base62.
pub(crate) fn github_style(rng: &mut Rng, prefix: &str, valid: bool) -> String {
    let random = rng.text(30, ALNUM);
    let mut n = crc32(random.as_bytes());
    if !valid {
        n = n.wrapping_add(1);
    }
    let mut sum = [b'0'; 6];
    for slot in sum.iter_mut().rev() {
        *slot = BASE62[(n % 62) as usize];
        n /= 62;
    }
    format!("{prefix}{random}{}", String::from_utf8_lossy(&sum))
}

fn base64(bytes: &[u8], table: &[u8], pad: bool) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |a, &b| (a << 8) | u32::from(b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(table[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
        if pad {
            out.push_str(&"=".repeat(3 - chunk.len()));
        }
    }
    out
}

/// One planted secret: its kind, the value a finding must fingerprint, and the line of text
/// that carries it.
pub(crate) struct Secret {
    /// The form it was made in ([`KINDS`]): a kind, or `kind/form` for another way of
    /// writing one.
    pub form: &'static str,
    pub kind: &'static str,
    pub value: String,
    pub line: String,
}

/// Every kind the detector knows, each made in the form it has in the wild.
pub(crate) const KINDS: &[&str] = &[
    "private-key",
    "github-pat",
    "github-oauth",
    "github-user-to-server",
    "github-server-to-server",
    "github-refresh",
    "github-fine-grained-pat",
    "gitlab-pat",
    "npm-token",
    "pypi-token",
    "aws-access-key-id",
    "aws-secret-access-key",
    "aws-session-token",
    "gcp-api-key",
    "slack-bot-token",
    "slack-user-token",
    "slack-app-token",
    "slack-webhook",
    "stripe-secret-key",
    "stripe-restricted-key",
    "anthropic-api-key",
    "openai-api-key",
    "huggingface-token",
    "telegram-bot-token",
    "sendgrid-api-key",
    "jwt",
    "postgres-url",
    "mysql-url",
    "mongodb-url",
    "redis-url",
    "amqp-url",
    "basic-auth-url",
    "bearer-token",
    "basic-auth-header",
    "generic-secret",
    // Issue 42: key families, and the forms agents write that were missed.
    "age-secret-key",
    "azure-storage-account-key",
    "digitalocean-pat",
    "digitalocean-access-token",
    "digitalocean-refresh-token",
    "shopify-access-token",
    "shopify-custom-access-token",
    "shopify-private-app-access-token",
    "shopify-shared-secret",
    "curl-auth-user",
    "mysql-cli-password",
    "generic-secret/escaped-json-in-curl",
    "generic-secret/escaped-json-in-python",
    "generic-secret/symbol-password-env",
    "generic-secret/symbol-password-yaml",
    "generic-secret/symbol-password-json",
    "generic-secret/hex-secret-key-base",
    "generic-secret/openssl-rand-hex",
];

/// A password as a password manager makes one: letters, a digit, and `$`, `&`, `?`.
fn symbol_password(rng: &mut Rng) -> String {
    let mut p = rng.text(
        12,
        b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!@#%^*",
    );
    p.insert(1, '7');
    p.insert(4, '$');
    p.insert(8, '&');
    p.insert(12, '?');
    p
}

pub(crate) fn secret(rng: &mut Rng, form: &'static str) -> Secret {
    let kind = form.split('/').next().unwrap_or(form);
    let both = |value: String, line: String| Secret {
        form,
        kind,
        value,
        line,
    };
    let same = |value: String, name: &str| Secret {
        form,
        kind,
        line: format!("{name}={value}"),
        value,
    };
    match form {
        "private-key" => {
            let body: Vec<String> = (0..8).map(|_| rng.text(64, B64)).collect();
            let v = format!(
                "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n-----END OPENSSH PRIVATE KEY-----",
                body.join("\n")
            );
            both(v.clone(), v)
        }
        "github-pat" => same(github_style(rng, "ghp_", true), "GITHUB_TOKEN"),
        "github-oauth" => same(github_style(rng, "gho_", true), "GH_OAUTH"),
        "github-user-to-server" => same(github_style(rng, "ghu_", true), "GH_USER_TO_SERVER"),
        "github-server-to-server" => same(github_style(rng, "ghs_", true), "GH_INSTALLATION"),
        "github-refresh" => same(github_style(rng, "ghr_", true), "GH_REFRESH"),
        "github-fine-grained-pat" => {
            let v = format!("github_pat_{}_{}", rng.text(22, ALNUM), rng.text(59, ALNUM));
            both(
                v.clone(),
                format!("git remote set-url origin https://{v}@github.com/acme/api.git"),
            )
        }
        "gitlab-pat" => same(format!("glpat-{}", rng.text(20, URLSAFE)), "GITLAB_TOKEN"),
        "npm-token" => {
            let v = github_style(rng, "npm_", true);
            both(v.clone(), format!("//registry.npmjs.org/:_authToken={v}"))
        }
        "pypi-token" => {
            let v = format!("pypi-AgEIcHlwaS5vcmc{}", rng.text(70, URLSAFE));
            both(
                v.clone(),
                format!("[pypi]\n  username = __token__\n  password = {v}"),
            )
        }
        "aws-access-key-id" => same(
            format!("AKIA{}", rng.text(16, UPPER32)),
            "AWS_ACCESS_KEY_ID",
        ),
        "aws-secret-access-key" => same(rng.text(40, B64), "AWS_SECRET_ACCESS_KEY"),
        "aws-session-token" => same(
            format!("IQoJb3JpZ2luX2Vj{}", rng.text(180, B64)),
            "AWS_SESSION_TOKEN",
        ),
        "gcp-api-key" => same(format!("AIza{}", rng.text(35, URLSAFE)), "GOOGLE_MAPS_KEY"),
        "slack-bot-token" => same(
            format!(
                "xoxb-{}-{}-{}",
                rng.text(12, DIGITS),
                rng.text(13, DIGITS),
                rng.text(24, ALNUM)
            ),
            "SLACK_BOT_TOKEN",
        ),
        "slack-user-token" => same(
            format!(
                "xoxp-{}-{}-{}-{}",
                rng.text(12, DIGITS),
                rng.text(12, DIGITS),
                rng.text(13, DIGITS),
                rng.text(32, ALNUM)
            ),
            "SLACK_USER_TOKEN",
        ),
        "slack-app-token" => same(
            format!(
                "xapp-1-A{}-{}-{}",
                rng.text(10, UPNUM),
                rng.text(13, DIGITS),
                rng.text(64, HEX)
            ),
            "SLACK_APP_TOKEN",
        ),
        "slack-webhook" => {
            let v = format!(
                "https://hooks.slack.com/services/T{}/B{}/{}",
                rng.text(9, UPNUM),
                rng.text(9, UPNUM),
                rng.text(24, ALNUM)
            );
            both(
                v.clone(),
                format!("curl -X POST -d '{{\"text\":\"deployed\"}}' {v}"),
            )
        }
        "stripe-secret-key" => same(format!("sk_live_{}", rng.text(40, ALNUM)), "STRIPE_KEY"),
        "stripe-restricted-key" => same(
            format!("rk_live_{}", rng.text(40, ALNUM)),
            "STRIPE_RESTRICTED",
        ),
        "anthropic-api-key" => same(
            format!("sk-ant-api03-{}AA", rng.text(93, URLSAFE)),
            "ANTHROPIC_API_KEY",
        ),
        "openai-api-key" => same(
            format!(
                "sk-proj-{}T3BlbkFJ{}",
                rng.text(74, URLSAFE),
                rng.text(74, URLSAFE)
            ),
            "OPENAI_API_KEY",
        ),
        "huggingface-token" => same(format!("hf_{}", rng.text(34, LETTERS)), "HF_TOKEN"),
        "telegram-bot-token" => {
            let v = format!("{}:AA{}", rng.text(10, DIGITS), rng.text(33, URLSAFE));
            both(
                v.clone(),
                format!("curl https://api.telegram.org/bot{v}/getMe"),
            )
        }
        "sendgrid-api-key" => same(
            format!("SG.{}.{}", rng.text(22, URLSAFE), rng.text(43, URLSAFE)),
            "SENDGRID_API_KEY",
        ),
        "jwt" => {
            let h = base64(br#"{"alg":"RS256","typ":"JWT","kid":"k1"}"#, URLSAFE, false);
            let claims = format!(
                r#"{{"sub":"{}","iat":1782900000,"scope":"admin"}}"#,
                rng.text(12, DIGITS)
            );
            let p = base64(claims.as_bytes(), URLSAFE, false);
            let v = format!("{h}.{p}.{}", rng.text(86, URLSAFE));
            both(v.clone(), format!("SESSION_COOKIE=session={v}; Path=/"))
        }
        "postgres-url" | "mysql-url" | "mongodb-url" | "redis-url" | "amqp-url"
        | "basic-auth-url" => {
            let password = rng.text(20, ALNUM);
            let url = match kind {
                "postgres-url" => {
                    format!("postgresql://app:{password}@db.prod.internal:5432/orders")
                }
                "mysql-url" => format!("mysql://root:{password}@10.0.3.7:3306/shop"),
                "mongodb-url" => {
                    format!("mongodb+srv://svc:{password}@cluster0.ab1cd.mongodb.net/app")
                }
                "redis-url" => format!("rediss://default:{password}@cache.internal:6380/0"),
                "amqp-url" => format!("amqps://worker:{password}@mq.internal/jobs"),
                _ => format!("https://deploy:{password}@artifacts.corp.net/repo/"),
            };
            let name = kind.trim_end_matches("-url").to_ascii_uppercase();
            both(password, format!("{name}_URL={url}"))
        }
        "bearer-token" => {
            let v = rng.text(48, URLSAFE);
            both(
                v.clone(),
                format!("curl -sS -H \"Authorization: Bearer {v}\" https://api.internal/v1/me"),
            )
        }
        "basic-auth-header" => {
            let creds = format!("ci-bot:{}", rng.text(16, ALNUM));
            let v = base64(creds.as_bytes(), B64, true);
            both(v.clone(), format!("Authorization: Basic {v}"))
        }
        "generic-secret" => {
            let v = rng.text(32, ALNUM);
            let name = *rng.pick(&[
                "DJANGO_SECRET_KEY",
                "JWT_SIGNING_SECRET",
                "WEBHOOK_SECRET",
                "DB_PASSWORD",
                "MAILGUN_API_KEY",
            ]);
            same(v, name)
        }
        "age-secret-key" => same(
            format!(
                "AGE-SECRET-KEY-1{}",
                rng.text(58, b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")
            ),
            "SOPS_AGE_KEY",
        ),
        "azure-storage-account-key" => {
            let v = format!("{}==", rng.text(86, B64));
            both(
                v.clone(),
                format!("AZURE_STORAGE_CONNECTION_STRING=\"DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={v};EndpointSuffix=core.windows.net\""),
            )
        }
        "digitalocean-pat" => same(
            format!("dop_v1_{}", rng.text(64, HEX)),
            "DIGITALOCEAN_TOKEN",
        ),
        "digitalocean-access-token" => {
            let v = format!("doo_v1_{}", rng.text(64, HEX));
            both(
                v.clone(),
                format!("{{\"access_token\": \"{v}\", \"token_type\": \"bearer\"}}"),
            )
        }
        "digitalocean-refresh-token" => {
            let v = format!("dor_v1_{}", rng.text(64, HEX));
            both(v.clone(), format!("refresh: {v}"))
        }
        "shopify-access-token" => same(
            format!("shpat_{}", rng.text(32, HEX)),
            "SHOPIFY_ADMIN_TOKEN",
        ),
        "shopify-custom-access-token" => same(
            format!("shpca_{}", rng.text(32, HEX)),
            "SHOPIFY_CUSTOM_APP_TOKEN",
        ),
        "shopify-private-app-access-token" => same(
            format!("shppa_{}", rng.text(32, HEX)),
            "SHOPIFY_PRIVATE_APP_PASSWORD",
        ),
        "shopify-shared-secret" => {
            same(format!("shpss_{}", rng.text(32, HEX)), "SHOPIFY_API_SECRET")
        }
        "curl-auth-user" => {
            let v = rng.text(20, ALNUM);
            both(
                v.clone(),
                format!("curl -sS -u jenkins:{v} https://ci.internal/job/deploy/build"),
            )
        }
        "mysql-cli-password" => {
            let v = rng.text(16, ALNUM);
            both(
                v.clone(),
                format!("mysql -h 10.0.3.7 -u root -p{v} shop -e 'show tables'"),
            )
        }
        "generic-secret/escaped-json-in-curl" => {
            let v = rng.text(32, ALNUM);
            both(
                v.clone(),
                format!(
                    r#"curl -X POST https://open.feishu.cn/open-apis/auth/v3/tenant_access_token/internal -H "Content-Type: application/json" -d "{{\"app_id\":\"cli_a5f2c3d4e5f6a7b8\",\"app_secret\":\"{v}\"}}""#
                ),
            )
        }
        "generic-secret/escaped-json-in-python" => {
            let v = rng.text(40, ALNUM);
            both(
                v.clone(),
                format!(
                    r#"python3 -c "import requests; print(requests.post('https://api.internal/v1/jobs', json={{\"api_key\": \"{v}\"}}).text)""#
                ),
            )
        }
        "generic-secret/symbol-password-env" => same(symbol_password(rng), "DB_PASSWORD"),
        "generic-secret/symbol-password-yaml" => {
            let v = symbol_password(rng);
            both(
                v.clone(),
                format!("database:\n  host: db.internal\n  password: {v}"),
            )
        }
        "generic-secret/symbol-password-json" => {
            let v = symbol_password(rng);
            both(
                v.clone(),
                format!("{{\"user\": \"app\", \"password\": \"{v}\"}}"),
            )
        }
        "generic-secret/hex-secret-key-base" => same(rng.text(128, HEX), "SECRET_KEY_BASE"),
        "generic-secret/openssl-rand-hex" => {
            let v = rng.text(64, HEX);
            both(
                v.clone(),
                format!(
                    "# made with `openssl rand -hex 32`\n[session]\nsecret = {v}\nmax_age = 3600"
                ),
            )
        }
        other => panic!("no maker for kind {other}"),
    }
}

/// Things that look like secrets and are not.
fn look_alike(rng: &mut Rng, n: usize) -> String {
    let hex = |rng: &mut Rng, k| rng.text(k, HEX);
    match n % 22 {
        0 => {
            let u = format!("{}-{}-4{}-a{}-{}", hex(rng, 8), hex(rng, 4), hex(rng, 3), hex(rng, 3), hex(rng, 12));
            format!("request_id={u} trace_token: {u}")
        }
        1 => format!("commit {}\nAuthor: Dev <dev@example.org>\n\n    fix: retry on 503", hex(rng, 40)),
        2 => format!("{}  dist/app-linux-amd64.tar.gz", hex(rng, 64)),
        3 => format!("{}  release.iso", hex(rng, 128)),
        4 => format!(
            "\"node_modules/lodash\": {{\"version\": \"4.17.21\", \"integrity\": \"sha512-{}==\"}}",
            rng.text(86, B64)
        ),
        5 => format!("golang.org/x/oauth2 v0.2{}.0 h1:{}=", rng.below(9), rng.text(43, B64)),
        6 => format!(
            "pub   rsa4096 2024-01-01 [SC]\n      {}\nuid           [ultimate] Dev <dev@example.org>\nKey fingerprint = {}",
            rng.text(40, b"0123456789ABCDEF"),
            (0..10).map(|_| rng.text(4, b"0123456789ABCDEF")).collect::<Vec<_>>().join(" ")
        ),
        7 => format!(
            "!function(e,t){{var n={{apiKey:e.apiKey,token:t.token||\"\",secret:e.s}};e.{}=function(r){{return r.password=n.password,r}}}}(window,{{}});",
            rng.text(6, LETTERS)
        ),
        8 => format!("<img src=\"data:image/png;base64,{}\">", rng.text(600, B64)),
        9 => format!("CONTAINER ID   IMAGE\n{}   postgres:16", hex(rng, 12)),
        10 => format!("docker inspect: \"Id\": \"sha256:{}\"", hex(rng, 64)),
        // A GitHub-shaped token whose checksum is wrong: not a token GitHub issued.
        11 => format!("GITHUB_TOKEN={}", github_style(rng, "ghp_", false)),
        12 => "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY".to_owned(),
        13 => "DATABASE_URL=postgres://app:${DB_PASSWORD}@localhost:5432/app\nREDIS_URL=redis://localhost:6379".to_owned(),
        14 => format!("cache-key: {}\nETag: \"{}\"", hex(rng, 40), hex(rng, 32)),
        // Issue 42: Feishu/Lark document ids (96 of 229 findings on real sessions), and
        // digests named as digests.
        16 => format!(
            "{{\"code\":0,\"data\":{{\"node\":{{\"node_token\":\"{}\",\"obj_token\":\"{}\",\"obj_type\":\"docx\",\"parent_node_token\":\"{}\",\"space_id\":\"7{}\",\"title\":\"Runbook\"}}}},\"msg\":\"success\"}}",
            rng.text(27, ALNUM), rng.text(27, ALNUM), rng.text(27, ALNUM), rng.text(18, DIGITS)
        ),
        17 => format!(
            "Opened https://acme.feishu.cn/wiki/{}?from=from_copylink and https://acme.feishu.cn/docx/doxcn{}\nwiki_token={}",
            rng.text(27, ALNUM), rng.text(22, ALNUM), rng.text(27, ALNUM)
        ),
        18 => format!("[[package]]\nname = \"tokenizers\"\nversion = \"0.19.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"{}\"", hex(rng, 64)),
        19 => format!("{{\"user\": \"dev\", \"password_hash\": \"{}\", \"token_sha256\": \"{}\"}}", hex(rng, 64), hex(rng, 64)),
        20 => format!("sha256 = \"{}\"\ndigest: sha256:{}", hex(rng, 64), hex(rng, 64)),
        _ => format!("npm_config_cache=/home/dev/.npm\nnpm_{}", rng.text(20, LETTERS)),
    }
}

/// Ordinary code and prose, for bulk.
fn filler(rng: &mut Rng, lines: usize) -> String {
    let words = [
        "the", "request", "handler", "returns", "cache", "order", "user", "retry", "config",
        "build", "test", "deploy", "value", "index", "parser", "queue", "worker", "error",
    ];
    let mut s = String::new();
    for i in 0..lines {
        match i % 4 {
            0 => {
                let _ = writeln!(
                    s,
                    "fn {}_{}(x: u32) -> u32 {{",
                    rng.pick(&words),
                    rng.pick(&words)
                );
            }
            1 => {
                let _ = writeln!(
                    s,
                    "    let {} = x * {} + {};",
                    rng.pick(&words),
                    rng.below(100),
                    rng.below(1000)
                );
            }
            2 => {
                let _ = writeln!(
                    s,
                    "    // {} {} {} {}",
                    rng.pick(&words),
                    rng.pick(&words),
                    rng.pick(&words),
                    rng.pick(&words)
                );
            }
            _ => s.push_str("}\n"),
        }
    }
    s
}

/// A session being written: its lines and the clock.
struct Writer {
    lines: Vec<String>,
    n: usize,
    parent: Option<String>,
}

impl Writer {
    fn entry(&mut self, mut v: Value) -> String {
        self.n += 1;
        let id = format!("{:08x}", self.n);
        v["id"] = json!(id);
        v["parentId"] = json!(self.parent);
        v["timestamp"] = json!(format!(
            "2026-07-01T10:{:02}:{:02}.000Z",
            (self.n / 60) % 60,
            self.n % 60
        ));
        self.parent = Some(id.clone());
        self.lines.push(serde_json::to_string(&v).unwrap());
        id
    }
    fn message(&mut self, message: Value) -> String {
        self.entry(json!({"type": "message", "message": message}))
    }
    fn assistant(&mut self, content: Value) {
        self.message(json!({
            "role": "assistant", "content": content, "api": "anthropic-messages",
            "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": {"input": 1200, "output": 80, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1280,
                      "cost": {"input": 0.0036, "output": 0.0012, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0048}},
            "stopReason": "toolUse", "timestamp": 1_782_900_000_000u64 + self.n as u64,
        }));
    }
    fn tool(&mut self, name: &str, args: Value, output: &str) {
        let call = format!("toolu_{:016x}", self.n);
        self.assistant(json!([{"type": "toolCall", "id": call, "name": name, "arguments": args}]));
        self.message(json!({
            "role": "toolResult", "toolCallId": call, "toolName": name,
            "content": [{"type": "text", "text": output}], "isError": false,
            "timestamp": 1_782_900_000_000u64 + self.n as u64,
        }));
    }
    /// The last line with `value` written escaped as JSON may write it: `/` as `\/` and
    /// some letters as `\u00XX`.
    fn escape_last(&mut self, value: &str) {
        let last = self.lines.last_mut().unwrap();
        let mut escaped = String::new();
        for (i, c) in value.chars().enumerate() {
            match c {
                '/' => escaped.push_str("\\/"),
                c if c.is_ascii_alphabetic() && i % 5 == 2 => {
                    let _ = write!(escaped, "\\u{:04x}", c as u32);
                }
                c => escaped.push(c),
            }
        }
        *last = last.replacen(value, &escaped, 1);
    }
}

/// Writes `secret` into the session in the `how`-th way sessions carry one.
fn plant(w: &mut Writer, s: &Secret, how: usize) {
    let env_dump = |line: &str| {
        format!("HOME=/home/dev\nPATH=/usr/local/bin:/usr/bin\nLANG=C.UTF-8\n{line}\nTERM=xterm-256color\n")
    };
    match how % 9 {
        0 => w.tool("bash", json!({"command": "env | sort"}), &env_dump(&s.line)),
        1 => w.tool("read", json!({"path": ".env"}), &format!("# local settings\nNODE_ENV=development\n{}\nPORT=3000\n", s.line)),
        2 => w.assistant(json!([{"type": "toolCall", "id": "toolu_x", "name": "bash",
                                 "arguments": {"command": format!("{}\nmake deploy", s.line.replace('\n', " "))}}])),
        3 => w.assistant(json!([
            {"type": "thinking", "thinking": format!("The config they pasted holds\n{}\nso I must not echo it.", s.line), "thinkingSignature": "c2lnbmF0dXJl"},
            {"type": "text", "text": "I'll keep the credentials out of the logs."},
        ])),
        4 => {
            w.entry(json!({"type": "compaction", "summary": format!("## Progress\nConfigured the deploy:\n{}\n", s.line), "firstKeptEntryId": "00000001", "tokensBefore": 50_000}));
        }
        5 => {
            w.entry(json!({"type": "custom", "customType": "env-snapshot", "data": {"vars": {"SNAPSHOT": s.line}}}));
        }
        6 => {
            // JSON inside a tool result's JSON: a tool printing a JSON document whose field
            // holds another JSON document.
            // Its slashes escaped, as PHP's json_encode and many APIs write them.
            let inner = serde_json::to_string(&json!({"config": {"line": s.line}}))
                .unwrap()
                .replace('/', "\\/");
            let outer = serde_json::to_string_pretty(&json!({"status": "ok", "stdout": inner})).unwrap();
            w.tool("bash", json!({"command": "kubectl get secret app -o json"}), &outer);
        }
        7 => {
            w.message(json!({"role": "user", "content": format!("here are the settings:\n{}\nplease wire them up", s.line), "timestamp": 1_782_900_000_000u64}));
            w.escape_last(&s.value);
        }
        _ => {
            w.message(json!({"role": "bashExecution", "command": "cat ~/.config/app/credentials", "output": env_dump(&s.line),
                             "exitCode": 0, "cancelled": false, "truncated": false, "timestamp": 1_782_900_000_000u64}));
            w.escape_last(&s.value);
        }
    }
}

/// A planted secret as the manifest records it.
pub(crate) struct Planted {
    pub file: PathBuf,
    pub form: &'static str,
    pub kind: &'static str,
    pub value: String,
}

pub(crate) struct Corpus {
    pub planted: Vec<Planted>,
    pub look_alikes: usize,
    pub bytes: u64,
}

/// Writes `sessions` sessions of about `session_bytes` each under `root/sessions/`, planting
/// `per_kind` instances of every kind and `look_alikes` look-alikes among them.
pub(crate) fn write(
    root: &Path,
    sessions: usize,
    session_bytes: usize,
    per_kind: usize,
    look_alikes: usize,
) -> Corpus {
    let mut rng = Rng(0x05EC_2E75);
    let mut planted = Vec::new();
    let mut queue: Vec<Secret> = Vec::new();
    for _ in 0..per_kind {
        for kind in KINDS {
            queue.push(secret(&mut rng, kind));
        }
    }
    let mut bytes = 0;
    let per_session_secrets = queue.len().div_ceil(sessions);
    let per_session_alikes = look_alikes.div_ceil(sessions);
    let mut alike = 0;
    let mut how = 0;
    for i in 0..sessions {
        let project = ["webshop", "infra", "ml-pipeline", "docs"][i % 4];
        let dir = root
            .join("sessions")
            .join(format!("--home-dev-{project}--"));
        fs::create_dir_all(&dir).unwrap();
        let id = format!(
            "0197{:04x}-0000-7000-8000-{:012x}",
            i,
            rng.next() & 0xFFFF_FFFF_FFFF
        );
        let file = dir.join(format!("2026-07-01T10-00-00-000Z_{id}.jsonl"));
        let header = json!({"type": "session", "version": 3, "id": id, "timestamp": "2026-07-01T10:00:00.000Z", "cwd": format!("/home/dev/{project}")});
        let mut w = Writer {
            lines: vec![header.to_string()],
            n: 0,
            parent: None,
        };
        w.message(json!({"role": "user", "content": "Set up the deploy for staging.", "timestamp": 1_782_900_000_000u64}));
        let mut size = 0usize;
        let mut planted_here = 0;
        // Fixed now: the queue shrinks as this session plants.
        let want_here = per_session_secrets.min(queue.len());
        let mut alikes_here = 0;
        while size < session_bytes
            || planted_here < want_here
            || (alikes_here < per_session_alikes && alike < look_alikes)
        {
            if planted_here < per_session_secrets {
                if let Some(s) = queue.pop() {
                    plant(&mut w, &s, how);
                    how += 1;
                    planted.push(Planted {
                        file: file.clone(),
                        form: s.form,
                        kind: s.kind,
                        value: s.value,
                    });
                    planted_here += 1;
                }
            }
            if alikes_here < per_session_alikes && alike < look_alikes {
                let text = look_alike(&mut rng, alike);
                match alike % 3 {
                    0 => w.tool(
                        "bash",
                        json!({"command": "git log -3 && sha256sum dist/*"}),
                        &text,
                    ),
                    1 => w.tool("read", json!({"path": "package-lock.json"}), &text),
                    _ => w.assistant(json!([{"type": "text", "text": format!("Output:\n{text}")}])),
                }
                alike += 1;
                alikes_here += 1;
            }
            let lines = 40 + rng.below(200);
            let code = filler(&mut rng, lines);
            w.tool(
                "read",
                json!({"path": format!("src/{}.rs", rng.text(6, b"abcdefghij"))}),
                &code,
            );
            if rng.below(6) == 0 {
                let png = rng.text(8000, B64);
                w.message(json!({"role": "toolResult", "toolCallId": "toolu_img", "toolName": "screenshot",
                                 "content": [{"type": "image", "data": png, "mimeType": "image/png"}], "isError": false, "timestamp": 1_782_900_000_000u64}));
            }
            size = w.lines.iter().map(|l| l.len() + 1).sum();
        }
        let text = w.lines.join("\n") + "\n";
        bytes += text.len() as u64;
        fs::write(&file, text).unwrap();
    }
    assert!(queue.is_empty(), "every secret planted");
    Corpus {
        planted,
        look_alikes: alike,
        bytes,
    }
}
