"""The copy strategy as a value (`p.copy(..., strategy=...)`, `#layout.copy_strategy`):
Mojo's TileTensor `tile_copier_example` written with copiers (an async copier in, a
simt copier out; or TMA both ways) computes what NumPy says on the reference
executor, keeps it through the default pipeline, and the CUDA is what the strategy
says, compiled by NVRTC; on a GPU, the same bits."""

import numpy as np
import pytest
from helpers.nvrtc import compile_sm90_or_skip

import tilec
from tilec.support.diagnostics import TilecError


def tile_copier(strategy_in: str | None, strategy_out: str | None):
    """128x128 f32 in place, 16x16 tiles per block of 16x16 threads: copy the tile into
    shared memory, each thread adds one to its element, copy it back."""
    p = tilec.Program("tile_copier")
    tensor = p.view(p.pointer("buf", "f32", align=16), "(128,128):(128,1)")
    with p.launch(grid=(8, 8, 1), threads=(16, 16)) as k:
        tile = p.tile(tensor, (k.by, k.bx), (16, 16))
        smem = p.alloc("(16,16):(16,1)", "f32", "smem")
        p.copy(tile, smem, strategy=strategy_in)
        p.barrier()
        tx, ty = k.thread_idx("x"), k.thread_idx("y")
        smem[ty, tx] = smem[ty, tx] + 1.0
        p.barrier()
        p.copy(smem, tile, strategy=strategy_out)
    return p


CASES = {"async_simt": ("async", "simt"), "tma": ("tma", "tma"), "passes_choose": (None, None)}
CUDA_SAYS = {
    "async_simt": (["tilec_cp_async<16>(", "tilec_cp_async_wait<0>();"], ["TMA"]),
    "tma": (["// TMA load", "// TMA store"], ["tilec_cp_async<"]),
    "passes_choose": (["// TMA load"], []),
}


@pytest.mark.parametrize("case", CASES)
def test_tile_copier_computes_plus_one_and_its_cuda_is_the_strategy(case):
    p = tile_copier(*CASES[case])
    buf = np.random.default_rng(0).standard_normal(128 * 128).astype(np.float32)
    want = buf + np.float32(1)
    np.testing.assert_array_equal(tilec.run_reference(p, {"buf": buf})["buf"], want)
    k = tilec.compile(p, arch="sm_90")
    np.testing.assert_array_equal(tilec.run_reference(k, {"buf": buf})["buf"], want)
    present, absent = CUDA_SAYS[case]
    for text in present:
        assert text in k.source, text
    for text in absent:
        assert text not in k.source, text
    assert len(compile_sm90_or_skip(k.source).cubin) > 0


def test_strategy_is_a_property_of_the_copy():
    p = tile_copier("async", "simt")
    copies = [op for op in p.module.walk() if op.name == "layout.copy"]
    assert [c.strategy_name for c in copies] == ["async", "simt"]
    assert "#layout.copy_strategy<async>" in str(p.module)


def test_unknown_strategy_and_illegal_spaces_are_errors():
    with pytest.raises(TilecError, match="expected one of tma, async, simt"):
        tile_copier("bulk", None)
    p = tile_copier(None, "async")  # cp.async copies global to shared only
    with pytest.raises(TilecError, match="copy strategy async \\(cp.async\\) copies global to shared memory"):
        tilec.compile(p, arch="sm_90")


def test_tma_on_a_target_without_tma_is_an_error():
    with pytest.raises(TilecError, match="has no TMA"):
        tilec.compile(tile_copier("tma", "simt"), arch="sm_80")


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES)
def test_tile_copier_on_gpu(case):
    import cupy as cp

    buf = np.random.default_rng(1).standard_normal(128 * 128).astype(np.float32)
    d = cp.asarray(buf)
    tilec.compile(tile_copier(*CASES[case]))(d)
    np.testing.assert_array_equal(cp.asnumpy(d), buf + np.float32(1))


def _byte_transpose(strategy: str | None) -> "tilec.Program":
    """A 7 x 300 byte transpose (source contiguous along the 7): the box strategy's."""
    p = tilec.Program("byte_transpose")
    a = p.view(p.pointer("src", "i8", align=16), "(7,300):(1,7)")
    b = p.view(p.pointer("dst", "i8", align=16), "(7,300):(300,1)")
    p.copy(a, b, strategy=strategy)
    return p


