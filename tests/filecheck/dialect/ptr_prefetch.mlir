// layout.ptr_prefetch: each thread asks L2 for the sector each of its pointers points
// into (under its mask bit), reading nothing. Round trip in custom and generic form; no
// value changes (the executor ignores it: equivalent after the lowering); `lower-to-gpu`
// makes it one `cuda.prefetch_global_l2` per register (in an scf.if where masked), and
// the cuda target a `prefetch.global.L2`; `{bulk}` passes on to `cuda.prefetch_global_l2
// {bulk}`, a bulk prefetch of the element's 16-byte block (`tilec_prefetch_sector`).
// RUN: tilec %s --split-input-file | tilec --split-input-file | filecheck %s
// RUN: tilec %s --split-input-file --print-op-generic | tilec --split-input-file | filecheck %s
// RUN: tilec %s --split-input-file -p lower-to-gpu,canonicalize --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s --split-input-file -p lower-to-gpu,canonicalize | filecheck %s --check-prefix=GPU
// RUN: tilec %s --split-input-file -p lower-to-gpu,canonicalize | tilec --split-input-file | filecheck %s --check-prefix=GPU
// RUN: tilec %s --split-input-file -p lower-to-gpu,canonicalize -t cuda | filecheck %s --check-prefix=CUDA
// EQ: @sectors_ahead: equivalent after
// EQ: @unmasked: equivalent after
// EQ: @bulk: equivalent after
// EQ: @edge: equivalent after
// EQ: @row: equivalent after

// Every 8th element of a 256-element row, asked of L2 where it is below 200, then the
// row copied.
#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
// CHECK-LABEL: func.func @sectors_ahead
// CHECK: layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<32xi1, #layout.blocked<{{.*}}>> : tensor<32x!layout.ptr<i16>, #layout.blocked<{{.*}}>>
// GPU-LABEL: func.func @sectors_ahead
// GPU: scf.if
// GPU-NEXT: cuda.prefetch_global_l2 %dst[%{{.*}}] : memref<?xi16>
// CUDA-LABEL: sectors_ahead
// CUDA: asm volatile("prefetch.global.L2 [%0];" :: "l"(dst + {{.*}}));
func.func @sectors_ahead(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i16, align 16>) attributes {tilec.args = {src = 256 : index, dst = 256 : index}} {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %i = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #b>
    %c8 = arith.constant dense<8> : tensor<32xi32, #b>
    %c200 = arith.constant dense<200> : tensor<32xi32, #b>
    %offs = arith.muli %i, %c8 : tensor<32xi32, #b>
    %m = layout.cmpi slt, %offs, %c200 : tensor<32xi32, #b>
    %q = layout.splat %dst : !layout.ptr<i16, align 16> -> tensor<32x!layout.ptr<i16>, #b>
    %qp = layout.addptr %q, %offs : tensor<32x!layout.ptr<i16>, #b>, tensor<32xi32, #b>
    layout.ptr_prefetch %qp mask %m : tensor<32xi1, #b> : tensor<32x!layout.ptr<i16>, #b>
    %p = layout.splat %src : !layout.ptr<i16, align 16> -> tensor<32x!layout.ptr<i16>, #b>
    %pp = layout.addptr %p, %offs : tensor<32x!layout.ptr<i16>, #b>, tensor<32xi32, #b>
    %v = layout.ptr_load %pp : tensor<32x!layout.ptr<i16>, #b> -> tensor<32xi16, #b>
    layout.ptr_store %v, %qp : tensor<32xi16, #b>, tensor<32x!layout.ptr<i16>, #b>
  }
  func.return
}

// -----

// No mask: one prefetch per register, unguarded.
#b = #layout.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
// CHECK-LABEL: func.func @unmasked
// CHECK: layout.ptr_prefetch %{{.*}} : tensor<64x!layout.ptr<f32>, #layout.blocked<{{.*}}>>
// GPU-LABEL: func.func @unmasked
// GPU: cuda.prefetch_global_l2 %dst[%{{.*}}] : memref<?xf32>
// GPU-NEXT: cuda.prefetch_global_l2 %dst[%{{.*}}] : memref<?xf32>
func.func @unmasked(%dst: !layout.ptr<f32, align 16>) attributes {tilec.args = {dst = 64 : index}} {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %i = layout.arange {start = 0 : i64, end = 64 : i64} : tensor<64xi32, #b>
    %q = layout.splat %dst : !layout.ptr<f32, align 16> -> tensor<64x!layout.ptr<f32>, #b>
    %qp = layout.addptr %q, %i : tensor<64x!layout.ptr<f32>, #b>, tensor<64xi32, #b>
    layout.ptr_prefetch %qp : tensor<64x!layout.ptr<f32>, #b>
  }
  func.return
}

// -----

