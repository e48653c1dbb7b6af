#!/usr/bin/env python3
"""Runs the DuckDB recipes of docs/guide.md for real, on the fact table of the bundled examples.

    python3 tests/duckdb/recipes.py PISESS_BINARY

Every ```sql block of the guide that starts with `-- recipe: NAME` is run by DuckDB (the Python
package) against `facts.ndjson`, written by `pisess stats --all --by message --json`. Each must
run and return rows; the `cost per model` and `cost per day` recipes must give what
`pisess stats --by model` and `--by day --tz UTC` give. The `-- duckdb: NAME` blocks of
docs/team.md (the team's queries) run too, over `pisess facts --all` (`facts*.ndjson`, written
twice: the view keeps one row per key), and their totals per day, model and project must be
`pisess stats --all --by day|model|project --tz UTC`'s. Exit 1 on a difference; without the
duckdb package, prints SKIPPED and exits 0 (.ci/run installs it), except under CI (`CI` set),
where a skip would be a silent pass: there it exits 1.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import duckdb
except ImportError:
    if os.environ.get("CI"):
        print("duckdb recipes: FAILED under CI (the duckdb Python package is not installed)")
        sys.exit(1)
    print("duckdb recipes: SKIPPED (the duckdb Python package is not installed)")
    sys.exit(0)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pisess(binary, *args):
    env = dict(os.environ, PI_CODING_AGENT_DIR=os.path.join(REPO, "examples"), NO_COLOR="1", TZ="UTC")
    env.pop("PI_CODING_AGENT_SESSION_DIR", None)
    env.pop("PI_SESSION_FILE", None)
    done = subprocess.run([binary, "-q", *args], env=env, cwd=REPO, capture_output=True, text=True, check=True)
    return done.stdout


def recipes(doc="guide.md", marker="recipe"):
    guide = open(os.path.join(REPO, "docs", doc), encoding="utf-8").read()
    found = {}
    for block in re.findall(r"```sql\n(.*?)```", guide, re.S):
        head = re.match(rf"-- {marker}: (.+)\n", block)
        if head:
            found[head.group(1).strip()] = block
    return found


def rows_by_key(ndjson, value):
    out = {}
    for line in ndjson.splitlines():
        row = json.loads(line)
        if not row["total"]:
            out[row["key"]] = value(row)
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    found = recipes()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "facts.ndjson"), "w", encoding="utf-8") as f:
            f.write(pisess(binary, "stats", "--all", "--by", "message", "--json"))
        os.chdir(tmp)
        con = duckdb.connect()
        con.execute("SET TimeZone = 'UTC'")
        results = {}
        for name, sql in found.items():
            try:
                results[name] = con.execute(sql).fetchall()
            except duckdb.Error as e:
                failures.append(f"recipe '{name}' failed: {e}")
                continue
            if not results[name]:
                failures.append(f"recipe '{name}' returned no rows")
        checks = {
            "cost per model": ("model", []),
            "cost per day": ("day", ["--tz", "UTC"]),
        }
        for name, (by, extra) in checks.items():
            if name not in found:
                failures.append(f"the guide has no recipe '{name}'")
                continue
            want = rows_by_key(
                pisess(binary, "stats", "--all", "--by", by, "--json", *extra),
                lambda r: (r["tokens"]["total"], r["cost"]),
            )
            # Buckets with nothing spent (user messages only) are not rows of the recipe.
            want = {k: v for k, v in want.items() if v != (0, 0)}
            before = len(failures)
            got = {str(k): (int(t), float(c)) for k, t, c in results.get(name, [])}
            if got.keys() != want.keys():
                failures.append(f"'{name}': keys {sorted(got)} vs pisess {sorted(want)}")
                continue
            for k, (tokens, cost) in want.items():
                if got[k][0] != tokens or abs(got[k][1] - cost) > 1e-9:
                    failures.append(f"'{name}' {k}: duckdb {got[k]} vs pisess {(tokens, cost)}")
            if len(failures) == before:
                print(f"duckdb recipes: '{name}': {len(want)} rows agree with stats --by {by}")
        team(binary, tmp, con, failures)
    for name in found:
        print(f"duckdb recipes: ran '{name}' ({len(results.get(name, []))} rows)")
    for f in failures:
        print(f"duckdb recipes: FAILED: {f}")
    return 1 if failures else 0


def team(binary, tmp, con, failures):
    """docs/team.md's DuckDB statements over the fact stream, written twice."""
    rows = pisess(binary, "facts", "--all", "--label", "host=ci", "--label", "user=ci")
    for i in range(2):
        with open(os.path.join(tmp, f"facts-team{i}.ndjson"), "w", encoding="utf-8") as f:
            f.write(rows)
    got = {}
    for name, sql in recipes("team.md", "duckdb").items():
        sql = sql.replace("facts*.ndjson", "facts-team*.ndjson")
        try:
            got[name] = con.execute(sql).fetchall() if name != "facts view" else (con.execute(sql), [])[1]
        except duckdb.Error as e:
            failures.append(f"team query '{name}' failed: {e}")
            continue
        if not got[name] and name != "facts view":
            failures.append(f"team query '{name}' returned no rows")
        print(f"duckdb recipes: ran team query '{name}' ({len(got[name])} rows)")
    for by in ("day", "model", "project"):
        want = rows_by_key(
            pisess(binary, "stats", "--all", "--by", by, "--json", "--tz", "UTC"),
            lambda r: (r["tokens"]["total"], r["cost"]),
        )
        want = {k: v for k, v in want.items() if v != (0, 0)}
        have = {str(k): (int(t), float(c)) for k, t, c in got.get(f"cost per {by}", []) if (t, c) != (0, 0)}
        if have.keys() != want.keys():
            failures.append(f"team 'cost per {by}': keys {sorted(have)} vs pisess {sorted(want)}")
            continue
        bad = [k for k, (t, c) in want.items() if have[k][0] != t or abs(have[k][1] - c) > 1e-9]
        if bad:
            failures.append(f"team 'cost per {by}': {[(k, have[k], want[k]) for k in bad]}")
        else:
            print(f"duckdb recipes: team 'cost per {by}': {len(want)} rows agree with stats --by {by}")


if __name__ == "__main__":
    sys.exit(main())
