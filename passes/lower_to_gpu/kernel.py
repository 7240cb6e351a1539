"""The kernel lowering of `lower-to-gpu`: the op families, the dispatch table (op type
-> the family and its lowering) built from their `@lowers` marks, and `lower_launch`,
which lowers one `layout.launch` into a `gpu.func` body. Adding an op is adding its
marked method to the family it belongs to; adding a family is adding its class here."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from xdsl.ir import Block, Operation, SSAValue

from tilec.dialects import layout

from .arith_ops import ArithLowering
from .atomic import AtomicLowering
from .base import Lowering
from .compute import ComputeLowering
from .context import LoweringContext, OpFamily
from .convert_layout import ConvertLayoutLowering
from .copy import CopyLowering
from .debug_print import PrintLowering
from .element_access import ElementAccessLowering
from .funnel import FunnelLowering
from .identity import IdentityLowering
from .load_store import LoadStoreLowering
from .mma import MmaLowering
from .ptr import PointerLowering
from .query import QueryLowering
from .reduce import ReduceLowering
from .roles import RolesLowering
from .scf import ScfLowering
from .thread_ids import ThreadIdsLowering
from .tma import TmaLowering
from .view_ops import ViewOpsLowering

FAMILIES: tuple[type[OpFamily], ...] = (
    ArithLowering, ViewOpsLowering, LoadStoreLowering, ConvertLayoutLowering, ReduceLowering, ScfLowering,
    CopyLowering, ElementAccessLowering, ThreadIdsLowering, MmaLowering, TmaLowering, PointerLowering,
    RolesLowering, PrintLowering, QueryLowering, IdentityLowering, ComputeLowering, FunnelLowering, AtomicLowering)
"""The op families (one instance per kernel, over its context)."""

Entry = tuple[type[OpFamily], Lowering]
"""A lowering and the family class whose method it is."""


def _table() -> dict[type[Operation], Entry]:
    table: dict[type[Operation], Entry] = {}
    marked: list[Entry] = [(fam, fn) for fam in FAMILIES for fn in vars(fam).values()]
    for fam, fn in marked:
        for t in getattr(fn, "lowers", ()):
            if t in table:
                raise AssertionError(f"two lowerings of {t.name}")
            table[t] = (fam, fn)
    return table


LOWERINGS: dict[type[Operation], Entry] = _table()
"""op type -> its family and lowering (from the `@lowers` marks)."""

DIALECT_LOWERINGS: dict[str, Entry] = {
    "arith": (ArithLowering, ArithLowering.arith_op),
    "math": (ArithLowering, ArithLowering.arith_op),
}
"""dialect name -> the lowering of its ops without one of their own (arith, math)."""


def lower_launch(entry: Block, launch: layout.LaunchOp, args: dict, ptr_types: dict,
                 tma_maps: dict[Operation, SSAValue]) -> None:
    """Lower the body of `launch` into `entry`, the body of its `gpu.func` (`args`: each
    value of the host function the kernel uses -> its kernel argument)."""
    ctx = LoweringContext(entry, launch, args, ptr_types, tma_maps)
    families = {fam: fam(ctx) for fam in FAMILIES}
    bound: dict[Entry, Callable[[Operation], None]] = {}

    def lowering_of(op: Operation) -> Callable[[Operation], None] | None:
        found = LOWERINGS.get(type(op)) or DIALECT_LOWERINGS.get(op.dialect_name())
        if found is None:
            return None
        if found not in bound:
            fam, fn = found
            bound[found] = partial(fn, families[fam])
        return bound[found]

    ctx.install(lowering_of)
    ctx.run()
