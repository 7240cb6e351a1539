"""The kernels `tilec.copy_` picks for cases of the generated strided set
(benchmarks/strided_copy_bench.py, seed 0) whose rule was changed from an H200
measurement, and the canonical copies' kernels, which those changes leave as they were:
(strategy, tile, threads) read from the IR after the `tile` pass
(`helpers.canonical_copies.copy_choice`), on the CPU.
"""

from __future__ import annotations

from helpers.canonical_copies import CANONICAL, DST_BASE, SRC_BASE, c_strides, copy_choice

from tilec.copy_plan import Operand, plan_copy
from tilec.copy_routes import forced_routes
from tilec.passes._box_tile import TILES_GRAIN, TILES_MERGE_GRAIN, tiles_smem
from tilec.passes._copy_cost import tiles_shape
from tilec.passes.tile import DYN, source_run_modes


def permuted(dtype: str, base: tuple[int, ...], perm: tuple[int, ...], dst_dtype: str) -> tuple[Operand, Operand]:
    """(dst, src): src a C-contiguous `base` tensor permuted by `perm`, dst a new
    C-contiguous tensor of its shape."""
    strides = c_strides(base)
    shape = tuple(base[p] for p in perm)
    src = Operand(SRC_BASE, dtype, shape, tuple(strides[p] for p in perm))
    return Operand(DST_BASE, dst_dtype, shape, c_strides(shape)), src


def test_narrow_misaligned_transpose_takes_the_short_mode_tile():
    """Case 23, bool -> int16 16998 x 28506 transposed (rows of 28506 int16: 57012 bytes,
    not a multiple of 16), where the box does not take it (`box=never`): 1-byte source
    elements, so the misaligned 128 KiB tile would hold 32 KiB at one block a
    multiprocessor (`tile.misaligned_tile_fills`); the short-mode tile instead: source
    runs of a warp's 32 elements, the rest of 16 KiB to the destination's runs, at 256
    threads (H200: 512 x 64 at 512 threads 0.39 of cudaMemcpy, 32 x 128 and 32 x 256 at
    256 threads 0.61)."""
    with forced_routes(box="never"):
        dst, src = permuted("bool", (16998, 28506), (1, 0), "int16")
        assert copy_choice(plan_copy(dst, src)) == ("tiled", (32, 512), 256)
        # its mirror of 2-byte elements: 8192 of them, the same runs of 32
        dst, src = permuted("int16", (16998, 28506), (1, 0), "int32")
        assert copy_choice(plan_copy(dst, src)) == ("tiled", (32, 256), 256)


def test_narrow_converting_transpose_takes_the_converting_box():
    """Case 23 takes `box<tiles>`, its phase 2 converting each element
    (`_copy_cost.TILES_CONVERT_BYTES`: source elements of 1 or 2 bytes, where the tiled
    copy's every access is one element; the destination's at most twice as wide,
    `TILES_CONVERT_WIDENING`): H200 0.715 of cudaMemcpy against the tiled kernel's 0.589
    (32 x 512, `box=never`) in one run. Of 4-byte source elements the tiled copy's
    misaligned tile (it fills its byte budget)."""
    dst, src = permuted("bool", (16998, 28506), (1, 0), "int16")
    assert copy_choice(plan_copy(dst, src)) == ("box<tiles>", None, 512)
    dst, src = permuted("int16", (16998, 28506), (1, 0), "int32")
    assert copy_choice(plan_copy(dst, src)) == ("box<tiles>", None, 512)
    dst, src = permuted("float32", (16998, 28506), (1, 0), "float64")
    assert copy_choice(plan_copy(dst, src))[0] == "tiled"


