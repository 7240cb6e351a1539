"""`box<tiles>` over a merged destination mode (`tiles_merge`, passes/_copy_cost.tiles_merged):
where the destination is compact over the modes after the source's contiguous mode `W`,
the box's destination rows run over all of them (one mode `D'`) and each of its source
runs is one step of `D'`, its start read from a table the block fills first. On the CPU
reference executor against NumPy, bit for bit, with every byte around dst poisoned:
the strided set's shapes 36 (a short `D`, the merged modes interleaved in the source)
and 00 (a mode in both contiguous groups), pointers at several remainders mod 16, a grid
mode before `W`, several tiles along both modes (a small box), 1-, 2- and 4-byte
elements and a converting copy; compiled for sm_90 where NVRTC is present."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.canonical_copies import key_strategy

from tilec.copy_cpu import _operand, copy_numpy
from tilec.copy_kernels import CopyKernels
from tilec.copy_plan import plan_copy
from tilec.passes._copy_cost import CopyFacts, Mode, box_flavour, tiles_merged, tiles_merged_run


def _merged_cases(rng):
    """(src, dst base, dst view of the base): permutes whose destination is compact over
    the modes after the source's contiguous one."""

    def rand(shape, dtype):
        return rng.integers(-100, 100, size=shape).astype(dtype)

    out = []
    # 36's shape: W long, D short (7), the merged modes' source strides out of order
    for dtype, so, do in (("int8", 0, 0), ("int8", 3, 5), ("float16", 1, 3), ("float32", 2, 1)):
        base = (5, 3, 7, 150)
        n = int(np.prod(base))
        flat = rand(so + n + 9, dtype)
        src = flat[so : so + n].reshape(base).transpose(3, 1, 0, 2)
        dbase = np.full(n + 40, 77, dtype)
        out.append((src, dbase, lambda b, do=do, n=n, s=src.shape: b[do : do + n].reshape(s)))
    # 00's shape: the source contiguous over W and K, the destination over D and K
    flat = rand(37 * 6 * 3 * 70 + 20, "uint8")
    src = flat[11 : 11 + 37 * 6 * 3 * 70].reshape(37, 6, 3, 70).transpose(3, 1, 2, 0)
    dbase = np.full(src.size + 40, 77, np.uint8)
    out.append((src, dbase, lambda b, s=src.shape: b[7 : 7 + int(np.prod(s))].reshape(s)))
    # a grid mode before W
    src = rand((2, 5, 3, 7, 97), "int8").transpose(0, 4, 2, 1, 3)
    dbase = np.full(src.size + 40, 77, np.int8)
    out.append((src, dbase, lambda b, s=src.shape: b[9 : 9 + int(np.prod(s))].reshape(s)))
    return out


@pytest.mark.parametrize("smem", [None, 8192])
@pytest.mark.parametrize("compiled", [False, True])
def test_merged_tiles_box_copies_match_numpy(routes, smem, compiled, nvrtc_available):
    """Every destination element written once, exactly, nothing around it: the runs'
    starts from the table, the box addresses of phase 2 from the table, the elements past
    the source view's last whole chunk by the runs that reach them."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(box_smem=smem, tiles_merge=4)  # the rule's 1 byte, and 2- and 4-byte elements
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    for src, base, view in _merged_cases(np.random.default_rng(smem or 5)):
        assert key_strategy(plan_copy(_operand(view(base), None), _operand(src, None)).key) == "box<tiles>", src.shape
        want = base.copy()
        view(want)[...] = src
        copy_numpy(view(base), src, kernels=kernels, compiled=compiled)
        assert np.array_equal(base, want), (src.shape, src.dtype)


def test_merged_converting_tiles_box_matches_numpy(routes):
    """A converting merged box (int8 -> int16, phase 2 converting as it reads), W whole
    (runs of 160 bytes) by the rule's default box."""
    routes(tiles_merge=1)
    rng = np.random.default_rng(9)
    src = rng.integers(-100, 100, size=(5, 3, 7, 150)).astype(np.int8).transpose(3, 1, 0, 2)
    base = np.full(src.size + 40, 77, np.int16)

    def view(b):
        return b[3 : 3 + src.size].reshape(src.shape)

    assert key_strategy(plan_copy(_operand(view(base), None), _operand(src, None)).key) == "box<tiles>"
    want = base.copy()
    view(want)[...] = src
    copy_numpy(view(base), src)
    assert np.array_equal(base, want)


def _facts(ns, ss, ds, e=1):
    modes = tuple(Mode(n, n, True, s, d, divisor=n) for n, s, d in zip(ns, ss, ds))
    return CopyFacts(modes, e, e, 16, 16, True, None, None, 0, 0)


