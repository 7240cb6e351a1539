"""Each part of a broadcast `tilec.copy_` splits (api/copy_period.py) timed alone, beside
the whole copy, on the strided bench's own tensors (benchmarks/strided_copy_bench.py's
`_make`); the whole copy checked bit for bit against PyTorch. Not a test.

    python3 dev/experiments/period_parts_timing.py --only 32 [--reps 10] [--routes gather=never ...]

Per case: the whole copy's ratio to cudaMemcpy of its bytes, then per part its merged
extents, its strategy's kernel (from copy_'s plan) and its time in microseconds (each
part run alone, after the parts before it have run once); again under each `--routes`
setting (api/copy_routes.py, comma-separated `name=value`s, a fresh `CopyKernels`)."""

from __future__ import annotations

import argparse
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "benchmarks"))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", required=True)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--routes", nargs="*", default=[])
    a = ap.parse_args()
    import copy_bench
    import strided_copy_bench as sb
    import torch

    from tilec.copy_kernels import CopyKernels
    from tilec.copy_routes import forced_routes

    cases = sb.generate_cases(0, 48, 64, 1024)
    gen = torch.Generator(device="cuda").manual_seed(0)
    for i in (int(x) for x in a.only.split(",")):
        case = cases[i]
        src, dst_base, dst = sb._make(torch, case, gen)
        dst_base.fill_(77)
        ref = dst_base.clone()
        (ref[tuple(slice(*ix) for ix in case.dst_index)] if case.dst_base else ref).copy_(src)
        moved = case.bytes_read + case.bytes_written
        mc = copy_bench.memcpy_tbps(moved // 2)
        for setting in [""] + a.routes:
            routes = dict(x.split("=") for x in setting.split(",") if x)
            with forced_routes(**{k: int(v) if v.isdigit() else v for k, v in routes.items()}):
                time_parts(i, case, src, dst_base, dst, ref, moved, mc, setting or "default",
                           CopyKernels(disk=False), a.reps)
        del src, dst_base, dst, ref
        torch.cuda.empty_cache()
    return 0


def time_parts(i, case, src, dst_base, dst, ref, moved, mc, name, kern, reps: int) -> None:
    """The whole copy and each of its parts under the routes in force (module doc)."""
    import copy_bench
    import strided_copy_bench as sb
    import torch

    from tilec import tensor_copy
    from tilec.copy_period import period_parts
    from tilec.copy_plan import Operand, plan_copy

    dst_base.fill_(77)
    tensor_copy.copy_(dst, src, kernels=kern)
    torch.cuda.synchronize()
    ok = bool(torch.equal(sb._bits(torch, dst_base), sb._bits(torch, ref)))
    whole = sb._median(copy_bench, lambda: tensor_copy.copy_(dst, src, kernels=kern), reps)
    print(f"{i:02d} {name} whole {copy_bench.tbps(moved, whole) / mc:.3f} ({whole * 1e3:.1f} us) exact={ok}")
    e_s, e_d = src.element_size(), dst.element_size()
    plan = plan_copy(Operand(dst.data_ptr(), case.dst_dtype, tuple(dst.shape), tuple(dst.stride())),
                     Operand(src.data_ptr(), case.src_dtype, tuple(src.shape), tuple(src.stride())))
    parts = period_parts(plan) or []
    for k, p in enumerate(parts):
        def view(op: Operand, t, base_ptr, e):
            return t.as_strided(op.shape, op.strides, (op.ptr - base_ptr) // e)
        dv = view(p.dst, dst_base, dst_base.data_ptr(), e_d)
        sv = view(p.src, dst_base, dst_base.data_ptr(), e_d) if p.src_in_dst else \
            src.as_strided(p.src.shape, p.src.strides, src.storage_offset() + (p.src.ptr - src.data_ptr()) // e_s)
        pp = plan_copy(p.dst, p.src)
        ms = sb._median(copy_bench, lambda: tensor_copy.copy_(dv, sv, kernels=kern), reps)
        print(f"   part {k} {pp.extents} src {pp.src_strides}: {ms * 1e3:.1f} us")


if __name__ == "__main__":
    sys.exit(main())
