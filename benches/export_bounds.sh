#!/usr/bin/env bash
# The export budget of issue 42: `export -f html` and `-f md` of a session whose one message is
# N MB of a shape that costs a renderer per character: a line of nested `>` (pulldown-cmark held
# ~85 bytes per level), nested list markers, and backtick runs of every length (the Markdown
# export scanned the line again for each run: n^1.5). Prints each run's peak RSS (GNU time) and
# wall time, and the peak as a multiple of the message (the budget: at most 4x, time linear).
#
#   benches/export_bounds.sh [--mb N] [--dir DIR] [--keep]
#
#   --mb N      the message's size in MB (default 30)
#   --dir DIR   where to write the sessions (default: a temp dir, removed unless --keep)
#
# PISESS    the binary to measure (default: `cargo build --release`, target/release/pisess)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
bench=export_bounds
# shellcheck source=lib.sh
. "$here/lib.sh"

mb=30 dir="" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) mb="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "export_bounds.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

[ -x /usr/bin/time ] || need_apt /usr/bin/time time
command -v python3 >/dev/null 2>&1 || { say "python3 is needed"; exit 1; }
bench_dir export-bounds
if [ -z "${PISESS:-}" ]; then
  (cd "$repo" && cargo build --release -q)
  PISESS="$repo/target/release/pisess"
fi

python3 - "$dir" "$mb" <<'EOF'
import json, sys
dir, mb = sys.argv[1], int(sys.argv[2])
n = mb * 1_000_000
def backticks(n):
    parts, k, size = [], 1, 0
    while size + k + 1 <= n:
        parts.append("`" * k + "x")
        size += k + 1
        k += 1
    return "".join(parts)
shapes = {
    "quotes": ">" * n,
    "lists": "- " * (n // 2),
    "backticks": backticks(n),
}
for name, text in shapes.items():
    header = {"type": "session", "version": 3, "id": f"bounds-{name}",
              "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/p"}
    entry = {"type": "message", "id": "u1", "parentId": None,
             "timestamp": "2026-01-01T00:00:01.000Z",
             "message": {"role": "user", "content": text, "timestamp": 1767225601000}}
    with open(f"{dir}/{name}.jsonl", "w") as f:
        f.write(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
EOF

printf '%-10s %-5s %10s %8s %9s\n' shape fmt peak_MB x_msg wall_s
for shape in quotes lists backticks; do
  for fmt in html md; do
    /usr/bin/time -v "$PISESS" -q export "$dir/$shape.jsonl" -f "$fmt" -o "$dir/out.$fmt" \
      2>"$dir/time.txt" >/dev/null || { say "$shape $fmt failed"; cat "$dir/time.txt" >&2; }
    kb=$(awk -F': ' '/Maximum resident/ {print $2}' "$dir/time.txt")
    wall=$(awk -F': ' '/Elapsed \(wall/ {print $2}' "$dir/time.txt")
    python3 -c "import sys; kb=int(sys.argv[1]); mb=int(sys.argv[2]); print('%-10s %-5s %10.0f %8.2f %9s' % (sys.argv[3], sys.argv[4], kb/1024, kb*1024/(mb*1e6), sys.argv[5]))" \
      "$kb" "$mb" "$shape" "$fmt" "$wall"
  done
done
