// RUN: tilec %s -p copy-strategy | filecheck %s
// RUN: tilec %s -p 'copy-strategy{realign=never}' | filecheck %s --check-prefix=NEVER
// RUN: tilec %s -p copy-strategy,tile --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p copy-strategy,tile | filecheck %s --check-prefix=TILE
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ-DEFAULT
// The copy-strategy pass chooses the realign strategy from the facts: rows (the last
// mode) contiguous in both views, one element type, each view's pointer a 16-byte
// aligned pointer moved by its misalignment (a scalar layout.addptr, as tilec.copy_
// states misaligned rows), and no 16-byte vectors on both sides for the tiled copy.
// The tile pass writes it as pointer tensors: aligned source vectors, layout.funnel_shift,
// aligned destination chunks. Results never change (every misalignment is a run-time
// value here, given by tilec.args).

// EQ: @misaligned_rows: equivalent after 'copy-strategy,tile'
// EQ: @dynamic_rows: equivalent after 'copy-strategy,tile'
// EQ: @backwards_rows: equivalent after 'copy-strategy,tile'
// EQ: @short_int64_rows: equivalent after 'copy-strategy,tile'
// EQ: @broadcast_rows: equivalent after 'copy-strategy,tile'
// EQ-DEFAULT: @misaligned_rows: equivalent after 'default'
// EQ-DEFAULT: @dynamic_rows: equivalent after 'default'
// EQ-DEFAULT: @backwards_rows: equivalent after 'default'
// EQ-DEFAULT: @short_int64_rows: equivalent after 'default'
// EQ-DEFAULT: @broadcast_rows: equivalent after 'default'

// Rows of 37 bytes at a pitch of 41 into a pitch of 39, both starts misaligned.
// CHECK-LABEL: func.func @misaligned_rows
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<realign>}
// NEVER-LABEL: func.func @misaligned_rows
// NEVER-NOT:     strategy
// NEVER-LABEL: func.func @dynamic_rows
// TILE-LABEL:  func.func @misaligned_rows
// TILE-NOT:      layout.view
// TILE:          layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(256)
// TILE:          layout.ptr_load %{{.*}} mask %{{.*}} -> tensor<256x16xi8
// TILE:          layout.funnel_shift %{{.*}}, %{{.*}}, %{{.*}} : tensor<256x16xi8
// TILE-NOT:      layout.copy
// TILE:          layout.ptr_store
// TILE-LABEL:  func.func @dynamic_rows
func.func @misaligned_rows(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 5 : index, dmis = 3 : index, src = 224 : index, dst = 208 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(5,37):(41,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(5,37):(39,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(5,37):(41,1)>, gmem>, !layout.tensor<i8, #layout.cute<(5,37):(39,1)>, gmem>
  func.return
}

// Run-time extents and strides, as tilec.copy_ states them (int16, three modes).
// CHECK-LABEL: func.func @dynamic_rows
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<realign>}
// TILE:          layout.funnel_shift %{{.*}}, %{{.*}}, %{{.*}} : tensor<256x8xi16
// TILE-LABEL:  func.func @backwards_rows
func.func @dynamic_rows(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i16, align 16>, %n0: index, %n1: index, %n2: index, %ss0: index, %ss1: index, %ds0: index, %ds1: index, %smis: index, %dmis: index) attributes {tilec.args = {n0 = 3 : index, n1 = 4 : index, n2 = 21 : index, ss0 = 100 : index, ss1 = 23 : index, ds0 = 90 : index, ds1 = 22 : index, smis = 7 : index, dmis = 1 : index, src = 320 : index, dst = 288 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<i16, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i16, align 16>, index
  %a = layout.view %sp(%n0, %n1, %n2, %ss0, %ss1) : !layout.ptr<i16> -> !layout.tensor<i16, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  %b = layout.view %dp(%n0, %n1, %n2, %ds0, %ds1) : !layout.ptr<i16> -> !layout.tensor<i16, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i16, #layout.cute<(?,?,?):(?,?,1)>, gmem>, !layout.tensor<i16, #layout.cute<(?,?,?):(?,?,1)>, gmem>
  func.return
}

// Source rows walked backwards (a negative outer stride, its view's pointer at the
// last row): offsets from the aligned pointers stay exact.
// CHECK-LABEL: func.func @backwards_rows
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<realign>}
// TILE-LABEL:  func.func @short_int64_rows
func.func @backwards_rows(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %dmis: index) attributes {tilec.args = {dmis = 2 : index, src = 84 : index, dst = 64 : index}} {
  %c61 = arith.constant 61 : index
  %sp = layout.addptr %src, %c61 : !layout.ptr<i32, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i32, align 16>, index
  %a = layout.view %sp : !layout.ptr<i32> -> !layout.tensor<i32, #layout.cute<(4,13):(-19,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<i32> -> !layout.tensor<i32, #layout.cute<(4,13):(15,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i32, #layout.cute<(4,13):(-19,1)>, gmem>, !layout.tensor<i32, #layout.cute<(4,13):(15,1)>, gmem>
  func.return
}

// Rows of 5 int64 into a pitch of 10 (40 bytes in 80): 8-byte chunks, two a thread.
// CHECK-LABEL: func.func @short_int64_rows
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<realign>}
// TILE:          layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(256)
// TILE:          layout.funnel_shift %{{.*}}, %{{.*}}, %{{.*}} : tensor<512x1xi64
// TILE-LABEL:  func.func @broadcast_rows
func.func @short_int64_rows(%src: !layout.ptr<i64, align 16>, %dst: !layout.ptr<i64, align 16>, %smis: index) attributes {tilec.args = {smis = 1 : index, src = 32 : index, dst = 60 : index}} {
  %c0 = arith.constant 0 : index
  %sp = layout.addptr %src, %smis : !layout.ptr<i64, align 16>, index
  %dp = layout.addptr %dst, %c0 : !layout.ptr<i64, align 16>, index
  %a = layout.view %sp : !layout.ptr<i64> -> !layout.tensor<i64, #layout.cute<(6,5):(5,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<i64> -> !layout.tensor<i64, #layout.cute<(6,5):(10,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i64, #layout.cute<(6,5):(5,1)>, gmem>, !layout.tensor<i64, #layout.cute<(6,5):(10,1)>, gmem>
  func.return
}

// One row broadcast along the outer mode into misaligned padded rows of long length
// (the gather rule leaves a padded dst).
// CHECK-LABEL: func.func @broadcast_rows
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<realign>}
// TILE:          layout.funnel_shift
func.func @broadcast_rows(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 9 : index, dmis = 14 : index, src = 112 : index, dst = 400 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(4,90):(0,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(4,90):(95,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(4,90):(0,1)>, gmem>, !layout.tensor<i8, #layout.cute<(4,90):(95,1)>, gmem>
  func.return
}
