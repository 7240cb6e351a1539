"""Warp specialisation: warpgroups of one block running different code at once, as
CUTLASS's sm90 "warpspecialized" kernels and Gluon's `warp_specialize` do, and the
register reallocation between them (`setmaxnreg`).

    layout.launch grid(...) threads(384) {
    ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
      %full0 = layout.mbarrier_init {count = 1 : i64}
      ...
      layout.warp_specialize warpgroups(2, 1) {
        layout.setmaxnreg inc 232         // the consumers: warpgroups 0 and 1
        ...                               // wait on "full", wgmma, arrive on "empty"
      }, {
        layout.setmaxnreg dec 40          // the producer: warpgroup 2
        ...                               // wait on "empty", TMA loads into the stages
      }
    }

`layout.warp_specialize warpgroups(n0, n1, ...)` splits the block's warpgroups (128
threads each) in order: region 0 runs on warpgroups `[0, n0)`, region 1 on the next
`n1`, and so on; together they are the whole block. The regions run *concurrently*
and meet only through mbarriers (dialects/layout_tma.py): nothing orders one region's
ops against another's otherwise. Inside region i, block-collective ops become
collective over the region's warpgroups: a distributed tensor spans the region's
threads (`128 * n_i`, thread 0 being the region's first thread), a TMA copy is issued
once for the region, and `layout.mbarrier_arrive` is one arrival *per warpgroup* of
the region (a barrier released by two consumer warpgroups counts 2 arrivals, as
CUTLASS's `PipelineTmaAsync` empty barriers do); `layout.tma_store` /
`tma_store_wait` meet the region's threads (not the block's: a named barrier of the
region), so consumers can store their C tile through shared memory and the TMA. Ops
that meet the whole block (`layout.barrier`, `mbarrier_init`/`inval`) are not
allowed inside, nor a nested `warp_specialize`; nor, found by the passes, a block-level
`layout.copy` (`distribute` would spread it over the whole block) or an op lowered
through shared memory and a block barrier (a layout conversion or a reduction across
warps). The launch's `%tid` stays the thread's index in the block.

`layout.warp_specialize warpgroups(3, 1) apart(0)`: region 0 is *run apart* by its
3 warpgroups: each runs the region as a region of its own (of 128 threads: its
distributed tensors its own, its TMA copies issued once for it, its TMA stores meeting
its own threads at named barrier `barrier_id(0) + index`), and `layout.warpgroup_index`
(only inside such a region) gives each its index, 0 to 2. So warpgroups that run the
same code on different data (the 192-row GEMM tile's three consumers of 64 rows: a
12-warp accumulator is no linear layout) are one copy of the code instead of one region
each. The regions' own named barriers number `own_barriers()`: one a region, one a
warpgroup of a region run apart.

`layout.setmaxnreg inc|dec N` (PTX `setmaxnreg.{inc,dec}.sync.aligned.u32`) sets the
registers per thread of the warpgroups running it to N (a multiple of 8 in [24, 256]):
`dec` gives registers back to the pool, `inc` takes them from it (blocking until they
are free). It must be warpgroup-uniform: directly in a `warp_specialize` region, not
under control flow. It changes no value (the reference executor checks where it is
and runs it as a no-op); the kernel's register budget at launch stays what the
compiler allotted (`maxnreg` of the whole block), so a region that `dec`s lets the
others `inc`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Block, Operation, Region
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_region_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from .effects import Synchronizes
from .layout_attrs import threads_per_block
from .verifier import check as _check

__all__ = ["ROLE_OPS", "WARPGROUP", "NamedBarrierOp", "SetMaxNRegOp", "WarpSpecializeOp", "WarpgroupIndexOp",
           "check_block_threads", "region_threads", "role_of"]

WARPGROUP = 128
"""Threads of a warpgroup."""

BLOCK_WIDE = (
    "layout.barrier",
    "layout.mbarrier_init",
    "layout.mbarrier_inval",
    "layout.warp_specialize",
)
"""Ops that meet the whole block: not allowed inside a warp_specialize region."""


SETMAXNREG_ACTIONS = ("inc", "dec")
"""`layout.setmaxnreg`'s actions: raise or lower the warpgroup's register count."""

NAMED_BARRIER_MODES = ("sync", "arrive")
"""`layout.named_barrier`'s modes: `bar.sync` (arrive and wait) or `bar.arrive`."""


