// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=2}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_depth=3 box_ring=3}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_slot32=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=1024},tile{box_smem=1024 threads=64 box_slot32=1 box_depth=3 box_ring=3}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{box_slot32=1}' --check-equivalence | filecheck %s --check-prefix=EQ
// The box<span> strategy (copy-strategy's choice for rows shorter than a 16-byte chunk,
// contiguous in both views, at a source pitch whose gaps are shorter than a chunk, into
// a destination compact over the rows): a block stages one contiguous source span of
// rows, gaps included, by 16-byte cp.async into its box, then each thread writes
// aligned 16-byte destination chunks gathered byte by byte from the box (row p / n at
// pitch P, column p mod n), the chunks of one residue mod n / gcd(n, 16) a thread, its
// 16 box addresses computed once and stepped by 16 / gcd(n, 16) rows of P bytes.
// A small box (box_smem=1024) makes many blocks and chunks cut at their edges; odd
// row counts leave tails; misaligned pointers keep the vector accesses.

// EQ: @span: equivalent after
// EQ: @span_misaligned: equivalent after
// EQ: @span_grid: equivalent after

// Rows of 5 at a pitch of 7 (the canonical gather's shape, 613 rows): 5840 rows of
// the 40 KiB box, so one block; 16 box addresses stepped by 16 rows (112 bytes).
// CHECK-LABEL: func.func @span
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(256)
// CHECK:           layout.alloc : !layout.tensor<i8, #layout.cute<(40960):(1)>, smem>
// CHECK:           layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64{{(, l1)?}}}
// CHECK:           layout.async_wait {pending = 0 : i64}
// CHECK-NEXT:      layout.barrier
// CHECK:           scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             %[[C112:.*]] = arith.constant 112 : index
// CHECK-NEXT:        %[[OFF:.*]] = arith.muli %[[M]], %[[C112]] : index
// CHECK:             arith.addi %{{.*}}, %[[OFF]] : index
// CHECK:             layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
// CHECK-NOT:     layout.copy %
// CUDA-LABEL: span_kernel(
// CUDA:         tilec_cp_async<16>(
func.func @span(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(613,5):(7,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(613,5):(5,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(613,5):(7,1)>, gmem>, !layout.tensor<i8, #layout.cute<(613,5):(5,1)>, gmem>
  func.return
}

// Both pointers 16-byte aligned pointers moved by run-time misalignments (tilec.copy_'s
// form): the box addresses memory from the aligned pointers. Rows of 11 at 20.
// CHECK-LABEL: func.func @span_misaligned
// CHECK-NOT:     layout.addptr
// CHECK:         layout.launch
// CHECK:           layout.copy_chunk_async
func.func @span_misaligned(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 9 : index, dmis = 3 : index, src = 6100 : index, dst = 3400 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<i8, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(301,11):(20,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(301,11):(11,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(301,11):(20,1)>, gmem>, !layout.tensor<i8, #layout.cute<(301,11):(11,1)>, gmem>
  func.return
}

// A grid mode (3, far apart in both views: the destination padded between its rows
// of rows), rows of 3 at a pitch of 4.
// CHECK-LABEL: func.func @span_grid
// CHECK:         layout.launch
// CHECK:           layout.alloc
func.func @span_grid(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3,257,3):(1100,4,1)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3,257,3):(800,3,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<i8, #layout.cute<(3,257,3):(1100,4,1)>, gmem>, !layout.tensor<i8, #layout.cute<(3,257,3):(800,3,1)>, gmem>
  func.return
}
