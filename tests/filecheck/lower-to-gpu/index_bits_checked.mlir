// The CPU reference executor checks a kernel's promise `tilec.index_bits = 32`
// (support/index_width.py): an `index` value leaving 32 bits is a located error. Here
// thread t computes k * t: 31 * 2^26 fits, 31 * 2^27 does not.
// RUN: tilec %s --run cpu --arg k=67108864 | filecheck %s --check-prefix=FITS
// RUN: not tilec %s --run cpu --arg k=134217728 2>&1 | filecheck %s

// FITS-NOT: error
// CHECK: index_bits_checked.mlir:[[# @LINE + 12]]:7: error: 'arith.muli': index value 4160749568 does not fit in 32 bits, which the kernel promises (tilec.index_bits = 32)
builtin.module attributes {gpu.container_module} {
  func.func @scaled(%k: index) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    "gpu.launch_func"(%c1, %c1, %c1, %c32, %c1, %c1, %k) <{kernel = @scaled_kernels::@scaled_kernel, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, index) -> ()
    func.return
  }
  "gpu.module"() <{sym_name = "scaled_kernels"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%k: index):
      %tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %x = arith.muli %k, %tid : index
      "gpu.return"() : () -> ()
    }) {sym_name = "scaled_kernel", gpu.known_block_size = array<i32: 32, 1, 1>, tilec.index_bits = 32 : i64} : () -> ()
  }) : () -> ()
}
