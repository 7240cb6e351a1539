// Round trip of the tensor-core layouts (#layout.nvidia_mma, #layout.dot_op,
// #layout.nvmma_shared) as attributes, as encodings of distributed tensors and as the
// shared-memory layout of layout.alloc, in custom and generic form.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s
// RUN: tilec %s -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @mma_tensors: equivalent after
// RUN: tilec %s -p remove-layout-conversions | filecheck %s --check-prefix=RLC
// RLC-LABEL: func.func @mma_tensors(
// RLC: layout.convert_layout %v : tensor<32x16xbf16, #layout.nvidia_mma<{{.*}}>> -> tensor<32x16xbf16, #layout.dot_op<
// RLC-NOT: layout.convert_layout

// CHECK-LABEL: func.func private @mma_v2()
// CHECK-SAME: l = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
func.func private @mma_v2() attributes {l = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>}

// Fields may come in any order; they print in the canonical one.
// CHECK-LABEL: func.func private @mma_v2_batch()
// CHECK-SAME: l = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 4, 1], instrShape = [1, 16, 8]>
func.func private @mma_v2_batch() attributes {l = #layout.nvidia_mma<instrShape = [1, 16, 8], version = 2, warpsPerCTA = [2, 4, 1]>}

// CHECK-LABEL: func.func private @mma_v3()
// CHECK-SAME: l = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 2], instrShape = [64, 128, 16]>
// CHECK-SAME: m = #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [16, 256, 8]>
func.func private @mma_v3() attributes {l = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 2], instrShape = [64, 128, 16]>, m = #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [16, 256, 8]>}

// CHECK-LABEL: func.func private @dot_operands()
// CHECK-SAME: a = #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>, kWidth = 2>
// CHECK-SAME: b = #layout.dot_op<opIdx = 1, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>, kWidth = 8>
// CHECK-SAME: h = #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>, kWidth = 2>
func.func private @dot_operands() attributes {a = #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>, kWidth = 2>, b = #layout.dot_op<opIdx = 1, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>, kWidth = 8>, h = #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>, kWidth = 2>}

// CHECK-LABEL: func.func private @slice_of_mma()
// CHECK-SAME: s = #layout.slice<{dim = 0, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>}>
func.func private @slice_of_mma() attributes {s = #layout.slice<{dim = 0, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>}>}

// CHECK-LABEL: func.func private @nvmma_shared()
// CHECK-SAME: n = #layout.nvmma_shared<swizzle = 0, elementBitWidth = 32, transposed = false, shape = [16, 16]>
// CHECK-SAME: s = #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 64]>
// CHECK-SAME: t = #layout.nvmma_shared<swizzle = 64, elementBitWidth = 8, transposed = true, shape = [64, 8]>
func.func private @nvmma_shared() attributes {n = #layout.nvmma_shared<swizzle = 0, elementBitWidth = 32, transposed = false, shape = [16, 16]>, s = #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 64]>, t = #layout.nvmma_shared<swizzle = 64, elementBitWidth = 8, transposed = true, shape = [64, 8]>}

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#lin = #layout.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 8], [16, 0]], block = []}>
!G = !layout.tensor<bf16, #layout.cute<(32,16):(16,1)>, gmem>
!S = !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 32, elementBitWidth = 16, transposed = false, shape = [32, 16]>, smem>

// The accumulator layout equals the #lin written by hand, so the conversion between
// them goes; the one to the A operand layout stays.
// CHECK-LABEL: func.func @mma_tensors(
// CHECK: %v = layout.load %x : !layout.tensor<bf16, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xbf16, #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>>
// CHECK: layout.convert_layout %{{.*}} : tensor<32x16xbf16, #layout.{{.*}}> -> tensor<32x16xbf16, #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>, kWidth = 2>>
// CHECK: %s = layout.alloc : !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 32, elementBitWidth = 16, transposed = false, shape = [32, 16]>, smem>
// CHECK: layout.store %{{.*}}, %s : tensor<32x16xbf16, #layout.dot_op<{{.*}}>>, !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 32, elementBitWidth = 16, transposed = false, shape = [32, 16]>, smem>
// CHECK: %r = layout.load %s : !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 32, elementBitWidth = 16, transposed = false, shape = [32, 16]>, smem> -> tensor<32x16xbf16, #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>>
func.func @mma_tensors(%px: !layout.ptr<bf16>, %py: !layout.ptr<bf16>) {
  %x = layout.view %px : !layout.ptr<bf16> -> !G
  %y = layout.view %py : !layout.ptr<bf16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %x : !G -> tensor<32x16xbf16, #mma>
    %l = layout.convert_layout %v : tensor<32x16xbf16, #mma> -> tensor<32x16xbf16, #lin>
    %w = layout.convert_layout %l : tensor<32x16xbf16, #lin> -> tensor<32x16xbf16, #a>
    %s = layout.alloc : !S
    layout.store %w, %s : tensor<32x16xbf16, #a>, !S
    layout.barrier
    %r = layout.load %s : !S -> tensor<32x16xbf16, #mma>
    layout.store %r, %y : tensor<32x16xbf16, #mma>, !G
  }
  func.return
}
