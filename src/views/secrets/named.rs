//! Values known by the vendor's name they are assigned to (`ADAFRUIT_KEY="…"`), one rule per
//! gitleaks default rule of that shape, under gitleaks's id. A named value is read through
//! escaped quotes (`{\"adafruit_key\":\"…\"}` in a shell command), as the generic
//! assignment is; placeholders are filtered.

use super::rules::{table, Def};

/// A value assigned to a vendor's name: the name, up to 20 name characters, quotes (escaped
/// or not), a separator (`=`, `:`, `:=`, `=>`, `||`, `?=`, `,`), quotes again, the value.
macro_rules! named {
    ($name:literal, $value:literal) => {
        concat!(
            r"(?i:(?:", $name, r"))[ \t\w.-]{0,20}(?:\\{0,3}[\x22']|\s){0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)(?:[\x60\x22'\s=]|\\){0,5}(",
            $value,
            r")(?:[\x60\x22'\s;,)\]}\\]|$)"
        )
    };
}

/// Values known by a vendor's name, after the URL and header rules and before the generic
/// assignment.
pub(crate) const NAMED: &[Def] = table![Def::NAMED;
    "adafruit-api-key", &["adafruit"], 0.0, named!(r"adafruit", r"(?i:[a-z0-9_-]{32})");
    "adobe-client-id", &["adobe"], 2.0, named!(r"adobe", r"(?i:[a-f0-9]{32})");
    "airtable-api-key", &["airtable"], 0.0, named!(r"airtable", r"(?i:[a-z0-9]{17})");
    "algolia-api-key", &["algolia"], 0.0, named!(r"algolia", r"(?i:[a-z0-9]{32})");
    "alibaba-secret-key", &["alibaba"], 2.0, named!(r"alibaba", r"(?i:[a-z0-9]{30})");
    "asana-client-id", &["asana"], 0.0, named!(r"asana", r"(?i:[0-9]{16})");
    "asana-client-secret", &["asana"], 0.0, named!(r"asana", r"(?i:[a-z0-9]{32})");
    "atlassian-api-token", &["atlassian", "confluence", "jira", "atatt3"], 3.5,
        named!(r"(?-i:ATLASSIAN|[Aa]tlassian)|(?-i:CONFLUENCE|[Cc]onfluence)|(?-i:JIRA|[Jj]ira)", r#"(?i:[a-z0-9]{20}[a-f0-9]{4})(?:[\x60'"\s;]|\\[nr]|$)|\b(ATATT3[A-Za-z0-9_\-=]{186})"#);
    "beamer-api-token", &["beamer"], 0.0, named!(r"beamer", r"(?i:b_[a-z0-9=_\-]{44})");
    "bitbucket-client-id", &["bitbucket"], 0.0, named!(r"bitbucket", r"(?i:[a-z0-9]{32})");
    "bitbucket-client-secret", &["bitbucket"], 0.0, named!(r"bitbucket", r"(?i:[a-z0-9=_\-]{64})");
    "bittrex-secret-key", &["bittrex"], 0.0,
        named!(r"bittrex[\w.-]{0,20}?secret", r"(?i:[a-z0-9]{32})");
    "bittrex-access-key", &["bittrex"], 0.0, named!(r"bittrex", r"(?i:[a-z0-9]{32})");
    "cisco-meraki-api-key", &["meraki"], 3.0, named!(r"(?-i:[Mm]eraki|MERAKI)", r"[0-9a-f]{40}");
    "cloudflare-api-key", &["cloudflare"], 2.0, named!(r"cloudflare", r"(?i:[a-z0-9_-]{40})");
    "cloudflare-global-api-key", &["cloudflare"], 2.0, named!(r"cloudflare", r"(?i:[a-f0-9]{37})");
    "codecov-access-token", &["codecov"], 0.0, named!(r"codecov", r"(?i:[a-z0-9]{32})");
    "cohere-api-token", &["cohere", "co_api_key"], 4.0,
        named!(r"cohere|CO_API_KEY", r"[a-zA-Z0-9]{40}");
    "coinbase-access-token", &["coinbase"], 0.0, named!(r"coinbase", r"(?i:[a-z0-9_-]{64})");
    "confluent-access-token", &["confluent"], 0.0, named!(r"confluent", r"(?i:[a-z0-9]{16})");
    "confluent-secret-key", &["confluent"], 0.0, named!(r"confluent", r"(?i:[a-z0-9]{64})");
    "contentful-delivery-api-token", &["contentful"], 0.0,
        named!(r"contentful", r"(?i:[a-z0-9=_\-]{43})");
    "datadog-access-token", &["datadog"], 0.0, named!(r"datadog", r"(?i:[a-z0-9]{40})");
    "defined-networking-api-token", &["dnkey"], 0.0,
        named!(r"dnkey", r"(?i:dnkey-[a-z0-9=_\-]{26}-[a-z0-9=_\-]{52})");
    "discord-api-token", &["discord"], 0.0, named!(r"discord", r"(?i:[a-f0-9]{64})");
    "discord-client-id", &["discord"], 2.0, named!(r"discord", r"(?i:[0-9]{18})");
    "discord-client-secret", &["discord"], 2.0, named!(r"discord", r"(?i:[a-z0-9=_\-]{32})");
    "droneci-access-token", &["droneci"], 0.0, named!(r"droneci", r"(?i:[a-z0-9]{32})");
    "dropbox-api-token", &["dropbox"], 0.0, named!(r"dropbox", r"(?i:[a-z0-9]{15})");
    "dropbox-long-lived-api-token", &["dropbox"], 0.0,
        named!(r"dropbox", r"(?i:[a-z0-9]{11}(AAAAAAAAAA)[a-z0-9\-_=]{43})");
    "dropbox-short-lived-api-token", &["dropbox"], 0.0,
        named!(r"dropbox", r"(?i:sl\.[a-z0-9\-=_]{135})");
    "etsy-access-token", &["etsy"], 3.0, named!(r"(?-i:ETSY|[Ee]tsy)", r"(?i:[a-z0-9]{24})");
    "facebook-secret", &["facebook"], 3.0, named!(r"facebook", r"(?i:[a-f0-9]{32})");
    "fastly-api-token", &["fastly"], 0.0, named!(r"fastly", r"(?i:[a-z0-9=_\-]{32})");
    "finicity-api-token", &["finicity"], 0.0, named!(r"finicity", r"(?i:[a-f0-9]{32})");
    "finicity-client-secret", &["finicity"], 0.0, named!(r"finicity", r"(?i:[a-z0-9]{20})");
    "finnhub-access-token", &["finnhub"], 0.0, named!(r"finnhub", r"(?i:[a-z0-9]{20})");
    "flickr-access-token", &["flickr"], 0.0, named!(r"flickr", r"(?i:[a-z0-9]{32})");
    "freshbooks-access-token", &["freshbooks"], 0.0, named!(r"freshbooks", r"(?i:[a-z0-9]{64})");
    "gitter-access-token", &["gitter"], 0.0, named!(r"gitter", r"(?i:[a-z0-9_-]{40})");
    "gocardless-api-token", &["live_", "gocardless"], 0.0,
        named!(r"gocardless", r"(?i:live_(?i)[a-z0-9\-_=]{40})");
    "heroku-api-key", &["heroku"], 0.0,
        named!(r"heroku", r"(?i:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");
    "hubspot-api-key", &["hubspot"], 0.0,
        named!(r"hubspot", r"(?i:[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12})");
    "intercom-api-key", &["intercom"], 0.0, named!(r"intercom", r"(?i:[a-z0-9=_\-]{60})");
    "jfrog-api-key", &["jfrog", "artifactory", "bintray", "xray"], 0.0,
        named!(r"jfrog|artifactory|bintray|xray", r"(?i:[a-z0-9]{73})");
    "jfrog-identity-token", &["jfrog", "artifactory", "bintray", "xray"], 0.0,
        named!(r"jfrog|artifactory|bintray|xray", r"(?i:[a-z0-9]{64})");
    "kraken-access-token", &["kraken"], 0.0, named!(r"kraken", r"(?i:[a-z0-9\/=_\+\-]{80,90})");
    "kucoin-access-token", &["kucoin"], 0.0, named!(r"kucoin", r"(?i:[a-f0-9]{24})");
    "kucoin-secret-key", &["kucoin"], 0.0,
        named!(r"kucoin", r"(?i:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");
    "launchdarkly-access-token", &["launchdarkly"], 0.0,
        named!(r"launchdarkly", r"(?i:[a-z0-9=_\-]{40})");
    "linear-client-secret", &["linear"], 2.0, named!(r"linear", r"(?i:[a-f0-9]{32})");
    "linkedin-client-id", &["linkedin", "linked_in", "linked-in"], 2.0,
        named!(r"linked[_-]?in", r"(?i:[a-z0-9]{14})");
    "linkedin-client-secret", &["linkedin", "linked_in", "linked-in"], 2.0,
        named!(r"linked[_-]?in", r"(?i:[a-z0-9]{16})");
    "lob-api-key", &["test_", "live_"], 0.0, named!(r"lob", r"(?i:(live|test)_[a-f0-9]{35})");
    "lob-pub-api-key", &["test_pub", "live_pub"], 0.0,
        named!(r"lob", r"(?i:(test|live)_pub_[a-f0-9]{31})");
    "looker-client-id", &["looker"], 0.0, named!(r"looker", r"(?i:[a-z0-9]{20})");
    "looker-client-secret", &["looker"], 0.0, named!(r"looker", r"(?i:[a-z0-9]{24})");
    "mailchimp-api-key", &["mailchimp"], 0.0,
        named!(r"MailchimpSDK.initialize|mailchimp", r"(?i:[a-f0-9]{32}-us\d\d)");
    "mailgun-private-api-token", &["mailgun"], 0.0, named!(r"mailgun", r"(?i:key-[a-f0-9]{32})");
    "mailgun-pub-key", &["mailgun"], 0.0, named!(r"mailgun", r"(?i:pubkey-[a-f0-9]{32})");
    "mailgun-signing-key", &["mailgun"], 0.0,
        named!(r"mailgun", r"(?i:[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8})");
    "mapbox-api-token", &["mapbox"], 0.0, named!(r"mapbox", r"(?i:pk\.[a-z0-9]{60}\.[a-z0-9]{22})");
    "mattermost-access-token", &["mattermost"], 0.0, named!(r"mattermost", r"(?i:[a-z0-9]{26})");
    "messagebird-api-token", &["messagebird", "message-bird", "message_bird"], 0.0,
        named!(r"message[_-]?bird", r"(?i:[a-z0-9]{25})");
    "messagebird-client-id", &["messagebird", "message-bird", "message_bird"], 0.0,
        named!(r"message[_-]?bird", r"(?i:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");
    "netlify-access-token", &["netlify"], 0.0, named!(r"netlify", r"(?i:[a-z0-9=_\-]{40,46})");
    "new-relic-browser-api-token", &["nrjs-"], 0.0,
        named!(r"new-relic|newrelic|new_relic", r"(?i:NRJS-[a-f0-9]{19})");
    "new-relic-insert-key", &["nrii-"], 0.0,
        named!(r"new-relic|newrelic|new_relic", r"(?i:NRII-[a-z0-9-]{32})");
    "new-relic-user-api-id", &["new-relic", "newrelic", "new_relic"], 0.0,
        named!(r"new-relic|newrelic|new_relic", r"(?i:[a-z0-9]{64})");
    "new-relic-user-api-key", &["nrak"], 0.0,
        named!(r"new-relic|newrelic|new_relic", r"(?i:NRAK-[a-z0-9]{27})");
    "nytimes-access-token", &["nytimes", "new-york-times", "newyorktimes"], 0.0,
        named!(r"nytimes|new-york-times,|newyorktimes", r"(?i:[a-z0-9=_\-]{32})");
    "okta-access-token", &["okta"], 4.0, named!(r"(?-i:[Oo]kta|OKTA)", r"00[\w=\-]{40}");
    "plaid-api-token", &["plaid"], 0.0,
        named!(r"plaid", r"(?i:access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");
    "plaid-client-id", &["plaid"], 3.5, named!(r"plaid", r"(?i:[a-z0-9]{24})");
    "plaid-secret-key", &["plaid"], 3.5, named!(r"plaid", r"(?i:[a-z0-9]{30})");
    "privateai-api-token", &["privateai", "private_ai", "private-ai"], 3.0,
        named!(r"private[_-]?ai", r"[a-z0-9]{32}");
    "rapidapi-access-token", &["rapidapi"], 0.0, named!(r"rapidapi", r"(?i:[a-z0-9_-]{50})");
    "sendbird-access-id", &["sendbird"], 0.0,
        named!(r"sendbird", r"(?i:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");
    "sendbird-access-token", &["sendbird"], 0.0, named!(r"sendbird", r"(?i:[a-f0-9]{40})");
    "sentry-access-token", &["sentry"], 3.0, named!(r"sentry", r"(?i:[a-f0-9]{64})");
    "sidekiq-secret", &["bundle_enterprise__contribsys__com", "bundle_gems__contribsys__com"], 0.0,
        named!(r"BUNDLE_ENTERPRISE__CONTRIBSYS__COM|BUNDLE_GEMS__CONTRIBSYS__COM", r"(?i:[a-f0-9]{8}:[a-f0-9]{8})");
    "snyk-api-token", &["snyk"], 0.0,
        named!(r"snyk[_.-]?(?:(?:api|oauth)[_.-]?)?(?:key|token)", r"(?i:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");
    "sonar-api-token", &["sonar"], 0.0,
        named!(r"sonar[_.-]?(?:login|token)", r"(?i:(?:squ_|sqp_|sqa_)?[a-z0-9=_\-]{40})");
    "squarespace-access-token", &["squarespace"], 0.0,
        named!(r"squarespace", r"(?i:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})");
    "sumologic-access-id", &["sumo"], 3.0, named!(r"(?-i:[Ss]umo|SUMO)", r"su[a-zA-Z0-9]{12}");
    "sumologic-access-token", &["sumo"], 3.0, named!(r"(?-i:[Ss]umo|SUMO)", r"(?i:[a-z0-9]{64})");
    "travisci-access-token", &["travis"], 0.0, named!(r"travis", r"(?i:[a-z0-9]{22})");
    "twitch-api-token", &["twitch"], 0.0, named!(r"twitch", r"(?i:[a-z0-9]{30})");
    "twitter-access-secret", &["twitter"], 0.0, named!(r"twitter", r"(?i:[a-z0-9]{45})");
    "twitter-access-token", &["twitter"], 0.0,
        named!(r"twitter", r"(?i:[0-9]{15,25}-[a-zA-Z0-9]{20,40})");
    "twitter-api-key", &["twitter"], 0.0, named!(r"twitter", r"(?i:[a-z0-9]{25})");
    "twitter-api-secret", &["twitter"], 0.0, named!(r"twitter", r"(?i:[a-z0-9]{50})");
    "twitter-bearer-token", &["twitter"], 0.0,
        named!(r"twitter", r"(?i:A{22}[a-zA-Z0-9%]{80,100})");
    "typeform-api-token", &["tfp_"], 0.0, named!(r"typeform", r"(?i:tfp_[a-z0-9\-_\.=]{59})");
    "yandex-access-token", &["yandex"], 0.0,
        named!(r"yandex", r"(?i:t1\.[A-Z0-9a-z_-]+[=]{0,2}\.[A-Z0-9a-z_-]{86}[=]{0,2})");
    "yandex-api-key", &["yandex"], 0.0, named!(r"yandex", r"(?i:AQVN[A-Za-z0-9_\-]{35,38})");
    "yandex-aws-access-token", &["yandex"], 0.0, named!(r"yandex", r"(?i:YC[a-zA-Z0-9_\-]{38})");
    "zendesk-secret-key", &["zendesk"], 0.0, named!(r"zendesk", r"(?i:[a-z0-9]{40})");
];
