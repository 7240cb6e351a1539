"""`run_pipeline` verifies after each pass, but not a module whose state
(`verify_cache.state`: everything verification reads) is the state it verified in after
the pass before; a pass that changes a property or an operand in place is verified."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.toy_passes import HalveTile, Noop
from xdsl.dialects.builtin import IndexType
from xdsl.passes import ModulePass, PassPipeline

from tilec.compiler import pipeline
from tilec.compiler.pipeline import parse_module, run_pipeline
from tilec.compiler.verify_cache import state
from tilec.support.diagnostics import TilecError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "add_one.mlir"


@dataclass(frozen=True)
class FloatCoordinate(ModulePass):
    """Sets the first `layout.tile`'s first coordinate to an f32 constant's value."""

    name = "float-coordinate"

    def apply(self, ctx, op) -> None:
        tile = next(o for o in op.walk() if o.name == "layout.tile")
        one = next(o for o in op.walk() if o.name == "arith.constant" and o.result.type != IndexType())
        tile.operands = [tile.operands[0], one.result, *tile.operands[2:]]


def module():
    return parse_module(EXAMPLE.read_text(), EXAMPLE.name)


def test_an_unchanged_module_is_verified_once(monkeypatch):
    calls = []
    verify = pipeline.verify_module
    m = module()
    monkeypatch.setattr(pipeline, "verify_module", lambda m: (calls.append(1), verify(m)))
    run_pipeline(m, PassPipeline((Noop(), Noop(), Noop())))
    assert len(calls) == 1


def test_the_state_sees_a_property_and_an_operand_set_in_place():
    for change in (HalveTile, FloatCoordinate):
        m = module()
        before = state(m)
        assert state(m) == before
        change().apply(None, m)
        assert state(m) != before
    assert state(module()) != state(module())  # other ops, though alike


@pytest.mark.parametrize("bad", [HalveTile, FloatCoordinate])
def test_a_pass_after_an_unchanged_pass_is_verified(bad):
    with pytest.raises(TilecError, match=f"IR after pass '{bad.name}' does not verify"):
        run_pipeline(module(), PassPipeline((Noop(), Noop(), bad())))
