#!/bin/bash
# For a refactor that must not change behaviour: compares stdout, stderr and exit code of two
# builds, REF and NEW (absolute paths), on the examples and the hostile files that
# benches/hostile.py and benches/hostile_wide.py write: each file named directly, the store
# (cold, then warm cache), several files at once with missing ones, grep/stats/check/show on
# stdin, rm --dry-run. FILTER (a regex) picks files: `examples` for a quick run.
# ~6,000 command lines x 2 binaries; about 15 minutes for debug builds on 2 cores.
#   benches/same-output.sh REF NEW [FILTER]
REF=${1:?usage: benches/same-output.sh REF NEW [FILTER]}
NEW=${2:?usage: benches/same-output.sh REF NEW [FILTER]}
FILT=${3:-.}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
H=$T/hostile
mkdir $H && python3 "$ROOT/benches/hostile_wide.py" $H >/dev/null || exit 2
mkdir $H/h1 && (cd $H/h1 && python3 "$ROOT/benches/hostile.py") || exit 2
mkdir -p $H/store/--home-dev-hostile--
for f in $H/h1/*.jsonl; do
  cp "$f" "$H/h1-$(basename "$f")"
  cp "$f" "$H/store/--home-dev-hostile--/2025-06-01T10-00-00-000Z_$(basename "$f")"
done
cp -r "$ROOT"/examples/sessions/* $H/store/
for f in $(find "$ROOT/examples/sessions" "$ROOT/examples/custom-dir" -name '*.jsonl'); do
  cp "$f" "$H/examples-$(basename "$f")"
done
export NO_COLOR=1 COLUMNS=100 TZ=UTC LC_ALL=C.UTF-8 HOME=$T/home
unset CI PI_CODING_AGENT_SESSION_DIR PI_SESSION_FILE
mkdir -p $HOME
files=$(ls $H/*.jsonl | grep -E "$FILT")
cmds=()
for f in $files; do
  for c in "show" "show --json" "show --all" "tree" "tree --json" "context" "context --json" \
           "stats" "stats --json" "stats --by tool --json" "stats --by message --json" "check" "check --json" "check --max-cost 0.01 --json" \
           "check --ended --require-tool bash --max-tokens 5 --json" "check --junit -" \
           "grep -n e" "grep --json e" "grep -c --tools --thinking ." "grep -l x" "grep --secrets" "grep --secrets --json" \
           "export --format md" "export --format html" "export --format jsonl" "export --redact --format jsonl" \
           "rm -n --json -y" "rm -n -y"; do
    cmds+=("$c $f")
  done
done
S="--session-dir $H/store"
for pass in cold warm; do
  for c in "ls --all" "ls --all --json" "ls --all --sort cost" "ls --all --sort messages --json" "stats --all" "stats --all --by day --json" \
           "stats --all --by model --json" "stats --all --by session --json" "stats --all --by tool" "stats --all --by message --json" \
           "grep --all -c e" "grep --all --json e" "grep --all --secrets --json" "grep --all -l ." "check --all" "check --all --json" \
           "rm -n -y --json --all --empty" "rm -n -y --all --older-than 1d --json" \
           "facts --all" "facts --all --label host=h --label user=u"; do
    cmds+=("$S $c")
  done
done
# several files at once: partial failures and exit codes
some="$H/num00.jsonl $H/nonexistent.jsonl $H/badutf8.jsonl $H/hdr08.jsonl"
for c in "stats --json" "stats" "check" "check --json" "grep e" "grep -c e" "grep -l e" "grep --secrets" "grep --json e" "show" "export --format md" "rm -n -y --json" "tree"; do
  cmds+=("$c $some")
done
run() { # which bin cmd...; stdin from $IN
  local which=$1 bin=$2; shift 2
  export PISESS_CACHE_DIR=$T/cache-$which
  (cd $T && timeout 60 $bin "$@" <${IN:-/dev/null} >$T/$which.raw 2>$T/$which.err; echo "rc=$?" >>$T/$which.err) 2>/dev/null
  # a crash names its thread by number (deep nesting on stdin overflows a reader's stack in both)
  sed -i -E "s/^thread '([^']*)' \([0-9]+\)/thread '\1' (N)/" $T/$which.err
  sed -E "s/$(date -u +%Y-%m-%d)T[0-9:.]+Z/NOW/g" $T/$which.raw >$T/$which.out
}
diffs=0; count=0
cmpit() {
  count=$((count+1))
  if ! cmp -s $T/ref.out $T/new.out || ! cmp -s $T/ref.err $T/new.err; then
    diffs=$((diffs+1)); echo "DIFFERS: $1"
    diff <(head -c 3000 $T/ref.out) <(head -c 3000 $T/new.out) | head -8
    diff $T/ref.err $T/new.err | head -6
  fi
}
for c in "${cmds[@]}"; do
  run ref $REF $c; run new $NEW $c; cmpit "pisess $c"
done
# grep on standard input: one file, '-' once and twice, mixed with files
for f in $files; do
  for c in "grep e -" "grep -c e -" "grep -l e -" "grep --json e -" "grep --secrets -" "grep --secrets --json -" "grep e - -" "grep -c e - $H/num00.jsonl" \
           "stats -" "check -" "show -"; do
    IN=$f run ref $REF $c; IN=$f run new $NEW $c; cmpit "pisess $c < $f"
  done
done
rm -rf $T
echo "$count command lines compared"
[ $diffs = 0 ] && echo identical || { echo "$diffs differ"; exit 1; }