// {bulk}: each sector by a bulk prefetch of its 16-byte block (the sector alone).
#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
// CHECK-LABEL: func.func @bulk
// CHECK: layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<32xi1, #layout.blocked<{{.*}}>> {bulk} : tensor<32x!layout.ptr<i32>, #layout.blocked<{{.*}}>>
// GPU-LABEL: func.func @bulk
// GPU: scf.if
// GPU-NEXT: cuda.prefetch_global_l2 %dst[%{{.*}}] {bulk} : memref<?xi32>
// CUDA-LABEL: void tilec_prefetch_sector(const void* p)
// CUDA: cp.async.bulk.prefetch.L2.global [%0], 16;
// CUDA-LABEL: bulk_kernel(
// CUDA: tilec_prefetch_sector(dst + {{.*}});
func.func @bulk(%dst: !layout.ptr<i32, align 16>) attributes {tilec.args = {dst = 256 : index}} {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %i = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #b>
    %c8 = arith.constant dense<8> : tensor<32xi32, #b>
    %c200 = arith.constant dense<200> : tensor<32xi32, #b>
    %offs = arith.muli %i, %c8 : tensor<32xi32, #b>
    %m = layout.cmpi slt, %offs, %c200 : tensor<32xi32, #b>
    %q = layout.splat %dst : !layout.ptr<i32, align 16> -> tensor<32x!layout.ptr<i32>, #b>
    %qp = layout.addptr %q, %offs : tensor<32x!layout.ptr<i32>, #b>, tensor<32xi32, #b>
    layout.ptr_prefetch %qp mask %m : tensor<32xi1, #b> {bulk} : tensor<32x!layout.ptr<i32>, #b>
  }
  func.return
}

// -----

// {bulk, edge = 8}: each row's last i64 element asks for its sector only where one past it
// is not on a 32-byte boundary (the test of the real address, in the CUDA).
#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
// CHECK-LABEL: func.func @edge
// CHECK: layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<32xi1, #layout.blocked<{{.*}}>> {bulk, edge = 8 : i64} : tensor<32x!layout.ptr<i64>, #layout.blocked<{{.*}}>>
// GPU-LABEL: func.func @edge
// GPU: scf.if
// GPU-NEXT: cuda.prefetch_global_l2 %dst[%{{.*}}] {bulk, edge = 8 : i64} : memref<?xi64>
// CUDA-LABEL: edge_kernel(
// CUDA: if ((reinterpret_cast<unsigned long long>(dst + {{.*}}) + 8ull) & 31ull)
// CUDA-NEXT: tilec_prefetch_sector(dst + {{.*}});
func.func @edge(%dst: !layout.ptr<i64, align 16>) attributes {tilec.args = {dst = 320 : index}} {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %i = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #b>
    %c10 = arith.constant dense<10> : tensor<32xi32, #b>
    %c4 = arith.constant dense<4> : tensor<32xi32, #b>
    %row = arith.muli %i, %c10 : tensor<32xi32, #b>
    %offs = arith.addi %row, %c4 : tensor<32xi32, #b>
    %c300 = arith.constant dense<300> : tensor<32xi32, #b>
    %m = layout.cmpi slt, %offs, %c300 : tensor<32xi32, #b>
    %q = layout.splat %dst : !layout.ptr<i64, align 16> -> tensor<32x!layout.ptr<i64>, #b>
    %qp = layout.addptr %q, %offs : tensor<32x!layout.ptr<i64>, #b>, tensor<32xi32, #b>
    layout.ptr_prefetch %qp mask %m : tensor<32xi1, #b> {bulk, edge = 8 : i64} : tensor<32x!layout.ptr<i64>, #b>
  }
  func.return
}

// -----

// row %n: each lane's pointer a row's first element (rows of 5 i64 at a pitch of 10), the
// row's partial sectors asked by `tilec_prefetch_row` (adjacent ones by one 64-byte ask).
#b = #layout.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
// CHECK-LABEL: func.func @row
// CHECK: layout.ptr_prefetch %{{.*}} row %{{.*}} : i32 mask %{{.*}} : tensor<32xi1, #layout.blocked<{{.*}}>> {bulk} : tensor<32x!layout.ptr<i64>, #layout.blocked<{{.*}}>>
// GPU-LABEL: func.func @row
// GPU: scf.if
// GPU-NEXT: cuda.prefetch_global_l2 %dst[%{{.*}}] row %{{.*}} {bulk} : memref<?xi64>
// CUDA-LABEL: void tilec_prefetch_row(const void* p, unsigned long long nbytes)
// CUDA: cp.async.bulk.prefetch.L2.global [%0], 64;
// CUDA-LABEL: row_kernel(
// CUDA: tilec_prefetch_row(dst + {{.*}}, (unsigned long long)({{.*}}) * sizeof(*(dst + {{.*}})));
func.func @row(%dst: !layout.ptr<i64, align 16>, %n: i32) attributes {tilec.args = {dst = 320 : index, n = 5 : i32}} {
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %i = layout.arange {start = 0 : i64, end = 32 : i64} : tensor<32xi32, #b>
    %c10 = arith.constant dense<10> : tensor<32xi32, #b>
    %c2 = arith.constant dense<2> : tensor<32xi32, #b>
    %row = arith.muli %i, %c10 : tensor<32xi32, #b>
    %offs = arith.addi %row, %c2 : tensor<32xi32, #b>
    %c300 = arith.constant dense<300> : tensor<32xi32, #b>
    %m = layout.cmpi slt, %offs, %c300 : tensor<32xi32, #b>
    %q = layout.splat %dst : !layout.ptr<i64, align 16> -> tensor<32x!layout.ptr<i64>, #b>
    %qp = layout.addptr %q, %offs : tensor<32x!layout.ptr<i64>, #b>, tensor<32xi32, #b>
    layout.ptr_prefetch %qp row %n : i32 mask %m : tensor<32xi1, #b> {bulk} : tensor<32x!layout.ptr<i64>, #b>
  }
  func.return
}
