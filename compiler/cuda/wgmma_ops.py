"""Warpgroup MMA (dialects/cuda_wgmma.py) as inline PTX (sm_90a).

Each operand's matrix descriptor is formed on the device by `tilec_wgmma_desc` from
the operand's 32-bit shared address and its `[swizzle, LBO, SBO]` (the bit layout of
`tilec.dialects.wgmma.WgmmaDescriptor`). An operand at a constant offset from a base
(its index `base + c`, or the constant `c`: the K steps and N tiles of one
`layout.mma`) takes the base's descriptor advanced by `tilec_wgmma_desc_add`, c's
bytes / 16 added to the start address field in the low 32 bits: the wgmma of one MMA
share one base descriptor (NVVM computes it once) and each adds one 32-bit constant
(opaque to NVVM, which would otherwise hoist every descriptor of a loop out of it: the
attention kernel at D = 256 then spilled 40 bytes),
as CUTLASS's descriptor iterators do, where a descriptor per wgmma recomputed shift,
mask and the 64-bit OR from its address (about ten instructions per wgmma, most on
the uniform datapath, in the attention kernel's KV loop). The sum is the descriptor
of `base + c`: both addresses are multiples of 16 bytes and below 2^18 (a block's
shared memory, 227 KiB), so the 14-bit field `addr >> 4` never carries. The accumulators are `"+f"` operands of the
`wgmma.mma_async`, copied into fresh variables first; `cuda.wgmma_rs` packs its 8 elements of A into 4 32-bit registers (low
element first, as `mma.sync`). `cuda.wgmma_wait_group` passes
its values through `"+f"` operands of the `wgmma.wait_group` so that the compiler
reads them only after the wait.

A loop kept rolled (`scf_ops.stays_rolled`) whose last wait leaves groups in flight
(`pending` > 0) across its back edge drains them on its last iteration (`wait_group 0`
there): ptxas loses the result of a wgmma still in flight when such a loop exits (the
warp-specialised GEMM at 1024 x 768 x 2048, bk 32, 4 stages and 64 K steps: the last
wgmma of every tile missing from C on an H200; the same CUDA unrolled, or drained before
the exit, is right; dev/experiments/wgmma_bk32_edits.py)."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue

from tilec.dialects import cuda_wgmma
from tilec.dialects.wgmma import SWIZZLE_MODES

from .device_helpers import DEVICE_HELPERS
from .printer import EmitterBase, emits
from .scf_ops import stays_rolled

DEVICE_HELPERS["wgmma_desc"] = """\
// wgmma matrix descriptor: start >> 4 (bits 0-13), LBO >> 4 (16-29), SBO >> 4 (32-45),
// swizzle mode (62-63: 0 none, 1 128-byte, 2 64-byte, 3 32-byte)
__device__ __forceinline__ unsigned long long tilec_wgmma_desc(const void* p, unsigned lbo, unsigned sbo,
                                                               unsigned mode) {
  const unsigned long long addr = static_cast<unsigned>(__cvta_generic_to_shared(p));
  return ((addr >> 4) & 0x3FFFull) | ((unsigned long long)((lbo >> 4) & 0x3FFFu) << 16) |
         ((unsigned long long)((sbo >> 4) & 0x3FFFu) << 32) | ((unsigned long long)mode << 62);
}

