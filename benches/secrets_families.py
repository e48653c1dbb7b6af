#!/usr/bin/env python3
"""A labelled corpus for benches/gitleaks.sh: pi sessions holding planted fake secrets of
the key families and the forms agents write (issue 42), among realistic non-secrets that
scanners take for secrets (Feishu/Lark document ids, lockfile checksums, digests, UUIDs, git
logs, placeholders, code).

    secrets_families.py OUT [--sessions N] [--seed S]

Writes OUT/sessions/--home-dev-<project>--/<ts>_<id>.jsonl and OUT/manifest.jsonl: one line
per planted secret, {"file", "kind", "form", "value", "fingerprint"} (pisess's fingerprint:
the first 8 hex digits of xxh3-64, from the `xxhash` package). Every value is random, made
here; none is a real credential. Any finding outside the manifest is a false alarm.
"""
import argparse
import json
import os
import random
import string
import zlib

import xxhash

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
DIGITS = string.digits
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
SYMBOLS = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!@#%^*"


def fingerprint(value):
    return "%08x" % (xxhash.xxh3_64_intdigest(value.encode()) >> 32)


class Maker:
    def __init__(self, rng):
        self.rng = rng

    def text(self, n, alphabet):
        return "".join(self.rng.choice(alphabet) for _ in range(n))

    def github(self, prefix):
        """GitHub's format: 30 base62 characters and their CRC32 in base62."""
        body = self.text(30, ALNUM)
        n = zlib.crc32(body.encode())
        b62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
        sum_ = ""
        for _ in range(6):
            sum_ = b62[n % 62] + sum_
            n //= 62
        return prefix + body + sum_

    def symbol_password(self):
        p = list(self.text(12, SYMBOLS))
        for at, c in ((1, "7"), (4, "$"), (8, "&"), (12, "?")):
            p.insert(at, c)
        return "".join(p)


