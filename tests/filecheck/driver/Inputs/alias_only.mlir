// Only alias definitions: an empty module, as in MLIR.
#l = #layout.cute<8:1>
!T = !layout.ptr<f32>
