// RUN: tilec --list-passes | filecheck %s
// CHECK: Passes:
// CHECK-DAG: {{^}}  canonicalize {{ *}}Applies all canonicalization patterns.
// CHECK-DAG: {{^}}  cse
// CHECK-DAG: {{^}}  dce
// CHECK: Named pipelines:
// CHECK-NEXT: {{^}}  default {{ *}}tile,order-grid,distribute,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize
// CHECK-NEXT: {{^}}  O2 {{ *}}tile,order-grid,distribute,
