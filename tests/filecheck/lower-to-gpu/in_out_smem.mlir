// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @in_out: equivalent after
// examples/gluon_in_out_layouts.mlir with the convert_layout done by hand through a
// swizzled shared tile: 16-byte loads and shared stores in the input layout, a
// barrier, scalar shared loads and 16-byte global stores in the output layout.
#in = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#out = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
!Gi = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!Go = !layout.tensor<f32, #layout.cute<(256,256):(1,256)>, gmem>
!Ti = !layout.tensor<f32, #layout.cute<(32,32):(256,1)>, gmem>
!To = !layout.tensor<f32, #layout.cute<(32,32):(1,256)>, gmem>
!S = !layout.tensor<f32, #layout.composed<swizzle<3,2,3> o 0 o (32,32):(32,1)>, smem>
func.func @in_out(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gi
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Go
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c8, %c8, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 32, 32>} : !Gi -> !Ti
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 32, 32>} : !Go -> !To
    %s = layout.alloc : !S
    %v = layout.load %ta {vector = 4 : i64} : !Ti -> tensor<32x32xf32, #in>
    layout.store %v, %s {vector = 4 : i64} : tensor<32x32xf32, #in>, !S
    layout.barrier
    %w = layout.load %s : !S -> tensor<32x32xf32, #out>
    layout.store %w, %tb {vector = 4 : i64} : tensor<32x32xf32, #out>, !To
  }
  func.return
}
// CHECK-LABEL: func.func @in_out(%src: memref<65536xf32>, %dst: memref<65536xf32>)
// CHECK: %smem = memref.alloca() : memref<1024xf32, 3 : i64>
// CHECK: vector.load %src
// CHECK: arith.xori
// CHECK: vector.store %{{.*}}, %smem[%{{.*}}] {{.*}} : memref<1024xf32, 3 : i64>, vector<4xf32>
// CHECK: "gpu.barrier"()
// CHECK: memref.load %smem
// CHECK: vector.store %{{.*}}, %dst