def test_box_strategy_is_written_with_its_flavour():
    p = _byte_transpose("box<flat>")
    (copy,) = [op for op in p.module.walk() if op.name == "layout.copy"]
    assert (copy.strategy_name, copy.strategy.kind, copy.strategy.flavour) == ("box<flat>", "box", "flat")
    assert "#layout.copy_strategy<box<flat>>" in str(p.module)
    with pytest.raises(TilecError, match="box as box<flat>, box<rows> or box<cols>"):
        _byte_transpose("box")
    with pytest.raises(TilecError, match="box as box<flat>"):
        _byte_transpose("box<diagonal>")


@pytest.mark.parametrize("strategy", ["box<flat>", None])
def test_box_strategy_compiles_exact_and_nvrtc_takes_its_cuda(strategy):
    """The tile pass lowers the box strategy, written or chosen by copy-strategy (its
    default box=auto): the reference executor's result is NumPy's, and the CUDA (a
    shared box, 16-byte vectors on both global sides) compiles under NVRTC."""
    k = tilec.compile(_byte_transpose(strategy), arch="sm_90")
    src = np.arange(7 * 300, dtype=np.int64).astype(np.int8)
    got = tilec.run_reference(k, {"src": src, "dst": np.zeros(2100, np.int8)})["dst"]
    np.testing.assert_array_equal(got, src.reshape(300, 7).T.reshape(-1))
    assert "__shared__" in k.source and "reinterpret_cast<i8x16*>(dst" in k.source
    compile_sm90_or_skip(k.source)


BOX_FLAVOURS = {
    # flavour: (shape, source strides, destination strides)
    "flat": ((7, 300), (1, 7), (300, 1)),
    "rows": ((3, 37, 5, 17), (3500, 1, 700, 37), (3145, 85, 17, 1)),
    "cols": ((300, 5), (1, 300), (5, 1)),
}


@pytest.mark.parametrize("flavour", sorted(BOX_FLAVOURS))
def test_each_box_flavour_matches_numpy_and_compiles(flavour):
    """Each flavour, chosen by the default pipeline for a Program of its views: exact
    against NumPy on the reference executor, and its CUDA compiles under NVRTC."""
    shape, ss, ds = BOX_FLAVOURS[flavour]

    def layout(strides):
        return f"({','.join(map(str, shape))}):({','.join(map(str, strides))})"

    p = tilec.Program(f"box_{flavour}")
    a = p.view(p.pointer("src", "i8", align=16), layout(ss))
    b = p.view(p.pointer("dst", "i8", align=16), layout(ds))
    p.copy(a, b)
    from tilec.compiler.pipeline import run_pipeline

    chosen = p.module.clone()
    run_pipeline(chosen, "copy-strategy")
    assert [op.strategy_name for op in chosen.walk() if op.name == "layout.copy"] == [f"box<{flavour}>"]
    k = tilec.compile(p, arch="sm_90")
    size = 1 + sum((n - 1) * s for n, s in zip(shape, ss))
    src = np.random.default_rng(7).integers(-128, 128, size=size).astype(np.int8)
    dsize = 1 + sum((n - 1) * s for n, s in zip(shape, ds))
    got = tilec.run_reference(k, {"src": src, "dst": np.zeros(dsize, np.int8)})["dst"]
    want = np.zeros(dsize, np.int8)
    np.lib.stride_tricks.as_strided(want, shape, ds)[...] = np.lib.stride_tricks.as_strided(src, shape, ss)
    np.testing.assert_array_equal(got, want)
    assert "__shared__" in k.source and "reinterpret_cast<i8x16*>(dst" in k.source
    compile_sm90_or_skip(k.source)


def test_box_strategy_the_rule_does_not_take_is_a_located_error():
    """A box flavour written on a copy the box rule takes otherwise (or not at all) is
    an error at the copy's line."""
    with pytest.raises(TilecError, match="the box rule takes as rows") as e:
        tilec.compile(_byte_transpose("box<rows>"), arch="sm_90")
    line = next(n for n, text in enumerate(open(__file__).read().splitlines(), 1)
                if "p.copy(a, b, strategy=strategy)" in text)
    assert str(e.value).startswith(f"{__file__}:{line}:")
