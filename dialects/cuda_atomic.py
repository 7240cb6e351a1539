"""The GPU-level atomics and fences (what `layout.atomic_add` and `layout.fence`,
dialects/layout_atomic.py, lower to), printed by the `cuda` target as PTX.

    %old = cuda.atomic_add %ctr[%i], %x {scope = "gpu", order = "relaxed"} : memref<?xi32>
    cuda.fence {scope = "gpu", order = "acq_rel"}

- `cuda.atomic_add`: `atom.<order>.<scope>.global.add.u32` on the i32 element
  `mem[index]` of a global 1-D memref: the element's old value;
- `cuda.fence`: `fence.<order>.<scope>` (`acq_rel` or `sc`).

Their semantics (and the reference executor's checks of a counter protocol) are the
layout-level ops'."""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerAttr, MemRefType, StringAttr, i32
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException

from .effects import Accesses, Synchronizes
from .layout_atomic import FENCE_ORDERS, ORDERS, SCOPES, check_one_of


@irdl_op_definition
class AtomicAddOp(IRDLOperation):
    """`old = mem[index]; mem[index] = old + value` indivisibly (PTX `atom.add.u32`),
    of `scope` and `order` (dialects/layout_atomic.py's); `mem` a 1-D global memref of
    i32."""

    name = "cuda.atomic_add"
    mem = operand_def(MemRefType)
    index = operand_def(IndexType)
    value = operand_def(i32)
    scope = prop_def(StringAttr)
    order = prop_def(StringAttr)
    result = result_def(i32)
    traits = traits_def(Accesses(reads=("mem",), writes=("mem",)))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$mem `[` $index `]` `,` $value attr-dict `:` type($mem)"

    def __init__(self, mem: SSAValue, index: SSAValue, value: SSAValue, scope: str, order: str):
        super().__init__(operands=[mem, index, value], result_types=[i32],
                         properties={"scope": StringAttr(scope), "order": StringAttr(order)})

    def verify_(self) -> None:
        check_one_of("atomic_add scope", SCOPES, self.scope.data)
        check_one_of("atomic_add order", ORDERS, self.order.data)
        t = self.mem.type
        assert isinstance(t, MemRefType)
        if t.get_num_dims() != 1 or t.element_type != i32:
            raise VerifyException(f"'cuda.atomic_add' takes a 1-D memref of i32, got {t}")
        space = t.memory_space
        if isinstance(space, IntegerAttr) and space.value.data != 1:  # 1: global, absent: global
            raise VerifyException(f"'cuda.atomic_add' takes global memory, got {t}")


@irdl_op_definition
class FenceOp(IRDLOperation):
    """`fence.<order>.<scope>` of this thread (dialects/layout_atomic.py)."""

    name = "cuda.fence"
    scope = prop_def(StringAttr)
    order = prop_def(StringAttr)
    traits = traits_def(Synchronizes())
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"

    def __init__(self, scope: str, order: str):
        super().__init__(properties={"scope": StringAttr(scope), "order": StringAttr(order)})

    def verify_(self) -> None:
        check_one_of("fence scope", SCOPES, self.scope.data)
        check_one_of("fence order", FENCE_ORDERS, self.order.data)


CUDA_ATOMIC_OPS = [AtomicAddOp, FenceOp]
