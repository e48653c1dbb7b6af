#!/usr/bin/env bash
# The budgets of issue 44 (subagent runs and forks as families), on a generated store and the
# same store made into families, all timed warm in the same interleaved rounds:
#
#   ls --all --json          families store / plain store        budget <= 1.2x
#   stats --all --by day     families store / plain store        budget <= 1.2x
#   ls --all --tree --json   / ls --all --json, families store   budget <= 1.3x
#
#   benches/families.sh [--sessions N --mb N] [--rounds N] [--runs N] [--dir DIR] [--keep]
#
#   --sessions N --mb N  store size (default 10000 sessions, 2500 MB; the issue's store)
#   --rounds N  interleaved rounds (default 3), --runs N runs of each command a round (default 2);
#               each figure is the median over all of them
#   --dir DIR   where the stores and caches go (default: a temp dir, removed unless --keep)
#   --hyperfine each round times each command with `hyperfine -N` (no shell; --runs runs after
#               one warm-up), the commands interleaved round by round; each figure is the median
#               of all the runs' times (bash's `date` around a run adds 1-2 ms of noise)
#
# The families store is the plain one (hard links) with, chosen by seed: 10% of the sessions
# rewritten as forks (`forkFrom`-like: a header naming another session of the same project as
# parentSession, that session's entries copied, then two turns of its own), and 10% given a
# subagent run (`<stem>/<runId>/run-0/session.jsonl`, a copy of another session's entries under a
# header of its own). Same file count at the top level; the runs are the 10% more files that a
# family reads. Each store has its own cache (PISESS_CACHE_DIR), primed by one run first.
#
# PISESS: the binary (default: cargo build --release). Needs python3.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
sessions=10000 mb=2500 rounds=3 runs=2 dir="" keep=0 hyper=0
while [ $# -gt 0 ]; do
  case "$1" in
    --sessions) sessions="$2"; shift ;;
    --mb) mb="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --keep) keep=1 ;;
    --hyperfine) hyper=1 ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "families.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
say() { echo "bench families: $*" >&2; }

bin="${PISESS:-}"
if [ -z "$bin" ]; then
  (cd "$repo" && cargo build --release --quiet)
  bin="$repo/target/release/pisess"
fi
if [ -z "$dir" ]; then
  dir="$(mktemp -d "${TMPDIR:-/tmp}/pisess-families.XXXXXX")"
  [ "$keep" = 1 ] || trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
plain="$dir/plain" fam="$dir/families"
if [ ! -d "$plain/sessions" ]; then
  say "generating $sessions sessions ($mb MB) in $plain"
  python3 "$here/gen.py" many "$plain/sessions" --sessions "$sessions" --mb "$mb" --seed 44 >/dev/null
fi
if [ ! -d "$fam/sessions" ]; then
  say "making families in $fam"
  cp -al "$plain" "$fam"
  python3 - "$fam/sessions" <<'EOF'
import json, os, random, sys
root = sys.argv[1]
rng = random.Random(44)
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".jsonl"))
by_folder = {}
for f in files:
    by_folder.setdefault(os.path.dirname(f), []).append(f)
def lines(path):
    with open(path, encoding="utf-8") as fh:
        return fh.read().splitlines()
