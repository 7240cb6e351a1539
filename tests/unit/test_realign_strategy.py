"""The realign strategy of a whole-tensor copy (`#layout.copy_strategy<realign>`) as the
`tile` pass writes it (passes/_realign_tile.py), and the `copy-strategy` pass's choice
of it from facts (passes/_copy_cost.py): programs built with `tilec.Program` whose
views' pointers are 16-byte aligned pointers moved by their misalignments compute the
same buffers before and after `copy-strategy,tile` and on to the GPU-level IR on the
CPU reference executor (every misalignment of both views, element sizes 1 to 8, rows
shorter than a chunk, carries through outer modes, a broadcast row, backwards rows,
32- and 64-bit offsets); the CUDA they print compiles under NVRTC."""

from __future__ import annotations

import pytest
from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, i64

from tilec import Program
from tilec.compiler.cuda import emit_cuda
from tilec.compiler.pipeline import run_pipeline
from tilec.dialects.layout import CopyOp, LaunchOp
from tilec.dialects.layout_funnel import FunnelShiftOp
from tilec.passes._copy_cost import choose_strategy, copy_facts
from tilec.passes._realign_tile import REALIGN_THREADS
from tilec.support.index_width import INDEX_BITS_ATTR
from tilec.support.target import target

PIPELINE = "copy-strategy,tile"
LOWERED = PIPELINE + ",vectorize-pointers,lower-to-gpu"


def rows(src: str, dst: str, dtype: str = "i8", smis: int | None = None, dmis: int | None = None,
         convert: str | None = None, dst_dtype: str | None = None, bits: int | None = None) -> Program:
    """A copy between views of `src` and `dst` layouts whose pointers are aligned
    pointers moved by their misalignments: static where given, else index arguments
    `smis`, `dmis`."""
    p = Program("rows")
    s = p.pointer("src", dtype, align=16)
    d = p.pointer("dst", dst_dtype or dtype, align=16)

    def mis(name: str, value: int | None):
        if value is None:
            return p.index(name)
        return p.insert(arith.ConstantOp.from_int_and_width(value, IndexType())).results[0]

    sm, dm = mis("smis", smis), mis("dmis", dmis)
    a, b = p.view(p.addptr(s, sm), src), p.view(p.addptr(d, dm), dst)
    p.insert(CopyOp(a.ssa, b.ssa, convert))
    if bits:
        next(iter(p.module.ops)).attributes[INDEX_BITS_ATTR] = IntegerAttr(bits, i64)
    return p


