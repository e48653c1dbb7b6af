#!/usr/bin/env python3
"""Write the bundled example sessions (examples/sessions/, examples/custom-dir/).

The files double as test fixtures, so the output is byte-for-byte deterministic: every id,
uuid and timestamp is derived from fixed start times and hashes, never from the clock or a
random source. Re-run after editing; the two output folders are replaced wholesale.

Layout mirrors pi's default root (`<agentDir>/sessions/--<cwd>--/<ts>_<uuid>.jsonl`), plus one
folder in the seed-000 dialect (`Users-x-app`, no dashes) and a flat custom session dir.
"""

import base64
import hashlib
import json
import os
import shutil
import struct
import zlib
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
SESSIONS = os.path.join(HERE, "sessions")
CUSTOM = os.path.join(HERE, "custom-dir")
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

WEBSHOP = "/home/dev/webshop"
PISESS = "/home/dev/pisess"
XAPP = "/Users/x/app"

# $ per million tokens: input, output, cacheRead, cacheWrite.
PRICES = {
    "claude-sonnet-4-5": (3.0, 15.0, 0.3, 3.75),
    "claude-opus-4-5": (5.0, 25.0, 0.5, 6.25),
    "gpt-5.1-codex": (1.25, 10.0, 0.125, 0.0),
}
API = {"anthropic": "anthropic-messages", "openai": "openai-responses"}


def ts(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


def iso(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def unix_ms(dt):
    return (dt - EPOCH) // timedelta(milliseconds=1)


def h(*parts):
    return hashlib.sha256("/".join(str(p) for p in parts).encode()).hexdigest()


def uuid7(dt, salt):
    """A UUIDv7 (what pi uses for session ids) whose random bits come from a hash."""
    r = h("uuid", salt)
    variant = "89ab"[int(r[3], 16) & 3]
    x = f"{unix_ms(dt):012x}" + "7" + r[:3] + variant + r[4:7] + r[7:19]
    return f"{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:32]}"


def usage(inp, out, cache_read=0, cache_write=0, model="claude-sonnet-4-5"):
    p_in, p_out, p_cr, p_cw = PRICES[model]
    cost = {
        "input": round(inp * p_in / 1e6, 8),
        "output": round(out * p_out / 1e6, 8),
        "cacheRead": round(cache_read * p_cr / 1e6, 8),
        "cacheWrite": round(cache_write * p_cw / 1e6, 8),
    }
    cost["total"] = round(sum(cost.values()), 8)
    return {
        "input": inp,
        "output": out,
        "cacheRead": cache_read,
        "cacheWrite": cache_write,
        "totalTokens": inp + out + cache_read + cache_write,
        "cost": cost,
    }


def tiny_png(width, height, rgb):
    """A valid PNG of one flat colour, so image blocks decode in any viewer."""

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * width
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(row * height, 9))
        + chunk(b"IEND", b"")
    )


SCREENSHOT = base64.b64encode(tiny_png(16, 10, (230, 120, 40))).decode()
PHOTO = base64.b64encode(tiny_png(8, 8, (40, 90, 200))).decode()


def dumps(obj):
    # JSON.stringify's shape: compact, non-ASCII kept as UTF-8.
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class Session:
    """Appends entries the way pi's SessionManager does: each new entry is a child of the leaf.

    version=1 writes the legacy linear format (no ids, no parentId, no header version).
    """

    def __init__(self, cwd, start, salt, version=3, parent_session=None, header_extra=None):
        self.cwd = cwd
        self.t = ts(start)
        self.created = self.t
        self.version = version
        self.id = uuid7(self.t, salt)
        self.n = 0  # feeds entry and tool-call ids
        self.count = 0  # entries written after the header
        self.leaf = None
        self.lines = []
        self.provider, self.model = "anthropic", "claude-sonnet-4-5"
        header = {"type": "session"}
        if version != 1:
            header["version"] = version
        header.update({"id": self.id, "timestamp": iso(self.t), "cwd": cwd})
        if parent_session:
            header["parentSession"] = parent_session
        header.update(header_extra or {})
        self.lines.append(dumps(header))

    @property
    def filename(self):
        return iso(self.created).replace(":", "-").replace(".", "-") + "_" + self.id + ".jsonl"

    def tick(self, seconds):
        self.t += timedelta(seconds=seconds)

    def entry(self, type_, after=1.0, parent="leaf", **fields):
        """Append one entry; `parent` overrides the leaf (branching, new roots, orphans)."""
        self.tick(after)
        self.n += 1
        self.count += 1
        e = {"type": type_}
        if self.version != 1:
            eid = h(self.id, self.n)[:8]
            e["id"] = eid
            e["parentId"] = self.leaf if parent == "leaf" else parent
        e["timestamp"] = iso(self.t)
        e.update(fields)
        self.lines.append(dumps(e))
        if self.version != 1:
            self.leaf = eid
            return eid
        return self.count  # v1: the entry's index among parsed lines (header = 0)

    def message(self, msg, after, lag_ms):
        # The message timestamp is when it started (the prompt, the request); the entry's is
        # when it was appended, a little later.
        self.tick(after)
        msg["timestamp"] = unix_ms(self.t) - lag_ms
        return self.entry("message", after=0, message=msg)

    def user(self, content, after=25):
        return self.message({"role": "user", "content": content}, after, 3)

    def assistant(self, blocks, use, stop=None, after=4, **extra):
        if stop is None:
            stop = "toolUse" if any(b["type"] == "toolCall" for b in blocks) else "stop"
        msg = {
            "role": "assistant",
            "content": blocks,
            "api": API[self.provider],
            "provider": self.provider,
            "model": self.model,
            "usage": use,
            "stopReason": stop,
        }
        msg.update(extra)
        return self.message(msg, after, int(after * 1000) - 40)

    def tool_result(self, call, content, is_error=False, details=None, after=0.6):
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        msg = {"role": "toolResult", "toolCallId": call["id"], "toolName": call["name"], "content": content}
        if details is not None:
            msg["details"] = details
        msg["isError"] = is_error
        return self.message(msg, after, 5)

    def call(self, name, **args):
        self.n += 1
        return {"type": "toolCall", "id": "toolu_01" + h(self.id, "call", self.n)[:22], "name": name, "arguments": args}

    def tool_turn(self, use, name, result, text=None, thinking=None, is_error=False, details=None, **args):
        """One assistant message with a single tool call, then its result."""
        c = self.call(name, **args)
        blocks = []
        if thinking:
            blocks.append({"type": "thinking", "thinking": thinking, "thinkingSignature": "sig_" + h(c["id"])[:32]})
        if text:
            blocks.append({"type": "text", "text": text})
        blocks.append(c)
        aid = self.assistant(blocks, use)
        rid = self.tool_result(c, result, is_error, details)
        return aid, rid

    def say(self, text, use, thinking=None, after=5):
        blocks = []
        if thinking:
            blocks.append({"type": "thinking", "thinking": thinking, "thinkingSignature": "sig_" + h(self.id, text)[:32]})
        blocks.append({"type": "text", "text": text})
        return self.assistant(blocks, use, after=after)

    def set_model(self, provider, model):
        self.provider, self.model = provider, model
        return self.entry("model_change", after=0.5, provider=provider, modelId=model)

    def raw(self, line):
        self.lines.append(line)

    def write(self, folder, torn=False):
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, self.filename)
        body = "\n".join(self.lines) + ("" if torn else "\n")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(body)
        return path


