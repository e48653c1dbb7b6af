#!/usr/bin/env bash
# A live session (issue 33): pi appends to the session being worked on, and the next `tree` of
# it should cost what a warm `tree` of the unchanged file costs (budget: at most 1.2x). On the
# 400 MB benchmark session (`gen.py one --mb 400`), in the same interleaved rounds:
#
#   wc -l              the file read once: the floor
#   tree (warm)        `pisess tree` of an unchanged copy, page cache and pisess's cache primed
#   tree (appended)    `pisess tree` of a copy to which 1 MB of pi-like lines (`gen.py append`:
#                      turns continuing the last entry's id chain) was appended just before
#   tree --no-cache (appended)   the same, neither using nor writing the cache
#
#   benches/append.sh [--rounds N] [--runs N] [--dir DIR] [--quick] [--out FILE]
#
#   --rounds N  interleaved rounds (default 3), --runs N runs of each command a round (default 3)
#   --dir DIR   where the session, its copies and the caches go (default: a temp dir, removed at
#               the end); a session of the same size already in DIR is reused
#   --quick     a 40 MB session: a smoke test, not figures
#   --out FILE  also write the markdown table there
#
# Every "appended" run sees a file appended just before it, as pi leaves it: before each run
# (hyperfine --prepare) the copy is cut back to the session's size in place (`truncate`: the
# same inode and the same first bytes, as the cache saw them), its cache is put back as it was
# when primed on the unchanged file, and the 1 MB is appended (`cat >>`, a new mtime). So a cache
# that resumes on appends finds its record and the grown file, every run.
#
# Since issue 29 pisess keeps no index cache (`tree` scans the file every time), so for today's
# build the two `tree` rows do the same work on files 0.25% apart: the ratio should be about 1.
#
# PISESS: the binary (default: cargo build --release). Needs python3, hyperfine, GNU time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
rounds=3 runs=3 dir="" quick=0 out="" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --quick) quick=1 ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,/^set -e/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "append.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
bench="bench append"
# shellcheck source=benches/lib.sh
. "$here/lib.sh"
bench_tools
bench_dir pisess-bench-append
bench_bin

if [ "$quick" = 1 ]; then mb=40; else mb=400; fi
add_mb=1
base="$dir/base-$mb.jsonl" add="$dir/add-$mb.jsonl"
if [ ! -f "$base" ]; then
  say "generating the $mb MB session"
  rm -f "$add"
  python3 "$here/gen.py" one "$base.tmp" --mb "$mb"
  mv "$base.tmp" "$base"
fi
if [ ! -f "$add" ]; then
  say "generating the $add_mb MB pi would append to it"
  python3 "$here/gen.py" append "$base" "$add.tmp" --mb "$add_mb"
  mv "$add.tmp" "$add"
fi
base_size="$(stat -c %s "$base")"

# Two copies: warm.jsonl is never changed; live.jsonl is the one appended to. Caches keep only
# files modified more than 2 s before, so both are put an hour back, as a session pi finished
# with is; each has a cache of its own.
warm_f="$dir/warm.jsonl" live_f="$dir/live.jsonl" cache="$dir/cache"
cp "$base" "$warm_f"
cp "$base" "$live_f"
touch -d '1 hour ago' "$warm_f" "$live_f"
rm -rf "$cache"
mkdir -p "$cache/warm" "$cache/live" "$cache/none"
b="$(q "$bin")"
tree_warm="PISESS_CACHE_DIR=$(q "$cache/warm") $b -q tree $(q "$warm_f")"
tree_live="PISESS_CACHE_DIR=$(q "$cache/live") $b -q tree $(q "$live_f")"
tree_none="PISESS_CACHE_DIR=$(q "$cache/none") $b -q --no-cache tree $(q "$live_f")"
say "priming the caches"
bash -c "$tree_warm" >/dev/null
bash -c "$tree_live" >/dev/null
cp -a "$cache/live" "$cache/live.snapshot"

restore="truncate -s $base_size $(q "$live_f") && rm -rf $(q "$cache/live") && cp -a $(q "$cache/live.snapshot") $(q "$cache/live") && cat $(q "$add") >>$(q "$live_f")"
# The page cache is warmed before every run (this VM reclaims pages left untouched for a few
# seconds), the caches included.
warm="cat $(q "$warm_f") $(q "$live_f") >/dev/null && find $(q "$cache") -type f -print0 | xargs -0 -r cat >/dev/null"

