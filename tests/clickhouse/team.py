#!/usr/bin/env python3
"""Runs every statement of docs/team.md on the fact streams of two machines (issue 46).

    python3 tests/clickhouse/team.py PISESS_BINARY

Two machine stores are written here: they share a synced session, a fork made on one machine
and synced to the other, a fork made on the second machine whose `parentSession` names a path
of another home (found by its file name), a session synced before its owner went on with it,
and sessions of their own. `pisess facts --all` runs on each (with and without `--cursor`).

Every ```sql block of docs/team.md that starts with `-- clickhouse: NAME` is run, in order, by
ClickHouse (chDB, the embedded engine from PyPI); the `insert` statement is run with each
machine's rows after it, every machine's rows twice. Every `-- duckdb: NAME` block is run by
DuckDB over the same files (each machine's twice). For both engines the totals per day, model
and project must equal `pisess stats --all --by day|model|project --tz UTC` over the two
stores' union (each file once), which counts an entry a fork copied once, as the keys do
(docs/format.md, "Counting a family once"); the test's own reading of that rule (same id and
content but `parentId` as the source's) checks that the fixture holds such copies at all.
Tokens exactly, cost to the cent. Exit 1 on a difference. A missing engine: SKIPPED, exit 0,
except under CI (`CI` set), where it is a failure.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from datetime import datetime, timezone

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def need(module):
    try:
        return __import__(module)
    except ImportError:
        if os.environ.get("CI"):
            print(f"team: FAILED under CI (the {module} Python package is not installed)")
            sys.exit(1)
        print(f"team: SKIPPED (the {module} Python package is not installed)")
        sys.exit(0)


# ---------------------------------------------------------------- the two machines' stores

T0 = datetime(2026, 3, 1, 23, 50, tzinfo=timezone.utc).timestamp() * 1000


def iso(ms):
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{int(ms) % 1000:03d}Z"


class Session:
    """A pi session file being written: header, then entries chained by parentId."""

    def __init__(self, sid, cwd, start_ms, parent_session=None):
        self.sid, self.cwd, self.t = sid, cwd, start_ms
        self.header = {"type": "session", "version": 3, "id": sid, "timestamp": iso(start_ms), "cwd": cwd}
        if parent_session:
            self.header["parentSession"] = parent_session
        self.entries = []
        self.n = 0

    def name(self):
        return iso(self.header_ms()).replace(":", "-").replace(".", "-") + "_" + self.sid + ".jsonl"

    def header_ms(self):
        return datetime.strptime(self.header["timestamp"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp() * 1000

    def add(self, message, parent="last"):
        self.n += 1
        self.t += 7 * 60 * 1000  # seven minutes a turn: days change mid-session
        eid = f"{self.sid[-4:]}{self.n:04x}"
        if parent == "last":
            parent = self.entries[-1]["id"] if self.entries else None
        message = dict(message, timestamp=int(self.t))
        self.entries.append({"type": "message", "id": eid, "parentId": parent, "timestamp": iso(self.t), "message": message})
        return eid

    def turn(self, text, model, tokens, cost, tool=None, error=False, secret=""):
        self.add({"role": "user", "content": [{"type": "text", "text": f"{text} {secret}".strip()}]})
        call = f"call_{self.sid[-4:]}_{self.n}"
        content = [{"type": "text", "text": f"Answering: {text}"}]
        if tool:
            content.append({"type": "toolCall", "id": call, "name": tool, "arguments": {"command": f"grep -r '{text}' /srv/{secret}"}})
        provider, name = model.split("/")
        i, o = tokens
        self.add({"role": "assistant", "content": content, "provider": provider, "model": name, "api": "x",
                  "usage": {"input": i, "output": o, "cacheRead": 0, "cacheWrite": 0, "totalTokens": i + o,
                            "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}},
                  "stopReason": "toolUse" if tool else "stop"})
        if tool:
            self.add({"role": "toolResult", "toolCallId": call, "toolName": tool, "isError": error,
                      "content": [{"type": "text", "text": f"output of {text} {secret}"}]})

    def lines(self, upto=None):
        return [self.header] + self.entries[:upto]

    def write(self, root, upto=None):
        folder = os.path.join(root, "sessions", "--" + self.cwd.strip("/").replace("/", "-") + "--")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, self.name())
        with open(path, "w", encoding="utf-8") as f:
            for line in self.lines(upto):
                f.write(json.dumps(line) + "\n")
        return path


def fork(source, source_path, sid, upto, start_ms):
    """pi's /fork: the source's entries up to `upto`, ids and content kept, under a new header."""
    f = Session(sid, source.cwd, start_ms, parent_session=source_path)
    f.entries = [dict(e) for e in source.entries[:upto]]
    f.n = 1000
    f.t = source.t
    return f


SECRET = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
SONNET, GLM, GPT = "anthropic/claude-sonnet-4-5", "zai/glm-4.6", "openai/gpt-5"


def build(tmp):
    """The two agent dirs, and the sessions' entries that stats counts twice."""
    a, b = os.path.join(tmp, "machine-a"), os.path.join(tmp, "machine-b")
    s1 = Session("0196aaaa-0000-7000-8000-000000000001", "/work/alpha", T0)
    s1.turn("fix the parser", SONNET, (1200, 300), 0.0081, tool="bash", secret=SECRET)
    s1.turn("run the tests", SONNET, (2200, 500), 0.0141, tool="bash", error=True)
    s1.turn("explain the failure", GLM, (5000, 800), 0)
    s1_a = s1.write(a)
    s1.write(b)  # synced: the same file on both machines
    # A fork of s1 made on machine A, synced to B (its header names A's path, which B lacks).
    f1 = fork(s1, s1_a, "0196aaaa-0000-7000-8000-0000000000f1", 5, T0 + 3_600_000)
    f1.turn("try another approach", GPT, (900, 200), 0.0042, tool="read")
    f1.write(a)
    f1.write(b)
    # A fork of s1 made on machine B, by a user whose home differs: found by its file name.
    g = fork(s1, "/home/bob/.pi/agent/sessions/--work-alpha--/" + s1.name(), "0196bbbb-0000-7000-8000-0000000000f2", 8, T0 + 7_200_000)
    g.turn("summarize for the PR", SONNET, (3000, 700), 0.0195)
    g.write(b)
    # Synced to B after 4 entries; A went on (and the branch moved: a retry of the last turn).
    s5 = Session("0196aaaa-0000-7000-8000-000000000005", "/work/beta", T0 + 86_400_000)
    s5.turn("add a flag", SONNET, (800, 100), 0.0039, tool="edit")
    s5.write(b, upto=3)
    retry_from = s5.entries[1]["id"]
    s5.add({"role": "user", "content": [{"type": "text", "text": "no, differently"}]}, parent=retry_from)
    s5.turn("add the flag again", GLM, (1500, 250), 0)
    s5.write(a)
    only_a = Session("0196aaaa-0000-7000-8000-000000000002", "/work/beta", T0 - 86_400_000)
    only_a.turn("write docs", GPT, (4000, 1000), 0.02, tool="write")
    only_a.write(a)
    only_b = Session("0196bbbb-0000-7000-8000-000000000003", "/work/gamma", T0 + 2 * 86_400_000)
    only_b.turn("profile it", SONNET, (6000, 1500), 0.0405, tool="bash", error=True)
    only_b.write(b)
    return a, b