// the descriptor `d` of an operand advanced by `bytes` (a multiple of 16): the start
// address field (bits 0-13, below 2^14 for any shared address: no carry) plus bytes >> 4.
// The step is opaque (an empty asm), so the sum is formed at its wgmma: NVVM would hoist
// every descriptor of a loop out of it, 2 registers each for the whole loop.
__device__ __forceinline__ unsigned long long tilec_wgmma_desc_add(unsigned long long d, unsigned bytes) {
  unsigned step = bytes >> 4;
  asm volatile("" : "+r"(step));
  const unsigned lo = static_cast<unsigned>(d) + step;
  return (d & 0xFFFFFFFF00000000ull) | lo;
}"""


def _inout(names: list[str]) -> str:
    return ", ".join('"+f"(' + n + ")" for n in names)


def _out(names: list[str]) -> str:
    return ", ".join('"=f"(' + n + ")" for n in names)


class WgmmaEmitter(EmitterBase):
    def _desc(self, op: cuda_wgmma.WgmmaOp, which: str) -> str:
        mem, index = getattr(op, which), getattr(op, f"{which}_index")
        t = self.buffer(mem, op)
        d = op.descriptor(which)
        base, off = _constant_offset(index)
        bits = getattr(t.element_type, "bitwidth", 0)
        nbytes = off * bits // 8 if off > 0 and bits % 8 == 0 else 0
        if nbytes <= 0 or nbytes % 16:  # no whole step of the start address field: the operand's own address
            base, nbytes = index, 0
        ptr = f"{self.expr(mem)} + {'0' if base is None else self.expr(base)}"
        desc = f"tilec_wgmma_desc({ptr}, {d.lbo}u, {d.sbo}u, {SWIZZLE_MODES[d.swizzle]}u)"
        return f"tilec_wgmma_desc_add({desc}, {nbytes}u)" if nbytes else desc

    @emits(cuda_wgmma.WgmmaOp)
    def emit_wgmma(self, op: cuda_wgmma.WgmmaOp):
        self.helpers.add("wgmma_desc")
        descs = [self._desc(op, w) for w in ("a", "b")]
        # an accumulator of zeros (a partial's first wgmma): scale-d 0, the registers
        # written only ("=f"), none zeroed first
        fresh = all(self.expr(c) == "0.0f" for c in op.accs)
        outs = [self.define(r, "d") for r in op.outs]
        inits = ", ".join(outs) if fresh else ", ".join(f"{o} = {self.expr(c)}" for o, c in zip(outs, op.accs))
        self.line(f"float {inits};")
        k = len(outs)
        regs = ", ".join(f"%{i}" for i in range(k))
        ty, tyb = op.type_name, op.b_type_name
        self.line('asm volatile("{\\n .reg .pred p;\\n setp.ne.b32 p, %' + str(k + 2) + ', 0;\\n"')
        # 8-bit operands are K-major and take no imm-trans operands
        trans = "" if ty in cuda_wgmma.FP8_WGMMA_TYPES else f", {int(op.mn_major('a'))}, {int(op.mn_major('b'))}"
        self.line(
            f'    " wgmma.mma_async.sync.aligned.m64n{op.cols}k{op.k}.f32.{ty}.{tyb} '
            f'{{{regs}}}, %{k}, %{k + 1}, p, 1, 1{trans};\\n}}"'
        )
        self.line(f"    : {_out(outs) if fresh else _inout(outs)}")
        self.line(f'    : "l"({descs[0]}), "l"({descs[1]}), "r"({0 if fresh else 1})')
        self.line('    : "memory");')

    @emits(cuda_wgmma.WgmmaRsOp)
    def emit_wgmma_rs(self, op: cuda_wgmma.WgmmaRsOp):
        self.helpers.add("wgmma_desc")
        ty = op.type_name
        pack = {"bf16": "pack_bf16x2", "f16": "pack_f16x2"}[ty]
        self.helpers.add(pack)
        self.ctype(op.b.type.element_type, op)
        a = [self.expr(v) for v in op.a]
        desc = self._desc(op, "b")
        outs = [self.define(r, "d") for r in op.outs]
        inits = ", ".join(f"{o} = {self.expr(c)}" for o, c in zip(outs, op.accs))
        self.line(f"float {inits};")
        k = len(outs)
        regs = ", ".join(f"%{i}" for i in range(k))
        areg = ", ".join(f"%{k + i}" for i in range(4))
        tb = int(op.mn_major("b"))
        self.line('asm volatile("{\\n .reg .pred p;\\n setp.ne.b32 p, %' + str(k + 5) + ', 0;\\n"')
        self.line(
            f'    " wgmma.mma_async.sync.aligned.m64n{op.cols}k16.f32.{ty}.{ty} '
            f'{{{regs}}}, {{{areg}}}, %{k + 4}, p, 1, 1, {tb};\\n}}"'
        )
        self.line(f"    : {_inout(outs)}")
        packed = ", ".join(f'"r"(tilec_{pack}({a[i]}, {a[i + 1]}))' for i in range(0, 8, 2))
        self.line(f'    : {packed}, "l"({desc}), "r"(1)')
        self.line('    : "memory");')

    @emits(cuda_wgmma.WgmmaFenceOp)
    def emit_wgmma_fence(self, op: cuda_wgmma.WgmmaFenceOp):
        self.line('asm volatile("wgmma.fence.sync.aligned;" ::: "memory");')

    @emits(cuda_wgmma.WgmmaCommitGroupOp)
    def emit_wgmma_commit(self, op: cuda_wgmma.WgmmaCommitGroupOp):
        self.line('asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");')

    @emits(cuda_wgmma.WgmmaWaitGroupOp)
    def emit_wgmma_wait(self, op: cuda_wgmma.WgmmaWaitGroupOp):
        pending = op.pending.value.data
        if op.after:  # issued after these: a fence on NaN, which ptxas keeps in order with the wait
            checks = "".join(
                f" setp.neu.f32 p, %{i}, %{i};" if i == 0 else f" setp.neu.or.f32 p, %{i}, %{i}, p;"
                for i in range(len(op.after)))
            operands = ", ".join(f'"f"({self.expr(v)})' for v in op.after)
            self.line(f'asm volatile("{{ .reg .pred p;{checks} @p fence.proxy.async.shared::cta; }}" :: {operands} : "memory");')
        if not op.values:
            self.line(f'asm volatile("wgmma.wait_group.sync.aligned {pending};" ::: "memory");')
            return
        outs = [self.define(r, "w") for r in op.outs]
        self.line(f"float {', '.join(f'{o} = {self.expr(v)}' for o, v in zip(outs, op.values))};")
        loop = _rolled_loop_of_last_wait(op) if pending else None
        if loop is None:
            self._wait(pending, outs)
            return
        iv = self.expr(loop.body.block.args[0])
        self.line(f"if ({iv} + {self.expr(loop.step)} >= {self.expr(loop.ub)}) {{  // the last iteration: none in flight at the exit")
        with self.indented():
            self._wait(0, outs)
        self.line("} else {")
        with self.indented():
            self._wait(pending, outs)
        self.line("}")

    def _wait(self, pending: int, outs: list[str]) -> None:
        self.line(f'asm volatile("wgmma.wait_group.sync.aligned {pending};"')
        self.line(f"    : {_inout(outs)}")
        self.line('    :: "memory");')


def _constant_offset(index: SSAValue) -> tuple[SSAValue | None, int]:
    """`index` as `base + c`, c the sum of the integer constants added to it (through
    `arith.addi` chains): (base, c), base None where `index` is a constant."""
    off = 0
    while True:
        owner = index.owner
        if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
            return None, off + owner.value.value.data
        if not isinstance(owner, arith.AddiOp):
            return index, off
        consts = [v for v in owner.operands if isinstance(v.owner, arith.ConstantOp)
                  and isinstance(v.owner.value, IntegerAttr)]
        if not consts:
            return index, off
        c = consts[0]
        off += c.owner.value.value.data  # type: ignore[union-attr]
        index = owner.rhs if c is owner.lhs else owner.lhs


def _rolled_loop_of_last_wait(op: cuda_wgmma.WgmmaWaitGroupOp) -> scf.ForOp | None:
    """The loop kept rolled whose body ends in-flight groups at `op`: `op` is the last
    `wgmma.wait_group` at the top level of an `scf.for` body that stays rolled."""
    loop = op.parent_op()
    if not isinstance(loop, scf.ForOp) or not stays_rolled(loop):
        return None
    later = op.next_op
    while later is not None:
        if isinstance(later, cuda_wgmma.WgmmaWaitGroupOp) or any(
            isinstance(o, cuda_wgmma.WgmmaWaitGroupOp) for o in later.walk()
        ):
            return None
        later = later.next_op
    return loop
