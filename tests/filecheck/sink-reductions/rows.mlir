// RUN: tilec %s --split-input-file -p sink-reductions | filecheck %s
// RUN: tilec %s --split-input-file -p sink-reductions --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s --split-input-file -p 'sink-reductions{exact=true}' | filecheck %s --check-prefix=EXACT
// RUN: tilec %s --split-input-file -p 'sink-reductions,choose-warps,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s --split-input-file -p 'sink-reductions,choose-warps,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @running_max: equivalent after
// EQ: @int_sum: equivalent after
// EQ: @acc_read_in_loop: equivalent after
// `sink-reductions` on the kinds exact in any order (max, min, integer add): bit for bit
// the loop as written, also lowered to the GPU level.
// A running max (softmax's first statistic written on its own) is sunk too, and stays
// bit for bit: max is exact in any order. The carried tensor starts at -inf.
// CHECK-LABEL: func.func @running_max
// CHECK:         %{{[0-9]+}} = arith.constant 0xff800000 : f32
// CHECK:         scf.for
// CHECK-NOT:       layout.reduce
// CHECK:           %part_next = arith.maximumf %part, %{{.*}} : tensor<1x1024xf32, #layout.auto<{rank = 2, warps = 4}>>
// CHECK:         %sunk = layout.reduce %{{.*}} {axis = 1 : i64, kind = "max"}
// CHECK:         arith.maximumf %sunk, %q0
// EXACT-LABEL: func.func @running_max
// EXACT:           %part_next = arith.maximumf
// EXACT:         %sunk = layout.reduce
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
!O = !layout.tensor<f32, #layout.cute<(?,1):(1,1)>, gmem>
!OT = !layout.tensor<f32, #layout.cute<(1,1):(1,1)>, gmem, masked>
func.func @running_max(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !O
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ninf = arith.constant 0xFF800000 : f32
    %q0 = layout.splat %ninf : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %ninf : f32 : !T -> tensor<1x1024xf32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.maximumf %s, %acc : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %to = layout.tile %b[%bx, %lo] {tile = array<i64: 1, 1>} : !O -> !OT
    layout.store %e, %to : tensor<1x1xf32, #a>, !OT
  }
  func.return
}

// -----
// An integer sum is exact in any order (modular): sunk, the carried tensor starts at 0.
// CHECK-LABEL: func.func @int_sum
// CHECK:         %{{[0-9]+}} = arith.constant 0 : i32
// CHECK:         scf.for
// CHECK-NOT:       layout.reduce
// CHECK:           %part_next = arith.addi %part, %{{.*}} : tensor<1x1024xi32, #layout.auto<{rank = 2, warps = 4}>>
// CHECK:         %sunk = layout.reduce %{{.*}} {axis = 1 : i64, kind = "add"}
// CHECK:         arith.addi %q0, %sunk
// EXACT-LABEL: func.func @int_sum
// EXACT:           %part_next = arith.addi
// EXACT:         %sunk = layout.reduce
// CUDA-LABEL: int_sum_kernel(
// CUDA:         for (
// CUDA-NOT:       __syncthreads
// CUDA:         }
// CUDA:         __syncthreads
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<i32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<i32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
!O = !layout.tensor<i32, #layout.cute<(?,1):(1,1)>, gmem>
!OT = !layout.tensor<i32, #layout.cute<(1,1):(1,1)>, gmem, masked>
func.func @int_sum(%src: !layout.ptr<i32, align 16>, %dst: !layout.ptr<i32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<i32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<i32, align 16> -> !O
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %zero = arith.constant 0 : i32
    %q0 = layout.splat %zero : i32 -> tensor<1xi32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xi32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : i32 : !T -> tensor<1x1024xi32, #a>
      %s = layout.reduce %x {axis = 1 : i64, kind = "add"} : tensor<1x1024xi32, #a> -> tensor<1xi32, #r>
      %n = arith.addi %acc, %s : tensor<1xi32, #r>
      scf.yield %n : tensor<1xi32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xi32, #r> -> tensor<1x1xi32, #a>
    %to = layout.tile %b[%bx, %lo] {tile = array<i64: 1, 1>} : !O -> !OT
    layout.store %e, %to : tensor<1x1xi32, #a>, !OT
  }
  func.return
}

// -----
// Not sunk: the accumulator is read in the loop besides its fold (an online softmax's
// running max is; here the trip's values are shifted by it).
// CHECK-LABEL: func.func @acc_read_in_loop
// CHECK:         scf.for
// CHECK:           layout.reduce
// CHECK:           arith.addf
// CHECK:         layout.expand_dims
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
!O = !layout.tensor<f32, #layout.cute<(?,1):(1,1)>, gmem>
!OT = !layout.tensor<f32, #layout.cute<(1,1):(1,1)>, gmem, masked>
func.func @acc_read_in_loop(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !O
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
      %ae = layout.expand_dims %acc {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
      %ab = layout.broadcast %ae : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
      %xs = arith.mulf %x, %ab : tensor<1x1024xf32, #a>
      %s = layout.reduce %xs {axis = 1 : i64, kind = "add"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.addf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %e = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %to = layout.tile %b[%bx, %lo] {tile = array<i64: 1, 1>} : !O -> !OT
    layout.store %e, %to : tensor<1x1xf32, #a>, !OT
  }
  func.return
}
