// Pointer tensors lowered: each register's pointer is an index offset into the
// argument the pointers point into (layout_ptr.pointer_root), so loops, selects and
// shape ops move them as any register. --check-equivalence runs the CPU reference
// executor before and after; -t cuda is compiled by NVRTC in CI.
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p vectorize-pointers,lower-to-gpu | filecheck %s
// RUN: tilec %s --run cpu | filecheck %s --check-prefix=CPU

// EQ: @loop: equivalent after 'default'
// EQ: @broadcast_rows: equivalent after 'default'
// EQ: @scalar_base: equivalent after 'default'
// CPU: %src: 2048 x float32 (input)
// CPU: %dst: 512 x float32 (output) {{.*}} every element written

#b = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#sx = #layout.slice<{dim = 1, parent = #b}>
#sy = #layout.slice<{dim = 0, parent = #b}>
!P = tensor<16x32x!layout.ptr<f32>, #b>
!I = tensor<16x32xi32, #b>
!F = tensor<16x32xf32, #b>

// The sum of the 4 row blocks of a 64x32 matrix in a loop that moves the pointers
// (Triton's `a_ptrs += BLOCK * stride`), negative sums replaced by the first block's
// element (a select between pointers into one argument), stored transposed.
// CHECK-LABEL: sym_name = "loop_kernels"
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, index, index, index, index)
// CHECK: vector.load %src
// CHECK: arith.select {{.*}} : index
// CUDA-LABEL: loop_kernel(
// CUDA: for (long long
// CUDA: reinterpret_cast<const f32x4*>(src
func.func @loop(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) attributes {tilec.args = {src = 2048 : index, dst = 512 : index}} {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %ax = layout.arange {start = 0 : i64, end = 16 : i64} : tensor<16xi32, #sx>
    %ay = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #sy>
    %r1 = layout.expand_dims %ax {axis = 1 : i64} : tensor<16xi32, #sx> -> tensor<16x1xi32, #b>
    %c1r = layout.expand_dims %ay {axis = 0 : i64} : tensor<32xi32, #sy> -> tensor<1x32xi32, #b>
    %r = layout.broadcast %r1 : tensor<16x1xi32, #b> -> !I
    %c = layout.broadcast %c1r : tensor<1x32xi32, #b> -> !I
    %ld = arith.constant dense<32> : !I
    %rs = arith.muli %r, %ld : !I
    %offs = arith.addi %rs, %c : !I
    %p0 = layout.splat %src : !layout.ptr<f32, align 16> -> !P
    %p = layout.addptr %p0, %offs : !P, !I
    %zero = arith.constant dense<0.0> : !F
    %step = arith.constant dense<512> : !I
    %lo = arith.constant 0 : index
    %hi = arith.constant 4 : index
    %one = arith.constant 1 : index
    %acc, %pend = scf.for %k = %lo to %hi step %one iter_args(%a = %zero, %q = %p) -> (!F, !P) {
      %v = layout.ptr_load %q : !P -> !F
      %a2 = arith.addf %a, %v : !F
      %q2 = layout.addptr %q, %step : !P, !I
      scf.yield %a2, %q2 : !F, !P
    }
    %neg = layout.cmpf olt, %acc, %zero : !F
    %which = layout.select %neg, %p, %pend : tensor<16x32xi1, #b>, !P
    %back = arith.constant dense<-2048> : !I
    %w = layout.addptr %which, %back : !P, !I
    %first = layout.ptr_load %p : !P -> !F
    %res = layout.select %neg, %first, %acc : tensor<16x32xi1, #b>, !F
    %ld2 = arith.constant dense<16> : !I
    %cs = arith.muli %c, %ld2 : !I
    %toffs = arith.addi %cs, %r : !I
    %d0 = layout.splat %dst : !layout.ptr<f32, align 16> -> !P
    %d = layout.addptr %d0, %toffs : !P, !I
    layout.ptr_store %res, %d : !F, !P
  }
  func.return
}

// A 1-D row of pointers expanded to a 4x32 tile whose rows the layout spreads over
// warps: every warp holds the same row, and only warp 0 stores it.
// CHECK-LABEL: sym_name = "broadcast_rows_kernels"
// CHECK: vector.load %src
// CUDA-LABEL: broadcast_rows_kernel(
// CUDA: reinterpret_cast<const f32x4*>(src
#row = #layout.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#rs = #layout.slice<{dim = 0, parent = #row}>
func.func @broadcast_rows(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) attributes {tilec.args = {src = 128 : index, dst = 128 : index}} {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %i = layout.arange {start = 0 : i64, end = 128 : i64} : tensor<128xi32, #rs>
    %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<128x!layout.ptr<f32>, #rs>
    %q = layout.addptr %p, %i : tensor<128x!layout.ptr<f32>, #rs>, tensor<128xi32, #rs>
    %e = layout.expand_dims %q {axis = 0 : i64} : tensor<128x!layout.ptr<f32>, #rs> -> tensor<1x128x!layout.ptr<f32>, #row>
    %v = layout.ptr_load %e : tensor<1x128x!layout.ptr<f32>, #row> -> tensor<1x128xf32, #row>
    %d = layout.splat %dst : !layout.ptr<f32, align 16> -> tensor<128x!layout.ptr<f32>, #rs>
    %dq = layout.addptr %d, %i : tensor<128x!layout.ptr<f32>, #rs>, tensor<128xi32, #rs>
    %de = layout.expand_dims %dq {axis = 0 : i64} : tensor<128x!layout.ptr<f32>, #rs> -> tensor<1x128x!layout.ptr<f32>, #row>
    layout.ptr_store %v, %de : tensor<1x128xf32, #row>, tensor<1x128x!layout.ptr<f32>, #row>
  }
  func.return
}

// `x_ptr += pid * stride` on a scalar pointer, then a tensor of offsets from it.
// CHECK-LABEL: sym_name = "scalar_base_kernels"
// CHECK: arith.muli {{.*}} : i64
// CHECK: arith.index_cast {{.*}} : i64 to index
#one = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
func.func @scalar_base(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) attributes {tilec.args = {src = 128 : index, dst = 128 : index}} {
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c4, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %row = arith.index_cast %bx : index to i64
    %stride = arith.constant 32 : i64
    %o = arith.muli %row, %stride : i64
    %s = layout.addptr %src, %o : !layout.ptr<f32, align 16>, i64
    %ps = layout.splat %s : !layout.ptr<f32> -> tensor<32x!layout.ptr<f32>, #one>
    %i = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #one>
    %qs = layout.addptr %ps, %i : tensor<32x!layout.ptr<f32>, #one>, tensor<32xi32, #one>
    %v = layout.ptr_load %qs : tensor<32x!layout.ptr<f32>, #one> -> tensor<32xf32, #one>
    %d = layout.addptr %dst, %o : !layout.ptr<f32, align 16>, i64
    %pd = layout.splat %d : !layout.ptr<f32> -> tensor<32x!layout.ptr<f32>, #one>
    %qd = layout.addptr %pd, %i : tensor<32x!layout.ptr<f32>, #one>, tensor<32xi32, #one>
    layout.ptr_store %v, %qd : tensor<32xf32, #one>, tensor<32x!layout.ptr<f32>, #one>
  }
  func.return
}
