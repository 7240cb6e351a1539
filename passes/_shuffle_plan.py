"""The plan of a warp-shuffle layout conversion, without emitting anything: which lane and
register each round reads, and how many `shfl.sync`s, selects and compares a thread
executes. `lower-convert-layout` costs a conversion with it (`shuffle=auto`);
`lower-to-gpu`'s `shuffle_convert` emits it (tests/unit/test_lower_convert_layout.py
checks that the counts here equal what it emits).

The conversion map (for destination register r of the thread (lane l, warp w), the
source (register, lane) of the same warp that holds its element) is linear:

    src_reg  = cr(r) ^ kr(l, w)        src_lane = cl(r) ^ kl(l, w)

- *paired*: when lane offsets f(l) (registers) and z(l) (broadcast source lanes) make
  l -> kl(l) ^ cl(f(l)) ^ z(l) a bijection of the lanes, round k serves every reader
  its register k ^ f(l) from a distinct lane: one shuffle per destination register (none
  for a round where every lane reads itself), the sender picking the register it sends
  with len(span(g)) - 1 selects and the reader putting round k in register k ^ f(l)
  with len(span(f)) - 1 selects.
- *per reader*: otherwise, for each destination register, one shuffle per value of the
  reader-dependent register part kr (distinct (register, lane) pairs shuffled once) and
  len(span(kr)) - 1 selects.

Compares: a select's condition `key == s` is computed once per key and value s (the
builder memoizes it), so a key with a span of n values costs n - 1 compares per thread
(sender and reader keys with the same pieces share theirs).
"""

from __future__ import annotations

from dataclasses import dataclass

from tilec.dialects.errors import LayoutError
from tilec.dialects.linear import LinearLayout

LANES = 32
LANE_BITS = 5


class ShufflePlanError(ValueError):
    """The conversion cannot be lowered with warp shuffles (say why)."""


@dataclass(frozen=True)
class Round:
    """One destination register's step. paired: the sender sends its register
    `register` ^ g(thread) to lane lane_part(reader) ^ `lane`; `shuffle` False when every
    lane reads its own register (no shfl). per reader: reader register r reads register
    `register` ^ k of lane lane_part ^ `lane`, k = kr(reader)."""

    register: int
    lane: int
    shuffle: bool = True


@dataclass(frozen=True)
class ShufflePlan:
    """What `lower-to-gpu`'s `shuffle_convert` emits for one conversion.

    `lane_pieces`: (thread-id bit, value) pairs whose XOR is the reader's lane-dependent
    part of the source lane. paired: `sender_key` pieces give g (the sender's register
    offset), `sender_span` its values; `reader_offsets` f(l) per lane bit, `reader_span`
    its values. per reader: `sender_key` holds kr's pieces (the reader's register
    offset: the reader selects), `sender_span` its values, `reader_span` is [0]."""

    paired: bool
    lane_pieces: tuple[tuple[int, int], ...]
    sender_key: tuple[tuple[int, int], ...]
    sender_span: tuple[int, ...]
    reader_offsets: tuple[int, ...]
    reader_span: tuple[int, ...]
    rounds: tuple[Round, ...]
    shuffles: int  # cuda.shfl_idx ops (one per 32-bit-or-narrower register moved)
    sender_selects: int
    reader_selects: int
    compares: int

    @property
    def selects(self) -> int:
        return self.sender_selects + self.reader_selects


def span_of(images) -> list[int]:
    """Every XOR of a subset of `images`, 0 first, in the order `shuffle_convert` uses."""
    sp = [0]
    for g in images:
        if g and g not in sp:
            sp += [x ^ g for x in sp]
    return sp


def apply_bits(images, x: int) -> int:
    """The GF(2)-linear map with images[i] the image of bit i, at x."""
    acc = 0
    for i, v in enumerate(images):
        if x >> i & 1:
            acc ^= v
    return acc


def _independent(cols: list[int]) -> bool:
    return LinearLayout({"x": [(c,) for c in cols]}, [LANES]).is_injective()


def lane_offsets(kl: list[int], cl_r: list[int], free: list[int]) -> list[tuple[int, int]] | None:
    """Per reader lane bit i a register offset f[i] and a lane offset z[i] in the span of
    `free` (source lane bits whose basis is zero) such that l -> kl(l) ^ cl_r(f(l)) ^ z(l)
    is invertible; offsets 0 preferred, each bit taking the first offsets that keep the
    lane images independent. None when this greedy search finds none."""
    zs = [0]
    for w in free:
        zs += [z ^ w for z in zs]
    cols: list[int] = []
    out = []
    for v in kl:
        for x in range(1 << len(cl_r)):
            c = v
            for j, w in enumerate(cl_r):
                if x >> j & 1:
                    c ^= w
            z = next((z for z in zs if _independent(cols + [c ^ z])), None)
            if z is not None:
                cols.append(c ^ z)
                out.append((x, z))
                break
        else:
            return None
    return out


def _xor(u, v):
    return tuple(p ^ q for p, q in zip(u, v))