def _not_one_of(what: str, choices: Sequence[str], got: str) -> str:
    """The message for a keyword `got` outside `choices`: "`what` must be a or b, got x"."""
    return f"{what} must be {' or '.join(choices)}, got {got}"


def _parse_one_of(parser: Parser, what: str, choices: Sequence[str]) -> str:
    """The identifier next in `parser`, which must be one of `choices` (a parse error
    located at it, `_not_one_of`'s message, otherwise)."""
    pos = parser.pos
    word = parser.parse_identifier()
    if word not in choices:
        parser.raise_error(_not_one_of(what, choices, word), pos, parser.pos)
    return word


def role_of(op: Operation) -> tuple[WarpSpecializeOp, int] | None:
    """The `warp_specialize` op around `op` and the index of its region holding `op`."""
    node: Operation | None = op
    while node is not None:
        region = node.parent_region()
        parent = node.parent_op()
        if isinstance(parent, WarpSpecializeOp) and region is not None:
            return parent, list(parent.regions).index(region)
        node = parent
    return None


def enclosing_launch_op(op: Operation) -> Operation | None:
    """The `layout.launch` around `op`, or None: found by name, for the op modules that
    dialects/layout.py registers (they cannot import it; layout.py's `enclosing_launch`
    gives it typed)."""
    p = op.parent_op()
    while p is not None and p.name != "layout.launch":
        p = p.parent_op()
    return p


def region_threads(op: Operation, block_threads: int) -> int:
    """The threads a block-collective `op` runs on: its warp_specialize region's, else
    the block's `block_threads`."""
    r = role_of(op)
    if r is None:
        return block_threads
    ws, i = r
    return ws.role_threads(i)


def check_block_threads(op: Operation, t: TensorType) -> None:
    """Refuse `op` unless the distributed layout of `t` spans the threads it runs on
    (`region_threads` of its launch's block)."""
    launch = enclosing_launch_op(op)
    n = threads_per_block(t.encoding)
    if launch is not None and n != (have := region_threads(op, launch.num_threads)):
        raise VerifyException(f"layout {t.encoding} spans {n} threads but the block has {have}")


