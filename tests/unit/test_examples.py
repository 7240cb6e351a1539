"""Every example parses, runs on the CPU reference executor with the result a NumPy
expression says it should have, keeps that result through the default pipeline, and
compiles through NVRTC for sm_90 (no GPU needed)."""

import re
from pathlib import Path

import numpy as np
import pytest

from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from tilec.runtime.nvrtc import compile_cuda, needs_arch_specific
from tilec.runtime.reference import random_inputs, run

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.mlir"))

# what each example computes, as NumPy on the flat input buffer
EXPECTED = {
    "transpose.mlir": lambda src: src.reshape(1024, 1024).T.reshape(-1),
    "transpose_odd.mlir": lambda src: src.reshape(1021, 1027).T.reshape(-1),
    "memcpy_1d.mlir": lambda src: src,
    "mojo_tiled_iterator.mlir": lambda src: src,
    # the view reaches row 1022 only: the buffer is the cosize, 511 * 1024 + 512
    "strided_rows.mlir": lambda src: np.pad(src, (0, 1024 * 512 - src.size)).reshape(1024, 512)[::2].reshape(-1),
    "gluon_memcpy_2d.mlir": lambda src: src,
    "gluon_in_out_layouts.mlir": lambda src: src.reshape(256, 256).T.reshape(-1),
    "add_one.mlir": lambda src: src + np.float32(1),
    "mojo_tile_vectorize_distribute.mlir": lambda src: src,
    # dst holds two copies, one written by each of the two launches
    "cute_local_tile_partition.mlir": lambda src: np.concatenate([src, src]),
    "cute_tiled_copy_registers.mlir": lambda src: src,
    "cute_predication.mlir": lambda src: src,
    "gluon_memcpy_1d_ptr.mlir": lambda src: src,
    "gluon_memcpy_2d_ptr.mlir": lambda src: src,
    # input.T copied to output.T: in memory, a plain copy
    "gluon_memcpy_2d_wrong_layout.mlir": lambda src: src,
    "swizzled_smem.mlir": lambda src: src.reshape(256, 256).T.reshape(-1),
    # dst[j, i] = bf16(0.5 * src[i, j]), as bf16 bits (round to nearest even)
    "permute_cast_scale.mlir": lambda src: _bf16((src.reshape(1024, 1024).T * np.float32(0.5)).reshape(-1)),
    "cumsum.mlir": None,
    "softmax.mlir": None,
    "layernorm.mlir": None,
    "gemm_bf16.mlir": None,
    "gemm_bf16_hopper.mlir": None,
    "gemm_bf16_hopper_ws.mlir": None,
}

# examples whose buffers are not named src and dst (the Gluon tutorial's names)
BUFFERS = {
    "gluon_memcpy_1d_ptr.mlir": ("in_ptr", "out_ptr"),
    "gluon_memcpy_2d_ptr.mlir": ("in_ptr", "out_ptr"),
}

# examples that update one buffer in place: (its name, what it holds after, from before)
IN_PLACE = {
    "mojo_initialize_tensor.mlir": ("buf", lambda x: x + np.float32(1)),
    # every element overwritten with its own row-major index (the seed's host check)
    "mojo_copy_from_async.mlir": ("buf", lambda x: np.arange(x.size, dtype=np.float32)),
    "mojo_tile_copier.mlir": ("buf", lambda x: x + np.float32(1)),
    "mojo_tile_copier_strategies.mlir": ("buf", lambda x: x + np.float32(1)),
}


def _bf16(x):
    from tilec.runtime.reference.values import f32_to_bf16

    return f32_to_bf16(x.astype(np.float32))


def _softmax(inputs):
    x = np.asarray(inputs["src"], np.float64).reshape(64, 1024)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _layernorm(inputs):
    x = np.asarray(inputs["src"], np.float64).reshape(64, 1024)
    xc = x - x.mean(axis=1, keepdims=True)
    y = xc / np.sqrt((xc * xc).mean(axis=1, keepdims=True) + 1e-5)
    return y * np.asarray(inputs["weight"], np.float64) + np.asarray(inputs["bias"], np.float64)


# examples that compute in float: NumPy in float64 and a tolerance (the examples add
# and round in float32, in the GPU's order)
CLOSE = {
    "cumsum.mlir": (lambda i: np.cumsum(np.asarray(i["src"], np.float64).reshape(64, 1024), axis=1),
                    dict(rtol=1e-4, atol=1e-4)),
    "softmax.mlir": (_softmax, dict(rtol=1e-5, atol=1e-9)),
    "layernorm.mlir": (_layernorm, dict(rtol=1e-4, atol=1e-4)),
}


