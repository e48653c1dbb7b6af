#!/bin/bash
# benches/same-output.sh for the commands it does not run: `diff` (each file against the next,
# against itself at its first entry, human, --json, --format md, --prices), `files` (--json,
# --branch) and `check --baseline`, on the examples and the hostile files, and optionally on
# big sessions given after the filter. Compares stdout, stderr and exit code of REF and NEW.
#   benches/same-output-diff.sh REF NEW [FILTER] [BIG_A BIG_B]
REF=${1:?usage: benches/same-output-diff.sh REF NEW [FILTER] [BIG_A BIG_B]}
NEW=${2:?usage: benches/same-output-diff.sh REF NEW [FILTER] [BIG_A BIG_B]}
FILT=${3:-.}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
H=$T/hostile
mkdir $H && python3 "$ROOT/benches/hostile_wide.py" $H >/dev/null || exit 2
mkdir $H/h1 && (cd $H/h1 && python3 "$ROOT/benches/hostile.py") || exit 2
for f in $H/h1/*.jsonl; do cp "$f" "$H/h1-$(basename "$f")"; done
for f in $(find "$ROOT/examples/sessions" "$ROOT/examples/custom-dir" -name '*.jsonl'); do
  cp "$f" "$H/examples-$(basename "$f")"
done
export NO_COLOR=1 COLUMNS=100 TZ=UTC LC_ALL=C.UTF-8 HOME=$T/home
unset CI PI_CODING_AGENT_SESSION_DIR PI_SESSION_FILE
mkdir -p $HOME
prices="$ROOT/tests/prices/litellm.json"
mapfile -t files < <(ls $H/*.jsonl | grep -E "$FILT")
cmds=()
first_id() { python3 -c '
import json, sys
for line in open(sys.argv[1], encoding="utf-8", errors="replace").readlines()[1:]:
    try:
        i = json.loads(line).get("id")
    except Exception:
        continue
    if isinstance(i, str) and i and "@" not in i:
        print(i); break' "$1" 2>/dev/null; }
n=${#files[@]}
for ((i = 0; i < n; i++)); do
  f=${files[$i]} g=${files[$(((i + 1) % n))]}
  for c in "diff $f $g" "diff $f $g --json" "diff $f $g --format md" "diff $f $g --json --prices $prices" \
           "files $f" "files $f --json" "files $f --branch --json" "check $f --baseline $g --json"; do
    cmds+=("$c")
  done
  id=$(first_id "$f")
  [ -n "$id" ] && cmds+=("diff $f@$id $f --json" "diff $f $f@$id")
done
if [ -n "${4:-}" ]; then
  cmds+=("diff $4 $5 --json" "diff $4 $5" "files $4 --json" "files $5 --branch")
  id=$(first_id "$4")
  cmds+=("diff $4@$id $4 --json")
fi
run() { # which bin cmd...
  local which=$1 bin=$2; shift 2
  export PISESS_CACHE_DIR=$T/cache-$which
  (cd $T && timeout 120 $bin "$@" </dev/null >$T/$which.out 2>$T/$which.err; echo "rc=$?" >>$T/$which.err) 2>/dev/null
}
diffs=0; count=0
for c in "${cmds[@]}"; do
  # shellcheck disable=SC2086
  run ref $REF $c; run new $NEW $c
  count=$((count+1))
  if ! cmp -s $T/ref.out $T/new.out || ! cmp -s $T/ref.err $T/new.err; then
    diffs=$((diffs+1)); echo "DIFFERS: pisess $c"
    diff <(head -c 3000 $T/ref.out) <(head -c 3000 $T/new.out) | head -8
    diff $T/ref.err $T/new.err | head -6
  fi
done
rm -rf $T
echo "$count command lines compared"
[ $diffs = 0 ] && echo identical || { echo "$diffs differ"; exit 1; }
