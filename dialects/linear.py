"""Linear layouts over GF(2), after Triton's ``LinearLayout`` (arXiv 2505.23819).

A :class:`LinearLayout` maps the bits of named *input* dimensions to the bits of
named *output* dimensions, linearly over GF(2): the image of an input is the XOR
of the *bases* of its set bits.  For a distributed (register) layout the input
dimensions are, in this order, ``register``, ``lane``, ``warp`` and ``block``,
and the output dimensions are the tensor dimensions ``dim0``, ``dim1``, ...,
which carry sizes (powers of two).  A basis is a tuple with one int per output
dimension::

    L = LinearLayout({"register": [(0, 1), (0, 2), (1, 0)],
                      "lane": [(0, 4), (2, 0), (4, 0), (8, 0), (16, 0)],
                      "warp": [(0, 8), (32, 0)]}, [64, 16])
    L.apply(register=5, lane=3, warp=0)  == (1, 1) ^ ... == (3, 5)

Every distributed layout (``BlockedLayout``, ``SliceLayout`` in
:mod:`tilec.dialects.distributed`) converts to this one form, so equality and the
cost of a layout conversion are computed once, here.

Other input/output names are allowed (``offset`` for memory, ``dim0`` ... as
inputs of an inverse), which is what :meth:`LinearLayout.invert` and
:meth:`LinearLayout.compose` need.  The four standard input dimensions are always
present (possibly with no bases, i.e. of size 1); an input dimension with no
bases behaves exactly like an absent one.

Text form (``str(L)``; :func:`parse_linear_layout` reads it back)::

    linear<register=[[0,1],[0,2],[1,0]], lane=[[0,4],[2,0],[4,0],[8,0],[16,0]], warp=[[0,8],[32,0]], block=[], shape=[64,16]>

``shape=[...]`` gives the sizes of the output dimensions when they are the
standard ``dim0, dim1, ...``; otherwise ``out=[name:size, ...]`` names them.
Input dimensions other than the standard four follow ``block=`` as
``name=[[...], ...]``.  The ``linear<...>`` wrapper is optional on input, as is a
leading ``#layout.``.

Nothing in this module imports xDSL.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tilec.dialects.errors import LayoutError

__all__ = [
    "STANDARD_IN_DIMS",
    "CONVERSION_KINDS",
    "LinearLayout",
    "parse_linear_layout",
    "equivalent",
    "conversion_kind",
    "conversion_map",
    "standard_out_dims",
    "fit_to_shape",
]

#: The input dimensions of a distributed layout, minor to major.
STANDARD_IN_DIMS: tuple[str, ...] = ("register", "lane", "warp", "block")

#: What :func:`conversion_kind` may return, cheapest first.
CONVERSION_KINDS: tuple[str, ...] = ("identity", "register", "warp_shuffle", "shared")

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def standard_out_dims(rank: int) -> tuple[str, ...]:
    """``("dim0", ..., "dim<rank-1>")``: the output dims of a tensor layout."""
    return tuple(f"dim{i}" for i in range(rank))


def _is_pow2(n: int) -> bool:
    return isinstance(n, int) and n >= 1 and (n & (n - 1)) == 0


def next_pow2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1): the masked tile a row of n takes."""
    return 1 << max(0, int(n) - 1).bit_length()


def _log2(n: int) -> int:
    return n.bit_length() - 1


def _check_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise LayoutError(f"linear layout: {what} name {name!r} is not an identifier")
    return name


