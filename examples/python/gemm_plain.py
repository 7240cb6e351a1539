"""C = A @ B in bf16 on Hopper (`wgmma`, TMA, f32 accumulation) written as a plain loop
over K, pipelined by the compiler: checked against torch.matmul within the documented
MMA tolerance.

    python examples/python/gemm_plain.py [M N K] [--stages S] [--ws] [--persistent | --rolled]   (default 4096^3, 4 stages)

`gemm_plain(M, N, K)` is the loop a user writes once per K step, single-buffered: the
TMA loads of A's and B's k-th tiles into one shared buffer each, completing on one
mbarrier (`layout.mbarrier_arrive` with the tiles' bytes, its wait on the step's
parity), one `layout.mma` on the shared tiles into the carried accumulator, a
barrier before the next step overwrites the tiles. It has no stages, no ring, no
phase arithmetic of a ring and no asynchronous mma; its loop states the pipeline depth
it wants (`p.range(..., num_stages=S)`, Triton's `tl.range(..., num_stages=S)`), and
the default pipeline's `software-pipeline` pass makes of it the schedule
examples/python/gemm_bf16_hopper.py writes by hand (`gemm_hopper`): S stages of each
buffer and of the mbarrier, a prologue loading the first S - 1 tiles, each
step waiting on its stage, issuing its wgmma asynchronously (`layout.mma {async}` +
`layout.mma_wait {pending = 1}`) and loading the tile S - 1 steps ahead into the
stage the previous step read (passes/software_pipeline.py).

`--rolled` asks the pipeliner for its rolled form (`software-pipeline{rolled=true}`):
the same schedule with one staged shared buffer per operand (a leading stage mode, a
stage taken by `layout.slice` at the run-time stage), an mbarrier array
(`layout.mbarrier_array`, `layout.mbarrier_at`) and the stage and phase carried by
the K loop, so its step appears once instead of S times (CUTLASS's `PipelineState`);
with `--ws`, the warp-specialised form's producer and consumer loops so
(`warp-specialize{rolled=true}`).

`--ws` compiles the same program with `warp-specialize` before the default passes
(passes/warp_specialize.py): a producer warpgroup added to the block fills the ring
of S stages, the program's warpgroups consume it, "full" and "empty" mbarriers per
stage between them and `setmaxnreg` moving registers to the consumers, the schedule
of `gemm_hopper_ws` without a line of it in the program; with `--persistent` over the
GPU's multiprocessors (`warp-specialize{persistent=P}`: P blocks, each taking tiles
b, b + P, ..., the producer filling the next tile's stages while the consumers store
the last one's C).

The epilogue, `p.store` of the cast accumulator into C's tile, is the compiler's too
(passes/split_accumulator.py, passes/tma_epilogue.py): where a shared C buffer of the
whole 128 x 256 tile does not fit beside the ring (4 stages of 48 KiB), `software-pipeline`
and `warp-specialize` first split the accumulator into two column chunks of 128 (each
one wgmma of N 128 per 16 of K on its half of the B stage), and `tma-epilogue` stores
each chunk through one 128 x 128 shared buffer (stmatrix, then a TMA store, each chunk
waiting for the last store to have read the buffer): `gemm_hopper_ws(...,
tma_epilogue=True, chunk=128)`'s epilogue, without a line of it in the program.

Any M, N, K with K and N multiples of 8 (the TMA needs 16-byte rows): edge tiles
are masked, the TMA fills their elements outside A and B with zeros and the store
writes only those inside C.
"""

from __future__ import annotations

