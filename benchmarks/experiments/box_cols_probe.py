"""`BOX_COLS` (api/copy_box.py) against the kernels it replaces, on rows of `n_D` bytes
(dst (N, n_D), contiguous) from `n_D` long src rows ((n_D, N) transposed), 256 MiB a
side: tilec with the box kernel off (`never`: the tiled or gather kernel) and on, and
PyTorch, each checked bit for bit and timed beside cudaMemcpy. Not a test.

    python3 benchmarks/experiments/box_cols_probe.py
"""

from __future__ import annotations

import sys

sys.path.insert(0, "benchmarks")


def main() -> None:
    import copy_bench as cb
    import torch
    from strided_copy_bench import _median

    import tilec
    from tilec import copy_box
    from tilec.copy_kernels import default_kernels

    gen = torch.Generator(device="cuda").manual_seed(0)
    print("n_D | kernel off | box | PyTorch (ratios to cudaMemcpy)")
    for nd in (3, 5, 8, 19, 37, 64):
        n = (256 << 20) // nd
        src = torch.randint(-128, 127, (nd, n), generator=gen, device="cuda", dtype=torch.int8).t()
        dst = torch.empty((n, nd), device="cuda", dtype=torch.int8)
        want = torch.empty_like(dst).copy_(src)
        moved = 2 * n * nd
        mc = cb.memcpy_tbps(moved // 2)
        row = []
        for policy in ("never", "auto"):
            copy_box.POLICY = policy
            dst.fill_(77)
            tilec.copy_(dst, src)
            torch.cuda.synchronize()
            exact = bool(torch.equal(dst, want))
            t = _median(cb, lambda d=dst, s=src: tilec.copy_(d, s), 30)
            row.append(f"{cb.tbps(moved, t) / mc:.3f}{'' if exact else ' NOT EXACT'}")
        t = _median(cb, lambda d=dst, s=src: d.copy_(s), 30)
        boxes = sorted({k.box for k in default_kernels()._entries})
        print(f"{nd} | {row[0]} | {row[1]} | {cb.tbps(moved, t) / mc:.3f}   (box shapes seen {boxes})", flush=True)
        del src, dst, want
        torch.cuda.empty_cache()
    copy_box.POLICY = "auto"


if __name__ == "__main__":
    main()