def plan_shuffles(src: LinearLayout, dst: LinearLayout) -> ShufflePlan:
    """The shuffle plan converting a value from `src` to `dst` (linear layouts of one
    shape, 32 lanes per warp, no block bases, every element a warp needs held in that
    warp); raises `ShufflePlanError` otherwise."""
    if len(src.get_bases("lane")) != LANE_BITS or len(dst.get_bases("lane")) != LANE_BITS:
        raise ShufflePlanError("warp shuffles need 32 lanes per warp")
    if src.get_bases("block") or dst.get_bases("block"):
        raise ShufflePlanError("distributed layouts over several blocks are not supported")
    target = LinearLayout({
        "register": dst.get_bases("register"), "lane": dst.get_bases("lane"),
        "warp": [_xor(x, y) for x, y in zip(dst.get_bases("warp"), src.get_bases("warp"))],
    }, list(dst.out_shape))
    within = LinearLayout({"register": src.get_bases("register"), "lane": src.get_bases("lane")},
                          list(src.out_shape))
    try:
        cmap = target.invert_and_compose(within)
    except LayoutError:
        raise ShufflePlanError("the conversion moves data between warps: not a warp shuffle") from None

    def where(**inp) -> tuple[int, int]:
        out = dict(zip(cmap.out_dims, cmap.apply(**inp)))
        return out.get("register", 0), out.get("lane", 0)

    tid_bits = [(i, where(lane=1 << i)) for i in range(LANE_BITS)]
    tid_bits += [(LANE_BITS + j, where(warp=1 << j)) for j in range(len(dst.get_bases("warp")))]
    kl = [(i, c[1]) for i, c in tid_bits]
    kr = [(i, c[0]) for i, c in tid_bits]
    n_dst_reg = len(dst.get_bases("register"))
    cl_r = [where(register=1 << j)[1] for j in range(n_dst_reg)]
    cr_r = [where(register=1 << j)[0] for j in range(n_dst_reg)]
    free = [1 << i for i, bs in enumerate(src.get_bases("lane")) if not any(bs)]
    offsets = lane_offsets([v for i, v in kl if i < LANE_BITS], cl_r, free)
    nregs = dst.num_registers
    if offsets is not None:
        f_l = [x for x, _ in offsets]
        m = [v ^ apply_bits(cl_r, x) ^ z for (i, v), (x, z) in zip(kl[:LANE_BITS], offsets)]
        inv = LinearLayout({"lane": [(v,) for v in m]}, [LANES]).invert()

        def reader_of(p: int) -> int:
            return inv.apply(dim0=p)[0]

        nr = [v ^ apply_bits(cr_r, f) for (i, v), f in zip(kr[:LANE_BITS], f_l)]
        g = [(i, apply_bits(nr, reader_of(1 << i))) for i in range(LANE_BITS)]
        g += [(i, apply_bits(nr, reader_of(lv)) ^ rv) for (i, lv), (_, rv) in zip(kl[LANE_BITS:], kr[LANE_BITS:])]
        span = span_of([v for _, v in g])
        lane_pieces = [(i, v) for (i, _), v in zip(kl[:LANE_BITS], m)] + kl[LANE_BITS:]
        identity = all(v == 1 << i for i, v in enumerate(m)) and not any(v for _, v in kl[LANE_BITS:])
        rounds = []
        for k in range(nregs):
            cl = apply_bits(cl_r, k)
            c = apply_bits(cr_r, k) ^ apply_bits(nr, reader_of(cl))
            rounds.append(Round(c, cl, not (identity and cl == 0)))
        fspan = span_of(f_l)
        gkey = [(i, v) for i, v in g if v]
        fkey = [(i, f) for i, f in enumerate(f_l) if f]
        if gkey == fkey:  # one key: the builder shares its compares
            compares = len(set(span[1:]) | set(fspan[1:]))
        else:
            compares = (len(span) - 1) + (len(fspan) - 1)
        return ShufflePlan(
            paired=True,
            lane_pieces=tuple(lane_pieces),
            sender_key=tuple(g),
            sender_span=tuple(span),
            reader_offsets=tuple(f_l),
            reader_span=tuple(fspan),
            rounds=tuple(rounds),
            shuffles=sum(r.shuffle for r in rounds),
            sender_selects=nregs * (len(span) - 1),
            reader_selects=nregs * (len(fspan) - 1),
            compares=compares,
        )
    span = span_of([v for _, v in kr])
    rounds = []
    pairs = set()
    for r in range(nregs):
        cr, cl = where(register=r)
        rounds.append(Round(cr, cl))
        pairs.update((cr ^ s, cl) for s in span)
    return ShufflePlan(
        paired=False,
        lane_pieces=tuple(kl),
        sender_key=tuple(kr),
        sender_span=tuple(span),
        reader_offsets=(),
        reader_span=(0,),
        rounds=tuple(rounds),
        shuffles=len(pairs),
        sender_selects=0,
        reader_selects=nregs * (len(span) - 1),
        compares=len(span) - 1,
    )
