// Invalid asynchronous layout.mma ({async}) and layout.mma_wait: an async mma.sync, a read of an
// accumulator in flight (the async result, or a wait's result that may still be in flight, a
// loop-carried one waited for before its trip's mma), a wait on a value that is no wgmma
// accumulator, a pending count past 32 (`MMA_PENDING_MAX`; the hardware's 7: cuda.wgmma_wait), a wait outside
// a launch, a wait after a value that is not f32; each a located error saying why.
// RUN: tilec %s --split-input-file --verify-diagnostics
// RUN: not tilec %s --split-input-file 2>&1 | filecheck %s --check-prefix=LOC
// LOC: invalid_mma_async.mlir:18:5: error: 'layout.mma': only a version-3 (wgmma) layout.mma is asynchronous ({async}): mma.sync completes in its warp's registers

#mma = #layout.nvidia_mma<version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]>
#a = #layout.dot_op<opIdx = 0, parent = #mma, kWidth = 2>
#b = #layout.dot_op<opIdx = 1, parent = #mma, kWidth = 2>
func.func @async_mma_sync(%a: tensor<32x16xbf16, #a>, %b: tensor<16x16xbf16, #b>, %c: tensor<32x16xf32, #mma>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{only a version-3 (wgmma) layout.mma is asynchronous ({async}): mma.sync completes in its warp's registers}}
    %d = layout.mma %a, %b, %c {async} : tensor<32x16xbf16, #a>, tensor<16x16xbf16, #b>, tensor<32x16xf32, #mma>
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!ACC = tensor<64x64xf32, #mma>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @read_in_flight(%acc: !ACC) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    // expected-error @+1 {{the result of an asynchronous layout.mma is in flight until a layout.mma_wait retires its group: it may be the accumulator of another version-3 layout.mma, an operand of layout.mma_wait or yielded, not an operand of arith.addf (read the layout.mma_wait's result)}}
    %d = layout.mma %sa, %sb, %acc {async} : !SA, !SB, !ACC
    %e = arith.addf %d, %acc : !ACC
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!ACC = tensor<64x64xf32, #mma>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @read_pending_wait(%acc: !ACC) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %d = layout.mma %sa, %sb, %acc {async} : !SA, !SB, !ACC
    // expected-error @+1 {{a result of layout.mma_wait {pending = 1} is in flight until a layout.mma_wait retires its group: it may be the accumulator of another version-3 layout.mma, an operand of layout.mma_wait or yielded, not an operand of arith.addf}}
    %w = layout.mma_wait %d {pending = 1 : i64} : !ACC
    %e = arith.addf %w, %acc : !ACC
  }
  func.return
}

// -----

#blocked = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @wait_not_wgmma(%v: tensor<32x32xf32, #blocked>) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.mma_wait waits for accumulators of asynchronous layout.mma: operand 0 is tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>, not a tensor in a version-3 #layout.nvidia_mma layout}}
    %w = layout.mma_wait %v {pending = 0 : i64} : tensor<32x32xf32, #blocked>
  }
  func.return
}

// -----

func.func @pending_too_many() {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.mma_wait pending must be in [0, 32], got 33}}
    layout.mma_wait {pending = 33 : i64}
  }
  func.return
}

// -----

func.func @wait_outside_launch() {
  // expected-error @+1 {{layout.mma_wait must be inside a layout.launch}}
  layout.mma_wait {pending = 0 : i64}
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!ACC = tensor<64x64xf32, #mma>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @read_pending_wait_one_group_short(%acc: !ACC) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %d = layout.mma %sa, %sb, %acc {async} : !SA, !SB, !ACC
    %o = layout.mma %sa, %sb, %acc {async} : !SA, !SB, !ACC
    // one group committed after %d's: with 2 pending, %d's may be in flight
    // expected-error @+1 {{a result of layout.mma_wait {pending = 2} is in flight until a layout.mma_wait retires its group: it may be the accumulator of another version-3 layout.mma, an operand of layout.mma_wait or yielded, not an operand of arith.addf}}
    %w:2 = layout.mma_wait %d, %o {pending = 2 : i64} : !ACC, !ACC
    %e = arith.addf %w#0, %acc : !ACC
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!ACC = tensor<64x64xf32, #mma>
!SA = !layout.tensor<bf16, #layout.composed<swizzle<1,3,3> o 0 o (64,16):(16,1)>, smem>
!SB = !layout.tensor<bf16, #layout.composed<swizzle<3,3,3> o 0 o (16,64):(64,1)>, smem>
func.func @read_carried_before_the_trips_mma(%acc: !ACC) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %sa = layout.alloc : !SA
    %sb = layout.alloc : !SB
    %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%cin = %acc) -> (!ACC) {
      // the carried value (the previous trip's async mma) waited for before this trip's
      // mma: no group of the trip is committed after it, so it may be the one pending
      // expected-error @+1 {{a result of layout.mma_wait {pending = 1} is in flight until a layout.mma_wait retires its group: it may be the accumulator of another version-3 layout.mma, an operand of layout.mma_wait or yielded, not an operand of arith.addf}}
      %w = layout.mma_wait %cin {pending = 1 : i64} : !ACC
      %e = arith.addf %w, %acc : !ACC
      %t = layout.mma %sa, %sb, %acc {async} : !SA, !SB, !ACC
      scf.yield %t : !ACC
    }
  }
  func.return
}

// -----

#mma = #layout.nvidia_mma<version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
!ACC = tensor<64x64xf32, #mma>
func.func @after_not_f32(%acc: !ACC, %n: i32) {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    // expected-error @+1 {{layout.mma_wait's `after` values are f32 tensors or scalars: 0 is i32}}
    %w = layout.mma_wait %acc after %n {pending = 0 : i64} : !ACC after i32
  }
  func.return
}