class LinearLayout:
    """A linear map over GF(2) from named input bits to named output bits.

    ``LinearLayout(bases, out_shape=None)``:

    * ``bases``: mapping from input-dim name to a list of bases; basis ``i`` of
      dimension ``d`` is the image of ``d = 1 << i``.  Each basis is a sequence
      of non-negative ints, one per output dimension.
    * ``out_shape``: a sequence of sizes (output dims ``dim0, dim1, ...``), or a
      mapping ``name -> size`` (ordered), or ``None`` to infer the smallest
      power-of-two size per ``dimK`` that holds every basis (the rank then comes
      from the bases).  Sizes must be powers of two and every basis component
      must be smaller than its dimension's size.

    Instances are immutable and hashable.
    """

    __slots__ = ("_bases", "_out", "_offs", "_packed", "_hash")

    def __init__(
        self,
        bases: Mapping[str, Iterable[Sequence[int]]],
        out_shape: Sequence[int] | Mapping[str, int] | None = None,
    ) -> None:
        if not isinstance(bases, Mapping):
            raise LayoutError("linear layout: bases must be a mapping from input dim names to lists of bases")
        raw: dict[str, list[tuple[int, ...]]] = {}
        for name, blist in bases.items():
            _check_name(name, "input dim")
            try:
                raw[name] = [tuple(int(c) for c in b) for b in blist]
            except TypeError as e:
                raise LayoutError(f"linear layout: bases of {name!r} must be lists of int lists") from e

        if out_shape is None:
            ranks = {len(b) for bl in raw.values() for b in bl}
            if len(ranks) > 1:
                raise LayoutError(f"linear layout: bases have different lengths {sorted(ranks)}")
            rank = ranks.pop() if ranks else 0
            sizes = [1] * rank
            for bl in raw.values():
                for b in bl:
                    for k, c in enumerate(b):
                        if c < 0:
                            raise LayoutError(f"linear layout: negative basis component {c}")
                        sizes[k] = max(sizes[k], 1 << c.bit_length())
            out = dict(zip(standard_out_dims(rank), sizes))
        elif isinstance(out_shape, Mapping):
            out = {}
            for name, size in out_shape.items():
                out[_check_name(name, "output dim")] = size
        else:
            out = dict(zip(standard_out_dims(len(out_shape)), out_shape))
        for name, size in out.items():
            if not _is_pow2(size):
                raise LayoutError(f"linear layout: size {size!r} of output dim {name!r} is not a power of two")
        rank = len(out)
        names = list(out)

        ordered: dict[str, tuple[tuple[int, ...], ...]] = {}
        for name in STANDARD_IN_DIMS:
            ordered[name] = tuple(raw.pop(name, ()))
        for name, bl in raw.items():
            ordered[name] = tuple(bl)
        for name, bl in ordered.items():
            for b in bl:
                if len(b) != rank:
                    raise LayoutError(
                        f"linear layout: basis {list(b)} of {name!r} has {len(b)} components, expected {rank}"
                    )
                for k, c in enumerate(b):
                    if not 0 <= c < out[names[k]]:
                        raise LayoutError(
                            f"linear layout: basis {list(b)} of {name!r} is out of range for "
                            f"output dim {names[k]!r} of size {out[names[k]]}"
                        )
        self._bases = ordered
        self._out = out
        offs = []
        o = 0
        for n in names:
            offs.append(o)
            o += _log2(out[n])
        self._offs = tuple(offs)
        self._packed = {name: tuple(self._pack(b) for b in bl) for name, bl in ordered.items()}
        self._hash: int | None = None

    # ------------------------------------------------------------------ packing
    def _pack(self, coords: Sequence[int]) -> int:
        v = 0
        for c, o in zip(coords, self._offs):
            v |= c << o
        return v

    def _unpack(self, v: int) -> tuple[int, ...]:
        return tuple((v >> o) & (size - 1) for o, size in zip(self._offs, self._out.values()))

    def _columns(self) -> list[int]:
        """All bases packed, input dims in order, low bits first."""
        return [c for cols in self._packed.values() for c in cols]

    # ---------------------------------------------------------------- accessors
    @property
    def in_dims(self) -> tuple[str, ...]:
        """Input dim names: ``register, lane, warp, block``, then any others."""
        return tuple(self._bases)

    @property
    def out_dims(self) -> tuple[str, ...]:
        return tuple(self._out)

    @property
    def out_shape(self) -> tuple[int, ...]:
        """Sizes of the output dims, in order."""
        return tuple(self._out.values())

    @property
    def out_dim_sizes(self) -> dict[str, int]:
        return dict(self._out)

    @property
    def rank(self) -> int:
        """Number of output dims."""
        return len(self._out)

    @property
    def bases(self) -> dict[str, list[tuple[int, ...]]]:
        """A copy of the bases, by input dim."""
        return {k: list(v) for k, v in self._bases.items()}

    def get_bases(self, in_dim: str) -> list[tuple[int, ...]]:
        return list(self._bases.get(in_dim, ()))

    def in_dim_bits(self, in_dim: str) -> int:
        return len(self._bases.get(in_dim, ()))

    def in_dim_size(self, in_dim: str) -> int:
        return 1 << self.in_dim_bits(in_dim)

    @property
    def num_registers(self) -> int:
        return self.in_dim_size("register")

    @property
    def num_lanes(self) -> int:
        return self.in_dim_size("lane")

    @property
    def num_warps(self) -> int:
        return self.in_dim_size("warp")

    @property
    def num_blocks(self) -> int:
        return self.in_dim_size("block")

    @property
    def threads_per_cta(self) -> int:
        return self.num_lanes * self.num_warps

    @property
    def total_in_bits(self) -> int:
        return sum(len(v) for v in self._bases.values())

    @property
    def total_out_bits(self) -> int:
        return sum(_log2(s) for s in self._out.values())

    @property
    def total_in_size(self) -> int:
        return 1 << self.total_in_bits

    # -------------------------------------------------------------- evaluation
    def apply(self, **inputs: int) -> tuple[int, ...]:
        """The output coordinates of the given inputs (missing inputs are 0)."""
        v = 0
        for name, value in inputs.items():
            if name not in self._packed:
                if value == 0:
                    continue
                raise LayoutError(f"linear layout has no input dim {name!r}")
            cols = self._packed[name]
            if not isinstance(value, int) or not 0 <= value < (1 << len(cols)):
                raise LayoutError(
                    f"linear layout: {name}={value!r} is out of range [0, {1 << len(cols)})"
                )
            i = 0
            while value:
                if value & 1:
                    v ^= cols[i]
                value >>= 1
                i += 1
        return self._unpack(v)

    __call__ = apply

    def _all_images(self) -> list[int]:
        """Packed image of every flat input index, in order."""
        cols = self._columns()
        imgs = [0] * (1 << len(cols))
        for i, c in enumerate(cols):
            step = 1 << i
            for j in range(step):
                imgs[step + j] = imgs[j] ^ c
        return imgs

    def split_flat_input(self, index: int) -> dict[str, int]:
        """The per-dim values of a flat input index."""
        out = {}
        for name, bl in self._bases.items():
            n = len(bl)
            out[name] = index & ((1 << n) - 1)
            index >>= n
        return out

    # ------------------------------------------------------------ GF(2) algebra
    def matrix_rank(self) -> int:
        """Rank of the layout as a matrix over GF(2)."""
        return len(_Echelon(self._columns()).pivots)

    def is_surjective(self) -> bool:
        """Every output value is the image of some input."""
        return self.matrix_rank() == self.total_out_bits

    def is_injective(self) -> bool:
        """No two inputs have the same image (no zero or dependent bases)."""
        return self.matrix_rank() == self.total_in_bits

    def is_invertible(self) -> bool:
        return self.is_surjective() and self.is_injective()

    def free_variable_masks(self) -> dict[str, int]:
        """For each input dim, the mask of its *free* bits, as Triton defines them.

        A bit is free when its basis is zero or a combination of the bases
        before it (input dims in order, low bits first): flipping it reaches
        data that a smaller input already holds.  For layouts built from blocked
        and slice layouts these are exactly the zero bases, i.e. broadcasting.
        """
        ech = _Echelon([])
        masks: dict[str, int] = {}
        for name, cols in self._packed.items():
            m = 0
            for i, c in enumerate(cols):
                if not ech.add(c):
                    m |= 1 << i
            masks[name] = m
        return masks

    def compose(self, outer: LinearLayout) -> LinearLayout:
        """``outer`` after ``self``: x -> outer(self(x)) (Triton's ``compose``).

        Each output dim of ``self`` must be an input dim of ``outer`` of at least
        the same size; the other input dims of ``outer`` must be empty.  The
        result has the input dims of ``self`` and the output dims of ``outer``.
        """
        for d, size in self._out.items():
            if outer.in_dim_size(d) < size:
                raise LayoutError(
                    f"compose: output dim {d!r} of size {size} does not fit input dim "
                    f"{d!r} of size {outer.in_dim_size(d)} of the outer layout"
                )
        for d, bl in outer._bases.items():
            if bl and d not in self._out:
                raise LayoutError(f"compose: input dim {d!r} of the outer layout is not an output dim of the inner one")
        out_names = list(self._out)
        new: dict[str, list[tuple[int, ...]]] = {}
        for name, bl in self._bases.items():
            res = []
            for b in bl:
                v = 0
                for d, c in zip(out_names, b):
                    cols = outer._packed[d]
                    i = 0
                    while c:
                        if c & 1:
                            v ^= cols[i]
                        c >>= 1
                        i += 1
                res.append(outer._unpack(v))
            new[name] = res
        return LinearLayout(new, dict(outer._out))

    def invert_and_compose(self, outer: LinearLayout) -> LinearLayout:
        """A layout ``C`` with ``self(x) == outer(C(x))`` for all x (Triton's ``invertAndCompose``).

        ``C`` maps the input dims of ``self`` to the input dims of ``outer``
        that have bases (empty ones, of size 1, are left out).
        Where ``outer`` is not injective (broadcasting), ``C`` uses the lowest
        inputs (pivot bits: register before lane before warp before block) and
        leaves free bits zero.  Both layouts must have the same output dims; if
        some image of ``self`` is not an image of ``outer`` this raises
        :class:`LayoutError`.
        """
        if set(self._out) != set(outer._out):
            raise LayoutError(
                f"invert_and_compose: output dims differ: {list(self._out)} vs {list(outer._out)}"
            )
        # Repack self's columns in outer's packing (sizes may differ).
        mine = [outer._pack_named(self._unpack_named(c)) for c in self._columns()]
        ocols = outer._columns()
        ech = _Echelon([])
        for i, c in enumerate(ocols):
            ech.add(c, 1 << i)
        out_dims = {name: 1 << len(bl) for name, bl in outer._bases.items() if bl}
        tmpl = LinearLayout({}, out_dims)
        res_bases: dict[str, list[tuple[int, ...]]] = {}
        k = 0
        for name, bl in self._bases.items():
            res = []
            for _ in bl:
                residual, mask = ech.reduce(mine[k])
                k += 1
                if residual:
                    raise LayoutError(
                        "invert_and_compose: an image of the first layout is not an image of the second"
                    )
                res.append(tmpl._unpack(mask))
            res_bases[name] = res
        return LinearLayout(res_bases, out_dims)

    def _unpack_named(self, v: int) -> dict[str, int]:
        return dict(zip(self._out, self._unpack(v)))

    def _pack_named(self, coords: Mapping[str, int]) -> int:
        v = 0
        for (name, size), o in zip(self._out.items(), self._offs):
            c = coords.get(name, 0)
            if c >= size:
                raise LayoutError(f"value {c} does not fit output dim {name!r} of size {size}")
            v |= c << o
        return v

    def pseudo_invert(self) -> LinearLayout:
        """A right inverse ``P`` (``self(P(y)) == y``) of a surjective layout.

        ``P`` maps the output dims to the non-empty input dims, choosing for each output
        the lowest input that holds it (see :meth:`invert_and_compose`).  For an
        invertible layout this is the inverse.  Raises :class:`LayoutError` when
        the layout is not surjective.
        """
        if not self.is_surjective():
            raise LayoutError(f"pseudo_invert: {self} is not surjective")
        return LinearLayout.identity(self._out).invert_and_compose(self)

    def invert(self) -> LinearLayout:
        """The inverse of a bijective layout; :class:`LayoutError` otherwise."""
        if not self.is_invertible():
            what = "surjective" if not self.is_surjective() else "injective"
            raise LayoutError(f"invert: {self} is not {what}, so it has no inverse")
        return self.pseudo_invert()

    def __mul__(self, other: LinearLayout) -> LinearLayout:
        """Triton's product: the inputs and outputs of ``other`` come after those of ``self``.

        Shared input dims concatenate their bases; shared output dims multiply
        their sizes, with ``other``'s part in the high bits.
        """
        out = dict(self._out)
        for d, s in other._out.items():
            out[d] = out.get(d, 1) * s
        names = list(out)

        def widen(lay: LinearLayout, b: tuple[int, ...], shift: bool) -> tuple[int, ...]:
            vals = dict(zip(lay._out, b))
            return tuple(
                (vals.get(d, 0) * (self._out.get(d, 1) if shift else 1)) for d in names
            )

        new: dict[str, list[tuple[int, ...]]] = {}
        for name, bl in self._bases.items():
            new.setdefault(name, []).extend(widen(self, b, False) for b in bl)
        for name, bl in other._bases.items():
            new.setdefault(name, []).extend(widen(other, b, True) for b in bl)
        return LinearLayout(new, out)

    @staticmethod
    def identity(dims: Mapping[str, int] | Iterable[tuple[str, int]]) -> LinearLayout:
        """The identity from each named dim (size a power of two) to the dim of the same name."""
        items = list(dims.items()) if isinstance(dims, Mapping) else list(dims)
        rank = len(items)
        bases: dict[str, list[tuple[int, ...]]] = {}
        for k, (name, size) in enumerate(items):
            if not _is_pow2(size):
                raise LayoutError(f"identity: size {size!r} of {name!r} is not a power of two")
            bases[name] = [
                tuple((1 << i) if j == k else 0 for j in range(rank)) for i in range(_log2(size))
            ]
        return LinearLayout(bases, dict(items))

    @staticmethod
    def identity_1d(size: int, in_dim: str, out_dim: str) -> LinearLayout:
        if not _is_pow2(size):
            raise LayoutError(f"identity_1d: size {size!r} is not a power of two")
        return LinearLayout({in_dim: [(1 << i,) for i in range(_log2(size))]}, {out_dim: size})

    @staticmethod
    def zeros_1d(size: int, in_dim: str, out_dim: str) -> LinearLayout:
        if not _is_pow2(size):
            raise LayoutError(f"zeros_1d: size {size!r} is not a power of two")
        return LinearLayout({in_dim: [(0,)] * _log2(size)}, {out_dim: 1})

    def transpose_outs(self, order: Sequence[str]) -> LinearLayout:
        """The same map with the output dims listed in ``order``."""
        if sorted(order) != sorted(self._out):
            raise LayoutError(f"transpose_outs: {list(order)} is not a permutation of {list(self._out)}")
        idx = [list(self._out).index(d) for d in order]
        new = {n: [tuple(b[i] for i in idx) for b in bl] for n, bl in self._bases.items()}
        return LinearLayout(new, {d: self._out[d] for d in order})

    # ---------------------------------------------------- distributed helpers
    def to_linear(self, shape: Sequence[int] | None = None) -> LinearLayout:
        """This layout fitted to ``shape`` (see :func:`fit_to_shape`); itself when the shape matches."""
        if shape is None or tuple(shape) == self.out_shape and self.out_dims == standard_out_dims(len(shape)):
            return self
        return fit_to_shape(self, shape)

    def owner_map(self, *, with_block: bool = False) -> dict[tuple[int, ...], list[tuple[int, ...]]]:
        """For each output coordinate, the sorted list of ``(warp, lane, register)`` holding it.

        With ``with_block=True`` the tuples are ``(block, warp, lane, register)``;
        without it a multi-block layout raises :class:`LayoutError`.  Every
        coordinate of the output shape is a key (an empty list when no input
        maps to it).  Input dims other than the standard four must be empty.
        """
        extra = [n for n in self._bases if n not in STANDARD_IN_DIMS and self._bases[n]]
        if extra:
            raise LayoutError(f"owner_map: input dims {extra} are not register/lane/warp/block")
        if self.num_blocks > 1 and not with_block:
            raise LayoutError("owner_map: the layout spans several blocks; pass with_block=True")
        rb, lb, wb = (self.in_dim_bits(n) for n in ("register", "lane", "warp"))
        result: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        for coords in _iter_coords(self.out_shape):
            result[coords] = []
        for h, v in enumerate(self._all_images()):
            r = h & ((1 << rb) - 1)
            l = (h >> rb) & ((1 << lb) - 1)
            w = (h >> (rb + lb)) & ((1 << wb) - 1)
            b = h >> (rb + lb + wb)
            owner = (b, w, l, r) if with_block else (w, l, r)
            result[self._unpack(v)].append(owner)
        for lst in result.values():
            lst.sort()
        return result

    # ----------------------------------------------------------- comparisons
    def _key(self) -> tuple:
        ins = tuple(
            (n, bl) for n, bl in self._bases.items() if bl or n in STANDARD_IN_DIMS
        )
        return ins, tuple(self._out.items())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LinearLayout):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    # ------------------------------------------------------------------- text
    def format_params(self) -> str:
        """The text inside ``linear<...>``."""
        parts = []
        for name, bl in self._bases.items():
            if name not in STANDARD_IN_DIMS and not bl:
                continue
            parts.append(f"{name}=[" + ",".join("[" + ",".join(map(str, b)) + "]" for b in bl) + "]")
        if self.out_dims == standard_out_dims(self.rank):
            parts.append("shape=[" + ",".join(map(str, self.out_shape)) + "]")
        else:
            parts.append("out=[" + ", ".join(f"{n}:{s}" for n, s in self._out.items()) + "]")
        return ", ".join(parts)

    def __str__(self) -> str:
        return f"linear<{self.format_params()}>"

    def __repr__(self) -> str:
        return f"parse_linear_layout({str(self)!r})"

    @staticmethod
    def parse(text: str) -> LinearLayout:
        return parse_linear_layout(text)