def test_a_compact_destination_after_w_merges_into_one_box_mode():
    """Cases 36 (int8 rank 6, the destination's contiguous mode of 19 steps) and 00 (uint8,
    a mode in both views' contiguous groups): the destination compact over the modes after
    the source's contiguous mode W, a `box<tiles>` takes them as one mode D' (runs from a
    table) and W whole (`_copy_cost.TILES_MERGE_BYTES`, `tiles_merged_run`: W stated
    exactly). H200 (one run, ratio to cudaMemcpy): 36 0.284 tiled -> 0.546, 00 0.418 ->
    0.598 (runs of 128: 0.449, 0.504). 06 (int32, D of 42) stays tiled: 0.977 against 0.960
    merged. 1-byte rows read at a step of 2: 37's long rows take the realign strategy's
    step-2 form (16-byte chunks from three aligned vectors, 256 threads: 0.446 -> 0.562,
    its tiled kernel held one block a multiprocessor by 174 registers); 07's rows of 56
    keep the gather (0.424 against 0.330) (`_copy_cost.REALIGN_STEPS`, `STEP2_SHORT_ROW`)."""
    ext = (181, 31, 12, 5, 31, 19)
    plan = plan_copy(Operand(DST_BASE, "int8", ext, c_strides(ext)),
                     Operand(SRC_BASE, "int8", ext, (1, 67332, 181, 2087292, 2172, 10436460)))
    assert copy_choice(plan) == ("box<tiles>", None, 512)
    assert plan.key.small_extents[0] == 181 and plan.key.exact_extents[0] and plan.key.dst_flat
    ext = (186, 3, 230, 4, 275)
    plan = plan_copy(Operand(DST_BASE, "uint8", ext, c_strides(ext)), Operand(SRC_BASE, "uint8", ext, (1, 744, 2232, 186, 513360)))
    assert copy_choice(plan) == ("box<tiles>", None, 512)
    assert plan.key.small_extents[0] == 186 and plan.key.exact_extents[0]
    ext = (793, 871, 42)
    assert copy_choice(plan_copy(Operand(DST_BASE, "int32", ext, c_strides(ext)),
                                 Operand(SRC_BASE, "int32", ext, (1, 793, 690703))))[0] == "tiled"
    ext = (488, 20070, 56)
    assert copy_choice(plan_copy(Operand(DST_BASE, "int8", ext, c_strides(ext)),
                                 Operand(SRC_BASE + 9392764, "int8", ext, (4696380, 117, 2))))[0] == "gather"
    ext = (34951, 18858)
    assert copy_choice(plan_copy(Operand(DST_BASE, "int8", ext, c_strides(ext)),
                                 Operand(SRC_BASE + 37723, "int8", ext, (75438, 2))))[0] == "realign"


def test_a_merged_box_owns_whole_sectors(monkeypatch):
    """A `box<tiles>` over a merged destination mode (36, 00) owns grains of
    `_box_tile.TILES_MERGE_GRAIN` bytes; an unmerged int8 box owns whole sectors too
    (`TILES_SECTOR_PLAIN_BYTES`, i8p47, b0048). H200 (perm40): 36 at 32
    bytes 0.584 against 0.553-0.555 at 16 in three calls, 00 0.599 against 0.600-0.605; the
    confirming call ended in an illegal address in one of its variants: 16 until confirmed."""
    import tilec.passes.tile as tile_pass

    grains = []
    real = tile_pass.box_launch

    def spy(*args, **kwargs):
        grains.append(args[8])  # box_launch's tiles_grain
        return real(*args, **kwargs)

    monkeypatch.setattr(tile_pass, "box_launch", spy)
    ext = (181, 31, 12, 5, 31, 19)
    copy_choice(plan_copy(Operand(DST_BASE, "int8", ext, c_strides(ext)),
                          Operand(SRC_BASE, "int8", ext, (1, 67332, 181, 2087292, 2172, 10436460))))
    ext = (8191, 8209)  # the odd int8 transpose: its box unmerged
    copy_choice(plan_copy(Operand(DST_BASE, "int8", ext, c_strides(ext)), Operand(SRC_BASE, "int8", ext, (1, 8191))))
    assert grains == [TILES_MERGE_GRAIN, 32]


def test_a_short_d_box_takes_d_whole_and_longer_runs():
    """Case 00, uint8 (186, 3, 230, 4, 275) permuted (4, 2, 1, 3, 0): `box<tiles>` with a
    destination contiguous mode of 186 steps, under a third of the 86 KiB box's 592-step
    tile; `tilec.copy_` states it exactly and the box takes it whole (192 steps) with runs
    of 400 bytes (W's 275 in one tile) instead of 128 (`_copy_cost.TILES_FIT_D`). Measured
    with the 75 KiB box (runs of 352, W's 275 whole as here): H200 0.419 of cudaMemcpy
    against 0.365 for the 512 x 128 box in one run (runs of 288 at 256 threads 0.419, a 32
    KiB box at 256 threads 0.410; tiled 0.322). A long D keeps the box's tile."""
    with forced_routes(tiles_merge=0):  # (its destination is compact after W: merged by default)
        dst, src = permuted("uint8", (186, 3, 230, 4, 275), (4, 2, 1, 3, 0), "uint8")
        plan = plan_copy(dst, src)
        assert copy_choice(plan) == ("box<tiles>", None, 512)
        assert plan.key.small_extents[-1] == 186 and plan.key.exact_extents[-1]
    assert tiles_shape(1, tiles_smem(1), None, TILES_GRAIN, 1, 186) == (400, 192, 416)
    assert tiles_shape(1, tiles_smem(1), None, TILES_GRAIN, 1, 8209) == tiles_shape(1, tiles_smem(1)) == (128, 592, 144)
    dst, src = permuted("uint8", (8209, 8191), (1, 0), "uint8")
    assert not plan_copy(dst, src).key.exact_extents[-1]


