// RUN: tilec %s -p 'lower-convert-layout{shuffle=off}' | filecheck %s
// RUN: tilec %s -p 'lower-convert-layout{shuffle=on}' | filecheck %s --check-prefix=SHFL
// RUN: tilec %s -p lower-convert-layout | filecheck %s --check-prefix=AUTO
// RUN: tilec %s -p 'lower-convert-layout{shuffle=off smem_layout=plain}' | filecheck %s --check-prefix=PLAIN
// RUN: tilec %s -p 'lower-convert-layout{shuffle=off}' --check-equivalence | filecheck %s --check-prefix=EQ
// EQ: @register: equivalent after
// EQ: @shuffle: equivalent after
// EQ: @padded: equivalent after
// What moves decides the lowering: registers only, lanes of a warp, or warps. Within a
// warp, shuffle=auto (the default) takes the cheaper of shuffles and a shared-memory
// round trip by the estimate of instructions per thread; the conversion, or the round
// trip's store, records the choice and both estimates (shuffle=on/off force a lowering
// and still record them).

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [0, 1]}>
#B = #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [0, 1]}>
#R = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#V = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#VP = #layout.linear<{register = [[256], [512]], lane = [[1], [2], [4], [8], [16]], warp = [[32], [64]], block = []}>
#VR = #layout.linear<{register = [[2], [1]], lane = [[4], [8], [16], [32], [64]], warp = [[128], [256]], block = []}>
#LS = #layout.linear<{register = [], lane = [[2], [1], [4], [8], [16]], warp = [[32], [64]], block = []}>
!G = !layout.tensor<f16, #layout.cute<(32,32):(32,1)>, gmem>
!G1 = !layout.tensor<f32, #layout.cute<(512):(1)>, gmem>
!G2 = !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>

// Registers are renamed inside each thread: the conversion stays for lower-to-gpu.
// CHECK-LABEL: func.func @register
// CHECK:         layout.convert_layout %{{.*}} {lowering = "register"}
// CHECK-NOT:     layout.alloc
// CHECK:         func.return
// AUTO-LABEL:  func.func @register
// AUTO-NOT:      layout.alloc
// AUTO:          layout.convert_layout %{{.*}} {lowering = "register"}
// AUTO:          func.return
func.func @register(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G1
  %b = layout.view %q : !layout.ptr<f32> -> !G1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G1 -> tensor<512xf32, #V>
    %w = layout.convert_layout %v : tensor<512xf32, #V> -> tensor<512xf32, #VR>
    layout.store %w, %b : tensor<512xf32, #VR>, !G1
  }
  func.return
}

// Lanes 2k and 2k+1 swap elements: one shuffle, no select (1 per thread) against a
// store, a load and a barrier (1 + 1 + 20): shuffles win under auto. shuffle=off still
// goes through shared memory.
// CHECK-LABEL: func.func @shuffle
// CHECK:         layout.alloc : !layout.tensor<f32, #layout.cute<(128):(1)>, smem>
// CHECK:         layout.store {{.*}} {bank_conflicts = 0 : i64, lowering = "smem", shuffle_cost = 1 : i64, smem_cost = 22 : i64}
// CHECK-NEXT:    layout.barrier
// CHECK-NEXT:    layout.load {{.*}} {bank_conflicts = 0 : i64}
// SHFL-LABEL:  func.func @shuffle
// SHFL-NOT:      layout.alloc
// SHFL:          layout.convert_layout %{{.*}} {shuffle_cost = 1 : i64, smem_cost = 22 : i64, lowering = "shuffle"}
// AUTO-LABEL:  func.func @shuffle
// AUTO-NOT:      layout.alloc
// AUTO:          layout.convert_layout %{{.*}} {shuffle_cost = 1 : i64, smem_cost = 22 : i64, lowering = "shuffle"}
// AUTO-NOT:      layout.barrier
// AUTO:          func.return
func.func @shuffle(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !G2
  %b = layout.view %q : !layout.ptr<f32> -> !G2
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G2 -> tensor<128xf32, #R>
    %w = layout.convert_layout %v : tensor<128xf32, #R> -> tensor<128xf32, #LS>
    layout.store %w, %b : tensor<128xf32, #LS>, !G2
  }
  func.return
}

