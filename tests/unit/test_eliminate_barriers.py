"""`eliminate-barriers` on the row kernels of examples/python/row_kernels.py: the barriers
it removes (two a trip of the online softmax's first loop and of layer norm's), the
results bit for bit those of the pipeline without it on the reference executor (which
fails a run whose shared memory races between barriers), and the CUDA compiled by NVRTC."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from xdsl.dialects import gpu, memref, scf

import tilec
from tilec.compiler.pipeline import NAMED_PIPELINES, emit, run_pipeline
from tilec.passes.eliminate_barriers import Access, conflict, may_alias

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "python"))
sys.path.insert(0, str(Path(__file__).parents[1] / "helpers"))
sys.path.insert(0, str(Path(__file__).parent))
import row_kernels as rk  # noqa: E402
from nvrtc import compile_sm90_or_skip  # noqa: E402
from test_reduce_lowering import reduce_cases, reduce_program  # noqa: E402
from test_row_kernels import CHUNKED, _inputs  # noqa: E402

from helpers.equivalence import assert_pass_preserves  # noqa: E402

DEFAULT = NAMED_PIPELINES["default"]
KEEP = DEFAULT.replace(",eliminate-barriers", "")
"""The default pipeline without `eliminate-barriers`."""


def test_the_default_pipeline_ends_with_it():
    assert DEFAULT.endswith("canonicalize,eliminate-barriers") and "eliminate-barriers" not in KEEP


def _barriers_in_loops(program, pipeline: str) -> list[int]:
    """The `gpu.barrier`s in each top-level loop of the kernel with a barrier, after `pipeline`."""
    module = program.module.clone()
    run_pipeline(module, pipeline)
    (fn,) = [o for o in module.walk() if isinstance(o, gpu.FuncOp)]
    top = [o for o in fn.body.block.ops if isinstance(o, scf.ForOp)]
    counts = [sum(isinstance(b, gpu.BarrierOp) for b in loop.walk()) for loop in top]
    return [c for c in counts if c]


@pytest.mark.parametrize("name,kept,left", [
    # the stash's two (a trip takes one), two per reduction: before and after its write
    ("softmax", [6], [4]),
    ("layer_norm", [6], [4]),
    ("rms_norm", [2], [2]),  # sunk: only the stash's
])
def test_two_barriers_a_trip_leave_the_two_reduction_loops(name, kept, left):
    program = rk.KERNELS[name](50257, "f16")
    assert _barriers_in_loops(program, KEEP) == kept
    assert _barriers_in_loops(program, DEFAULT) == left


def _dst(program, pipeline: str, args) -> np.ndarray:
    lowered = program.module.clone()
    run_pipeline(lowered, pipeline)
    return np.asarray(tilec.run_reference(lowered, args)["dst"])


@pytest.mark.parametrize("name", list(CHUNKED))
@pytest.mark.parametrize("n,dtype", [(5001, "f32"), (2501, "f16")])
def test_no_bit_changes_and_no_race(name, n, dtype):
    """Rows in chunks of 1024, stashed and not 16-byte aligned: the same bits as with
    every barrier, and the reference executor finds no race in shared memory."""
    program = CHUNKED[name](n, dtype, chunk=1024)
    args, _ = _inputs(name, 2, n, dtype)
    assert np.array_equal(_dst(program, DEFAULT, args), _dst(program, KEEP, args), equal_nan=True)


@pytest.mark.parametrize("name", ["softmax", "layer_norm", "rms_norm", "cumsum"])
def test_one_tile_rows_no_race(name):
    """Rows in one tile (N = 3000: two reductions, or a scan, over warps): unchanged bits."""
    program = rk.KERNELS[name](3000, "f32")
    args, _ = _inputs(name, 2, 3000, "f32")
    assert np.array_equal(_dst(program, DEFAULT, args), _dst(program, KEEP, args), equal_nan=True)


def test_roots_alias_unless_allocated():
    """Two allocations are distinct; arguments may alias each other, not an allocation;
    an unknown access aliases everything; reads never conflict."""
    from xdsl.dialects.builtin import MemRefType, f32
    from xdsl.ir import Block

    blk = Block(arg_types=[MemRefType(f32, [4]), MemRefType(f32, [4])])
    a1, a2 = memref.AllocaOp.get(f32, shape=[4]), memref.AllocaOp.get(f32, shape=[4])
    x, y = blk.args
    r1, r2 = a1.results[0], a2.results[0]
    assert may_alias(r1, r1) and not may_alias(r1, r2) and not may_alias(x, r1) and may_alias(x, y)
    assert may_alias(None, r1)
    assert not conflict([Access(False, r1)], [Access(False, None)])
    assert conflict([Access(True, r1)], [Access(False, None)])
    assert not conflict([Access(True, r1)], [Access(True, r2)])


@pytest.mark.parametrize("name", ["softmax", "layer_norm"])
@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_compiles_under_nvrtc(name, dtype):
    lowered = rk.KERNELS[name](50257, dtype).module.clone()
    run_pipeline(lowered, DEFAULT)
    compile_sm90_or_skip(emit(lowered, "cuda"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reduce_cases())
def test_random_reductions_run_race_free_without_the_barriers_removed(case):
    """Random blocked layouts, axes, kinds and element types of test_reduce_lowering, once
    or twice in a loop (the partials' buffer reused): after `eliminate-barriers` the
    lowered program gives the same bits on the reference executor, which fails a run whose
    shared memory races between barriers; the barrier after the partials' write stays."""
    after = assert_pass_preserves(reduce_program(*case), "lower-to-gpu,eliminate-barriers", seeds=(0,))
    if any(isinstance(o, memref.AllocaOp) for o in after.walk()):
        assert any(isinstance(o, gpu.BarrierOp) for o in after.walk())