def _check_gemm(inputs, out, m, n, k):
    """C = A @ B within the layout.mma bound (f32 accumulation of k products) plus one
    bf16 rounding of the result."""
    from tilec.dialects.layout_mma import mma_error_bound
    from tilec.runtime.reference.values import bf16_to_f32

    a = bf16_to_f32(np.asarray(inputs["pa"]).reshape(m, k)).astype(np.float64)
    b = bf16_to_f32(np.asarray(inputs["pb"]).reshape(k, n)).astype(np.float64)
    got = bf16_to_f32(np.asarray(out["pc"]).reshape(m, n)).astype(np.float64)
    exact, mag = a @ b, np.abs(a) @ np.abs(b)
    gamma, _ = mma_error_bound(k, "bf16")
    err = np.abs(got - exact)
    assert np.all(err <= gamma * mag + 2.0**-8 * (np.abs(exact) + gamma * mag)), err.max()
    assert err.max() > 0  # bf16 output: rounding is visible, so C was computed, not copied


def load(path: Path):
    return parse_module(path.read_text(), str(path))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_on_cpu_and_computes_what_it_says(path):
    module = load(path)
    inputs = random_inputs(module, seed=1)
    out = run(module, inputs)
    if path.name in IN_PLACE:
        name, want = IN_PLACE[path.name]
        np.testing.assert_array_equal(out[name], want(np.asarray(inputs[name])))
        return
    if path.name == "gemm_bf16.mlir":
        _check_gemm(inputs, out, 256, 256, 256)
        return
    if path.name == "gemm_bf16_hopper.mlir":
        _check_gemm(inputs, out, 256, 256, 256)
        return
    if path.name == "gemm_bf16_hopper_ws.mlir":
        _check_gemm(inputs, out, 256, 256, 512)
        return
    if path.name in CLOSE:
        want, tol = CLOSE[path.name]
        np.testing.assert_allclose(out["dst"].reshape(want(inputs).shape), want(inputs), **tol)
        return
    expect = EXPECTED.get(path.name)
    if expect is None:
        pytest.fail(f"{path.name}: add its NumPy expression to EXPECTED")
    src, dst = BUFFERS.get(path.name, ("src", "dst"))
    np.testing.assert_array_equal(out[dst].reshape(-1), expect(np.asarray(inputs[src]).reshape(-1)))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_default_pipeline_is_equivalent_and_compiles(path):
    module = load(path)
    inputs = random_inputs(module, seed=2)
    before = run(module, inputs)
    run_pipeline(module, "default")
    after = run(module, inputs)
    if path.name in ("gemm_bf16_hopper.mlir", "gemm_bf16_hopper_ws.mlir"):
        # wgmma sums each 16-deep K step apart (another order than layout.mma's):
        # both within the MMA tolerance, not bit for bit
        k = 512 if path.name == "gemm_bf16_hopper_ws.mlir" else 256
        _check_gemm(inputs, before, 256, 256, k)
        _check_gemm(inputs, after, 256, 256, k)
    else:
        for name in before:
            np.testing.assert_array_equal(before[name], after[name])
    cuda = emit(module, "cuda")
    result = compile_cuda(cuda, arch="sm_90a" if needs_arch_specific(cuda) else "sm_90")
    assert len(result.cubin) > 0


def _smem_accesses(module):
    """{op name: (distributed layout, shared-memory layout attribute, vector width)} of
    the layout.load / layout.store ops that touch shared memory."""
    out = {}
    for op in module.walk():
        if op.name == "layout.load":
            value, view = op.results[0], op.operands[0]
        elif op.name == "layout.store":
            value, view = op.operands[0], op.operands[1]
        else:
            continue
        if view.type.memory_space == "smem":
            vector = op.properties.get("vector")
            out[op.name] = (value.type.encoding, view.type.layout, 1 if vector is None else vector.value.data)
    return out


def test_swizzled_smem_banks_are_as_its_comment_says():
    """examples/swizzled_smem.mlir: with Swizzle<3,2,3> both shared-memory accesses are
    conflict-free; without it the column load is 8-way conflicted (tilec's own bank
    counter on the example's types)."""
    from tilec.dialects.layout_attrs import ComposedLayoutAttr
    from tilec.passes._smem_layout import bank_ways

    accesses = _smem_accesses(load(EXAMPLES[0].parent / "swizzled_smem.mlir"))
    assert set(accesses) == {"layout.store", "layout.load"}
    for name, (dist, smem, vector) in accesses.items():
        assert isinstance(smem, ComposedLayoutAttr)
        assert bank_ways(dist, (32, 32), smem, 4, vector) == 1, name
    dist, smem, _ = accesses["layout.load"]
    assert bank_ways(dist, (32, 32), smem.data.layout, 4, 1) == 8