def test_the_merge_rule():
    """`tiles_merged`: the modes after W where the destination is contiguous over them
    (two or more); `box_flavour` with `merge` takes 36's shape (a short D) as `tiles`,
    without it none."""
    # 36: (181, 31, 12, 5, 31, 19)
    ns = (181, 31, 12, 5, 31, 19)
    ss = (1, 67332, 181, 2087292, 2172, 10436460)
    ds = (1095540, 35340, 2945, 589, 19, 1)
    assert tiles_merged(_facts(ns, ss, ds)) == (1, 2, 3, 4, 5)
    assert box_flavour(_facts(ns, ss, ds), merge=1) == "tiles"
    assert box_flavour(_facts(ns, ss, ds)) == "tiles"
    assert box_flavour(_facts(ns, ss, ds), merge=0) is None
    # 4-byte elements: not by the rule (06, int32: 0.960 merged against 0.977 tiled)
    assert tiles_merged(_facts(ns, ss, ds, 4)) is None and tiles_merged(_facts(ns, ss, ds, 4), 4) is not None
    # runs: W whole where longer than the default's 128 bytes and at most 512
    assert tiles_merged_run(1, 181) == 192 and tiles_merged_run(1, 186) == 192
    assert tiles_merged_run(1, 100) is None and tiles_merged_run(1, 600) is None and tiles_merged_run(1, None) is None
    # a destination padded between two modes after W: not merged
    assert tiles_merged(_facts(ns, ss, (1095540 * 2, 35340 * 2, 2945 * 2, 589 * 2, 20, 1))) is None
    # a 2-D transpose: nothing to merge
    assert tiles_merged(_facts((300, 131), (1, 300), (131, 1))) is None


def test_copy_and_the_program_build_one_merged_kernel():
    """36's copy through `tilec.copy_` and the `tilec.Program` of the same views: the same
    strategy, threads and index width, the same loops, branches and accesses (the
    Program's extents constants, copy_'s run-time values with their exact facts)."""
    from helpers.canonical_copies import copy_choice, program_choice
    from test_copy_same_kernel import _kernels, _shape_of_cuda, _widths

    from tilec.copy_plan import Operand

    ext = (181, 31, 12, 5, 31, 19)
    dst = Operand(1 << 30, "int8", ext, (1095540, 35340, 2945, 589, 19, 1))
    plan = plan_copy(dst, Operand(1 << 34, "int8", ext, (1, 67332, 181, 2087292, 2172, 10436460)))
    assert copy_choice(plan) == program_choice(plan) == ("box<tiles>", None, 512)
    mine, theirs = _kernels(plan)
    assert _widths(mine) == _widths(theirs)
    assert _shape_of_cuda(mine.source) == _shape_of_cuda(theirs.source)


