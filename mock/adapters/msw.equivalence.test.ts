/**
 * The in-process mock answers as the server does (issue #16, "Equivalence"): seeded fuzz sequences
 * (scripts/lib/fuzz/, the plan `npm run fuzz` runs) are recorded against the real server
 * (buildMock on 127.0.0.1, requests with fetch) and replayed on the MSW handlers (msw/node, fetch to
 * their base URL); every answer must be the same: status, headers and body bytes, modulo request
 * ids, node:http's date and connection headers and the origin in host-derived URLs
 * (mock/adapters/equivalence.ts). Both sides run a manual clock from the same instant, and draw
 * the same random bytes (ids, keys, secrets: node:crypto's randomBytes is seeded per side below),
 * so the same sequence must give the same bytes.
 *
 * Coverage: every operationId of spec/openapi.yaml must have been answered 2xx and compared, so an
 * operation added to the document without a way for the fuzz to reach it fails here.
 */
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { basePath, matchOperation, operationsList } from '../../spec/contract.ts';
import { runFuzz, formatFigures } from '../../scripts/lib/fuzz/run.ts';
import { createWorld, type FuzzWorld, type WorldProfile } from '../../scripts/lib/fuzz/world.ts';
import { Clock } from '../clock.ts';
import { createMockHandlers } from './msw.ts';
import { firstDifference, recordingServer, replay, START, type Recorded } from './equivalence.ts';

// The same random bytes on both sides: a seeded generator stands in for the mock's random bytes
// (mock/platform/crypto.ts, and node:crypto's where a module still draws from it), restarted
// before each side of a sequence.
const rng = vi.hoisted(() => {
  let state = 1;
  return {
    reset(seed: number) {
      state = seed >>> 0 || 1;
    },
    bytes(size: number): Uint8Array {
      const out = new Uint8Array(size);
      for (let i = 0; i < size; i++) {
        // xorshift32
        state ^= state << 13;
        state >>>= 0;
        state ^= state >>> 17;
        state ^= state << 5;
        state >>>= 0;
        out[i] = state & 0xff;
      }
      return out;
    },
  };
});
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  const randomBytes = (size: number) => Buffer.from(rng.bytes(size));
  return { ...real, default: { ...real, randomBytes }, randomBytes };
});
vi.mock('../platform/crypto.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../platform/crypto.ts')>();
  return { ...real, randomBytes: (size: number) => rng.bytes(size), randomHex: (size: number) => real.toHex(rng.bytes(size)) };
});

const RNG_SEED = 16;
const BASE_URL = 'http://cgs.msw.test';
const server = setupServer();

beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
afterAll(() => server.close());

function sideClock(): Clock {
  return new Clock({ mode: 'manual', start: START, wall: () => START });
}

/** Replays a tape on fresh MSW handlers; the first difference, or undefined. */
async function replayInProcess(tape: readonly Recorded[], originA: string): Promise<string | undefined> {
  rng.reset(RNG_SEED);
  const clock = sideClock();
  const errors: unknown[] = [];
  const mock = createMockHandlers({ baseUrl: BASE_URL, seed: false, clock, logError: (error: unknown) => errors.push(error) });
  server.resetHandlers(...mock.handlers);
  try {
    const answers = await replay(tape, BASE_URL, (seconds) => clock.advance(seconds));
    if (errors.length) return `the in-process mock logged an unexpected error: ${String(errors[0])}`;
    return firstDifference(tape, answers, originA, BASE_URL);
  } finally {
    server.resetHandlers();
    mock.dispose();
  }
}

/** Operations answered 2xx on the tapes compared so far. */
const answered = new Map<string, number>();
let compared = 0;

function tally(tape: readonly Recorded[]): void {
  for (const { entry, answer } of tape) {
    if (entry.kind !== 'http' || !answer || !entry.path.startsWith(`${basePath}/`)) continue;
    compared++;
    if (answer.status >= 300) continue;
    const op = matchOperation(entry.method, entry.path.slice(basePath.length).split('?')[0]!);
    if (op) answered.set(op.operation.operationId, (answered.get(op.operation.operationId) ?? 0) + 1);
  }
}

/** A fuzz world on the recording server; when the sequence ends, the tape is replayed in-process and compared. */
async function equivalenceWorld(profile: WorldProfile): Promise<FuzzWorld> {
  rng.reset(RNG_SEED);
  const recording = await recordingServer(sideClock(), BASE_URL);
  const world = await createWorld(profile, recording.harness);
  const close = recording.harness.close.bind(recording.harness);
  recording.harness.close = async () => {
    await close();
    const difference = await replayInProcess(recording.tape, recording.origin);
    if (difference) throw new Error(`the in-process mock answered otherwise than the server:\n${difference}`);
    tally(recording.tape);
  };
  return world;
}

describe('the MSW handlers answer as the server', () => {
  it('seeded fuzz sequences: the same status, headers and body for every request', async () => {
    const { figures, failure } = await runFuzz({ seed: 20_260_116, runs: 10, maxSteps: 50, world: equivalenceWorld });
    expect(failure, failure).toBeUndefined();
    expect(figures.requests, formatFigures(figures)).toBeGreaterThan(100);
  }, 120_000);

  it('every operation of the document is answered 2xx and compared', async () => {
    // Operations the short run above did not answer 2xx get sequences of their own.
    // Seeded, so the same ones every time; a few tries each (a review of a creative that is no
    // longer pending answers 409, and so on).
    for (const op of operationsList.filter((o) => !answered.has(o.operationId))) {
      for (let attempt = 0; attempt < 4 && !answered.has(op.operationId); attempt++) {
        const { failure } = await runFuzz({ seed: 7 + attempt, runs: 3, maxSteps: 12, operations: [op.operationId], world: equivalenceWorld });
        expect(failure, failure).toBeUndefined();
      }
    }
    const missing = operationsList.map((o) => o.operationId).filter((id) => !answered.has(id));
    expect(missing, `operations never answered 2xx on both sides (${compared} answers compared)`).toEqual([]);
  }, 120_000);
});
