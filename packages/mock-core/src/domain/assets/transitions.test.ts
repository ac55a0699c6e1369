/**
 * The asset state table, one row per table row and decided edge (interface "States and
 * transitions / Asset", D32, D33). Inputs are deep-frozen: a transition that mutated its input
 * would throw.
 */
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../testkit/harness.ts';
import { ApiError } from '../../core/errors.ts';
import type { EventDraft } from '../../events/model.ts';
import type { Transition } from '../shared.ts';
import type { Asset } from './model.ts';
import { archive, remove, unarchive, undelete, update, type AssetPatch } from './transitions.ts';

const NOW = Date.UTC(2026, 0, 2, 12, 0, 0);
const EARLIER = NOW - 3600_000;

function asset(overrides: Partial<Asset> = {}): Asset {
  return deepFreeze({
    assetId: 'ast_test',
    productId: 'prd_test',
    type: 'STATIC',
    url: 'https://media.example.invalid/ast_test.jpg',
    thumbnailUrl: null,
    favorited: false,
    archived: false,
    name: 'Test asset',
    width: 1024,
    height: 1024,
    durationSec: null,
    playerUrl: null,
    createdAt: EARLIER - 86_400_000,
    deletedAt: null,
    notes: null,
    metadata: {},
    derivation: null,
    ...overrides,
  });
}

function fiftyKeys(): Record<string, string> {
  return Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, `v${i}`]));
}

type Want =
  | { changed: true; next: Partial<Asset>; events: EventDraft[] }
  | { changed: false; events?: undefined; next?: undefined }
  | { error: string; status: number };

type Row = [name: string, { given: Asset; act: (a: Asset) => Transition<Asset>; want: Want }];

const patch = (p: AssetPatch) => (a: Asset) => update(a, p);

