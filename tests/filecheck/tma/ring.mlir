// The `tma` pass with stages=N: a persistent loop over tiles (each tile copied into a
// shared buffer, transposed into a second one, copied out) becomes a ring of N shared
// tiles: the loads of the first N-1 tiles before the loop, then per step the store
// wait that frees the step's out buffer (bulk groups pending <= N-1), the load of the
// tile N-1 ahead, the wait on the step's barrier with parity round mod 2, the body,
// the TMA store (the body's barriers after the in-copy, before the out-copy and at its
// end are dropped: the mbarrier wait, the store and the next step's wait meet the
// block). Loops that do not fit the ring are left alone; stages=1 (the default)
// leaves every loop. The reference executor gives the same results.
// RUN: tilec %s -p "tma{stages=2}" | filecheck %s
// RUN: tilec %s -p "tma{stages=2}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "tma{stages=3}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "expand-iterators,tile,order-grid,tma{stages=2},distribute,vectorize,vectorize-pointers,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p tma | filecheck %s --check-prefix=ONE
// RUN: tilec %s -p "expand-iterators,tile,order-grid,tma{stages=2},distribute,vectorize,vectorize-pointers,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize" -t cuda | filecheck %s --check-prefix=CUDA
// RUN: not tilec %s -p "tma{stages=9}" 2>&1 | filecheck %s --check-prefix=BAD

// EQ: @persistent_transpose: equivalent after
// BAD: error: tma: stages must be in [1, 8], got 9

// ONE-LABEL: func.func @persistent_transpose
// ONE-NOT:   layout.mbarrier_init
// ONE:       layout.copy %ta, %s
// ONE:       layout.copy %s2, %tb

// CHECK-LABEL: func.func @persistent_transpose
// CHECK:      %s = layout.alloc
// CHECK-NEXT: %s2 = layout.alloc
// CHECK-NEXT: %[[S1:.*]] = layout.alloc
// CHECK-NEXT: %[[O1:.*]] = layout.alloc
// CHECK-NEXT: %[[B0:.*]] = layout.mbarrier_init {count = 1 : i64}
// CHECK-NEXT: %[[B1:.*]] = layout.mbarrier_init {count = 1 : i64}
// CHECK:      %[[FIRST:.*]] = arith.cmpi slt, %bx, %nt : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK:        layout.mbarrier_arrive %[[B0]] {tx = 4096 : i64}
// CHECK-NEXT:   layout.tma_load %ta, %s, %[[B0]]
// CHECK:      %[[STEP:.*]] = arith.muli %{{.*}}, %nb : index
// CHECK-NEXT: scf.for %[[I:.*]] = %bx to %nt step %[[STEP]] {
// CHECK-NEXT:   %[[OFF:.*]] = arith.subi %[[I]], %bx : index
// CHECK-NEXT:   %[[ROUND:.*]] = arith.divui %[[OFF]], %[[STEP]] : index
// CHECK-NEXT:   %[[PARITY:.*]] = arith.remui %[[ROUND]], %{{.*}} : index
// CHECK-NEXT:   layout.tma_store_wait {pending = 1 : i64}
// CHECK:        scf.if
// CHECK:          layout.mbarrier_arrive %[[B1]] {tx = 4096 : i64}
// CHECK-NEXT:     layout.tma_load %{{.*}}, %[[S1]], %[[B1]]
// CHECK:        layout.mbarrier_wait %[[B0]], %[[PARITY]]
// CHECK:        layout.load %s :
// CHECK-NEXT:   layout.store %{{.*}}, %s2 :
// CHECK-NEXT:   layout.tma_store %s2, %tb
// CHECK:        %[[Q1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK-NEXT:   %[[IN1:.*]] = arith.cmpi slt, %[[Q1]], %nt : index
// CHECK-NEXT:   scf.if %[[IN1]] {
// CHECK-NEXT:     layout.tma_store_wait {pending = 1 : i64}
// CHECK:          layout.tma_load %{{.*}}, %s, %[[B0]]
// CHECK:          layout.mbarrier_wait %[[B1]], %[[PARITY]]
// CHECK:          layout.load %[[S1]] :
// CHECK-NEXT:     layout.store %{{.*}}, %[[O1]] :
// CHECK-NEXT:     layout.tma_store %[[O1]], %{{.*}} :
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: layout.tma_store_wait {pending = 0 : i64}
// CHECK-NOT:  layout.copy

// CUDA-LABEL: persistent_transpose_kernel(
// CUDA:       tilec_mbarrier_init(reinterpret_cast<unsigned long long*>(mbar), 1u);
// CUDA:       tilec_mbarrier_init(reinterpret_cast<unsigned long long*>(mbar_1), 1u);
// CUDA:       cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CUDA:       for (int {{[a-z_0-9]+}} = bx; {{[a-z_0-9]+}} < 6; {{[a-z_0-9]+}} += 4) {
// CUDA:         tilec_bulk_wait_group_read<1>();
// CUDA:         tilec_mbarrier_arrive_expect_tx(reinterpret_cast<unsigned long long*>(mbar_1), 4096u);
// CUDA:         cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CUDA:         tilec_mbarrier_wait(reinterpret_cast<unsigned long long*>(mbar), (unsigned)([[PAR:t_[0-9]+]]) & 1u);
// CUDA:         cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// CUDA:         tilec_bulk_commit_group();
// CUDA:         tilec_bulk_wait_group_read<1>();
// CUDA:         tilec_mbarrier_arrive_expect_tx(reinterpret_cast<unsigned long long*>(mbar), 4096u);
// CUDA:         tilec_mbarrier_wait(reinterpret_cast<unsigned long long*>(mbar_1), (unsigned)([[PAR]]) & 1u);
// CUDA:         tilec_bulk_commit_group();
// CUDA:       tilec_bulk_wait_group_read<0>();

#L = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [0, 1]}>
!Gs = !layout.tensor<f32, #layout.cute<(64,96):(96,1)>, gmem>
!Gd = !layout.tensor<f32, #layout.cute<(64,96):(1,64)>, gmem>
!Ts = !layout.tensor<f32, #layout.cute<(32,32):(96,1)>, gmem>
!Td = !layout.tensor<f32, #layout.cute<(32,32):(1,64)>, gmem>
!S = !layout.tensor<f32, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 32, transposed = false, shape = [32, 32]>, smem>
!S2 = !layout.tensor<f32, #layout.nvmma_shared<swizzle = 128, elementBitWidth = 32, transposed = true, shape = [32, 32]>, smem>
func.func @persistent_transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !Gs
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !Gd
  %nb = arith.constant 2 : index
  %gx = arith.constant 2 : index
  %nt = arith.constant 6 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%nb, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %s2 = layout.alloc : !S2
    scf.for %t = %bx to %nt step %nb {
      %i = arith.remui %t, %gx : index
      %j = arith.divui %t, %gx : index
      %ta = layout.tile %a[%i, %j] {tile = array<i64: 32, 32>} : !Gs -> !Ts
      %tb = layout.tile %b[%i, %j] {tile = array<i64: 32, 32>} : !Gd -> !Td
      layout.copy %ta, %s : !Ts, !S
      layout.barrier
      %v = layout.load %s : !S -> tensor<32x32xf32, #L>
      layout.store %v, %s2 : tensor<32x32xf32, #L>, !S2
      layout.barrier
      layout.copy %s2, %tb : !S2, !Td
      layout.barrier
    }
  }
  func.return
}
