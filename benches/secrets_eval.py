#!/usr/bin/env python3
"""Recall and false positives of a secret scanner on the corpus of benches/secrets.sh.

    secrets_eval.py pisess MANIFEST FOUND.jsonl    (pisess grep --secrets --all --json)
    secrets_eval.py gitleaks MANIFEST REPORT.json  (gitleaks dir --report-format json)

pisess never prints a secret: its findings are matched to the planted ones by file and
fingerprint. gitleaks prints them: its findings are matched by file and value (the planted
value inside gitleaks's Secret or Match, or the reverse). Prints one JSON line of counts and
the kinds missed; never a value.
"""
import json
import os
import sys


def real(path):
    """A file as one name, however it was reached (the corpus dir may be a symlink)."""
    return os.path.realpath(path or "")


def unescape(t):
    return t.replace("\\n", "\n").replace("\\/", "/").replace('\\"', '"')


def main():
    tool, manifest, found = sys.argv[1:4]
    planted = [json.loads(line) for line in open(manifest)]
    # A form (`generic-secret/escaped-json-in-curl`) counts apart from its kind's others.
    for p in planted:
        form = p.get("form") or p["kind"]
        p["kind"] = form if form.startswith(p["kind"]) else f'{p["kind"]}/{form}'
    kinds = sorted({p["kind"] for p in planted})
    hit = [False] * len(planted)
    false_positives = 0
    fp_kinds = {}
    if tool == "pisess":
        by_key = {}
        for i, p in enumerate(planted):
            by_key.setdefault((real(p["file"]), p["fingerprint"]), []).append(i)
        for line in open(found):
            f = json.loads(line)
            idx = by_key.get((real(f["path"]), f["fingerprint"]))
            if idx:
                for i in idx:
                    hit[i] = True
            else:
                false_positives += 1
                fp_kinds[f["kind"]] = fp_kinds.get(f["kind"], 0) + 1
    else:
        report = json.load(open(found)) or []
        by_file = {}
        for i, p in enumerate(planted):
            by_file.setdefault(real(p["file"]), []).append(i)
        for f in report:
            texts = [f.get("Secret") or "", f.get("Match") or ""]
            # gitleaks reads the stored bytes: a match of an escaped value (a PEM's `\n`)
            # still found it.
            texts += [unescape(t) for t in texts]
            matched = False
            for i in by_file.get(real(f.get("File")), []):
                v = planted[i]["value"]
                forms = [v, json.dumps(v)[1:-1]]
                if any(t and (w in t or t in w) for t in texts for w in forms):
                    hit[i] = True
                    matched = True
            if not matched:
                false_positives += 1
                rule = f.get("RuleID", "?")
                fp_kinds[rule] = fp_kinds.get(rule, 0) + 1
    found_kinds = sorted({p["kind"] for p, h in zip(planted, hit) if h})
    print(json.dumps({
        "tool": tool,
        "planted": len(planted),
        "found": sum(hit),
        "kinds": len(kinds),
        "kindsFound": len(found_kinds),
        "kindsMissed": [k for k in kinds if k not in found_kinds],
        "missedByKind": {k: sum(1 for p, h in zip(planted, hit) if p["kind"] == k and not h)
                         for k in kinds if any(p["kind"] == k and not h for p, h in zip(planted, hit))},
        "falsePositives": false_positives,
        "falsePositivesByRule": fp_kinds,
    }))


if __name__ == "__main__":
    main()
