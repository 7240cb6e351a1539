"""The tile of a `tilec.copy_` kernel, chosen from what its `CopyKey` knows.

    tile, threads = copy_tile(key)   # pinned on the program's layout.copy {tile = ...}

The `tile` pass's own heuristic sees only the program, whose strides are run-time
values: it cannot tell which modes are fast in memory beyond the two stride-1 ones, and
it tiles at most two modes. The copy front end knows more: merged modes are sorted by
dst stride (the last mode is the dst's fastest, the one before it the next), the key
carries the src's order (`CopyKey.src_order`) and which extents are small. So:

- **Transposes** (the views contiguous along different modes, a conversion through
  shared memory; `TRANSPOSE_RULE` "runs", rank 2 included): short src runs, long dst
  runs. `SRC_RUN` elements along the src's contiguous mode (`_src_run`: 32 for 8-byte
  elements; a short mode its class, or for 1-byte elements a tile its extents fill at
  least `SRC_MIN_USE`), `DST_RUN_BYTES` along a long dst-contiguous mode (a short one
  whole; 1-byte elements: an 8 KiB budget, 128-byte dst runs, `NARROW_SMEM_TILE_BYTES`);
  what the two leave of the 16 KiB budget goes to further modes, taken
  alternately in the dst's and the src's memory order (a rank-6 permute of short
  extents becomes a batch of small transposes in one block), and a tile under
  `MIN_RUNS_TILE` elements grows its long sides. ("square", the rule before: a square
  16 KiB tile on the two contiguous modes, rank-2 transposes left to the pass; a src
  broadcast along the dst's contiguous mode keeps it.)
- **Everything else** (both contiguous along one mode, or a src with no stride-1
  mode): 1 KiB along the dst's contiguous mode, or the row tile the plan chose from
  the rows' length (`CopyKey.row_tile`, `row_tile`), then the dst's next modes up to a
  32 KiB tile.
- A mode is folded into the tile only where that adds no edge tiles in every block:
  a large extent, a small power of two, or any small extent once the tile is masked
  anyway (a contiguous mode of odd small extent). A mode left out goes to the grid,
  and what is left of the budget grows the contiguous mode again.

Rank-1 copies and rank-2 copies without small extents or a row tile keep the pass's
heuristic (told the small extents, `copy_program.pass_tile_choice`), which the copy
benchmarks tuned. Every rule here was measured on the H100 with
benchmarks/copy_tile_variants.py (benchmarks/NOTES.md, strided copies).
"""

from __future__ import annotations

import math

from .copy_key import ITEMSIZE, SMALL_EXTENT, VECTOR_BYTES, CopyKey

SMEM_TILE_BYTES = 16 * 1024
"""Shared-memory budget of a transposing tile (the `tile` pass's)."""
TILE_BYTES = 32 * 1024
"""Register budget of a tile that crosses no threads (the `tile` pass's)."""
LINE_BYTES = 1024
"""Bytes along the contiguous mode of a non-transposing tile (the `tile` pass's)."""
MISALIGNED_THREADS = 512
"""Threads of a transposing tile of 16384 elements or more whose views do not allow
16-byte vectors (as the `tile` pass does)."""


LINE_CAP_BYTES = 4096
"""Longest row of a non-transposing tile whose src is contiguous along it: longer
rows over extents that are not multiples leave most of a block idle (H100, strided
set: cases 04, 10, 19, 22, 28 gain 2-40% from 32 KiB rows to 4 KiB ones). A src read
with a step along the row keeps the whole budget (case 31: 0.67 of cudaMemcpy at
32 KiB, 0.29 at 4 KiB)."""


def _pow2_floor(n: int) -> int:
    return 1 << (max(int(n), 1).bit_length() - 1)


