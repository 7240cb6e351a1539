"""`tilec.attention(q, k, v, causal=False, scale=None, return_lse=False)`: the
flash-attention forward of compiler/attention.py on PyTorch CUDA tensors
(docs/attention.md).

    out = tilec.attention(q, k, v, causal=True)              # as F.scaled_dot_product_attention
    out, lse = tilec.attention(q, k, v, return_lse=True)     # lse: f32 (B, H, Sq)

q: (B, H, Sq, D); k, v: (B, Hkv, Skv, D) with H a multiple of Hkv (GQA, MQA); bf16 or
f16, D 64, 128 or 256 (the tiles: compiler/attention_tiles.py's rule). Any strides
whose last is 1, whose others are multiples of 8 elements and whose data starts on
16 bytes are read in place (a (B, S, H, D) tensor's `transpose(1, 2)` too); others
are made contiguous first (a copy). `out` is a new contiguous (B, H, Sq, D) tensor of
q's dtype.

One kernel per (head dim, dtype, causal, H / Hkv, scale), compiled on first use and
kept for the process (`kernel_for`): batch, heads and sequence lengths are run-time
arguments, so a new sequence length compiles nothing. Each call structure (shapes,
strides, dtypes, devices, alignments, keywords) is checked and planned once (`_Plan`):
a repeated one only allocates the outputs and launches.

The default kernel is persistent (`attention_fwd(persistent=P)`, P the device's
multiprocessors): a grid of min(P N, tiles) blocks (N the blocks resident per
multiprocessor, `attention_fwd`'s `min_blocks`: 2 at head dim 64), each looping over (q-block, head,
batch) tiles, each block's next tile loading under its current one's last step and
epilogue. On the H200 it beat or matched the grid of one block per tile at 7 of the 8
shape-runs of two benchmarks/attention_bench.py runs (up to 1.15x at 16x16x1024x64; 0.95x
at 1x32x16384 causal once; `PERSISTENT_BY_DEFAULT`); `config={"persistent": False}` asks
for the grid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tilec.compiler.attention import HEAD_DIMS
from tilec.support.diagnostics import TilecError

_DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "f16"}


@lru_cache(maxsize=64)
def kernel_for(head_dim: int, dtype: str, causal: bool, group: int, scale: float, config: tuple = ()):
    """The compiled kernel of one configuration (compiler/attention.py's
    `attention_fwd`; `config`: its tuning keywords as sorted (name, value) pairs),
    built and compiled once per process."""
    from tilec.compiler.attention import attention_fwd
    from tilec.compiling import compile_program

    program = attention_fwd(head_dim, dtype, causal, group, scale, **dict(config))
    return compile_program(program.module, "default", specialize=True)


@lru_cache(maxsize=16)
def _multiprocessors(device_index: int) -> int:
    import torch

    return torch.cuda.get_device_properties(device_index).multi_processor_count


PERSISTENT_BY_DEFAULT = True
"""Whether a config that does not say `persistent` gets the persistent schedule: yes,
as the H200 timed it faster than (or as fast as) the grid of one block per tile at 7 of 8
shape-runs of benchmarks/attention_bench.py (docs/attention.md)."""


def resolved_config(config: dict | None, sms: int) -> tuple:
    """`config` (`attention_fwd` keywords) as `kernel_for` takes it: sorted (name,
    value) pairs, with `persistent` = `sms` (the multiprocessors) where it says
    `persistent`: True (or `PERSISTENT_BY_DEFAULT` where it says nothing), 0 for False,
    or its number of blocks; none for `warp_specialized`: False (the synchronous
    schedule has no persistent form).

        resolved_config({"bn": 64, "persistent": True}, 132) == (("bn", 64), ("persistent", 132))
    """
    cfg = dict(config or {})
    if cfg.get("warp_specialized", True):
        blocks = cfg.get("persistent", PERSISTENT_BY_DEFAULT)
        cfg["persistent"] = sms if blocks is True else int(blocks)
    return tuple(sorted(cfg.items()))


def _readable(x: Any) -> bool:
    """Whether the TMA reads `x` in place: unit last stride, the other strides
    multiples of 16 bytes, the data 16-byte aligned."""
    es = x.element_size()
    return x.stride(3) == 1 and all((x.stride(i) * es) % 16 == 0 for i in range(3)) and x.data_ptr() % 16 == 0


def _flat(x: Any) -> Any:
    """`x`'s memory as the kernel addresses it: a 1-D contiguous view from its first
    element over every element its strides reach (the strides travel as arguments, so a
    (B, S, H, D) tensor read in place is a pointer, not a copy); `x` itself where it is
    contiguous (the launcher takes it as it is)."""
    if x.is_contiguous():
        return x
    return x.as_strided((_span(x.shape, x.stride()),), (1,))


def _span(shape: tuple, strides: tuple) -> int:
    """The elements from a tensor's first to its last: 1 + sum((extent - 1) * stride)."""
    return 1 + sum((e - 1) * st for e, st in zip(shape, strides))


