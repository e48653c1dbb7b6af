#!/usr/bin/env bash
# Fuzzes the reader, model, tree, context and every reading command (fuzz/, cargo-fuzz with
# libFuzzer) for a fixed budget, then prints each target's executions, executions per second
# and crashes.
#
#   scripts/fuzz.sh                                  every target for 60 s, side by side
#   FUZZ_SECONDS=600 scripts/fuzz.sh                 a longer budget (per target)
#   FUZZ_TARGETS=structured scripts/fuzz.sh          one target (default: structured bytes)
#   FUZZ_SANITIZER=address scripts/fuzz.sh           with AddressSanitizer (default: none)
#
# The targets (fuzz/fuzz_targets/): `bytes` takes raw bytes as a session file, seeded with the
# sessions in examples/; `structured` builds sessions of pi's shape from the fuzzer's bytes
# (fuzz/src/gen.rs), with cycles, duplicates, wrong JSON types, torn, glued and deep lines.
# Both run fuzz/src/lib.rs's `check`: the library and every reading command in-process, with
# their promises asserted (no panic, exit 0 or 1, no raw control characters, valid JSON...).
#
# Needs a nightly toolchain (cargo-fuzz builds with -Z flags) and cargo-fuzz (`cargo install
# cargo-fuzz`). Targets run in parallel, one core each. The corpus grows in fuzz/corpus/ (not
# committed). A crash stops its target and leaves the input in fuzz/artifacts/TARGET/; the
# script then exits 1. Reproduce with `cargo +nightly fuzz run -s none TARGET ARTIFACT`, see the
# input with `cargo +nightly fuzz fmt -s none TARGET ARTIFACT`, fix it, and keep it as a test.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-60}"
targets="${FUZZ_TARGETS:-structured bytes}"
# pisess's only unsafe code is skim's SIMD string search (bounds asserted before each load), so
# AddressSanitizer finds little and costs ~5x the throughput; panics, stack overflows, hangs
# and runaway memory are caught without it. `FUZZ_TARGETS=skim` checks that search alone.
sanitizer="${FUZZ_SANITIZER:-none}"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz.sh: no nightly toolchain (cargo-fuzz needs one: rustup toolchain install nightly)" >&2
  exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: cargo-fuzz is not installed (cargo install cargo-fuzz)" >&2
  exit 2
fi

cargo +nightly fuzz build -O -s "$sanitizer" >/dev/null 2>&1 ||
  cargo +nightly fuzz build -O -s "$sanitizer"

# Each target writes its input here for `ls` and `rm --dry-run`; removed on exit.
work="$(mktemp -d "${TMPDIR:-/tmp}/pisess-fuzz.XXXXXX")"
trap 'rm -rf "$work"' EXIT

mkdir -p fuzz/seeds
if [ -z "$(ls -A fuzz/seeds)" ]; then
  find examples -name '*.jsonl' -exec cp {} fuzz/seeds/ \;
fi

for target in $targets; do
  mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target" "$work/$target"
  find "fuzz/artifacts/$target" -type f | wc -l >"$work/$target.before"
  seeds=()
  [ "$target" != structured ] && seeds+=(fuzz/seeds)
  # -timeout: an input taking 10 s is a hang; -rss_limit_mb: 60 MB lines are fine, 4 GB is not.
  PISESS_FUZZ_DIR="$work/$target" cargo +nightly fuzz run -O -s "$sanitizer" "$target" \
    "fuzz/corpus/$target" "${seeds[@]}" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
    -print_final_stats=1 -dict=fuzz/json.dict >"$work/$target.log" 2>&1 &
done
status=0
wait || status=1

total=0
printf '%-12s %10s %12s %10s %8s\n' target seconds executions execs/s crashes
for target in $targets; do
  log="$work/$target.log"
  execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  rate=$(awk '/stat::average_exec_per_sec/ {print $2}' "$log")
  secs=$(awk '/Done [0-9]+ runs in/ {print $(NF-1)}' "$log")
  crashes=$(( $(find "fuzz/artifacts/$target" -type f | wc -l) - $(cat "$work/$target.before") ))
  printf '%-12s %10s %12s %10s %8s\n' "$target" "${secs:-?}" "${execs:-0}" "${rate:-0}" "$crashes"
  total=$((total + ${execs:-0}))
  if [ "$crashes" -gt 0 ] || ! grep -q 'Done [0-9]* runs' "$log"; then
    status=1
    echo "--- $target: $(grep -m1 -E 'panicked|ERROR: libFuzzer' "$log" || echo 'did not finish')" >&2
    grep -A6 'panicked at' "$log" | head -12 >&2 || true
    grep -E '^artifact_prefix|Test unit written to' "$log" >&2 || true
  fi
done
echo "total executions: $total"
exit "$status"
