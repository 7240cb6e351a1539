"""Pointer tensors (dialects/layout_ptr.py) on the CPU reference executor against NumPy,
through the default pipeline (`vectorize-pointers` sets the vector widths that the
executor checks), and compiled by NVRTC; the Gluon tutorial's memcpy kernels as
program builders (the GPU tests use them too)."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.nvrtc import compile_cuda
from tilec.runtime.reference import ExecutionError, random_inputs, run


def blocked(spt: list[int], tpw: list[int], wpc: list[int], order: list[int]) -> str:
    return f"#layout.blocked<{{sizePerThread = {spt}, threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>"


def memcpy_1d(
    xblock: int, r: int = 1, warps: int = 4, et: str = "f32", align: int = 16, other: str | None = None
) -> str:
    """The tutorial's memcpy_1d_kernel with BlockedLayout([r], [32], [warps], [0]);
    `other` (a float literal) fills the masked elements (it then copies a padded
    output: out has XBLOCK * grid elements)."""
    lay = blocked([r], [32], [warps], [0])
    P, Ii, M, F = (
        f"tensor<{xblock}x!layout.ptr<{et}>, {lay}>",
        f"tensor<{xblock}xi32, {lay}>",
        f"tensor<{xblock}xi1, {lay}>",
        f"tensor<{xblock}x{et}, {lay}>",
    )
    pt = f"!layout.ptr<{et}, align {align}>"
    if other is None:
        load = f"%value = layout.ptr_load %in_ptrs mask %mask : {M} : {P} -> {F}"
        store = f"layout.ptr_store %value, %out_ptrs mask %mask : {M} : {F}, {P}"
    else:
        load = (
            f"%o = arith.constant {other} : {et}\n"
            f"    %value = layout.ptr_load %in_ptrs, %o : {et} mask %mask : {M} : {P} -> {F}"
        )
        store = f"layout.ptr_store %value, %out_ptrs : {F}, {P}"
    return f"""
func.func @memcpy_1d(%in_ptr: {pt}, %out_ptr: {pt}, %xnumel: index) {{
  %XBLOCK = arith.constant {xblock} : index
  %grid = arith.ceildivui %xnumel, %XBLOCK : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%grid, %c1, %c1) threads({32 * warps}) {{
  ^bb0(%pid: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %pid : index to i32
    %xblock = arith.constant {xblock} : i32
    %start = arith.muli %pid32, %xblock : i32
    %indices = layout.arange {{start = 0 : i64, end = {xblock} : i64}} : {Ii}
    %starts = layout.splat %start : i32 -> {Ii}
    %offsets = arith.addi %starts, %indices : {Ii}
    %in = layout.splat %in_ptr : {pt} -> {P}
    %in_ptrs = layout.addptr %in, %offsets : {P}, {Ii}
    %n32 = arith.index_cast %xnumel : index to i32
    %n = layout.splat %n32 : i32 -> {Ii}
    %mask = layout.cmpi slt, %offsets, %n : {Ii}
    {load}
    %out = layout.splat %out_ptr : {pt} -> {P}
    %out_ptrs = layout.addptr %out, %offsets : {P}, {Ii}
    {store}
  }}
  func.return
}}
"""


def memcpy_2d(xblock: int, yblock: int, layout: str, warps: int = 4) -> str:
    """The tutorial's memcpy_2d_kernel (examples/gluon_memcpy_2d_ptr.mlir) for any
    block and layout; the extents and the strides (in elements) are arguments."""
    sx, sy = f"#layout.slice<{{dim = 1, parent = {layout}}}>", f"#layout.slice<{{dim = 0, parent = {layout}}}>"
    T = f"{xblock}x{yblock}"
    P, Ii, M, F = (
        f"tensor<{T}x!layout.ptr<f32>, {layout}>",
        f"tensor<{T}xi32, {layout}>",
        f"tensor<{T}xi1, {layout}>",
        f"tensor<{T}xf32, {layout}>",
    )
    pt = "!layout.ptr<f32, align 16>"
    lines = []
    for a in ("xsi", "ysi", "xso", "yso", "xn", "yn"):
        lines.append(f"%{a}_t = layout.splat %{a} : i32 -> {Ii}")
    splats = "\n    ".join(lines)
    return f"""
