// RUN: tilec %s -p "coarsen-grid{min_waves=0}" | filecheck %s
// An sm_80 module: its Target states no DRAM bandwidth or latency, so the bytes a
// multiprocessor needs in flight are unknown and every launch is left as it is.

// CHECK-LABEL: func.func @round_trip
// CHECK-NOT:     scf.for
// CHECK:         func.return
!G = !layout.tensor<f32, #layout.cute<(32,64):(64,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(16,16):(64,1)>, gmem>
!S = !layout.tensor<f32, #layout.cute<(16,16):(16,1)>, smem>
builtin.module attributes {tilec.target = "sm_80"} {
  func.func @round_trip(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) {
    %a = layout.view %src : !layout.ptr<f32, align 16> -> !G
    %b = layout.view %dst : !layout.ptr<f32, align 16> -> !G
    %gx = arith.constant 4 : index
    %gy = arith.constant 2 : index
    %c1 = arith.constant 1 : index
    layout.launch grid(%gx, %gy, %c1) threads(64) {
    ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
      %ta = layout.tile %a[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
      %tb = layout.tile %b[%by, %bx] {tile = array<i64: 16, 16>} : !G -> !T
      %s = layout.alloc : !S
      layout.copy %ta, %s : !T, !S
      layout.barrier
      layout.copy %s, %tb : !S, !T
    }
    func.return
  }
}