def test_gemm_example_is_its_generator_at_the_example_shape():
    """examples/gemm_bf16.mlir (with its comments and type aliases) is the program of
    `gemm(256, 256, 256)` of examples/python/gemm_bf16.py, op for op, SSA names
    included (the Python example and the benchmark use the same builder at other
    shapes)."""
    mod = _gemm_module()
    text = (Path(__file__).parents[2] / "examples" / "gemm_bf16.mlir").read_text()
    assert str(parse_module(text, "gemm.mlir")) == str(mod.gemm(*mod.EXAMPLE_SHAPE))


def test_gemm_example_lowers_to_ldmatrix_mma_sync_and_stmatrix():
    """The default pipeline keeps the GEMM's explicit layouts (no convert_layout appears,
    every layout.load/store of the source stays) and the CUDA says what each shared
    access became: ldmatrix.x4 for A, ldmatrix.x4.trans for B, stmatrix.x4 for C."""
    path = Path(__file__).parents[2] / "examples" / "gemm_bf16.mlir"
    module = load(path)
    before = sorted(str(op.results[0].type if op.name == "layout.load" else op.operands[0].type)
                    for op in module.walk() if op.name in ("layout.load", "layout.store"))
    run_pipeline(module, "tile,order-grid,distribute,vectorize,remove-layout-conversions,lower-convert-layout")
    after = sorted(str(op.results[0].type if op.name == "layout.load" else op.operands[0].type)
                   for op in module.walk() if op.name in ("layout.load", "layout.store"))
    assert before == after
    assert not [op for op in module.walk() if op.name == "layout.convert_layout"]
    module = load(path)
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    assert "// layout.load 128x16xbf16 from smem: 4 ldmatrix.x4 per thread" in cuda
    assert "// layout.load 16x256xbf16 from smem: 4 ldmatrix.x4.trans per thread" in cuda
    assert "// layout.store 128x256xbf16 to smem: 16 stmatrix.x4 per thread" in cuda
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in cuda


def test_gemm_example_k_loop_is_pipelined_in_registers():
    """The K loop of the example (double-buffered fragments): before the loop, the wait
    for tile 0, a barrier and the first slices' ldmatrix; the loop carries the 128
    accumulators and the next slices' fragments packed two bf16 to a register (32
    `unsigned`); each step issues its cp.async (8 per thread), then for each 16-deep
    slice s the ldmatrix of slice s+1 before the 32 mma.sync of slice s, and its one
    wait + barrier between slice 2's MMAs and the ldmatrix of the next stage's slice 0."""
    module = load(Path(__file__).parents[2] / "examples" / "gemm_bf16.mlir")
    run_pipeline(module, "default")
    cuda = emit(module, "cuda")
    head, rest = cuda.split("for (int kt = 0; kt < 4; ++kt) {", 1)
    body = rest.split("\n  }\n", 1)[0]
    prologue = head[head.rindex("tilec_cp_async_commit();"):]
    assert prologue.index("tilec_cp_async_wait<4>();") < prologue.index("__syncthreads();") < prologue.index("ldmatrix")
    assert len(re.findall(r"^  unsigned r_\d+ = tilec_pack_bf16x2\(", prologue, re.MULTILINE)) == (4 + 4) * 4
    assert len(re.findall(r"^  float r_?\d* = 0\.0f;", prologue, re.MULTILINE)) == 128
    pattern = r'tilec_cp_async<16>|tilec_cp_async_wait<4>|__syncthreads|asm(?: volatile)?\("(ldmatrix[.a-z0-9]*|mma\.sync)'
    events = [m.group(1) or m.group(0) for m in re.finditer(pattern, body)]
    steps = []
    for e in events:
        if not steps or steps[-1][0] != e:
            steps.append([e, 0])
        steps[-1][1] += 1
    lda, ldb = "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"
    slice_loads = [[lda, 4], [ldb, 4]]
    assert steps == [
        ["tilec_cp_async<16>", 12],
        *slice_loads, ["mma.sync", 32],
        *slice_loads, ["mma.sync", 32],
        *slice_loads, ["mma.sync", 32],
        ["tilec_cp_async_wait<4>", 1], ["__syncthreads", 1],
        *slice_loads, ["mma.sync", 32],
    ], steps