def test_wide_misaligned_transposes_keep_the_misaligned_tile():
    """4- and 8-byte source elements reach the misaligned tile's byte budget (64 KiB)
    below its element cap: the canonical f64 8191 x 8209 transpose keeps 64 x 128 at 256
    threads, a converting f32 one 128 x 128 at 512 (source runs of 128), and the strided
    set's case 17 (int64 -> int16) 64 x 128."""
    dst, src = permuted("float32", (8191, 8209), (1, 0), "float64")
    assert copy_choice(plan_copy(dst, src)) == ("tiled", (128, 128), 512)
    dst, src = permuted("int64", (16129, 60, 37), (1, 2, 0), "int16")
    assert copy_choice(plan_copy(dst, src)) == ("tiled", (64, 128), 256)


def test_a_gather_whose_runs_wrap_their_mode_is_tiled():
    """Case 11, int32 -> f64 of rank 6: the gather's blocks would use about 0.28 of the
    source sectors they read (`_copy_cost.sector_use`: runs of the stride-1 mode of 5
    wrap into a mode elsewhere), under `MIN_SECTOR_USE`; the tiled kernel (H200: 0.50-0.52
    of cudaMemcpy against 0.46-0.49 gathered). Its source is contiguous over the modes of
    5, 5 and 648 (strides 1, 5, 25): the tile takes the first two whole and two steps of
    the third, source runs of 200 bytes (`tile.SOURCE_RUN_BYTES`; copy_ states the two
    short extents exactly and the strides 5 and 25 as values), and the budget counting
    the elements it uses (3100 of 8192) two steps of the destination's next mode. H200
    (sb39): 0.811 of cudaMemcpy against 0.752 for 8 x 1 x 2 x 8 x 1 x 32 (the budget
    counting padding) in one run; 0.740 against 0.519 for 1 x 1 x 2 x 8 x 8 x 32 (runs of
    20 bytes) and 0.618 for 8 x 1 x 1 x 8 x 2 x 32 (runs of 100) in another. At 512 threads
    (a tile over a short source run, s1146): x1.012 in turns."""
    ext = (5, 11, 648, 5, 5, 31)
    src = Operand(SRC_BASE, "int32", ext, (5, 502200, 25, 1, 5524200, 16200))
    plan = plan_copy(Operand(DST_BASE, "float64", ext, c_strides(ext)), src)
    assert copy_choice(plan) == ("tiled", (8, 1, 2, 8, 2, 32), 512)
    assert plan.key.src_strides[0] == 5 and plan.key.src_strides[2] == 25
    assert plan.key.exact_extents[0] and plan.key.exact_extents[3] and not plan.key.exact_extents[2]
    # the modes that continue the source's run of 5: the 5 at stride 5, the 648 at stride 25
    assert source_run_modes([5, DYN, 25, 1, DYN, DYN], list(ext), 3) == [0, 2]


def test_a_short_source_mode_is_a_box_run_whole():
    """Case 29, float16 -> bfloat16 (42, 13, 23, 69, 181) permuted (4, 2, 3, 0, 1): the
    source's contiguous mode W has 42 steps (84 bytes), the destination's D 12489; a
    `box<tiles>` whose runs take W whole (96 bytes: `_copy_cost.TILES_SHORT_BYTES`,
    `tiles_short_run`) moves 16-byte vectors on both sides where the tiled kernel (64 x 1 x
    128) moves every element alone. H200, one run (sb39): 0.762 of cudaMemcpy against
    0.613 (the box at 256 threads 0.572). A W under 64 bytes (`TILES_SHORT_RUN`) stays
    tiled; 1-byte copies without conversion keep their flavours (`flat`, `rows`, `cols`)."""
    dst, src = permuted("float16", (69, 181, 13, 23, 42), (4, 2, 3, 0, 1), "bfloat16")
    plan = plan_copy(dst, src)
    assert copy_choice(plan) == ("box<tiles>", None, 512)
    assert plan.key.small_extents[0] == 42 and plan.key.exact_extents[0]
    with forced_routes(tiles_short=0):
        assert copy_choice(plan_copy(dst, src)) == ("tiled", (64, 1, 128), 512)
    dst, src = permuted("float16", (69, 181, 13, 23, 7), (4, 2, 3, 0, 1), "bfloat16")
    assert copy_choice(plan_copy(dst, src))[0] == "tiled"


