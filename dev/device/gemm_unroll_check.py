"""One run on the GPU: `tilec.matmul`'s kernels with the K loops unrolled whole (the
CUDA target's rule before issue 39: under 4096 operations) and kept loops (today's:
under 16384 values and 128 branches), per shape NVRTC's time and TFLOP/s of each
beside cuBLAS (torch.matmul), checked against float64.

    python3 dev/device/gemm_unroll_check.py [--reps 3]

NVRTC is timed on its own (`compile_cuda` of the kernel's source made unique by a
comment, so that neither tilec's disk cache nor NVRTC's own cache answers): the
earlier version of this script timed `tilec.compile`, which compiles for the GPU
lazily on the first call, so its "about a second" left NVRTC out. The variants run
interleaved `--reps` times, each rep timing both; the table has the medians.
"""
import argparse
import os
import statistics
import sys
import time

os.environ["TILEC_CACHE"] = "0"
import torch  # noqa: E402

from tilec import compiling, gemm  # noqa: E402
from tilec.compiler.cuda import scf_ops  # noqa: E402
from tilec.gemm_programs import Epilogue  # noqa: E402
from tilec.runtime.nvrtc import compile_cuda  # noqa: E402

NEW_RULE = scf_ops._unrolls_whole


def old_rule(op) -> bool:
    lb, ub, step = (v.owner.value.value.data for v in (op.lb, op.ub, op.step))
    trips = max(0, -(-(ub - lb) // step)) if step > 0 else 0
    return trips * sum(1 for _ in op.body.walk()) <= 4096


SHAPES = [("4000^3", 4000, 4000, 4000, False), ("4096^3", 4096, 4096, 4096, False),
          ("8192^3", 8192, 8192, 8192, False), ("3000x5000x7000", 3000, 5000, 7000, False),
          ("qkv M=128", 128, 6144, 4096, True), ("down M=2048", 2048, 4096, 14336, True)]


def bench(fn, n=30):
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    for _ in range(5):
        fn()
    for s, e in ev:
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in ev) * 1e-3


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(torch.cuda.get_device_name(0), f"{sms} SMs")
    ok = True
    for label, m, n, k, linear in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
        b = (torch.randn(n, k, device="cuda", dtype=torch.bfloat16, generator=g).t() if linear
             else torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g))
        ref = a.double() @ b.double()
        flop = 2 * m * n * k
        config = gemm.choose_config(m, n, sms, k=k)
        key = gemm.MatmulKey(config, n, k, "bf16", Epilogue(), sms, linear, gemm.index_bits(m, n, k, config))
        kernels, nvrtc = {}, {}
        for name, rule in (("unrolled", old_rule), ("loop", NEW_RULE)):
            scf_ops._unrolls_whole = rule
            compiling.clear()
            kern = kernels[name] = compiling.compile_program(gemm.matmul_program(key), "default")
            t0 = time.perf_counter()
            compile_cuda(f"{kern.source}// {time.time_ns()}\n", arch="sm_90a", options=kern.options)
            nvrtc[name] = time.perf_counter() - t0
        scf_ops._unrolls_whole = NEW_RULE
        times = {name: [] for name in kernels}
        cublas = []
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        for _ in range(args.reps):
            for name, kern in kernels.items():
                gemm._kernels[key] = kern
                c.fill_(float("nan"))
                gemm.matmul(a, b, out=c)
                torch.cuda.synchronize()
                err = ((c.double() - ref).norm() / ref.norm()).item()
                ok &= err < 1e-2
                times[name].append(bench(lambda: gemm.matmul(a, b, out=c)))  # noqa: B023 - run now
            cublas.append(bench(lambda: torch.matmul(a, b)))  # noqa: B023 - run now
        tc = statistics.median(cublas)
        print(f"{label} ({config.name}): cuBLAS {flop / tc / 1e12:.0f} TFLOP/s")
        for name in kernels:
            t = statistics.median(times[name])
            print(f"  {name:8s}: NVRTC {nvrtc[name]:5.1f} s, {flop / t / 1e12:6.0f} TFLOP/s = {tc / t:.3f} of cuBLAS "
                  f"(reps {', '.join(f'{flop / x / 1e12:.0f}' for x in times[name])}), "
                  f"cubin {len(kernels[name].cubin)} B")
        gemm._kernels.pop(key, None)
    print("results checked against float64:", "ok" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
