#!/usr/bin/env bash
# The secrets scan on one long line of keys (issue 42's budget: linear, a 10 MB line of keys in
# under 2 s): `pisess grep --secrets -c` on a session whose one message holds N distinct
# AWS-format key ids (random, fake) on a single line, then on a raw non-JSON line of keys (the
# reader passes it over; the scan streams it), each run once, wall and user time.
#
#   benches/secrets_line.sh [--mb "2 10"] [--dir DIR] [--keep]
#
#   --mb LIST   line sizes in MB (default "2 10": ~64k and ~320k keys)
#   --dir DIR   where to write the sessions (default: a temp dir, removed unless --keep)
#
# PISESS    the binary to measure (default: `cargo build --release`, target/release/pisess)
#
# Needs python3 and GNU time (/usr/bin/time).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
bench=secrets_line
# shellcheck source=lib.sh
. "$here/lib.sh"

sizes="2 10" dir="" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mb) sizes="$2"; shift ;;
    --dir) dir="$2"; shift ;;
    --keep) keep=1 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "secrets_line.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

command -v python3 >/dev/null || { say "python3 is needed"; exit 1; }
[ -x /usr/bin/time ] || need_apt /usr/bin/time time
bench_dir pisess-secrets-line
bench_bin

write() { # mb shape file: a header, then one line of keys (shape: json or raw)
  python3 - "$1" "$2" "$3" <<'PY'
import json, random, sys
mb, shape, out = float(sys.argv[1]), sys.argv[2], sys.argv[3]
rnd = random.Random(7)
A = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
n = int(mb * 1024 * 1024 / 32)
text = " ".join("AKIA" + "".join(rnd.choice(A) for _ in range(16)) + " n%09d" % i for i in range(n))
hdr = {"type": "session", "version": 3, "id": "0196d88e-694c-7a1c-816a-89e3bcf11f1a",
       "timestamp": "2025-05-16T10:05:33.900Z", "cwd": "/w"}
entry = {"type": "message", "id": "a1b2c3d4", "parentId": None,
         "timestamp": "2025-05-16T10:05:34.000Z",
         "message": {"role": "user", "content": text, "timestamp": 1}}
line = json.dumps(entry) if shape == "json" else "Error: " + text
with open(out, "w") as f:
    f.write(json.dumps(hdr) + "\n" + line + "\n")
print(n)
PY
}

printf '%-6s %-5s %8s %9s %8s %8s %9s\n' shape MB keys findings wall_s user_s peak_MB
for mb in $sizes; do
  for shape in json raw; do
    file="$dir/line-$shape-$mb.jsonl"
    keys=$(write "$mb" "$shape" "$file")
    /usr/bin/time -f '%e %U %M' -o "$dir/time" "$bin" grep --secrets -c "$file" >"$dir/out" || true
    read -r wall user kb <"$dir/time"
    printf '%-6s %-5s %8s %9s %8s %8s %9s\n' "$shape" "$mb" "$keys" \
      "$(sed 's/.*://' "$dir/out")" "$wall" "$user" "$((kb / 1024))"
  done
done
