#!/bin/bash
# Instruction counts (cachegrind, no cache simulation) of two builds of pisess, REF and NEW,
# on the bundled examples; prints both and the ratio (a refactor's budget: <= 1.02).
# Usage: benches/icount.sh REF NEW   (debug or release binaries; needs valgrind)
REF=${1:?usage: benches/icount.sh REF NEW}
NEW=${2:?usage: benches/icount.sh REF NEW}
T=$(mktemp -d)
export PI_CODING_AGENT_DIR="$(cd "$(dirname "$0")/.." && pwd)/examples" NO_COLOR=1 COLUMNS=100 TZ=UTC HOME=$T
unset PI_CODING_AGENT_SESSION_DIR CI
count() { # bin args...
  local bin=$1; shift
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=$T/cg.out "$bin" "$@" >/dev/null 2>$T/vg.err
  grep -oP 'I\s+refs:\s+\K[0-9,]+' $T/vg.err | tr -d ,
}
printf "%-45s %14s %14s %7s\n" command ref new ratio
while IFS= read -r line; do
  [ -z "$line" ] && continue
  read -ra args <<<"$line"
  r=$(PISESS_CACHE_DIR=$T/ref count "$REF" "${args[@]}"); n=$(PISESS_CACHE_DIR=$T/new count "$NEW" "${args[@]}")
  printf "%-45s %14s %14s %7s\n" "$line" "$r" "$n" "$(python3 -c "print(f'{$n/$r:.4f}')")"
done <<'CMDS'
ls --all --no-cache
ls --all
ls --all
tree 0196c9f4
show 0196c9f4
context 0196d4d5
stats --all --by day --no-cache
stats --all --by day
stats --all --by day
grep -l --all --no-cache cart
grep --secrets --all --no-cache
CMDS
rm -rf $T
