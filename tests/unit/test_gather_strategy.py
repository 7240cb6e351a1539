"""The gather strategy of a whole-tensor copy (`#layout.copy_strategy<gather>`) as the
`tile` pass writes it (passes/_gather_tile.py), and the `copy-strategy` pass's cost
model (passes/_copy_cost.py): every program computes the same buffers before and after
(`copy-strategy{gather=always},tile` and on to the GPU-level IR) on the CPU reference
executor, over compact and padded destinations, transposes, broadcasts, runs that wrap
the last mode anywhere, carries through several modes, conversions, 32- and 64-bit
offsets; and the model's choice from facts alone."""

from __future__ import annotations

import pytest
from helpers.equivalence import assert_pass_preserves
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64

import tilec
from tilec.compiler.pipeline import run_pipeline
from tilec.dialects.layout import CopyOp, LaunchOp
from tilec.dialects.layout_ptr import PtrStoreOp
from tilec.passes._copy_cost import choose_strategy, copy_facts
from tilec.support.index_width import INDEX_BITS_ATTR
from tilec.support.target import target


def program(src: str, dst: str, st: str = "f32", dt: str | None = None, convert: str | None = None,
            bits: int | None = None, strategy: str | None = None) -> ModuleOp:
    """@copy: a whole-tensor copy from layout `src` (element type `st`) to `dst` (`dt`),
    converting (`convert`), with `tilec.index_bits = bits` on the function where given
    and the program's own `strategy`."""
    p = tilec.Program("copy")
    a = p.view(p.pointer("src", st, align=16), src).named("a")
    b = p.view(p.pointer("dst", dt or st, align=16), dst).named("b")
    p.copy(a, b, strategy=strategy, convert=convert)
    module = p.module
    if bits:
        next(o for o in module.walk() if isinstance(o, func.FuncOp)).attributes[INDEX_BITS_ATTR] = IntegerAttr(bits, i64)
    return module


CASES = {
    "c3": ("(2,10,3):(30,1,10)", "(2,10,3):(30,3,1)"),
    "transpose_odd": ("(19,17):(1,19)", "(19,17):(17,1)"),
    "blocks_17x19": ("(5,17,19):(323,1,17)", "(5,17,19):(323,19,1)"),
    "carries": ("(3,5,7,3):(105,1,5,35)", "(3,5,7,3):(105,21,3,1)"),
    "row_broadcast": ("(9,37):(0,1)", "(9,37):(37,1)"),
    "column_broadcast": ("(37,9):(1,0)", "(37,9):(9,1)"),
    "padded_dst": ("(11,5):(5,1)", "(11,5):(8,1)"),
    "stepped_src": ("(11,3,15):(1,660,44)", "(11,3,15):(45,15,1)"),
    "row_major": ("(16,40):(40,1)", "(16,40):(40,1)"),
    "vector_runs": ("(7,3,32):(0,64,1)", "(7,3,32):(96,32,1)"),
    # 2400 elements: more than one block moves (256 threads x 2 runs x 4), so the grid has 2.
    "two_blocks": ("(48,50):(50,1)", "(48,50):(52,1)"),
}
PIPELINE = "copy-strategy{gather=always},tile"
LOWERED = PIPELINE + ",vectorize-pointers,lower-to-gpu"


@pytest.mark.parametrize("case", sorted(CASES))
def test_forced_gather_preserves_every_copy(case):
    src, dst = CASES[case]
    after = assert_pass_preserves(program(src, dst), PIPELINE)
    assert not [o for o in after.walk() if isinstance(o, CopyOp)]
    assert [o for o in after.walk() if isinstance(o, PtrStoreOp)]
    launch = next(o for o in after.walk() if isinstance(o, LaunchOp))
    assert launch.num_threads == 256


@pytest.mark.parametrize("case", ["c3", "carries", "padded_dst", "column_broadcast"])
def test_forced_gather_lowered_preserves_every_copy(case):
    src, dst = CASES[case]
    assert_pass_preserves(program(src, dst), LOWERED)


@pytest.mark.parametrize("st, dt, convert", [("f32", "bf16", "float32->bfloat16"), ("i8", "f64", "uint8->float64"),
                                             ("f16", "i8", "float16->bool"), ("i32", "f16", "int32->float16")])
def test_converting_gathers_preserve(st, dt, convert):
    assert_pass_preserves(program("(3,17,19):(323,1,17)", "(3,17,19):(323,19,1)", st, dt, convert), LOWERED)


def test_vector_runs_load_whole_vectors():
    """A broadcast whose runs are aligned src vectors (rows of a padded src repeated
    along a middle mode): one 16-byte load per run after vectorize-pointers."""
    after = assert_pass_preserves(program(*CASES["vector_runs"]), PIPELINE + ",vectorize-pointers")
    loads = [o for o in after.walk() if o.name == "layout.ptr_load"]
    assert loads and all("vector = 4 : i64" in str(o) for o in loads)


