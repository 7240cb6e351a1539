"""The tables of the Triton Gluon layouts tutorial (triton-lang/triton,
python/tutorials/gluon/02-layouts.py), verbatim, for the tutorial's layout
`BlockedLayout([2, 4], [16, 2], [2, 2], [1, 0])` (`TUTORIAL_BLOCKED`; the column-major
thread tile is for order [0, 1]). Compared against by tests/unit/test_render.py (the
renderers) and tests/unit/test_show_layout.py (the show-layout tool)."""

TUTORIAL_BLOCKED = ([2, 4], [16, 2], [2, 2], [1, 0])
"""sizePerThread, threadsPerWarp, warpsPerCTA, order of the tutorial's layout."""

THREAD_TILE_ROW_MAJOR = """\
[[T:0, T:1, T:2, T:3],
 [T:4, T:5, T:6, T:7]]"""

THREAD_TILE_COL_MAJOR = """\
[[T:0, T:2, T:4, T:6],
 [T:1, T:3, T:5, T:7]]"""

WARP_THREADS = """\
[[ T0,  T1],
 [ T2,  T3],
 ...
 [T28, T29],
 [T30, T31]]"""

WARP_TILE = """\
[[ T0:0,  T0:1,  T0:2,  T0:3,  T1:0,  T1:1,  T1:2,  T1:3],
 [ T0:4,  T0:5,  T0:6,  T0:7,  T1:4,  T1:5,  T1:6,  T1:7],
 [ T2:0,  T2:1,  T2:2,  T2:3,  T3:0,  T3:1,  T3:2,  T3:3],
 [ T2:4,  T2:5,  T2:6,  T2:7,  T3:4,  T3:5,  T3:6,  T3:7],
 ...
 [T28:0, T28:1, T28:2, T28:3, T29:0, T29:1, T29:2, T29:3],
 [T28:4, T28:5, T28:6, T28:7, T29:4, T29:5, T29:6, T29:7],
 [T30:0, T30:1, T30:2, T30:3, T31:0, T31:1, T31:2, T31:3],
 [T30:4, T30:5, T30:6, T30:7, T31:4, T31:5, T31:6, T31:7]]"""

CTA_TILES_128x128 = """\
[[ B0,  B1,  B2,  B3,  B4,  B5,  B6,  B7],
 [ B8,  B9, B10, B11, B12, B13, B14, B15]]"""

# The tutorial prints this table with a typo: the comma after the third row
# ("T127:3]") is missing.  We compare against the text with that comma restored.
BROADCAST_32x8_AS_PRINTED = """\
[[  T0:0| T32:0| T64:0| T96:0, ...,   T1:3| T33:3| T65:3| T97:3],
 [  T0:4| T32:4| T64:4| T96:4, ...,   T1:7| T33:7| T65:7| T97:7],
 ...
 [ T30:0| T62:0| T94:0|T126:0, ...,  T31:3| T63:3| T95:3|T127:3]
 [ T30:4| T62:4| T94:4|T126:4, ...,  T31:7| T63:7| T95:7|T127:7]]"""
BROADCAST_32x8 = BROADCAST_32x8_AS_PRINTED.replace("T127:3]\n", "T127:3],\n")

SLICE_COLLAPSED_ROWS = """\
[  T0:0| T0:1| T0:2| T0:3| T1:0| T1:1| T1:2| T1:3,
   T0:4| T0:5| T0:6| T0:7| T1:4| T1:5| T1:6| T1:7,
   T2:0| T2:1| T2:2| T2:3| T3:0| T3:1| T3:2| T3:3,
   T2:4| T2:5| T2:6| T2:7| T3:4| T3:5| T3:6| T3:7,
 ...
  T28:0|T28:1|T28:2|T28:3|T29:0|T29:1|T29:2|T29:3,
  T28:4|T28:5|T28:6|T28:7|T29:4|T29:5|T29:6|T29:7,
  T30:0|T30:1|T30:2|T30:3|T31:0|T31:1|T31:2|T31:3,
  T30:4|T30:5|T30:6|T30:7|T31:4|T31:5|T31:6|T31:7]"""

SLICE_DIM1 = """\
[  T0:0| T1:0,
   T0:1| T1:1,
   T2:0| T3:0,
   T2:1| T3:1,
 ...
  T28:0|T29:0,
  T28:1|T29:1,
  T30:0|T31:0,
  T30:1|T31:1]"""
