// RUN: tilec %s -p lower-convert-layout | filecheck %s
// RUN: tilec %s -p 'lower-convert-layout{shuffle=off}' | filecheck %s --check-prefix=OFF
// shuffle=auto (the default): lower-to-gpu lowers warp shuffles (SHUFFLE_CONVERSIONS),
// so a conversion that stays within each warp keeps no shared memory; one that crosses
// warps still goes through shared memory.

#R = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#LS = #layout.linear<{register = [], lane = [[2], [1], [4], [8], [16]], warp = [[32], [64]], block = []}>
#WS = #layout.linear<{register = [], lane = [[1], [2], [4], [8], [32]], warp = [[16], [64]], block = []}>
!G = !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>

// CHECK-LABEL: func.func @within_warps
// CHECK-NOT:     layout.alloc
// CHECK:         layout.convert_layout %{{.*}} {lowering = "shuffle"}
// CHECK:         func.return
// OFF-LABEL:   func.func @within_warps
// OFF:           layout.alloc
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
