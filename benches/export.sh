#!/usr/bin/env bash
# Issue 48's time budget: `pisess export FILE --format html` into a file takes at most 15x
# `wc -l FILE` (the 400 MB session of `gen.py one --mb 400`). Interleaved rounds of the two
# (wc first, then the export into a fresh file: an existing destination is read first to see
# whether it holds a session, a cost of its own, see docs/performance.md), the median wall
# time of each, their ratio and the verdict, and the export's peak RSS (the largest round's).
#
#   benches/export.sh [FILE] [--rounds N] [--dir DIR]
#
#   FILE        the session (default: one made in DIR with `gen.py one --mb 400`, kept there
#               for the next run with --dir)
#   --rounds N  rounds (default 7)
#   --dir DIR   where the page (and a generated session) go (default: a temp dir, removed)
#
# PISESS    the binary to measure (default: `cargo build --release`, target/release/pisess)
# Wall times on a shared or loaded machine are noise: run it on an idle one.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
bench=export
# shellcheck source=lib.sh
. "$here/lib.sh"

file="" rounds=7 dir="" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift ;;
    --dir) dir="$2"; keep=1; shift ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "export.sh: unknown option $1" >&2; exit 2 ;;
    *) file="$1" ;;
  esac
  shift
done

command -v python3 >/dev/null 2>&1 || { say "python3 is needed"; exit 1; }
bench_dir export
bench_bin
if [ -z "$file" ]; then
  file="$dir/big400.jsonl"
  if [ ! -f "$file" ]; then
    say "generating $file (gen.py one --mb 400)"
    python3 "$here/gen.py" one "$file" --mb 400 >/dev/null
  fi
fi
[ -f "$file" ] || { say "no such file: $file"; exit 1; }

python3 - "$bin" "$file" "$dir/page.html" "$rounds" <<'EOF'
import os, resource, statistics, subprocess, sys, time
bin, file, page, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def timed(argv):
    """Wall seconds of one run, and its peak RSS in KB (wait4's rusage: that process alone)."""
    start = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"export.sh: {argv} failed")
    return wall, usage.ru_maxrss

# A warm-up of each: the file in the page cache for both.
timed(["wc", "-l", file])
wc, ex, rss = [], [], 0
for r in range(rounds):
    wc.append(timed(["wc", "-l", file])[0])
    if os.path.exists(page):
        os.remove(page)
    wall, kb = timed([bin, "-q", "export", file, "--format", "html", "-o", page])
    ex.append(wall)
    rss = max(rss, kb)
    print(f"round {r + 1}/{rounds}: wc -l {wc[-1]:.3f} s, export {wall:.3f} s", file=sys.stderr)
w, e = statistics.median(wc), statistics.median(ex)
size = os.path.getsize(file)
lines = sum(1 for _ in open(file, "rb"))
print(f"session     {file}: {size / 1e6:.0f} MB, {lines} lines")
print(f"page        {os.path.getsize(page) / 1e6:.1f} MB")
print(f"wc -l       median {w:.3f} s of {rounds}")
print(f"export html median {e:.3f} s of {rounds}, peak RSS {rss / 1024:.0f} MB")
ratio = e / w
print(f"ratio       {ratio:.1f}x wc -l (budget 15x): {'ok' if ratio <= 15 else 'over budget'}")
EOF
