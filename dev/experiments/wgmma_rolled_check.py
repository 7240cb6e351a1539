"""Which form of the warp-specialised GEMM's consumer K loop computes wrong results
(tests/gpu/test_wgmma_gpu.py::test_hopper_ws_gemm_schedules[grouped-tma-bk32] fails since
the CUDA target keeps that loop rolled, `#pragma unroll 1`).

    python3 dev/experiments/wgmma_rolled_check.py

Runs the GEMM (1024 x 768 x 2048, bf16, checked against float64 by gemm_bf16.run_and_check)
per configuration with the emitted CUDA as is, with the rolled loops unrolled again, and
rolled with the loop's last `wgmma.wait_group 1` made `wait_group 0` (no group in flight
across the back-edge). An experiment: nothing of the product changes."""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
import gemm_bf16  # noqa: E402
import gemm_bf16_hopper  # noqa: E402
from tilec.runtime import cache as cache_mod  # noqa: E402

VARIANT = {"name": "as-is"}


def unrolled(src: str) -> str:
    return src.replace("#pragma unroll 1\n", "#pragma unroll\n")


def drain_last_wait(src: str) -> str:
    """In each `#pragma unroll 1` loop, the last `wait_group ... 1;` becomes 0."""
    out, pos = [], 0
    for m in re.finditer(r"#pragma unroll 1\n", src):
        start = m.end()
        depth, i = 0, src.index("{", start)
        j = i
        while True:
            if src[j] == "{":
                depth += 1
            elif src[j] == "}":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        body = src[i:j]
        k = body.rfind("wgmma.wait_group.sync.aligned 1;")
        if k >= 0:
            body = body[:k] + "wgmma.wait_group.sync.aligned 0;" + body[k + len("wgmma.wait_group.sync.aligned 1;"):]
        out.append(src[pos:i] + body)
        pos = j
    out.append(src[pos:])
    return "".join(out)


TRANSFORMS = {"as-is": lambda s: s, "unrolled": unrolled, "rolled-drained": drain_last_wait}
_orig = cache_mod.KernelCache.compile


def _compile(self, source, *a, **k):
    return _orig(self, TRANSFORMS[VARIANT["name"]](source), *a, **k)


cache_mod.KernelCache.compile = _compile

CONFIGS = {
    "grouped-tma-bk32": {"group": 4, "tma_epilogue": True, "bk": 32, "stages": 4},
    "grouped-tma-bk64": {"group": 4, "tma_epilogue": True, "bk": 64, "stages": 4},
    "bk32-no-tma": {"group": 4, "tma_epilogue": False, "bk": 32, "stages": 4},
    "bk32-stages2": {"group": 4, "tma_epilogue": True, "bk": 32, "stages": 2},
}
for cname, kw in CONFIGS.items():
    for vname in TRANSFORMS:
        VARIANT["name"] = vname
        try:
            rc = gemm_bf16.run_and_check(lambda m, n, k: gemm_bf16_hopper.gemm_hopper_ws(m, n, k, **kw),
                                         (1024, 768, 2048), (256, 256, 512), "sm_90a")
            verdict = "ok" if rc == 0 else "WRONG"
        except Exception as e:  # noqa: BLE001
            verdict = f"error {type(e).__name__}: {str(e)[:120]}"
        print(f"RESULT {cname:18s} {vname:15s} {verdict}", flush=True)
