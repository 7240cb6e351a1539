"""ldmatrix / stmatrix: the fragment ownership of the PTX ISA, the `cuda.ldmatrix` /
`cuda.stmatrix` verifiers, the plan (passes/_matrix_plan.py) and, for many register
and shared layouts, that whenever `lower-to-gpu` picks them the program still copies
exactly (CPU reference executor before and after, which models each instruction by
the ISA's figure)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from xdsl.dialects.builtin import MemRefType, bf16, f32, i32
from xdsl.dialects.test import TestOp as _Test
from xdsl.utils.exceptions import VerifyException

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects import cuda
from tilec.runtime.reference import random_inputs, run


def test_ldmatrix_fragment_is_the_isa_figure():
    """PTX ISA, "Matrix fragment for ldmatrix": lane l holds row l/4, columns
    2*(l%4) and 2*(l%4)+1; every element of the 8x8 matrix once."""
    seen = {}
    for lane, i in itertools.product(range(32), range(2)):
        r, c = cuda.ldmatrix_element(lane, i, False)
        assert (r, c) == (lane // 4, 2 * (lane % 4) + i)
        assert cuda.ldmatrix_element(lane, i, True) == (c, r)
        seen[(r, c)] = (lane, i)
    assert len(seen) == 64


def _values(t, n):
    return [_Test(result_types=[t]).results[0] for _ in range(n)]


def test_matrix_move_verifiers():
    smem = MemRefType(bf16, [256], memory_space=cuda.SHARED_MEMORY_SPACE)
    idx = _Test(result_types=[cuda.IndexType()]).results[0]
    m = _Test(result_types=[smem]).results[0]
    cuda.LdmatrixOp(m, idx, 4, True).verify()
    cuda.StmatrixOp(m, idx, _values(bf16, 4), 2, False).verify()
    with pytest.raises(VerifyException, match="moves 1, 2 or 4 matrices, got 3"):
        cuda.LdmatrixOp(m, idx, 3, False).verify()
    with pytest.raises(VerifyException, match="of 2 matrices takes 4 values, got 3"):
        cuda.StmatrixOp(m, idx, _values(bf16, 3), 2, False).verify()
    with pytest.raises(VerifyException, match="the values must be bf16"):
        cuda.StmatrixOp(m, idx, _values(i32, 2), 1, False).verify()
    gmem = _Test(result_types=[MemRefType(bf16, [256])]).results[0]
    with pytest.raises(VerifyException, match="needs a 1-D memref in shared memory"):
        cuda.LdmatrixOp(gmem, idx, 1, False).verify()
    wide = _Test(result_types=[MemRefType(f32, [256], memory_space=cuda.SHARED_MEMORY_SPACE)]).results[0]
    with pytest.raises(VerifyException, match="moves 16-bit elements, got f32"):
        cuda.LdmatrixOp(wide, idx, 1, False).verify()


def program(layout: str, threads: int, smem: str, m: int = 32, n: int = 32):
    """@f: an m x n bf16 tile loaded in `layout`, stored to a shared view laid out as
    `smem`, a barrier, loaded back in `layout` and stored to dst (layouts as attribute
    text, as the builder takes them)."""
    import tilec

    p = tilec.Program("f")
    g = p.view(p.pointer("src", "bf16", align=16), f"({m},{n}):({n},1)").named("g")
    h = p.view(p.pointer("dst", "bf16", align=16), f"({m},{n}):({n},1)").named("h")
    with p.launch(grid=(1, 1, 1), threads=threads):
        s = p.alloc(smem, "bf16", "smem").named("s")
        v = p.load(g, layout).named("v")
        p.store(v, s)
        p.barrier()
        p.store(p.load(s, layout).named("x"), h)
    return p.module


MMA = "#layout.nvidia_mma<version = 2, warpsPerCTA = [{w0}, {w1}], instrShape = [16, 8]>"
LAYOUTS = [
    (MMA.format(w0=2, w1=2), 128),
    (f"#layout.dot_op<opIdx = 0, parent = {MMA.format(w0=2, w1=1)}, kWidth = 2>", 64),
    (f"#layout.dot_op<opIdx = 1, parent = {MMA.format(w0=1, w1=2)}, kWidth = 2>", 64),
    ("#layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>", 128),
    ("#layout.blocked<{sizePerThread = [2, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 2], order = [0, 1]}>", 64),
    ("#layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 1], order = [1, 0]}>", 64),
]
SMEMS = [
    "#layout.cute<(32,32):(32,1)>",
    "#layout.cute<(32,32):(40,1)>",
    "#layout.cute<(32,32):(36,1)>",
    "#layout.cute<(32,32):(1,32)>",
    "#layout.cute<(32,32):(1,40)>",
    "#layout.composed<swizzle<2,3,3> o 0 o (32,32):(32,1)>",
    "#layout.composed<swizzle<3,3,3> o 0 o (32,32):(32,1)>",
]


@pytest.mark.parametrize("smem", SMEMS)
@pytest.mark.parametrize("layout, threads", LAYOUTS, ids=lambda x: str(x)[:40])
def test_lowered_shared_round_trip_copies_exactly(layout, threads, smem):
    """Through shared memory and back with the same register layout: ldmatrix and
    stmatrix when the plan allows (some combinations must use them), the result the
    CPU executor gives before lowering, bit for bit."""
    module = program(layout, threads, smem)
    inputs = random_inputs(module, seed=3)
    before = run(module, inputs)
    np.testing.assert_array_equal(before["dst"], np.asarray(inputs["src"]))
    run_pipeline(module, "lower-to-gpu")
    after = run(module, inputs)
    np.testing.assert_array_equal(after["dst"], before["dst"])
    text = str(module)
    stride = smem.split(":(")[1].split(")")[0]
    if stride in ("32,1", "40,1") and "sizePerThread = [1, 4]" not in layout and "[2, 1]" not in layout:
        # rows of pairs along the contiguous dim: always matrices
        assert "cuda.ldmatrix" in text and "cuda.stmatrix" in text, layout
    if stride == "36,1":
        assert "cuda.ldmatrix" not in text and "cuda.stmatrix" not in text


def test_plan_variants_and_reasons():
    """The plan of operand A over padded rows is plain ldmatrix.x4; of B over row-major
    K x N it is .trans; rows 72 bytes apart are refused with the reason."""
    import tilec
    from tilec.compiler.builder_types import encoding_attr
    from tilec.dialects.layout_attrs import to_linear
    from tilec.passes import _matrix_plan

    enc = encoding_attr(tilec.DotOperandLayout(0, tilec.NvidiaMmaLayout(2, [2, 1], [16, 8]), 2))
    ll = to_linear(enc, [32, 32])

    def plan(row: int, col: int):
        return _matrix_plan.plan(_matrix_plan.offsets(ll, [[(32, row)], [(32, col)]], None, 0))

    p, _ = plan(40, 1)
    assert (p.name, p.instructions) == ("x4", 2)
    p, _ = plan(1, 40)  # column-major A: each register pair runs down the rows
    assert p.name == "x4.trans"
    p, why = plan(36, 1)
    assert p is None and why == "rows do not start on 16-byte boundaries"


def test_fallback_is_said_for_tensor_core_layouts_only():
    """An f32 tile or a layout that is no tensor-core layout falls back silently; an
    operand layout that cannot use ldmatrix says why in the CUDA."""
    module = program(f"#layout.dot_op<opIdx = 0, parent = {MMA.format(w0=2, w1=1)}, kWidth = 2>", 64,
                     "#layout.cute<(32,32):(36,1)>")
    run_pipeline(module, "lower-to-gpu")
    cuda_text = emit(module, "cuda")
    assert (
        "// layout.load 32x32xbf16 from smem: no ldmatrix (rows do not start on 16-byte boundaries); "
        "ld.shared of 2 elements" in cuda_text
    )


@pytest.mark.parametrize("op_class, verb", [(cuda.LdmatrixOp, "reads"), (cuda.StmatrixOp, "writes")])
def test_a_matrix_row_address_past_shared_memory_is_an_error(op_class, verb):
    """The round trip's ldmatrix (stmatrix) with every row address moved past the
    end of its shared buffer: the executor refuses the access and says which thread
    reads (writes) where."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IndexType, IntegerAttr
    from xdsl.rewriter import InsertPoint, Rewriter

    from tilec.runtime.reference import ExecutionError

    layout, threads = LAYOUTS[0]
    module = program(layout, threads, SMEMS[0])
    inputs = random_inputs(module, seed=3)
    run_pipeline(module, "lower-to-gpu")
    op = next(o for o in module.walk() if isinstance(o, op_class))
    past = arith.ConstantOp(IntegerAttr(1024, IndexType()))
    Rewriter.insert_op(past, InsertPoint.before(op))
    op.operands = (op.mem, past.result, *op.operands[2:])
    with pytest.raises(ExecutionError, match=rf"thread 0 of block 0 .*{verb} a vector of 8 elements at \S+\[1024\], "
                                             r"outside a memref of shape \[1024\]"):
        run(module, inputs)
