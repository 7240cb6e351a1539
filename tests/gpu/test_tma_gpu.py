"""On a GPU (H100): TMA bulk tensor copies through shared memory, exact against NumPy
and bit for bit against the CPU reference executor, outputs poisoned first: plain and
swizzled (128-byte, NVMMA) shared tiles, odd shapes whose edge boxes leave the tensor
(zero fill on load, clipping on store), NVMMA tiles wider than their swizzle (several
boxes side by side), dynamic extents, 1-byte and 2-byte elements,
a transpose whose load is TMA, persistent transposes pipelined by `tma{stages=N}`
(a ring of shared tiles; tile counts that do not divide among the blocks and stages);
tensor maps encoded once per argument set."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[1]))
from helpers.tma_programs import fill_into_panel, persistent_transpose, round_trip, tile_transpose, transpose

from tilec.tools.tilec import main

NVMMA_F16 = "#layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 64]>"
NVMMA_F32 = "#layout.nvmma_shared<swizzle = 128, elementBitWidth = 32, transposed = false, shape = [64, 64]>"
NVMMA64_F16 = "#layout.nvmma_shared<swizzle = 64, elementBitWidth = 16, transposed = false, shape = [64, 128]>"
SW128_F32 = "#layout.composed<swizzle<3,2,3> o 0 o (32,32):(32,1)>"
SW64_F16 = "#layout.composed<swizzle<2,3,3> o 0 o (16,32):(32,1)>"

CASES = {
    "f32 256x256 tiles 64x64": {"args": (256, 256, 64, 64)},
    "f32 250x300 edge boxes": {"args": (250, 300, 64, 64)},
    "f32 96x160 swizzle 128B": {"args": (96, 160, 32, 32), "smem": SW128_F32},
    "f16 130x200 NVMMA 128B": {"args": (130, 200, 64, 64, "f16"), "smem": NVMMA_F16},
    "f16 40x96 swizzle 64B": {"args": (40, 96, 16, 32, "f16"), "smem": SW64_F16},
    "f32 130x200 NVMMA 128B, 2 boxes": {"args": (130, 200, 64, 64), "smem": NVMMA_F32},
    "f16 100x256 NVMMA 64B, 4 boxes": {"args": (100, 256, 64, 128, "f16"), "smem": NVMMA64_F16},
    "i8 70x96 tiles 32x64": {"args": (70, 96, 32, 64, "i8")},
    "f64 33x50": {"args": (33, 50, 16, 16, "f64")},
}

DTYPES = {"f32": np.float32, "f16": np.float16, "i8": np.int8, "f64": np.float64}


def _program(case) -> str:
    """The round trip of `case`, printed (the CLI tests write it to a file)."""
    return str(round_trip(*case["args"], smem=case.get("smem")))


@pytest.mark.gpu
@pytest.mark.parametrize("name", CASES)
def test_tma_round_trip_exact(name):
    import cupy as cp

    import tilec

    case = CASES[name]
    m, n = case["args"][:2]
    dtype = DTYPES[case["args"][4] if len(case["args"]) > 4 else "f32"]
    kernel = tilec.compile(_program(case))
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" in kernel.source
    assert "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" in kernel.source
    rng = np.random.default_rng(1)
    if np.issubdtype(dtype, np.integer):
        x = rng.integers(-128, 127, (m, n)).astype(dtype)
        poison = -77
    else:
        x = rng.standard_normal((m, n)).astype(dtype)
        poison = np.nan
    src = cp.asarray(x)
    dst = cp.full((m, n), poison, dtype=dtype)
    kernel(src, dst)
    cp.cuda.Device().synchronize()
    got = cp.asnumpy(dst)
    assert np.array_equal(got.view(np.uint8), x.view(np.uint8)), f"{name}: {np.argwhere(got != x)[:5]}"


@pytest.mark.gpu
def test_tma_narrow_box_lands_in_the_128_byte_panel():
    """A box narrower than its swizzle row (`TmaGeometry.pad`): an 8 x 32 f16 box (64-byte rows) into the first 32
    columns of an 8 x 64 panel of a 128-byte swizzle, rows 128 bytes apart: the panel's first 32 columns hold the
    tile (the last tile's 16 columns past N zeros), read back through the tile and through the whole panel. On a
    mismatch the message says where block 0's values landed in the panel."""
    import cupy as cp

    import tilec

    m, n = 8, 80
    x = np.random.default_rng(2).standard_normal((m, n)).astype(np.float16) + np.float16(4)  # none zero
    part, whole = tilec.compile(str(fill_into_panel(m, n))), tilec.compile(str(fill_into_panel(m, n, whole=True)))
    dst, panel = cp.full((m, n), np.nan, np.float16), cp.zeros((3 * m, 64), np.float16)
    part(cp.asarray(x), dst)
    whole(cp.asarray(x), panel)
    cp.cuda.Device().synchronize()
    got = cp.asnumpy(panel).reshape(3, m, 64)
    landed = [tuple(map(int, w)) for w in np.argwhere(got[0] != 0)[::29]]  # (row, column) of block 0's values
    assert np.array_equal(cp.asnumpy(dst), x), f"the tile read back differs; block 0's values at {landed}"
    assert np.array_equal(got[0, :, :32], x[:, :32]), f"block 0's values at {landed}"


@pytest.mark.gpu
@pytest.mark.parametrize("name", CASES)
def test_tma_round_trip_matches_reference(name, tmp_path, capsys):
    path = tmp_path / "tma.mlir"
    path.write_text(_program(CASES[name]))
    assert main([str(path), "--run", "gpu", "--check", "--seed", "3"]) == 0
    assert "identical to the CPU reference executor" in capsys.readouterr().out


@pytest.mark.gpu
def test_tma_dynamic_extents_and_tensor_map_cache():
    """Extents known at launch: the map is encoded from the arguments, once per
    (pointer, dims, strides, box, swizzle); another shape encodes a new one; a call
    with the same arguments replays the packed launch without looking maps up."""
    import cupy as cp

    import tilec
    from tilec.runtime import tensor_map

    kernel = tilec.compile(round_trip(77, 52, 32, 32, dynamic=True))
    rng = np.random.default_rng(2)
    for m, n in ((77, 52), (77, 52), (130, 36)):
        x = rng.standard_normal((m, n)).astype(np.float32)
        src = cp.asarray(x)
        dst = cp.full((m, n), np.nan, dtype=np.float32)
        before = dict(tensor_map.stats)
        kernel(src, dst, m, n)
        first = dict(tensor_map.stats)
        # the same arguments again: the packed launch (maps included) is replayed
        kernel(src, dst, m, n)
        assert tensor_map.stats == first
        # through the general path: both maps come from the cache, nothing is encoded
        # (the packed launches of the kernel this call runs: `tilec.compile` gives a
        # 32-bit twin for these small extents, `specialization` names it)
        kernel.specialization(src, dst, m, n)._packed.clear()
        kernel(src, dst, m, n)
        cp.cuda.Device().synchronize()
        assert np.array_equal(cp.asnumpy(dst), x)
        assert tensor_map.stats["encoded"] == first["encoded"]
        assert tensor_map.stats["hits"] - first["hits"] == 2
        # a new shape needs new maps (a reused pointer with the same shape need not)
        assert first["encoded"] - before["encoded"] == (
            2 if (m, n) == (130, 36) else first["encoded"] - before["encoded"]
        )
        assert 0 <= first["encoded"] - before["encoded"] <= 2


@pytest.mark.gpu
@pytest.mark.parametrize("m,n", [(96, 128), (64, 32)])
def test_tma_transpose_exact(m, n):
    import cupy as cp

    import tilec

    kernel = tilec.compile(transpose(m, n))
    assert "swizzle 128B" in kernel.source
    x = np.random.default_rng(4).standard_normal((m, n)).astype(np.float32)
    dst = cp.full((n, m), np.nan, dtype=np.float32)
    kernel(cp.asarray(x), dst)
    cp.cuda.Device().synchronize()
    assert np.array_equal(cp.asnumpy(dst), x.T)


TILE_TRANSPOSES = {
    "swizzled 128x128, TMA store": {"ti": 128, "tj": 128},
    "swizzled 64x64, register stores (cols)": {"ti": 64, "tj": 64, "regs": "cols", "out": "regs"},
    "swizzled 128x128, register stores (cols)": {"ti": 128, "tj": 128, "regs": "cols", "out": "regs"},
    "compact 64x64 (one wide box), register stores": {"ti": 64, "tj": 64, "smem": "compact", "out": "regs"},
    "compact 64x128 (one wide box), register stores": {"ti": 64, "tj": 128, "smem": "compact", "out": "regs"},
    "compact 128x128 (one wide box), TMA store": {"ti": 128, "tj": 128, "smem": "compact"},
    "compact 64x64 in and out (wide boxes both ways)": {"ti": 64, "tj": 64, "smem": "compact", "out_smem": "compact"},
    "compact 64x64 in and out, cols": {"ti": 64, "tj": 64, "smem": "compact", "out_smem": "compact", "regs": "cols"},
    "swizzled 128x64 in, compact out, cols": {"ti": 128, "tj": 64, "regs": "cols", "out_smem": "compact"},
    "compact 64x64, TMA store, grid swapped": {"ti": 64, "tj": 64, "smem": "compact", "swap_grid": True},
}


@pytest.mark.gpu
@pytest.mark.parametrize("name", list(TILE_TRANSPOSES))
def test_tma_tile_transpose_exact(name):
    """tile_transpose's forms (benchmarks/copy_bench.py times them at 16384^2) on a
    256 x 384 tensor (several tiles both ways, not square): exact, output poisoned."""
    import cupy as cp

    import tilec

    m, n = 256, 384
    kernel = tilec.compile(tile_transpose(m, n, **TILE_TRANSPOSES[name]))
    assert "cp.async.bulk.tensor" in kernel.source
    x = np.random.default_rng(5).standard_normal((m, n)).astype(np.float32)
    dst = cp.full((n, m), np.nan, dtype=np.float32)
    kernel(cp.asarray(x), dst)
    cp.cuda.Device().synchronize()
    assert np.array_equal(cp.asnumpy(dst), x.T)


@pytest.mark.gpu
@pytest.mark.parametrize("promotion", [0, 64, 256])
def test_tma_l2_promotion_exact(promotion):
    """`tma{l2_promotion=N}` changes only the tensor maps' L2 promotion: the transpose
    stays exact (the map is encoded with it: the driver accepts each value)."""
    import cupy as cp

    import tilec
    from tilec.compiler.pipeline import NAMED_PIPELINES

    m, n = 256, 384
    pipeline = NAMED_PIPELINES["default"].replace(",tma,", f",tma{{l2_promotion={promotion}}},")
    kernel = tilec.compile(tile_transpose(m, n, 128, 128, smem="compact"), pipeline)
    x = np.random.default_rng(6).standard_normal((m, n)).astype(np.float32)
    dst = cp.full((n, m), np.nan, dtype=np.float32)
    kernel(cp.asarray(x), dst)
    cp.cuda.Device().synchronize()
    assert np.array_equal(cp.asnumpy(dst), x.T)


@pytest.mark.gpu
def test_tma_kernel_compiles_for_sm_90a():
    import tilec

    kernel = tilec.compile(round_trip(64, 64, 64, 64))
    assert kernel.uses_tma
    assert kernel.compile().arch == "sm_90a"


RING = {
    "64x64 tiles, 2 stages, 5 blocks": ((512, 384, 64, 64), {"blocks": 5, "threads": 256}, 2),
    "32x32 tiles, 3 stages, 7 blocks": ((96, 160, 32, 32), {"blocks": 7}, 3),
    "128x64 tiles, 3 stages, grouped, 3 blocks": ((512, 256, 128, 64), {"blocks": 3, "threads": 256, "group": 2}, 3),
    "64x64 tiles, 4 stages, 1 block": ((256, 192, 64, 64), {"blocks": 1, "threads": 128}, 4),
}


@pytest.mark.gpu
@pytest.mark.parametrize("name", RING)
def test_tma_ring_transpose_exact(name, tmp_path, capsys):
    """The ring's kernel, exact against NumPy (output poisoned) and bit for bit against
    the CPU reference executor."""
    import cupy as cp

    import tilec
    from tilec.compiler.pipeline import NAMED_PIPELINES

    (m, n, ti, tj), kw, stages = RING[name]
    pipeline = NAMED_PIPELINES["default"].replace(",tma,", f",tma{{stages={stages}}},")
    text = str(persistent_transpose(m, n, ti, tj, **kw))
    kernel = tilec.compile(text, pipeline)
    assert kernel.source.count("tilec_mbarrier_init(reinterpret_cast") == stages
    assert f"tilec_bulk_wait_group_read<{stages - 1}>" in kernel.source
    x = np.random.default_rng(5).standard_normal((m, n)).astype(np.float32)
    dst = cp.full((n, m), np.nan, dtype=np.float32)
    kernel(cp.asarray(x), dst)
    cp.cuda.Device().synchronize()
    assert np.array_equal(cp.asnumpy(dst), x.T)
    path = tmp_path / "ring.mlir"
    path.write_text(text)
    assert main([str(path), "-p", pipeline, "--run", "gpu", "--check", "--seed", "3"]) == 0
    assert "identical to the CPU reference executor" in capsys.readouterr().out
