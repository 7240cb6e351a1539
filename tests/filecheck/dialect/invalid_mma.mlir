// Invalid layout.mma: shapes, layouts, element types, kWidth, threads, and an mma
// outside a launch; each a located error saying why.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s --check-prefix=LOC
// LOC: invalid_mma.mlir:16:3: error: 'layout.mma': layout.mma must be inside a layout.launch

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
!A = tensor<32x16xbf16, #a>
!B = tensor<16x16xbf16, #b>
!C = tensor<32x16xf32, #mma>

func.func @outside_launch(%a: !A, %b: !B, %c: !C) {
  // expected-error @+1 {{layout.mma must be inside a layout.launch}}
  %d = layout.mma %a, %b, %c : !A, !B, !C
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
func.func @shapes(%a: tensor<32x16xbf16, #a>, %b: tensor<32x16xbf16, #b>, %c: tensor<32x16xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{shapes do not multiply: a is 32x16, b is 32x16, acc is 32x16 (expected MxK, KxN and MxN)}}
    %d = layout.mma %a, %b, %c : tensor<32x16xbf16, #a>, tensor<32x16xbf16, #b>, tensor<32x16xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
func.func @shapes_acc(%a: tensor<32x16xbf16, #a>, %b: tensor<16x16xbf16, #b>, %c: tensor<32x32xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{shapes do not multiply: a is 32x16, b is 16x16, acc is 32x32}}
    %d = layout.mma %a, %b, %c : tensor<32x16xbf16, #a>, tensor<16x16xbf16, #b>, tensor<32x32xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
func.func @acc_blocked(%a: tensor<32x16xbf16, #a>, %b: tensor<16x16xbf16, #b>, %c: tensor<32x16xf32, #blk>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{acc must be in a #layout.nvidia_mma layout, got #layout.blocked}}
    %d = layout.mma %a, %b, %c : tensor<32x16xbf16, #a>, tensor<16x16xbf16, #b>, tensor<32x16xf32, #blk>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
func.func @b_as_a(%a: tensor<32x16xbf16, #a>, %b: tensor<16x16xbf16, #a>, %c: tensor<32x16xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{b must be in #layout.dot_op<opIdx = 1, parent = <acc's layout>, ...>, got #layout.dot_op<opIdx = 0}}
    %d = layout.mma %a, %b, %c : tensor<32x16xbf16, #a>, tensor<16x16xbf16, #a>, tensor<32x16xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#other = #layout.nvidia_mma<version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #other, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
func.func @other_parent(%a: tensor<32x16xbf16, #a>, %b: tensor<16x16xbf16, #b>, %c: tensor<32x16xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{a must be in #layout.dot_op<opIdx = 0, parent = <acc's layout>, ...>, got #layout.dot_op<opIdx = 0, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]>, kWidth = 2> (acc's layout is #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>)}}
    %d = layout.mma %a, %b, %c : tensor<32x16xbf16, #a>, tensor<16x16xbf16, #b>, tensor<32x16xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 4>
func.func @kwidths(%a: tensor<32x16xbf16, #a>, %b: tensor<16x16xbf16, #b>, %c: tensor<32x16xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{a and b must have the same kWidth, got 2 and 4}}
    %d = layout.mma %a, %b, %c : tensor<32x16xbf16, #a>, tensor<16x16xbf16, #b>, tensor<32x16xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
func.func @mixed_types(%a: tensor<32x16xbf16, #a>, %b: tensor<16x16xf16, #b>, %c: tensor<32x16xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.mma takes f16 x f16, bf16 x bf16 or f32 (tf32) x f32 into f32, or i8 x i8 into i32; got bf16 x f16 into f32}}
    %d = layout.mma %a, %b, %c : tensor<32x16xbf16, #a>, tensor<16x16xf16, #b>, tensor<32x16xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 4>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 4>
func.func @i8_into_f32(%a: tensor<32x32xi8, #a>, %b: tensor<32x16xi8, #b>, %c: tensor<32x16xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{got i8 x i8 into f32}}
    %d = layout.mma %a, %b, %c : tensor<32x32xi8, #a>, tensor<32x16xi8, #b>, tensor<32x16xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
func.func @f64(%a: tensor<32x16xf64, #a>, %b: tensor<16x16xf64, #b>, %c: tensor<32x16xf64, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{got f64 x f64 into f64}}
    %d = layout.mma %a, %b, %c : tensor<32x16xf64, #a>, tensor<16x16xf64, #b>, tensor<32x16xf64, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 1>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 1>
func.func @kwidth_bits(%a: tensor<32x16xbf16, #a>, %b: tensor<16x16xbf16, #b>, %c: tensor<32x16xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{kWidth = 1 of bf16 holds 16 bits; the MMA operand registers need at least 32 (kWidth >= 2)}}
    %d = layout.mma %a, %b, %c : tensor<32x16xbf16, #a>, tensor<16x16xbf16, #b>, tensor<32x16xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
func.func @threads(%a: tensor<32x16xbf16, #a>, %b: tensor<16x16xbf16, #b>, %c: tensor<32x16xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{spans 128 threads but the block has 256}}
    %d = layout.mma %a, %b, %c : tensor<32x16xbf16, #a>, tensor<16x16xbf16, #b>, tensor<32x16xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
func.func @plain_tensor(%a: tensor<32x16xbf16>, %b: tensor<16x16xbf16, #b>, %c: tensor<32x16xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{operand a: expected a distributed tensor}}
    %d = layout.mma %a, %b, %c : tensor<32x16xbf16>, tensor<16x16xbf16, #b>, tensor<32x16xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 8, 16]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #layout.nvidia_mma<version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]>, kWidth = 2>
func.func @wgmma(%a: tensor<64x16xbf16, #a>, %b: tensor<16x8xbf16, #b>, %c: tensor<64x8xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{wgmma reads operand b from shared memory: b must be a smem view}}
    %d = layout.mma %a, %b, %c : tensor<64x16xbf16, #a>, tensor<16x8xbf16, #b>, tensor<64x8xf32, #mma>
  }
  func.return
}

// -----

// A target below sm_80 (no mma.sync): tilec knows none, and says so at the mma.
#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
module attributes {tilec.target = "sm_75"} {
  func.func @old_target(%a: tensor<16x16xbf16, #a>, %b: tensor<16x8xbf16, #b>, %c: tensor<16x8xf32, #mma>) {
    %c1 = arith.constant 1 : index
    layout.launch grid(%c1, %c1, %c1) threads(32) {
    ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
      // expected-error @+1 {{layout.mma needs mma.sync, which sm_80 and newer have; the module's target is sm_75}}
      %d = layout.mma %a, %b, %c : tensor<16x16xbf16, #a>, tensor<16x8xbf16, #b>, tensor<16x8xf32, #mma>
    }
    func.return
  }
}

// -----

// wgmma (version-3 accumulator): operand shapes and kinds it cannot take.
#mma3 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
!SB8 = !layout.tensor<bf16, #layout.cute<(8,64):(64,1)>, smem>
!SA8 = !layout.tensor<bf16, #layout.cute<(64,8):(8,1)>, smem>
!GB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
!SF = !layout.tensor<f16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @wgmma_b_gmem(%pb: !layout.ptr<bf16>, %c: tensor<64x64xf32, #mma3>) {
  %c1 = arith.constant 1 : index
  %gb = layout.view %pb : !layout.ptr<bf16> -> !GB
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %sb8 = layout.alloc : !SB8
    %sf = layout.alloc : !SF
    %sa8 = layout.alloc : !SA8
    // expected-error @+1 {{wgmma reads operand b from shared memory: b must be a smem view}}
    %d = layout.mma %sa, %gb, %c : !SA, !GB, tensor<64x64xf32, #mma3>
  }
  func.return
}

// -----

#mma3 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
!SB8 = !layout.tensor<bf16, #layout.cute<(8,64):(64,1)>, smem>
!SA8 = !layout.tensor<bf16, #layout.cute<(64,8):(8,1)>, smem>
!GB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
!SF = !layout.tensor<f16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @wgmma_k8(%pb: !layout.ptr<bf16>, %c: tensor<64x64xf32, #mma3>) {
  %c1 = arith.constant 1 : index
  %gb = layout.view %pb : !layout.ptr<bf16> -> !GB
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %sb8 = layout.alloc : !SB8
    %sf = layout.alloc : !SF
    %sa8 = layout.alloc : !SA8
    // expected-error @+1 {{wgmma steps K by 16: K = 8 is not a multiple of 16}}
    %d = layout.mma %sa8, %sb8, %c : !SA8, !SB8, tensor<64x64xf32, #mma3>
  }
  func.return
}

// -----

#mma3 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
!SB8 = !layout.tensor<bf16, #layout.cute<(8,64):(64,1)>, smem>
!SA8 = !layout.tensor<bf16, #layout.cute<(64,8):(8,1)>, smem>
!GB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>
!SF = !layout.tensor<f16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @wgmma_mixed(%pb: !layout.ptr<bf16>, %c: tensor<64x64xf32, #mma3>) {
  %c1 = arith.constant 1 : index
  %gb = layout.view %pb : !layout.ptr<bf16> -> !GB
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %sb8 = layout.alloc : !SB8
    %sf = layout.alloc : !SF
    %sa8 = layout.alloc : !SA8
    // expected-error @+1 {{wgmma in layout.mma takes bf16 x bf16, f16 x f16 or 8-bit floats (e4m3/e5m2, any pair) into f32; got bf16 x f16 into f32}}
    %d = layout.mma %sa, %sf, %c : !SA, !SF, tensor<64x64xf32, #mma3>
  }
  func.return
}

// -----

#mma3 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
#a1 = #layout.dot_op<opIdx = 0, parent = #mma3, kWidth = 4>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @wgmma_a_kwidth(%a: tensor<64x16xbf16, #a1>, %c: tensor<64x64xf32, #mma3>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sb = layout.alloc : !SB
    // expected-error @+1 {{a in registers must be in #layout.dot_op<opIdx = 0, parent = <acc's layout>, kWidth = 2> (the wgmma A fragment)}}
    %d = layout.mma %a, %sb, %c : tensor<64x16xbf16, #a1>, !SB, tensor<64x64xf32, #mma3>
  }
  func.return
}

// -----

#mma3 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @wgmma_instr_m16(%c: tensor<64x64xf32, #mma3>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    // expected-error @+1 {{a version-3 (wgmma) accumulator of layout.mma needs instrShape [64, N, 16] (m64nNk16, 16-bit operands), got [16, 64, 16]}}
    %d = layout.mma %sa, %sb, %c : !SA, !SB, tensor<64x64xf32, #mma3>
  }
  func.return
}

// -----

// A module naming plain sm_90 (no wgmma: that is sm_90a).
#mma3 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
module attributes {tilec.target = "sm_90"} {
  func.func @wgmma_sm90(%c: tensor<64x64xf32, #mma3>) {
    %c1 = arith.constant 1 : index
    layout.launch grid(%c1, %c1, %c1) threads(128) {
    ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
      %sa = layout.alloc : !SA
      %sb = layout.alloc : !SB
      // expected-error @+1 {{a version-3 (wgmma) layout.mma needs wgmma, which sm_90 has; the module's target is sm_90}}
      %d = layout.mma %sa, %sb, %c : !SA, !SB, tensor<64x64xf32, #mma3>
    }
    func.return
  }
}

// -----

// 8-bit floats: instrShape [64, N, 32] (m64nNk32), A from shared memory.
#mma3f8 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!QA = !layout.tensor<f8E4M3FN, #layout.composed<swizzle<1,4,3> o 0 o (64,32):(32,1)>, smem>
!QB = !layout.tensor<f8E5M2, #layout.composed<swizzle<1,4,3> o 0 o (32,64):(1,32)>, smem>
func.func @wgmma_fp8_k16(%c: tensor<64x64xf32, #mma3f8>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !QA
    %sb = layout.alloc : !QB
    // expected-error @+1 {{a version-3 (wgmma) accumulator of layout.mma needs instrShape [64, N, 32] (m64nNk32, 8-bit operands), got [64, 64, 16]}}
    %d = layout.mma %sa, %sb, %c : !QA, !QB, tensor<64x64xf32, #mma3f8>
  }
  func.return
}

// -----

#mma3k32 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 32]>
!QB2 = !layout.tensor<f8E4M3FN, #layout.composed<swizzle<1,4,3> o 0 o (32,64):(1,32)>, smem>
func.func @wgmma_fp8_a_in_registers(%a: tensor<64x32xf8E4M3FN, #layout.dot_op<opIdx = 0, parent = #mma3k32, kWidth = 4>>, %c: tensor<64x64xf32, #mma3k32>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sb = layout.alloc : !QB2
    // expected-error @+1 {{wgmma reads 8-bit float operand a from shared memory: a must be a smem view}}
    %d = layout.mma %a, %sb, %c : tensor<64x32xf8E4M3FN, #layout.dot_op<opIdx = 0, parent = #mma3k32, kWidth = 4>>, !QB2, tensor<64x64xf32, #mma3k32>
  }
  func.return
}
