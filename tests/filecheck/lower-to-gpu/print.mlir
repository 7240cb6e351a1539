// layout.print (CuTe's print_tensor, Mojo's print(tile)): thread 0 of block 0 prints
// the view; the reference executor prints the same text before and after lowering
// (--run cpu of the lowered module runs cuda.printf; a distributed tensor's lines come
// printf by printf there, as on a GPU, so they are compared sorted), and the CUDA is
// one guarded printf per line of at most 24 values.
// RUN: tilec %s --run cpu | filecheck %s --check-prefixes=OUT,DIST
// RUN: tilec %s -p default --run cpu | filecheck %s --check-prefix=OUT
// RUN: tilec %s -p default --run cpu | sort | filecheck %s --check-prefix=SORTED
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @ids: equivalent after 'default'
// EQ: @vectors: equivalent after 'default'
// EQ: @distributed: equivalent after 'default'

// Each of 32 threads writes its id to a 4x8 row-major shared tile; the print shows it
// as the matrix it is (row = mode 0), once, though two blocks run (the next line is
// the next function's print).
// OUT-LABEL: smem_ptr[32b] o (4,8):(8,1):
// OUT-NEXT:      0      1      2      3      4      5      6      7
// OUT-NEXT:      8      9     10     11     12     13     14     15
// OUT-NEXT:     16     17     18     19     20     21     22     23
// OUT-NEXT:     24     25     26     27     28     29     30     31
!S = !layout.tensor<i32, #layout.cute<(4,8):(8,1)>, smem>
!G = !layout.tensor<i32, #layout.cute<64:1>, gmem>
func.func @ids(%dst: !layout.ptr<i32>) {
  %g = layout.view %dst : !layout.ptr<i32> -> !G
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %s = layout.alloc : !S
    %c8 = arith.constant 8 : index
    %r = arith.divui %tid, %c8 : index
    %c = arith.remui %tid, %c8 : index
    %x = arith.index_cast %tid : index to i32
    layout.write %x, %s[%r, %c] : i32, !S
    layout.barrier
    layout.print %s : !S
    %c32 = arith.constant 32 : index
    %o = arith.muli %bx, %c32 : index
    %i = arith.addi %o, %tid : index
    layout.write %x, %g[%i] : i32, !G
  }
  func.return
}

// A vectorized view prints each element as its vector; a 2x16 tile of 1x4 vectors is
// two rows of four.
// OUT-NEXT: gmem_ptr[32b] o (2,4):(16,4) vec (1,4):(16,1):
// OUT-NEXT: [{{ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+}}] [{{ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+}}] [{{ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+}}] [{{ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+}}]{{$}}
// OUT-NEXT: [{{ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+}}] [{{ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+}}] [{{ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+}}] [{{ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+}}]{{$}}
// DIST-NEXT: tensor<8x8xf32, #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>> in block 0, per thread:
!A = !layout.tensor<f32, #layout.cute<(2,16):(16,1)>, gmem>
!V = !layout.tensor<f32, #layout.cute<(2,4):(16,4)>, gmem, vec #layout.cute<(1,4):(16,1)>>
func.func @vectors(%src: !layout.ptr<f32, align 16>) {
  %a = layout.view %src : !layout.ptr<f32, align 16> -> !A
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %v = layout.vectorize %a {vector = array<i64: 1, 4>} : !A -> !V
    layout.print %v : !V
  }
  func.return
}

// A distributed tensor: each thread of block 0 prints its registers with their
// coordinates (Gluon's device_print); thread t holds row t/4, columns 2(t%4) and
// 2(t%4)+1.
// DIST-NEXT: tid   0 idx (0, 0): {{ *[^ ]+$}}
// DIST-NEXT: tid   0 idx (0, 1): {{ *[^ ]+$}}
// DIST-NEXT: tid   1 idx (0, 2): {{ *[^ ]+$}}
// DIST-NEXT: tid   1 idx (0, 3): {{ *[^ ]+$}}
// DIST:      tid  31 idx (7, 6): {{ *[^ ]+$}}
// DIST-NEXT: tid  31 idx (7, 7): {{ *[^ ]+$}}
// DIST-NEXT: // @ids on the CPU reference executor
// SORTED:      tid   0 idx (0, 0):
// SORTED-NEXT: tid   0 idx (0, 1):
// SORTED-NEXT: tid   1 idx (0, 2):
#b = #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
!G8 = !layout.tensor<f32, #layout.cute<(8,8):(8,1)>, gmem>
func.func @distributed(%src: !layout.ptr<f32>, %dst: !layout.ptr<f32>) {
  %a = layout.view %src : !layout.ptr<f32> -> !G8
  %o = layout.view %dst : !layout.ptr<f32> -> !G8
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  layout.launch grid(%c2, %c1, %c1) threads(32) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %x = layout.load %a : !G8 -> tensor<8x8xf32, #b>
    layout.print %x : tensor<8x8xf32, #b>
    layout.store %x, %o : tensor<8x8xf32, #b>, !G8
  }
  func.return
}

// CHECK-LABEL: ids_kernel(
// CHECK:         const bool [[BX:p]] = bx == 0;
// CHECK:         const bool [[T0:p_[0-9]+]] = tid == 0;
// CHECK-NEXT:    const bool [[FIRST:t_[0-9]+]] = [[T0]] & {{t_[0-9]+}};
// CHECK-NEXT:    if ([[FIRST]]) {
// CHECK-NEXT:      printf("smem_ptr[32b] o (4,8):(8,1):\n");
// CHECK:           printf("%6d %6d %6d %6d %6d %6d %6d %6d\n", x_{{[0-9]+}},
// CHECK-LABEL: vectors_kernel(
// CHECK:           printf("gmem_ptr[32b] o (2,4):(16,4) vec (1,4):(16,1):\n");
// CHECK:           printf("[%10.4g %10.4g %10.4g %10.4g] [%10.4g %10.4g %10.4g %10.4g] [%10.4g %10.4g %10.4g %10.4g] [%10.4g %10.4g %10.4g %10.4g]\n", (double)x,
// CHECK-LABEL: distributed_kernel(
// CHECK:         if ([[BLOCK0:t_[0-9]+]]) {
// CHECK-NEXT:      const bool [[T0:p_[0-9]+]] = tid == 0;
// CHECK-NEXT:      if ([[T0]]) {
// CHECK-NEXT:        printf("tensor<8x8xf32, #layout.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>> in block 0, per thread:\n");
// CHECK-NEXT:      }
// CHECK-COUNT-2:   printf("tid %3d idx (%d, %d): %10.4g\n",