def families(m):
    """(kind, form, value, the text that carries it) for every planted form."""
    t = m.text
    out = []

    def env(kind, value, name, form=None):
        out.append((kind, form or kind, value, f"{name}={value}"))

    def line(kind, value, text, form=None):
        out.append((kind, form or kind, value, text))

    env("age-secret-key", "AGE-SECRET-KEY-1" + t(58, BECH32), "SOPS_AGE_KEY")
    v = t(86, B64) + "=="
    line("azure-storage-account-key", v,
         f"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={v};EndpointSuffix=core.windows.net")
    env("digitalocean-pat", "dop_v1_" + t(64, HEX), "DIGITALOCEAN_TOKEN")
    v = "doo_v1_" + t(64, HEX)
    line("digitalocean-access-token", v, json.dumps({"access_token": v, "token_type": "bearer"}))
    env("digitalocean-refresh-token", "dor_v1_" + t(64, HEX), "DO_REFRESH")
    for prefix, kind, name in (("shpat_", "shopify-access-token", "SHOPIFY_ADMIN_TOKEN"),
                               ("shpca_", "shopify-custom-access-token", "SHOPIFY_CUSTOM_TOKEN"),
                               ("shppa_", "shopify-private-app-access-token", "SHOPIFY_PASSWORD"),
                               ("shpss_", "shopify-shared-secret", "SHOPIFY_SHARED_SECRET")):
        env(kind, prefix + t(32, HEX), name)
    env("github-pat", m.github("ghp_"), "GITHUB_TOKEN")
    env("npm-token", m.github("npm_"), "NPM_TOKEN")
    env("gitlab-pat", "glpat-" + t(20, URLSAFE), "GITLAB_TOKEN")
    env("stripe-secret-key", "sk_live_" + t(40, ALNUM), "STRIPE_KEY")
    env("slack-bot-token", f"xoxb-{t(12, DIGITS)}-{t(13, DIGITS)}-{t(24, ALNUM)}", "SLACK_BOT_TOKEN")
    env("sendgrid-api-key", f"SG.{t(22, URLSAFE)}.{t(43, URLSAFE)}", "SENDGRID_API_KEY")
    env("twilio-api-key", "SK" + t(32, HEX), "TWILIO_API_KEY_SID")
    env("anthropic-api-key", f"sk-ant-api03-{t(93, URLSAFE)}AA", "ANTHROPIC_API_KEY")
    env("openai-api-key", f"sk-proj-{t(74, URLSAFE)}T3BlbkFJ{t(74, URLSAFE)}", "OPENAI_API_KEY")
    env("huggingface-token", "hf_" + t(34, string.ascii_letters), "HF_TOKEN")
    env("databricks-api-token", "dapi" + t(32, HEX), "DATABRICKS_TOKEN")
    env("doppler-api-token", "dp.pt." + t(43, ALNUM), "DOPPLER_TOKEN")
    env("linear-api-key", "lin_api_" + t(40, ALNUM), "LINEAR_API_KEY")
    env("planetscale-api-token", "pscale_tkn_" + t(43, URLSAFE), "PLANETSCALE_TOKEN")
    env("postman-api-token", f"PMAK-{t(24, HEX)}-{t(34, HEX)}", "POSTMAN_API_KEY")
    env("pulumi-api-token", "pul-" + t(40, HEX), "PULUMI_ACCESS_TOKEN")
    env("rubygems-api-token", "rubygems_" + t(48, HEX), "GEM_HOST_API_KEY")
    env("sentry-user-token", "sntryu_" + t(64, HEX), "SENTRY_AUTH_TOKEN")
    env("vault-service-token", "hvs." + t(100, URLSAFE), "VAULT_TOKEN")
    env("grafana-service-account-token", f"glsa_{t(32, ALNUM)}_{t(8, HEX)}", "GRAFANA_TOKEN")
    env("heroku-api-key-v2", "HRKU-AA" + t(58, URLSAFE), "HEROKU_API_KEY")
    env("notion-api-token", f"ntn_{t(11, DIGITS)}{t(35, ALNUM)}", "NOTION_TOKEN")
    env("perplexity-api-key", "pplx-" + t(48, ALNUM), "PPLX_KEY")
    env("new-relic-user-api-key", "NRAK-" + t(27, string.ascii_uppercase + DIGITS), "NEW_RELIC_API_KEY")
    env("aws-access-key-id", "AKIA" + t(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), "AWS_ACCESS_KEY_ID")
    env("aws-secret-access-key", t(40, B64), "AWS_SECRET_ACCESS_KEY")
    body = "\n".join(t(64, B64) for _ in range(8))
    v = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"
    line("private-key", v, v)
    p = t(20, ALNUM)
    line("postgres-url", p, f"DATABASE_URL=postgresql://app:{p}@db.prod.internal:5432/orders")
    # The forms agents write.
    p = t(20, ALNUM)
    line("curl-auth-user", p, f"curl -sS -u jenkins:{p} https://ci.internal/job/deploy/build")
    p = t(16, ALNUM)
    line("mysql-cli-password", p, f"mysql -h 10.0.3.7 -u root -p{p} shop -e 'show tables'")
    s = t(32, ALNUM)
    line("generic-secret", s,
         'curl -X POST https://open.feishu.cn/open-apis/auth/v3/tenant_access_token/internal '
         '-H "Content-Type: application/json" '
         f'-d "{{\\"app_id\\":\\"cli_a5f2c3d4e5f6a7b8\\",\\"app_secret\\":\\"{s}\\"}}"',
         "escaped-json-in-curl")
    k = t(40, ALNUM)
    line("generic-secret", k,
         f'python3 -c "import requests; print(requests.post(u, json={{\\"api_key\\": \\"{k}\\"}}).text)"',
         "escaped-json-in-python")
    env("generic-secret", m.symbol_password(), "DB_PASSWORD", "symbol-password-env")
    p = m.symbol_password()
    line("generic-secret", p, f"database:\n  host: db.internal\n  password: {p}", "symbol-password-yaml")
    p = m.symbol_password()
    line("generic-secret", p, json.dumps({"user": "app", "password": p}), "symbol-password-json")
    env("generic-secret", t(128, HEX), "SECRET_KEY_BASE", "hex-secret-key-base")
    v = t(64, HEX)
    line("generic-secret", v, f"[session]\nsecret = {v}\nmax_age = 3600", "openssl-rand-hex")
    env("generic-secret", t(32, ALNUM), "DJANGO_SECRET_KEY", "plain-assignment")
    return out


