"""`order-grid{group=G}` (passes/order_grid.py) on the plain-loop GEMM of
examples/python/gemm_dot.py: the grouped block order maps each linear block id to
every C tile once (3 block rows in groups of 2: the last group has one row): the whole
sm_80 pipeline after it runs on the CPU reference executor and C matches NumPy in
every tile (tests/filecheck/order-grid/grouped.mlir has the IR, and a launch whose
tiles are not shared, which keeps its grid)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from tilec.compiler.pipeline import NAMED_PIPELINES, run_pipeline
from tilec.dialects.layout import LaunchOp
from tilec.runtime.reference import random_inputs, run
from tilec.runtime.reference.values import bf16_to_f32

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "python"))
import gemm_dot  # noqa: E402


def _grid(module) -> list[int]:
    launch = next(o for o in module.walk() if isinstance(o, LaunchOp))
    return [v.owner.value.value.data for v in (launch.grid_x, launch.grid_y, launch.grid_z)]


def test_grouped_gemm_runs_on_the_executor_and_matches_numpy():
    m, n, k = 192, 128, 64
    module = gemm_dot.gemm_dot(m, n, k, 64, 64, 32, 4, target="sm_80", stages=2)
    run_pipeline(module, "expand-iterators,copy-strategy,tile,order-grid{group=2}")
    assert _grid(module) == [6, 1, 1]
    rest = NAMED_PIPELINES["default"].split("order-grid,", 1)[1]
    run_pipeline(module, rest)
    inputs = random_inputs(module, 0)
    got = run(module, inputs)
    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(m, k)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(k, n)).astype(np.float64)
    ok, err = gemm_dot.check(np.asarray(got["pc"], np.float64).reshape(m, n), a, b, k)
    assert ok, f"max error {err:.3g}"