picked = rng.sample(files, len(files) // 5)
forks, runs = picked[: len(picked) // 2], picked[len(picked) // 2 :]
for i, fork in enumerate(forks):
    sources = [f for f in by_folder[os.path.dirname(fork)] if f != fork and f not in forks]
    if not sources:
        continue
    source = rng.choice(sources)
    src = lines(source)
    header = json.loads(src[0])
    header["id"] = json.loads(lines(fork)[0])["id"]
    header["parentSession"] = source
    last = json.loads(src[-1]).get("id") if len(src) > 1 else None
    own = []
    for n in range(2):
        own.append({"type": "message", "id": f"f{i:06x}{n}", "parentId": last,
                    "timestamp": "2026-12-01T10:00:0%d.000Z" % n,
                    "message": {"role": "user", "content": "the fork's own", "timestamp": 1796119200000 + n}})
        last = own[-1]["id"]
    os.unlink(fork)  # a hard link to the plain store: replaced, not written through
    with open(fork, "w", encoding="utf-8") as fh:
        fh.write("\n".join([json.dumps(header)] + src[1:] + [json.dumps(o) for o in own]) + "\n")
    st = os.stat(source)
    os.utime(fork, (st.st_atime, st.st_mtime + 1))
for i, parent in enumerate(runs):
    other = rng.choice(files)
    src = lines(other)
    header = json.loads(src[0])
    header["id"] = "0000%04x-0000-7000-8000-%012x" % (i % 65536, i)
    header.pop("parentSession", None)
    run = os.path.join(parent[: -len(".jsonl")], "%08x" % rng.getrandbits(32), "run-0", "session.jsonl")
    os.makedirs(os.path.dirname(run), exist_ok=True)
    with open(run, "w", encoding="utf-8") as fh:
        fh.write("\n".join([json.dumps(header)] + src[1:]) + "\n")
print(f"{len(forks)} forks, {len(runs)} sessions with a subagent run", file=sys.stderr)
EOF
fi

# One timed run: seconds, as a float.
timed() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

declare -A cmd
cmd[ls_plain]="env PI_CODING_AGENT_DIR=$plain PISESS_CACHE_DIR=$dir/cache-plain $bin ls --all --json"
cmd[ls_fam]="env PI_CODING_AGENT_DIR=$fam PISESS_CACHE_DIR=$dir/cache-fam $bin ls --all --json"
cmd[stats_plain]="env PI_CODING_AGENT_DIR=$plain PISESS_CACHE_DIR=$dir/cache-plain $bin stats --all --by day"
cmd[stats_fam]="env PI_CODING_AGENT_DIR=$fam PISESS_CACHE_DIR=$dir/cache-fam $bin stats --all --by day"
cmd[tree_fam]="env PI_CODING_AGENT_DIR=$fam PISESS_CACHE_DIR=$dir/cache-fam $bin ls --all --tree --json"
names=(ls_plain ls_fam stats_plain stats_fam tree_fam)
say "priming the caches and the page cache"
for n in "${names[@]}"; do ${cmd[$n]} >/dev/null 2>&1 || true; done
declare -A times
# `hyperfine -N` over one command: its runs' times in seconds, one a line.
hyper_times() {
  local json
  json="$(mktemp)"
  hyperfine -N -w 1 -r "$runs" --export-json "$json" "$1" >/dev/null 2>&1 || true
  python3 -c 'import json,sys; [print(t) for r in json.load(open(sys.argv[1]))["results"] for t in r["times"]]' "$json"
  rm -f "$json"
}
if [ "$hyper" = 1 ] && ! command -v hyperfine >/dev/null; then
  echo "families.sh: --hyperfine needs hyperfine on the PATH" >&2
  exit 2
fi
for ((r = 1; r <= rounds; r++)); do
  for n in "${names[@]}"; do
    if [ "$hyper" = 1 ]; then
      times[$n]+="$(hyper_times "${cmd[$n]}" | tr '\n' ' ')"
      continue
    fi
    for ((k = 1; k <= runs; k++)); do
      times[$n]+="$(timed ${cmd[$n]}) "
    done
  done
done
declare -A med
for n in "${names[@]}"; do
  med[$n]=$(tr ' ' '\n' <<<"${times[$n]}" | grep . | median)
done
ratio() { echo "scale=3; ${med[$1]} / ${med[$2]}" | bc -l; }
verdict() { if [ "$(echo "$1 <= $2" | bc -l)" = 1 ]; then echo within; else echo OVER; fi; }
r1=$(ratio ls_fam ls_plain) r2=$(ratio stats_fam stats_plain) r3=$(ratio tree_fam ls_fam)
echo "| what | median (s) | ratio | budget |"
echo "|---|---|---|---|"
echo "| ls --all --json, plain | ${med[ls_plain]} | | |"
echo "| ls --all --json, families | ${med[ls_fam]} | $r1 | <= 1.2 ($(verdict "$r1" 1.2)) |"
echo "| stats --all --by day, plain | ${med[stats_plain]} | | |"
echo "| stats --all --by day, families | ${med[stats_fam]} | $r2 | <= 1.2 ($(verdict "$r2" 1.2)) |"
echo "| ls --all --tree --json, families | ${med[tree_fam]} | $r3 (of ls --all --json) | <= 1.3 ($(verdict "$r3" 1.3)) |"