CANONICAL_CHOICES = {
    "transpose int8 8192x8192": ("tiled", (128, 128), 256),
    "transpose float16 8192x8192": ("tiled", (128, 64), 256),
    "transpose bfloat16 8192x8192": ("tiled", (128, 64), 256),
    "transpose float32 8192x8192": ("tiled", (64, 64), 256),
    "transpose float64 8192x8192": ("tiled", (64, 32), 256),
    "transpose int8 8191x8209": ("box<tiles>", None, 512),
    "transpose float16 8191x8209": ("box<tiles>", None, 512),
    "transpose float32 8191x8209": ("box<tiles>", None, 512),
    "transpose float64 8191x8209": ("tiled", (64, 128), 256),
    "NHWC->NCHW float16": ("tiled", (1, 64, 128), 256),
    "NCHW->NHWC float16": ("tiled", (1, 128, 64), 256),
    "NHWC->NCHW float32": ("tiled", (1, 64, 64), 256),
    "NCHW->NHWC float32": ("tiled", (1, 64, 64), 256),
    "NCHW->NHWC float32 C=3": ("gather", None, 256),
    "batched transpose float16": ("tiled", (1, 128, 64), 256),
    "batched transpose float32": ("tiled", (1, 64, 64), 256),
    "head split float16": ("tiled", (1, 1, 256, 64), 256),
    "head merge float16": ("tiled", (1, 16, 16, 64), 256),
    "every 2nd row float32": ("tiled", (32, 256), 256),
    "columns 1:-1 float32": ("realign", None, 256),
    "row broadcast float32": ("gather", None, 256),
    "column broadcast float32": ("gather", None, 256),
    "cast float32->bfloat16": ("tiled", (4096,), 256),
    "cast float16->float32": ("tiled", (8192,), 256),
    "transposing cast float32->bfloat16": ("tiled", (64, 64), 256),
    "box flat bool 19x38647519": ("box<flat>", None, 256),
    "box cols uint8->int8 rows of 5": ("box<cols>", None, 256),
    "box rows int8 37x17 in 1691 steps": ("box<rows>", None, 256),
    "realign int8 columns 1: of 8192x8195": ("realign", None, 256),
    "gather int32 column broadcast 2532x6882": ("gather", None, 256),
    "gather uint8 rows of 5 at a pitch of 7": ("box<span>", None, 256),
}
"""Each canonical copy's (strategy, tile, threads) as measured in benchmarks/NOTES.md
(session 35's merged tree): a rule change that moves one of them is measured first."""


def test_canonical_copies_keep_their_kernels():
    assert {c.name for c in CANONICAL} == set(CANONICAL_CHOICES)
    got = {c.name: copy_choice(plan_copy(*c.operands())) for c in CANONICAL}
    assert got == CANONICAL_CHOICES


def test_rows_into_a_longer_pitch_ask_l2_for_their_partial_sectors():
    """Cases 16, 34 and 46: a contiguous source's rows written into rows at a longer pitch
    (int16 rows of 254 at 256, int32 rows of 56 at 59, int64 rows of 5 at 10), each
    row covering some 32-byte sectors in part. A write of part of a sector that is not in
    L2 makes L2 fetch the rest from DRAM before writing it back (Nsight Compute, H200, 34:
    1028 MB read for 869 MB of source, the 159 MB `partial_sectors` counts); the realign
    kernel asks L2 for those sectors first (`layout.ptr_prefetch`, `prefetch.global.L2`:
    `_realign_tile.SECTOR_PREFETCH`), so the fill is a read among its loads. H200 of
    cudaMemcpy, without / with: 16 0.667 / 0.824, 34 0.584 / 0.719, 46 0.422 / 0.550; the
    realign cases whose rows are long (04, 10, 19, 22, 28, 40) within 0.5%."""
    from tilec.compiling import compile_program
    from tilec.copy_kernels import FUNCTION, kernel_pipeline
    from tilec.copy_program import copy_program

    for dtype, ext, pitch in (("int16", (31859, 3, 11, 254), (26880, 3840, 256, 1)),
                              ("int32", (7, 32605, 17, 56), (44246342, 1357, 59, 1)),
                              ("int64", (2066257, 5), (10, 1))):
        e = {"int16": 2, "int32": 4, "int64": 8}[dtype]
        plan = plan_copy(Operand(DST_BASE + 4 * e, dtype, ext, pitch), Operand(SRC_BASE, dtype, ext, c_strides(ext)))
        assert copy_choice(plan) == ("realign", None, 256)
        kernel = compile_program(copy_program(plan.key), kernel_pipeline(plan.key, "default"), arch="sm_90",
                                 function=FUNCTION)
        assert "prefetch.global.L2" in str(kernel.source)


