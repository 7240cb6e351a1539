"""The state and driver every op family of `lower-to-gpu` shares.

`KernelBase` holds what lowering one kernel needs: the builder of the kernel body
(`b`), the lowered value of each SSA value of the launch (`values`, a
`LoweredValues`: indices, scalars, register tensors, views, tokens), the thread id and
the kernel arguments. Each op family
(a module of this package) adds its methods in a subclass and marks the method that
lowers each op with `@lowers(OpType, ...)`; `kernel.py` combines the families and
builds the dispatch table from the marks."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import IndexType, StringAttr, TensorType
from xdsl.ir import Block, Operation, SSAValue

from tilec.dialects import layout
from tilec.dialects.distributed import MAX_REGISTERS_PER_THREAD
from tilec.dialects.errors import LayoutError
from tilec.support.diagnostics import TilecError
from tilec.support.locations import get_loc

from .._gpu_builder import DynamicIndex, IndexBuilder
from .lowered_values import LoweredValues, LoweringKindError
from .._layout_cost import is_distributed, linear_of

Lowering = Callable[["KernelBase", Operation], None]


def lowers(*op_types: type[Operation]) -> Callable[[Lowering], Lowering]:
    """Mark a function `(kernel, op) -> None` as the lowering of `op_types`."""

    def mark(fn: Lowering) -> Lowering:
        fn.lowers = op_types  # type: ignore[attr-defined]
        return fn

    return mark


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _fail(op: Operation, msg: str) -> TilecError:
    return TilecError(msg, op=op)


def _check_registers(op: Operation) -> None:
    """A located error for a distributed result past MAX_REGISTERS_PER_THREAD."""
    for r in op.results:
        if is_distributed(r.type):
            ll = linear_of(r.type)  # type: ignore[arg-type]
            if ll is not None and ll.num_registers > MAX_REGISTERS_PER_THREAD:
                raise _fail(
                    op,
                    f"each thread would hold {ll.num_registers} elements of {r.type} in registers; "
                    f"lower-to-gpu unrolls at most {MAX_REGISTERS_PER_THREAD} per thread: "
                    "use more threads or smaller tiles",
                )


def read_in_groups(regs: list, vec: int, read: Callable[[list[int]], list]) -> list:
    """The values of the registers whose coordinates are `regs`, read `vec` registers at
    a time by `read(group)` (register indices -> their values). A group whose
    registers all repeat coordinates read before (a broadcast layout holds one element
    in several registers) reuses those values instead of reading again."""
    out: list = [None] * len(regs)
    first: dict = {}
    for g in range(0, len(regs), vec):
        group = list(range(g, g + vec))
        if all(regs[r] in first for r in group):
            for r in group:
                out[r] = out[first[regs[r]]]
            continue
        for r, x in zip(group, read(group)):
            out[r] = x
            first.setdefault(regs[r], r)
    return out


class KernelBase:
    LOWERINGS: dict[type[Operation], Lowering] = {}
    """op type -> its lowering (filled by kernel.py from the `@lowers` marks)."""
    DIALECT_LOWERINGS: dict[str, Lowering] = {}
    """dialect name -> the lowering of its ops without one of their own (arith, math)."""

    def __init__(self, entry: Block, launch: layout.LaunchOp, args: dict, ptr_types):
        self.b = IndexBuilder(entry)
        self.launch = launch
        self.values = LoweredValues(self._resolve)
        self.args = args
        self.ptr_types = ptr_types
        b = self.b
        bid = [b.add(gpu.BlockIdOp(gpu.DimensionAttr(d))).results[0] for d in (gpu.DimensionEnum.X, gpu.DimensionEnum.Y, gpu.DimensionEnum.Z)]
        tid_op = b.add(gpu.ThreadIdOp(gpu.DimensionAttr(gpu.DimensionEnum.X)))
        tid = tid_op.results[0]
        self._prelude_end = tid_op
        bid[0].name_hint, bid[1].name_hint, bid[2].name_hint, tid.name_hint = "bx", "by", "bz", "tid"
        ba = launch.body.block.args
        for a, v in zip(ba, [*bid, tid]):
            self.values.set_index(a, DynamicIndex(b, v))
        self.tid = DynamicIndex(b, tid)
        self.nthreads = launch.num_threads

    # -------------------------------------------------------------- values
    def _resolve(self, v: SSAValue) -> None:
        """Lower a value used before the kernel lowering saw its definition: a kernel
        argument, or a pure op of the host function."""
        if v in self.args:
            a = self.args[v]
            if isinstance(a.type, TensorType) and a.type.encoding is not None:
                raise TilecError(
                    f"a distributed tensor ({a.type}) cannot come into a launch from its host "
                    "function: registers live inside one kernel; load it there (layout.load)")
            if isinstance(a.type, IndexType):
                self.values.set_index(v, DynamicIndex(self.b, a))
            else:
                self.values.set_scalar(v, a)
            return
        owner = v.owner
        if isinstance(owner, Operation) and owner.parent_op() is not None and not self._in_launch(owner):
            # a pure op of the host function (view or constant): lower it once, at the
            # top of the kernel, so that its value is defined wherever it is used next
            # (not in the branch of an scf.if that first used it)
            with self.b.at_top(self._prelude_end):
                self.lower(owner)
            return
        raise TilecError(f"value {v.name_hint or ''} has no lowering", op=owner if isinstance(owner, Operation) else None)

    def _in_launch(self, op: Operation) -> bool:
        p = op
        while p is not None:
            if p is self.launch:
                return True
            p = p.parent_op()
        return False

    def ssa(self, v: SSAValue) -> SSAValue:
        """The SSA value of a scalar or index operand (an index constant materialised)."""
        return self.b.ssa(self.values.scalar_or_index(v))

    # -------------------------------------------------------------- driver
    def run(self):
        for op in list(self.launch.body.block.ops):
            self.lower(op)

    def lower(self, op: Operation):
        _check_registers(op)
        loc = get_loc(op)
        saved = self.b.loc_attr
        if isinstance(op, layout.CopyOp | layout.CopyAsyncOp | layout.LoadOp | layout.StoreOp):
            self.b.loc_attr = StringAttr(loc) if loc else None
        try:
            self._lower(op)
        except TilecError as e:
            if e.op is None and e.loc is None:  # about this op's operands: located here
                raise TilecError(e.message, op=op) from None
            raise
        except LoweringKindError as e:
            if not getattr(e, "located", False):  # the innermost op being lowered
                e = LoweringKindError(f"lower-to-gpu internal error while lowering '{op.name}'"
                                      f"{' at ' + loc if loc else ''}: {e}")
                e.located = True  # type: ignore[attr-defined]
            raise e from None
        except LayoutError as e:
            # what the user wrote: located at the op; anything else is a bug in tilec
            raise _fail(op, str(e)) from None
        finally:
            self.b.loc_attr = saved

    def _lower(self, op: Operation):
        fn = self.LOWERINGS.get(type(op)) or self.DIALECT_LOWERINGS.get(op.dialect_name())
        if fn is None:
            raise _fail(op, f"'{op.name}' is not supported by lower-to-gpu")
        fn(self, op)

    def _in_loop(self, op: Operation) -> bool:
        p = op.parent_op()
        while p is not None and p is not self.launch:
            if isinstance(p, scf.ForOp | scf.WhileOp):
                return True
            p = p.parent_op()
        return False

