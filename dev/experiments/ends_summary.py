"""A compact table of ends_turns.py's `--json` (one line a copy): the first variant's median
ratio to cudaMemcpy, each other's `x` to it, the largest spread of the rounds, the model's
bytes, fills and asks a row, whether every result was exact. Not a test.

    python3 dev/experiments/ends_summary.py OUT.json
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    rows = json.load(open(sys.argv[1]))
    if not rows:
        print("no results")
        return 1
    names = list(rows[0]["variants"])
    print("copy | B/row fill asks | " + names[0] + " | " + " ".join("x" + n for n in names[1:]) + " | spread")
    for r in rows:
        v, m = r["variants"], r["model"]
        base = v[names[0]]["median"]
        xs = " ".join(f"{v[n]['x']:.3f}" if n in v else "-" for n in names[1:])
        sp = max(max(x["rounds"]) - min(x["rounds"]) for x in v.values())
        ex = "" if all(x["exact"] for x in v.values()) else " NOT EXACT"
        mod = f"{m['bytes']} {m['fill']:.2f} {m['asks']:.2f}" if m else "-"
        print(f"{r['label']} | {mod} | {base:.3f} | {xs} | {sp:.3f}{ex}")
    print("all exact:", all(x["exact"] for r in rows for x in r["variants"].values()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
