#!/usr/bin/env bash
# npm test: every check. Append later steps at the end, one heading each.
set -euo pipefail
cd "$(dirname "$0")/.."

# The step helpers (step, together, wait_together) are in scripts/lib/steps.sh. The whole run must
# stay under 6 minutes on 2 cores; the longer proofs are in scripts/proofs.sh (npm run test:proofs),
# which .ci/run runs after this. The defect proof (its Playwright processes wait on their workers'
# start much of the time) runs beside the steps after it (the four quick static checks at once
# measured no faster: 19 s either way). Steps that share an output (conformance-report/rules.json:
# written by the conformance step, read by the shards) stay in order.
STEPS_NAME="npm test"
source scripts/lib/steps.sh

step "lint: Spectral on spec/openapi.yaml (npm run lint)"
npm run --silent lint

step "the documents under stock validators: @apidevtools/swagger-parser and Redocly's recommended rules (npm run validate; redocly.yaml)"
npm run --silent validate

step "generated types are up to date (npm run check:generated)"
npm run --silent check:generated

step "versioning gate: the working document against the last release (npm run contract:diff; README \"Bumping the version\")"
npm run --silent contract:diff

step "typecheck (npm run typecheck)"
npm run --silent typecheck

step "unit tests (npx vitest run, projects unit and isolated; the packaged-command test, project package, runs in npm run test:proofs)"
npx vitest run --project unit --project isolated

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
