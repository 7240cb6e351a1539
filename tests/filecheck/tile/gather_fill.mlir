// RUN: tilec %s -p 'copy-strategy{gather_fill=1},tile{gather_fill=2048}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{gather_fill=1},tile{threads=32 gather_fill=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{gather_fill=1},tile{threads=64 gather_fill=1}' --check-equivalence --seed 3 | filecheck %s --check-prefix=EQ
// The gather strategy's fill form (`tile{gather_fill=N}`, `_fill_tile.fill_launch`): a source
// broadcast along the outermost mode into a compact destination; each thread computes one
// of the destination's distinct 16-byte vectors once (its elements' places in the period
// decomposed, loaded one by one) and stores it every NT vectors in a loop, the last partial
// vector element-wise. bf16 (17, 3) repeated 41 times with each element 3 times (32's
// pattern: 2091 elements, 261 whole vectors by 102 threads in 3 trips at `gather_fill=1`),
// u8 rows of 3 (44's: 9003 elements, not a multiple of 16), f32 rows of 5 under a column
// broadcast, an int16 row broadcast of whole vectors. Results never change.

// EQ: @rep3: equivalent after
// EQ: @rows3: equivalent after
// EQ: @mixed: equivalent after
// EQ: @whole: equivalent after

// CHECK-LABEL: func.func @rep3
// CHECK:         layout.launch
// CHECK:         layout.ptr_load
// CHECK:         scf.for
// CHECK:           layout.ptr_store
// CHECK:         }
// CHECK:         layout.ptr_store
// CHECK-LABEL: func.func @rows3
// CHECK-LABEL: func.func @mixed
// CHECK-LABEL: func.func @whole
// CHECK:         scf.for
// CHECK:           layout.ptr_store
// CHECK-NOT:     layout.ptr_store
// CHECK:         func.return
func.func @rep3(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) {
  %a = layout.view %src : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(41,17,3):(0,1,0)>, gmem>
  %b = layout.view %dst : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(41,17,3):(51,3,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<bf16, #layout.cute<(41,17,3):(0,1,0)>, gmem>, !layout.tensor<bf16, #layout.cute<(41,17,3):(51,3,1)>, gmem>
  func.return
}
func.func @rows3(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3001,3):(0,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3001,3):(3,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(3001,3):(0,1)>, gmem>, !layout.tensor<i8, #layout.cute<(3001,3):(3,1)>, gmem>
  func.return
}
func.func @mixed(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(6,4,5):(0,1,0)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(6,4,5):(20,5,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(6,4,5):(0,1,0)>, gmem>, !layout.tensor<f32, #layout.cute<(6,4,5):(20,5,1)>, gmem>
  func.return
}
func.func @whole(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i16, align 16>) {
  %a = layout.view %src : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(9,40):(0,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(9,40):(40,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i16, #layout.cute<(9,40):(0,1)>, gmem>, !layout.tensor<i16, #layout.cute<(9,40):(40,1)>, gmem>
  func.return
}
// Run-time extents (copy_'s programs): U, P, N, the trips and the thread of the partial
// vector computed on the host, the divisions of the content by magic multipliers; with
// 32-bit offsets promised and with 64-bit ones.
// CHECK-LABEL: func.func @dyn32
// CHECK:         layout.launch
// CHECK:         scf.for
// CHECK-LABEL: func.func @dyn64
// CHECK:         scf.for
// EQ: @dyn32: equivalent after
// EQ: @dyn64: equivalent after
func.func @dyn32(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>, %n0: index, %n1: index, %n2: index) attributes {tilec.index_bits = 32 : i64, tilec.args = {n0 = 41 : index, n1 = 17 : index, n2 = 3 : index, src = 17 : index, dst = 2091 : index}} {
  %0 = arith.muli %n1, %n2 : index
  %a = layout.view %src(%n0, %n1, %n2) : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(?,?,?):(0,1,0)>, gmem>
  %b = layout.view %dst(%n0, %n1, %n2, %0, %n2) : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<bf16, #layout.cute<(?,?,?):(0,1,0)>, gmem>, !layout.tensor<bf16, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}
func.func @dyn64(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %n0: index, %n1: index, %n2: index) attributes {tilec.args = {n0 = 501 : index, n1 = 3 : index, n2 = 7 : index, src = 3 : index, dst = 10521 : index}} {
  %0 = arith.muli %n1, %n2 : index
  %a = layout.view %src(%n0, %n1, %n2) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,?,?):(0,1,0)>, gmem>
  %b = layout.view %dst(%n0, %n1, %n2, %0, %n2) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(?,?,?):(0,1,0)>, gmem>, !layout.tensor<i8, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}
