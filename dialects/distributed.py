"""Distributed layouts of Triton Gluon / TritonGPU: blocked and slice.

A distributed layout says which ``(warp, lane, register)`` of a CTA holds each
element of a tensor.  Each one converts, for a given tensor shape, to a
:class:`~tilec.dialects.linear.LinearLayout` from ``register, lane, warp, block``
to ``dim0, dim1, ...``, exactly as Triton's ``toLinearLayout`` does:

* :class:`BlockedLayout` ``(size_per_thread, threads_per_warp, warps_per_cta,
  order)``: registers, then lanes, then warps tile a CTA block of shape
  ``spt * tpw * wpc``, each level walking the dims in ``order`` (minor first).
  A tensor larger than the block repeats it through more registers, dims in
  ``order``; a smaller one broadcasts: the largest bases (warps first, then
  lanes, then registers) become zero, so several threads hold one element.
* :class:`SliceLayout` ``(dim, parent)``: the parent with dimension ``dim``
  removed; registers that become duplicates are dropped.

A :class:`LinearLayout` is itself a distributed layout (Gluon's
``DistributedLinearLayout``).

Text forms (``str`` writes them, :func:`parse_distributed_layout` reads them; a
``#layout.`` prefix is accepted)::

    blocked<spt=[2,4], tpw=[16,2], wpc=[2,2], order=[1,0]>
    slice<dim=0, parent=blocked<spt=[2,4], tpw=[16,2], wpc=[2,2], order=[1,0]>>
    linear<register=[...], lane=[...], warp=[...], block=[], shape=[...]>

:func:`cute_to_linear` turns a CuTe layout with power-of-two extents into a
linear layout from its coordinate bits to its offset bits.

Nothing in this module imports xDSL.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Union

from tilec.dialects.errors import LayoutError
from tilec.dialects.linear import (
    LinearLayout,
    _is_pow2,
    next_pow2,
    _Lexer,
    _log2,
    _parse_linear,
    fit_to_shape,
)
from tilec.dialects.linear import (
    equivalent as _equivalent,
)

MAX_REGISTERS_PER_THREAD = 8192
"""The most registers (elements, broadcast copies included) one thread may hold of a
distributed tensor: `lower-to-gpu` writes one value per register, so a larger tensor
(a whole 2048x2048 block held by one thread) would take minutes and gigabytes to
lower; `distribute` copies such blocks with loops instead, and `lower-to-gpu` refuses
any other. 8192 f32 elements are already 32 KiB per thread, 32 times what a thread's
255 registers hold: such code runs from local memory."""

__all__ = [
    "BlockedLayout",
    "SliceLayout",
    "DistributedLayout",
    "parse_distributed_layout",
    "cute_to_linear",
]


def _fmt(xs: Sequence[int]) -> str:
    return "[" + ",".join(map(str, xs)) + "]"


def _check_shape(shape: Sequence[int], rank: int, what: str) -> tuple[int, ...]:
    shape = tuple(shape)
    if len(shape) != rank:
        raise LayoutError(f"{what}: shape {list(shape)} has rank {len(shape)}, the layout has rank {rank}")
    for s in shape:
        if not _is_pow2(s):
            raise LayoutError(
                f"{what}: shape {list(shape)} has an extent that is not a power of two (distributed "
                "tensors have power-of-two extents, as in Gluon: take a masked tile of the next power "
                f"of two, e.g. {next_pow2(s)} for {s}, and mask the rest)"
            )
    return shape


class _DistributedMixin:
    """What every distributed layout offers on top of ``to_linear(shape)``."""

    KIND: ClassVar[str] = "distributed"
    """The layout's name in its text (``blocked<...>``) and in messages."""

    @classmethod
    def parse(cls, text: str) -> Any:
        """The layout ``text`` writes (``parse_distributed_layout``), which must be one
        of this class: another is a LayoutError."""
        lay = parse_distributed_layout(text)
        if not isinstance(lay, cls):
            raise LayoutError(f"{text!r} is not a {cls.KIND} layout")
        return lay

    def to_linear(self, shape: Sequence[int]) -> LinearLayout:  # pragma: no cover - overridden
        raise NotImplementedError

    def owner_map(self, shape: Sequence[int]) -> dict[tuple[int, ...], list[tuple[int, int, int]]]:
        """For each element of ``shape``, the sorted ``(warp, lane, register)`` that hold it."""
        return self.to_linear(shape).owner_map()

    def elements_per_thread(self, shape: Sequence[int]) -> int:
        """Registers each thread spends on a tensor of ``shape`` (broadcast copies included)."""
        return self.to_linear(shape).num_registers

    def equivalent(self, other: Any, shape: Sequence[int]) -> bool:
        """Same owners for every element of ``shape`` (equal linear layouts)."""
        return _equivalent(self, other, shape)


