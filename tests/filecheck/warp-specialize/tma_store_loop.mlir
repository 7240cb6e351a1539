// warp-specialize on a plain TMA loop whose compute stores with the TMA (each step's
// tile doubled into a shared buffer of its own, stored by `layout.tma_store`): the
// store buffer is staged with the ring, and each consumer step starts (after its
// "full" wait) with `tma_store_wait {pending = (S - 1) x stores}`, so the store of
// the step S back, the last to read this stage's buffer, has read it before the step
// rewrites it; after the consumers' loop every store has read its buffer (pending 0).
// Without the waits the executor reports the race (found by tests/fuzz's plain-loop
// programs). Unrolled, rolled and persistent; equivalent, and through lowering.
// A loop whose TMA store reads a buffer the TMA also loads into is left as it is.
// RUN: tilec %s -p "warp-specialize{num_stages=2}" | filecheck %s
// RUN: tilec %s -p "warp-specialize{num_stages=3 rolled=true}" | filecheck %s --check-prefix=ROLLED
// RUN: tilec %s -p "warp-specialize{num_stages=2}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "warp-specialize{num_stages=4},default" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "warp-specialize{num_stages=3 rolled=true},default" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "warp-specialize{num_stages=2 persistent=1},default" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "warp-specialize{num_stages=2},default" -t cuda | filecheck %s --check-prefix=CUDA

// EQ: @doubled: equivalent after
// EQ: @shared_buffer: equivalent after

!G = !layout.tensor<f32, #layout.cute<(96,32):(32,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,32):(32,1)>, smem>
#bl = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
!R = tensor<16x32xf32, #bl>

// CHECK-LABEL: func.func @doubled
// CHECK:      layout.launch grid(%{{.*}}) threads(256)
// CHECK:      layout.warp_specialize warpgroups(1, 1) {
// CHECK:        layout.setmaxnreg inc
// CHECK:        scf.for
// CHECK:          layout.mbarrier_wait %{{.*}}, %parity
// CHECK-NEXT:     layout.tma_store_wait {pending = 1 : i64}
// CHECK:          layout.tma_store %[[B0:[a-z0-9_]+]], %{{.*}}
// CHECK:          layout.mbarrier_wait %{{.*}}, %parity
// CHECK-NEXT:     layout.tma_store_wait {pending = 1 : i64}
// CHECK:          layout.tma_store
// CHECK-NOT:      layout.tma_store %[[B0]]
// CHECK:        }
// CHECK-NEXT:   layout.tma_store_wait {pending = 0 : i64}
// CHECK:      }, {
// CHECK:        layout.setmaxnreg dec 40

// ROLLED-LABEL: func.func @doubled
// ROLLED:      layout.warp_specialize warpgroups(1, 1) {
// ROLLED:        scf.for %{{.*}} iter_args(%stage = %{{.*}}, %phase = %{{.*}})
// ROLLED:          layout.mbarrier_wait %{{.*}}, %phase
// ROLLED-NEXT:     layout.tma_store_wait {pending = 2 : i64}
// ROLLED:          layout.tma_store
// ROLLED:        } {tilec.unroll = 1 : i64}
// ROLLED-NEXT:   layout.tma_store_wait {pending = 0 : i64}

// CUDA-LABEL: doubled_kernel(const
// CUDA:       tilec_bulk_wait_group_read<1>();
// CUDA:       tilec_bulk_commit_group();
// CUDA:       tilec_bulk_wait_group_read<1>();
// CUDA:       tilec_bulk_commit_group();
// CUDA:       tilec_bulk_wait_group_read<0>();

func.func @doubled(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %o = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    scf.for %i = %c0 to %c6 step %c1 {
      %ta = layout.tile %a[%i, %c0] {tile = array<i64: 16, 32>} : !G -> !T
      layout.mbarrier_arrive %bar {tx = 2048 : i64}
      layout.tma_load %ta, %s, %bar : !T, !S
      %phase = arith.remui %i, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %tb = layout.tile %b[%i, %c0] {tile = array<i64: 16, 32>} : !G -> !T
      %x = layout.load %s : !S -> !R
      %y = arith.addf %x, %x : !R
      layout.store %y, %o : !R, !S
      layout.tma_store %o, %tb : !S, !T
      layout.tma_store_wait {pending = 0 : i64}
      layout.barrier
    }
  }
  func.return
}

// CHECK-LABEL: func.func @shared_buffer
// CHECK-NOT:  layout.warp_specialize
// CHECK:      func.return

func.func @shared_buffer(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %bar = layout.mbarrier_init {count = 1 : i64}
    scf.for %i = %c0 to %c6 step %c1 {
      %ta = layout.tile %a[%i, %c0] {tile = array<i64: 16, 32>} : !G -> !T
      layout.mbarrier_arrive %bar {tx = 2048 : i64}
      layout.tma_load %ta, %s, %bar : !T, !S
      %phase = arith.remui %i, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %tb = layout.tile %b[%i, %c0] {tile = array<i64: 16, 32>} : !G -> !T
      layout.tma_store %s, %tb : !S, !T
      layout.tma_store_wait {pending = 0 : i64}
      layout.barrier
    }
  }
  func.return
}
