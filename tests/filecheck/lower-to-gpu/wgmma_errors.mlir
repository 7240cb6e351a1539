// layout.mma with a version-3 accumulator whose shared view wgmma cannot read (rows of
// 128 bytes without a swizzle: not 8 x 16-byte core matrices): a located error, exit 1.
// RUN: not tilec %s -p lower-to-gpu 2>&1 | filecheck %s
// RUN: tilec %s -p lower-to-gpu --verify-diagnostics

// CHECK: wgmma_errors.mlir:[[# @LINE + 15]]:5: error: 'layout.mma': lower-to-gpu: wgmma cannot read operand B (K x N) from {{.*}}: its shared layout is none of wgmma's

#mma3 = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.cute<(16,64):(64,1)>, smem>
!GC = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem>
func.func @plain_b(%pc: !layout.ptr<f32, align 16>) {
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %acc = layout.load %c : !GC -> tensor<64x64xf32, #mma3>
    // expected-error @+1 {{wgmma cannot read operand B (K x N)}}
    %d = layout.mma %sa, %sb, %acc : !SA, !SB, tensor<64x64xf32, #mma3>
    layout.store %d, %c : tensor<64x64xf32, #mma3>, !GC
  }
  func.return
}
