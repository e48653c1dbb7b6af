#!/usr/bin/env bash
# The benchmark of issues 20 and 33: `stats --all --by day --json` on corpus (a) of run.sh, from
# the tally cache (warm) and without it, against `ls --all --json` warm (the budget: warm stats
# within 1.5x), ccusage's `pi daily --json --offline` (warm stats at least 10x faster), and a
# baseline build's uncached stats (this build's uncached within 1.2x), all timed in the same run,
# interleaved. `--by model` and `--by project` warm too, and a cold run (the cache removed first:
# a first report, which writes the cache).
#
#   benches/stats.sh [--rounds N] [--runs N] [--dir DIR] [--sessions N --mb N]
#
#   --rounds N  interleaved rounds (default 3), --runs N runs of each command a round (default 2)
#   --dir DIR   where corpus (a) and ccusage go (default: a temp dir); an existing corpus is reused
#   --sessions N --mb N   corpus size (default run.sh's (a): 2000 sessions, 500 MB)
#
# PISESS: the binary (default: cargo build --release). BASELINE: another build to compare the
# uncached report with (e.g. main's; skipped when unset). Needs python3, hyperfine, GNU time, and
# npm for ccusage 20.0.24 (20.0.26 does not run here); without npm the ccusage figures are skipped.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
rounds=3 runs=2 dir="" sessions=2000 mb=500
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --sessions) sessions="$2"; shift ;;
    --mb) mb="$2"; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "stats.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
bench="bench stats"
# shellcheck source=benches/lib.sh
. "$here/lib.sh"
bench_tools
bench_dir pisess-bench-stats
bench_bin

agent="$dir/agent"
stamp="$dir/corpus-$sessions-$mb"
bench_store "$agent" "$sessions" "$mb" "$stamp"
find "$agent/sessions" -name '*.jsonl' -print0 >"$dir/a.files"

ccusage=""
if command -v npm >/dev/null; then
  [ -x "$dir/ccusage/node_modules/.bin/ccusage" ] ||
    npm install --silent --no-audit --no-fund --prefix "$dir/ccusage" ccusage@20.0.24 >"$dir/npm.log" 2>&1 ||
    say "npm install ccusage@20.0.24 failed: ccusage figures skipped"
  [ -x "$dir/ccusage/node_modules/.bin/ccusage" ] && ccusage="$dir/ccusage/node_modules/.bin/ccusage"
else
  say "npm not found: ccusage figures skipped"
fi

env_a="PI_CODING_AGENT_DIR=$(q "$agent")"
cache="$dir/cache"
rm -rf "$cache"
mkdir -p "$cache"
warm_env="$env_a PISESS_CACHE_DIR=$(q "$cache/warm")"
cold_env="$env_a PISESS_CACHE_DIR=$(q "$cache/cold")"
day="stats --all --by day --json --tz UTC"
names=("ls --all --json (warm)" "stats --by day (warm)" "stats --by model (warm)" "stats --by project (warm)"
  "stats --by day --no-cache" "stats --by day (cold cache)")
cmds=("$warm_env $(q "$bin") -q ls --all --json"
  "$warm_env $(q "$bin") -q $day"
  "$warm_env $(q "$bin") -q stats --all --by model --json"
  "$warm_env $(q "$bin") -q stats --all --by project --json"
  "$env_a $(q "$bin") -q --no-cache $day"
  "rm -rf $(q "$cache/cold") && $cold_env $(q "$bin") -q $day")
if [ -n "${BASELINE:-}" ]; then
  names+=("baseline stats --by day")
  cmds+=("$env_a PISESS_CACHE_DIR=$(q "$cache/baseline") $(q "$BASELINE") -q $day")
fi
# The warm rows' cache, written once (the files are older than the cache's two racy seconds).
bash -c "${cmds[0]}" >/dev/null
bash -c "${cmds[1]}" >/dev/null
if [ -n "$ccusage" ]; then
  # ccusage finds pi's sessions at $PI_AGENT_DIR or ~/.pi/agent/sessions; --pi-path names them.
  names+=("ccusage pi daily --json --offline")
  cmds+=("$(q "$ccusage") pi daily --json --offline --timezone UTC --pi-path $(q "$agent/sessions")")
fi

