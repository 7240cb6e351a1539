// Round trip of every attribute of the layout dialect, in custom and generic form.
// RUN: tilec %s | tilec | filecheck %s
// RUN: tilec %s --print-op-generic | tilec | filecheck %s

// CHECK-LABEL: func.func private @cute_1d()
// CHECK-SAME: l = #layout.cute<8:1>
func.func private @cute_1d() attributes {l = #layout.cute<8:1>}

// CHECK-LABEL: func.func private @cute_2d()
// CHECK-SAME: l = #layout.cute<(4,8):(8,1)>
func.func private @cute_2d() attributes {l = #layout.cute<(4,8):(8,1)>}

// CHECK-LABEL: func.func private @cute_nested()
// CHECK-SAME: l = #layout.cute<(4,(2,3)):(1,(4,8))>
func.func private @cute_nested() attributes {l = #layout.cute<(4,(2,3)):(1,(4,8))>}

// A bare shape has LayoutLeft (column-major) strides.
// CHECK-LABEL: func.func private @cute_bare_shape()
// CHECK-SAME: l = #layout.cute<(4,8):(1,4)>
func.func private @cute_bare_shape() attributes {l = #layout.cute<(4,8)>}

// CHECK-LABEL: func.func private @cute_dynamic()
// CHECK-SAME: l = #layout.cute<(?,?):(?,1)>
func.func private @cute_dynamic() attributes {l = #layout.cute<(?,?):(?,1)>}

// CHECK-LABEL: func.func private @cute_broadcast()
// CHECK-SAME: l = #layout.cute<(4,8):(0,1)>
func.func private @cute_broadcast() attributes {l = #layout.cute<(4,8):(0,1)>}

// CHECK-LABEL: func.func private @swizzle()
// CHECK-SAME: l = #layout.swizzle<3,4,3>
func.func private @swizzle() attributes {l = #layout.swizzle<3,4,3>}

// CHECK-LABEL: func.func private @composed()
// CHECK-SAME: l = #layout.composed<swizzle<3,4,3> o 0 o (8,64):(64,1)>
func.func private @composed() attributes {l = #layout.composed<swizzle<3,4,3> o 0 o (8,64):(64,1)>}

// CHECK-LABEL: func.func private @composed_offset()
// CHECK-SAME: l = #layout.composed<swizzle<2,0,3> o 16 o (8,32):(32,1)>
func.func private @composed_offset() attributes {l = #layout.composed<swizzle<2,0,3> o 16 o (8,32):(32,1)>}

// The Gluon tutorial's blocked layout.
// CHECK-LABEL: func.func private @blocked()
// CHECK-SAME: l = #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 2], warpsPerCTA = [2, 2], order = [1, 0]}>
func.func private @blocked() attributes {l = #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 2], warpsPerCTA = [2, 2], order = [1, 0]}>}

// CHECK-LABEL: func.func private @blocked_1d()
// CHECK-SAME: l = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func private @blocked_1d() attributes {l = #layout.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>}

// The most elements a thread may hold: sizePerThread's product is 4096
// (invalid_attributes.mlir @blocked_registers refuses 8192).
// CHECK-LABEL: func.func private @blocked_most_registers()
// CHECK-SAME: l = #layout.blocked<{sizePerThread = [64, 64], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
func.func private @blocked_most_registers() attributes {l = #layout.blocked<{sizePerThread = [64, 64], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>}

// Fields may come in any order; they print in the canonical one.
// CHECK-LABEL: func.func private @blocked_field_order()
// CHECK-SAME: l = #layout.blocked<{sizePerThread = [4, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func private @blocked_field_order() attributes {l = #layout.blocked<{order = [0, 1], warpsPerCTA = [1, 4], threadsPerWarp = [4, 8], sizePerThread = [4, 1]}>}

// CHECK-LABEL: func.func private @slice()
// CHECK-SAME: l = #layout.slice<{dim = 0, parent = #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 2], warpsPerCTA = [2, 2], order = [1, 0]}>}>
func.func private @slice() attributes {l = #layout.slice<{dim = 0, parent = #layout.blocked<{sizePerThread = [2, 4], threadsPerWarp = [16, 2], warpsPerCTA = [2, 2], order = [1, 0]}>}>}

// CHECK-LABEL: func.func private @slice_of_slice()
// CHECK-SAME: l = #layout.slice<{dim = 0, parent = #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>}>}>
func.func private @slice_of_slice() attributes {l = #layout.slice<{dim = 0, parent = #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 4, 8], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>}>}>}

// CHECK-LABEL: func.func private @slice_of_linear()
// CHECK-SAME: l = #layout.slice<{dim = 1, parent = #layout.linear<{register = [[0, 1]], lane = [[0, 2], [1, 0]], warp = [], block = []}>}>
func.func private @slice_of_linear() attributes {l = #layout.slice<{dim = 1, parent = #layout.linear<{register = [[0, 1]], lane = [[0, 2], [1, 0]], warp = [], block = []}>}>}

// CHECK-LABEL: func.func private @linear()
// CHECK-SAME: l = #layout.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>
func.func private @linear() attributes {l = #layout.linear<{register = [[0, 1], [0, 2]], lane = [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]], block = []}>}

// CHECK-LABEL: func.func private @linear_1d()
// CHECK-SAME: l = #layout.linear<{register = [], lane = [[1]], warp = [[2]], block = []}>
func.func private @linear_1d() attributes {l = #layout.linear<{register = [], lane = [[1]], warp = [[2]], block = []}>}
