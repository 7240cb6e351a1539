// RUN: tilec %s -p copy-strategy | filecheck %s
// RUN: tilec %s -p copy-strategy --check-equivalence | filecheck %s --check-prefix=EQ
// A copy the box rule would take but for a negative stride (a grid mode walked
// backwards) keeps another strategy: a box reads and writes its runs forwards.

// EQ: @negative: equivalent after 'copy-strategy'

// CHECK-LABEL: func.func @negative
// CHECK-NOT:     box
// CHECK:         func.return
func.func @negative(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) attributes {tilec.args = {src = 6300 : index, dst = 6300 : index}} {
  %c = arith.constant 4200 : index
  %sp = layout.addptr %src, %c : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(3,7,300):(-2100,1,7)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3,7,300):(2100,300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(3,7,300):(-2100,1,7)>, gmem>, !layout.tensor<i8, #layout.cute<(3,7,300):(2100,300,1)>, gmem>
  func.return
}
