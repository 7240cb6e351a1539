"""Per strided case: kernel time of one copy_ (events around one call after a sync), host time per call,
and the kernels copy_ launched (torch profiler)."""
import sys, time, statistics
sys.path.insert(0, 'benchmarks')
import torch, tilec
from strided_copy_bench import generate_cases, _make
only = [int(a) for a in sys.argv[1].split(',')]
gen = torch.Generator(device='cuda').manual_seed(0)
cases = generate_cases(0, 48, 64, 1024)
for i in only:
    c = cases[i]
    src, dst_base, dst = _make(torch, c, gen)
    tilec.copy_(dst, src); torch.cuda.synchronize()
    ev = []
    for _ in range(5):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize(); a.record(); tilec.copy_(dst, src); b.record(); torch.cuda.synchronize()
        ev.append(a.elapsed_time(b))
    t0 = time.perf_counter()
    for _ in range(50): tilec.copy_(dst, src)
    host = (time.perf_counter() - t0) / 50 * 1e3
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        tilec.copy_(dst, src); torch.cuda.synchronize()
    ks = [(e.name[:40], round(e.device_time_total / 1e3, 3)) for e in prof.key_averages()]
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record(); dst.copy_(src); b.record(); torch.cuda.synchronize()
    print(f"{c.name[:50]:50s} one call {statistics.median(ev):.3f} ms, host/call {host:.3f} ms, torch {a.elapsed_time(b):.3f} ms, kernels {ks}", flush=True)
    del src, dst_base, dst; torch.cuda.empty_cache()
