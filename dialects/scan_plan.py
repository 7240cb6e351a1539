"""How `layout.scan` runs on a distributed layout: which register, lane and warp bits
move along the scanned axis. The lowering (passes/lower_scan.py) and the reference
executor (runtime/reference/compute_impls.py) both follow this plan, so that they
combine in the same order.

A layout can be scanned when the axis position of an element is r + R*(l + L*w) with
r, l, w made of register, lane and warp bits respectively, each bit moving along the
axis only (Triton's scan lowering asks the same of its layouts: the scanned axis is
the fastest in the thread, then in the warp, then across warps). Register bits that
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


def scan_plan(t: TensorType, axis: int) -> ScanPlan:
    shape = list(t.get_shape())
    ll = to_linear(t.encoding, shape)
    n = shape[axis]
    expected = 1
    found: dict[str, list[int]] = {"register": [], "lane": [], "warp": []}
    for dim in ("register", "lane", "warp"):
        for i, b in enumerate(ll.get_bases(dim)):
            if b[axis] == 0:
                if dim == "register" and not any(b):
                    raise ScanPlanError("scan of a layout whose registers hold copies of one element")
                continue
            if any(x for d, x in enumerate(b) if d != axis) or b[axis] != expected:
                raise ScanPlanError(
                    f"scan along axis {axis} needs a layout whose axis position is register, then "
                    f"lane, then warp bits in order (the {dim} basis {list(b)} breaks it); "
                    f"convert_layout to one first")
            found[dim].append(i)
            expected *= 2
    if expected != n:
        raise ScanPlanError(f"the layout does not cover the {n} elements of axis {axis}")
    for dim in ("lane", "warp"):
        bits = found[dim]
        if bits and bits != list(range(bits[0], bits[0] + len(bits))):
            raise ScanPlanError(f"scan along axis {axis} needs the {dim} bits along it to be "
                                f"consecutive bits of the {dim} id (got bits {bits})")
    return ScanPlan(axis, 1 << len(found["register"]), 1 << len(found["lane"]),
                    1 << len(found["warp"]), tuple(found["lane"]), tuple(found["warp"]))
