#!/usr/bin/env bash
# The budgets of issue 46 for `pisess facts`, on corpus (a) of run.sh (2,000 sessions, 500 MB):
# the warm stream at least 500,000 rows/s (rows emitted / the median wall time of a warm
# `pisess facts --all` into /dev/null, from the tally cache), and an incremental run with
# nothing new (`--cursor`, every file unchanged) at most 1.1x warm `ls --all --json`. Also warm
# `stats --all --by message --json`, the fact table the stream grew from. All timed in the same
# run, interleaved.
#
#   benches/facts.sh [--rounds N] [--runs N] [--dir DIR] [--sessions N --mb N]
#
#   --rounds N  interleaved rounds (default 3), --runs N runs of each command a round (default 3)
#   --dir DIR   where the corpus goes (default: a temp dir); an existing corpus is reused
#   --sessions N --mb N   corpus size (default run.sh's (a): 2000 sessions, 500 MB)
#
# PISESS: the binary (default: cargo build --release). Needs python3, hyperfine, GNU time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
rounds=3 runs=3 dir="" sessions=2000 mb=500
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --sessions) sessions="$2"; shift ;;
    --mb) mb="$2"; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "facts.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
bench="bench facts"
# shellcheck source=benches/lib.sh
. "$here/lib.sh"
bench_tools
bench_dir pisess-bench-facts
bench_bin

agent="$dir/agent"
bench_store "$agent" "$sessions" "$mb" "$dir/corpus-$sessions-$mb"
cache="$dir/cache"
rm -rf "$cache"
mkdir -p "$cache"
env_a="PI_CODING_AGENT_DIR=$(q "$agent") PISESS_CACHE_DIR=$(q "$cache")"
cursor="$dir/facts.cursor"
p="$env_a $(q "$bin") -q"
names=("ls --all --json (warm)" "facts --all (warm)" "stats --all --by message --json (warm)"
  "facts --all --cursor, nothing new")
cmds=("$p ls --all --json" "$p facts --all" "$p stats --all --by message --json"
  "$p facts --all --cursor $(q "$cursor")")
# Both caches written once (the files are older than the caches' two racy seconds), and the
# cursor that holds every row.
bash -c "${cmds[0]}" >/dev/null
bash -c "${cmds[1]}" >"$dir/facts.ndjson"
rm -f "$cursor"
bash -c "${cmds[3]}" >/dev/null
rows="$(wc -l <"$dir/facts.ndjson")"
[ -z "$(bash -c "${cmds[3]}")" ] || { say "a run with the cursor emitted rows: nothing was new"; exit 1; }

results="$dir/results"
rm -rf "$results"
mkdir -p "$results"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
args=()
for i in "${!names[@]}"; do args+=(--command-name "${names[$i]}" "${cmds[$i]}"); done
for r in $(seq 1 "$rounds"); do
  say "round $r/$rounds"
  # Every command's stdout into /dev/null (the budget's own words; hyperfine's default, said).
  hyperfine --style none --output null --runs "$runs" --warmup "$([ "$r" = 1 ] && echo 1 || echo 0)" \
    --export-json "$results/a-$r.json" "${args[@]}" >/dev/null
done

python3 - "$results" "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" "$rows" \
  "$(find "$agent/sessions" -name '*.jsonl' | wc -l)" "$(du -sm "$agent/sessions" | cut -f1)" "$rounds x $runs" <<'EOF'
import glob, json, os, statistics, sys
results, before, after, rows, n, mb, runs = sys.argv[1:]
rows = int(rows)
times, order = {}, []
for p in sorted(glob.glob(os.path.join(results, "a-*.json"))):
    for r in json.load(open(p))["results"]:
        times.setdefault(r["command"], []).extend(r["times"])
        if r["command"] not in order:
            order.append(r["command"])
med = {k: statistics.median(v) for k, v in times.items()}
ls = med["ls --all --json (warm)"]
print(f"corpus: {n} sessions, {mb} MB, {rows} rows; {runs} runs per command, medians; load average {before} before, {after} after\n")
print("| command | median | rows/s | × ls --all --json warm |")
print("|---|--:|--:|--:|")
for c in order:
    rate = f"{rows / med[c]:,.0f}" if "nothing new" not in c and "ls" not in c.split()[0] else ""
    print(f"| `{c}` | {med[c]:.3f} s | {rate} | {med[c] / ls:.2f} |")
warm = rows / med["facts --all (warm)"]
inc = med["facts --all --cursor, nothing new"] / ls
print()
print(f"warm stream ≥ 500,000 rows/s: {'ok' if warm >= 500_000 else 'MISSED'} ({warm:,.0f} rows/s)")
print(f"nothing new ≤ 1.1× warm ls --all --json: {'ok' if inc <= 1.1 else 'MISSED'} ({inc:.2f}×)")
EOF