def folder(cwd):
    return os.path.join(SESSIONS, "--" + cwd.lstrip("/\\").replace("/", "-").replace("\\", "-").replace(":", "-") + "--")


# ---------------------------------------------------------------------------------------------
# File contents the sessions read; small on purpose.

CHECKOUT_TS = """import { Cart, cartTotal } from "./cart";

export interface CheckoutForm {
  email: string;
  address: string;
}

export function checkoutSummary(cart: Cart, form: CheckoutForm) {
  const total = cartTotal(cart);
  return { email: form.email, total, currency: "EUR" };
}
"""

DISCOUNTS_JSON = """{
  "WELCOME10": { "percent": 10 },
  "SPRING5": { "percent": 5, "expires": "2025-06-01" }
}
"""

CART_TS = """export interface Item { sku: string; price: number; qty: number }
export type Cart = Item[];

export function cartTotal(cart: Cart): number {
  return Number(cart.reduce((sum, i) => sum + i.price * i.qty, 0).toFixed(2));
}
"""

VITEST_OK = """ RUN  v1.6.0 /home/dev/webshop

 ✓ test/cart.test.ts (5 tests) 4ms
 ✓ test/checkout.test.ts (7 tests) 9ms

 Test Files  2 passed (2)
      Tests  12 passed (12)
   Duration  412ms"""

VITEST_FAIL = """ RUN  v1.6.0 /home/dev/webshop

 ❯ test/cart.test.ts (5 tests | 1 failed) 6ms
   × cartTotal > sums three items priced 3.355
     → expected 10.05 to be 10.07

 Test Files  1 failed (1)
      Tests  1 failed | 4 passed (5)"""

