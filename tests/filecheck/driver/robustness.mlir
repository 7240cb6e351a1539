// Inputs found by the fuzzer (tests/fuzz/) that crashed tilec, made it print a
// diagnostic without a line and column, or let it emit a kernel whose 64-bit index
// arithmetic wraps. Each now ends in ONE `FILE:LINE:COL: error: ...` and status 1.

// A layout nested 1000 levels deep: was "cannot parse FILE: maximum recursion depth
// exceeded" with no line:col.
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/deep_tuple.mlir | filecheck %s --check-prefix=DEEP-TUPLE
// DEEP-TUPLE: {{^.*}}deep_tuple.mlir:2:85: error: layout nested deeper than 32 levels
// DEEP-TUPLE-NEXT: {{^}}exit status 1

// Any other nesting too deep for Python's stack is a parse error at the token reached.
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/deep_array.mlir | filecheck %s --check-prefix=DEEP-ARRAY
// DEEP-ARRAY: {{^.*}}deep_array.mlir:2:{{[0-9]+}}: error: input nested too deeply (brackets, attributes or regions)
// DEEP-ARRAY-NEXT: {{^}}exit status 1
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/deep_regions.mlir | filecheck %s --check-prefix=DEEP-REGIONS
// DEEP-REGIONS: {{^.*}}deep_regions.mlir:{{[0-9]+}}:{{[0-9]+}}: error: input nested too deeply (brackets, attributes or regions)
// DEEP-REGIONS-NEXT: {{^}}exit status 1

// A stride of 2^64 wrapped to 0 in the CUDA code (every row copied onto row 0).
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/stride_2_64.mlir -p default -t cuda | filecheck %s --check-prefix=STRIDE
// STRIDE: {{^.*}}stride_2_64.mlir:1:39: error: layout too large: 18446744073709551616 does not fit in a 64-bit index
// STRIDE-NEXT: {{^}}exit status 1

// (2^40, 2^40) has 2^80 elements: refused, never materialised.
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/huge_2_40.mlir --run cpu | filecheck %s --check-prefix=HUGE
// HUGE: {{^.*}}huge_2_40.mlir:1:39: error: layout too large: (1099511627776,1099511627776):(1099511627776,1) has 1208925819614629174706176 elements, more than a 64-bit index can count
// HUGE-NEXT: {{^}}exit status 1

// (2^20, 2^20) compiles, but the CPU reference executor refuses it instead of
// allocating 4 TiB (was "internal error: MemoryError" / "ValueError: Maximum allowed
// dimension exceeded", status 2).
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/big_2_20.mlir --run cpu | filecheck %s --check-prefix=BIG-CPU
// BIG-CPU: {{^.*}}big_2_20.mlir:2:1: error: 'func.func': buffer %src : !layout.ptr<f32> would have 1099511627776 elements, too many for the CPU reference executor (at most 134217728)
// BIG-CPU-NEXT: {{^}}exit status 1
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/big_2_20.mlir -p default --check-equivalence | filecheck %s --check-prefix=BIG-EQ
// BIG-EQ: {{^.*}}big_2_20.mlir:2:1: error: 'func.func': buffer %src : !layout.ptr<f32> would have 1099511627776 elements, too many
// BIG-EQ-NEXT: {{^}}exit status 1

// A view of 2^40 elements over one element (stride 0).
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/broadcast_2_40.mlir --run cpu | filecheck %s --check-prefix=BROADCAST
// BROADCAST: {{^.*}}broadcast_2_40.mlir:3:3: error: 'layout.view': a value of 1099511627776 elements ({{.*}}) is too large for the CPU reference executor (at most 134217728)
// BROADCAST-NEXT: {{^}}exit status 1

// Swizzle<3,2^64,3> was "internal error: MemoryError" (a 2^64-bit mask).
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/huge_swizzle.mlir | filecheck %s --check-prefix=SWIZZLE
// SWIZZLE: {{^.*}}huge_swizzle.mlir:1:65: error: invalid swizzle: Swizzle<3,18446744073709551616,3> moves bits past bit 63 of an offset
// SWIZZLE-NEXT: {{^}}exit status 1

// sizePerThread of 2^64 made the default pipeline hang.
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/huge_blocked.mlir -p default | filecheck %s --check-prefix=BLOCKED
// BLOCKED: {{^.*}}huge_blocked.mlir:1:55: error: invalid blocked layout: sizePerThread=[1, 18446744073709551616] gives each thread 18446744073709551616 elements, more than 4096
// BLOCKED-NEXT: {{^}}exit status 1

// Only alias definitions: was "unexpected end of file"; MLIR reads an empty module.
// RUN: %python %S/Inputs/status.py tilec %S/Inputs/alias_only.mlir | filecheck %s --check-prefix=ALIASES
// ALIASES: {{^}}builtin.module {
// ALIASES-NEXT: {{^}}}
// ALIASES-NEXT: {{^}}exit status 0
