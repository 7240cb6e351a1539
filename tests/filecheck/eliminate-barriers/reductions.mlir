// RUN: tilec %s -p 'choose-warps,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize,eliminate-barriers' | filecheck %s
// RUN: tilec %s -p 'choose-warps,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize,eliminate-barriers' --check-equivalence --arg m=3 | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'choose-warps,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize,eliminate-barriers' -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p 'choose-warps,coalesce,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize,eliminate-barriers{enabled=false}' | filecheck %s --check-prefix=OFF
// OFF-LABEL: "gpu.module"() <{sym_name = "two_reductions_kernels"}>
// OFF:         scf.for
// OFF-COUNT-4:     gpu.barrier
// OFF:         scf.yield
// EQ: @two_reductions: equivalent after
// EQ: @one_reduction: equivalent after
// `eliminate-barriers` on a loop of two dependent row reductions a trip (softmax's
// first loop without its running max: the max of the chunk, then the sum of
// exp(x - max)), each lowered to a write of its partials to its own shared buffer
// between two barriers and a read: 4 barriers a trip. The barrier before each write is
// redundant (the other reduction's barriers separate it from the previous reads of its
// buffer, on this trip or the one before); the two after the writes stay (the reads
// that follow touch what was written). The reference executor, which checks shared
// memory for races between barriers, runs the result equal.
#a = #layout.auto<{rank = 2, warps = 4}>
#r = #layout.slice<{dim = 1, parent = #a}>
!G = !layout.tensor<f32, #layout.cute<(?,5000):(5000,1)>, gmem>
!T = !layout.tensor<f32, #layout.cute<(1,1024):(5000,1)>, gmem, masked>
!O = !layout.tensor<f32, #layout.cute<(?,1):(1,1)>, gmem>
!OT = !layout.tensor<f32, #layout.cute<(1,1):(1,1)>, gmem, masked>

// CHECK-LABEL: "gpu.module"() <{sym_name = "two_reductions_kernels"}>
// CHECK:         %red = memref.alloca() : memref<4xf32, 3 : i64>
// CHECK:         %red_1 = memref.alloca() : memref<4xf32, 3 : i64>
// CHECK:         scf.for
// CHECK-NOT:       gpu.barrier
// CHECK:           memref.store %{{.*}}, %red_1
// CHECK-NOT:       memref.load
// CHECK:           gpu.barrier
// CHECK:           memref.load %red_1
// CHECK-NOT:       gpu.barrier
// CHECK:           memref.store %{{.*}}, %red
// CHECK-NOT:       memref.load
// CHECK:           gpu.barrier
// CHECK:           memref.load %red
// CHECK-NOT:       gpu.barrier
// CHECK:           scf.yield
// CUDA-LABEL: two_reductions_kernel(
// CUDA:         for (
// CUDA-COUNT-2:   __syncthreads();
// CUDA-NOT:       __syncthreads();
// CUDA:         }
func.func @two_reductions(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
  %a = layout.view %src(%m) : !layout.ptr<f32, align 16> -> !G
  %b = layout.view %dst(%m) : !layout.ptr<f32, align 16> -> !O
  %c1 = arith.constant 1 : index
  layout.launch grid(%m, %c1, %c1) threads(auto) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    %q0 = layout.splat %zero : f32 -> tensor<1xf32, #r>
    %lo = arith.constant 0 : index
    %hi = arith.constant 5 : index
    %one = arith.constant 1 : index
    %q = scf.for %j = %lo to %hi step %one iter_args(%acc = %q0) -> (tensor<1xf32, #r>) {
      %t = layout.tile %a[%bx, %j] {tile = array<i64: 1, 1024>} : !G -> !T
      %x = layout.load %t, %ninf : f32 : !T -> tensor<1x1024xf32, #a>
      %mx = layout.reduce %x {axis = 1 : i64, kind = "max"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %me = layout.expand_dims %mx {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
      %mb = layout.broadcast %me : tensor<1x1xf32, #a> -> tensor<1x1024xf32, #a>
      %d = arith.subf %x, %mb : tensor<1x1024xf32, #a>
      %e = math.exp %d : tensor<1x1024xf32, #a>
      %s = layout.reduce %e {axis = 1 : i64, kind = "add"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.mulf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %qe = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %to = layout.tile %b[%bx, %lo] {tile = array<i64: 1, 1>} : !O -> !OT
    layout.store %qe, %to : tensor<1x1xf32, #a>, !OT
  }
  func.return
}

// One reduction a trip: the barrier before its write stays (the previous trip's reads
// of the same partials are separated from it by no other barrier), as does the one after.
// CHECK-LABEL: "gpu.module"() <{sym_name = "one_reduction_kernels"}>
// CHECK:         scf.for
// CHECK:           gpu.barrier
// CHECK:           memref.store %{{.*}}, %red
// CHECK:           gpu.barrier
// CHECK:           memref.load %red
// CHECK:           scf.yield
func.func @one_reduction(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %m: index) {
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
      %s = layout.reduce %x {axis = 1 : i64, kind = "add"} : tensor<1x1024xf32, #a> -> tensor<1xf32, #r>
      %n = arith.addf %acc, %s : tensor<1xf32, #r>
      scf.yield %n : tensor<1xf32, #r>
    }
    %qe = layout.expand_dims %q {axis = 1 : i64} : tensor<1xf32, #r> -> tensor<1x1xf32, #a>
    %to = layout.tile %b[%bx, %lo] {tile = array<i64: 1, 1>} : !O -> !OT
    layout.store %qe, %to : tensor<1x1xf32, #a>, !OT
  }
  func.return
}
