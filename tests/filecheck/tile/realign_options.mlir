// RUN: tilec %s -p 'copy-strategy,tile{threads=128}' | filecheck %s
// RUN: tilec %s -p 'copy-strategy,tile{threads=128}' --check-equivalence | filecheck %s --check-prefix=EQ
// RUN: not tilec %s -p 'copy-strategy,tile{threads=96}' 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not tilec %s -p 'copy-strategy,tile{realign_chunks=3}' 2>&1 | filecheck %s --check-prefix=ERRC
// RUN: tilec %s -p 'copy-strategy,tile{threads=64 realign_chunks=2}' | filecheck %s --check-prefix=C2
// RUN: tilec %s -p 'copy-strategy,tile{threads=64 realign_chunks=2}' --check-equivalence | filecheck %s --check-prefix=EQ2
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=0}' | filecheck %s --check-prefix=NOPF
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=0}' --check-equivalence | filecheck %s --check-prefix=EQ0
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=2}' | filecheck %s --check-prefix=AHEAD
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=2}' --check-equivalence | filecheck %s --check-prefix=EQA
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=3}' | filecheck %s --check-prefix=BULK
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=3}' --check-equivalence | filecheck %s --check-prefix=EQB
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=4}' | filecheck %s --check-prefix=ENDS
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=4}' --check-equivalence | filecheck %s --check-prefix=EQE
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=5}' | filecheck %s --check-prefix=LATE
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=5}' --check-equivalence | filecheck %s --check-prefix=EQL
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=6}' | filecheck %s --check-prefix=EDGES
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=6}' --check-equivalence | filecheck %s --check-prefix=EQG
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=7}' | filecheck %s --check-prefix=ROW
// RUN: tilec %s -p 'copy-strategy,tile{threads=128 realign_prefetch=7}' --check-equivalence | filecheck %s --check-prefix=EQR
// RUN: not tilec %s -p 'copy-strategy,tile{realign_prefetch=8}' 2>&1 | filecheck %s --check-prefix=ERRP
// RUN: not tilec %s -p 'copy-strategy,tile{realign_bytes=32}' 2>&1 | filecheck %s --check-prefix=ERRB
// The tile pass's threads option shapes a realign copy's launch (rows = threads of the
// blocked layout); realign_chunks=C gives a thread C chunks (rows = C x threads); the
// rows into a longer pitch (31 > 30: a gap) first ask L2 for the chunks of the sectors
// they cover in part (`layout.ptr_prefetch`, by default; realign_prefetch=0 not;
// realign_prefetch=2: a block of the first wave its own chunks', then every thread
// those of the chunk a wave on: two prefetches; realign_prefetch=3: the sectors by bulk
// prefetches of 16 bytes, `{bulk}`; realign_prefetch=4: bulk, a row's first and last
// chunks only: `sge` / `sle` tests of the chunk against the row's ends and the next
// row's start, no pseudo-sector's shifts; realign_prefetch=5: the same asks after the
// source loads, before the funnel shift); realign_prefetch=6: after the loads, the row's
// first element (`edge` 0) and its last (`edge` 2: one past it) asked, each unless on a
// 32-byte boundary (tested in the CUDA), by the threads of the row's first and last chunks;
// realign_prefetch=7: one `row` ask a row by the thread of its first chunk.

