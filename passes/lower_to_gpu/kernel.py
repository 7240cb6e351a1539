"""The kernel lowering of `lower-to-gpu`: every op family combined, and the dispatch
table (op type -> lowering) built from their `@lowers` marks. Adding an op is adding
its marked method to the family it belongs to (or a function to compute.py)."""

from __future__ import annotations

from . import compute, funnel
from .access import AccessLowering
from .arith_ops import ArithLowering
from .base import Lowering
from .convert_layout import ConvertLayoutLowering
from .copy import CopyLowering
from .debug_print import PrintLowering
from .element_access import ElementAccessLowering
from .identity import IdentityLowering
from .load_store import LoadStoreLowering
from .matrix_moves import MatrixMoveLowering
from .mma import MmaLowering
from .pointers import PointerLowering
from .query import QueryLowering
from .reduce import ReduceLowering
from .roles import RolesLowering
from .scf import ScfLowering
from .thread_ids import ThreadIdsLowering
from .tma import TmaLowering
from .view_ops import ViewOpsLowering
from .wgmma import WgmmaLowering

FAMILIES = (ArithLowering, ViewOpsLowering, AccessLowering, LoadStoreLowering,
            ConvertLayoutLowering, ReduceLowering, ScfLowering, CopyLowering, ElementAccessLowering,
            ThreadIdsLowering, MmaLowering, WgmmaLowering, MatrixMoveLowering, TmaLowering, PointerLowering,
            RolesLowering, PrintLowering, QueryLowering, IdentityLowering)


def _table() -> dict[type, Lowering]:
    table: dict[type, Lowering] = {}
    marked = [fn for fam in FAMILIES for fn in vars(fam).values()]
    marked += list(vars(compute).values()) + list(vars(funnel).values())
    for fn in marked:
        for t in getattr(fn, "lowers", ()):
            if t in table:
                raise AssertionError(f"two lowerings of {t.name}")
            table[t] = fn
    return table


class KernelLowering(*FAMILIES):  # type: ignore[misc]
    """Lowers the body of one `layout.launch` into a `gpu.func` (see KernelBase)."""

    LOWERINGS = _table()
    DIALECT_LOWERINGS = {"arith": ArithLowering.arith_op, "math": ArithLowering.arith_op}