def _iter_coords(shape: Sequence[int]):
    """All coordinates of ``shape`` in row-major order."""
    if not shape:
        yield ()
        return
    total = 1
    for s in shape:
        total *= s
    for flat in range(total):
        c = []
        for s in reversed(shape):
            c.append(flat % s)
            flat //= s
        yield tuple(reversed(c))


class _Echelon:
    """An XOR basis kept in echelon form (pivot = highest set bit), with combination masks."""

    __slots__ = ("pivots",)

    def __init__(self, cols: Iterable[int]) -> None:
        self.pivots: dict[int, tuple[int, int]] = {}
        for i, c in enumerate(cols):
            self.add(c, 1 << i)

    def reduce(self, v: int) -> tuple[int, int]:
        """``(residual, mask)``: ``v == residual ^ XOR(columns in mask)``; residual has no pivot bits."""
        mask = 0
        for p in sorted(self.pivots, reverse=True):
            if (v >> p) & 1:
                bv, bm = self.pivots[p]
                v ^= bv
                mask ^= bm
        return v, mask

    def add(self, v: int, mask: int = 0) -> bool:
        """Add a vector; False when it is already in the span."""
        while v:
            p = v.bit_length() - 1
            if p not in self.pivots:
                self.pivots[p] = (v, mask)
                return True
            bv, bm = self.pivots[p]
            v ^= bv
            mask ^= bm
        return False

    def contains(self, v: int) -> bool:
        return self.reduce(v)[0] == 0


