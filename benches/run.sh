#!/usr/bin/env bash
# The performance benchmark of issue #8: generated corpora, pisess against `cat` and against pi.
#
#   benches/run.sh [--quick] [--grep] [--rounds N] [--runs N] [--dir DIR] [--keep] [--out FILE]
#
#   --quick     small corpora (200 sessions / 50 MB, one 40 MB session): a smoke test, not figures
#   --grep      only `grep` against ripgrep on (a) (issue 19): (b) and pi are left out
#   --rounds N  interleaved rounds (default 3): each round times every command of a group once
#               after the other, so a slow moment of the machine hits them all alike
#   --runs N    runs of each command per round (default 2); figures are medians over all of them
#   --dir DIR   where to put the corpora (default: a temp dir, removed at the end unless --keep);
#               an existing DIR with corpora of the same size is reused as is
#   --out FILE  also write the markdown table there
#
# PISESS      the binary to measure (default: `cargo build --release`, target/release/pisess)
# PI_PKG_DIR  an npm prefix holding @earendil-works/pi-coding-agent@1.6.0 (default: npm install
#             into the temp dir); without node or npm the pi figures are skipped, with a message
#
# Needs python3 (stdlib), hyperfine (installed with apt-get when missing) and GNU time
# (/usr/bin/time, likewise). Timings are warm page cache: the files are read before every run.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
pkg=@earendil-works/pi-coding-agent
version=1.6.0

quick=0 grep_only=0 rounds=3 runs=2 dir="" keep=0 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --grep) grep_only=1 ;;
    --rounds) rounds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --keep) keep=1 ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

bench=bench
# shellcheck source=benches/lib.sh
. "$here/lib.sh"
bench_tools
bench_dir pisess-bench
bench_bin

# ---- corpora
if [ "$quick" = 1 ]; then a_n=200 a_mb=50 b_mb=40; else a_n=2000 a_mb=500 b_mb=400; fi
stamp="$dir/corpus-$a_n-$a_mb-$b_mb"
agent="$dir/agent"      # PI_CODING_AGENT_DIR: (a) is $agent/sessions/--<cwd>--/*.jsonl
big="$dir/b/big.jsonl"  # (b)
# (a) alone has a stamp of its own, so --grep reuses it and a later full run adds (b) to it.
stamp_a="$dir/corpus-a-$a_n-$a_mb"
bench_store "$agent" "$a_n" "$a_mb" "$stamp_a"
mkdir -p "$dir/b"
if [ "$grep_only" = 0 ] && [ ! -f "$stamp" ]; then
  say "generating (b): one session of ~$b_mb MB"
  python3 "$here/gen.py" one "$big" --mb "$b_mb"
  touch "$stamp"
