// An error of the cuda target names the op and, when the op carries a tilec.loc
// attribute, the location in the program it came from.
// RUN: not tilec %s -t cuda 2>&1 | filecheck %s

// CHECK: prog.py:3:9: error: 'memref.alloc' is not supported by the cuda target
builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %a = memref.alloc() {tilec.loc = "prog.py:3:9"} : memref<4xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
