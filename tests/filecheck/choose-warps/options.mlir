// RUN: tilec %s -p 'choose-warps{bytes=64}' | filecheck %s
// RUN: tilec %s -p 'choose-warps{max_warps=4}' | filecheck %s --check-prefix=MAX
// RUN: tilec %s -p 'choose-warps{bytes=64}' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'choose-warps{max_warps=3}' 2>&1 | filecheck %s --check-prefix=ERR
// RUN: tilec %s -p 'choose-warps,coalesce' --print-between-passes 2>&1 | filecheck %s --check-prefix=SHOW
// EQ: @rows: equivalent after
// ERR: choose-warps: bytes=32 must be positive and max-warps=3 a power of two in [1, 32]
// The rule's options: `bytes` per thread (64: a 16 KiB tile gets 4 warps, not 8) and
// `max-warps`; the choice shows in --print-between-passes as the launch's threads.
// SHOW: // -----// IR after choose-warps //----- //
// SHOW: layout.launch grid(%m, %c1, %c1) threads(256) {
// SHOW: // -----// IR after coalesce //----- //
// SHOW: tensor<1x4096xf32, #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 8], order = [1, 0]}>>
#a = #layout.auto<{rank = 2, warps = 4}>
!G = !layout.tensor<f32, #layout.cute<(?,4000):(4000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,4096):(4000,1)>, gmem, masked>

// CHECK-LABEL: func.func @rows
// CHECK:         layout.launch grid(%m, %c1, %c1) threads(128) {
// MAX-LABEL: func.func @rows
// MAX:         layout.launch grid(%m, %c1, %c1) threads(128) {
func.func @rows(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %ta = layout.tile %a[%bx, %c0] {tile = array<i64: 1, 4096>} : !G -> !T
    %tb = layout.tile %b[%bx, %c0] {tile = array<i64: 1, 4096>} : !G -> !T
    %z = arith.constant 0.0 : f32
    %x = layout.load %ta, %z : f32 : !T -> tensor<1x4096xf32, #a>
    layout.store %x, %tb : tensor<1x4096xf32, #a>, !T
  }
  func.return
}
