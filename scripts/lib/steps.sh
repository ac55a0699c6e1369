# Sourced by scripts/test.sh (npm test) and scripts/proofs.sh (npm run test:proofs): named steps that
# print their seconds, and steps run beside others (`together` / `wait_together`).
#
# Each heading prints the seconds the step before it took, and the total at the end, so a step that
# grows is seen; beside them the CPU seconds (user+sys of every process the step waited for, from
# /proc), which a loaded machine distorts far less than wall time: compare steps by their CPU.
#
# Steps that leave a core idle run beside others (`together`): each in the background with its
# output kept in a log, printed whole under its heading with its own seconds when `wait_together`
# collects it; the script fails when any of them fails, as when they ran one after another.
# cpu_ticks: sets `ticks` to the CPU time (user+sys, clock ticks) of this shell's waited-for children
# so far, 0 where /proc is missing (no subshell: it must read the calling shell's own figures).
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
cpu_ticks() {
  local stat fields
  ticks=0
  if read -r stat 2>/dev/null <"/proc/$BASHPID/stat"; then
    read -r -a fields <<<"${stat##*) }"
    ticks=$((fields[13] + fields[14]))
  fi
}
# cpu_since TICKS: sets `cpu` to the CPU seconds, to a tenth, since cpu_ticks gave TICKS.
cpu_since() {
  cpu_ticks
  local spent=$((ticks - $1))
  cpu="$((spent / hz)).$((spent * 10 / hz % 10))"
}
cpu_ticks
started=$SECONDS
started_cpu=$ticks
step_started=$SECONDS
step_started_cpu=$ticks
step_name=""
step_end() {
  if [ -n "$step_name" ]; then cpu_since "$step_started_cpu"; echo "-- $step_name: $((SECONDS - step_started)) s, $cpu s CPU"; fi
  step_name=""
}
step() {
  step_end
  step_name="$1"
  step_started=$SECONDS
  cpu_ticks
  step_started_cpu=$ticks
  echo "== $1"
}
logs=$(mktemp -d)
together_names=()
together_pids=()
trap 'status=$?; [ "$BASHPID" = "$$" ] || exit "$status"; step_end; for pid in "${together_pids[@]}"; do kill -- "-$pid" 2>/dev/null || true; done; rm -rf "$logs"; cpu_since "$started_cpu"; echo "-- ${STEPS_NAME:-steps}: $((SECONDS - started)) s in all, $cpu s CPU (exit $status)"' EXIT

# together NAME COMMAND...: start a step in the background (its own process group, so a failed run stops it).
together() {
  local name="$1" index=${#together_names[@]}
  shift
  step_end
  together_names+=("$name")
  set -m
  ( trap - EXIT; begun=$SECONDS; cpu_ticks; begun_cpu=$ticks; status=0; "$@" >"$logs/$index.log" 2>&1 || status=$?; cpu_since "$begun_cpu"; echo "$((SECONDS - begun)) $status $cpu" >"$logs/$index.done"; exit "$status" ) &
  together_pids+=("$!")
  set +m
}

# wait_together: wait for every step started with `together`; print each (heading, output, seconds) in the order started.
wait_together() {
  step_end
  local failed=0 i failures=()
  for i in "${!together_pids[@]}"; do
    wait "${together_pids[$i]}" || true
    echo "== ${together_names[$i]} (beside other steps)"
    cat "$logs/$i.log"
    local seconds status cpu
    read -r seconds status cpu <"$logs/$i.done"
    echo "-- ${together_names[$i]}: $seconds s, $cpu s CPU (exit $status)"
    if [ "$status" != 0 ]; then failed=1; failures+=("$i"); fi
  done
  # A failed step's end again, after every other step's output: a reader (or a CI page) that shows
  # only the last lines of the run still sees which step failed and why (docs/testing.md, D294).
  for i in "${failures[@]}"; do
    echo "== FAILED: ${together_names[$i]} (its last 80 lines again; the whole log is above)"
    tail -n 80 "$logs/$i.log"
    echo "-- FAILED: ${together_names[$i]}"
  done
  together_names=()
  together_pids=()
  if [ "$failed" != 0 ]; then exit 1; fi
  return 0
}

