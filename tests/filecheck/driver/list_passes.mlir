// RUN: tilec --list-passes | filecheck %s
// Every pass tilec defines is listed in the "Passes:" section (before "Named pipelines:"),
// each with its one-line summary; xDSL's generic passes are listed beside them.
// CHECK: Passes (options:
// CHECK-DAG: {{^}}  accelerate-matmul {{ *}}Lower each `layout.dot` to tensor-core MMAs (wgmma, mma.sync) or an FMA loop
// CHECK-DAG: {{^}}  canonicalize {{ *}}Applies all canonicalization patterns.
// CHECK-DAG: {{^}}  cse
// CHECK-DAG: {{^}}  dce
// CHECK-DAG: {{^}}  eliminate-barriers {{ *}}Remove the `gpu.barrier`s (`__syncthreads`) of GPU-level kernels that order no access to memory
// CHECK-DAG: {{^}}  sink-reductions {{ *}}Carry the unreduced tensor through a loop whose accumulator folds in one reduction a trip
// CHECK-DAG: {{^}}  expand-iterators {{ *}}Rewrite tile iterators into index positions
// CHECK-DAG: {{^}}  chunk-rows {{ *}}Turn a row-wise kernel whose row tile is longer than registers hold into a loop
// CHECK-DAG: {{^}}  choose-warps {{ *}}Choose the threads of every `threads(auto)` launch
// CHECK-DAG: {{^}}  coarsen-grid {{ *}}Let each block of a tiled launch take `k` consecutive tiles
// CHECK-DAG: {{^}}  coalesce {{ *}}Choose the `#layout.blocked` layout of every `#layout.auto` tensor
// CHECK-DAG: {{^}}  copy-strategy {{ *}}Choose the strategy of each whole-tensor `layout.copy`
// CHECK-DAG: {{^}}  distribute {{ *}}Split each block-level `layout.copy`
// CHECK-DAG: {{^}}  lower-convert-layout {{ *}}Lowers each `layout.convert_layout`
// CHECK-DAG: {{^}}  lower-to-gpu {{ *}}Lower thread-level layout IR to the GPU level
// CHECK-DAG: {{^}}  pack-rows {{ *}}Give each block several rows of a row-wise kernel
// CHECK-DAG: {{^}}  order-grid {{ *}}Swap a `layout.launch`'s block dimensions
// CHECK-DAG: {{^}}  prefetch-operands {{ *}}Move each cp.async step boundary of a pipelined loop
// CHECK-DAG: {{^}}  remove-layout-conversions {{ *}}Removes `layout.convert_layout` ops
// CHECK-DAG: {{^}}  split-accumulator {{ *}}Split each qualifying wgmma accumulation of a `layout.launch` along N into column chunks
// CHECK-DAG: {{^}}  tile {{ *}}Tile each whole-tensor `layout.copy`
// CHECK-DAG: {{^}}  tma {{ *}}Turn each block-level `layout.copy`
// CHECK-DAG: {{^}}  tma-epilogue {{ *}}Stage each store of a wgmma accumulator's values to global memory through a shared buffer and the TMA
// CHECK-DAG: {{^}}  vectorize {{ *}}Give each access the widest vector
// CHECK-DAG: {{^}}  vectorize-pointers {{ *}}Give each `layout.ptr_load` / `layout.ptr_store` the widest vector
// CHECK-DAG: {{^}}  vectorize-element-loops {{ *}}Make a loop over the elements of a thread's fragment a loop over vectors
// CHECK: Named pipelines:
// CHECK-NEXT: {{^}}  default {{ *}}expand-iterators,copy-strategy,tile,order-grid,accelerate-matmul,split-accumulator,tma-epilogue,tma,coarsen-grid,distribute,chunk-rows,pack-rows,choose-warps,stash-rereads,sink-reductions,coalesce,vectorize,software-pipeline,vectorize-pointers,vectorize-element-loops,remove-layout-conversions,warp-specialize{marked=true},prefetch-operands,lower-convert-layout,lower-to-gpu,canonicalize,eliminate-barriers
// CHECK-NEXT: {{^}}  O2 {{ *}}expand-iterators,copy-strategy,tile,order-grid,accelerate-matmul,split-accumulator,tma-epilogue,tma,coarsen-grid,distribute,
