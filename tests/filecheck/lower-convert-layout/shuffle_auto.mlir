// RUN: tilec %s -p lower-convert-layout | filecheck %s
// RUN: tilec %s -p 'lower-convert-layout{shuffle=off}' | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p lower-convert-layout --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @within_warps: equivalent after
// EQ: @across_warps: equivalent after
// EQ: @sender_selects: equivalent after
// EQ: @in_loop: equivalent after
// shuffle=auto (the default): lower-to-gpu lowers warp shuffles (the `lowering` property),
// so a conversion that stays within each warp is lowered the cheaper way by the
// estimate of instructions per thread (shuffles + selects + compares against shared
// stores + loads, times their bank ways, + 20 per barrier); here shuffles win. One that
// crosses warps still goes through shared memory (no estimate: nothing to choose).

#R = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#LS = #layout.linear<{register = [], lane = [[2], [1], [4], [8], [16]], warp = [[32], [64]], block = []}>
#WS = #layout.linear<{register = [], lane = [[1], [2], [4], [8], [32]], warp = [[16], [64]], block = []}>
#P = #layout.linear<{register = [[1]], lane = [[2], [4], [8], [16], [32]], warp = [], block = []}>
#Q = #layout.linear<{register = [[1]], lane = [[5], [2], [8], [16], [32]], warp = [], block = []}>
!G = !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>
!H = !layout.tensor<f16, #layout.cute<(64):(1)>, gmem>

// CHECK-LABEL: func.func @within_warps
// CHECK-NOT:     layout.alloc
// CHECK:         layout.convert_layout %{{.*}} {shuffle_cost = 1 : i64, smem_cost = 22 : i64, lowering = "shuffle"}
// CHECK:         func.return
// OFF-LABEL:   func.func @within_warps
// OFF:           layout.alloc
// OFF:           layout.store {{.*}} {bank_conflicts = 0 : i64, lowering = "smem", shuffle_cost = 1 : i64, smem_cost = 22 : i64}
// OFF-NOT:       layout.convert_layout
// OFF:           func.return
func.func @within_warps(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G -> tensor<128xf32, #R>
    %w = layout.convert_layout %v : tensor<128xf32, #R> -> tensor<128xf32, #LS>
    layout.store %w, %b : tensor<128xf32, #LS>, !G
  }
  func.return
}

// Lane bit 4 and warp bit 0 trade places: data crosses warps.
// CHECK-LABEL: func.func @across_warps
// CHECK:         layout.alloc
// CHECK:         layout.store {{.*}} {bank_conflicts = 0 : i64}
// CHECK-NOT:     layout.convert_layout
// CHECK:         func.return
func.func @across_warps(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G -> tensor<128xf32, #R>
    %w = layout.convert_layout %v : tensor<128xf32, #R> -> tensor<128xf32, #WS>
    layout.store %w, %b : tensor<128xf32, #WS>, !G
  }
  func.return
}

// Selects do not always tip the balance: lanes 0 and 1 swap and a reader with lane bit 0
// set wants the other register; 2 shuffles, a select per shuffle on the sender's side
// and 1 compare (5) against 1 two-element store + 2 loads + a barrier (23).
// CHECK-LABEL: func.func @sender_selects
// CHECK-NOT:     layout.alloc
// CHECK:         layout.convert_layout %{{.*}} {shuffle_cost = 5 : i64, smem_cost = 23 : i64, lowering = "shuffle"}
// CHECK:         func.return
func.func @sender_selects(%p: !layout.ptr<f16>, %q: !layout.ptr<f16>) {
  %a = layout.view %p : !layout.ptr<f16> -> !H
  %b = layout.view %q : !layout.ptr<f16> -> !H
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !H -> tensor<64xf16, #P>
    %w = layout.convert_layout %v : tensor<64xf16, #P> -> tensor<64xf16, #Q>
    layout.store %w, %b : tensor<64xf16, #Q>, !H
  }
  func.return
}

// In a loop the round trip needs two barriers (the next write must wait for this
// iteration's reads): 1 + 1 + 2 x 20 = 42 against 1 shuffle.
// CHECK-LABEL: func.func @in_loop
// CHECK-NOT:     layout.alloc
// CHECK:         scf.for
// CHECK:           layout.convert_layout %{{.*}} {shuffle_cost = 1 : i64, smem_cost = 42 : i64, lowering = "shuffle"}
// OFF-LABEL:   func.func @in_loop
// OFF:           layout.alloc
// OFF:           scf.for
// OFF:             layout.barrier
// OFF-NEXT:        layout.store {{.*}} {bank_conflicts = 0 : i64, lowering = "smem", shuffle_cost = 1 : i64, smem_cost = 42 : i64}
// OFF-NEXT:        layout.barrier
func.func @in_loop(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G
  %b = layout.view %q : !layout.ptr<f32> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %init = arith.constant dense<0.0> : tensor<128xf32, #LS>
    %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<128xf32, #LS>) {
      %v = layout.load %a : !G -> tensor<128xf32, #R>
      %w = layout.convert_layout %v : tensor<128xf32, #R> -> tensor<128xf32, #LS>
      %s = arith.addf %acc, %w : tensor<128xf32, #LS>
      scf.yield %s : tensor<128xf32, #LS>
    }
    layout.store %r, %b : tensor<128xf32, #LS>, !G
  }
  func.return
}
