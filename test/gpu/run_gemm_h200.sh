#!/bin/bash
# The scaled GEMM kernels on an NVIDIA H200: for every NAME.ptx + NAME.json
# (from `tessel-translate --emit=ptx --resource-json`) in DIR, ptxas's
# resource report, the float64-referenced check (test/gpu/gemm_check.py),
# compute-sanitizer's memcheck of a small check, and, for fp8 kernels, the
# streaming / 8192^3 benchmark (tools/tessel-gemm-bench).
#
#   test/gpu/run_gemm_h200.sh DIR [OUTDIR]
#
# NAME contains "fp8" or "bf16" (the operand type); an optional NAME.tile
# holds the C tile of one program ("64 128"; default "64 64"). Logs go to OUTDIR
# (default $OUT, else ./gpu-out). Exits non-zero if a check failed.
set -u
HERE=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
USAGE="run_gemm_h200.sh DIR [OUTDIR]"
. "$HERE/check_args.sh"
need_args 1 "$@"
dir_arg DIR DIR "$1"
OUTDIR=${2:-${OUT:-./gpu-out}}
mkdir -p "$OUTDIR"
export PYTHONUNBUFFERED=1
BENCH=$HERE/../../tools/tessel-gemm-bench/tessel-gemm-bench.py
status=0
for json in "$DIR"/*.json; do
  name=$(basename "$json" .json)
  ptx=$DIR/$name.ptx
  case $name in *bf16*) dtype=bf16 ;; *) dtype=fp8 ;; esac
  arch=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['target'])" "$json")
  # wgmma's fp8 accumulation keeps about 14 bits (gemm_check.py says why).
  bits=24
  [ "$dtype$arch" = fp8sm_90a ] && bits=14
  tile="64 64"
  [ -f "$DIR/$name.tile" ] && tile=$(cat "$DIR/$name.tile")
  log=$OUTDIR/gemm_$name.log
  echo "=== $name ($dtype, $arch)" | tee "$log"
  ptxas -arch="$arch" -v -o /dev/null "$ptx" 2>&1 | grep -E 'registers|spill' | tee -a "$log"
  timeout 300 python3 "$HERE/gemm_check.py" --ptx "$ptx" --resources "$json" \
    --dtype "$dtype" --accum-bits $bits --tile $tile 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -ne 0 ] && status=1
  if command -v compute-sanitizer >/dev/null; then
    timeout 300 compute-sanitizer --tool memcheck --error-exitcode 3 \
      python3 "$HERE/gemm_check.py" --ptx "$ptx" --resources "$json" \
      --dtype "$dtype" --accum-bits $bits --tile $tile --sizes 64,64,32 80,144,96 256,256,512 >"$OUTDIR/sanitizer_$name.log" 2>&1
    rc=$?
    echo "compute-sanitizer memcheck: rc=$rc, $(grep -E 'ERROR SUMMARY' "$OUTDIR/sanitizer_$name.log")" | tee -a "$log"
    [ $rc -ne 0 ] && status=1
  fi
  if [ "$dtype" = fp8 ] && [ -z "${SKIP_BENCH:-}" ]; then
    timeout 400 python3 "$BENCH" --ptx "$ptx" --resources "$json" --tile $tile 2>&1 | tee -a "$log"
  fi
done
exit $status
