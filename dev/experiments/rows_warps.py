"""Experiment (issue 37): f16 softmax at the N where tilec's user program is below the
same program in Triton (N = 768, 1001, 3072, 8192 at M = 16384). For each N, the tilec
program with its own warps (row_kernels.num_warps) and with half and twice as many,
beside Triton with the default warps: registers per thread (ptxas), and time as a ratio
to cudaMemcpy of the same bytes (realistic_rows' interleaved method).

    python3 dev/experiments/rows_warps.py [N,N,...] [--afn]   # --afn: exp as __expf
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "benchmarks"))
import realistic_rows as rr  # noqa: E402
import row_kernels as rk  # noqa: E402

import tilec  # noqa: E402

M = 16384


def main() -> None:
    import torch
    from compute_bench import interleaved
    from copy_bench import tbps

    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    ns = [int(x) for x in (args[0] if args else "768,1001,3072,8192").split(",")]
    if "--afn" in sys.argv:  # exp as __expf (fastmath<afn>), as Triton's tl.exp is ex2.approx
        from xdsl.dialects import math as xmath
        from xdsl.dialects.arith import FastMathFlag, FastMathFlagsAttr

        plain = rk.RowKernel.unary

        def unary(self, cls, x):
            if cls is xmath.ExpOp:
                return self.op(cls, [x], x.type, fastmath=FastMathFlagsAttr((FastMathFlag.APPROX_FUNC,)))
            return plain(self, cls, x)

        rk.RowKernel.unary = unary
    tri = rr.triton_kernels()
    real = rk.num_warps
    for n in ns:
        block = rk.next_pow2(n)
        x = torch.randn(M, n, device="cuda").half()
        y = torch.empty_like(x)
        fns = {}
        for w in (real(block) // 2, real(block), real(block) * 2):
            rk.num_warps = lambda b, w=w: w
            k = tilec.compile(rk.softmax(n, "f16"))
            rk.num_warps = real
            k(x, y, M)
            spec = k.specialization(x, y, M) if hasattr(k, "specialization") else k
            res = next(iter(spec.resource_usage().values()))
            ref = torch.softmax(x.float(), -1)
            err = (y.float() - ref).abs().max().item()
            print(f"N={n} warps={w}: {res.registers} regs, spills {res.spill_stores}, max err {err:.2e}", flush=True)
            fns[f"tilec w{w}"] = lambda i, s, k=k: k(x, y, M, stream=None if s is None else s.cuda_stream)
        if tri is not None:
            fns["triton"] = lambda i, s: tri("softmax", x, y, None, None)
        fns["memcpy"] = lambda i, s: y.copy_(x)
        timed = interleaved(fns, 1)
        mem = timed["memcpy"][0]
        nbytes = 2 * M * n * 2
        print(f"N={n}: " + ", ".join(f"{k} {mem / v[0]:.3f} ({1e3 * v[0]:.1f} us)" for k, v in timed.items())
              + f"; memcpy {tbps(nbytes, mem):.2f} TB/s", flush=True)


if __name__ == "__main__":
    main()
