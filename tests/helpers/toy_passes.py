"""Two module passes for the tests of `run_pipeline`'s verification (test_verify_unchanged,
test_verify_at_the_end): `Noop` changes nothing; `HalveTile` sets the first `layout.tile`'s
extents in place, its result type left as it was (IR the verifier refuses)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class Noop(ModulePass):
    name = "noop"

    def apply(self, ctx, op) -> None:
        pass


@dataclass(frozen=True)
class HalveTile(ModulePass):
    """Sets the first `layout.tile`'s extents in place (its result type left as it was)."""

    name = "halve-tile"

    def apply(self, ctx, op) -> None:
        tile = next(o for o in op.walk() if o.name == "layout.tile")
        tile.properties["tile"] = DenseArrayBase.from_list(i64, [16, 32])
