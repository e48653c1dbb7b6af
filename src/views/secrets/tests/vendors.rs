//! Every gitleaks default rule id has a rule here (or answers to one as an alias), and each
//! rule of the vendor families finds its positive and not its near miss. Values are built
//! at run time from templates: `{N:alphabet}` is N characters of that alphabet (`=abc`
//! names the characters), `{{`/`}}` are braces. A near miss of `""` is the positive with its
//! longest run halved: too short for the format.

use super::chars;
use crate::views::secrets::{catalog, Detector};

/// gitleaks's default configuration's rule ids (config/gitleaks.toml of 8.30.1: 222 rules).
const GITLEAKS_IDS: &[&str] = &[
    "1password-secret-key",
    "1password-service-account-token",
    "adafruit-api-key",
    "adobe-client-id",
    "adobe-client-secret",
    "age-secret-key",
    "airtable-api-key",
    "airtable-personnal-access-token",
    "algolia-api-key",
    "alibaba-access-key-id",
    "alibaba-secret-key",
    "anthropic-admin-api-key",
    "anthropic-api-key",
    "artifactory-api-key",
    "artifactory-reference-token",
    "asana-client-id",
    "asana-client-secret",
    "atlassian-api-token",
    "authress-service-client-access-key",
    "aws-access-token",
    "aws-amazon-bedrock-api-key-long-lived",
    "aws-amazon-bedrock-api-key-short-lived",
    "azure-ad-client-secret",
    "beamer-api-token",
    "bitbucket-client-id",
    "bitbucket-client-secret",
    "bittrex-access-key",
    "bittrex-secret-key",
    "cisco-meraki-api-key",
    "clickhouse-cloud-api-secret-key",
    "clojars-api-token",
    "cloudflare-api-key",
    "cloudflare-global-api-key",
    "cloudflare-origin-ca-key",
    "codecov-access-token",
    "cohere-api-token",
    "coinbase-access-token",
    "confluent-access-token",
    "confluent-secret-key",
    "contentful-delivery-api-token",
    "curl-auth-header",
    "curl-auth-user",
    "databricks-api-token",
    "datadog-access-token",
    "defined-networking-api-token",
    "digitalocean-access-token",
    "digitalocean-pat",
    "digitalocean-refresh-token",
    "discord-api-token",
    "discord-client-id",
    "discord-client-secret",
    "doppler-api-token",
    "droneci-access-token",
    "dropbox-api-token",
    "dropbox-long-lived-api-token",
    "dropbox-short-lived-api-token",
    "duffel-api-token",
    "dynatrace-api-token",
    "easypost-api-token",
    "easypost-test-api-token",
    "etsy-access-token",
    "facebook-access-token",
    "facebook-page-access-token",
    "facebook-secret",
    "fastly-api-token",
    "finicity-api-token",
    "finicity-client-secret",
    "finnhub-access-token",
    "flickr-access-token",
    "flutterwave-encryption-key",
    "flutterwave-public-key",
    "flutterwave-secret-key",
    "flyio-access-token",
    "frameio-api-token",
    "freemius-secret-key",
    "freshbooks-access-token",
    "gcp-api-key",
    "generic-api-key",
    "github-app-token",
    "github-fine-grained-pat",
    "github-oauth",
    "github-pat",
    "github-refresh-token",
    "gitlab-cicd-job-token",
    "gitlab-deploy-token",
    "gitlab-feature-flag-client-token",
    "gitlab-feed-token",
    "gitlab-incoming-mail-token",
    "gitlab-kubernetes-agent-token",
    "gitlab-oauth-app-secret",
    "gitlab-pat",
    "gitlab-pat-routable",
    "gitlab-ptt",
    "gitlab-rrt",
    "gitlab-runner-authentication-token",
    "gitlab-runner-authentication-token-routable",
    "gitlab-scim-token",
    "gitlab-session-cookie",
    "gitter-access-token",
    "gocardless-api-token",
    "grafana-api-key",
    "grafana-cloud-api-token",
    "grafana-service-account-token",
    "harness-api-key",
    "hashicorp-tf-api-token",
    "hashicorp-tf-password",
    "heroku-api-key",
    "heroku-api-key-v2",
    "hubspot-api-key",
    "huggingface-access-token",
    "huggingface-organization-api-token",
    "infracost-api-token",
    "intercom-api-key",
    "intra42-client-secret",
    "jfrog-api-key",
    "jfrog-identity-token",
    "jwt",
    "jwt-base64",
    "kraken-access-token",
    "kubernetes-secret-yaml",
    "kucoin-access-token",
    "kucoin-secret-key",
    "launchdarkly-access-token",
    "linear-api-key",
    "linear-client-secret",
    "linkedin-client-id",
    "linkedin-client-secret",
    "lob-api-key",
    "lob-pub-api-key",
    "looker-client-id",
    "looker-client-secret",
    "mailchimp-api-key",
    "mailgun-private-api-token",
    "mailgun-pub-key",
    "mailgun-signing-key",
    "mapbox-api-token",
    "mattermost-access-token",
    "maxmind-license-key",
    "messagebird-api-token",
    "messagebird-client-id",
    "microsoft-teams-webhook",
    "netlify-access-token",
    "new-relic-browser-api-token",
    "new-relic-insert-key",
    "new-relic-user-api-id",
    "new-relic-user-api-key",
    "notion-api-token",
    "npm-access-token",
    "nuget-config-password",
    "nytimes-access-token",
    "octopus-deploy-api-key",
    "okta-access-token",
    "openai-api-key",
    "openshift-user-token",
    "perplexity-api-key",
    "pkcs12-file",
    "plaid-api-token",
    "plaid-client-id",
    "plaid-secret-key",
    "planetscale-api-token",
    "planetscale-oauth-token",
    "planetscale-password",
    "postman-api-token",
    "prefect-api-token",
    "private-key",
    "privateai-api-token",
    "pulumi-api-token",
    "pypi-upload-token",
    "rapidapi-access-token",
    "readme-api-token",
    "rubygems-api-token",
    "scalingo-api-token",
    "sendbird-access-id",
    "sendbird-access-token",
    "sendgrid-api-token",
    "sendinblue-api-token",
    "sentry-access-token",
    "sentry-org-token",
    "sentry-user-token",
    "settlemint-application-access-token",
    "settlemint-personal-access-token",
    "settlemint-service-access-token",
    "shippo-api-token",
    "shopify-access-token",
    "shopify-custom-access-token",
    "shopify-private-app-access-token",
    "shopify-shared-secret",
    "sidekiq-secret",
    "sidekiq-sensitive-url",
    "slack-app-token",
    "slack-bot-token",
    "slack-config-access-token",
    "slack-config-refresh-token",
    "slack-legacy-bot-token",
    "slack-legacy-token",
    "slack-legacy-workspace-token",
    "slack-user-token",
    "slack-webhook-url",
    "snyk-api-token",
    "sonar-api-token",
    "sourcegraph-access-token",
    "square-access-token",
    "squarespace-access-token",
    "stripe-access-token",
    "sumologic-access-id",
    "sumologic-access-token",
    "telegram-bot-api-token",
    "travisci-access-token",
    "twilio-api-key",
    "twitch-api-token",
    "twitter-access-secret",
    "twitter-access-token",
    "twitter-api-key",
    "twitter-api-secret",
    "twitter-bearer-token",
    "typeform-api-token",
    "vault-batch-token",
    "vault-service-token",
    "yandex-access-token",
    "yandex-api-key",
    "yandex-aws-access-token",
    "zendesk-secret-key",
];

