"""box_prefetch_ab.py's log in short (the last 1500 characters of a device call's stdout
are what comes back): a line a case, `NAME: fn ratio, ...`, each variant or route with its
paired gain over the default (median [min, max] won/rounds); `!` where a path was not
exact or failed.

    python3 dev/experiments/ab_summary.py ab.log
"""

from __future__ import annotations

import re
import sys


def main(path: str) -> int:
    out = []
    for line in open(path):
        if line.startswith("== "):
            name = line[3:].split(":")[0].replace("transpose ", "").replace("float", "f")
            bad = "!" if "NOT EXACT" in line else ""
            out.append(f"{name}{bad}:")
            continue
        m = re.match(r"\s+(\S.*?)\s+ratio (\S+) spread (\S+)(?: per-round \S+ \[[^]]*\])?(?:\s+/ \S+ (\S+) \[(\S+), (\S+)\] won (\S+))?", line)
        if m and out:
            k = (m.group(1).replace("variant ", "V:").replace("copy-strategy", "cs").replace("tiles_", "")
                 .replace("copy ", "C:").replace("+tile", "+t").replace(" spread", ""))
            cell = f" {k} {m.group(2)}"
            if m.group(4):
                lo, hi = float(m.group(5)), float(m.group(6).rstrip("]"))
                cell += f" x{float(m.group(4)):.3f}[{lo:.3f},{hi:.3f}]{m.group(7).split('/')[0]}"
            out[-1] += cell + ";"
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