def test_odd_transposes_own_whole_sectors_and_copy_int8_by_lines():
    """`box<tiles>` of 2-, 4- and 8-byte elements own whole 32-byte destination sectors
    (`_box_tile.TILES_SECTOR_BYTES`; f64's box x1.017 over 16-byte grains, odd44): H200, 8191 x 8209, Program path (odd40), f32 0.937 ->
    0.962 and 0.918 -> 0.939 of cudaMemcpy in two runs, f16 0.941 -> 0.960; int8 0.856 ->
    0.795 (its 86 KiB box, 16 more runs, spills): grain 16 for 1-byte elements; converting
    copies into 2- or 4-byte elements own whole sectors too (`TILES_SECTOR_CONVERTS`: the
    strided set's 29 x1.022, 23 x1.040 in turns, perm43). int8's phase 1 copies by 128-byte lines
    (`TILES_LINES_BYTES`: one L2 request a quarter warp; 0.854 -> 0.863), wider elements not
    (f32 0.918 -> 0.921). Phase 2 by lines (bit 2) stays off: int8 0.787, f16 0.905. 1-byte
    elements not converted own whole sectors on both paths (`TILES_SECTOR_PLAIN_BYTES`: copy_'s
    int8 8191 x 8209 x1.039, i8p47; the Program's with `TILES_ISSUE_CONSTANT`, which keeps its
    kernel from spilling there, x1.052-x1.099 on three odd shapes, b0048)."""
    from tilec.passes._box_tile import tiles_grain_of, tiles_lines_of

    assert [tiles_grain_of(e, None) for e in (1, 2, 4, 8)] == [32, 32, 32, 32]
    assert tiles_grain_of(1, 16) == 16
    assert tiles_grain_of(2, None, converts=True) == 32 and tiles_grain_of(1, None, converts=True) == 16
    assert tiles_grain_of(4, 16) == 16
    assert [tiles_lines_of(e, None) for e in (1, 2, 4)] == [1, 0, 0] and tiles_lines_of(1, 0) == 0


def _strided(i: int) -> tuple[Operand, Operand]:
    """(dst, src) of case `i` of the strided set (seed 0) at the canonical bases."""
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
    import strided_copy_bench as sb

    from tilec.copy_plan import ITEMSIZE

    case = sb.generate_cases(0, 48, 64, 1024)[i]
    ss, sst, so, ds, dst, do = sb.case_views(case)
    return (Operand(DST_BASE + do * ITEMSIZE[case.dst_dtype], case.dst_dtype, ds, dst),
            Operand(SRC_BASE + so * ITEMSIZE[case.src_dtype], case.src_dtype, ss, sst))


def test_s1146_rules_threads_and_converting_runs():
    """s1146's rules (H200, in turns): realign copies at 256 threads (34 x1.017, 16
    x1.009, 04 x1.035, 22 x1.023 against 512); tiled copies over a short source run at
    512 (11 x1.012, 05 x1.032; 06 and 41, long runs, lose: 256); a 1-byte source
    converted to wider takes runs of 256 bytes without lines (23 x1.026), int8 keeps
    128 by lines."""
    from tilec.passes._box_tile import tiles_lines_of
    from tilec.passes._copy_cost import tiles_run_bytes

    assert copy_choice(plan_copy(*_strided(34))) == ("realign", None, 256)
    assert copy_choice(plan_copy(*_strided(16))) == ("realign", None, 256)
    assert copy_choice(plan_copy(*_strided(11))) == ("tiled", (8, 1, 2, 8, 2, 32), 512)
    assert copy_choice(plan_copy(*_strided(5)))[2] == 512
    assert copy_choice(plan_copy(*_strided(6)))[2] == 256
    with forced_routes(tiles_merge=0):  # 41's tiled kernel (pc49 merged it by rule)
        assert copy_choice(plan_copy(*_strided(41)))[2] == 256
    assert (tiles_run_bytes(1), tiles_run_bytes(1, 1), tiles_run_bytes(1, 2), tiles_run_bytes(2)) == (128, 128, 256, 256)
    assert tiles_lines_of(1, None) & 1 and not tiles_lines_of(1, None, 2) & 1
    assert tiles_lines_of(1, 1, 2) == 1  # asked


