"""compiler/index_bounds.py: the largest index arguments for which every index value of a
kernel fits in 32 bits, and `tilec.compile`'s 32-bit twin of a kernel with run-time sizes
(`IndexWidthKernel`): the limits are those of the index arithmetic written out by hand,
the analysis gives up where it cannot bound a value, each call picks its kernel by its
arguments, and both kernels compute the same (CPU reference executor; NVRTC compiles the
32-bit one)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec.compiler.index_bounds import index_limit
from tilec.compiler.builder_gpu_level import GpuProgram

from xdsl.dialects.builtin import IndexType, ModuleOp
from tilec.compiling import IndexWidthKernel

sys.path.insert(0, str(Path(__file__).parents[2] / "examples" / "python"))
sys.path.insert(0, str(Path(__file__).parents[1]))
sys.path.insert(0, str(Path(__file__).parents[1] / "helpers"))
import gpu_level_samples as S  # noqa: E402
import row_kernels as rk  # noqa: E402
from nvrtc import compile_sm90_or_skip  # noqa: E402


def test_a_copy_fits_while_its_last_vector_end_does():
    """copy_1d over n f32 (blocks of 256 threads x 4): the largest value is a vector's
    end, `bid * 1024 + tid * 4 + 4` <= ceil(n / 1024) * 1024: at n = 2^31 - 1 that is 2^31,
    one past; at n = 2^30 - 1 it fits."""
    assert index_limit(S.copy_1d("f32")) == 2**30 - 1


def _kernel_module(body) -> ModuleOp:
    """A host function @k(buf: memref<?xindex>, n) launching n blocks of 32 threads of
    `body(g, buf, n)`."""
    g = GpuProgram("k")
    g.buffer("buf", IndexType())
    grid = g.index("n")
    with g.kernel(grid=grid, block=32, name="k_kernel", module="k_kernels") as (buf, n):
        body(g, buf, n)
    return g.module


def test_an_index_loaded_from_memory_keeps_64_bits():
    def body(g, buf, n):
        tid = g.thread_id("x").named("tid")
        buf[tid] = buf[tid] + tid

    assert index_limit(_kernel_module(body)) == 0


def test_an_index_carried_by_a_loop_keeps_64_bits():
    def body(g, buf, n):
        tid = g.thread_id("x").named("tid")
        acc = g.constant(0).named("acc")
        with g.range(0, n, carry=[acc]) as i:
            acc += i
        buf[tid] = acc

    assert index_limit(_kernel_module(body)) == 0


def test_a_product_of_block_ids_is_bounded_by_both_grids():
    """`bid * bid`: n blocks give values up to (n - 1)^2, so n <= 2^15 + 1 fits; the
    limit is the largest 2^k - 1 below: 2^15 - 1."""
    def body(g, buf, n):
        bid = g.block_id("x").named("bid")
        buf[bid] = bid * bid

    assert index_limit(_kernel_module(body)) == 2**15 - 1


@pytest.mark.parametrize("n", [768, 1001, 3072, 8192])
def test_a_row_kernel_runs_in_32_bits_while_m_times_n_fits(n):
    """The user's softmax over M rows of N: offsets up to M * N + the tile's overhang, so
    the limit is the largest 2^k - 1 with 2^k * N within 2^31 (give or take the tile)."""
    k = tilec.compile(rk.softmax(n, "f16"))
    assert isinstance(k, IndexWidthKernel)
    limit = k.limit
    assert limit + 1 & limit == 0 and (limit + 1) * n <= 2**31 < 4 * (limit + 1) * n
    assert k.specialization(None, None, limit) is k.narrow
    assert k.specialization(None, None, limit + 1) is k.generic
    assert k.specialization(None, None, -1) is k.generic
    assert "long long m" in k.source and "int m" in k.narrow.source
    compile_sm90_or_skip(k.narrow.source)


@pytest.mark.parametrize("name,n,dtype", [("softmax", 1001, "f16"), ("layer_norm", 768, "f32"),
                                          ("cumsum", 3072, "f16"), ("softmax", 50257, "f32")])
def test_the_32_bit_kernel_computes_what_the_64_bit_one_does(name, n, dtype):
    """On the CPU reference executor (the 32-bit module under its promise: every index
    value is checked to fit), exactly the same outputs."""
    m = 3
    program = rk.KERNELS[name](n, dtype)
    k = tilec.compile(program)
    assert isinstance(k, IndexWidthKernel)
    nd = {"f32": np.float32, "f16": np.float16}[dtype]
    rng = np.random.default_rng(n)
    args = {"src": rng.standard_normal(m * n).astype(nd), "dst": np.zeros(m * n, nd), "m": m}
    if name == "layer_norm":
        args["weight"] = rng.standard_normal(n).astype(nd)
        args["bias"] = rng.standard_normal(n).astype(nd)
    wide = tilec.run_reference(k, args)["dst"]
    narrow = tilec.run_reference(k.narrow, args)["dst"]
    assert np.array_equal(wide, narrow) and np.isfinite(narrow).all()


def test_static_sizes_need_no_twin():
    """A kernel whose buffers have static sizes under 2^31 is 32-bit already: an index
    argument (the grid) gets no twin."""
    from tilec.compiler.builder import Program
    from tilec.runtime.launch import Kernel

    p = Program("rows")
    src, dst = p.pointer("src", "f32", align=16), p.pointer("dst", "f32", align=16)
    m = p.index("m")
    a, b = p.view(src, "(8,768):(768,1)"), p.view(dst, "(8,768):(768,1)")
    with p.launch(grid=(m, 1, 1), threads=128) as k:
        p.copy(p.tile(a, [k.bx, 0], [1, 768]), p.tile(b, [k.bx, 0], [1, 768]))
    kernel = tilec.compile(p)
    assert isinstance(kernel, Kernel) and all(i.index_bits == 32 for i in kernel.infos.values())


def test_indices_in_a_vector_keep_64_bits():
    """A vector of indices is not bounded element by element: the analysis gives up."""
    def body(g, buf, n):
        tid = g.thread_id("x").named("tid")
        buf[tid] = g.vector_extract(g.splat(tid, 4), 0)

    assert index_limit(_kernel_module(body)) == 0


@pytest.mark.parametrize("name", list(rk.KERNELS))
@pytest.mark.parametrize("n,dtype", [(1000, "bf16"), (50257, "f32")])
def test_every_row_kernel_has_a_32_bit_twin_nvrtc_compiles(name, n, dtype):
    k = tilec.compile(rk.KERNELS[name](n, dtype))
    assert isinstance(k, IndexWidthKernel) and (k.limit + 1) * n <= 2**31
    compile_sm90_or_skip(k.narrow.source)
