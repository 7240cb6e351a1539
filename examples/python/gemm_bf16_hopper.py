"""C = A @ B in bf16 on Hopper's warpgroup tensor cores (`wgmma`, f32 accumulation),
written in tilec's layouts; checked against torch.matmul within the documented MMA
tolerance.

    python examples/python/gemm_bf16_hopper.py [--ws] [M N K]     (default 4096 4096 4096)

The programs are the product's (`tilec.gemm_programs`, api/gemm_programs.py in the
repository; `tilec.matmul` picks among them by shape): `gemm_hopper(M, N, K)` builds
the program of examples/gemm_bf16_hopper.mlir with `tilec.Program` (that file is
`gemm_hopper(256, 256, 256)`, small enough for the CPU reference executor) for any M, N,
K with K and N multiples of 8: a ring of TMA loads into NVMMA-swizzled shared stages
completing on mbarriers, an asynchronous `layout.mma` (wgmma) per stage, the
accumulator rounded to bf16 and stored from its layout.

This is the schedule by hand: examples/python/gemm_plain.py writes the same GEMM as a
plain single-buffered loop and has the `software-pipeline` pass make this schedule of
it (or `warp-specialize` the cooperative form below, non-persistent); the programs
here stay as the golden kernels the passes' output is measured against.

`--ws` runs `gemm_hopper_ws` with `BEST_WS` instead: the warp-specialised form
(a producer warpgroup filling the ring, consumer warpgroups running the wgmma,
mbarriers "full" and "empty" per stage, `setmaxnreg`), persistent over the
multiprocessors in grouped tile order, with a stmatrix + TMA-store epilogue in column
chunks, written to examples/gemm_bf16_hopper_ws.mlir at `EXAMPLE_WS_SHAPE`.
`gemm_hopper_ws(..., pingpong=True)` is CUTLASS's pingpong schedule (two
consumer warpgroups on alternate tiles). benchmarks/NOTES.md has the measured speed.
"""

from __future__ import annotations

import sys

from tilec.gemm_programs import BEST_WS, gemm_hopper, gemm_hopper_ws

__all__ = ["BEST_WS", "EXAMPLE_SHAPE", "EXAMPLE_WS_SHAPE", "gemm_hopper", "gemm_hopper_ws", "main"]

EXAMPLE_SHAPE = (256, 256, 256)
"""The shape of examples/gemm_bf16_hopper.mlir."""

EXAMPLE_WS_SHAPE = (256, 256, 512)
"""The shape of examples/gemm_bf16_hopper_ws.mlir (`BEST_WS`: 2 tiles of 128 x 256, 8
K steps each, two rounds of the 4-stage ring)."""


def main(argv: list[str]) -> int:
    from gemm_bf16 import run_and_check  # this script's folder is on sys.path

    ws = "--ws" in argv
    argv = [a for a in argv if a != "--ws"]
    m, n, k = (int(x) for x in argv[:3]) if len(argv) >= 3 else (4096, 4096, 4096)
    if ws:
        best = dict(BEST_WS)
        try:
            import torch

            if torch.cuda.is_available():
                best["persistent"] = torch.cuda.get_device_properties(0).multi_processor_count
        except ImportError:
            pass

        def build(m: int, n: int, k: int) -> str:
            return gemm_hopper_ws(m, n, k, **best)

        return run_and_check(build, (m, n, k), EXAMPLE_WS_SHAPE, "sm_90a")
    return run_and_check(gemm_hopper, (m, n, k), EXAMPLE_SHAPE, "sm_90a")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
