"""GPU-level programs around one `cuda.wgmma` (tests/unit/test_cuda_wgmma.py and the
cuda lit test): 128 threads copy A (64 x 16) and B (n x 16), already in their
shared-memory arrangement, from global to shared memory, load C as
`c[i * 128 + tid]` (value i of thread tid), run fence / wgmma / commit / wait 0 and
store D the same way."""

from __future__ import annotations


def wgmma_program(
    n: int, dtype: str = "bf16", a_desc=(32, 0, 256), b_desc=(0, 128, 256), a_align: int = 1024, b_align: int = 1024
) -> str:
    vals = n // 2
    lines = []
    add = lines.append
    add("builtin.module attributes {gpu.container_module} {")
    add(
        f"  func.func @wgmma(%ga: memref<1024x{dtype}>, %gb: memref<{16 * n}x{dtype}>, %gc: memref<{128 * vals}xf32>) {{"
    )
    add("    %c1 = arith.constant 1 : index")
    add("    %c128 = arith.constant 128 : index")
    add(
        '    "gpu.launch_func"(%c1, %c1, %c1, %c128, %c1, %c1, %ga, %gb, %gc) <{kernel = @wgmma_kernels::@wgmma_kernel, '
        "operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3, 0>}> : "
        f"(index, index, index, index, index, index, memref<1024x{dtype}>, memref<{16 * n}x{dtype}>, memref<{128 * vals}xf32>) -> ()"
    )
    add("    func.return")
    add("  }")
    add('  "gpu.module"() <{sym_name = "wgmma_kernels"}> ({')
    add(
        f'    "gpu.func"() <{{function_type = (memref<1024x{dtype}>, memref<{16 * n}x{dtype}>, memref<{128 * vals}xf32>) -> (), kernel}}> ({{'
    )
    add(f"    ^bb0(%ga: memref<1024x{dtype}>, %gb: memref<{16 * n}x{dtype}>, %gc: memref<{128 * vals}xf32>):")
    add('      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index')
    add("      %c0 = arith.constant 0 : index")
    add("      %c128 = arith.constant 128 : index")
    add("      %na = arith.constant 1024 : index")
    add(f"      %nb = arith.constant {16 * n} : index")
    add(f"      %sa = memref.alloca() {{alignment = {a_align} : i64}} : memref<1024x{dtype}, 3 : i64>")
    add(f"      %sb = memref.alloca() {{alignment = {b_align} : i64}} : memref<{16 * n}x{dtype}, 3 : i64>")
    for src, dst, bound, size in (("ga", "sa", "na", 1024), ("gb", "sb", "nb", 16 * n)):
        add(f"      scf.for %i = %c0 to %{bound} step %c128 {{")
        add("        %j = arith.addi %i, %tid : index")
        add(f"        %x = memref.load %{src}[%j] : memref<{size}x{dtype}>")
        add(f"        memref.store %x, %{dst}[%j] : memref<{size}x{dtype}, 3 : i64>")
        add("      }")
    add('      "gpu.barrier"() : () -> ()')
    cs = []
    for i in range(vals):
        add(f"      %o{i} = arith.constant {128 * i} : index")
        add(f"      %p{i} = arith.addi %o{i}, %tid : index")
        add(f"      %acc{i} = memref.load %gc[%p{i}] : memref<{128 * vals}xf32>")
        cs.append(f"%acc{i}")
    f32s = ", ".join(["f32"] * vals)
    add("      cuda.wgmma_fence")
    add(
        f"      %d:{vals} = cuda.wgmma %sa[%c0], %sb[%c0], {', '.join(cs)} {{n = {n} : i64, "
        f"a_desc = array<i64: {', '.join(map(str, a_desc))}>, b_desc = array<i64: {', '.join(map(str, b_desc))}>}} : "
        f"memref<1024x{dtype}, 3 : i64>, memref<{16 * n}x{dtype}, 3 : i64>, {f32s} -> {f32s}"
    )
    add("      cuda.wgmma_commit_group")
    ds = ", ".join(f"%d#{i}" for i in range(vals))
    add(f"      %e:{vals} = cuda.wgmma_wait_group 0, {ds} : {f32s} -> {f32s}")
    for i in range(vals):
        add(f"      memref.store %e#{i}, %gc[%p{i}] : memref<{128 * vals}xf32>")
    add('      "gpu.return"() : () -> ()')
    add('    }) {sym_name = "wgmma_kernel", gpu.known_block_size = array<i32: 128, 1, 1>} : () -> ()')
    add("  }) : () -> ()")
    add("}")
    return "\n".join(lines) + "\n"
