#!/bin/bash
# Host-side costs and the small kernels on an NVIDIA H200 (or any sm_90
# card), in one call: builds this tree's runtime alone (no LLVM/MLIR) with
# its GPU-host tools and the compiled torch binding, and, when given, a
# baseline tree's runtime beside it, then
#   - tessel-run-indexer --each-variant: every writer code object and one
#     decode step (the schedule included) against the float64 reference;
#   - pytest: test_torch_cuda.py (the torch ops, their CUDA-graph replays and
#     torch.compile(fullgraph=True)) and test_topk_cuda.py's graph, compile
#     and refusal tests;
#   - tessel-launch-overhead: the bare driver launch and the C API per call
#     (built-in empty kernel; the bundle's writer, logits and top-k);
#   - runtime/bench/torch_ops_overhead.py: host us per torch.ops call;
#   - tessel-metadata-bench and tessel-cache-write-bench: kernel time by
#     CUDA-graph replay beside event-timed launches;
#   - ncu on the writer at 262144 tokens.
# The baseline (BASE_BUNDLE, BASE_TREE) repeats the launch-overhead, torch
# and kernel benchmarks in the same run (the writer's pick only), for a
# before/after on one host.
#
#   test/gpu/run_host_costs_h200.sh BUNDLE [BASE_BUNDLE [BASE_TREE]]
#
# Logs go to $OUT (else ./gpu-out): system, build, tests, bench_new,
# bench_base and ncu. Exits
# non-zero if a correctness step failed.
set -u
HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
USAGE="run_host_costs_h200.sh BUNDLE [BASE_BUNDLE [BASE_TREE]]"
. "$HERE/check_args.sh"
need_args 1 "$@"
file_arg BUNDLE BUNDLE "$1"
BASE_BUNDLE='' BASE_TREE=''
[ -n "${2:-}" ] && file_arg BASE_BUNDLE BASE_BUNDLE "$2"
[ -n "${3:-}" ] && dir_arg BASE_TREE BASE_TREE "$3"
OUTDIR=${OUT:-./gpu-out}
mkdir -p "$OUTDIR"
B=/tmp/tessel-host-build
BB=/tmp/tessel-host-base
LIB=$B/lib/libtessel_runtime.so
export CXX=/usr/bin/g++ PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/runtime/python
status=0
. "$HERE/timed_step.sh"

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem \
    --format=csv; python3 --version
  python3 -c 'import torch; print("torch", torch.__version__)'; nproc
  sha256sum "$BUNDLE" ${BASE_BUNDLE:+"$BASE_BUNDLE"}; } >"$OUTDIR/system.log" 2>&1
cat "$OUTDIR/system.log"

# The runtime and the GPU-host tools of tree SRC into DIR (a command line:
# `step` runs it under `timeout`, which cannot run a shell function).
build_runtime() { # SRC DIR
  echo "cmake -G Ninja -S $1 -B $2 -DTESSEL_BUILD_COMPILER=OFF \
    -DTESSEL_BUILD_TESTS=OFF -DCMAKE_CXX_COMPILER=/usr/bin/g++ \
    -DCMAKE_BUILD_TYPE=Release >/dev/null && ninja -C $2 tessel_runtime \
    tessel-launch-overhead tessel-run-indexer tessel-cache-write-bench \
    tessel-metadata-bench"
}
step build-extension build.log 240 python3 -c \
  'from tessel import _torch_ops; print(_torch_ops.build_extension())' &
ext_pid=$!
if [ -n "$BASE_TREE" ]; then
  step build-base build.log 240 bash -c "$(build_runtime "$BASE_TREE" "$BB")" &
  base_pid=$!
fi
step build build.log 240 bash -c "$(build_runtime . "$B")"
wait $ext_pid || status=1
[ -n "$BASE_TREE" ] && { wait $base_pid || status=1; }

step run-indexer tests.log 120 "$B/bin/tessel-run-indexer" --device cuda \
  --bundle "$BUNDLE" --each-variant --quiet
step pytest tests.log 150 env TESSEL_TEST_CUDA_BUNDLE="$BUNDLE" \
  TESSEL_TEST_RUNTIME_LIBRARY="$LIB" python3 -m pytest -q -p no:cacheprovider \
  runtime/python/tests/test_torch_cuda.py runtime/python/tests/test_topk_cuda.py \
  -k 'torch_cuda or graph or compiled or refusals'
grep -E 'PASS|FAIL|passed|failed' "$OUTDIR/tests.log" | tail -n 6

# One group per runtime: this tree's, then the baseline's.
bench_group() { # TAG BUILD BUNDLE [WRITER-BENCH OPTIONS]
  step launch-empty-$1 bench_$1.log 60 "$2/bin/tessel-launch-overhead" --calls 10000
  step launch-real-$1 bench_$1.log 60 "$2/bin/tessel-launch-overhead" \
    --bundle "$3" --calls 10000
  step torch-$1 bench_$1.log 120 python3 runtime/bench/torch_ops_overhead.py \
    "$2/lib/libtessel_runtime.so" "$3" --calls 10000
  step metadata-$1 bench_$1.log 60 "$2/bin/tessel-metadata-bench" \
    --bundle "$3" --iters 100
  step cache-write-$1 bench_$1.log 120 "$2/bin/tessel-cache-write-bench" \
    --bundle "$3" --iters 100 "${@:4}"
}
bench_group new "$B" "$BUNDLE"
[ -n "$BASE_TREE" ] && bench_group base "$BB" "$BASE_BUNDLE" --pick-only

NCU="ncu --section SpeedOfLight --section Occupancy --section LaunchStats \
  --section WarpStateStats --section SchedulerStats --launch-skip 3 --launch-count 1"
step ncu-writer ncu.log 90 $NCU -k regex:indexer_k_cache_write \
  "$B/bin/tessel-cache-write-bench" --bundle "$BUNDLE" --tokens 262144 \
  --pick-only --iters 10
for t in new base; do
  [ -f "$OUTDIR/bench_$t.log" ] || continue
  echo "--- $t"
  grep -E '^(tessel_|bare)|packet|overload|floor|aten|pick|empty kernel|copy' \
    "$OUTDIR/bench_$t.log" | grep -v '^tessel: '
done
grep -E 'Duration|Throughput|Achieved Occupancy|Registers Per|Issued Ipc|Warp Cycles Per Issued' \
  "$OUTDIR/ncu.log"
echo "run_host_costs_h200.sh: overall status $status"
exit $status
