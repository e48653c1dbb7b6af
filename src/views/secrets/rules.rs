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

/// Filters a rule applies to what its regex captured.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Filters {
    /// `changeme`, `${VAR}`, `<password>`, `xxxx`, `****`, the keyword itself...
    pub(crate) placeholder: bool,
    /// Digests (hex of SHA-1/256/384/512 length, `sha512-…` integrity, go.sum's `h1:`),
    /// UUIDs.
    pub(crate) hashes: bool,
    /// A letter and a digit both, and not a dotted identifier (`e.apiKey`) or a path.
    pub(crate) mixed: bool,
}

const NONE: Filters = Filters {
    placeholder: false,
    hashes: false,
    mixed: false,
};
const PLACEHOLDER: Filters = Filters {
    placeholder: true,
    hashes: false,
    mixed: false,
};
const GENERIC: Filters = Filters {
    placeholder: true,
    hashes: true,
    mixed: true,
};

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
    pub(crate) const fn token(
        kind: &'static str,
        regex: &'static str,
        keywords: &'static [&'static str],
        entropy: f64,
    ) -> Def {
        Def {
            kind,
            regex,
            keywords,
            group: None,
            entropy,
            check: Check::None,
            filters: NONE,
            allow: &[],
            allow_match: &[],
            aliases: &[],
        }
    }

    /// A value known by the name it is assigned to (`ADAFRUIT_KEY=…`): placeholders are
    /// filtered.
    pub(crate) const fn named(
        kind: &'static str,
        regex: &'static str,
        keywords: &'static [&'static str],
        entropy: f64,
    ) -> Def {
        Def {
            filters: PLACEHOLDER,
            ..Def::token(kind, regex, keywords, entropy)
        }
    }
}

