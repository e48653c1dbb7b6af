#!/usr/bin/env bash
# Differential test of pisess against pi 1.6.0 (see harness.mjs, and stats.mjs for `stats`).
#
#   tests/differential/run.sh [harness options: --seed N --count N --details N --keep --strict]
#
# PI_PKG_DIR: an npm prefix that already holds @earendil-works/pi-coding-agent (else a temp install).
# PISESS:     the binary to test (else `cargo build --release` and target/release/pisess).
# Without npm, or when the install fails, the test is skipped (exit 0), except under CI
# (`CI` set), where .ci/run has what it needs and a skip would be a silent pass: exit 1.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
pkg=@earendil-works/pi-coding-agent
version=1.6.0

skip() {
  if [ -n "${CI:-}" ]; then echo "differential: FAILED under CI: cannot run ($1)" >&2; exit 1; fi
  echo "differential: SKIPPED ($1)"; exit 0
}

command -v node >/dev/null 2>&1 || skip "node not found"
prefix="${PI_PKG_DIR:-}"
installed() { [ -n "$1" ] && [ -f "$1/node_modules/$pkg/dist/core/session-manager.js" ]; }
if ! installed "$prefix"; then
  command -v npm >/dev/null 2>&1 || skip "npm not found"
  prefix="$(mktemp -d "${TMPDIR:-/tmp}/pisess-pi.XXXXXX")"
  trap 'rm -rf "$prefix"' EXIT
  npm install --loglevel=error --no-audit --no-fund --prefix "$prefix" "$pkg@$version" >"$prefix/npm.log" 2>&1 \
    || skip "npm install $pkg@$version failed: $(grep -m 1 'npm error code' "$prefix/npm.log" || tail -n 1 "$prefix/npm.log")"
fi
got="$(node -p "require('$prefix/node_modules/$pkg/package.json').version")"
[ "$got" = "$version" ] || echo "differential: warning: pi is $got, the reference is $version" >&2

bin="${PISESS:-}"
if [ -z "$bin" ]; then
  (cd "$repo" && cargo build --release --quiet)
  bin="$repo/target/release/pisess"
fi
[ -x "$bin" ] || { echo "differential: no pisess binary at $bin" >&2; exit 2; }

TZ=UTC node "$here/harness.mjs" --pisess "$bin" --pi-dist "$prefix/node_modules/$pkg/dist" "$@"
# stats (issue 20): pi's getSessionStats and usage breakdown, and bucket sums over the raw files.
TZ=UTC node "$here/stats.mjs" --pisess "$bin" --pi-dist "$prefix/node_modules/$pkg/dist" "$@"
# export (issue 35): pi's serializeSessionBranch against `export --format jsonl`, and pi reopening
# the export. Real sessions too: the repo's examples, and the research fixtures when present
# (v1 files pi wrote).
extra=()
seen=" "
for f in "$repo/../shared/research/fixtures"/*.jsonl /work/shared/research/fixtures/*.jsonl; do
  [ -f "$f" ] || continue
  real="$(realpath "$f")"
  case "$seen" in *" $real "*) continue ;; esac
  seen="$seen$real "
  extra+=(--extra "$real")
done
TZ=UTC node "$here/export.mjs" --pisess "$bin" --pi-dist "$prefix/node_modules/$pkg/dist" ${extra[@]+"${extra[@]}"} "$@"
# families (issue 44): forks, clones and branched sessions pi's SessionManager wrote, each entry
# counted once in `stats --all` and in a family, against pi's getSessionStats.
TZ=UTC node "$here/families.mjs" --pisess "$bin" --pi-dist "$prefix/node_modules/$pkg/dist" "$@"
# export --format html (issue 48): never larger than pi's own HTML export, the median at most 1/3.
TZ=UTC node "$here/export-size.mjs" --pisess "$bin" --pi-dist "$prefix/node_modules/$pkg/dist" ${extra[@]+"${extra[@]}"}