TOOLS = [
    {"name": "read", "description": "Read the contents of a file.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
    {"name": "bash", "description": "Execute a bash command in the current working directory.", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}},
    {"name": "edit", "description": "Replace exact text in a file.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "oldText": {"type": "string"}, "newText": {"type": "string"}}, "required": ["path", "oldText", "newText"]}},
    {"name": "write", "description": "Write a file, creating parent directories.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}},
]

PREAMBLE = "You are an expert coding assistant operating inside pi, a coding agent harness. You help users by reading files, executing commands, editing code, and writing new files."

DESCRIPTIONS = []  # (relative path, one-line description) for README.md


def note(path, text):
    DESCRIPTIONS.append((os.path.relpath(path, HERE), text))


# ---------------------------------------------------------------------------------------------
# --home-dev-webshop--


def linear():
    s = Session(WEBSHOP, "2025-05-12T09:14:03.120Z", "linear")
    s.set_model("anthropic", "claude-sonnet-4-5")
    s.entry("thinking_level_change", after=0.2, thinkingLevel="medium")
    s.entry("session_info", after=0.1, name="discount codes")
    u1 = s.user("Add a discount-code field to the checkout. Codes live in src/discounts.json; an unknown code should show an inline error.", after=12)
    s.tool_turn(usage(3120, 96, 0, 2890), "read", CHECKOUT_TS, path="src/checkout.ts",
                thinking="I need to see how the checkout computes its total before adding a discount.",
                text="Let me look at the checkout first.")
    s.tool_turn(usage(8, 61, 6010, 410), "read", DISCOUNTS_JSON, path="src/discounts.json")
    s.tool_turn(usage(8, 402, 6420, 318), "edit", "Successfully replaced text in src/checkout.ts.",
                text="I'll add an `applyDiscount` step to `checkoutSummary` and return an error for unknown codes.",
                details={"diff": "-  const total = cartTotal(cart);\n+  const discount = lookupDiscount(form.code);\n+  if (form.code && !discount) return { error: \"Unknown discount code\" };\n+  const total = applyDiscount(cartTotal(cart), discount);"},
                path="src/checkout.ts", oldText="  const total = cartTotal(cart);",
                newText="  const discount = lookupDiscount(form.code);\n  if (form.code && !discount) return { error: \"Unknown discount code\" };\n  const total = applyDiscount(cartTotal(cart), discount);")
    s.tool_turn(usage(8, 44, 6740, 431), "bash", VITEST_OK, command="npx vitest run")
    s.say("Done. `checkoutSummary` now takes an optional `code`; unknown codes return `{ error: \"Unknown discount code\" }`, which the form shows inline. All 12 tests pass.",
          usage(8, 88, 7171, 512))
    s.entry("label", after=40, targetId=u1, label="spec")
    s.entry("session_info", after=3, name="Checkout: discount codes")
    s.user("Also make the codes case-insensitive.", after=60)
    s.tool_turn(usage(8, 120, 7683, 160), "edit", "Successfully replaced text in src/checkout.ts.",
                path="src/checkout.ts", oldText="lookupDiscount(form.code)", newText="lookupDiscount(form.code?.toUpperCase())")
    s.tool_turn(usage(8, 40, 7843, 220), "bash", VITEST_OK, command="npx vitest run")
    s.say("Codes are upper-cased before the lookup, so `welcome10` works too. Tests still pass.", usage(8, 35, 8063, 96))
    s.entry("label", after=20, targetId=u1)  # no label: clears "spec"
    note(s.write(folder(WEBSHOP)), "linear session: model_change, thinking_level_change, thinking and toolCall blocks, a label set then cleared, a session_info name set then renamed")


def branched():
    s = Session(WEBSHOP, "2025-05-13T14:02:41.507Z", "branched")
    s.set_model("anthropic", "claude-sonnet-4-5")
    s.user("The cart shows 10.05 for three items at 3.355, it should be 10.07. Can you find out why?")
    s.tool_turn(usage(2980, 70, 0, 2850), "read", CART_TS, path="src/cart.ts",
                thinking="Probably floating point: 3.355 * 3 is not exactly representable.")
    branch_point = s.say("`cartTotal` multiplies float prices and rounds once at the end, so 3 × 3.355 becomes 10.064999… and rounds down. "
                         "We can round each line, or keep prices in integer cents.", usage(8, 110, 5830, 700))
    s.user("Try rounding each line with Math.round first, that's the smallest change.")
    s.tool_turn(usage(8, 160, 6530, 120), "edit", "Successfully replaced text in src/cart.ts.", path="src/cart.ts",
                oldText="sum + i.price * i.qty", newText="sum + Math.round(i.price * i.qty * 100) / 100")
    s.tool_turn(usage(8, 38, 6650, 180), "bash", VITEST_FAIL, command="npx vitest run test/cart.test.ts")
    abandoned = s.say("Still wrong: 3.355 × 3 × 100 is 1006.4999… before rounding. Line rounding can't fix a price that is not representable.",
                      usage(8, 52, 6830, 240))
    # The user went back to the assistant's answer in /tree and asked for a summary of the branch.
    s.leaf = branch_point
    s.entry("branch_summary", after=90, fromId=abandoned,
            summary="Tried rounding each line with Math.round(price * qty * 100) / 100 in src/cart.ts; test/cart.test.ts still fails "
                    "(10.05 instead of 10.07) because 3.355 is not representable as a float. The edit is still in src/cart.ts.",
            details={"readFiles": ["src/cart.ts"], "modifiedFiles": ["src/cart.ts"]},
            usage=usage(1450, 96, 0, 0))
    s.user("Let's store prices as integer cents instead.", after=8)
    s.tool_turn(usage(8, 210, 7070, 520), "edit", "Successfully replaced text in src/cart.ts.", path="src/cart.ts",
                oldText="sum + Math.round(i.price * i.qty * 100) / 100", newText="sum + i.priceCents * i.qty")
    s.tool_turn(usage(8, 38, 7590, 260), "bash", VITEST_OK, command="npx vitest run")
    s.say("Prices are now `priceCents: number` (integers) and `cartTotal` returns cents; formatting to euros happens only in the view. All tests pass.",
          usage(8, 64, 7850, 110))
    note(s.write(folder(WEBSHOP)), "branched session: two user messages off the same assistant answer; the abandoned branch (line rounding, failing test) is summarised by a branch_summary at the start of the active branch (integer cents)")


def compacted():
    s = Session(WEBSHOP, "2025-05-14T08:30:00.000Z", "compacted")
    s.set_model("anthropic", "claude-sonnet-4-5")
    s.user("Add an order history page at /account/orders.")
    s.tool_turn(usage(3300, 80, 0, 3100), "bash", "src/routes/account.ts\nsrc/routes/cart.ts\nsrc/routes/checkout.ts", command="ls src/routes")
    s.tool_turn(usage(8, 70, 6400, 300), "read", "export const accountRoutes = [\n  { path: \"/account\", view: \"account/index\" },\n];\n", path="src/routes/account.ts")
    s.tool_turn(usage(8, 260, 6700, 200), "edit", "Successfully replaced text in src/routes/account.ts.", path="src/routes/account.ts",
                oldText="];", newText="  { path: \"/account/orders\", view: \"account/orders\" },\n];")
    s.say("Route added. Next I need an `orders` query; do you want pagination?", usage(8, 30, 6900, 280))
    s.user("Yes, 20 per page.")
    s.tool_turn(usage(8, 340, 7180, 400), "write", "Successfully wrote 612 bytes to src/queries/orders.ts", path="src/queries/orders.ts",
                content="export async function listOrders(db, userId, page = 1) {\n  return db.orders.findMany({ where: { userId }, take: 20, skip: (page - 1) * 20 });\n}\n")
    s.entry("usage", after=300, kind="cache_warm", provider="anthropic", model="claude-sonnet-4-5", usage=usage(0, 0, 7580, 0))
    kept = s.user("Now the view: a table with date, number, total and status.")
    s.tool_turn(usage(8, 520, 7580, 610), "write", "Successfully wrote 1290 bytes to views/account/orders.html", path="views/account/orders.html",
                content="<table class=\"orders\">\n  <tr><th>Date</th><th>Order</th><th>Total</th><th>Status</th></tr>\n</table>\n")
    s.tool_turn(usage(8, 40, 8190, 300), "bash", VITEST_OK, command="npx vitest run")
    s.say("The page renders a table of the user's orders, 20 per page, newest first.", usage(8, 40, 8490, 90))
    s.entry("compaction", after=30, summary="## Goal\nOrder history page at /account/orders.\n\n## Done\n- Route `/account/orders` in src/routes/account.ts\n"
            "- `listOrders(db, userId, page)` in src/queries/orders.ts, 20 per page\n\n## Next\n- Table view in views/account/orders.html",
            firstKeptEntryId=kept, tokensBefore=48211,
            details={"readFiles": ["src/routes/account.ts"], "modifiedFiles": ["src/routes/account.ts", "src/queries/orders.ts", "views/account/orders.html"]},
            usage=usage(9650, 410, 0, 0))
    s.user("Show the status as a coloured badge.", after=40)
    s.tool_turn(usage(2400, 150, 0, 2300), "edit", "Successfully replaced text in views/account/orders.html.", path="views/account/orders.html",
                oldText="<td>{{status}}</td>", newText="<td><span class=\"badge badge-{{status}}\">{{status}}</span></td>")
    s.say("Statuses now render as badges (`badge-paid`, `badge-shipped`, `badge-refunded`).", usage(8, 30, 4700, 60))
    note(s.write(folder(WEBSHOP)), "compaction whose firstKeptEntryId is a user message in the middle (the view request), with tokensBefore, usage and details; also a `usage` entry (cache_warm)")


def retain_none():
    s = Session(WEBSHOP, "2025-05-15T16:45:10.250Z", "retain-none")
    s.set_model("anthropic", "claude-sonnet-4-5")
    s.user("Upgrade vitest to the latest 3.x and fix whatever breaks.")
    s.tool_turn(usage(3050, 50, 0, 2900), "bash", "Package  Current  Wanted  Latest\nvitest   1.6.0    1.6.0   3.2.4", command="npm outdated vitest")
    s.tool_turn(usage(8, 45, 5950, 110), "bash", "added 12 packages, changed 31 packages in 4s", command="npm install -D vitest@3")
    s.say("Installed vitest 3.2.4. Running the suite next.", usage(8, 20, 6060, 40))
    cid = h(s.id, s.n + 1)[:8]  # the id entry() is about to assign: a retain-none compaction names itself
    s.entry("compaction", after=20, summary="Upgraded vitest from 1.6.0 to 3.2.4 (`npm install -D vitest@3`). The suite has not been run yet.",
            firstKeptEntryId=cid, tokensBefore=6120, usage=usage(6100, 60, 0, 0))
    s.user("Continue: run the whole suite.", after=15)
    s.tool_turn(usage(900, 30, 0, 820), "bash", VITEST_OK, command="npx vitest run")
    s.say("Everything passes on vitest 3; no code changes were needed.", usage(8, 18, 1720, 50))
    note(s.write(folder(WEBSHOP)), "retain-none compaction: firstKeptEntryId is the compaction's own id, so nothing before it is kept")


def context_edits():
    s = Session(WEBSHOP, "2025-05-16T10:05:33.900Z", "context-edits")
    s.set_model("anthropic", "claude-sonnet-4-5")
    secret = s.user("Wire up the Stripe webhook. The test key is sk_test_51Hc9Xw2eZvKYlo2C0f3a9, keep it out of git.")
    echo, _ = s.tool_turn(usage(3200, 140, 0, 3000), "write", "Successfully wrote 58 bytes to .env.local",
                          text="I'll put `STRIPE_KEY=sk_test_51Hc9Xw2eZvKYlo2C0f3a9` in .env.local (ignored by git).",
                          path=".env.local", content="STRIPE_KEY=sk_test_51Hc9Xw2eZvKYlo2C0f3a9\n")
    wrong = s.say("Here is the handler: `app.post('/webhook', express.json(), (req, res) => stripe.webhooks.constructEvent(req.body, sig, secret))`.",
                  usage(8, 120, 6200, 200))
    s.user("That can't work: the signature is computed over the raw body, don't parse it as JSON first.")
    s.tool_turn(usage(8, 230, 6400, 180), "write", "Successfully wrote 704 bytes to src/routes/webhook.ts", path="src/routes/webhook.ts",
                content="app.post(\"/webhook\", express.raw({ type: \"application/json\" }), handleWebhook);\n")
    s.say("Fixed: the route uses `express.raw` so `constructEvent` sees the exact bytes Stripe signed.", usage(8, 40, 6580, 120))
    # The user scrubbed the key from the model's view and dropped the wrong answer.
    s.entry("context_edit", after=30, targetId=secret, replacement={"content": "REDACTED"})
    s.entry("context_edit", after=1, targetId=echo, replacement={"content": "REDACTED"})
    s.entry("context_edit", after=1, targetId=wrong, replacement=None)
    s.user("Now add a test for a bad signature.", after=10)
    s.tool_turn(usage(8, 260, 6700, 300), "write", "Successfully wrote 830 bytes to test/webhook.test.ts", path="test/webhook.test.ts",
                content="it(\"rejects a bad signature\", async () => {\n  const res = await post(\"/webhook\", body, { \"stripe-signature\": \"t=1,v1=bad\" });\n  expect(res.status).toBe(400);\n});\n")
    s.say("Added `rejects a bad signature`; it expects a 400.", usage(8, 22, 7000, 90))
    note(s.write(folder(WEBSHOP)), "context_edit entries: {content: \"REDACTED\"} on a user message and on an assistant message (string, normalised to a text block), null on a wrong assistant answer; leaves before the edits still show the originals")


def media_bash_custom():
    s = Session(WEBSHOP, "2025-05-17T19:20:00.000Z", "media")
    s.set_model("openai", "gpt-5.1-codex")
    s.entry("thinking_level_change", after=0.2, thinkingLevel="high")
    s.entry("custom", after=0.5, customType="todo", data={"items": [{"text": "check the product grid on mobile", "done": False}]})
    s.message({"role": "bashExecution", "command": "npm run build", "output": "vite v5.2.0 building for production...\n✓ 41 modules transformed.\ndist/index.html  0.46 kB",
               "exitCode": 0, "cancelled": False, "truncated": False}, 10, 2100)
    s.message({"role": "bashExecution", "command": "git status --short", "output": " M src/styles/grid.css\n?? screenshots/",
               "exitCode": 0, "cancelled": False, "truncated": False, "excludeFromContext": True}, 6, 80)
    s.user([{"type": "text", "text": "The product grid breaks on narrow screens. Here's what I see on my phone:"},
            {"type": "image", "data": PHOTO, "mimeType": "image/png"}])
    s.entry("custom_message", after=0.1, customType="design-notes", content="Reminder: the design system uses a 4px spacing grid and 2 columns below 480px.",
            display=True, details={"source": "docs/design.md"})
    s.tool_turn(usage(2800, 60, 0, 0, "gpt-5.1-codex"), "read", [{"type": "text", "text": "Read image file [image/png]"},
                {"type": "image", "data": SCREENSHOT, "mimeType": "image/png"}],
                thinking="The user's photo is small; the checked-in screenshot shows the desktop grid for comparison.",
                path="screenshots/product-grid.png")
    s.tool_turn(usage(3100, 180, 2600, 0, "gpt-5.1-codex"), "edit", "Successfully replaced text in src/styles/grid.css.", path="src/styles/grid.css",
                oldText="grid-template-columns: repeat(4, 1fr);",
                newText="grid-template-columns: repeat(4, 1fr);\n}\n@media (max-width: 480px) {\n  .grid { grid-template-columns: repeat(2, 1fr); }")
    s.tool_turn(usage(3300, 30, 2900, 0, "gpt-5.1-codex"), "bash", "npm ERR! missing script: biuld", is_error=True, command="npm run biuld")
    s.tool_turn(usage(3350, 30, 2900, 0, "gpt-5.1-codex"), "bash", "✓ 41 modules transformed.", command="npm run build")
    s.say("Below 480px the grid now has two columns with the 4px-multiple gap. The build passes.", usage(3400, 40, 2900, 0, "gpt-5.1-codex"))
    s.entry("custom", after=5, customType="todo", data={"items": [{"text": "check the product grid on mobile", "done": True}]})
    note(s.write(folder(WEBSHOP)), "images (a user image block and a toolResult image block), two bashExecution messages (one with excludeFromContext), custom and custom_message entries, an isError tool result, an OpenAI model")


def non_ascii():
    s = Session(WEBSHOP, "2025-05-18T11:11:11.111Z", "non-ascii")
    s.set_model("anthropic", "claude-sonnet-4-5")
    s.entry("session_info", after=0.1, name="Übersetzungen 🇯🇵")
    s.user("Übersetze die Fehlermeldungen im Warenkorb ins Japanische. „Artikel nicht verfügbar“ → 在庫切れ? 🛒")
    s.tool_turn(usage(3000, 70, 0, 2700), "read", "{\n  \"outOfStock\": \"Artikel nicht verfügbar\",\n  \"cartEmpty\": \"Ihr Warenkorb ist leer\"\n}\n", path="locales/de.json")
    s.tool_turn(usage(8, 150, 5700, 140), "write", "Successfully wrote 96 bytes to locales/ja.json", path="locales/ja.json",
                content="{\n  \"outOfStock\": \"在庫切れです\",\n  \"cartEmpty\": \"カートは空です\"\n}\n")
    s.say("locales/ja.json angelegt: „在庫切れです“ (nicht vorrätig) und „カートは空です“ (Warenkorb leer). Ümläute, ß und 🛒 bleiben in UTF-8 erhalten.",
          usage(8, 90, 5840, 160))
    note(s.write(folder(WEBSHOP)), "non-ASCII text: German, Japanese and emoji in messages, tool arguments and the session name")


# ---------------------------------------------------------------------------------------------
# --home-dev-pisess--


def system_messages():
    s = Session(PISESS, "2025-05-20T07:00:00.000Z", "system")
    s.set_model("anthropic", "claude-opus-4-5")
    s.message({"role": "system", "content": "", "sections": {"preamble": PREAMBLE, "cwd": "Current working directory: /home/dev/pisess"},
               "toolsAdded": TOOLS}, 0.5, 0)
    s.user("Implement `pisess ls --json`: one NDJSON object per session.")
    s.tool_turn(usage(4100, 90, 0, 3900, "claude-opus-4-5"), "read", "pub fn run(cli: Cli) -> anyhow::Result<()> {\n    match cli.command { /* … */ }\n}\n", path="src/lib.rs")
    kept = s.user("Use serde_json for the output, and keep field order stable.")
    s.message({"role": "system", "content": "", "sections": {"skills": "<skills>\n- rust-cli: conventions for clap-based tools\n</skills>"},
               "toolsRemoved": [{"name": "write"}]}, 0.4, 0)
    s.tool_turn(usage(8, 380, 8000, 420, "claude-opus-4-5"), "edit", "Successfully replaced text in src/cmd/ls.rs.", path="src/cmd/ls.rs",
                oldText="// TODO json", newText="serde_json::to_writer(&mut out, &row)?;\nout.write_all(b\"\\n\")?;")
    s.say("`ls --json` writes one object per line; `serde_json` with `preserve_order` keeps the field order.", usage(8, 40, 8420, 100, "claude-opus-4-5"))
    comp_t = s.t + timedelta(seconds=25)
    s.entry("compaction", after=25, summary="## Goal\n`pisess ls --json` (NDJSON).\n\n## Done\n- Reviewed src/lib.rs\n- Row serialisation in src/cmd/ls.rs",
            firstKeptEntryId=kept, tokensBefore=12830,
            systemMessage={"role": "system", "content": "",
                           "sections": {"preamble": PREAMBLE, "cwd": "Current working directory: /home/dev/pisess",
                                        "skills": "<skills>\n- rust-cli: conventions for clap-based tools\n</skills>"},
                           "toolsAdded": TOOLS[:3], "timestamp": unix_ms(comp_t)},
            usage=usage(12800, 300, 0, 0, "claude-opus-4-5"))
    s.user("Add `--limit`.", after=30)
    s.tool_turn(usage(3000, 150, 0, 2900, "claude-opus-4-5"), "edit", "Successfully replaced text in src/cli.rs.", path="src/cli.rs",
                oldText="pub json: bool,", newText="pub json: bool,\n    #[arg(short = 'n', long)]\n    pub limit: Option<usize>,")
    s.say("`-n/--limit N` keeps the first N rows after sorting.", usage(8, 20, 5900, 60, "claude-opus-4-5"))
    note(s.write(folder(PISESS)), "system messages: a leading system message with sections and toolsAdded, a later patch (toolsRemoved) inside the kept range, and a compaction carrying a systemMessage checkpoint")


def damaged():
    s = Session(PISESS, "2025-05-21T22:10:05.005Z", "damaged")
    s.set_model("anthropic", "claude-sonnet-4-5")
    s.user("Why does `pisess show` crash on my session from yesterday?")
    s.tool_turn(usage(2900, 60, 0, 2800), "bash", "thread 'main' panicked at src/reader.rs:88:41:\nbyte index 4096 is not a char boundary", command="cargo run -- show ~/broken.jsonl")
    # A line pi would skip: a write interrupted by a crash, then the session went on.
    s.raw('{"type":"message","id":"5e1f0c2a","parentId":"' + s.leaf + '","timestamp":"2025-05-21T22:11:0')
    s.say("The reader slices the buffer at a fixed offset and can cut a UTF-8 character in half. It should split on newlines only.",
          usage(8, 70, 5700, 130))
    s.user("Fix it.")
    s.tool_turn(usage(8, 200, 5830, 200), "edit", "Successfully replaced text in src/reader.rs.", path="src/reader.rs",
                oldText="let line = &buf[..4096];", newText="let line = buf.split(|b| *b == b'\\n');")
    # pi was killed while appending: the last line is cut short and has no newline.
    s.raw('{"type":"message","id":"9d3e7b10","parentId":"' + s.leaf + '","timestamp":"2025-05-21T22:14:40.310Z","message":{"role":"assistant","content":[{"type":"text","text":"Fixed. The reader now sp')
    note(s.write(folder(PISESS), torn=True), "damaged file: a malformed line in the middle and a torn last line without a trailing newline (pi skips both)")


# ---------------------------------------------------------------------------------------------
# --Users-x-app--


def v1_file():
    s = Session(XAPP, "2025-01-08T15:30:00.000Z", "v1", version=1,
                header_extra={"provider": "anthropic", "modelId": "claude-opus-4-5", "thinkingLevel": "off"})
    s.model = "claude-opus-4-5"
    s.user([{"type": "text", "text": "Set up eslint for the app."}])
    s.tool_turn(usage(3000, 50, 0, 0, "claude-opus-4-5"), "bash", "added 98 packages in 6s", command="npm install -D eslint @eslint/js")
    s.say("eslint is installed; I'll add a flat config next.", usage(3100, 20, 0, 0, "claude-opus-4-5"))
    s.entry("thinking_level_change", after=3, thinkingLevel="low")
    kept = s.user([{"type": "text", "text": "Use the recommended rules only."}])
    s.tool_turn(usage(3200, 90, 0, 0, "claude-opus-4-5"), "write", "Successfully wrote 120 bytes to eslint.config.js", path="eslint.config.js",
                content="import js from \"@eslint/js\";\nexport default [js.configs.recommended];\n")
    s.say("Added eslint.config.js with `js.configs.recommended`.", usage(3300, 20, 0, 0, "claude-opus-4-5"))
    # v1 compactions point at the kept entry by its index in the file's parsed entries (header = 0).
    s.entry("compaction", after=30, summary="Installed eslint and @eslint/js; eslint.config.js uses the recommended rules.",
            firstKeptEntryIndex=kept, tokensBefore=3420)
    s.message({"role": "bashExecution", "command": "npx eslint .", "output": "", "exitCode": 0, "cancelled": False, "truncated": False}, 40, 900)
    s.user([{"type": "text", "text": "Clean. Thanks!"}])
    s.say("You're welcome.", usage(900, 8, 0, 0, "claude-opus-4-5"))
    note(s.write(folder(XAPP)), "version 1 file: no version, no ids or parentIds, a compaction with firstKeptEntryIndex (an index into the parsed lines, header = 0)")


def v2_hook():
    s = Session(XAPP, "2025-02-03T09:00:00.000Z", "v2", version=2)
    s.set_model("anthropic", "claude-sonnet-4-5")
    s.message({"role": "hookMessage", "customType": "git-status", "content": "On branch main, 2 files changed.", "display": True}, 1, 0)
    s.user("Commit the eslint changes with a sensible message.")
    s.tool_turn(usage(2600, 60, 0, 2500), "bash", "[main 4c1d2e9] Add eslint with recommended rules\n 2 files changed, 14 insertions(+)",
                command="git commit -am \"Add eslint with recommended rules\"")
    s.say("Committed as 4c1d2e9.", usage(8, 10, 5100, 70))
    note(s.write(folder(XAPP)), "version 2 file with a message of role hookMessage (pi renames it to custom when migrating to version 3)")


def roots_orphans():
    s = Session(XAPP, "2025-03-10T12:00:00.000Z", "roots")
    s.set_model("anthropic", "claude-sonnet-4-5")
    s.user("What does `npm run dev` do in this project?")
    s.say("It starts vite on port 5173 with hot reload.", usage(2500, 20, 0, 2400))
    # branchWithSummary(null, ...) / resetLeaf(): a second root in the same file.
    s.leaf = None
    s.user("Different question: how big is the production bundle?", after=120)
    s.tool_turn(usage(2550, 30, 0, 2450), "bash", "dist/assets/index-4f2a.js  142.31 kB │ gzip: 45.90 kB", command="npm run build | tail -1")
    s.say("142 kB, 46 kB gzipped.", usage(8, 14, 4900, 60))
    # An entry whose parent is not in the file (copied from another session by hand).
    s.leaf = "0badc0de"
    s.user("(pasted from another session) Is 46 kB good?", after=60)
    s.say("For a storefront, yes: well under the usual 170 kB budget.", usage(2500, 20, 0, 2400))
    note(s.write(folder(XAPP)), "several roots (a second parentId null entry) and an orphan whose parentId names a missing entry; the leaf is on the orphan's chain")


# ---------------------------------------------------------------------------------------------
# Seed-000 dialect: Users-x-app (no dashes), header `session_header` without id (id = file stem).


def dialect():
    d = os.path.join(SESSIONS, "Users-x-app")
    os.makedirs(d, exist_ok=True)

    def u(i, o, cr=0, cw=0):
        return {"inputTokens": i, "outputTokens": o, "cacheReadTokens": cr, "cacheWriteTokens": cw}

    lines = [
        {"type": "session_header", "version": 1, "createdAt": "2025-04-02T10:00:00Z", "cwd": XAPP,
         "provider": "anthropic", "model": "claude-sonnet-4-20250514", "thinkingLevel": "medium"},
        {"type": "user_message", "id": "entry-001", "parentId": None, "timestamp": "2025-04-02T10:00:01Z",
         "content": [{"type": "text", "text": "Create a REST endpoint GET /api/users."}]},
        {"type": "thinking", "id": "entry-002", "parentId": "entry-001", "timestamp": "2025-04-02T10:00:02Z", "modelId": "claude-sonnet-4-20250514",
         "content": [{"type": "thinking", "text": "Check how routes are registered before writing a new one.", "signature": "c2lnLTAwMg=="}], "thinkingLevel": "medium"},
        {"type": "assistant_message", "id": "entry-003", "parentId": "entry-002", "timestamp": "2025-04-02T10:00:03Z", "modelId": "claude-sonnet-4-20250514",
         "content": [{"type": "text", "text": "I'll create the route file."},
                     {"type": "tool_use", "id": "tc_001", "name": "write", "input": {"path": "src/routes/users.ts", "content": "router.get(\"/api/users\", listUsers);\n"}}],
         "usage": u(1500, 120, 200, 0), "cost": 0.0063, "durationMs": 2300, "thinkingLevel": "medium"},
        {"type": "tool_call", "id": "entry-004", "parentId": "entry-003", "timestamp": "2025-04-02T10:00:03Z", "toolName": "write", "toolCallId": "tc_001",
         "input": {"path": "src/routes/users.ts", "content": "router.get(\"/api/users\", listUsers);\n"}},
        {"type": "tool_result", "id": "entry-005", "parentId": "entry-004", "timestamp": "2025-04-02T10:00:04Z", "toolCallId": "tc_001", "toolName": "write",
         "output": {"content": [{"type": "text", "text": "File written successfully: src/routes/users.ts (1 lines)"}]},
         "details": {"bytesWritten": 38, "lines": 1}, "isError": False, "durationMs": 15},
        {"type": "assistant_message", "id": "entry-006", "parentId": "entry-005", "timestamp": "2025-04-02T10:00:06Z", "modelId": "claude-sonnet-4-20250514",
         "content": [{"type": "text", "text": "GET /api/users is registered and calls `listUsers`."}],
         "usage": u(1700, 30, 1500, 0), "cost": 0.0032, "durationMs": 900},
        {"type": "user_message", "id": "entry-007", "parentId": "entry-006", "timestamp": "2025-04-02T10:05:00Z",
         "content": [{"type": "text", "text": "This is the error page I get:"},
                     {"type": "image", "source": {"type": "base64", "mediaType": "image/png", "data": PHOTO}}]},
        {"type": "assistant_message", "id": "entry-008", "parentId": "entry-007", "timestamp": "2025-04-02T10:05:04Z", "modelId": "claude-sonnet-4-20250514",
         "content": [{"type": "text", "text": "The route is missing from the router index; I'll add it."},
                     {"type": "tool_use", "id": "tc_002", "name": "edit", "input": {"path": "src/routes/index.ts", "oldText": "];", "newText": "  users,\n];"}}],
         "usage": u(2100, 80, 1700, 0), "cost": 0.0045, "durationMs": 1800},
        {"type": "tool_call", "id": "entry-009", "parentId": "entry-008", "timestamp": "2025-04-02T10:05:04Z", "toolName": "edit", "toolCallId": "tc_002",
         "input": {"path": "src/routes/index.ts", "oldText": "];", "newText": "  users,\n];"}},
        {"type": "tool_result", "id": "entry-010", "parentId": "entry-009", "timestamp": "2025-04-02T10:05:05Z", "toolCallId": "tc_002", "toolName": "edit",
         "output": {"content": [{"type": "text", "text": "Edit applied: src/routes/index.ts"}]}, "isError": False, "durationMs": 9},
        {"type": "compaction", "id": "entry-011", "parentId": "entry-010", "timestamp": "2025-04-02T10:30:00Z", "modelId": "claude-sonnet-4-20250514",
         "summary": "Created GET /api/users in src/routes/users.ts and registered it in src/routes/index.ts.",
         "summarizedEntryIds": ["entry-001", "entry-002", "entry-003", "entry-004", "entry-005", "entry-006", "entry-007", "entry-008", "entry-009", "entry-010"],
         "filesMentioned": ["src/routes/users.ts", "src/routes/index.ts"], "tokenCount": 350},
        {"type": "user_message", "id": "entry-012", "parentId": "entry-011", "timestamp": "2025-04-02T10:31:00Z",
         "content": [{"type": "text", "text": "Add pagination."}]},
        {"type": "assistant_message", "id": "entry-013", "parentId": "entry-012", "timestamp": "2025-04-02T10:31:03Z", "modelId": "claude-sonnet-4-20250514",
         "content": [{"type": "text", "text": "`listUsers` now accepts `?page=` and returns 50 users per page."}],
         "usage": u(600, 40, 0, 0), "cost": 0.0024, "durationMs": 1100},
    ]
    path = os.path.join(d, "0196f3a2-7c41-7a0e-9b7d-3f1c2a8e5d40.jsonl")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(dumps(e) + "\n" for e in lines))
    note(path, "seed-000 dialect: session_header without id (the id is the file stem), user_message, thinking, assistant_message with tool_use blocks and inputTokens-style usage, tool_call and tool_result entries (output.content), an image with `source`, a compaction without firstKeptEntryId")

    # Tool results as content blocks of a user_message, the other shape the seed describes.
    lines = [
        {"type": "session_header", "version": 1, "createdAt": "2025-04-03T08:00:00Z", "cwd": XAPP},
        {"type": "user_message", "id": "entry-001", "parentId": None, "timestamp": "2025-04-03T08:00:01Z",
         "content": [{"type": "text", "text": "List the files in src."}]},
        {"type": "assistant_message", "id": "entry-002", "parentId": "entry-001", "timestamp": "2025-04-03T08:00:02Z", "modelId": "claude-sonnet-4-20250514",
         "content": [{"type": "tool_use", "id": "tc_001", "name": "bash", "input": {"command": "ls src"}}],
         "usage": u(900, 20), "cost": 0.003, "durationMs": 700},
        {"type": "user_message", "id": "entry-003", "parentId": "entry-002", "timestamp": "2025-04-03T08:00:03Z",
         "content": [{"type": "tool_result", "toolUseId": "tc_001", "content": [{"type": "text", "text": "index.ts\nroutes\n"}], "isError": False}]},
        {"type": "assistant_message", "id": "entry-004", "parentId": "entry-003", "timestamp": "2025-04-03T08:00:05Z", "modelId": "claude-sonnet-4-20250514",
         "content": [{"type": "text", "text": "src has index.ts and a routes folder."}],
         "usage": u(950, 15, 900, 0), "cost": 0.0011, "durationMs": 600},
    ]
    path = os.path.join(d, "0196f8c8-1b00-7d21-8a44-6e0f9c3b7a12.jsonl")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(dumps(e) + "\n" for e in lines))
    note(path, "seed-000 dialect, second shape: the tool result arrives as a tool_result block inside a user_message")


