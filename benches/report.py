#!/usr/bin/env python3
"""Turns the benchmark's raw results into the markdown table of docs/performance.md.

    report.py RESULTS_DIR [--machine S] [--corpus-a S] [--corpus-b S] [--pisess S] [--runs S] [--load S]
              [--out FILE]

RESULTS_DIR holds hyperfine exports `<group>-<round>.json` and `rss.tsv` (group, command, peak
RSS in KB). Each time is the median of every run of every round; each ratio is against the
group's first command (its `cat`) or pi's, both measured in the same run.
"""

import argparse
import glob
import json
import os
import statistics
import sys

# The budgets of issue #8: (group, command) -> (max x cat, min x faster than pi, max RSS in MB).
BUDGETS = {
    ("a", "ls --all --json"): (2.0, 10.0, None),
    ("b", "context --json"): (5.0, 8.0, 96),
    ("b", "show --json"): (2.0, None, 32),
    # Issue 19: grep against ripgrep (each group's first command); "faster" is below 1.
    ("gl", "grep --all --tools -l"): (1.5, None, None),
    ("gl", "grep --all -l"): (1.0, None, None),
    ("gi", "grep --all -i -l"): (2.0, None, None),
    ("gj", "grep --all --json"): (2.0, None, None),
}
GROUPS = ("a", "b", "gl", "gi", "gj", "gb")
# Which pi command each pisess command is compared with.
PI_OF = {"a": "pi listAll", "b": "pi buildSessionContext"}
VS_PI = {("a", "ls --all --json"), ("a", "ls --all"), ("b", "context --json")}


def load(results):
    times, order = {}, {}
    for path in sorted(glob.glob(os.path.join(results, "*-*.json"))):
        group = os.path.basename(path).split("-")[0]
        with open(path) as f:
            for r in json.load(f)["results"]:
                times.setdefault((group, r["command"]), []).extend(r["times"])
                order.setdefault(group, [])
                if r["command"] not in order[group]:
                    order[group].append(r["command"])
    rss = {}
    with open(os.path.join(results, "rss.tsv")) as f:
        for line in f:
            group, command, kb = line.rstrip("\n").split("\t")
            rss[(group, command)] = int(kb) / 1024 if kb.strip().isdigit() else None
    return times, order, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    for opt in ("machine", "corpus-a", "corpus-b", "pisess", "runs", "load", "out"):
        ap.add_argument("--" + opt)
    # The budgets are for the full corpora: on --quick's 40 MB session, process start-up and
    # the read-ahead thread weigh as much as the reading, so a verdict there would mislead.
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    times, order, rss = load(args.results)
    median = {k: statistics.median(v) for k, v in times.items()}

    lines = []
    say = lines.append
    say(f"Machine: {args.machine}; load average {args.load}  ")
    say(f"pisess: {args.pisess}; {args.runs} per command, medians; warm page cache  ")
    say(f"(a) {args.corpus_a}; (b) {args.corpus_b}")
    say("")
    say("| group | command | median | × the group's first | × faster than pi | peak RSS | budget |")
    say("|---|---|--:|--:|--:|--:|---|")
    verdicts = []
    for group in GROUPS:
        cmds = order.get(group, [])
        if not cmds:
            continue
        cat = median[(group, cmds[0])]
        pi = median.get((group, PI_OF.get(group)))
        for cmd in cmds:
            t = median[(group, cmd)]
            x_cat = t / cat if cat else float("nan")
            x_pi = pi / t if pi and (group, cmd) in VS_PI else None
            mb = rss.get((group, cmd))
            budget = None if args.quick else BUDGETS.get((group, cmd))
            verdict = ""
            if budget:
                max_cat, min_pi, max_rss = budget
                base = "cat" if group in ("a", "b") else "rg"
                checks = [f"≤ {max_cat:g}× {base}: {'ok' if x_cat <= max_cat else 'MISSED'}"]
                if min_pi:
                    checks.append(
                        f"≥ {min_pi:g}× pi: "
                        + ("no pi" if x_pi is None else "ok" if x_pi >= min_pi else "MISSED")
                    )
                if max_rss:
                    checks.append(
                        f"< {max_rss} MB: " + ("?" if mb is None else "ok" if mb < max_rss else "MISSED")
                    )
                verdict = "; ".join(checks)
                verdicts.append(verdict)
            cells = [
                group,
                f"`{cmd}`",
                f"{t:.3f} s",
                "1" if cmd == cmds[0] else f"{x_cat:.2f}",
                "" if x_pi is None else f"{x_pi:.1f}",
                "" if mb is None else f"{mb:.0f} MB",
                verdict,
            ]
            say("| " + " | ".join(cells) + " |")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    missed = sum(v.count("MISSED") for v in verdicts)
    if args.quick:
        print("\nbudgets: not judged on --quick corpora (they apply to the full ones)", file=sys.stderr)
    else:
        print(f"\nbudgets: {'all met' if not missed else f'{missed} missed'}", file=sys.stderr)


if __name__ == "__main__":
    main()
