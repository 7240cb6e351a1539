// warp-specialize on the plain single-buffered Hopper GEMM loop: the block grows by a
// producer warpgroup (threads 128 -> 256); the buffers and the "full" mbarrier get a
// copy per stage, an "empty" mbarrier per stage counts one arrival per consumer
// warpgroup; the consumers (setmaxnreg inc) wait on full[s] with the round's parity,
// issue the step's mma {async} + mma_wait {pending = 1} and hand the previous step's
// stage back on its empty barrier (step 0: from the second round on), then wait for
// the last mma and run the epilogue; the producer (setmaxnreg dec) waits on empty[s]
// from the second round on and issues the arrive and TMA loads on full[s].
// RUN: tilec %s -p "warp-specialize{num_stages=2}" | filecheck %s
// RUN: tilec %s -p "warp-specialize{num_stages=2}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "warp-specialize{num_stages=3}" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "warp-specialize{num_stages=4},default" --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p "warp-specialize{num_stages=3},default" -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p warp-specialize | filecheck %s --check-prefix=ONE
// RUN: not tilec %s -p "warp-specialize{num_stages=2 producer_regs=40 consumer_regs=256}" 2>&1 | filecheck %s --check-prefix=REGS
// RUN: not tilec %s -p "warp-specialize{num_stages=0}" 2>&1 | filecheck %s --check-prefix=BAD

// EQ: @gemm: equivalent after
// BAD: error: warp-specialize: num_stages must be in [1, 8], got 0
// REGS: error: 'layout.launch': warp-specialize: 2 x 256 + 40 registers per thread of a warpgroup exceed the block's 504 (3 x 168 at launch): setmaxnreg inc would wait forever
// ONE: layout.launch grid(%gm, %gn, %c1) threads(256)
// ONE-NOT: layout.warp_specialize

// CHECK-LABEL: func.func @gemm
// CHECK:      layout.launch grid(%gm, %gn, %c1) threads(384) {
// CHECK:      %bar = layout.mbarrier_init {count = 1 : i64}
// CHECK-NEXT: %[[F1:.*]] = layout.mbarrier_init {count = 1 : i64}
// CHECK-NEXT: %[[E0:.*]] = layout.mbarrier_init {count = 2 : i64}
// CHECK-NEXT: %[[E1:.*]] = layout.mbarrier_init {count = 2 : i64}
// CHECK:      layout.warp_specialize warpgroups(2, 1) {
// CHECK-NEXT:   layout.setmaxnreg inc 232
// CHECK-NEXT:   %zero = arith.constant
// CHECK-NEXT:   %[[R:.*]] = scf.for %kt = %c0 to %nk step %nstep iter_args(%acc0 = %zero)
// CHECK:          %parity = arith.remui %round
// CHECK-NEXT:     %later = arith.cmpi ne, %kt, %c0 : index
// CHECK-NEXT:     layout.mbarrier_wait %bar, %parity
// CHECK-NEXT:     %[[D0:.*]] = layout.mma %sa, %sb, %acc0 {async}
// CHECK-NEXT:     %[[W0:.*]] = layout.mma_wait %[[D0]] {pending = 1 : i64}
// CHECK-NEXT:     scf.if %later {
// CHECK-NEXT:       layout.mbarrier_arrive %[[E1]]
// CHECK-NEXT:     }
// CHECK:          layout.mbarrier_wait %[[F1]], %parity
// CHECK-NEXT:     %[[D1:.*]] = layout.mma %{{.*}}, %{{.*}}, %[[W0]] {async}
// CHECK-NEXT:     %[[W1:.*]] = layout.mma_wait %[[D1]] {pending = 1 : i64}
// CHECK-NEXT:     layout.mbarrier_arrive %[[E0]]
// CHECK-NEXT:     scf.yield %[[W1]]
// CHECK:        %[[DONE:.*]] = layout.mma_wait %[[R]] {pending = 0 : i64}
// CHECK:        layout.store %[[DONE]], %tc
// CHECK-NEXT: }, {
// CHECK-NEXT:   layout.setmaxnreg dec 40
// CHECK-NEXT:   scf.for %{{.*}} = %c0 to %nk step %nstep {
// CHECK:          %first = arith.cmpi eq, %round{{.*}}, %c0_p : index
// CHECK:          %eparity = arith.remui
// CHECK-NEXT:     scf.if %first {
// CHECK-NEXT:     } else {
// CHECK-NEXT:       layout.mbarrier_wait %[[E0]], %eparity
// CHECK-NEXT:     }
// CHECK:          layout.mbarrier_arrive %bar {tx = 32768 : i64}
// CHECK-NEXT:     layout.tma_load %{{.*}}, %sa, %bar
// CHECK-NEXT:     layout.tma_load %{{.*}}, %sb, %bar
// CHECK:            layout.mbarrier_wait %[[E1]], %eparity
// CHECK:          layout.mbarrier_arrive %[[F1]] {tx = 32768 : i64}
// CHECK-NOT:  layout.barrier