@pytest.mark.parametrize("bits", [32, 64])
def test_gather_offsets_of_the_promised_width(bits):
    after = assert_pass_preserves(program(*CASES["carries"], bits=bits), PIPELINE)
    text = str(after)
    assert f"x{'i32' if bits == 32 else 'i64'}, #layout.blocked" in text
    if bits == 32:  # 64-bit kernels test each element in 32 bits (`magic64`'s `_gather_tile.Narrow`)
        assert "xi64, #layout.blocked" not in text


def _choice(src: str, dst: str, st: str = "f32", dt: str | None = None, convert: str | None = None,
            box: str = "auto") -> str | None:
    module = program(src, dst, st, dt, convert)
    copy = next(o for o in module.walk() if isinstance(o, CopyOp))
    return choose_strategy(copy_facts(copy), target(), box=box)


def test_the_cost_model_reads_facts():
    assert _choice(*CASES["c3"]) == "gather"  # a short odd last mode, runs of the src
    assert _choice(*CASES["row_broadcast"]) == "gather"  # a broadcast of 4-byte elements
    # of 1-byte ones: where each run is an aligned src vector only
    assert _choice("(9,4096):(0,1)", "(9,4096):(4096,1)", "i8") == "gather"
    assert _choice("(9,4097):(0,1)", "(9,4097):(4097,1)", "i8") is None
    assert _choice("(9,37):(0,1)", "(9,37):(37,1)", "i8") == "gather"  # but for short odd rows
    assert _choice("(2,10,4):(40,1,10)", "(2,10,4):(40,4,1)") is None  # a power of two
    assert _choice(*CASES["padded_dst"]) is None  # not compact
    assert _choice("(96,80):(1,96)", "(96,80):(80,1)") is None  # long modes
    assert _choice("(2,10,3):(30,1,10)", "(2,10,3):(30,3,1)", "f64", "f32", "float64->float32") is None
    # a src whose stride-1 mode lies outside the block's runs: sectors badly used
    assert _choice("(50,3):(1,1000)", "(50,3):(3,1)") == "gather"
    assert _choice("(50,3):(3000,1000)", "(50,3):(3,1)") is None
    # whole short rows at a short pitch share their sectors (rows of 5 bytes 7 apart:
    # gathered where the box strategy is off; a `span` box takes them, test_copy_box);
    # 64 apart, each row has a sector of its own
    assert _choice("(4096,5):(7,1)", "(4096,5):(5,1)", "i8", box="never") == "gather"
    assert _choice("(4096,5):(7,1)", "(4096,5):(5,1)", "i8") == "box<span>"
    assert _choice("(4096,5):(64,1)", "(4096,5):(5,1)", "i8") is None
    # no stride-1 mode: rows of 31 int16 taken every 2nd element use half their sectors;
    # a long such mode (its extent not stated to copy_'s kernel) is not estimated
    assert _choice("(64,31):(400,2)", "(64,31):(31,1)", "i16") == "gather"
    assert _choice("(64,31):(400,9)", "(64,31):(31,1)", "i16") is None
    assert _choice("(5,120):(0,5)", "(5,120):(120,1)", "i16", "f32", "int16->float32") is None
    # the stride-1 mode the slowest: a block is short of one step of it, every element
    # in a sector of its own (no slower mode re-reads it): not gathered; without boxes
    # the tiles, and as a copy widening its elements into a compact destination the
    # merged `box<tiles>` (`_copy_cost.TILES_MERGE_CONVERT_BYTES`, pc49)
    widening = ("(1000,56,17):(1,1000,56000)", "(1000,56,17):(952,17,1)", "f32", "i64", "float32->int64")
    assert _choice(*widening, box="never") is None
    assert _choice(*widening) == "box<tiles>"


def test_runs_that_wrap_the_stride_one_mode_count_their_sectors():
    """The strided set's case 11 (int32 -> f64, rank 6, the source's stride-1 mode of 5
    the destination's third fastest, after modes of 5 and 31): a gather block of 1024
    elements holds 6.6 of that mode per combination of the faster ones, so it wraps into
    the next slower mode (source stride 25: elsewhere) in two runs, each from a start
    anywhere on 4 bytes: 0.28 of the sectors it reads used (11-26's simulation of its
    blocks: 0.24-0.41), under `MIN_SECTOR_USE`: tiled (H200: tiled 0.50-0.52 of
    cudaMemcpy, gathered 0.46-0.49). Where the next slower mode continues the source's
    run (stride 5), the block reads one run of 6.6 elements a row: gathered."""
    dst = "(5,11,648,5,5,31):(5524200,502200,775,155,31,1)"
    assert _choice("(5,11,648,5,5,31):(5,502200,25,1,5524200,16200)", dst, "i32", "f64", "int32->float64") is None
    assert _choice("(5,11,648,5,5,31):(3240,502200,5,1,5524200,16200)", dst, "i32", "f64", "int32->float64") == "gather"


