"""Memory effects live on the ops (dialects/effects.py): what each of tilec's memory ops
reads and writes, that the reference executor's `access_effects` reads them, and that
xDSL's dead-code elimination may drop an unused load but never a store or a barrier.
Every op of the `layout` dialect declares its effects, no `Pure` op reads a view's
elements (`layout.mma` reads its shared operands), and CSE, canonicalisation and
loop-invariant code motion never merge or move an mma or a load across a barrier or
an mbarrier wait."""

from __future__ import annotations

import pytest
from xdsl.dialects import scf
from xdsl.traits import EffectInstance, MemoryEffectKind, get_effects, is_side_effect_free

from tilec.compiler.pipeline import parse_module, run_pipeline
from tilec.dialects import cuda, layout
from tilec.dialects.effects import Accesses, operand_accesses
from tilec.dialects.layout_mma import MmaOp
from tilec.runtime.reference.effects import access_effects

_B = "#layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
_G = "!layout.tensor<f32, #layout.cute<(32,32):(32,1)>, gmem>"
_S = "!layout.tensor<f32, #layout.cute<(32,32):(32,1)>, smem>"
PROGRAM = f"""
func.func @f(%x: !layout.ptr<f32>, %y: !layout.ptr<f32>, %z: !layout.ptr<f32>) {{
  %a = layout.view %x : !layout.ptr<f32> -> {_G}
  %b = layout.view %y : !layout.ptr<f32> -> {_G}
  %c = layout.view %z : !layout.ptr<f32> -> {_G}
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : {_S}
    layout.copy %a, %s : {_G}, {_S}
    layout.barrier
    %unused = layout.load %c : {_G} -> tensor<32x32xf32, {_B}>
    %v = layout.load %s : {_S} -> tensor<32x32xf32, {_B}>
    layout.store %v, %b : tensor<32x32xf32, {_B}>, {_G}
  }}
  func.return
}}
"""


def _ops(module, cls):
    return [op for op in module.walk() if isinstance(op, cls)]


def test_each_memory_op_names_what_it_reads_and_writes():
    m = parse_module(PROGRAM)
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
    m = parse_module(PROGRAM)
    x, y, z = (a for a in next(iter(_ops(m, layout.LaunchOp))).parent_op().args)
    assert access_effects(m, x) == {"read"}
    assert access_effects(m, y) == {"write"}
    assert access_effects(m, z) == {"read"}


def test_dce_drops_an_unused_load_and_keeps_stores_and_barriers():
    m = parse_module(PROGRAM)
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

_MMA = "#layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>"
_ACC = f"tensor<64x64xf32, {_MMA}>"
_GA = "!layout.tensor<bf16, #layout.cute<(64,16):(16,1)>, gmem>"
_GB = "!layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>"
_GC = "!layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>"
_SA = "!layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>"
_SB = "!layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>"
_RA = f"tensor<64x16xbf16, #layout.dot_op<opIdx = 0, parent = {_MMA}, kWidth = 2>>"


def _mma_program(between: str, loop: bool = False) -> str:
    """Two identical wgmma `layout.mma` (and two identical shared-memory loads) with
    `between` (an op, or nothing) between them; with `loop`, the mma inside an
    `scf.for` whose operands are all defined outside it."""
    two = f"""
    %d1 = layout.mma %sa, %sb, %acc0 : {_SA}, {_SB}, {_ACC}
    %l1 = layout.load %sa : {_SA} -> {_RA}
    {between}
    %d2 = layout.mma %sa, %sb, %acc0 : {_SA}, {_SB}, {_ACC}
    %l2 = layout.load %sa : {_SA} -> {_RA}
    layout.store %d1, %c : {_ACC}, {_GC}
    layout.store %d2, %c : {_ACC}, {_GC}
    %r1 = layout.mma %l1, %sb, %acc0 : {_RA}, {_SB}, {_ACC}
    %r2 = layout.mma %l2, %sb, %acc0 : {_RA}, {_SB}, {_ACC}
    layout.store %r1, %c : {_ACC}, {_GC}
    layout.store %r2, %c : {_ACC}, {_GC}"""
    looped = f"""
    scf.for %i = %c0 to %c4 step %c1 {{
      %d = layout.mma %sa, %sb, %acc0 : {_SA}, {_SB}, {_ACC}
      layout.store %d, %c : {_ACC}, {_GC}
    }}"""
    return f"""
func.func @f(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {{
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> {_GA}
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> {_GB}
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> {_GC}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {{
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : {_SA}
    %sb = layout.alloc : {_SB}
    %bar = layout.mbarrier_init {{count = 1 : i64}}
    layout.copy %a, %sa : {_GA}, {_SA}
    layout.copy %b, %sb : {_GB}, {_SB}
    layout.barrier
    %acc0 = layout.load %c : {_GC} -> {_ACC}{looped if loop else two}
  }}
  func.return
}}
"""


def test_mma_reads_the_shared_memory_of_its_view_operands():
    m = parse_module(_mma_program(""))
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
@pytest.mark.parametrize("between", ["layout.barrier", "layout.mbarrier_wait %bar, %c0"])
def test_optimisers_neither_merge_nor_move_mma_and_loads_across_a_barrier(passes, between):
    """CSE, canonicalisation (xDSL's and tilec's) and loop-invariant code motion leave
    the mma and shared loads on their side of a barrier or an mbarrier wait: the ops
    stay as written, in order."""
    m = parse_module(_mma_program(between))
    before = _names(m)
    _run(m, passes)
    assert _names(m) == before
    m = parse_module(_mma_program("", loop=True))
    (loop,) = _ops(m, scf.ForOp)
    _run(m, passes)
    assert len(_ops(m, MmaOp)) == 1 and _ops(m, MmaOp)[0].parent_op() is loop


def test_cse_merges_identical_reads_with_nothing_between():
    """What the test above guards against happens without the barrier: CSE merges the
    second mma and load into the first (they read, and nothing writes between), and
    then the register mmas of the merged loads: two mmas and two loads (the
    accumulator's and one of A) are left of four and three."""
    m = parse_module(_mma_program(""))
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
