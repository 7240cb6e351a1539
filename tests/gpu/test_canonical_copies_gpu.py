"""The canonical copies (tests/helpers/canonical_copies.py) at --quick size on the GPU:
`tilec.copy_` and the Program of the same views (-p default), both bit for bit against
PyTorch's `copy_`, outputs poisoned first (benchmarks/canonical_copy_bench.py times
them).

    python -m pytest -m "gpu or torch" tests/gpu/test_canonical_copies_gpu.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers.canonical_copies import CANONICAL

import tilec

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import canonical_copy_bench as bench  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.torch
@pytest.mark.parametrize("case", CANONICAL, ids=lambda c: c.name.replace(" ", "_"))
def test_both_paths_match_torch_bit_for_bit(case):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    from tilec.copy_plan import Operand, plan_copy

    gen = torch.Generator(device="cuda").manual_seed(0)
    base, src, dst = bench._make(torch, bench.quick_case(case), gen)
    want = torch.empty_like(dst).copy_(src)
    bench._poison(torch, dst)
    tilec.copy_(dst, src)
    torch.cuda.synchronize()
    assert torch.equal(bench._bits(torch, dst), bench._bits(torch, want)), "copy_"

    def op(t):
        return Operand(t.data_ptr(), str(t.dtype).replace("torch.", ""), tuple(t.shape), t.stride())

    plan = plan_copy(op(dst), op(src))
    from helpers.canonical_copies import program_of

    kernel = tilec.compile(program_of(plan, src.data_ptr(), dst.data_ptr()))
    a, b = bench._program_args(torch, src, dst, plan, base)
    bench._poison(torch, dst)
    kernel(a, b)
    torch.cuda.synchronize()
    assert torch.equal(bench._bits(torch, dst), bench._bits(torch, want)), "Program"


@pytest.mark.torch
@pytest.mark.parametrize("case", CANONICAL, ids=lambda c: c.name.replace(" ", "_"))
def test_forced_gather_strategy_matches_torch_bit_for_bit(case, routes):
    """Every canonical copy through `copy_` with the gather strategy forced
    (`copy-strategy{gather=always}`: compact and padded dsts, transposes, broadcasts,
    casts) and, where the cost model does not take it, also as it chooses: bit for bit
    against PyTorch."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    from helpers.canonical_copies import key_strategy

    from tilec.copy_kernels import CopyKernels

    gen = torch.Generator(device="cuda").manual_seed(1)
    _, src, dst = bench._make(torch, bench.quick_case(case), gen)
    want = torch.empty_like(dst).copy_(src)
    routes(gather="always")
    kernels = CopyKernels(disk=False)
    bench._poison(torch, dst)
    tilec.copy_(dst, src, kernels=kernels)
    torch.cuda.synchronize()
    assert torch.equal(bench._bits(torch, dst), bench._bits(torch, want))
    keys = list(kernels._entries)
    assert keys and all(k.rank < 2 or k.aligned_pointers or key_strategy(k) in ("gather", "box<flat>", "box<rows>", "box<cols>") for k in keys)


@pytest.mark.torch
@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("case", [c for c in CANONICAL if "8191x8209" in c.name and "float64" not in c.name],
                         ids=lambda c: c.name.replace(" ", "_"))
def test_tiles_box_through_several_tiles_a_block_matches_torch(case, depth):
    """The odd transposes' `box<tiles>` kernel with a block taking `depth` tiles along D
    through two boxes (`tile{tiles_depth=N}`: the next tile's cp.async in flight during
    this tile's phase 2; a last group of fewer tiles), the Program path at --quick size,
    bit for bit against PyTorch's `copy_`."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    gen = torch.Generator(device="cuda").manual_seed(2)
    base, src, dst = bench._make(torch, bench.quick_case(case), gen)
    want = torch.empty_like(dst).copy_(src)
    from tilec.copy_plan import plan_copy

    plan = plan_copy(bench._operand(dst), bench._operand(src))
    kernel, args = bench._program_kernel(torch, plan, src, dst, base, bench.variant_pipeline(f"tile{{tiles_depth={depth}}}"))
    bench._poison(torch, dst)
    kernel(*args)
    torch.cuda.synchronize()
    assert torch.equal(bench._bits(torch, dst), bench._bits(torch, want))


def _f64_odd():
    from helpers.canonical_copies import CanonicalCopy

    return [c for c in CANONICAL if c.name == "transpose float64 8191x8209"] + [
        CanonicalCopy(f"transpose float64 {a}x{b}", "float64", "float64", (a, b), (1, 0))
        for a, b in ((8191, 8191), (8192, 8209), (4099, 12289))]


@pytest.mark.torch
@pytest.mark.parametrize("grain", [16, 32])
@pytest.mark.parametrize("case", _f64_odd(), ids=lambda c: c.name.replace(" ", "_"))
def test_tiles_box_of_8_byte_elements_matches_torch(case, grain, routes):
    """The odd f64 transposes through the `box<tiles>` kernel of 8-byte elements (phase 1
    one 8-byte `cp.async` an element, odd44): `tilec.copy_` under `tiles_bytes=8` (and
    the grain) and the Program through `copy-strategy{tiles_bytes=8}+tile{tiles_grain=G}`,
    at --quick size, bit for bit against PyTorch's `copy_`."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    from helpers.canonical_copies import key_strategy

    from tilec import tensor_copy
    from tilec.copy_kernels import CopyKernels
    from tilec.copy_plan import plan_copy

    gen = torch.Generator(device="cuda").manual_seed(3)
    base, src, dst = bench._make(torch, bench.quick_case(case), gen)
    want = torch.empty_like(dst).copy_(src)
    plan = plan_copy(bench._operand(dst), bench._operand(src))  # the rule's plan; the variant's passes take the box
    kernel, args = bench._program_kernel(torch, plan, src, dst, base,
                                         bench.variant_pipeline(f"copy-strategy{{tiles_bytes=8}}+tile{{tiles_grain={grain}}}"))
    bench._poison(torch, dst)
    kernel(*args)
    torch.cuda.synchronize()
    assert torch.equal(bench._bits(torch, dst), bench._bits(torch, want)), "Program"
    routes(tiles_bytes=8, tiles_grain=grain)
    kernels = CopyKernels(disk=False)
    bench._poison(torch, dst)
    tensor_copy.copy_(dst, src, kernels=kernels)  # (`tilec.copy_` takes no kernels before its first call)
    torch.cuda.synchronize()
    assert torch.equal(bench._bits(torch, dst), bench._bits(torch, want)), "copy_"
    # at --quick size 8192 x 8209 and 4099 x 12289 become 2048 x 2052 and 1024 x 3072: rows of whole
    # 16-byte vectors, which copy_ gives the tiled kernel before any box (as on the H200, session 44)
    aligned = case.name.endswith(("8192x8209", "4099x12289"))
    assert [key_strategy(k) for k in kernels._entries] == ["tiled" if aligned else "box<tiles>"]
