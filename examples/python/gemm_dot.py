"""C = A @ B written as a plain loop of tile loads and `dot` (Triton's `tl.dot` GEMM):
the compiler chooses how the tensor cores run it.

Each block owns a `bm x bn` tile of C and walks K in steps of `bk`:

    acc = zeros(bm, bn)
    for kt in range(K / bk):
        a = load(A[bx, kt])          # bm x bk, a blocked layout
        b = load(B[kt, by])          # bk x bn
        acc = dot(a, b, acc)         # layout.dot
    store(acc, C[bx, by])

No shared memory, barrier, MMA layout or swizzle is written: `accelerate-matmul`
(passes/accelerate_matmul.py) lowers `layout.dot` for the target — wgmma with
NVMMA-swizzled shared operands on Hopper (`--target sm_90a`, and the default),
mma.sync with ldmatrix on sm_80 (`--target sm_80`; that code runs on Hopper too), an
FMA loop for f32 (`--dtype f32`) — and turns the loads into copies to shared memory;
`remove-layout-conversions` keeps the accumulator in the MMA layout through the loop.

With `warp_specialize=True` (`range(..., num_stages=4, warp_specialize=True)`, Triton's
`tl.range(..., warp_specialize=True)`; `persistent=P` for P persistent blocks) and a bf16
C (`out_dtype="bf16"`, the accumulator cast before the store), the default pipeline's
`warp-specialize{marked=true}` gives the loop examples/python/gemm_plain.py's
warp-specialised schedule (a producer warpgroup filling the TMA ring, setmaxnreg, the
split accumulator, stmatrix + TMA stores): benchmarks/gemm_bench.py's
`dot:128x256x64:4:ws:p:g8`.

    python examples/python/gemm_dot.py                      # run and check (GPU, else CPU)
    python examples/python/gemm_dot.py --target sm_80       # the mma.sync lowering
    python examples/python/gemm_dot.py --dtype f32          # the FMA loop
    python examples/python/gemm_dot.py --target sm_80 --cuda   # print the CUDA

With a GPU and PyTorch it runs at `--shape` (default 1024^3) on torch tensors; without,
it compiles the CUDA with NVRTC and runs a 128x128x64 problem on the CPU reference
executor. C (f32) is checked against float64 within the bound of f32 accumulation.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import tilec
from tilec.support.target import set_target

CPU_SHAPE = (128, 128, 64)
"""The problem run on the CPU reference executor where there is no GPU."""


def _blocked(rows: int, cols: int, warps: int, element_bytes: int):
    """A blocked layout of a `rows x cols` tile: 16-byte vectors along the rows, a
    warp's lanes across as much of a row as it has, warps down the rows."""
    v = min(cols, 16 // element_bytes)
    across = min(32, cols // v)
    return tilec.BlockedLayout([1, v], [32 // across, across], [warps, 1], [1, 0])


def gemm_dot(m: int, n: int, k: int, bm: int = 128, bn: int = 128, bk: int = 32, warps: int = 8,
             dtype: str = "bf16", target: str | None = None, stages: int | None = None,
             out_dtype: str = "f32", warp_specialize: bool = False, persistent: int = 0, group: int = 1):
    """The program of C = A @ B (the module docstring): A m x k and B k x n of `dtype`
    (bf16, f16 or f32), C m x n f32, all row-major (`pa`, `pb`, `pc`); m, n, k
    multiples of bm, bn, bk. `target` names the module's target (None: the default);
    `stages` is the pipeline depth the K loop asks for (`range(..., num_stages=S)`:
    `software-pipeline` makes a ring of S stages of the staged copies, cp.async on
    sm_80; None states no depth: the loop stays single-buffered). `out_dtype` is C's
    element type (f32, or bf16/f16: the accumulator cast before the store, Triton's
    `acc.to(tl.bfloat16)`). `warp_specialize` asks for the warp-specialised schedule of
    the K loop (`range(..., warp_specialize=True)`, Triton's `tl.range(...,
    warp_specialize=True)`: the default pipeline's `warp-specialize{marked=true}` makes
    a producer warpgroup fill the ring of `stages` stages), `persistent` = P > 0 with
    it, over P persistent blocks (`range(..., persistent=P)`). `group` > 1: a linear
    grid of the tiles in grouped order (Triton's `GROUP_SIZE_M`: consecutive tiles walk
    down `group` block rows of C, then to the next block column)."""
    if m % bm or n % bn or k % bk:
        raise ValueError(f"gemm_dot: {m}x{n}x{k} is not a multiple of the {bm}x{bn}x{bk} tile")
    eb = 4 if dtype == "f32" else 2
    p = tilec.Program("gemm_dot")
    A = p.view(p.pointer("pa", dtype, align=16), f"({m},{k}):({k},1)").named("A")
    B = p.view(p.pointer("pb", dtype, align=16), f"({k},{n}):({n},1)").named("B")
    C = p.view(p.pointer("pc", out_dtype, align=16), f"({m},{n}):({n},1)").named("C")
    la, lb, lc = _blocked(bm, bk, warps, eb), _blocked(bk, bn, warps, eb), _blocked(bm, bn, warps, 4)
    gm, gn = m // bm, n // bn
    grid = (gm * gn, 1, 1) if group > 1 else (gm, gn, 1)
    with p.launch(grid=grid, threads=32 * warps) as blk:
        bx, by = blk.bx, blk.by
        if group > 1:  # Triton's pid_m, pid_n of the tutorial's grouped order
            gg = min(group, gm)
            grw = p.constant(gg * gn).named("grw")
            ingrp = p.remui(blk.bx, grw).named("ingrp")
            grow0 = (p.divui(blk.bx, grw).named("grpi") * p.constant(gg)).named("grow0")
            gs = p.constant(gg).named("gg")
            if gm % gg:
                gs = p.minui((p.constant(gm) - grow0).named("gleft"), gs).named("gsz")
            bx = (grow0 + p.remui(ingrp, gs).named("grow")).named("bx")
            by = p.divui(ingrp, gs).named("by")
        acc = p.full([bm, bn], 0.0, "f32", lc, dense=True).named("acc")
        with p.range(0, k // bk, 1, carry=[acc], num_stages=stages,
                     warp_specialize=warp_specialize, persistent=persistent) as kt:
            kt.named("kt")
            a = p.load(p.tile(A, [bx, kt], [bm, bk]).named("ta"), la).named("a")
            b = p.load(p.tile(B, [kt, by], [bk, bn]).named("tb"), lb).named("b")
            acc.assign(p.dot(a, b, acc).named("d"))
        out = acc if out_dtype == "f32" else acc.cast(out_dtype).named("h")
        p.store(out, p.tile(C, [bx, by], [bm, bn]).named("tc"))
    module = p.module
    if target is not None:
        set_target(module, target)
    return module


def _inputs(m: int, n: int, k: int, dtype: str):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    return a, b


def check(got: np.ndarray, a64: np.ndarray, b64: np.ndarray, k: int) -> tuple[bool, float]:
    """Whether C is within the bound of f32 accumulation of exact products (2 gamma(K+1)
    sum |a||b|, `mma_error_bound`) of float64's A @ B; and the largest error."""
    from tilec.dialects.layout_mma import mma_error_bound

    gamma, _ = mma_error_bound(k, "bf16")
    err = np.abs(got - a64 @ b64)
    return bool((err <= 2 * gamma * (np.abs(a64) @ np.abs(b64))).all()), float(err.max())


def run_and_check(shape: tuple[int, int, int], dtype: str, target: str | None) -> int:
    """Run the GEMM on the GPU (torch tensors) where there is one, else on the CPU
    reference executor at `CPU_SHAPE`; 0 when C is within the bound, else 1."""
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and tilec.gpu_available() and torch.cuda.is_available():
        m, n, k = shape
        tdt = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[dtype]
        kernel = tilec.compile(gemm_dot(m, n, k, dtype=dtype, target=target))
        g = torch.Generator(device="cuda").manual_seed(0)
        a = torch.randn(m, k, device="cuda", generator=g).to(tdt)
        b = torch.randn(k, n, device="cuda", generator=g).to(tdt)
        c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float32)
        kernel(a, b, c)
        torch.cuda.synchronize()
        a64, b64, got = a.double().cpu().numpy(), b.double().cpu().numpy(), c.double().cpu().numpy()
        where = "on the GPU (torch tensors)"
    else:
        from tilec.runtime.reference.values import bf16_to_f32, f32_to_bf16

        m, n, k = CPU_SHAPE
        arch = target or "sm_90a"
        kernel = tilec.compile(gemm_dot(m, n, k, dtype=dtype, target=target), arch=arch)
        print(f"no GPU (or no PyTorch): compiled {len(kernel.cubin)} bytes of {arch} cubin with NVRTC; "
              f"running {m}x{n}x{k} on the CPU reference executor")
        a32, b32 = _inputs(m, n, k, dtype)
        if dtype == "bf16":
            a, b = f32_to_bf16(a32), f32_to_bf16(b32)
            a64, b64 = bf16_to_f32(a).astype(np.float64), bf16_to_f32(b).astype(np.float64)
        else:
            npt = np.float16 if dtype == "f16" else np.float32
            a, b = a32.astype(npt), b32.astype(npt)
            a64, b64 = a.astype(np.float64), b.astype(np.float64)
        c = np.full(m * n, np.nan, np.float32)
        out = tilec.run_reference(kernel, {"pa": a.reshape(-1), "pb": b.reshape(-1), "pc": c})["pc"]
        got, where = np.asarray(out).reshape(m, n).astype(np.float64), "on the CPU reference executor"
    ok, err = check(got, a64, b64, k)
    print(f"C = A @ B, {m}x{k} @ {k}x{n} {dtype}, target {target or 'default'}, {where}: "
          f"{'within' if ok else 'NOT within'} the f32-accumulation bound (max error {err:.3g})")
    return 0 if ok else 1


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default=None, help="sm_80, sm_90, sm_90a, ... (default: the default target)")
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "f16", "f32"])
    ap.add_argument("--shape", type=int, nargs=3, default=[1024, 1024, 1024], metavar=("M", "N", "K"))
    ap.add_argument("--cuda", action="store_true", help="print the CUDA instead of running")
    args = ap.parse_args(argv)
    if args.cuda:
        m, n, k = args.shape
        module = tilec.run_pipeline(gemm_dot(m, n, k, dtype=args.dtype, target=args.target))
        print(tilec.emit(module, "cuda"), end="")
        return 0
    return run_and_check(tuple(args.shape), args.dtype, args.target)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