// EQ: @rows: equivalent after 'copy-strategy,tile{threads=128}'
// ERR: error: 'layout.copy': tile: a realign copy takes threads that are a power of two, at least 32; got threads=96
// ERRC: error: 'layout.copy': tile: a realign copy takes realign_chunks a power of two up to 8; got 3
// EQ2: @rows: equivalent after 'copy-strategy,tile{threads=64 realign_chunks=2}'
// EQ0: @rows: equivalent after 'copy-strategy,tile{threads=128 realign_prefetch=0}'
// EQA: @rows: equivalent after 'copy-strategy,tile{threads=128 realign_prefetch=2}'
// EQB: @rows: equivalent after 'copy-strategy,tile{threads=128 realign_prefetch=3}'
// EQE: @rows: equivalent after 'copy-strategy,tile{threads=128 realign_prefetch=4}'
// EQL: @rows: equivalent after 'copy-strategy,tile{threads=128 realign_prefetch=5}'
// EQG: @rows: equivalent after 'copy-strategy,tile{threads=128 realign_prefetch=6}'
// EQR: @rows: equivalent after 'copy-strategy,tile{threads=128 realign_prefetch=7}'
// ERRP: error: 'layout.copy': tile: realign_prefetch is 0-7; got 8
// ERRB: error: 'layout.copy': tile: realign_bytes is 8 or 16; got 32
// C2-LABEL: func.func @rows
// C2:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(64)
// C2:         layout.arange {start = 0 : i64, end = 128 : i64} : tensor<128xi32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [2, 1], order = [1, 0]}>}>>
// AHEAD-LABEL: func.func @rows
// AHEAD:         layout.ptr_prefetch
// AHEAD:         layout.ptr_prefetch
// AHEAD-NOT:     layout.ptr_prefetch
// AHEAD:         layout.funnel_shift
// AHEAD:         layout.ptr_store
// BULK-LABEL: func.func @rows
// BULK:         layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<128xi1, #layout.slice<{{.*}}>> {bulk} : tensor<128x!layout.ptr<f16>, #layout.slice<{{.*}}>>
// BULK-NOT:     layout.ptr_prefetch
// BULK:         layout.ptr_store
// ENDS-LABEL: func.func @rows
// ENDS:         layout.cmpi sge
// ENDS-NOT:     arith.shli
// ENDS:         layout.cmpi sle
// ENDS-NOT:     arith.shli
// ENDS:         layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<128xi1, #layout.slice<{{.*}}>> {bulk} : tensor<128x!layout.ptr<f16>, #layout.slice<{{.*}}>>
// ENDS-NOT:     layout.ptr_prefetch
// ENDS:         layout.ptr_store
// LATE-LABEL: func.func @rows
// LATE-NOT:     layout.ptr_prefetch
// LATE:         layout.ptr_load
// LATE:         layout.ptr_load
// LATE:         layout.cmpi sle
// LATE:         layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<128xi1, #layout.slice<{{.*}}>> {bulk} : tensor<128x!layout.ptr<f16>, #layout.slice<{{.*}}>>
// LATE-NOT:     layout.ptr_prefetch
// LATE:         layout.funnel_shift
// LATE:         layout.ptr_store
// EDGES-LABEL: func.func @rows
// EDGES-NOT:     layout.ptr_prefetch
// EDGES:         layout.ptr_load
// EDGES:         layout.ptr_load
// EDGES:         layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<128xi1, #layout.slice<{{.*}}>> {bulk, edge = 0 : i64} : tensor<128x!layout.ptr<f16>, #layout.slice<{{.*}}>>
// EDGES:         layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<128xi1, #layout.slice<{{.*}}>> {bulk, edge = 2 : i64} : tensor<128x!layout.ptr<f16>, #layout.slice<{{.*}}>>
// EDGES-NOT:     layout.ptr_prefetch
// EDGES:         layout.funnel_shift
// EDGES:         layout.ptr_store
// ROW-LABEL: func.func @rows
// ROW-NOT:     layout.ptr_prefetch
// ROW:         layout.ptr_load
// ROW:         layout.ptr_load
// ROW:         layout.ptr_prefetch %{{.*}} row %{{.*}} : i64 mask %{{.*}} : tensor<128xi1, #layout.slice<{{.*}}>> {bulk} : tensor<128x!layout.ptr<f16>, #layout.slice<{{.*}}>>
// ROW-NOT:     layout.ptr_prefetch
// ROW:         layout.funnel_shift
// ROW:         layout.ptr_store
// NOPF-LABEL: func.func @rows
// NOPF-NOT:     layout.ptr_prefetch
// NOPF:         layout.ptr_store

// CHECK-LABEL: func.func @rows
// CHECK:         layout.launch grid(%{{.*}}, %{{.*}}, %{{.*}}) threads(128)
// CHECK:         layout.arange {start = 0 : i64, end = 128 : i64} : tensor<128xi32, #layout.slice<{dim = 1, parent = #layout.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK:         layout.ptr_prefetch %{{.*}} mask %{{.*}} : tensor<128xi1, #layout.slice<{{.*}}>> : tensor<128x!layout.ptr<f16>, #layout.slice<{{.*}}>>
// CHECK:         layout.funnel_shift
// CHECK:         layout.ptr_store
func.func @rows(%src: !layout.ptr<f16, align 16>, %dst: !layout.ptr<f16, align 16>, %smis: index, %dmis: index) attributes {tilec.args = {smis = 3 : index, dmis = 6 : index, src = 240 : index, dst = 224 : index}} {
  %sp = layout.addptr %src, %smis : !layout.ptr<f16, align 16>, index
  %dp = layout.addptr %dst, %dmis : !layout.ptr<f16, align 16>, index
  %a = layout.view %sp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(7,30):(33,1)>, gmem>
  %b = layout.view %dp : !layout.ptr<f16> -> !layout.tensor<f16, #layout.cute<(7,30):(31,1)>, gmem>
  layout.copy %a, %b : !layout.tensor<f16, #layout.cute<(7,30):(33,1)>, gmem>, !layout.tensor<f16, #layout.cute<(7,30):(31,1)>, gmem>
  func.return
}
