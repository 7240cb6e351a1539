"""The pure part of `tilec.copy_`: from two strided arrays to a copy pattern.

Nothing here touches a GPU or a framework: the inputs are plain numbers (shapes, strides
in elements, byte addresses, dtype names), so the whole front end is testable on the
CPU. `plan_copy` checks the request, broadcasts `src` to `dst`'s shape, and merges
modes; what is left is a `CopyPlan`:

    plan = plan_copy(Operand(dst_ptr, "float32", dst_shape, dst_strides),
                     Operand(src_ptr, "float16", src_shape, src_strides))
    plan.key        # CopyKey: what the kernel is specialised on
    plan.extents    # run-time values: extents, then src strides, then dst strides
    plan.src_ptr    # byte addresses, already moved by the storage offsets and flips

Mode merging: a copy maps logical index i of dst to index i of src, so modes may be
reordered and reversed at will as long as both views get the same change. Size-1 modes
are dropped; a mode whose dst stride is negative is reversed in both views (the base
pointers move to its last element); modes are sorted by dst stride, largest first; and
neighbours that are contiguous in both views become one. An NHWC -> NCHW permute is then
a 2-D transpose, and a contiguous copy is one mode.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from tilec.support.diagnostics import TilecError

from .copy_key import (ITEMSIZE, MAX_RANK, REALIGN_ROW_CLASS, ROWS_RESIDUES, SMALL_EXTENT, VECTOR_BYTES, CopyKey,
                       needs_conversion)
from .copy_routes import current_routes


@dataclass(frozen=True)
class Operand:
    """One side of a copy: a data pointer (bytes, storage offset included), a dtype
    name (`ITEMSIZE`'s keys), a shape and strides in elements."""

    ptr: int
    dtype: str
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    device: int | None = None


@dataclass(frozen=True)
class CopyPlan:
    """A checked, merged copy: `key` selects the kernel; `args` are its index
    arguments in order (extents, then the src strides and dst strides that are not
    0 or 1, then `extra`); `src_ptr`/`dst_ptr` the byte addresses of logical element
    0 (rounded down to 16 bytes for a program of `CopyKey.aligned_pointers`'s facts)."""

    key: CopyKey
    extents: tuple[int, ...]
    src_strides: tuple[int, ...]
    dst_strides: tuple[int, ...]
    src_ptr: int
    dst_ptr: int
    extra: tuple[int, ...] = ()
    """Index arguments after the strides: the misalignments `copy_key.REALIGN_ARGS`
    of a program of `CopyKey.aligned_pointers`'s facts (the pointers are then rounded down to
    16 bytes)."""

    @property
    def args(self) -> tuple[int, ...]:
        dyn_s = [s for s, k in zip(self.src_strides, self.key.src_strides) if k is None]
        dyn_d = [s for s, k in zip(self.dst_strides, self.key.dst_strides) if k is None]
        return (*self.extents, *dyn_s, *dyn_d, *self.extra)

    @property
    def num_elements(self) -> int:
        return math.prod(self.extents)


def check_dtype(what: str, dtype: str) -> int:
    """The element size of `dtype`; TilecError if `tilec.copy_` does not take it."""
    size = ITEMSIZE.get(dtype)
    if size is None:
        raise TilecError(
            f"{what}: unsupported dtype {dtype} (tilec.copy_ takes "
            f"{', '.join(ITEMSIZE)})"
        )
    return size


def broadcast_strides(dst_shape: tuple[int, ...], src: Operand) -> tuple[int, ...]:
    """`src`'s strides broadcast to `dst_shape` (NumPy's rules: trailing modes line
    up; a src extent 1, or a missing mode, gets stride 0)."""
    if len(src.shape) > len(dst_shape):
        raise TilecError(
            f"src of shape {list(src.shape)} does not broadcast to dst's shape "
            f"{list(dst_shape)} (src has more dimensions)"
        )
    lead = len(dst_shape) - len(src.shape)
    out = [0] * lead
    for d, (n, s) in enumerate(zip(src.shape, src.strides)):
        want = dst_shape[lead + d]
        if n == want:
            out.append(s if n != 1 else 0)
        elif n == 1:
            out.append(0)
        else:
            raise TilecError(
                f"src of shape {list(src.shape)} does not broadcast to dst's shape "
                f"{list(dst_shape)} (dimension {lead + d}: {n} vs {want})"
            )
    return tuple(out)


def check_no_self_overlap(shape: tuple[int, ...], strides: tuple[int, ...]) -> None:
    """TilecError unless the elements of a view are provably distinct: no mode of
    extent > 1 has stride 0, and, sorted by |stride|, each stride steps over all the
    modes below it (PyTorch refuses a dst with internal overlap as well). A view with
    no elements (an extent 0) has none that overlap, whatever its strides."""
    if 0 in shape:
        return
    modes = sorted((abs(s), n) for n, s in zip(shape, strides) if n > 1)
    reach = 0
    for s, n in modes:
        if s == 0:
            raise TilecError(
                f"dst has overlapping elements (shape {list(shape)}, strides "
                f"{list(strides)}: a dimension of stride 0); copy into a tensor whose "
                "elements are distinct (e.g. dst.contiguous())"
            )
        if s <= reach:
            raise TilecError(
                f"dst may have overlapping elements (shape {list(shape)}, strides "
                f"{list(strides)}); copy into a tensor whose elements are distinct"
            )
        reach += s * (n - 1)


def byte_range(op: Operand, strides: tuple[int, ...] | None = None) -> tuple[int, int]:
    """[first, last) bytes that a view touches (empty views: (ptr, ptr))."""
    strides = op.strides if strides is None else strides
    if any(n == 0 for n in op.shape):
        return op.ptr, op.ptr
    size = ITEMSIZE[op.dtype]
    lo = sum(s * (n - 1) for n, s in zip(op.shape, strides) if s < 0)
    hi = sum(s * (n - 1) for n, s in zip(op.shape, strides) if s > 0)
    return op.ptr + lo * size, op.ptr + (hi + 1) * size


def overlap(dst: Operand, src: Operand) -> str:
    """`"none"`, `"same"` (the very same view: nothing to do) or `"partial"` (the
    byte ranges of the two views intersect: copy through a temporary)."""
    if dst.device is not None and src.device is not None and dst.device != src.device:
        return "none"
    a0, a1 = byte_range(dst)
    b0, b1 = byte_range(src)
    if a1 <= b0 or b1 <= a0 or a0 == a1 or b0 == b1:
        return "none"
    if (dst.ptr, dst.dtype, dst.shape, dst.strides) == (src.ptr, src.dtype, src.shape, src.strides):
        return "same"
    return "partial"


def merge_modes(
    extents: tuple[int, ...], src_strides: tuple[int, ...], dst_strides: tuple[int, ...]
) -> tuple[list[int], list[int], list[int], int, int]:
    """(extents, src strides, dst strides, src offset, dst offset) of the merged copy:
    size-1 modes dropped, modes with a negative dst stride reversed (the offsets, in
    elements, move each base to the reversed mode's first element), sorted by dst
    stride (largest first), and neighbours contiguous in both views merged. At least
    one mode is left (a single element is one mode of extent 1)."""
    modes = []
    src_off = dst_off = 0
    for n, s, d in zip(extents, src_strides, dst_strides):
        if n == 1:
            continue
        if d < 0:
            src_off += s * (n - 1)
            dst_off += d * (n - 1)
            s, d = -s, -d
        modes.append((n, s, d))
    # largest dst stride first; a tie (never in a checked dst) keeps the order
    modes.sort(key=lambda m: -m[2])
    merged: list[list[int]] = []
    for n, s, d in modes:
        if merged:
            outer = merged[-1]
            if outer[1] == s * n and outer[2] == d * n:
                outer[0], outer[1], outer[2] = outer[0] * n, s, d
                continue
        merged.append([n, s, d])
    if not merged:
        merged = [[1, 1, 1]]
    ns = [m[0] for m in merged]
    ss = [m[1] for m in merged]
    ds = [m[2] for m in merged]
    return ns, ss, ds, src_off, dst_off


def _stride_class(s: int) -> int | None:
    return s if s in (0, 1) else None


def _extent_class(n: int) -> int | None:
    return 1 << (n - 1).bit_length() if n <= SMALL_EXTENT else None


def _divisor(stride: int, itemsize: int) -> int:
    unit = VECTOR_BYTES // itemsize
    return unit if stride not in (0, 1) and unit > 1 and stride % unit == 0 else 1


def _last_divisor(n: int, flat: bool, broadcast: bool) -> int:
    """What the key states the last extent is a multiple of (`CopyKey.last_divisor`):
    into a compact dst, the largest power of two up to `VECTOR_BYTES` that divides a
    short one (at most `SMALL_EXTENT`: its class is specialised already), 16 or 1 for a
    longer one where the src broadcasts; else 1."""
    if not flat or not (n <= SMALL_EXTENT or broadcast):
        return 1
    if n > SMALL_EXTENT:
        return VECTOR_BYTES if n % VECTOR_BYTES == 0 else 1
    return min(VECTOR_BYTES, n & -n)


def _extent_divisors(key: CopyKey, ns) -> tuple[int, ...]:
    """`CopyKey.extent_divisors` of a tiled plan: per mode whose stride is 1 in src or
    dst and whose extent the key does not state exactly, `VECTOR_BYTES` / the smaller
    element size where that divides the extent, else 1; () where all are 1."""
    v = VECTOR_BYTES // min(ITEMSIZE[key.src_dtype], ITEMSIZE[key.dst_dtype])
    exact = key.exact_extents or (False,) * len(ns)
    out = tuple(v if 1 in (s, d) and not e and v > 1 and n % v == 0 else 1
                for n, s, d, e in zip(ns, key.src_strides, key.dst_strides, exact))
    return out if any(x != 1 for x in out) else ()


def _vector_facts(ptr: int, strides: list[int], itemsize: int) -> tuple[int, tuple[int, ...]]:
    """(pointer alignment, stride divisors) of one view for the key. A view allows
    16-byte vectors only when its pointer and all its run-time strides are 16-byte
    multiples; otherwise neither fact changes the code, and both are left out (the
    element size, divisors 1), so that such views share one kernel."""
    divs = tuple(_divisor(x, itemsize) for x in strides)
    dynamic = [d for x, d in zip(strides, divs) if x not in (0, 1)]
    if ptr % VECTOR_BYTES == 0 and all(d > 1 for d in dynamic):
        return VECTOR_BYTES, divs
    return itemsize, (1,) * len(strides)


def dst_is_flat(extents, dst_strides) -> bool:
    """Whether the dst is compact over all its merged modes (row-major, the last mode
    fastest: its offset is the flat index)."""
    reach = 1
    for n, d in zip(reversed(extents), reversed(dst_strides)):
        if d != reach:
            return False
        reach *= n
    return True


def may_gather(key: CopyKey, ns, ss, ds) -> bool:
    """Whether the `copy-strategy` pass takes the copy's program for the gather strategy:
    its cost model (passes/_copy_cost.py) on the copy's own values, the facts of the
    key being the same for every copy of it; with the route forced (`copy_routes`),
    the route (and with `box=never`, what the pass takes without a box: rows of 5 at a
    pitch of 7, a `box<span>` copy by default, are gathered)."""
    from tilec.passes._copy_cost import choose_strategy
    from tilec.support.target import target

    routes = current_routes()
    if key.gather_fill:
        return True
    return choose_strategy(_numbers_facts(key, ns, ss, ds), target(), routes.gather, "never",
                           box=routes.box) == "gather"


def fills(ns, ss, ds, eb: int = 1) -> int:
    """N > 0 where the gather strategy's fill form takes the copy whole (N threads a
    multiprocessor; passes/_fill_tile.py), else 0: the src broadcast along the outermost
    merged mode into a compact dst, not `gather=never`, and the route `gather_fill` N > 0
    (0: none), or where it is None its rule (`_fill_tile.fill_rule` on the copy's numbers,
    `eb` the dst's element bytes)."""
    from tilec.passes._fill_tile import fill_rule

    routes = current_routes()
    if routes.gather == "never" or len(ns) < 2 or ss[0] != 0 or not dst_is_flat(ns, ds):
        return 0
    if routes.gather_fill is not None:
        return routes.gather_fill
    return fill_rule(ns, eb)


INDEX32_LIMIT = 2**31
GATHER_SPARE = 1 << 14
"""Flat indices past the end a gather block may compute (its block of elements, at
most 512 runs of 16 elements)."""


def index_bits(key: CopyKey, ns: list[int], ss: list[int], ds: list[int]) -> int:
    """32 when every index value of the tiled kernel of `key` fits in a signed 32-bit
    integer for these extents and strides, else 64. The kernel computes, for each
    element of each tile, its offset in both views: coordinates up to the last tile's
    end (masked elements included: tiles cover `ceil(n / t) * t` along each mode), so
    the bound is `sum (ceil(n_k / t_k) * t_k - 1) * |stride_k|` per view, and the
    extents, the tile counts and their product (the grid) must fit as well. The gather
    strategy's flat indices (a block past the end, `GATHER_SPARE`) and offsets (a
    last-mode step past the end; the dst's are the flat index where it is compact)
    must fit too: the pass chooses the strategy."""
    from .copy_key import pass_tile

    ts = list(pass_tile(key))
    covered = [math.ceil(n / t) * t for n, t in zip(ns, ts)]
    blocks = math.prod(math.ceil(n / t) for n, t in zip(ns, ts))
    worst = max(
        sum((c - 1) * abs(s) for c, s in zip(covered, ss)),
        sum((c - 1) * abs(d) for c, d in zip(covered, ds)),
        max(covered),
        blocks,
        math.prod(ns) + GATHER_SPARE,
        *(sum(n * abs(s) for n, s in zip(ns, view)) + max(abs(s) for s in view)
          for view in ((ss,) if key.dst_flat else (ss, ds))),
    )
    return 32 if worst < INDEX32_LIMIT else 64


def plan_copy(dst: Operand, src: Operand) -> CopyPlan:
    """Check a `dst.copy_(src)` request and merge its modes (see the module doc).
    TilecError for unsupported dtypes or ranks, shapes that do not broadcast, arrays
    on different devices and a dst whose elements overlap. Overlap between dst and
    src is the caller's business (`overlap`)."""
    dsize = check_dtype("dst", dst.dtype)
    ssize = check_dtype("src", src.dtype)
    for what, op in (("dst", dst), ("src", src)):
        if len(op.shape) > MAX_RANK:
            raise TilecError(f"{what} has {len(op.shape)} dimensions; tilec.copy_ takes at most {MAX_RANK}")
        if len(op.shape) != len(op.strides):
            raise TilecError(f"{what}: {len(op.shape)} extents but {len(op.strides)} strides")
    if dst.device is not None and src.device is not None and dst.device != src.device:
        raise TilecError(
            f"dst is on device {dst.device} and src on device {src.device}; "
            "copy between devices with the framework's own copy"
        )
    sstrides = broadcast_strides(dst.shape, src)
    check_no_self_overlap(dst.shape, dst.strides)
    ns, ss, ds, soff, doff = merge_modes(dst.shape, sstrides, dst.strides)
    src_ptr = src.ptr + soff * ssize
    dst_ptr = dst.ptr + doff * dsize
    flat = len(ns) > 1 and dst_is_flat(ns, ds)
    src_align, src_divs = _vector_facts(src_ptr, ss, ssize)
    dst_align, dst_divs = _vector_facts(dst_ptr, ds, dsize)
    if flat and dst_ptr % VECTOR_BYTES == 0:
        # a compact dst's strides are not the kernel's arguments but the products of its
        # extents (`copy_program`), facts of their own: its pointer alone says whether
        # its flat runs start aligned (as a Program of the same views states it;
        # `_vector_facts` would drop a 16-byte aligned pointer for a stride such as 6882
        # elements, and a gather's or C=3's runs be stored element by element)
        dst_align = VECTOR_BYTES
    key = CopyKey(
        src_dtype=src.dtype,
        dst_dtype=dst.dtype,
        src_strides=tuple(_stride_class(s) for s in ss),
        dst_strides=tuple(_stride_class(d) for d in ds),
        src_align=src_align,
        dst_align=dst_align,
        small_extents=tuple(_extent_class(n) for n in ns),
        src_divisors=src_divs,
        dst_divisors=dst_divs,
        src_order=tuple(sorted((k for k, x in enumerate(ss) if x), key=lambda k: (abs(ss[k]), k))),
        exact_extents=tuple(n <= SMALL_EXTENT and n & (n - 1) == 0 for n in ns),
        last_divisor=_last_divisor(ns[-1], flat, 0 in ss),
        dst_flat=flat,
    )
    fill = fills(ns, ss, ds, dsize) if dst_ptr % VECTOR_BYTES == 0 else 0  # its stores whole vectors
    if fill:  # the fill form before every other rule, as the pass asks
        key = replace(key, gather_fill=fill)
    else:
        box = _box_plan(key, ns, ss, ds, src_ptr, dst_ptr)  # before the gather rule, as the pass asks
        if box is not None:
            return box
        realign = _realign_plan(key, ns, ss, ds, dst_ptr, src_ptr)
        if realign is not None:
            return realign
    key = _source_run_facts(key, ns, ss)
    if index_bits(key, ns, ss, ds) == 32:
        key = replace(key, index_bits=32)
    key = replace(key, extent_divisors=_extent_divisors(key, ns))
    if may_gather(key, ns, ss, ds):
        key = _gather_facts(key, ns, ss, ds)
    return CopyPlan(key, tuple(ns), tuple(ss), tuple(ds), src_ptr, dst_ptr)


def _source_run_facts(key: CopyKey, ns, ss) -> CopyKey:
    """The key of a tiled copy whose source's contiguous mode is short and continued by
    further source modes (passes/tile.source_run_modes, where `tile.SOURCE_RUN_BYTES`
    lengthens such runs and both views do not allow 16-byte vectors: the heuristic's
    misaligned short-mode tile): the short mode's and each short continuing mode's
    extent stated exactly, the continuing modes' source strides as their values (the
    facts a Program of the same views has, so both take one tile)."""
    from tilec.passes.tile import SOURCE_RUN_BYTES, source_run_modes

    from .copy_key import _vector_aligned

    cs = next((k for k, s in enumerate(ss) if s == 1), None)
    if not SOURCE_RUN_BYTES or cs is None or ns[cs] > SMALL_EXTENT or _vector_aligned(key):
        return key
    from tilec.dialects.cute import DYN

    cont = source_run_modes([s if s > 0 else DYN for s in ss], list(ns), cs)
    if not cont:
        return key
    exact = {cs} | {k for k in cont if ns[k] <= SMALL_EXTENT}
    return replace(key, small_extents=tuple(n if k in exact else c for k, (n, c) in enumerate(zip(ns, key.small_extents))),
                   exact_extents=tuple(k in exact or e for k, e in enumerate(key.exact_extents)),
                   src_strides=tuple(ss[k] if k in cont else c for k, c in enumerate(key.src_strides)))


def _gather_facts(key: CopyKey, ns, ss, ds) -> CopyKey:
    """The key of a copy the gather strategy takes: each short extent, and a last one
    the rule finds padded (`_copy_cost.padded_last`: 64 to `LONGEST_RUN` elements), stated exactly (a
    gather decomposes its element ids over the extents: divisions by constants, as the
    box plan states them; the facts a Program of the same views has, so the strategy
    stays the same: the rule reads how much of its power-of-two ceiling such a row
    fills), each other extent's divisibility by a vector (`CopyKey.extent_divisors`),
    and each run-time source stride of at most `SMALL_EXTENT` elements as its value.
    (A compact dst's alignment is already its pointer's: `plan_copy`.)"""
    from tilec.passes._copy_cost import padded_last

    short = [k for k, n in enumerate(ns) if n <= SMALL_EXTENT and not key.exact_extents[k]]
    if ns[-1] > SMALL_EXTENT and padded_last(_numbers_facts(key, ns, ss, ds)):
        short.append(len(ns) - 1)
    if short:
        key = replace(key, small_extents=tuple(n if k in short else c for k, (n, c) in enumerate(zip(ns, key.small_extents))),
                      exact_extents=tuple(k in short or e for k, e in enumerate(key.exact_extents)))
    # each other extent's divisibility by a vector of the dst (as `_extent_divisors`
    # states it for the tiled kernel): the gather's mask is then one test a run where
    # the element count is a multiple of the run, as a Program's static extents show it
    v = VECTOR_BYTES // min(ITEMSIZE[key.src_dtype], ITEMSIZE[key.dst_dtype])
    divs = tuple(v if not e and v > 1 and n % v == 0 else 1 for n, e in zip(ns, key.exact_extents))
    if any(d != 1 for d in divs):
        key = replace(key, extent_divisors=divs)
    # a short source stride as its value: the cost model reads the pitch of short rows
    # from it (passes/_copy_cost._row_pitch)
    return replace(key, src_strides=tuple(s if c is None and 0 < s <= SMALL_EXTENT else c
                                          for s, c in zip(ss, key.src_strides)))


def may_box(key: CopyKey, ns, ss, ds) -> str | None:
    """The box flavour the `copy-strategy` pass takes the copy for once the program
    states its short extents exactly (passes/_copy_cost.box_flavour on the copy's own
    numbers, with the box's shared memory in force), None where it takes none or the
    routes in force turn it off (`box=never`, or `gather=always`, which the pass asks
    first)."""
    from tilec.passes._copy_cost import (BOX_SMEM, TILES_BYTES, TILES_MERGE_BYTES, TILES_SHORT_BYTES,
                                         TILES_SHORT_D_BYTES, box_flavour)

    routes = current_routes()
    if routes.box == "never" or routes.gather == "always" or len(ns) < 2:
        return None
    # merging the destination's modes takes a destination compact over all of them
    # (`dst_flat`: the program states its strides as the extents' products)
    merge = (TILES_MERGE_BYTES if routes.tiles_merge is None else routes.tiles_merge) if key.dst_flat else 0
    short = TILES_SHORT_BYTES if routes.tiles_short is None else routes.tiles_short
    short_d = TILES_SHORT_D_BYTES if routes.tiles_short_d is None else routes.tiles_short_d
    tiles_bytes = TILES_BYTES if routes.tiles_bytes is None else routes.tiles_bytes
    return box_flavour(_numbers_facts(key, ns, ss, ds, 0, 0), routes.box_smem or BOX_SMEM, tiles_bytes, merge=merge,
                       short=short, short_d=short_d)


def _box_plan(key: CopyKey, ns, ss, ds, src_ptr: int, dst_ptr: int) -> CopyPlan | None:
    """The plan of a copy the box strategy takes (`may_box`), else None. Its program
    states the facts the strategy reads: each short extent exactly (`small_extents`
    the extents, `exact_extents` saying they are exact), each stride equal to a short
    extent as that value (the rule compares them: the source's stride of `D` is
    `n_W`; a `span` box's short source pitch as its value), and the pointers as 16-byte aligned pointers moved by their misalignments
    (`CopyKey.aligned_pointers`'s facts: the box moves 16-byte vectors from the aligned
    pointers; the misalignments in elements); 32-bit offsets where the views' reach, two boxes to spare and the
    element count fit (the `tile` pass's rule, passes/_box_tile.box_index_bits)."""
    flavour = may_box(key, ns, ss, ds)
    if flavour is None:
        return None
    from tilec.passes._box_tile import box_index_bits, box_smem_of
    from tilec.passes._copy_cost import TILES_MERGE_BYTES, tiles_merge_bytes, tiles_merged, tiles_merged_run

    routes = current_routes()
    merge = (TILES_MERGE_BYTES if routes.tiles_merge is None else routes.tiles_merge) if key.dst_flat else 0
    # a `tiles` box merging the destination's modes after W: the destination stated
    # compact (its strides the products of the extents), the fact the box reads
    facts = _numbers_facts(key, ns, ss, ds, 0, 0)
    merged = flavour == "tiles" and tiles_merged(facts, tiles_merge_bytes(facts, merge)) is not None

    n = len(ns)
    short = {x for x in ns if x <= SMALL_EXTENT}
    smis, dmis = src_ptr % VECTOR_BYTES, dst_ptr % VECTOR_BYTES
    bkey = replace(
        key, src_align=VECTOR_BYTES, dst_align=VECTOR_BYTES, aligned_pointers=True,
        # (a `span` box: its source pitch too, short: the rule reads its gaps)
        src_strides=tuple(s if s in short or (flavour == "span" and 0 < s <= SMALL_EXTENT) else c
                          for s, c in zip(ss, key.src_strides)),
        dst_strides=tuple(d if d in short else c for d, c in zip(ds, key.dst_strides)),
        src_divisors=(1,) * n, dst_divisors=(1,) * n, src_order=(), dst_flat=merged,
        last_divisor=1, small_extents=tuple(x if x <= SMALL_EXTENT else None for x in ns),
        exact_extents=tuple(x <= SMALL_EXTENT for x in ns),
    )
    # the tile pass's rule on the copy's own numbers (a Program of static views gets
    # the same width from it)
    e, ed = ITEMSIZE[key.src_dtype], ITEMSIZE[key.dst_dtype]
    smem = box_smem_of(flavour, e, current_routes().box_smem, current_routes().box_depth)
    w = next((k for k, x in enumerate(ss) if x == 1), None)
    if merged and w is not None and tiles_merged_run(e, ns[w]) is not None:
        # a merged box's W stated exactly: its runs take it whole (`tiles_merged_run`)
        bkey = replace(bkey, small_extents=bkey.small_extents[:w] + (ns[w],) + bkey.small_extents[w + 1:],
                       exact_extents=bkey.exact_extents[:w] + (True,) + bkey.exact_extents[w + 1:])
    elif flavour == "tiles" and not merged and _tiles_fit_d(e, ed, smem, ns[-1],
                                                            needs_conversion(key.src_dtype, key.dst_dtype)):
        # D shorter than the box's tile: stated exactly, the box takes it whole and
        # longer runs (passes/_copy_cost.tiles_shape, `TILES_FIT_D`), as for a Program's
        # static extent
        bkey = replace(bkey, small_extents=bkey.small_extents[:-1] + (ns[-1],),
                       exact_extents=bkey.exact_extents[:-1] + (True,))
    if flavour == "rows":
        bkey = _rows_residue_facts(bkey, ns, ss, ds)
    bits = box_index_bits(_numbers_facts(bkey, ns, ss, ds, smis // e, dmis // ed), smem)
    bkey = replace(bkey, index_bits=bits or 64)
    return CopyPlan(bkey, tuple(ns), tuple(ss), tuple(ds), src_ptr - smis, dst_ptr - dmis, (smis // e, dmis // ed))


def _rows_residue_facts(key: CopyKey, ns, ss, ds) -> CopyKey:
    """The key of a `box<rows>` copy with its run-time source step and destination run
    step stated modulo `_box_tile.ROWS_RESIDUE_MODS` where `ROWS_RESIDUES` (the
    `rows_residues` route) says: the residues the box's slot layout reads, so that its
    kernel has the layout of a Program of the same views as constants."""
    from tilec.passes._box_tile import ROWS_RESIDUE_MODS, box_modes

    on = current_routes().rows_residues
    if not (ROWS_RESIDUES if on is None else on):
        return key
    w, _, k = box_modes(_numbers_facts(key, ns, ss, ds), "rows")
    sm, dm = ROWS_RESIDUE_MODS
    none = ((1, 0),) * len(ns)
    src = [(sm, ss[k] % sm)] if key.src_strides[k] is None else []
    dst = [(dm, ds[w] % dm)] if key.dst_strides[w] is None else []
    return replace(key, src_residues=none[:k] + tuple(src) + none[k + 1:] if src else (),
                   dst_residues=none[:w] + tuple(dst) + none[w + 1:] if dst else ())


def _tiles_fit_d(e: int, ed: int, smem: int, nd: int, converts: bool = False) -> bool:
    """Whether a `box<tiles>` copy's `D` of `nd` elements is shorter than the box's
    default tile and the box fits it with longer runs (passes/_copy_cost.tiles_shape
    with `n_d`, `TILES_FIT_D`), under the routes' grain."""
    from tilec.passes._box_tile import tiles_grain_of
    from tilec.passes._copy_cost import TILES_FIT_D, tiles_shape

    if not TILES_FIT_D:
        return False
    grain = tiles_grain_of(ed, current_routes().tiles_grain, converts)
    base, fit = tiles_shape(e, smem, None, grain, ed), tiles_shape(e, smem, None, grain, ed, nd)
    return base is not None and fit is not None and fit != base


def plan_facts(plan: CopyPlan):
    """The facts of a planned copy's own numbers (its merged extents and strides, the
    key's alignments; passes/_copy_cost.CopyFacts), for the cost model's estimates of
    it (`_copy_cost.dram_share`)."""
    return _numbers_facts(plan.key, plan.extents, plan.src_strides, plan.dst_strides)


def _numbers_facts(key: CopyKey, ns, ss, ds, smis: int | None = None, dmis: int | None = None):
    """The facts the `copy-strategy` pass reads (passes/_copy_cost.py), of the copy's
    own numbers: the key's alignments, the misalignments where given."""
    from tilec.passes._copy_cost import CopyFacts, Mode

    modes = tuple(Mode(n, n, True, s, d, divisor=n) for n, s, d in zip(ns, ss, ds))
    return CopyFacts(modes, ITEMSIZE[key.src_dtype], ITEMSIZE[key.dst_dtype], key.src_align, key.dst_align,
                     key.dst_flat, None, None, smis, dmis, converts=needs_conversion(key.src_dtype, key.dst_dtype),
                     integers=not key.src_dtype.startswith(("float", "bfloat")))


def may_realign(key: CopyKey, ns, ss, ds, src_ptr: int, dst_ptr: int) -> bool:
    """Whether the `copy-strategy` pass takes the copy for the realign strategy once
    the program states its pointers aligned down and their misalignments (both
    pointers element-aligned): its cost model on the copy's own values, under the
    routes in force (`copy_routes`: its options `gather=`, `realign=`)."""
    from tilec.passes._copy_cost import choose_strategy
    from tilec.support.target import target

    e_s, e_d = ITEMSIZE[key.src_dtype], ITEMSIZE[key.dst_dtype]
    if src_ptr % e_s or dst_ptr % e_d:
        return False
    facts = _numbers_facts(key, ns, ss, ds, (src_ptr % VECTOR_BYTES) // e_s, (dst_ptr % VECTOR_BYTES) // e_d)
    routes = current_routes()
    return choose_strategy(facts, target(), routes.gather, routes.realign) == "realign"


def _realign_plan(
    key: CopyKey, ns: list[int], ss: list[int], ds: list[int], dst_ptr: int, src_ptr: int
) -> CopyPlan | None:
    """The plan of a realign program (`CopyKey.aligned_pointers`) where the `copy-strategy`
    pass takes the copy for the realign strategy (`may_realign`), else None: its
    pointers are rounded down to 16 bytes and their misalignments (in elements) are
    index arguments; the key keeps the facts the strategy reads, and promises 32-bit offsets where
    the realign strategy's fit (passes/_realign_tile.static_index_bits on the copy's
    numbers)."""
    from tilec.passes._realign_tile import ENDS_PAIR_ELEMENTS, row_rule, static_index_bits
    from tilec.support.target import target

    if not may_realign(key, ns, ss, ds, src_ptr, dst_ptr):
        return None
    from tilec.passes._copy_cost import (REALIGN_FLAT_BROADCAST, REALIGN_FLAT_STEP2, flat_broadcast, flat_step2,
                                         run_broadcast)

    e = ITEMSIZE[key.src_dtype]
    smis, dmis = src_ptr % VECTOR_BYTES, dst_ptr % VECTOR_BYTES
    # a broadcast into a compact destination through the flat form (`flat_broadcast`):
    # the destination stated compact and the rows' extent exactly, the facts it reads
    on = current_routes().realign_flat
    numbers = _numbers_facts(key, ns, ss, ds, 0, 0)
    flat = (flat_broadcast(numbers, on=REALIGN_FLAT_BROADCAST if on is None else bool(on))
            or flat_step2(numbers, on=REALIGN_FLAT_STEP2 if on is None else bool(on)))
    # the run form (`realign_run`, or its rule `run_broadcast`) asks no sector of a compact
    # destination: stated compact
    run = current_routes().realign_run
    compact = flat or (len(ns) > 1 and dst_is_flat(ns, ds) and bool(run_broadcast(numbers) if run is None else run))
    # the facts the realign strategy reads, so that copies of one pattern share a key:
    # the stride classes, what the dst's strides are multiples of (its chunks per
    # row), the last extent's class for 8-byte elements (its chunk size) and where its
    # bytes pick the sector prefetch and chunks a thread (`_realign_tile.row_rule`; rows
    # of 2- and 4-byte elements classed up to `REALIGN_ROW_CLASS` elements)
    n = len(ns)
    c = key.small_extents[-1]
    longest = current_routes().realign_rows
    if c is None and e in ENDS_PAIR_ELEMENTS and ns[-1] <= (REALIGN_ROW_CLASS if longest is None else longest):
        c = 1 << (ns[-1] - 1).bit_length()
    told = e == 8 or (c is not None and row_rule(c, e) != row_rule(None, e))
    rkey = replace(
        key, src_align=VECTOR_BYTES, dst_align=VECTOR_BYTES, aligned_pointers=True, src_divisors=(1,) * n,
        small_extents=(None,) * (n - 1) + ((ns[-1],) if flat else (c,) if told else (None,)),
        exact_extents=(False,) * (n - 1) + (flat,), src_order=(), dst_flat=compact, last_divisor=1,
        # a source step of 2 (1-byte rows, `_copy_cost.realign_fits`) stated as its value
        src_strides=key.src_strides[:-1] + ((2,) if ss[-1] == 2 else key.src_strides[-1:]),
    )
    bits = static_index_bits(_numbers_facts(rkey, ns, ss, ds, smis // e, dmis // e), target())
    rkey = replace(rkey, index_bits=bits or 64)
    extra = (smis // e, dmis // e)
    return CopyPlan(rkey, tuple(ns), tuple(ss), tuple(ds), src_ptr - smis, dst_ptr - dmis, extra)
