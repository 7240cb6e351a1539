"""Memory effects live on the ops (dialects/effects.py): what each of tilec's memory ops
reads and writes, that the reference executor's `access_effects` reads them, and that
xDSL's dead-code elimination may drop an unused load but never a store or a barrier.
Every op of the `layout` dialect declares its effects, no `Pure` op reads a view's
elements (`layout.mma` reads its shared operands), and CSE, canonicalisation and
loop-invariant code motion never merge or move an mma or a load across a barrier or
an mbarrier wait, nor (on barriers of an `mbarrier_array` picked by `mbarrier_at`)
merge, move or hoist the arrivals and waits themselves, an async mma or its
`mma_wait`."""

from __future__ import annotations

import pytest
from xdsl.dialects import scf
from xdsl.traits import EffectInstance, MemoryEffectKind, get_effects, is_side_effect_free

from tilec.compiler.pipeline import run_pipeline
from tilec.dialects import cuda, layout
from tilec.dialects.effects import Accesses, operand_accesses
from tilec.dialects.layout_mma import MmaOp
from tilec.runtime.reference.effects import access_effects

def program():
    """@f(%x, %y, %z) (a module built with `tilec.Program`): x copied into shared
    memory, a barrier, a load of z never used, the shared tile loaded and stored to y."""
    import tilec

    lay = tilec.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    p = tilec.Program("f")
    a, b, c = (p.view(p.pointer(n, "f32", align=None), "(32,32):(32,1)") for n in ("x", "y", "z"))
    with p.launch(threads=128):
        s = p.alloc("(32,32):(32,1)", "f32")
        p.copy(a, s)
        p.barrier()
        p.load(c, lay).named("unused")
        p.store(p.load(s, lay), b)
    return p.module


def _ops(module, cls):
    return [op for op in module.walk() if isinstance(op, cls)]


def test_each_memory_op_names_what_it_reads_and_writes():
    m = program()
    (copy,) = _ops(m, layout.CopyOp)
    assert operand_accesses(copy) == {0: {"read"}, 1: {"write"}}
    store = _ops(m, layout.StoreOp)[0]
    assert operand_accesses(store) == {1: {"write"}}
    assert {operand_accesses(op)[0] == {"read"} for op in _ops(m, layout.LoadOp)} == {True}
    (alloc,) = _ops(m, layout.AllocOp)
    assert {e.kind for e in get_effects(alloc)} == {MemoryEffectKind.ALLOC}
    (barrier,) = _ops(m, layout.BarrierOp)
    assert {e.kind for e in get_effects(barrier)} == {MemoryEffectKind.READ, MemoryEffectKind.WRITE}
    assert all(is_side_effect_free(op) for op in _ops(m, layout.TileOp) + _ops(m, layout.ViewOp))
    assert cuda.CpAsyncOp.get_traits_of_type(Accesses) == [Accesses(reads=("src",), writes=("dst",))]


def test_the_executor_reads_the_effects_from_the_ops():
    m = program()
    x, y, z = (a for a in next(iter(_ops(m, layout.LaunchOp))).parent_op().args)
    assert access_effects(m, x) == {"read"}
    assert access_effects(m, y) == {"write"}
    assert access_effects(m, z) == {"read"}


def test_dce_drops_an_unused_load_and_keeps_stores_and_barriers():
    m = program()
    run_pipeline(m, "dce")
    assert len(_ops(m, layout.LoadOp)) == 1
    assert len(_ops(m, layout.StoreOp)) == 1 and len(_ops(m, layout.BarrierOp)) == 1
    assert len(_ops(m, layout.CopyOp)) == 1


# ----------------------------------------------------------------- every layout op


def _view_type():
    from xdsl.parser import Parser

    from tilec.compiler.pipeline import make_context

    return Parser(make_context(), "!layout.tensor<f32, #layout.cute<(4):(1)>, smem>").parse_type()


def _accepts(operand_def, t) -> bool:
    from xdsl.irdl import VerificationContext

    try:
        operand_def.constr.verify((t,), VerificationContext())
    except Exception:  # the constraint rejects the type
        return False
    return True


VIEW_ARITHMETIC = {op.name for op in layout.VIEW_OPS} - {"layout.alloc"} | {
    "layout.dim",
    "layout.rank",
    "layout.depth",
    "layout.size",
    "layout.cosize",
    "layout.tiled_iterator",
    "layout.buffer_iterator",
    "layout.read_coord",  # an identity tensor's element is its coordinate: no memory
    "layout.peer_view",  # the same view's address in a peer block (mapa): no element read
}
"""Ops that read a view's layout (its shape, strides, base), never its elements: they
may be `Pure` although an operand is a view."""

