#!/bin/bash
# torch.ops.tessel.* on an NVIDIA H200 (or any sm_90 card): builds the runtime
# alone (no LLVM/MLIR) and, beside it, the compiled torch binding
# (runtime/python/tessel/csrc/torch_ops.cpp) with the system g++; then
#   - tessel-launch-overhead: the bare driver launch and the C API per call,
#     on its built-in empty kernel and on the bundle's real kernel;
#   - runtime/python/tests/test_torch_cuda.py: the op through the binding
#     against torch's fp8 cast, 20 CUDA-graph replays against eager calls,
#     torch.compile(fullgraph=True) bit-exact against eager;
#   - runtime/bench/torch_ops_overhead.py: host us per torch.ops call, by
#     binding (compiled, ctypes), beside torch's own op-call floor.
#
#   test/gpu/run_torch_ops_h200.sh BUNDLE [OUTDIR]
#
# BUNDLE is the kernel library built elsewhere (build/kernels/
# tessel_kernels.tbundle). Logs go to OUTDIR (default $OUT, else ./gpu-out).
# Exits non-zero if a correctness step failed.
set -u
HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
USAGE="run_torch_ops_h200.sh BUNDLE [OUTDIR]"
. "$HERE/check_args.sh"
need_args 1 "$@"
file_arg BUNDLE BUNDLE "$1"
OUTDIR=${2:-${OUT:-./gpu-out}}
mkdir -p "$OUTDIR"
B=/tmp/tessel-torch-build
LIB=$B/lib/libtessel_runtime.so
# torch's extension build uses $CXX; /opt/gcc's g++ links a static libstdc++
# that crashes next to torch's.
export CXX=/usr/bin/g++ PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/runtime/python
status=0
. "$HERE/timed_step.sh"

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem \
    --format=csv; python3 --version; python3 -c 'import torch; print("torch", torch.__version__)'
  $CXX --version | head -1; nproc; sha256sum "$BUNDLE"; } >"$OUTDIR/system.log" 2>&1
cat "$OUTDIR/system.log"

# The extension builds in the background, beside the runtime (a step in a
# subshell cannot set $status: its exit code is checked at the wait).
step build-extension build_extension.log 240 python3 -c \
  'from tessel import _torch_ops; print(_torch_ops.build_extension(verbose=True))' &
ext_pid=$!
step build-runtime build.log 240 bash -c "cmake -G Ninja -S . -B $B \
  -DTESSEL_BUILD_COMPILER=OFF -DTESSEL_BUILD_TESTS=OFF \
  -DCMAKE_CXX_COMPILER=/usr/bin/g++ -DCMAKE_BUILD_TYPE=Release >/dev/null && \
  ninja -C $B tessel_runtime tessel-launch-overhead"
wait $ext_pid || status=1
grep -iE 'error' "$OUTDIR/build.log" "$OUTDIR/build_extension.log" | head -20

step launch-overhead-empty launch_overhead.log 60 "$B/bin/tessel-launch-overhead"
step launch-overhead-real launch_overhead.log 60 "$B/bin/tessel-launch-overhead" \
  --bundle "$BUNDLE" --tokens 1
grep -E 'tessel_|bare|overhead' "$OUTDIR/launch_overhead.log"

step pytest pytest.log 180 env TESSEL_TEST_CUDA_BUNDLE="$BUNDLE" \
  TESSEL_TEST_RUNTIME_LIBRARY="$LIB" python3 -m pytest -q -p no:cacheprovider \
  --durations=10 runtime/python/tests/test_torch_cuda.py
tail -n 16 "$OUTDIR/pytest.log"

step bench bench.log 120 python3 runtime/bench/torch_ops_overhead.py "$LIB" \
  "$BUNDLE" --json "$OUTDIR/bench.json"
grep -vE '^(tessel: |W[0-9])' "$OUTDIR/bench.log" | tail -n 12
echo "run_torch_ops_h200.sh: overall status $status"
exit $status
