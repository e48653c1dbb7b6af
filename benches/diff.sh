#!/usr/bin/env bash
# The budgets of `pisess diff` (issue 45), each timed as the best of --runs runs:
#   1. two sessions (gen.py one, seeds 2 and 5): `diff A B --json` within 3x `wc -l A B`;
#   2. two leaves of one session (its active leaf and another tip): within 4x `wc -l A`;
#   3. 100,000 tool calls a side with 5 differences (two files of one call per turn): the whole
#      `diff` timed, and the alignment alone under 1 s (the unit test
#      views::diff::align::tests also holds it to that, in a debug build).
#
#   benches/diff.sh [--mb N] [--calls N] [--runs N] [--dir DIR] [--keep]
#
#   --mb N     size of each generated session (default 400: the issue's; mind a shared machine)
#   --calls N  tool calls a side for 3 (default 100000)
#   --runs N   runs of each command (default 3)
#
# PISESS: the binary (default: cargo build --release). Needs python3 and GNU time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
mb=400 calls=100000 runs=3 dir="" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) mb="$2"; shift ;;
    --calls) calls="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "diff.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
bench="bench diff"
# shellcheck source=benches/lib.sh
. "$here/lib.sh"
bench_dir pisess-bench-diff
bench_bin

# best: the fastest of $runs runs of a command, in seconds; the peak RSS (KB) of the runs goes to
# $dir/rss (read it with `rss`).
best() {
  local t b="" r m=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %M' -o "$dir/time" "$@" >/dev/null
    read -r t r <"$dir/time"
    [ "$r" -gt "$m" ] && m="$r"
    if [ -z "$b" ] || python3 -c "import sys; sys.exit(not float('$t') < float('$b'))"; then b="$t"; fi
  done
  echo "$m" >"$dir/rss"
  echo "$b"
}
rss() { cat "$dir/rss"; }
ratio() { python3 -c "print(f'{float(\"$1\") / max(float(\"$2\"), 0.001):.2f}')"; }

a="$dir/a-$mb.jsonl" b="$dir/b-$mb.jsonl"
[ -s "$a" ] || python3 "$here/gen.py" one "$a" --mb "$mb" --seed 2
[ -s "$b" ] || python3 "$here/gen.py" one "$b" --mb "$mb" --seed 5

wc_ab="$(best wc -l "$a" "$b")"
diff_ab="$(best "$bin" diff "$a" "$b" --json)"; rss_ab="$(rss)"
say "1. two sessions of $mb MB: wc -l ${wc_ab}s, diff ${diff_ab}s ($(ratio "$diff_ab" "$wc_ab")x, budget 3x), peak ${rss_ab} KB"
ctx="$(best "$bin" context "$a" --json)"; rss_ctx="$(rss)"
say "   context of A ${ctx}s, peak ${rss_ctx} KB (memory budget: 2x the larger's)"

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
wc_a="$(best wc -l "$a")"
diff_leaves="$(best "$bin" diff "$a@$other" "$a" --json)"
say "2. two leaves of one $mb MB session: wc -l ${wc_a}s, diff ${diff_leaves}s ($(ratio "$diff_leaves" "$wc_a")x, budget 4x), peak $(rss) KB"

# Two runs of $calls calls each, one call per turn, 5 calls differing.
python3 - "$dir" "$calls" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
for side, changed in (("x", set()), ("y", {10, n // 5, n // 2, (4 * n) // 5, n - 3})):
    with open(f"{out}/calls-{side}.jsonl", "w") as f:
        f.write(json.dumps({"type": "session", "version": 3, "id": f"calls-{side}", "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/w"}) + "\n")
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
diff_calls="$(best "$bin" diff "$dir/calls-x.jsonl" "$dir/calls-y.jsonl" --json)"
differ="$("$bin" diff "$dir/calls-x.jsonl" "$dir/calls-y.jsonl" --json | python3 -c 'import json,sys; print(sum(c["op"] != "same" for c in json.load(sys.stdin)["calls"]))')"
wc_calls="$(best wc -l "$dir/calls-x.jsonl" "$dir/calls-y.jsonl")"
say "3. $calls calls a side, $differ rows differ: diff ${diff_calls}s in all (wc -l ${wc_calls}s); the alignment alone: cargo test --release --lib align"
