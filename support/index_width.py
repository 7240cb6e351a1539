"""The index width a function promises its kernels: `tilec.index_bits = 32`.

A kernel's index arithmetic (offsets, coordinates, masks, the block decomposition) is
64-bit unless every buffer has a static size under 2^31 (compiler/cuda/kernel_info.py).
A `func.func` (or an outlined `gpu.func`) with the attribute `tilec.index_bits = 32 :
i64` promises that every index value its kernels compute, for every argument it will be
called with, lies in [-2^31, 2^31): offsets of elements that masks keep from being
touched included. Its kernels then compute in 32 bits (half the registers of 64-bit
offsets, one instruction per add or multiply instead of two) and take their index
parameters as 32-bit integers. It is a promise as `divisible` is: the caller keeps it
(`tilec.copy_` checks it for each call, `copy_plan.index_bits`); a broken one gives
wrong addresses. `64` asks for 64-bit indices whatever the buffers' sizes.

A `layout.launch` may carry the same attribute: the promise of its kernel alone, where
the function promises nothing (`lower-to-gpu` gives the outlined kernel the function's
promise, else its launch's). The `tile` pass puts it on a box launch whose facts show
every index value fits (passes/_box_tile.py, `box_index_bits`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Operation

from tilec.support.diagnostics import TilecError

INDEX_BITS_ATTR = "tilec.index_bits"
INDEX_BITS = (32, 64)


def promised_index_bits(op: Operation) -> int | None:
    """The index width `op` (a function) promises, or None; a located TilecError for a
    value other than an integer 32 or 64."""
    attr = op.attributes.get(INDEX_BITS_ATTR)
    if attr is None:
        return None
    if not isinstance(attr, IntegerAttr) or attr.value.data not in INDEX_BITS:
        raise TilecError(f"'{INDEX_BITS_ATTR}' must be the integer 32 or 64, got {attr}", op=op)
    return attr.value.data


def promise_index_bits(op: Operation, bits: int) -> None:
    """Put the promise on `op` (a function)."""
    op.attributes[INDEX_BITS_ATTR] = IntegerAttr(bits, i64)
