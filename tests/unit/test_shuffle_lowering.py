"""lower-to-gpu lowers intra-warp layout conversions to warp shuffles (`cuda.shfl_idx`).

Random pairs of linear layouts whose conversion stays within each warp (the destination's
register and lane bases span what the source's do, its warp bases differ from the
source's by an element of that span), with and without broadcasting: the lowered program
computes bit for bit what the layout-level program computes on the CPU reference
executor, `lower-convert-layout` (shuffle=auto) keeps the conversion for shuffles, no
shared memory is used, and the CUDA compiles with NVRTC for sm_90."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import memref

from tilec.compiler.pipeline import emit, run_pipeline
from tilec.dialects import cuda, layout
from tilec.dialects.linear import LinearLayout, conversion_kind
from tilec.passes.lower_convert_layout import recorded_lowering

from helpers.equivalence import assert_pass_preserves
from helpers.nvrtc import compile_sm90_or_skip
from helpers.programs import conversion_program, decision_ops

_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
ELEMENT_TYPES = ["f32", "f16", "i8", "f64", "i32"]


def _enc(ll: LinearLayout) -> str:
    def bl(name):
        return "[" + ", ".join("[" + ", ".join(map(str, b)) + "]" for b in ll.get_bases(name)) + "]"

    return (f"#layout.linear<{{register = {bl('register')}, lane = {bl('lane')}, "
            f"warp = {bl('warp')}, block = []}}>")


def program(shape, src: LinearLayout, dst: LinearLayout, et: str, threads: int):
    """load in `src`, convert to `dst`, store: a row-major tile of `shape` (a module)."""
    return conversion_program(shape, _enc(src), _enc(dst), et, threads)


def _bit(shape, k: int) -> tuple[int, ...]:
    """Bit k of a flat index of `shape` (last dim fastest) as a coordinate tuple."""
    c = [0] * len(shape)
    for d in reversed(range(len(shape))):
        n = shape[d].bit_length() - 1
        if k < n:
            c[d] = 1 << k
            return tuple(c)
        k -= n
    raise AssertionError(k)


def _xor(u, v):
    return tuple(a ^ b for a, b in zip(u, v))


@st.composite
def intra_warp_pairs(draw):
    """(shape, src, dst): dst's register + lane bases are an invertible GF(2) mix of
    src's (zeros included: broadcasting), its warp bases src's plus span elements."""
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    n_reg = draw(st.integers(0, 3))
    n_warp = draw(st.integers(0, 2))
    n_zero = draw(st.integers(0, 2))  # broadcast bases of the source
    rank = draw(st.sampled_from([1, 2]))
    total = n_reg + 5 + n_warp - n_zero
    if rank == 1:
        shape = (1 << total,)
    else:
        a = rng.randint(1, total - 1)
        shape = (1 << a, 1 << (total - a))
    vecs = [_bit(shape, k) for k in range(total)]
    rng.shuffle(vecs)
    zero = tuple(0 for _ in shape)
    for _ in range(n_zero):
        vecs.insert(rng.randint(0, len(vecs)), zero)
    src = LinearLayout({"register": vecs[:n_reg], "lane": vecs[n_reg:n_reg + 5],
                        "warp": vecs[n_reg + 5:]}, list(shape))
    rl = vecs[:n_reg + 5]
    n = len(rl)
    while True:  # a random invertible n x n matrix over GF(2)
        rows = [rng.getrandbits(n) for _ in range(n)]
        if LinearLayout({"x": [(r,) for r in rows]}, [1 << n]).is_invertible():
            break
    mixed = []
    for r in rows:
        v = zero
        for j in range(n):
            if r >> j & 1:
                v = _xor(v, rl[j])
        mixed.append(v)
    rng.shuffle(mixed)

    def span_element():
        v = zero
        for x in rl:
            if rng.random() < 0.5:
                v = _xor(v, x)
        return v

    warps = [_xor(w, span_element()) for w in vecs[n_reg + 5:]]
    dst = LinearLayout({"register": mixed[:n_reg], "lane": mixed[n_reg:], "warp": warps}, list(shape))
    et = draw(st.sampled_from(ELEMENT_TYPES))
    return shape, src, dst, et, 32 << n_warp


@settings(max_examples=80, **_SETTINGS)
@given(intra_warp_pairs())
def test_shuffle_lowering_preserves_random_intra_warp_conversions(case):
    shape, src, dst, et, threads = case
    kind = conversion_kind(src, dst)
    assert kind in ("identity", "register", "warp_shuffle")
    after = assert_pass_preserves(program(shape, src, dst, et, threads), "lower-convert-layout{shuffle=on},lower-to-gpu",
                                  seeds=(0, 1))
    ops = list(after.walk())
    assert not any(isinstance(o, memref.AllocaOp) for o in ops), "no shared memory"
    shuffles = [o for o in ops if isinstance(o, cuda.ShflIdxOp)]
    comments = [o.text.data for o in ops if isinstance(o, cuda.CommentOp)]
    if kind == "warp_shuffle":
        assert shuffles
        assert len(comments) == 1 and "via warp shuffles" in comments[0]
        assert f"{len(shuffles)} shuffle" in comments[0]
    else:
        assert not shuffles and "in registers" in comments[0]


@settings(max_examples=80, **_SETTINGS)
@given(intra_warp_pairs())
def test_shuffle_is_chosen_by_lower_convert_layout_auto(case):
    """auto: shuffles where the cost model finds them no dearer than shared memory
    (`shuffle_cost` <= `smem_cost`, recorded on the op that carries `lowering`)."""
    shape, src, dst, et, threads = case
    m = program(shape, src, dst, et, threads)
    run_pipeline(m, "lower-convert-layout")
    (op,) = decision_ops(m)
    if conversion_kind(src, dst) != "warp_shuffle":
        assert isinstance(op, layout.ConvertLayoutOp) and recorded_lowering(op) == "register"
        return
    cheaper = op.attributes["shuffle_cost"].value.data <= op.attributes["smem_cost"].value.data
    assert recorded_lowering(op) == ("shuffle" if cheaper else "smem")
    assert any(isinstance(o, layout.AllocOp) for o in m.walk()) == (not cheaper)


@settings(max_examples=30, **_SETTINGS)
@given(intra_warp_pairs())
def test_shuffle_kernels_compile_with_nvrtc(case):
    shape, src, dst, et, threads = case
    m = program(shape, src, dst, et, threads)
    run_pipeline(m, "lower-convert-layout{shuffle=on},lower-to-gpu")
    text = emit(m, "cuda")
    compile_sm90_or_skip(text)
    if conversion_kind(src, dst) == "warp_shuffle":
        assert "__shfl_sync(0xffffffffu" in text
        assert "// convert_layout via warp shuffles:" in text


def test_lane_swap_is_one_shuffle_per_register():
    """Lanes 0 and 1 swap their elements: one shuffle, no select."""
    src = LinearLayout({"register": [(128,)], "lane": [(1,), (2,), (4,), (8,), (16,)],
                        "warp": [(32,), (64,)]}, [256])
    dst = LinearLayout({"register": [(128,)], "lane": [(2,), (1,), (4,), (8,), (16,)],
                        "warp": [(32,), (64,)]}, [256])
    m = program((256,), src, dst, "f32", 128)
    run_pipeline(m, "lower-to-gpu")
    ops = list(m.walk())
    assert sum(isinstance(o, cuda.ShflIdxOp) for o in ops) == 2
    assert not any(o.name == "arith.select" for o in ops)


def test_sender_selects_the_register_it_sends():
    """Lanes 0 and 1 swap, and reader lanes with bit 0 set want the other register: one
    shuffle per register, the sender choosing with a select which register it sends."""
    src = LinearLayout({"register": [(1,)], "lane": [(2,), (4,), (8,), (16,), (32,)]}, [64])
    dst = LinearLayout({"register": [(1,)], "lane": [(5,), (2,), (8,), (16,), (32,)]}, [64])
    assert conversion_kind(src, dst) == "warp_shuffle"
    after = assert_pass_preserves(program((64,), src, dst, "f32", 32), "lower-to-gpu")
    ops = list(after.walk())
    assert sum(isinstance(o, cuda.ShflIdxOp) for o in ops) == 2
    assert sum(o.name == "arith.select" for o in ops) == 2


def test_two_readers_of_one_lane_are_served_in_rounds():
    """Lanes 2l and 2l+1 both want lane l's elements (registers 0 and 1 of it): in round
    k, lane 2l+b receives its register k ^ b, so every lane reads a different lane per
    round: one shuffle per register, a select on each side."""
    src = LinearLayout({"register": [(1,)], "lane": [(2,), (4,), (8,), (16,), (32,)]}, [64])
    dst = LinearLayout({"register": [(32,)], "lane": [(1,), (2,), (4,), (8,), (16,)]}, [64])
    assert conversion_kind(src, dst) == "warp_shuffle"
    after = assert_pass_preserves(program((64,), src, dst, "f32", 32), "lower-to-gpu")
    ops = list(after.walk())
    assert sum(isinstance(o, cuda.ShflIdxOp) for o in ops) == 2
    assert sum(o.name == "arith.select" for o in ops) == 4


def test_broadcast_source_lanes_are_free_to_read():
    """The source repeats its data over lane bits 3 and 4 (zero bases): the reader may
    read either copy, so every conversion of this family takes one shuffle per register."""
    src = LinearLayout({"register": [(1,)], "lane": [(2,), (4,), (8,), (0,), (0,)]}, [16])
    dst = LinearLayout({"register": [(8,)], "lane": [(1,), (2,), (4,), (0,), (0,)]}, [16])
    assert conversion_kind(src, dst) == "warp_shuffle"
    after = assert_pass_preserves(program((16,), src, dst, "f32", 32), "lower-to-gpu")
    assert sum(isinstance(o, cuda.ShflIdxOp) for o in after.walk()) == 2


def test_register_choice_that_depends_on_the_lane_needs_no_shuffle():
    """conversion_kind says 'register' (no data leaves the thread), but which register
    depends on the lane: selects only."""
    src = LinearLayout({"register": [(1,)], "lane": [(2,), (4,), (8,), (16,), (32,)]}, [64])
    dst = LinearLayout({"register": [(1,)], "lane": [(3,), (4,), (8,), (16,), (32,)]}, [64])
    assert conversion_kind(src, dst) == "register"
    after = assert_pass_preserves(program((64,), src, dst, "f32", 32), "lower-to-gpu")
    ops = list(after.walk())
    assert not any(isinstance(o, cuda.ShflIdxOp) for o in ops)
    assert sum(o.name == "arith.select" for o in ops) == 2
