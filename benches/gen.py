#!/usr/bin/env python3
"""Deterministic generator of pi session corpora for the benchmark (python3, stdlib only).

    gen.py many ROOT [--sessions 2000] [--mb 500] [--seed 1]
        ROOT/--<cwd>--/<ISO>_<id>.jsonl, sizes spread log-normally around the mean, about 30
        projects; each file's mtime is its last entry's time.
    gen.py one FILE [--mb 400] [--seed 2] [--small]
        one long session; --small: entries of about 1 KB (tool results of 50 B-2 KB, no images).
    gen.py grow ROOT OUT [--count 100] [--seed 3]
        picks COUNT sessions under ROOT and writes each, grown by 2-5 entries appended as pi
        appends them (parentId the last entry, later timestamps), to OUT/<same relative path>;
        prints the relative paths. ROOT is left as it is; mtimes are the new last entry's time.
    gen.py append FILE OUT [--mb 1] [--seed 4]
        writes to OUT the lines pi would append to FILE next: turns (user prompt, assistant
        turns with tool calls and results, side entries) continuing FILE's last entry (parentId
        chain, ids unused in FILE, later timestamps), about MB of them. FILE is left as it is;
        `cat OUT >>FILE` is the append.

Sessions look like pi 1.6.0's own (version 3): model and thinking-level changes, user prompts
(a few with pasted images), assistant turns with thinking, text and tool calls, tool results of
1-50 KB (some `read` results are base64 images of 100 KB+), branches (the leaf moved back, often
with a branch summary), compactions, labels, session names, custom entries and rare context
edits. The same seed gives the same bytes.
"""

import argparse
import base64
import json
import math
import os
import random
import sys
from datetime import datetime, timezone

ASCII_WORDS = (
    "the a to of and in is it for on that this with as be are fn let mut self impl struct "
    "return if else match Some None Ok Err use pub mod test assert_eq! cargo build src lib "
    "main error warning value file path line entry session tree context message user model "
    "assistant tool result read write edit bash grep find node npm json parse string number "
    "{} [] () <> \"quoted\" 'single' back\\slash tab\t"
).split(" ")
# Tool output is mostly ASCII (code, logs); about one word in a hundred is not.
OTHER_WORDS = "déjà café naïve 日本語 проверка λ → ✓ 🚀".split(" ")


def text_pool(rng, size):
    """A long text of code-ish lines to slice tool outputs and prompts from."""
    out, n = [], 0
    while n < size:
        words = (rng.choice(OTHER_WORDS) if rng.random() < 0.01 else rng.choice(ASCII_WORDS)
                 for _ in range(rng.randint(3, 16)))
        line = " ".join(words)
        out.append(line)
        n += len(line) + 1
    return "\n".join(out)


