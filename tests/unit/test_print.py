"""layout.print (CuTe's print_tensor, Mojo's print(tile)): the text the reference
executor prints is the view's values as NumPy holds them, formatted as printf does;
the lowered program (cuda.printf) prints the same text; its CUDA compiles under NVRTC;
on a GPU the device printf output is the executor's, character for character; the
builder's `p.print`."""

import re

import numpy as np
import pytest

import tilec
from helpers.nvrtc import compile_sm90_or_skip
from tilec.dialects.layout_print import PRINT_LIMIT, PRINTF_VALUES, print_plan
from tilec.support.diagnostics import TilecError


def _program(rows=4, cols=8, dtype="f32", tile=(4, 8), vector=None, space="gmem"):
    """A 2x2 grid of blocks over a (2*rows)x(2*cols) row-major tensor; every thread
    reaches layout.print of its block's tile (or, with space="smem", of a shared copy
    of it, or, with vector, of the tile vectorized)."""
    p = tilec.Program("show")
    a = p.view(p.pointer("src", dtype, align=16), f"({2 * rows},{2 * cols}):({2 * cols},1)")
    with p.launch(grid=(2, 2, 1), threads=32) as k:
        t = p.tile(a, (k.by, k.bx), tile)
        if space == "smem":
            s = p.alloc(f"({tile[0]},{tile[1]}):({tile[1]},1)", dtype, "smem")
            p.copy(t, s)
            p.barrier()
            t = s
        if vector is not None:
            t = p.vectorize(t, vector)
        p.print(t)
    return p


def _expected_text(values: np.ndarray, header: str, fmt: str) -> str:
    """The matrix as the module docstring of dialects/layout_print.py says: one row per
    row, values with `fmt` separated by spaces."""
    lines = [header]
    for row in values:
        lines.append(" ".join(fmt % (float(x) if fmt.endswith("g") else int(x)) for x in row))
    return "\n".join(lines) + "\n"


def _run(p, inputs, capsys):
    capsys.readouterr()
    tilec.run_reference(p, inputs)
    return capsys.readouterr().out


def test_executor_prints_block_zeros_tile_as_numpy_holds_it(capsys):
    src = np.random.default_rng(0).standard_normal(8 * 16).astype(np.float32)
    out = _run(_program(), {"src": src}, capsys)
    want = _expected_text(src.reshape(8, 16)[:4, :8], "gmem_ptr[32b] o (4,8):(16,1):", "%10.4g")
    assert out == want  # once: only thread 0 of block 0 prints


def test_executor_prints_integers_and_shared_memory(capsys):
    src = np.arange(8 * 16, dtype=np.int32) - 50
    out = _run(_program(dtype="i32", space="smem"), {"src": src}, capsys)
    assert out == _expected_text(src.reshape(8, 16)[:4, :8], "smem_ptr[32b] o (4,8):(8,1):", "%6d")


def test_executor_prints_vectors_in_brackets(capsys):
    src = np.arange(8 * 16, dtype=np.float32)
    out = _run(_program(vector=(1, 4)), {"src": src}, capsys)
    lines = out.splitlines()
    assert lines[0] == "gmem_ptr[32b] o (4,2):(16,4) vec (1,4):(16,1):"
    rows = src.reshape(8, 16)[:4, :8]
    for r, line in enumerate(lines[1:]):
        vecs = [rows[r, 4 * j: 4 * j + 4] for j in range(2)]
        assert line == " ".join("[" + " ".join("%10.4g" % x for x in v) + "]" for v in vecs)
    assert len(lines) == 5


def test_bf16_prints_its_float_value(capsys):
    from tilec.runtime.reference.values import f32_to_bf16

    x = np.linspace(-2, 2, 8 * 16, dtype=np.float32)
    bits = f32_to_bf16(x)
    out = _run(_program(dtype="bf16"), {"src": bits}, capsys)
    from tilec.runtime.reference.values import bf16_to_f32

    want = _expected_text(bf16_to_f32(bits).reshape(8, 16)[:4, :8], "gmem_ptr[16b] o (4,8):(16,1):", "%10.4g")
    assert out == want


BLOCKED = ("#layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [2, 1], "
           "order = [1, 0]}>")


def _distributed_program(dtype="f32"):
    """A 16x8 tile per block of a 32x8 tensor, loaded into a blocked layout over 64
    threads (2 warps) and printed (Gluon's gl.device_print)."""
    p = tilec.Program("show_distributed")
    a = p.view(p.pointer("src", dtype, align=16), "(32,8):(8,1)")
    with p.launch(grid=(2, 1, 1), threads=64) as k:
        t = p.tile(a, (k.bx, 0), (16, 8))
        x = p.load(t, BLOCKED)
        p.print(x)
    return p


def _parse_distributed(text: str):
    """{(tid, i, j): value} of the per-thread lines, and the header."""
    header, *lines = text.splitlines()
    got = {}
    for line in lines:
        m = re.fullmatch(r"tid +(\d+) idx \((\d+), (\d+)\): +(\S+)", line)
        assert m, line
        got[tuple(int(g) for g in m.groups()[:3])] = m.group(4)
    return header, got