GENERIC_OPERANDS = {
    "layout.cmpi", "layout.cmpf", "layout.select", "layout.scan", "layout.join",
    "layout.addptr", "layout.multiple_of", "layout.splat", "layout.view",
}
"""`Pure` ops whose operand constraints take any type; their verifiers take
distributed tensors, pointers or scalars (values), never views of memory."""

UNDECLARED = {
    "layout.launch": "a kernel launch: unknown effects, as xDSL assumes of an op that declares none",
    "layout.static_assert": "checked by the verifier and erased before the GPU-level IR; kept by DCE",
    "layout.prefetch": "an L2 prefetch changes no value; declaring no effect keeps dead-code elimination from "
                       "erasing it (it has no results)",
    "layout.prefetch_l1": "an L1 prefetch changes no value; as layout.prefetch, no effect keeps DCE from erasing it",
    "layout.ptr_prefetch": "an L2 prefetch of pointer tensors changes no value; as layout.prefetch, no effect keeps DCE "
                           "from erasing it",
}
"""Ops that declare no memory effect on purpose (xDSL then assumes any effect)."""


def test_every_layout_op_declares_its_memory_effects():
    """A new op of the `layout` dialect must say what it does to memory: a
    `MemoryEffect` trait (`Pure`, `Accesses`, `Allocates`, `Synchronizes`, or its own
    `get_effects`), recursive effects for a region, a terminator, or an entry of
    UNDECLARED with the reason."""
    from xdsl.traits import IsTerminator, MemoryEffect, RecursiveMemoryEffect

    missing = [
        op.name
        for op in layout.Layout.operations
        if not any(isinstance(t, (MemoryEffect, RecursiveMemoryEffect, IsTerminator)) for t in op.traits)
        and op.name not in UNDECLARED
    ]
    assert missing == []


def test_no_pure_layout_op_reads_a_view():
    """A `Pure` op may be merged, hoisted out of a loop or moved across a barrier: one
    whose operands are views must only read their layouts (VIEW_ARITHMETIC); `Pure`
    ops with operands of any type are listed in GENERIC_OPERANDS, so that a new one is
    looked at. `layout.mma` reads the shared memory of its view operands: not `Pure`."""
    from xdsl.dialects.builtin import i32
    from xdsl.traits import NoMemoryEffect

    view = _view_type()
    named_views, generic = set(), set()
    for op in layout.Layout.operations:
        if not any(isinstance(t, NoMemoryEffect) for t in op.traits):
            continue
        for _, od in op.get_irdl_definition().operands:
            if _accepts(od, view):
                (generic if _accepts(od, i32) else named_views).add(op.name)
    assert named_views <= VIEW_ARITHMETIC, named_views - VIEW_ARITHMETIC
    assert generic - named_views == GENERIC_OPERANDS
    assert "layout.mma" not in named_views | generic


def test_accesses_name_operands_of_the_op():
    """Each `Accesses` trait names operands its op has, or properties giving one
    (`layout.print`'s `view`: None for a tensor); a typo would be an op reading nothing."""
    for op in [*layout.Layout.operations, *cuda.Cuda.operations]:
        names = {n for n, _ in op.get_irdl_definition().operands}
        names |= {n for n in dir(op) if isinstance(getattr(op, n, None), property)}
        for t in op.get_traits_of_type(Accesses):
            assert set(t.reads) | set(t.writes) <= names, op.name


# ----------------------------------------------------------- mma and the optimisers

def _mma_program(between: str | None = None, loop: bool = False):
    """Two identical wgmma `layout.mma` (and two identical shared-memory loads) with
    `between` ("barrier", "mbarrier_wait" or None: nothing) between them; with `loop`,
    the mma inside an `scf.for` whose operands are all defined outside it (a module
    built with `tilec.Program`)."""
    import tilec

    mma = tilec.NvidiaMmaLayout(3, [4, 1], [64, 64, 16])
    frag_a = tilec.DotOperandLayout(0, mma, 2)
    p = tilec.Program("f")
    pa, pb, pc = (p.pointer(n, t, align=16) for n, t in (("pa", "bf16"), ("pb", "bf16"), ("pc", "f32")))
    a, b, c = p.view(pa, "(64,16):(16,1)"), p.view(pb, "(16,64):(64,1)"), p.view(pc, "(64,64):(64,1)")
    c0 = p.constant(0)
    with p.launch(threads=128):
        sa = p.alloc("#layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>", "bf16")
        sb = p.alloc("#layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>", "bf16")
        bar = p.mbarrier_init(1)
        p.copy(a, sa)
        p.copy(b, sb)
        p.barrier()
        acc0 = p.load(c, mma)
        if loop:
            with p.range(0, 4):
                p.store(p.mma(sa, sb, acc0), c)
        else:
            d1, l1 = p.mma(sa, sb, acc0), p.load(sa, frag_a)
            if between == "barrier":
                p.barrier()
            elif between == "mbarrier_wait":
                p.mbarrier_wait(bar, c0)
            d2, l2 = p.mma(sa, sb, acc0), p.load(sa, frag_a)
            p.store(d1, c)
            p.store(d2, c)
            r1, r2 = p.mma(l1, sb, acc0), p.mma(l2, sb, acc0)
            p.store(r1, c)
            p.store(r2, c)
    return p.module


