"""`memref` and `vector` ops: scalar loads and stores, shared and register buffers,
vector loads/stores through aligned structs, element extract/insert, broadcast."""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, memref, scf, vector
from xdsl.dialects.builtin import (
    MemRefType,
    StringAttr,
    VectorType,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from tilec.dialects.cuda import memory_space_number

from .c_types import (
    _element_bytes,
    _num_elements,
)
from .kernel_info import buffer_alignment, buffer_written
from .printer import EmitterBase, emits


class MemoryEmitter(EmitterBase):
    # memref and vector

    @emits(memref.LoadOp)
    def emit_load(self, op: memref.LoadOp):
        self.buffer(op.memref, op)
        (index,) = self.indices(op, op.indices)
        hint = self.cache_hint(op)
        if hint is not None:
            nc = self.read_only(op.memref)
            self.assign(op, op.res, f"tilec_ld_l2<{hint}, {nc}>({self.expr(op.memref)} + {index})", "x")
            return
        self.assign(op, op.res, f"{self.expr(op.memref)}[{index}]", "x")

    @emits(memref.StoreOp)
    def emit_store(self, op: memref.StoreOp):
        self.buffer(op.memref, op)
        (index,) = self.indices(op, op.indices)
        hint = self.cache_hint(op)
        if hint is not None:
            self.line(f"tilec_st_l2<{hint}>({self.expr(op.memref)} + {index}, {self.expr(op.value)});")
            return
        self.line(f"{self.expr(op.memref)}[{index}] = {self.expr(op.value)};")

    def cache_hint(self, op: Operation) -> str | None:
        """The template argument of `tilec_ld_l2` / `tilec_st_l2` for an access with an L2
        eviction priority (the `cache` attribute `lower-to-gpu` gives a global access of a
        hinted `layout.load` / `layout.store`: 1 evict_last, 0 evict_first), else None."""
        hint = op.attributes.get("cache")
        if hint is None:
            return None
        if not isinstance(hint, StringAttr) or hint.data not in ("evict_first", "evict_last"):
            raise self.fail(op, f"cache = {hint}: the L2 eviction priority is evict_first or evict_last")
        if memory_space_number(op.operands[0 if isinstance(op, (memref.LoadOp, vector.LoadOp)) else 1].type) == 3:
            raise self.fail(op, "an L2 eviction priority is for global memory, not shared memory")
        self.helpers.add("l2_hint")
        return "1" if hint.data == "evict_last" else "0"

    def read_only(self, buffer: SSAValue) -> int:
        """1 where `buffer` is a kernel argument the kernel never writes (printed
        `const __restrict__`, read through the non-coherent path), else 0."""
        if not isinstance(buffer, BlockArgument):
            return 0
        return 0 if buffer_written(buffer) else 1

    def indices(self, op: Operation, indices: Sequence[SSAValue]) -> list[str]:
        if len(indices) != 1:
            raise self.fail(op, "only 1-D memrefs (one index) are supported")
        return [self.expr(i) for i in indices]

    @emits(memref.AllocaOp)
    def emit_alloca(self, op: memref.AllocaOp):
        t = op.memref.type
        assert isinstance(t, MemRefType)
        shape = t.get_shape()
        if len(shape) != 1 or shape[0] < 0 or op.dynamic_sizes:
            raise self.fail(op, f"only static 1-D allocas are supported, got {t}")
        elem = self.element_ctype(t.element_type, op)
        space = memory_space_number(t)
        if space == 3 and op in self.smem_offsets:
            name = self.define(op.memref, "smem")
            self.line(
                f"{elem}* const {name} = reinterpret_cast<{elem}*>(tilec_smem + "
                f"{self.smem_offsets[op]});  // {shape[0]} elements"
            )
        elif space == 3:
            name = self.define(op.memref, "smem")
            align = buffer_alignment(op, 16)
            self.line(f"__shared__ alignas({align}) {elem} {name}[{shape[0]}];")
        elif space in (None, 5):
            name = self.define(op.memref, "regs")
            self.line(f"alignas(16) {elem} {name}[{shape[0]}];")
        else:
            raise self.fail(
                op,
                f"memory space {t.memory_space} is not supported (shared memory is "
                "3, registers are 5 or none)",
            )

    @emits(memref.SubviewOp)
    def emit_subview(self, op: memref.SubviewOp):
        """A 1-D shared buffer from an element offset on (a stage of a staged buffer,
        one mbarrier of an array): a pointer into it."""
        t = self.buffer(op.source, op)
        if memory_space_number(t) != 3 or len(op.static_offsets.get_values()) != 1 or any(
            s != 1 for s in op.static_strides.get_values()
        ):
            raise self.fail(op, "only unit-stride subviews of 1-D shared buffers are supported")
        (static,) = op.static_offsets.get_values()
        off = self.expr(op.offsets[0]) if op.offsets else str(static)
        elem = self.element_ctype(t.element_type, op)
        name = self.define(op.result, op.result.name_hint or "at")
        self.line(f"{elem}* const {name} = {self.expr(op.source)} + {off};")

    def vector_pointer(self, op: Operation, base: SSAValue, vtype: Attribute) -> str:
        memref_type = self.buffer(base, op)
        assert isinstance(vtype, VectorType)
        if vtype.element_type != memref_type.element_type:
            raise self.fail(op, "vector and memref element types differ")
        return self.vector_ctype(vtype, op)

    @emits(vector.LoadOp)
    def emit_load2(self, op: vector.LoadOp):
        """A vector load; a vector of sub-word elements loads as its words
        (`word_ctype`), bitcast."""
        vt = self.vector_pointer(op, op.base, op.result.type)
        (index,) = self.indices(op, op.indices)
        word = self.word_ctype(op.result.type, op)
        lt = word or vt
        expr = f"*reinterpret_cast<const {lt}*>({self.expr(op.base)} + {index})"
        hint = self.cache_hint(op)
        if hint is not None:
            nc = self.read_only(op.base)
            expr = f"tilec_ld_l2<{hint}, {nc}>(reinterpret_cast<const {lt}*>({self.expr(op.base)} + {index}))"
        if word is not None:
            expr = f"tilec_bitcast<{vt}>({expr})"
        self.assign(op, op.result, expr, "v")

    @emits(vector.StoreOp)
    def emit_store2(self, op: vector.StoreOp):
        """A vector store; a vector of sub-word elements whose bits the printer holds
        as words (`word_ctype`: loaded, joined after a branch, or bitcast from 32-bit
        elements) stores as its words. One built element by element stores as it is
        (bitcast to words, NVVM packed its bytes again: +432 SASS instructions in an
        int8 box kernel)."""
        vt = self.vector_pointer(op, op.base, op.vector.type)
        (index,) = self.indices(op, op.indices)
        word = self.word_ctype(op.vector.type, op) if _held_as_words(op.vector) else None
        value = self.expr(op.vector)
        if word is not None:
            vt, value = word, f"tilec_bitcast<{word}>({value})"
        hint = self.cache_hint(op)
        if hint is not None:
            target = f"reinterpret_cast<{vt}*>({self.expr(op.base)} + {index})"
            self.line(f"tilec_st_l2<{hint}>({target}, {value});")
            return
        target = f"*reinterpret_cast<{vt}*>({self.expr(op.base)} + {index})"
        self.line(f"{target} = {value};")

    def position(self, op: vector.ExtractOp | vector.InsertOp) -> str:
        positions = op.get_mixed_position()
        if len(positions) != 1:
            raise self.fail(op, "only 1-D vectors are supported")
        (p,) = positions
        return str(p) if isinstance(p, int) else self.expr(p)

    @emits(vector.ExtractOp)
    def emit_extract(self, op: vector.ExtractOp):
        self.ctype(op.vector.type, op)
        p = self.position(op)
        lane = self.lane(self.expr(op.vector), op.vector.type, int(p)) if p.isdigit() else f"{self.expr(op.vector)}.v[{p}]"
        self.assign(op, op.result, lane)

    @emits(vector.InsertOp)
    def emit_insert(self, op: vector.InsertOp):
        ctype = self.ctype(op.result.type, op)
        name = self.define(op.result, "v")
        self.line(f"{ctype} {name} = {self.expr(op.dest)};")
        self.line(f"{name}.v[{self.position(op)}] = {self.expr(op.source)};")

    @emits(vector.BroadcastOp)
    def emit_broadcast(self, op: vector.BroadcastOp):
        t = op.vector.type
        assert isinstance(t, VectorType)
        if isinstance(op.source.type, VectorType):
            raise self.fail(op, "only broadcasts of scalars are supported")
        ctype = self.ctype(t, op)
        source = self.expr(op.source)
        values = ", ".join([source] * _num_elements(t))
        name = self.define(op.vector, "v")
        self.line(f"const {ctype} {name} = {{{{{values}}}}};")


def _held_as_words(value: SSAValue) -> bool:
    """Whether the printer holds a vector's bits as 32-bit words (`word_ctype`): the
    result of a `vector.load` or an `scf.if`, or a bitcast from elements of 4 bytes or
    more."""
    owner = value.owner
    if isinstance(owner, (vector.LoadOp, scf.IfOp)):
        return True
    if isinstance(owner, (vector.BitcastOp, arith.BitcastOp)):
        src = owner.operands[0].type
        return isinstance(src, VectorType) and _element_bytes(src.element_type) >= 4
    return False