func.func @memcpy_2d(%in_ptr: {pt}, %out_ptr: {pt}, %xnumel: index, %ynumel: index,
                     %xstride_in: index, %ystride_in: index, %xstride_out: index, %ystride_out: index) {{
  %XBLOCK = arith.constant {xblock} : index
  %YBLOCK = arith.constant {yblock} : index
  %gx = arith.ceildivui %xnumel, %XBLOCK : index
  %gy = arith.ceildivui %ynumel, %YBLOCK : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%gx, %gy, %c1) threads({32 * warps}) {{
  ^bb0(%pid_x: index, %pid_y: index, %bz: index, %tid: index):
    %px = arith.index_cast %pid_x : index to i32
    %py = arith.index_cast %pid_y : index to i32
    %xblock = arith.constant {xblock} : i32
    %yblock = arith.constant {yblock} : i32
    %start_x = arith.muli %px, %xblock : i32
    %start_y = arith.muli %py, %yblock : i32
    %ax = layout.arange {{start = 0 : i64, end = {xblock} : i64}} : tensor<{xblock}xi32, {sx}>
    %ay = layout.arange {{start = 0 : i64, end = {yblock} : i64}} : tensor<{yblock}xi32, {sy}>
    %sx0 = layout.splat %start_x : i32 -> tensor<{xblock}xi32, {sx}>
    %sy0 = layout.splat %start_y : i32 -> tensor<{yblock}xi32, {sy}>
    %indices_x = arith.addi %sx0, %ax : tensor<{xblock}xi32, {sx}>
    %indices_y = arith.addi %sy0, %ay : tensor<{yblock}xi32, {sy}>
    %ix1 = layout.expand_dims %indices_x {{axis = 1 : i64}} : tensor<{xblock}xi32, {sx}> -> tensor<{xblock}x1xi32, {layout}>
    %iy1 = layout.expand_dims %indices_y {{axis = 0 : i64}} : tensor<{yblock}xi32, {sy}> -> tensor<1x{yblock}xi32, {layout}>
    %ix = layout.broadcast %ix1 : tensor<{xblock}x1xi32, {layout}> -> {Ii}
    %iy = layout.broadcast %iy1 : tensor<1x{yblock}xi32, {layout}> -> {Ii}
    %xsi = arith.index_cast %xstride_in : index to i32
    %ysi = arith.index_cast %ystride_in : index to i32
    %xso = arith.index_cast %xstride_out : index to i32
    %yso = arith.index_cast %ystride_out : index to i32
    %xn = arith.index_cast %xnumel : index to i32
    %yn = arith.index_cast %ynumel : index to i32
    {splats}
    %i0 = arith.muli %xsi_t, %ix : {Ii}
    %i1 = arith.muli %ysi_t, %iy : {Ii}
    %in_offsets = arith.addi %i0, %i1 : {Ii}
    %o0 = arith.muli %xso_t, %ix : {Ii}
    %o1 = arith.muli %yso_t, %iy : {Ii}
    %out_offsets = arith.addi %o0, %o1 : {Ii}
    %mx = layout.cmpi slt, %ix, %xn_t : {Ii}
    %my = layout.cmpi slt, %iy, %yn_t : {Ii}
    %mask = arith.andi %mx, %my : {M}
    %in = layout.splat %in_ptr : {pt} -> {P}
    %in_ptrs = layout.addptr %in, %in_offsets : {P}, {Ii}
    %value = layout.ptr_load %in_ptrs mask %mask : {M} : {P} -> {F}
    %out = layout.splat %out_ptr : {pt} -> {P}
    %out_ptrs = layout.addptr %out, %out_offsets : {P}, {Ii}
    layout.ptr_store %value, %out_ptrs mask %mask : {M} : {F}, {P}
  }}
  func.return
}}
"""


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


def _through_default(text: str, inputs: dict) -> dict:
    module = parse_module(text)
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
    out = _through_default(memcpy_1d(xblock, 4, other="-2.5"), {"in_ptr": x, "out_ptr": poison(1024), "xnumel": n})
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
    text = memcpy_1d(128).replace(
        " mask %mask : tensor<128xi1, #layout.blocked<{sizePerThread = [1], "
        "threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>",
        "",
    )
    assert "mask" not in text.split("%mask = ")[1].split("\n", 1)[1]
    with pytest.raises(
        ExecutionError, match="out-of-bounds access: .* reads element 200 of %in_ptr, which has 200 elements"
    ):
        run(text, {"in_ptr": np.zeros(200, np.float32), "out_ptr": poison(200), "xnumel": 200})


def _with_props(text: str, props: str) -> str:
    """The masked ptr_load of memcpy_1d with `props` (after its mask, before its types)."""
    head, load, tail = text.partition("layout.ptr_load %in_ptrs mask %mask : ")
    mask_type, rest = tail.split(" : ", 1)
    return f"{head}{load}{mask_type} {props} : {rest}"


def test_uniform_mask_that_is_not_uniform_is_an_error():
    """The executor checks `uniform_mask` (what vectorize-pointers claims)."""
    text = _with_props(memcpy_1d(512, 4), "{vector = 4 : i64, uniform_mask}")
    with pytest.raises(ExecutionError, match="uniform_mask: the mask differs within a vector of 4"):
        run(text, {"in_ptr": np.zeros(1001, np.float32), "out_ptr": poison(1001), "xnumel": 1001})


def test_misaligned_vector_is_an_error():
    """A vector claimed on an address that is not a multiple of its size: an error."""
    text = (
        memcpy_1d(512, 4)
        .replace(
            "%starts = layout.splat %start",
            "%start1 = arith.addi %start, %one : i32\n    %starts = layout.splat %start1",
        )
        .replace(
            "%start = arith.muli %pid32, %xblock : i32",
            "%start = arith.muli %pid32, %xblock : i32\n    %one = arith.constant 1 : i32",
        )
    )
    text = _with_props(text, "{vector = 4 : i64}")
    with pytest.raises(ExecutionError, match="misaligned vector access"):
        run(text, {"in_ptr": np.zeros(1024, np.float32), "out_ptr": poison(1024), "xnumel": 1000})


def test_scalar_addptr_moves_the_base():
    """`x_ptr += pid * stride` on a scalar pointer, then a tensor of offsets from it."""
    lay = blocked([1], [32], [1], [0])
    text = f"""
