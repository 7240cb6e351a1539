// RUN: tilec %s -p 'copy-strategy{gather=always},tile{threads=32 inbounds=1}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{gather=always},tile{threads=32 inbounds=1}' --check-equivalence --seed 3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{gather=always},tile{threads=32 inbounds=1 narrow32=0}' --check-equivalence --seed 5 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{gather=always},tile{threads=32 inbounds=1 magic64=1}' --check-equivalence --seed 7 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{gather=always},tile{threads=32}' | filecheck %s --check-prefix=OFF
// The tile pass's `inbounds=1`: a gather copy loads its source elements unmasked (no
// mask operand on `layout.ptr_load`), every offset in bounds by construction: the ids of
// runs past the end clamped to the last element (`arith.minsi` of the run's first id and
// count - 1), a wrapped element of the last row read from its own row (the carry taken
// as 0: a `layout.select` of the last row's test); the stores keep the element mask.
// Executor-exact on a broadcast (the source 5 x 37 elements, the count 2220 not a
// multiple of a block), a permuted source (every mode strided) and run-time extents of
// 32 and 64-bit offsets; the source buffers hold exactly the view's span, so a read past
// them fails the check. Off by default (`_gather_tile.inbounds_rule`): masked loads (OFF).

// EQ: @bcast: equivalent after
// EQ: @perm: equivalent after
// EQ: @c3: equivalent after
// EQ: @c3_64: equivalent after

// CHECK-LABEL: func.func @bcast
// CHECK:         layout.launch
// CHECK:           arith.minsi
// CHECK:           layout.select
// CHECK:           layout.ptr_load %{{[^ ]*}} :
// CHECK:           layout.ptr_store %{{[^ ]*}}, %{{[^ ]*}} mask %{{[^ ]*}} :
// OFF-LABEL: func.func @bcast
// OFF:           layout.ptr_load %{{[^ ]*}} mask %{{[^ ]*}} :
func.func @bcast(%src: !layout.ptr<bf16, align 16>, %dst: !layout.ptr<bf16, align 16>) attributes {tilec.args = {src = 185 : index, dst = 2220 : index}} {
  %a = layout.view %src : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(3,5,4,37):(0,37,0,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<bf16, align 16> -> !layout.tensor<bf16, #layout.cute<(3,5,4,37):(740,148,37,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<bf16, #layout.cute<(3,5,4,37):(0,37,0,1)>, gmem>, !layout.tensor<bf16, #layout.cute<(3,5,4,37):(740,148,37,1)>, gmem>
  func.return
}
// CHECK-LABEL: func.func @perm
// CHECK:           layout.ptr_load %{{[^ ]*}} :
func.func @perm(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i16, align 16>) attributes {tilec.args = {src = 1365 : index, dst = 1365 : index}} {
  %a = layout.view %src : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(7,5,39):(5,1,35)>, gmem>
  %b = layout.view %dst : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(7,5,39):(195,39,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i16, #layout.cute<(7,5,39):(5,1,35)>, gmem>, !layout.tensor<i16, #layout.cute<(7,5,39):(195,39,1)>, gmem>
  func.return
}
// CHECK-LABEL: func.func @c3
// CHECK:           layout.ptr_load %{{[^ ]*}} :
func.func @c3(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32>, %n0: index, %n1: index, %n2: index, %ss0: index, %ss2: index, %ds0: index, %ds1: index) attributes {tilec.index_bits = 32 : i64, tilec.args = {n0 = 2 : index, n1 = 97 : index, n2 = 3 : index, ss0 = 291 : index, ss2 = 97 : index, ds0 = 291 : index, ds1 = 3 : index, src = 582 : index, dst = 582 : index}} {
  %0 = arith.muli %n1, %n2 : index
  %a = layout.view %src(%n0, %n1, %n2, %ss0, %ss2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>
  %b = layout.view %dst(%n0, %n1, %n2, %0, %n2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}
// CHECK-LABEL: func.func @c3_64
// CHECK:           layout.ptr_load %{{[^ ]*}} :
func.func @c3_64(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32>, %n0: index, %n1: index, %n2: index, %ss0: index, %ss2: index, %ds0: index, %ds1: index) attributes {tilec.args = {n0 = 2 : index, n1 = 97 : index, n2 = 3 : index, ss0 = 291 : index, ss2 = 97 : index, ds0 = 291 : index, ds1 = 3 : index, src = 582 : index, dst = 582 : index}} {
  %0 = arith.muli %n1, %n2 : index
  %a = layout.view %src(%n0, %n1, %n2, %ss0, %ss2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>
  %b = layout.view %dst(%n0, %n1, %n2, %0, %n2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}
