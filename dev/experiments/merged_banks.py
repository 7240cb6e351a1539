"""Shared-memory wavefronts of phase 2 of a merged `box<tiles>` (passes/_box_tile.tiles_launch's
`merge`), a model without a GPU in the manner of dev/experiments/tiles_banks.py: per warp
`layout.read`, the 32 lanes' addresses (the run tables' entries each chunk lane reads, and
the bytes `atab[r] + q` of the chunks' runs), grouped by 32-bit bank; the wavefronts are
the most distinct words one bank serves. 1-byte elements, 512 threads, 8 lanes along a row,
the box's default runs (W whole, 192 bytes) and a tile in the middle of `D'`.

    python3 dev/experiments/merged_banks.py     # 36 and 00: tables, bytes, all loads

`slot32`: the runs at their source residues mod 32 (`box_slot32=1`); `turn`: with it, chunk
lanes `ci0` start their rows `turn floor(ci0 / 4)` later mod the rows a trip (`box_slot32=2`,
`tiles_slot32_turn`). The totals (`--totals`): wavefronts summed over the block's loads.
`banks`: the tables padded (`tiles_merged_table_at`); `S`: a warp's rows S apart
(`tiles_merged_row_step`).
"""

from __future__ import annotations

import math


def _wavefronts(addrs) -> int:
    banks: dict = {}
    for a in addrs:
        if a is not None:
            banks.setdefault((a // 4) % 32, set()).add(a // 4)
    return max((len(s) for s in banks.values()), default=0)


def model(ns, ss, ds, ge=16, S=1, per=8, banks=False, threads=512, tile=3, slot32=False, turn=0, totals=False):
    """(table, byte, all) mean wavefronts a load of one block's phase 2 (module doc); `ns`,
    `ss`, `ds` the modes (W first, then the merged ones), in elements; with `totals` (table
    wavefronts, table loads, byte wavefronts, byte loads)."""
    from tilec.passes._box_tile import box_smem_of, tiles_merged_table_at
    from tilec.passes._copy_cost import tiles_shape

    vd = v = sv = 16
    group = list(range(1, len(ns)))
    nd = math.prod(ns[1:])
    wt, dt, pb = tiles_shape(1, box_smem_of("tiles", 1, None), 192, ge, 1, None)
    od = tile * dt
    m, mv = (32, 32) if slot32 else (v, sv)  # `slot32`: residues mod 32, slots of 32 bytes
    if slot32:
        from tilec.passes._box_tile import tiles_slot32_pitch
        pb = tiles_slot32_pitch(wt)

    def slot_base(r):
        return r * pb + ((r + vd) // vd) * mv

    def start(p):
        p, st = min(max(p, 0), nd - 1), 0
        for m in reversed(group):
            st += (p % ns[m]) * ss[m]
            p //= ns[m]
        return st

    def tab(r):
        return slot_base(r) + start(od + r) % m

    dsw, tw, td = ds[0], min(wt, ns[0]), min(dt, nd - od)
    rows, warps, cpd = 32 // per, threads // 32, dt // vd + ge // vd
    sums = [0, 0, 0, 0]

    def row(q):
        d0 = od + q * dsw
        end = d0 + td
        return d0, (d0 + ge - 1) // ge * ge, (end + ge - 1) // ge * ge if ge > vd else end

    for wid in range(warps):
        lanes = []
        for ln in range(32):
            tid = wid * 32 + ln
            q0 = tid // per if S == 1 else (wid // S) * (rows * S) + wid % S + ((tid % 32) // per) * S
            q0 = (q0 + ((tid % per) // 4) * turn) % (threads // per)
            lanes.append((q0, tid % per))
        for j in range(cpd // per + 1):
            bases = []
            for q0, ci0 in lanes:
                ci = ci0 + j * per
                d0, f0, _ = row(q0)
                bases.append(None if ci >= cpd else f0 - d0 + ci * vd)
            for t in range(vd):
                a = [None if b is None else 4 * tiles_merged_table_at(b + t + vd, vd, banks) for b in bases]
                if any(x is not None for x in a):
                    sums[0] += _wavefronts(a)
                    sums[1] += 1
            for it in range(-(-tw // (threads // per))):
                for t in range(vd):
                    a = []
                    for (q0, ci0), b in zip(lanes, bases):
                        q = q0 + it * (threads // per)
                        ok = b is not None and q < tw
                        if ok:
                            _, f, end = row(q)
                            ok = f + (ci0 + j * per) * vd < end
                        a.append(tab(b + t) + q if ok else None)
                    if any(x is not None for x in a):
                        sums[2] += _wavefronts(a)
                        sums[3] += 1
    if totals:
        return tuple(sums)
    return sums[0] / sums[1], sums[2] / sums[3], (sums[0] + sums[2]) / (sums[1] + sums[3])


CASES = {
    "36": ((181, 31, 12, 5, 31, 19), (1, 67332, 181, 2087292, 2172, 10436460), (1095540, 35340, 2945, 589, 19, 1)),
    "00": ((186, 3, 230, 4, 275), (1, 744, 2232, 186, 513360), (759000, 253000, 1100, 275, 1)),
}

if __name__ == "__main__":
    from tilec.passes._box_tile import tiles_merged_row_step, tiles_slot32_turn

    for name, (ns, ss, ds) in CASES.items():
        for ge in (16, 32):
            rule = tiles_merged_row_step(1, 8, 512, ge, ds[0])
            for label, kw in (("tree", {}), ("banks S=1", dict(banks=True)),
                              (f"banks S={rule} (rule)", dict(banks=True, S=rule)),
                              (f"rule + slot32", dict(banks=True, S=rule, slot32=True)),
                              (f"rule + slot32 turned", dict(banks=True, S=rule, slot32=True,
                                                             turn=tiles_slot32_turn(1, 8))),
                              ("slot32, 4 lanes S=4", dict(banks=True, S=4, per=4, slot32=True)),
                              ("16 lanes S=4", dict(banks=True, S=4, per=16))):
                t, b, a = model(ns, ss, ds, ge=ge, **kw)
                tw, tn, bw, bn = model(ns, ss, ds, ge=ge, totals=True, **kw)
                print(f"{name} grain {ge:2d} {label:22s} tables {t:.2f} bytes {b:.2f} all {a:.2f}"
                      f" (wavefronts {tw + bw}, loads {tn + bn})")