# ---------------------------------------------------------------------------------------------
# custom-dir: a flat --session-dir folder shared by two projects.


def custom_dir():
    a = Session(WEBSHOP, "2025-05-22T13:00:00.000Z", "custom-a")
    a.user("Does the CSV export include refunded orders?")
    a.tool_turn(usage(2700, 40, 0, 2600), "bash", "src/export/csv.ts:12:  .filter((o) => o.status !== \"refunded\")", command="grep -n refunded src/export/csv.ts")
    a.say("No: src/export/csv.ts filters them out on line 12.", usage(8, 20, 5300, 60))
    note(a.write(CUSTOM), "custom dir, cwd /home/dev/webshop: a short linear session")

    fork_of = "/home/dev/.pi/agent/sessions/--home-dev-webshop--/2025-05-13T14-02-41-507Z_" + uuid7(ts("2025-05-13T14:02:41.507Z"), "branched") + ".jsonl"
    b = Session(WEBSHOP, "2025-05-22T15:30:00.000Z", "custom-b", parent_session=fork_of)
    b.set_model("anthropic", "claude-sonnet-4-5")
    b.user("Show refunded orders in the export after all, with a negative total.")
    b.tool_turn(usage(2900, 120, 0, 2800), "edit", "Successfully replaced text in src/export/csv.ts.", path="src/export/csv.ts",
                oldText=".filter((o) => o.status !== \"refunded\")", newText=".map((o) => (o.status === \"refunded\" ? { ...o, total: -o.total } : o))")
    b.say("Refunded orders are exported with a negative total.", usage(8, 14, 5700, 50))
    b.entry("session_info", after=2, name="CSV export: refunds")
    note(b.write(CUSTOM), "custom dir, cwd /home/dev/webshop: a fork (parentSession names the file it came from) with a name")

    c = Session(PISESS, "2025-05-23T08:45:00.000Z", "custom-c")
    c.set_model("anthropic", "claude-opus-4-5")
    c.user("Which crate should I use for the trash?")
    c.say("`trash` (v5): it uses the platform trash on Linux, macOS and Windows.", usage(2000, 30, 0, 1900, "claude-opus-4-5"))
    c.user("ok and for relative times?")
    # Still being written: the last line is complete but has no newline yet.
    c.say("`jiff` can compute spans; format `3h ago` yourself from the largest unit.", usage(8, 25, 3900, 40, "claude-opus-4-5"))
    note(c.write(CUSTOM, torn=True), "custom dir, cwd /home/dev/pisess: the last line is complete but has no trailing newline (a session still being written)")


