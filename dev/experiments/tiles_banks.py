"""Shared-memory wavefronts of a `box<tiles>` phase-2 load (passes/_box_tile.tiles_launch), a
model without a GPU: the 32 lanes' box addresses of one warp `layout.read` of element `t`
of their chunks, as the kernel computes them (slot `r` at `r PB + S floor(r / V + 1)` with
`S` the phase-1 chunk's elements where the lanes run along a row, else `r PB`; element `q`
of slot `r` at `+ (run_start(r) mod V) + q`; row `q`'s chunk `ci` at slot
`(-ds(q) mod V) + ci V + t`), grouped by 32-bit bank; the wavefronts are the most
distinct words one bank serves. Checked against Nsight Compute on the H200: the default
int8 8191 x 8209 transpose models 3.94, measured 3.97 (8.40 M wavefronts for 2.11 M loads).

    python3 dev/experiments/tiles_banks.py     # the odd transposes and 12 random shapes
                                               # (and the int8 row rule's rows, f16 / f32's
                                               # rule by residue class: `wide_rule`)

`interleaved` models the interleaved slots (`tiles_interleave=1`): phase 1b's 16-byte
reads of the raw slots and writes of the interleaved ones (8 lanes a wavefront at best:
4 a warp instruction), and phase 2's 32-bit word reads (32 lanes: 1 at best).
"""

from __future__ import annotations

import numpy as np


