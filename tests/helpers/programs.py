"""Small test programs shared by the lowering tests: modules built with `tilec.Program`
(`conversion_program`, `one_block`, `mma_program`, `mma_tile_gemm`), and `decision_ops`,
what lower-convert-layout decided for a module's conversions."""

from __future__ import annotations

from collections.abc import Sequence


def conversion_program(shape: Sequence[int], src_enc, dst_enc, et: str, threads: int):
    """@cvt (a module built with `tilec.Program`): one block of `threads` loads a
    row-major tile of `shape` in layout `src_enc`, converts it to `dst_enc` and stores
    it (buffers %p -> %q). The layouts are layout objects (`tilec.BlockedLayout`) or
    their attribute text."""
    import tilec

    strides, acc = [], 1
    for s in reversed(shape):
        strides.insert(0, acc)
        acc *= s
    cute = f"({','.join(map(str, shape))}):({','.join(map(str, strides))})"
    p = tilec.Program("cvt")
    a, b = (p.view(p.pointer(name, et, align=None), cute) for name in ("p", "q"))
    with p.launch(threads=threads):
        p.store(p.convert_layout(p.load(a, src_enc), dst_enc), b)
    return p.module


def decision_ops(m) -> list:
    """The ops carrying what lower-convert-layout decided for a module's conversions: a
    round trip's store (`smem`) or a conversion's `shuffle`, else its `register`
    conversions (a round trip's register renames, `lowering = "register"` too, are part
    of its `smem`)."""
    from tilec.passes.lower_convert_layout import recorded_lowering

    ops = [o for o in m.walk() if recorded_lowering(o)]
    return [o for o in ops if recorded_lowering(o) != "register"] or ops

def one_block(name: str, et: str, src_layout: str, dst_layout: str, threads: int, body, *, twice: bool = False):
    """@name(%src, %dst) (a module built with `tilec.Program`): views `a` of src and
    `b` of dst (pointers to `et`; CuTe layouts), and one block of `threads` that runs
    `body(p, a, b)`. With `twice`, the body runs in an `scf.for` of two iterations, so
    buffers and registers are reused across iterations."""
    import tilec

    p = tilec.Program(name)
    a = p.view(p.pointer("src", et, align=None), src_layout)
    b = p.view(p.pointer("dst", et, align=None), dst_layout)
    with p.launch(threads=threads):
        if twice:
            with p.range(0, 2):
                body(p, a, b)
        else:
            body(p, a, b)
    return p.module


def mma_program(
    m: int, n: int, k: int, et: str = "bf16", acc_et: str = "f32", warps=(1, 1),
    k_width: int = 2, k_split: int = 1, zero_acc: bool = False,
):
    """@mma (a module built with `tilec.Program`): one block computes C = C + A @ B with
    `layout.mma` (A row-major m x k, B row-major k x n, C row-major m x n, buffers %pa,
    %pb, %pc), in an `NvidiaMmaLayout` version 2 of `warps`, operands with `k_width`;
    with `k_split` > 1, as that many chained MMAs over consecutive K tiles (another
    summation order; the j-th tile of B is named `tb{j}`); with `zero_acc`, C = A @ B
    (the accumulator starts at 0, C is only written)."""
    import tilec

    mma = tilec.NvidiaMmaLayout(2, list(warps), [16, 8])
    frag_a, frag_b = tilec.DotOperandLayout(0, mma, k_width), tilec.DotOperandLayout(1, mma, k_width)
    ks = k // k_split
    p = tilec.Program("mma")
    ptrs = [p.pointer(name, t, align=None) for name, t in (("pa", et), ("pb", et), ("pc", acc_et))]
    a, b, c = (p.view(ptr, f"({r},{q}):({q},1)") for ptr, (r, q) in zip(ptrs, [(m, k), (k, n), (m, n)]))
    idx = [p.constant(j).named(f"i{j}") for j in range(max(k_split, 1))]
    with p.launch(threads=32 * warps[0] * warps[1]):
        acc = p.full([m, n], 0, acc_et, mma) if zero_acc else p.load(c, mma)
        for j in range(k_split):
            ta = p.tile(a, [idx[0], idx[j]], [m, ks]).named(f"ta{j}")
            tb = p.tile(b, [idx[j], idx[0]], [ks, n]).named(f"tb{j}")
            acc = p.mma(p.load(ta, frag_a), p.load(tb, frag_b), acc)
        p.store(acc, c)
    return p.module


def mma_tile_gemm():
    """@gemm (a module built with `tilec.Program`): one block of 4 warps computes
    C = A @ B for 64x64 bf16 A and B (row-major, 16-byte aligned) into f32 C: loads in a
    blocked layout, conversions to the operand layouts, `layout.mma`, and a conversion
    of the accumulator to a blocked layout that stores 16 bytes per access (the passes
    lower the conversions through swizzled shared memory)."""
    import tilec

    mma = tilec.NvidiaMmaLayout(2, [2, 2], [16, 8])
    blk = tilec.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    blkc = tilec.BlockedLayout([1, 4], [4, 8], [4, 1], [1, 0])
    p = tilec.Program("gemm")
    a, b, c = (p.view(p.pointer(name, t, align=16), "(64,64):(64,1)")
               for name, t in (("pa", "bf16"), ("pb", "bf16"), ("pc", "f32")))
    with p.launch(threads=128):
        va = p.convert_layout(p.load(a, blk), tilec.DotOperandLayout(0, mma, 2))
        vb = p.convert_layout(p.load(b, blk), tilec.DotOperandLayout(1, mma, 2))
        d = p.mma(va, vb, p.full([64, 64], 0.0, "f32", mma))
        p.store(p.convert_layout(d, blkc), c)
    return p.module
