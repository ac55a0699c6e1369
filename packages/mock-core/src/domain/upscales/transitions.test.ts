import { describe, expect, it } from 'vitest';
import type { Upscale, UpscaleStatus } from './model.ts';
import { upscaleTransition, type UpscaleEvent } from './transitions.ts';

const T0 = Date.UTC(2026, 0, 1);
const NOW = T0 + 5_000;

function upscale(status: UpscaleStatus, overrides: Partial<Upscale> = {}): Upscale {
  const final = status === 'SUCCEEDED' || status === 'FAILED';
  return {
    upscaleId: 'ups_1',
    ordinal: 0,
    status,
    source: { assetId: 'ast_1' },
    parentAssetId: 'ast_1',
    target: '4K',
    credits: { estimated: 2, rateCardVersion: 'v1' },
    holdId: final ? null : 'hld_1',
    assetId: status === 'SUCCEEDED' ? 'ast_2' : null,
    failureReason: status === 'FAILED' ? 'render_failed' : null,
    createdAt: T0,
    startedAt: status === 'QUEUED' ? null : T0 + 1000,
    finalizedAt: final ? T0 + 2000 : null,
    drawn: 'succeeded',
    finishesAt: status === 'PROCESSING' ? T0 + 9000 : null,
    ...overrides,
  };
}

const cases: [string, { given: Upscale; event: UpscaleEvent; want: Partial<Upscale>; changed: boolean }][] = [
  ['UPSC-007: QUEUED → PROCESSING on start', { given: upscale('QUEUED'), event: { type: 'start', finishesAt: NOW + 6000 }, want: { status: 'PROCESSING', startedAt: NOW, finishesAt: NOW + 6000, finalizedAt: null }, changed: true }],
  ['UPSC-001: PROCESSING → SUCCEEDED with the new asset', { given: upscale('PROCESSING'), event: { type: 'deliver', assetId: 'ast_9' }, want: { status: 'SUCCEEDED', assetId: 'ast_9', finalizedAt: NOW, holdId: null, failureReason: null }, changed: true }],
  ['PROCESSING → FAILED with a reason, no asset', { given: upscale('PROCESSING'), event: { type: 'fail', reason: 'render_failed' }, want: { status: 'FAILED', assetId: null, failureReason: 'render_failed', finalizedAt: NOW, holdId: null }, changed: true }],
  ['QUEUED → FAILED', { given: upscale('QUEUED'), event: { type: 'fail', reason: 'render_failed' }, want: { status: 'FAILED', finalizedAt: NOW }, changed: true }],
  ['deliver needs PROCESSING', { given: upscale('QUEUED'), event: { type: 'deliver', assetId: 'ast_9' }, want: { status: 'QUEUED', assetId: null }, changed: false }],
  ['start of a PROCESSING upscale changes nothing', { given: upscale('PROCESSING'), event: { type: 'start', finishesAt: NOW }, want: { status: 'PROCESSING', startedAt: T0 + 1000 }, changed: false }],
  ['SUCCEEDED is final', { given: upscale('SUCCEEDED'), event: { type: 'fail', reason: 'x' }, want: { status: 'SUCCEEDED', assetId: 'ast_2', finalizedAt: T0 + 2000 }, changed: false }],
  ['FAILED is final', { given: upscale('FAILED'), event: { type: 'deliver', assetId: 'ast_9' }, want: { status: 'FAILED', assetId: null, finalizedAt: T0 + 2000 }, changed: false }],
];

describe('upscaleTransition (UPSC-007, D14)', () => {
  it.each(cases)('%s', (_name, { given, event, want, changed }) => {
    const t = upscaleTransition(given, event, NOW);
    expect(t.changed).toBe(changed);
    expect(t.next).toMatchObject(want);
    expect(t.events).toEqual([]);
    if (!changed) expect(t.next).toBe(given);
  });
});