@pytest.mark.parametrize("compiled", [False, True])
def test_a_small_merged_box_takes_the_default_runs(routes, compiled, nvrtc_available):
    """A merged box whose `W` would be whole in its runs (381 bool: runs of 384 bytes) in a
    box of 8 KiB (`box_smem`), too small for a chunk's rows of such runs: the default runs
    (before, `tiles_launch` unpacked `tiles_shape`'s None: a TypeError; found by the fuzz
    family `merge`, tests/fuzz/generate_box.py, seed 299)."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(box_smem=8192, tiles_row_step=2)
    rng = np.random.default_rng(299)
    flat = rng.integers(0, 2, size=10 + 382 * 2 * 33).astype(bool)
    src = np.lib.stride_tricks.as_strided(flat[10:], (381, 2, 32), (1, 382, 765))
    base = np.ones(381 * 64 + 40, bool)

    def view(b):
        return b[12 : 12 + src.size].reshape(src.shape)

    plan = plan_copy(_operand(view(base), None), _operand(src, None))
    assert key_strategy(plan.key) == "box<tiles>" and plan.key.dst_flat
    want = base.copy()
    view(want)[...] = src
    copy_numpy(view(base), src, kernels=CopyKernels(arch="sm_90", disk=False) if compiled else None, compiled=compiled)
    assert np.array_equal(base, want)


@pytest.mark.parametrize("grain", [16, 32, 64])
def test_every_grain_reads_its_run_tables_inside_them(routes, grain, nvrtc_available):
    """The compiled kernel on the executor (its shared tables' bounds checked) at each grain
    the tile pass takes, 36's shape in small with several tiles along `D'` (a 16 KiB box:
    16 steps a tile at 64-byte grains): phase 2 reads the tables' entries of every chunk it
    may write before its test of which it does, as far as run `G_e - 1 + V_d C - 1`
    (`_box_tile.tiles_merged_table`; session 40's `Dt + G_e + 3 V_d` entries were read past
    at 64-byte grains: the executor's out-of-bounds read of entry 128 of 128, the H200's
    CUDA_ERROR_ILLEGAL_ADDRESS at the strided set's 36 and 00)."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    routes(box_smem=16384, tiles_merge=1, tiles_grain=grain)
    rng = np.random.default_rng(grain)
    base_shape = (5, 3, 7, 150)
    n = int(np.prod(base_shape))
    src = rng.integers(-100, 100, size=n + 9).astype(np.int8)[3 : 3 + n].reshape(base_shape).transpose(3, 1, 0, 2)
    dbase = np.full(n + 40, 77, np.int8)

    def view(b):
        return b[5 : 5 + n].reshape(src.shape)

    assert key_strategy(plan_copy(_operand(view(dbase), None), _operand(src, None)).key) == "box<tiles>"
    want = dbase.copy()
    view(want)[...] = src
    copy_numpy(view(dbase), src, kernels=CopyKernels(arch="sm_90", disk=False), compiled=True)
    assert np.array_equal(dbase, want)


@pytest.mark.parametrize("row_step", [0, 4])
def test_merged_box_reads_by_bank_match_numpy(routes, row_step, nvrtc_available):
    """`tiles_merge_banks=1` (`_box_tile.TILES_MERGE_BANKS`): the padded run tables and a
    warp's rows `tiles_merged_row_step` apart, chosen in the kernel from copy_'s run-time
    destination step (`row_step` 0: a select among 1, 2 and 4) or forced (4), over the
    merged cases (1-, 2- and 4-byte elements, several tiles along both modes) and at each
    grain: the compiled kernel on the executor, every byte around dst poisoned."""
    if not nvrtc_available:
        pytest.skip("NVRTC is not available")
    for grain in (16, 64):
        routes(box_smem=16384, tiles_merge=4, tiles_merge_banks=1, tiles_row_step=row_step, tiles_grain=grain)
        kernels = CopyKernels(arch="sm_90", disk=False)
        for src, base, view in _merged_cases(np.random.default_rng(grain + row_step)):
            want = base.copy()
            view(want)[...] = src
            copy_numpy(view(base), src, kernels=kernels, compiled=True)
            assert np.array_equal(base, want), (src.shape, src.dtype, grain)


def test_the_merged_row_step_rule():
    """`tiles_merged_row_step`: the least power of two S with `S P_d = 0 (mod G_e)`, at most
    the cap (a warp's rows' bytes within 16 of a slot, the warps a multiple of it)."""
    from tilec.passes._box_tile import tiles_merged_row_cap, tiles_merged_row_step

    assert tiles_merged_row_cap(1, 8, 512) == 4 and tiles_merged_row_cap(2, 16, 512) == 4
    assert tiles_merged_row_cap(1, 8, 64) == 2  # two warps
    assert tiles_merged_row_step(1, 8, 512, 16, 1095540) == 4  # 36: 4 mod 16
    assert tiles_merged_row_step(1, 8, 512, 16, 759000) == 2  # 00: 8 mod 16
    assert tiles_merged_row_step(1, 8, 512, 16, 32) == 1
    assert tiles_merged_row_step(1, 8, 512, 32, 1095540) == 4  # 20 mod 32: 8, capped
    assert tiles_merged_row_step(1, 8, 512, 16, 7) == 4 and tiles_merged_row_step(1, 8, 512, 16, None) == 0


@pytest.mark.parametrize("compiled", [False, True])
def test_merged_widening_tiles_box_matches_numpy(compiled, nvrtc_available):
    """pc49's rule (`_copy_cost.TILES_MERGE_CONVERT_BYTES`): f32 -> int64 and f16 -> f32
    permutes of 41's kind (W long, then a destination compact over two modes) through the
    merged box by default, the source and destination at element offsets, on the executor
    bit for bit, the compiled kernel too; nothing around the view written."""
    if compiled and not nvrtc_available:
        pytest.skip("NVRTC is not available")
    rng = np.random.default_rng(49)
    kernels = CopyKernels(arch="sm_90", disk=False) if compiled else None
    for sd, dd, base, so, do in (("float32", "int64", (17, 6, 150), 0, 0), ("float32", "int64", (17, 6, 150), 3, 5),
                                 ("float16", "float32", (19, 5, 301), 1, 2)):
        n = int(np.prod(base))
        src = rng.integers(-1000, 1000, size=so + n + 9).astype(sd)[so : so + n].reshape(base).transpose(2, 1, 0)
        dbase = np.full(do + n + 9, 77, dd)

        def view(b, do=do, n=n, s=src.shape):
            return b[do : do + n].reshape(s)

        assert key_strategy(plan_copy(_operand(view(dbase), None), _operand(src, None)).key) == "box<tiles>", (sd, base)
        want = dbase.copy()
        view(want)[...] = src
        copy_numpy(view(dbase), src, kernels=kernels, compiled=compiled)
        assert np.array_equal(dbase, want), (sd, dd, so, do)
