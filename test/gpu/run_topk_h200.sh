#!/bin/bash
# topk_per_row on an NVIDIA H200 (or any sm_90 card), against a kernel library
# built elsewhere, with the runtime library built on this host:
#   - ptxas -v of the bundle's sm_90 topk_per_row code objects;
#   - runtime/python/tests/test_topk_cuda.py: the C entry point, the Context
#     method and torch.ops.tessel.topk_per_row (the compiled binding) against
#     torch.topk, compared as sets; 100 CUDA-graph replays on changing data;
#     torch.compile(fullgraph=True) against eager;
#   - tools/tessel-topk-bench (unless SKIP_BENCH=1): beside torch.topk, with
#     the CSV and tuned-table rows in OUTDIR;
#   - compute-sanitizer memcheck over the correctness cases (not the graph
#     and compile tests).
#
#   test/gpu/run_topk_h200.sh BUNDLE RUNTIME_LIBRARY [OUTDIR]
#
# Logs go to OUTDIR (default $OUT, else ./gpu-out). Exits non-zero if a
# correctness step failed; prints a message and exits 0 without a CUDA
# device.
set -u
HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
USAGE="run_topk_h200.sh BUNDLE RUNTIME_LIBRARY [OUTDIR]"
. "$HERE/check_args.sh"
need_args 2 "$@"
file_arg BUNDLE BUNDLE "$1"
file_arg LIB RUNTIME_LIBRARY "$2"
OUTDIR=${3:-${OUT:-./gpu-out}}
mkdir -p "$OUTDIR"
ROOT=$HERE/../..
# torch's extension build uses $CXX; /opt/gcc's g++ links a static libstdc++
# that crashes next to torch's.
export CXX=/usr/bin/g++ PYTHONUNBUFFERED=1 PYTHONPATH=$ROOT/runtime/python
export TESSEL_TEST_CUDA_BUNDLE=$BUNDLE TESSEL_TEST_RUNTIME_LIBRARY=$LIB
if ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "run_topk_h200: skipped: no CUDA device (or no torch)"
  exit 0
fi
status=0
TEST=$ROOT/runtime/python/tests/test_topk_cuda.py

# The bundle's topk_per_row PTX, one file per code object.
mkdir -p /tmp/tessel-topk-ptx
python3 - "$BUNDLE" /tmp/tessel-topk-ptx <<'PY'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
n, = struct.unpack_from("<I", data, 24)
moff, msize = struct.unpack_from("<QQ", data, 32)
blobs = [struct.unpack_from("<QQQ", data, 64 + 24 * i) for i in range(n)]
man = json.loads(data[moff:moff + msize])
for e in man["code_objects"]:
    if e["target"] in ("sm_90", "sm_90a") and e["kernel"] == "topk_per_row":
        off, size, _ = blobs[e["blob"]]
        open("%s/%s.%s.ptx" % (sys.argv[2], e["name"], e["target"]), "wb").write(data[off:off + size])
PY
for f in /tmp/tessel-topk-ptx/*.ptx; do
  arch=${f%.ptx}; arch=${arch##*.}
  echo "== $(basename "$f")"
  ptxas -arch="$arch" -v -o /dev/null "$f" 2>&1 | grep -E 'registers|spill|error' || status=1
done >"$OUTDIR/topk_ptxas.log" 2>&1
grep -E '^==|Used|spill' "$OUTDIR/topk_ptxas.log" | head -96

timeout 420 python3 -m pytest -q -p no:cacheprovider --durations=5 "$TEST" \
  >"$OUTDIR/topk_pytest.log" 2>&1 || status=1
tail -n 20 "$OUTDIR/topk_pytest.log"

if [ -z "${SKIP_BENCH:-}" ]; then
  # Up to 7 graphs per cell: the pick, sorted, torch and four variants.
  timeout 480 python3 "$ROOT/tools/tessel-topk-bench/tessel-topk-bench.py" \
    --bundle "$BUNDLE" --runtime "$LIB" --csv "$OUTDIR/topk_bench.csv" \
    --table "$OUTDIR/topk_table.csv" 2>&1 | tee "$OUTDIR/topk_bench.log"
fi

if command -v compute-sanitizer >/dev/null; then
  timeout 300 compute-sanitizer --tool memcheck --error-exitcode 3 \
    python3 -m pytest -q -p no:cacheprovider "$TEST" \
    -k "not graph and not compiled" >"$OUTDIR/topk_sanitizer.log" 2>&1
  rc=$?
  echo "compute-sanitizer memcheck: rc=$rc, $(grep -E 'ERROR SUMMARY' "$OUTDIR/topk_sanitizer.log" | tail -1)"
  tail -n 3 "$OUTDIR/topk_sanitizer.log"
  [ $rc -ne 0 ] && status=1
fi
echo "run_topk_h200.sh: overall status $status"
exit $status
