#!/usr/bin/env bash
# The per-entry budgets of issues 18 and 33: peak RSS on a session of about a million small
# entries (`context --json` <= 96 MB, `tree` <= 96 MB, `ls --all` <= 32 MB without a cache,
# priming one and warm; the other commands listed so none grows needlessly), and on the 400 MB
# benchmark session `tree` <= 3x and human `show` <= 5x the time of `wc -l` on the same file,
# all timed in the same interleaved rounds.
#
#   benches/entries.sh [--rounds N] [--runs N] [--dir DIR] [--quick]
#
#   --rounds N  interleaved rounds (default 3), --runs N runs of each command a round (default 2)
#   --dir DIR   where the two sessions go (default: a temp dir); existing ones are reused
#   --quick     a 100k-entry session and a 40 MB one: a smoke test, not figures
#
# PISESS: the binary (default: cargo build --release). BASELINE: another binary (an older
# build) measured beside it in the same rounds, for before/after figures. Needs python3,
# hyperfine and GNU time. `tree` and `show` are timed with DIR's own cache primed and with
# --no-cache: since issue 29 pisess keeps no index between runs, so for today's build the two
# rows measure the same work; they differ for a BASELINE built before it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
rounds=3 runs=2 dir="" quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --quick) quick=1 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "entries.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
say() { echo "bench entries: $*" >&2; }
for tool in hyperfine python3; do
  command -v "$tool" >/dev/null || { apt-get install -y "$tool" >/dev/null 2>&1 || { say "$tool is needed"; exit 1; }; }
done
[ -x /usr/bin/time ] || apt-get install -y time >/dev/null 2>&1 || { say "GNU time is needed"; exit 1; }

if [ -z "$dir" ]; then
  dir="$(mktemp -d "${TMPDIR:-/tmp}/pisess-bench-entries.XXXXXX")"
  trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
bin="${PISESS:-}"
if [ -z "$bin" ]; then
  (cd "$repo" && cargo build --release --quiet)
  bin="$repo/target/release/pisess"
fi
bins=("$bin")
[ -n "${BASELINE:-}" ] && bins+=("$BASELINE")

# gen.py's --small entries average about 930 bytes: 930 MB is about a million of them.
if [ "$quick" = 1 ]; then small_mb=93 big_mb=40; else small_mb=930 big_mb=400; fi
small="$dir/entries-$small_mb.jsonl" big="$dir/big-$big_mb.jsonl"
[ -f "$small" ] || { say "generating $small"; python3 "$here/gen.py" one "$small" --mb "$small_mb" --small; }
[ -f "$big" ] || { say "generating $big"; python3 "$here/gen.py" one "$big" --mb "$big_mb"; }
q() { printf '%q' "$1"; }
# Caches keep only files modified more than 2 s before: a session just generated is put an
# hour back, as a session pi finished with is.
touch -d '1 hour ago' "$small" "$big"
# The bench's own cache, primed below (an older BASELINE keeps the index of (b) there).
export PISESS_CACHE_DIR="$dir/cache"

# ---- peak RSS: one run each (the largest process of the command, GNU time's %M).
rss="$dir/rss.tsv"
: >"$rss"
for b in "${bins[@]}"; do
  for c in "context --json" "tree" "tree --json" "show" "show --json" "path" "check"; do
    say "RSS: $(basename "$b") $c"
    /usr/bin/time -f "%M" -o "$dir/rss.tmp" "$b" $c "$small" >/dev/null 2>&1 || true
    printf '%s\t%s\t%s\n' "$b" "$c" "$(tail -n 1 "$dir/rss.tmp")" >>"$rss"
  done
  # `ls --all` of a session dir holding the session alone: without a cache, priming a cache
  # of its own, then warm.
  mkdir -p "$dir/store"
  ln -f "$small" "$dir/store/" 2>/dev/null || cp "$small" "$dir/store/"
  rm -rf "$dir/ls-cache"
  for c in "--no-cache ls --all" "ls --all (priming)" "ls --all (warm)"; do
    say "RSS: $(basename "$b") $c"
    PISESS_CACHE_DIR="$dir/ls-cache" /usr/bin/time -f "%M" -o "$dir/rss.tmp" \
      "$b" --session-dir "$dir/store" ${c% (*} >/dev/null 2>&1 || true
    printf '%s\t%s\t%s\n' "$b" "$c" "$(tail -n 1 "$dir/rss.tmp")" >>"$rss"
  done
done

# ---- time: wc -l and each binary's tree and human show, interleaved, with the cache and
# without it.
args=(--command-name "wc -l" "wc -l $(q "$big") >/dev/null")
for b in "${bins[@]}"; do
  n="$(basename "$b")"
  "$b" tree "$big" >/dev/null
  args+=(--command-name "$n tree" "$(q "$b") tree $(q "$big") >/dev/null")
  args+=(--command-name "$n show" "$(q "$b") show $(q "$big") >/dev/null")
  args+=(--command-name "$n show | cat" "$(q "$b") show $(q "$big") | cat >/dev/null")
  args+=(--command-name "$n --no-cache tree" "$(q "$b") --no-cache tree $(q "$big") >/dev/null")
  args+=(--command-name "$n --no-cache show" "$(q "$b") --no-cache show $(q "$big") >/dev/null")
done
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
  say "round $r/$rounds"
  hyperfine --style none --runs "$runs" --warmup "$([ "$r" = 1 ] && echo 1 || echo 0)" \
    --prepare "cat $(q "$big") >/dev/null" --export-json "$dir/time-$r.json" "${args[@]}" >/dev/null
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$dir" "$rss" "$small" "$big" "$load_before" "$load_after" "${bins[@]}" <<'EOF'
import glob, json, statistics, sys
d, rss, small, big, before, after, *bins = sys.argv[1:]
entries = sum(1 for _ in open(small, "rb")) - 1
times = {}
for f in sorted(glob.glob(f"{d}/time-*.json")):
    for r in json.load(open(f))["results"]:
        times.setdefault(r["command"], []).extend(r["times"])
med = {k: statistics.median(v) for k, v in times.items()}
wc = med["wc -l"]
print(f"load average {before} before, {after} after (2 shared vCPUs: only the ratios compare)\n")
print(f"Peak RSS on {small.rsplit('/', 1)[-1]} ({entries:,} entries):\n")
print("| binary | command | peak RSS | budget |\n|---|---|--:|---|")
budget = {"context --json": 96, "tree": 96, "--no-cache ls --all": 32,
          "ls --all (priming)": 32, "ls --all (warm)": 32}
for line in open(rss):
    b, c, kb = line.rstrip("\n").split("\t")
    mb = int(kb) / 1024 if kb.isdigit() else float("nan")
    limit = budget.get(c)
    verdict = "" if limit is None else f"<= {limit} MB: {'ok' if mb <= limit else 'missed'}"
    print(f"| {b.rsplit('/', 1)[-1]} | `{c}` | {mb:.0f} MB | {verdict} |")
print(f"\nTime on {big.rsplit('/', 1)[-1]} (medians of every run of every round):\n")
print("| command | median | x `wc -l` | budget |\n|---|--:|--:|---|")
for k, v in med.items():
    limit = 3 if k.endswith(" tree") else 5 if " show" in k else None
    ratio = v / wc
    verdict = "" if limit is None else f"<= {limit}x: {'ok' if ratio <= limit else 'missed'}"
    print(f"| `{k}` | {v:.3f} s | {ratio:.2f} | {verdict} |")
EOF
