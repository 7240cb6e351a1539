"""Broadcasts of a short period into a flat dst, copied in parts whose rows hold whole
16-byte vectors.

    parts = period_parts(plan)     # None, or the parts to run in order (pure: no GPU)

A copy whose dst is contiguous over all its merged modes and whose src is broadcast
along the outermost one writes the same `P` elements (the period: the inner modes)
over and over. Where its last mode is shorter than a 16-byte vector (rows of 3 bytes
repeated 267 million times; each bf16 element of a row of 17575 repeated 3 times), the
gather strategy (passes/_gather_tile.py), whose runs may wrap the last mode only once, narrows
its vectors to half that mode (2-4 byte stores: 0.37 and 0.52 of cudaMemcpy on the
H100 for those two cases of the strided set), and the tiled kernel masks every row.
Here the copy runs in up to three parts:

1. the first `L` elements of the dst from the src (the original copy, `L / P`
   periods of it), `L` the least multiple of `P` whose bytes are a multiple of 16
   and at least `ROW_BYTES`;
2. the dst's further whole rows of `L` elements, broadcast from its own first row:
   a last mode of whole vectors (the gather kernel's 16-byte stores; the tiled
   kernel's 16-byte loads and stores where that takes it);
3. the tail (fewer than `L` elements, whole periods) from the start of the dst.

Each part reads only what an earlier part has finished writing (launches on one
stream run in order), and no part reads what it writes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .copy_key import ITEMSIZE, VECTOR_BYTES
from .copy_plan import CopyPlan, Operand, dst_is_flat

ROW_BYTES = 32
"""Least bytes of the rows the period is repeated to: rows of 16-byte vectors that the
gather kernel takes whole (its runs of one vector wrap a row at most once)."""
MAX_ROW_BYTES = 1 << 20
"""Longest row: a longer period is left as it is (its rows are long already)."""
MIN_BYTES = 1 << 22
"""Smallest dst (bytes) split: below it the two extra launches cost more than narrow
stores (the per-call benchmarks of small copies keep one launch)."""
MIN_ROWS = 16
"""Fewest rows of `L` elements the dst must hold."""


@dataclass(frozen=True)
class Part:
    """One copy of the split: its dst and src views (pointers absolute, as the
    plan's), and whether the src lies in the dst (written by an earlier part)."""

    dst: Operand
    src: Operand
    src_in_dst: bool


def period_row(plan: CopyPlan) -> int:
    """`L`, the elements of the rows the copy's period is repeated to; 0 where the
    copy is not split (module doc): a dst not flat (or its pointer not 16-byte
    aligned), a src not broadcast along the outermost mode, a last mode that gives
    the gather kernel whole vectors already (longer than a vector: a period of rows
    of 19 bytes is not split, one of rows of 3 is), a row beyond `MAX_ROW_BYTES`, a
    dst under `MIN_BYTES` or `MIN_ROWS` rows; a copy the gather strategy's fill form
    takes whole (`CopyKey.gather_fill`)."""
    ns = plan.extents
    if plan.key.gather_fill:
        return 0  # the gather strategy's fill form takes it whole
    if plan.key.aligned_pointers or len(ns) < 2 or plan.src_strides[0] != 0 or not dst_is_flat(ns, plan.dst_strides):
        return 0
    eb = ITEMSIZE[plan.key.dst_dtype]
    period = math.prod(ns[1:])
    if plan.dst_ptr % VECTOR_BYTES or period == 0:
        return 0
    if ns[-1] * eb > VECTOR_BYTES and period * eb % VECTOR_BYTES == 0:
        return 0  # runs of whole vectors already
    unit = period * (VECTOR_BYTES // math.gcd(period * eb, VECTOR_BYTES))
    row = unit * -(-ROW_BYTES // (unit * eb))
    total = ns[0] * period
    if row * eb > MAX_ROW_BYTES or total * eb < MIN_BYTES or total < MIN_ROWS * row:
        return 0
    return row


def period_parts(plan: CopyPlan) -> list[Part] | None:
    """The parts of `plan`'s copy (module doc), or None where it is not split
    (`period_row`)."""
    row = period_row(plan)
    if not row:
        return None
    ns, key = plan.extents, plan.key
    dt, eb = key.dst_dtype, ITEMSIZE[key.dst_dtype]
    period = row // math.prod(ns[1:])
    total = ns[0] * math.prod(ns[1:])
    rows, tail = divmod(total, row)
    d0 = plan.dst_ptr
    first = Part(
        Operand(d0, dt, (period, *ns[1:]), plan.dst_strides),
        Operand(plan.src_ptr, key.src_dtype, (period, *ns[1:]), plan.src_strides),
        False,
    )
    parts = [
        first,
        Part(
            Operand(d0 + row * eb, dt, (rows - 1, row), (row, 1)),
            Operand(d0, dt, (rows - 1, row), (0, 1)),
            True,
        ),
    ]
    if tail:
        parts.append(Part(Operand(d0 + rows * row * eb, dt, (tail,), (1,)), Operand(d0, dt, (tail,), (1,)), True))
    return parts
