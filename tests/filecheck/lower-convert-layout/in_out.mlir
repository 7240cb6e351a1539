// RUN: tilec %examples/gluon_in_out_layouts.mlir -p lower-convert-layout | filecheck %s
// The Gluon in/out conversion crosses warps: a shared-memory round trip. The swizzle
// makes both the 16-byte writes of rows and the scalar reads of columns conflict-free.

// CHECK-LABEL: func.func @in_out
// CHECK:         ^bb0(
// CHECK-NEXT:      %[[S:.*]] = layout.alloc : !layout.tensor<f32, #layout.composed<swizzle<3,2,5> o 0 o (32,32):(32,1)>, smem>
// CHECK:           %[[V:.*]] = layout.load %{{.*}} : !layout.tensor<f32, #layout.cute<(32,32):(256,1)>, gmem>
// CHECK-NEXT:      layout.store %[[V]], %[[S]] {bank_conflicts = 0 : i64, vector = 4 : i64}
// CHECK-NEXT:      layout.barrier
// CHECK-NEXT:      %[[W:.*]] = layout.load %[[S]] {bank_conflicts = 0 : i64} : {{.*}} -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:      layout.store %[[W]], %{{.*}} : tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NOT:       layout.convert_layout