@dataclass
class _Plan:
    """What a call of one structure (`_structure`) launches, but its tensors: the
    kernel, the current device it needs, the shapes of `out` and `lse`, per q, k, v how
    it is passed (None: as it is, contiguous; a number: its flat span, read in place
    through its strides; 0: made contiguous first, a copy), the kernel's index
    arguments (B, H, Hkv, Sq, Skv and the strides of q, k, v and out) and, once a
    call has run, its launches with the pointers left open (`launcher`:
    `Kernel.prepare`'s `PreparedCall`; False without the driver library)."""

    kernel: Any
    device: int
    out_shape: tuple
    lse_shape: tuple
    spans: tuple
    scalars: tuple
    launcher: Any = None


_PLANS: dict[tuple, _Plan] = {}
_PLANS_KEPT = 256
"""How many call structures `attention` remembers the plan of (all dropped past it)."""


def _structure(q: Any, k: Any, v: Any, causal: Any, scale: Any, config: dict | None) -> tuple:
    """Everything a call's plan depends on: each tensor's shape, strides, dtype, device
    and data alignment (16 bytes: whether the TMA reads it in place), and the keywords;
    AttributeError or TypeError where q, k, v are no tensors or `config` is not hashable."""
    return (q.shape, q.stride(), q.dtype, q.device, q.data_ptr() % 16,
            k.shape, k.stride(), k.dtype, k.device, k.data_ptr() % 16,
            v.shape, v.stride(), v.dtype, v.device, v.data_ptr() % 16,
            causal, scale, None if config is None else tuple(sorted(config.items())))


def _plan(q: Any, k: Any, v: Any, causal: bool, scale: float | None, config: dict | None) -> _Plan:
    """Check a call's tensors (TilecError: what is wrong) and plan it: `_Plan`, its
    kernel compiled where this configuration's is not yet (`kernel_for`)."""
    import torch

    for name, x in (("q", q), ("k", k), ("v", v)):
        if not isinstance(x, torch.Tensor) or x.dim() != 4 or not x.is_cuda:
            raise TilecError(f"tilec.attention: {name} must be a 4-D CUDA torch tensor (B, H, S, D)")
    if not (q.dtype == k.dtype == v.dtype) or str(q.dtype) not in _DTYPES:
        raise TilecError(f"tilec.attention: q, k, v must all be bf16 or f16 (got {q.dtype}, {k.dtype}, {v.dtype})")
    b, h, sq, d = q.shape
    bk, hkv, skv, dk = k.shape
    if tuple(v.shape) != tuple(k.shape) or bk != b or dk != d:
        raise TilecError(
            f"tilec.attention: k and v must be (B, Hkv, Skv, D) with q's B and D: q {tuple(q.shape)}, "
            f"k {tuple(k.shape)}, v {tuple(v.shape)}"
        )
    if d not in HEAD_DIMS:
        raise TilecError(f"tilec.attention: head dim {d} is not supported (64, 128 or 256)")
    if hkv == 0 or h % hkv:
        raise TilecError(f"tilec.attention: the query heads ({h}) must be a multiple of the kv heads ({hkv})")
    if min(b, h, sq, skv) == 0:
        raise TilecError(f"tilec.attention: empty inputs: q {tuple(q.shape)}, k {tuple(k.shape)}")
    from tilec.runtime.reference.memory import contiguous_strides

    spans, strides = [], []
    for x in (q, k, v):
        if not _readable(x):
            spans.append(0)
            st = contiguous_strides(tuple(x.shape))
        else:
            st = x.stride()
            spans.append(None if x.is_contiguous() else _span(x.shape, st))
        strides += st[:3]
    strides += contiguous_strides((b, h, sq, d))[:3]
    scale = 1.0 / math.sqrt(d) if scale is None else float(scale)
    device = q.device.index if q.device.index is not None else torch.cuda.current_device()
    kernel = kernel_for(d, _DTYPES[str(q.dtype)], bool(causal), h // hkv, scale,
                        resolved_config(config, _multiprocessors(device)))
    return _Plan(kernel, device, (b, h, sq, d), (b, h, sq), tuple(spans), (b, h, hkv, sq, skv, *strides))


