# shellcheck shell=bash
# Sourced by the GPU run scripts. `step NAME LOG TIMEOUT CMD...` runs CMD
# under a time limit, appends its output to $OUTDIR/LOG, prints and logs its
# exit status and wall time, and sets status=1 if it failed (the scripts run
# every step and exit non-zero at the end, so one failure hides no other).
#
# STEP_TAIL=N also prints the last N lines of the step's own output (less
# the runtime's "tessel: " log lines) when it fails, or after every step
# with STEP_TAIL_WHEN=always.
step() {
  local name=$1 log=$2 limit=$3; shift 3
  touch "$OUTDIR/$log"
  local from=$(($(stat -c %s "$OUTDIR/$log") + 1))
  echo "=== $name: $*" >>"$OUTDIR/$log"
  local t0=$(date +%s%N)
  timeout "$limit" "$@" >>"$OUTDIR/$log" 2>&1
  local rc=$?
  local ms=$((($(date +%s%N) - t0) / 1000000))
  if [ "${STEP_TAIL:-0}" -gt 0 ] &&
    { [ $rc -ne 0 ] || [ "${STEP_TAIL_WHEN:-}" = always ]; }; then
    tail -c +"$from" "$OUTDIR/$log" | grep -v '^tessel: ' | tail -n "$STEP_TAIL"
  fi
  echo "=== $name: rc=$rc, $ms ms" | tee -a "$OUTDIR/$log"
  [ $rc -ne 0 ] && status=1
  return $rc
}