# --------------------------------------------------------------------- fitting
def fit_to_shape(
    layout: LinearLayout, shape: Sequence[int], order: Sequence[int] | None = None
) -> LinearLayout:
    """Fit a tensor layout to ``shape`` the way Triton does for distributed layouts.

    Output dims smaller than ``shape`` grow by *register repetition*: register
    bases are appended (Triton's ``ensureLayoutNotSmallerThan``), output dims
    taken in ``order`` (minor to major; default: the last dim is the most
    minor).  Output dims larger than ``shape`` shrink by *broadcasting*: every
    basis component is reduced modulo the new size, so the largest bases become
    zero, warps first, then lanes, then registers (Triton's
    ``ensureLayoutNotLargerThan`` with broadcast registers).  ``shape`` entries
    must be powers of two.
    """
    rank = len(shape)
    if layout.out_dims != standard_out_dims(rank):
        raise LayoutError(
            f"fit_to_shape: layout output dims {list(layout.out_dims)} do not match a rank-{rank} shape"
        )
    for s in shape:
        if not _is_pow2(s):
            raise LayoutError(f"shape {list(shape)} has an extent that is not a power of two")
    if order is None:
        order = list(reversed(range(rank)))
    sizes = list(layout.out_shape)
    bases = layout.bases
    regs = bases["register"]
    for d in order:
        while sizes[d] < shape[d]:
            regs.append(tuple(sizes[d] if k == d else 0 for k in range(rank)))
            sizes[d] *= 2
    masks = [min(sz, s) - 1 for sz, s in zip(sizes, shape)]
    bases = {n: [tuple(c & m for c, m in zip(b, masks)) for b in bl] for n, bl in bases.items()}
    return LinearLayout(bases, list(shape))


