// RUN: tilec %s -p copy-strategy | filecheck %s
// RUN: tilec %s -p copy-strategy,tile --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p copy-strategy,tile | filecheck %s --check-prefix=TILE
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ-DEFAULT
// The copy-strategy pass chooses the gather strategy from the facts (a compact dst, a
// short odd last mode or a broadcast of 2 bytes or more, the src sectors used well);
// the tile pass writes it as pointer tensors. Results never change.

// EQ: @nchw_to_nhwc_c3: equivalent after 'copy-strategy,tile'
// EQ: @row_broadcast: equivalent after 'copy-strategy,tile'
// EQ: @dynamic_c3: equivalent after 'copy-strategy,tile'
// EQ: @dynamic_c3_bound: equivalent after 'copy-strategy,tile'
// EQ: @transpose: equivalent after 'copy-strategy,tile'
// EQ: @padded_rows: equivalent after 'copy-strategy,tile'
// EQ: @dynamic_padded_rows: equivalent after 'copy-strategy,tile'
// EQ-DEFAULT: @nchw_to_nhwc_c3: equivalent after 'default'
// EQ-DEFAULT: @row_broadcast: equivalent after 'default'
// EQ-DEFAULT: @dynamic_c3: equivalent after 'default'
// EQ-DEFAULT: @dynamic_c3_bound: equivalent after 'default'
// EQ-DEFAULT: @transpose: equivalent after 'default'
// EQ-DEFAULT: @padded_rows: equivalent after 'default'
// EQ-DEFAULT: @dynamic_padded_rows: equivalent after 'default'

// NCHW -> NHWC with C = 3: the tile would pad 3 channels to 4; the gather walks the dst.
// CHECK-LABEL: func.func @nchw_to_nhwc_c3
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<gather>}
// TILE-LABEL:  func.func @nchw_to_nhwc_c3
// TILE:          layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(256)
// TILE:          layout.ptr_load
// TILE-NOT:      layout.copy
// TILE:          layout.ptr_store
// TILE-LABEL:  func.func @row_broadcast
func.func @nchw_to_nhwc_c3(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(2,10,3):(30,1,10)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(2,10,3):(30,3,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(2,10,3):(30,1,10)>, gmem>, !layout.tensor<f32, #layout.cute<(2,10,3):(30,3,1)>, gmem>
  func.return
}

// A row broadcast into a compact dst.
// CHECK-LABEL: func.func @row_broadcast
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<gather>}
func.func @row_broadcast(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i16, align 16>) {
  %a = layout.view %src : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(7,40):(0,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(7,40):(40,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i16, #layout.cute<(7,40):(0,1)>, gmem>, !layout.tensor<i16, #layout.cute<(7,40):(40,1)>, gmem>
  func.return
}

// The same facts stated for run-time values, as tilec.copy_ states them for a copy
// its rule gathers: the last extent exactly 3 (at most 3 and a multiple of 3), the
// dst's strides the products of the extents (compact).
// CHECK-LABEL: func.func @dynamic_c3
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<gather>}
func.func @dynamic_c3(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %n0: index, %n1: index, %n2: index, %ss0: index, %ss2: index) attributes {tilec.args = {n0 = 2 : index, n1 = 10 : index, n2 = 3 : index, ss0 = 30 : index, ss2 = 10 : index, src = 60 : index, dst = 60 : index}} {
  %d1 = arith.muli %n2, %n1 : index
  %a = layout.view %src(%n0, %n1, %n2, %ss0, %ss2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>
  %b = layout.view %dst(%n0, %n1, %n2, %d1, %n2) {divisible = array<i64: 1, 1, 3, 1, 1>, at_most = array<i64: 0, 0, 3, 0, 0>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}

// The last extent only bounded (at most 4): it may be 4, a power of two the tile does
// not pad, and how the gather's runs wrap is not known: no strategy.
// CHECK-LABEL: func.func @dynamic_c3_bound
// CHECK:         layout.copy %{{.*}}, %{{.*}} :
// CHECK-NOT:     strategy
func.func @dynamic_c3_bound(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %n0: index, %n1: index, %n2: index, %ss0: index, %ss2: index) attributes {tilec.args = {n0 = 2 : index, n1 = 10 : index, n2 = 3 : index, ss0 = 30 : index, ss2 = 10 : index, src = 60 : index, dst = 60 : index}} {
  %d1 = arith.muli %n2, %n1 : index
  %a = layout.view %src(%n0, %n1, %n2, %ss0, %ss2) {at_most = array<i64: 0, 0, 4, 0, 0>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>
  %b = layout.view %dst(%n0, %n1, %n2, %d1, %n2) {at_most = array<i64: 0, 0, 4, 0, 0>} : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(?,?,?):(?,1,?)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}

// A transpose of long modes keeps no strategy: the tile pass tiles it.
// CHECK-LABEL: func.func @transpose
// CHECK:         layout.copy %{{.*}}, %{{.*}} :
// CHECK-NOT:     strategy
func.func @transpose(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(96,80):(1,96)>, gmem>
  %b = layout.view %dst : !layout.ptr<f32, align 16> -> !layout.tensor<f32, #layout.cute<(96,80):(80,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f32, #layout.cute<(96,80):(1,96)>, gmem>, !layout.tensor<f32, #layout.cute<(96,80):(80,1)>, gmem>
  func.return
}

// Rows of 259 bytes broadcast from one row into a compact dst (the strided set's case
// 20): the tile would pad each row to 512; the gather walks the dst.
// CHECK-LABEL: func.func @padded_rows
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<gather>}
func.func @padded_rows(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(9,259):(0,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(9,259):(259,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(9,259):(0,1)>, gmem>, !layout.tensor<i8, #layout.cute<(9,259):(259,1)>, gmem>
  func.return
}

// The same as tilec.copy_ states it: the row's extent exactly (at most and divisible by
// 259), the dst's stride the row's extent; a row of 500 (97% of 512) would stay tiled.
// CHECK-LABEL: func.func @dynamic_padded_rows
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<gather>}
func.func @dynamic_padded_rows(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %n0: index, %n1: index) attributes {tilec.args = {n0 = 9 : index, n1 = 259 : index, src = 259 : index, dst = 2331 : index}} {
  %a = layout.view %src(%n0, %n1) {at_most = array<i64: 0, 259>, divisible = array<i64: 1, 259>} : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,?):(0,1)>, gmem>
  %b = layout.view %dst(%n0, %n1, %n1) {at_most = array<i64: 0, 259, 0>, divisible = array<i64: 1, 259, 1>} : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(?,?):(0,1)>, gmem>, !layout.tensor<i8, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}
