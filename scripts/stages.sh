# Sourced by .ci/run, run_tests.sh and scripts/sanitize.sh: `stage NAME COMMAND...` runs
# COMMAND and records its wall time; on exit, pass or fail, one line lists the stages on
# stderr, so the tail of a CI log says where the time went.
stages_name="${0#./}"
stages_started=$SECONDS
stages=""
stage() {
  local name="$1" t0=$SECONDS status=0
  shift
  "$@" || status=$?
  stages+=" $name $((SECONDS - t0)) s"
  if [[ $status -ne 0 ]]; then stages+=" (failed: exit $status)"; fi
  stages+=","
  return $status
}
stages_report() { echo "$stages_name:$stages total $((SECONDS - stages_started)) s" >&2; }
trap stages_report EXIT
