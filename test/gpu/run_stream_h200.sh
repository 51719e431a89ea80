#!/bin/bash
# The persistent streaming kernels (kernels_dsl/stream_logits_fp8.mlir) on an
# NVIDIA H200: for every stream_EPILOGUE_*.ptx + .json in DIR (EPILOGUE =
# logits or full; from `tessel-translate --emit=ptx --resource-json`),
# ptxas's resource report, the float64-referenced check
# (test/gpu/stream_check.py) and compute-sanitizer's memcheck of a small
# check; then the streaming benchmark of all of them in one run
# (tools/tessel-gemm-bench --stream), with the 8192^3 GEMM line of
# DIR/gemm.ptx + gemm.json (tile in gemm.tile) when present. A kernel whose
# rows of A per program do not follow from its block (b_on_m = 1) has them
# in NAME.rows.
#
#   test/gpu/run_stream_h200.sh DIR [OUTDIR]
#
# SKIP_BENCH=1 skips the benchmark; SANITIZE=GLOB runs compute-sanitizer only
# on the kernels whose name matches GLOB (default: all); CHECK=GLOB likewise
# for the check; NCU=GLOB profiles those kernels with ncu (--clock-control
# none) at M=${NCU_M:-128}, N=4M. BENCH_NS overrides the benchmark's N list.
# Logs go to OUTDIR (default $OUT, else ./gpu-out). Exits non-zero if a
# check failed; prints a message and exits 0 without a CUDA device.
set -u
HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
USAGE="run_stream_h200.sh DIR [OUTDIR]"
. "$HERE/check_args.sh"
need_args 1 "$@"
dir_arg DIR DIR "$1"
OUTDIR=${2:-${OUT:-./gpu-out}}
mkdir -p "$OUTDIR"
export PYTHONUNBUFFERED=1
BENCH=$HERE/../../tools/tessel-gemm-bench/tessel-gemm-bench.py
if ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "run_stream_h200: skipped: no CUDA device (or no torch)"
  exit 0
fi
status=0
streams=()
for json in "$DIR"/stream_*.json; do
  [ -e "$json" ] || continue
  name=$(basename "$json" .json)
  ptx=$DIR/$name.ptx
  case $name in stream_full*) epi=full ;; *) epi=logits ;; esac
  rows=0
  [ -f "$DIR/$name.rows" ] && rows=$(cat "$DIR/$name.rows")
  streams+=(--stream "$epi:$ptx:$json:$rows")
  log=$OUTDIR/stream_$name.log
  echo "=== $name ($epi)" | tee "$log"
  ptxas -arch=sm_90a -v -o /dev/null "$ptx" 2>&1 | grep -E 'registers|spill|smem' | tee -a "$log"
  # shellcheck disable=SC2053
  if [[ $name == ${CHECK:-*} ]]; then
    timeout 300 python3 "$HERE/stream_check.py" --ptx "$ptx" --resources "$json" \
      --epilogue $epi --rows "$rows" 2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" -ne 0 ] && status=1
  fi
  # shellcheck disable=SC2053
  if command -v compute-sanitizer >/dev/null && [[ $name == ${SANITIZE:-*} ]]; then
    timeout 300 compute-sanitizer --tool memcheck --error-exitcode 3 \
      python3 "$HERE/stream_check.py" --ptx "$ptx" --resources "$json" \
      --epilogue $epi --rows "$rows" --sizes 128,80 128,1040 --programs 1 5 \
      >"$OUTDIR/sanitizer_$name.log" 2>&1
    rc=$?
    echo "compute-sanitizer memcheck: rc=$rc, $(grep -E 'ERROR SUMMARY' "$OUTDIR/sanitizer_$name.log")" | tee -a "$log"
    [ $rc -ne 0 ] && status=1
  fi
  # shellcheck disable=SC2053
  if [ -n "${NCU:-}" ] && command -v ncu >/dev/null && [[ $name == $NCU ]]; then
    timeout 300 ncu --clock-control none --kernel-name stream_logits_fp8 \
      --launch-count 1 --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats \
      --section MemoryWorkloadAnalysis \
      python3 "$BENCH" --skip-8192 --ms "${NCU_M:-128}" --ns 4194304 \
      --stream "$epi:$ptx:$json:$rows" >"$OUTDIR/ncu_$name.log" 2>&1
    echo "ncu: rc=$?, $OUTDIR/ncu_$name.log" | tee -a "$log"
  fi
done
if [ ${#streams[@]} -eq 0 ]; then
  echo "run_stream_h200: no stream_*.json in $DIR"
  exit 1
fi
if [ -z "${SKIP_BENCH:-}" ]; then
  gemm=(--skip-8192)
  if [ -f "$DIR/gemm.ptx" ]; then
    tile="64 128"
    [ -f "$DIR/gemm.tile" ] && tile=$(cat "$DIR/gemm.tile")
    gemm=(--ptx "$DIR/gemm.ptx" --resources "$DIR/gemm.json" --tile $tile)
  fi
  timeout 500 python3 "$BENCH" "${gemm[@]}" --skip-gemm-stream \
    --ns ${BENCH_NS:-8192 65536 524288 4194304} "${streams[@]}" 2>&1 | tee "$OUTDIR/bench.log"
  [ "${PIPESTATUS[0]}" -ne 0 ] && status=1
fi
exit $status