def _sizes(p: Program, src: str, dst: str, e: int) -> dict:
    """Buffer sizes covering the views from a misalignment of up to 15 bytes, rounded
    up to whole 16-byte chunks."""
    from tilec.dialects import cute

    out = {}
    for name, text in (("src", src), ("dst", dst)):
        lay = cute.parse_layout(text)
        reach = 16 // e + int(lay.cosize())
        out[name] = -(-reach * e // 16) * 16 // e
    return out


def _preserves(src: str, dst: str, dtype: str = "i8", pipeline: str = PIPELINE, **kw):
    e = {"i8": 1, "i16": 2, "f16": 2, "i32": 4, "f32": 4, "i64": 8, "f64": 8}[dtype]
    p = rows(src, dst, dtype, **kw)
    sizes = _sizes(p, src, dst, e)
    afters = []
    for smis, dmis in ((0, 0), (1, 16 // e - 1), (16 // e - 1, 1), (3 % (16 // e), 2 % (16 // e))):
        args = {} if kw.get("smis") is not None else {"smis": smis, "dmis": dmis}
        afters.append(assert_pass_preserves(p.module.clone(), pipeline, args=args, sizes=sizes))
    return afters[0]


CASES = {
    "short_rows": ("(5,3):(7,1)", "(5,3):(4,1)"),
    "pitches": ("(5,37):(41,1)", "(5,37):(39,1)"),
    "carries": ("(3,4,21):(100,23,1)", "(3,4,21):(90,22,1)"),
    "broadcast_row": ("(4,45):(0,1)", "(4,45):(46,1)"),
    "long_rows": ("(2,300):(301,1)", "(2,300):(303,1)"),
}


@pytest.mark.parametrize("dtype", ["i8", "i16", "i32", "i64"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_realign_preserves_every_misalignment(case, dtype):
    after = _preserves(*CASES[case], dtype)
    assert not [o for o in after.walk() if isinstance(o, CopyOp)]
    assert [o for o in after.walk() if isinstance(o, FunnelShiftOp)]
    assert next(o for o in after.walk() if isinstance(o, LaunchOp)).num_threads == REALIGN_THREADS == 256


def test_lowered_realign_preserves_and_compiles():
    after = _preserves(*CASES["carries"], "i16", pipeline=LOWERED)
    compile_sm90_or_skip(emit_cuda(after))


def test_backwards_rows_and_static_misalignments():
    # the src view's pointer at its last row, its outer stride negative
    _preserves("(4,13):(-19,1)", "(4,13):(15,1)", "i32", smis=61, dmis=2)


@pytest.mark.parametrize("bits", [32, 64])
def test_offsets_of_the_promised_width(bits):
    after = _preserves(*CASES["pitches"], "i16", bits=bits)
    text = str(after)
    assert f"x{'i32' if bits == 32 else 'i64'}, #layout.blocked" in text
    if bits == 32:  # 64-bit kernels test each element in 32 bits (`magic64`'s `_gather_tile.Narrow`)
        assert "xi64, #layout.blocked" not in text


def test_short_rows_of_8_byte_elements_take_8_byte_chunks():
    after = _preserves("(6,5):(5,1)", "(6,5):(10,1)", "i64")
    shifts = [o for o in after.walk() if isinstance(o, FunnelShiftOp)]
    assert shifts and shifts[0].result.type.get_shape() == (2 * REALIGN_THREADS, 1)  # two 8-byte chunks a thread


def _choice(p: Program, **options) -> str | None:
    copy = next(o for o in p.module.walk() if isinstance(o, CopyOp))
    return choose_strategy(copy_facts(copy), target(), **options)


def test_the_cost_model_reads_facts():
    assert _choice(rows(*CASES["pitches"])) == "realign"
    # both views aligned (static misalignments of whole vectors, strides of 16 bytes): tiled
    assert _choice(rows("(5,32):(48,1)", "(5,32):(32,1)", smis=16, dmis=0)) is None
    # a conversion, a transposed row, one mode: never
    assert _choice(rows("(5,37):(41,1)", "(5,37):(39,1)", "f32", dst_dtype="f16", convert="float32->float16")) is None
    assert _choice(rows("(5,37):(1,5)", "(5,37):(39,1)")) is None
    assert _choice(rows("37:1", "37:1")) is None
    # short odd rows into a compact dst: the gather rule first; realign=always before it
    c3 = rows("(6,5):(10,1)", "(6,5):(5,1)", "i64")
    assert _choice(c3) == "gather" and _choice(c3, realign="always") == "realign"
    assert _choice(rows(*CASES["pitches"]), realign="never") is None


def test_a_pointer_not_known_aligned_states_no_misalignment():
    p = Program("rows")
    s, d = p.pointer("src", "i8", align=4), p.pointer("dst", "i8", align=16)
    a = p.view(p.addptr(s, p.index("smis")), "(5,37):(41,1)")
    b = p.view(p.addptr(d, p.index("dmis")), "(5,37):(39,1)")
    p.insert(CopyOp(a.ssa, b.ssa))
    assert _choice(p) is None


def test_unknown_realign_setting_is_refused():
    from tilec.support.diagnostics import TilecError

    with pytest.raises(TilecError, match="realign=sometimes"):
        run_pipeline(rows(*CASES["pitches"]).module.clone(), "copy-strategy{realign=sometimes}")


def test_the_reference_views_a_moved_pointer():
    """A whole-tensor copy between views of pointers moved by scalar offsets, run as
    written: the views start at the offsets (against NumPy, the rest of dst
    untouched); an offset before the argument's start is an error."""
    import numpy as np

    import tilec
    from tilec.runtime.reference.errors import ExecutionError

    p = rows("(3,5):(7,1)", "(3,5):(6,1)")
    src = np.arange(40, dtype=np.int8)
    dst = np.full(32, 77, np.int8)
    out = tilec.run_reference(p, {"src": src, "dst": dst, "smis": 4, "dmis": 9})["dst"]
    want = dst.copy()
    for r in range(3):
        want[9 + 6 * r : 9 + 6 * r + 5] = src[4 + 7 * r : 4 + 7 * r + 5]
    assert np.array_equal(out, want)
    with pytest.raises(ExecutionError, match="before its argument's start"):
        tilec.run_reference(p, {"src": src, "dst": dst, "smis": -1, "dmis": 0})


def test_magic_divides_every_31_bit_index():
    import numpy as np

    from tilec.passes._gather_tile import magic

    rng = np.random.default_rng(5)
    divisors = [1, 2, 3, 5, 7, 31, 32, 33, 486, 7775, 65537, 2**20 + 1, 2**30, 2**31 - 1]
    divisors += [int(d) for d in rng.integers(1, 2**31, 200)]
    xs = [0, 1, 2**31 - 1, 2**31 - 2, 2**30, 2**30 - 1] + [int(x) for x in rng.integers(0, 2**31, 300)]
    for d in divisors:
        m, s = magic(d)
        assert m <= 2**32 and (2**31 - 1) * m < 2**63
        for x in xs + [d - 1, d, d + 1, 2 * d - 1, (2**31 - 1) // d * d, (2**31 - 1) // d * d - 1]:
            if 0 <= x < 2**31:
                assert (x * m) >> s == x // d, (x, d)


def test_the_host_computes_the_magic_pairs_of_run_time_divisors():
    """`host_magic`'s host ops, run by the host interpreter, give `magic(d)`."""
    import numpy as np
    from xdsl.dialects import func, gpu
    from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
    from xdsl.ir import Block, Region

    from tilec.passes._gather_tile import host_magic, magic
    from tilec.runtime.host import run_host

    block = Block(arg_types=[IndexType()])
    ops: list = []
    m, s = host_magic(block.args[0], ops)
    one = arith.ConstantOp.from_int_and_width(1, IndexType())
    launch = gpu.LaunchFuncOp(SymbolRefAttr("k", [StringAttr("k")]), [one, one, one], [one, one, one], None, [m, s])
    block.add_ops([*ops, one, launch, func.ReturnOp()])
    f = func.FuncOp("magic", ([IndexType()], []), Region(block))
    rng = np.random.default_rng(6)
    for d in [1, 2, 3, 4, 5, 16, 17, 486, 65536, 65537, 2**30, 2**31 - 1, *map(int, rng.integers(1, 2**31, 50))]:
        (got,) = run_host(f, [d])
        assert tuple(got.args) == magic(d), d
