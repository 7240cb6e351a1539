"""CuTe swizzle functors and swizzled (composed) layouts, in pure Python.

``Swizzle(B, M, S)`` is CuTe's ``Swizzle<B,M,S>``: it XORs the ``B`` bits that
start at bit ``M + max(0,S)`` (the *yyy* mask) into the ``B`` bits that start
at bit ``M - min(0,S)`` (the *zzz* mask)::

    apply(x) = x ^ shiftr(x & yyy_msk, S)      shiftr(v, S) = v >> S  (S >= 0)
                                                             v << -S (S < 0)

With ``|S| >= B`` the two masks are disjoint, so a swizzle is an involution
(``apply(apply(x)) == x``) and a bijection on every aligned block of
``2**(B+M+|S|)`` offsets.  ``Swizzle<3,4,3>`` is the usual bank-conflict-free
permutation of 128-byte rows of 16-byte vectors.

``ComposedLayout(swizzle, offset, layout)`` is the function
``c -> swizzle(offset + layout(c))`` (CuTe's ``ComposedLayout<Swizzle, Offset,
Layout>``); its domain, shape and rank are the layout's, its ``cosize`` is the
layout's (CuTe; the swizzle is assumed to permute within that range).

Text forms: ``Swizzle<3,4,3>`` (CuTe's ``Sw<3,4,3>`` is read too) and
``Swizzle<3,4,3> o 0 o (8,8):(8,1)``.  Nothing here imports xDSL.
"""

from __future__ import annotations

import re

from .cute import (
    DYN,
    Layout,
    _crd2idx,
    _has_wild,
    _parse_layout_prefix,
    _Parser,
    slice_,
)
from .errors import LayoutError

__all__ = ["Swizzle", "ComposedLayout", "parse_swizzle", "parse_composed_layout"]


class Swizzle:
    """CuTe ``Swizzle<bits, base, shift>``; immutable and hashable.

    Requires ``bits >= 0``, ``base >= 0`` and ``|shift| >= bits`` (CuTe's own
    static assertion), which makes the yyy and zzz masks disjoint.
    """

    __slots__ = ("bits", "base", "shift", "yyy_msk", "zzz_msk")

    def __init__(self, bits: int, base: int, shift: int):
        for name, v in (("bits", bits), ("base", base), ("shift", shift)):
            if type(v) is not int:
                raise LayoutError(f"Swizzle: {name} must be an int, got {v!r}")
        if bits < 0 or base < 0:
            raise LayoutError(f"Swizzle<{bits},{base},{shift}>: bits and base must be >= 0")
        if abs(shift) < bits:
            raise LayoutError(
                f"Swizzle<{bits},{base},{shift}>: |shift| must be >= bits (masks would overlap)")
        msk = (1 << bits) - 1
        set_ = object.__setattr__
        set_(self, "bits", bits)
        set_(self, "base", base)
        set_(self, "shift", shift)
        set_(self, "yyy_msk", msk << (base + max(0, shift)))
        set_(self, "zzz_msk", msk << (base - min(0, shift)))

    def __setattr__(self, name, value):
        raise AttributeError("Swizzle is immutable")

    def __reduce__(self):
        return (Swizzle, (self.bits, self.base, self.shift))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Swizzle):
            return NotImplemented
        return (self.bits, self.base, self.shift) == (other.bits, other.base, other.shift)

    def __hash__(self) -> int:
        return hash(("Swizzle", self.bits, self.base, self.shift))

    def __str__(self) -> str:
        return f"Swizzle<{self.bits},{self.base},{self.shift}>"

    def __repr__(self) -> str:
        return f"Swizzle({self.bits}, {self.base}, {self.shift})"

    def __call__(self, x: int) -> int:
        return self.apply(x)

    def apply(self, x: int) -> int:
        """``x ^ shiftr(x & yyy_msk, shift)``; ``?`` stays ``?``."""
        if x is DYN:
            return DYN
        v = x & self.yyy_msk
        return x ^ (v >> self.shift if self.shift >= 0 else v << -self.shift)

    def size(self) -> int:
        """``2**(bits+base+|shift|)``: the aligned block on which it is a bijection."""
        return 1 << (self.bits + self.base + abs(self.shift))

    def is_identity(self) -> bool:
        """True for ``Swizzle<0,M,S>`` (no bit is moved)."""
        return self.bits == 0


_SWIZZLE_RE = re.compile(r"\s*(?:Swizzle|Sw)\s*<\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*(-?\d+)\s*>\s*")


def parse_swizzle(text: str) -> Swizzle:
    """Read ``Swizzle<B,M,S>`` (or CuTe's ``Sw<B,M,S>``)."""
    m = _SWIZZLE_RE.fullmatch(text)
    if not m:
        raise LayoutError(f"parse_swizzle({text!r}): expected Swizzle<B,M,S>")
    return Swizzle(int(m.group(1)), int(m.group(2)), int(m.group(3)))


