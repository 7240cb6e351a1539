"""Pointer tensors (dialects/layout_ptr.py) on the CPU reference executor against NumPy,
through the default pipeline (`vectorize-pointers` sets the vector widths that the
executor checks), and compiled by NVRTC; the Gluon tutorial's memcpy kernels as
program builders (the GPU tests use them too)."""

from __future__ import annotations

import numpy as np
import pytest

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, UnitAttr

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.dialects.distributed import BlockedLayout, SliceLayout
from tilec.dialects.layout_ptr import PtrPrefetchOp
from tilec.runtime.nvrtc import compile_cuda
from tilec.runtime.reference import ExecutionError, random_inputs, run


def blocked(spt: list[int], tpw: list[int], wpc: list[int], order: list[int]) -> BlockedLayout:
    return BlockedLayout(spt, tpw, wpc, order)


def _ceil_div(p, n, block):
    """`arith.ceildivui n, block` (index; the builder has no method for it)."""
    return p.insert(arith.CeilDivUIOp(n.ssa, block.ssa)).results[0]


def memcpy_1d(
    xblock: int, r: int = 1, warps: int = 4, et: str = "f32", align: int = 16, other: float | None = None,
    masked: bool = True, start_offset: int = 0, promised: bool = False, load_props: dict | None = None,
    prefetch: bool = False,
):
    """The tutorial's memcpy_1d_kernel with BlockedLayout([r], [32], [warps], [0]) (a
    module built with `tilec.Program`); `other` fills the masked elements (it then
    copies a padded output: out has XBLOCK * grid elements). For the executor's
    checks: `masked=False` drops the mask, `start_offset` moves each block's start,
    `promised` states xnumel a multiple of 16 (`layout.multiple_of`), `load_props`
    are properties set on the load (`vector`, `uniform_mask`, as vectorize-pointers
    sets them), `prefetch` asks L2 for out's elements first (`layout.ptr_prefetch`, with
    the mask)."""
    import tilec

    lay = blocked([r], [32], [warps], [0])
    p = tilec.Program("memcpy_1d")
    in_ptr, out_ptr = p.pointer("in_ptr", et, align=align), p.pointer("out_ptr", et, align=align)
    xnumel = p.index("xnumel")
    grid = _ceil_div(p, xnumel, p.constant(xblock).named("XBLOCK")).named("grid")
    with p.launch(grid=(grid, 1, 1), threads=32 * warps) as k:
        start = (k.bx.cast("i32") * p.constant(xblock, "i32")).named("start")
        if start_offset:
            start = start + start_offset
        offsets = (p.splat(start, [xblock], lay) + p.arange(0, xblock, lay)).named("offsets")
        n32 = xnumel.cast("i32")
        if promised:
            n32 = p.multiple_of(n32, 16)
        mask = (offsets < n32).named("mask") if masked else None
        if prefetch:
            p.insert(PtrPrefetchOp(p.addptr(out_ptr, offsets).ssa, mask.ssa if mask is not None else None))
        value = p.ptr_load(p.addptr(in_ptr, offsets), mask=mask, other=other).named("value")
        for name, v in (load_props or {}).items():
            value.ssa.owner.properties[name] = UnitAttr() if v is True else IntegerAttr(v, 64)
        p.ptr_store(p.addptr(out_ptr, offsets), value, mask=mask if other is None else None)
    return p.module


def memcpy_2d(xblock: int, yblock: int, layout, warps: int = 4, align: int | None = 16):
    """The tutorial's memcpy_2d_kernel (examples/gluon_memcpy_2d_ptr.mlir) for any
    block and layout (a module built with `tilec.Program`); the extents and the strides
    (in elements) are arguments; `align`: the pointers' promised alignment (None: the
    element's, nothing promised)."""
    import tilec

    p = tilec.Program("memcpy_2d")
    in_ptr, out_ptr = p.pointer("in_ptr", "f32", align=align), p.pointer("out_ptr", "f32", align=align)
    xnumel, ynumel = p.index("xnumel"), p.index("ynumel")
    strides = [p.index(n) for n in ("xstride_in", "ystride_in", "xstride_out", "ystride_out")]
    gx = _ceil_div(p, xnumel, p.constant(xblock).named("XBLOCK"))
    gy = _ceil_div(p, ynumel, p.constant(yblock).named("YBLOCK"))
    sx, sy = SliceLayout(1, layout), SliceLayout(0, layout)
    with p.launch(grid=(gx, gy, 1), threads=32 * warps) as k:
        start_x = k.bx.cast("i32") * p.constant(xblock, "i32")
        start_y = k.by.cast("i32") * p.constant(yblock, "i32")
        ix = p.expand_dims(p.splat(start_x, [xblock], sx) + p.arange(0, xblock, sx), 1)
        iy = p.expand_dims(p.splat(start_y, [yblock], sy) + p.arange(0, yblock, sy), 0)
        ix, iy = p.broadcast(ix, [xblock, yblock]), p.broadcast(iy, [xblock, yblock])
        xsi, ysi, xso, yso = (v.cast("i32") for v in strides)
        in_offsets = xsi * ix + ysi * iy
        out_offsets = xso * ix + yso * iy
        mask = (ix < xnumel.cast("i32")) & (iy < ynumel.cast("i32"))
        value = p.ptr_load(p.addptr(in_ptr, in_offsets), mask=mask)
        p.ptr_store(p.addptr(out_ptr, out_offsets), value, mask=mask)
    return p.module


