"""dev/experiments/epilogue_stamps.py's rewrites of SiLU's quotients (issue 39, epi49): `#rf<k>`
(`rcp_fma`: k of every 6 quotients whose 2^x is `ex2.approx` by `probe_div_fma`, the reciprocal
on the FMA pipe), `#pr<k>` / `#pa` (`div_pairs`: two quotients on consecutive lines through one
`rcp.approx`); the FMA reciprocal's error over every mantissa (f32 steps emulated on the CPU, each
fma rounded once); the rewritten rule's kernel compiles through NVRTC without spills where NVRTC
is present."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "dev", "experiments"))
import epilogue_stamps  # noqa: E402

HEAD = ("__device__ __forceinline__ float tilec_ex2_approx_ftz(float x);\n"
        "__device__ __forceinline__ float tilec_ex2_fma(float x);\n")


def _silu_block(n: int, fma_every: int = 4) -> str:
    """n elements in the rule's order: 2^x (on the FMA pipe where i % fma_every == 0), + 1, quotients."""
    lines = [f"      const float t_{200 + i} = {'tilec_ex2_fma' if i % fma_every == 0 else 'tilec_ex2_approx_ftz'}"
             f"(t_{100 + i});" for i in range(n)]
    lines += [f"      const float t_{300 + i} = t_{200 + i} + 1.0f;" for i in range(n)]
    lines += [f"      const float t_{400 + i} = tilec_div_approx_ftz(t_{i}, t_{300 + i});" for i in range(n)]
    return HEAD + "\n".join(lines) + "\n"


def test_rcp_fma_takes_k_of_every_6_quotients_whose_exp2_is_mufu():
    src = _silu_block(16)  # 12 on MUFU (i % 4 != 0)
    out = epilogue_stamps.rcp_fma(src, 2)
    calls = [ln for ln in out.splitlines() if "probe_div_fma(t_" in ln]
    # the MUFU ones in order: 1 2 3 5 6 7 | 9 10 11 13 14 15: the first two of each six
    assert [ln.split()[2] for ln in calls] == ["t_401", "t_402", "t_409", "t_410"]
    assert out.count("__device__ __forceinline__ float probe_div_fma(") == 1
    with pytest.raises(ValueError, match="no division"):
        epilogue_stamps.rcp_fma(HEAD, 1)


def test_div_pairs_share_a_reciprocal_on_consecutive_lines():
    src = _silu_block(8)  # MUFU: 1 2 3 5 6 7 -> pairs (1, 2), (5, 6); 3 and 7 are followed by an FMA one
    out = epilogue_stamps.div_pairs(src, 3)
    assert "const float2 pp_t_401 = probe_div_pair(t_1, t_301, t_2, t_302); const float t_401 = pp_t_401.x;" in out
    assert "      const float t_402 = pp_t_401.y;" in out
    assert out.count("probe_div_pair(t_") == 2 and out.count("tilec_div_approx_ftz(t_") == 4
    assert epilogue_stamps.div_pairs(src, 1).count("probe_div_pair(t_") == 1  # 1 of every 3 pairs
    every = epilogue_stamps.div_pairs(src, 3, any_exp2=True)  # `#pa`: 0-1, 2-3, 4-5, 6-7
    assert every.count("probe_div_pair(t_") == 4 and every.count("tilec_div_approx_ftz(t_") == 0


def _fma(a, b, c):
    """f32 fma, rounded once (the f32 product is exact in float64; the sum rounded to float64
    first differs from one rounding only on ties of the float64 sum, none here)."""
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)


@pytest.mark.parametrize("exponent", [0, 1, 63, 124])
def test_the_fma_reciprocal_is_within_2_to_the_minus_23_point_6_below_2_to_the_125(exponent):
    mant = np.arange(2**23, dtype=np.uint32)
    d = ((np.uint32(127 + exponent) << np.uint32(23)) | mant).view(np.float32)
    r = (np.uint32(0x7EF311C3) - d.view(np.uint32)).view(np.float32)  # probe_div_fma's steps
    e = _fma(-d, r, np.float32(1))
    r = _fma(r, _fma(e, e, e), r)
    e = _fma(-d, r, np.float32(1))
    r = _fma(r, e, r)
    err = np.abs(r.astype(np.float64) * d.astype(np.float64) - 1).max()
    assert err < 2.0**-23.6


def test_the_rewritten_rule_kernel_compiles_without_spills():
    nvrtc = pytest.importorskip("tilec.runtime.nvrtc")
    from tilec import gemm
    from tilec.gemm_programs import Epilogue

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
    from matmul_bench import parse_config

    cfg = parse_config("128x256x64:4:c128:st1:bsm:fe2")
    key = gemm.MatmulKey(config=cfg, n=28672, k=4096, dtype="bf16", sms=132, index_bits=32,
                         epilogue=Epilogue(bias=True, activation="silu", exp2_fma=2))
    from tilec.compiling import compile_program

    source = compile_program(gemm.matmul_program(key), "default").source
    for rewritten in (epilogue_stamps.div_pairs(source, 3, any_exp2=True), epilogue_stamps.rcp_fma(source, 2)):
        try:
            log = str(nvrtc.compile_cuda(rewritten, arch="sm_90a", options=("--fmad=false",)).log)
        except OSError:
            pytest.skip("no NVRTC here")
        assert "0 bytes spill stores" in log


def test_epilogue_window_takes_each_region_past_its_last_wgmma_wait():
    """dev/experiments/epilogue_ncu.py's `epilogue_window` on a made-up source page."""
    import epilogue_ncu

    head = ['"Address","Source","Warp Stall Sampling (All Samples)","stall_wait","stall_mio"']
    body = [("HGMMA.64x128x16.F32.BF16 R24", 50, 0, 50), ("WARPGROUP.DEPBAR.LE gsb0, 0x0", 10, 10, 0),
            ("MUFU.EX2 R1, R2", 30, 10, 20), ("FMUL R1, R1, R3", 10, 10, 0), ("WARPGROUP.ARRIVE", 0, 0, 0),
            ("HGMMA.64x128x16.F32.BF16 R24", 100, 0, 100)]
    lines = head + [f'"0x{i:x}","{s}","{n}","{w}","{m}"' for i, (s, n, w, m) in enumerate(body)]
    (table,) = epilogue_ncu._sass_tables(['"Kernel Name","gemm_kernel",'] + lines)
    assert epilogue_ncu.epilogue_window(table) == ("epilogue window: 2 instructions, 20.0% of samples; "
                                                   "wait 50.0 mio 50.0")