def test_pc49_widening_copies_take_the_merged_box():
    """pc49's rule (`_copy_cost.TILES_MERGE_CONVERT_BYTES`, H200 in turns: the strided set's
    41 x1.027 [1.008, 1.043] over the tiled kernel): a copy widening its elements at most
    twice into a destination compact over the modes after W takes the merged `box<tiles>`
    up to 4-byte sources, both passes and the plan alike (`tiles_merge_bytes`); 06 (int32,
    no conversion) keeps the tiled kernel; `tiles_merge=0` none."""
    from tilec.passes._copy_cost import TILES_MERGE_BYTES, CopyFacts, Mode, tiles_merge_bytes

    assert copy_choice(plan_copy(*_strided(41))) == ("box<tiles>", None, 512)
    assert copy_choice(plan_copy(*_strided(6)))[0] == "tiled"
    with forced_routes(tiles_merge=0):
        assert copy_choice(plan_copy(*_strided(41))) == ("tiled", (32, 4, 32), 256)
    def facts(e, ed, w):
        return CopyFacts((Mode(w, w, True, 1, 952), Mode(56, 56, True, w, 17), Mode(17, 17, True, 56 * w, 1)),
                         e, ed, 16, 16, True, None, None, converts=e != ed)

    widen, eight, plain, short_w = facts(4, 8, 14107), facts(1, 8, 14107), facts(4, 4, 14107), facts(4, 8, 42)
    assert [tiles_merge_bytes(f, TILES_MERGE_BYTES) for f in (widen, eight, plain, short_w)] == [4, 1, 1, 1]
    assert tiles_merge_bytes(widen, 0) == 0


def test_the_tiles_blocks_route_launches_converting_boxes_so():
    """The copy route `tiles_blocks` (the `tile` option, p1b50's three blocks of 512 a
    multiprocessor for converting boxes: x0.82-0.84 on the H200, not a rule) reaches the
    kernel's launch: the strided set's 23 (bool -> int16) takes `tilec.min_blocks` 3 under
    it, the rule's 2 (1024 / threads) without."""
    from helpers.canonical_copies import _split

    from tilec.compiler.pipeline import parse_module, run_pipeline
    from tilec.copy_kernels import kernel_pipeline
    from tilec.copy_program import copy_program
    from tilec.dialects.layout import LaunchOp
    from tilec.support.launch_bounds import min_blocks

    def blocks(key) -> int | None:
        module = parse_module(copy_program(key))
        run_pipeline(module, ",".join(_split(kernel_pipeline(key, "default"))))
        return min_blocks(next(op for op in module.walk() if isinstance(op, LaunchOp)))

    plan = plan_copy(*_strided(23))
    assert copy_choice(plan) == ("box<tiles>", None, 512)
    assert blocks(plan.key) == 2
    with forced_routes(tiles_blocks=3):
        assert "tiles_blocks=3" in kernel_pipeline(plan.key, "default")
        assert blocks(plan.key) == 3


def test_merged_one_byte_boxes_take_issue_bit_256():
    """p1b50's rule (`_box_tile.TILES_ISSUE_MERGED`, H200 in turns: the strided set's 36
    x1.007, 00 x1.009 over bits 9): a `box<tiles>` over a merged destination mode of 1-byte
    elements adds bit 256 (its edge path on the chunk's kept box addresses, no run-table read
    an element) to its source size's bits; other sizes (41's 4-byte merged box) keep theirs,
    as do boxes not merged; asked bits stand."""
    from tilec.passes._box_tile import TILES_ISSUE, TILES_ISSUE_BYTES, tiles_issue_of

    assert tiles_issue_of(1, None, merged=True) == TILES_ISSUE_BYTES[1] | 256 == 265
    assert tiles_issue_of(1, None) == TILES_ISSUE_BYTES[1]
    assert tiles_issue_of(4, None, merged=True) == TILES_ISSUE_BYTES.get(4, TILES_ISSUE)
    assert tiles_issue_of(1, 9, merged=True) == 9
