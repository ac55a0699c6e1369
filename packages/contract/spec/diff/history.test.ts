/**
 * Proof on the interface's own history (issue #13 §4) and the policy's verdicts (§3): fixtures
 * derived from the frozen 1.9.0 document, each with the verdict it must get.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Change } from './change.ts';
import { diffDocuments, type RuleLedger } from './classify.ts';
import { evaluate, type HistoryEntry } from './policy.ts';
import { OVERLAY_FILE, RELEASES_DIR, ROOT, compareSemver, loadSource, renderNext, versionOf } from '../versions.ts';

type Doc = { [key: string]: any };
const released = loadSource(join(ROOT, RELEASES_DIR, '1.9.0'));
const v190 = (): Doc => structuredClone(released.document) as Doc;
const rules190 = (): RuleLedger => structuredClone(released.rules!);

function withHistory(doc: Doc, version: string, entry: Partial<HistoryEntry> = {}): Doc {
  doc.info.version = version;
  doc.info['x-version-history'] = [{ version, summary: `the ${version} changes`, ...entry }];
  return doc;
}

/** 1.8.0: 1.9.0 without what the 1.9.0 entry added (upscales, asset `derivation`, the upscale refusals). */
function derive180(): { doc: Doc; rules: RuleLedger } {
  const doc = v190();
  doc.info.version = '1.8.0';
  delete doc.paths['/upscales'];
  delete doc.paths['/upscales/{upscaleId}'];
  delete doc.components.schemas.Asset.properties.derivation;
  for (const name of ['Derivation', 'Upscale', 'UpscaleCreate', 'UpscaleSource', 'UpscaleTarget']) delete doc.components.schemas[name];
  delete doc.components.headers.LocationUpscale;
  for (const tier of Object.values(doc['x-plans'].defaults) as Doc[]) delete tier['upscales'];
  const rules = rules190();
  rules.version = '1.8.0';
  rules.rules = rules.rules.filter((r) => !r.id.startsWith('UPSC-') && !/upscale|derivation/i.test(r.rule));
  return { doc, rules };
}

/** Before 1.3.0 approve and reject needed `creatives:write`. */
function beforeScopeChange(): Doc {
  const doc = v190();
  for (const path of ['/creatives/{creativeId}/approve', '/creatives/{creativeId}/reject']) doc.paths[path].post['x-required-scopes'] = ['creatives:write'];
  return doc;
}

/** The pending version: the overlay applied to the frozen 1.9.0 text. */
function pending(): Doc {
  const text = readFileSync(join(ROOT, RELEASES_DIR, '1.9.0/openapi.yaml'), 'utf8');
  return renderNext(text, readFileSync(join(ROOT, OVERLAY_FILE), 'utf8')) as Doc;
}

const kinds = (changes: Change[], severity: Change['severity']): string[] => [...new Set(changes.filter((c) => c.severity === severity).map((c) => c.kind))].sort();

describe('1.8.0 → 1.9.0 (upscales)', () => {
  const { doc: v180, rules } = derive180();
  const changes = diffDocuments(v180, v190(), { base: rules, head: rules190() });

  it('is additive only: operations, a property, a plan feature and rules added', () => {
    expect(kinds(changes, 'breaking')).toEqual([]);
    expect(kinds(changes, 'non-breaking')).toEqual(['operation.added', 'rule.added', 'schema.property.added', 'table.entry.added']);
    expect(changes.filter((c) => c.kind === 'operation.added').map((c) => c.location)).toEqual(['POST /upscales', 'GET /upscales/{upscaleId}']);
    expect(changes.some((c) => c.kind === 'schema.property.added' && c.location.endsWith('/properties/derivation') && c.location.startsWith('webhook asset.updated'))).toBe(true);
  });

  it('is allowed with its history entry, and not without one', () => {
    const head = withHistory(v190(), '1.9.0');
    expect(evaluate(v180, head, changes, rules190())).toEqual({ allowed: true, problems: [] });
    const bare = v190();
    expect(evaluate(v180, bare, changes, rules190()).problems).toEqual(['info.x-version-history has no entry for 1.9.0: add `- { version: 1.9.0, summary: <what changed> }` (breaking changes listed under `breaking`)']);
  });
});

