# Sourced by the GPU run scripts. `step NAME LOG TIMEOUT CMD...` runs CMD
# under a time limit, appends its output to $OUTDIR/LOG, prints and logs its
# exit status and wall time, and sets status=1 if it failed (the scripts run
# every step and exit non-zero at the end, so one failure hides no other).
step() {
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
