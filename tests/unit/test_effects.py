"""Memory effects live on the ops (dialects/effects.py): what each of tilec's memory ops
reads and writes, that the reference executor's `access_effects` reads them, and that
xDSL's dead-code elimination may drop an unused load but never a store or a barrier."""

from __future__ import annotations

from xdsl.traits import MemoryEffectKind, get_effects, is_side_effect_free

from tilec.compiler.pipeline import parse_module, run_pipeline
from tilec.dialects import cuda, layout
from tilec.dialects.effects import Accesses, operand_accesses
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
