"""benchmarks/strided_copy_bench.py with the box strategy's knobs set (the copy routes
`box`, `box_smem`: the `copy-strategy` and `tile` passes' options; passes/_box_tile.py),
so that main's kernels (`--policy never`: the same tree with the box strategy off) and
the box strategy are timed in one call. Not a test.

    python3 dev/experiments/box_policy_bench.py --policy never -- --only 42,30 --no-host
    python3 dev/experiments/box_policy_bench.py --smem 20480 -- --only 42,30 --no-host
"""

from __future__ import annotations

import argparse
import runpy
import sys


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--policy", default="auto", choices=["auto", "never"])
    ap.add_argument("--smem", type=int, default=None, help="the box's shared memory (copy_routes box_smem)")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    from tilec.copy_routes import forced_routes

    rest = a.rest[1:] if a.rest[:1] == ["--"] else a.rest
    sys.argv = ["benchmarks/strided_copy_bench.py", *rest]
    sys.path.insert(0, "benchmarks")
    with forced_routes(box=a.policy, box_smem=a.smem):
        runpy.run_path("benchmarks/strided_copy_bench.py", run_name="__main__")


if __name__ == "__main__":
    main()
