/**
 * Dashboard actions (generation and product removal by other actors). Campaigns are made through
 * POST /campaigns; the actions are called as the control plane will call them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../core/errors.ts';
import { isReadable, type Creative } from '../creatives/model.ts';
import { dashboardActions, finishGeneration, generateCreatives, regenerateCreative, removeProductFromCampaign } from './dashboard.ts';
import { scene, type Scene } from '../../testkit/campaigns.ts';

let s: Scene;
beforeEach(async () => {
  s = await scene();
});
afterEach(async () => {
  await s.h.close();
});

const creative = (id: string): Creative => s.a.state.creatives.get(id)!;
const now = () => s.h.clock.now();

function apiError(act: () => unknown): ApiError {
  try {
    act();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('generateCreatives', () => {
  it('CRTV-001 CRTV-002 NOT_GENERATED → PENDING with a url: readable, delivered in the shown ratio, no event (EVT-018)', async () => {
    const { campaignId, creativeIds } = await s.createCampaign({ aspectRatio: '3:4' });
    s.mark();
    const result = generateCreatives(s.a.state, campaignId, now());
    expect(result).toEqual({ events: [], creativeIds });
    for (const id of creativeIds) {
      expect(creative(id)).toMatchObject({ status: 'PENDING', mediaType: 'image', thumbnailUrl: null });
      expect(isReadable(creative(id))).toBe(true);
    }
    expect([...s.a.state.deliveries.values()].map((d) => [d.creativeId, d.aspectRatio])).toEqual(creativeIds.map((id) => [id, '3:4']));
    expect(s.events()).toEqual([]);
  });

  it('CRTV-006 video: thumbnailUrl, playerUrl and embedCode set', async () => {
    const { campaignId, creativeIds } = await s.createCampaign();
    generateCreatives(s.a.state, campaignId, now(), { mediaType: 'video' });
    const c = creative(creativeIds[0]!);
    expect(c.mediaType).toBe('video');
    expect([c.thumbnailUrl, c.playerUrl].every((v) => typeof v === 'string')).toBe(true); // embedCode: made by the presenter from playerUrl
  });

  it('D6 until QUEUED or GENERATING: first generations stay unreadable (no url yet); productIds limit the creatives', async () => {
    const { campaignId, creativeIds } = await s.createCampaign();
    const [first, second] = creativeIds as [string, string];
    generateCreatives(s.a.state, campaignId, now(), { until: 'QUEUED', productIds: [creative(first).productId] });
    expect(creative(first)).toMatchObject({ status: 'QUEUED', url: null });
    expect(creative(second).status).toBe('NOT_GENERATED');
    generateCreatives(s.a.state, campaignId, now(), { until: 'GENERATING', productIds: [creative(second).productId] });
    expect(creative(second).status).toBe('GENERATING');
    expect(isReadable(creative(first)) || isReadable(creative(second))).toBe(false);
    finishGeneration(s.a.state, first, now());
    expect(creative(first).status).toBe('PENDING');
  });

  it('ERR-020 a deleted or unknown campaign: 404 CAMPAIGN_NOT_FOUND', async () => {
    const { campaignId } = await s.createCampaign();
    await s.call('deleteCampaign', 'DELETE', `/campaigns/${campaignId}`, { key: s.a.key('campaigns:write') });
    expect(apiError(() => generateCreatives(s.a.state, campaignId, now())).code).toBe('CAMPAIGN_NOT_FOUND');
    expect(apiError(() => generateCreatives(s.a.state, 'cmp_unknown', now())).code).toBe('CAMPAIGN_NOT_FOUND');
  });
});

describe('regenerateCreative and finishGeneration', () => {
  it('D6 an approved creative goes QUEUED keeping its url (still readable), then PENDING with a new rendition and delivery', async () => {
    const { creativeIds } = await s.readyCampaign({ products: 1 });
    const id = creativeIds[0]!;
    s.a.state.creatives.set(id, { ...creative(id), status: 'APPROVED', approvedAt: now() });
    const url = creative(id).url;
    s.mark();
    expect(regenerateCreative(s.a.state, id, now()).events).toEqual([]);
    expect(creative(id)).toMatchObject({ status: 'QUEUED', url, approvedAt: null });
    expect(isReadable(creative(id))).toBe(true);
    s.h.advance(60);
    finishGeneration(s.a.state, id, now());
    expect(creative(id).status).toBe('PENDING');
    expect(creative(id).url).not.toBe(url);
    expect([...s.a.state.deliveries.values()].filter((d) => d.creativeId === id)).toHaveLength(2);
    expect(s.events()).toEqual([]);
  });

  it('CRTV-001 regenerating a NOT_GENERATED creative: 404 CREATIVE_NOT_FOUND; finishing a PENDING one changes nothing', async () => {
    const { creativeIds } = await s.createCampaign();
    expect(apiError(() => regenerateCreative(s.a.state, creativeIds[0]!, now())).code).toBe('CREATIVE_NOT_FOUND');
    const ready = await s.readyCampaign({ products: 1 });
    const before = creative(ready.creativeIds[0]!);
    finishGeneration(s.a.state, ready.creativeIds[0]!, now());
    expect(creative(ready.creativeIds[0]!)).toBe(before);
  });
});

describe('removeProductFromCampaign', () => {
  it('EVT-011 EVT-017 deletes the product\'s creatives: creative.deleted for a readable one, nothing for a NOT_GENERATED one', async () => {
    const ready = await s.readyCampaign({ products: 2 });
    const open = await s.createCampaign();
    const [gone, kept] = ready.creativeIds as [string, string];
    const result = removeProductFromCampaign(s.a.state, ready.campaignId, creative(gone).productId, now());
    expect(result.events).toEqual([{ resource: { kind: 'creative', id: gone }, drafts: [{ type: 'creative.deleted' }] }]);
    expect(creative(gone)).toMatchObject({ deletedAt: now(), deletedWithCampaign: false });
    expect(creative(kept).deletedAt).toBeNull();
    const unreadable = open.creativeIds[0]!;
    expect(removeProductFromCampaign(s.a.state, open.campaignId, creative(unreadable).productId, now()).events).toEqual([]);
    expect(creative(unreadable).deletedAt).toBe(now());
  });

  it('CAMP-013 a campaign restore does not bring a removed product\'s creative back', async () => {
    const { campaignId, creativeIds } = await s.readyCampaign({ products: 2 });
    removeProductFromCampaign(s.a.state, campaignId, creative(creativeIds[0]!).productId, now());
    const key = s.a.key('campaigns:write');
    await s.call('deleteCampaign', 'DELETE', `/campaigns/${campaignId}`, { key });
    await s.call('undeleteCampaign', 'POST', `/campaigns/${campaignId}/undelete`, { key, headers: { 'idempotency-key': s.idem() } });
    expect(creative(creativeIds[0]!).deletedAt).not.toBeNull();
    expect(creative(creativeIds[1]!).deletedAt).toBeNull();
  });

  it('CRTV-020 a generating creative of the product: 409 CREATIVE_NOT_DELETABLE and nothing changes', async () => {
    const { campaignId, creativeIds } = await s.readyCampaign({ products: 1 });
    regenerateCreative(s.a.state, creativeIds[0]!, now());
    const error = apiError(() => removeProductFromCampaign(s.a.state, campaignId, creative(creativeIds[0]!).productId, now()));
    expect({ code: error.code, currentStatus: error.extensions.currentStatus }).toEqual({ code: 'CREATIVE_NOT_DELETABLE', currentStatus: 'QUEUED' });
    expect(creative(creativeIds[0]!).deletedAt).toBeNull();
  });
});

describe('dashboardActions', () => {
  it('dispatches by name with checked input; a bad input is 422 VALIDATION_ERROR with errors[]', async () => {
    const { campaignId, creativeIds } = await s.createCampaign();
    expect(Object.keys(dashboardActions).sort()).toEqual(['finishGeneration', 'generateCreatives', 'regenerateCreative', 'removeProductFromCampaign', 'startGeneration']);
    const result = dashboardActions.generateCreatives!(s.a.state, { campaignId, mediaType: 'video', until: 'PENDING' }, now());
    expect(result.creativeIds).toEqual(creativeIds);
    const bad = apiError(() => dashboardActions.generateCreatives!(s.a.state, { campaignId, mediaType: 'gif', until: 'DONE', productIds: 'x' }, now()));
    expect({ code: bad.code, status: bad.status, fields: bad.extensions.errors?.map((e) => e.field) }).toEqual({ code: 'VALIDATION_ERROR', status: 422, fields: ['mediaType', 'until', 'productIds'] });
    expect(apiError(() => dashboardActions.removeProductFromCampaign!(s.a.state, { campaignId }, now())).extensions.errors).toEqual([{ field: 'productId', message: 'is required (a non-empty string)' }]);
    expect(apiError(() => dashboardActions.finishGeneration!(s.a.state, { creativeId: 'crv_unknown' }, now())).code).toBe('CREATIVE_NOT_FOUND');
  });
});
