#!/usr/bin/env bash
# Time against store size (issue 33): `ls`, `stats` and `grep` over generated stores of 100 to
# 10,000 sessions (about 0.25 MB a session, `--<cwd>--` folders, as cache.sh's), cached and
# uncached, beside ripgrep and ccusage on the same folder; a CSV of the medians and peak RSS, and
# a log-log graph of time against store size drawn with gnuplot (SVG).
#
#   benches/scale.sh [--sizes LIST] [--rounds N] [--runs N] [--dir DIR] [--keep]
#                    [--csv FILE] [--svg FILE] [--out FILE] [--replot]
#
#   --sizes LIST  comma-separated session counts (default 100,300,1000,3000,10000); 100,300 is a
#                 smoke test
#   --rounds N    interleaved rounds (default 3): each round times every command of every store
#                 once after the other, so a slow moment of the machine hits them all alike
#   --runs N      runs of each command per round (default 2); figures are medians over all of them
#   --dir DIR     where the stores (DIR/store-N), caches, ccusage and results go (default: a temp
#                 dir, removed at the end unless --keep); a store of the same size already in DIR
#                 is reused as is. 10,000 sessions take about 2.5 GB
#   --csv FILE    the CSV (default DIR/scale.csv): sessions,store_mb,command,median_s,peak_rss_mb
#   --svg FILE    the graph (default DIR/scale.svg; docs/scale.svg is the one in the docs)
#   --out FILE    also write the markdown tables there
#   --replot      time nothing: the CSV, tables and graph again from DIR/results of an earlier run
#
# PISESS         the binary to measure (default: `cargo build --release`, target/release/pisess)
# PISESS_COMMIT  the commit (or any name) of the build, for the graph's title (default: the
#                repo's HEAD when the script builds it, else PISESS's path)
#
# What is timed, for each store (warm page cache: its files and the caches are read before every
# run; rg exits 1 and pisess grep 1 when nothing matched, hence `|| true`):
#   ls             `pisess ls --all --json`, its cache (DIR/store-N/cache) primed
#   ls --no-cache  `pisess --no-cache ls --all --json`
#   stats          `pisess stats --all --by day --json --tz UTC`, the same cache primed
#   stats --no-cache
#   grep -l        `pisess grep --all -l kubernetes` (a literal absent from gen.py's vocabulary,
#                  so every file is read to its end; grep decides from the files since issue 29,
#                  so there is no uncached row)
#   rg -l -F       `rg -l -F kubernetes` on the sessions folder
#   ccusage        ccusage 20.0.24's `pi daily --json --offline --timezone UTC --pi-path ...`
#                  (npm install into DIR/ccusage; skipped with a message when npm fails)
#
# Needs python3 (stdlib), hyperfine, GNU time, ripgrep and gnuplot (installed with apt-get when
# missing; without gnuplot the CSV and the tables are still written), npm for ccusage.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
ccusage_version=20.0.24
rare=kubernetes

sizes=100,300,1000,3000,10000 rounds=3 runs=2 dir="" keep=0 csv="" svg="" out="" replot=0
while [ $# -gt 0 ]; do
  case "$1" in
    --sizes) sizes="$2"; shift ;;
    --rounds) rounds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --keep) keep=1 ;;
    --csv) csv="$2"; shift ;;
    --svg) svg="$2"; shift ;;
    --out) out="$2"; shift ;;
    --replot) replot=1 ;;
    -h|--help) sed -n '2,/^set -e/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) echo "scale.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
IFS=, read -r -a size_list <<<"$sizes"
for n in "${size_list[@]}"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "scale.sh: --sizes wants session counts, got '$n'" >&2; exit 2; }
done

bench="bench scale"
# shellcheck source=benches/lib.sh
. "$here/lib.sh"
bench_tools
command -v rg >/dev/null 2>&1 || need_apt rg ripgrep
gnuplot=1
if ! command -v gnuplot >/dev/null 2>&1; then
  say "installing gnuplot-nox (apt-get)"
  { apt-get install -y gnuplot-nox || { apt-get update && apt-get install -y gnuplot-nox; }; } >/dev/null 2>&1 ||
    { say "cannot install gnuplot-nox: no graph (the CSV and the tables are still written)"; gnuplot=0; }
