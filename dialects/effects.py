"""Memory effects of tilec's ops as xDSL traits, so that passes (xDSL's dce and cse,
tilec's canonicalize) and the CPU reference executor read them from the op itself.

`Accesses(reads=("source",), writes=("dest",))` says the op reads the memory its
`source` operand views and writes what `dest` views; `Allocates()` that its result is new
storage; `Synchronizes()` that it orders all memory (a barrier, an async wait: nothing may
move across it)."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass

from xdsl.ir import Operation
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind
from xdsl.utils.exceptions import VerifyException


@dataclass(frozen=True)
class Accesses(MemoryEffect):
    """Reads the memory viewed by the operands named in `reads`, writes that viewed by
    those in `writes` (optional operands that are absent count for nothing)."""

    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()

    def verify(self, op: Operation) -> None:
        """A coord view (an identity tensor, dialects/layout_identity.py) is no memory:
        no op accesses it."""
        for name in (*self.reads, *self.writes):
            value = getattr(op, name)
            space = getattr(getattr(value, "type", None), "space", None)
            if getattr(space, "data", None) == "coord":
                raise VerifyException(
                    f"'{op.name}' accesses memory, and its {name} is an identity tensor ({value.type}), "
                    "which has none: read its coordinates with layout.read_coord")

    def get_effects(self, op: Operation) -> Set[EffectInstance]:  # type: ignore[override]
        out: set[EffectInstance] = set()
        for kind, names in ((MemoryEffectKind.READ, self.reads), (MemoryEffectKind.WRITE, self.writes)):
            for name in names:
                value = getattr(op, name)
                if value is not None:
                    out.add(EffectInstance(kind, value))
        return out


class Allocates(MemoryEffect):
    """Its results are fresh storage."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.ALLOC, r) for r in op.results}


class Synchronizes(MemoryEffect):
    """Reads and writes all memory: no access moves across it."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.READ), EffectInstance(MemoryEffectKind.WRITE)}


def operand_accesses(op: Operation) -> dict[int, set[str]] | None:
    """Operand index -> {"read", "write"} for an op with an `Accesses` trait, else None."""
    traits = op.get_traits_of_type(Accesses)
    if not traits:
        return None
    out: dict[int, set[str]] = {}
    for effect in traits[0].get_effects(op):
        for i, operand in enumerate(op.operands):
            if operand is effect.value:
                out.setdefault(i, set()).add("read" if effect.kind == MemoryEffectKind.READ else "write")
    return out