@dataclass(frozen=True, init=False)
class BlockedLayout(_DistributedMixin):
    """Gluon's ``BlockedLayout(size_per_thread, threads_per_warp, warps_per_cta, order)``.

    All four lists have the tensor's rank; entries are powers of two and
    ``order`` is a permutation of the dims, most minor first.  Gluon requires
    ``prod(threads_per_warp)`` to be the warp size (32 on NVIDIA); tilec only
    requires a power of two, so a thread tile or a warp tile can be drawn on its
    own.
    """

    KIND: ClassVar[str] = "blocked"
    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]

    def __init__(
        self,
        size_per_thread: Sequence[int],
        threads_per_warp: Sequence[int],
        warps_per_cta: Sequence[int],
        order: Sequence[int],
    ) -> None:
        vals = {}
        for name, v in (
            ("size_per_thread", size_per_thread),
            ("threads_per_warp", threads_per_warp),
            ("warps_per_cta", warps_per_cta),
            ("order", order),
        ):
            try:
                vals[name] = tuple(int(x) for x in v)
            except (TypeError, ValueError):
                raise LayoutError(f"blocked layout: {name} must be a list of ints, got {v!r}") from None
        rank = len(vals["size_per_thread"])
        for name, v in vals.items():
            if len(v) != rank:
                raise LayoutError(
                    f"blocked layout: {name}={list(v)} has rank {len(v)}, size_per_thread has rank {rank}"
                )
            if name != "order":
                for x in v:
                    if not _is_pow2(x):
                        raise LayoutError(f"blocked layout: {name}={list(v)} has an entry that is not a power of "
                                          "two (every entry of a blocked layout is one, as in Gluon)")
        if sorted(vals["order"]) != list(range(rank)):
            raise LayoutError(f"blocked layout: order={list(vals['order'])} is not a permutation of 0..{rank - 1}")
        for name, v in vals.items():
            object.__setattr__(self, name, v)

    @property
    def rank(self) -> int:
        return len(self.order)

    @property
    def num_warps(self) -> int:
        return math.prod(self.warps_per_cta)

    @property
    def lanes_per_warp(self) -> int:
        return math.prod(self.threads_per_warp)

    @property
    def threads_per_cta(self) -> int:
        return self.num_warps * self.lanes_per_warp

    @property
    def shape_per_cta(self) -> tuple[int, ...]:
        """The block (CTA tile) shape ``spt * tpw * wpc``."""
        return tuple(
            s * t * w for s, t, w in zip(self.size_per_thread, self.threads_per_warp, self.warps_per_cta)
        )

    @property
    def shape_per_warp(self) -> tuple[int, ...]:
        return tuple(s * t for s, t in zip(self.size_per_thread, self.threads_per_warp))

    def warp_tile(self) -> BlockedLayout:
        """The same layout on one warp (``warps_per_cta`` all 1): the tutorial's warp tile."""
        return BlockedLayout(self.size_per_thread, self.threads_per_warp, [1] * self.rank, self.order)

    def thread_tile(self) -> BlockedLayout:
        """The same layout on one thread: its ``size_per_thread`` registers."""
        return BlockedLayout(self.size_per_thread, [1] * self.rank, [1] * self.rank, self.order)

    def cta_layout(self) -> LinearLayout:
        """The linear layout of one CTA block (shape :attr:`shape_per_cta`)."""
        rank = self.rank
        bases: dict[str, list[tuple[int, ...]]] = {"register": [], "lane": [], "warp": []}
        below = [1] * rank
        for name, per in (
            ("register", self.size_per_thread),
            ("lane", self.threads_per_warp),
            ("warp", self.warps_per_cta),
        ):
            for d in self.order:
                for i in range(_log2(per[d])):
                    bases[name].append(tuple((below[d] << i) if k == d else 0 for k in range(rank)))
            below = [b * p for b, p in zip(below, per)]
        return LinearLayout(bases, list(self.shape_per_cta))

    def to_linear(self, shape: Sequence[int]) -> LinearLayout:
        """The linear layout of a tensor of ``shape`` (Triton's ``BlockedEncodingAttr::toLinearLayout``)."""
        shape = _check_shape(shape, self.rank, str(self))
        return fit_to_shape(self.cta_layout(), shape, self.order)

    def __str__(self) -> str:
        return (
            f"blocked<spt={_fmt(self.size_per_thread)}, tpw={_fmt(self.threads_per_warp)}, "
            f"wpc={_fmt(self.warps_per_cta)}, order={_fmt(self.order)}>"
        )

    def __repr__(self) -> str:
        return (
            f"BlockedLayout({list(self.size_per_thread)}, {list(self.threads_per_warp)}, "
            f"{list(self.warps_per_cta)}, {list(self.order)})"
        )



