// RUN: tilec %s --split-input-file -p 'reread-order{cache_hints=true}' | filecheck %s
// RUN: tilec %s --split-input-file -p 'reread-order{cache_hints=true}' --check-equivalence --arg m=1 | filecheck %s --check-prefix=EQ
// EQ: @huge_row: equivalent after
// EQ: @no_l2_facts: equivalent after
// `reread-order{cache_hints}` leaves unhinted what L2 cannot help. A row larger than the target's L2 (2^24 f32, 64 MiB, in
// 256 chunks of 64 Ki; sm_90: 50 MiB) cannot stay there between its reads: no hints
// (the second loop is still reversed).
// CHECK-LABEL: func.func @huge_row
// CHECK-NOT:     cache =
// CHECK:         arith.subi
// CHECK-NOT:     cache =
// CHECK:         func.return
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,16777216):(16777216,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,65536):(16777216,1)>, gmem, masked>
func.func @huge_row(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f32
    %q0 = layout.splat %zero : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 256 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 65536>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x65536xf32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x65536xf32, #a> -> tensor<1xf32, #r>
      %n = arith.maximumf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x65536xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 65536>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x65536xf32, #a>
      %y = arith.subf %x, %qb : tensor<1x65536xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 65536>} : !G -> !T
      layout.store %y, %to : tensor<1x65536xf32, #a>, !T
    }
  }
  func.return
}

// -----

// A target whose L2 tilec does not know (sm_86): no hints.
// CHECK-LABEL: func.func @no_l2_facts
// CHECK-NOT:     cache =
// CHECK:         func.return
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
module attributes {tilec.target = "sm_86"} {
func.func @no_l2_facts(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !G
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0.0 : f32
    %q0 = layout.splat %zero : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.maximumf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %y = arith.subf %x, %qb : tensor<1x1024xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      layout.store %y, %to : tensor<1x1024xf32, #a>, !T
    }
  }
  func.return
}
}
