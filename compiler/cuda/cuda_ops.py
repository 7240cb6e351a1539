"""The `cuda` dialect: cp.async and its groups, comments, printf, warp shuffles, mma.sync,
ldmatrix/stmatrix, grouped approximate divisions, exp2 on the FMA pipe."""
from __future__ import annotations

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    IntegerType,
)

from tilec.dialects import cuda

from .printer import EmitterBase, emits


class CudaOpsEmitter(EmitterBase):
    # cuda

    @emits(cuda.CpAsyncOp)
    def emit_cp_async(self, op: cuda.CpAsyncOp):
        self.buffer(op.dst, op)
        self.buffer(op.src, op)
        dst = f"{self.expr(op.dst)} + {self.expr(op.dst_index)}"
        src = f"{self.expr(op.src)} + {self.expr(op.src_index)}"
        if op.src_bytes is not None:  # zero fill: src-size 0 or 16
            self.helpers.add("cp_async_zfill")
            self.line(f"tilec_cp_async_zfill({dst}, {src}, (unsigned)({self.expr(op.src_bytes)}));")
            return
        if op.l1 is not None or op.prefetch is not None:  # 16 bytes (the verifier): through L1 (.ca) or
            self.helpers.add("cp_async16")  # not, with the L2's prefetch size or none
            size = 0 if op.prefetch is None else op.prefetch.value.data
            self.line(f"tilec_cp_async16<{'true' if op.l1 is not None else 'false'}, {size}>({dst}, {src});")
            return
        self.helpers.add("cp_async")
        self.line(f"tilec_cp_async<{op.bytes.value.data}>({dst}, {src});")

    @emits(cuda.PrefetchL2Op)
    def emit_prefetch_l2(self, op: cuda.PrefetchL2Op):
        self.buffer(op.src, op)
        self.helpers.update(("l2_hint", "prefetch_l2"))  # its policy is l2_hint's tilec_l2_policy
        hint = {None: 0, "evict_last": 1, "evict_first": 2}[op.cache.data if op.cache is not None else None]
        self.line(f"tilec_prefetch_l2<{hint}>({self.expr(op.src)} + {self.expr(op.index)}, {op.bytes.value.data}ull);")

    @emits(cuda.PrefetchL1Op)
    def emit_prefetch_l1(self, op: cuda.PrefetchL1Op):
        self.buffer(op.src, op)
        self.line(f'asm volatile("prefetch.global.L1 [%0];" :: "l"({self.expr(op.src)} + {self.expr(op.index)}));')

    @emits(cuda.PrefetchGlobalL2Op)
    def emit_prefetch_global_l2(self, op: cuda.PrefetchGlobalL2Op):
        self.buffer(op.src, op)
        at = f"{self.expr(op.src)} + {self.expr(op.index)}"
        if op.row is not None:  # a row's partial sectors, adjacent ones by one ask
            self.helpers.add("prefetch_row")
            self.line(f"tilec_prefetch_row({at}, (unsigned long long)({self.expr(op.row)}) * sizeof(*({at})));")
            return
        if op.edge is not None:  # only where the address plus `edge` is not on a sector boundary
            self.line(f"if ((reinterpret_cast<unsigned long long>({at}) + {op.edge.value.data}ull) & 31ull)")
        if op.bulk is not None:
            self.helpers.add("prefetch_sector")
            self.line(f"{'  ' if op.edge is not None else ''}tilec_prefetch_sector({at});")
            return
        self.line(f'{"  " if op.edge is not None else ""}asm volatile("prefetch.global.L2 [%0];" :: "l"({at}));')

    @emits(cuda.CpAsyncCommitOp)
    def emit_cp_async_commit(self, op: cuda.CpAsyncCommitOp):
        self.helpers.add("cp_async")
        self.line("tilec_cp_async_commit();")

    @emits(cuda.CpAsyncWaitOp)
    def emit_cp_async_wait(self, op: cuda.CpAsyncWaitOp):
        self.helpers.add("cp_async")
        self.line(f"tilec_cp_async_wait<{op.pending.value.data}>();")

    @emits(cuda.OpaqueOp)
    def emit_opaque(self, op: cuda.OpaqueOp):
        """A copy of the value through an empty `asm volatile` (`cuda.opaque`): NVVM
        cannot fold or recompute it."""
        t = op.result.type
        wide = (t.width.data if isinstance(t, IntegerType) else self.index_bits) == 64
        name = self.define(op.result, "t")
        self.line(f"{self.ctype(t, op)} {name} = {self.expr(op.value)};")
        self.line(f'asm volatile("" : "+{"l" if wide else "r"}"({name}));')

    @emits(cuda.BytePermOp)
    def emit_byte_perm(self, op: cuda.BytePermOp):
        """`__byte_perm` of two 32-bit words (one `PRMT`)."""
        a, b = self.expr(op.a), self.expr(op.b)
        self.assign(op, op.result, f"(int)__byte_perm((unsigned)({a}), (unsigned)({b}), {op.selector.value.data:#x}u)")

    @emits(cuda.CommentOp)
    def emit_comment(self, op: cuda.CommentOp):
        text = " ".join(op.text.data.split())
        self.line(f"// {text}")

    @emits(cuda.PrintfOp)
    def emit_printf(self, op: cuda.PrintfOp):
        """`printf("...", values);` (floats passed as double, as C's varargs do)."""
        fmt = op.format.data.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        args = []
        for v in op.values:
            x = self.expr(v)
            args.append(f"(double){x}" if isinstance(v.type, AnyFloat) else
                        f"(long long){x}" if v.type.width.data == 64 else x)
        self.line(f'printf("{fmt}"{"".join(", " + a for a in args)});')

    @emits(cuda.DivApproxGroupOp)
    def emit_div_approx_group(self, op: cuda.DivApproxGroupOp):
        """G quotients through one `rcp.approx.ftz` (`tilec_rcp_approx_ftz`) of the
        divisors' product, the products taken in pairs: for G = 4, a = d0 d1, b = d2 d3,
        r = rcp(a b), ra = r b (= 1 / a), rb = r a; 1 / d0 = d1 ra, ..., q_i = x_i (1 / d_i).
        Each step a separate statement (NVRTC runs with `--fmad=false`: no contraction)."""
        xs = [self.expr(v) for v in op.numerators]
        ds = [self.expr(v) for v in op.divisors]
        qs = [self.define(r, "q") for r in op.outs]
        self.helpers.add("rcp_approx_ftz")
        g, base = len(qs), qs[0]
        if g == 2:
            self.line(f"const float {base}_r = tilec_rcp_approx_ftz({ds[0]} * {ds[1]});")
            pair_r = [f"{base}_r"]
        else:
            self.line(f"const float {base}_a = {ds[0]} * {ds[1]};")
            self.line(f"const float {base}_b = {ds[2]} * {ds[3]};")
            self.line(f"const float {base}_r = tilec_rcp_approx_ftz({base}_a * {base}_b);")
            self.line(f"const float {base}_ra = {base}_r * {base}_b;")
            self.line(f"const float {base}_rb = {base}_r * {base}_a;")
            pair_r = [f"{base}_ra", f"{base}_rb"]
        for i, q in enumerate(qs):
            mate = ds[i ^ 1]
            self.line(f"const float {q} = {xs[i]} * ({mate} * {pair_r[i // 2]});")

    @emits(cuda.Ex2FmaOp)
    def emit_ex2_fma(self, op: cuda.Ex2FmaOp):
        """2^x on the FMA pipe (`tilec_ex2_fma`, the op's steps)."""
        self.helpers.add("ex2_fma")
        self.assign(op, op.out, f"tilec_ex2_fma({self.expr(op.value)})")

    @emits(cuda.ShflIdxOp)
    def emit_shfl_idx(self, op: cuda.ShflIdxOp):
        t = op.result.type
        ctype = self.ctype(t, op)
        value = self.expr(op.value)
        lane = self.expr(op.lane)
        width = op.width.value.data
        small = isinstance(t, IntegerType) and t.width.data < 32
        if small:
            value = f"(int){value}"
        expr = f"__shfl_sync(0xffffffffu, {value}, {lane}, {width})"
        if small:
            expr = f"({ctype}){expr}"
        self.assign(op, op.result, expr, "shfl")

    @emits(cuda.MmaSyncOp)
    def emit_mma_sync(self, op: cuda.MmaSyncOp):
        """`mma.sync.aligned.m16n8kK.row.col...` as inline PTX: the operand fragments
        packed into 32-bit registers, low element first (`tilec_pack_*`; a tf32 is the
        f32's bits), the accumulators as "f" (f32) or "r" (s32) operands."""
        name, kind = op.kind_name, op.kind
        self.ctype(op.operand_type, op)  # includes the header of the type
        frag = [self.expr(v) for v in op.fragments]
        n = kind.a + kind.b
        if kind.per_register == 1:
            regs = [f'"r"(__float_as_uint({x}))' for x in frag[:n]]
        else:
            pack = {"bf16": "pack_bf16x2", "f16": "pack_f16x2", "i8": "pack_s8x4"}[name]
            self.helpers.add(pack)
            step = kind.per_register
            regs = [f'"r"(tilec_{pack}({", ".join(frag[i:i + step])}))' for i in range(0, n, step)]
        acc = "r" if name == "i8" else "f"
        regs += [f'"{acc}"({x})' for x in frag[n:]]
        outs = [self.define(r, "d") for r in op.outs]
        self.line(f"{'int' if name == 'i8' else 'float'} {', '.join(outs)};")
        na, nb = kind.a // kind.per_register, kind.b // kind.per_register
        places = iter(range(4 + na + nb + 4))

        def group(k: int) -> str:
            return "{" + ", ".join(f"%{next(places)}" for _ in range(k)) + "}"

        operands = ", ".join(group(k) for k in (4, na, nb, 4))
        self.line(f'asm("{kind.ptx} {operands};"')
        constraints = ", ".join(f'"={acc}"({o})' for o in outs)
        self.line(f"    : {constraints}")
        self.line(f"    : {', '.join(regs)});")

    # ldmatrix / stmatrix: 16-bit elements travel in pairs, low half first

    def _b16_bits(self, t) -> tuple[str, str]:
        """(to bits, from bits): C expressions turning a 16-bit value into an unsigned
        short and back, for the element type `t`."""
        if isinstance(t, BFloat16Type):
            return "__bfloat16_as_ushort({})", "__ushort_as_bfloat16({})"
        if isinstance(t, Float16Type):
            return "__half_as_ushort({})", "__ushort_as_half({})"
        return "(unsigned short)({})", "(short)({})"

    def _matrix_ptx(self, op, verb: str) -> str:
        trans = ".trans" if op.is_trans else ""
        return f"{verb}.sync.aligned.m8n8.x{op.count}{trans}.shared.b16"

    @emits(cuda.LdmatrixOp)
    def emit_ldmatrix(self, op: cuda.LdmatrixOp):
        """`ldmatrix` as inline PTX into 32-bit registers, each split into its two
        16-bit elements (NVRTC folds the split into the `mma.sync` that packs them)."""
        self.buffer(op.mem, op)
        et = op.mem.type.element_type
        self.ctype(et, op)
        n = op.count
        regs = [self.name_table.fresh(None, "lm") for _ in range(n)]
        addr = f"(unsigned)__cvta_generic_to_shared({self.expr(op.mem)} + {self.expr(op.index)})"
        places = ", ".join(f"%{i}" for i in range(n))
        self.line(f"unsigned {', '.join(regs)};")
        self.line(f'asm volatile("{self._matrix_ptx(op, "ldmatrix")} {{{places}}}, [%{n}];"')
        outs = ", ".join('"=r"(' + r + ")" for r in regs)
        self.line(f"    : {outs}")
        self.line(f'    : "r"({addr}));')
        _, from_bits = self._b16_bits(et)
        for i, v in enumerate(op.outs):
            half = f"(unsigned short)({regs[i // 2]} & 0xffffu)" if i % 2 == 0 else f"(unsigned short)({regs[i // 2]} >> 16)"
            self.assign(op, v, from_bits.format(half), "x")

    @emits(cuda.StmatrixOp)
    def emit_stmatrix(self, op: cuda.StmatrixOp):
        self.buffer(op.mem, op)
        et = op.mem.type.element_type
        self.ctype(et, op)
        n = op.count
        to_bits, _ = self._b16_bits(et)
        vals = [to_bits.format(self.expr(v)) for v in op.values]
        regs = [f'"r"((unsigned){vals[2 * q]} | ((unsigned){vals[2 * q + 1]} << 16))' for q in range(n)]
        addr = f"(unsigned)__cvta_generic_to_shared({self.expr(op.mem)} + {self.expr(op.index)})"
        places = ", ".join(f"%{i + 1}" for i in range(n))
        self.line(f'asm volatile("{self._matrix_ptx(op, "stmatrix")} [%0], {{{places}}};"')
        self.line(f'    :: "r"({addr}), {", ".join(regs)}')
        self.line('    : "memory");')
