"""`sink-reductions` on the row kernels of examples/python/row_kernels.py: RMSNorm's first
loop carries the squares unreduced (no reduce, so no barrier, a trip), the result within
`sum_reorder_bound` of the pipeline without the pass on the reference executor, bit for
bit where only max / min would be sunk (`{exact=true}`); loops whose accumulator is read
in the loop (the online softmax, layer norm's Chan merge) are left as written; the CUDA
compiles under NVRTC."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec.compiler.pipeline import NAMED_PIPELINES, emit, run_pipeline
from tilec.dialects.layout import ReduceOp
from tilec.passes.sink_reductions import sum_reorder_bound

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "python"))
sys.path.insert(0, str(Path(__file__).parents[1] / "helpers"))
sys.path.insert(0, str(Path(__file__).parent))
import row_kernels as rk  # noqa: E402
from nvrtc import compile_sm90_or_skip  # noqa: E402
from test_row_kernels import CHUNKED, _inputs  # noqa: E402

DEFAULT = NAMED_PIPELINES["default"]
UNSUNK = DEFAULT.replace("sink-reductions,", "")
"""The default pipeline without `sink-reductions`."""
EXACT = DEFAULT.replace("sink-reductions,", "sink-reductions{exact=true},")


def _loop_reduces(program, pipeline: str) -> list[int]:
    """The `layout.reduce`s inside each `scf.for` of `program` after `pipeline` (block level)."""
    from xdsl.dialects import scf

    module = program.module.clone()
    run_pipeline(module, pipeline)
    return [sum(isinstance(o, ReduceOp) for o in loop.body.walk())
            for loop in module.walk() if isinstance(loop, scf.ForOp)]


def test_the_default_pipeline_sinks_after_the_stash():
    assert "stash-rereads,sink-reductions,coalesce" in DEFAULT and "sink-reductions" not in UNSUNK


@pytest.mark.parametrize("name,before,after", [
    ("rms_norm", [1, 0], [0, 0]),  # the sum of squares leaves its loop
    ("softmax", [2, 0], [2, 0]),  # the running max is read in the loop (rescaling)
    ("layer_norm", [2, 0], [2, 0]),  # Chan's merge reads the running mean and count
])
def test_which_loops_are_sunk(name, before, after):
    program = CHUNKED[name](5000, "f32", chunk=1024)
    assert _loop_reduces(program, "sink-reductions{max_per_thread=0}") == before
    assert _loop_reduces(program, "choose-warps,sink-reductions") == after


def test_max_per_thread_bounds_the_carried_registers():
    """4 warps over a chunk of 4096: 32 elements a thread are carried at the default
    bound, not at 16."""
    program = rk.rms_norm_chunked(20000, "f32")
    assert _loop_reduces(program, "sink-reductions") == [0, 0]  # 4096 over the open 1024 threads: 4
    assert _loop_reduces(program, "choose-warps{max_warps=4},sink-reductions") == [0, 0]
    assert _loop_reduces(program, "choose-warps{max_warps=4},sink-reductions{max_per_thread=16}") == [1, 0]


def _dst(program, pipeline: str, args) -> np.ndarray:
    lowered = program.module.clone()
    run_pipeline(lowered, pipeline)
    return np.asarray(tilec.run_reference(lowered, args)["dst"])


@pytest.mark.parametrize("n,dtype", [(5000, "f32"), (2500, "f16")])
def test_sunk_rms_norm_within_the_reorder_bound(n, dtype):
    """RMSNorm in chunks of 1024 (the last partial), lowered to the GPU level: the sunk
    sum of squares S' differs from the unsunk S by at most 2 gamma_h sum x^2
    (`sum_reorder_bound`), so y = x rsqrt(S / n + eps) w by at most half that relative to
    S, plus the few roundings after it (rsqrt, two products, the store: 4 ulps of f32)."""
    m = 3
    program = rk.rms_norm_chunked(n, dtype, chunk=1024)
    args, _ = _inputs("rms_norm", m, n, dtype)
    sunk, unsunk = (_dst(program, p, args).reshape(m, n).astype(np.float64) for p in (DEFAULT, UNSUNK))
    assert not np.array_equal(sunk, unsunk) or dtype == "f16"  # reordered: f32 shows it
    x = args["src"].reshape(m, n).astype(np.float64)
    trips, per_thread = -(-n // 1024), 1024 // (32 * 4)
    for row in range(m):
        s = float((x[row] ** 2).sum())
        rel = 0.5 * sum_reorder_bound(trips, per_thread, s) / s + 4 * 2.0 ** -24
        out_ulp = {"f32": 0.0, "f16": 2.0 ** -11}[dtype]  # an f16 output may round the other way
        bound = np.abs(unsunk[row]) * (rel + out_ulp)
        assert np.all(np.abs(sunk[row] - unsunk[row]) <= bound)


@pytest.mark.parametrize("name", list(CHUNKED))
def test_exact_kinds_change_no_bit(name):
    """`{exact=true}` sinks no float sum, and none of these loops has a sinkable max:
    bit for bit the pipeline without the pass."""
    m, n = 2, 3000
    program = CHUNKED[name](n, "f32", chunk=1024)
    args, _ = _inputs(name, m, n, "f32")
    assert np.array_equal(_dst(program, EXACT, args), _dst(program, UNSUNK, args), equal_nan=True)


def _loops_shuffling(module) -> int:
    """The loops of the kernel that shuffle (a reduction across lanes in them)."""
    from xdsl.dialects import gpu, scf

    from tilec.dialects.cuda import ShflIdxOp

    (fn,) = [o for o in module.walk() if isinstance(o, gpu.FuncOp)]
    return sum(any(isinstance(o, ShflIdxOp) for o in loop.walk())
               for loop in fn.walk() if isinstance(loop, scf.ForOp))


@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_sunk_rms_norm_compiles_under_nvrtc(dtype):
    """RMSNorm at N = 50257 (13 chunks of 4096, stashed): no loop of the lowered kernel
    shuffles (the reduction runs once, after the first loop; without the pass it runs in
    it); the CUDA compiles for sm_90."""
    program = rk.rms_norm_chunked(50257, dtype)
    unsunk = program.module.clone()
    run_pipeline(unsunk, UNSUNK)
    assert _loops_shuffling(unsunk) == 1
    lowered = program.module.clone()
    run_pipeline(lowered, DEFAULT)
    assert _loops_shuffling(lowered) == 0
    compile_sm90_or_skip(emit(lowered, "cuda"))