def test_mma_reads_the_shared_memory_of_its_view_operands():
    m = _mma_program()
    d1, _, r1, _ = _ops(m, MmaOp)
    assert get_effects(d1) == {
        EffectInstance(MemoryEffectKind.READ, d1.a),
        EffectInstance(MemoryEffectKind.READ, d1.b),
    }
    # A in registers: only B is memory
    assert get_effects(r1) == {EffectInstance(MemoryEffectKind.READ, r1.b)}
    assert not is_side_effect_free(d1)


def _names(m) -> list[str]:
    (launch,) = _ops(m, layout.LaunchOp)
    return [op.name for op in launch.walk() if op.name in ("layout.mma", "layout.load", "layout.barrier",
                                                          "layout.mbarrier_wait", "layout.store")]


@pytest.mark.parametrize("passes", ["cse", "canonicalize", "canonicalize-xdsl", "licm"])
@pytest.mark.parametrize("between", ["barrier", "mbarrier_wait"])
def test_optimisers_neither_merge_nor_move_mma_and_loads_across_a_barrier(passes, between):
    """CSE, canonicalisation (xDSL's and tilec's) and loop-invariant code motion leave
    the mma and shared loads on their side of a barrier or an mbarrier wait: the ops
    stay as written, in order."""
    m = _mma_program(between)
    before = _names(m)
    _run(m, passes)
    assert _names(m) == before
    m = _mma_program(loop=True)
    (loop,) = _ops(m, scf.ForOp)
    _run(m, passes)
    assert len(_ops(m, MmaOp)) == 1 and _ops(m, MmaOp)[0].parent_op() is loop


def test_cse_merges_identical_reads_with_nothing_between():
    """What the test above guards against happens without the barrier: CSE merges the
    second mma and load into the first (they read, and nothing writes between), and
    then the register mmas of the merged loads: two mmas and two loads (the
    accumulator's and one of A) are left of four and three."""
    m = _mma_program()
    assert len(_ops(m, MmaOp)) == 4 and len(_ops(m, layout.LoadOp)) == 3
    run_pipeline(m, "cse")
    assert len(_ops(m, MmaOp)) == 2 and len(_ops(m, layout.LoadOp)) == 2


def _run(m, passes: str) -> None:
    from xdsl.transforms.canonicalize import CanonicalizePass
    from xdsl.transforms.loop_invariant_code_motion import LoopInvariantCodeMotionPass

    from tilec.compiler.pipeline import make_context

    if passes == "canonicalize-xdsl":
        CanonicalizePass().apply(make_context(), m)
    elif passes == "licm":
        LoopInvariantCodeMotionPass().apply(make_context(), m)
    else:
        run_pipeline(m, passes)


# ------------------------------------------ staged mbarriers and async mma, the optimisers

SYNC_NAMES = ("layout.mma", "layout.mma_wait", "layout.load", "layout.barrier", "layout.mbarrier_arrive",
              "layout.mbarrier_wait", "layout.store")