def test_a_bounded_short_last_mode_is_not_taken_for_its_padding():
    """`short_odd_last` reads an exact extent: a last mode only bounded by 64 may be a
    power of two (nothing padded), and copy_'s key of a copy its numbers keep tiled
    states only bounds, so the pass tiles it too; the copy_ plan of case 11 keeps the
    bounds (its numbers tile it) and its program is tiled."""
    from tilec.copy_plan import Operand, plan_copy
    from tilec.copy_program import tiled_module

    ext, ss = (5, 11, 648, 5, 5, 31), (5, 502200, 25, 1, 5524200, 16200)
    ds = (5524200, 502200, 775, 155, 31, 1)
    plan = plan_copy(Operand(1 << 30, "float64", ext, ds), Operand(1 << 32, "int32", ext, ss))
    assert not plan.key.exact_extents[-1]
    copy = next(o for o in tiled_module(plan.key).walk() if isinstance(o, CopyOp))
    assert choose_strategy(copy_facts(copy), target()) is None


def test_padded_rows_of_up_to_512_are_gathered():
    # rows of 259 bytes broadcast from one row (the strided set's case 20): the tiled
    # kernel pads each to 512; rows filling 90% of their ceiling or more keep it
    assert _choice("(9,259):(0,1)", "(9,259):(259,1)", "i8") == "gather"
    assert _choice("(9,300):(1000,1)", "(9,300):(300,1)", "i16") == "gather"
    assert _choice("(9,500):(0,1)", "(9,500):(500,1)", "i8") is None
    assert _choice("(9,513):(0,1)", "(9,513):(513,1)", "i8") is None  # past LONGEST_RUN
    # nor where the source does not run along the row
    assert _choice("(9,259):(1,9)", "(9,259):(259,1)", "f32") is None


def test_copy_plan_states_a_gathered_padded_row_exactly():
    from tilec.copy_plan import Operand, plan_copy
    from tilec.copy_program import tiled_module

    plan = plan_copy(Operand(1 << 30, "uint8", (950, 259), (259, 1)), Operand(1 << 32, "uint8", (950, 259), (0, 1)))
    assert plan.key.small_extents[-1] == 259 and plan.key.exact_extents[-1]
    copy = next(o for o in tiled_module(plan.key).walk() if isinstance(o, CopyOp))
    assert choose_strategy(copy_facts(copy), target()) == "gather"


def test_copy_strategy_keeps_what_the_program_chose():
    module = program(*CASES["c3"], strategy="simt")
    run_pipeline(module, "copy-strategy")
    assert next(o for o in module.walk() if isinstance(o, CopyOp)).strategy_name == "simt"


def test_unknown_gather_setting_is_refused():
    from tilec.support.diagnostics import TilecError

    with pytest.raises(TilecError, match="gather=sometimes"):
        run_pipeline(program(*CASES["c3"]), "copy-strategy{gather=sometimes}")


def test_wide_permutes_are_the_tiled_kernels():
    """`GATHER_TILED_BYTES`: a permute of 8-byte elements without conversion (the strided
    set's 18, f64 rows of 61) is the tiled kernel's however short and odd its last mode;
    converting into 8 bytes (47, uint8 -> f64), broadcasting and slices of short rows (the
    source's contiguous mode the destination's) stay the gather's, and
    `gather=always` still gathers it."""
    from tilec.passes._copy_cost import GATHER_TILED_BYTES

    assert GATHER_TILED_BYTES == 8
    assert _choice("(300,61):(1,300)", "(300,61):(61,1)", "f64") is None
    assert _choice("(300,61):(1,300)", "(300,61):(61,1)", "f32") == "gather"
    assert _choice("(300,17):(1,300)", "(300,17):(17,1)", "i8", "f64", "uint8->float64") == "gather"
    assert _choice("(7,40):(0,1)", "(7,40):(40,1)", "f64") == "gather"
    assert _choice("(600,5):(10,1)", "(600,5):(5,1)", "i64") == "gather"  # a slice of short rows: not a permute
    module = program("(300,61):(1,300)", "(300,61):(61,1)", "f64", None, None)
    copy = next(o for o in module.walk() if isinstance(o, CopyOp))
    assert choose_strategy(copy_facts(copy), target(), gather="always") == "gather"