fi
[ "$replot" = 1 ] && [ -z "$dir" ] && { echo "scale.sh: --replot needs the --dir of a run" >&2; exit 2; }
bench_dir pisess-bench-scale
csv="${csv:-$dir/scale.csv}"
svg="${svg:-$dir/scale.svg}"
results="$dir/results"
if [ "$replot" = 1 ]; then
  [ -f "$results/meta.tsv" ] || { say "no results of a run in $results"; exit 1; }
else
  commit="${PISESS_COMMIT:-}"
  if [ -z "$commit" ] && [ -n "${PISESS:-}" ]; then
    commit="$PISESS"
  elif [ -z "$commit" ]; then
    commit="$(git -C "$repo" describe --always --dirty --exclude '*' 2>/dev/null || echo unknown)"
  fi
  bench_bin

  ccusage=""
  if command -v npm >/dev/null 2>&1; then
    [ -x "$dir/ccusage/node_modules/.bin/ccusage" ] ||
      npm install --silent --no-audit --no-fund --prefix "$dir/ccusage" "ccusage@$ccusage_version" >"$dir/npm.log" 2>&1 ||
      say "npm install ccusage@$ccusage_version failed (see $dir/npm.log): ccusage figures skipped"
    [ -x "$dir/ccusage/node_modules/.bin/ccusage" ] && ccusage="$dir/ccusage/node_modules/.bin/ccusage"
  else
    say "npm not found: ccusage figures skipped"
  fi

  rm -rf "$results"
  mkdir -p "$results"
  : >"$results/rss.tsv"
  : >"$results/stores.tsv"
  load_before="$(cut -d' ' -f1-3 /proc/loadavg)"

  for n in "${size_list[@]}"; do
    mb="$(python3 -c "print(f'{$n * 0.25:g}')")"
    sdir="$dir/store-$n"
    agent="$sdir/agent"
    mkdir -p "$sdir"
    # bench_store keeps its stamps in $dir: each store has a dir of its own.
    outer="$dir" dir="$sdir"
    bench_store "$agent" "$n" "$mb" "$sdir/corpus-$n-$mb"
    dir="$outer"
    find "$agent/sessions" -name '*.jsonl' -print0 >"$sdir/files"
    n_files="$(find "$agent/sessions" -name '*.jsonl' | wc -l)"
    bytes="$(find "$agent/sessions" -name '*.jsonl' -printf '%s\n' | awk '{s+=$1} END {printf "%.0f\n", s}')"
    printf '%s\t%s\t%s\n' "$n" "$n_files" "$bytes" >>"$results/stores.tsv"

    # Caches made afresh, so no run sees one an older pisess wrote; primed by one run of each
    # cached command, as any use of pisess leaves them. "none" must stay empty (--no-cache).
    cache="$sdir/cache"
    rm -rf "$cache"
    mkdir -p "$cache/xdg" "$cache/warm" "$cache/none"
    env_a="XDG_CACHE_HOME=$(q "$cache/xdg") PI_CODING_AGENT_DIR=$(q "$agent")"
    warm_env="$env_a PISESS_CACHE_DIR=$(q "$cache/warm")"
    none_env="$env_a PISESS_CACHE_DIR=$(q "$cache/none")"
    b="$(q "$bin")"
    sa="$(q "$agent/sessions")"
    cmds=(
      "ls	$warm_env $b -q ls --all --json"
      "ls --no-cache	$none_env $b -q --no-cache ls --all --json"
      "stats	$warm_env $b -q stats --all --by day --json --tz UTC"
      "stats --no-cache	$none_env $b -q --no-cache stats --all --by day --json --tz UTC"
      "grep -l	$warm_env $b -q grep --all -l $rare || true"
      "rg -l -F	rg -l -F $rare $sa || true"
    )
    [ -n "$ccusage" ] &&
      cmds+=("ccusage	$(q "$ccusage") pi daily --json --offline --timezone UTC --pi-path $sa")

    say "$n sessions: priming the cache"
    bash -c "${cmds[0]#*	}" >/dev/null
    bash -c "${cmds[2]#*	}" >/dev/null
    # The cache is a pure accelerator: the cached outputs must equal the uncached ones.
    same=yes
    for pair in "0 1" "2 3"; do
      read -r c u <<<"$pair"
      cmp -s <(bash -c "${cmds[$c]#*	}") <(bash -c "${cmds[$u]#*	}") || same="NO: ${cmds[$c]%%	*} differs"
    done
    [ -z "$(ls -A "$cache/none")" ] || same="$same; --no-cache WROTE into PISESS_CACHE_DIR"
    [ "$same" = yes ] || say "$n sessions: cached output = --no-cache output? $same"
    printf '%s\t%s\n' "$n" "$same" >>"$results/same.tsv"

    # What each round times of this store, and the warming before each run (its files and
    # caches: this VM reclaims pages left untouched for a few seconds).
    printf '%s\n' "${cmds[@]}" >"$sdir/cmds.tsv"
    echo "xargs -0 cat <$(q "$sdir/files") >/dev/null && find $(q "$cache") -type f -print0 | xargs -0 -r cat >/dev/null" >"$sdir/warm.cmd"
  done

  # Every round times every store, the smallest first, so a busy minute of the shared machine
  # falls on all sizes alike rather than bending the graph at one of them.
  for r in $(seq 1 "$rounds"); do
    for n in "${size_list[@]}"; do
      sdir="$dir/store-$n"
      args=()
      while IFS=$'\t' read -r label cmd; do args+=(--command-name "$label" "$cmd"); done <"$sdir/cmds.tsv"
      say "round $r/$rounds: $n sessions"
      hyperfine --style none --runs "$runs" --warmup "$([ "$r" = 1 ] && echo 1 || echo 0)" \
        --prepare "$(cat "$sdir/warm.cmd")" --export-json "$results/s$n-$r.json" "${args[@]}" >/dev/null
    done
  done
  for n in "${size_list[@]}"; do
    sdir="$dir/store-$n"
    while IFS=$'\t' read -r label cmd; do
      # Peak RSS of the whole process tree (GNU time reports the largest process).
      bash -c "$(cat "$sdir/warm.cmd")"
      /usr/bin/time -f "%M" -o "$results/rss.tmp" bash -c "$cmd" >/dev/null 2>&1 || true
      printf 's%s\t%s\t%s\n' "$n" "$label" "$(tail -n 1 "$results/rss.tmp")" >>"$results/rss.tsv"
    done <"$sdir/cmds.tsv"
  done
  load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
  cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  # What the report says of the run, kept for --replot.
  printf 'commit\t%s\npisess\t%s\nccusage\t%s\nruns\t%s\nnproc\t%s\ncpu\t%s\nbefore\t%s\nafter\t%s\n' \
    "$commit" "$("$bin" --version)" "${ccusage:+ccusage $ccusage_version}" "$rounds x $runs" "$(nproc)" "$cpu" \
    "$load_before" "$load_after" >"$results/meta.tsv"
