"""The host path of `tilec.attention` (api/attention_op.py) without a GPU: a stand-in
`torch` module (the few names the host path uses) and a stand-in kernel that records
its launches. A call's structure (shapes, strides, dtypes, devices, alignments,
keywords) is planned once: a repeated structure checks, computes and compiles nothing
again, and launches what the first call launched. On the GPU,
tests/gpu/test_attention_gpu.py repeats the compile count with real tensors."""

from __future__ import annotations

import functools
import math
import sys
import types

import pytest

import tilec.attention_op as ao
from tilec.runtime import raw_launch
from tilec.runtime.reference.memory import contiguous_strides
from tilec.support.diagnostics import TilecError


class _Dtype:
    def __init__(self, name: str, size: int):
        self.name, self.size = name, size

    def __str__(self) -> str:
        return f"torch.{self.name}"


class _Device:
    def __init__(self, index: int):
        self.index, self.type = index, "cuda"

    def __eq__(self, other) -> bool:
        return isinstance(other, _Device) and other.index == self.index

    def __hash__(self) -> int:
        return hash(self.index)


def _contiguous(shape):
    return contiguous_strides(tuple(shape))


def _fake_torch(calls: list) -> types.ModuleType:
    """A module standing in for torch: CUDA tensors that are only metadata."""
    torch = types.ModuleType("torch")
    torch.bfloat16, torch.float16, torch.float32 = _Dtype("bfloat16", 2), _Dtype("float16", 2), _Dtype("float32", 4)
    nxt = [1 << 20]

    class Tensor:
        def __init__(self, shape, dtype, strides=None, ptr=None):
            self.shape, self.dtype, self.device, self.is_cuda = tuple(shape), dtype, _Device(0), True
            self._strides = tuple(strides) if strides is not None else _contiguous(shape)
            if ptr is None:
                ptr, nxt[0] = nxt[0], nxt[0] + (1 << 30)
            self._ptr = ptr

        def dim(self):
            return len(self.shape)

        def stride(self, i=None):
            return self._strides if i is None else self._strides[i]

        def element_size(self):
            return self.dtype.size

        def data_ptr(self):
            return self._ptr

        def is_contiguous(self):
            return self._strides == _contiguous(self.shape)

        def contiguous(self):
            calls.append(("contiguous", self.shape))
            return self if self.is_contiguous() else Tensor(self.shape, self.dtype)

        def as_strided(self, shape, strides):
            calls.append(("as_strided", shape))
            return Tensor(shape, self.dtype, strides, self._ptr)

    torch.Tensor = Tensor
    torch.empty = lambda shape, dtype=None, device=None: Tensor(shape, dtype)
    torch.cuda = types.SimpleNamespace(current_device=lambda: 0)
    torch._C = types.SimpleNamespace(_cuda_getDevice=lambda: 0, _cuda_getCurrentRawStream=lambda i: 7)
    return torch


@pytest.fixture
def host(monkeypatch):
    """(stand-in torch, the kernels built as their keys, the launches as their arguments)."""
    calls: list = []
    torch = _fake_torch(calls)
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(ao, "_PLANS", {})
    monkeypatch.setattr(ao, "_multiprocessors", lambda device: 132)
    monkeypatch.setattr(raw_launch, "available", lambda: False)  # the kernel's call on every call: no launcher
    built, launches = [], []

    def kernel_for(*key):
        built.append(key)
        return lambda *args, stream: launches.append((args, stream))

    monkeypatch.setattr(ao, "kernel_for", functools.lru_cache(kernel_for))  # as the real one: once per configuration
    return torch, built, launches, calls


def test_a_repeated_structure_is_planned_once(host):
    """The second call of the same shapes builds no kernel and no plan, and launches the
    same arguments but the new output tensors; a new sequence length is a new plan
    (the kernel is `kernel_for`'s, cached per configuration, not per length)."""
    torch, built, launches, _ = host
    q = torch.Tensor((2, 8, 300, 128), torch.bfloat16)
    k = torch.Tensor((2, 2, 300, 128), torch.bfloat16)
    ao.attention(q, k, k, causal=True)
    assert len(built) == 1 and len(ao._PLANS) == 1
    assert built[0][:5] == (128, "bf16", True, 4, 1.0 / math.sqrt(128)) and built[0][5] == (("persistent", 132),)
    out = ao.attention(q, k, k, causal=True)
    assert len(built) == 1 and len(ao._PLANS) == 1 and len(launches) == 2
    (a1, s1), (a2, s2) = launches
    assert a2[3] is out and a1[3] is not out and s1 == s2 == 7
    assert a1[5:] == a2[5:] == (2, 8, 2, 300, 300, 8 * 300 * 128, 300 * 128, 128, 2 * 300 * 128, 300 * 128, 128,
                                2 * 300 * 128, 300 * 128, 128, 8 * 300 * 128, 300 * 128, 128)
    q2 = torch.Tensor((2, 8, 500, 128), torch.bfloat16)
    ao.attention(q2, k, k, causal=True)
    assert len(ao._PLANS) == 2 and launches[-1][0][8] == 500
    ao.attention(q, k, k, causal=False, config={"bn": 64})  # other keywords: another kernel
    assert len(built) == 2 and built[1][2] is False and built[1][5] == (("bn", 64), ("persistent", 132))


