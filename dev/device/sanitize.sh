#!/usr/bin/env bash
# compute-sanitizer over tilec's kernels (issue #10): memcheck, racecheck and synccheck
# over `tilec FILE [-p PIPELINE] --run gpu --check` for every examples/*.mlir, for random
# valid copy programs from the fuzz generator (tests/fuzz/generate.py; their views' `divisible` /
# `residue` promises among them) with a
# funnel-shift kernel and a copy_chunk_async / cache-hint / prefetch kernel per 4 of
# them, for random valid mbarrier programs
# (tests/fuzz/generate_mbarrier.py: TMA rings on mbarrier arrays and warp-specialised
# producer/consumer pipelines), thread-block cluster rings (tests/fuzz/generate_cluster.py)
# serial split-K counter programs (tests/fuzz/generate_atomic.py) and sums of partials across a
# cluster through distributed shared memory (tests/fuzz/generate_dsmem.py), shared-memory round
# trips coarsened by `coarsen-grid` (tests/fuzz/generate_coarsen.py; some around the griddep ops,
# launched as programmatic dependents), for the GEMMs named
# by --gemm and for `tilec.matmul` with the configurations named by --matmul. One summary
# line per run, a table at the end; exits 1 if any run reports an error (or fails).
#
#   device run (carry .whl): bash dev/device/sanitize.sh [--count N] [--seed S] [--mbarrier N]
#                            [--cluster N] [--atomic N] [--dsmem N] [--epilogue N] [--ex2fma N] [--clipped N] [--coarsen N]
#                            [--prefetch N] [--realign N] [--tools "memcheck racecheck synccheck"]
#                            [--gemm "CONFIG ..."] [--gemm-shape MxNxK] [--no-examples]
#                            [--matmul "CONFIG@MxNxK[+mn][+bias][+ACT] ..."] [--copy "DTYPE:SHAPE:STRIDES[:+O][:NAME=V] ..."] [--budget S]
#                            [--attention "D:causal|full:BxHxHKVxSQxSKV[:P[:pingpong]] ..."] [--generate-only]
#
# --count N: N random copy programs (and N/4 funnel-shift and N/4 chunk kernels); 0 leaves them out.
# --mbarrier N: N random mbarrier programs (default (count + 1) / 2; 0 leaves them out),
#   each run with the pipeline its generator drew (the `// pipeline:` line of the file).
# --cluster N: N random cluster rings (2- and 4-block clusters, multicast TMA loads into the
#   peers, consumers arriving on their own and their peers' "empty" barriers, cluster_sync
#   after the barriers' initialisation and before exit); --atomic N: N random programs of
#   serial split-K's counter protocol (partials, fence, atomic arrival, the last unit's sum
#   and counter reset; some launched twice on the same counters); --dsmem N: N random sums of
#   partials across 2- and 4-block clusters through distributed shared memory (`layout.peer_view`:
#   each rank its part, every rank, rank 0, or pushed into the peers; 1 to 3 rounds between
#   cluster_syncs); --epilogue N: N random epilogue kernels (tests/fuzz/generate_compute.py:
#   silu_tanh / gelu_tanh / tanh with `fastmath<afn>` or not, or a division by a random divisor, grouped
#   by `cuda.div_approx_group` where afn and its proven range allow; a row index kept by `cuda.opaque`),
#   those calling tanh.approx.f32 or dividing (`// gpu-check: no`) run without --check; --ex2fma N: N such
#   kernels whose activation is exp2 with 1 to 8 of every 8 registers' 2^x on the FMA pipe (`tilec.exp2_fma`,
#   `cuda.ex2_fma`; without --check: ex2.approx); --clipped N: N TMA rings clipped to a ragged last row of
#   tiles, every load that row's last box (`layout.tma_load {clip, tail}`: its rows and bytes at run time,
#   `mbarrier_expect_tx`; tests/fuzz/generate_mbarrier.py random_clipped_ring_kernel); --coarsen N: N
#   shared-memory round trips of random element sizes, tiles and grids through the default pipeline
#   with `coarsen-grid{min_waves=0 ...}` (blocks take k tiles in a pipelined loop), some with
#   `layout.griddep_wait` / `griddep_launch_dependents` (a launch through cuLaunchKernelEx); --prefetch N:
#   N kernels around `layout.prefetch_l1` (tests/fuzz/generate.py random_prefetch_l1_kernel: a block's
#   tile, a tile ahead, a column or row of one asked of L1 in a load's layout, ragged tensors, m at
#   run time or not; the copy beside it checked); --realign N: N copies the realign strategy takes,
#   around its sector prefetch (random_realign_copy: `layout.ptr_prefetch` where the destination's
#   rows leave gaps; its pipeline asks for the strategy). Each default (count + 3) / 4.
#
# --matmul runs `tilec.matmul` (dev/device/matmul_check.py: operands drawn on the host, the
# result checked on the host against docs/matmul.md's bound, two calls on the same operands)
# with the configuration forced, in benchmarks/matmul_bench.py's `parse_config` syntax, at
# the shape after `@`: the forms gemm_bench's syntax lacks, e.g. the 2-block cluster GEMM
# at a ragged shape, "128x256x64:4:c128:cl2@300x520x328" (3 block rows: the second
# cluster's rank 1 row lies past M; N = 520: B's rows 16 mod 32 bytes, the rule's case for
# clusters), and serial split-K at decode shapes, "64x128x64:4:splitK2:ser@16x1032x2048"
# "64x16x64:8:swapAB:splitK4:ser@1x1032x2048" "64x16x64:8:swapAB:splitK4:p1:ser@16x1032x2048"
# (the second call finds the counters the first left at 0). A trailing +mn gives block-scaled FP8
# A's scales MN-major (strides (1, M)), +bias a bias of N elements, +relu / +gelu / +silu / +silu_tanh
# the epilogue's activation (matmul_check.py's --scale-a-mn, --bias, --activation), e.g.
# "f8b:128x128x128:4:pf@300x528x336+mn" (the scales asked of L1, `layout.prefetch_l1`),
# "128x256x64:4:st1:bsm:fe2@300x520x256+bias+silu" (`silu`'s rule: SiLU's exp2 of 2 of every 8
# elements on the FMA pipe, `cuda.ex2_fma`; the bias staged in shared memory).
#
# --copy runs `tilec.copy_` (dev/device/copy_check.py: dst contiguous, src a strided view of SHAPE
# with STRIDES in elements, `:+O` O elements off its buffer's start; operands made on the host,
# dst poisoned, two calls, each checked on the host against NumPy) for each spec, e.g. the box
# kernels: "int8:1000x1001:1x1000 int8:1000x1001:1x1000:+5" (odd transposes: box<tiles>, its
# phase-2 box addresses kept in registers by cuda.opaque), "int8:5x37x100x17:629x1x3145x37"
# (box<rows>), "bool:19x1000:1x19" (box<flat>); a trailing :NAME=VALUE forces a tuning value of
# `copy_routes.TUNING_NAMES`, e.g. "int8:999x1001:1x999:+3:tiles_interleave=1" (the interleaved
# slots, `cuda.byte_perm`: off by default).
#
# --attention adds the flash-attention forward (compiler/attention.py, through
# examples/python/attention.py --emit) at each given head dim, mask and shape, e.g.
# "64:causal:1x2x1x150x150 128:full:1x2x2x200x77"; a trailing :P makes it persistent on
# P blocks ("64:causal:1x4x2x300x300:2": 12 tiles on 2 blocks, the ring carried across tiles);
# a further :pingpong the pingpong schedule ("128:causal:1x4x2x300x300:0:pingpong", P = 0: the grid).
#
# --gemm adds a GEMM at --gemm-shape (default 256x256x256) for each configuration, in
# benchmarks/gemm_bench.py's --configs syntax:
#   BMxBNxBK:...              examples/python/gemm_bf16.py (mma.sync), e.g. 128x128x64:2x4:3:s:db:g2;
#   wgmma:...                 the hand-scheduled Hopper GEMMs of gemm_bf16_hopper.py, e.g.
#                             wgmma:128x128x64:4:ws:p2:pp:g8:tma (2 persistent blocks walk every
#                             tile, so the ring's phases run on across tiles);
#   plain:BMxBNxBK:S[:gG][:ws][:pP|:r]
#                             the plain-loop GEMM of examples/python/gemm_plain.py (no barrier in
#                             its source) compiled by the passes with its own pipeline
#                             (`software-pipeline` S stages deep; `ws`: `warp-specialize`; `pP`:
#                             persistent on P blocks; `r`: the rolled form, staged buffers and
#                             mbarrier arrays indexed by the stage the K loop carries), e.g.
#                             plain:128x256x64:4 plain:128x256x64:4:r plain:128x256x64:4:ws:r.
# Use a K of more than S * BK (e.g. --gemm-shape 256x512x512: 8 K steps on 4 stages) so that
# every stage is reused and the phases flip.
# --no-examples leaves out examples/*.mlir.
# --budget S: no run starts after S seconds from the script's start, and none runs past
#   them (its status TIMEOUT); the runs left out are listed as "skipped". For a device
#   call of bounded time (the inputs run in this order: examples, generated programs, --gemm,
#   --attention, --matmul, --copy; each under every tool in turn).
#
# --generate-only (no GPU, no compute-sanitizer needed): writes every input (.mlir) under
# $OUT/sanitize/programs, prints its CUDA (`-t cuda`, .cu beside it) and compiles it with
# NVRTC (`tilec FILE -p PIPELINE --compile-only --arch sm_90a`), one line per input; exits 1
# if any fails. The CPU check of what the GPU half will run, e.g.
#   OUT=/tmp/out bash dev/device/sanitize.sh --generate-only --count 2 --no-examples \
#     --gemm "plain:128x256x64:4 plain:128x256x64:4:r plain:128x256x64:4:ws:r" --gemm-shape 256x512x512
#
# Needs compute-sanitizer (CUDA 13) on PATH or under /usr/local/cuda/bin. The set-up
# (wheels in .whl/ installed into /tmp/site, tilec installed editable) is the one of
# dev/device/device_run.sh.
set -uo pipefail
cd "$(dirname "$0")/../.."