fi

python3 - "$here" "$results" "$csv" "$svg" "$out" "$gnuplot" <<'EOF'
import os, statistics, subprocess, sys
here, results, csv_path, svg_path, out, gnuplot = sys.argv[1:]
meta = dict(l.rstrip("\n").split("\t", 1) for l in open(os.path.join(results, "meta.tsv")))
commit, pisess, ccusage, runs, nproc, cpu, before, after = (
    meta[k] for k in ("commit", "pisess", "ccusage", "runs", "nproc", "cpu", "before", "after"))
sys.path.insert(0, here)
from report import load

times, order, rss = load(results)
stores = {}
for line in open(os.path.join(results, "stores.tsv")):
    n, files, size = line.split()
    stores[int(n)] = (int(files), int(size) / 1e6)
same = dict(l.rstrip("\n").split("\t", 1) for l in open(os.path.join(results, "same.tsv")))
sizes = sorted(stores)
commands = []
for n in sizes:
    for c in order.get(f"s{n}", []):
        if c not in commands:
            commands.append(c)
med = {(n, c): statistics.median(times[(f"s{n}", c)]) for n in sizes for c in commands if (f"s{n}", c) in times}

with open(csv_path, "w") as f:
    f.write("sessions,store_mb,command,median_s,peak_rss_mb\n")
    for n in sizes:
        for c in commands:
            if (n, c) in med:
                mb = rss.get((f"s{n}", c))
                f.write(f"{n},{stores[n][1]:.0f},{c},{med[(n, c)]:.4f},{'' if mb is None else f'{mb:.1f}'}\n")

lines = []
say = lines.append
say(f"Machine: {nproc} cores, {cpu}; load average {before} before, {after} after  ")
say(f"{pisess} at `{commit}`; {ccusage or 'no ccusage'}; {runs} runs per command, medians; warm page cache  ")
say("Stores: " + ", ".join(f"{stores[n][0]} sessions {stores[n][1]:.0f} MB" for n in sizes) + " (`gen.py many`)")
say("")
say("| command | " + " | ".join(f"{n:,}" for n in sizes) + " |")
say("|---|" + "--:|" * len(sizes))
for c in commands:
    say(f"| `{c}` | " + " | ".join(f"{med[(n, c)]:.3f} s" if (n, c) in med else "" for n in sizes) + " |")
