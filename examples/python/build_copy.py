"""Build a copy kernel in Python with `tilec.Program`, compile it, print the CUDA.

The program copies every second row of a 512x256 float32 matrix into a contiguous
256x256 one (PyTorch's `x[::2].contiguous()`): two views of two pointers, and one
copy between them. Nothing says how the copy is done; the default pipeline tiles it
over blocks, distributes each tile over threads and vectorizes the accesses.

    python examples/python/build_copy.py            # prints the IR, then the CUDA C++

Needs no GPU: the CUDA is printed, not compiled.
"""

import tilec

ROWS, COLS = 512, 256

program = tilec.Program("every_other_row")
src = program.pointer("src", "f32", align=16)
dst = program.pointer("dst", "f32", align=16)
# (256 rows, 256 columns): row i of the view is row 2i of src, so its row stride is 2*COLS.
every_other = program.view(src, f"({ROWS // 2},{COLS}):({2 * COLS},1)")
packed = program.view(dst, f"({ROWS // 2},{COLS}):({COLS},1)")
program.copy(every_other, packed)

print("// The whole-tensor program:")
print(tilec.emit(program))

module = program.module.clone()  # run_pipeline works in place: keep the program as it was
tilec.run_pipeline(module, "default")
print("// The CUDA C++ the default pipeline makes of it:")
print(tilec.emit(module, "cuda"))
