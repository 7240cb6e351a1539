"""The attention KV loop masks only the blocks that can hold a masked element (issue 40):
the compares and selects of the sequence-length and causal masks sit in an `scf.if` on
a uniform (scalar) condition per KV step, before and after the default pipeline, for
every schedule; the path of an interior block carries none of them. The masks' results
are checked against NumPy by tests/unit/test_attention.py (ragged Skv, causal,
interior blocks that skip the mask and edge blocks that run it)."""

from __future__ import annotations

import pytest
from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType

from tilec.compiler.attention import attention_fwd
from tilec.compiler.attention_tiles import tile_config
from tilec.compiler.pipeline import run_pipeline

SCHEDULES = {
    "ws": dict(d=128, bn=128),
    "ws-overlap": dict(d=64, bn=64),
    "sync": dict(d=128, warp_specialized=False),
    "persistent": dict(d=128, persistent=3),
    "pingpong": dict(d=128, pingpong=True, persistent=3),
    "pingpong-overlap": dict(d=64, pingpong=True, bn=64, overlap=True),
    "d256": dict(d=256),
}


MMA = ("layout.mma", "cuda.wgmma", "cuda.wgmma_rs")


def _mask_ops(module):
    """The masks' compares and selects: a `layout.cmpi` / `layout.select` on an S tile;
    lowered, the per-element `arith.select` of an f32 score (-inf or the score)."""
    for op in module.walk():
        t = op.results[0].type if op.results else None
        if op.name in ("layout.cmpi", "layout.select") and isinstance(t, TensorType) and len(t.get_shape()) == 2:
            yield op
        elif op.name == "arith.select" and str(t) == "f32":
            yield op


def _kv_loops(module):
    """The consumers' KV loops: the innermost `scf.for`s around wgmma (not the
    persistent tile loops around them, which also hold the tile's first Q K^T and,
    overlapped, its softmax)."""
    def owner(op):
        while op is not None and not isinstance(op, scf.ForOp):
            op = op.parent_op()
        return op
    loops = (owner(op) for op in module.walk() if op.name in MMA)  # pingpong's first Q K^T: before the loop
    found = {id(f): f for f in loops if f is not None}
    return [f for f in found.values() if not any(id(o) in found for o in f.walk() if o is not f)]


def _check(module, stages: int) -> None:
    ops = list(_mask_ops(module))
    assert ops, "no mask in the kernel"
    guards = set()
    for op in ops:
        guard = op.parent_op()
        assert isinstance(guard, scf.IfOp), f"{op.name} outside a guarded block (in {guard.name})"
        assert not isinstance(guard.cond.type, TensorType), "the guard is a uniform scalar condition"
        assert not any(o.name in MMA or "mbarrier" in o.name for o in guard.walk()), \
            "the guarded block holds only the mask"
        guards.add(id(guard))
    loops = list(_kv_loops(module))
    assert loops
    for loop in loops:
        in_loop = {id(o) for o in loop.walk() if isinstance(o, scf.IfOp)} & guards
        assert len(in_loop) == stages, "one guarded mask per KV step of the unrolled round"


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_masks_only_in_guarded_blocks(schedule, causal):
    kw = dict(SCHEDULES[schedule])
    d = kw.pop("d")
    p = attention_fwd(d, "bf16", causal=causal, **kw)
    n = kw.get("stages") or tile_config(d, "bf16").stages
    _check(p.module, n)
    _check(run_pipeline(p.module.clone(), "default"), n)