@dataclass(frozen=True, init=False)
class SliceLayout(_DistributedMixin):
    """Gluon's ``SliceLayout(dim, parent)``: ``parent`` with tensor dim ``dim`` removed."""

    KIND: ClassVar[str] = "slice"
    dim: int
    parent: DistributedLayout

    def __init__(self, dim: int, parent: DistributedLayout) -> None:
        if not isinstance(parent, (_DistributedMixin, LinearLayout)):
            raise LayoutError(f"slice layout: parent {parent!r} is not a distributed layout")
        prank = _rank(parent)
        if not isinstance(dim, int) or not 0 <= dim < prank:
            raise LayoutError(f"slice layout: dim={dim!r} is out of range for a rank-{prank} parent")
        object.__setattr__(self, "dim", dim)
        object.__setattr__(self, "parent", parent)

    @property
    def rank(self) -> int:
        return _rank(self.parent) - 1

    @property
    def num_warps(self) -> int:
        return self.parent.num_warps

    @property
    def lanes_per_warp(self) -> int:
        p = self.parent
        return p.num_lanes if isinstance(p, LinearLayout) else p.lanes_per_warp

    @property
    def threads_per_cta(self) -> int:
        return self.parent.threads_per_cta

    def to_linear(self, shape: Sequence[int]) -> LinearLayout:
        """Triton's ``SliceEncodingAttr::toLinearLayout``.

        The parent's layout for ``shape`` with a 1 inserted at ``dim``, that
        dim dropped from the outputs, and the register bases that became zero
        removed.
        """
        shape = _check_shape(shape, self.rank, str(self))
        pshape = list(shape)
        pshape.insert(self.dim, 1)
        pl = self.parent.to_linear(pshape)
        keep = [k for k in range(len(pshape)) if k != self.dim]
        bases = {}
        for name, bl in pl.bases.items():
            nb = [tuple(b[k] for k in keep) for b in bl]
            if name == "register":
                nb = [b for b in nb if any(b)]
            bases[name] = nb
        return LinearLayout(bases, list(shape))

    def __str__(self) -> str:
        return f"slice<dim={self.dim}, parent={self.parent}>"

    def __repr__(self) -> str:
        return f"SliceLayout({self.dim}, {self.parent!r})"



DistributedLayout = Union[BlockedLayout, SliceLayout, LinearLayout]


def _rank(layout: Any) -> int:
    return layout.rank


