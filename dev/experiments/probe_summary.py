"""`alternate_k_probe.py --json`'s rows as a short table for a device call's last lines: per M and
configuration the graphs' median (4 weights), its rounds' range, its ratio to the rule's and
cuBLAS's to it, the one-weight and after-a-mul medians (of cuBLAS), and the checks; where the
JSON has each round's times, the ratio to the rule's within each round (`rd`: median [range],
the rounds faster than the rule's of all); with the probe's `--memcpy`, `mc`: cudaMemcpy's time of the
weight's bytes over the configuration's (its fraction of memcpy's bandwidth).

    python dev/experiments/probe_summary.py PROBE.json [--short NAME=ABBREV ...]"""

import json
import statistics
import sys


def main() -> None:
    rows = json.load(open(sys.argv[1]))
    short = dict(x.split("=", 1) for x in sys.argv[2:])
    for row in rows:
        cfgs = row["configs"]
        rule = next(v for x, v in cfgs.items() if x.endswith("(rule)"))
        cb = cfgs["cuBLAS"]
        mc = row.get("memcpy_us")
        print(f"M={row['m']} ({row['n']}x{row['k']}) us: graphs med [range] x rule | cuB/it; 1w cuB/it; mul cuB/it"
              + (f" | mc (memcpy {mc[0]:.2f})" if mc else ""))
        for x, v in cfgs.items():
            for name, abbrev in short.items():
                x = x.replace(name, abbrev)
            g, w, am = v["graphs_us"], v["one_weight_us"], v.get("after_mul_us")
            line = (f" {x[:22]:22} {g[0]:.2f} [{g[1]:.2f}-{g[2]:.2f}] x{g[0] / rule['graphs_us'][0]:.3f}"
                    f" | {cb['graphs_us'][0] / g[0]:.3f}; {cb['one_weight_us'][0] / w[0]:.3f}")
            if am:
                line += f"; {am[0]:.2f} {cb['after_mul_us'][0] / am[0]:.3f}"
            if "graphs_us_rounds" in v and v is not rule and x != "cuBLAS":  # within each round: over the rule's, won of rounds
                r = sorted(a / b for a, b in zip(v["graphs_us_rounds"], rule["graphs_us_rounds"]))
                line += (f" | rd x{statistics.median(r):.3f} [{r[0]:.3f}-{r[-1]:.3f}]"
                         f" {sum(q < 1 for q in r)}/{len(r)}")
            if mc:
                line += f" | mc {mc[0] / g[0]:.3f}"
            print(line + ("" if v["ok"] else " FAIL"))


if __name__ == "__main__":
    main()