/// Characters after a token that end it: not a letter, digit or `_`. A `-` ends one too, even
/// for a format whose alphabet holds `-` (a fixed-length token then ends there): pi's folder
/// names write a project path's `/` as `-` (`/w/<token>/app` is `--w-<token>-app--`).
macro_rules! end {
    () => {
        r"(?:[^A-Za-z0-9_]|$)"
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
pub(crate) const FORMATS: &[Def] = &[
    Def {
        kind: "private-key",
        regex: r"(?s)-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----.*?-----END[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----",
        keywords: &["PRIVATE KEY"],
        group: Some(0),
        entropy: 0.0,
        check: Check::PemBody,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "github-pat",
        regex: concat!(r"(?-u:\b)(ghp_[A-Za-z0-9]{36})", end!()),
        keywords: &["ghp_"],
        group: None,
        entropy: 0.0,
        check: Check::Crc32Base62,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "github-oauth",
        regex: concat!(r"(?-u:\b)(gho_[A-Za-z0-9]{36})", end!()),
        keywords: &["gho_"],
        group: None,
        entropy: 0.0,
        check: Check::Crc32Base62,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "github-user-to-server",
        regex: concat!(r"(?-u:\b)(ghu_[A-Za-z0-9]{36})", end!()),
        keywords: &["ghu_"],
        group: None,
        entropy: 0.0,
        check: Check::Crc32Base62,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["github-app-token"],
    },
    Def {
        kind: "github-server-to-server",
        regex: concat!(r"(?-u:\b)(ghs_[A-Za-z0-9]{36})", end!()),
        keywords: &["ghs_"],
        group: None,
        entropy: 0.0,
        check: Check::Crc32Base62,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["github-app-token"],
    },
    Def {
        kind: "github-refresh",
        regex: concat!(r"(?-u:\b)(ghr_[A-Za-z0-9]{36})", end!()),
        keywords: &["ghr_"],
        group: None,
        entropy: 0.0,
        check: Check::Crc32Base62,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["github-refresh-token"],
    },
    Def {
        kind: "github-fine-grained-pat",
        regex: concat!(
            r"(?-u:\b)(github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})",
            end!()
        ),
        keywords: &["github_pat_"],
        group: None,
        entropy: 3.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "gitlab-pat",
        regex: concat!(r"(?-u:\b)(glpat-[A-Za-z0-9_-]{20})", end!()),
        keywords: &["glpat-"],
        group: None,
        entropy: 3.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "npm-token",
        regex: concat!(r"(?-u:\b)(npm_[A-Za-z0-9]{36})", end!()),
        keywords: &["npm_"],
        group: None,
        entropy: 0.0,
        check: Check::Crc32Base62,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["npm-access-token"],
    },
    Def {
        kind: "pypi-token",
        regex: concat!(r"(?-u:\b)(pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})", end!()),
        keywords: &["pypi-AgEIcHlwaS5vcmc"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["pypi-upload-token"],
    },
    Def {
        kind: "aws-access-key-id",
        regex: r"(?-u:\b)((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})(?-u:\b)",
        keywords: &["AKIA", "ASIA", "ABIA", "ACCA", "A3T"],
        group: None,
        entropy: 3.0,
        check: Check::None,
        filters: NONE,
        allow: &["EXAMPLE$"],
        allow_match: &[],
        aliases: &["aws-access-token"],
    },
    Def {
        kind: "aws-secret-access-key",
        regex: r#"(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)["']?[ \t]{0,3}(?::|=)[ \t]{0,3}["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        keywords: &["secret"],
        group: None,
        entropy: 3.5,
        check: Check::None,
        filters: PLACEHOLDER,
        allow: &["EXAMPLE"],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "aws-session-token",
        regex: r#"(?i:(?:aws_?)?session_?token["']?[ \t]{0,3}(?::|=)[ \t]{0,3}["']?)([A-Za-z0-9/+=]{100,})|(?-u:\b)((?:FwoGZXIvYXdz|IQoJb3JpZ2lu)[A-Za-z0-9/+=]{100,})"#,
        keywords: &[
            "session_token",
            "sessiontoken",
            "FwoGZXIvYXdz",
            "IQoJb3JpZ2lu",
        ],
        group: None,
        entropy: 3.5,
        check: Check::None,
        filters: PLACEHOLDER,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "gcp-api-key",
        regex: concat!(r"(?-u:\b)(AIza[0-9A-Za-z_-]{35})", end!()),
        keywords: &["AIza"],
        group: None,
        entropy: 3.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "slack-bot-token",
        regex: concat!(
            r"(?-u:\b)(xoxb-[0-9]{10,13}-[0-9]{10,13}-[A-Za-z0-9]{24})",
            end!()
        ),
        keywords: &["xoxb-"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "slack-user-token",
        regex: concat!(
            r"(?-u:\b)(xox[pe](?:-[0-9]{10,13}){3}-[A-Za-z0-9]{28,34})",
            end!()
        ),
        keywords: &["xoxp-", "xoxe-"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "slack-app-token",
        regex: concat!(
            r"(?-u:\b)(xapp-[0-9]-[A-Z0-9]{9,12}-[0-9]{10,13}-[a-f0-9]{64})",
            end!()
        ),
        keywords: &["xapp-"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "slack-webhook",
        regex: r"(https?://hooks\.slack\.com/(?:services|workflows|triggers)/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}/[A-Za-z0-9]{24})(?:[^A-Za-z0-9]|$)",
        keywords: &["hooks.slack.com"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["slack-webhook-url"],
    },
    Def {
        kind: "stripe-secret-key",
        regex: concat!(
            r"(?-u:\b)(sk_(?:live|test|prod)_[A-Za-z0-9]{10,99})",
            end!()
        ),
        keywords: &["sk_live_", "sk_test_", "sk_prod_"],
        group: None,
        entropy: 3.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["stripe-access-token"],
    },
    Def {
        kind: "stripe-restricted-key",
        regex: concat!(
            r"(?-u:\b)(rk_(?:live|test|prod)_[A-Za-z0-9]{10,99})",
            end!()
        ),
        keywords: &["rk_live_", "rk_test_", "rk_prod_"],
        group: None,
        entropy: 3.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["stripe-access-token"],
    },
    Def {
        kind: "anthropic-api-key",
        regex: concat!(
            r"(?-u:\b)(sk-ant-(?:api03|admin01)-[A-Za-z0-9_-]{93}AA)",
            end!()
        ),
        keywords: &["sk-ant-"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["anthropic-admin-api-key"],
    },
    Def {
        kind: "openai-api-key",
        regex: concat!(
            r"(?-u:\b)(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,156}T3BlbkFJ[A-Za-z0-9_-]{20,156})",
            end!()
        ),
        keywords: &["T3BlbkFJ"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "huggingface-token",
        regex: r"(?-u:\b)(hf_[A-Za-z]{34})(?-u:\b)",
        keywords: &["hf_"],
        group: None,
        entropy: 3.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["huggingface-access-token"],
    },
    Def {
        kind: "telegram-bot-token",
        regex: concat!(r"(?:^|[^0-9])([0-9]{8,10}:AA[A-Za-z0-9_-]{33})", end!()),
        keywords: &[":AA"],
        group: None,
        entropy: 3.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["telegram-bot-api-token"],
    },
    Def {
        kind: "sendgrid-api-key",
        regex: concat!(
            r"(?-u:\b)(SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43})",
            end!()
        ),
        keywords: &["SG."],
        group: None,
        entropy: 3.0,
        check: Check::None,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &["sendgrid-api-token"],
    },
    Def {
        kind: "jwt",
        regex: concat!(
            r"(?-u:\b)(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,})",
            end!()
        ),
        keywords: &["eyJ"],
        group: None,
        entropy: 0.0,
        check: Check::JwtHeader,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
];

/// Passwords in URLs, and `Authorization` headers.
pub(crate) const CONTEXT: &[Def] = &[
    Def {
        kind: "postgres-url",
        regex: r#"(?i)(?-u:\b)postgres(?:ql)?(?:\+[a-z0-9]+)?://[^\s:/@"'<>]*:([^\s/@"'<>]+)@[^\s/@"'<>]"#,
        keywords: &["postgres"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: PLACEHOLDER,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "mysql-url",
        regex: r#"(?i)(?-u:\b)(?:mysql|mariadb)(?:\+[a-z0-9]+)?://[^\s:/@"'<>]*:([^\s/@"'<>]+)@[^\s/@"'<>]"#,
        keywords: &["mysql", "mariadb"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: PLACEHOLDER,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "mongodb-url",
        regex: r#"(?i)(?-u:\b)mongodb(?:\+srv)?://[^\s:/@"'<>]*:([^\s/@"'<>]+)@[^\s/@"'<>]"#,
        keywords: &["mongodb"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: PLACEHOLDER,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "redis-url",
        regex: r#"(?i)(?-u:\b)rediss?://[^\s:/@"'<>]*:([^\s/@"'<>]+)@[^\s/@"'<>]"#,
        keywords: &["redis"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: PLACEHOLDER,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "amqp-url",
        regex: r#"(?i)(?-u:\b)amqps?://[^\s:/@"'<>]*:([^\s/@"'<>]+)@[^\s/@"'<>]"#,
        keywords: &["amqp"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: PLACEHOLDER,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "basic-auth-url",
        regex: r#"(?i)(?-u:\b)https?://[^\s:/@"'<>]+:([^\s/@"'<>]+)@[^\s/@"'<>]"#,
        keywords: &["http"],
        group: None,
        entropy: 0.0,
        check: Check::None,
        filters: PLACEHOLDER,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "bearer-token",
        regex: r"(?i)(?-u:\b)bearer[ \t]+([A-Za-z0-9_~+/.-]{20,}={0,2})(?:[^A-Za-z0-9_~+/.=-]|$)",
        keywords: &["bearer"],
        group: None,
        entropy: 3.0,
        check: Check::None,
        filters: PLACEHOLDER,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "basic-auth-header",
        regex: r"(?i)(?-u:\b)basic[ \t]+([A-Za-z0-9+/]{12,}={0,2})(?:[^A-Za-z0-9+/=]|$)",
        keywords: &["basic"],
        group: None,
        entropy: 0.0,
        check: Check::BasicAuth,
        filters: NONE,
        allow: &[],
        allow_match: &[],
        aliases: &[],
    },
    Def {
        kind: "curl-auth-header",
        regex: r#"(?i)(?-u:\b)curl(?-u:\b)[^\n]*?[ \t](?:-H|--header)(?:=|[ \t]{0,5})\\{0,3}["'](?:Authorization:[ \t]{0,5}(?:Basic[ \t]+([a-z0-9+/]{8,}={0,3})|(?:Bearer|(?:Api-)?Token)[ \t]+([\w=~@.+/-]{8,})|([\w=~@.+/-]{8,}))|(?:X-(?:[a-z]+-)?)?(?:Api-?)?(?:Key|Token):[ \t]{0,5}([\w=~@.+/-]{8,}))"#,
        keywords: &["curl"],
        entropy: 2.75,
        ..Def::named("", "", &[], 0.0)
    },
    Def {
        // The password of `curl -u user:password` (`--user`, `-u:token`); the user is not a
        // secret.
        kind: "curl-auth-user",
        regex: r#"(?-u:\b)curl(?-u:\b)[^\n]*?[ \t](?:-u|--user)(?:=|[ \t]{1,5})(?:\\{0,3}["'])?[^\s:"'\\]{0,100}:([^\s"'\\]{3,200})"#,
        keywords: &["curl"],
        entropy: 2.0,
        ..Def::named("", "", &[], 0.0)
    },
    Def {
        // `mysql -pPASSWORD` (no blank: `-p` alone prompts) and `--password=PASSWORD`, for
        // the MySQL and MariaDB clients and tools.
        kind: "mysql-cli-password",
        regex: r#"(?-u:\b)(?i:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb|mariadb-dump)(?-u:\b)[^\n|;&]{0,200}?[ \t](?:-p|--password=)(?:\\{0,3}["'])?([^\s"'\\-][^\s"'\\]{2,199})"#,
        keywords: &["mysql", "mariadb"],
        entropy: 2.0,
        ..Def::named("", "", &[], 0.0)
    },
];

/// Assignments to a name that says secret, and what needs a name to tell it.
pub(crate) const ASSIGNMENTS: &[Def] = &[
    Def {
        kind: "kubernetes-secret-yaml",
        regex: r#"(?i)(?-u:\b)kind:[ \t]*["']?secret(?-u:\b)["']?(?s:.){0,200}?(?-u:\b)data:(?s:.){0,100}?\s[\w.-]+:[ \t]*["']?([a-z0-9+/]{10,}={0,3})["']?(?:\s|$)"#,
        keywords: &["kind:"],
        entropy: 3.0,
        ..Def::named("", "", &[], 0.0)
    },
    Def {
        kind: "freemius-secret-key",
        regex: r#"(?i)["']secret_key["']\s*=>\s*["'](sk_[^\s"']{29})["']"#,
        ..Def::named("", "", &["secret_key"], 0.0)
    },
    Def {
        kind: "nuget-config-password",
        regex: r#"(?i)<add key=\\{0,3}"(?:ClearText)?Password\\{0,3}"\s*value=\\{0,3}"([^"\\]{8,})\\{0,3}"\s*/>"#,
        ..Def::named("", "", &["<add key="], 1.0)
    },
    Def {
        kind: "generic-secret",
        regex: concat!(
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
        keywords: &[
            "api",
            "secret",
            "token",
            "passw",
            "pwd",
            "auth",
            "access",
            "private",
            "credential",
        ],
        group: None,
        entropy: 3.5,
        check: Check::None,
        filters: GENERIC,
        allow: &[],
        allow_match: &[
            // The name decides: a digest of a secret (`password_hash`, `token_sha256`) is not
            // one...
            r#"(?i)(?:sha(?:1|224|256|384|512)?|md5|hash|digest|checksum|integrity|fingerprint|etag)\\{0,3}["']?[ \t]{0,3}(?::=|=>|=|:)"#,
            // ...nor a Feishu/Lark document, wiki node or page id under a `*_token` name.
            r#"(?i)(?:^|[^a-z])(?:parent_?|origin_?)?(?:node|obj|wiki|space|doc|docx|sheet|bitable|file|folder|mindnote|slides|page)_?token\\{0,3}["']?[ \t]{0,3}(?::=|=>|=|:)[ \t]{0,3}(?:\\{0,3}["'`])?[A-Za-z0-9]{16,40}(?:[^A-Za-z0-9_.~+/=!@#$%^&*?-]|$)"#,
        ],
        aliases: &["generic-api-key"],
    },
    Def {
        kind: "hashicorp-tf-password",
        regex: r#"(?i)(?:administrator_login_password|password)[ \t]*=[ \t]*"([a-z0-9=_-]{8,20})""#,
        keywords: &["password"],
        entropy: 2.0,
        filters: GENERIC,
        ..Def::token("", "", &[], 0.0)
    },
];