def _staged_program(between: str | None, loop: bool = False):
    """Async wgmma (`layout.mma {async}`, then one `layout.mma_wait` of both), sync
    wgmma and shared loads, each twice the same, on either side of `between` on a barrier of an `mbarrier_array` picked by
    `mbarrier_at` ("wait": an mbarrier wait; "arrive": two identical arrivals; "both":
    arrive then wait twice over, as a ring's step does); with `loop`, all of it inside
    an `scf.for` whose operands are all defined outside it (a module built with
    `tilec.Program`)."""
    import tilec

    mma = tilec.NvidiaMmaLayout(3, [4, 1], [64, 64, 16])
    frag_a = tilec.DotOperandLayout(0, mma, 2)
    p = tilec.Program("g")
    pa, pb, pc = (p.pointer(n, t, align=16) for n, t in (("pa", "bf16"), ("pb", "bf16"), ("pc", "f32")))
    a, b, c = p.view(pa, "(64,16):(16,1)"), p.view(pb, "(16,64):(64,1)"), p.view(pc, "(64,64):(64,1)")
    c0, c1 = p.constant(0), p.constant(1)
    with p.launch(threads=128) as k:
        sa = p.alloc("#layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>", "bf16")
        sb = p.alloc("#layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>", "bf16")
        bars = p.mbarrier_array(2, count=2)
        p.copy(a, sa)
        p.copy(b, sb)
        p.barrier()
        acc0 = p.load(c, mma)

        def step(stage):
            e1 = p.mma(sa, sb, acc0, is_async=True)
            l1, s1 = p.load(sa, frag_a), p.mma(sa, sb, acc0)
            if between in ("arrive", "both"):
                p.mbarrier_arrive(p.mbarrier_at(bars, stage))
                p.mbarrier_arrive(p.mbarrier_at(bars, stage))
            if between in ("wait", "both"):
                p.mbarrier_wait(p.mbarrier_at(bars, stage), c0)
                p.mbarrier_wait(p.mbarrier_at(bars, stage), c0)
            l2, s2 = p.load(sa, frag_a), p.mma(sa, sb, acc0)
            e2 = p.mma(sa, sb, acc0, is_async=True)
            d1, d2 = p.mma_wait(e1, e2, pending=0)
            r1, r2 = p.mma(l1, sb, acc0), p.mma(l2, sb, acc0)
            for v in (s1, s2, d1, d2, r1, r2):
                p.store(v, c)

        if loop:
            with p.range(0, 4):
                step(c1)
        else:
            step(p.remui(k.bx, p.constant(2)))  # a run-time stage
    return p.module


def _sync_names(m) -> list[str]:
    (launch,) = _ops(m, layout.LaunchOp)
    return [op.name for op in launch.walk() if op.name in SYNC_NAMES]


@pytest.mark.parametrize("passes", ["cse", "canonicalize", "canonicalize-xdsl", "licm", "cse,canonicalize,cse"])
@pytest.mark.parametrize("between", ["wait", "arrive", "both"])
def test_optimisers_keep_staged_mbarrier_ops_and_async_mma_waits_in_place(passes, between):
    """On barriers of an mbarrier array (`mbarrier_at`, at a run-time stage or a
    loop-invariant one): CSE, canonicalisation and LICM never merge two identical
    arrivals or waits, never move an async mma, its `mma_wait` or a shared load across
    them, and never hoist any of them out of a loop (identical `mbarrier_at` addresses
    may be merged or hoisted: they read no memory)."""
    m = _staged_program(between)
    before = _sync_names(m)
    assert before.count("layout.mma") == 6 and before.count("layout.mma_wait") == 1
    for p in passes.split(","):
        _run(m, p)
    assert _sync_names(m) == before
    m = _staged_program(between, loop=True)
    (loop,) = _ops(m, scf.ForOp)
    before = _sync_names(m)
    in_loop = [op.name for op in loop.walk() if op.name in SYNC_NAMES]
    for p in passes.split(","):
        _run(m, p)
    assert _sync_names(m) == before
    assert [op.name for op in loop.walk() if op.name in SYNC_NAMES] == in_loop, f"an op left the loop under {passes}"
    assert {"layout.mma_wait", "layout.mbarrier_arrive" if between == "arrive" else "layout.mbarrier_wait"} <= set(in_loop)


def test_cse_merges_identical_shared_reads_but_no_async_mma_with_nothing_between():
    """The guard's counterpart: with nothing between them, CSE merges the second sync
    mma and shared load into the first (they read shared memory, and nothing writes it
    between), then the register mmas of the merged loads; it never merges the two async
    mmas (each opens a group of wgmma in flight that `mma_wait` counts). So the test
    above would see a merge if the mbarrier ops did not stop it."""
    from tilec.dialects.layout_mma import MmaWaitOp

    m = _staged_program(None)
    assert len(_ops(m, MmaOp)) == 6 and len(_ops(m, layout.LoadOp)) == 3
    run_pipeline(m, "cse")
    assert len(_ops(m, MmaOp)) == 4 and len(_ops(m, layout.LoadOp)) == 2
    assert len([op for op in _ops(m, MmaOp) if op.is_async]) == 2
    (wait,) = _ops(m, MmaWaitOp)
    assert wait.operands[0] is not wait.operands[1]