fi
[ "$grep_only" = 1 ] && [ ! -f "$big" ] && : >"$big"
cp "$big" "$dir/pi-copy.jsonl"
find "$agent/sessions" -name '*.jsonl' -print0 >"$dir/a.files"
a_bytes=$(find "$agent/sessions" -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {print s}')
b_bytes=$(stat -c %s "$big")

# ---- pi
pi_dist=""
if [ "$grep_only" = 1 ]; then
  :
elif ! command -v node >/dev/null 2>&1; then
  say "node not found: pi figures skipped"
else
  prefix="${PI_PKG_DIR:-}"
  if [ -z "$prefix" ] || [ ! -f "$prefix/node_modules/$pkg/package.json" ]; then
    if command -v npm >/dev/null 2>&1; then
      prefix="$dir/pi"
      [ -f "$prefix/node_modules/$pkg/package.json" ] ||
        npm install --silent --no-audit --no-fund --prefix "$prefix" "$pkg@$version" >"$dir/npm.log" 2>&1 ||
        { say "npm install $pkg@$version failed: pi figures skipped"; prefix=""; }
    else
      say "npm not found: pi figures skipped"
      prefix=""
    fi
  fi
  if [ -n "$prefix" ]; then
    pi_dist="$prefix/node_modules/$pkg/dist"
    got="$(node -p "require('$prefix/node_modules/$pkg/package.json').version")"
    [ "$got" = "$version" ] || say "warning: pi is $got, the reference is $version"
  fi
fi

# ---- commands: "label<TAB>shell command"; the first of each group is its `cat` baseline.
# The summary cache (issue 18) is the bench dir's own. Issue 8's rows measure reading every file,
# so they bypass it (--no-cache); `ls (cached)` and grep's rows use it, primed below.
env_a="PI_CODING_AGENT_DIR=$(q "$agent") PISESS_CACHE_DIR=$(q "$dir/cache")"
group_a=(
  "cat (a)	xargs -0 cat <$(q "$dir/a.files") >/dev/null"
  "ls --all --json	$env_a $(q "$bin") --no-cache ls --all --json"
  "ls --all	$env_a $(q "$bin") --no-cache ls --all"
  "ls --all --json (cached)	$env_a $(q "$bin") ls --all --json"
  "check --all --max-cost	$env_a $(q "$bin") --no-cache check --all -q --max-cost 1000000"
)
[ -n "$pi_dist" ] && group_a+=("pi listAll	$env_a node $(q "$here/pi-listall.mjs") $(q "$pi_dist")")
group_b=(
  "cat (b)	cat $(q "$big") >/dev/null"
  "context --json	$(q "$bin") context --json $(q "$big")"
  "show --json	$(q "$bin") show --json $(q "$big")"
  "show --json --branch	$(q "$bin") show --json --branch $(q "$big")"
  "tree	$(q "$bin") tree $(q "$big")"
  "ls --json (b)	$(q "$bin") --no-cache ls --all --json --session-dir $(q "$dir/b")"
  "check (integrity)	$(q "$bin") check -q $(q "$big")"
  "check --ended --require-tool	$(q "$bin") check -q --ended --require-tool bash --max-cost 1000000 $(q "$big")"
)
[ -n "$pi_dist" ] && group_b+=("pi buildSessionContext	node $(q "$here/pi-context.mjs") $(q "$pi_dist") $(q "$dir/pi-copy.jsonl")")
# grep (issue 19) against ripgrep over the same folder: a literal absent from gen.py's vocabulary
# (so both read every file to its end), a case-insensitive regex, a common word as JSON.
# rg exits 1 when nothing matched, which hyperfine would take for a failure: `|| true`.
rare=kubernetes regex='parse \w+ error' common=session
sa="$(q "$agent/sessions")"
# The cache only lists the files (grep decides from the files themselves since issue 29); the
# --no-cache rows read every file, as rg does.
group_gl=(
  "rg -l -F (a)	rg -l -F $rare $sa || true"
  "grep --all --tools -l	$env_a $(q "$bin") grep --all --tools -l $rare || true"
  "grep --all -l	$env_a $(q "$bin") grep --all -l $rare || true"
  "grep --all -l --no-cache	$env_a $(q "$bin") --no-cache grep --all -l $rare || true"
)
group_gi=(
  "rg -i -l (a)	rg -i -l $(q "$regex") $sa"
  "grep --all -i -l	$env_a $(q "$bin") grep --all -i -l $(q "$regex")"
  "grep --all -i -l --no-cache	$env_a $(q "$bin") --no-cache grep --all -i -l $(q "$regex")"
)
group_gj=(
  "rg --json (a)	rg --json $common $sa"
  "grep --all --json	$env_a $(q "$bin") grep --all --json $common"
)
# The "before": the guide's recipe until grep, one `show --json | grep` per session.
loop="$(q "$bin") ls --all --json -q | jq -r .path | while read -r f; do $(q "$bin") show -q --json --no-header \"\$f\" | grep -q $rare && echo \"\$f\"; done; true"
group_gb=(
  "grep --all --tools -l (b)	$env_a $(q "$bin") grep --all --tools -l $rare || true"
  "show --json | grep loop	export $env_a; $loop"
)
command -v rg >/dev/null 2>&1 || need_apt rg ripgrep
command -v jq >/dev/null 2>&1 || need_apt jq jq

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
say "warming the page cache"
xargs -0 cat <"$dir/a.files" >/dev/null
cat "$big" "$dir/pi-copy.jsonl" >/dev/null

results="$dir/results"
rm -rf "$results"
mkdir -p "$results"

# The page cache is warmed again before every timed run: this VM reclaims pages that stay
# untouched for a few seconds (kdamond), so a file read a round ago may be cold again.
warm_a="xargs -0 cat <$(q "$dir/a.files") >/dev/null"
warm_b="cat $(q "$big") $(q "$dir/pi-copy.jsonl") >/dev/null"

time_group() { # name warm-command commands...
  local name="$1" warm="$2"; shift 2
  local args=() line label cmd r
  for line in "$@"; do
    label="${line%%	*}"; cmd="${line#*	}"
    args+=(--command-name "$label" "$cmd")
  done
  for r in $(seq 1 "$rounds"); do
    say "$name: round $r/$rounds"
    hyperfine --style none --runs "$runs" --warmup "$([ "$r" = 1 ] && echo 1 || echo 0)" --prepare "$warm" \
      --export-json "$results/$name-$r.json" "${args[@]}" >/dev/null
  done
  for line in "$@"; do
    label="${line%%	*}"; cmd="${line#*	}"
    # Peak RSS of the whole process tree (GNU time reports the largest process).
    /usr/bin/time -f "%M" -o "$results/rss.tmp" bash -c "$cmd" >/dev/null 2>&1 || true
    printf '%s\t%s\t%s\n' "$name" "$label" "$(tail -n 1 "$results/rss.tmp")" >>"$results/rss.tsv"
  done
}

# Prime the summary cache: one listing, as any use of pisess leaves it.
rm -rf "$dir/cache"
env PI_CODING_AGENT_DIR="$agent" PISESS_CACHE_DIR="$dir/cache" "$bin" ls --all >/dev/null
if [ "$grep_only" = 0 ]; then
  time_group a "$warm_a" "${group_a[@]}"
  time_group b "$warm_b" "${group_b[@]}"
fi
time_group gl "$warm_a" "${group_gl[@]}"
time_group gi "$warm_a" "${group_gi[@]}"
time_group gj "$warm_a" "${group_gj[@]}"
# The loop runs 2,000 processes: one round of one run is enough to say how far behind it is.
rounds_was=$rounds runs_was=$runs rounds=1 runs=1
time_group gb "$warm_a" "${group_gb[@]}"
rounds=$rounds_was runs=$runs_was

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
mem="$(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo)"
python3 "$here/report.py" "$results" \
  --machine "$(nproc) cores, $cpu, $mem RAM" \
  --corpus-a "$(find "$agent/sessions" -name '*.jsonl' | wc -l) sessions, $((a_bytes / 1000000)) MB" \
  --corpus-b "1 session, $(grep -c '' "$big") lines, $((b_bytes / 1000000)) MB" \
  --pisess "$("$bin" --version)" \
  --runs "$rounds rounds x $runs runs" \
  --load "$load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after" \
  ${out:+--out "$out"} \
  $([ "$quick" = 1 ] && echo --quick)