/// (kind, positive, near miss) for the rules of the vendor families and the forms issue 42
/// found missed.
pub(super) const CASES: &[(&str, &str, &str)] = &[
("adafruit-api-key", "adafruit={32:lalnum} ", ""),
    ("adobe-client-id", "adobe={32:hex} ", ""),
    ("airtable-api-key", "airtable={17:lalnum} ", ""),
    ("algolia-api-key", "algolia={32:lalnum} ", ""),
    ("alibaba-secret-key", "alibaba={30:lalnum} ", ""),
    ("asana-client-id", "asana={16:digits} ", ""),
    ("asana-client-secret", "asana={32:lalnum} ", ""),
    ("atlassian-api-token", "ATLASSIAN={20:lalnum}{4:hex}  ", ""),
    ("beamer-api-token", "beamer=b_{44:lalnum} ", ""),
    ("bitbucket-client-id", "bitbucket={32:lalnum} ", ""),
    ("bitbucket-client-secret", "bitbucket={64:lalnum} ", "bitbucket={50:lalnum} "),
    ("bittrex-access-key", "bittrex={32:lalnum} ", ""),
    ("bittrex-secret-key", "bittrex_secret={32:lalnum} ", "bittrex_secret={16:lower} "),
    ("cisco-meraki-api-key", "Meraki={40:hex} ", ""),
    ("cloudflare-api-key", "cloudflare={40:lalnum} ", ""),
    ("cloudflare-global-api-key", "cloudflare={37:hex} ", ""),
    ("codecov-access-token", "codecov={32:lalnum} ", ""),
    ("cohere-api-token", "cohere={40:alnum} ", ""),
    ("coinbase-access-token", "coinbase={64:lalnum} ", ""),
    ("confluent-access-token", "confluent={16:lalnum} ", ""),
    ("confluent-secret-key", "confluent={64:lalnum} ", ""),
    ("contentful-delivery-api-token", "contentful={43:lalnum} ", ""),
    ("datadog-access-token", "datadog={40:lalnum} ", ""),
    ("defined-networking-api-token", "dnkey=dnkey-{26:lalnum}-{52:lalnum} ", ""),
    ("discord-api-token", "discord={64:hex} ", "discord={50:hex} "),
    ("discord-client-id", "discord={18:digits} ", ""),
    ("discord-client-secret", "discord={32:lalnum} ", ""),
    ("droneci-access-token", "droneci={32:lalnum} ", ""),
    ("dropbox-api-token", "dropbox={15:lalnum} ", ""),
    ("dropbox-long-lived-api-token", "dropbox={11:lalnum}AAAAAAAAAA{43:lalnum} ", ""),
    ("dropbox-short-lived-api-token", "dropbox=sl.{135:lalnum} ", ""),
    ("etsy-access-token", "ETSY={24:lalnum} ", ""),
    ("facebook-secret", "facebook={32:hex} ", ""),
    ("fastly-api-token", "fastly={32:lalnum} ", ""),
    ("finicity-api-token", "finicity={32:hex} ", ""),
    ("finicity-client-secret", "finicity={20:lalnum} ", ""),
    ("finnhub-access-token", "finnhub={20:lalnum} ", ""),
    ("flickr-access-token", "flickr={32:lalnum} ", ""),
    ("freshbooks-access-token", "freshbooks={64:lalnum} ", ""),
    ("gitter-access-token", "gitter={40:lalnum} ", ""),
    ("gocardless-api-token", "gocardless=live_{40:lalnum} ", ""),
    ("heroku-api-key", "heroku={8:hex}-{4:hex}-{4:hex}-{4:hex}-{12:hex} ", ""),
    ("hubspot-api-key", "hubspot={8:HEX}-{4:HEX}-{4:HEX}-{4:HEX}-{12:HEX} ", ""),
    ("intercom-api-key", "intercom={60:lalnum} ", ""),
    ("jfrog-api-key", "jfrog={73:lalnum} ", ""),
    ("jfrog-identity-token", "jfrog={64:lalnum} ", ""),
    ("kraken-access-token", "kraken={80:lalnum} ", ""),
    ("kucoin-access-token", "kucoin={24:hex} ", ""),
    ("kucoin-secret-key", "kucoin={8:hex}-{4:hex}-{4:hex}-{4:hex}-{12:hex} ", ""),
    ("launchdarkly-access-token", "launchdarkly={40:lalnum} ", ""),
    ("linear-client-secret", "linear={32:hex} ", ""),
    ("linkedin-client-id", "linkedin={14:lalnum} ", ""),
    ("linkedin-client-secret", "linkedin={16:lalnum} ", ""),
    ("lob-api-key", "lob=live_{35:hex} ", ""),
    ("lob-pub-api-key", "lob=test_pub_{31:hex} ", ""),
    ("looker-client-id", "looker={20:lalnum} ", ""),
    ("looker-client-secret", "looker={24:lalnum} ", ""),
    ("mailchimp-api-key", "mailchimp={32:hex}-us00 ", ""),
    ("mailgun-private-api-token", "mailgun=key-{32:hex} ", ""),
    ("mailgun-pub-key", "mailgun=pubkey-{32:hex} ", ""),
    ("mailgun-signing-key", "mailgun={32:hex}-{8:hex}-{8:hex} ", ""),
    ("mapbox-api-token", "mapbox=pk.{60:lalnum}.{22:lalnum} ", ""),
    ("mattermost-access-token", "mattermost={26:lalnum} ", ""),
    ("messagebird-api-token", "messagebird={25:lalnum} ", ""),
    ("messagebird-client-id", "messagebird={8:hex}-{4:hex}-{4:hex}-{4:hex}-{12:hex} ", ""),
    ("netlify-access-token", "netlify={40:lalnum} ", ""),
    ("new-relic-browser-api-token", "new-relic=NRJS-{19:hex} ", ""),
    ("new-relic-insert-key", "new-relic=NRII-{32:lalnum} ", ""),
    ("new-relic-user-api-id", "new-relic={64:lalnum} ", ""),
    ("new-relic-user-api-key", "new-relic=NRAK-{27:lalnum} ", ""),
    ("nytimes-access-token", "nytimes={32:lalnum} ", ""),
    ("okta-access-token", "Okta=00{40:alnum} ", ""),
    ("plaid-api-token", "plaid=access-sandbox-{8:hex}-{4:hex}-{4:hex}-{4:hex}-{12:hex} ", ""),
    ("plaid-client-id", "plaid={24:lalnum} ", ""),
    ("plaid-secret-key", "plaid={30:lalnum} ", ""),
    ("privateai-api-token", "privateai={32:lalnum} ", ""),
    ("rapidapi-access-token", "rapidapi={50:lalnum} ", ""),
    ("sendbird-access-id", "sendbird={8:hex}-{4:hex}-{4:hex}-{4:hex}-{12:hex} ", ""),
    ("sendbird-access-token", "sendbird={40:hex} ", ""),
    ("sentry-access-token", "sentry={64:hex} ", ""),
    ("sidekiq-secret", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM={8:hex}:{8:hex} ", ""),
    ("snyk-api-token", "snykkey={8:hex}-{4:hex}-{4:hex}-{4:hex}-{12:hex} ", ""),
    ("sonar-api-token", "sonarlogin={40:lalnum} ", ""),
    ("squarespace-access-token", "squarespace={8:hex}-{4:hex}-{4:hex}-{4:hex}-{12:hex} ", ""),
    ("sumologic-access-id", "Sumo=su{12:alnum} ", ""),
    ("sumologic-access-token", "Sumo={64:lalnum} ", ""),
    ("travisci-access-token", "travis={22:lalnum} ", ""),
    ("twitch-api-token", "twitch={30:lalnum} ", ""),
    ("twitter-access-secret", "twitter={45:lalnum} ", ""),
    ("twitter-access-token", "twitter={15:digits}-{20:alnum} ", ""),
    ("twitter-api-key", "twitter={25:lalnum} ", ""),
    ("twitter-api-secret", "twitter={50:lalnum} ", "twitter={40:lalnum} "),
    ("twitter-bearer-token", "twitter=AAAAAAAAAAAAAAAAAAAAAA{80:alnum} ", ""),
    ("typeform-api-token", "typeform=tfp_{59:lalnum} ", ""),
    ("yandex-access-token", "yandex=t1.{1:alnum}.{86:alnum} ", ""),
    ("yandex-api-key", "yandex=AQVN{35:alnum} ", ""),
    ("yandex-aws-access-token", "yandex=YC{38:alnum} ", ""),
    ("zendesk-secret-key", "zendesk={40:lalnum} ", ""),
    ("1password-secret-key", "A3-{6:ualnum}-{11:ualnum}-{5:ualnum}-{5:ualnum}-{5:ualnum} ", ""),
    ("1password-service-account-token", "ops_eyJ{250:alnum} ", ""),
    ("adobe-client-secret", "p8e-{32:lalnum} ", ""),
    ("age-secret-key", "AGE-SECRET-KEY-1{58:=023456789ACDEFGHJKLMNPQRSTUVWXYZ} ", ""),
    ("airtable-personnal-access-token", "airtable: pat{14:alnum}.{64:hex} ", ""),
    ("alibaba-access-key-id", "LTAI{20:lalnum} ", ""),
    ("artifactory-api-key", "AKCp{69:alnum} ", ""),
    ("artifactory-reference-token", "cmVmd{59:alnum} ", ""),
    ("authress-service-client-access-key", "sc_{5:lalnum}.{4:lalnum}.acc-{10:lalnum}.{30:lalnum} ", ""),
    ("aws-amazon-bedrock-api-key-long-lived", "ABSK{109:alnum} ", ""),
    ("aws-amazon-bedrock-api-key-short-lived", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t{200:b64} ", "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t{10:b64} "),
    ("clickhouse-cloud-api-secret-key", "4b1d{38:alnum} ", ""),
    ("clojars-api-token", "CLOJARS_{60:lalnum} ", ""),
    ("cloudflare-origin-ca-key", "v1.0-{24:hex}-{146:hex} ", ""),
    ("databricks-api-token", "dapi{32:hex} ", ""),
    ("digitalocean-access-token", "doo_v1_{64:hex} ", ""),
    ("digitalocean-pat", "dop_v1_{64:hex} ", ""),
    ("digitalocean-refresh-token", "dor_v1_{64:hex} ", ""),
    ("doppler-api-token", "dp.pt.{43:lalnum} ", ""),
    ("duffel-api-token", "duffel_test_{43:lalnum} ", ""),
    ("dynatrace-api-token", "dt0c01.{24:lalnum}.{64:lalnum} ", ""),
    ("easypost-api-token", "EZAK{54:lalnum} ", ""),
    ("easypost-test-api-token", "EZTK{54:lalnum} ", ""),
    ("facebook-access-token", "facebook token {15:digits}|{27:lalnum} ", ""),
    ("facebook-page-access-token", "EAAC{100:lalnum} ", ""),
    ("flutterwave-encryption-key", "FLWSECK_TEST-{12:hex} ", ""),
    ("flutterwave-public-key", "FLWPUBK_TEST-{32:hex}-X ", ""),
    ("flutterwave-secret-key", "FLWSECK_TEST-{32:hex}-X ", ""),
    ("flyio-access-token", "fo1_{43:alnum} ", ""),
    ("frameio-api-token", "fio-u-{64:lalnum} ", ""),
    ("gitlab-cicd-job-token", "glcbt-{1:alnum}_{20:alnum} ", ""),
    ("gitlab-deploy-token", "gldt-{20:alnum} ", ""),
    ("gitlab-feature-flag-client-token", "glffct-{20:alnum} ", ""),
    ("gitlab-feed-token", "glft-{20:alnum} ", ""),
    ("gitlab-incoming-mail-token", "glimt-{25:alnum} ", ""),
    ("gitlab-kubernetes-agent-token", "glagent-{50:alnum} ", ""),
    ("gitlab-oauth-app-secret", "gloas-{64:alnum} ", ""),
    ("gitlab-pat-routable", "glpat-{27:alnum}.{2:lalnum}{7:lalnum} ", ""),
    ("gitlab-ptt", "glptt-{40:hex} ", ""),
    ("gitlab-rrt", "GR1348941{20:alnum} ", ""),
    ("gitlab-runner-authentication-token", "glrt-{20:alnum} ", ""),
    ("gitlab-runner-authentication-token-routable", "glrt-t0_{27:alnum}.{2:lalnum}{7:lalnum} ", ""),
    ("gitlab-scim-token", "glsoat-{20:alnum} ", ""),
    ("gitlab-session-cookie", "_gitlab_session={32:lalnum} ", ""),
    ("grafana-api-key", "eyJrIjoi{70:alnum} ", ""),
    ("grafana-cloud-api-token", "glc_{32:alnum} ", ""),
    ("grafana-service-account-token", "glsa_{32:alnum}_{8:hex} ", ""),
    ("harness-api-key", "pat.{22:alnum}.{24:alnum}.{20:alnum} ", ""),
    ("hashicorp-tf-api-token", "{14:lalnum}.atlasv1.{60:lalnum} ", ""),
    ("heroku-api-key-v2", "HRKU-AA{58:alnum} ", ""),
    ("huggingface-organization-api-token", "api_org_{34:lower} ", ""),
    ("infracost-api-token", "ico-{32:alnum} ", ""),
    ("intra42-client-secret", "s-s4t2ud-{64:hex} ", ""),
    ("linear-api-key", "lin_api_{40:lalnum} ", ""),
    ("maxmind-license-key", "{6:alnum}_{29:alnum}_mmk ", ""),
    ("notion-api-token", "ntn_{11:digits}{32:alnum}{3:alnum} ", ""),
    ("octopus-deploy-api-key", "API-{26:ualnum} ", ""),
    ("openshift-user-token", "sha256~{43:alnum}  ", ""),
    ("perplexity-api-key", "pplx-{48:alnum}  ", ""),
    ("planetscale-api-token", "pscale_tkn_{32:alnum} ", ""),
    ("planetscale-oauth-token", "pscale_oauth_{32:alnum} ", ""),
    ("planetscale-password", "pscale_pw_{32:alnum} ", ""),
    ("postman-api-token", "PMAK-{24:hex}-{34:hex} ", ""),
    ("prefect-api-token", "pnu_{36:alnum} ", ""),
    ("pulumi-api-token", "pul-{40:hex} ", ""),
    ("readme-api-token", "rdme_{70:lalnum} ", ""),
    ("rubygems-api-token", "rubygems_{48:hex} ", ""),
    ("scalingo-api-token", "tk-us-{48:alnum} ", ""),
    ("sendinblue-api-token", "xkeysib-{64:hex}-{16:lalnum} ", ""),
    ("sentry-user-token", "sntryu_{64:hex} ", ""),
    ("settlemint-application-access-token", "sm_aat_{16:alnum} ", ""),
    ("settlemint-personal-access-token", "sm_pat_{16:alnum} ", ""),
    ("settlemint-service-access-token", "sm_sat_{16:alnum} ", ""),
    ("shippo-api-token", "shippo_live_{40:hex} ", ""),
    ("shopify-access-token", "shpat_{32:hex} ", ""),
    ("shopify-custom-access-token", "shpca_{32:hex} ", ""),
    ("shopify-private-app-access-token", "shppa_{32:hex} ", ""),
    ("shopify-shared-secret", "shpss_{32:hex} ", ""),
    ("slack-config-access-token", "xoxe.xoxb-0-{163:ualnum} ", ""),
    ("slack-config-refresh-token", "xoxe-0-{146:ualnum} ", ""),
    ("slack-legacy-bot-token", "xoxb-{8:digits}-{18:alnum} ", ""),
    ("slack-legacy-token", "xoxs-{10:digits}-{10:digits}-{12:digits}-{32:hex} ", "xoxs-{10:digits}-{10:digits}-{32:hex} "),
    ("slack-legacy-workspace-token", "xoxa-{8:alnum} ", ""),
    ("square-access-token", "EAAA{22:alnum} ", ""),
    ("twilio-api-key", "SK{32:hex} ", ""),
    ("vault-batch-token", "hvb.{138:alnum} ", ""),
    ("sourcegraph-access-token", "sgp_{16:hex}_{40:hex} ", ""),
    ("jwt-base64", "ZXlKaGJHY2lPaUl{60:alnum}= ", ""),
    ("microsoft-teams-webhook", "https://acme.webhook.office.com/webhookb2/{8:lalnum}-{4:lalnum}-{4:lalnum}-{4:lalnum}-{12:lalnum}@{8:lalnum}-{4:lalnum}-{4:lalnum}-{4:lalnum}-{12:lalnum}/IncomingWebhook/{32:lalnum}/{8:lalnum}-{4:lalnum}-{4:lalnum}-{4:lalnum}-{12:lalnum}", ""),
    ("sentry-org-token", "sntrys_eyJpYXQiO{40:alnum}LCJyZWdpb25fdXJs{40:alnum}_{43:alnum} ", ""),
    ("vault-service-token", "VAULT_TOKEN=hvs.{100:alnum}", ""),
    ("pkcs12-file", "MIIKYQIBAzCCCicGCSqGSIb3DQEHAaCC{200:b64}==", "MIIKYQIBAzCCCicGCSqGSIb3DQEHAaCC{20:b64}"),
    ("azure-ad-client-secret", "CLIENT_SECRET='{3:alnum}8Q~{34:alnum}'", "value: '{3:alnum}8Q~{17:alnum}'"),
    ("sidekiq-sensitive-url", "source \"https://{8:hex}:{8:hex}@gems.contribsys.com/\"", "source \"https://{8:hex}@gems.contribsys.com/\""),
    ("azure-storage-account-key", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={86:b64}==;EndpointSuffix=core.windows.net", ""),
    ("curl-auth-header", "curl -s -H 'X-Api-Key: {32:alnum}' https://api.example.net/v1", "curl -s -H 'X-Api-Key: {4:alnum}' https://api.example.net/v1"),
    ("curl-auth-user", "curl -u deploy:{20:alnum} https://ci.internal/api", "curl -u deploy https://ci.internal/api"),
    ("mysql-cli-password", "mysql -h db -u root -p{16:alnum} shop", "mysql -h db -u root -p shop"),
    ("kubernetes-secret-yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  config: {32:b64}\n", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  config: {32:b64}\n"),
    ("freemius-secret-key", "'secret_key' => 'sk_{29:alnum}'", "'secret_key' => 'sk_test'"),
    ("nuget-config-password", "<add key=\"ClearTextPassword\" value=\"{16:alnum}\" />", "<add key=\"Username\" value=\"{16:alnum}\" />"),
    ("hashicorp-tf-password", "administrator_login_password = \"{6:lower}{4:digits}\"", "administrator_login_password = var.db_password"),
];

fn alphabet(name: &str) -> Vec<u8> {
    let lower = b"abcdefghijklmnopqrstuvwxyz";
    let upper = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let digits = b"0123456789";
    let set: Vec<&[u8]> = match name {
        "hex" => vec![b"0123456789abcdef"],
        "HEX" => vec![b"0123456789ABCDEF"],
        "digits" => vec![digits],
        "alnum" => vec![upper, lower, digits],
        "lalnum" => vec![lower, digits],
        "ualnum" => vec![upper, digits],
        "letters" => vec![upper, lower],
        "lower" => vec![lower],
        "upper" => vec![upper],
        "b64" => vec![upper, lower, digits, b"+/"],
        other => vec![other
            .strip_prefix('=')
            .unwrap_or_else(|| panic!("alphabet {other}"))
            .as_bytes()],
    };
    set.concat()
}

/// A template's parts: text, or (length, alphabet).
enum Part {
    Text(String),
    Run(usize, String),
}

fn parse(template: &str) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut text = String::new();
    let mut rest = template;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("{{") || rest.starts_with("}}") {
            text.push(c);
            rest = &rest[2..];
        } else if c == '{' {
            let end = rest.find('}').expect("a closed run");
            let (n, name) = rest[1..end].split_once(':').expect("{N:alphabet}");
            parts.push(Part::Text(std::mem::take(&mut text)));
            parts.push(Part::Run(n.parse().expect("a length"), name.to_owned()));
            rest = &rest[end + 1..];
        } else {
            text.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    parts.push(Part::Text(text));
    parts
}

/// The template's text; with `shorten`, its longest run at half its length.
pub(super) fn expand(template: &str, seed: u64, shorten: bool) -> String {
    expand_run(template, seed, shorten).0
}

/// [`expand`], and the text of its longest run (part of the secret in every template).
fn expand_run(template: &str, seed: u64, shorten: bool) -> (String, String) {
    let parts = parse(template);
    let longest = parts
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match p {
            Part::Run(n, _) => Some((*n, i)),
            Part::Text(_) => None,
        })
        .max_by_key(|&(n, i)| (n, std::cmp::Reverse(i)))
        .map(|(_, i)| i);
    let mut out = String::new();
    let mut run = String::new();
    for (i, p) in parts.iter().enumerate() {
        match p {
            Part::Text(t) => out.push_str(t),
            Part::Run(n, name) => {
                let n = if shorten && Some(i) == longest {
                    n / 2
                } else {
                    *n
                };
                let text = chars(seed + i as u64, n, &alphabet(name));
                if Some(i) == longest {
                    run.clone_from(&text);
                }
                out.push_str(&text);
            }
        }
    }
    (out, run)
}

#[test]
fn every_built_in_rule_compiles() {
    // Rules compile lazily (LazyRegex): a bad one would fail only when woken.
    for d in catalog::all() {
        assert!(
            crate::views::secrets::compile(d.regex).is_ok(),
            "{} does not compile",
            d.kind
        );
    }
}

#[test]
fn every_gitleaks_default_rule_id_has_a_rule() {
    let missing: Vec<&&str> = GITLEAKS_IDS
        .iter()
        .filter(|id| !catalog::all().any(|d| catalog::answers_to(d, id)))
        .collect();
    assert!(missing.is_empty(), "no rule answers to {missing:?}");
    // Every rule has keywords: a rule without one would make every stored line decoded.
    let unkeyed: Vec<&str> = catalog::all()
        .filter(|d| d.keywords.is_empty())
        .map(|d| d.kind)
        .collect();
    assert!(unkeyed.is_empty(), "rules without keywords: {unkeyed:?}");
    assert!(Detector::default()
        .may_hold(b"ghp_")
        .then_some(())
        .is_some());
    // Nor may a keyword be in every sentence (gitleaks's `sk` and `s.` are: `task`, `this.`).
    let prose = br#"{"type":"message","message":{"role":"user","content":"Run the task on this disk. Then the tests, as I said: all of them."}}"#;
    assert!(!Detector::default().may_hold(prose));
}

#[test]
fn every_vendor_rule_finds_its_positive_and_not_its_near_miss() {
    let d = Detector::default();
    let mut failures = Vec::new();
    for (i, (kind, positive, near)) in CASES.iter().enumerate() {
        let seed = 1000 + 97 * i as u64;
        let (text, run) = expand_run(positive, seed, false);
        let findings = d.find(&text);
        let found: Vec<&str> = findings.iter().map(|f| f.kind.as_str()).collect();
        if found != [*kind] {
            failures.push(format!("{kind}: positive found {found:?}"));
        } else if !text[findings[0].start..findings[0].end].contains(&run) {
            // The secret is the value, not a name or a part of one.
            failures.push(format!("{kind}: the finding misses the value"));
        }
        let miss = if near.is_empty() {
            expand(positive, seed, true)
        } else {
            expand(near, seed, false)
        };
        let found: Vec<String> = d.find(&miss).into_iter().map(|f| f.kind).collect();
        if !found.is_empty() {
            failures.push(format!("{kind}: near miss found {found:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Where the time goes: each rule's regex over the texts that wake it, on the stored lines
/// of `PISESS_PROFILE_DIR`'s sessions (their strings). Run by hand:
/// `PISESS_PROFILE_DIR=… cargo test --release --lib profile_rules -- --ignored --nocapture`.
#[test]
#[ignore = "a profile, run by hand"]
#[allow(clippy::print_stderr)] // a profile printed for the person who runs it
fn profile_rules() {
    let dir = std::env::var("PISESS_PROFILE_DIR").expect("PISESS_PROFILE_DIR");
    let mut texts = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(dir)];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
        } else if let Ok(s) = std::fs::read_to_string(&p) {
            for line in s.lines() {
                let mut todo =
                    vec![serde_json::from_str::<serde_json::Value>(line).unwrap_or_default()];
                while let Some(v) = todo.pop() {
                    match v {
                        serde_json::Value::String(s) => texts.push(s),
                        serde_json::Value::Array(a) => todo.extend(a),
                        serde_json::Value::Object(o) => todo.extend(o.into_iter().map(|(_, v)| v)),
                        _ => {}
                    }
                }
            }
        }
    }
    let d = Detector::default();
    let mut times = vec![(std::time::Duration::ZERO, 0usize); d.rules.len()];
    let ac = d.keywords.as_ref().unwrap();
    let start = std::time::Instant::now();
    for t in &texts {
        let mut active = vec![false; d.rules.len()];
        for m in ac.find_overlapping_iter(t.as_bytes()) {
            for &i in &d.keyword_rules[m.pattern().as_usize()] {
                active[i] = true;
            }
        }
        for (i, rule) in d.rules.iter().enumerate() {
            if active[i] {
                let s = std::time::Instant::now();
                let _ = rule.regex.find_iter(t.as_bytes()).count();
                times[i].0 += s.elapsed();
                times[i].1 += 1;
            }
        }
    }
    let patterns: Vec<String> = d
        .rules
        .iter()
        .flat_map(|r| r.keywords.iter().map(|k| k.to_ascii_lowercase()))
        .collect();
    for kind in [
        aho_corasick::AhoCorasickKind::NoncontiguousNFA,
        aho_corasick::AhoCorasickKind::ContiguousNFA,
        aho_corasick::AhoCorasickKind::DFA,
    ] {
        let b = std::time::Instant::now();
        let ac = aho_corasick::AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .kind(Some(kind))
            .build(&patterns)
            .unwrap();
        let built = b.elapsed();
        let s = std::time::Instant::now();
        let n: usize = texts
            .iter()
            .map(|t| ac.find_overlapping_iter(t.as_bytes()).count())
            .sum();
        let m: usize = texts.iter().filter(|t| ac.is_match(t.as_bytes())).count();
        eprintln!(
            "{kind:?}: {} patterns, built {built:?}, overlapping+is_match {:?} ({n} {m})",
            patterns.len(),
            s.elapsed()
        );
    }
    let mut order: Vec<usize> = (0..times.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(times[i].0));
    eprintln!("{} texts, {:?} in all", texts.len(), start.elapsed());
    for &i in order.iter().take(15) {
        eprintln!(
            "{:>10?} {:>7} texts  {}",
            times[i].0, times[i].1, d.rules[i].kind
        );
    }
}
