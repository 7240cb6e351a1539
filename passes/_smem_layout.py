"""Shared-memory layouts for layout conversions: bank-conflict counting and the choice of
a padded or swizzled layout on which both the write (source layout) and the read
(destination layout) are conflict-free.

Bank model (NVIDIA, every architecture since Kepler in 4-byte mode): 32 banks of 4
bytes; word w lies in bank w % 32. A warp-wide access of B bytes per lane is served in
phases: one phase for B <= 4, two phases of 16 lanes for B = 8, four phases of 8 lanes
for B = 16. Inside a phase, lanes that touch the same word are served together
(broadcast); lanes that touch different words of one bank are serialised. The *ways* of
a phase is the largest number of distinct words one bank must deliver; an access costs
the sum of its phases' ways in wavefronts. `bank_conflicts` reports ways - 1 of the
worst phase (0: conflict-free).

The addresses are simulated from the linear layouts: every (warp, lane, register) of the
distributed layout gives a coordinate, the shared layout gives its offset. Registers are
grouped into vectors of `vector` consecutive registers; a vector width is legal when
those registers hold consecutive, `vector`-aligned offsets.

Candidates (`candidates`): every order of the dimensions (which one is contiguous),
each with padding of the second dimension's stride by 0, 1, 2, 4, 8 or 16 elements
(`(32,32):(33,1)`), and, unpadded, with a swizzle `Swizzle<B,M,S>` (M: the vector unit,
S >= B, 2^(B+M+S) at most the tile) as in the Linear Layouts paper (arXiv 2505.23819,
section on optimal swizzling). `choose_smem_layout` takes the candidate with, in order:
the fewest conflicts on its worse side, the fewest conflicts in all, the fewest
wavefronts, the fewest access instructions (widest vectors), the smallest buffer, and
the simplest form (unpadded, then padded, then swizzled).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from tilec.dialects import cute
from tilec.dialects.layout_attrs import ComposedLayoutAttr, CuteLayoutAttr, to_linear
from tilec.dialects.linear import LinearLayout
from tilec.dialects.swizzle import ComposedLayout, Swizzle

WARP = 32
BANKS = 32
MAX_VECTOR_BYTES = 16
PADS = (0, 1, 2, 4, 8, 16)


# ---------------------------------------------------------------------------- coordinates


def _as_linear(layout: Any, shape) -> LinearLayout:
    if isinstance(layout, LinearLayout):
        return layout
    if hasattr(layout, "to_linear"):
        return layout.to_linear(list(shape))
    return to_linear(layout, tuple(shape))


def thread_coords(ll: LinearLayout) -> np.ndarray:
    """Coordinates held by each (thread, register): int64 array [threads, regs, rank];
    thread = lane + lanes * warp."""
    bases = ll.bases
    cols = [b for n in ("register", "lane", "warp") for b in bases.get(n, [])]
    total = 1 << len(cols)
    idx = np.arange(total, dtype=np.int64)
    rank = ll.rank
    coords = np.zeros((total, rank), dtype=np.int64)
    for i, b in enumerate(cols):
        bit = (idx >> i) & 1
        coords ^= bit[:, None] * np.asarray(b, dtype=np.int64)[None, :]
    regs = ll.num_registers
    return coords.reshape(total // regs, regs, rank)


# ---------------------------------------------------------------------------- layouts


@dataclass(frozen=True)
class SmemLayout:
    """A candidate shared layout: `order` (minor first), padding of the stride of
    `order[1]`, and an optional swizzle of the (unpadded) offsets."""

    shape: tuple[int, ...]
    order: tuple[int, ...]
    pad: int = 0
    swizzle: Swizzle | None = None

    @property
    def strides(self) -> tuple[int, ...]:
        st = [0] * len(self.shape)
        cur = 1
        for k, d in enumerate(self.order):
            st[d] = cur
            cur = cur * self.shape[d] + (self.pad if k == 0 else 0)
        return tuple(st)

    def cute_layout(self) -> cute.Layout:
        sh, st = self.shape, self.strides
        if len(sh) == 1:
            return cute.Layout((sh[0],), (st[0],))
        return cute.Layout(tuple(sh), tuple(st))

    def attr(self):
        lay = self.cute_layout()
        if self.swizzle is None:
            return CuteLayoutAttr(lay)
        return ComposedLayoutAttr(ComposedLayout(self.swizzle, 0, lay))

    def cosize(self) -> int:
        return int(self.cute_layout().cosize())

    def offsets(self, coords: np.ndarray) -> np.ndarray:
        off = (coords * np.asarray(self.strides, dtype=np.int64)).sum(axis=-1)
        s = self.swizzle
        if s is not None and s.bits:
            off = off ^ ((off & s.yyy_msk) >> s.shift)
        return off

    def complexity(self) -> int:
        return 0 if (self.pad == 0 and self.swizzle is None) else (1 if self.swizzle is None else 2)

    def __str__(self) -> str:
        lay = self.cute_layout()
        return str(lay) if self.swizzle is None else f"{self.swizzle} o 0 o {lay}"


def _offsets_of(smem: Any, coords: np.ndarray) -> np.ndarray:
    if isinstance(smem, SmemLayout):
        return smem.offsets(coords)
    if isinstance(smem, CuteLayoutAttr | ComposedLayoutAttr):
        smem = smem.data
    composed = smem if isinstance(smem, ComposedLayout) else None
    if composed is not None:
        smem = composed.layout
    strides = [int(m.stride) if not isinstance(m.stride, tuple) else None for m in smem.modes()]
    if any(s is None for s in strides):  # nested modes: evaluate element by element
        flat = coords.reshape(-1, coords.shape[-1])
        off = np.array([smem(tuple(int(c) for c in row)) for row in flat], dtype=np.int64)
        off = off.reshape(coords.shape[:-1])
    else:
        off = (coords * np.asarray(strides, dtype=np.int64)).sum(axis=-1)
    if composed is not None and composed.swizzle is not None:
        sw = composed.swizzle
        off = off + composed.offset
        off = off ^ ((off & sw.yyy_msk) >> sw.shift) if sw.shift >= 0 else off ^ ((off & sw.yyy_msk) << -sw.shift)
    return off


# ---------------------------------------------------------------------------- counting


def legal_vector(off: np.ndarray, vector: int) -> bool:
    """Whether each thread's registers, `vector` at a time, hold consecutive aligned offsets."""
    t, r = off.shape
    if vector < 1 or r % vector:
        return False
    g = off.reshape(t, r // vector, vector)
    first = g[:, :, :1]
    return bool(np.all(g == first + np.arange(vector)) and np.all(first % vector == 0))


@dataclass(frozen=True)
class AccessStats:
    ways: int  # worst phase
    wavefronts: int  # per block, summed over warps and accesses
    instructions: int  # warp-wide access instructions per block


def access_stats(off: np.ndarray, elem_bytes: int, vector: int) -> AccessStats:
    """Simulate the warp-wide accesses of `off` ([threads, regs] element offsets)."""
    t, r = off.shape
    nbytes = vector * elem_bytes
    nacc = r // vector
    first = off.reshape(t, nacc, vector)[:, :, 0] * elem_bytes  # byte address per thread, access
    if t % WARP:
        pad = WARP - t % WARP  # a partial warp: idle lanes repeat lane 0 (broadcast)
        first = np.concatenate([first, np.repeat(first[:1], pad, axis=0)])
        t += pad
    nwarps = t // WARP
    words_per_lane = max(1, nbytes // 4)
    lanes_per_phase = WARP * 4 // max(4, nbytes) if nbytes > 4 else WARP
    lanes_per_phase = min(WARP, lanes_per_phase)
    # words[warp, access, lane, k]
    a = first.reshape(nwarps, WARP, nacc).transpose(0, 2, 1)
    words = (a[..., None] // 4) + np.arange(words_per_lane)
    nph = WARP // lanes_per_phase
    words = words.reshape(nwarps * nacc * nph, lanes_per_phase * words_per_lane)
    g = words.shape[0]
    srt = np.sort(words, axis=1)
    uniq = np.ones_like(srt, dtype=bool)
    uniq[:, 1:] = srt[:, 1:] != srt[:, :-1]
    cell = (srt % BANKS) + (np.arange(g, dtype=np.int64) * BANKS)[:, None]  # (group, bank)
    ways = np.bincount(cell[uniq], minlength=g * BANKS).reshape(g, BANKS).max(axis=1)
    return AccessStats(int(ways.max()), int(ways.sum()), nwarps * nacc)


def bank_ways(dist_layout: Any, shape, smem_layout: Any, elem_bytes: int, vector: int = 1) -> int:
    """The worst phase's ways (1 = conflict-free); see `bank_conflicts`."""
    return bank_conflicts(dist_layout, shape, smem_layout, elem_bytes, vector) + 1


def bank_conflicts(dist_layout: Any, shape, smem_layout: Any, elem_bytes: int, vector: int = 1) -> int:
    """Worst bank conflict of the warp-wide accesses that move a tensor of `shape` in
    `dist_layout` (a LinearLayout, a Blocked/Slice layout or a layout attribute) to or from
    shared memory laid out by `smem_layout` (SmemLayout, cute.Layout, ComposedLayout or
    their attributes), `vector` registers per access: ways - 1 (0 = conflict-free).
    Raises ValueError when `vector` is not a legal width for the pair."""
    ll = _as_linear(dist_layout, shape)
    off = _offsets_of(smem_layout, thread_coords(ll))
    if not legal_vector(off, vector):
        raise ValueError(f"vector {vector} is not legal for {ll} in {smem_layout}")
    return access_stats(off, elem_bytes, vector).ways - 1


# ---------------------------------------------------------------------------- choosing


def candidates(shape, elem_bytes: int, pads=PADS, swizzles: bool = True):
    """Candidate shared layouts for a tile of `shape` (see the module docstring)."""
    shape = tuple(shape)
    rank = len(shape)
    orders = list(itertools.permutations(range(rank))) if rank <= 3 else [tuple(reversed(range(rank)))]
    # row-major (last dim contiguous) first
    orders.sort(key=lambda o: o != tuple(reversed(range(rank))))
    numel = 1
    for s in shape:
        numel *= s
    out = []
    for order in orders:
        for p in pads:
            if p and rank < 2:
                continue
            out.append(SmemLayout(shape, order, p))
    if swizzles and rank >= 2:
        logn = numel.bit_length() - 1
        for order in orders:
            for m in range(0, 5):
                for b in range(1, 6):
                    for s in range(b, logn - b - m + 1):
                        if True:
                            out.append(SmemLayout(shape, order, 0, Swizzle(b, m, s)))
    return out


@dataclass(frozen=True)
class SideChoice:
    vector: int
    stats: AccessStats

    @property
    def conflicts(self) -> int:
        return self.stats.ways - 1


@dataclass(frozen=True)
class SmemChoice:
    layout: SmemLayout
    write: SideChoice
    read: SideChoice

    def key(self):
        w, r = self.write, self.read
        return (
            max(w.conflicts, r.conflicts),
            w.conflicts + r.conflicts,
            w.stats.wavefronts + r.stats.wavefronts,
            w.stats.instructions + r.stats.instructions,
            self.layout.cosize(),
            self.layout.complexity(),
        )


def best_side(off: np.ndarray, elem_bytes: int) -> SideChoice:
    """The vector width (widest among the cheapest) for one side of the round trip."""
    best = None
    v = 1
    while v * elem_bytes <= MAX_VECTOR_BYTES and legal_vector(off, v):
        st = access_stats(off, elem_bytes, v)
        k = (st.ways - 1, st.wavefronts, st.instructions)
        if best is None or k <= best[0]:
            best = (k, SideChoice(v, st))
        v *= 2
    assert best is not None
    return best[1]


def evaluate(src, dst, shape, elem_bytes: int, smem: SmemLayout) -> SmemChoice:
    """One candidate, by simulating every address (the reference `choose_smem_layout`
    agrees with; see `_LinearSide` for the fast path)."""
    src_c = thread_coords(_as_linear(src, shape))
    dst_c = thread_coords(_as_linear(dst, shape))
    return SmemChoice(
        smem,
        best_side(smem.offsets(src_c), elem_bytes),
        best_side(smem.offsets(dst_c), elem_bytes),
    )


# ---------------------------------------------------------------------------- fast path
#
# For a tile whose sizes are powers of two and an unpadded candidate (swizzled or not),
# the offset of an element is a linear map over GF(2) of the (register, lane, warp) bits:
# the coordinates are XORs of the layout's bases, a compact power-of-two layout puts
# each dimension's bits in its own bit field of the offset, and a swizzle XORs bits into
# bits. Then every phase of every access of every warp touches a translate (XOR by a
# constant) of one set of words, the span W of the words of the phase's lane bits (and of
# the words inside one lane's vector). A bank holds the words of W with equal low 5 bits,
# so each bank serves 2^(rank W - rank(W mod 32)) words: that is the ways of every phase,
# and the wavefronts are the ways times the number of phases. A vector of 2^a registers
# is legal when register bit i has offset 2^i (i < a) and every other bit's offset is a
# multiple of 2^a. This gives exactly what `access_stats` and `legal_vector` compute
# address by address (tests/unit/test_lower_convert_layout.py checks it), in a few
# operations on small ints instead of arrays of every address.


def _gf2_rank(vectors) -> int:
    pivots: dict[int, int] = {}
    for v in vectors:
        while v:
            h = v.bit_length()
            p = pivots.get(h)
            if p is None:
                pivots[h] = v
                break
            v ^= p
    return len(pivots)


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


class _Side:
    """One side of the round trip (the source or the destination layout): its bases as
    coordinates, and the address-by-address coordinates for the slow path."""

    def __init__(self, ll: LinearLayout):
        bases = ll.bases
        self.regs = [tuple(b) for b in bases.get("register", [])]
        self.threads = [tuple(b) for n in ("lane", "warp") for b in bases.get(n, [])]
        self.ll = ll
        self._coords: np.ndarray | None = None

    @property
    def coords(self) -> np.ndarray:
        if self._coords is None:
            self._coords = thread_coords(self.ll)
        return self._coords

    def linear_ok(self) -> bool:
        """Whether the fast path applies to this side (whole warps)."""
        return len(self.threads) >= 5


def _linear_offsets(smem: SmemLayout, bases, strides) -> list[int]:
    out = []
    sw = smem.swizzle
    for b in bases:
        off = 0
        for c, st in zip(b, strides):
            off += c * st
        if sw is not None and sw.bits:
            off ^= (off & sw.yyy_msk) >> sw.shift
        out.append(off)
    return out


def _linear_best_side(reg_off: list[int], thr_off: list[int], elem_bytes: int) -> SideChoice:
    """`best_side` for a linear offset map given by the offsets of the register and
    thread bits (at least 5 thread bits: whole warps)."""
    nr, nt = len(reg_off), len(thr_off)
    eshift = elem_bytes.bit_length() - 1
    nwarps = 1 << (nt - 5)
    best = None
    a = 0
    while (1 << a) * elem_bytes <= MAX_VECTOR_BYTES and a <= nr:
        v = 1 << a
        # legal: register bit i at offset 2^i (i < a), all other bits aligned to v
        if a and reg_off[a - 1] != v >> 1:
            break
        if any(o & (v - 1) for o in reg_off[a:]) or any(o & (v - 1) for o in thr_off):
            break
        nbytes = v * elem_bytes
        wpl = max(1, nbytes // 4)
        lpp = WARP if nbytes <= 4 else min(WARP, WARP * 4 // nbytes)
        nph = WARP // lpp
        span = [((o << eshift) >> 2) for o in thr_off[: lpp.bit_length() - 1]]
        span += [1 << j for j in range(wpl.bit_length() - 1)]
        ways = 1 << (_gf2_rank(span) - _gf2_rank([w % BANKS for w in span]))
        nacc = 1 << (nr - a)
        st = AccessStats(ways, ways * nwarps * nacc * nph, nwarps * nacc)
        k = (ways - 1, st.wavefronts, st.instructions)
        if best is None or k <= best[0]:
            best = (k, SideChoice(v, st))
        a += 1
    assert best is not None
    return best[1]


def _side_choice(side: _Side, smem: SmemLayout, elem_bytes: int, linear: bool) -> SideChoice:
    if linear and side.linear_ok():
        st = smem.strides
        return _linear_best_side(
            _linear_offsets(smem, side.regs, st), _linear_offsets(smem, side.threads, st), elem_bytes
        )
    return best_side(smem.offsets(side.coords), elem_bytes)


def _is_linear(smem: SmemLayout) -> bool:
    sw = smem.swizzle
    return (
        smem.pad == 0
        and all(_is_pow2(n) for n in smem.shape)
        and (sw is None or sw.shift >= 0)
    )


def choose_smem_layout(src, dst, shape, elem_bytes: int, cands=None) -> SmemChoice:
    """The best shared layout for converting `shape` from `src` to `dst` (module doc):
    the first candidate, in `candidates` order, with the least `SmemChoice.key`."""
    shape = tuple(shape)
    return _choose(
        _as_linear(src, shape), _as_linear(dst, shape), shape, elem_bytes,
        tuple(cands) if cands is not None else None,
    )


def clear_caches() -> None:
    """Forget memoized choices (for timing the search itself)."""
    _choose.cache_clear()


@functools.lru_cache(maxsize=256)
def _choose(src: LinearLayout, dst: LinearLayout, shape, elem_bytes: int, cands) -> SmemChoice:
    ws, rs = _Side(src), _Side(dst)
    best: SmemChoice | None = None
    best_key = None
    for smem in cands if cands is not None else candidates(shape, elem_bytes):
        lin = _is_linear(smem)
        ch = SmemChoice(smem, _side_choice(ws, smem, elem_bytes, lin), _side_choice(rs, smem, elem_bytes, lin))
        k = ch.key()
        if best is None or k < best_key:
            best, best_key = ch, k
    assert best is not None
    return best
