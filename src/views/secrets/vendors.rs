//! The families of vendor keys gitleaks's default configuration knows, one rule each under
//! gitleaks's id, so that a report names the same kind in both tools and `--secrets-config`
//! can disable one by the id a gitleaks user knows. docs/secrets.md maps every gitleaks id to
//! its rule here or in [`super::rules`] (where ours covers it under another name).
//!
//! Here the tokens known by their prefix (`dop_v1_` + 64 hex); [`super::named`] holds the
//! values known by the vendor's name they are assigned to. Where gitleaks's pattern would
//! take a plain digest for a key (sourcegraph's bare 40 hex: a git commit), ours asks for
//! the prefix.

use super::rules::{table, Def};

/// A prefixed token: `(?-u:\b)` before it, a character outside the token alphabet after it.
macro_rules! token {
    ($body:literal) => {
        concat!(r"(?-u:\b)(", $body, r")(?:[^A-Za-z0-9_-]|$)")
    };
}

/// `sk` and each pair of the digits given: the keywords of a token that starts with `SK` and
/// two hex digits.
macro_rules! sk_pairs {
    ([$($a:tt)*]) => { sk_pairs!(@ [] [$($a)*] [$($a)*]) };
    (@ [$($out:expr),*] [] $all:tt) => { &[$($out),*] };
    (@ [$($out:expr),*] [$a:tt $($rest:tt)*] [$($b:tt)*]) => {
        sk_pairs!(@ [$($out,)* $(concat!("sk", stringify!($a), stringify!($b))),*] [$($rest)*] [$($b)*])
    };
}

/// `SK` and two hex digits: gitleaks's keyword `sk` is in every `task` and `disk`, and would
/// have every stored line decoded.
const TWILIO_KEYWORDS: &[&str] = sk_pairs!([0 1 2 3 4 5 6 7 8 9 a b c d e f]);

