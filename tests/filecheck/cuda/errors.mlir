// The cuda target refuses what it cannot print, with an error at the op.
// RUN: tilec %s -t cuda --split-input-file --verify-diagnostics

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      // expected-error @+1 {{'memref.alloc' is not supported by the cuda target}}
      %a = memref.alloc() : memref<4xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// -----

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "m"}> ({
    // expected-error @+1 {{kernel argument 'src': element type f80 is not supported by the cuda target (supported: f16, bf16, f32, f64, i8, i16, i32, i64, f8E4M3FN, f8E5M2)}}
    "gpu.func"() <{function_type = (memref<16xf80>) -> (), kernel}> ({
    ^bb0(%src: memref<16xf80>):
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// -----

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<16xf32>) -> (), kernel}> ({
    ^bb0(%src: memref<16xf32>):
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{vector type vector<8xf32> is 32 bytes; the cuda target supports vectors of 1, 2, 4, 8 or 16 bytes}}
      %v = vector.load %src[%c0] : memref<16xf32>, vector<8xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// -----

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "m"}> ({
    // expected-error @+1 {{only kernels ('gpu.func' with the 'kernel' attribute) are supported by the cuda target}}
    "gpu.func"() <{function_type = () -> ()}> ({
      "gpu.return"() : () -> ()
    }) {sym_name = "helper"} : () -> ()
  }) : () -> ()
}

// -----

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<16xi32>, i32) -> (), kernel}> ({
    ^bb0(%dst: memref<16xi32>, %x: i32):
      %c0 = arith.constant 0 : index
      // expected-error @+1 {{'arith.mulsi_extended' is not supported by the cuda target}}
      %y, %z = arith.mulsi_extended %x, %x : i32
      memref.store %y, %dst[%c0] : memref<16xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
