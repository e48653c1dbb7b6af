# Sourced by the benchmarks (run.sh, stats.sh, cache.sh): messages, tools, the work dir and the
# binary to measure, one way for all of them. The caller sets `bench` (its name in messages) and
# `repo`, and `dir`, `keep` from its options before calling bench_dir.

say() { echo "$bench: $*" >&2; }

need_apt() { # command package
  command -v "$1" >/dev/null 2>&1 && return 0
  say "installing $2 (apt-get)"
  { apt-get install -y "$2" || { apt-get update && apt-get install -y "$2"; }; } >/dev/null 2>&1 ||
    { say "cannot install $2; install it and run again"; exit 1; }
}

# hyperfine, GNU time and python3, which every benchmark needs.
bench_tools() {
  need_apt hyperfine hyperfine
  [ -x /usr/bin/time ] || need_apt /usr/bin/time time
  command -v python3 >/dev/null 2>&1 || { say "python3 is needed"; exit 1; }
}

# dir: the given one, or a temp dir removed at exit unless keep=1; made absolute.
bench_dir() { # temp-name
  if [ -z "$dir" ]; then
    dir="$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")"
    [ "${keep:-0}" = 1 ] || trap 'rm -rf "$dir"' EXIT
  fi
  mkdir -p "$dir"
  dir="$(cd "$dir" && pwd)"
}

# bin: $PISESS, or target/release/pisess after `cargo build --release`.
bench_bin() {
  bin="${PISESS:-}"
  if [ -z "$bin" ]; then
    (cd "$repo" && cargo build --release --quiet)
    bin="$repo/target/release/pisess"
  fi
}

# AGENT/sessions: a `gen.py many` store, made unless STAMP says it is there (and what else was
# generated in dir goes with the old store: its corpus-* stamps).
bench_store() { # agent sessions mb stamp
  [ -f "$4" ] && return 0
  rm -rf "$1" "$dir"/corpus-*
  mkdir -p "$1/sessions"
  say "generating $2 sessions, ~$3 MB"
  python3 "$here/gen.py" many "$1/sessions" --sessions "$2" --mb "$3"
  touch "$4"
}

# Shell-quoted, for command lines given to hyperfine and bash -c.
q() { printf '%q' "$1"; }

# Times `cmds` (lines of "label<TAB>prepare<TAB>command") in $rounds interleaved hyperfine rounds
# of $runs runs each, into $results/TAG-<round>.json, then appends each command's peak RSS (GNU
# time: the largest process of its tree) to $results/rss.tsv as "TAG<TAB>label<TAB>KB".
bench_rounds() { # tag
  local tag="$1" line label prep cmd r
  local args=()
  for line in "${cmds[@]}"; do
    IFS=$'\t' read -r label prep cmd <<<"$line"
    args+=(--command-name "$label" --prepare "$prep" "$cmd")
  done
  for r in $(seq 1 "$rounds"); do
    say "round $r/$rounds"
    hyperfine --style none --runs "$runs" --warmup "$([ "$r" = 1 ] && echo 1 || echo 0)" \
      --export-json "$results/$tag-$r.json" "${args[@]}" >/dev/null
  done
  for line in "${cmds[@]}"; do
    IFS=$'\t' read -r label prep cmd <<<"$line"
    bash -c "$prep"
    /usr/bin/time -f "%M" -o "$results/rss.tmp" bash -c "$cmd" >/dev/null 2>&1 || true
    printf '%s\t%s\t%s\n' "$tag" "$label" "$(tail -n 1 "$results/rss.tmp")" >>"$results/rss.tsv"
  done
}
