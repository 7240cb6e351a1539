"""The core of the `cuda` target: the printer state, types and values, and how a
module, a kernel and a block are printed. Ops are printed by the op families."""
from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from io import StringIO
from typing import ClassVar

import numpy as np
from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StringAttr,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.utils.base_printer import BasePrinter

from tilec.dialects.cuda import memory_space_number
from tilec.dialects.dtypes import FLOAT_ELEMENTS, element_of, to_f8
from tilec.support.diagnostics import LOC_ATTR, TilecError
from tilec.support.target import target_of

from .c_types import (
    _FLOAT_CTYPES,
    _INT_CTYPES,
    _UINT_CTYPES,
    SUPPORTED_ELEMENT_TYPES,
    _FP8_TYPES,
    F8_HELPER,
    _element_bytes,
    _f32_literal,
    _f64_literal,
    _is_supported_element,
    _NameTable,
    _num_elements,
    _round_to_bf16,
)
from .device_helpers import DEVICE_HELPERS as _HELPERS
from .kernel_info import (
    TENSOR_MAP,
    KernelInfo,
    _kernel_funcs,
    buffer_alignment,
    kernel_infos,
    shared_buffers,
)

Emitter = Callable[["EmitterBase", Operation], None]


def _scalar(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def _per_lane(op: Operation) -> bool:
    """Whether `op` is elementwise `arith`/`math` on vectors, which C++ cannot write
    as one expression: every such op but constants and bitcasts (whole-vector
    values) and a select of whole vectors by one condition (`c ? a : b` on structs)."""
    if not op.name.startswith(("arith.", "math.")) or op.name in ("arith.constant", "arith.bitcast"):
        return False
    if not any(isinstance(v.type, VectorType) for v in (*op.operands, *op.results)):
        return False
    return not (op.name == "arith.select" and not isinstance(op.operands[0].type, VectorType))


def emits(*op_types: type[Operation]) -> Callable[[Emitter], Emitter]:
    """Mark a method `(printer, op) -> None` as the printer of `op_types`."""

    def mark(fn: Emitter) -> Emitter:
        fn.emits = op_types  # type: ignore[attr-defined]
        return fn

    return mark


@dataclass(eq=False, repr=False)
class EmitterBase(BasePrinter):
    """The state and the module/kernel/block printing every op family of the `cuda` target
    shares; each family (a module of this package) adds its `@emits`-marked methods in a
    subclass. `print_module` is the entry point."""

    vector_types: dict[str, tuple[str, int, int]] = field(
        default_factory=dict[str, tuple[str, int, int]], init=False
    )
    helpers: set[str] = field(default_factory=set[str], init=False)
    includes: set[str] = field(default_factory=set[str], init=False)
    # per kernel
    names: dict[SSAValue, str] = field(default_factory=dict[SSAValue, str], init=False)
    name_table: _NameTable = field(default_factory=_NameTable, init=False)
    index_bits: int = field(default=32, init=False)
    block_size: tuple[int, int, int] | None = field(default=None, init=False)
    wgmma: bool = field(default=False, init=False)
    """Whether the kernel issues warpgroup MMAs (their descriptors are read from uniform registers)."""
    warp_index: dict[SSAValue, str] = field(default_factory=dict[SSAValue, str], init=False)
    """Per `threadIdx.x` value, the variable holding its warp index broadcast from lane 0
    (gpu_ops.py, `emit_thread_id`), where it has one."""
    last_loc: str | None = field(default=None, init=False)
    smem_offsets: dict[Operation, int] = field(default_factory=dict[Operation, int], init=False)
    """Byte offset of each shared buffer in `tilec_smem`, for a kernel whose shared
    memory is dynamic (empty otherwise)."""

    # ---------------------------------------------------------------- text helpers

    def line(self, text: str) -> None:
        self.print_string("\n" + text)

    def fail(self, op: Operation, message: str) -> TilecError:
        return TilecError(message, op=op)

    # ---------------------------------------------------------------- types

    @property
    def index_ctype(self) -> str:
        return "int" if self.index_bits == 32 else "long long"

    def ctype(self, t: Attribute, op: Operation) -> str:
        """The C++ type of a value of IR type `t`."""
        if isinstance(t, IndexType):
            return self.index_ctype
        if isinstance(t, IntegerType) and t.width.data in _INT_CTYPES:
            return _INT_CTYPES[t.width.data]
        e = FLOAT_ELEMENTS.get(type(t))
        if e is not None:
            name, header = _FLOAT_CTYPES[e.name]
            if header is not None:
                self.includes.add(header)
            return name
        if isinstance(t, VectorType):
            return self.vector_ctype(t, op)
        raise self.fail(
            op,
            f"type {t} is not supported by the cuda target "
            f"(element types: {SUPPORTED_ELEMENT_TYPES}, i1, index)",
        )

    def unsigned_ctype(self, t: Attribute, op: Operation) -> str:
        if isinstance(t, IndexType):
            return "unsigned int" if self.index_bits == 32 else "unsigned long long"
        if isinstance(t, IntegerType) and t.width.data in _UINT_CTYPES:
            return _UINT_CTYPES[t.width.data]
        raise self.fail(op, f"expected an integer type, got {t}")

    def element_ctype(self, t: Attribute, op: Operation) -> str:
        """The C++ type of an element of a buffer: one of the supported types."""
        if not _is_supported_element(t):
            raise self.fail(
                op,
                f"element type {t} is not supported by the cuda target "
                f"(supported: {SUPPORTED_ELEMENT_TYPES})",
            )
        return self.ctype(t, op)

    def vector_ctype(self, t: VectorType, op: Operation) -> str:
        if t.get_num_dims() != 1 or t.get_num_scalable_dims():
            raise self.fail(op, f"only 1-D vectors are supported, got {t}")
        element = t.element_type
        elem_ctype = self.element_ctype(element, op)
        count = _num_elements(t)
        size = count * _element_bytes(element)
        if size > 16 or size & (size - 1):
            raise self.fail(
                op,
                f"vector type {t} is {size} bytes; the cuda target supports vectors "
                "of 1, 2, 4, 8 or 16 bytes",
            )
        e = element_of(element)
        assert e is not None  # element_ctype took it
        name = f"{e.name}x{count}"
        self.vector_types[name] = (elem_ctype, count, size)
        return name

    def word_ctype(self, t: Attribute, op: Operation) -> str | None:
        """The vector of 32-bit words that holds a vector of sub-word elements (1 or 2
        bytes) in whole registers: `i32xN` where `t` is such a vector of 4, 8 or 16
        bytes; None for any other type. The printer moves such vectors as words where
        NVVM would otherwise split the struct into its bytes: loads
        (`tilec_bitcast<i8x16>(*(const i32x4*)p)`), stores and the values an `scf.if`
        joins.
        Split, every byte is a register of its own and ptxas packs them back with a
        `PRMT` per element where a branch (a masked load's `other`) joins them: the
        realign copy of 16-byte int8 chunks took 328 SASS instructions a thread, 200 as
        words (tests/unit/test_copy_kernel_budget.py)."""
        if not isinstance(t, VectorType) or t.get_num_dims() != 1:
            return None
        e = _element_bytes(t.element_type)
        size = _num_elements(t) * e
        if e >= 4 or size < 4 or size % 4:
            return None
        self.ctype(t, op)
        self.helpers.add("bitcast")
        return self.vector_ctype(VectorType(IntegerType(32), [size // 4]), op)

    def buffer(self, value: SSAValue, op: Operation) -> MemRefType:
        t = value.type
        if not isinstance(t, MemRefType) or t.get_num_dims() != 1:
            raise self.fail(op, f"expected a 1-D memref, got {t}")
        self.element_ctype(t.element_type, op)
        return t

    # ---------------------------------------------------------------- values

    def expr(self, value: SSAValue) -> str:
        """The C++ expression for an SSA value: a variable or an inlined constant."""
        return self.names[value]

    def define(self, value: SSAValue, default: str) -> str:
        name = self.name_table.fresh(value.name_hint, default)
        self.names[value] = name
        return name

    def lane(self, vector: str, vtype: VectorType, i: int) -> str:
        """Lane `i` of the vector struct named `vector`. A 16-bit float lane is read as
        half of the 32-bit pair it shares with its neighbour (`__low2half` /
        `__high2half` of a `__half2`): the pair stays one register, where `v.v[i]`
        makes NVVM split the struct into 16-bit values and ptxas merge them back with a
        `PRMT` per lane where a branch (a masked load's `other`) joins."""
        elem = vtype.element_type
        pair = {Float16Type: ("__half2", "__low2half", "__high2half"),
                BFloat16Type: ("__nv_bfloat162", "__low2bfloat16", "__high2bfloat16")}.get(type(elem))
        if pair is None or _num_elements(vtype) % 2:
            return f"{vector}.v[{i}]"
        t2, low, high = pair
        return f"{high if i % 2 else low}(*reinterpret_cast<const {t2}*>(&{vector}.v[{i - i % 2}]))"

    def assign(self, op: Operation, value: SSAValue, expr: str, default: str = "t"):
        """Print `const T name = expr;` for the result `value` of `op`."""
        ctype = self.ctype(value.type, op)
        name = self.define(value, default)
        self.line(f"const {ctype} {name} = {expr};")

    def literal(self, attr: Attribute, t: Attribute, op: Operation) -> str:
        if isinstance(attr, IntegerAttr):
            return self.int_literal(attr.value.data, t, op)
        if isinstance(attr, FloatAttr):
            return self.float_literal(attr.value.data, t, op)
        raise self.fail(op, f"unsupported constant {attr}")

    def int_literal(self, value: int, t: Attribute, op: Operation) -> str:
        if isinstance(t, IntegerType) and t.width.data == 1:
            return "true" if value & 1 else "false"
        bits = self.index_bits if isinstance(t, IndexType) else t.width.data  # type: ignore[attr-defined]
        self.ctype(t, op)
        value &= (1 << bits) - 1
        if value >= 1 << (bits - 1):
            value -= 1 << bits
        if bits == 64 and value == -(2**63):
            return "(-9223372036854775807LL - 1)"
        text = str(value)
        if not -(2**31) <= value < 2**31:
            text += "LL"
        return f"({text})" if value < 0 else text

    def float_literal(self, value: float, t: Attribute, op: Operation) -> str:
        text = self._float_literal(value, t, op)
        return f"({text})" if text.startswith("-") else text

    def _float_literal(self, value: float, t: Attribute, op: Operation) -> str:
        ctype = self.ctype(t, op)
        if isinstance(t, Float32Type):
            return _f32_literal(value)
        if isinstance(t, Float64Type):
            return _f64_literal(value)
        # 16-bit floats by their bits: `__float2half(x)` is inline PTX (`cvt.rn.f16.f32`)
        # that NVVM does not fold, so a constant vector (a masked load's `other`) would be
        # built 16 bits at a time and merged with `PRMT`s where its branch joins
        if isinstance(t, Float16Type):
            bits = int(np.float16(value).view(np.uint16))
            return f"__ushort_as_half((unsigned short)0x{bits:04x})"
        if isinstance(t, BFloat16Type):
            bits = struct.unpack("<I", struct.pack("<f", _round_to_bf16(value)))[0] >> 16
            return f"__ushort_as_bfloat16((unsigned short)0x{bits:04x})"
        if isinstance(t, _FP8_TYPES):  # by its bits, rounded as the executor rounds
            short = FLOAT_ELEMENTS[type(t)].name
            helper = F8_HELPER[short]
            self.helpers.add(f"{helper}_bits")
            return f"tilec_{helper}_bits(0x{int(to_f8(value, short)):02x})"
        raise self.fail(op, f"unsupported float constant of type {ctype}")

    def loc_comment(self, op: Operation) -> None:
        loc = op.attributes.get(LOC_ATTR)
        if loc is None:
            return
        text = loc.data if type(loc) is StringAttr else getattr(loc, "data", None)
        if text is None:
            text = str(loc)
        if text != self.last_loc:
            self.line(f"// {text}")
            self.last_loc = text

    # ---------------------------------------------------------------- module

    def print_module(self, module: ModuleOp) -> str:
        """Print every kernel of `module`; returns the whole translation unit."""
        infos = kernel_infos(module)
        body = StringIO()
        saved = self.stream
        self.stream = body
        for gpu_module, kernel in _kernel_funcs(module):
            self.print_kernel(kernel, infos[kernel.sym_name.data], gpu_module)
        self.stream = saved
        text = self.prelude() + body.getvalue().lstrip("\n") + "\n"
        if self.stream is not None:
            self.stream.write(text)
        return text

    def prelude(self) -> str:
        parts = ["// Generated by tilec (-t cuda) from GPU-level IR. Do not edit.\n"]
        if self.includes:
            parts.append(
                "".join(f"#include <{h}>\n" for h in sorted(self.includes)) + "\n"
            )
        else:
            parts.append("\n")
        for name in sorted(self.vector_types):
            elem, count, size = self.vector_types[name]
            parts.append(f"struct alignas({size}) {name} {{ {elem} v[{count}]; }};\n")
        if self.vector_types:
            parts.append("\n")
        for helper in sorted(self.helpers):
            parts.append(_HELPERS[helper] + "\n\n")
        return "".join(parts)

    def print_kernel(
        self, kernel: gpu.FuncOp, info: KernelInfo, gpu_module: gpu.ModuleOp
    ) -> None:
        self.names = {}
        self.name_table = _NameTable()
        self.index_bits = info.index_bits
        self.block_size = info.block_size
        self.warp_index = {}
        self.wgmma = any(op.name.startswith("cuda.wgmma") for op in kernel.walk())
        self.last_loc = None
        params: list[str] = []
        for arg, param in zip(kernel.body.block.args, info.params):
            self.name_table.used.add(param.name)
            self.names[arg] = param.name
            if param.is_buffer:
                memref_type = self.buffer(arg, kernel)
                if memory_space_number(memref_type) not in (None, 1):
                    raise self.fail(
                        kernel,
                        f"kernel argument '{param.name}' must be a global buffer, "
                        f"got {memref_type}",
                    )
                elem = self.element_ctype(memref_type.element_type, kernel)
                const = "" if param.written else "const "
                params.append(f"{const}{elem}* __restrict__ {param.name}")
            elif param.dtype == TENSOR_MAP:
                self.helpers.add("tensor_map")
                params.append(f"const __grid_constant__ tilec_tensor_map {param.name}")
            else:
                params.append(f"{self.ctype(arg.type, kernel)} {param.name}")
        self.line("")
        bounds = ""
        description = f"// kernel {info.symbol}: {info.index_bits}-bit indices"
        if info.block_size is not None:
            x, y, z = info.block_size
            blocks = f", {info.min_blocks}" if info.min_blocks is not None else ""
            bounds = f" __launch_bounds__({x * y * z}{blocks})"
            description += f", block ({x}, {y}, {z})"
        if info.cluster_dims is not None:
            bounds = f" __cluster_dims__({info.cluster_dims}, 1, 1){bounds}"
        self.line(description)
        self.loc_comment(kernel)
        self.line(f'extern "C" __global__ void{bounds}')
        self.line(f"{info.name}({', '.join(params)}) {{")
        if len(kernel.body.blocks) != 1:
            raise self.fail(kernel, "kernels of more than one block are not supported")
        self.smem_offsets = {}
        tgt = target_of(kernel)
        with self.indented():
            if info.dynamic_smem_bytes:
                self.line(
                    f"// {info.dynamic_smem_bytes} bytes of shared memory, more than the "
                    f"{tgt.static_smem_limit} a kernel may declare statically: dynamic"
                )
                bufs = shared_buffers(kernel)
                align = max(buffer_alignment(op, tgt.smem_align) for op, _ in bufs)
                self.line(f"extern __shared__ __align__({align}) unsigned char tilec_smem[];")
                self.smem_offsets = {op: off for op, off in bufs}
            self.print_block(kernel.body.block)
        self.line("}")

    def print_block(self, block: Block, results: Sequence[str | tuple[str, int, str]] = ()) -> None:
        """Print the ops of `block`; its terminator assigns to `results`. Location
        comments start afresh in each block and after it."""
        self.last_loc = None
        for op in block.ops:
            if isinstance(op, scf.YieldOp):
                self.print_yield(op, results)
            elif isinstance(op, scf.ConditionOp):
                self.print_assign(op, results, op.args)
                self.line(f"if (!{self.expr(op.condition)}) break;")
            elif isinstance(op, gpu.ReturnOp) and op is block.last_op:
                if block.parent_op() is not None and isinstance(
                    block.parent_op(), gpu.FuncOp
                ):
                    continue
                self.line("return;")
            else:
                self.loc_comment(op)
                self.emit(op)
        self.last_loc = None

    def print_yield(self, op: scf.YieldOp, results: Sequence[str | tuple[str, int, str]]) -> None:
        self.print_assign(op, results, op.operands)

    def print_assign(
        self, op: Operation, results: Sequence[str | tuple[str, str] | tuple[str, int, str]], values: Sequence[SSAValue]
    ) -> None:
        """`results[i] = values[i]` for every i, as one parallel assignment. A target
        `(name, word)` is a variable of the word vector type `word` that holds the
        value's bits (`word_ctype`: an `scf.if`'s sub-word vector result). A target
        `(name, half, pack)` is the low (0) or high (1) half of a 32-bit variable that
        holds two 16-bit values (a packed iter_arg pair of `ScfEmitter.emit_for`): both
        halves are assigned at once, `name = tilec_<pack>(lo, hi)`."""
        pairs: list[tuple[str, str, str]] = []  # (target, C type, expression)
        halves: dict[str, list[str]] = {}
        for target, value in zip(results, values, strict=True):
            if isinstance(target, tuple) and len(target) == 2:
                name, word = target  # a word variable holding the value's bits (`word_ctype`)
                pairs.append((name, word, f"tilec_bitcast<{word}>({self.expr(value)})"))
            elif isinstance(target, tuple):
                name, half, pack = target
                halves.setdefault(name, [pack, "", ""])[1 + half] = self.expr(value)
            elif target != self.expr(value):
                pairs.append((target, self.ctype(value.type, op), self.expr(value)))
        pairs += [(name, "unsigned", f"tilec_{pack}({lo}, {hi})") for name, (pack, lo, hi) in halves.items()]
        if len(pairs) > 1:
            # Read every yielded value before writing any (a yield may swap them).
            temps: list[tuple[str, str]] = []
            for target, ctype, expr in pairs:
                temp = self.name_table.fresh(target + "_next", "t")
                self.line(f"const {ctype} {temp} = {expr};")
                temps.append((target, temp))
            for target, temp in temps:
                self.line(f"{target} = {temp};")
        else:
            for target, _, expr in pairs:
                self.line(f"{target} = {expr};")

    # ---------------------------------------------------------------- ops

    EMITTERS: ClassVar[dict[type[Operation], Emitter]] = {}
    """op type -> the method that prints it (filled by `cuda/__init__.py` from the
    `@emits` marks of the op families)."""

    def emit(self, op: Operation) -> None:
        fn = self.EMITTERS.get(type(op))
        if fn is None:
            raise self.fail(op, f"'{op.name}' is not supported by the cuda target")
        if _per_lane(op):
            self.emit_lanes(op, fn)
            return
        fn(self, op)

    def emit_lanes(self, op: Operation, fn: Emitter) -> None:
        """Print an elementwise `arith`/`math` op on vectors lane by lane: C++ has no
        arithmetic on the vector structs, so lane i is the op's scalar clone on the
        operands' lane i (`a.v[i]`; a scalar operand as it is), printed by the op's own
        method, and the results are gathered into vectors."""
        (vtype,) = {v.type for v in (*op.operands, *op.results) if isinstance(v.type, VectorType)} or {None}
        if vtype is None or vtype.get_num_dims() != 1:
            raise self.fail(op, f"'{op.name}' on vectors of different shapes is not supported")
        lanes = _num_elements(vtype)
        for v in op.operands:
            if isinstance(v.type, VectorType):
                self.ctype(v.type, op)
        lane_results: list[list[str]] = [[] for _ in op.results]
        for i in range(lanes):
            scalars = Block(arg_types=[_scalar(v.type) for v in op.operands])
            for arg, v in zip(scalars.args, op.operands, strict=True):
                self.names[arg] = self.lane(self.expr(v), v.type, i) if isinstance(v.type, VectorType) else self.expr(v)
            clone = type(op).create(
                operands=list(scalars.args),
                result_types=[_scalar(r.type) for r in op.results],
                properties=dict(op.properties),
                attributes=dict(op.attributes),
            )
            for r, c in zip(op.results, clone.results, strict=True):
                c.name_hint = r.name_hint
            fn(self, clone)
            for names, c in zip(lane_results, clone.results, strict=True):
                names.append(self.expr(c))
        for r, names in zip(op.results, lane_results, strict=True):
            ctype = self.ctype(r.type, op)
            name = self.define(r, "v")
            self.line(f"const {ctype} {name} = {{{{{', '.join(names)}}}}};")

