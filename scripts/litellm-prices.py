#!/usr/bin/env python3
"""Trims LiteLLM's price table to what pisess reads, for a dated snapshot built into pisess.

    scripts/litellm-prices.py FULL.json OUT.json

FULL.json is LiteLLM's `model_prices_and_context_window.json`, e.g. from
https://raw.githubusercontent.com/BerriAI/litellm/<commit>/model_prices_and_context_window.json
(or `litellm/model_prices_and_context_window_backup.json` in a litellm wheel). OUT.json keeps
LiteLLM's shape and field names, so pisess reads it with the same reader as a user's file, and
it prices every model exactly as FULL.json does (pisess-store `prices::table`):
- the entries pisess keeps: both `input_cost_per_token` and `output_cost_per_token` given,
  `sample_spec` left out;
- of each, only the price fields pisess reads: the input, output, cache read, cache write and
  one-hour cache write rates, untiered and `_above_<N>k_tokens`/`_above_<N>_tokens`; `null`s
  dropped (pisess reads them as absent);
- keys in FULL.json's order, a key given twice as its last entry (as Python's `json` and
  pisess both keep it).

It refuses what pisess refuses (a price that is no finite number >= 0), so a snapshot that
would not load is never written. It prints OUT.json's provenance, for the commit message and
the notice: FULL.json's sha256, its size, and the entry counts.

LiteLLM's table is MIT-licensed (Copyright (c) 2023 Berri AI): a binary that embeds OUT.json
ships that notice with it (crates/pisess-store/src/prices/LITELLM-LICENSE).
"""

import hashlib
import json
import math
import re
import sys

BASES = (
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "cache_creation_input_token_cost_above_1hr",
)
# pisess's `table::field`: a base, or a base then `_above_<digits>[k]_tokens` (at most 12
# digits).
FIELD = re.compile(
    "^(?:" + "|".join(map(re.escape, BASES)) + r")(?:_above_[0-9]{1,12}k?_tokens)?$"
)


def price(key, field, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        sys.exit(f"{key!r}: {field} is {type(value).__name__}, not a number")
    if not math.isfinite(value) or value < 0:
        sys.exit(f"{key!r}: {field} is {value}")
    return value


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    full, out = sys.argv[1], sys.argv[2]
    raw = open(full, "rb").read()
    table = json.loads(raw)
    if not isinstance(table, dict):
        sys.exit(f"{full}: not a JSON object")
    kept = {}
    for key, entry in table.items():
        if key == "sample_spec":
            continue
        if not isinstance(entry, dict):
            sys.exit(f"{key!r}: not an object")
        prices = {
            f: price(key, f, v)
            for f, v in entry.items()
            if FIELD.match(f) and v is not None
        }
        if "input_cost_per_token" in prices and "output_cost_per_token" in prices:
            kept[key] = prices
    if not kept:
        sys.exit(f"{full}: no entry has both input and output prices")
    with open(out, "w") as f:
        # One entry a line: small, and a diff between two snapshots reads per model.
        f.write("{\n")
        f.write(
            ",\n".join(
                f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}"
                for k, v in kept.items()
            )
        )
        f.write("\n}\n")
    print(f"source sha256 {hashlib.sha256(raw).hexdigest()} ({len(raw)} bytes, {len(table)} keys)")
    print(f"wrote {out}: {len(kept)} priced entries")


if __name__ == "__main__":
    main()
