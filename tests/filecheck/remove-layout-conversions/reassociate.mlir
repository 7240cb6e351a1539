// RUN: tilec %s -p 'remove-layout-conversions{reassociate=true}' | filecheck %s
// RUN: not tilec %s -p 'remove-layout-conversions{reassociate=true}' --check-equivalence 2>&1 | filecheck %s --check-prefix=EQ
// With reassociate=true a float sum may run in another layout: the conversion moves
// after the reduction (128 elements move instead of 4096). The sums then differ in
// their last bits, which is what the option allows: the equivalence check says so.

// EQ: @before_reduce_add is not equivalent after 'remove-layout-conversions{reassociate=true}' (seed 0): buffer %q differs at flat index {{[0-9]+}}

#A = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#C = #layout.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#SC = #layout.slice<{dim = 1, parent = #C}>
!H1 = !layout.tensor<f32, #layout.cute<(128):(1)>, gmem>
!H2 = !layout.tensor<f32, #layout.cute<(128,32):(32,1)>, gmem>

// CHECK-LABEL: func.func @before_reduce_add
// CHECK:         %[[V:.*]] = layout.load
// CHECK-NEXT:    %[[R:.*]] = layout.reduce %[[V]] {axis = 1 : i64, kind = "add"} : tensor<128x32xf32, #layout.blocked<{sizePerThread = [1, 4]
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[R]]
// CHECK-NEXT:    layout.store %[[W]]
func.func @before_reduce_add(%p: !layout.ptr<f32>, %q: !layout.ptr<f32>) {
  %a = layout.view %p : !layout.ptr<f32> -> !H2
  %b = layout.view %q : !layout.ptr<f32> -> !H1
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.load %a : !H2 -> tensor<128x32xf32, #A>
    %w = layout.convert_layout %v : tensor<128x32xf32, #A> -> tensor<128x32xf32, #C>
    %r = layout.reduce %w {axis = 1 : i64, kind = "add"} : tensor<128x32xf32, #C> -> tensor<128xf32, #SC>
    layout.store %r, %b : tensor<128xf32, #SC>, !H1
  }
  func.return
}
