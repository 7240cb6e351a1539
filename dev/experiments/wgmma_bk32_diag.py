"""Where the warp-specialised GEMM goes wrong at bk = 32 with the TMA-store epilogue
(tests/gpu/test_wgmma_gpu.py::test_hopper_ws_gemm_schedules[grouped-tma-bk32]).

    python3 dev/experiments/wgmma_bk32_diag.py

For each configuration, 3 runs of 1024 x 768 x 2048 bf16 (output poisoned with NaN):
how many elements are outside the MMA bound, in which tiles of C, which rows of a tile
modulo 64 (a warpgroup's rows; warp = row // 16), and whether the error of the worst
element is one K step's product (the K step whose partial product best explains it).
An experiment: nothing of the product changes. One RESULT line per configuration."""

import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
import gemm_bf16_hopper  # noqa: E402

import tilec  # noqa: E402
from tilec.dialects.layout_mma import mma_error_bound  # noqa: E402

M, N, K = 1024, 768, 2048
BASE = {"group": 4, "tma_epilogue": True, "bk": 32, "stages": 4}
CONFIGS = {
    "base": BASE,
    "stages2": {**BASE, "stages": 2},
    "stages3": {**BASE, "stages": 3},
    "stages5": {**BASE, "stages": 5},
    "bk64-stages2": {**BASE, "bk": 64, "stages": 2},
    "K1984": {**BASE, "K": 1984},
    "K2016": {**BASE, "K": 2016},
}

g = torch.Generator(device="cuda").manual_seed(0)
a_full = torch.randn(M, K, device="cuda", dtype=torch.bfloat16, generator=g)
b_full = torch.randn(K, N, device="cuda", dtype=torch.bfloat16, generator=g)

for name, kw in CONFIGS.items():
    kw = dict(kw)
    K = kw.pop("K", 2048)
    a, b = a_full[:, :K].contiguous(), b_full[:K].contiguous()
    a64, b64 = a.double(), b.double()
    exact = a64 @ b64
    mag = a64.abs() @ b64.abs()
    gamma, _ = mma_error_bound(K, "bf16")
    bound = gamma * mag + 2.0**-8 * (exact.abs() + gamma * mag)
    try:
        kernel = tilec.compile(gemm_bf16_hopper.gemm_hopper_ws(M, N, K, **kw), "default")
    except Exception as e:  # noqa: BLE001
        print(f"RESULT {name:14s} build error {type(e).__name__}: {str(e)[:100]}", flush=True)
        continue
    bk, bm, bn = kw.get("bk", 64), kw.get("bm", 128), kw.get("bn", 256)
    lines = []
    for run in range(3):
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        kernel(a, b, c)
        torch.cuda.synchronize()
        err = (c.double() - exact).abs()
        bad = ~(err <= bound)
        nbad = int(bad.sum())
        if nbad == 0:
            lines.append("ok")
            continue
        idx = bad.nonzero()
        tiles = sorted({(int(r) // bm, int(col) // bn) for r, col in idx.tolist()})
        rows = sorted({int(r) % 64 for r in idx[:, 0].tolist()})
        warps = sorted({x // 16 for x in rows})
        wg = sorted({(int(r) % bm) // 64 for r in idx[:, 0].tolist()})
        nan = int(torch.isnan(c).sum())
        r0, c0 = (int(x) for x in torch.nonzero(err == err[bad].max())[0])
        diff = float(c[r0, c0].double() - exact[r0, c0])
        steps = (a64[r0, :].view(-1, bk) * b64[:, c0].view(-1, bk)).sum(1)
        best = int((steps - diff).abs().argmin())
        # the error of row r0 over all columns as a combination of the K steps' products
        parts = torch.stack([a64[r0, j * bk:(j + 1) * bk] @ b64[j * bk:(j + 1) * bk, :] for j in range(K // bk)], 1)
        coef = torch.linalg.lstsq(parts, (c[r0].double() - exact[r0])[:, None]).solution[:, 0]
        big = [(j, round(float(coef[j]), 2)) for j in range(coef.numel()) if abs(float(coef[j])) > 0.3]
        lines.append(f"bad={nbad} nan={nan} tiles={tiles[:6]}{'...' if len(tiles) > 6 else ''} ntiles={len(tiles)} "
                     f"wgs={wg} warps={warps} worst=({r0},{c0}) diff={diff:.2f} "
                     f"kstep={best} step={float(steps[best]):.2f} coef={big[:12]}")
    print(f"RESULT {name:14s} " + " | ".join(lines), flush=True)
