func.func private @f() attributes {l = #layout.blocked<{sizePerThread = [1, 18446744073709551616], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>}
