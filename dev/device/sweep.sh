#!/usr/bin/env bash
# Compare tile / thread choices per case on the GPU (used to set the tile pass's heuristic).
R="distribute,vectorize,remove-layout-conversions,lower-convert-layout,lower-to-gpu,canonicalize"
B="python3 benchmarks/copy_bench.py --no-peers"
$B --cases "copy 1D" --pipelines "default;tile{tile=8192 threads=128},$R;tile{tile=16384 threads=256},$R;tile{tile=32768 threads=512},$R;tile{tile=8192 threads=256},$R" | grep variants
$B --cases "every 2nd" --pipelines "default;tile{tile=32,512 threads=256},$R;tile{tile=64,256 threads=256},$R;tile{tile=16,256 threads=128},$R;tile{tile=64,256 threads=512},$R" | grep variants
$B --cases "transpose f32,transpose 16381" --pipelines "default;tile{tile=64,64 threads=128},$R;tile{tile=64,128 threads=256},$R;tile{tile=32,32 threads=128},$R;tile{tile=128,64 threads=256},$R" | grep variants
$B --cases "transpose f16,transpose f64" --pipelines "default;tile{tile=64,64 threads=128},$R;tile{tile=128,64 threads=256},$R;tile{tile=64,128 threads=256},$R" | grep variants
