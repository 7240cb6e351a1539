"""The `cuda` dialect's warp specialisation: the GPU-level form of
`layout.warp_specialize` / `layout.setmaxnreg` (dialects/layout_roles.py).

    cuda.warp_specialize warpgroups(2, 1) {
      cuda.setmaxnreg inc 232
      ...
    }, {
      cuda.setmaxnreg dec 40
      ...
    }

prints as `if (threadIdx.x < 256) { ... } else { ... }` (region i on the threads of
its warpgroups, in order) and `setmaxnreg.{inc,dec}.sync.aligned.u32 N;`.
`cuda.named_barrier {id = 1, threads = 256}` (`bar.sync 1, 256;`) is the barrier of
one region's threads, where a block-collective op inside a region needs its threads
to meet (`lower-to-gpu`'s TMA store, tma.py): barrier 0 is `__syncthreads`'s, region i
uses barrier i + 1. With `arrive` (`bar.arrive 4, 256;`) the threads arrive without
waiting; barriers above the region count order regions against each other
(`layout.named_barrier`'s lowering, roles.py). Inside the
regions the ops are per thread, as everywhere in the `cuda` dialect (`lower-to-gpu`
rebases the thread id of distributed code to the region's first thread; in a region
run apart, `warpgroups(3, 1) apart(0)`, to its warpgroup's first thread, and a
warpgroup's barrier is `cuda.named_barrier(%index) {id = 1, ...}`: `bar.sync %r, 128`
with `1 + index` in the register). The
reference executor runs the regions concurrently (runtime/reference/roles_impls.py).
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, StringAttr, UnitAttr, i64
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    traits_def,
    var_region_def,
)
from xdsl.parser import Parser
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from . import layout_roles
from .effects import Synchronizes

__all__ = ["CUDA_ROLE_OPS", "NamedBarrierOp", "SetMaxNRegOp", "WarpSpecializeOp"]


@irdl_op_definition
class WarpSpecializeOp(IRDLOperation):
    """Regions on consecutive warpgroups of the block, running concurrently."""

    name = "cuda.warp_specialize"
    traits = traits_def(NoTerminator(), Synchronizes())
    warpgroups = prop_def(DenseArrayBase)
    apart_regions = opt_prop_def(DenseArrayBase, prop_name="apart")
    roles = var_region_def("single_block")

    counts = layout_roles.WarpSpecializeOp.counts
    apart = layout_roles.WarpSpecializeOp.apart
    first_thread = layout_roles.WarpSpecializeOp.first_thread
    print = layout_roles.WarpSpecializeOp.print

    def __init__(self, warpgroups, regions, apart=()):
        props = {"warpgroups": DenseArrayBase.from_list(i64, list(warpgroups))}
        if apart:
            props["apart"] = DenseArrayBase.from_list(i64, list(apart))
        super().__init__(properties=props, regions=[list(regions)])

    @classmethod
    def parse(cls, parser: Parser) -> WarpSpecializeOp:
        ws = layout_roles.WarpSpecializeOp.parse(parser)
        regions = [r.clone() for r in ws.roles]
        return cls(ws.counts, regions, ws.apart)

    def verify_(self) -> None:
        c = self.counts
        if len(c) != len(self.roles) or len(c) < 2 or any(x < 1 for x in c):
            raise VerifyException(f"'{self.name}' takes at least 2 regions and one count >= 1 each, got {list(c)}")


@irdl_op_definition
class SetMaxNRegOp(IRDLOperation):
    """`setmaxnreg.{inc,dec}.sync.aligned.u32 regs`."""

    name = "cuda.setmaxnreg"
    traits = traits_def(Synchronizes())
    action = prop_def(StringAttr)
    regs = prop_def(IntegerAttr)

    count = layout_roles.SetMaxNRegOp.count
    print = layout_roles.SetMaxNRegOp.print

    def __init__(self, action: str, regs: int):
        super().__init__(properties={"action": StringAttr(action), "regs": IntegerAttr(regs, i64)})

    @classmethod
    def parse(cls, parser: Parser) -> SetMaxNRegOp:
        op = layout_roles.SetMaxNRegOp.parse(parser)
        return cls(op.action.data, op.count)

    def verify_(self) -> None:
        a, n = self.action.data, self.count
        if a not in ("inc", "dec") or not (24 <= n <= 256 and n % 8 == 0):
            raise VerifyException(f"'{self.name}' takes inc or dec and a multiple of 8 in [24, 256], got {a} {n}")
        if not isinstance(self.parent_op(), WarpSpecializeOp):
            raise VerifyException(f"'{self.name}' must be directly in a cuda.warp_specialize region")


@irdl_op_definition
class NamedBarrierOp(IRDLOperation):
    """`bar.sync id, threads;`: the `threads` threads (whole warps) that reach barrier
    `id` meet; their shared-memory accesses before it are ordered before those after.
    With `arrive`, `bar.arrive id, threads;`: the threads count towards the phase and
    go on without waiting. With an `offset` (an index, the same for the threads of a
    warp), the barrier is `id + offset` (`bar.sync %r, threads;`): a warp_specialize
    region run apart, each warpgroup its own barrier (`layout.warpgroup_index`)."""

    name = "cuda.named_barrier"
    traits = traits_def(Synchronizes())
    offset = opt_operand_def(IndexType)
    barrier_id = prop_def(IntegerAttr, prop_name="id")
    threads = prop_def(IntegerAttr)
    arrive_only = opt_prop_def(UnitAttr, prop_name="arrive")
    assembly_format = "(`(` $offset^ `)`)? attr-dict"
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, barrier_id: int, threads: int, arrive: bool = False, offset=None):
        props = {"id": IntegerAttr(barrier_id, i64), "threads": IntegerAttr(threads, i64)}
        if arrive:
            props["arrive"] = UnitAttr()
        super().__init__(properties=props, operands=[[offset] if offset is not None else []])

    @property
    def arrive(self) -> bool:
        return self.arrive_only is not None

    @property
    def index(self) -> int:
        return self.barrier_id.value.data

    @property
    def count(self) -> int:
        return self.threads.value.data

    def verify_(self) -> None:
        if not 0 <= self.index < 16:
            raise VerifyException(f"'{self.name}' id must be in [0, 16), got {self.index}")
        if self.count <= 0 or self.count % 32:
            raise VerifyException(f"'{self.name}' threads must be a positive multiple of 32, got {self.count}")


CUDA_ROLE_OPS = [WarpSpecializeOp, SetMaxNRegOp, NamedBarrierOp]
