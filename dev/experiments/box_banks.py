"""Shared-memory wavefronts of a `box<flat>` / `box<rows>` phase-2 load
(passes/_box_tile.box_launch), a model without a GPU: the box addresses of the active
lanes of one warp `layout.read` of byte `t` of their 16-byte destination chunks, as the
kernel computes them, grouped by 32-bit bank; a load's wavefronts are the most distinct
words one bank serves, counted per 32 active lanes (a warp of fewer active lanes moves
fewer bytes for its wavefronts). `lanes` is the `tile` option `box_lanes` (0: consecutive work
items; N: N lanes on one run's chunks or chunk residues, 32 / N runs a warp).

    python3 dev/experiments/box_banks.py     # the canonical box cases and random flat shapes
"""

from __future__ import annotations

import collections
import random


def wavefronts(addrs: list[int]) -> int:
    words: dict[int, set[int]] = collections.defaultdict(set)
    for a in addrs:
        words[(a // 4) % 32].add(a // 4)
    return max((len(s) for s in words.values()), default=0)


def _items(nq: int, per: int, lanes: int):
    """The (q, j) work items of each warp instruction, as `work_items` deals them."""
    if not lanes:
        total = nq * per
        for w0 in range(0, total, 32):
            yield [(i // per, i % per) for i in range(w0, min(w0 + 32, total))]
        return
    groups, njg = 32 // lanes, -(-per // lanes)
    for g in range(-(-nq // groups) * njg):
        out = []
        for lane in range(32):
            q, j = (g // njg) * groups + lane // lanes, (g % njg) * lanes + lane % lanes
            if q < nq and j < per:
                out.append((q, j))
        yield out


def flat(nw: int = 19, nd: int = 38647519, smem: int = 40960, lanes: int = 0, blocks=range(0, 40, 7)) -> float:
    """Mean wavefronts of a `flat` box's vector loads: W = nw (source stride 1), D = nd
    (source stride nw, destination rows nd apart)."""
    t_rows = (smem - 32) // nw
    cd = (t_rows + 30) // 16
    out = []
    for b in blocks:
        sorig, dorig = b * t_rows * nw, b * t_rows
        for items in _items(nw, cd, lanes):
            per_t = collections.defaultdict(list)
            for q, ci in items:
                ds = dorig + q * nd
                cs = (ds & -16) + 16 * ci
                if cs >= ds and cs + 16 <= ds + t_rows:
                    for t in range(16):
                        per_t[t].append((sorig & 15) + q + nw * (cs - ds + t))
            out += [(wavefronts(a), len(a)) for a in per_t.values()]
    return 32 * sum(w for w, _ in out) / sum(n for _, n in out)


def rows(nw: int = 37, nd: int = 17, dsw: int = 1691 * 17, ssk: int = 217634, smem: int = 40960, lanes: int = 0,
         blocks=range(0, 30, 7)) -> float:
    """Mean wavefronts of a `rows` box's vector loads: W = nw, D = nd, K's source stride
    ssk (the canonical case's: 19 x 346 x 629 elements), destination runs dsw apart."""
    pb = (nw * nd + 30) // 16 * 16
    t_rows = smem // pb
    trips = (t_rows * nd + 30) // 16
    out = []
    for b in blocks:
        sorig, dorig = b * t_rows * ssk, b * t_rows * nd
        for items in _items(nw, nd, lanes):
            for m in range((trips + nd - 1) // nd):
                per_t = collections.defaultdict(list)
                for q, j in items:
                    if m >= (trips + nd - 1 - j) // nd:
                        continue
                    ds = dorig + q * dsw
                    cs = (ds & -16) + 16 * (j + m * nd)
                    if not (cs >= ds and cs + 16 <= ds + t_rows * nd):
                        continue
                    p0 = 16 * j + 16 * nd - (ds & 15)
                    for t in range(16):
                        kk, dd = divmod(p0 + t, nd)
                        slot = kk * pb + ((sorig + kk * ssk) & 15)
                        per_t[t].append(slot + q + nw * dd - 16 * pb + m * 16 * pb)
                out += [(wavefronts(a), len(a)) for a in per_t.values()]
    return 32 * sum(w for w, _ in out) / sum(n for _, n in out)


def main() -> None:
    for lanes in (0, 1, 2, 4, 8, 16):
        print(f"box_lanes={lanes:2d}  flat bool 19x38647519 {flat(lanes=lanes):.2f}  "
              f"rows int8 37x17 {rows(lanes=lanes):.2f}")
    rng = random.Random(1)
    shapes = [(rng.choice([x for x in range(3, 64) if x & (x - 1)]), rng.randrange(10**5, 10**7)) for _ in range(8)]
    for lanes in (0, 4, 8):
        print(f"flat, 8 random shapes, box_lanes={lanes}:",
              " ".join(f"{flat(nw, nd, lanes=lanes, blocks=[3]):.2f}" for nw, nd in shapes))


if __name__ == "__main__":
    main()
