"""The blocks per multiprocessor a kernel is compiled for: `tilec.min_blocks = N`.

A `layout.launch` (or its outlined `gpu.func`) with the attribute `tilec.min_blocks =
N : i64` asks that N of its blocks fit one multiprocessor at once: the CUDA target
prints CUDA's `__launch_bounds__(threads, N)`, so ptxas keeps each thread within
65536 / (N * threads) registers (rounded down to 8; a kernel that uses `setmaxnreg`
starts each thread at that count, and its warpgroups' `setmaxnreg` redistribute the
block's share). Without it a kernel is compiled for one block (`__launch_bounds__(threads)`).
Shared memory is the program's to size: N blocks fit where N times a block's fits the
multiprocessor (the driver picks the carveout).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Operation

from tilec.support.diagnostics import TilecError

MIN_BLOCKS_ATTR = "tilec.min_blocks"


def min_blocks(op: Operation) -> int | None:
    """The blocks per multiprocessor `op` (a launch or a kernel) asks, or None; a
    located TilecError for a value that is not a positive integer."""
    attr = op.attributes.get(MIN_BLOCKS_ATTR)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr) or attr.value.data < 1:
        raise TilecError(f"'{MIN_BLOCKS_ATTR}' must be a positive integer, got {attr}", op=op)
    return attr.value.data


def set_min_blocks(op: Operation, blocks: int) -> None:
    """Ask `blocks` blocks of `op` (a launch or a kernel) per multiprocessor."""
    if blocks < 1:
        raise TilecError(f"'{MIN_BLOCKS_ATTR}' must be a positive integer, got {blocks}", op=op)
    op.attributes[MIN_BLOCKS_ATTR] = IntegerAttr(blocks, i64)
