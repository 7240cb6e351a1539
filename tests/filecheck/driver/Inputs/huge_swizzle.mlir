func.func private @f() attributes {l = #layout.composed<swizzle<3,18446744073709551616,3> o 0 o (8,64):(64,1)>}
