#!/usr/bin/env bash
# The benchmark of issue 18's summary cache: `ls --all --json` on a generated store of 10,000
# sessions (~2.5 GB, `--<cwd>--` folders) uncached, with a warm cache, and with 100 sessions grown
# since the cache was written, against fast-resume's warm `fr --json --all` on the same store and
# a read of every file, all timed in the same interleaved rounds.
#
#   benches/cache.sh [--sessions N --mb N] [--rounds N] [--runs N] [--dir DIR] [--keep] [--out FILE]
#
#   --sessions N --mb N  store size (default 10000 sessions, 2500 MB); 300 / 75 is a smoke test
#   --rounds N  interleaved rounds (default 3): each round times every command once after the other
#   --runs N    runs of each command per round (default 2); figures are medians over all of them
#   --dir DIR   where the store, the caches and fast-resume go (default: a temp dir, removed at the
#               end unless --keep); a store of the same size already in DIR is reused as is
#   --out FILE  also write the markdown table there
#
# PISESS               the binary to measure (default: `cargo build --release`, target/release/pisess)
# BASELINE             another pisess (the build before a change): its warm run is timed in the
#                      same rounds, with a cache of its own ("warm, baseline")
# FAST_RESUME_VERSION  the PyPI fast-resume to install into DIR/fr/venv (default 2.14.0); when pip
#                      cannot install it the fr rows are skipped, with a message
#
# The cache is detected from `pisess --help` (the global flag --no-cache); a build without it says
# "no cache in this build", its "uncached" row is the plain run and nothing is judged.
#
# What is timed (warm page cache: the files, the caches and fr's index are read before every run):
#   uncached  `pisess --no-cache ls --all --json`
#   warm      the same with PISESS_CACHE_DIR=DIR/cache/warm, primed by one run first
#   grown     the same over a second store, DIR/agent-grown: hard links to the first but for 100
#             sessions (`gen.py grow`, chosen by seed) that are private copies. Its cache,
#             DIR/cache/grown, was primed before they grew; before every run the grown copies are
#             written over them in place (same inode, as pi appends) and the cache is restored
#             from DIR/cache/grown.snapshot, so every run finds "100 grown since the cache was
#             written"
#   fr        fast-resume's `fr --json --all`, its index built once before: each run looks for
#             changed sessions first (2.14.0: a walk and a statx of every file, none opened) and
#             parses those again; `--no-refresh` serves the index without looking
#   cat | cat, wc -l   every file read: the baseline
#   find -printf       `find DIR -name '*.jsonl' -printf '%s %T@ %i\n'`: the walk and a stat of
#                      every file, no file read: the floor of a warm listing (issue 33: warm at
#                      most 2x this)
#
# Needs python3 (stdlib), hyperfine and GNU time (installed with apt-get when missing), pip for fr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
fr_version="${FAST_RESUME_VERSION:-2.14.0}"
grow_n=100

sessions=10000 mb=2500 rounds=3 runs=2 dir="" keep=0 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --sessions) sessions="$2"; shift ;;
    --mb) mb="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --keep) keep=1 ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,/^set -e/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "cache.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

bench="bench cache"
# shellcheck source=benches/lib.sh
. "$here/lib.sh"
bench_tools
bench_dir pisess-bench-cache
bench_bin
if "$bin" --help 2>/dev/null | grep -q -- '--no-cache'; then
  cached=1
else
  cached=0
  say "no cache in this build: \"uncached\" is the plain run, and warm and grown measure no cache"
fi