# ----------------------------------------------------------------- comparisons
def _as_linear(layout: Any, shape: Sequence[int] | None) -> LinearLayout:
    if isinstance(layout, LinearLayout):
        return layout if shape is None else layout.to_linear(shape)
    to_linear = getattr(layout, "to_linear", None)
    if to_linear is None:
        raise LayoutError(f"{layout!r} is not a layout")
    if shape is None:
        raise LayoutError(f"{layout} needs a tensor shape to become a linear layout")
    return to_linear(shape)


def equivalent(a: Any, b: Any, shape: Sequence[int] | None = None) -> bool:
    """Whether two layouts are the same map once written as linear layouts.

    ``a`` and ``b`` are linear layouts or distributed layouts (anything with
    ``to_linear(shape)``; then ``shape`` is required).  Representation
    differences are ignored: input dims without bases, and the order in which
    input and output dims are listed.
    """
    la, lb = _as_linear(a, shape), _as_linear(b, shape)
    if la.out_dim_sizes != lb.out_dim_sizes:
        return False
    if list(la.out_dims) != list(lb.out_dims):
        lb = lb.transpose_outs(la.out_dims)
    ia = {n: bl for n, bl in la._bases.items() if bl}
    ib = {n: bl for n, bl in lb._bases.items() if bl}
    return ia == ib


