"""lower-to-gpu: each lit input (tests/filecheck/lower-to-gpu) is lowered, printed as
CUDA and compiled with NVRTC for sm_90, and the lowered program is run on the CPU
reference executor and compared with what the program must compute (and, where the
executor runs the layout dialect, with the program before the pass)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tilec.support.diagnostics import TilecError
from tilec.compiler.pipeline import emit, parse_module, run_pipeline
from helpers.nvrtc import compile_sm90_or_skip

INPUTS = Path(__file__).resolve().parents[1] / "filecheck" / "lower-to-gpu"
def _lowers_alone(path: Path) -> bool:
    """A lit input of the pass itself: its first RUN line runs `-p lower-to-gpu` and
    expects success (the folder also holds whole-pipeline and error regressions)."""
    run = next(line for line in path.read_text().splitlines() if line.startswith("// RUN:"))
    return "-p lower-to-gpu" in run and "not tilec" not in run


CASES = sorted(p.stem for p in INPUTS.glob("*.mlir") if _lowers_alone(p))

# (scalar args, buffer sizes) for inputs with dynamic extents
ARGS = {"masked_tile": ({"m": 100, "gx": 2}, {"src": 128 * 64, "dst": 128 * 64}),
        "tma_clip": (None, {"src": 40 * 64, "dst": 40 * 64}),
        "tma_clip_tail": (None, {"src": 100 * 64, "dst": 100 * 64})}


def lowered(name: str):
    m = parse_module((INPUTS / f"{name}.mlir").read_text(), f"{name}.mlir")
    run_pipeline(m, "lower-to-gpu")
    return m


def _functions(m) -> list[str]:
    """The host functions of a lowered module (one per lit test function)."""
    from xdsl.dialects import func

    return [f.sym_name.data for f in m.body.block.ops if isinstance(f, func.FuncOp)]


MMA_SHAPES = {  # mma.mlir: (M, N, K) of each function's layout.mma
    "mma_64x32x32": (64, 32, 32), "mma_f16_one_warp": (16, 8, 16),
    "mma_tf32": (16, 16, 16), "mma_i8": (16, 8, 32),
    # mma_kwidth.mlir: operands of kWidth above the instruction's
    "bf16_kwidth4": (64, 32, 32), "bf16_kwidth8": (64, 32, 32), "i8_kwidth8": (32, 8, 64),
    "tf32_kwidth2": (32, 16, 16),
}


def _check_mma(fn: str, inp: dict, out: dict) -> None:
    """C = A @ B + C of the lit input's layout.mma, against NumPy: integers exactly,
    floats within one evaluation's bound (docs/testing.md)."""
    from tilec.dialects.layout_mma import mma_error_bound
    from tilec.runtime.reference.values import bf16_to_f32

    m, n, k = MMA_SHAPES[fn]
    a, b, c = (np.asarray(inp[x]) for x in ("pa", "pb", "pc"))
    if fn in ("mma_64x32x32", "bf16_kwidth4", "bf16_kwidth8"):
        a, b = bf16_to_f32(a), bf16_to_f32(b)
    if fn == "mma_f16_one_warp":
        c = np.zeros(m * n, np.float32)  # the accumulator is a splat of 0
    a, b, c = a.reshape(m, k), b.reshape(k, n), c.reshape(m, n)
    got = out["pc"].reshape(m, n)
    if fn in ("mma_i8", "i8_kwidth8"):
        want = a.astype(np.int64) @ b.astype(np.int64) + c
        np.testing.assert_array_equal(got, ((want + 2**31) % 2**32 - 2**31).astype(np.int32))
        return
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    gamma, _ = mma_error_bound(k, "f32" if fn in ("mma_tf32", "tf32_kwidth2") else "bf16")
    bound = gamma * (np.abs(c) + np.abs(a64) @ np.abs(b64))  # the executor reads tf32 as f32
    assert np.all(np.abs(got - (a64 @ b64 + c)) <= bound), f"@{fn}"


