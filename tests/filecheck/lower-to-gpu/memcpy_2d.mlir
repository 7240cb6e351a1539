// RUN: tilec %s -p lower-to-gpu | filecheck %s
// RUN: tilec %s -p lower-to-gpu --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @memcpy_2d: equivalent after
// examples/gluon_memcpy_2d.mlir after vectorize: 16-byte loads and stores, one thread
// offset computed once, constant register offsets.
#blocked = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
!G = !layout.tensor<f32, #layout.cute<(256,256):(256,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(64,64):(256,1)>, gmem>
func.func @memcpy_2d(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c4, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 64, 64>} : !G -> !T
    %v = layout.load %ta {vector = 4 : i64} : !T -> tensor<64x64xf32, #blocked>
    layout.store %v, %tb {vector = 4 : i64} : tensor<64x64xf32, #blocked>, !T
  }
  func.return
}
// CHECK-LABEL: func.func @memcpy_2d(%src: memref<65536xf32>, %dst: memref<65536xf32>)
// CHECK: "gpu.launch_func"(%c4, %c4, %c1, %{{.*}}, %{{.*}}, %{{.*}}, %src, %dst) <{kernel = @memcpy_2d_kernels::@memcpy_2d_kernel
// CHECK: "gpu.module"() <{sym_name = "memcpy_2d_kernels"}>
// CHECK: ^bb0(%src: memref<65536xf32>, %dst: memref<65536xf32>):
// CHECK: %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}>
// CHECK: %[[V0:[0-9]+]] = vector.load %src[%[[OFF:[0-9]+]]] {{.*}} : memref<65536xf32>, vector<4xf32>
// CHECK-COUNT-4: vector.extract %[[V0]]
// CHECK-NEXT: %[[OFF1:[0-9]+]] = arith.addi {{.*}}%[[OFF]]
// CHECK-NEXT: vector.load %src[%[[OFF1]]]
// CHECK-COUNT-7: vector.store %{{.*}}, %dst
// CHECK: vector.store %{{.*}}, %dst
// CHECK-NOT: vector.store
// CHECK: "gpu.return"
// CHECK: {sym_name = "memcpy_2d_kernel", gpu.known_block_size = array<i32: 128, 1, 1>}