def test_strided_and_misaligned_inputs_on_every_call(host):
    """A (B, S, H, D) tensor's transpose goes as its flat span on every call, planned
    once; a tensor the TMA cannot read in place (rows not on 16 bytes) is copied
    contiguous on every call, and the kernel gets the copy's strides."""
    torch, built, launches, calls = host
    bshd = torch.Tensor((1, 4, 100, 64), torch.float16, strides=(100 * 4 * 64, 64, 4 * 64, 1))
    odd = torch.Tensor((1, 4, 100, 64), torch.float16, strides=(4 * 100 * 72, 100 * 72, 72, 1), ptr=(1 << 20) + 8)
    for _ in range(2):
        ao.attention(bshd, odd, odd)
    assert len(built) == 1 and len(ao._PLANS) == 1
    span = 1 + 99 * 256 + 3 * 64 + 63
    assert calls == [("contiguous", (1, 4, 100, 64)), ("contiguous", (1, 4, 100, 64)), ("as_strided", (span,))] * 2
    args = launches[-1][0]
    assert args[0].shape == (span,) and args[10:13] == (100 * 4 * 64, 64, 256)
    assert args[13:19] == (4 * 100 * 64, 100 * 64, 64) * 2


def test_wrong_tensors_are_errors_on_either_path(host):
    """The checks are the plan's: a first call with a wrong head dim is a TilecError; a
    planned structure still checks a given `out` (its shape, dtype, contiguity)."""
    torch, built, _, _ = host
    with pytest.raises(TilecError, match="head dim 96"):
        ao.attention(*[torch.Tensor((1, 2, 10, 96), torch.bfloat16)] * 3)
    with pytest.raises(TilecError, match="4-D CUDA torch tensor"):
        ao.attention([1], [2], [3])
    q = torch.Tensor((1, 2, 10, 64), torch.bfloat16)
    ao.attention(q, q, q)
    with pytest.raises(TilecError, match="out must be a contiguous"):
        ao.attention(q, q, q, out=torch.Tensor((1, 2, 10, 64), torch.float16))
    assert len(built) == 1


def _device_array(ptr: int, shape: tuple, dtype: str):
    from tilec.runtime.launch import DeviceArray

    return DeviceArray(ptr, dtype, shape, _contiguous(shape), None, None)


def test_the_prepared_call_takes_the_five_pointers_in_buffers_and_tensor_maps(monkeypatch):
    """The prepared call of the real (specialising) attention kernel, prepared from one
    call, launches a call with other pointers with exactly those pointers in its free
    slots: q, k, v, out and lse as buffer parameters, and q, k, v and out's tensor maps
    (rewritten around them; `PreparedCall`'s own tests check the bytes against the
    general path). The driver stood in for: tensor maps are their requests' hashes,
    the function a number, launches recorded."""
    import hashlib

    import tilec.runtime.launch as rl
    from tilec.compiler.attention import attention_fwd
    from tilec.compiling import compile_program

    def fake_encode(r):
        return hashlib.sha256(repr(r.key()).encode()).digest() * 4  # 128 bytes, a function of the request

    monkeypatch.setattr(rl, "encode", fake_encode)
    monkeypatch.setattr(rl.Kernel, "_function", lambda self, name: types.SimpleNamespace(ptr=0xF00))
    launched = []
    monkeypatch.setattr(raw_launch.RawLaunch, "__call__",
                        lambda self, function, stream, *slots: launched.append((function, stream, slots)))
    kernel = compile_program(attention_fwd(64, "bf16", True, 2, 0.125, persistent=132).module, "default",
                             specialize=True)
    b, h, hkv, s, d = 1, 4, 2, 300, 64

    def args(base: int):
        shapes = [(b * h * s * d,), (b * hkv * s * d,), (b * hkv * s * d,), (b * h * s * d,), (b * h * s,)]
        arrays = [_device_array(base + (i << 24), sh, "float32" if i == 4 else "bfloat16")
                  for i, sh in enumerate(shapes)]
        return (*arrays, b, h, hkv, s, s, *[h * s * d, s * d, d], *[hkv * s * d, s * d, d] * 2, *[h * s * d, s * d, d])

    prepared = ao._prepare(kernel, args(1 << 32))
    call = args(3 << 32)
    prepared(7, tuple(a.ptr for a in call[:5]))
    ((function, stream, slots),) = launched
    assert function == 0xF00 and stream == 7
    assert sorted(slots) == sorted([a.ptr for a in call[:5]] + [a.ptr for a in call[:4]])


def test_later_calls_take_the_prepared_call(host, monkeypatch):
    """With the driver library, the first call of a structure runs the kernel's call and
    prepares it (`Kernel.prepare`); later calls hand the prepared call the stream and
    the five pointers (a strided input its own: no view made); outputs given off 16
    bytes go through the kernel's call (its specialisation assumed them aligned)."""
    torch, built, launches, calls = host
    monkeypatch.setattr(raw_launch, "available", lambda: True)
    fast = []
    monkeypatch.setattr(ao, "_prepare", lambda kernel, args: lambda stream, ptrs: fast.append((ptrs, stream)))
    bshd = torch.Tensor((1, 4, 100, 64), torch.float16, strides=(100 * 4 * 64, 64, 4 * 64, 1))
    ao.attention(bshd, bshd, bshd)
    assert len(launches) == 1 and not fast
    out, lse = ao.attention(bshd, bshd, bshd, return_lse=True)
    assert len(launches) == 1 and fast == [((bshd.data_ptr(),) * 3 + (out.data_ptr(), lse.data_ptr()), 7)]
    assert calls == [("as_strided", (1 + 99 * 256 + 3 * 64 + 63,))] * 3  # the first call's views only
    odd = torch.Tensor((1, 4, 100, 64), torch.float16, ptr=(1 << 20) + 8)
    ao.attention(bshd, bshd, bshd, out=odd)
    assert len(launches) == 2 and len(fast) == 1 and len(built) == 1
