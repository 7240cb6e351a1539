"""How `layout.scan` runs on a distributed layout: which register, lane and warp bits
move along the scanned axis. The lowering (passes/lower_scan.py) and the reference
executor (runtime/reference/compute_impls.py) both follow this plan, so that they
combine in the same order.

A layout can be scanned when the axis position of an element is r + R*(l + L*(w + W*c))
with r, l, w, c made of register, lane, warp and (higher) register bits respectively,
each bit moving along the axis only: the scanned axis is the fastest in the thread,
then in the warp, then across warps, then the pattern repeats in registers (chunks,
as a coalesced 16-byte-per-thread layout repeats along a long row). Register bits that
move along other dimensions, and lane/warp bits that do (or that broadcast), are other
rows scanned independently.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType

from .layout_attrs import to_linear


class ScanPlanError(ValueError):
    pass


@dataclass(frozen=True)
class ScanPlan:
    axis: int
    regs: int
    """R: consecutive axis elements in one thread."""
    lanes: int
    """L: lanes along the axis."""
    warps: int
    """W: warps along the axis."""
    lane_bits: tuple[int, ...]
    """Bit i of a lane id whose basis is R * 2^k along the axis, for k = 0, 1, ..."""
    warp_bits: tuple[int, ...]
    chunks: int = 1
    """C: repeats of the register-lane-warp pattern along the axis (register bits above
    the warp bits): the axis position is r + R*(l + L*(w + W*c))."""

    @property
    def span(self) -> int:
        """R * L * W: the axis elements of one chunk."""
        return self.regs * self.lanes * self.warps


def scan_plan(t: TensorType, axis: int) -> ScanPlan:
    shape = list(t.get_shape())
    ll = to_linear(t.encoding, shape)
    n = shape[axis]
    along: list[tuple[int, str, int]] = []  # (axis step, in dim, bit) of the bases along the axis
    for dim in ("register", "lane", "warp"):
        for i, b in enumerate(ll.get_bases(dim)):
            if b[axis] == 0:
                if dim == "register" and not any(b):
                    raise ScanPlanError("scan of a layout whose registers hold copies of one element")
                continue
            if any(x for d, x in enumerate(b) if d != axis):
                raise ScanPlanError(f"scan along axis {axis}: the {dim} basis {list(b)} moves along "
                                    f"several dimensions; convert_layout first")
            along.append((b[axis], dim, i))
    along.sort()
    if [a for a, _, _ in along] != [1 << k for k in range(len(along))] or (1 << len(along)) != n:
        raise ScanPlanError(f"the layout does not cover the {n} elements of axis {axis} once")
    # the order of the in dims along the axis: register* lane* warp* register*
    dims = [d for _, d, _ in along]
    k = 0
    groups = []
    for want in ("register", "lane", "warp", "register"):
        start = k
        while k < len(dims) and dims[k] == want:
            k += 1
        groups.append([i for _, _, i in along[start:k]])
    if k != len(dims):
        raise ScanPlanError(
            f"scan along axis {axis} needs a layout whose axis position is register, then lane, "
            f"then warp bits, then register bits (repeats), in order (got {' '.join(dims)}); "
            f"convert_layout to one first")
    low, lanes, warps, high = groups
    for dim, bits in (("lane", lanes), ("warp", warps)):
        if bits and bits != list(range(bits[0], bits[0] + len(bits))):
            raise ScanPlanError(f"scan along axis {axis} needs the {dim} bits along it to be "
                                f"consecutive bits of the {dim} id (got bits {bits})")
    return ScanPlan(axis, 1 << len(low), 1 << len(lanes), 1 << len(warps), tuple(lanes),
                    tuple(warps), 1 << len(high))
