// Identity tensors (CuTe's make_identity_tensor): the coordinates a thread reads are
// index arithmetic of its block and thread ids, no memory. Each case copies a matrix
// whose extents its tiles do not divide, each element guarded by `coordinate < shape`
// as CuTe's predication does; the reference executor refuses any access past the
// tensor, so an equivalent run proves the predicates right.
// RUN: tilec %s -p default --check-equivalence --arg m=70 --arg n=45 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default | filecheck %s --check-prefix=LOWERED
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @ragged: equivalent after 'default'
// EQ: @dynamic: equivalent after 'default'
// EQ: @rows: equivalent after 'default'
// EQ: @tv: equivalent after 'default'
// LOWERED-NOT: make_identity_tensor
// LOWERED-NOT: read_coord

// The coordinate of element i of thread tid's fragment: (32 bx + tid % 8 + 8 (i % 4),
// 32 by + tid / 8 + 4 (i / 4)), compared with (100, 103).
// CHECK-LABEL: ragged_kernel(
// CHECK: for (int i = 0; i < 32; ++i) {
// CHECK: < 100;
// CHECK: < 103;
// CHECK-NOT: identity
!G = !layout.tensor<f32, #layout.cute<(100,103):(103,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(32,32):(103,1)>, gmem, masked>
!F = !layout.tensor<f32, #layout.cute<(4,8):(824,4)>, gmem, masked>
!C = !layout.tensor<tuple<index, index>, #layout.cute<(100,103):(1,100)>, coord>
!CT = !layout.tensor<tuple<index, index>, #layout.cute<(32,32):(1,100)>, coord, masked>
!CF = !layout.tensor<tuple<index, index>, #layout.cute<(4,8):(8,400)>, coord, masked>
func.func @ragged(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !G
  %B = layout.view %b : !layout.ptr<f32> -> !G
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %M = arith.constant 100 : index
  %N = arith.constant 103 : index
  layout.launch grid(%c4, %c4, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c = layout.make_identity_tensor : !C
    %ta = layout.tile %A[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %tb = layout.tile %B[%bx, %by] {tile = array<i64: 32, 32>} : !G -> !T
    %tc = layout.tile %c[%bx, %by] {tile = array<i64: 32, 32>} : !C -> !CT
    %fa = layout.distribute %ta, %tid {threads = #layout.cute<(8,4):(1,8)>} : !T -> !F
    %fb = layout.distribute %tb, %tid {threads = #layout.cute<(8,4):(1,8)>} : !T -> !F
    %fc = layout.distribute %tc, %tid {threads = #layout.cute<(8,4):(1,8)>} : !CT -> !CF
    scf.for %i = %c0 to %c32 step %c1 {
      %m, %n = layout.read_coord %fc[%i] : !CF -> index, index
      %pm = arith.cmpi slt, %m, %M : index
      %pn = arith.cmpi slt, %n, %N : index
      %p = arith.andi %pm, %pn : i1
      scf.if %p {
        %x = layout.read %fa[%i] : !F -> f32
        layout.write %x, %fb[%i] : f32, !F
      }
    }
  }
  func.return
}

// Run-time extents: the identity tensor of (m, n) made in the host function, tiles of
// 16x8, two elements per thread, a coordinate per mode (`%fc[%r, %s]`).
// CHECK-LABEL: dynamic_kernel(
// CHECK-SAME: long long m, long long n
!DG = !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
!DT = !layout.tensor<f32, #layout.cute<(16,8):(?,1)>, gmem, masked>
!DC = !layout.tensor<tuple<index, index>, #layout.cute<(?,?):(1,?)>, coord>
!DCT = !layout.tensor<tuple<index, index>, #layout.cute<(16,8):(1,?)>, coord, masked>
!DCF = !layout.tensor<tuple<index, index>, #layout.cute<(2,1):(8,?)>, coord, masked>
!DF = !layout.tensor<f32, #layout.cute<(2,1):(?,8)>, gmem, masked>
func.func @dynamic(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>, %m: index, %n: index) {
  %A = layout.view %a(%m, %n, %n) : !layout.ptr<f32> -> !DG
  %B = layout.view %b(%m, %n, %n) : !layout.ptr<f32> -> !DG
  %c = layout.make_identity_tensor(%m, %n) : !DC
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  layout.launch grid(%c5, %c6, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ta = layout.tile %A[%bx, %by] {tile = array<i64: 16, 8>} : !DG -> !DT
    %tb = layout.tile %B[%bx, %by] {tile = array<i64: 16, 8>} : !DG -> !DT
    %tc = layout.tile %c[%bx, %by] {tile = array<i64: 16, 8>} : !DC -> !DCT
    %fa = layout.distribute %ta, %tid {threads = #layout.cute<(8,8):(1,8)>} : !DT -> !DF
    %fb = layout.distribute %tb, %tid {threads = #layout.cute<(8,8):(1,8)>} : !DT -> !DF
    %fc = layout.distribute %tc, %tid {threads = #layout.cute<(8,8):(1,8)>} : !DCT -> !DCF
    scf.for %r = %c0 to %c2 step %c1 {
      scf.for %s = %c0 to %c1 step %c1 {
        %i, %j = layout.read_coord %fc[%r, %s] : !DCF -> index, index
        %pm = arith.cmpi slt, %i, %m : index
        %pn = arith.cmpi slt, %j, %n : index
        %p = arith.andi %pm, %pn : i1
        scf.if %p {
          %x = layout.read %fa[%r, %s] : !DF -> f32
          layout.write %x, %fb[%r, %s] : f32, !DF
        }
      }
    }
  }
  func.return
}

// A slice of the identity tensor (CuTe's cA(_, n)): row `by` of a 40x9 matrix, its
// elements in order; thread t copies element (t, by) where t < 40.
// CHECK-LABEL: rows_kernel(
!RG = !layout.tensor<f32, #layout.cute<(40,9):(9,1)>, gmem>
!RS = !layout.tensor<f32, #layout.cute<40:9>, gmem>
!RC = !layout.tensor<tuple<index, index>, #layout.cute<(40,9):(1,40)>, coord>
!RCS = !layout.tensor<tuple<index, index>, #layout.cute<40:1>, coord>
func.func @rows(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !RG
  %B = layout.view %b : !layout.ptr<f32> -> !RG
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %c40 = arith.constant 40 : index
  layout.launch grid(%c1, %c9, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c = layout.make_identity_tensor : !RC
    %row = layout.slice %c[_, %by] : !RC -> !RCS
    %sa = layout.slice %A[_, %by] : !RG -> !RS
    %sb = layout.slice %B[_, %by] : !RG -> !RS
    %lim = arith.constant 39 : index
    %t = arith.minui %tid, %lim : index
    %i, %j = layout.read_coord %row[%t] : !RCS -> index, index
    %pi = arith.cmpi eq, %i, %tid : index
    %pj = arith.cmpi eq, %j, %by : index
    %p = arith.andi %pi, %pj : i1
    scf.if %p {
      %x = layout.read %sa[%i] : !RS -> f32
      layout.write %x, %sb[%i] : f32, !RS
    }
  }
  func.return
}

// A thread-value partition (CuTe's partition_C(cC)) of a 16x8 identity tensor: thread
// (t0, t1) of 4x8 holds rows t0 + 4 v of column t1; each copies its elements at the
// coordinates it reads (the executor reports an output element left unwritten).
// CHECK-LABEL: tv_kernel(
!VG = !layout.tensor<f32, #layout.cute<(16,8):(8,1)>, gmem>
!VC = !layout.tensor<tuple<index, index>, #layout.cute<(16,8):(1,16)>, coord>
!VP = !layout.tensor<tuple<index, index>, #layout.cute<4:4>, coord>
func.func @tv(%a: !layout.ptr<f32>, %b: !layout.ptr<f32>) {
  %A = layout.view %a : !layout.ptr<f32> -> !VG
  %B = layout.view %b : !layout.ptr<f32> -> !VG
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c = layout.make_identity_tensor : !VC
    %p = layout.partition %c, %tid {tv = #layout.cute<((4,8),4):((1,16),4)>} : !VC -> !VP
    scf.for %v = %c0 to %c4 step %c1 {
      %m, %n = layout.read_coord %p[%v] : !VP -> index, index
      %x = layout.read %A[%m, %n] : !VG -> f32
      layout.write %x, %B[%m, %n] : f32, !VG
    }
  }
  func.return
}