def conversion_kind(src: Any, dst: Any, shape: Sequence[int] | None = None) -> str:
    """How converting a value from layout ``src`` to layout ``dst`` moves data.

    Returns, cheapest first:

    * ``"identity"``: the layouts are equivalent; nothing moves.
    * ``"register"``: every (block, warp, lane) already holds every element that
      ``dst`` asks of it; only registers are renamed inside each thread.
    * ``"warp_shuffle"``: every element ``dst`` asks of a warp is held somewhere
      in that warp (same block); lanes exchange it with shuffles.
    * ``"shared"``: data crosses warps; a shared memory round trip.

    Decided as Triton does, from the conversion map ``src^-1 o dst`` (Triton's
    ``dst.invertAndCompose(src)``, here :func:`conversion_map`): for each
    hardware location of ``dst``, a location of ``src`` holding the same
    element.  The conversion stays inside threads (warps) iff that map can be
    chosen to leave lane, warp and block (warp and block) unchanged.  Where
    ``src`` broadcasts the map is not unique, so the test covers every choice
    at once: ``dst``'s register (and lane) bases must lie in the span ``S`` of
    ``src``'s register (and lane) bases, and ``dst``'s bases for the kept dims
    must equal ``src``'s modulo ``S``.  Without broadcasting this is the same
    as asking whether ``dst^-1 o src`` keeps those dims.  Both layouts must have
    the same output dims and the same numbers of lanes, warps and blocks.
    """
    a, b = _as_linear(src, shape), _as_linear(dst, shape)
    if a.out_dim_sizes != b.out_dim_sizes:
        raise LayoutError(f"conversion_kind: {a} and {b} are not layouts of the same shape")
    if list(a.out_dims) != list(b.out_dims):
        b = b.transpose_outs(a.out_dims)
    for n in ("lane", "warp", "block"):
        if a.in_dim_size(n) != b.in_dim_size(n):
            raise LayoutError(
                f"conversion_kind: {n} counts differ ({a.in_dim_size(n)} vs {b.in_dim_size(n)})"
            )
    extra = [n for n in (*a.in_dims, *b.in_dims) if n not in STANDARD_IN_DIMS and (a.get_bases(n) or b.get_bases(n))]
    if extra:
        raise LayoutError(f"conversion_kind: input dims {extra} are not register/lane/warp/block")
    if equivalent(a, b):
        return "identity"

    def stays_within(free: Sequence[str], kept: Sequence[str]) -> bool:
        span = _Echelon(c for n in free for c in a._packed[n])
        for n in free:
            if not all(span.contains(c) for c in b._packed[n]):
                return False
        for n in kept:
            if not all(span.contains(ca ^ cb) for ca, cb in zip(a._packed[n], b._packed[n])):
                return False
        return True

    if stays_within(("register",), ("lane", "warp", "block")):
        return "register"
    if stays_within(("register", "lane"), ("warp", "block")):
        return "warp_shuffle"
    return "shared"


