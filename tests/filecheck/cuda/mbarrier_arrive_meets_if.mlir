// An elected `layout.mbarrier_arrive` after an `scf.if` (passes/_arrive_order.py walks
// into its branches): the producer stores its tile to shared memory only on some
// iterations, in an `scf.if` whose branch meets after the store (`layout.named_barrier
// sync`): every path to the arrive has its accesses ordered, so the region does not meet
// again before it. The consumer reads the tile in an `scf.if` whose branch does not meet:
// its region meets before its arrive on "empty". (The program of
// cuda/mbarrier_arrive_meets.mlir with the stores and loads of the last iteration skipped.)
// RUN: tilec %s -p cse,canonicalize,default -t cuda | filecheck %s
// RUN: tilec %s -p cse,canonicalize,default --check-equivalence | filecheck %s --check-prefix=EQ

// EQ: // @ws_if: equivalent after 'cse,canonicalize,default'

// CHECK-LABEL: // kernel ws_if_kernels::ws_if_kernel
// CHECK:       if (threadIdx.x < 128) {  // warpgroup 0
// CHECK:         smem[{{.*}}] = {{.*}};
// CHECK:         asm volatile("bar.sync 4, 128;" ::: "memory");
// CHECK-NEXT:    }
// CHECK-NOT:     bar.sync
// CHECK:         tilec_mbarrier_arrive_expect_tx({{.*}}, 0u);
// CHECK:       } else {  // warpgroup 1
// CHECK:         = smem[
// CHECK:         asm volatile("bar.sync 2, 128;" ::: "memory");
// CHECK-NEXT:    const int [[WG2:t_[0-9]+]] = {{.*}} & 127;
// CHECK-NEXT:    const bool [[P2:p_[0-9]+]] = [[WG2]] == 0;
// CHECK-NEXT:    if ([[P2]]) {
// CHECK-NEXT:      tilec_mbarrier_arrive_expect_tx({{.*}}, 0u);
builtin.module {
  func.func @ws_if(%src: !layout.ptr<i64, align 16>, %dst: !layout.ptr<i64, align 16>, %n: index) attributes {tilec.args = {n = 5 : index}} {
    %0 = layout.view %src : !layout.ptr<i64, align 16> -> !layout.tensor<i64, #layout.cute<(20,8):(8,1)>, gmem>
    %1 = layout.view %dst : !layout.ptr<i64, align 16> -> !layout.tensor<i64, #layout.cute<(20,8):(8,1)>, gmem>
    %2 = arith.constant 2 : index
    %3 = arith.constant 1 : index
    %4 = arith.constant 1 : index
    layout.launch grid(%2, %3, %4) threads(256) {
    ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
      %5 = layout.alloc : !layout.tensor<i64, #layout.cute<(1,2,8):(16,8,1)>, smem>
      %6 = layout.mbarrier_array {count = 1 : i64, stages = 1 : i64}
      %7 = layout.mbarrier_array {count = 1 : i64, stages = 1 : i64}
      %8 = arith.constant 1 : index
      %9 = arith.constant 2 : index
      %last = arith.constant 4 : index
      layout.warp_specialize warpgroups(1, 1) {
        %10 = arith.constant 0 : index
        %11 = arith.constant 1 : index
        scf.for %12 = %10 to %n step %11 {
          %13 = arith.remui %12, %8 : index
          %14 = arith.divui %12, %8 : index
          %15 = layout.mbarrier_at %7[%13] : !layout.mbarriers<1>
          %16 = arith.constant 1 : index
          %17 = arith.addi %14, %16 : index
          %18 = arith.remui %17, %9 : index
          layout.mbarrier_wait %15, %18
          %19 = layout.mbarrier_at %6[%13] : !layout.mbarriers<1>
          %go = arith.cmpi ult, %12, %last : index
          scf.if %go {
            %20 = layout.slice %5[%13, _, _] : !layout.tensor<i64, #layout.cute<(1,2,8):(16,8,1)>, smem> -> !layout.tensor<i64, #layout.cute<(2,8):(8,1)>, smem>
            %21 = arith.constant 2 : index
            %22 = arith.muli %12, %21 : index
            %23 = arith.addi %22, %bx : index
            %24 = arith.constant 0 : index
            %25 = layout.tile %0[%23, %24] {tile = array<i64: 2, 8>} : !layout.tensor<i64, #layout.cute<(20,8):(8,1)>, gmem> -> !layout.tensor<i64, #layout.cute<(2,8):(8,1)>, gmem>
            %26 = layout.load %25 : !layout.tensor<i64, #layout.cute<(2,8):(8,1)>, gmem> -> tensor<2x8xi64, #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
            layout.store %26, %20 : tensor<2x8xi64, #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>, !layout.tensor<i64, #layout.cute<(2,8):(8,1)>, smem>
            layout.named_barrier sync 4, 128
          }
          layout.mbarrier_arrive %19
        }
      }, {
        %27 = arith.constant 0 : index
        %28 = arith.constant 1 : index
        scf.for %29 = %27 to %n step %28 {
          %30 = arith.remui %29, %8 : index
          %31 = arith.divui %29, %8 : index
          %32 = arith.remui %31, %9 : index
          %34 = layout.mbarrier_at %6[%30] : !layout.mbarriers<1>
          layout.mbarrier_wait %34, %32
          %cgo = arith.cmpi ult, %29, %last : index
          scf.if %cgo {
            %33 = layout.slice %5[%30, _, _] : !layout.tensor<i64, #layout.cute<(1,2,8):(16,8,1)>, smem> -> !layout.tensor<i64, #layout.cute<(2,8):(8,1)>, smem>
            %35 = layout.load %33 : !layout.tensor<i64, #layout.cute<(2,8):(8,1)>, smem> -> tensor<2x8xi64, #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
            %36 = arith.constant 2 : index
            %37 = arith.muli %29, %36 : index
            %38 = arith.addi %37, %bx : index
            %39 = arith.constant 0 : index
            %40 = layout.tile %1[%38, %39] {tile = array<i64: 2, 8>} : !layout.tensor<i64, #layout.cute<(20,8):(8,1)>, gmem> -> !layout.tensor<i64, #layout.cute<(2,8):(8,1)>, gmem>
            layout.store %35, %40 : tensor<2x8xi64, #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>, !layout.tensor<i64, #layout.cute<(2,8):(8,1)>, gmem>
          }
          %41 = layout.mbarrier_at %7[%30] : !layout.mbarriers<1>
          layout.mbarrier_arrive %41
        }
      }
    }
    func.return
  }
}