# ----------------------------------------------------------------------- parse
_BLOCKED_KEYS = {
    "spt": "size_per_thread",
    "size_per_thread": "size_per_thread",
    "tpw": "threads_per_warp",
    "threads_per_warp": "threads_per_warp",
    "wpc": "warps_per_cta",
    "warps_per_cta": "warps_per_cta",
    "order": "order",
}


def _parse_distributed(lx: _Lexer) -> DistributedLayout:
    if lx.peek("#"):
        lx.skip_dialect_prefix()
    if lx.accept("name", "blocked"):
        lx.expect("<")
        args: dict[str, list[int]] = {}
        while True:
            key = lx.expect("name")
            if key not in _BLOCKED_KEYS:
                lx.error(f"unknown blocked parameter {key!r}")
            if _BLOCKED_KEYS[key] in args:
                lx.error(f"blocked parameter {key!r} given twice")
            lx.expect("=")
            args[_BLOCKED_KEYS[key]] = lx.int_list()
            if not lx.accept(","):
                break
        lx.expect(">")
        missing = [k for k in ("size_per_thread", "threads_per_warp", "warps_per_cta", "order") if k not in args]
        if missing:
            lx.error(f"blocked layout misses {', '.join(missing)}")
        return BlockedLayout(**args)
    if lx.accept("name", "slice"):
        lx.expect("<")
        dim = parent = None
        while True:
            key = lx.expect("name")
            lx.expect("=")
            if key == "dim" and dim is None:
                dim = lx.expect("int")
            elif key == "parent" and parent is None:
                parent = _parse_distributed(lx)
            else:
                lx.error(f"unexpected slice parameter {key!r}")
            if not lx.accept(","):
                break
        lx.expect(">")
        if dim is None or parent is None:
            lx.error("slice layout needs dim= and parent=")
        return SliceLayout(dim, parent)
    if lx.peek("name", "linear"):
        return _parse_linear(lx)
    lx.error("expected blocked<...>, slice<...> or linear<...>")
    raise AssertionError  # unreachable


def parse_distributed_layout(text: str) -> DistributedLayout:
    """Read ``blocked<...>``, ``slice<...>`` or ``linear<...>`` (optionally ``#layout.``-prefixed)."""
    lx = _Lexer(text, "distributed layout")
    lay = _parse_distributed(lx)
    if not lx.at_end():
        lx.error("unexpected trailing text")
    return lay


# ------------------------------------------------------------------------ CuTe
def _flatten(x: Any) -> list[int]:
    if isinstance(x, (tuple, list)):
        out: list[int] = []
        for y in x:
            out.extend(_flatten(y))
        return out
    return [x]


def _int_tuple_str(x: Any) -> str:
    if isinstance(x, (tuple, list)):
        return "(" + ",".join(_int_tuple_str(y) for y in x) + ")"
    return str(x)


def _top_modes(shape: Any, stride: Any) -> list[tuple[list[int], list[int]]]:
    if isinstance(shape, (tuple, list)):
        if not isinstance(stride, (tuple, list)) or len(stride) != len(shape):
            raise LayoutError(f"cute_to_linear: shape {shape} and stride {stride} are not congruent")
        return [(_flatten(s), _flatten(d)) for s, d in zip(shape, stride)]
    return [([shape], [stride])]