# ---------------------------------------------------------------- pisess

def pisess(binary, agent, *args, check=True):
    env = dict(os.environ, PI_CODING_AGENT_DIR=agent, NO_COLOR="1", TZ="UTC")
    for k in ("PI_CODING_AGENT_SESSION_DIR", "PI_SESSION_FILE"):
        env.pop(k, None)
    done = subprocess.run([binary, "-q", *args], env=env, cwd=REPO, capture_output=True, text=True)
    if check and done.returncode != 0:
        raise SystemExit(f"team: pisess {' '.join(args)} exited {done.returncode}: {done.stderr}")
    return done


def union(tmp, stores):
    """One store holding each file of the machines' once (the longer of two spellings)."""
    u = os.path.join(tmp, "union")
    for store in stores:
        for folder, _, files in os.walk(os.path.join(store, "sessions")):
            for name in files:
                src = os.path.join(folder, name)
                dst = os.path.join(u, os.path.relpath(src, store))
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                if not os.path.exists(dst) or os.path.getsize(dst) < os.path.getsize(src):
                    shutil.copyfile(src, dst)
    return u


def copied_twice(u):
    """(day, model, project) -> [tokens, cost] of the entries a fork in `u` copied from a file up
    its parentSession chain: in the files twice, counted once by stats --all and by the keys."""
    files = {}
    for folder, _, names in os.walk(os.path.join(u, "sessions")):
        for name in names:
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                files[name] = [json.loads(l) for l in f if l.strip()]
    out = {"day": defaultdict(lambda: [0, 0.0]), "model": defaultdict(lambda: [0, 0.0]), "project": defaultdict(lambda: [0, 0.0])}

    def held(name, seen=()):
        lines = files.get(name)
        if not lines or name in seen:
            return {}
        mine = {e["id"]: {k: v for k, v in e.items() if k != "parentId"} for e in lines[1:] if "id" in e}
        up = lines[0].get("parentSession")
        if up:
            mine.update(held(os.path.basename(up), seen + (name,)))
        return mine

    for name, lines in files.items():
        up = lines[0].get("parentSession")
        if not up:
            continue
        source = held(os.path.basename(up))
        for e in lines[1:]:
            if source.get(e.get("id")) != {k: v for k, v in e.items() if k != "parentId"}:
                continue
            m = e.get("message", {})
            usage = m.get("usage")
            if not usage:
                continue
            tokens, cost = usage["totalTokens"], usage["cost"]["total"]
            for by, key in (("day", e["timestamp"][:10]), ("model", f"{m['provider']}/{m['model']}"), ("project", lines[0]["cwd"])):
                out[by][key][0] += tokens
                out[by][key][1] += cost
    return out


