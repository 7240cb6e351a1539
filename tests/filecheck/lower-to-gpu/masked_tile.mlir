// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @masked: equivalent after
// A dynamic-size matrix copied by 64x64 tiles: edge tiles are masked (scf.if around
// each 16-byte vector; the mask is along rows so lanes of a vector share it), behind one
// per-block in-bounds check whose then branch is unmasked.
#blocked = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(?,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(64,1)>, gmem, masked>
func.func @masked(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index, %gx: index) attributes {tilec.args = {m = 129 : index, gx = 3 : index}} {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  layout.launch grid(%gx, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 64, 64>} : !G -> !T
    %v = layout.load %ta {vector = 4 : i64} : !T -> tensor<64x64xf32, #blocked>
    layout.store %v, %tb {vector = 4 : i64} : tensor<64x64xf32, #blocked>, !T
  }
  func.return
}
// CHECK-LABEL: func.func @masked(%src: memref<?xf32>, %dst: memref<?xf32>, %m: index, %gx: index)
// CHECK: "gpu.launch_func"(%gx, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %src, %dst, %m)
// CHECK: "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, index) -> (), kernel}>
// CHECK: ^bb0(%src: memref<?xf32>, %dst: memref<?xf32>, %m: index):
// One per-block check "the whole tile is in bounds" guards straight-line unmasked
// accesses; the else branch keeps the per-vector masked code.
// The block is wholly inside when its last row, bx * 64 + 63, is below %m:
// CHECK-DAG: %[[C63:[0-9]+]] = arith.constant 63 : index
// CHECK-DAG: %[[C64:[0-9]+]] = arith.constant 64 : index
// CHECK: %[[ROW0:[0-9]+]] = arith.muli %bx, %[[C64]] : index
// CHECK: %[[LAST:[0-9]+]] = arith.addi %[[ROW0]], %[[C63]]
// CHECK-NEXT: %[[IN:[0-9]+]] = arith.cmpi slt, %[[LAST]], %m : index
// CHECK: scf.if %[[IN]] -> (f32, f32, f32, f32,
// CHECK-NEXT: vector.load %src[%{{.*}}] {{.*}} : memref<?xf32>, vector<4xf32>
// CHECK-NOT: scf.if
// CHECK: scf.yield
// CHECK-NEXT: } else {
// CHECK: arith.cmpi slt, %{{.*}}, %m : index
// CHECK: scf.if %{{.*}} -> (vector<4xf32>)
// CHECK: vector.load %src[%{{.*}}] {{.*}} : memref<?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK: vector.broadcast
// CHECK: scf.if %[[IN]] {
// CHECK-NOT: scf.if
// CHECK: vector.store %{{.*}}, %dst[%{{.*}}] {{.*}} : memref<?xf32>, vector<4xf32>
// CHECK: } else {
// CHECK: scf.if %{{[0-9]+}} {
// CHECK: vector.store %{{.*}}, %dst[%{{.*}}] {{.*}} : memref<?xf32>, vector<4xf32>
// CHECK: gpu.known_block_size = array<i32: 128, 1, 1>
