// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{box_smem=8192},tile{box_smem=8192 tiles_run=32 threads=128}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile{tiles_lanes=16 tiles_grain=32 tiles_stage=4}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p default -t cuda | filecheck %s --check-prefix=CUDA
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_lanes=0}' 2>&1 | filecheck %s --check-prefix=LANESOPT
// RUN: not tilec %s -p 'copy-strategy,tile{tiles_lanes=4}' 2>&1 | filecheck %s --check-prefix=LANES4
// A converting transpose of 1- or 2-byte source elements (`_copy_cost.TILES_CONVERT_BYTES`)
// takes box<tiles>: phase 1 stages source runs as for a copy without conversion (16-byte
// cp.async of source elements), phase 2 reads the 16 / E_dst source elements of each
// destination chunk from the box, converts each, and stores one 16-byte vector of the
// destination's elements. Results never change.

// EQ: @bool_to_int16: equivalent after
// EQ: @f16_to_f32_misaligned: equivalent after
// EQ: @int16_to_int8: equivalent after
// EQ: @uint8_to_f64_written: equivalent after

// bool -> int16, a 300 x 131 transpose (case 23's kind): 8 int16 a destination chunk,
// each element widened (extui) from its box byte; 16-byte phase-1 chunks, 16 lanes a row
// (`_box_tile.tiles_phase2`, a 1-byte source converted to wider elements: `TILES_STAGE8_BYTES`).
// CHECK-LABEL: func.func @bool_to_int16
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// CHECK:           layout.alloc : !layout.tensor<i8, #layout.cute<({{[0-9]+}}):(1)>, smem>
// CHECK:             layout.copy_chunk_async %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] {width = 16 : i64, l1{{(, uncommitted)?}}}
// CHECK:           layout.barrier
// CHECK:             arith.extui %{{.*}} : i8 to i16
// CHECK:             vector.insert
// CHECK:             layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 8 : i64} : vector<8xi16>
// CHECK-NOT:     layout.copy
// CUDA-LABEL: bool_to_int16
// CUDA:         static_cast<short>((unsigned char)
// CUDA:         reinterpret_cast<i16x8*>(dst
func.func @bool_to_int16(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<i16, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>
  %b = layout.view %dst : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(131,300):(300,1)>, gmem>
  layout.copy %a, %b {convert = "uint8->int16"} : !layout.tensor<i8, #layout.cute<(131,300):(1,131)>, gmem>, !layout.tensor<i16, #layout.cute<(131,300):(300,1)>, gmem>
  func.return
}

// f16 -> f32 from aligned pointers moved by run-time misalignments, run-time extents
// and strides: 4 f32 a destination chunk.
// CHECK-LABEL: func.func @f16_to_f32_misaligned
// CHECK-NOT:     layout.addptr
// CHECK:         arith.extf %{{.*}} : f16 to f32
// CHECK:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 4 : i64} : vector<4xf32>
func.func @f16_to_f32_misaligned(%s0: !layout.ptr<f16, align 16>, %d0: !layout.ptr<f32, align 16>, %smis: index, %dmis: index, %m: index, %n: index) attributes {tilec.args = {smis = 3 : index, dmis = 1 : index, m = 97 : index, n = 150 : index, s0 = 14600 : index, d0 = 14600 : index}} {
  %src = layout.addptr %s0, %smis : !layout.ptr<f16, align 16>, index
  %dst = layout.addptr %d0, %dmis : !layout.ptr<f32, align 16>, index
  %a = layout.view %src(%m, %n, %m) : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(?,?):(1,?)>, gmem>
  %b = layout.view %dst(%m, %n, %n) : !layout.ptr<f32> -> !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  layout.copy %a, %b {convert = "float16->float32"} : !layout.tensor<f16, #layout.cute<(?,?):(1,?)>, gmem>, !layout.tensor<f32, #layout.cute<(?,?):(?,1)>, gmem>
  func.return
}

// int16 -> int8, narrowing, a grid mode (3 steps) on both sides, the destination's rows
// padded (pitch 157): 16 int8 a destination chunk from 16 box elements.
// CHECK-LABEL: func.func @int16_to_int8
// CHECK:         arith.trunci %{{.*}} : i16 to i8
// CHECK:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 16 : i64} : vector<16xi8>
func.func @int16_to_int8(%src: !layout.ptr<i16, align 16>, %dst: !layout.ptr<i8, align 16>) {
  %a = layout.view %src : !layout.ptr<i16, align 16> -> !layout.tensor<i16, #layout.cute<(3,97,150):(14550,1,97)>, gmem>
  %b = layout.view %dst : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(3,97,150):(15229,157,1)>, gmem>
  layout.copy %a, %b {convert = "int16->int8"} : !layout.tensor<i16, #layout.cute<(3,97,150):(14550,1,97)>, gmem>, !layout.tensor<i8, #layout.cute<(3,97,150):(15229,157,1)>, gmem>
  func.return
}

// uint8 -> f64 (8 times as wide: the rule leaves it to the tiled kernel,
// `_copy_cost.TILES_CONVERT_WIDENING`), the strategy written by the program: 2 f64 a
// destination chunk, each from its box byte (uitofp).
// CHECK-LABEL: func.func @uint8_to_f64_written
// CHECK:         arith.uitofp %{{.*}} : i8 to f64
// CHECK:         layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 2 : i64} : vector<2xf64>
func.func @uint8_to_f64_written(%src: !layout.ptr<i8, align 16>, %dst: !layout.ptr<f64, align 16>) {
  %a = layout.view %src : !layout.ptr<i8, align 16> -> !layout.tensor<i8, #layout.cute<(131,77):(1,131)>, gmem>
  %b = layout.view %dst : !layout.ptr<f64, align 16> -> !layout.tensor<f64, #layout.cute<(131,77):(77,1)>, gmem>
  layout.copy %a, %b {convert = "uint8->float64", strategy = #layout.copy_strategy<box<tiles>>} : !layout.tensor<i8, #layout.cute<(131,77):(1,131)>, gmem>, !layout.tensor<f64, #layout.cute<(131,77):(77,1)>, gmem>
  func.return
}

// LANESOPT: a converting box<tiles> copy takes its phase-2 lanes along a destination row; got tiles_lanes=0
// LANES4: a converting box<tiles> copy of 1-byte into 8-byte elements takes tiles_lanes a multiple of 8 (its lanes' chunks a source chunk apart); got tiles_lanes=4