// f16: 8-byte rows written, read in 2x4 blocks. Each thread's registers are renamed
// first (a register conversion, no data moves: `register_orders`) so that 8 of them lie
// side by side in a swizzled tile: 16-byte writes, 2-element reads, conflict-free both
// ways (before the renaming: 4-element writes, 1-element reads through a padded tile).
// Only lanes of a warp move here, but shuffles cost 16 shuffles, 112 selects (a sender
// picks one of 8 registers per round) and 7 compares per thread: 135, against 44 for
// shared memory (its stores, loads and a barrier). Shared memory wins under auto.
// CHECK-LABEL: func.func @padded
// CHECK:         %[[S:.*]] = layout.alloc : !layout.tensor<f16, #layout.composed<swizzle<3,3,4> o 0 o (32,32):(1,32)>, smem>
// CHECK:         %[[R:.*]] = layout.convert_layout %v {lowering = "register"} : {{.*}} -> tensor<32x32xf16, #layout.linear<{register = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 1], [0, 2]]
// CHECK-NEXT:    layout.store %[[R]], %[[S]] {bank_conflicts = 0 : i64, lowering = "smem", shuffle_cost = 135 : i64, smem_cost = 44 : i64, vector = 8 : i64}
// CHECK-NEXT:    layout.barrier
// CHECK-NEXT:    layout.load %[[S]] {bank_conflicts = 0 : i64, vector = 2 : i64}
// SHFL-LABEL:  func.func @padded
// SHFL-NOT:      layout.alloc
// SHFL:          layout.convert_layout %{{.*}} {shuffle_cost = 135 : i64, smem_cost = 44 : i64, lowering = "shuffle"}
// AUTO-LABEL:  func.func @padded
// AUTO:          %[[S:.*]] = layout.alloc : !layout.tensor<f16, #layout.composed<swizzle<3,3,4> o 0 o (32,32):(1,32)>, smem>
// AUTO:          layout.convert_layout %v {lowering = "register"}
// AUTO-NEXT:     layout.store %{{.*}}, %[[S]] {bank_conflicts = 0 : i64, lowering = "smem", shuffle_cost = 135 : i64, smem_cost = 44 : i64, vector = 8 : i64}
// AUTO-NEXT:     layout.barrier
// AUTO-NEXT:     layout.load %[[S]] {bank_conflicts = 0 : i64, vector = 2 : i64}
// AUTO-NOT:      layout.convert_layout
// AUTO:          func.return
// The plain tile's read is 2-way: 16 loads count twice (84).
// PLAIN-LABEL: func.func @padded
// PLAIN:         %[[S:.*]] = layout.alloc : !layout.tensor<f16, #layout.cute<(32,32):(32,1)>, smem>
// PLAIN:         layout.store %{{.*}}, %[[S]] {bank_conflicts = 0 : i64, lowering = "smem", shuffle_cost = 135 : i64, smem_cost = 84 : i64, vector = 4 : i64}
// PLAIN:         layout.load %[[S]] {bank_conflicts = 1 : i64
func.func @padded(%p: !layout.ptr<f16>, %q: !layout.ptr<f16>) {
  %a = layout.view %p : !layout.ptr<f16> -> !G
  %b = layout.view %q : !layout.ptr<f16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !G -> tensor<32x32xf16, #A>
    %w = layout.convert_layout %v : tensor<32x32xf16, #A> -> tensor<32x32xf16, #B>
    layout.store %w, %b : tensor<32x32xf16, #B>, !G
  }
  func.return
}