/// Prefixed tokens, before the URL and header rules.
pub(crate) const TOKENS: &[Def] = table![Def::TOKEN;
    "1password-secret-key", &["a3-"], 3.8,
        token!(r"A3-[A-Z0-9]{6}-(?:(?:[A-Z0-9]{11})|(?:[A-Z0-9]{6}-[A-Z0-9]{5}))-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}");
    "1password-service-account-token", &["ops_"], 4.0, token!(r"ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}");
    "adobe-client-secret", &["p8e-"], 2.0, token!(r"p8e-(?i)[a-z0-9]{32}");
    "age-secret-key", &["age-secret-key-1"], 0.0,
        token!(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}");
    "airtable-personnal-access-token", &["airtable"], 0.0,
        token!(r"pat[[:alnum:]]{14}\.[a-f0-9]{64}");
    "alibaba-access-key-id", &["ltai"], 2.0, token!(r"LTAI(?i)[a-z0-9]{20}");
    "artifactory-api-key", &["akcp"], 4.5, token!(r"AKCp[A-Za-z0-9]{69}");
    "artifactory-reference-token", &["cmvmd"], 4.5, token!(r"cmVmd[A-Za-z0-9]{59}");
    "authress-service-client-access-key", &[".acc_", ".acc-"], 2.0,
        token!(r"(?:sc|ext|scauth|authress)_(?i)[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.(?-i:acc)[_-][a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120}");
    "aws-amazon-bedrock-api-key-long-lived", &["absk"], 3.0,
        token!(r"ABSK[A-Za-z0-9+/]{109,269}={0,2}");
    "aws-amazon-bedrock-api-key-short-lived", &["bedrock-api-key-"], 3.0,
        token!(r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/]{40,}={0,2}");
    "clickhouse-cloud-api-secret-key", &["4b1d"], 3.0, token!(r"4b1d[A-Za-z0-9]{38}");
    "clojars-api-token", &["clojars_"], 2.0, token!(r"(?i:CLOJARS_[a-z0-9]{60})");
    "cloudflare-origin-ca-key", &["cloudflare", "v1.0-"], 2.0,
        token!(r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}");
    "databricks-api-token", &["dapi"], 3.0, token!(r"dapi[a-f0-9]{32}(?:-\d)?");
    "digitalocean-access-token", &["doo_v1_"], 3.0, token!(r"doo_v1_[a-f0-9]{64}");
    "digitalocean-pat", &["dop_v1_"], 3.0, token!(r"dop_v1_[a-f0-9]{64}");
    "digitalocean-refresh-token", &["dor_v1_"], 0.0, token!(r"(?i:(dor_v1_[a-f0-9]{64}))");
    "doppler-api-token", &["dp.pt."], 2.0, token!(r"dp\.pt\.(?i)[a-z0-9]{43}");
    "duffel-api-token", &["duffel_"], 2.0, token!(r"duffel_(?:test|live)_(?i)[a-z0-9_\-=]{43}");
    "dynatrace-api-token", &["dt0c01."], 4.0, token!(r"dt0c01\.(?i)[a-z0-9]{24}\.[a-z0-9]{64}");
    "easypost-api-token", &["ezak"], 2.0, token!(r"EZAK(?i)[a-z0-9]{54}");
    "easypost-test-api-token", &["eztk"], 2.0, token!(r"EZTK(?i)[a-z0-9]{54}");
    "facebook-access-token", &["facebook"], 3.0,
        token!(r"(?i:(\d{15,16}(\||%)[0-9a-z\-_]{27,40}))");
    "facebook-page-access-token", &["eaam", "eaac"], 4.0, token!(r"EAA[MC](?i)[a-z0-9]{100,}");
    "flutterwave-encryption-key", &["flwseck_test"], 2.0, token!(r"FLWSECK_TEST-(?i)[a-h0-9]{12}");
    "flutterwave-public-key", &["flwpubk_test"], 2.0, token!(r"FLWPUBK_TEST-(?i)[a-h0-9]{32}-X");
    "flutterwave-secret-key", &["flwseck_test"], 2.0, token!(r"FLWSECK_TEST-(?i)[a-h0-9]{32}-X");
    "flyio-access-token", &["fo1_", "fm1", "fm2_"], 4.0,
        token!(r"(?:fo1_[\w-]{43}|fm1[ar]_[a-zA-Z0-9+\/]{100,}={0,3}|fm2_[a-zA-Z0-9+\/]{100,}={0,3})");
    "frameio-api-token", &["fio-u-"], 0.0, token!(r"fio-u-(?i)[a-z0-9\-_=]{64}");
    "gitlab-cicd-job-token", &["glcbt-"], 3.0, token!(r"glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_-]{20}");
    "gitlab-deploy-token", &["gldt-"], 3.0, token!(r"gldt-[0-9a-zA-Z_\-]{20}");
    "gitlab-feature-flag-client-token", &["glffct-"], 3.0, token!(r"glffct-[0-9a-zA-Z_\-]{20}");
    "gitlab-feed-token", &["glft-"], 3.0, token!(r"glft-[0-9a-zA-Z_\-]{20}");
    "gitlab-incoming-mail-token", &["glimt-"], 3.0, token!(r"glimt-[0-9a-zA-Z_\-]{25}");
    "gitlab-kubernetes-agent-token", &["glagent-"], 3.0, token!(r"glagent-[0-9a-zA-Z_\-]{50}");
    "gitlab-oauth-app-secret", &["gloas-"], 3.0, token!(r"gloas-[0-9a-zA-Z_\-]{64}");
    "gitlab-pat-routable", &["glpat-"], 4.0,
        token!(r"glpat-[0-9a-zA-Z_-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}");
    "gitlab-ptt", &["glptt-"], 3.0, token!(r"glptt-[0-9a-f]{40}");
    "gitlab-rrt", &["gr1348941"], 3.0, token!(r"GR1348941[\w-]{20}");
    "gitlab-runner-authentication-token", &["glrt-"], 3.0, token!(r"glrt-[0-9a-zA-Z_\-]{20}");
    "gitlab-runner-authentication-token-routable", &["glrt-"], 4.0,
        token!(r"glrt-t\d_[0-9a-zA-Z_\-]{27,300}\.[0-9a-z]{2}[0-9a-z]{7}");
    "gitlab-scim-token", &["glsoat-"], 3.0, token!(r"glsoat-[0-9a-zA-Z_\-]{20}");
    "gitlab-session-cookie", &["_gitlab_session="], 3.0, token!(r"_gitlab_session=[0-9a-z]{32}");
    "grafana-api-key", &["eyjrijoi"], 3.0, token!(r"(?i:(eyJrIjoi[A-Za-z0-9]{70,400}={0,3}))");
    "grafana-cloud-api-token", &["glc_"], 3.0, token!(r"(?i:(glc_[A-Za-z0-9+/]{32,400}={0,3}))");
    "grafana-service-account-token", &["glsa_"], 3.0,
        token!(r"(?i:(glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}))");
    "harness-api-key", &["pat.", "sat."], 0.0,
        token!(r"(?:pat|sat)\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9]{24}\.[a-zA-Z0-9]{20}");
    "hashicorp-tf-api-token", &["atlasv1"], 3.5,
        token!(r"(?i:[a-z0-9]{14}\.(?-i:atlasv1)\.[a-z0-9\-_=]{60,70})");
    "heroku-api-key-v2", &["hrku-aa"], 4.0, token!(r"(HRKU-AA[0-9a-zA-Z_-]{58})");
    "huggingface-organization-api-token", &["api_org_"], 2.0, token!(r"api_org_(?i:[a-z]{34})");
    "infracost-api-token", &["ico-"], 3.0, token!(r"ico-[a-zA-Z0-9]{32}");
    "intra42-client-secret", &["intra", "s-s4t2ud-", "s-s4t2af-"], 3.0,
        token!(r"s-s4t2(?:ud|af)-(?i)[abcdef0123456789]{64}");
    "linear-api-key", &["lin_api_"], 2.0, token!(r"lin_api_(?i)[a-z0-9]{40}");
    "maxmind-license-key", &["_mmk"], 4.0, token!(r"[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk");
    "notion-api-token", &["ntn_"], 4.0, token!(r"ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3}");
    "octopus-deploy-api-key", &["api-"], 3.0, token!(r"API-[A-Z0-9]{26}");
    "openshift-user-token", &["sha256~"], 3.5, token!(r"(sha256~[\w-]{43})(?:[^\w-]|\z)");
    "perplexity-api-key", &["pplx-"], 4.0,
        token!(r#"(pplx-[a-zA-Z0-9]{48})(?:[\x60'"\s;]|\\[nr]|$|\b)"#);
    "planetscale-api-token", &["pscale_tkn_"], 3.0, token!(r"pscale_tkn_(?i)[\w=\.-]{32,64}");
    "planetscale-oauth-token", &["pscale_oauth_"], 3.0, token!(r"pscale_oauth_[\w=\.-]{32,64}");
    "planetscale-password", &["pscale_pw_"], 3.0, token!(r"(?i:(pscale_pw_(?i)[\w=\.-]{32,64}))");
    "postman-api-token", &["pmak-"], 3.0, token!(r"PMAK-(?i)[a-f0-9]{24}\-[a-f0-9]{34}");
    "prefect-api-token", &["pnu_"], 2.0, token!(r"pnu_[a-zA-Z0-9]{36}");
    "pulumi-api-token", &["pul-"], 2.0, token!(r"pul-[a-f0-9]{40}");
    "readme-api-token", &["rdme_"], 2.0, token!(r"rdme_[a-z0-9]{70}");
    "rubygems-api-token", &["rubygems_"], 2.0, token!(r"rubygems_[a-f0-9]{48}");
    "scalingo-api-token", &["tk-us-"], 2.0, token!(r"tk-us-[\w-]{48}");
    "sendinblue-api-token", &["xkeysib-"], 2.0, token!(r"xkeysib-[a-f0-9]{64}\-(?i)[a-z0-9]{16}");
    "sentry-user-token", &["sntryu_"], 3.5, token!(r"sntryu_[a-f0-9]{64}");
    "settlemint-application-access-token", &["sm_aat"], 3.0, token!(r"sm_aat_[a-zA-Z0-9]{16}");
    "settlemint-personal-access-token", &["sm_pat"], 3.0, token!(r"sm_pat_[a-zA-Z0-9]{16}");
    "settlemint-service-access-token", &["sm_sat"], 3.0, token!(r"sm_sat_[a-zA-Z0-9]{16}");
    "shippo-api-token", &["shippo_"], 2.0, token!(r"shippo_(?:live|test)_[a-fA-F0-9]{40}");
    "shopify-access-token", &["shpat_"], 2.0, token!(r"shpat_[a-fA-F0-9]{32}");
    "shopify-custom-access-token", &["shpca_"], 2.0, token!(r"shpca_[a-fA-F0-9]{32}");
    "shopify-private-app-access-token", &["shppa_"], 2.0, token!(r"shppa_[a-fA-F0-9]{32}");
    "shopify-shared-secret", &["shpss_"], 2.0, token!(r"shpss_[a-fA-F0-9]{32}");
    "slack-config-access-token", &["xoxe.xoxb-", "xoxe.xoxp-"], 2.0,
        token!(r"(?i:xoxe.xox[bp]-\d-[A-Z0-9]{163,166})");
    "slack-config-refresh-token", &["xoxe-"], 2.0, token!(r"(?i:xoxe-\d-[A-Z0-9]{146})");
    "slack-legacy-bot-token", &["xoxb"], 2.0, token!(r"xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}");
    "slack-legacy-token", &["xoxo", "xoxs"], 2.0, token!(r"xox[os]-\d+-\d+-\d+-[a-fA-F\d]+");
    "slack-legacy-workspace-token", &["xoxa", "xoxr"], 2.0,
        token!(r"xox[ar]-(?:\d-)?[0-9a-zA-Z]{8,48}");
    "square-access-token", &["sq0atp-", "eaaa"], 2.0, token!(r"(?:EAAA|sq0atp-)[\w-]{22,60}");
    "twilio-api-key", TWILIO_KEYWORDS, 3.0, token!(r"SK[0-9a-fA-F]{32}");
    "vault-batch-token", &["hvb."], 4.0, token!(r"hvb\.[\w-]{138,300}");
    "sourcegraph-access-token", &["sgp_"], 3.0,
        token!(r"(?i:sgp_(?:[a-f0-9]{16}|local)_[a-f0-9]{40}|sgp_[a-f0-9]{40})");
    "jwt-base64", &["zxlk"], 2.0,
        token!(r"ZXlK(?:aGJHY2lPaU|aGNIVWlPaU|aGNIWWlPaU|aGRXUWlPaU|aU5qUWlP|amNtbDBJanBi|amRIa2lPaU|bGNHc2lPbn|bGJtTWlPaU|cWEzVWlPaU|cWQyc2lPb|cGMzTWlPaU|cGRpSTZJ|cmFXUWlP|clpYbGZiM0J6SWpwY|cmRIa2lPaUp|dWIyNWpaU0k2|d01tTWlP|d01uTWlPaU|d2NIUWlPaU|emRXSWlPaU|emRuUWlP|MFlXY2lPaU|MGVYQWlPaUp|MWNtd2l|MWMyVWlPaUp|MlpYSWlPaU|MlpYSnphVzl1SWpv|NElqb2|NE5XTWlP|NE5YUWlPaU|NE5YUWpVekkxTmlJNkl|NE5YVWlPaU|NmFYQWlPaU)[a-zA-Z0-9/_+-]{40,}={0,2}");
    "microsoft-teams-webhook", &["webhook.office.com", "webhookb2", "incomingwebhook"], 0.0,
        token!(r"https://[a-z0-9]+\.webhook\.office\.com/webhookb2/[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}");
    "sentry-org-token", &["sntrys_eyjpyxqio"], 4.5,
        token!(r"sntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}");
    // The legacy `s.` form only where `vault` is said: `s.` is in every sentence.
    "vault-service-token", &["hvs.", "vault"], 3.5,
        token!(r"hvs\.[\w-]{90,120}|s\.(?i:[a-z0-9]{24})");
    // A PKCS#12 file (gitleaks's `pkcs12-file` finds `.p12`/`.pfx` files by path; a session
    // holds their bytes as base64): SEQUENCE, version 3, then PKCS#7 data (1.2.840.113549.1.7.1).
    "pkcs12-file", &["cSqGSIb3DQEHAaCC"], 0.0,
        token!(r"MII[A-Za-z0-9+/]{2}[AQgw]IBAzCC[A-Za-z0-9+/]{3}GCSqGSIb3DQEHAaCC[A-Za-z0-9+/]{64,}={0,2}");
    "azure-ad-client-secret", &["q~"], 3.0,
        r#"(?:^|[\\'"\x60\s>=:(,)])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\'"\x60\s<),])"#;
    "sidekiq-sensitive-url", &["gems.contribsys.com", "enterprise.contribsys.com"], 0.0,
        r"(?i)(?-u:\b)https?://([a-f0-9]{8}:[a-f0-9]{8})@(?:gems|enterprise)\.contribsys\.com(?:[/#?:]|$)";
    "azure-storage-account-key", &["accountkey"], 4.0,
        r"(?i)(?-u:\b)AccountKey\s*=\s*([A-Za-z0-9+/]{86}==)(?:[^A-Za-z0-9+/=]|$)";
];
