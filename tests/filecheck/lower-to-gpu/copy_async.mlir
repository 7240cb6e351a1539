// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @cp_async: equivalent after
// cp.async of a 32x128 tile into shared memory (16 bytes per copy), wait, barrier,
// then every thread writes its fragment back from shared memory.
!G = !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,128):(512,1)>, gmem>
!TV = !layout.tensor<f32, #layout.cute<(32,32):(512,4)>, gmem, vec #layout.cute<(1,4):(512,1)>>
!F = !layout.tensor<f32, #layout.cute<(4,1):(4096,128)>, gmem, vec #layout.cute<(1,4):(512,1)>>
!S = !layout.tensor<f32, #layout.cute<(32,128):(128,1)>, smem>
!SV = !layout.tensor<f32, #layout.cute<(32,32):(128,4)>, smem, vec #layout.cute<(1,4):(128,1)>>
!SF = !layout.tensor<f32, #layout.cute<(4,1):(1024,128)>, smem, vec #layout.cute<(1,4):(128,1)>>
func.func @cp_async(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c16, %c4, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 128>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 128>} : !G -> !T
    %va = layout.vectorize %ta {vector = array<i64: 1, 4>} : !T -> !TV
    %vb = layout.vectorize %tb {vector = array<i64: 1, 4>} : !T -> !TV
    %vs = layout.vectorize %s {vector = array<i64: 1, 4>} : !S -> !SV
    %fa = layout.distribute %va, %tid {threads = #layout.cute<(8,32):(32,1)>} : !TV -> !F
    %fb = layout.distribute %vb, %tid {threads = #layout.cute<(8,32):(32,1)>} : !TV -> !F
    %fs = layout.distribute %vs, %tid {threads = #layout.cute<(8,32):(32,1)>} : !SV -> !SF
    layout.copy_async %fa, %fs : !F, !SF
    layout.async_wait {pending = 0 : i64}
    layout.barrier
    layout.copy %fs, %fb : !SF, !F
  }
  func.return
}
// CHECK-LABEL: func.func @cp_async
// CHECK: %smem = memref.alloca() : memref<4096xf32, 3 : i64>
// CHECK-COUNT-4: cuda.cp_async %smem[%{{.*}}], %src[%{{.*}}], 16 {{.*}}: memref<4096xf32, 3 : i64>, memref<262144xf32>
// CHECK-NEXT: cuda.cp_async_commit
// CHECK-NEXT: cuda.cp_async_wait 0
// CHECK-NEXT: "gpu.barrier"()
// CHECK-COUNT-4: vector.load %smem
// CHECK-COUNT-4: vector.store %{{.*}}, %dst
