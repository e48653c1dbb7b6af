#!/usr/bin/env bash
# The budgets of `pisess diff` and `pisess files` (issue 45), measured as the issue states them:
#   1. `diff A B --json` of two 400 MB sessions: at most 3x `wc -l A B`;
#   2. `diff A@LEAF A --json`, two leaves of one 400 MB session (another tip of its tree and
#      its active leaf): at most 4x `wc -l A`;
#   3. memory: each diff's peak RSS at most 2x the peak RSS of `context --json` of the larger
#      session it reads;
#   4. `files A`: at most 2x `tree A`;
#   5. the alignment: 100,000 tool calls a side with 5 differences (two generated files of one
#      call per turn) under 1 s: the whole `diff` of them is timed here (and its memory, as 3);
#      the alignment alone is the unit test views::diff::align::tests (`cargo test --release
#      --lib align`).
# Every command runs in --rounds interleaved hyperfine rounds of --runs runs (warm page cache);
# times are the medians of all runs, peak RSS is GNU time's maximum resident set size.
#
#   benches/diff.sh [--a FILE] [--b FILE] [--mb N] [--calls N] [--rounds N] [--runs N]
#                   [--dir DIR] [--keep] [--out FILE]
#
#   --a, --b   the two sessions (default: `gen.py one` of --mb MB with seeds 2 and 3 in DIR,
#              kept there for the next run with --dir)
#   --mb N     size of generated sessions (default 400: the issue's)
#   --calls N  tool calls a side for 5 (default 100000)
#   --rounds N, --runs N   (default 3 and 3)
#   --out FILE also write the report (markdown) there
#
# PISESS: the binary (default: cargo build --release). Needs hyperfine, GNU time, python3.
# Run it on an idle machine: on a shared one the ratios are noise.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
a="" b="" mb=400 calls=100000 rounds=3 runs=3 dir="" keep=0 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --a) a="$2"; shift ;;
    --b) b="$2"; shift ;;
    --mb) mb="$2"; shift ;;
    --calls) calls="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --keep) keep=1 ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "diff.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
bench="bench diff"
# shellcheck source=benches/lib.sh
. "$here/lib.sh"
bench_tools
bench_dir pisess-bench-diff
bench_bin

if [ -z "$a" ]; then
  a="$dir/a-$mb.jsonl"; [ -s "$a" ] || python3 "$here/gen.py" one "$a" --mb "$mb" --seed 2
fi
if [ -z "$b" ]; then
  b="$dir/b-$mb.jsonl"; [ -s "$b" ] || python3 "$here/gen.py" one "$b" --mb "$mb" --seed 3
fi

# Another tip of A's tree than its active leaf: an entry no entry names as its parent.
other="$(python3 - "$a" <<'PY'
import json, sys
ids, parents, last = [], set(), None
with open(sys.argv[1], encoding="utf-8") as f:
    next(f)
    for line in f:
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("id"):
            ids.append(e["id"]); last = e["id"]
        if e.get("parentId"):
            parents.add(e["parentId"])
