#!/usr/bin/env bash
# npm test: every check, in order. Append later steps at the end, one heading each.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each heading prints the seconds the step before it took, and the total at the end, so a step that
# grows is seen (the whole run must stay under 6 minutes on 2 cores).
started=$SECONDS
step_started=$SECONDS
step_name=""
step() {
  if [ -n "$step_name" ]; then echo "-- $step_name: $((SECONDS - step_started)) s"; fi
  step_name="$1"
  step_started=$SECONDS
  echo "== $1"
}
trap 'status=$?; if [ -n "$step_name" ]; then echo "-- $step_name: $((SECONDS - step_started)) s"; fi; echo "-- npm test: $((SECONDS - started)) s in all (exit $status)"' EXIT

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

step "sharding: 3 shards, each a process with its own mock, merge into the rules report of the run above (npm run conformance:shards)"
npm run --silent conformance:shards

step "defect proof: every injected contract violation is noticed (npm run conformance:defects)"
npm run --silent conformance:defects

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
