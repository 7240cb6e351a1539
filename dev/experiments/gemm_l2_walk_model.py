"""A model (issue 39, fp839): DRAM bytes read by the persistent GEMM's tile walk through an
LRU L2, by the grouped order's group size. The blocks run in lock step: in round r block b
works on tile b + r * blocks (grouped order of `g` block rows, `api/gemm_programs.py`'s
`_grouped`), and each K step of a tile reads A's box (bm rows x bk of K) and B's box (bn x bk);
an L2 of `cap` MiB keeps the most recently read boxes. Misses times the box's bytes are the
operands' DRAM reads (the output's writes come on top).

    python3 dev/experiments/gemm_l2_walk_model.py [M N K [bm bn bk [blocks]]]

8192^3 of the block-scaled rule's 128 x 128 x 128 (8-bit operands: 16 KiB a box), 132 blocks:
K = 2048 reads its 32 MiB of A and B once at any group; K = 8192 (128 MiB of A and B, B alone
64 MiB: more than an L2 of 50 MiB holds) reads 691 MiB with the rule's g = 8 at an L2 of 25 MiB
(576 at 40), 417 with g = 16 (325), g = 32 1181 (250): each group of g block rows reads all of
B again, so B's 64 MiB come in gm / g times while A's g panels stay."""

from __future__ import annotations

import sys
from collections import OrderedDict


def grouped_tile(pid: int, gm: int, gn: int, g: int) -> tuple[int, int]:
    """(block row, block column) of linear tile `pid` in grouped order (Triton's GROUP_SIZE_M)."""
    grw = g * gn
    first = pid // grw * g
    gs = min(gm - first, g)
    return first + pid % grw % gs, pid % grw // gs


def dram_mib(m: int, n: int, k: int, g: int, cap_mib: float, blocks: int = 132, bm: int = 128, bn: int = 128,
             bk: int = 128, elem: int = 1) -> float:
    """MiB of A and B read from DRAM by the walk through an LRU L2 of `cap_mib` (boxes of
    A and B counted by their bytes)."""
    gm, gn, ks = -(-m // bm), -(-n // bn), -(-k // bk)
    tiles = gm * gn
    sizes = {"a": bm * bk * elem, "b": bn * bk * elem}
    lru: OrderedDict = OrderedDict()
    held = read = 0
    for r in range(-(-tiles // blocks)):
        now = [grouped_tile(b + r * blocks, gm, gn, g) for b in range(blocks) if b + r * blocks < tiles]
        for s in range(ks):
            for x, y in now:
                for key in (("a", x, s), ("b", y, s)):
                    if key in lru:
                        lru.move_to_end(key)
                        continue
                    read += sizes[key[0]]
                    lru[key] = sizes[key[0]]
                    held += sizes[key[0]]
                    while held > cap_mib * 2**20:
                        held -= lru.popitem(last=False)[1]
    return read / 2**20


def main(argv: list[str]) -> None:
    m, n, k, bm, bn, bk, blocks = [int(x) for x in argv] + [8192, 8192, 8192, 128, 128, 128, 132][len(argv):]
    ideal = (m * k + n * k) / 2**20
    print(f"{m} x {n} x {k}, tile {bm} x {bn} x {bk}, {blocks} blocks: A and B {ideal:.0f} MiB")
    for cap in (25, 40):
        print(f"  L2 {cap} MiB: " + ", ".join(f"g{g} {dram_mib(m, n, k, g, cap, blocks, bm, bn, bk):.0f}"
                                            for g in (4, 8, 16, 32, 64)) + " MiB read")


if __name__ == "__main__":
    main(sys.argv[1:])