say("")
say("Peak RSS:")
say("")
say("| command | " + " | ".join(f"{n:,}" for n in sizes) + " |")
say("|---|" + "--:|" * len(sizes))
for c in commands:
    cells = []
    for n in sizes:
        mb = rss.get((f"s{n}", c))
        cells.append("?" if mb is None else f"{mb:.0f} MB")
    say(f"| `{c}` | " + " | ".join(cells) + " |")
say("")
for a, b in (("grep -l", "rg -l -F"), ("stats", "ls"), ("ccusage", "stats")):
    if all((n, a) in med and (n, b) in med for n in sizes):
        say(f"- {a} / {b}: " + ", ".join(f"{med[(n, a)] / med[(n, b)]:.2f}" for n in sizes) + " (by size)")
bad = {n: s for n, s in same.items() if s != "yes"}
say("- cached output byte for byte the --no-cache output (ls, stats), every size? "
    + ("yes" if not bad else "; ".join(f"{n}: {s}" for n, s in bad.items())))
text = "\n".join(lines) + "\n"
sys.stdout.write(text)
if out:
    with open(out, "w") as f:
        f.write(text)

if gnuplot != "1":
    sys.exit(0)
# One colour a tool; cached solid, --no-cache dashed; ripgrep and ccusage dotted / dash-dot.
style = {
    "ls": ("#1f77b4", 1, 7), "ls --no-cache": ("#1f77b4", 2, 6),
    "stats": ("#d62728", 1, 5), "stats --no-cache": ("#d62728", 2, 4),
    "grep -l": ("#2ca02c", 1, 9), "rg -l -F": ("#7f7f7f", 3, 13), "ccusage": ("#9467bd", 4, 11),
}
label = {"ls": "pisess ls --all --json", "ls --no-cache": "pisess --no-cache ls --all --json",
         "stats": "pisess stats --all --by day --json", "stats --no-cache": "pisess --no-cache stats --all --by day --json",
         "grep -l": f"pisess grep --all -l", "rg -l -F": "rg -l -F", "ccusage": f"{ccusage} pi daily --json --offline"}
plot = [
    f"set terminal svg size 1160,600 dynamic font 'sans,13' background '#ffffff'",
    f"set output '{svg_path}'",
    "set encoding utf8",
    "set logscale xy",
    "set grid xtics ytics mxtics mytics lc '#dddddd'",
    "set key outside right top vertical Left reverse noenhanced spacing 1.3 width -12",
    "set xlabel 'store size: sessions (about 0.25 MB each)' noenhanced",
    "set ylabel 'wall time, median (s)' noenhanced",
    f"set title \"pisess {commit}: time against store size\\n{nproc} cores, load average {before} → {after}; "
    f"{runs} runs, warm page cache\" noenhanced",
    f"set xrange [{sizes[0] / 1.3}:{sizes[-1] * 1.3}]",
    "set xtics nomirror (" + ", ".join(f"'{n:,}' {n}" for n in sizes) + ")",
    # The stores' sizes on the top axis.
    f"set x2range [{sizes[0] / 1.3}:{sizes[-1] * 1.3}]",
    "set logscale x2",
    "set x2tics (" + ", ".join(f"'{stores[n][1]:,.0f} MB' {n}" for n in sizes) + ")",
    "set format y '%g'",
]
data, series = [], []
for c in commands:
    rows = [f"{n} {med[(n, c)]:.6f}" for n in sizes if (n, c) in med]
    if rows:
        data += [f"${'d' + str(len(series))} << EOD", *rows, "EOD"]
        colour, dash, point = style.get(c, ("#000000", 1, 1))
        series.append(f"${'d' + str(len(series))} using 1:2 with linespoints lw 2 lc '{colour}' dt {dash} "
                      f"pt {point} ps 0.8 title '{label.get(c, c)}'")
script = "\n".join(data + plot + ["plot " + ", \\\n  ".join(series), ""])
with open(os.path.join(results, "scale.gp"), "w") as f:
    f.write(script)
subprocess.run(["gnuplot", os.path.join(results, "scale.gp")], check=True)
print(f"graph: {svg_path}; CSV: {csv_path}", file=sys.stderr)
EOF