def conversion_map(src: Any, dst: Any, shape: Sequence[int] | None = None) -> LinearLayout:
    """``src^-1 o dst``: for each (register, lane, warp, block) of ``dst``, one of ``src`` holding the same element.

    This is what a lowering of ``convert_layout`` reads (Triton's
    ``dst.invertAndCompose(src)``); where ``src`` broadcasts, the lowest source
    location is chosen (registers before lanes before warps).  Raises
    :class:`LayoutError` when ``dst`` asks for an element ``src`` does not hold.
    """
    a, b = _as_linear(src, shape), _as_linear(dst, shape)
    return b.invert_and_compose(a)


# ----------------------------------------------------------------------- parse
_TOKEN_RE = re.compile(r"\s*(?:(?P<int>-?\d+)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<punct>[\[\]<>,=:#.]))")


class _Lexer:
    """A tiny tokenizer shared by the layout parsers (ints, names, punctuation)."""

    def __init__(self, text: str, what: str) -> None:
        self.text = text
        self.what = what
        self.toks: list[tuple[str, Any, int]] = []
        pos = 0
        n = len(text)
        while pos < n:
            if text[pos].isspace():
                pos += 1
                continue
            m = _TOKEN_RE.match(text, pos)
            if not m or m.end() == pos:
                self.error(f"unexpected character {text[pos]!r}", pos)
            start = m.start(m.lastgroup)
            if m.lastgroup == "int":
                self.toks.append(("int", int(m.group("int")), start))
            elif m.lastgroup == "name":
                self.toks.append(("name", m.group("name"), start))
            else:
                self.toks.append((m.group("punct"), m.group("punct"), start))
            pos = m.end()
        self.i = 0

    def error(self, msg: str, pos: int | None = None) -> None:
        if pos is None:
            pos = self.toks[self.i][2] if self.i < len(self.toks) else len(self.text)
        raise LayoutError(f"invalid {self.what} {self.text!r}: {msg} at column {pos + 1}")

    def peek(self, kind: str | None = None, value: Any = None) -> bool:
        if self.i >= len(self.toks):
            return False
        k, v, _ = self.toks[self.i]
        return (kind is None or k == kind) and (value is None or v == value)

    def expect(self, kind: str, value: Any = None) -> Any:
        if not self.peek(kind, value):
            if value is not None:
                want = repr(value)
            else:
                want = {"int": "an integer", "name": "a name"}.get(kind, repr(kind))
            got = repr(self.toks[self.i][1]) if self.i < len(self.toks) else "end of text"
            self.error(f"expected {want}, got {got}")
        v = self.toks[self.i][1]
        self.i += 1
        return v

    def accept(self, kind: str, value: Any = None) -> bool:
        if self.peek(kind, value):
            self.i += 1
            return True
        return False

    def at_end(self) -> bool:
        return self.i >= len(self.toks)

    def int_list(self) -> list[int]:
        self.expect("[")
        vals: list[int] = []
        if not self.accept("]"):
            while True:
                vals.append(self.expect("int"))
                if self.accept("]"):
                    break
                self.expect(",")
        return vals

    def int_list_list(self) -> list[list[int]]:
        self.expect("[")
        vals: list[list[int]] = []
        if not self.accept("]"):
            while True:
                vals.append(self.int_list())
                if self.accept("]"):
                    break
                self.expect(",")
        return vals

    def skip_dialect_prefix(self) -> None:
        """Accept an optional ``#layout.`` in front of an attribute."""
        if self.accept("#"):
            self.expect("name", "layout")
            self.expect(".")


