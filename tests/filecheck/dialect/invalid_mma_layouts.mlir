// Invalid tensor-core layouts: each error is located at the attribute and says why.
// RUN: tilec %s --split-input-file --verify-diagnostics

// expected-error @+1 {{invalid nvidia_mma layout: version must be 2 (mma.sync) or 3 (wgmma), got 1}}
func.func private @version() attributes {l = #layout.nvidia_mma<version = 1, warpsPerCTA = [1, 1], instrShape = [16, 8]>}

// -----

// expected-error @+1 {{invalid nvidia_mma layout: version 2 (mma.sync.m16n8k*) needs instrShape = [16, 8] for warpsPerCTA of rank 2, got [16, 16]}}
func.func private @v2_instr() attributes {l = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 16]>}

// -----

// expected-error @+1 {{invalid nvidia_mma layout: warpsPerCTA entries must be powers of two, got [3, 1]}}
func.func private @warps_pow2() attributes {l = #layout.nvidia_mma<version = 2, warpsPerCTA = [3, 1], instrShape = [16, 8]>}

// -----

// expected-error @+1 {{invalid nvidia_mma layout: warpsPerCTA [64, 1] gives 64 warps, more than 32}}
func.func private @too_many_warps() attributes {l = #layout.nvidia_mma<version = 2, warpsPerCTA = [64, 1], instrShape = [16, 8]>}

// -----

// expected-error @+1 {{invalid nvidia_mma layout: version 3 instrShape M must be 16 (one warp) or 64 (a warpgroup), got 32}}
func.func private @v3_m() attributes {l = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [32, 64, 16]>}

// -----

// expected-error @+1 {{invalid nvidia_mma layout: version 3 instrShape N must be a multiple of 8 in [8, 256], got 260}}
func.func private @v3_n() attributes {l = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 260, 16]>}

// -----

// expected-error @+1 {{invalid nvidia_mma layout: version 3 (wgmma) needs whole warpgroups: warpsPerCTA [2, 1] is not a multiple of 4 warps}}
func.func private @v3_warpgroup() attributes {l = #layout.nvidia_mma<version = 3, warpsPerCTA = [2, 1], instrShape = [16, 64, 16]>}

// -----

// expected-error @+1 {{invalid nvidia_mma layout: instrShape M = 64 needs a multiple of 4 warps along M, got warpsPerCTA [2, 2]}}
func.func private @v3_m64_warps() attributes {l = #layout.nvidia_mma<version = 3, warpsPerCTA = [2, 2], instrShape = [64, 64, 16]>}

// -----

// expected-error @+1 {{missing field(s) instrShape}}
func.func private @missing() attributes {l = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1]>}

// -----

// expected-error @+1 {{field 'version' given twice}}
func.func private @twice() attributes {l = #layout.nvidia_mma<version = 2, version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>}

// -----

// expected-error @+1 {{unknown field 'order', expected one of version, warpsPerCTA, instrShape}}
func.func private @unknown() attributes {l = #layout.nvidia_mma<version = 2, order = [1, 0], warpsPerCTA = [1, 1], instrShape = [16, 8]>}

// -----

// expected-error @+1 {{invalid dot_op layout: the parent must be a #layout.nvidia_mma, got #layout.blocked}}
func.func private @dot_parent() attributes {l = #layout.dot_op<opIdx = 0, parent = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>, kWidth = 2>}

// -----

// expected-error @+1 {{invalid dot_op layout: opIdx must be 0 (A) or 1 (B), got 2}}
func.func private @dot_opidx() attributes {l = #layout.dot_op<opIdx = 2, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>, kWidth = 2>}

// -----

// expected-error @+1 {{invalid dot_op layout: kWidth must be a power of two in [1, 16], got 3}}
func.func private @dot_kwidth() attributes {l = #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>, kWidth = 3>}

// -----

// expected-error @+1 {{invalid dot_op layout: version 3 (wgmma) takes operand B from shared memory: a register dot operand of it must have opIdx = 0}}
func.func private @dot_v3_b() attributes {l = #layout.dot_op<opIdx = 1, parent = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>, kWidth = 2>}

// -----

// expected-error @+1 {{invalid nvmma_shared layout: swizzle must be 0, 32, 64 or 128 bytes, got 16}}
func.func private @swizzle() attributes {l = #layout.nvmma_shared<swizzle = 16, elementBitWidth = 16, transposed = false, shape = [64, 64]>}

// -----

// expected-error @+1 {{invalid nvmma_shared layout: elementBitWidth must be 8, 16 or 32, got 64}}
func.func private @bits() attributes {l = #layout.nvmma_shared<swizzle = 128, elementBitWidth = 64, transposed = false, shape = [64, 64]>}

// -----

// expected-error @+1 {{invalid nvmma_shared layout: a 128-byte swizzle of 16-bit elements needs a shape of at least [8, 64], got [64, 32]}}
func.func private @small() attributes {l = #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 32]>}

// -----

// expected-error @+1 {{invalid nvmma_shared layout: an NVMMA shared layout is rank 2, got shape [4, 16, 64]}}
func.func private @rank() attributes {l = #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [4, 16, 64]>}

// -----

// expected-error @+1 {{Expected boolean literal}}
func.func private @transposed() attributes {l = #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = 1, shape = [64, 64]>}

// -----

func.func @alloc_bits() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{#layout.nvmma_shared has elementBitWidth = 16 but the elements are f32 (32 bits)}}
    %s = layout.alloc : !layout.tensor<f32, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 64]>, smem>
  }
  func.return
}

// -----

func.func @alloc_rmem() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{#layout.nvmma_shared is a shared-memory layout, the view is in rmem}}
    %s = layout.alloc : !layout.tensor<bf16, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 16, transposed = false, shape = [64, 64]>, rmem>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
func.func @mma_threads(%t: !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{spans 128 threads but the block has 64}}
    %v = layout.load %t : !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem> -> tensor<32x16xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
func.func @mma_rank(%x: f32) {
  // expected-error @+1 {{encoding #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]> has rank 2 but the tensor has rank 1}}
  %v = layout.splat %x : f32 -> tensor<32xf32, #mma>
  func.return
}
