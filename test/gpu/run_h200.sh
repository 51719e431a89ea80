#!/bin/bash
# The GPU run of Tessel on an NVIDIA H200 (or any sm_90 card): builds the
# runtime alone (no LLVM/MLIR), runs the indexer pipeline against its float64
# reference on the real compiled sm_90 PTX, the K-cache writer benchmark, the
# launch-overhead program, the schedule-metadata benchmark, the Python
# binding against torch, top-k (run_topk_h200.sh), paged_mqa_logits's
# matrix, memcheck and benchmark (run_logits_h200.sh), ptxas's resource
# report of every sm_90 code object and compute-sanitizer's memcheck.
#
#   test/gpu/run_h200.sh BUNDLE [OUTDIR]
#
# BUNDLE is the kernel library built elsewhere (build/kernels/
# tessel_kernels.tbundle). Logs go to OUTDIR (default $OUT, else ./gpu-out).
# Exits non-zero if any correctness step failed.
set -u
HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
USAGE="run_h200.sh BUNDLE [OUTDIR]"
. "$HERE/check_args.sh"
need_args 1 "$@"
file_arg BUNDLE BUNDLE "$1"
OUTDIR=${2:-${OUT:-./gpu-out}}
mkdir -p "$OUTDIR"
B=/tmp/tessel-gpu-build
status=0
# Each step's output tail goes to stdout too: the run's console is its summary.
STEP_TAIL=40 STEP_TAIL_WHEN=always
. "$HERE/timed_step.sh"

{ date -u; nvidia-smi; nvidia-smi -q | grep -iE 'clocks|MHz' | head -20
  /usr/bin/g++ --version | head -1; cmake --version | head -1
  sha256sum "$BUNDLE"; } >"$OUTDIR/system.log" 2>&1
head -20 "$OUTDIR/system.log"

step build build.log 300 bash -c "cmake -G Ninja -S . -B $B \
  -DTESSEL_BUILD_COMPILER=OFF -DTESSEL_BUILD_TESTS=OFF \
  -DCMAKE_CXX_COMPILER=/usr/bin/g++ -DCMAKE_BUILD_TYPE=Release && \
  ninja -C $B tessel-run-indexer tessel-cache-write-bench tessel-launch-overhead \
  tessel-metadata-bench"

step run-indexer run_indexer.log 180 "$B/bin/tessel-run-indexer" --device cuda \
  --bundle "$BUNDLE" --each-variant
step bench bench.log 240 "$B/bin/tessel-cache-write-bench" --bundle "$BUNDLE"
step launch-overhead-empty launch_overhead.log 60 "$B/bin/tessel-launch-overhead"
step launch-overhead-real launch_overhead.log 60 "$B/bin/tessel-launch-overhead" \
  --bundle "$BUNDLE" --tokens 1
step launch-overhead-checks launch_overhead.log 60 "$B/bin/tessel-launch-overhead" \
  --bundle "$BUNDLE" --tokens 0
step metadata-bench metadata_bench.log 60 "$B/bin/tessel-metadata-bench" \
  --bundle "$BUNDLE"
export PYTHONUNBUFFERED=1
step python python.log 180 python3 test/gpu/torch_check.py \
  "$B/lib/libtessel_runtime.so" "$BUNDLE"
step pytest python.log 120 env TESSEL_TEST_CUDA_BUNDLE="$BUNDLE" \
  TESSEL_TEST_RUNTIME_LIBRARY="$B/lib/libtessel_runtime.so" \
  PYTHONPATH=runtime/python python3 -m pytest -q -p no:cacheprovider \
  runtime/python/tests/test_torch_cuda.py

# ptxas's report of the PTX in the bundle (the manifest has no register counts
# for PTX: the library builder does not run ptxas).
mkdir -p /tmp/tessel-ptx
python3 - "$BUNDLE" /tmp/tessel-ptx <<'PY' >>"$OUTDIR/ptxas.log" 2>&1
import json, struct, sys
data = open(sys.argv[1], "rb").read()
n, = struct.unpack_from("<I", data, 24)
moff, msize = struct.unpack_from("<QQ", data, 32)
blobs = [struct.unpack_from("<QQQ", data, 64 + 24 * i) for i in range(n)]
man = json.loads(data[moff:moff + msize])
for e in man["code_objects"]:
    if e["target"] in ("sm_90", "sm_90a"):
        off, size, _ = blobs[e["blob"]]
        open("%s/%s.%s.ptx" % (sys.argv[2], e["name"], e["target"]), "wb").write(data[off:off + size])
PY
for f in /tmp/tessel-ptx/*.ptx; do
  echo "== $(basename "$f")" >>"$OUTDIR/ptxas.log"
  arch=${f%.ptx}; arch=${arch##*.}
  timeout 60 ptxas -arch="$arch" -v -o /dev/null "$f" >>"$OUTDIR/ptxas.log" 2>&1 || status=1
done
grep -E '^==|registers|spill|smem' "$OUTDIR/ptxas.log" | head -40

# topk_per_row: the C API, the Python op, graph replays, memcheck and the
# benchmark beside torch.topk (run_topk_h200.sh).
step topk topk.log 900 test/gpu/run_topk_h200.sh "$BUNDLE" \
  "$B/lib/libtessel_runtime.so" "$OUTDIR"

# paged_mqa_logits: its correctness matrix, memcheck and benchmark
# (run_logits_h200.sh; logs under OUTDIR/logits).
step logits logits.log 900 test/gpu/run_logits_h200.sh "$BUNDLE" "" \
  "$OUTDIR/logits"

if command -v compute-sanitizer >/dev/null; then
  step sanitizer sanitizer.log 150 compute-sanitizer --tool memcheck \
    --error-exitcode 3 "$B/bin/tessel-run-indexer" --device cuda \
    --bundle "$BUNDLE" --quiet
fi
echo "run_h200.sh: overall status $status"
exit $status