def expected(binary, u):
    twice = copied_twice(u)
    want = {}
    for by in ("day", "model", "project"):
        rows = {}
        for line in pisess(binary, u, "stats", "--all", "--by", by, "--tz", "UTC", "--json").stdout.splitlines():
            r = json.loads(line)
            if r["total"]:
                continue
            t, c = r["tokens"]["total"], r["cost"]
            if (t, round(c, 9)) != (0, 0):
                rows[r["key"]] = (t, c)
        want[by] = rows
    removed = sum(v[0] for v in twice["day"].values())
    return want, removed


# ---------------------------------------------------------------- the engines

def statements(engine):
    team = open(os.path.join(REPO, "docs", "team.md"), encoding="utf-8").read()
    found = []
    for block in re.findall(r"```sql\n(.*?)```", team, re.S):
        head = re.match(rf"-- {engine}: (.+)\n", block)
        if head:
            found.append((head.group(1).strip(), block))
    return found


def compare(engine, results, want, failures):
    for by in ("day", "model", "project"):
        name = f"cost per {by}"
        # Buckets with nothing spent (a user message alone on a day) are no stats rows.
        got = {str(k): (float(t), float(c)) for k, t, c in results.get(name, []) if (float(t), float(c)) != (0, 0)}
        if set(got) != set(want[by]):
            failures.append(f"{engine} '{name}': keys {sorted(got)} vs stats {sorted(want[by])}")
            continue
        bad = [(k, got[k], want[by][k]) for k in want[by]
               if got[k][0] != want[by][k][0] or round(got[k][1], 2) != round(want[by][k][1], 2) or abs(got[k][1] - want[by][k][1]) > 1e-9]
        if bad:
            failures.append(f"{engine} '{name}': {bad}")
        else:
            print(f"team: {engine} '{name}': {len(want[by])} rows equal stats --all over the union")


def clickhouse(streams, want, tmp, failures):
    from chdb import session as chs
    s = chs.Session(os.path.join(tmp, "chdb"))
    results = {}
    found = statements("clickhouse")
    names = [n for n, _ in found]
    for required in ("create table", "insert", "cost per day", "cost per model", "cost per project",
                     "cost per session p50 p95", "tool error rates"):
        if required not in names:
            failures.append(f"docs/team.md has no clickhouse statement '{required}'")
    for name, sql in found:
        try:
            if name == "insert":
                # Every machine's rows, twice: emitting again changes no total.
                for rows in streams + streams:
                    s.query(sql.rstrip() + "\n" + rows)
                continue
            r = s.query(sql, "JSONCompact")
            data = json.loads(str(r))["data"] if str(r).strip() else []
            results[name] = data
            print(f"team: clickhouse ran '{name}' ({len(data)} rows)")
            if not data and name != "create table":
                failures.append(f"clickhouse '{name}' returned no rows")
        except Exception as e:  # chDB raises its own error types
            failures.append(f"clickhouse '{name}' failed: {e}")
    compare("clickhouse", results, want, failures)
    return results


def duckdb_run(streams, want, tmp, failures):
    duckdb = need("duckdb")
    here = os.getcwd()
    os.chdir(tmp)
    try:
        for i, rows in enumerate(streams + streams):
            with open(f"facts{i}.ndjson", "w", encoding="utf-8") as f:
                f.write(rows)
        con = duckdb.connect()
        con.execute("SET TimeZone = 'UTC'")
        results = {}
        for name, sql in statements("duckdb"):
            try:
                results[name] = con.execute(sql).fetchall() if name != "facts view" else con.execute(sql) and []
                print(f"team: duckdb ran '{name}' ({len(results[name])} rows)")
                if not results[name] and name != "facts view":
                    failures.append(f"duckdb '{name}' returned no rows")
            except duckdb.Error as e:
                failures.append(f"duckdb '{name}' failed: {e}")
        compare("duckdb", results, want, failures)
    finally:
        os.chdir(here)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    need("chdb")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        a, b = build(tmp)
        streams = []
        for agent, host, user in ((a, "laptop-a", "ana"), (b, "laptop-b", "bob")):
            plain = pisess(binary, agent, "facts", "--all", "--label", f"host={host}", "--label", f"user={user}").stdout
            cursor = os.path.join(tmp, f"{host}.cursor")
            first = pisess(binary, agent, "facts", "--all", "--label", f"host={host}", "--label", f"user={user}", "--cursor", cursor).stdout
            again = pisess(binary, agent, "facts", "--all", "--label", f"host={host}", "--label", f"user={user}", "--cursor", cursor).stdout
            if first != plain:
                failures.append(f"{host}: the first run with a cursor differs from a run without one")
            if again:
                failures.append(f"{host}: a second run with the cursor emitted {len(again.splitlines())} rows (nothing changed)")
            streams.append(plain)
        u = union(tmp, (a, b))
        want, removed = expected(binary, u)
        if not removed:
            failures.append("the fixture has no copied usage: the dedup is not tested")
        print(f"team: two machines, {sum(len(s.splitlines()) for s in streams)} rows; {removed} copied tokens in the files twice, counted once")
        clickhouse(streams, want, tmp, failures)
        duckdb_run(streams, want, tmp, failures)
    for f in failures:
        print(f"team: FAILED: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