const rows: Row[] = [
  // --- archive
  ['ASST-008 live active asset: archive → archived, asset.archived', { given: asset(), act: archive, want: { changed: true, next: { archived: true }, events: [{ type: 'asset.archived' }] } }],
  ['D32 archive of an archived asset: no-op, records nothing', { given: asset({ archived: true }), act: archive, want: { changed: false } }],
  ['D32 ERR-020 archive of a deleted asset: 404 ASSET_NOT_FOUND', { given: asset({ deletedAt: EARLIER }), act: archive, want: { error: 'ASSET_NOT_FOUND', status: 404 } }],
  // --- unarchive
  ['ASST-009 archived asset: unarchive → active, asset.unarchived', { given: asset({ archived: true }), act: unarchive, want: { changed: true, next: { archived: false }, events: [{ type: 'asset.unarchived' }] } }],
  ['D32 unarchive of an active asset: no-op, records nothing', { given: asset(), act: unarchive, want: { changed: false } }],
  ['D32 ERR-020 unarchive of a deleted archived asset: 404 ASSET_NOT_FOUND', { given: asset({ archived: true, deletedAt: EARLIER }), act: unarchive, want: { error: 'ASSET_NOT_FOUND', status: 404 } }],
  // --- delete
  ['ASST-010 live asset: delete → deletedAt set, asset.deleted', { given: asset(), act: (a) => remove(a, NOW), want: { changed: true, next: { deletedAt: NOW }, events: [{ type: 'asset.deleted' }] } }],
  ['ASST-010 archived (still live) asset: delete → deleted, stays archived', { given: asset({ archived: true }), act: (a) => remove(a, NOW), want: { changed: true, next: { deletedAt: NOW, archived: true }, events: [{ type: 'asset.deleted' }] } }],
  ['D32 ERR-020 delete of a deleted asset: 404 ASSET_NOT_FOUND', { given: asset({ deletedAt: EARLIER }), act: (a) => remove(a, NOW), want: { error: 'ASSET_NOT_FOUND', status: 404 } }],
  // --- undelete
  ['ASST-011 GEN-003 deleted asset: undelete → deletedAt null, asset.restored', { given: asset({ deletedAt: EARLIER }), act: undelete, want: { changed: true, next: { deletedAt: null }, events: [{ type: 'asset.restored' }] } }],
  ['ASST-011 deleted archived asset: undelete → live, still archived', { given: asset({ deletedAt: EARLIER, archived: true }), act: undelete, want: { changed: true, next: { deletedAt: null, archived: true }, events: [{ type: 'asset.restored' }] } }],
  ['ASST-012 undelete of a live asset: no-op 200, records nothing', { given: asset(), act: undelete, want: { changed: false } }],
  // --- update: favorited
  ['ASST-013 EVT-030 favorited false → true: asset.updated, previousAttributes.favorited', { given: asset(), act: patch({ favorited: true }), want: { changed: true, next: { favorited: true }, events: [{ type: 'asset.updated', previousAttributes: { favorited: false } }] } }],
  ['ASST-013 update keeps the state: archived asset stays archived', { given: asset({ archived: true, favorited: true }), act: patch({ favorited: false }), want: { changed: true, next: { favorited: false, archived: true }, events: [{ type: 'asset.updated', previousAttributes: { favorited: true } }] } }],
  ['EVT-020 favorited to its current value: no-op, records nothing', { given: asset({ favorited: true }), act: patch({ favorited: true }), want: { changed: false } }],
  // --- update: notes
  ['ASST-013 EVT-030 notes replaced: previousAttributes.notes is the old text', { given: asset({ notes: 'old' }), act: patch({ notes: 'new' }), want: { changed: true, next: { notes: 'new' }, events: [{ type: 'asset.updated', previousAttributes: { notes: 'old' } }] } }],
  ['ASST-013 notes added where none: previousAttributes.notes is "" (decided: the empty value)', { given: asset(), act: patch({ notes: 'first' }), want: { changed: true, next: { notes: 'first' }, events: [{ type: 'asset.updated', previousAttributes: { notes: '' } }] } }],
  ['EVT-032 D33 notes cleared with "": not listed (data no longer carries notes), previousAttributes {}', { given: asset({ notes: 'gone' }), act: patch({ notes: '' }), want: { changed: true, next: { notes: null }, events: [{ type: 'asset.updated', previousAttributes: {} }] } }],
  ['EVT-020 notes to their current text: no-op', { given: asset({ notes: 'same' }), act: patch({ notes: 'same' }), want: { changed: false } }],
  ['EVT-020 notes "" on an asset without notes: no-op', { given: asset(), act: patch({ notes: '' }), want: { changed: false } }],
  // --- update: metadata
  ['META-001 META-003 EVT-031 a string sets a key, others kept; previousAttributes.metadata is the whole previous map', { given: asset({ metadata: { a: '1', b: '2' } }), act: patch({ metadata: { c: '3' } }), want: { changed: true, next: { metadata: { a: '1', b: '2', c: '3' } }, events: [{ type: 'asset.updated', previousAttributes: { metadata: { a: '1', b: '2' } } }] } }],
  ['META-002 EVT-031 null removes a key; previousAttributes.metadata is the whole previous map', { given: asset({ metadata: { a: '1', b: '2' } }), act: patch({ metadata: { a: null } }), want: { changed: true, next: { metadata: { b: '2' } }, events: [{ type: 'asset.updated', previousAttributes: { metadata: { a: '1', b: '2' } } }] } }],
  ['META-008 EVT-032 D33 last key removed: event sent with previousAttributes {}', { given: asset({ metadata: { a: '1' } }), act: patch({ metadata: { a: null } }), want: { changed: true, next: { metadata: {} }, events: [{ type: 'asset.updated', previousAttributes: {} }] } }],
  ['EVT-031 metadata added where none: previousAttributes.metadata is {} (decided: the whole, empty, previous map)', { given: asset(), act: patch({ metadata: { a: '1' } }), want: { changed: true, next: { metadata: { a: '1' } }, events: [{ type: 'asset.updated', previousAttributes: { metadata: {} } }] } }],
  ['EVT-020 metadata set to the values it holds: no-op', { given: asset({ metadata: { a: '1' } }), act: patch({ metadata: { a: '1' } }), want: { changed: false } }],
  ['EVT-020 null for an absent key: no-op', { given: asset({ metadata: { a: '1' } }), act: patch({ metadata: { b: null } }), want: { changed: false } }],
  ['EVT-020 null for an absent key named like an Object member (toString): no-op', { given: asset(), act: patch({ metadata: { toString: null } }), want: { changed: false } }],
  ['EVT-020 empty metadata patch: no-op', { given: asset({ metadata: { a: '1' } }), act: patch({ metadata: {} }), want: { changed: false } }],
  ['META-004 exactly 50 keys after the merge: accepted', { given: asset({ metadata: Object.fromEntries(Object.entries(fiftyKeys()).slice(0, 49)) }), act: patch({ metadata: { k49: 'v49' } }), want: { changed: true, next: { metadata: fiftyKeys() }, events: [{ type: 'asset.updated', previousAttributes: { metadata: Object.fromEntries(Object.entries(fiftyKeys()).slice(0, 49)) } }] } }],
  ['META-004 META-007 a 51st key: 422 VALIDATION_ERROR, nothing changes', { given: asset({ metadata: fiftyKeys() }), act: patch({ metadata: { k50: 'v50' } }), want: { error: 'VALIDATION_ERROR', status: 422 } }],
  ['META-004 replacing a key at 50 keys (set one, remove one): accepted', { given: asset({ metadata: fiftyKeys() }), act: patch({ metadata: { k0: null, k50: 'v50' } }), want: { changed: true, next: { metadata: { ...Object.fromEntries(Object.entries(fiftyKeys()).slice(1)), k50: 'v50' } }, events: [{ type: 'asset.updated', previousAttributes: { metadata: fiftyKeys() } }] } }],
  // --- update: several fields
  ['EVT-030 several fields, only the changed ones listed', { given: asset({ favorited: true, notes: 'n', metadata: { a: '1' } }), act: patch({ favorited: true, notes: 'm', metadata: { a: '2' } }), want: { changed: true, next: { favorited: true, notes: 'm', metadata: { a: '2' } }, events: [{ type: 'asset.updated', previousAttributes: { notes: 'n', metadata: { a: '1' } } }] } }],
  ['EVT-029 all three fields changed: previousAttributes holds favorited, notes, metadata', { given: asset({ notes: 'n', metadata: { a: '1' } }), act: patch({ favorited: true, notes: 'm', metadata: { b: '2' } }), want: { changed: true, next: { favorited: true, notes: 'm', metadata: { a: '1', b: '2' } }, events: [{ type: 'asset.updated', previousAttributes: { favorited: false, notes: 'n', metadata: { a: '1' } } }] } }],
  ['D32 ERR-020 update of a deleted asset: 404 ASSET_NOT_FOUND', { given: asset({ deletedAt: EARLIER }), act: patch({ favorited: true }), want: { error: 'ASSET_NOT_FOUND', status: 404 } }],
];

describe('asset transitions', () => {
  it.each(rows)('%s', (_name, { given, act, want }) => {
    if ('error' in want) {
      let thrown: unknown;
      try {
        act(given);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      expect((thrown as ApiError).code).toBe(want.error);
      expect((thrown as ApiError).status).toBe(want.status);
      return;
    }
    const result = act(given);
    expect(result.changed).toBe(want.changed);
    if (!want.changed) {
      // A change that alters nothing records nothing (EVT-020) and returns the same asset.
      expect(result.events).toEqual([]);
      expect(result.next).toBe(given);
      return;
    }
    expect(result.next).toEqual({ ...given, ...want.next });
    expect(result.events).toEqual(want.events);
    expect(result.next).not.toBe(given);
  });

  it('META-007 the 422 for a 51st key names `metadata` in errors[]', () => {
    try {
      update(asset({ metadata: fiftyKeys() }), { metadata: { extra: 'x' } });
      expect.unreachable();
    } catch (error) {
      expect((error as ApiError).extensions.errors?.map((e) => e.field)).toEqual(['metadata']);
    }
  });
});
