// RUN: tilec -h | filecheck %s
// `tilec -h` shows the flags, then every pass with its options (as --list-passes).
// CHECK: usage: tilec
// CHECK: -p PASSES, --passes PASSES
// CHECK: Passes (options:
// CHECK: distribute
// CHECK-NEXT: threads: int = 0
// CHECK: Named pipelines:
