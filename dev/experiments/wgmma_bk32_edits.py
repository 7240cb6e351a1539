"""Edits of the emitted CUDA of the failing bk32 GEMM (grouped, TMA-store epilogue, 4 stages,
1024 x 768 x 2048: the last wgmma of each tile is lost when the K steps are a multiple of the
stages; dev/experiments/wgmma_bk32_diag.py) that may make it right, to find the cause.

    python3 dev/experiments/wgmma_bk32_edits.py

Each variant's source is checked to differ from the original (the edit applied) and is
compiled past every cache. An experiment: nothing of the product changes."""

import re
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "python"))
import gemm_bf16_hopper  # noqa: E402

import tilec  # noqa: E402
from tilec.dialects.layout_mma import mma_error_bound  # noqa: E402
from tilec.runtime import cache as cache_mod  # noqa: E402

WAIT0 = 'asm volatile("wgmma.wait_group.sync.aligned 0;"'


def after_wait0(extra: str):
    def edit(src: str) -> str:
        i = src.index(WAIT0)
        j = src.index(':: "memory");', i) + len(':: "memory");')
        return src[:j] + "\n    " + extra + src[j:]
    return edit


def drain_loop(src: str) -> str:
    k = src.rfind("wgmma.wait_group.sync.aligned 1;", 0, src.index(WAIT0))
    return src[:k] + "wgmma.wait_group.sync.aligned 0;" + src[k + len("wgmma.wait_group.sync.aligned 1;"):]


VARIANTS = {
    "as-is": lambda s: s,
    "bar-after-wait0": after_wait0('asm volatile("bar.sync 1, 256;" ::: "memory");'),
    "fence-after-wait0": after_wait0('asm volatile("wgmma.fence.sync.aligned;" ::: "memory");'),
    "second-wait0": after_wait0('asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");'),
    "drain-loop": drain_loop,
    "all-wait0": lambda s: s.replace("wgmma.wait_group.sync.aligned 1;", "wgmma.wait_group.sync.aligned 0;"),
    "unrolled": lambda s: s.replace("#pragma unroll 1\n", "#pragma unroll\n"),
}
CURRENT = {"edit": VARIANTS["as-is"], "changed": None}
_orig = cache_mod.KernelCache.compile


def _compile(self, source, *a, **k):
    new = CURRENT["edit"](source)
    CURRENT["changed"] = new != source
    from tilec.runtime import nvrtc
    return nvrtc.compile_cuda(new, arch=k.get("arch") or nvrtc.device_arch(), options=k.get("options", ()))


cache_mod.KernelCache.compile = _compile

M, N, K = 1024, 768, 2048
g = torch.Generator(device="cuda").manual_seed(0)
a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16, generator=g)
b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16, generator=g)
exact = a.double() @ b.double()
mag = a.double().abs() @ b.double().abs()
gamma, _ = mma_error_bound(K, "bf16")
bound = gamma * mag + 2.0**-8 * (exact.abs() + gamma * mag)
for name, edit in VARIANTS.items():
    CURRENT["edit"] = edit
    module = gemm_bf16_hopper.gemm_hopper_ws(M, N, K, group=4, tma_epilogue=True, bk=32, stages=4)
    kernel = tilec.compile(module, "default")
    kernel = type(kernel)(kernel.artifact)  # tilec.compile keeps one Kernel per module: a fresh one compiles again
    out = []
    for _ in range(3):
        c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        kernel(a, b, c)
        torch.cuda.synchronize()
        bad = int((~((c.double() - exact).abs() <= bound)).sum())
        out.append(str(bad))
    print(f"RESULT {name:18s} edited={CURRENT['changed']} bad elements per run: {' '.join(out)}", flush=True)