def test_executor_prints_each_threads_registers_with_their_coordinates(capsys):
    src = np.random.default_rng(3).standard_normal(32 * 8).astype(np.float32)
    out = _run(_distributed_program(), {"src": src}, capsys)
    header, got = _parse_distributed(out)
    assert header == f"tensor<16x8xf32, {BLOCKED}> in block 0, per thread:"
    block0 = src.reshape(32, 8)[:16]
    # thread t = 32 w + 4 r + c holds row 8 w + r, columns 2c and 2c + 1: every element once
    want = {}
    for t in range(64):
        w, lane = divmod(t, 32)
        r, c = divmod(lane, 4)
        for j in (2 * c, 2 * c + 1):
            want[(t, 8 * w + r, j)] = "%.4g" % block0[8 * w + r, j]
    assert got == want
    assert list(got) == sorted(got)  # threads in order, registers in order


def test_lowered_distributed_print_has_the_same_lines(capsys):
    src = np.random.default_rng(4).standard_normal(32 * 8).astype(np.float32)
    p = _distributed_program()
    before = _run(p, {"src": src}, capsys)
    after = _run(tilec.compile(p, arch="sm_90"), {"src": src}, capsys)
    assert sorted(before.splitlines()) == sorted(after.splitlines())
    assert len(before.splitlines()) == 1 + 128


def test_long_rows_are_printed_in_pieces_of_whole_elements():
    """CUDA's printf takes at most 32 arguments: a 1x64 row is three printf calls whose
    texts join into one line."""
    p = _program(rows=1, cols=64, tile=(1, 64))
    t = next(op for op in p.module.walk() if op.name == "layout.print").view.type
    plan = print_plan(t)
    assert [len(line.values) for line in plan] == [0, PRINTF_VALUES, PRINTF_VALUES, 64 - 2 * PRINTF_VALUES]
    assert plan[-1].format.endswith("\n") and not plan[1].format.endswith("\n")
    assert [k for line in plan for k in line.values] == list(range(64))


def test_lowered_program_prints_the_same_text(capsys):
    src = np.random.default_rng(1).standard_normal(8 * 16).astype(np.float32)
    for kw in ({}, {"vector": (1, 4)}, {"space": "smem"}):
        p = _program(**kw)
        before = _run(p, {"src": src}, capsys)
        k = tilec.compile(p, arch="sm_90")
        after = _run(k, {"src": src}, capsys)
        assert before == after and before.count("\n") == 5, kw


def test_cuda_of_print_compiles_with_nvrtc():

    programs = [_program(**kw) for kw in ({}, {"vector": (1, 4)}, {"space": "smem", "dtype": "i32"}, {"dtype": "bf16"})]
    for p in programs + [_distributed_program(), _distributed_program("i64")]:
        src = tilec.compile(p, arch="sm_90").source
        assert "printf(" in src
        assert len(compile_sm90_or_skip(src).cubin) > 0


def test_limit_is_a_located_error():
    p = tilec.Program("big")
    a = p.view(p.pointer("src", "f32"), "(64,64):(64,1)")
    with p.launch(grid=(1, 1, 1), threads=32):
        p.print(a)
    with pytest.raises(TilecError, match=f"at most {PRINT_LIMIT} values"):
        tilec.compile(p, arch="sm_90")


def _flush_c_stdout():
    """The driver writes device printf output with C's stdio at the synchronisation;
    into a file (pytest's capture) it is buffered until flushed."""
    import ctypes

    ctypes.CDLL(None).fflush(None)


@pytest.mark.gpu
@pytest.mark.parametrize("kw", [{}, {"vector": (1, 4)}, {"space": "smem", "dtype": "i32"}, {"dtype": "bf16"}],
                         ids=["f32", "vectors", "smem_i32", "bf16"])
def test_device_printf_is_the_executors_text(kw, capfd):
    """Device printf writes to the process's stdout (fd 1) at the synchronisation."""
    import cupy as cp

    from tilec.runtime.reference.values import f32_to_bf16

    dtype = kw.get("dtype", "f32")
    x = np.random.default_rng(2).standard_normal(8 * 16).astype(np.float32)
    src = {"f32": x, "i32": (x * 100).astype(np.int32), "bf16": f32_to_bf16(x)}[dtype]
    p = _program(**kw)
    capfd.readouterr()
    tilec.run_reference(p, {"src": src})
    want = capfd.readouterr().out
    k = tilec.compile(p)
    k(cp.asarray(src))
    cp.cuda.Device().synchronize()
    _flush_c_stdout()
    got = capfd.readouterr().out
    assert got == want


@pytest.mark.gpu
def test_device_printf_of_a_distributed_tensor_is_the_executors_lines(capfd):
    """The lines of different threads come in the GPU's order: compared sorted."""
    import cupy as cp

    src = np.random.default_rng(5).standard_normal(32 * 8).astype(np.float32)
    p = _distributed_program()
    capfd.readouterr()
    tilec.run_reference(p, {"src": src})
    want = capfd.readouterr().out
    tilec.compile(p)(cp.asarray(src))
    cp.cuda.Device().synchronize()
    _flush_c_stdout()
    got = capfd.readouterr().out
    assert sorted(got.splitlines()) == sorted(want.splitlines())
