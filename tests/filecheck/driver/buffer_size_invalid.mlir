// A buffer size that is not an integer >= 0 (from --arg or tilec.args, for a pointer
// whose extent the IR does not fix) is a located error of the CPU reference executor;
// it was a NumPy ValueError, exit 2 (found by the fuzzer).
// RUN: not tilec %examples/gluon_memcpy_2d_ptr.mlir --run cpu --arg in_ptr=-5 2>&1 | filecheck %s
// RUN: not tilec %examples/gluon_memcpy_2d_ptr.mlir --run cpu --arg out_ptr=-1 2>&1 | filecheck %s --check-prefix=OUT

// CHECK: gluon_memcpy_2d_ptr.mlir:30:1: error: 'func.func': buffer %in_ptr : !layout.ptr<f32, align 16> cannot have -5 elements: a buffer's number of elements is an integer >= 0
// OUT: error: 'func.func': buffer %out_ptr : !layout.ptr<f32, align 16> cannot have -1 elements