def poison(n: int, dtype=np.float32) -> np.ndarray:
    from tilec.runtime.reference.api import poison_value

    return np.full(n, poison_value(np.dtype(dtype)), dtype=dtype)


def memcpy_2d_args(xnumel: int, ynumel: int, transposed: bool) -> dict:
    """Strides of the tutorial's test: row-major, or `input.T` / `output.T` of a
    row-major (ynumel, xnumel) tensor."""
    s = (1, xnumel) if transposed else (ynumel, 1)
    return {
        "xnumel": xnumel,
        "ynumel": ynumel,
        "xstride_in": s[0],
        "ystride_in": s[1],
        "xstride_out": s[0],
        "ystride_out": s[1],
    }


def _through_default(program, inputs: dict) -> dict:
    module = parse_module(program) if isinstance(program, str) else program.clone()
    before = run(module, inputs)
    run_pipeline(module, "default")
    after = run(module, inputs)
    for k in before:
        np.testing.assert_array_equal(before[k], after[k])
    assert len(compile_cuda(emit(module, "cuda"), arch="sm_90").cubin) > 0
    return before


@pytest.mark.parametrize("xblock", [128, 256])
@pytest.mark.parametrize("xnumel", [200, 1000])
@pytest.mark.parametrize("r", [1, 4])
def test_memcpy_1d_copies_exactly(xblock, xnumel, r):
    """The tutorial's test_memcpy_1d (and the R=4 layout of its benchmark)."""
    xblock = max(xblock, 32 * 4 * r)
    x = np.random.default_rng(0).standard_normal(xnumel).astype(np.float32)
    out = _through_default(memcpy_1d(xblock, r), {"in_ptr": x, "out_ptr": poison(xnumel), "xnumel": xnumel})
    np.testing.assert_array_equal(out["out_ptr"], x)


def test_masked_elements_are_other():
    """`other` fills the masked elements: out[i] = in[i] for i < n, else other."""
    n, xblock = 1000, 512
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    out = _through_default(memcpy_1d(xblock, 4, other=-2.5), {"in_ptr": x, "out_ptr": poison(1024), "xnumel": n})
    np.testing.assert_array_equal(out["out_ptr"], np.concatenate([x, np.full(24, -2.5, np.float32)]))


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("shape", [(100, 200), (40, 300)])
def test_memcpy_2d_copies_exactly(shape, transposed):
    """The tutorial's test_memcpy_2d (smaller blocks: the executor runs every thread)."""
    xn, yn = shape
    lay = blocked([1, 1], [1, 32], [1, 4], [1, 0])
    x = np.random.default_rng(2).standard_normal(xn * yn).astype(np.float32)
    args = memcpy_2d_args(xn, yn, transposed)
    out = _through_default(memcpy_2d(16, 128, lay), dict(in_ptr=x, out_ptr=poison(xn * yn), **args))
    np.testing.assert_array_equal(out["out_ptr"], x)


def test_unmasked_access_outside_the_buffer_is_an_error():
    """Without a mask the last block reads past xnumel: an error naming the thread."""
    with pytest.raises(
        ExecutionError, match="out-of-bounds access: .* reads element 200 of %in_ptr, which has 200 elements"
    ):
        run(memcpy_1d(128, masked=False), {"in_ptr": np.zeros(200, np.float32), "out_ptr": poison(200), "xnumel": 200})