TRANSPOSE_RULE = "runs"
"""How `copy_tile` tiles transposes: "runs" (short src runs, dst runs of
`DST_RUN_BYTES`, rank-2 transposes too) or "square" (the square 16 KiB tile of
before, rank-2 transposes left to the `tile` pass), for benchmarks/copy_tile_variants.py."""
SRC_RUN = 16
"""Elements of a transposing tile along the src's contiguous mode (`_src_run`: 32 for
8-byte elements; a short mode its class, or less, `SRC_MIN_USE`). Short src runs lose little (the rest of each 32-byte
sector is read by the neighbouring blocks, from L2) and leave the budget to the dst
side (H100, strided set: cases 00, 29, 36, 42 gain 15-150% over tiles of 64-128)."""
SRC_MIN_USE = 0.7
"""Least share of useful slots, over every extent of its class, of the tile along a
short src-contiguous mode of 1-byte elements longer than `SRC_RUN` (37 in tiles of 8,
not 64)."""
DST_RUN_BYTES = 256
"""Bytes of a transposing tile along the dst's contiguous mode when that is long (a
short one is taken whole)."""
NARROW_SMEM_TILE_BYTES = 8 * 1024
NARROW_DST_RUN_BYTES = 128
NARROW_MIN_RUNS_TILE = 4096
"""Transposes of 1-byte elements (both dtypes) under the "runs" rule: an 8 KiB tile
(so 256 threads, not `MISALIGNED_THREADS`: every byte holds a register, and smaller
blocks keep more of them resident), 128-byte dst runs, tiles grown to 4096 elements
(H100, strided set, `copy_tile_variants.py`, each against the 16 KiB rule in the same
call: 00 0.43 -> 0.51 with 16 x 4 x 128, 36 0.26 -> 0.30, 42 0.26 -> 0.29, 30 0.47 ->
0.49 with 8 x 512; 2-byte transposes gained nothing from 8 KiB or 4096, 29 lost 20%
with 128-byte runs)."""
GROW_TRANSPOSE = False
"""Whether what a transposing tile leaves of its budget grows its two contiguous
modes again (else only up to `MIN_RUNS_TILE` elements: rows of 5 transposed from a
long src mode get 256 x 8, not 16 x 8)."""
MIN_RUNS_TILE = 2048


def _contiguous_modes(key: CopyKey) -> tuple[int | None, int | None, bool]:
    """(the dst's contiguous mode, the src's, whether they differ: a transpose)."""
    cd = key.rank - 1 if key.dst_strides[-1] == 1 else None
    cs = next((k for k, s in enumerate(key.src_strides) if s == 1), None)
    return cd, cs, cs is not None and cd is not None and cs != cd


def leaves_tile_to_pass(key: CopyKey) -> bool:
    """Whether `copy_tile` keeps the `tile` pass's heuristic for the key (rank-1
    copies, rank-2 copies without small extents, and rank-2 transposes under the
    "square" `TRANSPOSE_RULE`)."""
    rank = key.rank
    cd, _, transpose = _contiguous_modes(key)
    if rank == 2 and transpose:
        return not _runs(key, cd)
    return rank == 1 or (rank == 2 and not key.row_tile and not any(key.small_extents or (None,) * rank))


ROW_MIN_USE = 0.7
"""`row_tile` takes the longest row tile (up to `LINE_CAP_BYTES`) whose tiles along
a row of the copy's length are at least this full."""