func.func @rows(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {{
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c1, %c1) threads(32) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %row = arith.index_cast %bx : index to i64
    %stride = arith.constant 32 : i64
    %o = arith.muli %row, %stride : i64
    %s = layout.addptr %src, %o : !layout.ptr<f32, align 16>, i64
    %d = layout.addptr %dst, %o : !layout.ptr<f32, align 16>, i64
    %ps = layout.splat %s : !layout.ptr<f32> -> tensor<32x!layout.ptr<f32>, {lay}>
    %pd = layout.splat %d : !layout.ptr<f32> -> tensor<32x!layout.ptr<f32>, {lay}>
    %i = layout.arange {{start = 0 : i64, end = 32 : i64}} : tensor<32xi32, {lay}>
    %rev = arith.constant dense<31> : tensor<32xi32, {lay}>
    %j = arith.subi %rev, %i : tensor<32xi32, {lay}>
    %qs = layout.addptr %ps, %j : tensor<32x!layout.ptr<f32>, {lay}>, tensor<32xi32, {lay}>
    %qd = layout.addptr %pd, %i : tensor<32x!layout.ptr<f32>, {lay}>, tensor<32xi32, {lay}>
    %v = layout.ptr_load %qs : tensor<32x!layout.ptr<f32>, {lay}> -> tensor<32xf32, {lay}>
    layout.ptr_store %v, %qd : tensor<32xf32, {lay}>, tensor<32x!layout.ptr<f32>, {lay}>
  }}
  func.return
}}
"""
    x = np.arange(128, dtype=np.float32)
    out = _through_default(text, {"src": x, "dst": poison(128)})
    np.testing.assert_array_equal(out["dst"], x.reshape(4, 32)[:, ::-1].reshape(-1))


def test_inputs_and_outputs_follow_the_pointers():
    """random_inputs poisons the buffer only stored through (followed through splat and
    addptr) and fills the one loaded from."""
    module = parse_module(memcpy_1d(128))
    ins = random_inputs(module, seed=0, args={"xnumel": 300}, sizes={"in_ptr": 300, "out_ptr": 300})
    assert np.isnan(ins["out_ptr"]).all() and np.isfinite(ins["in_ptr"]).all()


def _promised(text: str) -> str:
    """memcpy_1d with xnumel promised a multiple of 16 (Triton's multiple_of)."""
    return text.replace(
        "%n32 = arith.index_cast %xnumel : index to i32",
        "%n0 = arith.index_cast %xnumel : index to i32\n    %n32 = layout.multiple_of %n0 {divisor = 16 : i64} : i32",
    )


def test_multiple_of_makes_the_mask_uniform_over_vectors():
    """With xnumel promised a multiple of 16, `offsets < xnumel` is the same over each
    vector of 4: one predicate per vector, and the copy is still exact."""
    module = parse_module(_promised(memcpy_1d(512, 4)))
    run_pipeline(module, "vectorize-pointers")
    loads = [o for o in module.walk() if o.name == "layout.ptr_load"]
    assert loads[0].uniform_mask is not None and loads[0].vector.value.data == 4
    x = np.random.default_rng(4).standard_normal(1008).astype(np.float32)
    out = _through_default(_promised(memcpy_1d(512, 4)), {"in_ptr": x, "out_ptr": poison(1008), "xnumel": 1008})
    np.testing.assert_array_equal(out["out_ptr"], x)


def test_a_broken_multiple_of_promise_is_an_error():
    with pytest.raises(ExecutionError, match="layout.multiple_of: the value is 1001, not a multiple of 16 as promised"):
        run(
            _promised(memcpy_1d(512, 4)),
            {"in_ptr": np.zeros(1001, np.float32), "out_ptr": poison(1001), "xnumel": 1001},
        )