import sys


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def gemm_plain(m: int, n: int, k: int, bm: int = 128, bn: int = 256, bk: int = 64, group: int = 1,
               stages: int = 4):
    """The plain-loop program of C = A @ B (module docstring) as a verified module; A
    m x k, B k x n, C m x n, row-major bf16 (`pa`, `pb`, `pc`); a block of `bm / 64`
    warpgroups per `bm x bn` tile of C, in grouped order of `group` block rows; the K
    loop asks for `stages` stages."""
    try:  # the GEMM programs' shared parts, in the package where it has them
        from tilec.gemm_programs import _check_shape, _launch, _program
    except ImportError:  # else beside the hand-scheduled example (this script's folder is on sys.path)
        from gemm_bf16_hopper import _check_shape, _launch, _program

    _check_shape("gemm_plain", m, n, k, bm, 2)
    g = _program(m, n, k, bm, bn, bk, bn, 1, bm // 16)  # 1 stage: ceil(K / bk) steps
    p = g.p
    with _launch(g, m, n, bm, bn, 2 * bm, group):
        sa, sb = p.alloc(g.SA, "bf16").named("sa"), p.alloc(g.SB, "bf16").named("sb")
        bar = p.mbarrier_init(1).named("bar")
        acc = p.full([bm, bn], 0.0, "f32", g.mma, dense=True).named("zero")
        with p.range(g.c0, g.nk, g.c1, carry=[acc], num_stages=stages) as kt:
            kt.named("kt")
            acc.named("acc0")
            p.mbarrier_arrive(bar, tx=2 * (bm + bn) * bk)
            p.tma_load(p.tile(g.A, [g.bx, kt], [bm, bk]).named("ta"), sa, bar)
            p.tma_load(p.tile(g.B, [kt, g.by], [bk, bn]).named("tb"), sb, bar)
            p.mbarrier_wait(bar, p.remui(kt, g.c2).named("phase"))
            acc.assign(p.mma(sa, sb, acc).named("d"))
            p.barrier()
        h = acc.named("acc").cast("bf16").named("h")
        p.store(h, p.tile(g.C, [g.bx, g.by], [bm, bn]).named("tc"))
    return p.module


def pipeline(ws: bool = False, persistent: int = 0, rolled: bool = False) -> str:
    """The passes `compile_plain` runs: the default ones (`software-pipeline` among
    them), with `ws` the warp specialiser before them (`persistent` over that many
    blocks), with `rolled` the pipeliner's (or the warp specialiser's) rolled form
    before them (one staged buffer per operand, mbarrier arrays, the stage and phase
    carried by the loops: the K loop's step appears once in the CUDA)."""
    if rolled:
        return "warp-specialize{rolled=true},default" if ws else "software-pipeline{rolled=true},default"
    if not ws:
        return "default"
    return f"warp-specialize{{persistent={persistent}}},default" if persistent else "warp-specialize,default"


def compile_plain(m: int, n: int, k: int, stages: int = 4, arch: str | None = None, ws: bool = False,
                  persistent: int = 0, rolled: bool = False, **kw):
    """`tilec.compile` of `gemm_plain(m, n, k, stages=stages, **kw)` (with `ws`,
    warp-specialised; `persistent` blocks; `rolled`, the pipeline's rolled form)."""
    import tilec

    return tilec.compile(gemm_plain(m, n, k, stages=stages, **kw), pipeline(ws, persistent, rolled), arch=arch)


EXAMPLE_SHAPE = (256, 256, 256)
"""The shape run on the CPU reference executor where there is no GPU."""


def main(argv: list[str]) -> int:
    from gemm_bf16 import run_and_check

    stages = 4
    ws = "--ws" in argv
    rolled = "--rolled" in argv
    persistent = 132 if "--persistent" in argv else 0  # the H100's multiprocessors; the GPU's own below
    argv = [a for a in argv if a not in ("--ws", "--persistent", "--rolled")]
    if persistent:
        try:
            import torch

            if torch.cuda.is_available():
                persistent = torch.cuda.get_device_properties(0).multi_processor_count
        except ImportError:
            pass
    if "--stages" in argv:
        i = argv.index("--stages")
        stages = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    m, n, k = (int(x) for x in argv[:3]) if len(argv) >= 3 else (4096, 4096, 4096)
    def build(m: int, n: int, k: int):
        return gemm_plain(m, n, k, stages=stages)

    return run_and_check(build, (m, n, k), EXAMPLE_SHAPE, "sm_90a", pipeline(ws, persistent, rolled))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
