// vectorize-pointers: the AxisInfo analysis (contiguity, divisibility, constancy of the
// addresses and masks, as Triton's) gives each ptr_load / ptr_store its vector width;
// the CPU reference executor checks the claims (contiguous, aligned vectors, masks
// uniform over a vector) in --check-equivalence, and the CUDA moves 16-byte vectors.
// RUN: tilec %s -p vectorize-pointers | filecheck %s
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA

// EQ: @contiguous: equivalent after 'default'
// EQ: @align8: equivalent after 'default'
// EQ: @align_element: equivalent after 'default'
// EQ: @strided: equivalent after 'default'
// EQ: @f16_eight: equivalent after 'default'
// EQ: @f32_eight: equivalent after 'default'
// EQ: @masked_constant_n: equivalent after 'default'
// EQ: @masked_unknown_n: equivalent after 'default'
// EQ: @masked_promised_n: equivalent after 'default'

// 16-byte vectors: offsets = pid * 512 + arange(512), 4 f32 per thread, align 16
// CUDA-LABEL: contiguous_kernel(
// CUDA: const f32x4 v = *reinterpret_cast<const f32x4*>(src + [[O:t_[0-9]+]]);
// CUDA: *reinterpret_cast<f32x4*>(dst + [[O]]) = v;
// CHECK-LABEL: func.func @contiguous(
// CHECK: layout.ptr_load %ip {vector = 4 : i64} :
// CHECK: layout.ptr_store %v, %op {vector = 4 : i64} :
func.func @contiguous(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) attributes {tilec.args = {src = 4096 : index, dst = 4096 : index}} {
  %g = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %bx : index to i32
    %blk = arith.constant 512 : i32
    %start = arith.muli %pid32, %blk : i32
    %idx = layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %s = layout.splat %start : i32 -> tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs0 = arith.addi %s, %idx : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %c0 = arith.constant dense<0> : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs = arith.addi %offs0, %c0 : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %ip = layout.addptr %p, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %v = layout.ptr_load %ip : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %q = layout.splat %dst : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %op = layout.addptr %q, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    layout.ptr_store %v, %op : tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  }
  func.return
}

// a pointer aligned to 8 bytes: vectors of 2
// CUDA-LABEL: align8_kernel(
// CUDA-COUNT-2: reinterpret_cast<const f32x2*>(src
// CHECK-LABEL: func.func @align8(
// CHECK: layout.ptr_load %ip {vector = 2 : i64} :
// CHECK: layout.ptr_store %v, %op {vector = 2 : i64} :
func.func @align8(%src: !layout.ptr<f32, align 8>, %dst: !layout.ptr<f32, align 8>) attributes {tilec.args = {src = 4096 : index, dst = 4096 : index}} {
  %g = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %bx : index to i32
    %blk = arith.constant 512 : i32
    %start = arith.muli %pid32, %blk : i32
    %idx = layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %s = layout.splat %start : i32 -> tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs0 = arith.addi %s, %idx : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %c0 = arith.constant dense<0> : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs = arith.addi %offs0, %c0 : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %p = layout.splat %src : !layout.ptr<f32, align 8> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %ip = layout.addptr %p, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %v = layout.ptr_load %ip : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %q = layout.splat %dst : !layout.ptr<f32, align 8> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %op = layout.addptr %q, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    layout.ptr_store %v, %op : tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  }
  func.return
}

// a pointer aligned to its element only: scalars
// CUDA-LABEL: align_element_kernel(
// CUDA-NOT: reinterpret_cast
// CUDA: src[
// CHECK-LABEL: func.func @align_element(
// CHECK: layout.ptr_load %ip {vector = 1 : i64} :
// CHECK: layout.ptr_store %v, %op {vector = 1 : i64} :
func.func @align_element(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) attributes {tilec.args = {src = 4096 : index, dst = 4096 : index}} {
  %g = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %bx : index to i32
    %blk = arith.constant 512 : i32
    %start = arith.muli %pid32, %blk : i32
    %idx = layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %s = layout.splat %start : i32 -> tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs0 = arith.addi %s, %idx : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %c0 = arith.constant dense<0> : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs = arith.addi %offs0, %c0 : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %p = layout.splat %src : !layout.ptr<f32> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %ip = layout.addptr %p, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %v = layout.ptr_load %ip : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %q = layout.splat %dst : !layout.ptr<f32> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %op = layout.addptr %q, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    layout.ptr_store %v, %op : tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  }
  func.return
}

