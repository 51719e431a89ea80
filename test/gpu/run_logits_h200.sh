#!/bin/bash
# paged_mqa_logits on an NVIDIA H200 (or any sm_90 card): builds the runtime
# alone (no LLVM/MLIR) and the compiled torch binding with the system g++,
# then runs
#   - runtime/python/tests/test_paged_mqa_logits_cuda.py: the correctness
#     matrix through the C API and torch.ops.tessel against float64;
#   - tools/tessel-logits-bench (with BENCH=1, the default): every variant
#     and the dispatcher's pick on issue 10's shapes, against the copy
#     bandwidth; its table, CSV and best-per-shape tuned rows go to OUTDIR;
#     then (PICK_CHECK=1, the default) the dispatcher's pick alone with
#     those rows as its table (logits_pick.csv);
#   - compute-sanitizer memcheck over a part of that matrix (0 errors).
#
#   test/gpu/run_logits_h200.sh BUNDLE [SM90_BUNDLE] [OUTDIR]
#
# BUNDLE is the kernel library built elsewhere; SM90_BUNDLE (optional, "" to
# skip) holds only the sm_90 (mma.sync) code objects, so that they are timed
# too (where both exist the runtime prefers sm_90a's). Logs go to OUTDIR
# (default $OUT, else ./gpu-out). Exits non-zero if a correctness step failed.
set -u
HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
USAGE="run_logits_h200.sh BUNDLE [SM90_BUNDLE] [OUTDIR]"
. "$HERE/check_args.sh"
need_args 1 "$@"
file_arg BUNDLE BUNDLE "$1"
SM90=
[ -n "${2:-}" ] && file_arg SM90 SM90_BUNDLE "$2"
OUTDIR=${3:-${OUT:-./gpu-out}}
mkdir -p "$OUTDIR"
B=/tmp/tessel-logits-build
LIB=$B/lib/libtessel_runtime.so
export CXX=/usr/bin/g++ PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/runtime/python
status=0
. "$HERE/timed_step.sh"

{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem \
    --format=csv; python3 -c 'import torch; print("torch", torch.__version__)'
  sha256sum "$BUNDLE" ${SM90:+"$SM90"}; } >"$OUTDIR/system.log" 2>&1
cat "$OUTDIR/system.log"

step build-extension build.log 240 python3 -c \
  'from tessel import _torch_ops; print(_torch_ops.build_extension())' &
ext_pid=$!
step build-runtime build.log 240 bash -c "cmake -G Ninja -S . -B $B \
  -DTESSEL_BUILD_COMPILER=OFF -DTESSEL_BUILD_TESTS=OFF \
  -DCMAKE_CXX_COMPILER=/usr/bin/g++ -DCMAKE_BUILD_TYPE=Release >/dev/null && \
  ninja -C $B tessel_runtime"
wait $ext_pid || status=1

# ptxas's registers and spills of each logits code object (the bundle's
# manifest has none for PTX).
if command -v ptxas >/dev/null; then
  python3 - "$BUNDLE" "$OUTDIR/ptxas.log" <<'PY'
import json, struct, subprocess, sys, tempfile
data = open(sys.argv[1], "rb").read()
n, = struct.unpack_from("<I", data, 24)
moff, msize = struct.unpack_from("<QQ", data, 32)
blobs = [struct.unpack_from("<QQQ", data, 64 + 24 * i) for i in range(n)]
with open(sys.argv[2], "w") as log:
    for e in json.loads(data[moff:moff + msize])["code_objects"]:
        if e["kernel"] != "paged_mqa_logits":
            continue
        off, size, _ = blobs[e["blob"]]
        with tempfile.NamedTemporaryFile(suffix=".ptx") as f:
            f.write(data[off:off + size])
            f.flush()
            r = subprocess.run(["ptxas", "-arch=" + e["target"], "-v", "-o",
                                "/dev/null", f.name], capture_output=True,
                               text=True)
        lines = [l for l in r.stderr.splitlines() if "registers" in l or
                 "spill" in l or "error" in l]
        log.write("%s rc=%d %s\n" % (e["name"], r.returncode,
                                      " | ".join(l.strip() for l in lines)))
PY
  cut -c1-220 "$OUTDIR/ptxas.log"
fi

tests=runtime/python/tests/test_paged_mqa_logits_cuda.py
step pytest pytest.log 180 env TESSEL_TEST_CUDA_BUNDLE="$BUNDLE" \
  TESSEL_TEST_RUNTIME_LIBRARY="$LIB" python3 -m pytest -q -p no:cacheprovider \
  "$tests"
tail -n 12 "$OUTDIR/pytest.log"

if [ "${BENCH:-1}" != 0 ]; then
  step bench bench.log ${BENCH_LIMIT:-300} python3 tools/tessel-logits-bench/tessel-logits-bench.py \
    --runtime "$LIB" --bundle "$BUNDLE" ${SM90:+--bundle "$SM90"} \
    --csv "$OUTDIR/logits_bench.csv" --tuned-out "$OUTDIR/tuned_sm90.csv"
  grep -E '^H=|pick|best|copy|failed' "$OUTDIR/bench.log" | tail -n 80
  # The dispatcher with the table just measured: its pick per shape, timed
  # in the same run (compare with the best of logits_bench.csv).
  if [ "${PICK_CHECK:-1}" != 0 ] && [ -s "$OUTDIR/tuned_sm90.csv" ]; then
    mkdir -p "$OUTDIR/tuned" && cp "$OUTDIR/tuned_sm90.csv" \
      "$OUTDIR/tuned/paged_mqa_logits.csv"
    step bench-pick bench_pick.log ${BENCH_LIMIT:-300} python3 \
      tools/tessel-logits-bench/tessel-logits-bench.py --runtime "$LIB" \
      --bundle "$BUNDLE" --pick-only --tuned-dir "$OUTDIR/tuned" \
      --csv "$OUTDIR/logits_pick.csv"
    grep -E '^H=|picked|failed' "$OUTDIR/bench_pick.log" | tail -n 50
  fi
fi
if command -v compute-sanitizer >/dev/null; then
  # Both head counts, every block size, next_n 3 (a partial row group on
  # rows_per_program 2 and 4), 1-D and 2-D lengths; MEMCHECK_K picks other
  # tests (a pytest -k expression).
  step memcheck memcheck.log 180 compute-sanitizer --tool memcheck \
    --error-exitcode 3 env TESSEL_TEST_CUDA_BUNDLE="$BUNDLE" \
    TESSEL_TEST_RUNTIME_LIBRARY="$LIB" python3 -m pytest -q \
    -p no:cacheprovider "$tests" -k "${MEMCHECK_K:-matrix and n3}"
  grep -E 'ERROR SUMMARY|passed|failed' "$OUTDIR/memcheck.log" | tail -n 4
fi

echo "run_logits_h200.sh: overall status $status"
exit $status