def non_secrets(m):
    """Texts that hold no secret, each of a kind scanners report."""
    t = m.text
    node = lambda: t(27, ALNUM)  # noqa: E731
    return [
        json.dumps({"code": 0, "data": {"node": {"node_token": node(), "obj_token": node(),
                                                 "obj_type": "docx", "parent_node_token": node(),
                                                 "space_id": "7" + t(18, DIGITS), "title": "Runbook"}},
                    "msg": "success"}),
        f"Opened https://acme.feishu.cn/wiki/{node()}?from=from_copylink and "
        f"https://acme.feishu.cn/docx/doxcn{t(22, ALNUM)}",
        f"lark-cli docs get --document_id {node()} && echo wiki_token={node()}",
        json.dumps({"has_more": True, "page_token": node(), "items": [{"obj_token": "doxcn" + t(22, ALNUM)}]}),
        f'[[package]]\nname = "tokenizers"\nversion = "0.19.1"\nchecksum = "{t(64, HEX)}"',
        f'"node_modules/js-tokens": {{"version": "4.0.0", "integrity": "sha512-{t(86, B64)}=="}}',
        f"golang.org/x/oauth2 v0.21.0 h1:{t(43, B64)}=",
        f"{t(64, HEX)}  dist/app-linux-amd64.tar.gz\n{t(64, HEX)}  dist/app-darwin-arm64.tar.gz",
        f"commit {t(40, HEX)}\nAuthor: Dev <dev@example.org>\n\n    fix: retry on 503",
        json.dumps({"user": "dev", "password_hash": t(64, HEX), "token_sha256": t(64, HEX)}),
        f"request_id={t(8, HEX)}-{t(4, HEX)}-4{t(3, HEX)}-a{t(3, HEX)}-{t(12, HEX)}",
        "DATABASE_URL=postgres://app:${DB_PASSWORD}@localhost:5432/app\nAPI_KEY=<your-api-key>\nSECRET=changeme",
        "password = get_password(user_id2)\ntoken = os.environ['GITHUB_TOKEN']",
        f"docker inspect: \"Id\": \"sha256:{t(64, HEX)}\"",
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  LOG_LEVEL: debug\n  REGION: eu-west-1",
        f"Key fingerprint = {' '.join(t(4, '0123456789ABCDEF') for _ in range(10))}",
        "curl -u \"$CI_USER:$CI_TOKEN\" https://ci.internal\nmysql -h db -u root -p shop",
        f"sha256 = \"{t(64, HEX)}\"\ndigest: sha256:{t(64, HEX)}",
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--sessions", type=int, default=40)
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    m = Maker(rng)
    manifest = open(os.path.join(a.out, "manifest.jsonl"), "w")
    n = 0
    for i in range(a.sessions):
        project = ["webshop", "infra", "ml-pipeline", "docs"][i % 4]
        folder = os.path.join(a.out, "sessions", f"--home-dev-{project}--")
        os.makedirs(folder, exist_ok=True)
        sid = "0198%04x-0000-7000-8000-%012x" % (i, rng.getrandbits(48))
        path = os.path.join(folder, f"2026-07-02T10-00-00-000Z_{sid}.jsonl")
        lines = [{"type": "session", "version": 3, "id": sid, "timestamp": "2026-07-02T10:00:00.000Z",
                  "cwd": f"/home/dev/{project}"}]
        parent = None

        def entry(message):
            nonlocal parent, n
            n += 1
            eid = "%08x" % n
            lines.append({"type": "message", "id": eid, "parentId": parent,
                          "timestamp": "2026-07-02T10:00:00.000Z", "message": message})
            parent = eid

        entry({"role": "user", "content": "Set up the deploy for staging.", "timestamp": 1})
        # Each session: every family once, in one of four places, among the non-secrets.
        planted = families(m)
        texts = non_secrets(m)
        rng.shuffle(planted)
        for j, (kind, form, value, text) in enumerate(planted):
            how = (i + j) % 4
            call = f"toolu_{n:08x}"
            if how == 0:
                entry({"role": "assistant", "content": [{"type": "toolCall", "id": call, "name": "bash",
                                                         "arguments": {"command": text}}],
                       "stopReason": "toolUse", "timestamp": 2})
            elif how == 1:
                entry({"role": "toolResult", "toolCallId": call, "toolName": "bash",
                       "content": [{"type": "text", "text": f"HOME=/home/dev\n{text}\nTERM=xterm"}],
                       "isError": False, "timestamp": 3})
            elif how == 2:
                entry({"role": "user", "content": f"here are the settings:\n{text}\nplease wire them up",
                       "timestamp": 4})
            else:
                entry({"role": "assistant", "content": [{"type": "text", "text": f"I found:\n{text}"}],
                       "timestamp": 5})
            manifest.write(json.dumps({"file": os.path.abspath(path), "kind": kind, "form": form,
                                       "value": value, "fingerprint": fingerprint(value)}) + "\n")
            if j < len(texts):
                entry({"role": "toolResult", "toolCallId": call, "toolName": "read",
                       "content": [{"type": "text", "text": texts[j]}], "isError": False, "timestamp": 6})
        with open(path, "w") as f:
            for line in lines:
                f.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
