// RUN: tilec %s -p 'copy-strategy{box=auto}' | filecheck %s
// RUN: tilec %s -p copy-strategy | filecheck %s
// RUN: tilec %s -p 'copy-strategy{box=never}' | filecheck %s --check-prefix=NEVER
// RUN: tilec %s -p 'copy-strategy{box=auto box_smem=1024}' | filecheck %s --check-prefix=SMALL
// RUN: tilec %s -p 'copy-strategy{box=auto}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ-DEFAULT
// RUN: not tilec %s -p 'copy-strategy{box=maybe}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not tilec %s -p 'copy-strategy{box=auto box_smem=512}' 2>&1 | filecheck %s --check-prefix=SMEM
// The copy-strategy pass chooses the box strategy (with box=auto) from the facts:
// 1-byte elements without conversion, the source contiguous along a short mode W taken
// whole (not a power of two) and the destination's contiguous mode D next in the
// source (flat: D long or a run-time extent; rows: D of 16 to 64 elements with the
// destination contiguous over D and the mode before it), or the mirror (cols: W long,
// D short, the destination contiguous over D then W). box=auto is the default; the
// tile pass lowers the strategy (tests/filecheck/tile/box.mlir). Results never change.

// OPTION: copy-strategy: box=maybe must be one of auto, never
// SMEM: copy-strategy: box_smem=512 must be at least 1024
// EQ: @flat: equivalent after 'copy-strategy{box=auto}'
// EQ: @flat_dynamic: equivalent after 'copy-strategy{box=auto}'
// EQ: @rows: equivalent after 'copy-strategy{box=auto}'
// EQ: @cols: equivalent after 'copy-strategy{box=auto}'
// EQ: @pow2_width: equivalent after 'copy-strategy{box=auto}'
// EQ: @two_bytes: equivalent after 'copy-strategy{box=auto}'
// EQ: @broadcast: equivalent after 'copy-strategy{box=auto}'
// EQ-DEFAULT: @flat: equivalent after 'default'
// EQ-DEFAULT: @flat_dynamic: equivalent after 'default'
// EQ-DEFAULT: @rows: equivalent after 'default'
// EQ-DEFAULT: @cols: equivalent after 'default'
// EQ-DEFAULT: @pow2_width: equivalent after 'default'
// EQ-DEFAULT: @two_bytes: equivalent after 'default'
// EQ-DEFAULT: @broadcast: equivalent after 'default'

// W = 7 (source stride 1) whole, D = 300 next in the source (stride 7): flat.
// CHECK-LABEL: func.func @flat
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<box<flat>>}
// NEVER-LABEL: func.func @flat
// NEVER-NOT:     strategy
// NEVER-LABEL: func.func @flat_dynamic
// SMALL-LABEL: func.func @flat
// SMALL:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<box<flat>>}
func.func @flat(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) attributes {tilec.args = {src = 3 : index, dst = 5 : index}} {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(7,300):(1,7)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(7,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(7,300):(1,7)>, gmem>, !layout.tensor<i8, #layout.cute<(7,300):(300,1)>, gmem>
  func.return
}

// D a run-time extent (as tilec.copy_ states a long one): flat.
// CHECK-LABEL: func.func @flat_dynamic
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<box<flat>>}
func.func @flat_dynamic(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %n: index) attributes {tilec.args = {n = 77 : index, src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src(%n) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(19,?):(1,19)>, gmem>
  %b = layout.view %dst(%n, %n) : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(19,?):(?,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(19,?):(1,19)>, gmem>, !layout.tensor<i8, #layout.cute<(19,?):(?,1)>, gmem>
  func.return
}

// W = 37, D = 17 whole by steps of K = 5 (destination stride 17): rows. Its two
// 16-byte-pitched slots of 37 x 17 bytes do not fit 1 KiB: no box (the gather rule takes it).
// CHECK-LABEL: func.func @rows
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<box<rows>>}
// SMALL-LABEL: func.func @rows
// SMALL:         {strategy = #layout.copy_strategy<gather>}
// SMALL-LABEL: func.func @cols
func.func @rows(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(37,5,17):(1,700,37)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(37,5,17):(85,17,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(37,5,17):(1,700,37)>, gmem>, !layout.tensor<i8, #layout.cute<(37,5,17):(85,17,1)>, gmem>
  func.return
}

// W = 100 long, D = 5 short, the destination contiguous over D then W: cols.
// CHECK-LABEL: func.func @cols
// CHECK:         layout.copy %{{.*}}, %{{.*}} {strategy = #layout.copy_strategy<box<cols>>}
func.func @cols(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(100,5):(1,100)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(100,5):(5,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(100,5):(1,100)>, gmem>, !layout.tensor<i8, #layout.cute<(100,5):(5,1)>, gmem>
  func.return
}

// W = 8, a power of two: the tiled copy pads nothing, no box.
// CHECK-LABEL: func.func @pow2_width
// CHECK-NOT:     box
// CHECK-LABEL: func.func @two_bytes
func.func @pow2_width(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(8,300):(1,8)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(8,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(8,300):(1,8)>, gmem>, !layout.tensor<i8, #layout.cute<(8,300):(300,1)>, gmem>
  func.return
}

// 2-byte elements, W of 14 bytes (under `_copy_cost.TILES_SHORT_RUN`): no box.
// CHECK-NOT:     box
// CHECK-LABEL: func.func @broadcast
func.func @two_bytes(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i16, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(7,300):(1,7)>, gmem>
  %b = layout.view %dst : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(7,300):(300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i16, #layout.cute<(7,300):(1,7)>, gmem>, !layout.tensor<i16, #layout.cute<(7,300):(300,1)>, gmem>
  func.return
}

// A source that broadcasts a mode: no box (the gather strategy's).
// CHECK-NOT:     box
func.func @broadcast(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) attributes {tilec.args = {src = 0 : index, dst = 0 : index}} {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(4,7,300):(0,1,7)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(4,7,300):(2100,300,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(4,7,300):(0,1,7)>, gmem>, !layout.tensor<i8, #layout.cute<(4,7,300):(2100,300,1)>, gmem>
  func.return
}