@irdl_op_definition
class WarpSpecializeOp(IRDLOperation):
    """Regions running concurrently on consecutive warpgroups of the block (module
    docstring); `apart` lists the regions each of whose warpgroups runs the region as a
    region of its own (`layout.warpgroup_index` its index among them)."""

    name = "layout.warp_specialize"
    traits = traits_def(NoTerminator(), Synchronizes())
    warpgroups = prop_def(DenseArrayBase)
    apart_regions = opt_prop_def(DenseArrayBase, prop_name="apart")
    roles = var_region_def("single_block")

    def __init__(self, warpgroups: Sequence[int], regions: Sequence[Region] | None = None,
                 apart: Sequence[int] = ()):
        if regions is None:
            regions = [Region(Block()) for _ in warpgroups]
        props = {"warpgroups": DenseArrayBase.from_list(i64, list(warpgroups))}
        if apart:
            props["apart"] = DenseArrayBase.from_list(i64, list(apart))
        super().__init__(properties=props, regions=[list(regions)])

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(int(x) for x in self.warpgroups.get_values())

    @property
    def apart(self) -> tuple[int, ...]:
        """The regions run apart by each of their warpgroups (the class docstring)."""
        return () if self.apart_regions is None else tuple(int(x) for x in self.apart_regions.get_values())

    def first_thread(self, i: int) -> int:
        """The block thread id of region i's thread 0."""
        return WARPGROUP * sum(self.counts[:i])

    def role_threads(self, i: int) -> int:
        """The threads that run region i as one: its warpgroups', or one warpgroup's
        where the region is run apart."""
        return WARPGROUP if i in self.apart else WARPGROUP * self.counts[i]

    def barrier_id(self, i: int) -> int:
        """The named barrier of region i's threads (`bar.sync` id; a region run apart: of
        its first warpgroup, the others' the next ones): 1 + the ids of the regions before."""
        return 1 + sum(self.counts[j] if j in self.apart else 1 for j in range(i))

    def own_barriers(self) -> int:
        """The named barriers the regions' threads take (ids 1 .. this)."""
        return self.barrier_id(len(self.counts)) - 1

    def verify_(self) -> None:
        counts = self.counts
        _check(len(counts) == len(self.roles), f"warpgroups has {len(counts)} counts for {len(self.roles)} regions")
        _check(len(counts) >= 2, f"layout.warp_specialize needs at least 2 regions, got {len(counts)}")
        _check(all(c >= 1 for c in counts), f"each region runs on at least one warpgroup, got {list(counts)}")
        apart = self.apart
        _check(list(apart) == sorted(set(apart)) and all(0 <= i < len(counts) for i in apart),
               f"apart lists regions in increasing order, each once (of {len(counts)}), got {list(apart)}")
        _check(self.own_barriers() < NAMED_BARRIERS,
               f"the regions' own named barriers ({self.own_barriers()}) exceed the {NAMED_BARRIERS - 1} of a block")
        launch = self.parent_op()
        while launch is not None and launch.name != "layout.launch":  # by name: layout.py imports this module
            launch = launch.parent_op()
        _check(launch is not None, "layout.warp_specialize must be inside a layout.launch")
        _check(self.parent_op() is launch, "layout.warp_specialize must be directly in the layout.launch body")
        n = launch.num_threads  # type: ignore[attr-defined]
        _check(
            launch.block is None and n == WARPGROUP * sum(counts),  # type: ignore[attr-defined]
            f"the regions' {sum(counts)} warpgroups must be the whole 1-D block ({WARPGROUP * sum(counts)} threads), "
            f"the block has {n}",
        )
        for region in self.roles:
            for op in region.walk():
                if op.name in BLOCK_WIDE:
                    raise VerifyException(
                        f"'{op.name}' meets the whole block: it cannot be inside a layout.warp_specialize region"
                    )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" warpgroups({', '.join(map(str, self.counts))}) ")
        if self.apart:
            printer.print_string(f"apart({', '.join(map(str, self.apart))}) ")
        for i, r in enumerate(self.roles):
            if i:
                printer.print_string(", ")
            printer.print_region(r, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> WarpSpecializeOp:
        parser.parse_keyword("warpgroups")
        counts = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_integer(allow_boolean=False)
        )
        apart = []
        if parser.parse_optional_keyword("apart") is not None:
            apart = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parser.parse_integer(allow_boolean=False)
            )
        regions = [parser.parse_region()]
        while parser.parse_optional_punctuation(",") is not None:
            regions.append(parser.parse_region())
        for r in regions:
            if not r.blocks:
                r.add_block(Block())
        return cls(counts, regions, apart)


@irdl_op_definition
class WarpgroupIndexOp(IRDLOperation):
    """`layout.warpgroup_index`: the index of the running warpgroup among its region's,
    in a region run apart (`layout.warp_specialize ... apart(i)`): each warpgroup runs
    the region as one of its own, this its only difference (which rows of a tile it
    computes, which buffer it writes)."""

    name = "layout.warpgroup_index"
    traits = traits_def(Pure())
    result = result_def(IndexType)
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[IndexType()])

    def verify_(self) -> None:
        r = role_of(self)
        _check(r is not None and r[1] in r[0].apart,
               "layout.warpgroup_index must be inside a layout.warp_specialize region run apart (apart(...))")