// offsets 2 * (pid * 512 + arange): not contiguous, scalars
// CUDA-LABEL: strided_kernel(
// CUDA-NOT: reinterpret_cast
// CUDA: src[
// CHECK-LABEL: func.func @strided(
// CHECK: layout.ptr_load %ip {vector = 1 : i64} :
// CHECK: layout.ptr_store %v, %op {vector = 1 : i64} :
func.func @strided(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) attributes {tilec.args = {src = 8192 : index, dst = 8192 : index}} {
  %g = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %bx : index to i32
    %blk = arith.constant 512 : i32
    %start = arith.muli %pid32, %blk : i32
    %idx = layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %s = layout.splat %start : i32 -> tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs0 = arith.addi %s, %idx : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %two = arith.constant dense<2> : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs = arith.muli %offs0, %two : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %ip = layout.addptr %p, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %v = layout.ptr_load %ip : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %q = layout.splat %dst : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %op = layout.addptr %q, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    layout.ptr_store %v, %op : tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  }
  func.return
}

// 8 f16 per thread: 16-byte vectors of 8
// CUDA-LABEL: f16_eight_kernel(
// CUDA: tilec_bitcast<f16x8>(*reinterpret_cast<const i32x4*>(src
// CHECK-LABEL: func.func @f16_eight(
// CHECK: layout.ptr_load %ip {vector = 8 : i64} :
// CHECK: layout.ptr_store %v, %op {vector = 8 : i64} :
func.func @f16_eight(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>) attributes {tilec.args = {src = 8192 : index, dst = 8192 : index}} {
  %g = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %bx : index to i32
    %blk = arith.constant 1024 : i32
    %start = arith.muli %pid32, %blk : i32
    %idx = layout.arange {start = 0 : i64, end = 1024 : i64} : tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %s = layout.splat %start : i32 -> tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs0 = arith.addi %s, %idx : tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %c0 = arith.constant dense<0> : tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs = arith.addi %offs0, %c0 : tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %p = layout.splat %src : !layout.ptr<f16, align 16> -> tensor<1024x!layout.ptr<f16>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %ip = layout.addptr %p, %offs : tensor<1024x!layout.ptr<f16>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %v = layout.ptr_load %ip : tensor<1024x!layout.ptr<f16>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<1024xf16, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %q = layout.splat %dst : !layout.ptr<f16, align 16> -> tensor<1024x!layout.ptr<f16>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %op = layout.addptr %q, %offs : tensor<1024x!layout.ptr<f16>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    layout.ptr_store %v, %op : tensor<1024xf16, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<1024x!layout.ptr<f16>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  }
  func.return
}

// 8 f32 per thread: two 16-byte vectors of 4
// CUDA-LABEL: f32_eight_kernel(
// CUDA-COUNT-2: reinterpret_cast<const f32x4*>(src
// CHECK-LABEL: func.func @f32_eight(
// CHECK: layout.ptr_load %ip {vector = 4 : i64} :
// CHECK: layout.ptr_store %v, %op {vector = 4 : i64} :
func.func @f32_eight(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) attributes {tilec.args = {src = 8192 : index, dst = 8192 : index}} {
  %g = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %bx : index to i32
    %blk = arith.constant 1024 : i32
    %start = arith.muli %pid32, %blk : i32
    %idx = layout.arange {start = 0 : i64, end = 1024 : i64} : tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %s = layout.splat %start : i32 -> tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs0 = arith.addi %s, %idx : tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %c0 = arith.constant dense<0> : tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs = arith.addi %offs0, %c0 : tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<1024x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %ip = layout.addptr %p, %offs : tensor<1024x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %v = layout.ptr_load %ip : tensor<1024x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<1024xf32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %q = layout.splat %dst : !layout.ptr<f32, align 16> -> tensor<1024x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %op = layout.addptr %q, %offs : tensor<1024x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<1024xi32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    layout.ptr_store %v, %op : tensor<1024xf32, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<1024x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  }
  func.return
}