# The appended file is what pi leaves, and what --no-cache prints of it: check both once.
bash -c "$restore"
[ "$(stat -c %s "$live_f")" = "$((base_size + $(stat -c %s "$add")))" ] || { say "the append went wrong"; exit 1; }
"$bin" -q check "$live_f" >/dev/null || { say "the appended session fails pisess check"; exit 1; }
bash -c "$restore"
same=yes
cmp -s <(bash -c "$tree_live") <(bash -c "$tree_none") || same="NO, it differs"

cmds=(
  "wc -l	$warm	wc -l $(q "$warm_f") >/dev/null"
  "tree (warm)	$warm	$tree_warm"
  "tree (appended)	$restore && $warm	$tree_live"
  "tree --no-cache (appended)	$restore && $warm	$tree_none"
)
results="$dir/results"
rm -rf "$results"
mkdir -p "$results"
: >"$results/rss.tsv"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
args=()
for line in "${cmds[@]}"; do
  IFS=$'\t' read -r label prep cmd <<<"$line"
  args+=(--command-name "$label" --prepare "$prep" "$cmd")
done
for r in $(seq 1 "$rounds"); do
  say "round $r/$rounds"
  hyperfine --style none --runs "$runs" --warmup "$([ "$r" = 1 ] && echo 1 || echo 0)" \
    --export-json "$results/t-$r.json" "${args[@]}" >/dev/null
done
for line in "${cmds[@]}"; do
  IFS=$'\t' read -r label prep cmd <<<"$line"
  bash -c "$prep"
  /usr/bin/time -f "%M" -o "$results/rss.tmp" bash -c "$cmd" >/dev/null 2>&1 || true
  printf 't\t%s\t%s\n' "$label" "$(tail -n 1 "$results/rss.tmp")" >>"$results/rss.tsv"
done
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
python3 - "$here" "$results" "$out" "$("$bin" --version)" "$rounds x $runs" "$(nproc) cores, $cpu" \
  "$load_before before, $load_after after" "$(grep -c '' "$base")" "$base_size" "$(grep -c '' "$add")" \
  "$(stat -c %s "$add")" "$same" "$quick" <<'EOF'
import statistics, sys
here, results, out, pisess, runs, machine, load, lines_n, size, add_n, add_size, same, quick = sys.argv[1:]
sys.path.insert(0, here)
from report import load as load_results

times, order, rss = load_results(results)
med = {c: statistics.median(times[("t", c)]) for c in order["t"]}
lines = []
say = lines.append
say(f"Machine: {machine}; load average {load}  ")
say(f"{pisess}; {runs} runs per command, medians; warm page cache  ")
say(f"Session: {int(lines_n):,} lines, {int(size) / 1e6:.0f} MB (`gen.py one`); appended: "
    f"{int(add_n):,} lines, {int(add_size) / 1e6:.2f} MB (`gen.py append`)")
say("")
say("| command | median | × `wc -l` | × `tree (warm)` | peak RSS |")
say("|---|--:|--:|--:|--:|")
wc, warm = med["wc -l"], med["tree (warm)"]
for c in order["t"]:
    mb = rss.get(("t", c))
    say(f"| `{c}` | {med[c] * 1000:.1f} ms | {med[c] / wc:.2f} | {med[c] / warm:.3f} | "
        + ("?" if mb is None else f"{mb:.0f} MB") + " |")
say("")
ratio = med["tree (appended)"] / warm
verdict = "not judged (--quick)" if quick == "1" else ("met" if ratio <= 1.2 else "MISSED")
say(f"- tree after a 1 MB append / tree warm: {ratio:.3f} (budget ≤ 1.2: {verdict})")
say(f"- against `wc -l`: warm {warm / wc:.2f}×, after the append {med['tree (appended)'] / wc:.2f}×")
say(f"- the appended session's tree byte for byte the --no-cache one? {same}")
text = "\n".join(lines) + "\n"
sys.stdout.write(text)
if out:
    with open(out, "w") as f:
        f.write(text)
EOF