README_HEAD = """# Example sessions

Written by `python3 examples/generate.py` (deterministic; re-run it instead of editing files).
`sessions/` is laid out like pi's default root (`~/.pi/agent/sessions`), one `--<cwd>--` folder per
project, plus `Users-x-app/` in the seed-000 dialect; `custom-dir/` is a flat `--session-dir`
folder shared by two projects. Try `pisess --session-dir examples/custom-dir ls --all` or
`PI_CODING_AGENT_DIR=$PWD/examples pisess ls --all` (the agent dir's `sessions/` is this folder).
pi's own reading of them is checked by `tests/differential/run.sh --extra FILE...`.
"""


def main():
    for d in (SESSIONS, CUSTOM):
        shutil.rmtree(d, ignore_errors=True)
    for make in (linear, branched, compacted, retain_none, context_edits, media_bash_custom, non_ascii,
                 system_messages, damaged, v1_file, v2_hook, roots_orphans, dialect, custom_dir):
        make()
    def short(path):
        # A file is named by its unique timestamp (or, in the dialect folder, its id prefix).
        folder_, name = os.path.split(path)
        stem = name.split("_")[0] if "_" in name else name[:8]
        return f"`{folder_}/{stem}…`"

    # One item per file: a list reads and diffs where one 3,900-character paragraph did not.
    body = "## The files\n\n" + "\n".join(f"- {short(p)}: {d}." for p, d in DESCRIPTIONS)
    with open(os.path.join(HERE, "README.md"), "w", encoding="utf-8") as f:
        f.write(README_HEAD + "\n" + body + "\n")
    total = sum(os.path.getsize(os.path.join(r, n)) for base in (SESSIONS, CUSTOM) for r, _, ns in os.walk(base) for n in ns)
    print(f"wrote {len(DESCRIPTIONS)} sessions, {total} bytes")


if __name__ == "__main__":
    main()