def _gemm_module():
    import importlib.util

    root = Path(__file__).parents[2]
    spec = importlib.util.spec_from_file_location("gemm_bf16", root / "examples" / "python" / "gemm_bf16.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize(
    "shape, config",
    [
        ((128, 128, 128), {"bn": 128, "stages": 3, "double_buffer": False, "group": 1}),
        ((256, 128, 192), {"bn": 128, "stages": 3, "double_buffer": False, "group": 1}),
        ((384, 256, 192), {"group": 2}),  # the defaults; 3 block rows: a last group of 1
        ((256, 256, 128), {"bn": 128, "stages": 3, "swizzle": False}),  # padded, double-buffered
        ((256, 128, 128), {"bn": 128, "warps": (2, 2), "stages": 2}),
    ],
    ids=["swizzled", "swizzled-3-k-steps", "defaults-uneven-group", "padded-double-buffered", "2x2-warps-2-stages"],
)
def test_gemm_configurations_compute_a_at_b_are_equivalent_after_default_and_compile(shape, config):
    """`gemm` with swizzled or padded tiles, with and without register double
    buffering, in grouped or row-major block order: C = A @ B within the MMA tolerance
    on the CPU executor (which also fails a read of shared memory that a cp.async may
    still be writing: a misplaced wait or barrier), the same bits after the default
    pipeline, and the CUDA (16-byte cp.async, ldmatrix, mma.sync) compiles for sm_90."""
    module = _gemm_module().gemm(*shape, **config)
    text = str(module)
    if config.get("swizzle", True):
        bn = config.get("bn", 256)
        assert f"#layout.composed<swizzle<3,3,3> o 0 o ({config.get('stages', 4) * 128},64):(64,1)>" in text
        assert f"#layout.composed<swizzle<3,3,{bn.bit_length() - 4}> o 0 o" in text
    assert ("iter_args(%acc0 = %zero, %opa0 = %opa_p, %opb0 = %opb_p)" in text) == config.get("double_buffer", True)
    assert ("grid(%nblocks, %c1, %c1)" in text) == (config.get("group", 8) > 1)
    inputs = random_inputs(module, seed=3)
    before = run(module, inputs)
    _check_gemm(inputs, before, *shape)
    run_pipeline(module, "default")
    after = run(module, inputs)
    for name in before:
        np.testing.assert_array_equal(before[name], after[name])
    cuda = emit(module, "cuda")
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in cuda
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in cuda
    assert "tilec_cp_async<16>(smem" in cuda and (" ^ " in cuda) == config.get("swizzle", True)
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in cuda
    assert len(compile_cuda(cuda, arch="sm_90").cubin) > 0


def test_gemm_double_buffering_needs_its_barrier():
    """Without the wait + barrier before the next stage's first slice, the CPU executor
    reports the read of shared memory that a cp.async is still writing."""
    from xdsl.dialects import scf

    module = _gemm_module().gemm(256, 256, 256)
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    wait = next(op for op in loop.body.block.ops if op.name == "layout.async_wait")
    assert wait.next_op.name == "layout.barrier"
    for op in (wait.next_op, wait):
        op.detach()
        op.erase()
    with pytest.raises(Exception, match="while a cp.async is still writing it"):
        run(module, random_inputs(module, seed=0))


def test_gemm_config_strings():
    mod = _gemm_module()
    assert mod.config_kwargs("128x256x64:2x4:4:s:db:g8") == {
        "bm": 128, "bn": 256, "bk": 64, "warps": (2, 4), "stages": 4, "swizzle": True, "double_buffer": True, "group": 8
    }
    assert mod.config_kwargs("128x128x64:2x4:3") == {
        "bm": 128, "bn": 128, "bk": 64, "warps": (2, 4), "stages": 3, "swizzle": False, "double_buffer": False, "group": 1
    }
    assert str(mod.gemm(256, 256, 256, **mod.config_kwargs(mod.FASTEST))) == str(mod.gemm(256, 256, 256))
    with pytest.raises(ValueError, match="unknown flag 'x'"):
        mod.config_kwargs("128x128x64:2x4:3:x")


def test_swizzled_gemm_refuses_tiles_it_cannot_swizzle():
    with pytest.raises(ValueError, match="powers of two of at least 64"):
        _gemm_module().gemm(128, 256, 128, bk=32, swizzle=True)
