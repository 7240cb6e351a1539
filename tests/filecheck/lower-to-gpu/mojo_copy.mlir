// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @mojo_copy: equivalent after
// Mojo style: a block tile, vectorized by 4 along rows, distributed over 8x32 threads;
// each thread copies its fragment with 16-byte accesses (4 per thread, unrolled).
!G = !layout.tensor<f32, #layout.cute<(512,512):(512,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,128):(512,1)>, gmem>
!TV = !layout.tensor<f32, #layout.cute<(32,32):(512,4)>, gmem, vec #layout.cute<(1,4):(512,1)>>
!F = !layout.tensor<f32, #layout.cute<(4,1):(4096,128)>, gmem, vec #layout.cute<(1,4):(512,1)>>
func.func @mojo_copy(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c16, %c4, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 128>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 128>} : !G -> !T
    %va = layout.vectorize %ta {vector = array<i64: 1, 4>} : !T -> !TV
    %vb = layout.vectorize %tb {vector = array<i64: 1, 4>} : !T -> !TV
    %fa = layout.distribute %va, %tid {threads = #layout.cute<(8,32):(32,1)>} : !TV -> !F
    %fb = layout.distribute %vb, %tid {threads = #layout.cute<(8,32):(32,1)>} : !TV -> !F
    layout.copy %fa, %fb : !F, !F
  }
  func.return
}
// CHECK-LABEL: func.func @mojo_copy(%src: memref<262144xf32>, %dst: memref<262144xf32>)
// CHECK: "gpu.func"
// CHECK: vector.load %src[%{{.*}}] {{.*}} : memref<262144xf32>, vector<4xf32>
// CHECK-COUNT-3: vector.load %src
// CHECK: vector.store %{{.*}}, %dst[%{{.*}}] {{.*}} : memref<262144xf32>, vector<4xf32>
// CHECK-COUNT-3: vector.store
// CHECK-NOT: memref.load
// CHECK: "gpu.return"