# ---- the store (A), its 100 grown sessions, and the second store (B) they grow in
agent="$dir/agent"           # PI_CODING_AGENT_DIR: $agent/sessions/--<cwd>--/*.jsonl
stamp="$dir/corpus-$sessions-$mb"
bench_store "$agent" "$sessions" "$mb" "$stamp"   # 10,000: about 45 s
find "$agent/sessions" -name '*.jsonl' -print0 >"$dir/a.files"
n_files=$(find "$agent/sessions" -name '*.jsonl' | wc -l)
a_bytes=$(find "$agent/sessions" -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {printf "%.0f\n", s}')

# Deterministic (gen.py's seed), so it is made again each time: cheap, and never out of step.
grown="$dir/grown"
rm -rf "$grown"
python3 "$here/gen.py" grow "$agent/sessions" "$grown" --count "$grow_n" >"$dir/grown.list"

agent_b="$dir/agent-grown"
rm -rf "$agent_b"
cp -al "$agent" "$agent_b"
while read -r rel; do
  # A private copy (a hard link would grow the first store too), same bytes and mtime.
  rm "$agent_b/sessions/$rel"
  cp --preserve=timestamps "$agent/sessions/$rel" "$agent_b/sessions/$rel"
done <"$dir/grown.list"
sed "s|^|$agent_b/sessions/|" "$dir/grown.list" | tr '\n' '\0' >"$dir/b.files"

# ---- caches: made afresh each time, so no run sees a cache an older pisess wrote
cache="$dir/cache"
rm -rf "$cache"
mkdir -p "$cache/xdg" "$cache/none" "$cache/warm" "$cache/grown" "$cache/baseline"
ls_cmd="$(q "$bin") ls --all --json"
env_common="XDG_CACHE_HOME=$(q "$cache/xdg")"
env_a="$env_common PI_CODING_AGENT_DIR=$(q "$agent")"
env_b="$env_common PI_CODING_AGENT_DIR=$(q "$agent_b")"
no_cache=""
[ "$cached" = 1 ] && no_cache="--no-cache"
uncached_a="$env_a PISESS_CACHE_DIR=$(q "$cache/none") $(q "$bin") $no_cache ls --all --json"
warm_a="$env_a PISESS_CACHE_DIR=$(q "$cache/warm") $ls_cmd"
grown_b="$env_b PISESS_CACHE_DIR=$(q "$cache/grown") $ls_cmd"

baseline_a=""
if [ -n "${BASELINE:-}" ]; then
  baseline_a="$env_a PISESS_CACHE_DIR=$(q "$cache/baseline") $(q "$BASELINE") ls --all --json"
fi

say "priming the caches"
bash -c "$warm_a" >/dev/null
[ -z "$baseline_a" ] || bash -c "$baseline_a" >/dev/null
bash -c "$grown_b" >/dev/null
cp -a "$cache/grown" "$cache/grown.snapshot"
# Then the 100 grow, in place: the same inodes, longer, later mtimes. File by file, as an append
# leaves the folders' mtimes as they were (a recursive cp would set them).
restore_grown="rm -rf $(q "$cache/grown") && cp -a $(q "$cache/grown.snapshot") $(q "$cache/grown") && xargs -d '\n' -I{} -a $(q "$dir/grown.list") cp --preserve=timestamps $(q "$grown")/{} $(q "$agent_b/sessions")/{}"
bash -c "$restore_grown"

# ---- fast-resume
# fr finds pi's sessions as pi does (its src/config.rs, pi_sessions_dir; checked below on the
# installed version by the count it lists): PI_CODING_AGENT_SESSION_DIR, else the sessionDir of
# $PI_CODING_AGENT_DIR/settings.json, else $PI_CODING_AGENT_DIR/sessions (~/.pi/agent by default).
# So it is given the same PI_CODING_AGENT_DIR as pisess. Its other agents' stores (~/.claude,
# ~/.codex, ...) are under HOME, and its Tantivy index under XDG_CACHE_HOME: both point into
# DIR/fr/home, under `env -i`, so it indexes this store and nothing else of the machine.
fr="" fr_cmd="" fr_cmd_nr="" fr_build=""
fr_home="$dir/fr/home"
venv="$dir/fr/venv"
mkdir -p "$dir/fr"
if [ ! -x "$venv/bin/fr" ] || [ "$("$venv/bin/fr" --version 2>/dev/null)" != "fr $fr_version" ]; then
  say "installing fast-resume $fr_version (pip, into $venv)"
  rm -rf "$venv"
  { python3 -m venv "$venv" && "$venv/bin/pip" install -q "fast-resume==$fr_version"; } >"$dir/fr/pip.log" 2>&1 ||
    say "pip install fast-resume==$fr_version failed (see $dir/fr/pip.log): fr figures skipped"
fi
[ -x "$venv/bin/fr" ] && fr="$venv/bin/fr"
mkdir -p "$fr_home"
if [ -n "$fr" ]; then
  fr_env="env -i PATH=/usr/bin:/bin HOME=$(q "$fr_home") XDG_CACHE_HOME=$(q "$fr_home/.cache") PI_CODING_AGENT_DIR=$(q "$agent")"
  fr_cmd="$fr_env $(q "$fr") --json --all"
  fr_cmd_nr="$fr_env $(q "$fr") --json --all --no-refresh"
  rm -rf "$fr_home" && mkdir -p "$fr_home"
  say "fast-resume: building its index of the store (once)"
  start=$EPOCHREALTIME
  bash -c "$fr_cmd" >"$dir/fr.json"
  fr_build=$(python3 -c "print($EPOCHREALTIME - $start)")
  fr_total=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["meta"]; print(m["total"], m["state"])' "$dir/fr.json")
  [ "${fr_total% *}" = "$n_files" ] || say "warning: fr lists ${fr_total% *} sessions of $n_files (state ${fr_total#* })"
fi

# ---- the cache is a pure accelerator: each cached output must equal the uncached one
same=""
if [ "$cached" = 1 ]; then
  same_as() { # cached-command uncached-command
    if cmp -s <(bash -c "$1") <(bash -c "$2"); then echo yes; else echo "NO, it differs"; fi
  }
  same="warm: $(same_as "$warm_a" "$uncached_a")"
  bash -c "$restore_grown"
  same="$same; grown: $(same_as "$grown_b" "$env_b $(q "$bin") --no-cache ls --all --json")"
  [ -z "$(ls -A "$cache/none")" ] || same="$same; and --no-cache WROTE into PISESS_CACHE_DIR"
  say "cached output = --no-cache output? $same"
fi

# ---- timing
# "label<TAB>prepare<TAB>command". The page cache is warmed before every run (this VM reclaims
# pages left untouched for a few seconds), caches and fr's index included.
warm="xargs -0 cat <$(q "$dir/a.files") >/dev/null && xargs -0 cat <$(q "$dir/b.files") >/dev/null && find $(q "$cache") $(q "$fr_home") -type f -print0 | xargs -0 -r cat >/dev/null"
cmds=(
  "cat | cat	$warm	xargs -0 cat <$(q "$dir/a.files") | cat >/dev/null"
  "wc -l	$warm	xargs -0 wc -l <$(q "$dir/a.files") >/dev/null"
  "uncached	$warm	$uncached_a"
  "find -printf	$warm	find $(q "$agent/sessions") -name '*.jsonl' -printf '%s %T@ %i\\n' >/dev/null"
  "warm	$warm	$warm_a"
  "grown	$restore_grown && $warm	$grown_b"
)
if [ -n "$baseline_a" ]; then
  cmds+=("warm, baseline	$warm	$baseline_a")
fi
if [ -n "$fr" ]; then
  cmds+=("fr warm	$warm	$fr_cmd" "fr --no-refresh	$warm	$fr_cmd_nr")
fi

results="$dir/results"
rm -rf "$results"
mkdir -p "$results"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
args=()
for line in "${cmds[@]}"; do
  IFS=$'\t' read -r label prep cmd <<<"$line"
  args+=(--command-name "$label" --prepare "$prep" "$cmd")
done
for r in $(seq 1 "$rounds"); do
  say "round $r/$rounds"
  hyperfine --style none --runs "$runs" --warmup "$([ "$r" = 1 ] && echo 1 || echo 0)" \
    --export-json "$results/c-$r.json" "${args[@]}" >/dev/null
done
for line in "${cmds[@]}"; do
  IFS=$'\t' read -r label prep cmd <<<"$line"
  # Peak RSS of the whole process tree (GNU time reports the largest process).
  bash -c "$prep"
  /usr/bin/time -f "%M" -o "$results/rss.tmp" bash -c "$cmd" >/dev/null 2>&1 || true
  printf 'c\t%s\t%s\n' "$label" "$(tail -n 1 "$results/rss.tmp")" >>"$results/rss.tsv"
done
bash -c "$restore_grown"

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
python3 - "$here" "$results" "$cached" "$sessions" "$n_files" "$((a_bytes / 1000000))" "$grow_n" \
  "$("$bin" --version)" "${fr:+$("$fr" --version)}" "$fr_build" "$rounds x $runs" \
  "$(nproc) cores, $cpu" "$load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after" "$same" "$out" <<'EOF'
import statistics, sys
here, results, cached, sessions, n, mb, grow_n, pisess, fr, fr_build, runs, machine, load, same, out = sys.argv[1:]
sys.path.insert(0, here)
from report import load as load_results

times, order, rss = load_results(results)
med = {cmd: statistics.median(times[("c", cmd)]) for cmd in order["c"]}
cached, full = cached == "1", sessions == "10000"
lines = []
say = lines.append
say(f"Machine: {machine}; load average {load}  ")
say(f"{pisess}{'' if cached else ' (no cache in this build)'}; {fr or 'no fast-resume'}; "
    f"{runs} runs per command, medians; warm page cache  ")
say(f"Store: {n} sessions, {mb} MB, `gen.py many`; grown: {grow_n} of them by 2-5 entries (`gen.py grow`)")
say("")
say("| command | median | × `cat \\| cat` | × uncached | peak RSS |")
say("|---|--:|--:|--:|--:|")
base, unc = med["cat | cat"], med["uncached"]
for cmd in order["c"]:
    mb_rss = rss.get(("c", cmd))
    say(f"| {cmd.replace('|', chr(92) + '|')} | {med[cmd] * 1000:.1f} ms | {med[cmd] / base:.3f} | {med[cmd] / unc:.3f} | "
        + ("?" if mb_rss is None else f"{mb_rss:.0f} MB") + " |")
say("")
say("uncached: `pisess --no-cache ls --all --json`; warm: `ls --all --json`, cache primed; grown: the same "
    f"after {grow_n} sessions grew since the cache was written; fr warm: `fr --json --all` (looks for "
    "changed sessions, then answers from its index); fr --no-refresh: the index alone; "
    "cat | cat, wc -l: every file read")
say("")
warm, grown, frw = med["warm"], med["grown"], med.get("fr warm")
say(f"- warm / uncached: {warm / unc:.3f} (budget ≤ 0.1); warm {warm * 1000:.1f} ms (budget ≤ 100 ms)")
say(f"- grown / warm: {grown / warm:.2f} (budget ≤ 2)")
find = med["find -printf"]
say(f"- warm / find -printf: {warm / find:.2f} (issue 33's budget ≤ 2)")
if "warm, baseline" in med:
    say(f"- warm / warm of the baseline build: {warm / med['warm, baseline']:.2f}")
if frw:
    say(f"- fr warm / pisess warm: {frw / warm:.2f} (budget ≥ 1: pisess at least as fast); "
        f"fr's index built once in {float(fr_build):.1f} s")
if same:
    say(f"- cached output byte for byte the --no-cache output? {same}")
if not cached:
    say("- no cache in this build: warm and grown are plain runs; budgets not judged")
elif not full:
    say("- budgets not judged: they are for the 10,000-session store")
else:
    checks = [warm / unc <= 0.1, warm <= 0.1, grown / warm <= 2, warm / find <= 2] + ([frw >= warm] if frw else [])
    missed = checks.count(False)
    say(f"- budgets: {'all met' if not missed else f'{missed} missed'}")
text = "\n".join(lines) + "\n"
sys.stdout.write(text)
if out:
    with open(out, "w") as f:
        f.write(text)
EOF
