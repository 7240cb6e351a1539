"""One run on the GPU: the warp-specialised Hopper GEMM compiled with the K loop
unrolled whole (the old operation count) and kept a loop (values counted), NVRTC
time and TFLOP/s of each beside cuBLAS (torch.matmul), checked against float64."""
import os, sys, time, statistics
os.environ["TILEC_CACHE"] = "0"
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
import torch
import tilec
import tilec.compiler.cuda.scf_ops as so
from gemm_bf16_hopper import gemm_hopper_ws, BEST_WS

old_size = so._unrolled_size  # operations counted (the CUDA target's rule)


def new_size(op):
    """Values counted, against a limit four times the operations' (UNROLL_LIMIT * 4)."""
    lb, ub, step = (v.owner.value.value.data for v in (op.lb, op.ub, op.step))
    trips = max(0, -(-(ub - lb) // step)) if step > 0 else 0
    return trips * sum(1 + len(o.operands) + len(o.results) for o in op.body.walk()) // 4

def bench(fn, n=20):
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    for _ in range(5): fn()
    for s, e in ev:
        s.record(); fn(); e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in ev) * 1e-3

best = dict(BEST_WS); best["persistent"] = torch.cuda.get_device_properties(0).multi_processor_count
print(torch.cuda.get_device_name(0))
for m, n, k in [(4096, 4096, 4096), (8192, 8192, 8192)]:
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=g)
    ref = (a.double() @ b.double())
    flop = 2 * m * n * k
    tc = bench(lambda: torch.matmul(a, b))
    print(f"{m}x{n}x{k} cuBLAS {flop / tc / 1e12:.0f} TFLOP/s")
    for name, size in [("unrolled whole (old)", old_size), ("loop (new)", new_size)]:
        so._unrolled_size = size
        t0 = time.time()
        kern = tilec.compile(gemm_hopper_ws(m, n, k, **best))
        ct = time.time() - t0
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
        kern(a, b, c); torch.cuda.synchronize()
        err = ((c.double() - ref).norm() / ref.norm()).item()
        t = bench(lambda: kern(a, b, c))
        print(f"  {name}: compile {ct:.1f} s, {flop / t / 1e12:.0f} TFLOP/s = {tc / t:.3f} of cuBLAS, rel err {err:.2e}, cubin {len(kern.cubin)} B")
