"""The `layout` dialect on the simulator: views, copies, launches and distributed
values, at every level (whole tensor, block, thread).

Run-time values
---------------
- A pointer (`!layout.ptr`) is the `HostArray` on the host and, inside a
  `layout.launch`, the global `Storage` of that array for the launch.
- A view (`!layout.tensor`) is a `View`: storage, base offset (an int, or an array
  `[T]` when it depends on the thread), the type's layout with its `?` values bound
  (`layout.view` binds them), the vector layout, and for masked views a
  `views.MaskMap` whose offsets may be per-thread arrays. Element with coordinate c,
  lane j lives at `storage[base + layout(c) + vec(j)]` (for a swizzled layout,
  `base + swizzle(offset + layout(c) + vec(j))`), as `dialects/layout.py` says.
- A distributed tensor (`tensor<..., #layout.blocked<...>>`) is its logical value
  per block: an array `[blocks, *shape]`, or `[*shape]` when it is the same for every
  block (constants, splats of uniform values). Which thread holds which element
  matters only where memory is touched: `layout.load` / `layout.store` access
  each element as each of its owners (from the layout's linear form), so races and
  masks are checked per thread. Data movement between registers
  (`layout.convert_layout`) is the identity on this representation.

Where ops run
-------------
Outside a launch (the whole-tensor level) a copy is done by one thread. Inside a
`layout.launch` every thread runs every op (SPMD): an op whose views are the same for
all threads of a block (a copy between block tiles) is done redundantly by each of
them, which the memory model records once per block (`simt.whole_block`); views that
depend on the thread id give each thread its own accesses.

`layout.reduce` sums in NumPy's order (`np.add.reduce` along the axis), which a
lowering that reduces in another order need not match bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType
from xdsl.interpreter import InterpreterFunctions, impl, register_impls
from xdsl.ir import BlockArgument, Operation, SSAValue

from tilec.dialects import cute, layout, layout_tma, views
from tilec.dialects.conversions import convert_values, parse_convert
from tilec.dialects.layout_attrs import (
    ComposedLayoutAttr,
    PtrType,
    TensorViewType,
    element_bytes,
    threads_per_block,
    to_linear,
)
from tilec.dialects.swizzle import ComposedLayout

from .errors import ExecutionError
from .executor import (
    HostArray,
    ReferenceInterpreter,
    _uniform_int,
    arg_names,
    barrier,
    captured_values,
    launch,
)
from .memory import (
    GLOBAL,
    PRIVATE,
    SHARED,
    Storage,
    load,
    store,
)
from .memory_impls import poison
from .simt import Grid, first_offender, whole_block
from .values import bits_equal, dtype_of

# ============================================================================ views


ASYNC_TOKEN = "async token"
"""The value of a `!layout.async_token` (what a wait does is fixed by program order:
`AsyncWaitOp.groups_in_flight`)."""


@dataclass(eq=False)
class View:
    storage: Storage
    base: Any  # int, or int64 [T]
    layout: Any  # cute.Layout or ComposedLayout, no `?`
    vec: cute.Layout | None
    mask: views.MaskMap | None
    type: TensorViewType
    align: int  # bytes the storage's start is aligned to
    swz: Any = 0
    """For a swizzled view: the offset (int, or int64 [T]) that tile, vectorize and
    distribute added inside the swizzle: element c lives at
    storage[base + swizzle(offset + swz + layout(c))] (CuTe folds a sub-view's offset
    into its ComposedLayout the same way)."""

    @property
    def name(self) -> str:
        return self.storage.name

    @property
    def inner(self) -> cute.Layout:
        return self.layout.layout if isinstance(self.layout, ComposedLayout) else self.layout


def lp_root_type(ptr: SSAValue) -> PtrType:
    """The type of the pointer argument `ptr` points into (its alignment is that of the
    storage's start)."""
    from tilec.dialects.layout_ptr import pointer_root

    return pointer_root(ptr).type  # type: ignore[return-value]


def host_storage(h: HostArray) -> Storage:
    """The storage a host-level view of an array reads and writes (one per array)."""
    st = getattr(h, "storage", None)
    if st is None:
        st = Storage(f"%{h.name}", GLOBAL, h.data, h.data.shape[0])
        st.origin = h  # type: ignore[attr-defined]
        h.storage = st  # type: ignore[attr-defined]
    return st


def _bind(lay: cute.Layout, values: list[int]) -> cute.Layout:
    """`lay` with its `?` values replaced, in order of appearance (shape, then stride)."""
    it = iter(values)

    def sub(t):
        if isinstance(t, tuple):
            return tuple(sub(x) for x in t)
        return next(it) if t is cute.DYN else t

    shape = sub(lay.shape)
    stride = sub(lay.stride)
    return cute.make_layout(shape, stride)


def _mode_offset(mode: cute.Layout, idx: Any) -> Any:
    return views.eval_mode(mode, np.asarray(idx, dtype=np.int64) if np.ndim(idx) else int(idx))


# ---------------------------------------------------------------- geometry


@dataclass(frozen=True)
class Geometry:
    """The scalar elements of a view, in copy order (outer index major, lanes minor):
    offsets from the base, and per top-level mode the element's coordinate and its
    lane's coordinate (for masks)."""

    offsets: np.ndarray
    coords: tuple[np.ndarray, ...]
    lanes: tuple[np.ndarray, ...] | None
    injective: bool
    vector: int


@lru_cache(maxsize=256)
def geometry(lay: Any, vec: cute.Layout | None) -> Geometry:
    inner = lay.layout if isinstance(lay, ComposedLayout) else lay
    n = int(inner.size())
    v = 1 if vec is None else int(vec.size())
    k = np.arange(n * v, dtype=np.int64)
    i, j = k // v, k % v
    off = np.asarray(views.eval_layout(inner, i), dtype=np.int64)
    lanes = None
    if vec is not None:
        off = off + np.asarray(views.eval_layout(vec, j), dtype=np.int64)
        lanes = tuple(np.asarray(c, dtype=np.int64) for c in views.mode_coords(vec, j))
    if isinstance(lay, ComposedLayout):
        off = np.asarray(lay.swizzle.apply(lay.offset + off), dtype=np.int64)
    coords = tuple(
        np.broadcast_to(np.asarray(c, dtype=np.int64), k.shape) for c in views.mode_coords(inner, i)
    )
    return Geometry(off, coords, lanes, _injective(off), v)


def _injective(off: np.ndarray) -> bool:
    if off.shape[0] < 2:
        return True
    lo, hi = int(off.min()), int(off.max())
    if hi - lo < 8 * off.shape[0]:
        return bool(np.bincount(off - lo).max() <= 1)
    s = np.sort(off)
    return not bool((s[1:] == s[:-1]).any())


def offsets_of_coords(lay: Any, coords: list[np.ndarray]) -> np.ndarray:
    """Offsets of elements given by per-mode coordinates (arrays of one shape)."""
    inner = lay.layout if isinstance(lay, ComposedLayout) else lay
    off: Any = 0
    for mode, c in zip(views.modes(inner), coords):
        off = off + np.asarray(views.eval_mode(mode, c), dtype=np.int64)
    off = np.asarray(off, dtype=np.int64)
    if isinstance(lay, ComposedLayout):
        off = np.asarray(lay.swizzle.apply(lay.offset + off), dtype=np.int64)
    return off


def mask_valid(
    mask: views.MaskMap | None,
    rows: np.ndarray,
    coords: tuple[np.ndarray, ...] | list[np.ndarray],
    lanes: tuple[np.ndarray, ...] | None,
) -> np.ndarray | None:
    """Which elements exist: bool [k, E] for the threads `rows` (indices into the
    per-thread mask offsets; None when the offsets are uniform)."""
    if mask is None:
        return None
    ok: Any = True
    for m in mask.chain():
        for k, x in enumerate(coords):
            off = m.off[k]
            if np.ndim(off):
                off = np.asarray(off)[rows][:, None] if rows is not None else np.asarray(off)[:, None]
            r = off + m.scale[k] * x
            if lanes is not None:
                r = r + m.lscale[k] * lanes[k]
            ok = ok & (r >= 0) & (r < m.bound[k])
    return np.asarray(ok, dtype=bool)


# ---------------------------------------------------------------- who accesses


@dataclass
class Access:
    """The actors of one op: `actors` [k] (thread ids, or whole blocks), and for each
    the index `rows` into per-thread arrays (a thread id; a block's first thread)."""

    actors: np.ndarray
    rows: np.ndarray


def _block_uniform(grid: Grid, v: Any) -> bool:
    if np.ndim(v) == 0:
        return True
    a = np.asarray(v).reshape(grid.num_blocks, grid.threads_per_block)
    return bool((a == a[:, :1]).all())


def accessors(grid: Grid, views_: list[View]) -> Access:
    """Each active thread, or each block when all threads of every block would do
    exactly the same accesses (views independent of the thread id)."""
    uniform = (
        grid.mask is None
        and grid.threads_per_block > 1
        and all(v.storage.space != PRIVATE for v in views_)
        and all(
            _block_uniform(grid, v.base)
            and _block_uniform(grid, getattr(v, "swz", 0))
            and (v.mask is None or all(_block_uniform(grid, o) for m in v.mask.chain() for o in m.off))
            for v in views_
        )
    )
    if uniform:
        blocks = np.arange(grid.num_blocks, dtype=np.int64)
        return Access(whole_block(blocks), blocks * grid.threads_per_block)
    tids = grid.active_tids()
    return Access(tids, tids)


def _host_grid() -> Grid:
    return Grid((1, 1, 1), (1, 1, 1))


def element_keys(
    op: Operation,
    grid: Grid,
    view: View,
    acc: Access,
    offsets: np.ndarray,
    valid: np.ndarray | None,
    verb: str,
) -> np.ndarray:
    """Storage keys [k, E] of elements at `offsets` ([E] or [k, E]) from each
    actor's base; out-of-bounds (where valid) is an error."""
    base = view.base
    b = np.asarray(base)[acc.rows] if np.ndim(base) else np.full(acc.rows.shape, int(base))
    offsets = swizzled_offsets(view, acc, offsets)
    rel = b[:, None] + offsets
    size = view.storage.size
    bad = (rel < 0) | (rel >= size)
    if valid is not None:
        bad &= valid
    if bad.any():
        r, e = np.unravel_index(int(np.argmax(bad)), bad.shape)
        raise ExecutionError(
            op,
            f"out-of-bounds access: {grid.describe_thread(acc.actors[r])} {verb} element "
            f"{int(rel[r, e])} of {view.name}, which has {size} elements "
            f"(element {int(e)} of the view {view.type})",
            thread=int(acc.actors[r]),
            index=int(rel[r, e]),
        )
    return rel + np.asarray(view.storage.base(grid, acc.actors)).reshape(-1, 1)


def swizzled_offsets(view: View, acc: Access, offsets: np.ndarray) -> np.ndarray:
    """`offsets` ([E] or [k, E], swizzle(offset + layout(c)) as `geometry` gives them)
    with the view's in-swizzle offset `swz` folded in: swizzle(offset + swz + layout(c)).
    A swizzle with disjoint masks is an involution, so applying it again recovers
    offset + layout(c)."""
    lay, swz = getattr(view, "layout", None), getattr(view, "swz", 0)  # pointer shims have neither
    if not isinstance(lay, ComposedLayout) or (np.ndim(swz) == 0 and int(swz) == 0):
        return offsets
    sw = lay.swizzle
    z = np.asarray(swz)[acc.rows][:, None] if np.ndim(swz) else int(swz)
    return np.asarray(sw.apply(sw.apply(np.asarray(offsets, dtype=np.int64)) + z), dtype=np.int64)


def check_vectors(
    op: Operation,
    grid: Grid,
    view: View,
    acc: Access,
    rel_keys: np.ndarray,
    n: int,
    verb: str,
    valid: np.ndarray | None = None,
) -> None:
    """Vector accesses of `n` consecutive elements (rows of `rel_keys`, grouped by n)
    must be contiguous, at most 16 bytes, and aligned (offset multiple of n, start of
    the storage aligned enough)."""
    if n <= 1 or view.storage.space == PRIVATE:
        return
    eb = element_bytes(view.type.element_type)
    if n * eb > 16:
        raise ExecutionError(op, f"a vector of {n * eb} bytes; the widest access is 16 bytes")
    if n * eb > view.align:
        raise ExecutionError(
            op,
            f"a {n * eb}-byte vector access of {view.name}, whose start is aligned to "
            f"only {view.align} bytes",
        )
    k, E = rel_keys.shape
    if E % n:
        raise ExecutionError(op, f"{E} elements per thread are not a whole number of vectors of {n}")
    g = rel_keys.reshape(k, E // n, n)
    contiguous = (g == g[:, :, :1] + np.arange(n)).all(axis=2)
    aligned = g[:, :, 0] % n == 0
    bad = ~(contiguous & aligned)
    if valid is not None:
        bad &= valid.reshape(k, E // n, n).any(axis=2)
    if bad.any():
        r, v = np.unravel_index(int(np.argmax(bad)), bad.shape)
        what = "not contiguous" if not contiguous[r, v] else "misaligned"
        raise ExecutionError(
            op,
            f"{what} vector access: {grid.describe_thread(acc.actors[r])} {verb} "
            f"{n} elements at offsets {list(map(int, g[r, v]))} of {view.name}",
            thread=int(acc.actors[r]),
        )


def check_uniform_mask(op, grid, acc: Access, bits: np.ndarray, n: int) -> None:
    """`uniform_mask` (set by `vectorize` / `vectorize-pointers`): the mask bits [k, E]
    of each thread are the same over every group of n consecutive registers."""
    k, e = bits.shape
    g = bits.reshape(k, e // n, n)
    bad = (g != g[:, :, :1]).any(axis=2)
    if bad.any():
        r, v = np.unravel_index(int(np.argmax(bad)), bad.shape)
        raise ExecutionError(
            op,
            f"uniform_mask: the mask differs within a vector of {n}: "
            f"{grid.describe_thread(acc.actors[r])} has {list(map(bool, g[r, v]))}",
            thread=int(acc.actors[r]),
        )


# ============================================================================ impls


def _grid(interp: ReferenceInterpreter) -> Grid:
    return interp.grid if interp.grid is not None else _host_grid()


def _view(op: Operation, v: Any) -> View:
    if not isinstance(v, View):
        raise ExecutionError(op, f"expected a view, got {type(v).__name__}")
    return v


def read_block_view(
    interp: ReferenceInterpreter, op: Operation, view: View, reads: list | None = None
) -> np.ndarray:
    """Every element of a static, unmasked view of scalars, as each block's first
    active thread reads it: [blocks, *shape] (a tensor-core read of shared memory that
    one warpgroup issues, `layout.mma` with a version-3 accumulator). With `reads`,
    appends (storage, element keys read) to it."""
    grid = interp.grid
    if grid is None:
        raise ExecutionError(op, f"'{op.name}' outside a layout.launch")
    shape = tuple(view.type.shape)
    tids = grid.active_tids()
    firsts = tids[np.unique(grid.block_of[tids], return_index=True)[1]]
    acc = Access(firsts, firsts)
    coords = np.meshgrid(*[np.arange(n, dtype=np.int64) for n in shape], indexing="ij")
    offs = offsets_of_coords(view.layout, [c.ravel() for c in coords])
    keys = element_keys(op, grid, view, acc, offs, None, "reads")
    rows = np.broadcast_to(acc.actors[:, None], keys.shape)
    vals = load(op, grid, view, rows.ravel(), keys.ravel()).reshape(keys.shape)
    if reads is not None:
        reads.append((view.storage, np.asarray(keys).ravel()))
    out = np.zeros((grid.num_blocks, *shape), dtype=dtype_of(view.type.element_type))
    out[grid.block_of[firsts]] = vals.reshape(len(firsts), *shape)
    return out


def tile_view(interp: ReferenceInterpreter, op: Operation, v: View, coords: list, tile: Sequence[int],
              rt: TensorViewType) -> View:
    """`layout.tile`'s view (also an iterator's tile, dialects/layout_iter.py): tile
    `coords` of `v` in tiles of `tile`, of type `rt` (masked or not).

    A masked tile may lie wholly past the end (an over-provisioned grid): it is then
    empty. An unmasked one must lie inside, unless it is a `layout.tile` whose every
    use is the global side of a TMA copy (`_tma_box`): its coordinates are then the
    origin of the copy's box, which may lie past the end (the last round of a TMA
    ring), and the view gets the mask of its extents, so that `layout.tma_load`
    zero-fills the elements outside (still counting the whole box's bytes on its
    mbarrier) and `layout.tma_store` writes none of them, as the hardware does."""
    lay = _tile_layout(v.inner, tile)
    base: Any = 0
    modes = views.modes(v.inner)
    grid = interp.grid
    box = not rt.is_masked and _tma_box(op)
    past = False
    for k, (m, c, t) in enumerate(zip(modes, coords, tile)):
        ci = np.asarray(c, dtype=np.int64)
        n = int(m.size())
        start = ci * t
        beyond = start >= n - t + 1
        past = past or bool(np.any(beyond))
        bad = (ci < 0) if rt.is_masked or box else (ci < 0) | beyond
        if (i := first_offender(grid, bad)) is not None:
            who = f"{grid.describe_thread(i)}: " if grid is not None and np.ndim(bad) else ""
            cv = int(ci[i]) if np.ndim(ci) else int(ci)
            raise ExecutionError(
                op,
                f"{who}tile coordinate {cv} of mode {k} is out of range: tiles of "
                f"{t} of a mode of {n} elements"
                + ("" if rt.is_masked else
                   " (a `masked` result type makes tiles past the end empty)"),
            )
        base = base + _mode_offset(m, np.where(start < n, start, 0) if np.ndim(start) else (start if start < n else 0))
    mask = None
    if rt.is_masked or (box and past):
        if v.mask is not None:
            mask = v.mask.tile(tile, coords)
        else:
            mask = views.MaskMap.for_tile(v.inner, tile, list(coords))
    return _shifted(v, base, _relaid(v, lay), v.vec, mask, rt)


def _tma_box(op: Operation) -> bool:
    """Whether `op` is a `layout.tile` whose result is used only as the global side
    of TMA copies (`layout.tma_load`'s source, `layout.tma_store`'s destination) or
    of `layout.cp_async_load` (which copies as a TMA load does):
    the hardware takes its coordinates as a box origin and masks the box at the
    tensor's bounds."""
    from tilec.dialects import layout_tma

    if not isinstance(op, layout.TileOp) or not op.result.uses:
        return False
    return all(
        (isinstance(u.operation, layout_tma.TmaLoadOp | layout_tma.CpAsyncLoadOp) and u.index == 0)
        or (isinstance(u.operation, layout_tma.TmaStoreOp) and u.index == 1)
        for u in op.result.uses
    )


def _relaid(v: View, lay: cute.Layout) -> Any:
    """`lay` under `v`'s swizzle and offset when `v` is swizzled."""
    if isinstance(v.layout, ComposedLayout):
        return ComposedLayout(v.layout.swizzle, v.layout.offset, lay)
    return lay


def _shifted(v: View, delta: Any, lay: Any, vec: Any, mask: Any, rt: TensorViewType) -> View:
    """A sub-view of `v` `delta` elements further: added to the base of a plain view,
    inside the swizzle (`swz`) of a swizzled one."""
    if isinstance(v.layout, ComposedLayout):
        return View(v.storage, v.base, lay, vec, mask, rt, v.align, _norm(v.swz + delta))
    return View(v.storage, _norm(v.base + delta), lay, vec, mask, rt, v.align)


def _dist_rank(v: Any, t: TensorType) -> bool:
    """Whether a distributed value has a leading block axis."""
    return np.ndim(v) > len(t.get_shape())


@lru_cache(maxsize=128)
def ownership(encoding, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(coords [tpb, R, rank], held [tpb, R]): the tensor coordinate of register r of
    each thread of a block under a distributed layout."""
    lin = to_linear(encoding, list(shape))
    owners = lin.owner_map()
    lanes = lin.num_lanes
    tpb = threads_per_block(encoding)
    regs = lin.num_registers
    coords = np.zeros((tpb, regs, len(shape)), dtype=np.int64)
    held = np.zeros((tpb, regs), dtype=bool)
    for c, lst in owners.items():
        for w, lane, r in lst:
            t = w * lanes + lane
            coords[t, r] = c
            held[t, r] = True
    return coords, held


def _role_span(grid: Grid) -> tuple[int, int]:
    """(first thread, threads) that distributed values span: the running
    warp_specialize region's (roles_impls.py), else the block's."""
    role = getattr(grid, "role", None)
    return (0, grid.threads_per_block) if role is None else (role.first, role.threads)


def _check_threads(op: Operation, grid: Grid, encoding) -> None:
    n = threads_per_block(encoding)
    have = _role_span(grid)[1]
    if n != have:
        raise ExecutionError(
            op, f"layout {encoding} spans {n} threads but the block has {have}"
        )


def _whole_blocks_active(op: Operation, grid: Grid) -> None:
    if grid.mask is None:
        return
    first, n = _role_span(grid)
    per = grid.mask.reshape(grid.num_blocks, grid.threads_per_block)[:, first : first + n]
    partial = per.any(axis=1) & ~per.all(axis=1)
    if partial.any():
        raise ExecutionError(
            op,
            "distributed tensors under control flow that diverges within a block are "
            "not supported",
        )


@register_impls
class LayoutFunctions(InterpreterFunctions):
    # ---------------------------------------------------------------- launch
    @impl(layout.LaunchOp)
    def run_launch(self, interp: ReferenceInterpreter, op: layout.LaunchOp, args):
        dims = tuple(_uniform_int(op, v, "the grid size") for v in args)
        if any(d <= 0 for d in dims):
            raise ExecutionError(op, f"the grid size must be positive, got {list(dims)}")
        storages: dict[int, Storage] = {}

        def for_launch(st: Storage) -> Storage:
            h = getattr(st, "origin", None)
            if h is None:
                return st
            if id(h) not in storages:
                storages[id(h)] = Storage(st.name, GLOBAL, st.data, st.size)
            return storages[id(h)]

        def capture(_operand: SSAValue, value: Any) -> Any:
            if isinstance(value, HostArray):
                return for_launch(host_storage(value))
            if isinstance(value, View):
                return replace(value, storage=for_launch(value.storage))
            return value

        captured = captured_values(interp, op, capture)

        def body(grid: Grid) -> None:
            interp.push_scope("layout.launch")
            interp.set_values(captured.items())
            try:
                interp.run_ssacfg_region(
                    op.body, (*grid.block_id, grid.local.copy()), "layout.launch"
                )
            finally:
                interp.pop_scope()

        launch(interp, op, "layout.launch", dims, op.block_shape, body)
        return ()

    @impl(layout.BarrierOp)
    def run_barrier(self, interp: ReferenceInterpreter, op, args):
        if interp.grid is None:
            raise ExecutionError(op, "layout.barrier outside a layout.launch")
        barrier(interp, op, interp.grid)
        return ()

    # ----------------------------------------------------------------- views
    @impl(layout.ViewOp)
    def run_view(self, interp: ReferenceInterpreter, op: layout.ViewOp, args):
        src, *dyn = args
        t = op.result.type
        base = 0
        if isinstance(op.source.type, PtrType) and not isinstance(src, HostArray | Storage):
            # a pointer moved by a scalar `layout.addptr`: the argument it points into,
            # from the element offset it carries (its misalignment, for the realign
            # strategy's aligned-down pointers)
            from tilec.dialects.layout_ptr import pointer_root

            root = pointer_root(op.source)
            base = _uniform_int(op, src, "a pointer's offset")
            src = interp.get_values((root,))[0]
            if base < 0:
                raise ExecutionError(op, f"the view's pointer is {base} elements before its argument's start")
        if isinstance(src, HostArray | Storage):
            st = host_storage(src) if isinstance(src, HostArray) else src
            values = [_uniform_int(op, v, "a dynamic extent") for v in dyn]
            for k, (value, (mod, res)) in enumerate(zip(values, op.congruences())):
                if value % mod != res:
                    raise ExecutionError(
                        op, f"index operand {k} is {value}, not a multiple of {mod} as its `divisible` entry promises"
                        if op.residue is None else
                        f"index operand {k} is {value}, not {res} modulo {mod} as its `divisible` and `residue` "
                        "entries promise")
            for k, (value, bound) in enumerate(zip(values, op.bounds())):
                if bound and value > bound:
                    raise ExecutionError(
                        op, f"index operand {k} is {value}, more than {bound} as "
                        "its `at_most` entry promises")
            lay = _bind(t.cute_layout, values)
            ptype = op.source.type
            if isinstance(ptype, PtrType) and base:
                ptype = lp_root_type(op.source)
            align = ptype.alignment if isinstance(ptype, PtrType) else 16
            return (View(st, base, lay, t.vec_layout, None, t, align),)
        v = _view(op, src)
        lay = t.layout.data if isinstance(t.layout, ComposedLayoutAttr) else t.cute_layout
        return (View(v.storage, v.base, lay, t.vec_layout, None, t, v.align),)

    @impl(layout.AllocOp)
    def run_alloc(self, interp: ReferenceInterpreter, op: layout.AllocOp, args):
        grid = interp.grid
        if grid is None:
            raise ExecutionError(op, "layout.alloc outside a layout.launch")
        t = op.result.type
        lay = t.layout.data if isinstance(t.layout, ComposedLayoutAttr) else t.cute_layout
        size = int(lay.cosize())
        if t.vec_layout is not None:
            size = int(lay.cosize()) + int(t.vec_layout.cosize()) - 1
        space = SHARED if t.memory_space == "smem" else PRIVATE
        instances = grid.num_blocks if space == SHARED else grid.num_threads
        hint = op.result.name_hint
        name = f"%{hint}" if hint else f"{t.memory_space} {t}"
        dt = dtype_of(t.element_type)
        st = Storage(name, space, poison(dt, instances * size), size)
        return (View(st, 0, lay, t.vec_layout, None, t, 16),)

    @impl(layout.TileOp)
    def run_tile(self, interp: ReferenceInterpreter, op: layout.TileOp, args):
        src, *coords = args
        return (tile_view(interp, op, _view(op, src), coords, op.tile_sizes, op.result.type),)

    @impl(layout.VectorizeOp)
    def run_vectorize(self, interp: ReferenceInterpreter, op: layout.VectorizeOp, args):
        v = _view(op, args[0])
        outer, vec = views.vectorize_layout(v.inner, op.vector_sizes)
        mask = v.mask.vectorize(op.vector_sizes) if v.mask is not None else None
        return (_shifted(v, 0, _relaid(v, outer), vec, mask, op.result.type),)

    @impl(layout.DistributeOp)
    def run_distribute(self, interp: ReferenceInterpreter, op: layout.DistributeOp, args):
        src, tid = args
        v = _view(op, src)
        thr = op.thread_layout
        grid = interp.grid
        tid_a = np.asarray(tid, dtype=np.int64)
        bad = tid_a >= int(thr.size())
        if (i := first_offender(grid, bad)) is not None:
            raise ExecutionError(
                op,
                f"thread id {int(tid_a[i]) if np.ndim(tid_a) else int(tid_a)} is not below "
                f"the {int(thr.size())} threads of the thread layout {thr}",
            )
        tc = views.thread_coord(thr, tid_a)
        frag, _ = views.distribute_layout(v.inner, thr)
        base: Any = 0
        for m, c in zip(views.modes(v.inner), tc):
            base = base + _mode_offset(m, c)
        mask = None
        if op.result.type.is_masked:
            counts = [int(t.size()) for t in views.modes(thr)]
            mask = views.distributed_mask(v.mask, views.mode_sizes(v.inner), counts, tc)
        return (_shifted(v, base, _relaid(v, frag), v.vec, mask, op.result.type),)

    @impl(layout.DivideOp)
    def run_divide(self, interp: ReferenceInterpreter, op: layout.DivideOp, args):
        v = _view(op, args[0])
        lay = layout.DivideOp.divided(v.inner, op.kind.data, op.tiler)
        return (View(v.storage, v.base, lay, v.vec, None, op.result.type, v.align),)

    @impl(layout.ComposeOp)
    def run_compose(self, interp: ReferenceInterpreter, op: layout.ComposeOp, args):
        v = _view(op, args[0])
        lay = layout.ComposeOp.composed(v.inner, op.tiler)
        return (View(v.storage, v.base, lay, v.vec, None, op.result.type, v.align),)

    @impl(layout.PartitionOp)
    def run_partition(self, interp: ReferenceInterpreter, op: layout.PartitionOp, args):
        src, tid = args
        v = _view(op, src)
        tv = op.tv.data
        comp = cute.composition(v.inner, tv)
        tid_a = np.asarray(tid, dtype=np.int64)
        n = int(tv[0].size())
        bad = tid_a >= n
        grid = interp.grid
        if first_offender(grid, bad) is not None:
            raise ExecutionError(op, f"a thread id is not below the {n} threads of {tv}")
        base = v.base + _mode_offset(comp[0], tid_a)
        return (View(v.storage, _norm(base), comp[1], v.vec, None, op.result.type, v.align),)

    @impl(layout.SliceOp)
    def run_slice(self, interp: ReferenceInterpreter, op: layout.SliceOp, args):
        src, *dyn = args
        v = _view(op, src)
        it = iter(dyn)
        delta: Any = 0
        kept = []
        for leaf in op.leaves(v.inner):
            m, p = leaf.sub, leaf.p
            if p == layout.WILDCARD:
                kept.append(m)
                continue
            c = next(it) if p == layout.DYNAMIC else p
            ca = np.asarray(c, dtype=np.int64)
            if np.any((ca < 0) | (ca >= int(m.size()))):
                raise ExecutionError(op, f"slice coordinate out of range for mode {m}")
            delta = delta + _mode_offset(m, ca)
        lay = _relaid(v, views.kept_modes(kept))
        return (_shifted(v, delta, lay, v.vec, None, op.result.type),)

    # ---------------------------------------------------------------- copies
    def _copy_plan(
        self, interp: ReferenceInterpreter, op: Operation, src: View, dst: View, vectors: bool = False
    ):
        """Keys of a copy's elements; with `vectors`, each vector element must be one
        aligned access (a plain copy of vectorized views may be done element by element
        where it is not, as `lower-to-gpu` does)."""
        grid = _grid(interp)
        sg, dg = geometry(src.layout, src.vec), geometry(dst.layout, dst.vec)
        if sg.offsets.shape != dg.offsets.shape:
            raise ExecutionError(
                op,
                f"copy between views of {sg.offsets.shape[0]} and {dg.offsets.shape[0]} elements",
            )
        acc = accessors(grid, [src, dst])
        valid = None
        for v, g in ((src, sg), (dst, dg)):
            m = mask_valid(v.mask, acc.rows, g.coords, g.lanes)
            if m is not None:
                valid = m if valid is None else valid & m
        if valid is not None:
            valid = np.broadcast_to(valid, (acc.actors.shape[0], sg.offsets.shape[0]))
        skeys = element_keys(op, grid, src, acc, sg.offsets, valid, "reads")
        dkeys = element_keys(op, grid, dst, acc, dg.offsets, valid, "writes")
        if vectors:
            # cp.async moves each element (vector) in one access: it must be one.
            for v, g, keys, verb in ((src, sg, skeys, "reads"), (dst, dg, dkeys, "writes")):
                if g.vector > 1:
                    rel = keys - np.asarray(v.storage.base(grid, acc.actors)).reshape(-1, 1)
                    check_vectors(op, grid, v, acc, rel, g.vector, verb, valid)
        return grid, acc, valid, skeys, dkeys, dg

    @impl(layout.CopyOp)
    def run_copy(self, interp: ReferenceInterpreter, op: layout.CopyOp, args):
        src, dst = (_view(op, a) for a in args)
        grid, acc, valid, skeys, dkeys, dg = self._copy_plan(interp, op, src, dst)
        rows = np.broadcast_to(acc.actors[:, None], skeys.shape)
        if valid is not None:
            rows, skeys, dkeys = rows[valid], skeys[valid], dkeys[valid]
        else:
            rows, skeys, dkeys = rows.ravel(), skeys.ravel(), dkeys.ravel()
        values = load(op, grid, src, rows, skeys)
        if op.convert is not None:
            values = convert_values(values, *parse_convert(op.convert.data))
        if not dg.injective:
            _check_unambiguous(op, grid, dst, rows, dkeys, values)
        store(op, grid, dst, rows, dkeys, values)
        return ()

    @impl(layout.CopyAsyncOp)
    def run_copy_async(self, interp: ReferenceInterpreter, op: layout.CopyAsyncOp, args):
        src, dst = (_view(op, a) for a in args)
        if interp.grid is None:
            raise ExecutionError(op, "layout.copy_async outside a layout.launch")
        grid, acc, valid, skeys, dkeys, dg = self._copy_plan(interp, op, src, dst, vectors=True)
        if dst.storage.space != SHARED:
            raise ExecutionError(op, f"copy_async to {dst.name}, which is not shared memory")
        rows = np.broadcast_to(acc.actors[:, None], skeys.shape)
        if valid is not None:
            sel = valid
        else:
            sel = np.ones(skeys.shape, bool)
        values = np.zeros(skeys.shape, dtype=dst.storage.data.dtype)
        values[sel] = load(op, grid, src, rows[sel], skeys[sel])
        assert interp.async_copies is not None
        interp.async_copies.issue(op, dst.storage, acc.actors, dkeys, values, sel, acc.rows)
        interp.async_copies.commit(grid.active_tids())  # each copy_async commits one group
        return (ASYNC_TOKEN,) if op.token is not None else ()

    @impl(layout.AsyncWaitOp)
    def run_async_wait(self, interp: ReferenceInterpreter, op: layout.AsyncWaitOp, args):
        if interp.grid is None:
            raise ExecutionError(op, "layout.async_wait outside a layout.launch")
        assert interp.async_copies is not None
        if op.commit is not None:
            interp.async_copies.commit(interp.grid.active_tids())
        interp.async_copies.land(op.groups_in_flight())
        return ()

    # ----------------------------------------------------- distributed values
    def _owned(self, interp: ReferenceInterpreter, op: Operation, view: View, t: TensorType):
        grid = interp.grid
        if grid is None:
            raise ExecutionError(op, f"'{op.name}' outside a layout.launch")
        _check_threads(op, grid, t.encoding)
        _whole_blocks_active(op, grid)
        shape = tuple(t.get_shape())
        coords, held = ownership(t.encoding, shape)
        tids = grid.active_tids()
        local = grid.local[tids] - _role_span(grid)[0]
        c = coords[local]  # [k, R, rank]
        h = held[local]
        percoord = [c[:, :, d] for d in range(len(shape))]
        offs = offsets_of_coords(view.layout, percoord)  # [k, R]
        acc = Access(tids, tids)
        valid = h
        masked = None  # the view's mask alone
        if view.mask is not None:
            masked = mask_valid(view.mask, tids, percoord, None)
            valid = valid & masked
        return grid, acc, c, offs, valid, masked

    @staticmethod
    def _check_uniform(op, grid, acc, masked, bits) -> None:
        """A load's or store's `uniform_mask`: the view's mask and the `mask` operand
        are each the same over every vector."""
        n = op.vector.value.data if op.vector is not None else 1
        if op.uniform_mask is None or n <= 1:
            return
        for m in (masked, bits):
            if m is not None:
                check_uniform_mask(op, grid, acc, np.broadcast_to(m, acc.rows.shape[:1] + m.shape[-1:]), n)

    def _accessed(self, interp: ReferenceInterpreter, op: Operation, view: View, t: TensorType,
                  mask: Any, what: str):
        """The elements a `layout.load` or `layout.store` (`what`: "reads" or "writes")
        of tensor type `t` through `view` touches: the thread owning each element
        (`_owned`), those the view's mask and the `mask` operand's value (None: no mask
        operand) let through, checked uniform over vectors where the op says so, their
        storage keys and, for vector accesses, the vectors' alignment and contiguity.
        Returns (grid, accessors, coordinates, valid, keys)."""
        grid, acc, c, offs, valid, masked = self._owned(interp, op, view, t)
        bits = _mask_bits(grid, acc, c, mask, t) if mask is not None else None
        if bits is not None:
            valid = valid & bits
        self._check_uniform(op, grid, acc, masked, bits)
        keys = element_keys(op, grid, view, acc, offs, valid, what)
        n = op.vector.value.data if op.vector is not None else 1
        if n > 1:
            check_vectors(op, grid, view, acc, keys - np.asarray(
                view.storage.base(grid, acc.actors)).reshape(-1, 1), n, what)
        return grid, acc, c, valid, keys

    @impl(layout.LoadOp)
    def run_load(self, interp: ReferenceInterpreter, op: layout.LoadOp, args):
        view = _view(op, args[0])
        other = args[1] if op.other is not None else None
        t = op.result.type
        mask = args[-1] if op.mask is not None else None
        grid, acc, c, valid, keys = self._accessed(interp, op, view, t, mask, "reads")
        rows = np.broadcast_to(acc.actors[:, None], keys.shape)
        vals = load(op, grid, view, rows[valid], keys[valid])
        dt = dtype_of(t.element_type)
        shape = tuple(t.get_shape())
        fill = np.zeros((), dt) if other is None else np.asarray(other, dt)
        out = np.empty((grid.num_blocks, *shape), dtype=dt)
        out[...] = fill
        blocks = np.broadcast_to(grid.block_of[acc.actors][:, None], keys.shape)[valid]
        cc = c[valid]  # [n, rank]
        out[(blocks, *cc.T)] = vals
        return (out,)

    @impl(layout.PrefetchOp)
    def run_prefetch(self, interp: ReferenceInterpreter, op: layout.PrefetchOp, args):
        return ()  # a hint to L2: no value is read or changed

    @impl(layout.PrefetchL1Op)
    def run_prefetch_l1(self, interp: ReferenceInterpreter, op: layout.PrefetchL1Op, args):
        """A hint to L1: no value is read or changed. The elements asked for (those a load
        into `like` would read, outside a masked view's tensor not) must lie inside their
        buffer, as a load's: an address past it is an error here, not a prefetch of
        another allocation's line."""
        view = _view(op, args[0])
        grid, acc, _, offs, valid, _ = self._owned(interp, op, view, op.like)
        element_keys(op, grid, view, acc, offs, valid, "reads")
        return ()

    @impl(layout.StoreOp)
    def run_store(self, interp: ReferenceInterpreter, op: layout.StoreOp, args):
        value, v = args[:2]
        view = _view(op, v)
        t = op.value.type
        mask = args[2] if op.mask is not None else None
        grid, acc, c, valid, keys = self._accessed(interp, op, view, t, mask, "writes")
        val = np.asarray(value)
        if not _dist_rank(val, t):
            val = np.broadcast_to(val, (grid.num_blocks, *val.shape))
        blocks = np.broadcast_to(grid.block_of[acc.actors][:, None], keys.shape)[valid]
        cc = c[valid]
        vals = val[(blocks, *cc.T)]
        rows = np.broadcast_to(acc.actors[:, None], keys.shape)[valid]
        store(op, grid, view, rows, keys[valid], vals)
        return ()

    @impl(layout.ConvertLayoutOp)
    def run_convert_layout(self, interp: ReferenceInterpreter, op, args):
        if interp.grid is not None:
            _check_threads(op, interp.grid, op.result.type.encoding)
        return (args[0],)

    @impl(layout.SplatOp)
    def run_splat(self, interp: ReferenceInterpreter, op: layout.SplatOp, args):
        (x,) = args
        if isinstance(op.value.type, PtrType) and isinstance(x, Storage):
            x = 0  # a pointer tensor is offsets into its argument (ptr_impls.py)
        return (_splat(interp, op, x),)

    @impl(layout.ArangeOp)
    def run_arange(self, interp, op: layout.ArangeOp, args):
        return (np.arange(op.start.value.data, op.end.value.data, dtype=np.int32),)

    @impl(layout.ExpandDimsOp)
    def run_expand_dims(self, interp, op: layout.ExpandDimsOp, args):
        (x,) = args
        ax = op.axis.value.data + (1 if _dist_rank(x, op.source.type) else 0)
        return (np.expand_dims(np.asarray(x), ax),)

    @impl(layout.BroadcastOp)
    def run_broadcast(self, interp, op: layout.BroadcastOp, args):
        (x,) = args
        a = np.asarray(x)
        shape = tuple(op.result.type.get_shape())
        if _dist_rank(a, op.source.type):
            return (np.broadcast_to(a, (a.shape[0], *shape)),)
        return (np.broadcast_to(a, shape),)

    @impl(layout.ReduceOp)
    def run_reduce(self, interp: ReferenceInterpreter, op: layout.ReduceOp, args):
        (x,) = args
        a = np.asarray(x)
        t = op.source.type
        ax = op.axis.value.data
        if not _dist_rank(a, t):
            a = a[None]
        return (reduce_like_a_gpu(a, t, ax, op.kind.data),)


def _splat(interp: ReferenceInterpreter, op: layout.SplatOp, x: Any) -> Any:
    """A scalar (an int, or per-thread [T]) as a distributed value of op's shape."""
    shape = tuple(op.result.type.get_shape())
    if np.ndim(x) == 0:
        return np.broadcast_to(np.asarray(x), shape)
    grid = interp.grid
    assert grid is not None
    a = np.asarray(x).reshape(grid.num_blocks, grid.threads_per_block)
    # the active threads' values (a splat in a warp_specialize region: the region's threads)
    active = np.ones(a.shape, bool) if grid.mask is None else grid.mask.reshape(a.shape)
    first = active.argmax(axis=1)
    per_block = a[np.arange(grid.num_blocks), first]
    if not ((a == per_block[:, None]) | ~active).all():
        raise ExecutionError(
            op, "splat of a value that differs between the threads of a block"
        )
    return np.broadcast_to(per_block.reshape((-1,) + (1,) * len(shape)), (grid.num_blocks, *shape))


def _mask_bits(grid: Grid, acc: Access, c: np.ndarray, mask: Any, t: TensorType) -> np.ndarray:
    """The computed mask's bit of each (acting thread, register): [k, R] of coordinates
    c [k, R, rank]; the mask is per block [blocks, *shape] or uniform [*shape]."""
    m = np.asarray(mask, dtype=bool)
    if not _dist_rank(m, t):
        return m[tuple(c[..., d] for d in range(c.shape[-1]))]
    blocks = np.broadcast_to(grid.block_of[acc.actors][:, None], c.shape[:2])
    return m[(blocks, *(c[..., d] for d in range(c.shape[-1])))]


_COMBINE = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def reduce_like_a_gpu(a: np.ndarray, t: TensorType, ax: int, kind: str) -> np.ndarray:
    """`layout.reduce` of per-block values `a` [blocks, *shape] along `ax`, combining
    in the order a GPU does (and `lower-to-gpu` emits), so that results agree bit for
    bit: each thread folds its own registers in register order (an element held twice
    counted once), then threads combine pairwise over each lane bit that moves along
    the axis (a butterfly: thread t with t ^ bit), lowest bit first, then across the
    warps along the axis through shared memory: where every lane bit moves along the
    axis and the combiner is commutative, a butterfly over those warp bits as over the
    lanes (its own warp's partial first in each pair); otherwise each thread folds the partials of the threads that
    differ from it only in those warp bits, in warp order. Returns
    [blocks, *shape without ax]."""
    comb = _COMBINE[kind]
    return reduce_tuples_like_a_gpu([a], t, ax, lambda x, y: (comb(x[0], y[0]),), commutative=True)[0]


def reduce_tuples_like_a_gpu(arrays: list, t: TensorType, ax: int, comb, commutative: bool = False) -> list:
    """`reduce_like_a_gpu` of several per-block arrays together (`layout.reduce_region`):
    comb(tuple, tuple) -> tuple combines one element of each, in the same order; the
    warps' butterfly only for a `commutative` comb (a region's is folded in warp order)."""
    shape = tuple(t.get_shape())
    out_shape = shape[:ax] + shape[ax + 1 :]
    lin = to_linear(t.encoding, list(shape))
    coords, held = ownership(t.encoding, shape)
    tpb, regs, _ = coords.shape
    nb = arrays[0].shape[0]
    P = int(np.prod(out_shape)) if out_shape else 1
    proj = np.delete(coords, ax, axis=2)
    pidx = (
        np.ravel_multi_index(tuple(proj[..., d] for d in range(proj.shape[2])), out_shape)
        if out_shape
        else np.zeros((tpb, regs), dtype=np.int64)
    )
    flat = np.ravel_multi_index(tuple(coords[..., d] for d in range(len(shape))), shape)
    partial = [np.zeros((nb, tpb, P), dtype=a.dtype) for a in arrays]
    has = np.zeros((tpb, P), dtype=bool)
    seen = np.zeros((tpb, int(np.prod(shape))), dtype=bool)
    threads = np.arange(tpb)
    blocks = np.arange(nb)[:, None]
    avs = [a.reshape(nb, -1) for a in arrays]
    with np.errstate(all="ignore"):  # combining the unset partials' zeros is discarded
        for r in range(regs):
            f = flat[:, r]
            new = held[:, r] & ~seen[threads, f]
            seen[threads, f] |= held[:, r]
            p = pidx[:, r]
            v = tuple(av[blocks, f[None, :]] for av in avs)  # each [nb, tpb]
            cur = tuple(pa[blocks, threads[None, :], p[None, :]] for pa in partial)
            first = new & ~has[threads, p]
            merged = comb(cur, v)
            for pa, vi, mi, ci in zip(partial, v, merged, cur):
                m = np.where(first[None, :], vi, mi)
                pa[blocks, threads[None, :], p[None, :]] = np.where(new[None, :], m, ci)
            has[threads, p] |= new
        lanes = lin.num_lanes
        for step in [1 << i for i, b in enumerate(lin.get_bases("lane")) if b[ax]]:
            partner = threads ^ step
            partial = [np.asarray(x, dtype=pa.dtype) for x, pa in
                       zip(comb(tuple(partial), tuple(pa[:, partner, :] for pa in partial)), partial)]
        steps = [lanes << i for i, b in enumerate(lin.get_bases("warp")) if b[ax]]
        lane_bases = lin.get_bases("lane")
        if commutative and steps and lanes == 32 and all(b[ax] for b in lane_bases):
            # every lane bit along the axis: the warps' partials are combined by a
            # butterfly over the warp bits, lowest first (lower-to-gpu reads them into
            # lanes and shuffles), each thread's own warp first in each pair
            for step in steps:
                partner = threads ^ step
                partial = [np.asarray(x, dtype=pa.dtype) for x, pa in
                           zip(comb(tuple(partial), tuple(pa[:, partner, :] for pa in partial)), partial)]
        elif steps:  # one round through shared memory: fold the warps' partials in order
            base = threads & ~sum(steps)
            acc = None
            for j in range(1 << len(steps)):
                partner = base | sum(st for i, st in enumerate(steps) if j >> i & 1)
                x = tuple(pa[:, partner, :] for pa in partial)
                acc = x if acc is None else tuple(np.asarray(y, dtype=pa.dtype) for y, pa in zip(comb(acc, x), partial))
            partial = list(acc)
    owner = np.argmax(has, axis=0)  # a thread that holds each result element
    return [pa[:, owner, np.arange(P)].reshape((nb, *out_shape)).astype(a.dtype, copy=False)
            for pa, a in zip(partial, arrays)]


def _tile_layout(lay: cute.Layout, tile: tuple[int, ...]) -> cute.Layout:
    """`views.tile_layout` for a layout whose `?` values are bound: a tile may be
    larger than a (dynamic) extent it was chosen for; its extra elements are masked."""
    out = []
    for m, t in zip(views.modes(lay), tile):
        if isinstance(m.shape, tuple):
            out.append(cute.composition(m, cute.make_layout(t, 1)))
        else:
            out.append(cute.make_layout(t, m.stride))
    return views.from_modes(out)


def _norm(base: Any) -> Any:
    a = np.asarray(base)
    return int(a) if a.ndim == 0 else a.astype(np.int64, copy=False)


def _check_unambiguous(op, grid: Grid, dst: View, rows, keys, values) -> None:
    """A copy whose destination view maps two elements to one address must write the
    same value to it, or the result would depend on the order of the elements."""
    order = np.lexsort((keys, rows))
    k, r, v = keys[order], rows[order], values[order]
    dup = (k[1:] == k[:-1]) & (r[1:] == r[:-1])
    if dup.any():
        differ = dup & ~bits_equal(v[1:], v[:-1])
        if differ.any():
            i = int(np.argmax(differ))
            raise ExecutionError(
                op,
                f"the destination view {dst.type} maps two elements to element "
                f"{int(k[i]) % dst.storage.size} of {dst.name}, and the copy writes "
                f"different values to it: the result would depend on the order",
            )


# ======================================================================= sizing


def view_extent(
    module: ModuleOp, fn: func.FuncOp, arg: BlockArgument, scalars: dict[str, int]
) -> int | None:
    """Elements a pointer argument must hold: the largest cosize of the `layout.view`s
    of it, their `?` values bound from the function's arguments (`scalars`) or
    constants. None when a view's extent cannot be found statically."""

    names = dict(zip(fn.body.block.args, arg_names(fn)))
    extent = 0
    found = False
    for use in list(arg.uses):
        op = use.operation
        if not isinstance(op, layout.ViewOp) or use.index != 0:
            continue
        values = []
        for d in op.dynamic:
            val = _static_value(d, names, scalars)
            if val is None:
                return None
            values.append(val)
        lay = _bind(op.result.type.cute_layout, values)
        extent = max(extent, int(lay.cosize()))
        found = True
    return extent if found else None


def _static_value(v: SSAValue, names: dict, scalars: dict[str, int]) -> int | None:
    if isinstance(v, BlockArgument) and v in names:
        return scalars.get(names[v])
    owner = v.owner
    if isinstance(owner, Operation) and owner.name == "arith.constant":
        attr = owner.properties.get("value")
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


__all__ = ["LayoutFunctions", "View", "view_extent"]
