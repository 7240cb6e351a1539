// order-grid{group=G}: a launch whose blocks share the tiles they read (A's tile by
// block y alone, B's by block x alone, as a GEMM's) becomes a 1-D grid in grouped
// order: consecutive blocks walk down G block rows, then one block column along
// (Triton's GROUP_SIZE_M); the last group takes the rows that are left (3 rows in
// groups of 2: minui). Without the option, or in a launch whose tiles are not shared,
// nothing changes. Results never change (blocks are independent).
// RUN: tilec %s -p "order-grid{group=2}" | filecheck %s
// RUN: tilec %s -p "order-grid{group=2}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "order-grid{group=8}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "order-grid" | filecheck %s --check-prefix=OFF

// EQ: @shared_tiles: equivalent after
// EQ: @not_shared: equivalent after

// CHECK-LABEL: func.func @shared_tiles
// CHECK:         %[[N:.*]] = arith.constant 12 : index
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:    layout.launch grid(%[[N]], %[[ONE]], %{{.*}}) threads(32) {
// CHECK-NEXT:    ^{{.*}}(%[[PID:.*]]: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      %[[W:.*]] = arith.constant 8 : index
// CHECK-NEXT:      %[[GRP:.*]] = arith.divui %[[PID]], %[[W]] : index
// CHECK-NEXT:      %[[IN:.*]] = arith.remui %[[PID]], %[[W]] : index
// CHECK-NEXT:      %[[G:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[FIRST:.*]] = arith.muli %[[GRP]], %[[G]] : index
// CHECK-NEXT:      %[[G2:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[GY:.*]] = arith.constant 3 : index
// CHECK-NEXT:      %[[LEFT:.*]] = arith.subi %[[GY]], %[[FIRST]] : index
// CHECK-NEXT:      %[[SIZE:.*]] = arith.minui %[[LEFT]], %[[G2]] : index
// CHECK-NEXT:      %[[R:.*]] = arith.remui %[[IN]], %[[SIZE]] : index
// CHECK-NEXT:      %grouped_y = arith.addi %[[FIRST]], %[[R]] : index
// CHECK-NEXT:      %grouped_x = arith.divui %[[IN]], %[[SIZE]] : index
// CHECK:           layout.tile %A[%grouped_y, %c0]
// CHECK:           layout.tile %B[%c0, %grouped_x]
// CHECK:           layout.tile %C[%grouped_y, %grouped_x]
// CHECK-LABEL: func.func @not_shared
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(32) {
// CHECK-NEXT:    ^{{.*}}(%[[BX:.*]]: index, %[[BY:.*]]: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      layout.tile %A[%[[BY]], %[[BX]]]

// OFF-LABEL: func.func @shared_tiles
// OFF:         layout.launch grid(%0, %1, %2) threads(32) {
// OFF:           layout.tile %A[%by, %c0]
// OFF-LABEL: func.func @not_shared

func.func @shared_tiles(%pa: !layout.ptr<f32, align 16>, %pb: !layout.ptr<f32, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %A = layout.view %pa : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(48,16):(16,1)>, gmem>
  %B = layout.view %pb : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(16,64):(64,1)>, gmem>
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(48,64):(64,1)>, gmem>
  %0 = arith.constant 4 : index
  %1 = arith.constant 3 : index
  %2 = arith.constant 1 : index
  layout.launch grid(%0, %1, %2) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %A[%by, %c0] {tile = array<i64: 16, 16>} : !layout.tensor<f32, #layout.cute<(48,16):(16,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem>
    %a = layout.load %ta : !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, gmem> -> tensor<16x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>>
    %tb = layout.tile %B[%c0, %bx] {tile = array<i64: 16, 16>} : !layout.tensor<f32, #layout.cute<(16,64):(64,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
    %b = layout.load %tb : !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem> -> tensor<16x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>>
    %s = arith.addf %a, %b : tensor<16x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>>
    %tc = layout.tile %C[%by, %bx] {tile = array<i64: 16, 16>} : !layout.tensor<f32, #layout.cute<(48,64):(64,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
    layout.store %s, %tc : tensor<16x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>>, !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
  }
  func.return
}
func.func @not_shared(%pa: !layout.ptr<f32, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %A = layout.view %pa : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(48,64):(64,1)>, gmem>
  %C = layout.view %pc : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(48,64):(64,1)>, gmem>
  %0 = arith.constant 4 : index
  %1 = arith.constant 3 : index
  %2 = arith.constant 1 : index
  layout.launch grid(%0, %1, %2) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %A[%by, %bx] {tile = array<i64: 16, 16>} : !layout.tensor<f32, #layout.cute<(48,64):(64,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
    %a = layout.load %ta : !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem> -> tensor<16x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>>
    %tc = layout.tile %C[%by, %bx] {tile = array<i64: 16, 16>} : !layout.tensor<f32, #layout.cute<(48,64):(64,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
    layout.store %a, %tc : tensor<16x16xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>>, !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
  }
  func.return
}
