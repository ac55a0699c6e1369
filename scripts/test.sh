#!/usr/bin/env bash
# npm test: every check. Append later steps at the end, one heading each.
set -euo pipefail
cd "$(dirname "$0")/.."

# The step helpers (step, together, wait_together) are in scripts/lib/steps.sh; each heading prints
# wall and CPU seconds (compare by CPU on a loaded machine). The whole run must stay under 6 minutes
# on 2 cores; the longer proofs are in scripts/proofs.sh (npm run test:proofs), which .ci/run runs
# after this (docs/testing.md has the measured budget and the order, D191 and D235). Steps that
# share an output stay in order.
STEPS_NAME="npm test"
source scripts/lib/steps.sh

# The defect proof needs nothing the other steps make and is the longest: it starts first and runs
# beside all of them (D191, D235).
together "defect proof: every injected contract violation is noticed (npm run conformance:defects)" npm run --silent conformance:defects

step "lint: Spectral on packages/contract/spec/openapi.yaml (npm run lint)"
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

# The browser steps (the mock's and the console's) are in test:proofs, beside the runs that wait
# (D237, D241).

step "every pinned, observable rule is named by a conformance test (npm run rules:coverage)"
npm run --silent rules:coverage

# No traces here (D232): a failure prints its exchanges; `npm run conformance` alone keeps them.
step "conformance suite against a fresh local mock (npm run conformance -- --trace=off)"
npm run --silent conformance -- --trace=off

wait_together
