#!/usr/bin/env python3
"""Latency of `pisess show -f --json` against `tail -f` (issue 17's budget: an appended entry is
shown within 250 ms). Both follow the same file; each round appends one entry line and times
until each follower has printed it, the two read side by side so a slow moment hits both.

    benches/follow.py [--rounds N] [--pisess BIN]

Prints the median and the worst latency of each, and pisess's median as a ratio of tail's.
"""
import argparse, json, os, queue, statistics, subprocess, tempfile, threading, time

HEADER = {"type": "session", "version": 3, "id": "bench-follow", "timestamp":
          "2026-07-31T10:00:00.000Z", "cwd": "/p"}


def entry(i):
    return {"type": "message", "id": f"e{i}", "parentId": f"e{i-1}" if i else None,
            "timestamp": "2026-07-31T10:00:01.000Z",
            "message": {"role": "user", "content": "x" * 200, "timestamp": 1}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--pisess", default=os.path.join(os.path.dirname(__file__), "..",
                                                     "target", "release", "pisess"))
    a = ap.parse_args()
    d = tempfile.mkdtemp()
    path = os.path.join(d, "live.jsonl")
    with open(path, "w") as f:
        f.write(json.dumps(HEADER) + "\n")
    procs = {
        "tail -f": subprocess.Popen(["tail", "-n", "0", "-f", path], stdout=subprocess.PIPE),
        "pisess show -f": subprocess.Popen([a.pisess, "show", "-f", "--json", "--no-header",
                                            path], stdout=subprocess.PIPE),
    }
    # One reader thread per follower stamps the moment its line arrives.
    arrived = {k: queue.Queue() for k in procs}

    def reader(name, p):
        while True:
            chunk = os.read(p.stdout.fileno(), 1 << 16)
            if not chunk:
                return
            arrived[name].put(time.monotonic())

    for name, p in procs.items():
        threading.Thread(target=reader, args=(name, p), daemon=True).start()
    time.sleep(0.5)
    lat = {k: [] for k in procs}
    for i in range(a.rounds):
        line = json.dumps(entry(i)) + "\n"
        start = time.monotonic()
        with open(path, "a") as f:
            f.write(line)
        for name in procs:
            try:
                lat[name].append((arrived[name].get(timeout=5) - start) * 1000)
            except queue.Empty:
                raise SystemExit(f"no line within 5 s from {name}")
        time.sleep(0.05)
    for p in procs.values():
        p.kill()
    load = os.getloadavg()[0]
    for name, xs in lat.items():
        print(f"{name:16} median {statistics.median(xs):6.2f} ms   worst {max(xs):6.2f} ms")
    ratio = statistics.median(lat["pisess show -f"]) / statistics.median(lat["tail -f"])
    print(f"pisess/tail median ratio {ratio:.2f}  ({a.rounds} appends, load average {load:.1f})")


if __name__ == "__main__":
    main()
