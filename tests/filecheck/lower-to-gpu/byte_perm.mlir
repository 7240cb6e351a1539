// cuda.byte_perm inside a launch: four bytes of two 32-bit words picked by a constant
// selector, kept as they are by lower-to-gpu (the reference executor runs the program
// before and after the pipeline: equivalent, on random words) and printed as CUDA's
// `__byte_perm` (one PRMT): here the two stages of a 4 x 4 byte transpose.
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default | filecheck %s --check-prefix=GPU
// RUN: tilec %s -p default -t cuda | filecheck %s
// EQ: @interleave_bytes: equivalent after 'default'
// GPU-LABEL: "gpu.func"
// GPU:         cuda.byte_perm %{{.*}}, %{{.*}}, 20800 : i32
// GPU:         cuda.byte_perm %{{.*}}, %{{.*}}, 29538 : i32

// CHECK-LABEL: interleave_bytes_kernel(
// CHECK:         = (int)__byte_perm((unsigned)(x), (unsigned)(x_1), 0x5140u);
// CHECK:         = (int)__byte_perm((unsigned)(x), (unsigned)(x_1), 0x7362u);
// CHECK:         = (int)__byte_perm((unsigned)(t{{[_0-9]*}}), (unsigned)(t{{[_0-9]*}}), 0x5410u);
// CHECK:         = (int)__byte_perm((unsigned)(t{{[_0-9]*}}), (unsigned)(t{{[_0-9]*}}), 0x7632u);
!W = !layout.tensor<i32, #layout.cute<(2,64):(64,1)>, gmem>
!O = !layout.tensor<i32, #layout.cute<(4,64):(64,1)>, gmem>
func.func @interleave_bytes(%a: !layout.ptr<i32>, %o: !layout.ptr<i32>) {
  %A = layout.view %a : !layout.ptr<i32> -> !W
  %O = layout.view %o : !layout.ptr<i32> -> !O
  %c1 = arith.constant 1 : index
  layout.launch grid(%c1, %c1, %c1) threads(64) {
  ^bb0(%bx: index, %by: index, %bz: index, %tid: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %x = layout.read %A[%c0, %tid] : !W -> i32
    %y = layout.read %A[%c1, %tid] : !W -> i32
    // bytes 0 and 1 of x and y interleaved, then bytes 2 and 3
    %lo = cuda.byte_perm %x, %y, 20800 : i32
    %hi = cuda.byte_perm %x, %y, 29538 : i32
    // the low halves of lo and hi, then their high halves
    %p = cuda.byte_perm %lo, %hi, 21520 : i32
    %q = cuda.byte_perm %lo, %hi, 30258 : i32
    layout.write %lo, %O[%c0, %tid] : i32, !O
    layout.write %hi, %O[%c1, %tid] : i32, !O
    layout.write %p, %O[%c2, %tid] : i32, !O
    layout.write %q, %O[%c3, %tid] : i32, !O
  }
  func.return
}