class Pools:
    def __init__(self, rng):
        self.text = text_pool(rng, 3 << 20)
        self.b64 = base64.b64encode(rng.randbytes(600 << 10)).decode()

    def text_of(self, rng, n):
        n = max(1, min(n, len(self.text) - 1))
        start = rng.randrange(0, len(self.text) - n)
        return self.text[start : start + n]

    def image_of(self, rng, n):
        n = min(n, len(self.b64)) // 4 * 4
        start = rng.randrange(0, (len(self.b64) - n) // 4 + 1) * 4
        return self.b64[start : start + n]


def iso(ms):
    d = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def uuid_of(rng):
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-{h[16:20]}-{h[20:]}"


MODELS = [
    ("anthropic", "claude-sonnet-4-5"),
    ("anthropic", "claude-opus-4-1"),
    ("openai", "gpt-5"),
    ("google", "gemini-2.5-pro"),
]
TOOLS = ["bash", "read", "edit", "write", "grep", "find"]


class Writer:
    """One session: appends entries to a file, tracking the tree so branches and compactions
    point at real entries."""

    def __init__(self, rng, pools, out, sid, cwd, start_ms, small=False, header=True):
        self.rng, self.pools, self.out = rng, pools, out
        # Small entries: tool results of 50 B-2 KB, short texts, no images (many more entries).
        self.small = small
        self.t = start_ms
        self.bytes = 0
        self.entries = 0
        self.ids = set()
        self.parent = {}
        self.leaf = None
        self.user_points = []  # parents of user messages: where a branch can restart
        self.provider, self.model = rng.choice(MODELS)
        if header:
            self.emit({"type": "session", "version": 3, "id": sid, "timestamp": iso(self.t), "cwd": cwd})

    @classmethod
    def resume(cls, rng, pools, out, lines):
        """A writer that appends to a session whose lines (bytes) are already written."""
        w = cls(rng, pools, out, None, None, 0, header=False)
        for line in lines:
            obj = json.loads(line)
            if obj.get("type") == "session":
                continue
            w.ids.add(obj["id"])
            w.parent[obj["id"]] = obj.get("parentId")
            w.leaf = obj["id"]  # pi's leaf after loading: the last entry in the file
            w.entries += 1
            stamp = datetime.strptime(obj["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
            w.t = max(w.t, int(stamp.timestamp() * 1000))
            if obj.get("type") == "model_change":
                w.provider, w.model = obj["provider"], obj["modelId"]
        return w

    def emit(self, obj):
        line = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
        data = line.encode()
        self.out.write(data)
        self.bytes += len(data)

    def new_id(self):
        while True:
            i = f"{self.rng.getrandbits(32):08x}"
            if i not in self.ids:
                self.ids.add(i)
                return i

    def entry(self, kind, **fields):
        self.t += self.rng.randint(200, 40_000)
        i = self.new_id()
        obj = {"type": kind, "id": i, "parentId": self.leaf, "timestamp": iso(self.t)}
        obj.update(fields)
        self.emit(obj)
        self.parent[i] = self.leaf
        self.leaf = i
        self.entries += 1
        return i

    def message(self, msg):
        msg["timestamp"] = self.t + 1
        return self.entry("message", message=msg)

    def usage(self):
        r = self.rng
        inp, out, cr, cw = r.randint(5, 3000), r.randint(20, 4000), r.randint(0, 90_000), r.randint(0, 8000)
        ci, co, ccr, ccw = inp * 3e-6, out * 15e-6, cr * 3e-7, cw * 3.75e-6
        return {
            "input": inp, "output": out, "cacheRead": cr, "cacheWrite": cw,
            "totalTokens": inp + out + cr + cw,
            "cost": {"input": ci, "output": co, "cacheRead": ccr, "cacheWrite": ccw,
                     "total": ci + co + ccr + ccw},
        }

    def tool_size(self):
        # 1-50 KB, log-uniform: many small outputs, a long tail of big ones.
        low, high = (50, 2048) if self.small else (1024, 50 * 1024)
        return int(math.exp(self.rng.uniform(math.log(low), math.log(high))))

    def assistant(self, calls, final):
        r, p = self.rng, self.pools
        content = []
        if r.random() < 0.6:
            content.append({"type": "thinking", "thinking": p.text_of(r, r.randint(20, 300) if self.small else r.randint(100, 3000)),
                            "thinkingSignature": p.image_of(r, 344)})
        if final or r.random() < 0.5:
            longest = (250 if final else 60) if self.small else (2500 if final else 600)
            content.append({"type": "text", "text": p.text_of(r, r.randint(20, longest))})
        for name, call_id in calls:
            args = {"command": p.text_of(r, r.randint(10, 200))} if name == "bash" else \
                   {"path": "src/" + p.text_of(r, 12).replace("\n", "_") + ".rs"}
            if name in ("edit", "write"):
                args["content"] = p.text_of(r, r.randint(20, 600) if self.small else r.randint(200, 6000))
            content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": args})
        return self.message({
            "role": "assistant", "content": content, "api": "anthropic-messages",
            "provider": self.provider, "model": self.model, "usage": self.usage(),
            "stopReason": "stop" if final else "toolUse",
        })

    def turn(self, target):
        r, p = self.rng, self.pools
        self.user_points.append(self.leaf)
        prompt = p.text_of(r, int(math.exp(r.uniform(math.log(20), math.log(400 if self.small else 4000)))))
        if not self.small and r.random() < 0.03:
            content = [{"type": "text", "text": prompt},
                       {"type": "image", "data": p.image_of(r, r.randint(100 << 10, 400 << 10)),
                        "mimeType": "image/png"}]
        elif r.random() < 0.5:
            content = prompt
        else:
            content = [{"type": "text", "text": prompt}]
        self.message({"role": "user", "content": content})
        for _ in range(r.choice([0, 1, 1, 2, 3, 4, 6, 9])):
            if self.bytes >= target:
                break
            calls = [(r.choice(TOOLS), f"toolu_{r.getrandbits(64):016x}") for _ in range(r.choice([1, 1, 1, 2, 3]))]
            self.assistant(calls, final=False)
            for name, call_id in calls:
                if name == "read" and not self.small and r.random() < 0.04:
                    result = [{"type": "text", "text": "Read image file [image/png]"},
                              {"type": "image", "data": p.image_of(r, r.randint(100 << 10, 300 << 10)),
                               "mimeType": "image/png"}]
                else:
                    result = [{"type": "text", "text": p.text_of(r, self.tool_size())}]
                self.message({"role": "toolResult", "toolCallId": call_id, "toolName": name,
                              "content": result, "isError": r.random() < 0.05})
        self.assistant([], final=True)

    def side_entries(self):
        r, p = self.rng, self.pools
        x = r.random()
        if x < 0.05:
            target = r.choice(sorted(self.ids))
            self.entry("label", targetId=target, label=p.text_of(r, 12).replace("\n", " "))
        elif x < 0.08:
            self.entry("session_info", name=p.text_of(r, r.randint(8, 40)).replace("\n", " "))
        elif x < 0.13:
            self.entry("custom", customType="ext-state", data={"n": r.randint(0, 99), "note": p.text_of(r, 80)})
        elif x < 0.16:
            self.entry("custom_message", customType="reminder", content=p.text_of(r, r.randint(50, 800)),
                       display=r.random() < 0.5)
        elif x < 0.18:
            self.provider, self.model = r.choice(MODELS)
            self.entry("model_change", provider=self.provider, modelId=self.model)
        elif x < 0.19:
            self.entry("thinking_level_change", thinkingLevel=r.choice(["low", "medium", "high"]))
        elif x < 0.2:
            target = self.leaf
            for _ in range(r.randint(1, 6)):
                target = self.parent.get(target) or target
            replacement = None if r.random() < 0.3 else {"content": p.text_of(r, r.randint(20, 400))}
            self.entry("context_edit", targetId=target, replacement=replacement)

    def branch(self):
        r = self.rng
        point = r.choice(self.user_points[-12:])
        old_leaf = self.leaf
        self.leaf = point
        if r.random() < 0.6:
            self.entry("branch_summary", fromId=old_leaf, summary=self.pools.text_of(r, r.randint(200, 3000)))

    def compaction(self):
        r = self.rng
        kept = self.leaf
        for _ in range(r.randint(3, 14)):
            kept = self.parent.get(kept) or kept
        self.entry("compaction", summary=self.pools.text_of(r, r.randint(1500, 9000)), firstKeptEntryId=kept,
                   tokensBefore=r.randint(80_000, 190_000), usage=self.usage())

    def fill(self, target):
        r = self.rng
        self.entry("model_change", provider=self.provider, modelId=self.model)
        self.entry("thinking_level_change", thinkingLevel="medium")
        while self.bytes < target:
            self.turn(target)
            x = r.random()
            if x < 0.06 and len(self.user_points) > 2:
                self.branch()
            elif x < 0.10 and self.entries > 30:
                self.compaction()
            if r.random() < 0.35:
                self.side_entries()
        return self.t


def many(args):
    rng = random.Random(args.seed)
    pools = Pools(rng)
    projects = [f"/home/dev/{rng.choice(['work', 'src', 'code'])}/proj-{k:02d}" for k in range(30)]
    weights = [1 / (k + 1) for k in range(len(projects))]
    raw = [math.exp(rng.gauss(0, 1.1)) for _ in range(args.sessions)]
    # A session ends after the turn that crosses its target: 0.84 makes up for that overshoot.
    scale = 0.84 * args.mb * 1e6 / sum(raw)
    start = 1_735_689_600_000  # 2025-01-01
    total = 0
    # A session every 4 hours, but all of them within 600 days (10,000 sessions: every 1.44 h), so
    # every mtime stays in the past: a cache that distrusts files modified after it was written
    # would otherwise re-read the sessions dated in the future on every run.
    step = min(4 * 3600 * 1000, 600 * 86400 * 1000 // max(1, args.sessions))
    for n, r in enumerate(raw):
        cwd = rng.choices(projects, weights)[0]
        folder = "--" + cwd.lstrip("/").replace("/", "-").replace(":", "-") + "--"
        os.makedirs(os.path.join(args.root, folder), exist_ok=True)
        t0 = start + n * step + rng.randint(0, 3_600_000)
        sid = uuid_of(rng)
        name = iso(t0).replace(":", "-").replace(".", "-") + "_" + sid + ".jsonl"
        path = os.path.join(args.root, folder, name)
        with open(path, "wb", buffering=1 << 20) as f:
            w = Writer(rng, pools, f, sid, cwd, t0)
            end = w.fill(max(2000, int(r * scale)))
            total += w.bytes
        os.utime(path, ns=(end * 1_000_000, end * 1_000_000))
    print(f"{args.sessions} sessions, {total / 1e6:.0f} MB under {args.root}", file=sys.stderr)


def one(args):
    rng = random.Random(args.seed)
    pools = Pools(rng)
    with open(args.file, "wb", buffering=1 << 20) as f:
        w = Writer(rng, pools, f, uuid_of(rng), "/home/dev/work/big", 1_767_225_600_000, args.small)
        end = w.fill(int(args.mb * 1e6))
    os.utime(args.file, ns=(end * 1_000_000, end * 1_000_000))
    print(f"1 session, {w.entries} entries, {w.bytes / 1e6:.0f} MB: {args.file}", file=sys.stderr)


def grow(args):
    rng = random.Random(args.seed)
    pools = Pools(rng)
    rels = sorted(
        os.path.relpath(os.path.join(d, f), args.root)
        for d, _, files in os.walk(args.root)
        for f in files
        if f.endswith(".jsonl")
    )
    picked = sorted(rng.sample(rels, min(args.count, len(rels))))
    for rel in picked:
        src, dst = os.path.join(args.root, rel), os.path.join(args.out, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(src, "rb") as f:
            old = f.read()
        with open(dst, "wb") as f:
            f.write(old)
            w = Writer.resume(rng, pools, f, old.splitlines())
            # 2-5 entries: a turn (2, or 4 with a tool call and its result), one more entry at 3 or 5.
            n = rng.randint(2, 5)
            w.message({"role": "user", "content": pools.text_of(rng, rng.randint(20, 400))})
            if n >= 4:
                call = (rng.choice(TOOLS), f"toolu_{rng.getrandbits(64):016x}")
                w.assistant([call], final=False)
                w.message({"role": "toolResult", "toolCallId": call[1], "toolName": call[0],
                           "content": [{"type": "text", "text": pools.text_of(rng, w.tool_size())}],
                           "isError": False})
            w.assistant([], final=True)
            if n % 2:
                w.entry("custom", customType="ext-state", data={"n": rng.randint(0, 99), "note": pools.text_of(rng, 80)})
        os.utime(dst, ns=(w.t * 1_000_000, w.t * 1_000_000))
        print(rel)
    print(f"{len(picked)} sessions grown into {args.out}", file=sys.stderr)


def append(args):
    rng = random.Random(args.seed)
    pools = Pools(rng)
    with open(args.file, "rb") as f:
        lines = f.read().splitlines()
    with open(args.out, "wb", buffering=1 << 20) as f:
        w = Writer.resume(rng, pools, f, lines)
        target = int(args.mb * 1e6)
        while w.bytes < target:
            w.turn(target)
            if rng.random() < 0.35:
                w.side_entries()
    print(f"{w.bytes / 1e6:.2f} MB to append to {args.file}: {args.out}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("many")
    m.add_argument("root")
    m.add_argument("--sessions", type=int, default=2000)
    m.add_argument("--mb", type=float, default=500)
    m.add_argument("--seed", type=int, default=1)
    o = sub.add_parser("one")
    o.add_argument("file")
    o.add_argument("--mb", type=float, default=400)
    o.add_argument("--seed", type=int, default=2)
    o.add_argument("--small", action="store_true", help="small entries (about ten times as many)")
    g = sub.add_parser("grow")
    g.add_argument("root")
    g.add_argument("out")
    g.add_argument("--count", type=int, default=100)
    g.add_argument("--seed", type=int, default=3)
    a = sub.add_parser("append")
    a.add_argument("file")
    a.add_argument("out")
    a.add_argument("--mb", type=float, default=1)
    a.add_argument("--seed", type=int, default=4)
    args = ap.parse_args()
    {"many": many, "one": one, "grow": grow, "append": append}[args.cmd](args)


if __name__ == "__main__":
    main()
