// RUN: tilec %s -p sink-reductions | filecheck %s
// RUN: tilec %s -p 'sink-reductions{exact=true}' | filecheck %s --check-prefix=EXACT
// RUN: tilec %s -p 'sink-reductions{max_per_thread=0}' | filecheck %s --check-prefix=OFF
// RUN: tilec %s -p 'sink-reductions{exact=true}' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'sink-reductions,choose-warps,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize' -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @sum_of_squares: equivalent after
// `sink-reductions`: RMSNorm's first loop (`q = q + reduce(x * x, add)`) carries the
// squares unreduced, `P = P + x * x` a trip from a splat of -0.0, and reduces once after
// the loop, folding the result into the initial value: the reduce and its barriers leave
// the loop (the CUDA loop has no __syncthreads). A float add is reordered, so the
// executor's bitwise --check-equivalence holds only with `{exact=true}`, which keeps
// it in the loop (as `{max_per_thread=0}` sinks nothing); the sunk sum is checked
// against the unsunk one within `sum_reorder_bound` in tests/unit/test_sink_reductions.py.
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>

// CHECK-LABEL: func.func @sum_of_squares
// CHECK:         %[[ID:.*]] = arith.constant -0.000000e+00 : f32
// CHECK:         %part0 = layout.splat %[[ID]] : f32 -> tensor<1x1024xf32, #layout.auto<{rank = 2, warps = 4}>>
// CHECK:         %k, %[[L:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%c = %lo, %part = %part0)
// CHECK-NOT:       layout.reduce
// CHECK:           %x2 = arith.mulf
// CHECK:           %part_next = arith.addf %part, %x2 : tensor<1x1024xf32, #layout.auto<{rank = 2, warps = 4}>>
// CHECK:           scf.yield %{{.*}}, %part_next
// CHECK:         %sunk = layout.reduce %[[L]] {axis = 1 : i64, kind = "add"}
// CHECK:         %[[Q:.*]] = arith.addf %q0, %sunk : tensor<1xf32, #layout.slice<{dim = 1, parent = #layout.auto<{rank = 2, warps = 4}>}>>
// CHECK:         layout.expand_dims %[[Q]]
// EXACT-LABEL: func.func @sum_of_squares
// EXACT:         scf.for
// EXACT:           layout.reduce
// EXACT:           arith.addf
// OFF-LABEL:   func.func @sum_of_squares
// OFF:           scf.for
// OFF:             layout.reduce
// CUDA-LABEL: sum_of_squares_kernel(
// CUDA:         for (
// CUDA-NOT:       __syncthreads
// CUDA:         }
// CUDA:         __syncthreads
func.func @sum_of_squares(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
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
    %k:2 = scf.for %j = %lo to %hi step %one iter_args(%c = %lo, %acc = %q0) -> (index, tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %x2 = arith.mulf %x, %x : tensor<1x1024xf32, #a>
      %s = layout.reduce %x2 {axis = 1 : i64, kind = "add"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.addf %acc, %s : tensor<1xf32, #r>
      %c2 = arith.addi %c, %one : index
      scf.yield %c2, %n : index, tensor<1xf32, #r>
    }
    %e = layout.expand_dims %k#1 {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %qb = layout.broadcast %e : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
    scf.for %j = %lo to %hi step %one {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %zero : f32 : !T -> tensor<1x1024xf32, #a>
      %y = arith.mulf %x, %qb : tensor<1x1024xf32, #a>
      %to = layout.tile %b[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      layout.store %y, %to : tensor<1x1024xf32, #a>, !T
    }
  }
  func.return
}
