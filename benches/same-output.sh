#!/bin/bash
# For a refactor that must not change behaviour: compares the output (stdout, stderr, exit
# code) of ~800 command lines between two builds, REF and NEW, on the examples and on the
# hostile files benches/hostile.py writes (plus the .jsonl files of FIXTURES, a folder, if
# given). Prints "identical" or the differing commands. Usage:
#   benches/same-output.sh REF NEW [FIXTURES]
REF=${1:?usage: benches/same-output.sh REF NEW [FIXTURES]}
NEW=${2:?usage: benches/same-output.sh REF NEW [FIXTURES]}
FX=${3:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
EX=$ROOT/examples
T=$(mktemp -d)
H=$T/hostile
mkdir -p "$H/store/--home-dev-hostile--"
(cd "$H" && python3 "$ROOT/benches/hostile.py")
for f in "$H"/*.jsonl; do
  b=$(basename "$f" .jsonl)
  cp "$f" "$H/store/--home-dev-hostile--/2025-06-01T10-00-00-000Z_$b.jsonl"
done
cp -r "$EX"/sessions/* "$H/store/"
export NO_COLOR=1 COLUMNS=100 TZ=UTC LC_ALL=C.UTF-8 HOME=$T/home
unset CI PI_CODING_AGENT_SESSION_DIR
mkdir -p $HOME
files="$(ls $H/*.jsonl) ${FX:+$(ls $FX/*.jsonl)} $(find $EX/sessions $EX/custom-dir -name '*.jsonl' | sort)"
cmds=()
for f in $files; do
  for c in "show" "show --json" "show --all" "tree" "tree --json" "tree --all" "context" "context --json" \
           "stats" "stats --json" "check" "check --json" "check --no-secrets" "check --no-tool-errors --max-cost 0.01" \
           "grep -n a" "grep --json e" "grep -c --tools o" "grep --secrets" "grep --secrets --json" \
           "export --format md" "export --format html" "export --format jsonl" "export --redact --format jsonl" \
           "export --redact --format md" "path"; do
    cmds+=("$c $f")
  done
done
for d in "--session-dir $H/store" "--session-dir $EX/sessions/--home-dev-webshop--"; do
  for c in "ls" "ls --all" "ls --all --json" "ls --all --sort size" "stats --all" "stats --all --by day --json" \
           "stats --all --by model" "stats --all --by project" "stats --all --by session --json" \
           "stats --all --by message --json" "grep --all -l cart" "grep --all --json e" "grep --all --secrets" \
           "grep --all --secrets --json" "check --all" "check --all --json" "check --all --no-secrets --summary -" \
           "ls --all --no-cache" "stats --all --no-cache --by day"; do
    cmds+=("$d $c")
  done
done
diffs=0
for c in "${cmds[@]}"; do
  for which in ref new; do
    bin=$REF; [ $which = new ] && bin=$NEW
    export PISESS_CACHE_DIR=$T/cache-$which
    (cd $T && timeout 60 $bin $c </dev/null >$T/$which.raw 2>$T/$which.err; echo "rc=$?" >>$T/$which.err)
    # export writes the time of the export into the new header: not a difference
    sed -E "s/$(date -u +%Y-%m-%d)T[0-9:.]+Z/NOW/g" $T/$which.raw >$T/$which.out
  done
  if ! cmp -s $T/ref.out $T/new.out || ! cmp -s $T/ref.err $T/new.err; then
    diffs=$((diffs+1)); echo "DIFFERS: pisess $c"
    diff <(head -c 3000 $T/ref.out) <(head -c 3000 $T/new.out) | head -8
    diff $T/ref.err $T/new.err | head -6
  fi
done
rm -rf $T
echo "${#cmds[@]} command lines compared"
[ $diffs = 0 ] && echo identical || { echo "$diffs differ"; exit 1; }
