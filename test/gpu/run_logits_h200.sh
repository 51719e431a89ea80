#!/bin/bash
# paged_mqa_logits on an NVIDIA H200 (or any sm_90 card): builds the runtime
# alone (no LLVM/MLIR) and the compiled torch binding with the system g++,
# then runs
#   - runtime/python/tests/test_paged_mqa_logits_cuda.py: the correctness
#     matrix through the C API and torch.ops.tessel against float64;
#   - compute-sanitizer memcheck over a part of that matrix (0 errors);
#   - tools/tessel-logits-bench (with BENCH=1, the default): every variant
#     and the dispatcher's pick on issue 10's shapes, against the copy
#     bandwidth; its table, CSV and best-per-shape tuned rows go to OUTDIR.
#
#   test/gpu/run_logits_h200.sh BUNDLE [SM90_BUNDLE] [OUTDIR]
#
# BUNDLE is the kernel library built elsewhere; SM90_BUNDLE (optional, "" to
# skip) holds only the sm_90 (mma.sync) code objects, so that they are timed
# too (where both exist the runtime prefers sm_90a's). Logs go to OUTDIR
# (default $OUT, else ./gpu-out). Exits non-zero if a correctness step failed.
set -u
BUNDLE=$(readlink -f "${1:?usage: run_logits_h200.sh BUNDLE [SM90_BUNDLE] [OUTDIR]}")
SM90=${2:-}
[ -n "$SM90" ] && SM90=$(readlink -f "$SM90")
OUTDIR=${3:-${OUT:-./gpu-out}}
mkdir -p "$OUTDIR"
B=/tmp/tessel-logits-build
LIB=$B/lib/libtessel_runtime.so
export CXX=/usr/bin/g++ PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/runtime/python
status=0
step() { # step NAME LOG TIMEOUT CMD...: run, log, remember a failure
  local name=$1 log=$2 limit=$3; shift 3
  echo "=== $name: $*" >>"$OUTDIR/$log"
  local t0=$(date +%s%N)
  timeout "$limit" "$@" >>"$OUTDIR/$log" 2>&1
  local rc=$?
  echo "=== $name: rc=$rc, $(( ($(date +%s%N) - t0) / 1000000 )) ms" |
    tee -a "$OUTDIR/$log"
  [ $rc -ne 0 ] && status=1
  return $rc
}

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem \
    --format=csv; python3 -c 'import torch; print("torch", torch.__version__)'
  sha256sum "$BUNDLE" ${SM90:+"$SM90"}; } >"$OUTDIR/system.log" 2>&1
cat "$OUTDIR/system.log"

step build-extension build_extension.log 240 python3 -c \
  'from tessel import _torch_ops; print(_torch_ops.build_extension())' &
ext_pid=$!
step build-runtime build.log 240 bash -c "cmake -G Ninja -S . -B $B \
  -DTESSEL_BUILD_COMPILER=OFF -DTESSEL_BUILD_TESTS=OFF \
  -DCMAKE_CXX_COMPILER=/usr/bin/g++ -DCMAKE_BUILD_TYPE=Release >/dev/null && \
  ninja -C $B tessel_runtime"
wait $ext_pid || status=1

tests=runtime/python/tests/test_paged_mqa_logits_cuda.py
step pytest pytest.log 240 env TESSEL_TEST_CUDA_BUNDLE="$BUNDLE" \
  TESSEL_TEST_RUNTIME_LIBRARY="$LIB" python3 -m pytest -q -p no:cacheprovider \
  "$tests"
tail -n 12 "$OUTDIR/pytest.log"

if command -v compute-sanitizer >/dev/null; then
  # Both head counts, every block size and next_n 1 and 3 (a partial row
  # group on rows_per_program 2 and 4), 1-D and 2-D lengths.
  step memcheck memcheck.log 300 compute-sanitizer --tool memcheck \
    --error-exitcode 3 env TESSEL_TEST_CUDA_BUNDLE="$BUNDLE" \
    TESSEL_TEST_RUNTIME_LIBRARY="$LIB" python3 -m pytest -q \
    -p no:cacheprovider "$tests" -k "matrix and (n1 or n3)"
  grep -E 'ERROR SUMMARY|passed|failed' "$OUTDIR/memcheck.log" | tail -n 4
fi

if [ "${BENCH:-1}" != 0 ]; then
  step bench bench.log 420 python3 tools/tessel-logits-bench/tessel-logits-bench.py \
    --runtime "$LIB" --bundle "$BUNDLE" ${SM90:+--bundle "$SM90"} \
    --csv "$OUTDIR/logits_bench.csv" --tuned-out "$OUTDIR/tuned_sm90.csv"
  grep -E '^H=|pick|best|copy|failed' "$OUTDIR/bench.log" | tail -n 80
fi
echo "run_logits_h200.sh: overall status $status"
exit $status
