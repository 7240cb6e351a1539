// accelerate-matmul's FMA loop: f32 operands (on any target), and 16-bit tiles too
// small for tensor cores. A and B go to shared memory (A's rows padded by one 32-bit
// word), and an scf.for over K adds column k of A times row k of B, each loaded in
// the slice layouts of the accumulator's layout, expanded and broadcast: mulf then
// addf, layout.dot's own definition, so equivalence is bit for bit (no tolerance).
// RUN: tilec %s -p accelerate-matmul | filecheck %s
// RUN: tilec %s -p accelerate-matmul --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'accelerate-matmul{instr=fma}' --check-equivalence | filecheck %s --check-prefix=EQFMA
// RUN: tilec %s -p 'accelerate-matmul{instr=fma}' | filecheck %s --check-prefix=FORCED
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @loop_f32: equivalent after '{{.*}}' (seed 0, buffers %pa, %pb, %pc){{$}}
// EQ: @tiny_bf16: equivalent after '{{.*}}' (seed 0, buffers %pa, %pb, %pc); float buffers within the layout.mma tolerance
// EQFMA: @loop_f32: equivalent after 'accelerate-matmul{instr=fma}'
// EQFMA: @tiny_bf16: equivalent after 'accelerate-matmul{instr=fma}'

#blk = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#t = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
!GA = !layout.tensor<f32, #layout.cute<(128,64):(64,1)>, gmem>
!GB = !layout.tensor<f32, #layout.cute<(64,128):(128,1)>, gmem>
!GC = !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
!TA = !layout.tensor<f32, #layout.cute<(64,16):(64,1)>, gmem>
!TB = !layout.tensor<f32, #layout.cute<(16,64):(128,1)>, gmem>
!TC = !layout.tensor<f32, #layout.cute<(64,64):(128,1)>, gmem>
!XA = !layout.tensor<bf16, #layout.cute<(8,16):(16,1)>, gmem>
!XB = !layout.tensor<bf16, #layout.cute<(16,4):(4,1)>, gmem>
!XC = !layout.tensor<f32, #layout.cute<(8,4):(4,1)>, gmem>
module attributes {tilec.target = "sm_90a"} {

// CHECK-LABEL: func.func @loop_f32(
// CHECK:         %dot_a = layout.alloc : !layout.tensor<f32, #layout.cute<(64,16):(17,1)>, smem>
// CHECK-NEXT:    %dot_b = layout.alloc : !layout.tensor<f32, #layout.cute<(16,64):(64,1)>, smem>
// CHECK:         scf.for
// CHECK:           layout.copy %ta, %dot_a
// CHECK-NEXT:      layout.copy %tb, %dot_b
// CHECK-NEXT:      layout.barrier
// CHECK:           %d = scf.for %dot_k = %{{c0.*}} to %c16 step %{{c1.*}} iter_args(%[[ACC:.*]] = %acc0)
// CHECK-NEXT:        %[[COL:.*]] = layout.slice %dot_a[_, %dot_k] : !layout.tensor<f32, #layout.cute<(64,16):(17,1)>, smem> -> !layout.tensor<f32, #layout.cute<64:17>, smem>
// CHECK-NEXT:        %[[CV:.*]] = layout.load %[[COL]] : {{.*}} -> tensor<64xf32, #layout.slice<{dim = 1, parent = #layout.blocked<{{.*}}>}>>
// CHECK-NEXT:        %[[CE:.*]] = layout.expand_dims %[[CV]] {axis = 1 : i64}
// CHECK-NEXT:        %[[CB:.*]] = layout.broadcast %[[CE]]
// CHECK-NEXT:        %[[ROW:.*]] = layout.slice %dot_b[%dot_k, _]
// CHECK-NEXT:        %[[RV:.*]] = layout.load %[[ROW]] : {{.*}} -> tensor<64xf32, #layout.slice<{dim = 0, parent = #layout.blocked<{{.*}}>}>>
// CHECK-NEXT:        %[[RE:.*]] = layout.expand_dims %[[RV]] {axis = 0 : i64}
// CHECK-NEXT:        %[[RB:.*]] = layout.broadcast %[[RE]]
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[CB]], %[[RB]]
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[P]]
// CHECK-NEXT:        scf.yield %[[S]]
// CHECK-NEXT:      }
// CHECK-NEXT:      layout.barrier
// CHECK-NEXT:      scf.yield %d
// CUDA-LABEL: // kernel loop_f32_kernels::
// CUDA:         for (int dot_k = 0; dot_k < 16; ++dot_k) {
func.func @loop_f32(%pa: !layout.ptr<f32, align 16>, %pb: !layout.ptr<f32, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %A = layout.view %pa : !layout.ptr<f32, align 16> -> !GA
  %B = layout.view %pb : !layout.ptr<f32, align 16> -> !GB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !GC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nk = arith.constant 4 : index
  layout.launch grid(%c2, %c2, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %tc = layout.tile %C[%bx, %by] {tile = array<i64: 64, 64>} : !GC -> !TC
    %init = layout.load %tc : !TC -> tensor<64x64xf32, #blk>
    %acc = scf.for %k = %c0 to %nk step %c1 iter_args(%acc0 = %init) -> (tensor<64x64xf32, #blk>) {
      %ta = layout.tile %A[%bx, %k] {tile = array<i64: 64, 16>} : !GA -> !TA
      %tb = layout.tile %B[%k, %by] {tile = array<i64: 16, 64>} : !GB -> !TB
      %a = layout.load %ta : !TA -> tensor<64x16xf32, #blk>
      %b = layout.load %tb : !TB -> tensor<16x64xf32, #blk>
      %d = layout.dot %a, %b, %acc0 : tensor<64x16xf32, #blk>, tensor<16x64xf32, #blk>, tensor<64x64xf32, #blk>
      scf.yield %d : tensor<64x64xf32, #blk>
    }
    layout.store %acc, %tc : tensor<64x64xf32, #blk>, !TC
  }
  func.return
}

// 8 x 4 x 16 bf16: no tensor-core shape; bf16 columns widened to f32 (extf) in the loop.
// CHECK-LABEL: func.func @tiny_bf16(
// CHECK:         %dot_a = layout.alloc : !layout.tensor<bf16, #layout.cute<(8,16):(18,1)>, smem>
// CHECK:         scf.for %dot_k
// CHECK:           arith.extf {{.*}} : tensor<8xbf16, {{.*}}> to tensor<8xf32
// CHECK:           arith.extf {{.*}} : tensor<4xbf16, {{.*}}> to tensor<4xf32
// CHECK-NOT:     layout.mma
// FORCED-LABEL: func.func @tiny_bf16(
// FORCED:         scf.for %dot_k
// FORCED-NOT:     layout.mma
// CUDA-LABEL: // kernel tiny_bf16_kernels::
// CUDA:         for (int dot_k = 0; dot_k < 16; ++dot_k) {
func.func @tiny_bf16(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %A = layout.view %pa : !layout.ptr<bf16, align 16> -> !XA
  %B = layout.view %pb : !layout.ptr<bf16, align 16> -> !XB
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !XC
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %a = layout.load %A : !XA -> tensor<8x16xbf16, #t>
    %b = layout.load %B : !XB -> tensor<16x4xbf16, #t>
    %acc = layout.load %C : !XC -> tensor<8x4xf32, #t>
    %d = layout.dot %a, %b, %acc : tensor<8x16xbf16, #t>, tensor<16x4xbf16, #t>, tensor<8x4xf32, #t>
    layout.store %d, %C : tensor<8x4xf32, #t>, !XC
  }
  func.return
}
}