def cute_to_linear(
    layout: Any,
    stride: Any = None,
    *,
    in_dims: Sequence[tuple[str, int]] | None = None,
    out_dims: Sequence[tuple[str, int]] | None = None,
) -> LinearLayout:
    """A CuTe layout (coordinate -> offset) as a linear layout over GF(2).

    ``layout`` is anything with ``.shape`` and ``.stride`` (nested tuples of
    ints, as ``tilec.dialects.cute.Layout``), or a shape given together with
    ``stride``.  Every (flattened) extent must be a power of two, every stride
    non-negative, and the offsets of distinct coordinate bits must not share a
    bit (so that adding offsets is XOR-ing them); otherwise the layout is not
    linear over GF(2) and :class:`LayoutError` is raised.

    Inputs: by default one input dim per top-level mode, ``dim0, dim1, ...``
    (the layout's logical coordinates).  ``in_dims=[(name, size), ...]`` instead
    splits the layout's flat (colexicographic) index into named dims, low bits
    first: e.g. ``[("lane", 32), ("warp", 4), ("register", 8)]`` for a
    ``(thread, value)`` layout of 128 threads.

    Outputs: by default one output dim ``offset`` (the smallest power of two
    above the largest offset).  ``out_dims=[(name, size), ...]`` splits the
    offset bits into named dims, low bits first, e.g. ``[("dim1", 16), ("dim0",
    64)]`` for offsets into a row-major 64x16 tile.

    The inverse of the default result maps offsets to coordinates: Triton's
    shared-memory form.
    """
    if stride is None:
        shape, stride = getattr(layout, "shape", None), getattr(layout, "stride", None)
        if shape is None or stride is None:
            raise LayoutError(f"cute_to_linear: {layout!r} has no .shape and .stride")
        if callable(shape):
            shape = shape()
        if callable(stride):
            stride = stride()
    else:
        shape = layout
    modes = _top_modes(shape, stride)
    text = f"{_int_tuple_str(shape)}:{_int_tuple_str(stride)}"

    # Per-bit offsets, colexicographic: mode 0's first extent is the least significant.
    bits: list[int] = []
    mode_bits: list[int] = []
    for extents, strides in modes:
        nb = 0
        for e, s in zip(extents, strides):
            if not isinstance(e, int) or not isinstance(s, int):
                raise LayoutError(f"cute_to_linear: {text} has a dynamic or non-integer extent or stride")
            if not _is_pow2(e):
                raise LayoutError(f"cute_to_linear: extent {e} of {text} is not a power of two")
            if s < 0:
                raise LayoutError(f"cute_to_linear: stride {s} of {text} is negative")
            for i in range(_log2(e)):
                bits.append(s << i)
            nb += _log2(e)
        mode_bits.append(nb)
    seen = 0
    for b in bits:
        if b & seen:
            raise LayoutError(
                f"cute_to_linear: {text} is not linear over GF(2): offsets of different coordinate bits overlap"
            )
        seen |= b
    max_off = seen  # the largest offset is the OR (= sum) of all bit offsets

    if out_dims is None:
        out = {"offset": 1 << max_off.bit_length()}
        split = [("offset", max_off.bit_length())]
    else:
        out = {}
        split = []
        for name, size in out_dims:
            if not _is_pow2(size):
                raise LayoutError(f"cute_to_linear: output dim {name!r} size {size} is not a power of two")
            out[name] = size
            split.append((name, _log2(size)))
        total = sum(n for _, n in split)
        if max_off >> total:
            raise LayoutError(f"cute_to_linear: offsets of {text} do not fit the output dims {list(out_dims)}")

    def to_out(v: int) -> tuple[int, ...]:
        res = []
        for _, n in split:
            res.append(v & ((1 << n) - 1))
            v >>= n
        return tuple(res)

    if in_dims is None:
        names = [f"dim{i}" for i in range(len(modes))]
        groups = list(zip(names, mode_bits))
    else:
        groups = []
        for name, size in in_dims:
            if not _is_pow2(size):
                raise LayoutError(f"cute_to_linear: input dim {name!r} size {size} is not a power of two")
            groups.append((name, _log2(size)))
        if sum(n for _, n in groups) != len(bits):
            raise LayoutError(
                f"cute_to_linear: input dims {list(in_dims)} have {1 << sum(n for _, n in groups)} "
                f"values, {text} has {1 << len(bits)}"
            )
    bases: dict[str, list[tuple[int, ...]]] = {}
    k = 0
    for name, n in groups:
        if name in bases:
            raise LayoutError(f"cute_to_linear: input dim {name!r} given twice")
        bases[name] = [to_out(b) for b in bits[k : k + n]]
        k += n
    return LinearLayout(bases, out)

