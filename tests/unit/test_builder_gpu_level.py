"""`GpuProgram` (compiler/builder_gpu_level.py): every method builds the GPU-level op it
names; the programs run on the reference executor as NumPy says, their CUDA compiles
under NVRTC, and mistakes are located errors at the test's own line."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from tilec.compiler.builder_gpu_level import ARGS_ATTR, GpuProgram
from tilec.compiler.pipeline import emit
from tilec.runtime.reference import ARGS_ATTR as READ_ATTR
from tilec.runtime.reference import random_inputs, run
from tilec.support.diagnostics import TilecError

from helpers.nvrtc import compile_sm90_or_skip


def every_method() -> GpuProgram:
    """dst[i] = src of the lane 31 - lane of i's warp, staged through shared memory by
    cp.async, plus 1.0 from a register array and a vector: each method used once."""
    g = GpuProgram("everything")
    g.buffer("src", "f32", 256)
    g.buffer("dst", "f32")
    g.index("n", value=256)
    with g.kernel(grid=2, block=128) as (src, dst, n):
        tid, bid, bdim = g.thread_id("x"), g.block_id("x"), g.block_dim("x")
        assert str(g.grid_dim("y").type) == "index"
        gid = (bid * bdim + tid).named("gid")
        stage = g.alloca(128, "f32").named("stage")                  # shared
        g.cp_async(stage, tid, src, gid, 4)
        g.cp_async_commit()
        g.cp_async_wait(0)
        g.barrier()
        x = stage[tid]
        y = g.shfl_idx(x, (31 - g.lane_id()).cast("i32"))
        ones = g.alloca(4, "f32", "rmem").named("ones")
        with g.range(0, 4) as k:
            ones[k] = 1.0
        v = g.splat(y, 4) + ones.load(4, 0)                           # vector.load of registers
        scratch = g.alloca(4, "f32", None)
        scratch.store(4, 0, v)
        with g.if_(gid < n):
            dst[gid] = scratch[tid % 4]
    return g


def test_every_method_builds_its_op_and_runs():
    m = every_method().module
    names = {op.name for op in m.walk()}
    for op in ("gpu.launch_func", "gpu.module", "gpu.func", "gpu.thread_id", "gpu.block_id", "gpu.block_dim",
               "gpu.grid_dim", "gpu.lane_id", "gpu.barrier", "gpu.return", "memref.alloca", "memref.load",
               "memref.store", "vector.load", "vector.store", "vector.broadcast", "cuda.cp_async",
               "cuda.cp_async_commit", "cuda.cp_async_wait", "cuda.shfl_idx", "scf.for", "scf.if"):
        assert op in names, op
    assert m.attributes.get("gpu.container_module") is not None
    src = np.arange(256, dtype=np.float32)
    inputs = random_inputs(m, 0, sizes={"dst": 256})
    inputs["src"] = src
    assert inputs["n"] == 256  # from tilec.args
    out = run(m, inputs)
    lanes = np.arange(256)
    assert np.array_equal(out["dst"], src[lanes - lanes % 32 + 31 - lanes % 32] + np.float32(1))


def test_the_args_attribute_is_the_one_the_executor_reads():
    assert ARGS_ATTR == READ_ATTR


def test_the_cuda_of_a_built_program_compiles():
    m = every_method().module
    text = emit(m, "cuda")
    assert "__shfl_sync" in text and "__syncthreads" in text
    compile_sm90_or_skip(text)


def test_memory_spaces_and_known_block_size():
    g = GpuProgram("f")
    g.buffer("a", "i32", 64)
    with g.kernel(grid=(1, 1, 1), block=(8, 8)):
        assert str(g.alloca(64, "i32").type) == "memref<64xi32, 3 : i64>"
        assert str(g.alloca(4, "f16", "rmem").type) == "memref<4xf16, 5 : i64>"
        assert str(g.alloca(4, "f16", None).type) == "memref<4xf16>"
    with g.kernel(grid=1, block=64, name="g", module="other", known_block_size=(32, 1, 1)):
        pass
    text = str(g.module)
    assert "gpu.known_block_size = array<i32: 8, 8, 1>" in text
    assert "gpu.known_block_size = array<i32: 32, 1, 1>" in text
    assert '"gpu.module"() <{sym_name = "other"}>' in text and "kernel = @other::@g" in text


def test_mistakes_are_located_errors():
    g = GpuProgram("f")
    g.buffer("a")
    with pytest.raises(TilecError) as e:
        line = inspect.currentframe().f_lineno + 1
        g.buffer("a")
    assert str(e.value).startswith(f"{__file__}:{line}:") and "argument name 'a' is taken" in str(e.value)
    with g.kernel(grid=1, block=32) as (a,):
        with pytest.raises(TilecError) as e:
            line = inspect.currentframe().f_lineno + 1
            g.thread_id("w")
        assert str(e.value).startswith(f"{__file__}:{line}:") and "expected 'x', 'y' or 'z'" in str(e.value)
        with pytest.raises(TilecError, match="memory space 'gmem': expected 'smem', 'rmem' or None"):
            g.alloca(4, "f32", "gmem")
        with pytest.raises(TilecError, match="a grid or block has 1 to 3 extents"):
            with g.kernel(grid=(1, 1, 1, 1)):
                pass


def test_vector_lanes_masks_and_subviews():
    """create_mask / masked_load / masked_store over a 10-element tail, vector_extract /
    vector_insert swapping lanes 0 and 3, subview of a row, ceildivui of the grid: each
    builds its op and the program computes what NumPy says."""
    g = GpuProgram("lanes")
    g.buffer("src", "f32", 16)
    g.buffer("dst", "f32", 16)
    n = g.index("n", value=10)
    blocks = g.ceildivui(n, 4)
    with g.kernel(grid=blocks, block=1) as (src, dst, n):
        i = g.block_id("x") * 4
        row = g.subview(src, i, 4)
        mask = g.create_mask(n - i, 4)
        v = g.masked_load(row, 0, mask, g.splat(g.constant(-1.0, "f32"), 4))
        first, last = g.vector_extract(v, 0), g.vector_extract(v, g.constant(3))
        w = g.vector_insert(last, g.vector_insert(first, v, 3), 0)
        g.masked_store(dst, i, mask, w)
    m = g.module
    names = {op.name for op in m.walk()}
    for op in ("arith.ceildivui", "memref.subview", "vector.create_mask", "vector.maskedload", "vector.maskedstore",
               "vector.extract", "vector.insert"):
        assert op in names, op
    src = np.arange(16, dtype=np.float32)
    out = run(m, {"src": src, "dst": np.full(16, 7, np.float32), "n": 10})["dst"]
    want = np.full(16, 7, np.float32)
    for b in range(3):  # ceil(10 / 4) blocks
        lanes = [x if b * 4 + k < 10 else -1.0 for k, x in enumerate(src[b * 4:b * 4 + 4])]
        lanes[0], lanes[3] = lanes[3], lanes[0]
        for k in range(4):
            if b * 4 + k < 10:
                want[b * 4 + k] = lanes[k]
    assert np.array_equal(out, want)