def row_tile(key: CopyKey, n: int) -> int:
    """`CopyKey.row_tile` of a copy whose dst rows (the last merged mode) hold `n`
    elements: for a non-transposing copy of rows longer than `SMALL_EXTENT` that the
    src reads contiguously or broadcasts, the longest power-of-two tile up to
    `LINE_CAP_BYTES` whose tiles along the row are at least `ROW_MIN_USE` full (H100,
    strided set: rows of 41440 int16 broadcast in tiles of 2048 x 8 rows instead of
    512 x 32: 0.54 -> 0.69 of cudaMemcpy; rows of 254 int16 in tiles of 256: 0.64 ->
    0.67; rows of 1123 keep 512, which beat 128-256 there); else 0."""
    rank = key.rank
    if n <= SMALL_EXTENT or key.gather or key.dst_strides[-1] != 1 or key.src_strides[-1] not in (0, 1):
        return 0
    if any(s == 1 for s in key.src_strides[:-1]):
        return 0  # a transpose
    if rank == 1:
        return 0
    eb = max(ITEMSIZE[key.src_dtype], ITEMSIZE[key.dst_dtype])
    t = max(1, LINE_CAP_BYTES // eb)
    while t > 1 and n / (math.ceil(n / t) * t) < ROW_MIN_USE:
        t //= 2
    return t


def _runs(key: CopyKey, cd: int) -> bool:
    """Whether a transpose takes the "runs" rule: `TRANSPOSE_RULE`, and a src that
    moves along the dst's contiguous mode (a column broadcast along rows keeps the
    square tile, or the pass's)."""
    return TRANSPOSE_RULE == "runs" and key.src_strides[cd] != 0


def _src_run(cls: int | None, exact: bool, itemsize: int) -> int:
    """The tile along the src's contiguous mode of a transpose whose src elements are
    `itemsize` bytes: `SRC_RUN` elements (twice that for 8-byte elements); a short
    mode (class `cls`) whole where the class is no longer, or the elements are 8
    bytes wide; for 1-byte elements, where every slot is an instruction, a shorter
    tile that its extents fill at least `SRC_MIN_USE` (H100, strided set: 8-byte
    srcs lost 10-45% with 16-element runs, cases 05 and 17; 2-byte ones with 8,
    case 29; 1-byte ones gained 20-50% with 8 over 16-32, cases 30 and 42)."""
    run = SRC_RUN * (2 if itemsize >= 8 else 1)
    if cls is None:
        return run
    if exact or cls <= run or itemsize >= 8:
        return cls
    if itemsize > 1:
        return run
    n = cls // 2 + 1  # the extent of the class that fills its tiles worst
    t = run
    while t > 1 and n / (math.ceil(n / t) * t) < SRC_MIN_USE:
        t //= 2
    return t


def copy_tile(key: CopyKey) -> tuple[tuple[int, ...] | None, int]:
    """(tile, threads per block) of the key's kernel (module doc); `(None, 0)` leaves
    the choice to the `tile` pass."""
    rank = key.rank
    small = key.small_extents or (None,) * rank
    cd, cs, transpose = _contiguous_modes(key)
    if leaves_tile_to_pass(key):
        return pass_tile_choice(key)
    exact = key.pow2_extents or (False,) * rank
    eb = max(ITEMSIZE[key.src_dtype], ITEMSIZE[key.dst_dtype])
    tile = [1] * rank

    def clamp(k: int, want: int) -> int:
        want = _pow2_floor(want)
        return want if small[k] is None else min(want, small[k])

    def masked(k: int) -> bool:
        return small[k] is not None and not exact[k] and tile[k] > 1

    dst_order = list(range(rank - 1, -1, -1))
    src_order = list(key.src_order) or dst_order
    aligned = _vector_aligned(key)
    runs = transpose and _runs(key, cd)
    narrow = eb == 1
    if runs:
        budget = (NARROW_SMEM_TILE_BYTES if narrow else SMEM_TILE_BYTES) // eb
        run_bytes = NARROW_DST_RUN_BYTES if narrow else DST_RUN_BYTES
        tile[cd] = small[cd] or max(1, run_bytes // ITEMSIZE[key.dst_dtype])
        tile[cs] = _src_run(small[cs], exact[cs], ITEMSIZE[key.src_dtype])
        order = _alternate(dst_order, src_order)
        primary = (cs, cd)
    elif transpose:
        # 16 KiB, misaligned views too: the pass's 128 KiB misaligned tiles, made
        # for long rows, lost 10-50% here (H100: cases 05, 11, 24, 26 of the
        # strided set; benchmarks/copy_tile_variants.py)
        budget = SMEM_TILE_BYTES // eb
        s = _pow2_floor(math.isqrt(budget))
        # a small side is taken whole (one tile, its edge once)
        tile[cs], tile[cd] = small[cs] or s, small[cd] or s
        order = _alternate(dst_order, src_order)
        primary = (cs, cd)
        if cs == cd - 1:
            # the src's contiguous mode is the dst's next: growing it lengthens both
            tile[cs] = clamp(cs, budget // tile[cd])
    else:
        d = cd if cd is not None else dst_order[0]
        budget = TILE_BYTES // eb
        tile[d] = key.row_tile or clamp(d, LINE_BYTES // eb)
        order = dst_order
        primary = (d,)
    any_masked = any(masked(k) for k in primary)
    for k in order:
        left = budget // math.prod(tile)
        if left < 2:
            break
        if k in primary or tile[k] > 1:
            continue
        if small[k] is not None and not exact[k] and not any_masked:
            continue  # would make every block an edge block
        tile[k] = clamp(k, left)
    # what is left grows the primary modes again (large extents only)
    if runs and not GROW_TRANSPOSE:
        # grow only tiles smaller than this
        budget = min(budget, NARROW_MIN_RUNS_TILE if narrow else MIN_RUNS_TILE)
    for k in primary:
        if key.row_tile:
            break
        if small[k] is None:
            grow = max(1, budget // math.prod(tile))
            if not transpose and cs == k:
                grow = min(grow, max(1, LINE_CAP_BYTES // eb // tile[k]))
            tile[k] = clamp(k, tile[k] * grow)
    threads = 256
    if transpose and not aligned and math.prod(tile) >= 32 * MISALIGNED_THREADS:
        threads = MISALIGNED_THREADS
    return tuple(tile), threads


def _alternate(a: list[int], b: list[int]) -> list[int]:
    out: list[int] = []
    for x, y in zip(a, b + a[len(b) :]):
        for k in (x, y):
            if k not in out:
                out.append(k)
    for k in a + b:
        if k not in out:
            out.append(k)
    return out


def pass_tile_choice(key: CopyKey) -> tuple[tuple[int, ...] | None, int]:
    """(tile, threads per block) for the key: the `tile` pass's own heuristic, told
    the small extents the key fixes (`CopyKey.small_extents`); `(None, 0)` when no
    extent is small (the pass then decides alone)."""
    if not any(key.small_extents):
        return None, 0
    from tilec.dialects import cute
    from tilec.passes.tile import MISALIGNED_THREADS, _misaligned_transpose, heuristic_tile

    extents = tuple(cute.DYN if n is None else n for n in key.small_extents)
    sl = cute.parse_layout(_layout(key.src_strides))
    dl = cute.parse_layout(_layout(key.dst_strides))
    eb = ITEMSIZE[key.src_dtype]
    aligned = _vector_aligned(key)
    tile = heuristic_tile(sl, dl, extents, eb, aligned=aligned)
    big = math.prod(tile) >= 32 * MISALIGNED_THREADS
    threads = MISALIGNED_THREADS if big and _misaligned_transpose(sl, dl, aligned) else 256
    return tuple(tile), threads


def _vector_aligned(key: CopyKey) -> bool:
    """What the `tile` pass's `_vector_aligned` finds for both views of the program:
    16-byte aligned pointers and every stride other than 1 a whole number of 16-byte
    units (0, or a run-time stride promised divisible)."""

    for align, strides, divs, dtype in (
        (key.src_align, key.src_strides, key.src_divisors, key.src_dtype),
        (key.dst_align, key.dst_strides, key.dst_divisors, key.dst_dtype),
    ):
        if align % VECTOR_BYTES:
            return False
        for s, d in zip(strides, divs or (1,) * len(strides)):
            if s is None and (d * ITEMSIZE[dtype]) % VECTOR_BYTES:
                return False
    return True


def _layout(strides: tuple[int | None, ...]) -> str:
    shape = ",".join("?" for _ in strides)
    stride = ",".join("?" if s is None else str(s) for s in strides)
    if len(strides) == 1:
        return f"{shape}:{stride}"
    return f"({shape}):({stride})"
