#!/usr/bin/env bash
# npm test: every check, in order. Append later steps at the end, one heading each.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== lint: Spectral on spec/openapi.yaml (npm run lint)"
npm run --silent lint

echo "== generated types are up to date (npm run check:generated)"
npm run --silent check:generated

echo "== typecheck (npm run typecheck)"
npm run --silent typecheck

echo "== unit tests (npx vitest run)"
npx vitest run

echo "== rule coverage of the conformance suite (npm run rules:coverage -- --report-only)"
npm run --silent rules:coverage -- --report-only

echo "== conformance suite against a fresh local mock (npm run conformance)"
npm run --silent conformance

echo "== defect proof: every injected contract violation is noticed (npm run conformance:defects)"
npm run --silent conformance:defects