def wavefronts(e: int, lanes: int, stage: int = 16, pitch: int = 144, src_pitch: int = 8209, dst_pitch: int = 8191,
               od: int = 1680, ow: int = 640, warps: int = 8, step: int = 1, rotate: bool = False) -> float:
    """Mean wavefronts a load: `e`-byte elements, `lanes` lanes along a row (0: on 32
    rows, the lanes' chunk `tid / Wt`), phase-1 chunks of `stage` bytes, slot pitch
    `pitch` bytes, the tile at `(ow, od)` of a transpose whose source rows are
    `src_pitch` elements apart and destination rows `dst_pitch`; with lanes along a row,
    a warp's rows `step` apart and row lane k's loads rotated by k words (`4 k / e`
    elements) where `rotate` (`tile{tiles_row_step, tiles_rotate}`,
    `_box_tile.tiles_row_step_of`). 2- and 4-byte elements: `pitch=272` (runs of 256
    bytes), `od` a multiple of the tile's `Dt` (`wide_rule`)."""
    v, pb, wt = 16 // e, pitch // e, 128 // e
    sv = max(stage // e, 1)

    def slot_base(r: int) -> int:
        return r * pb + ((r + v) // v) * sv if lanes else r * pb

    out = []
    for warp in range(warps):
        for t in range(v):
            words: dict[int, set[int]] = {}
            for lane in range(32):
                tid = warp * 32 + lane
                q, ci = (tid // lanes, tid % lanes) if lanes else (tid % wt, tid // wt)
                kq = lane // lanes if lanes else 0
                if lanes:
                    q = (warp // step) * (32 // lanes) * step + warp % step + step * kq
                r = (-((ow + q) * dst_pitch + od)) % v + ci * v + (t + 4 // e * kq * rotate) % v
                a = (slot_base(r) + ((od + r) * src_pitch + ow) % v + q) * e
                for w in range(a // 4, (a + max(e, 4)) // 4):
                    words.setdefault(w % 32, set()).add(w)
            out.append(max(len(s) for s in words.values()))
    return float(np.mean(out))


def wide_rule() -> None:
    """f16 and f32 (runs of 256 bytes, slots of 272): the mean wavefronts a load over
    the 256 residue pairs of the pitches mod 16, per class of `m = 1 - P_s P_d (mod 16)`
    (odd, 2 mod 4, 0 mod 4), for each (lanes, chunk bytes, row step, rotated), and
    `_box_tile.tiles_row_step_of`'s choice: 1.0 on every pair."""
    from tilec.passes._box_tile import tiles_row_step_of

    for e, od in ((4, 1584), (2, 1856)):
        for lanes, stage in ((16, 8), (8, 16)):
            cls: dict[str, list] = {}
            rule = []
            for a in range(16):
                for b in range(16):
                    m = (1 - a * b) % 16
                    key = "odd" if m % 2 else "2 mod 4" if m % 4 == 2 else "0 mod 4"
                    row = {(s_, r_): wavefronts(e, lanes, stage, 272, 8192 + a, 4096 + b, od, 640, 4, s_, r_)
                           for s_ in (1, 2) for r_ in (False, True)}
                    cls.setdefault(key, []).append(row)
                    s_, r_ = tiles_row_step_of(e, lanes, stage, 512, 8192 + a, 4096 + b)
                    rule.append(row[(s_, r_)])
            for key, rows in cls.items():
                means = " ".join(f"S={s_}{' rot' if r_ else ''} {np.mean([r[(s_, r_)] for r in rows]):.2f}"
                                 for s_, r_ in rows[0])
                print(f"E={e} lanes={lanes:2d} stage={stage:2d} m {key:8s}: {means}")
            print(f"E={e} lanes={lanes:2d} stage={stage:2d} the rule: {np.mean(rule):.2f} (max {max(rule):.1f}); "
                  f"8191 x 8209 {wavefronts(e, lanes, stage, 272, 8209, 8191, od, 640, 16):.2f}, rotated "
                  f"{wavefronts(e, lanes, stage, 272, 8209, 8191, od, 640, 16, 1, True):.2f}")


def _banks(addrs: list[int], width: int) -> int:
    """Wavefronts of one warp access of `width` bytes a lane at byte addresses `addrs`:
    16-byte accesses in four phases of 8 lanes, narrower ones in one; per phase the
    most distinct 32-bit words one bank serves."""
    per = 8 if width == 16 else 32
    total = 0
    for ph in range(0, 32, per):
        words: dict[int, set[int]] = {}
        for a in addrs[ph:ph + per]:
            for w in range(a // 4, (a + width) // 4):
                words.setdefault(w % 32, set()).add(w)
        total += max(len(x) for x in words.values())
    return total


def interleaved(e: int, lanes: int = 8, threads: int = 512, pitch: int = 144, src_pitch: int = 8209,
                dst_pitch: int = 8191, od: int = 1680, ow: int = 640, runs: int = 447) -> tuple[float, float, float]:
    """Mean wavefronts a warp instruction of (phase 1b's 16-byte reads, its 16-byte
    writes, phase 2's word reads) of an interleaved `tiles` box (passes/_box_tile.py:
    `P = 4 / e` rows a word, pieces of `P` chunks, slot `r` at `r PB + 16 floor(r / V +
    1)` bytes; phase 2's thread `(group, ci0)`: warp `w` lane `l` takes group
    `(w / (L / lanes)) (32 / lanes) + l / lanes`, chunk lane `(w mod (L / lanes)) lanes
    + l mod lanes`, `L = threads / G`, `G = 128 / 4`)."""
    v, pp, pb, wt = 16 // e, 4 // e, pitch // e, 128 // e
    pieces = wt // (pp * v)

    def slot_byte(r: int) -> int:
        return (r * pb + ((r + v) // v) * v) * e

    reads, writes, words = [], [], []
    trips = -(-runs * pieces // threads)
    for warp in range(threads // 32):
        for kk in range(trips):
            idx = [kk * threads + warp * 32 + lane for lane in range(32)]
            rp = [(min(i // pieces, runs - 1), i % pieces) for i in idx]
            for g in range(pp + 1):
                reads.append(_banks([slot_byte(r) + 16 * (pp * p + g) for r, p in rp], 16))
            for ch in range(pp):
                writes.append(_banks([slot_byte(r) + 16 * (pp * p + ch) for r, p in rp], 16))
    groups = wt // pp
    per_group = threads // groups
    for warp in range(threads // 32):
        for t in range(v):
            addrs = []
            for lane in range(32):
                group = (warp // (per_group // lanes)) * (32 // lanes) + lane // lanes
                ci = (warp % (per_group // lanes)) * lanes + lane % lanes
                p, j = group // v, group % v
                q = pp * v * p + j
                r = (-((ow + q) * dst_pitch + od)) % v + ci * v + t
                res = ((od + r) * src_pitch + ow) % v
                addrs.append(slot_byte(r) + pp * (v * p + (res + j) % v) * e)
            words.append(_banks(addrs, 4))
    return float(np.mean(reads)), float(np.mean(writes)), float(np.mean(words))


def main() -> None:
    rng = np.random.default_rng(0)
    shapes = [(8209, 8191)] + [(int(a), int(b)) for a, b in rng.integers(4000, 9000, size=(12, 2))]
    for e in (1, 2, 4):
        print(f"E={e}: 8191x8209 / mean of {len(shapes)} shapes")
        for lanes, stage in ((0, 16), (8, 16), (16, 16), (16, 8), (32, 16), (32, 4)):
            one = wavefronts(e, lanes, stage)
            mean = np.mean([wavefronts(e, lanes, stage, src_pitch=a, dst_pitch=b) for a, b in shapes])
            print(f"  lanes={lanes:2d} stage={stage:2d}: {one:.2f} / {mean:.2f}")
    from tilec.passes._box_tile import tiles_row_step_of

    for a, b in [(8209, 8191), (8191, 8191)] + shapes[1:4]:
        s, rot = tiles_row_step_of(1, 8, 16, 512, a, b)
        print(f"E=1 lanes=8 {b}x{a}: consecutive rows {wavefronts(1, 8, src_pitch=a, dst_pitch=b):.2f}, "
              f"the rule (rows {s} apart{', rotated' if rot else ''}) "
              f"{wavefronts(1, 8, src_pitch=a, dst_pitch=b, step=s, rotate=rot):.2f}")
    wide_rule()
    for e in (1, 2):
        for lanes in (4, 8, 16):
            one = interleaved(e, lanes)
            mean = np.mean([interleaved(e, lanes, src_pitch=a, dst_pitch=b) for a, b in shapes], axis=0)
            print(f"E={e} interleaved lanes={lanes:2d}: 1b reads / writes / phase-2 words "
                  f"{one[0]:.2f} / {one[1]:.2f} / {one[2]:.2f}, mean of shapes {mean[0]:.2f} / {mean[1]:.2f} / {mean[2]:.2f}")


if __name__ == "__main__":
    main()
