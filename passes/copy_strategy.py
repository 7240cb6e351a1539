"""The `copy-strategy` pass: each whole-tensor copy's strategy, chosen from its facts."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tilec.dialects.layout import CopyOp, enclosing_launch
from tilec.dialects.layout_attrs import CopyStrategyAttr
from tilec.support.diagnostics import TilecError
from tilec.support.target import target_of

from ._copy_cost import (BOX_SETTINGS, BOX_SMEM, GATHER_SETTINGS, TILES_BYTES, TILES_MERGE_BYTES, TILES_SHORT_BYTES,
                         TILES_SHORT_D_BYTES, choose_strategy, copy_facts)
from ._fill_tile import GATHER_FILL, fill_fits


@dataclass(frozen=True)
class CopyStrategyPass(ModulePass):
    """Choose the strategy of each whole-tensor `layout.copy` between global views that
    has none, from the facts the program states (passes/_copy_cost.py: one cost model,
    the same for a `tilec.Program` and for `tilec.copy_`'s program of the same views).

    The facts: per mode its extent where known (static, or a `layout.view`'s `at_most`
    bound; exact where also promised `divisible` by it), which strides are 0 or 1 and
    what run-time strides are multiples of, the pointers' alignments, the element sizes,
    and whether the destination is compact (row-major: its strides the products of the
    faster extents, static or computed so in the IR); from the module's Target, the
    sector size and the widest vector.

    The choice, written as `strategy = #layout.copy_strategy<gather>`: with `box=auto`,
    `box<flat>`, `box<rows>` or `box<cols>` first, where the copy moves 1-byte elements
    without conversion, the source is contiguous along a short mode taken whole and
    the destination's contiguous mode comes next in it, or the reverse, or
    `box<tiles>` where both contiguous modes are long, the elements of at most
    `tiles_bytes` (or, converting, source elements of 1 or 2 bytes into elements at
    most twice as wide) and the tiled copy cannot move 16-byte vectors on both sides
    (also, for elements of at most `tiles_merge` bytes, where the source's contiguous
    mode is long and the destination is compact over the two or more modes after it,
    however short its contiguous mode: the box merges them into one), or
    `box<span>` where 1-byte rows shorter than a 16-byte chunk (not a power of two) are
    contiguous in both views, their source pitch static with gaps shorter than a chunk,
    into a destination compact over the rows (passes/_copy_cost.box_flavour); else `gather` where
    the destination is compact, the source is no wider than it, and either the source
    broadcasts elements of 2 bytes or more or the last mode is short (at most 64) and
    not known to be a power of two (any element size), or known exactly, at most
    512, the source contiguous along it or broadcasting it, and less than 90% of its
    power-of-two ceiling (the tile pads it), and a gather block's source reads use at least 35%
    of the sectors they touch; `realign` before the gather where the rows are 1-byte
    integers read at a source step of 2 (contiguous in the destination) and longer than 64
    elements (not known to be shorter): each 16-byte destination chunk from the 32-byte
    window of three aligned source vectors, the even bytes selected in registers. Else
    `realign` where the views' rows (the last mode)
    are contiguous in both, of one element type without conversion, each view's pointer
    is a 16-byte aligned pointer moved by its misalignment (a scalar `layout.addptr`:
    the fact `tilec.copy_` states for misaligned rows) and the tiled copy could not move
    16-byte vectors on both sides (a pointer or a stride not known a multiple of 16
    bytes). Every other copy keeps no strategy: the `tile` pass tiles it. A copy whose
    strategy the program wrote is left as it is.

    Options:
      gather=auto|always|never   `always` takes every copy of two modes or more whose
                                 views the gather strategy can walk; `never` none
                                 (for comparisons; default `auto`, the rule above).
      realign=auto|always|never  `always` takes every copy the realign strategy fits
                                 (also 2-byte integer and short rows read at a step
                                 of 2), before the gather rule; `never` none (default
                                 `auto`).
      box=auto|never             `auto` takes the copies the box rule fits, before the
                                 others (default `auto`; `never` for comparisons).
      box_smem=N                 shared memory of one box in bytes (default 40960; the
                                 `tile` pass's `box_smem` must agree, the flavour
                                 depending on it).
      tiles_bytes=N              the largest element size (bytes) the `box<tiles>`
                                 flavour takes (default 4: `TILES_BYTES`; up to 8,
                                 an A/B of it on wider elements).
      tiles_merge=B              the largest source element (bytes) `box<tiles>`
                                 also takes where the destination is compact over
                                 the modes after the source's contiguous mode, merged
                                 into one (`_copy_cost.tiles_merged`; default 1:
                                 `TILES_MERGE_BYTES`, at least 4 for copies widening
                                 their elements at most twice,
                                 `tiles_merge_bytes`; 0 none; the `tile` pass's
                                 `tiles_merge` must agree).
      tiles_short=B              the largest source element (bytes) `box<tiles>`
                                 also takes where the source's contiguous mode is
                                 short (known, at most 64) and the destination's long,
                                 converting or of elements wider than 1 byte, its runs
                                 that mode whole (`_copy_cost.TILES_SHORT_BYTES`;
                                 default 2; 0 none; the `tile` pass's `tiles_short`
                                 must agree).
      tiles_short_d=B            the least wider element (bytes, source or
                                 destination) `box<tiles>` also takes where the destination's
                                 contiguous mode is short (known, at most 64) and
                                 the source's long, its rows whole in a tile, any
                                 conversion (`_copy_cost.TILES_SHORT_D_BYTES`;
                                 default 0: none; the `tile` pass's `tiles_short_d`
                                 must agree).
      gather_fill=N              N > 0: a copy the gather strategy's fill form fits
                                 (the source broadcast along the outermost mode into a
                                 compact destination: `_fill_tile.fill_fits`) takes
                                 `gather` before every other rule (default
                                 `_fill_tile.GATHER_FILL`: 0, the rules above; the
                                 `tile` pass's `gather_fill` writes the fill form).
    """

    name = "copy-strategy"

    gather: str = "auto"
    realign: str = "auto"
    box: str = "auto"
    box_smem: int = BOX_SMEM
    tiles_bytes: int = TILES_BYTES
    tiles_merge: int = TILES_MERGE_BYTES
    tiles_short: int = TILES_SHORT_BYTES
    tiles_short_d: int = TILES_SHORT_D_BYTES
    gather_fill: int = GATHER_FILL

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for name, value in (("gather", self.gather), ("realign", self.realign)):
            if value not in GATHER_SETTINGS:
                raise TilecError(f"copy-strategy: {name}={value} must be one of {', '.join(GATHER_SETTINGS)}")
        if self.box not in BOX_SETTINGS:
            raise TilecError(f"copy-strategy: box={self.box} must be one of {', '.join(BOX_SETTINGS)}")
        if self.box_smem < 1024:
            raise TilecError(f"copy-strategy: box_smem={self.box_smem} must be at least 1024")
        for name in ("tiles_merge", "tiles_short", "tiles_short_d"):
            if not 0 <= getattr(self, name) <= 8:
                raise TilecError(f"copy-strategy: {name}={getattr(self, name)} must be in [0, 8]")
        tgt = target_of(op)
        for c in [o for o in op.walk() if isinstance(o, CopyOp)]:
            if c.strategy is not None or enclosing_launch(c) is not None:
                continue
            if (c.source.type.memory_space, c.dest.type.memory_space) != ("gmem", "gmem"):
                continue
            facts = copy_facts(c)
            if facts is None:
                continue
            if self.gather_fill > 0 and self.gather != "never" and fill_fits(facts, tgt):
                c.strategy = CopyStrategyAttr("gather")
                continue
            kind = choose_strategy(facts, tgt, self.gather, self.realign, self.box, self.box_smem, self.tiles_bytes,
                                   self.tiles_merge, self.tiles_short, self.tiles_short_d)
            if kind is not None:
                c.strategy = CopyStrategyAttr(kind)