count=10; seed=0; tools="memcheck racecheck synccheck"; gemm=""; gemm_shape=256x256x256; examples=1; attention=""
mbarrier=""; cluster=""; atomic=""; dsmem=""; epilogue=""; ex2fma=""; clipped=""; coarsen=""; prefetch=""; realign=""; matmul=""; copies=""; generate_only=0; budget=""; began=$(date +%s)
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --gemm) gemm=$2; shift 2 ;;
    --gemm-shape) gemm_shape=$2; shift 2 ;;
    --no-examples) examples=0; shift ;;
    --attention) attention=$2; shift 2 ;;
    --mbarrier) mbarrier=$2; shift 2 ;;
    --cluster) cluster=$2; shift 2 ;;
    --atomic) atomic=$2; shift 2 ;;
    --dsmem) dsmem=$2; shift 2 ;;
    --epilogue) epilogue=$2; shift 2 ;;
    --ex2fma) ex2fma=$2; shift 2 ;;
    --clipped) clipped=$2; shift 2 ;;
    --coarsen) coarsen=$2; shift 2 ;;
    --prefetch) prefetch=$2; shift 2 ;;
    --realign) realign=$2; shift 2 ;;
    --matmul) matmul=$2; shift 2 ;;
    --copy) copies=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --generate-only) generate_only=1; shift ;;
    *) echo "usage: $0 [--count N] [--seed S] [--mbarrier N] [--cluster N] [--atomic N] [--dsmem N] [--epilogue N] [--ex2fma N] [--clipped N] [--coarsen N] [--prefetch N] [--realign N] [--tools 'memcheck racecheck synccheck'] [--gemm 'CONFIG ...'] [--gemm-shape MxNxK] [--matmul 'CONFIG@MxNxK ...'] [--copy 'DTYPE:SHAPE:STRIDES ...'] [--budget S] [--no-examples] [--attention 'SPEC ...'] [--generate-only]" >&2; exit 2 ;;
  esac