@irdl_op_definition
class SetMaxNRegOp(IRDLOperation):
    """`setmaxnreg.{inc,dec}.sync.aligned.u32 regs` for the warpgroups running it."""

    name = "layout.setmaxnreg"
    traits = traits_def(Synchronizes())
    action = prop_def(StringAttr)
    regs = prop_def(IntegerAttr)
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, action: str, regs: int):
        super().__init__(properties={"action": StringAttr(action), "regs": IntegerAttr(regs, i64)})

    @property
    def count(self) -> int:
        return self.regs.value.data

    def verify_(self) -> None:
        a, n = self.action.data, self.count
        _check(a in SETMAXNREG_ACTIONS, _not_one_of("setmaxnreg action", SETMAXNREG_ACTIONS, a))
        _check(
            24 <= n <= 256 and n % 8 == 0, f"setmaxnreg register count must be a multiple of 8 in [24, 256], got {n}"
        )
        parent = self.parent_op()
        _check(
            isinstance(parent, WarpSpecializeOp),
            "setmaxnreg must be warpgroup-uniform: directly in a layout.warp_specialize region "
            f"(not under {parent.name if parent is not None else 'nothing'})",
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.action.data} {self.count}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> SetMaxNRegOp:
        action = _parse_one_of(parser, "setmaxnreg action", SETMAXNREG_ACTIONS)
        n = parser.parse_integer(allow_boolean=False)
        op = cls(action, n)
        attrs = parser.parse_optional_attr_dict()
        op.attributes.update(attrs)
        return op


NAMED_BARRIERS = 16
"""Hardware barriers of a block (`bar.sync` ids 0..15)."""


@irdl_op_definition
class NamedBarrierOp(IRDLOperation):
    """`bar.sync` / `bar.arrive` of hardware barrier `id`, whose phase completes when
    `threads` threads have arrived, between warp_specialize regions (module docstring)."""

    name = "layout.named_barrier"
    traits = traits_def(Synchronizes())
    mode = prop_def(StringAttr)
    barrier_id = prop_def(IntegerAttr, prop_name="id")
    threads = prop_def(IntegerAttr)
    irdl_options = (ParsePropInAttrDict(),)

    def __init__(self, mode: str, barrier_id: int, threads: int):
        super().__init__(
            properties={
                "mode": StringAttr(mode),
                "id": IntegerAttr(barrier_id, i64),
                "threads": IntegerAttr(threads, i64),
            }
        )

    @property
    def index(self) -> int:
        return self.barrier_id.value.data

    @property
    def count(self) -> int:
        return self.threads.value.data

    @property
    def arrive(self) -> bool:
        """Whether it only arrives (`bar.arrive`), not waits (`bar.sync`)."""
        return self.mode.data == "arrive"

    def verify_(self) -> None:
        m, i, n = self.mode.data, self.index, self.count
        _check(m in NAMED_BARRIER_MODES, _not_one_of("named_barrier mode", NAMED_BARRIER_MODES, m))
        r = role_of(self)
        _check(r is not None, "layout.named_barrier orders warp_specialize regions: it must be inside one")
        assert r is not None
        ws = r[0]
        regions = ws.own_barriers()
        _check(
            regions < i < NAMED_BARRIERS,
            f"named_barrier id must be in [{regions + 1}, {NAMED_BARRIERS}) (0 is __syncthreads's, 1..{regions} "
            f"the regions' own), got {i}",
        )
        block = WARPGROUP * sum(ws.counts)
        _check(
            n > 0 and n % WARPGROUP == 0 and n <= block,
            f"named_barrier threads must be a multiple of {WARPGROUP} (whole warpgroups) in [{WARPGROUP}, {block}] "
            f"(the block's threads), got {n}",
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.mode.data} {self.index}, {self.count}")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> NamedBarrierOp:
        mode = _parse_one_of(parser, "named_barrier mode", NAMED_BARRIER_MODES)
        i = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(",")
        n = parser.parse_integer(allow_boolean=False)
        op = cls(mode, i, n)
        op.attributes.update(parser.parse_optional_attr_dict())
        return op


ROLE_OPS = [WarpSpecializeOp, SetMaxNRegOp, NamedBarrierOp, WarpgroupIndexOp]