// offsets < 3840 (a multiple of 4): the mask is the same over each vector
// CUDA-LABEL: masked_constant_n_kernel(
// CUDA: if (p) {
// CUDA-NEXT: const f32x4 v = *reinterpret_cast<const f32x4*>(src
// CHECK-LABEL: func.func @masked_constant_n(
// CHECK: layout.ptr_load %ip mask %m : {{.*}} {vector = 4 : i64, uniform_mask} :
// CHECK: layout.ptr_store %v, %op mask %m : {{.*}} {vector = 4 : i64, uniform_mask} :
func.func @masked_constant_n(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>) attributes {tilec.args = {src = 4096 : index, dst = 4096 : index}} {
  %g = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %bx : index to i32
    %blk = arith.constant 512 : i32
    %start = arith.muli %pid32, %blk : i32
    %idx = layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %s = layout.splat %start : i32 -> tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs0 = arith.addi %s, %idx : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %c0 = arith.constant dense<0> : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs = arith.addi %offs0, %c0 : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %nn = arith.constant dense<3840> : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %m = layout.cmpi slt, %offs, %nn : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %ip = layout.addptr %p, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %v = layout.ptr_load %ip mask %m : tensor<512xi1, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %q = layout.splat %dst : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %op = layout.addptr %q, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    layout.ptr_store %v, %op mask %m : tensor<512xi1, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> : tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  }
  func.return
}

// offsets < n, n unknown: vectors of 4, each guarded by the conjunction of its lanes
// CUDA-LABEL: masked_unknown_n_kernel(
// CUDA: if ([[ALL:t_[0-9]+]]) {
// CUDA-NEXT: const f32x4 v = *reinterpret_cast<const f32x4*>(src
// CUDA: } else {
// CUDA: if (p) {
// CUDA-NEXT: const float x = src[
// CHECK-LABEL: func.func @masked_unknown_n(
// CHECK: layout.ptr_load %ip mask %m : {{.*}}> {vector = 4 : i64} :
// CHECK: layout.ptr_store %v, %op mask %m : {{.*}}> {vector = 4 : i64} :
func.func @masked_unknown_n(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %n: index) attributes {tilec.args = {src = 4096 : index, dst = 4096 : index, n = 4093 : index}} {
  %g = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %bx : index to i32
    %blk = arith.constant 512 : i32
    %start = arith.muli %pid32, %blk : i32
    %idx = layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %s = layout.splat %start : i32 -> tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs0 = arith.addi %s, %idx : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %c0 = arith.constant dense<0> : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs = arith.addi %offs0, %c0 : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %n32 = arith.index_cast %n : index to i32
    %nn = layout.splat %n32 : i32 -> tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %m = layout.cmpi slt, %offs, %nn : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %ip = layout.addptr %p, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %v = layout.ptr_load %ip mask %m : tensor<512xi1, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %q = layout.splat %dst : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %op = layout.addptr %q, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    layout.ptr_store %v, %op mask %m : tensor<512xi1, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> : tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  }
  func.return
}

// offsets < n with n promised a multiple of 16 (Triton's multiple_of): uniform masks
// CUDA-LABEL: masked_promised_n_kernel(
// CUDA: if (p) {
// CUDA-NEXT: const f32x4 v = *reinterpret_cast<const f32x4*>(src
// CHECK-LABEL: func.func @masked_promised_n(
// CHECK: layout.ptr_load %ip mask %m : {{.*}} {vector = 4 : i64, uniform_mask} :
// CHECK: layout.ptr_store %v, %op mask %m : {{.*}} {vector = 4 : i64, uniform_mask} :
func.func @masked_promised_n(%src: !layout.ptr<f32, align 16>, %dst: !layout.ptr<f32, align 16>, %n: index) attributes {tilec.args = {src = 4096 : index, dst = 4096 : index, n = 4080 : index}} {
  %g = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%g, %c1, %c1) threads(128) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %pid32 = arith.index_cast %bx : index to i32
    %blk = arith.constant 512 : i32
    %start = arith.muli %pid32, %blk : i32
    %idx = layout.arange {start = 0 : i64, end = 512 : i64} : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %s = layout.splat %start : i32 -> tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs0 = arith.addi %s, %idx : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %c0 = arith.constant dense<0> : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %offs = arith.addi %offs0, %c0 : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %n0 = arith.index_cast %n : index to i32
    %n32 = layout.multiple_of %n0 {divisor = 16 : i64} : i32
    %nn = layout.splat %n32 : i32 -> tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %m = layout.cmpi slt, %offs, %nn : tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %p = layout.splat %src : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %ip = layout.addptr %p, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %v = layout.ptr_load %ip mask %m : tensor<512xi1, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> -> tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %q = layout.splat %dst : !layout.ptr<f32, align 16> -> tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    %op = layout.addptr %q, %offs : tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512xi32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
    layout.ptr_store %v, %op mask %m : tensor<512xi1, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>> : tensor<512xf32, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>, tensor<512x!layout.ptr<f32>, #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  }
  func.return
}
