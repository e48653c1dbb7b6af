#!/usr/bin/env bash
# The first run on a store with no summary cache against ripgrep (issue 49's budgets):
# `ls --all --json` and `stats --all --by day` with `--no-cache`, `ls --all --json` into an
# empty cache folder (the real first run: it writes the cache too), and `rg -c` of a word that
# is in no file, over the same files. Every byte is read by all of them.
#
#   benches/first-run.sh [--store DIR] [--sessions N] [--mb M] [--rounds N] [--runs N] [--cold]
#
#   --store DIR   a pi agent dir whose sessions/ holds the store (default: a `gen.py many` store
#                 of N sessions and about M MB made in a temp dir, removed at the end)
#   --sessions N  (default 10000) and --mb M (default 2200): the store to make
#   --rounds N    interleaved rounds (default 5): each round times every command once after the
#                 other, so a slow moment of the machine hits them all alike
#   --runs N      runs of each command per round (default 1)
#   --cold        also the disk-cold figures: the page cache dropped before every run (needs
#                 root and a writable /proc/sys/vm/drop_caches; said and skipped otherwise)
#
# PISESS  the binary to measure (default: `cargo build --release`, target/release/pisess)
#
# Prints, per command, the median wall time over all rounds and its ratio to rg's median, and
# the range of the per-round ratios (each round's command against that round's rg). Budgets:
# page-cached `ls` <= 1.5x rg, `stats` <= 1.7x; disk cold <= 1.2x. Ratios are only fair on an
# idle machine: on a shared one, say so beside them.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
store="" sessions=10000 mb=2200 rounds=5 runs=1 cold=0 dir="" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --store) store="$2"; shift ;;
    --sessions) sessions="$2"; shift ;;
    --mb) mb="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --cold) cold=1 ;;
    -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "first-run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

bench=first-run
# shellcheck source=benches/lib.sh
. "$here/lib.sh"
bench_tools
command -v rg >/dev/null 2>&1 || need_apt rg ripgrep
bench_dir pisess-first-run
bench_bin
if [ -z "$store" ]; then
  store="$dir/agent"
  bench_store "$store" "$sessions" "$mb" "$dir/corpus-$sessions-$mb"
fi
store="$(cd "$store" && pwd)"
sa="$store/sessions"
[ -d "$sa" ] || { say "no sessions folder in $store"; exit 1; }
results="$dir/results"
mkdir -p "$results"
cache="$dir/cache"

# Every run sees the same environment; the cache folder is emptied before every run, so the
# `--no-cache` rows cannot read one and the `empty cache` row writes a new one each time.
env_a="env -u PI_CODING_AGENT_SESSION_DIR -u CI PI_CODING_AGENT_DIR=$(q "$store") PISESS_CACHE_DIR=$(q "$cache") NO_COLOR=1 TZ=UTC"
fresh="rm -rf $(q "$cache")"
warm="$fresh; find $(q "$sa") -type f -name '*.jsonl' -exec cat {} + >/dev/null"
drop="$fresh; sync; echo 3 > /proc/sys/vm/drop_caches"
# rg exits 1 when nothing matched, which hyperfine would take for a failure: `|| true`.
rare=kubernetes
lines=(
  "rg -c	rg -c -F $rare $(q "$sa") || true"
  "ls --all --json --no-cache	$env_a $(q "$bin") ls --all --json --no-cache -q"
  "stats --all --by day --no-cache	$env_a $(q "$bin") stats --all --by day --no-cache -q"
  "ls --all --json, empty cache	$env_a $(q "$bin") ls --all --json -q"
)

# One set of rounds, each command prepared by `prep`, into $results/TAG-<round>.json.
rounds_of() { # tag prep
  local tag=$1 prep=$2 line label cmd r
  local args=()
  for line in "${lines[@]}"; do
    IFS=$'\t' read -r label cmd <<<"$line"
    args+=(--command-name "$label" --prepare "$prep" "$cmd")
  done
  for r in $(seq 1 "$rounds"); do
    say "$tag: round $r/$rounds"
    hyperfine --style none --runs "$runs" --export-json "$results/$tag-$r.json" "${args[@]}" >/dev/null
  done
}

report() { # tag heading
  python3 - "$results" "$1" "$2" "$rounds" <<'PY'
import json, statistics, sys
results, tag, heading, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
times, ratios = {}, {}
for r in range(1, rounds + 1):
    with open(f"{results}/{tag}-{r}.json") as f:
        rows = {x["command"]: statistics.median(x["times"]) for x in json.load(f)["results"]}
        for name, t in rows.items():
            times.setdefault(name, []).append(t)
            ratios.setdefault(name, []).append(t / rows["rg -c"])
rg = statistics.median(times["rg -c"])
print(f"\n{heading}: medians of {rounds} interleaved rounds\n")
print("| command | median | × rg | per-round × rg |")
print("| --- | --: | --: | --: |")
for name, ts in times.items():
    m = statistics.median(ts)
    lo, hi = min(ratios[name]), max(ratios[name])
    print(f"| `{name}` | {m:.3f} s | {m / rg:.2f} | {lo:.2f}-{hi:.2f} |")
PY
}

say "store: $sa ($(du -sh "$sa" | cut -f1), $(find "$sa" -type f -name '*.jsonl' | wc -l) files); binary: $bin"
rounds_of warm "$warm"
report warm "Page-cached, no summary cache"
if [ "$cold" = 1 ]; then
  if [ "$(id -u)" = 0 ] && { sync; echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; then
    rounds_of cold "$drop"
    report cold "Disk cold (page cache dropped before every run), no summary cache"
  else
    say "disk-cold figures skipped: dropping the page cache needs root and /proc/sys/vm/drop_caches"
  fi
fi