class ComposedLayout:
    """``c -> swizzle(offset + layout(c))``; immutable and hashable.

    Behaves like its layout for the domain: ``size``, ``rank``, ``depth``,
    ``shape``, mode selection ``L[i]`` (the swizzle and offset are kept) and
    slicing (the slice offset moves inside the swizzle, as in CuTe, so the
    result is ``(ComposedLayout, 0)``).
    """

    __slots__ = ("swizzle", "offset", "layout")

    def __init__(self, swizzle: Swizzle, offset: int, layout: Layout):
        if not isinstance(swizzle, Swizzle):
            raise LayoutError(f"ComposedLayout: expected a Swizzle, got {swizzle!r}")
        if not isinstance(layout, Layout):
            raise LayoutError(f"ComposedLayout: expected a Layout, got {layout!r}")
        if not (type(offset) is int or offset is DYN):
            raise LayoutError(f"ComposedLayout: offset must be an int or ?, got {offset!r}")
        object.__setattr__(self, "swizzle", swizzle)
        object.__setattr__(self, "offset", offset)
        object.__setattr__(self, "layout", layout)

    def __setattr__(self, name, value):
        raise AttributeError("ComposedLayout is immutable")

    def __reduce__(self):
        return (ComposedLayout, (self.swizzle, self.offset, self.layout))

    def __eq__(self, other) -> bool:
        if not isinstance(other, ComposedLayout):
            return NotImplemented
        return (self.swizzle, self.offset, self.layout) == (other.swizzle, other.offset, other.layout)

    def __hash__(self) -> int:
        return hash((self.swizzle, self.offset, self.layout))

    def __str__(self) -> str:
        return f"{self.swizzle} o {self.offset} o {self.layout}"

    def __repr__(self) -> str:
        return f"ComposedLayout({self.swizzle!r}, {self.offset!r}, {self.layout!r})"

    # -- domain ------------------------------------------------------------

    @property
    def shape(self):
        return self.layout.shape

    def size(self):
        return self.layout.size()

    def cosize(self):
        """The layout's cosize (CuTe ``cosize(ComposedLayout)``)."""
        return self.layout.cosize()

    def rank(self) -> int:
        return self.layout.rank()

    def depth(self) -> int:
        return self.layout.depth()

    def __len__(self) -> int:
        return self.layout.rank()

    def is_static(self) -> bool:
        return self.offset is not DYN and self.layout.is_static()

    def __getitem__(self, i) -> "ComposedLayout":
        return ComposedLayout(self.swizzle, self.offset, self.layout[i])

    def modes(self) -> list:
        return [ComposedLayout(self.swizzle, self.offset, m) for m in self.layout.modes()]

    # -- evaluation --------------------------------------------------------

    def __call__(self, *args):
        c = args[0] if len(args) == 1 else args
        if _has_wild(c):
            return self.slice(c)
        inner = self.layout(c)
        if inner is DYN or self.offset is DYN:
            return DYN
        return self.swizzle.apply(self.offset + inner)

    def slice(self, coord) -> "ComposedLayout":
        """The sub-layout selected by ``_``; its offset is folded in before the swizzle."""
        return self.slice_and_offset(coord)[0]

    def slice_and_offset(self, coord):
        """``(ComposedLayout, 0)``: the coordinate's offset is added inside the swizzle."""
        off = _crd2idx(coord, self.layout.shape, self.layout.stride)
        new_off = DYN if (off is DYN or self.offset is DYN) else self.offset + off
        return ComposedLayout(self.swizzle, new_off, slice_(self.layout, coord)), 0

    def offsets(self):
        """Every value, in index order (materialises; small layouts)."""
        for v in self.layout.offsets():
            yield self.swizzle.apply(self.offset + v)


def parse_composed_layout(text: str) -> ComposedLayout:
    """Read ``Swizzle<B,M,S> o OFFSET o SHAPE:STRIDE``."""
    parts = text.split(" o ") if " o " in text else None
    if not parts or len(parts) != 3:
        raise LayoutError(
            f"parse_composed_layout({text!r}): expected 'Swizzle<B,M,S> o offset o shape:stride'")
    sw = parse_swizzle(parts[0])
    p = _Parser(parts[1], "parse_composed_layout offset")
    off = p.int_tuple()
    p.end()
    if type(off) is tuple:
        raise LayoutError(f"parse_composed_layout({text!r}): the offset must be an integer or ?")
    p = _Parser(parts[2], "parse_composed_layout")
    layout = _parse_layout_prefix(p)
    p.end()
    return ComposedLayout(sw, off, layout)
