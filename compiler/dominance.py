"""Checking that every value is defined before it is used (SSA dominance).

xDSL's verifier does not check dominance, so a parsed `%a = op %b` followed by the
definition of `%b`, or an op using its own result, reached the passes and the CPU
reference executor, which failed on the missing value. MLIR rejects such input with
"operand #N does not dominate this use"; `check_dominance` does the same, at the using
op.

The rule (MLIR's): a use of a value defined in block B by op D (or a block argument
of B) is dominated when the using op's ancestor in B comes after D (any op of B, for
an argument), or, where the use is in another block C of B's region, when B dominates
C in that region's control flow graph. A use outside B's region is never dominated.
Regions of `builtin.module` and `gpu.module` are graph regions (no order), and blocks
that no branch enters are dominated by every block, as in MLIR.
"""

from __future__ import annotations

from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl.dominance import DominanceInfo

from tilec.support.diagnostics import TilecError

GRAPH_REGION_OPS = frozenset({"builtin.module", "gpu.module"})


class _Order:
    """Positions of ops in their blocks and dominance of blocks, computed once each."""

    def __init__(self) -> None:
        self._pos: dict[Block, dict[Operation, int]] = {}
        self._dom: dict[Region, DominanceInfo] = {}

    def position(self, op: Operation) -> int:
        block = op.parent_block()
        assert block is not None
        table = self._pos.get(block)
        if table is None:
            table = self._pos[block] = {o: i for i, o in enumerate(block.ops)}
        return table[op]

    def block_dominates(self, region: Region, a: Block, b: Block) -> bool:
        info = self._dom.get(region)
        if info is None:
            info = self._dom[region] = DominanceInfo(region)
        unreachable = b is not region.blocks.first and not b.predecessors()
        return unreachable or info.dominates(a, b)


def _ancestor_in_region(op: Operation, region: Region) -> Operation | None:
    """The op of `region` (at its top level) that is `op` or holds it; None if none."""
    cur: Operation | None = op
    while cur is not None:
        if cur.parent_region() is region:
            return cur
        cur = cur.parent_op()
    return None


def _dominates(value: SSAValue, user: Operation, order: _Order) -> bool:
    if isinstance(value, OpResult):
        definer: Operation | None = value.op
        block = value.op.parent_block()
    elif isinstance(value, BlockArgument):
        definer, block = None, value.block
    else:
        return True
    if block is None:
        return True
    region = block.parent
    if region is None:
        return True
    parent = region.parent
    if parent is not None and parent.name in GRAPH_REGION_OPS:
        return True
    anc = _ancestor_in_region(user, region)
    if anc is None:
        return False
    use_block = anc.parent_block()
    if use_block is not block:
        return use_block is not None and order.block_dominates(region, block, use_block)
    return definer is None or order.position(definer) < order.position(anc)


def check_dominance(root: Operation) -> None:
    """Raise a located TilecError at the first op (in walk order) using a value that
    is not defined before it."""
    order = _Order()
    for op in root.walk():
        for i, operand in enumerate(op.operands):
            if not _dominates(operand, op, order):
                name = f" (%{operand.name_hint})" if operand.name_hint else ""
                raise TilecError(
                    f"operand #{i}{name} does not dominate this use: it is used before it is defined",
                    op=op,
                )
