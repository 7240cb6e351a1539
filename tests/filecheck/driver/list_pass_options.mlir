// `tilec --list-passes` shows each pass's options with their types and defaults.
// RUN: tilec --list-passes | filecheck %s
// CHECK: Passes (options: -p 'NAME{option=value option=value}'):
// CHECK: distribute
// CHECK-NEXT: threads: int = 0
// CHECK-NEXT: vector_bytes: int = 16
// CHECK: remove-layout-conversions
// CHECK-NEXT: smem_cost: float = 1.0
