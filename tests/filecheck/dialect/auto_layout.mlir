// `#layout.auto`: a distributed layout left open for `coalesce`; round trip in custom and
// generic form, and on a distributed tensor and a slice of one.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s

// CHECK-LABEL: func.func private @auto_2d()
// CHECK-SAME: l = #layout.auto<{rank = 2, warps = 4}>
func.func private @auto_2d() attributes {l = #layout.auto<{rank = 2, warps = 4}>}

// Fields in either order.
// CHECK-LABEL: func.func private @auto_fields()
// CHECK-SAME: l = #layout.auto<{rank = 1, warps = 32}>
func.func private @auto_fields() attributes {l = #layout.auto<{warps = 32, rank = 1}>}

// CHECK-LABEL: func.func private @auto_slice()
// CHECK-SAME: l = #layout.slice<{dim = 1, parent = #layout.auto<{rank = 2, warps = 8}>}>
func.func private @auto_slice() attributes {l = #layout.slice<{dim = 1, parent = #layout.auto<{rank = 2, warps = 8}>}>}

// CHECK-LABEL: func.func @auto_tensor
// CHECK:         layout.reduce %{{.*}} : tensor<4x256xf32, #layout.auto<{rank = 2, warps = 2}>> -> tensor<4xf32, #layout.slice<{dim = 1, parent = #layout.auto<{rank = 2, warps = 2}>}>>
func.func @auto_tensor(%p: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(4,256):(256,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !layout.tensor<f32, #layout.cute<(4,256):(256,1)>, gmem> -> tensor<4x256xf32, #layout.auto<{rank = 2, warps = 2}>>
    %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<4x256xf32, #layout.auto<{rank = 2, warps = 2}>> -> tensor<4xf32, #layout.slice<{dim = 1, parent = #layout.auto<{rank = 2, warps = 2}>}>>
  }
  func.return
}

// `threads(auto)`: the block's threads left to the compiler (`choose-warps`); until then
// 128 threads, its layouts `#layout.auto` over 4 warps.
// CHECK-LABEL: func.func @open_threads
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(auto) {
// CHECK:         tensor<4x256xf32, #layout.auto<{rank = 2, warps = 4}>>
func.func @open_threads(%p: !layout.ptr<f32, align 16>) {
  %a = layout.view %p : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(4,256):(256,1)>, gmem>
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !layout.tensor<f32, #layout.cute<(4,256):(256,1)>, gmem> -> tensor<4x256xf32, #layout.auto<{rank = 2, warps = 4}>>
    %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<4x256xf32, #layout.auto<{rank = 2, warps = 4}>> -> tensor<4xf32, #layout.slice<{dim = 1, parent = #layout.auto<{rank = 2, warps = 4}>}>>
  }
  func.return
}
