"""The blocks per multiprocessor a kernel is compiled for: `tilec.min_blocks = N`.

A `layout.launch` (or its outlined `gpu.func`) with the attribute `tilec.min_blocks =
N : i64` asks that N of its blocks fit one multiprocessor at once: the CUDA target
prints CUDA's `__launch_bounds__(threads, N)`, so ptxas keeps each thread within
65536 / (N * threads) registers (rounded down to 8; a kernel that uses `setmaxnreg`
starts each thread at that count, and its warpgroups' `setmaxnreg` redistribute the
block's share). Without it a kernel is compiled for one block (`__launch_bounds__(threads)`).
Shared memory is the program's to size: N blocks fit where N times a block's fits the
multiprocessor (the driver picks the carveout).

A launch (or kernel) with `tilec.cluster_dims = C : i64` runs its blocks in thread-block
clusters of C consecutive blocks along the grid's x (sm_90: CUDA's `__cluster_dims__(C,
1, 1)`, C in 1..8, the grid's x a multiple of C): the blocks of a cluster are resident
at once, on the multiprocessors of one GPC, and may reach each other's shared memory
(`layout.cluster_rank`, `layout.cluster_sync`, an mbarrier arrival on a peer's barrier,
a TMA load multicast to several blocks; dialects/layout_tma.py).
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


CLUSTER_ATTR = "tilec.cluster_dims"

MAX_CLUSTER = 8
"""The most blocks a portable cluster holds (CUDA's limit without the non-portable opt-in)."""


def cluster_dims(op: Operation) -> int | None:
    """The blocks per cluster `op` (a launch or a kernel) asks (along the grid's x), or
    None; a located TilecError for a value outside 1..`MAX_CLUSTER`."""
    attr = op.attributes.get(CLUSTER_ATTR)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr) or not 1 <= attr.value.data <= MAX_CLUSTER:
        raise TilecError(f"'{CLUSTER_ATTR}' must be an integer in 1..{MAX_CLUSTER}, got {attr}", op=op)
    return attr.value.data


def set_cluster_dims(op: Operation, blocks: int) -> None:
    """Run the blocks of `op` (a launch or a kernel) in clusters of `blocks` along x."""
    if not 1 <= blocks <= MAX_CLUSTER:
        raise TilecError(f"'{CLUSTER_ATTR}' must be an integer in 1..{MAX_CLUSTER}, got {blocks}", op=op)
    op.attributes[CLUSTER_ATTR] = IntegerAttr(blocks, i64)
