// RUN: tilec %s -p 'copy-strategy{tiles_short_d=8},tile{tiles_short_d=8}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy{tiles_short_d=8},tile{tiles_short_d=8}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy{tiles_short_d=8 box_smem=8192},tile{tiles_short_d=8 box_smem=8192 threads=128}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: tilec %s -p 'copy-strategy,tile' | filecheck %s --check-prefix=OFF
// RUN: not tilec %s -p 'copy-strategy{tiles_short_d=8},tile' 2>&1 | filecheck %s --check-prefix=DIS
// RUN: not tilec %s -p 'copy-strategy{tiles_short_d=9}' 2>&1 | filecheck %s --check-prefix=BAD
// A box<tiles> over a short destination-contiguous mode D (`_copy_cost.TILES_SHORT_D_BYTES`,
// the option `tiles_short_d`, off by default): D known and at most 64 steps, W long; a tile
// takes D's rows whole (61 f64: 62 steps, the runs the longest that fit), phase 1 stages W's
// runs by cp.async, phase 2 (converting where asked) stores 16-byte destination chunks.
// Off (the default), the strategy is not a box. Results never change.

// EQ: @short_d_f64: equivalent after
// EQ: @short_d_u8_to_f64: equivalent after
// DIS: tile: a copy of strategy box<tiles>
// BAD: copy-strategy: tiles_short_d=9 must be in [0, 8]

// The strided set's 18 in small: W = 150 f64, D = 61; pointers moved by misalignments.
// CHECK-LABEL: func.func @short_d_f64
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// CHECK:           layout.alloc : !layout.tensor<f64, #layout.cute<({{[0-9]+}}):(1)>, smem>
// CHECK:             layout.copy_chunk_async
// CHECK:           layout.barrier
// CHECK:             layout.write %{{.*}}, %{{.*}}[%{{.*}}] {width = 2 : i64} : vector<2xf64>
// CHECK-NOT:     layout.copy %
// OFF-LABEL: func.func @short_d_f64
// OFF-NOT:       copy_strategy<box
func.func @short_d_f64(%s0: !layout.ptr<f64, align 16>, %d0: !layout.ptr<f64, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 1 : index, dmis = 1 : index, s0 = 9200 : index, d0 = 9200 : index}} {
  %sp = layout.addptr %s0, %smis : !layout.ptr<f64, align 16>, index
  %dp = layout.addptr %d0, %dmis : !layout.ptr<f64, align 16>, index
  %a = layout.view %sp : !layout.ptr<f64> -> !layout.tensor<f64, #layout.cute<(150,61):(1,150)>, gmem>
  %b = layout.view %dp : !layout.ptr<f64> -> !layout.tensor<f64, #layout.cute<(150,61):(61,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f64, #layout.cute<(150,61):(1,150)>, gmem>, !layout.tensor<f64, #layout.cute<(150,61):(61,1)>, gmem>
  func.return
}

// The strided set's 47 in small: W = 150 uint8, D = 17, converting to f64.
// CHECK-LABEL: func.func @short_d_u8_to_f64
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(512)
// CHECK:           layout.barrier
// CHECK-NOT:     layout.copy %
// OFF-LABEL: func.func @short_d_u8_to_f64
// OFF-NOT:       copy_strategy<box
func.func @short_d_u8_to_f64(%s0: !layout.ptr<i8, align 16>, %d0: !layout.ptr<f64, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 5 : index, dmis = 1 : index, s0 = 2600 : index, d0 = 2600 : index}} {
  %sp = layout.addptr %s0, %smis : !layout.ptr<i8, align 16>, index
  %dp = layout.addptr %d0, %dmis : !layout.ptr<f64, align 16>, index
  %a = layout.view %sp : !layout.ptr<i8> -> !layout.tensor<i8, #layout.cute<(150,17):(1,150)>, gmem>
  %b = layout.view %dp : !layout.ptr<f64> -> !layout.tensor<f64, #layout.cute<(150,17):(17,1)>, gmem>
  layout.copy %a, %b {convert = "uint8->float64"} : !layout.tensor<i8, #layout.cute<(150,17):(1,150)>, gmem>, !layout.tensor<f64, #layout.cute<(150,17):(17,1)>, gmem>
  func.return
}
