#!/usr/bin/env bash
# npm test: every check. Append later steps at the end, one heading each.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each heading prints the seconds the step before it took, and the total at the end, so a step that
# grows is seen (the whole run must stay under 6 minutes on 2 cores).
#
# Steps that leave a core idle run beside others (`together`): each in the background with its
# output kept in a log, printed whole under its heading with its own seconds when `wait_together`
# collects it; npm test fails when any of them fails, as when they ran one after another. The defect
# proof (its Playwright processes wait on their workers' start much of the time) runs beside the
# steps after it (the four quick static checks at once measured no faster: 19 s either way). Steps
# that share an output (conformance-report/rules.json: written by the conformance step, read by the
# shards) stay in order.
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
trap 'status=$?; [ "$BASHPID" = "$$" ] || exit "$status"; if [ -n "$step_name" ]; then echo "-- $step_name: $((SECONDS - step_started)) s"; fi; for pid in "${together_pids[@]}"; do kill -- "-$pid" 2>/dev/null || true; done; rm -rf "$logs"; echo "-- npm test: $((SECONDS - started)) s in all (exit $status)"' EXIT

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

step "lint: Spectral on spec/openapi.yaml (npm run lint)"
npm run --silent lint

step "generated types are up to date (npm run check:generated)"
npm run --silent check:generated

step "versioning gate: the working document against the last release (npm run contract:diff; README \"Bumping the version\")"
npm run --silent contract:diff

step "typecheck (npm run typecheck)"
npm run --silent typecheck

step "unit tests (npx vitest run)"
npx vitest run

step "every pinned, observable rule is named by a conformance test (npm run rules:coverage)"
npm run --silent rules:coverage

step "conformance suite against a fresh local mock (npm run conformance)"
npm run --silent conformance

together "defect proof: every injected contract violation is noticed (npm run conformance:defects)" npm run --silent conformance:defects

step "sharding: 3 shards, each a process with its own mock, merge into the rules report of the run above (npm run conformance:shards)"
npm run --silent conformance:shards

# A few tests only (each run starts a suite and a mock): the read-plane 429 (RATE-003), the
# generation-plane 429 (RATE-001) and the RateLimit headers of every response (RATE-020).
step "the released suite against the current mock: passes; with the pending version fails exactly on the read-plane 429 (npm run conformance:previous)"
PREVIOUS_TESTS='RATE-003 RATE-021|RATE-020 RATE-019|RATE-001 RATE-023 RATE-026 a generation-plane'
npm run --silent conformance:previous -- --ref release --grep "$PREVIOUS_TESTS"
npm run --silent conformance:previous -- --ref release --grep "$PREVIOUS_TESTS" --api-version next --expect-failures '^RATE-003 '

step "the mock in a real browser: a page on another origin, CORS, /docs/; and the in-process mock (MSW) behind a service worker, examples/msw/browser (npm run test:browser)"
npm run --silent test:browser

step "the console (/console/) in a real browser: every area through the page (npm run test:console)"
npm run --silent test:console

wait_together
