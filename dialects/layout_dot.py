"""`layout.dot`: a block-level matrix product on distributed tensors in any layouts
(Triton's `tt.dot`), for the `accelerate-matmul` pass to lower.

    %d = layout.dot %a, %b, %acc : tensor<64x32xbf16, #blocked>, tensor<32x64xbf16, #blocked>,
                                   tensor<64x64xf32, #blocked>

`%d = %acc + %a @ %b`, `%a` M x K, `%b` K x N, `%acc` and the result M x N, each in any
distributed layout spanning the block's threads (blocked, slice, linear, MMA, ...): the
op states the product, not how threads share it. `accelerate-matmul`
(passes/accelerate_matmul.py) chooses that from the module's Target: tensor cores
(`layout.mma`: wgmma on Hopper, mma.sync on sm_80 and newer) with the operands staged
in swizzled shared memory, or an FMA loop where tensor cores do not apply (f32
operands, shapes the instructions do not tile).

Element types: f16 x f16, bf16 x bf16 or f32 x f32 into an f32 accumulator.

Semantics (CPU reference executor): for k = 0 .. K-1 in order, `acc = acc + a[:, k] *
b[k, :]` with the operands widened to f32, each product and each sum rounded to f32
(as the FMA loop computes it under tilec's `--fmad=false` policy): exact against NumPy
doing the same. With f16/bf16 operands (exact products in f32) a tensor-core lowering
sums in another order, so results of such a `layout.dot` are compared with the
tolerance of `layout.mma` (`layout_mma.mma_error_bound`, docs/testing.md).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from .layout_attrs import distributed_tensor_encoding, threads_per_block
from .layout_mma import _type_name
from .layout_roles import enclosing_launch_op, region_threads

__all__ = ["DOT_OPERAND_TYPES", "DOT_OPS", "DotOp"]

DOT_OPERAND_TYPES = ("f16", "bf16", "f32")
"""Operand element types of `layout.dot` (both operands alike; the accumulator is f32)."""


@irdl_op_definition
class DotOp(IRDLOperation):
    """`%d = %acc + %a @ %b` on distributed tensors in any layouts (Triton's `tt.dot`):
    `%a` M x K, `%b` K x N, `%acc` and the result M x N.

        %d = layout.dot %a, %b, %acc : tensor<64x32xbf16, #A>, tensor<32x64xbf16, #B>,
                                       tensor<64x64xf32, #C>

    Element types: f16 x f16, bf16 x bf16, f32 x f32 into f32. Each layout spans the
    threads of the block (or of its `layout.warp_specialize` region); the op must be
    inside a `layout.launch`. Semantics: k = 0 .. K-1 in order, `acc += a[:, k] *
    b[k, :]` in f32 (products and sums each rounded); with f16/bf16 operands the
    result is compared with `layout.mma`'s tolerance (a tensor-core lowering sums in
    another order). `accelerate-matmul` lowers it for the module's Target: wgmma
    (Hopper), mma.sync (sm_80+) or an FMA loop (f32 operands, small tiles)."""

    name = "layout.dot"
    a = operand_def(TensorType)
    b = operand_def(TensorType)
    _T: ClassVar = VarConstraint("_T", base(TensorType))
    acc = operand_def(_T)
    result = result_def(_T)
    assembly_format = "$a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)"
    traits = traits_def(Pure())

    def __init__(self, a: SSAValue, b: SSAValue, acc: SSAValue):
        super().__init__(operands=[a, b, acc], result_types=[SSAValue.get(acc).type])

    def verify_(self) -> None:
        for what, v in (("a", self.a), ("b", self.b), ("acc", self.acc)):
            try:
                distributed_tensor_encoding(v.type)
            except VerifyException as e:
                raise VerifyException(f"layout.dot operand {what}: {e}") from None
        at, bt, ct = self.a.type, self.b.type, self.acc.type
        for what, t in (("a", at), ("b", bt), ("acc", ct)):
            if len(t.get_shape()) != 2:
                raise VerifyException(f"layout.dot multiplies matrices: {what} has shape {list(t.get_shape())}")
        (m, k), (k2, n), (m2, n2) = at.get_shape(), bt.get_shape(), ct.get_shape()
        if k != k2 or (m, n) != (m2, n2):
            raise VerifyException(
                f"layout.dot shapes do not multiply: a is {m}x{k}, b is {k2}x{n}, acc is {m2}x{n2} "
                f"(expected MxK, KxN and MxN)")
        ea, eb, ec = (_type_name(t.element_type) for t in (at, bt, ct))
        if ea != eb or ea not in DOT_OPERAND_TYPES or ec != "f32":
            raise VerifyException(
                f"layout.dot takes f16 x f16, bf16 x bf16 or f32 x f32 into f32; got {ea} x {eb} into {ec}")
        launch = enclosing_launch_op(self)
        if launch is None:
            raise VerifyException("layout.dot must be inside a layout.launch")
        have = region_threads(self, launch.num_threads)
        for what, t in (("a", at), ("b", bt), ("acc", ct)):
            n_t = threads_per_block(t.encoding)
            if n_t != have:
                raise VerifyException(
                    f"layout.dot operand {what}: layout {t.encoding} spans {n_t} threads but the block has {have}")


DOT_OPS = (DotOp,)
"""Registered in the `layout` dialect (dialects/layout.py)."""
