"""Distributed tensors in registers, shared by the op families of `lower-to-gpu`: the
linear layout of a tensor type, each register's coordinate, the thread's part of the
coordinates (a GF(2)-linear function of the thread id), which thread stores a
broadcast element, register permutations, and reads in groups of registers.

Pure functions of the layouts, or of the context (`LoweringContext`: its builder and
thread id) where they emit index arithmetic."""


from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation

from tilec.dialects.errors import LayoutError
from tilec.dialects.layout_attrs import to_linear

from .._gpu_builder import IndexValue
from .base import _fail
from .context import LoweringContext


def linear(t: TensorType, op: Operation):
    """The linear layout of the distributed tensor type `t` (a located error if it has
    none)."""
    try:
        return to_linear(t.encoding, list(t.get_shape()))
    except LayoutError as e:
        raise _fail(op, f"cannot make a linear layout of {t}: {e}") from None


def thread_coords(ctx: LoweringContext, ll, op) -> list[IndexValue]:
    """Per tensor dim, the thread's part of the coordinate (lane and warp bits)."""
    lanes, warps = ll.get_bases("lane"), ll.get_bases("warp")
    if warps and len(lanes) != 5:
        raise _fail(op, "distributed layouts must have 32 lanes per warp")
    if ll.get_bases("block"):
        raise _fail(op, "distributed layouts over several blocks are not supported")
    bits = [(i, bs) for i, bs in enumerate(lanes)] + [(5 + i, bs) for i, bs in enumerate(warps)]
    return [tid_linear(ctx, [(i, bs[d]) for i, bs in bits if bs[d]]) for d in range(ll.rank)]


def tid_linear(ctx: LoweringContext, pieces: list[tuple[int, int]]) -> IndexValue:
    """XOR, over the pairs (i, v) of `pieces` whose thread-id bit i is set, of v: the
    value of a linear (GF(2)) function of the thread id. Runs of consecutive tid bits
    that land on consecutive bits become one shift-and-mask."""
    b = ctx.b
    pieces = [(i, v) for i, v in pieces if v]
    single = sorted((i, v.bit_length() - 1) for i, v in pieces if v & (v - 1) == 0)
    multi = [(i, v) for i, v in pieces if v & (v - 1)]
    acc: IndexValue = 0
    used = 0
    disjoint = True
    # merge runs of consecutive tid bits onto consecutive coordinate bits
    k = 0
    while k < len(single):
        i0, c0 = single[k]
        n = 1
        while k + n < len(single) and single[k + n] == (i0 + n, c0 + n):
            n += 1
        piece = b.shl_(b.and_(b.shr_(ctx.tid, i0), (1 << n) - 1), c0)
        m = ((1 << n) - 1) << c0
        if used & m:
            disjoint = False
        used |= m
        acc = b.or_(acc, piece) if disjoint else b.xor_(acc, piece)
        k += n
    for i, v in multi:
        bit = b.and_(b.shr_(ctx.tid, i), 1)
        acc = b.xor_(acc, b.mul_(bit, v))
    return acc


def thread_mask(ll) -> list[int]:
    """Per tensor dim, the coordinate bits the lane and warp bases may set."""
    m = [0] * ll.rank
    for bs in (*ll.get_bases("lane"), *ll.get_bases("warp")):
        for d, x in enumerate(bs):
            m[d] |= x
    return m  # XORs of the bases only set bits that some basis sets


def reg_coords(ll) -> list[tuple[int, ...]]:
    """The coordinate of each register (lane 0 of warp 0)."""
    return [ll.apply(register=r) for r in range(ll.num_registers)]


def registers_by_coordinate(ll) -> dict[tuple[int, ...], list[int]]:
    """Lane 0 of warp 0: each coordinate -> the registers that hold it, in register
    order (several where the layout broadcasts over registers)."""
    out: dict[tuple[int, ...], list[int]] = {}
    for r, c in enumerate(reg_coords(ll)):
        out.setdefault(c, []).append(r)
    return out


def store_owner(ctx: LoweringContext, ll) -> IndexValue:
    """Whether this thread stores the elements a layout broadcasts over lanes or
    warps: only the owner whose redundant thread-id bits are 0 does."""
    redundant = 0
    for i, bs in enumerate(ll.get_bases("lane")):
        if not any(bs):
            redundant |= 1 << i
    for i, bs in enumerate(ll.get_bases("warp")):
        if not any(bs):
            redundant |= 1 << (5 + i)
    return True if not redundant else ctx.b.eq0(ctx.b.and_(ctx.tid, redundant))


def is_permutation(src, dst) -> bool:
    """Whether dst's registers are src's registers renamed, the same in every thread
    (equal lane and warp bases; what `permute` lowers)."""
    return all(src.get_bases(n) == dst.get_bases(n) for n in ("lane", "warp"))


def permute(xs: list, src, dst, op, project=None) -> list:
    """dst register r <- the src register holding the same element (all threads)."""
    def proj(c):
        return tuple(project(c)) if project else tuple(c)

    for n in ("lane", "warp"):
        sb, db = src.get_bases(n), dst.get_bases(n)
        if len(sb) != len(db) or any(proj(x) != tuple(y) for x, y in zip(db, sb)) and not all(
            proj(x) == tuple(y) for x, y in zip(db, sb)):
            pass
        for x, y in zip(db, sb):
            if proj(x) != tuple(y):
                raise _fail(op, "the conversion moves data between threads: not a register permutation")
    where = {}
    for k in range(src.num_registers):
        where.setdefault(tuple(src.apply(register=k)), k)
    out = []
    for k in range(dst.num_registers):
        c = proj(dst.apply(register=k))
        if c not in where:
            raise _fail(op, "the conversion is not a register permutation")
        out.append(xs[where[c]])
    return out


def read_in_groups(regs: list, vec: int, read: Callable[[list[int]], list]) -> list:
    """The values of the registers whose coordinates are `regs`, read `vec` registers at
    a time by `read(group)` (register indices -> their values). A group whose
    registers all repeat coordinates read before (a broadcast layout holds one element
    in several registers) reuses those values instead of reading again."""
    out: list = [None] * len(regs)
    first: dict = {}
    for g in range(0, len(regs), vec):
        group = list(range(g, g + vec))
        if all(regs[r] in first for r in group):
            for r in group:
                out[r] = out[first[regs[r]]]
            continue
        for r, x in zip(group, read(group)):
            out[r] = x
            first.setdefault(regs[r], r)
    return out
