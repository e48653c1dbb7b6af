//! The built-in rules, as data: one row per kind of secret. Each names the keywords that
//! must occur (case-insensitively) in a text before its regex is run, the capture group that
//! holds the secret, an entropy floor, a validator for formats that carry their own check,
//! and the filters that keep hashes and placeholders out. docs/secrets.md lists them; keep the
//! two in step.
//!
//! Regexes are compiled as byte regexes without Unicode (as RE2, which gitleaks uses, has an
//! ASCII `\b`): every token format here is ASCII, and the lazy DFA then serves every rule.

/// A rule's regex, compiled the first time a text holds one of its keywords: a run reads
/// texts that wake a few of the ~240 rules, and compiling them all would cost more than
/// searching a small store.
pub(crate) struct LazyRegex {
    pattern: &'static str,
    cell: std::sync::OnceLock<regex::bytes::Regex>,
}

impl LazyRegex {
    /// A built-in pattern (they all compile: a test compiles each).
    pub(crate) fn new(pattern: &'static str) -> LazyRegex {
        LazyRegex {
            pattern,
            cell: std::sync::OnceLock::new(),
        }
    }

    /// A regex already compiled (a configuration's, whose errors are reported as it loads).
    pub(crate) fn compiled(regex: regex::bytes::Regex) -> LazyRegex {
        LazyRegex {
            pattern: "",
            cell: std::sync::OnceLock::from(regex),
        }
    }
}

impl std::ops::Deref for LazyRegex {
    type Target = regex::bytes::Regex;

    fn deref(&self) -> &regex::bytes::Regex {
        self.cell
            .get_or_init(|| super::compile(self.pattern).expect("built-in rules compile"))
    }
}

impl std::fmt::Debug for LazyRegex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.cell.get().map_or(self.pattern, |r| r.as_str()))
    }
}

/// A format's own check of a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    None,
    /// GitHub's and npm's: the last 6 characters are the base62 CRC32 of the 30 before them.
    Crc32Base62,
    /// A JWT's header is base64url JSON naming an `alg`.
    JwtHeader,
    /// `Authorization: Basic` carries base64 of `user:password`.
    BasicAuth,
    /// A PEM block's body holds at least 64 base64 characters (not `...` or a placeholder).
    PemBody,
}

/// Filters a rule applies to what its regex captured; each level filters what the one
/// before does, and more.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Filters {
    #[default]
    None,
    /// `changeme`, `${VAR}`, `<password>`, `xxxx`, `****`, the keyword itself...
    Placeholder,
    /// Then digests (`sha512-…` integrity, go.sum's `h1:`), UUIDs; a letter and a digit
    /// both, and not a dotted identifier (`e.apiKey`) or a path.
    Generic,
}

/// One built-in rule.
pub(crate) struct Def {
    pub(crate) kind: &'static str,
    pub(crate) regex: &'static str,
    pub(crate) keywords: &'static [&'static str],
    /// The group holding the secret; `None`: the first group that took part, else the match.
    pub(crate) group: Option<usize>,
    pub(crate) entropy: f64,
    pub(crate) check: Check,
    pub(crate) filters: Filters,
    /// Regexes over the secret that mark documented examples (AWS's `…EXAMPLE` keys).
    pub(crate) allow: &'static [&'static str],
    /// Regexes over the whole match (name, separator and value) that mark a value as no
    /// secret by its name: a digest under `sha256`, a Feishu document id under `node_token`.
    pub(crate) allow_match: &'static [&'static str],
    /// gitleaks's ids for what this rule finds, where gitleaks names it otherwise: a
    /// `--secrets-config` may disable or replace the rule by either name.
    pub(crate) aliases: &'static [&'static str],
}

impl Def {
    /// A token format known by its prefix: the whole token is the secret.
    pub(crate) const TOKEN: Def = Def {
        kind: "",
        regex: "",
        keywords: &[],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: Filters::None,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    };

    /// A value known by the name it is assigned to (`ADAFRUIT_KEY=…`): placeholders are
    /// filtered.
    pub(crate) const NAMED: Def = Def {
        filters: Filters::Placeholder,
        ..Def::TOKEN
    };
}

/// A table of rules, one row each: `kind, keywords, entropy, regex`, then the fields in which
/// it differs from the table's `base` (`check: …`, `aliases: …`).
macro_rules! table {
    ($base:expr; $($kind:literal, $keywords:expr, $entropy:literal, $regex:expr $(, $field:ident: $value:expr)*;)*) => {
        &[$(Def {
            kind: $kind,
            keywords: $keywords,
            entropy: $entropy,
            regex: $regex,
            $($field: $value,)*
            ..$base
        }),*]
    };
}
pub(crate) use table;

