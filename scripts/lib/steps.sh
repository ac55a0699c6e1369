# Sourced by scripts/test.sh (npm test) and scripts/proofs.sh (npm run test:proofs): named steps that
# print their seconds, and steps run beside others (`together` / `wait_together`).
#
# Each heading prints the seconds the step before it took, and the total at the end, so a step that
# grows is seen.
#
# Steps that leave a core idle run beside others (`together`): each in the background with its
# output kept in a log, printed whole under its heading with its own seconds when `wait_together`
# collects it; the script fails when any of them fails, as when they ran one after another.
started=$SECONDS
step_started=$SECONDS
step_name=""
step() {
  if [ -n "$step_name" ]; then echo "-- $step_name: $((SECONDS - step_started)) s"; fi
  step_name="$1"
  step_started=$SECONDS
  echo "== $1"
}
logs=$(mktemp -d)
together_names=()
together_pids=()
trap 'status=$?; [ "$BASHPID" = "$$" ] || exit "$status"; if [ -n "$step_name" ]; then echo "-- $step_name: $((SECONDS - step_started)) s"; fi; for pid in "${together_pids[@]}"; do kill -- "-$pid" 2>/dev/null || true; done; rm -rf "$logs"; echo "-- ${STEPS_NAME:-steps}: $((SECONDS - started)) s in all (exit $status)"' EXIT

# together NAME COMMAND...: start a step in the background (its own process group, so a failed run stops it).
together() {
  local name="$1" index=${#together_names[@]}
  shift
  if [ -n "$step_name" ]; then echo "-- $step_name: $((SECONDS - step_started)) s"; fi
  step_name=""
  together_names+=("$name")
  set -m
  ( trap - EXIT; begun=$SECONDS; status=0; "$@" >"$logs/$index.log" 2>&1 || status=$?; echo "$((SECONDS - begun)) $status" >"$logs/$index.done"; exit "$status" ) &
  together_pids+=("$!")
  set +m
}

# wait_together: wait for every step started with `together`; print each (heading, output, seconds) in the order started.
wait_together() {
  if [ -n "$step_name" ]; then echo "-- $step_name: $((SECONDS - step_started)) s"; fi
  step_name=""
  local failed=0 i
  for i in "${!together_pids[@]}"; do
    wait "${together_pids[$i]}" || true
    echo "== ${together_names[$i]} (beside other steps)"
    cat "$logs/$i.log"
    local seconds status
    read -r seconds status <"$logs/$i.done"
    echo "-- ${together_names[$i]}: $seconds s (exit $status)"
    if [ "$status" != 0 ]; then failed=1; fi
  done
  together_names=()
  together_pids=()
  if [ "$failed" != 0 ]; then exit 1; fi
  return 0
}

