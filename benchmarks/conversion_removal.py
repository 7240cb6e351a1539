"""The share of layout conversions that `remove-layout-conversions` removes on random
programs (no GPU needed).

    python benchmarks/conversion_removal.py [--examples 60] [--baseline REV]

Draws `--examples` programs (hypothesis, derandomised: the same programs every run) from
each generator of tests/helpers/conversion_programs.py: `straight-line` (the unit tests'
programs), `regions` (accumulator loops over scf.for and scf.while, uniform scf.if,
small loads, extf) and `loops+branches` (issue 41's shapes: ifs in loops, nested loops,
scf.while, dead loop-carried values, one-branch conversions). For each it runs the pass
and counts, before and after, the conversions that move data (not identities) and their
weighted bytes (the pass's cost model: a conversion in a loop counts its trip count
times). Share removed = 1 - sum(after) / sum(before) over the programs; for
`loops+branches`, whose generator knows the bytes a program must keep (one conversion
from the loaded to the stored layout per shape, outside loops), also the share of the
removable bytes: (before - after) / (before - floor). `--baseline REV` measures the pass as it
was at git revision REV instead (its passes/remove_layout_conversions.py and the private
helpers passes/_*.py, on today's dialects), so a change can be compared with what it
replaced on the same programs.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from xdsl.context import Context  # noqa: E402

from helpers.conversion_programs import loop_branch_programs, programs, region_programs  # noqa: E402
from tilec.compiler.pipeline import parse_module, run_pipeline  # noqa: E402
from tilec.dialects import layout  # noqa: E402
from tilec.passes._layout_cost import CostModel, conversion_cost, kind_of, point_weight  # noqa: E402


def baseline_pass(rev: str):
    """The pass class as it was at `rev`, imported from a temporary package."""
    tmp = Path(tempfile.mkdtemp(prefix="rlc_baseline_"))
    pkg = tmp / "rlc_baseline"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    listing = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", rev, "passes/"],
                             check=True, capture_output=True, text=True).stdout.split()
    helpers = [Path(f).name for f in listing if Path(f).name.startswith("_") and f.endswith(".py")]
    for name in ("remove_layout_conversions.py", *helpers):
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:passes/{name}"],
                              check=True, capture_output=True, text=True).stdout
        (pkg / name).write_text(text)
    sys.path.insert(0, str(tmp))
    return importlib.import_module("rlc_baseline.remove_layout_conversions").RemoveLayoutConversions


def conversions(module) -> tuple[int, float]:
    """(conversions that move data, their weighted bytes)."""
    model = CostModel()
    count, units = 0, 0.0
    for op in module.walk():
        if isinstance(op, layout.ConvertLayoutOp) and kind_of(op.source.type, op.result.type) != "identity":
            count += 1
            c = conversion_cost(model, op.source.type, op.result.type)
            units += c.scaled(point_weight(model, op.parent)).units
    return count, units


def _printed_programs():
    """The straight-line programs (built modules) as text, as `measure` takes programs."""
    return programs().map(str)


def _printed_regions():
    """The region programs (built modules) as text."""
    return region_programs().map(str)


def _printed_loop_branches():
    """The loop and branch programs (built modules) as text, with their floors."""
    return loop_branch_programs().map(lambda drawn: (str(drawn[0]), drawn[1]))


def measure(strategy, examples: int, passes) -> tuple[list[list[float]], int]:
    """Per pass of `passes`: [conversions before, bytes before, after, bytes after]."""
    totals = [[0.0] * 4 for _ in passes]
    seen = [0]

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy())
    def run(text):
        seen[0] += 1
        before = conversions(parse_module(text))
        for k, apply in enumerate(passes):
            after = conversions(apply(parse_module(text)))
            for i, v in enumerate((*before, *after)):
                totals[k][i] += v

    run()
    return totals, seen[0]


def measure_with_floor(strategy, examples: int, passes) -> tuple[list[list[float]], int, float]:
    """`measure` for a generator that draws (text, floor): also the sum of the floors.
    (A function of its own: hypothesis derives the derandomised draws from the test
    function's source, so `measure`'s programs stay the ones earlier runs measured.)"""
    totals = [[0.0] * 4 for _ in passes]
    seen = [0]
    floor = [0.0]

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy())
    def run_with_floor(drawn):
        text, f = drawn
        floor[0] += f
        seen[0] += 1
        before = conversions(parse_module(text))
        for k, apply in enumerate(passes):
            after = conversions(apply(parse_module(text)))
            for i, v in enumerate((*before, *after)):
                totals[k][i] += v

    run_with_floor()
    return totals, seen[0], floor[0]


SHAPE_FILES = ("loops.mlir", "while.mlir", "branches.mlir", "dead_slots.mlir", "twin_results.mlir",
               "one_branch.mlir", "loop_if.mlir")
"""The pass's lit inputs of loop and branch shapes (Triton's combine tests, translated,
and the patterns of issue 41), measured as fixed programs next to the random ones."""


def _shape_strategy(name: str):
    from hypothesis import strategies as st
    text = (ROOT / "tests" / "filecheck" / "remove-layout-conversions" / name).read_text()
    return lambda: st.just(text)


def _current(m):
    return run_pipeline(m, "remove-layout-conversions")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=60)
    ap.add_argument("--baseline", metavar="REV", help="also measure the pass as it was at this git revision")
    args = ap.parse_args()
    passes = [("this checkout", _current)]
    if args.baseline:
        cls = baseline_pass(args.baseline)

        def apply(m):
            cls().apply(Context(), m)
            return m
        passes.insert(0, (args.baseline, apply))
    print(f"remove-layout-conversions, {args.examples} programs per generator; removed = 1 - after / before")
    print("| programs | pass | conversions before -> after | removed | weighted bytes before -> after | removed "
          "| of removable |")
    print("|---|---|---|---|---|---|---|")
    shapes = [(name, _shape_strategy(name)) for name in SHAPE_FILES]
    generators = (("straight-line", _printed_programs), ("regions", _printed_regions),
                  ("loops+branches", _printed_loop_branches), *shapes)
    for name, strategy in generators:
        if strategy is _printed_loop_branches:
            totals, n, floor = measure_with_floor(strategy, args.examples, [f for _, f in passes])
        else:
            (totals, n), floor = measure(strategy, args.examples, [f for _, f in passes]), None
        for (which, _), (cb, ub, ca, ua) in zip(passes, totals):
            share_c = 1 - ca / cb if cb else 0.0
            share_u = 1 - ua / ub if ub else 0.0
            of = "-" if floor is None or ub <= floor else f"{(ub - ua) / (ub - floor):.1%}"
            print(f"| {name} ({n}) | {which} | {cb:.0f} -> {ca:.0f} | {share_c:.1%} "
                  f"| {ub:.0f} -> {ua:.0f} | {share_u:.1%} | {of} |")


if __name__ == "__main__":
    main()
