"""One `tilec.copy_` of strided-set cases through a merged `box<tiles>` at a given grain,
checked bit for bit against PyTorch (the destination's buffer poisoned), for running
under `compute-sanitizer --tool memcheck`. Not a test.

    python3 dev/experiments/merged_grain_check.py --only 36,0 --grain 64 [--old-table] [--fill 1]

`--grain 0`: the rule's grain; `--fill F`: the `tile` pass's `tiles_fill=F` (route
`tiles_fill`; any `box<tiles>` case, merged or not).

`--old-table` sizes the merged box's run tables as session 40 did (`Dt + G_e + 3 V_d`
entries, `passes/_box_tile.tiles_merged_table` replaced) to show the fault's cause.
"""

from __future__ import annotations

import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", required=True)
    ap.add_argument("--grain", type=int, default=64)
    ap.add_argument("--old-table", action="store_true")
    ap.add_argument("--fill", type=int, default=None)
    a = ap.parse_args()
    import strided_copy_bench as sb
    import torch

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes
    from tilec.passes import _box_tile

    if a.old_table:
        _box_tile.tiles_merged_table = lambda dt, ge, vd: dt + ge + 3 * vd
    cases = sb.generate_cases(0, 48, 64, 1024)
    gen = torch.Generator(device="cuda").manual_seed(0)
    for i in (int(x) for x in a.only.split(",")):
        case = cases[i]
        src, dst_base, dst = sb._make(torch, case, gen)
        dst_base.fill_(77)
        ref = dst_base.clone()
        (ref[tuple(slice(*ix) for ix in case.dst_index)] if case.dst_base else ref).copy_(src)
        with forced_routes(**({"tiles_grain": a.grain} if a.grain else {}),
                           **({"tiles_fill": a.fill} if a.fill is not None else {})):
            tensor_copy.copy_(dst, src, kernels=CopyKernels(disk=False))
        torch.cuda.synchronize()
        ok = bool(torch.equal(sb._bits(torch, dst_base), sb._bits(torch, ref)))
        print(f"case {i:02d} grain {a.grain or 'rule'}{' old-table' if a.old_table else ''}"
              f"{'' if a.fill is None else f' fill {a.fill}'}: {'exact' if ok else 'WRONG'}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
