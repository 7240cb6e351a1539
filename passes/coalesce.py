"""The `coalesce` pass: blocked layouts for the distributed tensors a program left open."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntAttr, ModuleOp, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from tilec.dialects import layout_compute as lc
from tilec.dialects.auto_layout import AutoLayoutAttr
from tilec.dialects.distributed import BlockedLayout
from tilec.dialects.layout import ConvertLayoutOp, LaunchOp, LoadOp, StoreOp
from tilec.dialects.layout_attrs import BlockedLayoutAttr, SliceLayoutAttr, TensorViewType, element_bytes
from tilec.dialects.layout_ptr import PtrLoadOp, PtrStoreOp, pointee
from tilec.support.diagnostics import TilecError
from tilec.support.locations import copy_loc

from ._analysis import contiguous_mode, is_pow2, memory_order, pow2_floor
from ._axis_info import AxisInfoAnalysis
from ._vector_legality import view_vector_ok, widest
from .distribute import blocked_layout


@dataclass(frozen=True)
class Access:
    """What one memory access (a load or store of an open-layout tensor) asks of its
    layout: the dims from fastest to slowest in memory, and the widest vector (in
    elements) it can move along the fastest one."""

    order: tuple[int, ...]
    vector: int
    elements: int
    """Elements of the tensor accessed."""
    elem_bytes: int
    is_store: bool


@dataclass(frozen=True)
class CoalescePass(ModulePass):
    """Choose the `#layout.blocked` layout of every `#layout.auto` tensor from the memory facts of its accesses (Triton's Coalesce).

    A program may give its distributed tensors the layout `#layout.auto<{rank = R,
    warps = W}>` (dialects/auto_layout.py) and state only the tile and the warps; this
    pass replaces, in each `layout.launch`, every `#layout.auto` attribute (and every
    `#layout.slice` of one) by one blocked layout chosen from the accesses whose tensor
    has exactly that layout:

      * `layout.load` / `layout.store` of a view: order = the view's modes from
        fastest to slowest in memory (its contiguous mode first); vector = the widest v
        (a power of two, at most vector-bytes / E and the tile's extent) that
        `vectorize` can prove legal along that mode (`_vector_legality`: a stride-1
        run, the buffer's `align`, every other stride and tile offset a multiple of v;
        a masked tile's edge costs no width, each lane is masked). So a row of 1000 f32
        (4000 bytes, rows 16-byte aligned) gets 4, of 1001 f32 gets 1, of 1000 f16 gets 8.
      * `layout.ptr_load` / `layout.ptr_store` of a pointer tensor: order = dims by the
        AxisInfo contiguity of the addresses, most contiguous first (ties: the later
        dim); vector = the contiguity along the first, capped by the divisibility of
        the addresses (in elements) and vector-bytes / E.

    The accesses whose order is that of the largest access (the first of equals, in
    program order) decide: sizePerThread along the fastest dim is the narrowest of
    their vectors, and at most the tensor's elements / threads (Triton's cap, so that
    a small tile does not leave lanes idle); then `distribute`'s blocked layout
    (`distribute.blocked_layout`): the 32 lanes of a warp along the order (whole
    128-byte lines along the contiguous mode), the warps along the slowest modes
    first (several rows per block: each warp its own rows, the row reductions stay in
    the warp). A `#layout.auto` that no access uses becomes its default layout
    (one element per thread, lanes and warps along the last dim).

    A view load or store whose view runs along another dim than the chosen layout's
    (a transpose: read rows, write columns) moves its tensor in a blocked layout of its
    own, built the same way for its view, with a `layout.convert_layout` from (a load)
    or to (a store) the chosen layout, as Triton's Coalesce gives each access its own
    layout (not an access with a computed `mask`: `lower-convert-layout` moves no i1); `remove-layout-conversions` and `lower-convert-layout` then
    place and lower the conversions.

    Layouts the program wrote (`#layout.blocked`, `#layout.linear`, ...) are left as
    they are: an explicit layout always wins. The choice shows in the types after this
    pass (`--print-between-passes`); `vectorize` then sets each access's `vector`.

    A scan along the contiguous dim costs a warp's shuffle steps per group of
    consecutive elements a thread holds: one element a thread (a row that only allows
    scalar accesses, e.g. 50257 f16, 2-byte aligned) makes it ~5 shuffles an element
    and an instruction-bound kernel (H200: cumsum f16 N=50257 at 0.20 of cudaMemcpy).
    With `scan_vector`, an `#layout.auto` tensor scanned along its accesses' contiguous
    dim gets the width an aligned row would get (vector-bytes / E elements, at most its
    elements / threads) even where its accesses are narrower; each narrower load or
    store then moves its tensor in a layout of its own (its vector's width, coalesced)
    with a `layout.convert_layout` (a shared-memory round trip), as a transposed access
    does.

    Options:
      vector-bytes=B  the most bytes a thread holds consecutively along the contiguous
                      dim (default 16, the widest access); a power of two.
      scan_vector     widen scanned tensors past their accesses' vectors, as above
                      (default true; `scan_vector=false` keeps the accesses' width:
                      benchmarks/realistic_rows.py `--variants no-scan-vector`). Measured
                      on an H200 (M = 16384): cumsum f16 N=50257 0.47 -> 0.75 of
                      cudaMemcpy, f32 0.67 -> 0.85, f16 N=1001 0.59 -> 0.77, f32 N=1001
                      0.90 -> 0.99 (Triton: 0.34, 0.74, 0.63, 0.98).
    """

    name = "coalesce"

    vector_bytes: int = 16
    scan_vector: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not is_pow2(self.vector_bytes) or self.vector_bytes > 16:
            raise TilecError(f"coalesce: vector-bytes={self.vector_bytes} must be a power of two in [1, 16]")
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            self._coalesce(launch)

    def _coalesce(self, launch: LaunchOp) -> None:
        autos: dict[AutoLayoutAttr, list[Access]] = {}
        shapes: dict[AutoLayoutAttr, tuple[int, ...]] = {}
        ops: list[tuple[Operation, AutoLayoutAttr, Access]] = []
        axis = AxisInfoAnalysis()
        for o in launch.walk():
            for v in _values(o):
                if isinstance(v.type, TensorType) and (a := _root_auto(v.type.encoding)) is not None:
                    autos.setdefault(a, [])
                    if v.type.encoding == a:
                        s = tuple(v.type.get_shape())
                        if prod(s) > prod(shapes.get(a, ())):
                            shapes[a] = s
            acc = self._access(o, axis)
            if acc is not None:
                autos[acc[0]].append(acc[1])
                ops.append((o, acc[0], acc[1]))
        if not autos:
            return
        scanned = _scanned_dims(launch) if self.scan_vector else {}
        chosen = {a: BlockedLayoutAttr(self._choose(a, accs, shapes.get(a), scanned.get(a, ())))
                  for a, accs in autos.items()}
        _substitute(launch, chosen)
        for o, a, acc in ops:
            lay = chosen[a].data
            narrower = (a in scanned and acc.order == tuple(lay.order)
                        and acc.vector < lay.size_per_thread[acc.order[0]])
            # a computed mask (i1) stays where it is: lower-convert-layout moves no i1
            if isinstance(o, LoadOp | StoreOp) and o.mask is None and (acc.order != tuple(lay.order) or narrower):
                t = o.result.type if isinstance(o, LoadOp) else o.value.type
                shape = tuple(t.get_shape())
                if all(is_pow2(n) for n in shape):
                    v = min(acc.vector, pow2_floor(max(1, prod(shape) // a.thread_count())))
                    own = blocked_layout(shape, list(acc.order), acc.elem_bytes, a.thread_count(), v * acc.elem_bytes)
                    _access_in(o, BlockedLayoutAttr(own))

    # ------------------------------------------------------------------ accesses

    def _access(self, o: Operation, axis: AxisInfoAnalysis) -> tuple[AutoLayoutAttr, Access] | None:
        if isinstance(o, LoadOp | StoreOp):
            t = o.result.type if isinstance(o, LoadOp) else o.value.type
            if not isinstance(t.encoding, AutoLayoutAttr):
                return None
            vt: TensorViewType = o.view.type
            shape = tuple(t.get_shape())
            lay = vt.cute_layout
            eb = element_bytes(vt.element_type)
            c = contiguous_mode(lay)
            if c is None:
                return t.encoding, Access(tuple(range(len(shape) - 1, -1, -1)), 1, prod(shape), eb,
                                          isinstance(o, StoreOp))
            order = tuple(memory_order(lay, c))
            v = widest(shape[c], self.vector_bytes // eb,
                       lambda v: view_vector_ok(o.view, c, v, eb, lanes_masked=True))
            return t.encoding, Access(order, v, prod(shape), eb, isinstance(o, StoreOp))
        if isinstance(o, PtrLoadOp | PtrStoreOp):
            t = o.ptrs.type
            if not isinstance(t.encoding, AutoLayoutAttr):
                return None
            shape = tuple(t.get_shape())
            eb = element_bytes(pointee(t))
            info = axis.get(o.ptrs)
            order = tuple(sorted(range(len(shape)), key=lambda d: (-info.contiguity[d], -d)))
            c = order[0]
            v = min(info.contiguity[c], pow2_floor(max(1, info.divisibility[c] // eb)),
                    max(1, self.vector_bytes // eb), shape[c])
            return t.encoding, Access(order, pow2_floor(v), prod(shape), eb, isinstance(o, PtrStoreOp))
        return None

    # ------------------------------------------------------------------ choice

    def _choose(self, a: AutoLayoutAttr, accs: list[Access], shape: tuple[int, ...] | None,
                scanned: tuple[int, ...] = ()) -> BlockedLayout:
        threads = a.thread_count()
        if not accs or shape is None or not all(is_pow2(n) for n in shape):
            return a.algebra()
        lead = max(accs, key=lambda x: x.elements)  # the first of the largest
        same = [x for x in accs if x.order == lead.order]
        v = min(x.vector for x in same)
        if lead.order[0] in scanned:  # `scan_vector`: the width of an aligned row
            v = max(v, min(shape[lead.order[0]], max(1, self.vector_bytes // lead.elem_bytes)))
        v = min(v, pow2_floor(max(1, prod(shape) // threads)))
        return blocked_layout(shape, list(lead.order), lead.elem_bytes, threads, v * lead.elem_bytes)


# ---------------------------------------------------------------------- rewriting


def _access_in(o: LoadOp | StoreOp, own: BlockedLayoutAttr) -> None:
    """Let load or store `o` move its tensor in `own` (its view's order), with a
    `layout.convert_layout` from or to the launch's chosen layout (Triton's Coalesce
    gives each memory access its layout the same way; `remove-layout-conversions` and
    `lower-convert-layout` then place and lower the conversions)."""

    new: list[Operation]
    if isinstance(o, LoadOp):
        t = o.result.type
        load = LoadOp(o.view, TensorType(t.element_type, t.get_shape(), own), o.other)
        _keep_cache(o, load)
        back = ConvertLayoutOp(load.result, t)
        new = [load, back]
        copy_loc(o, *new)
        Rewriter.replace_op(o, new, [back.result])
    else:
        t = o.value.type
        conv = ConvertLayoutOp(o.value, TensorType(t.element_type, t.get_shape(), own))
        new = [conv, StoreOp(conv.result, o.view)]
        _keep_cache(o, new[1])
        copy_loc(o, *new)
        Rewriter.replace_op(o, new, [])


def _keep_cache(old: LoadOp | StoreOp, new: LoadOp | StoreOp) -> None:
    """The access in its own layout keeps the L2 eviction priority (`cache`) of the one it replaces."""
    if old.cache is not None:
        new.properties["cache"] = old.cache


def _scanned_dims(launch: LaunchOp) -> dict[AutoLayoutAttr, tuple[int, ...]]:
    """The dims along which a `layout.scan` in `launch` scans a tensor of each `#layout.auto`."""
    out: dict[AutoLayoutAttr, tuple[int, ...]] = {}
    for o in launch.walk():
        if isinstance(o, lc.ScanOp) and isinstance(o.source.type, TensorType):
            enc = o.source.type.encoding
            if isinstance(enc, AutoLayoutAttr):
                out[enc] = (*out.get(enc, ()), o.axis.value.data)
    return out


def _values(o: Operation):
    yield from o.results
    for r in o.regions:
        for b in r.blocks:
            yield from b.args


def _root_auto(enc: Attribute) -> AutoLayoutAttr | None:
    while isinstance(enc, SliceLayoutAttr):
        enc = enc.parent
    return enc if isinstance(enc, AutoLayoutAttr) else None


def _replace_encoding(enc: Attribute, chosen: dict[AutoLayoutAttr, Attribute]) -> Attribute:
    if isinstance(enc, AutoLayoutAttr):
        return chosen.get(enc, enc)
    if isinstance(enc, SliceLayoutAttr):
        p = _replace_encoding(enc.parent, chosen)
        return enc if p is enc.parent else SliceLayoutAttr(IntAttr(enc.dim_index), p)
    return enc


def _new_type(t: Attribute, chosen) -> Attribute:
    if isinstance(t, TensorType) and _root_auto(t.encoding) is not None:
        return TensorType(t.element_type, t.get_shape(), _replace_encoding(t.encoding, chosen))
    return t


def _substitute(launch: LaunchOp, chosen: dict[AutoLayoutAttr, Attribute]) -> None:
    """Every type (results, block arguments, dense constants) in `launch` with a
    `#layout.auto` in its encoding gets the chosen layout (a `#layout.blocked`, or
    another `#layout.auto` for `choose-warps`) in its place."""
    for o in list(launch.walk()):
        for r in o.regions:
            for b in r.blocks:
                for arg in list(b.args):
                    if (nt := _new_type(arg.type, chosen)) is not arg.type:
                        Rewriter.replace_value_with_new_type(arg, nt)
        for name, attr in list(o.properties.items()) + list(o.attributes.items()):
            if isinstance(attr, DenseIntOrFPElementsAttr) and (nt := _new_type(attr.type, chosen)) is not attr.type:
                new = DenseIntOrFPElementsAttr(nt, attr.data)  # type: ignore[arg-type]
                (o.properties if name in o.properties else o.attributes)[name] = new
        for res in list(o.results):
            if (nt := _new_type(res.type, chosen)) is not res.type:
                Rewriter.replace_value_with_new_type(res, nt)

