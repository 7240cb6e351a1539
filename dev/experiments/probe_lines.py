"""One line per case of alternate_k_probe.py's `--json` (a device call's short stdout): the memcpy of the weight's
bytes, cuBLAS (4 weights / 1 weight), then each configuration's graphs median (us), its fraction of memcpy's bandwidth
(`.786`), its one-weight median (`--brief`: left out), and its time over the rule's within each round: median
[range] rounds faster / rounds.

    python dev/experiments/probe_lines.py PROBE.json [--brief] [NAME=ABBREV ...]"""

import json
import statistics
import sys


def main() -> None:
    brief = "--brief" in sys.argv
    short = dict(x.split("=", 1) for x in sys.argv[2:] if "=" in x)
    for row in json.load(open(sys.argv[1])):
        cf = row["configs"]
        rk = next(x for x in cf if x.endswith("(rule)"))
        rule, cb, mc = cf[rk], cf["cuBLAS"], row.get("memcpy_us", [0])[0]
        out = [f"{row['m']}x{row['n']}x{row['k']} mcpy {mc:.2f} cuB {cb['graphs_us'][0]:.2f}"
               + ("" if brief else f"/{cb['one_weight_us'][0]:.2f}w")]
        for x, v in cf.items():
            if x == "cuBLAS":
                continue
            g, w = v["graphs_us"][0], v["one_weight_us"][0]
            name = short.get(rk[:-7], rk[:-7][:14]) + "(R)" if v is rule else short.get(x, x[:14])
            s = f"{name} {g:.2f} {mc / g:.3f}" + ("" if brief else f" {w:.2f}w")
            if v is not rule:
                r = sorted(a / b for a, b in zip(v["graphs_us_rounds"], rule["graphs_us_rounds"]))
                s += f" x{statistics.median(r):.3f}[{r[0]:.2f}-{r[-1]:.2f}]{sum(q < 1 for q in r)}/{len(r)}"
            out.append(s + ("" if v["ok"] else " FAIL"))
        print(" | ".join(out))


if __name__ == "__main__":
    main()