done
[ -z "$mbarrier" ] && mbarrier=$(( (count + 1) / 2 ))
[ -z "$cluster" ] && cluster=$(( (count + 3) / 4 ))
[ -z "$atomic" ] && atomic=$(( (count + 3) / 4 ))
[ -z "$dsmem" ] && dsmem=$(( (count + 3) / 4 ))
[ -z "$epilogue" ] && epilogue=$(( (count + 3) / 4 ))
[ -z "$coarsen" ] && coarsen=$(( (count + 3) / 4 ))
[ -z "$ex2fma" ] && ex2fma=$(( (count + 3) / 4 ))
[ -z "$clipped" ] && clipped=$(( (count + 3) / 4 ))
[ -z "$prefetch" ] && prefetch=$(( (count + 3) / 4 ))
[ -z "$realign" ] && realign=$(( (count + 3) / 4 ))

if ls .whl/*.whl >/dev/null 2>&1; then
  source dev/device/install.sh
fi
# PyTorch's caching allocator off: each tensor of a --matmul run an allocation of its own, whose
# end memcheck knows (a bias of N elements read past its end is an error, not a read of the pool)
export TILEC_CACHE_DIR=${TILEC_CACHE_DIR:-/tmp/tilec-cache} PYTHONUNBUFFERED=1 PYTORCH_NO_CUDA_MEMORY_CACHING=1
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/sanitize"

SANITIZER=""
if [ "$generate_only" = 0 ]; then
  SANITIZER=$(command -v compute-sanitizer || true)
  [ -z "$SANITIZER" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && SANITIZER=/usr/local/cuda/bin/compute-sanitizer
  if [ -z "$SANITIZER" ]; then
    echo "sanitize: compute-sanitizer not found (PATH, /usr/local/cuda/bin)" >&2
    exit 2
  fi
  "$SANITIZER" --version | tail -1
fi

# Inputs: the examples, `count` random valid programs, `mbarrier` random mbarrier
# programs, the GEMM configurations. `pipe[FILE]`: the -p pipeline of an input that
# needs its own (the plain-loop GEMMs); the others run the default pipeline.
gen="$OUT/sanitize/programs"
rm -rf "$gen"; mkdir -p "$gen"
inputs=()
declare -A pipe=()
[ "$examples" = 1 ] && inputs+=(examples/*.mlir)
if [ "$count" -gt 0 ] || [ "$mbarrier" -gt 0 ] || [ "$cluster" -gt 0 ] || [ "$atomic" -gt 0 ] || [ "$dsmem" -gt 0 ] || [ "$epilogue" -gt 0 ] || [ "$ex2fma" -gt 0 ] || [ "$clipped" -gt 0 ] || [ "$coarsen" -gt 0 ] || [ "$prefetch" -gt 0 ] || [ "$realign" -gt 0 ]; then
  # and per 4 copies a funnel-shift kernel (layout.funnel_shift, the realign kernel's op) and
  # a chunk kernel (layout.copy_chunk_async, the box kernels' staging; cache hints; layout.prefetch)
  python3 -m tests.fuzz.generate --count "$count" --funnel $(( (count + 3) / 4 )) --chunks $(( (count + 3) / 4 )) \
    --mbarrier "$mbarrier" --cluster "$cluster" --atomic "$atomic" --dsmem "$dsmem" --epilogue "$epilogue" --ex2fma "$ex2fma" --clipped "$clipped" --coarsen "$coarsen" --prefetch "$prefetch" --realign "$realign" \
    --seed "$seed" --out "$gen" > "$OUT/sanitize/programs.txt" \
    || { echo "sanitize: the program generator failed" >&2; exit 2; }
  shopt -s nullglob
  inputs+=("$gen"/prog_*.mlir "$gen"/funnel_*.mlir "$gen"/chunks_*.mlir "$gen"/mbarrier_*.mlir)
  inputs+=("$gen"/cluster_*.mlir "$gen"/atomic_*.mlir "$gen"/dsmem_*.mlir "$gen"/epilogue_*.mlir "$gen"/coarsen_*.mlir)
  inputs+=("$gen"/prefetch_*.mlir "$gen"/realign_*.mlir "$gen"/ex2fma_*.mlir "$gen"/clipped_*.mlir)
  # a generated program other than a copy runs its own pipeline (its first line: `// pipeline: P`;
  # the plain loops' rolled software pipeline, CSE before or after the default passes)
  for f in "$gen"/mbarrier_*.mlir "$gen"/cluster_*.mlir "$gen"/atomic_*.mlir "$gen"/dsmem_*.mlir "$gen"/epilogue_*.mlir "$gen"/coarsen_*.mlir "$gen"/realign_*.mlir "$gen"/ex2fma_*.mlir "$gen"/clipped_*.mlir; do
    pipe["$f"]=$(sed -n '1s|^// pipeline: ||p' "$f")
  done
  shopt -u nullglob
fi
i=0
for cfg in $gemm; do
  f="$gen/gemm_${gemm_shape}_$i.mlir"
  case "$cfg" in
    wgmma:*) emit=(python3 -c 'import sys; sys.path.insert(0, "benchmarks"); from gemm_bench import wgmma_source
m, n, k = (int(x) for x in sys.argv[1].split("x")); print(wgmma_source(sys.argv[2], m, n, k), end="")' "$gemm_shape" "$cfg") ;;
    plain:*) emit=(python3 -c 'import sys; sys.path.insert(0, "benchmarks"); from gemm_bench import plain_source
m, n, k = (int(x) for x in sys.argv[1].split("x")); text, pipeline = plain_source(sys.argv[2], m, n, k)
open(sys.argv[3], "w").write(pipeline + "\n"); print(text, end="")' "$gemm_shape" "$cfg" "$f.pipeline") ;;
    *) emit=(python3 examples/python/gemm_bf16.py --emit ${gemm_shape//x/ } "$cfg") ;;
  esac
  "${emit[@]}" > "$f" || { echo "sanitize: emitting the GEMM $gemm_shape $cfg failed" >&2; exit 2; }
  [ -f "$f.pipeline" ] && pipe["$f"]=$(cat "$f.pipeline")
  echo "sanitize: $(basename "$f" .mlir) is the GEMM $gemm_shape, block $cfg${pipe[$f]:+, -p ${pipe[$f]}}"
  inputs+=("$f"); i=$((i + 1))
done

for spec in $attention; do
  IFS=: read -r d mode dims blocks schedule <<< "$spec"
  f="$gen/attention_${d}_${mode}_${dims}${blocks:+_p$blocks}${schedule:+_$schedule}.mlir"
  python3 examples/python/attention.py --emit "$d" "$mode" ${dims//x/ } $blocks $schedule > "$f" \
    || { echo "sanitize: emitting the attention $spec failed" >&2; exit 2; }
  echo "sanitize: $(basename "$f" .mlir) is the attention forward $spec"
  inputs+=("$f")
done

# --matmul: an input `matmul:CONFIG@MxNxK`, run as dev/device/matmul_check.py CONFIG MxNxK
# (tilec.matmul itself: its configuration forced, its counters and launches its own)
for spec in $matmul; do
  [[ $spec == *@*x*x* ]] || { echo "sanitize: --matmul takes CONFIG@MxNxK[+mn][+bias][+ACT], got $spec" >&2; exit 2; }
  inputs+=("matmul:$spec")
done
# --copy: an input `copy:SPEC`, run as dev/device/copy_check.py SPEC (tilec.copy_ itself)
for spec in $copies; do
  inputs+=("copy:$spec")
done
# matmul_check.py's arguments for a --matmul spec CONFIG@MxNxK[+mn][+bias][+ACT]: CONFIG MxNxK and
# --scale-a-mn (block-scaled FP8, A's scales MN-major) / --bias (a bias of N elements) / --activation ACT
matmul_args() {
  local shape=${1#*@}
  local flags=${shape#*+}
  [ "$flags" = "$shape" ] && flags=""
  echo "${1%@*} ${shape%%+*}"
  for flag in ${flags//+/ }; do
    case "$flag" in
      mn) echo "--scale-a-mn" ;;
      bias) echo "--bias" ;;
      relu|gelu|silu|silu_tanh) echo "--activation $flag" ;;
      *) echo "sanitize: --matmul flag +$flag is not +mn, +bias or an activation" >&2; echo "--unknown-flag-$flag" ;;
    esac
  done
}
# the name of an input in the logs and the table
input_name() {
  case "$1" in
    matmul:*) local s=${1#matmul:}; echo "matmul_${s//:/_}" | tr '@+' '_p' ;;
    copy:*) local s=${1#copy:}; echo "copy_${s//:/_}" | tr '+' 'p' ;;
    *) basename "$1" .mlir ;;
  esac
}

# --generate-only: the CUDA of every input, compiled by NVRTC; no GPU run.
if [ "$generate_only" = 1 ]; then
  failed=0
  for f in "${inputs[@]}"; do
    name=$(input_name "$f")
    p=${pipe[$f]:-default}
    if [[ $f == matmul:* ]]; then  # the kernel tilec.matmul would launch, compiled by NVRTC
      if python3 dev/device/matmul_check.py $(matmul_args "${f#matmul:}") --compile-only > "$gen/$name.nvrtc.log" 2>&1; then
        status="ok ($(grep -Eo "[0-9]+ registers" "$gen/$name.nvrtc.log" | head -1))"
      else
        status="NVRTC FAIL"; failed=1
      fi
      printf "sanitize: generated %-28s %-43s %s\n" "$name" "(tilec.matmul)" "$status"
      [ "$status" != "${status#*FAIL}" ] && tail -3 "$gen/$name.nvrtc.log" | sed 's/^/    /'
      continue
    fi
    if [[ $f == copy:* ]]; then  # the kernel tilec.copy_ would launch, compiled by NVRTC
      if python3 dev/device/copy_check.py "${f#copy:}" --compile-only > "$gen/$name.nvrtc.log" 2>&1; then
        status="ok ($(sed -n 's/^copy_check: [^ ]* //p' "$gen/$name.nvrtc.log" | head -1))"
      else
        status="NVRTC FAIL"; failed=1
      fi
      printf "sanitize: generated %-28s %-43s %s\n" "$name" "(tilec.copy_)" "$status"
      [ "$status" != "${status#*FAIL}" ] && tail -3 "$gen/$name.nvrtc.log" | sed 's/^/    /'
      continue
    fi
    if ! python3 -m tilec.tools.tilec "$f" -p "$p" -t cuda > "$gen/$name.cu" 2> "$gen/$name.cu.log"; then
      status="CUDA FAIL"; failed=1
    elif ! python3 -m tilec.tools.tilec "$f" -p "$p" --compile-only --arch sm_90a > "$gen/$name.nvrtc.log" 2>&1; then
      status="NVRTC FAIL"; failed=1
    else
      status="ok ($(grep -Eo "[0-9]+ registers" "$gen/$name.nvrtc.log" | head -1))"
    fi
    printf "sanitize: generated %-28s -p %-40s %s\n" "$name" "$p" "$status"
    [ "$status" != "${status#*FAIL}" ] && tail -3 "$gen/$name.cu.log" "$gen/$name.nvrtc.log" 2>/dev/null | sed 's/^/    /'
  done
  echo "programs: ${#inputs[@]} generated in $gen (.mlir, .cu)"
  [ $failed -ne 0 ] && { echo "sanitize: generation FAILED"; exit 1; }
  echo "sanitize: every program printed CUDA that NVRTC compiles"
  exit 0
fi

# Seed programs whose warps each copy the same whole tile into shared memory, as the
# seed writes them (Mojo's copy_from_async_example and tile_copier_example distribute
# over lane_id(), so the block's 8 warps issue the same cp.async writes): racecheck
# reports write-after-write hazards between those duplicate copies. They are accepted
# (status seed-waw) only if every hazard shown is a WAW between cp.async writes of the
# same value; any other hazard in these programs fails as usual.
SAME_VALUE_WAW="mojo_copy_from_async mojo_tile_copier"
same_value_waw_only() {
  awk '
    /Error: Potential/ { n++; if ($0 !~ /WAW hazard/) bad = 1 }
    /Write Thread/ && $0 !~ /tilec_cp_async/ { bad = 1 }
    /Current Value :/ { split($0, f, /Current Value : |, Incoming Value : /); if (f[2] + 0 != f[3] + 0) bad = 1 }
    END { exit (n > 0 && !bad) ? 0 : 1 }' "$1"
}

# `tilec FILE [-p PIPELINE] --run gpu --check` (the input's pipeline, else the default one; random inputs, result compared with
# the CPU reference executor; without --check where the file says `// gpu-check: no`) under one tool. Status: ok / seed-waw (above) / ERRORS (the sanitizer found
# some) / FAIL (tilec itself failed: its diagnostic is in the log).
results=()
failed=0
for f in "${inputs[@]}"; do
  for tool in $tools; do
    name=$(input_name "$f")
    log="$OUT/sanitize/$name.$tool.log"
    extra=()
    [ "$tool" = racecheck ] && extra=(--racecheck-report all)
    start=$(date +%s)
    limit=600
    if [ -n "$budget" ]; then
      limit=$(( began + budget - start ))
      if [ "$limit" -le 0 ]; then
        line=$(printf "%-28s %-10s %-7s (over the --budget of %ss)" "$name" "$tool" "skipped" "$budget")
        echo "sanitize: $line"; results+=("$line"); continue
      fi
      [ "$limit" -gt 600 ] && limit=600
    fi
    pipeline=()
    [ -n "${pipe[$f]:-}" ] && pipeline=(-p "${pipe[$f]}")
    if [[ $f == matmul:* ]]; then
      run=(python3 dev/device/matmul_check.py $(matmul_args "${f#matmul:}"))
    elif [[ $f == copy:* ]]; then
      run=(python3 dev/device/copy_check.py "${f#copy:}")
    else
      check=(--check)  # a result --check cannot bound (tanh.approx.f32: the generator says so) runs unchecked
      sed -n '1,3p' "$f" | grep -qx '// gpu-check: no' && check=()
      run=(python3 -m tilec.tools.tilec "$f" "${pipeline[@]}" --run gpu "${check[@]}")
    fi
    timeout "$limit" "$SANITIZER" --tool "$tool" --error-exitcode 1 "${extra[@]}" "${run[@]}" > "$log" 2>&1
    rc=$?
    secs=$(( $(date +%s) - start ))
    errors=$(grep -Eo "ERROR SUMMARY: [0-9]+ error" "$log" | tail -1 | grep -Eo "[0-9]+" || true)
    hazards=$(grep -Eo "RACECHECK SUMMARY: [0-9]+ hazard" "$log" | tail -1 | grep -Eo "[0-9]+" || true)
    if [ $rc -eq 0 ]; then
      status=ok
    elif [ $rc -eq 124 ]; then
      status=TIMEOUT; failed=1
    elif [ "$tool" = racecheck ] && [[ " $SAME_VALUE_WAW " == *" $name "* ]] && same_value_waw_only "$log"; then
      status=seed-waw
    elif [ "${errors:-0}" != 0 ] || [ "${hazards:-0}" != 0 ]; then
      status=ERRORS; failed=1
    else
      status=FAIL; failed=1
    fi
    line=$(printf "%-28s %-10s %-7s rc=%-3s errors=%-4s hazards=%-4s %4ss" "$name" "$tool" "$status" "$rc" "${errors:-?}" "${hazards:--}" "$secs")
    echo "sanitize: $line"
    [ "$status" != ok ] && grep -E "error|Invalid|Race|hazard|Barrier" "$log" | head -5 | sed 's/^/    /'
    results+=("$line")
  done
done

echo
echo "program                      tool       status  exit  errors hazards  time"
printf '%s\n' "${results[@]}" | tee "$OUT/sanitize/summary.txt"
echo "programs: ${#inputs[@]} ($count random, $mbarrier mbarrier, $cluster cluster, $atomic atomic, $dsmem dsmem, $epilogue epilogue, $ex2fma ex2fma, $clipped clipped, $coarsen coarsen, $prefetch prefetch_l1, $realign realign, seed $seed; examples: $examples; GEMMs: $i; matmul: $(wc -w <<< "$matmul"); copies: $(wc -w <<< "$copies")); logs in $OUT/sanitize"
if [ $failed -ne 0 ]; then
  echo "sanitize: FAILED (see the ERRORS/FAIL lines above)"
  exit 1
fi
echo "sanitize: all runs clean"
exit 0