describe('the 1.3.0 scope change (approve and reject move to creatives:review)', () => {
  const base = beforeScopeChange();
  base.info.version = '1.2.0';
  const head = v190();
  const changes = diffDocuments(base, head);

  it('is breaking, on exactly the two operations', () => {
    expect(changes.map((c) => [c.severity, c.kind, c.location])).toEqual([
      ['breaking', 'security.scope.changed', 'POST /creatives/{creativeId}/approve'],
      ['breaking', 'security.scope.changed', 'POST /creatives/{creativeId}/reject'],
    ]);
    expect(changes[0]!.message).toBe('now requires scope `creatives:review` instead of `creatives:write`: keys without it are refused');
  });

  it('needs a notice or a named waiver in its entry', () => {
    const unnamed = evaluate(base, withHistory(v190(), '1.3.0'), changes);
    expect(unnamed.allowed).toBe(false);
    expect(unnamed.problems[0]).toContain('2 breaking change(s) not named in the version history: add to the 1.3.0 entry');
    expect(unnamed.problems[0]).toContain('POST /creatives/{creativeId}/approve: now requires scope');
    const waived = withHistory(v190(), '1.3.0', { breaking: [{ change: 'approve and reject need creatives:review', matches: ['POST /creatives/*/approve', 'POST /creatives/*/reject'], waiver: 'declared scope change, agreed with every key holder' }] });
    expect(evaluate(base, waived, changes)).toEqual({ allowed: true, problems: [] });
  });
});

describe('the pending change (read-plane and write 429s become problem+json)', () => {
  const base = v190();
  const head = pending();
  const changes = diffDocuments(base, head);
  const notice = (announced?: string, sunset?: string): Doc => {
    const doc = structuredClone(head);
    const entry = doc.info['x-version-history'].at(-1);
    Object.assign(entry.breaking[0], { ...(announced ? { announced } : {}), ...(sunset ? { sunset } : {}) });
    return doc;
  };

  it('is breaking: the 429 media type of the 24 read-plane and write operations, nothing else', () => {
    const breaking = changes.filter((c) => c.severity === 'breaking');
    expect(breaking).toHaveLength(24);
    expect(new Set(breaking.map((c) => `${c.kind} ${c.location.split(' › ')[1]} ${c.message}`))).toEqual(new Set(['media-type.changed response 429 media type changed from text/plain to application/problem+json']));
    expect(changes.filter((c) => c.severity === 'non-breaking')).toEqual([]);
    expect(new Set(changes.filter((c) => c.severity === 'documentation').map((c) => `${c.kind} ${c.location.split(' › ')[1]}`))).toEqual(new Set(['doc.description response 429']));
    expect(changes.some((c) => /\/(runs|upscales|presets)/.test(c.location))).toBe(false);
  });

  it('is allowed only with a notice of at least 90 days', () => {
    expect(evaluate(base, head, changes).problems).toEqual([
      'the 1.10.0 notice "429 bodies of the read plane and of writes become problem+json": needs `announced` and `sunset` dates (YYYY-MM-DD, at least 90 days apart) or a named `waiver`; has announced null, sunset null',
    ]);
    expect(evaluate(base, notice('2027-01-04', '2027-04-03'), changes).problems).toEqual([
      'the 1.10.0 notice "429 bodies of the read plane and of writes become problem+json": announced 2027-01-04 and sunset 2027-04-03 are 89 days apart; the notice is at least 90 days (sunset on or after 2027-04-04)',
    ]);
    expect(evaluate(base, notice('2027-01-04', '2027-04-04'), changes)).toEqual({ allowed: true, problems: [] });
    const major = withHistory(structuredClone(head), '2.0.0');
    expect(evaluate(base, major, changes)).toEqual({ allowed: true, problems: [] });
  });
});

