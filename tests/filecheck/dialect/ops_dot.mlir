// Round trip of layout.dot, in custom and generic form, for each operand type it
// takes (f32, f16, bf16) on blocked and mixed layouts; its CPU semantics run.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | filecheck %s --check-prefix=GEN
// RUN: tilec %s --run cpu | filecheck %s --check-prefix=CPU
// GEN: "layout.dot"(%va, %vb, %acc) : (tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CPU: @dot_f32 on the CPU reference executor (seed 0): ok
// CPU: @dot_bf16_mixed on the CPU reference executor (seed 0): ok

#blk = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#col = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
!GA = !layout.tensor<f32, #layout.cute<(32,16):(16,1)>, gmem>
!GB = !layout.tensor<f32, #layout.cute<(16,64):(64,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, gmem>

// CHECK-LABEL: func.func @dot_f32(
// CHECK: %d = layout.dot %va, %vb, %acc : tensor<32x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<16x64xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<32x64xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @dot_f32(%pa: !layout.ptr<f32>, %pb: !layout.ptr<f32>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<f32> -> !GA
  %b = layout.view %pb : !layout.ptr<f32> -> !GB
  %c = layout.view %pc : !layout.ptr<f32> -> !GC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !GA -> tensor<32x16xf32, #blk>
    %vb = layout.load %b : !GB -> tensor<16x64xf32, #blk>
    %acc = layout.load %c : !GC -> tensor<32x64xf32, #blk>
    %d = layout.dot %va, %vb, %acc : tensor<32x16xf32, #blk>, tensor<16x64xf32, #blk>, tensor<32x64xf32, #blk>
    layout.store %d, %c : tensor<32x64xf32, #blk>, !GC
  }
  func.return
}

!HA = !layout.tensor<bf16, #layout.cute<(32,16):(16,1)>, gmem>
!HB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, gmem>

// CHECK-LABEL: func.func @dot_bf16_mixed(
// CHECK: %d = layout.dot %va, %vb, %acc : tensor<32x16xbf16, #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>>, tensor<16x64xbf16, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>, tensor<32x64xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @dot_bf16_mixed(%pa: !layout.ptr<bf16>, %pb: !layout.ptr<bf16>, %pc: !layout.ptr<f32>) {
  %a = layout.view %pa : !layout.ptr<bf16> -> !HA
  %b = layout.view %pb : !layout.ptr<bf16> -> !HB
  %c = layout.view %pc : !layout.ptr<f32> -> !GC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %va = layout.load %a : !HA -> tensor<32x16xbf16, #col>
    %vb = layout.load %b : !HB -> tensor<16x64xbf16, #blk>
    %acc = layout.load %c : !GC -> tensor<32x64xf32, #blk>
    %d = layout.dot %va, %vb, %acc : tensor<32x16xbf16, #col>, tensor<16x64xbf16, #blk>, tensor<32x64xf32, #blk>
    layout.store %d, %c : tensor<32x64xf32, #blk>, !GC
  }
  func.return
}