def test_ptr_prefetch_changes_nothing_in_bounds():
    """`layout.ptr_prefetch` of out's elements under the mask reads and changes nothing:
    the copy is exact before and after the default pipeline (as `cuda.prefetch_global_l2`
    behind the lowering's guards, each element checked inside its buffer there too)."""
    n = 1000
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    module = memcpy_1d(256, prefetch=True)
    out = _through_default(module, {"in_ptr": x, "out_ptr": poison(n), "xnumel": n})
    np.testing.assert_array_equal(out["out_ptr"], x)
    lowered = module.clone()
    run_pipeline(lowered, "default")
    assert "cuda.prefetch_global_l2" in str(lowered)


def test_ptr_prefetch_outside_the_buffer_is_an_error():
    """Without a mask the last block asks L2 for elements past xnumel: the same error as
    a load's (the prefetch is the kernel's first access), not a hint to another
    allocation's sector."""
    with pytest.raises(
        ExecutionError, match="out-of-bounds access: .* prefetches element 200 of %out_ptr, which has 200 elements"
    ):
        run(memcpy_1d(128, masked=False, prefetch=True),
            {"in_ptr": np.zeros(200, np.float32), "out_ptr": poison(200), "xnumel": 200})


def test_uniform_mask_that_is_not_uniform_is_an_error():
    """The executor checks `uniform_mask` (what vectorize-pointers claims)."""
    module = memcpy_1d(512, 4, load_props={"vector": 4, "uniform_mask": True})
    with pytest.raises(ExecutionError, match="uniform_mask: the mask differs within a vector of 4"):
        run(module, {"in_ptr": np.zeros(1001, np.float32), "out_ptr": poison(1001), "xnumel": 1001})


def test_misaligned_vector_is_an_error():
    """A vector claimed on an address that is not a multiple of its size: an error."""
    module = memcpy_1d(512, 4, start_offset=1, load_props={"vector": 4})
    with pytest.raises(ExecutionError, match="misaligned vector access"):
        run(module, {"in_ptr": np.zeros(1024, np.float32), "out_ptr": poison(1024), "xnumel": 1000})


def test_scalar_addptr_moves_the_base():
    """`x_ptr += pid * stride` on a scalar pointer, then a tensor of offsets from it."""
    import tilec

    lay = blocked([1], [32], [1], [0])
    p = tilec.Program("rows")
    src, dst = p.pointer("src", "f32", align=16), p.pointer("dst", "f32", align=16)
    with p.launch(grid=(4, 1, 1), threads=32) as k:
        o = k.bx.cast("i64") * p.constant(32, "i64")
        s, d = p.addptr(src, o), p.addptr(dst, o)
        i = p.arange(0, 32, lay)
        j = p.full([32], 31, "i32", lay, dense=True) - i
        p.ptr_store(p.addptr(d, i), p.ptr_load(p.addptr(s, j)))
    assert str(p.module).count("layout.addptr") == 4
    x = np.arange(128, dtype=np.float32)
    out = _through_default(p.module, {"src": x, "dst": poison(128)})
    np.testing.assert_array_equal(out["dst"], x.reshape(4, 32)[:, ::-1].reshape(-1))


def test_inputs_and_outputs_follow_the_pointers():
    """random_inputs poisons the buffer only stored through (followed through splat and
    addptr) and fills the one loaded from."""
    module = memcpy_1d(128)
    ins = random_inputs(module, seed=0, args={"xnumel": 300}, sizes={"in_ptr": 300, "out_ptr": 300})
    assert np.isnan(ins["out_ptr"]).all() and np.isfinite(ins["in_ptr"]).all()


def test_multiple_of_makes_the_mask_uniform_over_vectors():
    """With xnumel promised a multiple of 16, `offsets < xnumel` is the same over each
    vector of 4: one predicate per vector, and the copy is still exact."""
    module = memcpy_1d(512, 4, promised=True)
    run_pipeline(module, "vectorize-pointers")
    loads = [o for o in module.walk() if o.name == "layout.ptr_load"]
    assert loads[0].uniform_mask is not None and loads[0].vector.value.data == 4
    x = np.random.default_rng(4).standard_normal(1008).astype(np.float32)
    out = _through_default(memcpy_1d(512, 4, promised=True), {"in_ptr": x, "out_ptr": poison(1008), "xnumel": 1008})
    np.testing.assert_array_equal(out["out_ptr"], x)


def test_a_broken_multiple_of_promise_is_an_error():
    with pytest.raises(ExecutionError, match="layout.multiple_of: the value is 1001, not a multiple of 16 as promised"):
        run(
            memcpy_1d(512, 4, promised=True),
            {"in_ptr": np.zeros(1001, np.float32), "out_ptr": poison(1001), "xnumel": 1001},
        )
