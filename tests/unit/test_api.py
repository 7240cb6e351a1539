"""The `tilec` package API (api/__init__.py): Programs are accepted wherever a module is,
`run_reference` runs a compiled Kernel's GPU-level module, `compile` leaves its input
alone, `gpu_available` never raises."""

import numpy as np
import pytest

import tilec
from tilec.runtime.launch import Kernel


def transpose_program(m=64, n=32) -> "tilec.Program":
    p = tilec.Program("transpose")
    src = p.pointer("src", "f32", align=16)
    dst = p.pointer("dst", "f32", align=16)
    p.copy(p.view(src, f"({m},{n}):({n},1)"), p.view(dst, f"({m},{n}):(1,{m})"))
    return p


def test_emit_takes_a_program():
    text = tilec.emit(transpose_program())
    assert "func.func @transpose" in text and "layout.copy" in text


def test_run_pipeline_takes_a_program_and_changes_its_module_in_place():
    p = transpose_program()
    returned = tilec.run_pipeline(p, "tile")
    assert returned is p.module
    assert "layout.launch" in tilec.emit(p)


def test_compile_takes_a_program_and_leaves_it_unchanged():
    p = transpose_program()
    before = tilec.emit(p)
    k = tilec.compile(p)
    assert isinstance(k, Kernel) and k.name == "transpose"
    assert "__global__" in k.source
    assert tilec.emit(p) == before


def test_run_reference_of_program_text_module_and_kernel_agree_with_numpy():
    p = transpose_program()
    x = np.arange(64 * 32, dtype=np.float32).reshape(64, 32)
    y = np.full((32, 64), np.nan, np.float32)
    inputs = {"src": x, "dst": y}
    kernel = tilec.compile(p)
    for program in (p, tilec.emit(p), tilec.parse(tilec.emit(p)), kernel):
        out = tilec.run_reference(program, inputs)
        np.testing.assert_array_equal(out["dst"], x.T)
        assert out["dst"].shape == (32, 64)
    assert np.isnan(y).all(), "inputs are never changed"


def test_run_reference_of_a_kernel_runs_the_gpu_level_module():
    kernel = tilec.compile(transpose_program())
    x = np.zeros((64, 32), np.float32)
    y = np.zeros((32, 64), np.float32)
    from tilec.runtime.reference import ExecutionError

    # a GPU-level module's buffers are memrefs of a static size; a layout-level one
    # would fail at the first out-of-bounds element instead
    with pytest.raises(ExecutionError, match=r"gpu.launch_func.*memref<2048xf32>"):
        tilec.run_reference(kernel, {"src": x[:10], "dst": y})


def test_run_reference_positional_inputs():
    x = np.arange(64 * 32, dtype=np.float32)
    y = np.full(64 * 32, np.nan, np.float32)  # poisoned: x[0] is 0
    out = tilec.run_reference(transpose_program(), [x, y])
    np.testing.assert_array_equal(out["dst"], x.reshape(64, 32).T.reshape(-1))


def test_compile_with_arch_compiles_now_without_a_gpu():
    kernel = tilec.compile(transpose_program(), arch="sm_90")
    assert len(kernel.cubin) > 0


def test_gpu_available_agrees_with_the_device_count():
    import cupy

    try:
        expected = cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        expected = False
    assert tilec.gpu_available() is expected


def test_gpu_available_is_false_when_cupy_fails(monkeypatch):
    import cupy

    def broken():
        raise RuntimeError("no driver")

    monkeypatch.setattr(cupy.cuda.runtime, "getDeviceCount", broken)
    assert tilec.gpu_available() is False


def test_program_is_exported_and_unknown_names_raise():
    from tilec.compiler.builder import Program

    assert tilec.Program is Program
    with pytest.raises(AttributeError):
        tilec.no_such_thing


def test_lazy_entry_points_take_every_keyword_of_their_implementation():
    """`tilec.matmul` and `tilec.attention` load their implementation on first call;
    the stand-in must accept each of its user keywords (a stale stand-in once refused
    FP8's `scale_a`)."""
    import inspect

    from tilec.attention_op import attention
    from tilec.gemm import matmul

    internal = {"config", "out", "lse"}  # attention's tuning and replay keywords
    for standin, impl in ((tilec.matmul, matmul), (tilec.attention, attention)):
        if standin is impl:  # already replaced by a first call
            continue
        theirs = [p for p in inspect.signature(impl).parameters if standin is tilec.matmul or p not in internal]
        assert list(inspect.signature(standin).parameters) == theirs


def test_attention_hands_a_strided_tensor_its_whole_span():
    """`tilec.attention` on (B, S, H, D) memory passes the kernel each tensor's flat span,
    from its first element to its last (1 + sum((extent - 1) * stride)), the kernel taking
    the strides as arguments; a contiguous tensor goes as it is. (A stand-in tensor: no
    PyTorch here.)"""
    from tilec.attention_op import _flat

    class Strided:
        def __init__(self, shape, stride, contiguous=False):
            self.shape, self._stride, self._contiguous, self.viewed = shape, stride, contiguous, None

        def is_contiguous(self):
            return self._contiguous

        def stride(self):
            return self._stride

        def as_strided(self, size, stride):
            self.viewed = (size, stride)
            return self

    bshd = Strided((2, 3, 4, 5), (60, 5, 15, 1))  # a (B, H, S, D) tensor seen as (B, S, H, D)
    assert _flat(bshd).viewed == ((120,), (1,))
    padded = Strided((2, 3, 4, 5), (100, 5, 20, 1))  # heads padded to 20 elements
    assert _flat(padded).viewed == ((1 + 100 + 10 + 60 + 4,), (1,))
    whole = Strided((2, 3, 4, 5), (60, 20, 5, 1), contiguous=True)
    assert _flat(whole) is whole and whole.viewed is None
