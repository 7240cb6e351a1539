// RUN: tilec %examples/gluon_in_out_layouts.mlir -p remove-layout-conversions | filecheck %s
// RUN: tilec %examples/gluon_in_out_layouts.mlir -p remove-layout-conversions --check-equivalence | filecheck %s --check-prefix=EQ
// Loading coalesced for a row-major input and storing coalesced for a column-major
// output needs the conversion between them: it must stay (lower-convert-layout lowers it).

// EQ: @in_out: equivalent

// CHECK-LABEL: func.func @in_out
// CHECK:         %[[V:.*]] = layout.load
// CHECK-NEXT:    %[[W:.*]] = layout.convert_layout %[[V]] : tensor<32x32xf32, #layout.blocked<{sizePerThread = [1, 4]{{.*}}> -> tensor<32x32xf32, #layout.blocked<{sizePerThread = [4, 1]
// CHECK-NEXT:    layout.store %[[W]]