tips = [i for i in ids if i not in parents and i != last]
print(tips[len(tips) // 2] if tips else last)
PY
)"

# Two runs of $calls calls each, one call per turn, 5 calls differing.
x="$dir/calls-x-$calls.jsonl" y="$dir/calls-y-$calls.jsonl"
[ -s "$y" ] || python3 - "$x" "$y" "$calls" <<'PY'
import json, sys
n = int(sys.argv[3])
for path, changed in ((sys.argv[1], set()), (sys.argv[2], {10, n // 5, n // 2, (4 * n) // 5, n - 3})):
    with open(path, "w") as f:
        f.write(json.dumps({"type": "session", "version": 3, "id": path[-12:], "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}) + "\n")
        parent = None
        for i in range(n):
            name, args = ("bash", {"command": "cargo test"}) if i in changed else ("read", {"path": f"src/f{i % 97}.rs"})
            for e in (
                {"type": "message", "id": f"a{i}", "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z",
                 "message": {"role": "assistant", "content": [{"type": "toolCall", "id": f"c{i}", "name": name, "arguments": args}],
                             "provider": "p", "model": "m", "stopReason": "toolUse", "timestamp": 1767225601000}},
                {"type": "message", "id": f"r{i}", "parentId": f"a{i}", "timestamp": "2026-01-01T00:00:01.000Z",
                 "message": {"role": "toolResult", "toolCallId": f"c{i}", "toolName": name, "content": [{"type": "text", "text": "ok"}],
                             "isError": False, "timestamp": 1767225601000}},
            ):
                f.write(json.dumps(e) + "\n")
            parent = f"r{i}"
PY
differ="$("$bin" diff "$x" "$y" --json | python3 -c 'import json,sys; print(sum(c["op"] != "same" for c in json.load(sys.stdin)["calls"]))')"

p="$(q "$bin")" qa="$(q "$a")" qb="$(q "$b")" qx="$(q "$x")" qy="$(q "$y")"
warm="cat $qa $qb $qx $qy >/dev/null"
cmds=(
  "wc -l A B	$warm	wc -l $qa $qb >/dev/null"
  "diff A B	$warm	$p diff $qa $qb --json >/dev/null"
  "wc -l A	$warm	wc -l $qa >/dev/null"
  "diff A@LEAF A	$warm	$p diff $(q "$a@$other") $qa --json >/dev/null"
  "tree A	$warm	$p tree $qa >/dev/null"
  "files A	$warm	$p files $qa >/dev/null"
  "context A	$warm	$p context $qa --json >/dev/null"
  "context B	$warm	$p context $qb --json >/dev/null"
  "diff X Y	$warm	$p diff $qx $qy --json >/dev/null"
  "context X	$warm	$p context $qx --json >/dev/null"
)
results="$dir/results"
rm -rf "$results"
mkdir -p "$results"
: >"$results/rss.tsv"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
bench_rounds d
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
python3 - "$here" "$results" "$out" "$("$bin" --version)" "$rounds rounds x $runs runs" \
  "$(nproc) cores, $cpu" "$load_before before, $load_after after" "$a" "$b" "$other" \
  "$calls" "$differ" <<'EOF'
import os, statistics, sys
here, results, out, pisess, runs, machine, load, a, b, other, calls, differ = sys.argv[1:]
sys.path.insert(0, here)
from report import load as load_results

times, order, rss = load_results(results)
med = {c: statistics.median(times[("d", c)]) for c in order["d"]}
mem = {c: rss.get(("d", c)) for c in order["d"]}
lines = []
say = lines.append
say(f"Machine: {machine}; load average {load}  ")
say(f"{pisess}; {runs} per command, medians; warm page cache  ")
say(f"A: {a} ({os.path.getsize(a) / 1e6:.0f} MB), B: {b} ({os.path.getsize(b) / 1e6:.0f} MB), "
    f"LEAF: {other}; X, Y: {int(calls):,} calls a side, {differ} alignment rows differ")
say("")
say("| budget | measured | limit | verdict |")
say("|---|--:|--:|---|")

def row(name, value, limit, unit):
    ok = value is not None and value <= limit
    shown = "?" if value is None else f"{value:.2f}{unit}"
    say(f"| {name} | {shown} | {limit:g}{unit} | {'ok' if ok else 'OVER'} |")

def ratio(x, y):
    return med[x] / med[y]

def mem_ratio(x, *refs):
    ref = max((mem[r] or 0) for r in refs)
    return None if mem[x] is None or not ref else mem[x] / ref

row("`diff A B` / `wc -l A B`", ratio("diff A B", "wc -l A B"), 3, "x")
row("`diff A@LEAF A` / `wc -l A`", ratio("diff A@LEAF A", "wc -l A"), 4, "x")
row("`files A` / `tree A`", ratio("files A", "tree A"), 2, "x")
row("`diff A B` RSS / `context` RSS of the larger", mem_ratio("diff A B", "context A", "context B"), 2, "x")
row("`diff A@LEAF A` RSS / `context A` RSS", mem_ratio("diff A@LEAF A", "context A"), 2, "x")
row("`diff X Y` RSS / `context X` RSS", mem_ratio("diff X Y", "context X"), 2, "x")
row(f"`diff X Y` ({int(calls):,} calls a side), whole command", med["diff X Y"], 1, " s")
say("")
say("| command | median | peak RSS |")
say("|---|--:|--:|")
for c in order["d"]:
    m = mem[c]
    say(f"| `{c}` | {med[c] * 1000:.0f} ms | " + ("?" if m is None else f"{m:.0f} MB") + " |")
text = "\n".join(lines) + "\n"
sys.stdout.write(text)
if out:
    with open(out, "w") as f:
        f.write(text)
EOF
