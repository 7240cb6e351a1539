"""Probe (issue 20): broadcasts of a short period into a flat dst, as they run now and
with the period repeated to a row of L elements (a 16-byte multiple) first, so that the
copy is a broadcast of aligned rows. Prints ratio to cudaMemcpy per variant."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import copy_bench
import torch
from tilec.tensor_copy import copy_

def ratio(moved, fn):
    mc = copy_bench.memcpy_tbps(moved // 2)
    return copy_bench.tbps(moved, copy_bench.median_ms(fn, reps=15)) / mc

cases = [  # name, dtype, dst shape, src shape, widened L (elements)
    ("44", torch.uint8, (267312393, 3), (1, 3), [48, 4080, 16368]),
    ("14", torch.bool, (30342512, 19), (1, 19), [304, 3952]),
    ("20", torch.uint8, (950863, 259), (1, 259), [4144, 16576]),
    ("32", torch.bfloat16, (2633, 17575, 3), (1, 17575, 1), [421800]),
]
for name, dt, shape, sshape, Ls in cases:
    src = torch.randint(0, 100, sshape, device="cuda").to(dt)
    dst = torch.empty(shape, dtype=dt, device="cuda")
    eb = dst.element_size()
    moved = dst.numel() * eb + src.numel() * eb
    line = [name, f"now {ratio(moved, lambda: copy_(dst, src)):.3f}",
            f"torch {ratio(moved, lambda: dst.copy_(src)):.3f}"]
    want = torch.empty_like(dst).copy_(src)
    period = src.expand(shape).reshape(-1)
    for L in Ls:
        m = dst.numel() // L
        tmp = period[:L].contiguous()
        flat = dst.view(-1)[: m * L].view(m, L)
        dst.fill_(7)
        copy_(flat, tmp.view(1, L))
        ok = torch.equal(flat, want.view(-1)[: m * L].view(m, L))
        moved_w = m * L * eb + L * eb
        line.append(f"L{L} {ratio(moved_w, lambda: copy_(flat, tmp.view(1, L))):.3f}{'' if ok else ' WRONG'}")
    print(" | ".join(line), flush=True)
    del src, dst, want, period
    torch.cuda.empty_cache()