describe('the policy on any change', () => {
  const changed = (): Doc => {
    const doc = v190();
    doc.paths['/products'].get.description = 'Reworded.';
    return doc;
  };

  it('needs info.version to increase, and says to what', () => {
    const head = changed();
    expect(evaluate(v190(), head, diffDocuments(v190(), head)).problems).toEqual([
      '1 change(s) since 1.9.0 but info.version is still 1.9.0: set info.version to 1.9.1 (documentation only) and add an entry for it to info.x-version-history (and set `version` in packages/contract/spec/rules.yaml to it)',
    ]);
    const additive = v190();
    additive.paths['/products'].get.responses['200'].headers['X-Extra'] = { schema: { type: 'string' } };
    expect(evaluate(v190(), additive, diffDocuments(v190(), additive)).problems[0]).toContain('set info.version to 1.10.0 (additive; 1.9.1 when it corrects the description of an unchanged API)');
    expect(evaluate(v190(), withHistory(changed(), '1.9.1'), diffDocuments(v190(), changed()))).toEqual({ allowed: true, problems: [] });
    expect(evaluate(v190(), withHistory(changed(), '1.8.9'), []).problems).toEqual(['info.version 1.8.9 is lower than 1.9.0: versions only increase']);
  });

  it('needs a deprecated operation with a sunset to name its deprecation date 90 days before', () => {
    const head = withHistory(v190(), '1.10.0');
    Object.assign(head.paths['/products'].get, { deprecated: true, 'x-deprecated-at': '2027-01-01', 'x-sunset': '2027-02-01' });
    expect(evaluate(v190(), head, diffDocuments(v190(), head)).problems).toEqual([
      'GET /products (deprecated): x-deprecated-at/x-sunset: announced 2027-01-01 and sunset 2027-02-01 are 31 days apart; the notice is at least 90 days (sunset on or after 2027-04-01)',
    ]);
  });

  it('needs the rule ledger to carry the version', () => {
    const head = withHistory(changed(), '1.9.1');
    expect(evaluate(v190(), head, [], rules190()).problems).toEqual(["packages/contract/spec/rules.yaml says version 1.9.0, the document 1.9.1: set the ledger's `version` to 1.9.1"]);
  });
});

/** The first `enum` list of the document holding `value`. */
function enumHolding(node: unknown, value: string): unknown[] {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = enumHolding(item, value);
      if (found.length > 0) return found;
    }
  } else if (typeof node === 'object' && node !== null) {
    const e = (node as Doc)['enum'];
    if (Array.isArray(e) && e.includes(value)) return e;
    for (const child of Object.values(node)) {
      const found = enumHolding(child, value);
      if (found.length > 0) return found;
    }
  }
  return [];
}

/** The kinds on the real document, both ways. */
describe('the kinds on the real document', () => {
  type Row = [string, (d: Doc) => void, string, string];
  const rows: Row[] = [
    ['webhook event type removed', (d) => delete d.webhooks['creative.approved'], 'breaking webhook.removed', 'non-breaking webhook.added'],
    ['webhook-signature no longer sent', (d) => d.webhooks['creative.approved'].post.parameters.pop(), 'breaking webhook-header.removed', 'non-breaking webhook-header.added'],
    ['ETag on GET /creatives/{id}', (d) => delete d.components.headers['ETag'], 'breaking response-header.removed', 'non-breaking response-header.added'],
    ['a required query parameter', (d) => d.paths['/products'].get.parameters.push({ name: 'region', in: 'query', required: true, schema: { type: 'string' } }), 'breaking parameter.added-required', 'breaking parameter.removed'],
    ['a read quota lowered', (d) => (d['x-rate-limits'].groups.read.limit = 100), 'breaking table.value.decreased', 'non-breaking table.value.increased'],
    ['upscales in the core plan', (d) => (d['x-plans'].defaults.core.upscales = true), 'non-breaking table.feature.on', 'breaking table.feature.off'],
    ['the retry horizon', (d) => (d['x-webhook-delivery'].retry.horizonSeconds = 43200), 'breaking table.schedule.changed', 'breaking table.schedule.changed'],
    ['a new error code on a 409', (d) => enumHolding(d, 'CREATIVE_NOT_DELETABLE').push('NEW_CODE'), 'non-breaking schema.enum.added', 'non-breaking schema.enum.removed'],
    ['the page size maximum lowered (a shared parameter)', (d) => (d.components.parameters.Limit.schema.maximum = 50), 'breaking schema.maximum.tightened', 'non-breaking schema.maximum.loosened'],
  ];
  it.each(rows)('%s', (_name, change, forward, backward) => {
    const head = v190();
    change(head);
    const sorted = (from: Doc, to: Doc): string[] => [...new Set(diffDocuments(from, to).filter((c) => c.severity !== 'documentation').map((c) => `${c.severity} ${c.kind}`))];
    expect(sorted(v190(), head)).toEqual([forward]);
    expect(sorted(head, v190())).toEqual([backward]);
  });
});

describe('the pending version', () => {
  it('comes after the working document (bump packages/contract/spec/overlays/next.yaml when the working document reaches its number)', () => {
    const working = versionOf(loadSource('working'));
    const next = versionOf(loadSource('next'));
    expect(compareSemver(next, working), `packages/contract/spec/overlays/next.yaml sets ${next}, the working document is at ${working}: set the overlay's version (and its history entry) after ${working}`).toBeGreaterThan(0);
  });
});