results="$dir/results"
rm -rf "$results"
mkdir -p "$results"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
args=()
for i in "${!names[@]}"; do args+=(--command-name "${names[$i]}" "${cmds[$i]}"); done
warm="xargs -0 cat <$(q "$dir/a.files") >/dev/null"
for r in $(seq 1 "$rounds"); do
  say "round $r/$rounds"
  hyperfine --style none --runs "$runs" --warmup "$([ "$r" = 1 ] && echo 1 || echo 0)" --prepare "$warm" \
    --export-json "$results/a-$r.json" "${args[@]}" >/dev/null
done
for i in "${!names[@]}"; do
  /usr/bin/time -f "%M" -o "$results/rss.tmp" bash -c "${cmds[$i]}" >/dev/null 2>&1 || true
  printf '%s\t%s\n' "${names[$i]}" "$(tail -n 1 "$results/rss.tmp")" >>"$results/rss.tsv"
done
# What each says the corpus cost: pi's /session totals (pisess) against ccusage's sum; and the
# report from the cache is the one without it.
bash -c "${cmds[1]}" | tail -n 1 >"$results/pisess-total.json"
bash -c "${cmds[1]}" >"$results/warm.json"
bash -c "${cmds[4]}" >"$results/plain.json"
cmp -s "$results/warm.json" "$results/plain.json" && echo same >"$results/same" || echo DIFFERENT >"$results/same"
if [ -n "$ccusage" ]; then
  for i in "${!names[@]}"; do
    [ "${names[$i]}" = "ccusage pi daily --json --offline" ] && bash -c "${cmds[$i]}" >"$results/ccusage.json" 2>/dev/null || true
  done
fi

python3 - "$results" "$load_before" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(find "$agent/sessions" -name '*.jsonl' | wc -l)" \
  "$(du -sm "$agent/sessions" | cut -f1)" "$rounds x $runs" <<'EOF'
import glob, json, os, statistics, sys
results, before, after, n, mb, runs = sys.argv[1:]
times, order = {}, []
for p in sorted(glob.glob(os.path.join(results, "a-*.json"))):
    for r in json.load(open(p))["results"]:
        times.setdefault(r["command"], []).extend(r["times"])
        if r["command"] not in order:
            order.append(r["command"])
rss = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(results, "rss.tsv")))
med = {k: statistics.median(v) for k, v in times.items()}
ls, st = med["ls --all --json (warm)"], med["stats --by day (warm)"]
plain = med["stats --by day --no-cache"]
print(f"corpus (a): {n} sessions, {mb} MB; {runs} runs per command, medians; load average {before} before, {after} after\n")
print("| command | median | × ls --all --json warm | × faster than ccusage | peak RSS |")
print("|---|--:|--:|--:|--:|")
cc = med.get("ccusage pi daily --json --offline")
for c in order:
    kb = rss.get(c, "")
    x_cc = f"{cc / med[c]:.1f}" if cc and c != "ccusage pi daily --json --offline" else ""
    print(f"| `{c}` | {med[c]:.3f} s | {med[c] / ls:.2f} | {x_cc} | {int(kb) // 1024 if kb.isdigit() else '?'} MB |")
verdicts = [f"warm stats --by day ≤ 1.5× warm ls: {'ok' if st / ls <= 1.5 else 'MISSED'} ({st / ls:.2f}×)"]
for by in ("model", "project"):
    m = med[f"stats --by {by} (warm)"]
    verdicts.append(f"--by {by} {'ok' if m / ls <= 1.5 else 'MISSED'} ({m / ls:.2f}×)")
if cc:
    verdicts.append(f"warm stats ≥ 10× faster than ccusage: {'ok' if cc / st >= 10 else 'MISSED'} ({cc / st:.1f}×)")
base = med.get("baseline stats --by day")
if base:
    verdicts.append(f"uncached ≤ 1.2× the baseline's: {'ok' if plain / base <= 1.2 else 'MISSED'} ({plain / base:.2f}×)")
    cold = med["stats --by day (cold cache)"]
    verdicts.append(f"cold (writing the cache) {cold / base:.2f}× the baseline's")
print("\nbudgets: " + "; ".join(verdicts))
print("warm report == --no-cache report: " + open(os.path.join(results, "same")).read().strip())
total = json.load(open(os.path.join(results, "pisess-total.json")))
line = f"cost of the corpus: pisess (pi's /session totals) ${total['cost']:.2f}"
try:
    data = json.load(open(os.path.join(results, "ccusage.json")))
    line += f", ccusage ${data['totals']['totalCost']:.2f}"
except Exception:
    pass
print(line)
EOF