def attention(q: Any, k: Any, v: Any, causal: bool = False, scale: float | None = None, return_lse: bool = False,
              config: dict | None = None, out: Any = None, lse: Any = None):
    """Flash-attention forward on CUDA tensors (the module docstring): `out`, or
    `(out, lse)` with `return_lse`. `config`: tuning keywords of `attention_fwd`
    (`bn`, `stages`, `warp_specialized`, `overlap`, `persistent`, `pingpong`, ...;
    benchmarks/attention_bench.py tries some); None: its defaults, persistent over the
    device's multiprocessors (`resolved_config`). `out` (B, H, Sq, D) of q's dtype and `lse`
    (B, H, Sq) f32, contiguous, are written in place when given (a call repeating an
    earlier one's tensors then replays its launch: `Kernel.__call__`).

    A call whose structure (`_structure`: shapes, strides, dtypes, devices, alignments
    and keywords) repeats an earlier one's takes that call's `_Plan`: none of its checks
    or arithmetic run again (they would give the same), only the views of strided
    inputs, the new `out` and `lse` and the launch."""
    import torch

    try:
        key = _structure(q, k, v, causal, scale, config)
        plan = _PLANS.get(key)
    except (AttributeError, TypeError):  # no tensors, or an unhashable config: `_plan` says what is wrong
        key, plan = None, None
    if plan is None:
        plan = _plan(q, k, v, causal, scale, config)
        if key is not None:
            if len(_PLANS) >= _PLANS_KEPT:
                _PLANS.clear()
            _PLANS[key] = plan
    qs, ks, vs = plan.spans
    if qs == 0:  # not readable in place: a contiguous copy
        q = q.contiguous()
    if ks == 0:
        k = k.contiguous()
    if vs == 0:
        v = v.contiguous()
    aligned = True  # the outputs on 16 bytes, as the plan's kernel was specialised for
    if out is None:
        out = torch.empty(plan.out_shape, dtype=q.dtype, device=q.device)
    elif out.shape != plan.out_shape or out.dtype != q.dtype or not out.is_contiguous():
        raise TilecError(f"tilec.attention: out must be a contiguous {plan.out_shape} tensor of {q.dtype}")
    else:
        aligned = out.data_ptr() % 16 == 0
    if lse is None:
        lse = torch.empty(plan.lse_shape, dtype=torch.float32, device=q.device)
    elif lse.shape != plan.lse_shape or lse.dtype != torch.float32 or not lse.is_contiguous():
        raise TilecError(f"tilec.attention: lse must be a contiguous {plan.lse_shape} float32 tensor")
    else:
        aligned = aligned and lse.data_ptr() % 16 == 0
    device = plan.device
    if device == torch._C._cuda_getDevice():  # the common case, without a device switch
        _launch(plan, q, k, v, out, lse, aligned, torch._C._cuda_getCurrentRawStream(device))
    else:
        with torch.cuda.device(device):
            _launch(plan, q, k, v, out, lse, aligned, torch._C._cuda_getCurrentRawStream(device))
    return (out, lse) if return_lse else out


def _launch(plan: _Plan, q: Any, k: Any, v: Any, out: Any, lse: Any, aligned: bool, stream: int) -> None:
    """Launch `plan` on the current device: through its prepared call (`Kernel.prepare`:
    the first call's launches with the five buffers' pointers, and the tensor maps
    around them, written per call); the first call, a call with outputs off 16 bytes,
    or one without the driver library through the kernel's call (which then prepares)."""
    launcher = plan.launcher
    if launcher and aligned:
        launcher(stream, (q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(), lse.data_ptr()))
        return
    qs, ks, vs = plan.spans
    args = (q.as_strided((qs,), (1,)) if qs else q, k.as_strided((ks,), (1,)) if ks else k,
            v.as_strided((vs,), (1,)) if vs else v, out, lse, *plan.scalars)
    plan.kernel(*args, stream=stream)
    if launcher is None and aligned:
        from tilec.runtime import raw_launch

        plan.launcher = _prepare(plan.kernel, args) if raw_launch.available() else False


def _prepare(kernel: Any, args: tuple) -> Any:
    """The prepared call (runtime/launch.py's `PreparedCall`) of the kernel `args` run
    (a specialising kernel's specialisation), q, k, v, out and lse its per-call slots."""
    while hasattr(kernel, "specialization"):
        kernel = kernel.specialization(*args)
    return kernel.prepare(args, free=range(5))
