#!/usr/bin/env bash
# npm run test:proofs: the proofs too long for npm test's 6 minutes (README "Two commands"). .ci/run
# runs it after npm test; CI as a whole stays inside 15 minutes on 2 cores. Append a step at the
# end, one heading each, as in scripts/test.sh.
#
# Order (docs/testing.md, D191, D241): a proof that mostly waits on a real clock or a browser (the
# keys-only run, the console, the client exam's Retry-After waits, the browser step) starts first
# with `together`, with the package tests (about one core while they install), beside the proofs
# that keep both cores busy, which run one after another. The sharding and previous-release proofs moved here from
# npm test (D193); sharding runs first, while conformance-report/rules.json is still npm test's.
# Each heading prints wall and CPU seconds: compare by CPU on a loaded machine. A new proof that
# waits more than it computes (a real clock, real Retry-After) goes in the `together` group; one
# that computes goes with the `step`s.
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS_NAME="npm run test:proofs"
source scripts/lib/steps.sh

together "a correct target behind a real network (#23): the mock's API behind a front that hides /__mock, one account pair given as keys only (with history) and shared by 4 workers, real clock: 0 failures (scripts/prove-real-target.ts)" npx tsx scripts/prove-real-target.ts --workers 4 --out real-keys

together "the console (/console/) in a real browser: every area through the page, axe on each view (npm run test:console; mostly waits on Chromium, D237)" npm run --silent test:console

together "the client exam's defect proof: cgs-client-check (strict, tasks 1-9) passes the example client under seeds 1-4, sequential and parallel, and beside other traffic, and fails each of seventeen faulty variants on exactly its rules and tasks, exit 1 (npm run exam:proof: 26 exams, real Retry-After waits of 1-3 s; about 300 s wall, 60 s CPU)" npm run --silent exam:proof

together "the mock in a real browser: a page on another origin, CORS, /docs/; and the in-process mock (MSW) behind a service worker, examples/msw/browser (npm run test:browser; mostly waits on Chromium, D241)" npm run --silent test:browser

# The package tests install and build for about two minutes, about one core (D241).
together "the package as a team gets it: npm pack once (bin/lib/pack-once.ts, D233), installed into empty projects: each command run from there, the whole suite through the packaged cgs-conformance (bin/package.test.ts); the exams: cgs-client-check passes the example client (exit 0) and fails a faulty one (1), cgs-webhooks-check passes the example receiver (0), both refuse a bad flag (2) (bin/exam-package.test.ts)" npx vitest run --project package

step "sharding: 3 shards, each a process with its own mock, merge into the rules report of npm test's conformance run (conformance-report/rules.json; without it, the same files run once unsharded) (npm run conformance:shards)"
npm run --silent conformance:shards

# A few tests only (each run starts a suite and a mock): the read-plane 429 (RATE-003), the
# generation-plane 429 (RATE-001) and the RateLimit headers of every response (RATE-020).
step "the released suite against the current mock: passes; with the pending version fails exactly on the read-plane 429 (npm run conformance:previous)"
PREVIOUS_TESTS='RATE-003 RATE-021|RATE-020 RATE-019|RATE-001 RATE-023 RATE-026 a generation-plane'
npm run --silent conformance:previous -- --ref release --grep "$PREVIOUS_TESTS"
npm run --silent conformance:previous -- --ref release --grep "$PREVIOUS_TESTS" --api-version next --expect-failures '^RATE-003 '

# The hooks-only run waits on a real clock; the network run, since the suite's transport (D239), keeps
# about one core busy for half a minute: both run beside the package tests and the gate (D238, D240).
together "the whole suite against the mock reachable only through its API and /__hooks (a front hiding /__mock), real clock, pinned-only: >= 95% of the pinned observable rules judged through the hooks, 0 failures (scripts/prove-real-target.ts --hooks, #22 part 3)" npx tsx scripts/prove-real-target.ts --hooks --pinned-only --clock real --min-judged 95 --out real-hooks

together "the whole suite through a front that rewrites reason phrases, re-chunks and gzips bodies, re-cases and reorders headers, and reaches the mock across a real HTTP/2 hop (suite -> HTTP/1.1 front -> h2c -> HTTP/2 front -> mock: no reason phrase, lower-case names, no Connection/Transfer-Encoding), a real clock: 0 failures (scripts/prove-real-target.ts --http2, D231)" npx tsx scripts/prove-real-target.ts --hide '' --reasons rewrite --rechunk --headers --compress --http2 --clock real --out real-network

step "the gate on broken targets: the whole suite through cgs-conformance against a conforming mock and 6 broken ones, pinned-only (D234, D236) (conformance/defects/ proxy), each with its rule first, exit 1, its wall time beside the conforming run's (scripts/prove-gate.ts; table in conformance-report/gate/gate.md)"
npx tsx scripts/prove-gate.ts

wait_together