def _expected(name: str, fn: str, inp: dict) -> dict:
    if name == "async_tokens":  # two cp.async stages: x -> u, y -> v
        return {"u": inp["x"].copy(), "v": inp["y"].copy()}
    if name == "block_shape":  # each element holds its (x, y, z) in an (8,6,2):(1,8,48) view
        x, y, z = np.meshgrid(np.arange(8), np.arange(6), np.arange(2), indexing="ij")
        flat = lambda a: a.transpose(2, 1, 0).reshape(-1).astype(np.int32)  # noqa: E731
        return {"xs": flat(x), "ys": flat(y), "zs": flat(z)}
    if name == "mbarrier_array":  # TMA loads into shared stages only: the run's mbarrier checks are the test
        return {}
    src = inp["src"]
    dst = inp["dst"].copy()
    if name in ("memcpy_2d", "mojo_copy", "copy_async", "shuffle", "ldmatrix", "stmatrix_sm80", "tma", "griddep"):
        return {"dst": src.copy()}
    if name == "cp_async_load":  # @edges: the masked tiles copy the 200 x 136 tensor; @box: tile (x + 1, y) to (x, y)
        if fn == "edges":
            return {"dst": src.copy()}
        tiles = src.reshape(128, 128)
        out = np.zeros_like(tiles)
        out[:64] = tiles[64:]  # the tile past the end lands as zeros in rows 64-127
        return {"dst": out.reshape(-1)}
    if name == "cp_async_arrive":  # thread t: byte 511 - t of part 0 to dst[t], 1023 - t of part 1 to dst[512 + t]
        t = np.arange(32)
        dst[t], dst[512 + t] = src[511 - t], src[1023 - t]
        return {"dst": dst}
    if name == "cluster":  # block b: its cluster's 64 rows of src (zeros past row 100) in its 64 rows of dst
        padded = np.zeros((128, 24), src.dtype)
        padded[:100] = src.reshape(100, 24)
        return {"dst": np.concatenate([padded[64 * (b // 2): 64 * (b // 2) + 64] for b in range(4)]).reshape(-1)}
    if name == "cluster_half_box":  # each block's buffer holds rows 0-63 (two multicast halves); both store it
        rows = src.reshape(128, 32)[:64]
        return {"dst": np.concatenate([rows, rows]).reshape(-1)}
    if name == "copy_async_swizzled":  # through swizzled smem; the static stage copies rows 64-127
        lo = 0 if fn == "swizzled_stages" else 64 * 64
        dst[lo:] = src[lo:]
        return {"dst": dst}
    if name == "host_value_in_branches":  # one block: both scf.if take the load of src
        return {"dst": src.copy(), "out": src.copy()}
    if name == "in_out_smem":
        return {"dst": src.reshape(256, 256).T.reshape(-1).copy()}
    if name == "masked_tile":
        n = 100 * 64
        dst[:n] = src[:n]
        return {"dst": dst}
    if name == "reduce":
        return {"dst": 2 * src.reshape(16, 32).astype(np.float64).sum(axis=1)}
    if name == "join_split" and fn == "interleave":
        x = src.reshape(32, 16)
        return {"dst": np.stack([x, x + x], axis=-1).reshape(-1)}
    if name == "join_split" and fn == "deinterleave":
        z = src.reshape(32, 16, 2)
        return {"dst": (z[..., 0] - z[..., 1]).reshape(-1)}
    if name == "reshape":
        return {"dst": src.copy()}
    if name == "permute":
        return {"dst": src.reshape(16, 32).T.reshape(-1).copy()}
    if name == "reduce_gluon_tutorial":  # both layouts: row sums of a 128x128 tensor
        return {"dst": src.reshape(128, 128).astype(np.float64).sum(axis=1)}
    if name == "reduce_warps":
        return {"dst": src.reshape(16, 32).astype(np.float64).sum(axis=0)}
    if name == "reduce_row_warps":  # one row each: its max (16 warps), sum (2 warps), max by a region
        n = {"row_max_16_warps": 8192, "row_sum_2_warps": 256, "row_argmax_region": 128}[fn]
        row = src[:n].astype(np.float64)
        return {"dst": np.array([row.sum() if fn == "row_sum_2_warps" else row.max()])}
    if name == "scf_tensors" and fn == "loop_sum":
        return {"dst": src.reshape(4, 512).sum(axis=0, dtype=np.float32)}
    if name == "scf_while":
        return {"dst": src.reshape(4, 512).sum(axis=0, dtype=np.float32)}
    if name == "tma_clip":  # the tensor's rows (40; at run time m = 37, `tilec.args`), nothing past them
        n = (40 if fn == "tma_clip" else 37) * 64
        want = inp["dst"].copy()
        want[:n] = inp["src"][:n]
        return {"dst": want}
    if name == "tma_clip_tail":  # the second 64-row box clipped to the rows left (m = 100): rows 64-99 only
        want = inp["dst"].copy()
        want[64 * 64: 100 * 64] = inp["src"][64 * 64: 100 * 64]
        return {"dst": want}
    if name == "tma_fill":  # three 8 x 32 boxes of the 8 x 80 view, each through its padded panel, stored masked
        return {"dst": src.copy()}
    if name == "tma_boxes_apart":  # the 96 x 128 buffer through shared memory in chunks, stored back whole
        return {"dst": src.copy()}
    if name == "tma_store_wait_before_store":  # the 100 x 120 tensor through shared memory to both outputs
        return {"dst": src.copy(), "dst2": src.copy()}
    if name == "scf_tensors" and fn == "branch":
        return {"dst": np.concatenate([src[:512] * src[:512], src[512:] + src[512:]])}
    raise KeyError(name)


@pytest.mark.parametrize("name", CASES)
def test_lowered_program_computes_the_copy(name):
    from tilec.runtime.reference import random_inputs, run

    m = lowered(name)
    args, sizes = ARGS.get(name, (None, None))
    for fn in _functions(m):
        inp = random_inputs(m, seed=0, entry=fn, args=args, sizes=sizes)
        out = run(m, inp, fn)
        if name in ("mma", "mma_kwidth"):
            _check_mma(fn, inp, out)
            continue
        for k, want in _expected(name, fn, inp).items():
            got = out[k]
            if name in ("reduce", "reduce_warps", "reduce_gluon_tutorial", "reduce_row_warps"):
                np.testing.assert_allclose(got, want, rtol=1e-5)
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"@{fn}")


@pytest.mark.parametrize("name", CASES)
def test_lowered_program_compiles_with_nvrtc(name):
    result = compile_sm90_or_skip(emit(lowered(name), "cuda"))
    assert "spill" not in result.log or "0 bytes spill stores" in result.log


@pytest.mark.parametrize("name", [c for c in CASES if c not in ARGS])
def test_pass_preserves(name):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from helpers.equivalence import assert_pass_preserves

    text = (INPUTS / f"{name}.mlir").read_text()
    for fn in _functions(lowered(name)):
        assert_pass_preserves(text, "lower-to-gpu", entry=fn)


def test_memcpy_uses_16_byte_accesses_and_32_bit_indices():
    src = emit(lowered("memcpy_2d"), "cuda")
    assert src.count("reinterpret_cast<const f32x4*>") == 8
    assert src.count("reinterpret_cast<f32x4*>") == 8
    assert "long long" not in src


def test_unsupported_conversion_is_a_tilec_error():
    text = (INPUTS.parent.parent.parent / "examples" / "gluon_in_out_layouts.mlir").read_text()
    m = parse_module(text, "in_out.mlir")
    with pytest.raises(TilecError, match="lower-convert-layout"):
        run_pipeline(m, "lower-to-gpu")


def test_copy_outside_a_launch_is_a_tilec_error():
    text = (INPUTS.parent.parent.parent / "examples" / "memcpy_1d.mlir").read_text()
    m = parse_module(text, "memcpy_1d.mlir")
    with pytest.raises(TilecError, match="outside a layout.launch"):
        run_pipeline(m, "lower-to-gpu")
