"""The facts of a whole-tensor copy and the one cost model that chooses its strategy
(`copy-strategy`), the same for a `tilec.Program` and for `tilec.copy_`'s program.

    facts = copy_facts(copy)                     # None: not a flat copy between two views
    choose_strategy(facts, target())             # "gather", or None: the tile pass's tiles

The model reads facts only, never a measured case: per mode its extent where it is
known (static, or the `at_most` bound of a `layout.view`; exact where it is static or
promised both `at_most = B` and `divisible = B`), which strides are 0 or 1 and what a
run-time stride is a multiple of, the pointers' alignments, the element sizes, and
whether the destination is compact (row-major over its modes: static strides that are
the products of the faster extents, or run-time strides computed as those products in
the IR). From the `Target`: the sector size and the widest vector.

Gather (`#layout.copy_strategy<gather>`, the `tile` pass writes it: passes/_gather_tile.py)
walks a compact destination in runs of `V` consecutive elements per thread and gathers
their sources. It is chosen where the tiled kernel wastes most of its lanes and the
gather's reads stay coalesced:

- the destination is compact and the source no wider than it (a gathered load that
  moves more bytes than the store it feeds loses), and
- the source broadcasts (a stride 0) elements of at least 2 bytes, or of 1 byte where
  each run is one aligned source vector (`vector_runs`: the tiled kernel reloads a
  broadcast row for every row it writes), or (whatever the element size)
  the last mode is short (at most `SMALL_EXTENT`) and known exactly not to be a power of two (the tile pads it to its
  power-of-two ceiling: a mode of 3 idles a quarter of every tile), or it is known
  exactly, at most `LONGEST_RUN`, the source contiguous along it or broadcasting it,
  and fills less than `MAX_TILE_USE` of its ceiling (`padded_last`: rows of 259), and
- the source sectors a gather block reads are used well (`sector_use` at least
  `MIN_SECTOR_USE`): the block's elements along the source's stride-1 mode form runs
  of `block / P` elements, P the product of the extents the destination walks faster
  than that mode (short ones exact where known, else their classes; broadcast modes re-read the
  same elements and do not count); where those are more than the mode's extent they
  wrap into the next slower mode, split in `1 + (block / P - 1) / n` runs unless a
  mode the block walks continues the source's run (its stride the extent); each run
  starts anywhere on what the pointer's alignment and the other strides share with the
  sector (`_start_grain`: a 16-byte run from a start on 4 bytes spans 1.375 sectors);
  without a stride-1 mode, along the mode of a known short extent with the
  least static stride of at most `SMALL_EXTENT` (runs spread over that many elements); whole short rows at a
  static source pitch of at most `SMALL_EXTENT` share their sectors (`_row_pitch`).

Box (`#layout.copy_strategy<box<flat | rows | cols>>`, `box_flavour`) takes transposes
of 1-byte elements without conversion where the source is contiguous along a short
mode `W` (known, at most `SMALL_EXTENT`: taken whole, nothing padded) and the
destination's contiguous mode `D` (the last) comes next in the source (source stride
`n_W`): `flat` where `D` is not known short, `rows` where `D` has 16 to `SMALL_EXTENT`
elements and the destination is contiguous over `D` and the mode `K` before it; or
the mirror, `cols`: `W` not known short, `D` short, the destination contiguous over `D`
then `W`. Never for a source that broadcasts or a negative stride, and only where a short mode taken whole
is not a power of two (the tiled kernel pads nothing then), and where a box fits the
shared memory `box_smem` (`BOX_SMEM`). It is asked before the gather rule.

`box<tiles>` takes copies whose `W` and `D` are both long (neither known at most
`SMALL_EXTENT`), of one element size of at most `tiles_bytes` (`TILES_BYTES`, 4)
without conversion, or converting source elements of 1 or 2 bytes
(`TILES_CONVERT_BYTES`) into elements at most twice as wide (`TILES_CONVERT_WIDENING`;
its phase 2 converts each element
before the destination's 16-byte store), where the tiled kernel cannot move 16-byte vectors on both sides
(`vector_aligned`: a row pitch or a pointer not a multiple of 16 bytes, the odd
transposes, whose every access is then one element) and both pointers allow them once
aligned down (a misalignment stated, or aligned to 16); a box is a tile of both modes
(`tiles_shape`), so both global sides move aligned 16-byte vectors. It also takes a
short `W` whole (`TILES_SHORT_BYTES`: 2-byte source elements, `W` of 64 bytes or more,
`D` long), where the 1-byte flavours above do not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import SSAValue

from tilec.dialects import cute
from tilec.dialects.layout import CopyOp, ViewOp
from tilec.dialects.layout_attrs import CuteLayoutAttr, PtrType, element_bytes
from tilec.support.target import Target

from ._analysis import DYN, leaves

SMALL_EXTENT = 64
"""Longest last mode the gather strategy takes for its shortness (the tile pass takes a
mode this short whole, padded to its power-of-two ceiling)."""
MIN_SECTOR_USE = 0.35
"""Least share of the source sectors a gather block touches that it must use."""
GATHER_TILED_BYTES = 8
"""Elements (bytes) from which a permute (the destination's contiguous mode not the
source's) that neither broadcasts nor converts is the tiled kernel's, not the gather's,
however short and odd its last mode (slices of short rows keep the gather): the gather loads each
source element of a short row by a request of its own (8 bytes of a 32-byte sector for
f64), where the tiled kernel's warps read 256 contiguous bytes. Measured on the H200
(benchmarks/NOTES.md, p8b45; in turns, 9 rounds, ratio to cudaMemcpy): the strided set's
18 (f64 257 x 899 x 61 perm [1, 2, 0], rows of 61) gathered 0.882, tiled (32 x 64, 256
threads) 0.980, x1.111 [1.105, 1.116]; its tile of 32 x 61 (rows whole, not a power of
two) 0.244. Converting into 8 bytes (47, uint8 -> f64) not measured tiled: the gather's."""
GATHER_THREADS = 256
"""Threads per block of the gather strategy."""
GATHER_RUNS_PER_THREAD = 2
"""Runs of `V` elements per thread of the gather strategy (independent loads in
flight)."""

Value = int | SSAValue
"""A static extent or stride, or the SSA index value that binds a dynamic one."""


@dataclass(frozen=True)
class Mode:
    """One top-level mode of a copy: its extent (`Value`), what is known of it (`bound`:
    the static extent or the promised `at_most`, None: nothing; `exact`: the bound is
    the extent), and its stride in each view (`Value`) with what a run-time stride is a
    multiple of."""

    extent: Value
    bound: int | None
    exact: bool
    src_stride: Value
    dst_stride: Value
    src_divisor: int = 1
    dst_divisor: int = 1
    divisor: int = 1
    """What the extent is a multiple of (the static extent itself; a promised
    `divisible` for a dynamic one)."""
    src_congruence: tuple[int, int] = (1, 0)
    dst_congruence: tuple[int, int] = (1, 0)
    """(modulus, residue) a run-time stride is promised congruent to (`layout.view`'s
    `divisible` and `residue`; `stride_residue`)."""


@dataclass(frozen=True)
class CopyFacts:
    """What the passes know of a whole-tensor copy between two pointer views."""

    modes: tuple[Mode, ...]
    src_bytes: int
    dst_bytes: int
    src_align: int
    dst_align: int
    dst_compact: bool
    src_ptr: SSAValue | None
    dst_ptr: SSAValue | None
    """The views' pointers (None for facts of plain numbers, `copy_plan.may_gather`)."""
    src_mis: Value | None = None
    dst_mis: Value | None = None
    """Where a view's pointer is a pointer aligned to at least the widest vector moved
    by a scalar `layout.addptr`: that offset in elements (its misalignment, a run-time
    value or a static one), the aligned pointer being `src_base` / `dst_base`; None
    otherwise. (Facts of plain numbers give any int where the front end would state
    it.)"""
    src_base: SSAValue | None = None
    dst_base: SSAValue | None = None
    converts: bool = False
    """Whether the copy converts its elements (`convert`)."""
    integers: bool = True
    """Whether the source's elements are integers (the realign strategy's step-2 rows
    take their bytes as integers)."""

    @property
    def rank(self) -> int:
        return len(self.modes)


def _static(v: Value) -> int | None:
    """The integer a value is known to be (a static int, or an `arith.constant`)."""
    if isinstance(v, int):
        return v
    owner = v.owner
    if isinstance(owner, arith.ConstantOp):
        return owner.value.value.data  # type: ignore[union-attr]
    return None


def stride_residue(stride: Value, congruence: tuple[int, int], m: int) -> int | None:
    """A stride modulo `m` where it is known: a static one's, or a run-time one's where
    its promised modulus (`Mode.src_congruence`) is a multiple of `m`; None otherwise."""
    k = _static(stride)
    if k is not None:
        return k % m
    mod, res = congruence
    return res % m if mod % m == 0 else None


def value_bound(v: Value) -> int | None:
    """The most a non-negative value can be, where its IR says: a static one itself,
    `arith.remui x, c` (c a constant) c - 1, `arith.andi x, c` (c a non-negative
    constant, either operand) c; None otherwise (a function's argument, any other op).
    A misalignment a program states as `mis % 16` is bounded so."""
    k = _static(v)
    if k is not None:
        return k if k >= 0 else None
    op = v.owner  # type: ignore[union-attr]
    if isinstance(op, arith.RemUIOp):
        c = _static(op.rhs)
        return c - 1 if c is not None and c >= 1 else None
    if isinstance(op, arith.AndIOp):
        cs = [c for c in (_static(op.lhs), _static(op.rhs)) if c is not None and c >= 0]
        return min(cs) if cs else None
    return None


def _same(a: Value, b: Value) -> bool:
    if a is b:
        return True
    sa, sb = _static(a), _static(b)
    return sa is not None and sa == sb


def _is_product(v: Value, a: Value, b: Value) -> bool:
    """Whether `v` is `a * b` (static, or an `arith.muli` of the two in either order)."""
    sv, sa, sb = _static(v), _static(a), _static(b)
    if sv is not None and sa is not None and sb is not None:
        return sv == sa * sb
    if (sb == 1 and _same(v, a)) or (sa == 1 and _same(v, b)):
        return True
    if isinstance(v, SSAValue) and isinstance(v.owner, arith.MuliOp):
        x, y = v.owner.lhs, v.owner.rhs
        return (_same(x, a) and _same(y, b)) or (_same(x, b) and _same(y, a))
    return False


def _view_modes(view: ViewOp) -> list[tuple[Value, int | None, bool, Value, int, int, tuple[int, int]]] | None:
    """(extent, bound, exact, stride, stride divisor, extent divisor, stride congruence)
    per top-level mode of a pointer view whose modes are single leaves; None otherwise."""
    t = view.result.type
    if not isinstance(t.layout, CuteLayoutAttr) or not isinstance(view.source.type, PtrType):
        return None
    lay = t.cute_layout
    if not isinstance(lay.shape, tuple):
        lay = cute.Layout((lay.shape,), (lay.stride,))
    if any(isinstance(s, tuple) for s in lay.shape):
        return None
    pairs = leaves(lay)
    divs, bounds, cong = view.divisors(), view.bounds(), view.congruences()
    i = 0
    shape: list[tuple[Value, int | None, bool, int]] = []
    for n, _ in pairs:
        if n is DYN:
            b, d = bounds[i], divs[i]
            shape.append((view.dynamic[i], b or None, bool(b) and d == b, d))
            i += 1
        else:
            shape.append((n, n, True, n))
    out = []
    for (n, b, exact, nd), (_, st) in zip(shape, pairs):
        if st is DYN:
            out.append((n, b, exact, view.dynamic[i], divs[i], nd, cong[i]))
            i += 1
        else:
            out.append((n, b, exact, st, 1, nd, (1, 0)))
    return out


def copy_facts(copy: CopyOp) -> CopyFacts | None:
    """The facts of a whole-tensor copy between two `layout.view`s of pointers whose
    modes are single leaves, the same number in both; None for any other copy."""
    sv, dv = copy.source.owner, copy.dest.owner
    if not isinstance(sv, ViewOp) or not isinstance(dv, ViewOp):
        return None
    sm, dm = _view_modes(sv), _view_modes(dv)
    if sm is None or dm is None or len(sm) != len(dm):
        return None
    modes = []
    for (sn, sb, se, ss, sd, sx, sc), (dn, db, de, ds, dd, dx, dc) in zip(sm, dm):
        # the extent: a static one where either view has it, else the bounds promised
        extent = sn if isinstance(sn, int) else dn
        if isinstance(sn, int) or isinstance(dn, int):
            bound, exact, divisor = extent, True, extent
        else:
            bounds = [b for b in (sb, db) if b]
            bound = min(bounds) if bounds else None
            exact = (se and sb == bound) or (de and db == bound)
            divisor = max(sx, dx)
        modes.append(Mode(extent, bound, exact, ss, ds, sd, dd, divisor, sc, dc))
    compact = _compact(modes)
    st, dt = copy.source.type, copy.dest.type
    (sbase, smis), (dbase, dmis) = _aligned_base(sv.source), _aligned_base(dv.source)
    se, de = element_bytes(st.element_type), element_bytes(dt.element_type)
    return CopyFacts(
        tuple(modes), se, de, _alignment(sv.source, sbase, smis, se), _alignment(dv.source, dbase, dmis, de),
        compact, sv.source, dv.source, smis, dmis, sbase, dbase, copy.convert is not None,
        isinstance(st.element_type, IntegerType),
    )


def _alignment(ptr: SSAValue, base: SSAValue | None, mis: Value | None, e: int) -> int:
    """A view pointer's alignment in bytes: its type's, or where it is an aligned
    pointer moved by a static offset, what the base's alignment and the offset's bytes
    share."""
    if base is None or not isinstance(mis, int):
        return ptr.type.alignment  # type: ignore[attr-defined]
    a = base.type.alignment  # type: ignore[attr-defined]
    return math.gcd(a, mis * e) if mis else a


ALIGNED_BASE = 16
"""The alignment (bytes) a pointer moved by a scalar offset must have for the offset to
count as the view's misalignment (`_aligned_base`): the widest vector."""


def _aligned_base(ptr: SSAValue) -> tuple[SSAValue | None, Value | None]:
    """(base, offset) where `ptr` is `layout.addptr base, offset` of a scalar pointer
    `base` aligned to `ALIGNED_BASE` bytes and a scalar integer offset (index or i32/i64;
    a constant as its int); (None, None) otherwise."""
    from tilec.dialects.layout_ptr import AddPtrOp

    op = ptr.owner
    if not isinstance(op, AddPtrOp) or not isinstance(op.ptr.type, PtrType):
        return None, None
    if op.ptr.type.alignment % ALIGNED_BASE:
        return None, None
    off = op.offset
    k = _static(off)
    if k is None and not isinstance(off.type, IndexType):
        return None, None
    return op.ptr, (k if k is not None else off)


def _compact(modes: list[Mode]) -> bool:
    """Whether the destination is row-major over the modes: the last stride 1, each
    other the product of the next mode's extent and stride."""
    if _static(modes[-1].dst_stride) != 1:
        return False
    return all(_is_product(modes[k].dst_stride, modes[k + 1].extent, modes[k + 1].dst_stride)
               for k in range(len(modes) - 1))


def extent_class(bound: int | None) -> int | None:
    """A known extent's power-of-two ceiling where it is at most `SMALL_EXTENT`."""
    if bound is None or bound > SMALL_EXTENT:
        return None
    return 1 << (bound - 1).bit_length()


def gather_vector(facts: CopyFacts, target: Target, run_bytes: int = 0) -> int:
    """Elements per run of one gather thread: a widest-vector store of the destination
    (`run_bytes` > 0: that many destination bytes, the `tile` option `gather_bytes`), at
    most half the last mode's extent class (a run then wraps the last mode at most once:
    the extent is more than half its class)."""
    v = max(1, (run_bytes or target.vector_bytes) // facts.dst_bytes)
    c = extent_class(facts.modes[-1].bound)
    if c is not None:
        v = min(v, max(1, c // 2))
    return v


def gather_block(facts: CopyFacts, target: Target) -> int:
    """Destination elements per block of the gather strategy."""
    return GATHER_THREADS * GATHER_RUNS_PER_THREAD * gather_vector(facts, target)


def sector_use(facts: CopyFacts, block: int, sector_bytes: int) -> float:
    """The estimated share of the source sector bytes a gather block reads that it uses
    (module doc): runs along the source's stride-1 mode, as long as the block leaves
    them, and as often as the slower modes broadcast them again; above 1 where the
    source broadcasts every moving mode away."""
    moving = [k for k, m in enumerate(facts.modes) if _static(m.src_stride) != 0]
    if not moving:
        return float(block)
    unit = [k for k in moving if _static(facts.modes[k].src_stride) == 1]
    step = 1
    if not unit:
        # no stride-1 mode: the mode of the least short static stride, its runs
        # spread over that many elements (a slice taking every 2nd element)
        # (of a known short extent: its class, as copy_ states it, bounds the run)
        short = [(abs(s), k) for k in moving if (s := _static(facts.modes[k].src_stride)) is not None
                 and 1 < abs(s) <= SMALL_EXTENT and extent_class(facts.modes[k].bound) is not None]
        if not short:
            return facts.src_bytes / sector_bytes
        step, m = min(short)
        unit = [m]
    m = unit[-1]
    faster = 1
    for k in moving:
        if k > m:
            c = _block_extent(facts.modes[k])
            if c is None:
                return facts.src_bytes / sector_bytes
            faster *= c
    b = facts.modes[m].bound
    n = _block_extent(facts.modes[m])
    per_row = block / faster  # the block's elements along `m` per combination of the faster modes
    rereads = m > 0 and all(_static(facts.modes[k].src_stride) == 0 for k in range(m))
    run = per_row
    if n is not None and per_row > n:
        if rereads:
            run = n  # the slower modes read the same run again
        elif not _continues(facts, m, n, moving):
            # they wrap `m` into the next slower mode, the source elsewhere: from a
            # phase anywhere along `m`, `1 + (per_row - 1) / n` runs share them
            run = per_row / (1 + (per_row - 1) / n)
    span = math.ceil(((max(1, run) - 1) * step + 1) * facts.src_bytes)
    use = max(1, run) * facts.src_bytes / (_sectors_spanned(span, _start_grain(facts, m, moving, sector_bytes), sector_bytes)
                                           * sector_bytes)
    pitch = _row_pitch(facts, m, faster, per_row) if step == 1 else None
    if pitch is not None:
        # whole rows at a short static pitch: the block's rows share their sectors
        use = max(use, (b or 1) / pitch)
    if rereads:
        # every slower mode broadcasts: the block reads its run again and again
        use *= max(1, block // (max(1, run) * faster))
    return use


def _block_extent(mode: Mode) -> int | None:
    """A mode's extent as `sector_use` counts it: a short one (at most `SMALL_EXTENT`)
    exactly where known so, else its class (`extent_class`); None for a long or unknown
    one (copy_'s key states short extents only: its facts and its numbers count alike)."""
    if mode.exact and mode.bound is not None and mode.bound <= SMALL_EXTENT:
        return mode.bound
    return extent_class(mode.bound)


def _continues(facts: CopyFacts, m: int, n: int, moving: list[int]) -> bool:
    """Whether the source's run along mode `m` (of `n` elements) continues in a mode
    the block walks with it (its source stride `n`): the next slower moving mode, into
    which a block's elements past `m`'s extent wrap, or a faster one, which the block
    covers whole (a transpose inside blocks of `n` x k elements)."""
    slower = [k for k in moving if k < m]
    walked = [k for k in moving if k > m] + slower[-1:]
    return any(_static(facts.modes[k].src_stride) == n for k in walked)


def _start_grain(facts: CopyFacts, m: int, moving: list[int], sector_bytes: int) -> int:
    """Bytes that every start of a block's run along mode `m` is a multiple of, at most a
    sector: what the source pointer's alignment and the other moving modes' strides
    (static, or what a run-time one is promised a multiple of) share with the sector.
    A run of 16 bytes from a start anywhere on 4 bytes touches 1.375 sectors on
    average, not one."""
    g = math.gcd(sector_bytes, facts.src_align)
    for k in moving:
        if k != m:
            s = _static(facts.modes[k].src_stride)
            g = math.gcd(g, abs(s) * facts.src_bytes if s is not None else facts.modes[k].src_divisor * facts.src_bytes)
    return max(g, 1)


def _sectors_spanned(span: int, grain: int, sector_bytes: int) -> float:
    """The sectors `span` bytes touch on average from a start anywhere on `grain`
    bytes (a multiple of it below the sector)."""
    starts = range(0, sector_bytes, grain)
    return sum((o + span - 1) // sector_bytes + 1 for o in starts) / len(starts)


def view_sector_use(extents: list[int | None], strides: list[int | None], e: int, sector_bytes: int) -> float:
    """The share of the DRAM sector bytes a whole view's elements touch that they use
    (`sector_use`'s rules, for the whole view rather than a gather block): the
    elements form runs along the stride-1 mode, lengthened by each mode whose stride is
    the run so far (contiguous), repeated at the pitch of the next stride; runs whose
    gaps are shorter than a sector share every sector between them (rows of 5 bytes at
    a pitch of 7 use 5/7 of the bytes read), longer gaps leave each run its own sectors
    (`ceil` of its bytes from each start a pitch of the runs gives mod the sector, on
    average). Modes of stride 0 (read once) or extent 1 do not count; a stride or
    extent not known (None) in the runs counts as long runs (1.0)."""
    ms = sorted((abs(s), n) for n, s in zip(extents, strides) if s != 0 and n != 1)
    if any(s is None or n is None for s, n in ms[:1]):
        return 1.0
    run, i = 1, 0
    while i < len(ms) and ms[i][0] == run:
        if ms[i][1] is None:
            return 1.0
        run *= ms[i][1]  # type: ignore[operator]
        i += 1
    if i == len(ms) or ms[i][0] is None or ms[i][0] <= run:  # type: ignore[operator]
        return 1.0
    rb, pb = run * e, ms[i][0] * e  # type: ignore[operator]
    if pb - rb < sector_bytes:
        return rb / pb
    g = math.gcd(pb, sector_bytes)
    starts = range(0, sector_bytes, g)
    touched = sum((o + rb - 1) // sector_bytes + 1 for o in starts) / len(starts)
    return min(1.0, rb / (touched * sector_bytes))


def dram_share(facts: CopyFacts, sector_bytes: int) -> float:
    """The share of the DRAM bytes a copy moves that it needs, the bound of its speed as
    a ratio to cudaMemcpy of the same bytes (bytes read + written, counted as PyTorch
    counts them: every destination element once, every source element it reads once):
    `(R + W) / (R / use_src + W / use_dst)`, each view's use of the sectors it touches
    by `view_sector_use` (R the source's elements, its broadcast modes counted once, W
    the destination's). An extent not known exactly counts as long."""
    ext = [m.bound if m.exact else (_static(m.extent)) for m in facts.modes]
    use = []
    for view in ("src", "dst"):
        strides = [_static(m.src_stride if view == "src" else m.dst_stride) for m in facts.modes]
        use.append(view_sector_use(ext, strides, facts.src_bytes if view == "src" else facts.dst_bytes, sector_bytes))
    r = facts.src_bytes * math.prod((n or 1) for n, m in zip(ext, facts.modes) if _static(m.src_stride) != 0)
    w = facts.dst_bytes * math.prod((n or 1) for n in ext)
    return (r + w) / (r / use[0] + w / use[1])


def _row_pitch(facts: CopyFacts, m: int, faster: int, run: int) -> int | None:
    """The source pitch (elements) of the block's rows where they are whole rows of the
    stride-1 mode `m` (the last mode, known exactly, no faster mode, a block holds
    several) and the next slower moving mode's source stride is static, at least the
    row and at most `SMALL_EXTENT` (`tilec.copy_` states such a stride as its value:
    `copy_plan._gather_facts`); None otherwise. Rows of 5 bytes at a pitch of 7 use
    5/7 of the sectors a block reads, not a sector each."""
    mode = facts.modes[m]
    if m != facts.rank - 1 or faster != 1 or not mode.exact or mode.bound is None or run < mode.bound:
        return None
    slower = [k for k in range(m) if _static(facts.modes[k].src_stride) != 0]
    if not slower:
        return None
    s = _static(facts.modes[slower[-1]].src_stride)
    if s is None or not mode.bound <= s <= SMALL_EXTENT:
        return None
    return s


def vector_runs(facts: CopyFacts, v: int) -> bool:
    """Whether every gather run of `v` elements into a compact destination is `v`
    contiguous source elements from an address aligned to their bytes (one vector
    load): the source contiguous along the last mode, that mode a multiple of `v` long
    (a run never wraps it), every other source stride 0 or a multiple of `v` (not 1),
    the source pointer aligned to `v` elements."""
    if v < 2 or not facts.dst_compact:
        return False
    last = facts.modes[-1]
    if _static(last.src_stride) != 1 or last.divisor % v or facts.src_align % (v * facts.src_bytes):
        return False
    for m in facts.modes[:-1]:
        s = _static(m.src_stride)
        if s == 0:
            continue
        if s is not None and (s == 1 or s % v):
            return False
        if s is None and m.src_divisor % v:
            return False
    return True


def short_odd_last(mode: Mode) -> bool:
    """Whether a last mode is short (at most `SMALL_EXTENT`) and known exactly not to
    be a power of two (the tile pads it). A bound alone does not say how much the tile
    pads, nor `sector_use` where the block's runs wrap: `tilec.copy_` states the
    extents of the copies its rule gathers (`copy_plan._gather_facts`), so that its
    key's facts and its own numbers choose alike."""
    if mode.bound is None or mode.bound > SMALL_EXTENT or not mode.exact:
        return False
    return mode.bound & (mode.bound - 1) != 0


LONGEST_RUN = 512
"""Longest last mode (elements) that the gather strategy takes for the tiled kernel's
padding where the source runs along it (stride 1) or broadcasts it (`padded_last`):
past it the tiled kernel's rows are long and few of its tiles are edges."""
MAX_TILE_USE = 0.9
"""Least share of its power-of-two ceiling that a last mode of `SMALL_EXTENT` to
`LONGEST_RUN` elements must fill for the tiled kernel to keep it (`padded_last`)."""


def padded_last(facts: CopyFacts) -> bool:
    """Whether the tiled kernel pads the last mode so that a gather wastes less: a
    short one not known to be a power of two (`short_odd_last`), or one known exactly
    to have at most `LONGEST_RUN` elements, along which the source is contiguous or
    broadcasts, that fills less than `MAX_TILE_USE` of its power-of-two ceiling (rows
    of 259 bytes broadcast from one row: H100, the strided set's case 20, 0.94 of
    cudaMemcpy gathered on 11-26; realigned, 0.29 on the H200)."""
    last = facts.modes[-1]
    if short_odd_last(last):
        return True
    n = last.bound
    if n is None or not last.exact or n > LONGEST_RUN or _static(last.src_stride) not in (0, 1):
        return False
    return n / (1 << (n - 1).bit_length()) < MAX_TILE_USE


BOX_SMEM = 40 * 1024
"""Shared memory of one box (bytes; the `copy-strategy` pass's option `box_smem`)."""
BOX_SETTINGS = ("auto", "never")


def _pow2(n: int) -> bool:
    return n & (n - 1) == 0


CHUNK_BYTES = 16
"""Bytes of a box's vector accesses."""


def box_pitch(run_bytes: int) -> int:
    """Bytes of a box's shared-memory slot: a source run and up to 15 bytes before it
    (its address modulo 16), in whole 16-byte chunks."""
    return (run_bytes + 15 + 15) // 16 * 16


def _is_extent(v: Value, m: Mode) -> bool:
    """Whether a stride `v` is known to be mode `m`'s extent: the same value, or the
    static value its exact extent is known to be."""
    return _same(v, m.extent) or (m.exact and m.bound is not None and _static(v) == m.bound)


def _short(m: Mode) -> int | None:
    """A mode's extent where it is known exactly and at most `SMALL_EXTENT`."""
    return m.bound if m.exact and m.bound is not None and m.bound <= SMALL_EXTENT else None


TILES_BYTES = 4
"""Largest element the `tiles` box takes (the `copy-strategy` option `tiles_bytes`).
Measured on the H200 (8191 x 8209 transposes, 2026-11-29, 512 threads, phase 2's
lanes along a destination row, `_box_tile.tiles_phase2`): int8 0.77 of cudaMemcpy, f16
0.90, f32 0.91, against 0.46 (box<tiles> with lanes on 32 rows), and the tiled kernel's
0.54 and 0.78 (its every access one element); f64 stays tiled (0.91 against the box's
0.79) (benchmarks/NOTES.md). The strategy itself takes elements up to
8 bytes. f64 again once the box's phase 1 moved one 8-byte `cp.async` an element (odd44:
before, a register round trip a chunk), in turns against the tiled kernel (H200, 10 rounds,
the Program path, 32-byte grains): 8191 x 8209 x1.000 (0.938 / 0.939 of cudaMemcpy), 8191 x
8191 x0.999, 4099 x 12289 x1.007; through copy_ (`tiles_bytes=8` route) x0.981-0.984; the
strided set's 17 (int64 -> int16, every converting size) x0.841: f64 stays tiled."""
TILES_CONVERT_BYTES = 2
"""Largest source element the `tiles` box takes in a converting copy (phase 2 converts
each element it reads from the box before the destination's 16-byte store): where the
tiled copy's misaligned tile cannot fill its byte budget (`tile.misaligned_tile_fills`:
1- and 2-byte elements take the short-mode tile, every access one element)."""
TILES_CONVERT_WIDENING = 2
"""Most times its source element's size a converting `tiles` box's destination element
may be (`TILES_CONVERT_BYTES`). Measured on the H200 (8191 x 8209 transposes through
`tilec.copy_`, benchmarks/NOTES.md, strided37; ratio to cudaMemcpy, box / tiled):
uint8 -> int16 0.735 / 0.645, int16 -> int8 0.793 / 0.761, float16 -> float32 0.851 /
0.827, the strided set's case 23 (bool -> int16) 0.715 / 0.589; but int8 -> float32
0.640 / 0.798: a destination chunk of 4 elements takes 4 shared reads and conversions
for 4 source bytes, where the tiled kernel stores 4 bytes an access."""
TILES_RUN_BYTES = 128
"""Bytes of a `tiles` box's source runs of 1-byte elements (`tiles_run_bytes`)."""
TILES_RUN_WIDE_BYTES = 256
"""Bytes of a `tiles` box's source runs of wider elements (`tiles_run_bytes`)."""


def tiles_run_bytes(e: int, dst_e: int | None = None) -> int:
    """Bytes of a `tiles` box's source runs of `e`-byte elements copied into `dst_e`-byte
    ones (default `e`) (the `tile` pass's `tiles_run` where not given): `TILES_RUN_BYTES`
    for 1-byte elements copied as 1-byte ones, `TILES_RUN_WIDE_BYTES` for wider ones and
    1-byte ones converted to wider. Measured on the H200 (8191 x 8209 transposes, the
    Program path, benchmarks/NOTES.md): f16 runs of 256 bytes 0.974 of cudaMemcpy against
    0.947 at 128; f32 0.934 against 0.909 at 128 and 0.925 at 512 (a misaligned run of
    128 bytes reads 5 sectors for 4, of 256 9 for 8); int8 at 256 0.71 against 0.77
    (copy43, 40 KiB boxes); in turns, `tilec.copy_` (s1146): the strided set's 23 (bool ->
    int16) at 256 x1.026 [1.026, 1.028] (0.855 -> 0.878), int8 8191 x 8209 x0.989."""
    return TILES_RUN_BYTES if e == 1 and (dst_e or e) == 1 else TILES_RUN_WIDE_BYTES


TILES_FIT_D = True
"""Whether a `tiles` box whose `D` is known exactly and shorter than the box's default
tile (`tiles_shape`'s `n_d`) takes `D` whole and gives the rest of its shared memory to
longer source runs (up to `TILES_LONGEST_RUN_BYTES`): the strided set's case 00, uint8
rows of 186 bytes in a box of 512 steps, otherwise fills 39% of its box. Measured on the
H200 (benchmarks/NOTES.md, strided37; ratio to cudaMemcpy, one run): case 00 0.419 (D
whole, runs of 352 bytes) against 0.365 (512 x 128); runs of 288 at 256 threads 0.419,
144 at 512 0.387, a 32 KiB box at 256 threads 0.410; the tiled kernel 0.322."""
TILES_LONGEST_RUN_BYTES = 512
"""The longest source run (bytes) a `tiles` box of a short `D` takes (`TILES_FIT_D`)."""


TILES_MERGE_BYTES = 1
"""The largest source element a `tiles` box merging the destination's contiguous modes
after `W` into one mode `D'` takes (`tiles_merged`; the `copy-strategy` and `tile`
passes' option `tiles_merge`, 0 none): where the destination is compact over the modes
after the source's contiguous mode `W`, the box's destination rows run over all of them
(long rows, whole chunks) while each of its source runs is one step of `D'` (its source
address the sum of the modes' digits times their strides, one table entry a run), and
its runs take `W` whole where it fits (`tiles_merged_run`). Measured on the H200
(benchmarks/NOTES.md, strided38; ratio to cudaMemcpy, one run): the strided set's 36
(int8 rank 6, `D` of 19) 0.284 tiled -> 0.546 merged (runs of 128: 0.449, at 256
threads 0.523; of 96: 0.456), 00 (uint8, a mode in both contiguous groups) 0.418 as
`box<tiles>` -> 0.598 (runs of 128: 0.504); 06 (int32, `D` of 42) 0.977 tiled against
0.960 merged: 1-byte elements only (copies widening theirs: `TILES_MERGE_CONVERT_BYTES`)."""


TILES_SHORT_BYTES = 2
"""The largest source element a `tiles` box whose source-contiguous mode `W` is short
(known exactly, at most `SMALL_EXTENT`) and whose `D` is long takes, `W` whole as its
runs (`tiles_short_run`), where no 1-byte flavour (`flat`, `cols`, `rows`) takes the
copy: a converting copy, or elements of 2 bytes or more, `W` at least `TILES_SHORT_RUN`
bytes (the `copy-strategy` and `tile` passes' option `tiles_short`, 0 none). The strided
set's case 29 (f16 -> bf16, `W` of 42 steps, `D` of 12489), measured on the H200
(benchmarks/NOTES.md, sb39, ratio to cudaMemcpy): the tiled kernel (64 x 1 x 128, every
access one element) 0.613 / 0.618, this box (runs of 96 bytes, 512 threads) 0.762 / 0.767
in two runs; at 256 threads 0.572, with 40 or 96 KiB boxes 0.718 / 0.735."""


TILES_SHORT_RUN = 64
"""The fewest bytes of a short `W` a `tiles` box takes whole (`TILES_SHORT_BYTES`): four
16-byte chunks (measured at 84 bytes; a shorter run fills less of its slot, 14 bytes
of a 48-byte one)."""


TILES_SHORT_D_BYTES = 0
"""The least of the wider element's bytes (source or destination) from which a `tiles` box
takes a copy whose destination-contiguous mode `D` is short (known, at most `SMALL_EXTENT`) and `W` long,
the destination's rows `D` whole in a tile (`tiles_shape`'s `n_d`, the runs the longest
that fit), any conversion (`_tiles` at 8): the permutes into short rows of 8- and 4-byte
elements that the gather or the tiled kernel (its short mode padded to a power of two,
every access one element) take otherwise (the strided set's 18, 47; the `copy-strategy`
and `tile` passes' option `tiles_short_d`, 0 none). Default 0: off. Measured on the H200
(benchmarks/NOTES.md, p8b45; in turns against the rule, 9 rounds): 18 (f64 rows of 61)
x0.991, 47 (uint8 -> f64 rows of 17) x0.561, 06 (int32 rows of 42) x0.691, 41 (f32 ->
int64 rows of 17) x0.521; 06 / 41 with runs of 1024 bytes in 64 KiB x0.710 / x0.602, with
4 phase-2 lanes a row x0.627 / x0.516: a block's few short rows (12-35 KiB boxes) do not
pay for its two phases."""


def tiles_short_run(facts: CopyFacts) -> int | None:
    """The runs (bytes) of a `tiles` box whose `W` is short (`TILES_SHORT_BYTES`): `W`
    whole, rounded up to 16 bytes, where `W` is known exactly and at most
    `SMALL_EXTENT`; else None."""
    w = next((k for k, m in enumerate(facts.modes) if _static(m.src_stride) == 1), None)
    if w is None:
        return None
    n = _short(facts.modes[w])
    return None if n is None else -(-n * facts.src_bytes // CHUNK_BYTES) * CHUNK_BYTES


TILES_MIRROR = 512
"""The runs (bytes; 0 none) of a `tiles` box whose short source-contiguous mode `W`
(`tiles_short_run`) a mode continues (`tiles_mirror_mode`, the mirror of `tiles_merged`):
`W` and that mode as one mode `W'` of the box, its source runs `R` bytes of `W'` (longer
than `W` whole: 1.035 times the read sectors at random residues against 1.36 for 29's 84
bytes), each destination row's start the sum of its `W'` step's digits times their
destination strides (the `tile` pass's option `tiles_mirror=R` forces it, 0 none). H200 in
turns (benchmarks/NOTES.md, p2945), the strided set's 29 (f16 -> bf16, `W` of 42 continued
by 299): 0.781 of cudaMemcpy -> 0.854 (x1.094, 16-byte phase-1 chunks,
`_box_tile.TILES_MIRROR_STAGE`); runs of 256 x1.084, of 1024 x0.69 (tiles of 56 steps of `D`)."""


def tiles_mirror_mode(facts: CopyFacts) -> tuple[int, int] | None:
    """(w, m) where the mode `m` continues the source's contiguous mode `w` (`W` known
    exactly, `m`'s source stride statically `W`'s extent, `m` neither `w` nor the
    destination's contiguous mode `D`, the last): `W` and `m` are one source run of
    `n_W n_m` elements (a `tiles_mirror` box's `W'`, `W` the lower digit); None
    otherwise."""
    d = facts.rank - 1
    ms = facts.modes
    w = next((k for k, m in enumerate(ms) if _static(m.src_stride) == 1), None)
    if w is None or w == d or not ms[w].exact or ms[w].bound is None:
        return None
    m = next((k for k, x in enumerate(ms) if k not in (w, d) and _static(x.src_stride) == ms[w].bound), None)
    return None if m is None else (w, m)


TILES_MERGE_CONVERT_BYTES = 4
"""The largest source element a merged `tiles` box takes where the copy widens its elements
(at most `TILES_CONVERT_WIDENING` times; `tiles_merge_bytes`), whatever the option's
`tiles_merge` above 0. Measured on the H200 in turns against the tiled kernel
(benchmarks/NOTES.md, pc49; the strided set's 41, f32 -> int64 `(14107, 56, 17)` permuted
`(2, 1, 0)`, `D` of 17 padded to 32 by the tiled kernel): 0.913 -> 0.935 of cudaMemcpy, x1.027
[1.008, 1.043] in 7 rounds (p8b45's reading x1.014 [0.812, 1.031]); plain 4-byte copies keep
the tiled kernel (06, int32: 0.977 tiled against 0.960 merged, strided38)."""


def tiles_merge_bytes(facts: CopyFacts, merge: int) -> int:
    """The largest source element of a merged `tiles` box for this copy: `merge` (the
    `copy-strategy` and `tile` passes' option `tiles_merge`, 0 none), at least
    `TILES_MERGE_CONVERT_BYTES` where the copy widens its elements at most
    `TILES_CONVERT_WIDENING` times and its `W` is long (not known at most `SMALL_EXTENT`:
    a short `W` is the short-run box's, `TILES_SHORT_BYTES`, or the mirror's)."""
    widens = facts.converts and facts.src_bytes < facts.dst_bytes <= TILES_CONVERT_WIDENING * facts.src_bytes
    w = next((m for m in facts.modes if _static(m.src_stride) == 1), None)
    long_w = w is not None and (w.bound is None or w.bound > SMALL_EXTENT)
    return max(merge, TILES_MERGE_CONVERT_BYTES) if merge and widens and long_w else merge


def tiles_merged(facts: CopyFacts, most: int = TILES_MERGE_BYTES) -> tuple[int, ...] | None:
    """The modes a `tiles` box merges into its destination mode `D'` (`TILES_MERGE_BYTES`):
    source elements of at most `most` bytes, the modes after the source's contiguous
    mode `W` (`w + 1 .. d`, two or more), where the destination is contiguous over them
    (the last stride 1, each other the product of the next mode's extent and stride);
    None otherwise."""
    if facts.src_bytes > most:
        return None
    d = facts.rank - 1
    ms = facts.modes
    w = next((k for k, m in enumerate(ms) if _static(m.src_stride) == 1), None)
    if w is None or d - w < 2 or _static(ms[d].dst_stride) != 1:
        return None
    # a value's number where known: static, or the extent of a mode known exactly
    exact = [(m.extent, m.bound) for m in ms if m.exact and m.bound is not None]

    def known(v: Value) -> int | None:
        k = _static(v)
        return k if k is not None else next((b for x, b in exact if x is v), None)

    def same(a: Value, b: Value) -> bool:
        return a is b or (known(a) is not None and known(a) == known(b))

    def product(v: Value, a: Value, b: Value) -> bool:
        kv, ka, kb = known(v), known(a), known(b)
        if kv is not None and ka is not None and kb is not None:
            return kv == ka * kb
        if _is_product(v, a, b):
            return True
        if isinstance(v, SSAValue) and isinstance(v.owner, arith.MuliOp):
            x, y = v.owner.lhs, v.owner.rhs
            return (same(x, a) and same(y, b)) or (same(x, b) and same(y, a))
        return False

    if not all(product(ms[k].dst_stride, ms[k + 1].extent, ms[k + 1].dst_stride) for k in range(w + 1, d)):
        return None
    return tuple(range(w + 1, d + 1))


def tiles_merged_run(e: int, n_w: int | None) -> int | None:
    """The runs (bytes) of a merged `tiles` box (`TILES_MERGE_BYTES`) whose `W` of `n_w`
    `e`-byte elements is known exactly: `W` whole, rounded up to 16 bytes, where that is
    longer than the default run (`tiles_run_bytes`) and at most `TILES_LONGEST_RUN_BYTES`
    (36's 181 steps: runs of 192, 0.546 of cudaMemcpy against 0.449 at 128); else None
    (the default)."""
    if n_w is None:
        return None
    run = -(-n_w * e // CHUNK_BYTES) * CHUNK_BYTES
    return run if tiles_run_bytes(e) < run <= TILES_LONGEST_RUN_BYTES else None


def tiles_fit_runs(e: int, smem: int, dt: int, ge: int, most: int = TILES_LONGEST_RUN_BYTES) -> int:
    """The longest source run (bytes, a multiple of 16, at most `most`) of `e`-byte
    elements whose `dt + ge - 1` slots fit `smem` bytes with the slots' shift (up to 16
    bytes every few slots: 2 elements a slot) and two chunks to spare; 0 where none."""
    slots = dt + ge - 1
    run = most // 16 * 16
    while run >= 16 and slots * (box_pitch(run) + 2 * e) + 2 * CHUNK_BYTES > smem:
        run -= 16
    return max(run, 0)


def tiles_shape(e: int, smem: int, run: int | None = None, grain: int = CHUNK_BYTES,
                dst_e: int | None = None, n_d: int | None = None) -> tuple[int, int, int] | None:
    """(Wt, Dt, PB) of a `tiles` box of `e`-byte source elements (`dst_e`-byte
    destination ones where it converts; default `e`) in `smem` bytes, in elements:
    `Wt` steps of `W` (a source run of `run` bytes, a multiple of 16; default
    `tiles_run_bytes(e)`), `Dt` steps of `D` (a
    multiple of the elements of a chunk, `16 / e` and `16 / dst_e`), the slot pitch `PB`; the box holds
    `Dt + grain / dst_e - 1` source runs (a destination grain of `grain` bytes, a multiple
    of 16, starting in the tile's range reads up to `grain / dst_e - 1` runs past it). None
    where not one chunk's rows fit.

    `n_d`: `D`'s extent where known exactly; where `run` is not given, `TILES_FIT_D`
    holds and `n_d` is shorter than that `Dt`, `Dt` is `n_d` rounded up to a chunk and
    the runs the longest that fit (`tiles_fit_runs`), when longer than the default."""
    ed = dst_e or e
    v = CHUNK_BYTES // min(e, ed)
    fit = run is None and TILES_FIT_D and n_d is not None
    run = run or tiles_run_bytes(e, ed)
    pb = box_pitch(run)
    dt = (smem // pb - (grain // ed - 1)) // v * v
    if fit and dt > -(-n_d // v) * v:  # type: ignore[operator]
        short = -(-n_d // v) * v  # type: ignore[operator]
        longer = tiles_fit_runs(e, smem, short, grain // ed)
        if longer > run:
            return longer // e, short, box_pitch(longer) // e
    return (run // e, dt, pb // e) if dt >= v else None


def tiles_slots(tgt: Target, threads: int, per_sm: int, box_bytes: int) -> int:
    """The blocks of a `tiles` box that run at once on `tgt` (0 where its multiprocessors
    are unknown): `per_sm` a multiprocessor (the blocks its launch asks each to hold,
    `tilec.min_blocks`, which bounds the registers) or fewer where the threads or the
    box's `box_bytes` of shared memory (`Target.resident_blocks`) allow fewer."""
    per = min(per_sm, tgt.threads_per_sm // threads)
    if tgt.smem_per_sm:
        per = min(per, tgt.resident_blocks(box_bytes))
    return tgt.multiprocessors * max(per, 0)


def tiles_in_rounds(fewest: int, groups: int, slots: int) -> int:
    """How many tiles along `D` a `tiles` box spreads `D` over (the whole-rounds rule):
    at least `fewest` (those of the box's largest `Dt`), with `groups` blocks for each
    (the tiles along `W` times the other modes' extents) on `slots` blocks at once
    (`tiles_slots`), the blocks run in `R = ceil(fewest groups / slots)` rounds; the
    most tiles that still fit `R` rounds, `floor(R slots / groups)`, make every block
    of them smaller by the same count of rounds (the grid's last round, of `fewest
    groups - (R - 1) slots` blocks, otherwise leaves slots idle while every block
    takes as long: 8191 x 8209 int8 at 64 KiB boxes, 1235 blocks on 264 slots, 4.68
    rounds, each block 432 steps of `D`; spread, 1300 blocks of 416). `fewest` where
    `slots` or `groups` is 0."""
    if slots <= 0 or groups <= 0:
        return fewest
    rounds = -(-fewest * groups // slots)
    return max(fewest, rounds * slots // groups)


def _tiles(facts: CopyFacts, smem: int, most: int) -> bool:
    """Whether the `tiles` box takes a copy whose `W` and `D` are both long (not known
    at most `SMALL_EXTENT`; module doc): elements of `TILES_ELEMENT_BYTES`, or a
    converting copy of source elements of at most `TILES_CONVERT_BYTES` (and `most`)
    into elements of at most `TILES_CONVERT_WIDENING` times their size (every size
    where `most` is 8: the `tile` pass's check of a written strategy, and an A/B), both pointers allowing 16-byte
    vectors once aligned down (a misalignment stated, or aligned to 16), and the tiled
    copy unable to move 16-byte vectors on both sides (`vector_aligned`)."""
    if facts.converts:
        if most >= 8:  # every size the strategy takes (the `tile` pass's check; an A/B)
            if max(facts.src_bytes, facts.dst_bytes) > 8:
                return False
        elif facts.src_bytes > min(most, TILES_CONVERT_BYTES) or facts.dst_bytes > TILES_CONVERT_WIDENING * facts.src_bytes:
            return False
    elif facts.src_bytes != facts.dst_bytes or facts.src_bytes > min(most, 8):
        return False
    if (facts.src_mis is None and facts.src_align % CHUNK_BYTES) or (facts.dst_mis is None and facts.dst_align % CHUNK_BYTES):
        return False
    return (not vector_aligned(facts, CHUNK_BYTES)
            and tiles_shape(facts.src_bytes, smem, dst_e=facts.dst_bytes) is not None)


def span_rows(pitch: int, smem: int) -> int:
    """Rows of source pitch `pitch` bytes a `span` box stages: as many as a box of
    `smem` bytes holds with a chunk to spare at each end, a multiple of 16 (a block's
    destination rows then start where the first block's start modulo 16 bytes)."""
    return (smem - 2 * CHUNK_BYTES) // pitch // CHUNK_BYTES * CHUNK_BYTES


def _span(facts: CopyFacts, smem: int) -> bool:
    """Whether the `span` box takes a copy whose last mode is contiguous in both views
    (box_flavour checked it): 1-byte elements, rows of a known length `n` shorter than a
    16-byte chunk and not a power of two (a power of two is a vector of the gather),
    the next mode's source stride (the pitch `P`) static with gaps shorter than a chunk
    (`n < P < n + 16`: every chunk of the span holds row bytes; every 32-byte sector
    is read either way), the destination compact over the two (its stride of the next
    mode `n`), and 32 rows or more in a box."""
    if facts.rank < 2 or facts.src_bytes != 1 or facts.dst_bytes != 1:
        return False
    d = facts.modes[-1]
    k = facts.modes[-2]
    n, pitch = _short(d), _static(k.src_stride)
    if n is None or n >= CHUNK_BYTES or _pow2(n) or pitch is None or not n < pitch < n + CHUNK_BYTES:
        return False
    return _is_extent(k.dst_stride, d) and span_rows(pitch, smem) >= 2 * CHUNK_BYTES


def box_flavour(facts: CopyFacts, smem: int = BOX_SMEM, tiles_bytes: int = TILES_BYTES,
                merge: int = TILES_MERGE_BYTES, short: int = TILES_SHORT_BYTES,
                short_d: int = TILES_SHORT_D_BYTES) -> str | None:
    """"flat", "rows", "cols" or "tiles" where the box strategy takes the copy (module
    doc), else None. `smem`: the shared memory of one box; `tiles_bytes`: the largest
    element `tiles` takes; `merge` (`TILES_MERGE_BYTES`): `tiles` also where `W` is
    long and the destination's modes after it merge into one (`tiles_merged`, elements
    of at most `merge` bytes), however short `D`; `short` (`TILES_SHORT_BYTES`): `tiles`
    also where `W` is short and `D` long, source elements of at most `short` bytes,
    converting or wider than 1 byte (what the 1-byte flavours leave); `short_d`
    (`TILES_SHORT_D_BYTES`): `tiles` also where `D` is short and `W` long, the wider
    element at least `short_d` bytes (0: none), converting or wider than 1 byte, the
    destination's rows at least `TILES_SHORT_RUN` bytes (shorter ones, NCHW -> NHWC of 3
    channels, stay the gather's)."""
    if facts.rank < 2:
        return None
    if any(_static(m.src_stride) == 0 for m in facts.modes):
        return None  # a broadcasting source: the gather strategy's
    if any((_static(s) or 0) < 0 for m in facts.modes for s in (m.src_stride, m.dst_stride)):
        return None  # a box reads and writes its runs forwards
    d = facts.rank - 1
    w = next((k for k, m in enumerate(facts.modes) if _static(m.src_stride) == 1), None)
    if w == d and _static(facts.modes[d].dst_stride) == 1:
        return "span" if not facts.converts and _span(facts, smem) else None
    if w is None or w == d or _static(facts.modes[d].dst_stride) != 1:
        return None
    mw, md = facts.modes[w], facts.modes[d]
    nw, nd = _short(mw), _short(md)
    merge_e = tiles_merge_bytes(facts, merge)
    if (mw.bound is None or mw.bound > SMALL_EXTENT) and tiles_merged(facts, merge_e) is not None:
        # a widening copy merged by rule (`TILES_MERGE_CONVERT_BYTES`): any size the box converts
        return "tiles" if _tiles(facts, smem, 8 if merge_e > merge else tiles_bytes) else None
    if all(m.bound is None or m.bound > SMALL_EXTENT for m in (mw, md)):
        return "tiles" if _tiles(facts, smem, tiles_bytes) else None
    if (short_d and nd is not None and nw is None and max(facts.src_bytes, facts.dst_bytes) >= short_d
            and nd * facts.dst_bytes >= TILES_SHORT_RUN and (facts.converts or facts.src_bytes > 1)
            and _tiles(facts, smem, 8)):
        return "tiles"  # D short, the destination's rows whole (`TILES_SHORT_D_BYTES`)
    if (nw is not None and nd is None and facts.src_bytes <= short and (facts.converts or facts.src_bytes > 1)
            and nw * facts.src_bytes >= TILES_SHORT_RUN and _tiles(facts, smem, tiles_bytes)):
        return "tiles"  # W short, taken whole (`TILES_SHORT_BYTES`)
    if facts.converts:
        return None  # only `tiles` converts (phase 2, element by element)
    if facts.src_bytes != 1 or facts.dst_bytes != 1:
        return None
    if nw is None:
        cols = nd is not None and _is_extent(mw.dst_stride, md) and not _pow2(nd)
        return "cols" if cols and nd * box_pitch(CHUNK_BYTES) <= smem else None
    if not _is_extent(md.src_stride, mw):
        return None
    if nd is None:
        return "flat" if nw * 16 + 16 <= smem and not _pow2(nw) else None
    if nd < 16 or facts.rank < 3 or (_pow2(nw) and _pow2(nd)):
        return None
    k = d - 1
    if k == w or not _is_extent(facts.modes[k].dst_stride, md):
        return None
    return "rows" if 2 * box_pitch(nw * nd) <= smem else None


GATHER_SETTINGS = ("auto", "always", "never")
REALIGN_SETTINGS = GATHER_SETTINGS


REALIGN_STEPS = (1, 2)
"""The source steps of the last mode the realign rule takes by itself (`realign=auto`):
rows contiguous in both views, and rows of 1-byte integers read at a step of 2 longer
than `STEP2_SHORT_ROW` elements (not known to be shorter), each 16-byte destination chunk
from the 32-byte window of three aligned vectors (passes/_realign_tile.py). H200, of
cudaMemcpy: 37 (int8 34951 x 18858, every other byte of rows 75438 apart) 0.446 (its tiled
kernel: 174 registers, one block a multiprocessor) -> 0.562 (bound 0.666); short rows
lose to the gather: 07 (rows of 56 at a pitch of 117) 0.330 against 0.424, 43 (int16 rows
of 31, `realign=always`) 0.362 against 0.481; int8 rows of 72 / 128 / 512 elements 0.498 /
0.599 / 0.605 against the tiled kernel's 0.073 / 0.127 / 0.299 (benchmarks/NOTES.md,
slice40). 2-byte integers at a step of 2: `realign=always` only (int16 rows of 1024: 0.626
against the tiled kernel's 0.676)."""
STEP2_SHORT_ROW = 64
"""Rows read at a step of 2 of at most this many elements (the bound the facts know) stay
with the other kernels (`REALIGN_STEPS`)."""


def realign_fits(facts: CopyFacts, steps: tuple[int, ...] = REALIGN_STEPS, rule: bool = True) -> bool:
    """Whether the realign strategy can take the copy: both views' pointers aligned
    pointers moved by their misalignments (`src_mis`, `dst_mis`), one element size and
    no conversion, two modes or more, the last contiguous (stride 1) in the destination
    and of a source stride in `steps` (2: 1- and 2-byte integers; by the rule,
    `REALIGN_STEPS`, where `rule`, 1-byte rows longer than `STEP2_SHORT_ROW` only)."""
    if facts.src_mis is None or facts.dst_mis is None or facts.rank < 2:
        return False
    if facts.src_bytes != facts.dst_bytes or facts.converts or facts.src_bytes > 8:
        return False
    last = facts.modes[-1]
    step = _static(last.src_stride)
    if step == 2 and (facts.src_bytes > 2 or not facts.integers):
        return False
    if step == 2 and rule and not flat_step2(facts) and (facts.src_bytes != 1 or (
            last.bound is not None and last.bound <= STEP2_SHORT_ROW)):
        return False  # the rule's step-2 rows: 1-byte, long (`REALIGN_STEPS`), or the flat form's
    return step in steps and step in (1, 2) and _static(last.dst_stride) == 1


REALIGN_FLAT_BROADCAST = False
"""Whether a broadcast into a compact destination whose rows cannot move 16-byte vectors on
both sides takes the realign strategy's flat form (`flat_broadcast`) before the gather:
off, measured slower (H200, the strided set's 38: 0.38 of cudaMemcpy against the gather's
0.66, its arithmetic binding it; benchmarks/NOTES.md, perm40)."""


def flat_broadcast(facts: CopyFacts, chunk: int = CHUNK_BYTES, on: bool | None = None) -> bool:
    """Whether `REALIGN_FLAT_BROADCAST` (or `on`) takes the copy: a source broadcast along a
    mode (stride 0) other than the last, the destination compact, elements of 2 bytes or
    more (1-byte broadcasts, the strided set's 14 and 20, run at 0.94-1.0 through the
    gather), the last mode read at a step of 1 and known to hold at least a `chunk` of
    bytes (a chunk then spans at most two rows: passes/_realign_tile.realign_flat_launch)."""
    if not (REALIGN_FLAT_BROADCAST if on is None else on) or facts.rank < 2 or not facts.dst_compact:
        return False
    if facts.dst_bytes < 2:
        return False
    last = facts.modes[-1]
    n = last.bound if last.exact else _static(last.extent)  # known exactly
    return (_static(last.src_stride) == 1 and n is not None and n * facts.dst_bytes >= chunk
            and any(_static(m.src_stride) == 0 for m in facts.modes[:-1]))


REALIGN_RUN_BROADCAST = 2
"""The chunks a thread of the realign strategy's run form (passes/_realign_tile.realign_run_launch,
the `tile` pass's `realign_run`) a broadcast into a compact destination whose rows cannot move
16-byte vectors on both sides takes before the gather (`run_broadcast`); 0: the gather. H200, in
turns against the gather (`REALIGN_RUN_LANES` 16): the strided set's 38 (rows of 2246 bytes)
0.760 -> 0.931 (x1.226 [1.210, 1.333]); K = 2 over 8 / 32 lanes x1.046 / x1.122, K = 1 over 16
x1.098, consecutive chunks (1 lane) x0.24-x0.43; rows of 34 and 98 bytes (13, 25) x0.16-x0.56,
hence rows known to fill a group (`run_broadcast`) (benchmarks/NOTES.md, g3847)."""
REALIGN_RUN_LANES = 16
"""The run form's lanes on a group of chunks by default (the `tile` pass's `realign_lanes`)."""


def run_broadcast(facts: CopyFacts, run: int | None = None) -> int:
    """The run form's chunks a thread (`REALIGN_RUN_BROADCAST`, or `run`) where it takes the copy,
    else 0: a source broadcast along a mode (stride 0) other than the last, the destination
    compact, elements of 2 bytes or more, the last mode read at a step of 1, rows not known
    to be shorter than a group of chunks (K `REALIGN_RUN_LANES` chunks of `CHUNK_BYTES`)."""
    k = REALIGN_RUN_BROADCAST if run is None else run
    if not k or facts.rank < 2 or not facts.dst_compact or facts.dst_bytes < 2:
        return 0
    last = facts.modes[-1]
    if _static(last.src_stride) != 1 or not any(_static(m.src_stride) == 0 for m in facts.modes[:-1]):
        return 0
    n = _static(last.extent) if _static(last.extent) is not None else last.bound
    if n is not None and n * facts.dst_bytes < k * REALIGN_RUN_LANES * CHUNK_BYTES:
        return 0
    return k


REALIGN_FLAT_STEP2 = False
"""Whether short rows read at a step of 2 into a compact destination take the realign
strategy's flat form (`flat_step2`) before the gather."""


def flat_step2(facts: CopyFacts, chunk: int = CHUNK_BYTES, on: bool | None = None) -> bool:
    """Whether `REALIGN_FLAT_STEP2` (or `on`) takes the copy to the realign strategy's flat
    form (passes/_realign_tile.realign_flat_launch): rows of 1- or 2-byte integers read at
    a step of 2, known exactly and at most `STEP2_SHORT_ROW` elements (longer ones take the
    row form, `REALIGN_STEPS`) but at least a `chunk` of bytes (a chunk then spans at most
    two rows), into a compact destination, without conversion."""
    if not (REALIGN_FLAT_STEP2 if on is None else on) or facts.rank < 2 or not facts.dst_compact:
        return False
    if facts.src_bytes != facts.dst_bytes or facts.converts or facts.src_bytes > 2 or not facts.integers:
        return False
    last = facts.modes[-1]
    n = last.bound if last.exact else _static(last.extent)  # known exactly
    return (_static(last.src_stride) == 2 and n is not None and chunk <= n * facts.dst_bytes
            and n <= STEP2_SHORT_ROW)


def vector_aligned(facts: CopyFacts, vector_bytes: int) -> bool:
    """Whether both views allow `vector_bytes` vectors: each pointer aligned to them and
    each stride other than 0 and 1 a multiple of them (static, or promised
    `divisible`)."""
    for align, e, strides in ((facts.src_align, facts.src_bytes, [(m.src_stride, m.src_divisor) for m in facts.modes]),
                              (facts.dst_align, facts.dst_bytes, [(m.dst_stride, m.dst_divisor) for m in facts.modes])):
        if align % vector_bytes:
            return False
        for s, d in strides:
            k = _static(s)
            if k in (0, 1):
                continue
            if (k if k is not None else d) * e % vector_bytes:
                return False
    return True


def choose_strategy(facts: CopyFacts, target: Target, gather: str = "auto", realign: str = "auto",
                    box: str = "auto", box_smem: int = BOX_SMEM, tiles_bytes: int = TILES_BYTES,
                    tiles_merge: int = TILES_MERGE_BYTES, tiles_short: int = TILES_SHORT_BYTES,
                    tiles_short_d: int = TILES_SHORT_D_BYTES) -> str | None:
    """The strategy of a copy from its facts, None for the `tile` pass's tiles:
    "box<F>" where `box="auto"`, `gather` is not "always" and `box_flavour` gives F;
    else "realign" where `realign="always"` and the strategy fits (`realign_fits`), or
    where it fits rows read at a step of 2 (`REALIGN_STEPS`; not with `gather="always"`); else
    "gather" where the module doc's rule (or `gather="always"`) takes the copy; else
    "realign" where it fits and the tiled copy cannot move widest vectors on both
    sides (`vector_aligned`: a row start or a stride not a multiple of 16 bytes).
    "never" turns either off. `tiles_merge`, `tiles_short`, `tiles_short_d`: `box_flavour`'s
    `merge`, `short`, `short_d`."""
    if facts.rank < 2:
        return None
    if box == "auto" and gather != "always":
        flavour = box_flavour(facts, box_smem, tiles_bytes, tiles_merge, tiles_short, tiles_short_d)
        if flavour is not None:
            return f"box<{flavour}>"
    fits = realign != "never" and realign_fits(facts, (1, 2) if realign == "always" else REALIGN_STEPS,
                                                      rule=realign != "always")
    if fits and (realign == "always" or (gather != "always" and _static(facts.modes[-1].src_stride) == 2)):
        return "realign"  # asked, or rows read at a step of 2 (`REALIGN_STEPS`), before the gather
    if (fits and realign == "auto" and gather != "always" and (flat_broadcast(facts) or run_broadcast(facts))
            and not vector_aligned(facts, target.vector_bytes)):
        return "realign"  # a broadcast into a compact destination: its flat form, else its run form
    if _gathers(facts, target, gather):
        return "gather"
    if fits and realign == "auto" and not vector_aligned(facts, target.vector_bytes):
        return "realign"
    return None


def _gathers(facts: CopyFacts, target: Target, gather: str) -> bool:
    """Whether the gather rule (module doc), or `gather="always"`, takes the copy."""
    if gather == "never":
        return False
    if gather == "always":
        return True
    if not facts.dst_compact or facts.src_bytes > facts.dst_bytes:
        return False
    broadcast = any(_static(m.src_stride) == 0 for m in facts.modes) and (
        facts.dst_bytes >= 2 or vector_runs(facts, gather_vector(facts, target)))
    permute = _static(facts.modes[-1].src_stride) != 1  # the destination's rows not the source's
    if permute and not broadcast and not facts.converts and facts.src_bytes >= GATHER_TILED_BYTES:
        return False  # wide permutes: the tiled kernel's (`GATHER_TILED_BYTES`)
    if not broadcast and not padded_last(facts):
        return False
    return sector_use(facts, gather_block(facts, target), target.sector_bytes) >= MIN_SECTOR_USE
