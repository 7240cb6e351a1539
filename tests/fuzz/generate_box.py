"""Random copies of session 36's, 37's and 38's box and tile paths (issue #10), for the CPU reference
executor (tests/fuzz/test_box_copies.py) and the GPU (tests/gpu/test_box_copies_gpu.py):

* `span`: 1-byte rows of `n` (not a power of two, under 16) at a static source pitch
  `n < P < n + 16`, maybe under a grid mode with a gap in the source and padded dst rows
  (`box<span>`: a span of rows staged by 16-byte `cp.async`, chunks gathered from it);
* `rows`: a `W x D` transpose of 1-byte elements inside steps of another mode (`box<rows>`),
  gaps on both sides, with a forced slot step (`box_pitch`: -1, 0..7, or the bank model's
  step looked up from copy_'s run-time strides), `box_grain=16` (the default) or 0 (each
  run's cut chunks byte by byte), a small box or the default one;
* `rounds`: odd transposes of 1-, 2- and 4-byte elements by `box<tiles>` with
  `tiles_rounds=1` (tiles along D spread over whole rounds, computed on the host);
* `misaligned`: odd transposes of 4- and 8-byte elements by the tiled kernel's 64 KiB
  misaligned tile (f32 with `box=never`, f64 by the rule);
* `row_rule`: odd 1-byte transposes by `box<tiles>`, square ones among them (the row rule
  finds no step there), with the phase-2 rows by the rule (the default), forced 1, 2 or 4
  apart (`tiles_row_step`), or the rule's rotated loads (`tiles_rotate=1`).

Session 37's paths (`SESSION_37`):

* `depth`: `box<flat|rows|span|cols>` in parts through two boxes (`box_depth` 2 to 4, or 0:
  persistent blocks, maybe compiled for a Target of one multiprocessor, `one_sm`, so that
  each block walks many parts), small boxes (many parts, a last block with fewer);
* `convert`: odd transposes that convert, 1- and 2-byte sources into elements at most twice
  as wide (the converting `box<tiles>`: bool, uint8, int8, int16, float16 into int16, int8,
  float16, float32, int32, bool), maybe a grid mode into padded destination rows, random
  lanes, grains, phase-1 chunks and box sizes;
* `shortd`: odd transposes whose destination-contiguous `D` is shorter than the box's
  default tile (`_copy_cost.TILES_FIT_D`: `D` taken whole, longer source runs), copied or
  converted, maybe under a grid mode.

Session 38's (`SESSION_38`):

* `merge`: permutes into a compact destination over two to four modes after the source's
  contiguous mode `W` (`box<tiles>` over a merged destination mode, `tiles_merge`), 1-byte
  elements by the rule or 2-byte ones forced, the phase-2 row step by the rule or forced.

`row_rule_pick` gives the phase-2 row step (and rotation) the row rule takes for a
2-mode `box<tiles>` draw (`_box_tile.tiles_row_step_of` on its steps): the `row_rule`
draws reach S = 1, 2, 4 and the rotated loads.

Each draw is a `BoxCopy`: the source a strided view into a flat buffer of its own at an
element offset (a pointer off its 16-byte alignment), the destination a strided view into
a poisoned buffer; the routes forced; the strategy the rule must choose. `scale` > 1
draws larger extents (the GPU's)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import numpy as np

FAMILIES = ("span", "rows", "rounds", "misaligned", "row_rule")
SESSION_37 = ("depth", "convert", "shortd")
SESSION_38 = ("merge",)


@dataclass(frozen=True)
class BoxCopy:
    family: str
    dtype: str
    shape: tuple[int, ...]
    src_offset: int
    src_strides: tuple[int, ...]  # elements
    dst_offset: int
    dst_strides: tuple[int, ...]
    routes: dict = field(default_factory=dict)
    strategy: str = ""
    dst_dtype: str = ""  # "": the source's (no conversion)
    one_sm: bool = False  # compile for a Target of one multiprocessor (persistent boxes)

    @property
    def out_dtype(self) -> str:
        return self.dst_dtype or self.dtype

    def _len(self, offset: int, strides) -> int:
        return offset + 1 + sum((n - 1) * s for n, s in zip(self.shape, strides)) + 17

    @property
    def src_len(self) -> int:
        return self._len(self.src_offset, self.src_strides)

    @property
    def dst_len(self) -> int:
        return self._len(self.dst_offset, self.dst_strides)

    def view(self, flat, offset: int, strides, xp=np):
        item = flat.dtype.itemsize
        return xp.lib.stride_tricks.as_strided(flat[offset:], self.shape, [s * item for s in strides])

    def src_of(self, flat, xp=np):
        return self.view(flat, self.src_offset, self.src_strides, xp)

    def dst_of(self, flat, xp=np):
        return self.view(flat, self.dst_offset, self.dst_strides, xp)

    def buffers(self, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """(the source's flat buffer of random values, the destination's poisoned)."""
        rng = np.random.default_rng(seed)
        kind, out = np.dtype(self.dtype).kind, np.dtype(self.out_dtype).kind
        src = rng.integers(0, 2, self.src_len).astype(bool) if kind == "b" else \
            rng.integers(-100, 100, self.src_len).astype(self.dtype) if kind in "iu" else \
            (rng.standard_normal(self.src_len) * 50).astype(self.dtype)
        poison = True if out == "b" else 0x5A if out in "iu" else np.nan
        dst = np.full(self.dst_len, poison, self.out_dtype)
        return src, dst

    def expected(self, src_flat: np.ndarray, dst_flat: np.ndarray) -> np.ndarray:
        want = dst_flat.copy()
        self.dst_of(want)[...] = self.src_of(src_flat)
        return want

    def __str__(self) -> str:
        routes = ":".join(f"{k}={v}" for k, v in self.routes.items())
        to = f"->{self.dst_dtype}" if self.dst_dtype else ""
        return (f"{self.family} {self.dtype}{to} {self.shape} src +{self.src_offset} {self.src_strides} "
                f"dst +{self.dst_offset} {self.dst_strides}{' ' + routes if routes else ''}"
                f"{' one_sm' if self.one_sm else ''} ({self.strategy})")


def _compact(shape, pads=None) -> tuple[int, ...]:
    """Row-major strides of `shape`, each mode but the last padded by `pads[k]` elements."""
    pads = pads or [0] * len(shape)
    out, step = [], 1
    for n, p in zip(reversed(shape), reversed(pads)):
        out.insert(0, step)
        step = step * n + p
    return tuple(out)


def draw_span(rng: random.Random, scale: int = 1) -> BoxCopy:
    n = rng.choice([3, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15])
    pitch = n + rng.randrange(1, 16)
    rows = rng.randrange(33, 700 * scale)
    dtype = rng.choice(["int8", "uint8"])
    routes = {"box_smem": rng.choice([None, 2048, 4096, 8192])}
    if rng.random() < 0.4:  # a grid mode: a gap after each source span, padded dst rows of rows
        g = rng.randrange(2, 4)
        shape = (g, rows, n)
        src = (rows * pitch + rng.randrange(0, 40), pitch, 1)
        dst = (rows * n + rng.randrange(0, 10), n, 1)
    else:
        shape, src, dst = (rows, n), (pitch, 1), (n, 1)
    return BoxCopy("span", dtype, shape, rng.randrange(16), src, rng.randrange(16), dst,
                   {k: v for k, v in routes.items() if v is not None}, "box<span>")


def _slot(run: int) -> int:
    """A box slot's bytes for a run of `run` bytes (up to 15 before it, whole chunks): a
    `rows` box takes a copy whose box holds two."""
    return (run + 30) // 16 * 16


def draw_rows(rng: random.Random, scale: int = 1) -> BoxCopy:
    """dst (A, W, B, D) from src [B][A][D][W]: a W x D transpose in steps of B."""
    while True:
        w, d = rng.randrange(3, 48), rng.randrange(16, 48)
        if not (w & (w - 1) == 0 and d & (d - 1) == 0):
            break
    a, b = rng.randrange(2, 5), rng.randrange(2, 40 * scale)  # A = 1 and no gap: a flat copy
    shape = (a, w, b, d)
    gap_a, gap_b = rng.choice([0, 0, rng.randrange(1, 30)]), rng.choice([0, rng.randrange(1, 300)])
    src = (w * d + gap_a, 1, a * (w * d + gap_a) + gap_b, w)
    dst = _compact(shape, [rng.choice([0, rng.randrange(1, 9)]), rng.choice([0, rng.randrange(1, 9)]), 0, 0])
    routes = {"box_pitch": rng.choice([None, None, -1, 0, 1, 2, 3, 5, 7]), "box_grain": rng.choice([None, None, 0]),
              "box_smem": rng.choice([None] + [s for s in (2048, 4096) if 2 * _slot(w * d) <= s])}
    return BoxCopy("rows", rng.choice(["int8", "uint8"]), shape, rng.randrange(16), src, rng.randrange(16), dst,
                   {k: v for k, v in routes.items() if v is not None}, "box<rows>")


def _odd_transpose(rng: random.Random, dtypes, scale: int, family: str, routes: dict, strategy: str) -> BoxCopy:
    """dst (c, r) from the transpose of a contiguous (r, c) source, one or both of r, c
    odd (rows off 16 bytes), maybe padded dst rows."""
    dtype = rng.choice(dtypes)
    # c odd (65, 67, ...), r odd or even
    r, c = rng.randrange(65, 260 * scale, 2) + rng.choice([0, 1]), rng.randrange(65, 200 * scale, 2)
    dst = (r + rng.choice([0, 0, rng.randrange(1, 7)]), 1)
    return BoxCopy(family, dtype, (c, r), rng.randrange(16), (1, c), rng.randrange(16), dst, routes, strategy)


def draw_rounds(rng: random.Random, scale: int = 1) -> BoxCopy:
    routes = {"tiles_rounds": 1}
    smem = rng.choice([None, 8192, 16384, 65536])
    if smem:
        routes["box_smem"] = smem
    return _odd_transpose(rng, ["int8", "uint8", "int16", "float16", "float32"], scale, "rounds", routes, "box<tiles>")


def draw_misaligned(rng: random.Random, scale: int = 1) -> BoxCopy:
    dtype = rng.choice(["float32", "float64", "int64"])
    routes = {"box": "never"} if dtype == "float32" else {}
    return _odd_transpose(rng, [dtype], scale, "misaligned", routes, "tiled")


def draw_depth(rng: random.Random, scale: int = 1) -> BoxCopy:
    """A flat, rows, span or cols box copy in parts through two boxes or a ring of them."""
    flavour = rng.choice(["flat", "rows", "span", "cols"])
    depth = rng.choice([0, 2, 3, 4])
    dtype = rng.choice(["int8", "uint8"])
    if flavour == "flat":  # (D, W) from the transpose of a flat (W, D), maybe padded dst rows
        d, w = rng.choice([5, 7, 11, 19, 23]), rng.randrange(200, 2000 * scale)
        c = BoxCopy("depth", dtype, (d, w), rng.randrange(16), (1, d), rng.randrange(16),
                    (w + rng.choice([0, 0, rng.randrange(1, 9)]), 1), {}, "box<flat>")
    elif flavour == "cols":  # (W, D) rows of D from D source rows of W
        d, w = rng.choice([5, 12, 24, 37]), rng.randrange(300, 3000 * scale)
        c = BoxCopy("depth", dtype, (w, d), rng.randrange(16), (1, w), rng.randrange(16), (d, 1), {}, "box<cols>")
    else:
        base = (draw_rows if flavour == "rows" else draw_span)(rng, scale)
        c = BoxCopy("depth", base.dtype, base.shape, base.src_offset, base.src_strides, base.dst_offset,
                    base.dst_strides, {}, base.strategy)
    smem = rng.choice([2048, 4096]) if flavour != "rows" else max(2048, 2 * _slot(c.shape[1] * c.shape[3]))
    one_sm = depth == 0 and rng.random() < 0.5
    routes = {"box_depth": depth, "box_smem": smem}
    if depth != 1:  # the parts through two boxes (0), a ring of 2 to 4 (`layout.cp_async_arrive`), or the default
        ring = rng.choice([None, 0, 2, 3, 4])
        if ring is not None:
            routes["box_ring"] = ring
    return BoxCopy(c.family, c.dtype, c.shape, c.src_offset, c.src_strides, c.dst_offset, c.dst_strides,
                   routes, c.strategy, one_sm=one_sm)


CONVERSIONS = (("bool", "int16"), ("uint8", "int16"), ("uint8", "float16"), ("int8", "float16"),
               ("int8", "int16"), ("int16", "int8"), ("int16", "int32"), ("float16", "float32"),
               ("float16", "bool"), ("uint8", "int8"), ("int16", "float16"))
"""(source, destination) element types of converting odd transposes: 1- and 2-byte sources
into elements at most twice as wide (`_copy_cost.TILES_CONVERT_BYTES`, `TILES_CONVERT_WIDENING`)."""


def _tiles_routes(rng: random.Random) -> dict:
    routes = {"box_smem": rng.choice([None, None, 16384, 32768]), "tiles_lanes": rng.choice([None, None, 16]),
              "tiles_grain": rng.choice([None, None, 32]), "tiles_stage": rng.choice([None, None, 4])}
    return {k: v for k, v in routes.items() if v is not None}


def draw_convert(rng: random.Random, scale: int = 1) -> BoxCopy:
    """dst (c, r) (or (g, c, r) under a grid mode) converted from the transpose of a
    contiguous (r, c) source."""
    src_t, dst_t = rng.choice(CONVERSIONS)
    c = _odd_transpose(rng, [src_t], scale, "convert", _tiles_routes(rng), "box<tiles>")
    if rng.random() < 0.3:  # a grid mode: g sources one after another, padded dst rows
        g, (cc, r) = rng.randrange(2, 4), c.shape
        pad = rng.randrange(0, 9)
        c = BoxCopy("convert", src_t, (g, cc, r), c.src_offset, (r * cc + rng.randrange(0, 20), 1, cc),
                    c.dst_offset, (cc * (r + pad), r + pad, 1), c.routes, c.strategy)
    return BoxCopy(c.family, c.dtype, c.shape, c.src_offset, c.src_strides, c.dst_offset, c.dst_strides,
                   c.routes, c.strategy, dst_dtype=dst_t)


def draw_shortd(rng: random.Random, scale: int = 1) -> BoxCopy:
    """dst (c, d) from the transpose of a contiguous (d, c) source, `d` (the destination's
    contiguous mode `D`) odd and short (the box takes it whole); copied or converted; maybe
    under a grid mode (g, c, d) from g sources (d, c) one after another."""
    src_t, dst_t = rng.choice([("int8", ""), ("uint8", ""), ("int16", ""), ("float16", "")] + list(CONVERSIONS[:5]))
    d = rng.randrange(65, 190, 2)  # longer than `SMALL_EXTENT` (the gather takes those)
    cols = rng.randrange(300, 900 * scale) | 1
    routes = {k: v for k, v in {"tiles_lanes": rng.choice([None, None, 16])}.items() if v is not None}
    if rng.random() < 0.4:
        g = rng.randrange(2, 4)
        shape, src = (g, cols, d), (d * cols + rng.randrange(0, 20), 1, cols)
        dst = (cols * d, d, 1)
    else:
        shape, src, dst = (cols, d), (1, cols), (d, 1)
    return BoxCopy("shortd", src_t, shape, rng.randrange(16), src, rng.randrange(16), dst, routes, "box<tiles>",
                   dst_dtype=dst_t)


def draw_row_rule(rng: random.Random, scale: int = 1) -> BoxCopy:
    routes: dict = {}
    step = rng.choice([None, None, 1, 2, 4, "rotate"])
    if step == "rotate":
        routes["tiles_rotate"] = 1
    elif step is not None:
        routes["tiles_row_step"] = step
    smem = rng.choice([None, 8192, 16384])
    if smem:
        routes["box_smem"] = smem
    c = _odd_transpose(rng, ["int8", "uint8"], scale, "row_rule", routes, "box<tiles>")
    if rng.random() < 0.4:  # square: r = c (odd), dst rows unpadded
        n = c.shape[0]
        c = BoxCopy("row_rule", c.dtype, (n, n), c.src_offset, (1, n), c.dst_offset, (n, 1), routes, "box<tiles>")
    return c


def draw_merge(rng: random.Random, scale: int = 1) -> BoxCopy:
    """A permute into a compact destination over the two to four modes after the
    source's contiguous mode `W` (`box<tiles>` over a merged destination mode `D'`,
    `_copy_cost.tiles_merged`; `tilec.copy_` merges where the whole destination is
    compact, `CopyKey.dst_flat`): dst (G, W, M1, .., Mk) with `W` long (65 to 600 steps:
    whole in its runs up to 512 bytes, `tiles_merged_run`, or in several), the merged
    modes short (the last 3 to 40), zero or one grid mode `G` before `W`; the source
    contiguous along `W`, its other modes in a random order after it, maybe a gap before
    each, no two modes adjacent in both views (`plan_copy` would make them one); 1-byte
    elements (the rule's `TILES_MERGE_BYTES`), or 2-byte ones with `tiles_merge=2` forced;
    the phase-2 row step by the rule or forced (1, 2, 4), a small box (many tiles along
    both modes) or the default."""
    wide = rng.random() < 0.2
    dtype = rng.choice(["float16", "int16"]) if wide else rng.choice(["int8", "uint8", "bool"])
    while True:
        k = rng.randrange(2, 5)
        merged = [rng.randrange(2, 14 if k < 4 else 5) for _ in range(k - 1)] + [rng.randrange(3, 41)]
        grid = [rng.randrange(2, 4)] if rng.random() < 0.3 else []
        shape = tuple(grid + [rng.randrange(65, 601)] + merged)
        if math.prod(shape) > 40000 * scale:
            continue
        w = len(grid)
        dst = _compact(shape)
        others = [m for m in range(len(shape)) if m != w]  # the source: W contiguous, the others after it
        rng.shuffle(others)
        src = [0] * len(shape)
        src[w], step = 1, shape[w]
        for m in others:
            step += rng.choice([0, 0, rng.randrange(1, 5)])  # a gap before the mode's steps
            src[m] = step
            step *= shape[m]
        if all(src[m] != shape[m + 1] * src[m + 1] for m in range(len(shape) - 1)):
            break
    routes: dict = {"tiles_merge": 2} if wide else {}
    row = rng.choice([None, None, 1, 2, 4])
    if row is not None:
        routes["tiles_row_step"] = row
    smem = rng.choice([None, None, 8192, 16384])
    if smem:
        routes["box_smem"] = smem
    return BoxCopy("merge", dtype, shape, rng.randrange(16), tuple(src), rng.randrange(16), dst, routes,
                   "box<tiles>")


DRAW = {"span": draw_span, "rows": draw_rows, "rounds": draw_rounds, "misaligned": draw_misaligned,
        "row_rule": draw_row_rule, "depth": draw_depth, "convert": draw_convert, "shortd": draw_shortd,
        "merge": draw_merge}


def row_rule_pick(c: BoxCopy) -> tuple[int, bool]:
    """(S, rotate): the phase-2 row step the row rule takes for a 2-mode `box<tiles>` copy
    of 1-byte elements at the default lanes and chunks (`_box_tile.tiles_row_step_of`: `P_s`
    the source's step along `D`, the destination's contiguous mode, `P_d` the destination's
    row pitch, the step of `W`, the source's contiguous mode)."""
    from tilec.passes._box_tile import TILES_LANES, TILES_STAGE, TILES_THREADS, tiles_row_step_of

    w = c.src_strides.index(1)
    d = c.dst_strides.index(1)
    return tiles_row_step_of(1, TILES_LANES, TILES_STAGE, TILES_THREADS, c.src_strides[d], c.dst_strides[w])


def draw(family: str, seed: int, scale: int = 1) -> BoxCopy:
    return DRAW[family](random.Random(seed), scale)