/// Characters after a token that end it: not a letter, digit or `_`. A `-` ends one too, even
/// for a format whose alphabet holds `-` (a fixed-length token then ends there): pi's folder
/// names write a project path's `/` as `-` (`/w/<token>/app` is `--w-<token>-app--`).
macro_rules! end {
    () => {
        r"(?:[^A-Za-z0-9_]|$)"
    };
}

/// A token at a word's start, ended as [`end!`] says.
macro_rules! word {
    ($body:literal) => {
        concat!(r"(?-u:\b)(", $body, ")", end!())
    };
}

/// A name that says secret (`DB_PASSWORD`, `stripe.apiKey`, `x-auth-token`).
macro_rules! secret_name {
    () => {
        r"[A-Za-z0-9_.-]{0,30}?(?:api[_.-]?key|apikey|secret|token|passw(?:or)?d|pwd|auth[_.-]?key|access[_.-]?key|private[_.-]?key|credentials?)[A-Za-z0-9_.-]{0,20}"
    };
}

/// After a name: its closing quote (escaped or not), an assignment, blanks.
macro_rules! assign {
    () => {
        r#"(?:\\{0,3}["'])?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}"#
    };
}

/// Formats with a prefix or a checksum of their own.
pub(crate) const FORMATS: &[Def] = table![Def::TOKEN;
    "private-key", &["PRIVATE KEY"], 0.0,
        r"(?s)-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----.*?-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----",
        group: Some(0), check: Check::PemBody;
    "github-pat", &["ghp_"], 0.0, word!(r"ghp_[A-Za-z0-9]{36}"), check: Check::Crc32Base62;
    "github-oauth", &["gho_"], 0.0, word!(r"gho_[A-Za-z0-9]{36}"), check: Check::Crc32Base62;
    "github-user-to-server", &["ghu_"], 0.0, word!(r"ghu_[A-Za-z0-9]{36}"),
        check: Check::Crc32Base62, aliases: &["github-app-token"];
    "github-server-to-server", &["ghs_"], 0.0, word!(r"ghs_[A-Za-z0-9]{36}"),
        check: Check::Crc32Base62, aliases: &["github-app-token"];
    "github-refresh", &["ghr_"], 0.0, word!(r"ghr_[A-Za-z0-9]{36}"),
        check: Check::Crc32Base62, aliases: &["github-refresh-token"];
    "github-fine-grained-pat", &["github_pat_"], 3.0,
        word!(r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}");
    "gitlab-pat", &["glpat-"], 3.0, word!(r"glpat-[A-Za-z0-9_-]{20}");
    "npm-token", &["npm_"], 0.0, word!(r"npm_[A-Za-z0-9]{36}"),
        check: Check::Crc32Base62, aliases: &["npm-access-token"];
    "pypi-token", &["pypi-AgEIcHlwaS5vcmc"], 0.0, word!(r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"),
        aliases: &["pypi-upload-token"];
    "aws-access-key-id", &["AKIA", "ASIA", "ABIA", "ACCA", "A3T"], 3.0,
        r"(?-u:\b)((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})(?-u:\b)",
        allow: &["EXAMPLE$"], aliases: &["aws-access-token"];
    "aws-secret-access-key", &["secret"], 3.5,
        r#"(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)["']?[ \t]{0,3}(?::|=)[ \t]{0,3}["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        filters: Filters::Placeholder, allow: &["EXAMPLE"];
    "aws-session-token", &["session_token", "sessiontoken", "FwoGZXIvYXdz", "IQoJb3JpZ2lu"], 3.5,
        r#"(?i:(?:aws_?)?session_?token["']?[ \t]{0,3}(?::|=)[ \t]{0,3}["']?)([A-Za-z0-9/+=]{100,})|(?-u:\b)((?:FwoGZXIvYXdz|IQoJb3JpZ2lu)[A-Za-z0-9/+=]{100,})"#,
        filters: Filters::Placeholder;
    "gcp-api-key", &["AIza"], 3.0, word!(r"AIza[0-9A-Za-z_-]{35}");
    "slack-bot-token", &["xoxb-"], 0.0, word!(r"xoxb-[0-9]{10,13}-[0-9]{10,13}-[A-Za-z0-9]{24}");
    "slack-user-token", &["xoxp-", "xoxe-"], 0.0,
        word!(r"xox[pe](?:-[0-9]{10,13}){3}-[A-Za-z0-9]{28,34}");
    "slack-app-token", &["xapp-"], 0.0,
        word!(r"xapp-[0-9]-[A-Z0-9]{9,12}-[0-9]{10,13}-[a-f0-9]{64}");
    "slack-webhook", &["hooks.slack.com"], 0.0,
        r"(https?://hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{24})(?:[^A-Za-z0-9]|$)",
        aliases: &["slack-webhook-url"];
    "stripe-secret-key", &["sk_live_", "sk_test_", "sk_prod_"], 3.0,
        word!(r"sk_(?:live|test|prod)_[A-Za-z0-9]{10,99}"), aliases: &["stripe-access-token"];
    "stripe-restricted-key", &["rk_live_", "rk_test_", "rk_prod_"], 3.0,
        word!(r"rk_(?:live|test|prod)_[A-Za-z0-9]{10,99}"), aliases: &["stripe-access-token"];
    "anthropic-api-key", &["sk-ant-"], 0.0,
        word!(r"sk-ant-(?:api03|admin01)-[A-Za-z0-9_-]{93}AA"),
        aliases: &["anthropic-admin-api-key"];
    "openai-api-key", &["T3BlbkFJ"], 0.0,
        word!(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,156}T3BlbkFJ[A-Za-z0-9_-]{20,156}");
    "huggingface-token", &["hf_"], 3.0, r"(?-u:\b)(hf_[A-Za-z]{34})(?-u:\b)",
        aliases: &["huggingface-access-token"];
    "telegram-bot-token", &[":AA"], 3.0,
        concat!(r"(?:^|[^0-9])([0-9]{8,10}:AA[A-Za-z0-9_-]{33})", end!()),
        aliases: &["telegram-bot-api-token"];
    "sendgrid-api-key", &["SG."], 3.0, word!(r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
        aliases: &["sendgrid-api-token"];
    "jwt", &["eyJ"], 0.0,
        word!(r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}"),
        check: Check::JwtHeader;
];

/// Passwords in URLs, and `Authorization` headers.
pub(crate) const CONTEXT: &[Def] = table![Def::NAMED;
    "postgres-url", &["postgres"], 0.0,
        r#"(?i)(?-u:\b)postgres(?:ql)?(?:\+[a-z0-9]+)?://[^\s:/@"'<>]*:([^\s/@"'<>]+)@[^\s/@"'<>]"#;
    "mysql-url", &["mysql", "mariadb"], 0.0,
        r#"(?i)(?-u:\b)(?:mysql|mariadb)(?:\+[a-z0-9]+)?://[^\s:/@"'<>]*:([^\s/@"'<>]+)@[^\s/@"'<>]"#;
    "mongodb-url", &["mongodb"], 0.0,
        r#"(?i)(?-u:\b)mongodb(?:\+srv)?://[^\s:/@"'<>]*:([^\s/@"'<>]+)@[^\s/@"'<>]"#;
    "redis-url", &["redis"], 0.0,
        r#"(?i)(?-u:\b)rediss?://[^\s:/@"'<>]*:([^\s/@"'<>]+)@[^\s/@"'<>]"#;
    "amqp-url", &["amqp"], 0.0,
        r#"(?i)(?-u:\b)amqps?://[^\s:/@"'<>]*:([^\s/@"'<>]+)@[^\s/@"'<>]"#;
    "basic-auth-url", &["http"], 0.0,
        r#"(?i)(?-u:\b)https?://[^\s:/@"'<>]+:([^\s/@"'<>]+)@[^\s/@"'<>]"#;
    "bearer-token", &["bearer"], 3.0,
        r"(?i)(?-u:\b)bearer[ \t]+([A-Za-z0-9_~+/.-]{20,}={0,2})(?:[^A-Za-z0-9_~+/.=-]|$)";
    "basic-auth-header", &["basic"], 0.0,
        r"(?i)(?-u:\b)basic[ \t]+([A-Za-z0-9+/]{12,}={0,2})(?:[^A-Za-z0-9+/=]|$)",
        check: Check::BasicAuth, filters: Filters::None;
    "curl-auth-header", &["curl"], 2.75,
        r#"(?i)(?-u:\b)curl(?-u:\b)[^\n]*?[ \t](?:-H|--header)(?:=|[ \t]{0,5})\\{0,3}["'](?:Authorization:[ \t]{0,5}(?:Basic[ \t]+([a-z0-9+/]{8,}={0,3})|(?:Bearer|(?:Api-)?Token)[ \t]+([\w=~@.+/-]{8,})|([\w=~@.+/-]{8,}))|(?:X-(?:[a-z]+-)?)?(?:Api-?)?(?:Key|Token):[ \t]{0,5}([\w=~@.+/-]{8,}))"#;
    // The password of `curl -u user:password` (`--user`, `-u:token`); the user is not a
    // secret.
    "curl-auth-user", &["curl"], 2.0,
        r#"(?-u:\b)curl(?-u:\b)[^\n]*?[ \t](?:-u|--user)(?:=|[ \t]{1,5})(?:\\{0,3}["'])?[^\s:"'\\]{0,100}:([^\s"'\\]{3,200})"#;
    // `mysql -pPASSWORD` (no blank: `-p` alone prompts) and `--password=PASSWORD`, for
    // the MySQL and MariaDB clients and tools.
    "mysql-cli-password", &["mysql", "mariadb"], 2.0,
        r#"(?-u:\b)(?i:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb|mariadb-dump)(?-u:\b)[^\n|;&]{0,200}?[ \t](?:-p|--password=)(?:\\{0,3}["'])?([^\s"'\\-][^\s"'\\]{2,199})"#;
];

/// Assignments to a name that says secret, and what needs a name to tell it.
pub(crate) const ASSIGNMENTS: &[Def] = table![Def::NAMED;
    "kubernetes-secret-yaml", &["kind:"], 3.0,
        r#"(?i)(?-u:\b)kind:[ \t]*["']?secret(?-u:\b)["']?(?s:.){0,200}?(?-u:\b)data:(?s:.){0,100}?\s[\w.-]+:[ \t]*["']?([a-z0-9+/]{10,}={0,3})["']?(?:\s|$)"#;
    "freemius-secret-key", &["secret_key"], 0.0,
        r#"(?i)["']secret_key["']\s*=>\s*["'](sk_[^\s"']{29})["']"#;
    "nuget-config-password", &["<add key="], 1.0,
        r#"(?i)<add key=\\{0,3}"(?:ClearText)?Password\\{0,3}"\s*value=\\{0,3}"([^"\\]{8,})\\{0,3}"\s*/>"#;
    "generic-secret",
        &["api", "secret", "token", "passw", "pwd", "auth", "access", "private", "credential"],
        3.5,
        concat!(
            // A query parameter (`?token=…&x=1`) ends at `&`...
            r"(?i)[?&]",
            secret_name!(),
            r"=([A-Za-z0-9_.~+/=!@#$%^*-]{8,200})(?:[^A-Za-z0-9_.~+/=!@#$%^*-]|$)",
            r#"|(?:^|[^A-Za-z0-9_.-])"#,
            secret_name!(),
            assign!(),
            // ...a quoted value at its quote, escaped or not (`{\"password\":\"…\"}` in a
            // shell command)...
            r#"(?:\\{0,3}"([^"\\\s]{8,200})\\{0,3}""#,
            r"|'([^'\\\s]{8,200})'",
            // ...and a bare one at what a password manager's symbols do not hold.
            r"|(?:\\{0,3}[`\x22'])?([A-Za-z0-9_.~+/=!@#$%^&*?-]{8,200})(?:[^A-Za-z0-9_.~+/=!@#$%^&*?-]|$))"
        ),
        filters: Filters::Generic,
        allow_match: &[
            // The name decides: a digest of a secret (`password_hash`, `token_sha256`) is not
            // one...
            r#"(?i)(?:sha(?:1|224|256|384|512)?|md5|hash|digest|checksum|integrity|fingerprint|etag)\\{0,3}["']?[ \t]{0,3}(?::=|=>|=|:)"#,
            // ...nor a Feishu/Lark document, wiki node or page id under a `*_token` name.
            r#"(?i)(?:^|[^a-z])(?:parent_?|origin_?)?(?:node|obj|wiki|space|doc|docx|sheet|bitable|file|folder|mindnote|slides|page)_?token\\{0,3}["']?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}(?:\\{0,3}["'`])?[A-Za-z0-9]{16,40}(?:[^A-Za-z0-9_.~+/=!@#$%^&*?-]|$)"#,
        ],
        aliases: &["generic-api-key"];
    "hashicorp-tf-password", &["password"], 2.0,
        r#"(?i)(?:administrator_login_password|password)[ \t]*=[ \t]*"([a-z0-9=_-]{8,20})""#,
        filters: Filters::Generic;
];