def _parse_linear_body(lx: _Lexer) -> LinearLayout:
    bases: dict[str, list[list[int]]] = {}
    out: Any = None
    while True:
        key = lx.expect("name")
        lx.expect("=")
        if key == "shape":
            if out is not None:
                lx.error("output dims given twice")
            out = lx.int_list()
        elif key == "out":
            if out is not None:
                lx.error("output dims given twice")
            out = {}
            lx.expect("[")
            if not lx.accept("]"):
                while True:
                    name = lx.expect("name")
                    lx.expect(":")
                    out[name] = lx.expect("int")
                    if lx.accept("]"):
                        break
                    lx.expect(",")
        else:
            if key in bases:
                lx.error(f"input dim {key!r} given twice")
            bases[key] = lx.int_list_list()
        if not lx.accept(","):
            break
    if out is None:
        lx.error("missing shape=[...] (or out=[...])")
    return LinearLayout(bases, out)


def _parse_linear(lx: _Lexer) -> LinearLayout:
    """``linear<...>`` or a bare body, at the lexer's position."""
    if lx.peek("name", "linear"):
        lx.expect("name")
        lx.expect("<")
        ll = _parse_linear_body(lx)
        lx.expect(">")
        return ll
    return _parse_linear_body(lx)


def parse_linear_layout(text: str) -> LinearLayout:
    """Read the text form of :class:`LinearLayout` (with or without ``linear<...>``).

    Raises :class:`LayoutError` with the column of the problem on bad text.
    """
    lx = _Lexer(text, "linear layout")
    lx.skip_dialect_prefix()
    ll = _parse_linear(lx)
    if not lx.at_end():
        lx.error("unexpected trailing text")
    return ll