// CUDA-LABEL: gemm_kernel(
// CUDA:       setmaxnreg.inc.sync.aligned.u32 232;
// CUDA:       wgmma.wait_group.sync.aligned 1;
// CUDA:       wgmma.wait_group.sync.aligned 0;
// CUDA:       setmaxnreg.dec.sync.aligned.u32 40;
// CUDA:       cp.async.bulk.tensor

func.func @gemm(%pa: !layout.ptr<bf16, align 16>, %pb: !layout.ptr<bf16, align 16>, %pc: !layout.ptr<f32, align 16>) {
  %a = layout.view %pa : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(128,320):(320,1)>, gmem>
  %b = layout.view %pb : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(320,128):(128,1)>, gmem>
  %c = layout.view %pc : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %gm = arith.constant 1 : index
  %gn = arith.constant 1 : index
  %nk = arith.constant 5 : index
  layout.launch grid(%gm, %gn, %c1) threads(256) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem>
    %sb = layout.alloc : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,2)):(64,(1,4096))>, smem>
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>
    %bar = layout.mbarrier_init {count = 1 : i64}
    %acc = scf.for %kt = %c0 to %nk step %c1 iter_args(%acc0 = %zero) -> (tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>) {
      %ta = layout.tile %a[%bx, %kt] {tile = array<i64: 128, 64>} : !layout.tensor<bf16, #layout.cute<(128,320):(320,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(128,64):(320,1)>, gmem>
      %tb = layout.tile %b[%kt, %by] {tile = array<i64: 64, 128>} : !layout.tensor<bf16, #layout.cute<(320,128):(128,1)>, gmem> -> !layout.tensor<bf16, #layout.cute<(64,128):(128,1)>, gmem>
      layout.mbarrier_arrive %bar {tx = 32768 : i64}
      layout.tma_load %ta, %sa, %bar : !layout.tensor<bf16, #layout.cute<(128,64):(320,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem>
      layout.tma_load %tb, %sb, %bar : !layout.tensor<bf16, #layout.cute<(64,128):(128,1)>, gmem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,2)):(64,(1,4096))>, smem>
      %phase = arith.remui %kt, %c2 : index
      layout.mbarrier_wait %bar, %phase
      %d = layout.mma %sa, %sb, %acc0 : !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (128,64):(64,1)>, smem>, !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (64,(64,2)):(64,(1,4096))>, smem>, tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>
      layout.barrier
      scf.yield %d : tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>
    }
    %tc = layout.tile %c[%bx, %by] {tile = array<i64: 128, 128>} : !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem> -> !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
    layout.store %acc, %tc : tensor<128x128xf32, #layout.nvidia_mma<version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128, 16]>>, !layout.tensor<f32, #layout.cute<(128,128):(128,1)>, gmem>
  }
  func.return
}

