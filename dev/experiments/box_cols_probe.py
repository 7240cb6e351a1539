"""The box strategy's `cols` flavour (passes/_box_tile.py; first measured as api/copy_box.py's kernel, since removed) against the kernels it replaces, on rows of `n_D` bytes
(dst (N, n_D), contiguous) from `n_D` long src rows ((n_D, N) transposed), 256 MiB a
side: tilec with the box kernel off (`never`: the tiled or gather kernel) and on, and
PyTorch, each checked bit for bit and timed beside cudaMemcpy. Not a test.

    python3 dev/experiments/box_cols_probe.py
"""

from __future__ import annotations

import sys

sys.path.insert(0, "benchmarks")


def main() -> None:
    import copy_bench as cb
    import torch
    from strided_copy_bench import _median

    from tilec.copy_routes import forced_routes
    from tilec.copy_kernels import CopyKernels
    from tilec.tensor_copy import copy_

    gen = torch.Generator(device="cuda").manual_seed(0)
    print("n_D | kernel off | box | PyTorch (ratios to cudaMemcpy)")
    for nd in (3, 5, 8, 19, 37, 64):
        n = (256 << 20) // nd
        src = torch.randint(-128, 127, (nd, n), generator=gen, device="cuda", dtype=torch.int8).t()
        dst = torch.empty((n, nd), device="cuda", dtype=torch.int8)
        want = torch.empty_like(dst).copy_(src)
        moved = 2 * n * nd
        mc = cb.memcpy_tbps(moved // 2)
        row, boxes = [], []
        for policy in ("never", "auto"):
            # kernels of their own: a launcher cached for the structure would keep the
            # kernel the first policy chose
            kernels = CopyKernels(disk=False)
            dst.fill_(77)
            with forced_routes(box=policy):
                copy_(dst, src, kernels=kernels)
                torch.cuda.synchronize()
                exact = bool(torch.equal(dst, want))
                t = _median(cb, lambda d=dst, s=src, k=kernels: copy_(d, s, kernels=k), 30)
            row.append(f"{cb.tbps(moved, t) / mc:.3f}{'' if exact else ' NOT EXACT'}")
            boxes += [k.aligned_pointers for k in kernels._entries]  # the box plan states the realign facts
        t = _median(cb, lambda d=dst, s=src: d.copy_(s), 30)
        print(f"{nd} | {row[0]} | {row[1]} | {cb.tbps(moved, t) / mc:.3f}   (box facts stated: off, on {boxes})", flush=True)
        del src, dst, want
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
