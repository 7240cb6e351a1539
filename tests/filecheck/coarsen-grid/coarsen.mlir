// RUN: tilec %s -p "order-grid,coarsen-grid{min_waves=0}" | filecheck %s
// RUN: tilec %s -p "order-grid,coarsen-grid{min_waves=0}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "expand-iterators,tile,order-grid,coarsen-grid{min_waves=0},distribute,vectorize,software-pipeline" | filecheck %s --check-prefix=PIPE
// RUN: tilec %s -p "expand-iterators,tile,order-grid,coarsen-grid{min_waves=0},distribute,vectorize,software-pipeline,lower-to-gpu,canonicalize" --check-equivalence | filecheck %s --check-prefix=EQ2
// A 16x16 f32 tile through shared memory at 64 threads loads 1 KiB a block; 32 blocks
// a multiprocessor hold 32 KiB in flight, under sm_90's 3.65e12 B/s x 2.2 us / 132 =
// 61 KB: each block takes 6 tiles along x (grid x 6 after order-grid, 6's largest
// divisor up to 8) in a loop of 3 stages (2 x 1 KiB x 32 blocks = 64 KiB >= 61 KB).

// EQ: @round_trip: equivalent after 'order-grid,coarsen-grid{min_waves=0}'
// EQ2: @round_trip: equivalent after

// CHECK-LABEL: func.func @round_trip
// CHECK:         %[[ONE:[0-9]+]] = arith.constant 1 : index
// CHECK-NEXT:    layout.launch grid(%[[ONE]], %{{.*}}, %{{.*}}) threads(64) {
// CHECK-NEXT:    ^bb0(%[[BX:.*]]: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK-NEXT:      %[[S:.*]] = layout.alloc : !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
// CHECK-NEXT:      %[[K:.*]] = arith.constant 6 : index
// CHECK:           %[[T0:.*]] = arith.muli %[[BX]], %[[K]] : index
// CHECK-NEXT:      scf.for %[[T:.*]] = %{{.*}} to %[[K]] step %{{.*}} {
// CHECK-NEXT:        %[[X:.*]] = arith.addi %[[T0]], %[[T]] : index
// CHECK-NEXT:        layout.tile %{{.*}}[%{{.*}}, %[[X]]]
// CHECK-NEXT:        layout.tile %{{.*}}[%{{.*}}, %[[X]]]
// CHECK-NEXT:        layout.copy %{{.*}}, %[[S]]
// CHECK-NEXT:        layout.barrier
// CHECK-NEXT:        layout.copy %[[S]], %{{.*}}
// CHECK-NEXT:        layout.barrier
// CHECK-NEXT:      } {tilec.num_stages = 3 : i64}

// PIPE-LABEL: func.func @round_trip
// PIPE:         layout.alloc : !layout.tensor<f32, #layout.cute<(3,16,16):(256,16,1)>, smem>
// PIPE:         layout.copy_async
// PIPE:         layout.copy_async
// PIPE:         scf.for
// PIPE:           layout.async_wait {pending = 1 : i64}
// PIPE-NEXT:      layout.barrier
// PIPE:           layout.copy_async
// PIPE:           layout.copy
// PIPE:         } {tilec.unroll = 1 : i64}
// PIPE-NEXT:    layout.async_wait {pending = 0 : i64}

!G = !layout.tensor<f32, #layout.cute<(64,96):(96,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(96,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
func.func @round_trip(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %gx = arith.constant 4 : index
  %gy = arith.constant 6 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%gx, %gy, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %a[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %tb = layout.tile %b[%bx, %by] {tile = array<i64: 16, 16>} : !G -> !T
    %s = layout.alloc : !S
    layout.copy %ta, %s : !T, !S
    layout.barrier
    layout.copy %s, %tb : !S, !T
  }
  func.return
}
