/**
 * Proof that every custom Spectral rule of .spectral.yaml can fail: for each rule, mutated copies
 * of the document that break exactly that rule must report it and no other custom rule, while the
 * real document reports nothing at all under the full ruleset.
 *
 * Two CLI calls run side by side: the real document with .spectral.yaml, and all the mutated
 * copies (one call) with a derived ruleset that keeps only our `cgs-*` rules. spectral:oas costs
 * about half of each file's lint time and says nothing about our rules.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { document } from './contract.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const realDocument = join(root, 'packages', 'contract', 'spec', 'openapi.yaml');

type Node = Record<string, unknown>;

/** The object at a path of a mutable copy, failing loudly when the document changed shape. */
function at(node: unknown, ...path: string[]): Node {
  let current = node;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) throw new Error(`no object at ${path.join('/')}`);
    current = (current as Node)[key];
  }
  if (typeof current !== 'object' || current === null || Array.isArray(current)) throw new Error(`no object at ${path.join('/')}`);
  return current as Node;
}

function list(node: unknown, ...path: string[]): unknown[] {
  const parent = at(node, ...path.slice(0, -1));
  const value = parent[path[path.length - 1] ?? ''];
  if (!Array.isArray(value)) throw new Error(`no array at ${path.join('/')}`);
  return value;
}

const ref = (pointer: string): Node => ({ $ref: pointer });

interface Mutation {
  rule: string;
  /** What the copy breaks (also the file name). */
  name: string;
  mutate: (doc: Node) => void;
}

const mutations: Mutation[] = [
  {
    rule: 'cgs-operation-id',
    name: 'listProducts-without-operationId',
    mutate: (d) => delete at(d, 'paths', '/products', 'get')['operationId'],
  },
  {
    rule: 'cgs-operation-scopes',
    name: 'unknown-scope',
    mutate: (d) => (at(d, 'paths', '/creatives/{creativeId}', 'patch')['x-required-scopes'] = ['creatives:edit']),
  },
  {
    rule: 'cgs-operation-scopes',
    name: 'empty-scopes',
    mutate: (d) => (at(d, 'paths', '/runs', 'get')['x-required-scopes'] = []),
  },
  {
    rule: 'cgs-operation-rate-limit-group',
    name: 'unknown-group',
    mutate: (d) => (at(d, 'paths', '/creatives/{creativeId}', 'delete')['x-rate-limit-group'] = 'creative_write'),
  },
  {
    rule: 'cgs-rate-limit-headers',
    name: 'missing-policy-header',
    mutate: (d) => delete at(d, 'paths', '/products', 'get', 'responses', '200', 'headers')['RateLimit-Policy'],
  },
  {
    rule: 'cgs-rate-limit-headers',
    name: 'optional-ratelimit-header',
    mutate: (d) => (at(d, 'components', 'headers', 'RateLimit')['required'] = false),
  },
  {
    rule: 'cgs-error-media-type',
    name: 'text-429-on-generation-plane',
    mutate: (d) => (at(d, 'paths', '/presets', 'get', 'responses')['429'] = ref('#/components/responses/TooManyRequestsText')),
  },
  {
    rule: 'cgs-error-media-type',
    name: 'problem-429-on-read-plane',
    mutate: (d) => (at(d, 'paths', '/products', 'get', 'responses')['429'] = ref('#/components/responses/TooManyRequestsProblem')),
  },
  {
    rule: 'cgs-error-media-type',
    name: 'json-beside-problem',
    mutate: (d) => {
      const content = at(d, 'paths', '/upscales/{upscaleId}', 'get', 'responses', '404', 'content');
      content['application/json'] = content['application/problem+json'];
    },
  },
  {
    rule: 'cgs-retry-after',
    name: '503-without-retry-after',
    mutate: (d) => delete at(d, 'paths', '/runs', 'post', 'responses', '503', 'headers')['Retry-After'],
  },
  {
    rule: 'cgs-retry-after',
    name: '429-with-optional-retry-after',
    mutate: (d) =>
      (at(d, 'components', 'responses', 'TooManyRequestsText', 'headers')['Retry-After'] = ref('#/components/headers/Retry-After-Conditional')),
  },
  {
    rule: 'cgs-location-header',
    name: '201-without-location',
    mutate: (d) => delete at(d, 'paths', '/campaigns', 'post', 'responses', '201', 'headers')['Location'],
  },
  {
    rule: 'cgs-idempotency-key',
    name: 'optional-key-on-createUpscale',
    mutate: (d) => (at(d, 'paths', '/upscales', 'post')['parameters'] = [ref('#/components/parameters/IdempotencyKeyOptional')]),
  },
  {
    rule: 'cgs-idempotency-key',
    name: 'key-on-a-read',
    mutate: (d) => list(d, 'paths', '/creatives/{creativeId}', 'get', 'parameters').push(ref('#/components/parameters/IdempotencyKeyOptional')),
  },
  {
    rule: 'cgs-idempotency-key',
    name: 'no-key-on-a-patch',
    mutate: (d) => (at(d, 'paths', '/assets/{assetId}', 'patch')['parameters'] = [ref('#/components/parameters/IfMatch')]),
  },
  {
    rule: 'cgs-if-match',
    name: 'if-match-on-undeleteCampaign',
    mutate: (d) => list(d, 'paths', '/campaigns/{campaignId}/undelete', 'post', 'parameters').push(ref('#/components/parameters/IfMatch')),
  },
  {
    rule: 'cgs-if-match',
    name: 'no-if-match-on-an-asset-write',
    mutate: (d) => list(d, 'paths', '/assets/{assetId}/archive', 'post', 'parameters').pop(),
  },
  {
    rule: 'cgs-webhook-event-types',
    name: 'event-type-without-webhook',
    mutate: (d) => delete at(d, 'webhooks')['asset.restored'],
  },
  {
    rule: 'cgs-webhook-event-types',
    name: 'webhook-without-event-type',
    mutate: (d) => list(d, 'components', 'schemas', 'EventType', 'enum').pop(),
  },
  {
    rule: 'cgs-webhook-operation',
    name: 'webhook-without-signature-header',
    mutate: (d) => list(d, 'webhooks', 'run.completed', 'post', 'parameters').pop(),
  },
  {
    rule: 'cgs-webhook-operation',
    name: 'webhook-with-optional-body',
    mutate: (d) => (at(d, 'webhooks', 'creative.approved', 'post', 'requestBody')['required'] = false),
  },
  {
    rule: 'cgs-webhook-operation',
    name: 'webhook-without-2xx',
    mutate: (d) => {
      const post = at(d, 'webhooks', 'asset.updated', 'post');
      post['responses'] = { '410': { description: 'Gone.' } };
    },
  },
  {
    rule: 'cgs-webhook-operation',
    name: 'webhook-without-operationId',
    mutate: (d) => delete at(d, 'webhooks', 'campaign.created', 'post')['operationId'],
  },
  {
    rule: 'cgs-assumption-text',
    name: 'multi-line-assumption',
    mutate: (d) => (at(d, 'x-plans')['x-assumption'] = 'First line.\nSecond line.'),
  },
  {
    rule: 'cgs-assumption-text',
    name: 'empty-assumption',
    mutate: (d) => (at(d, 'components', 'schemas', 'Delivery')['x-assumption'] = ' '),
  },
];

interface SpectralResult {
  code: string;
  source: string;
  message: string;
  path: string[];
}

let workDir = '';
let realResults: SpectralResult[] = [];
let mutantResults: SpectralResult[] = [];

const fileOf = (m: Mutation): string => join(workDir, `${m.rule}--${m.name}.json`);

/** Lints the files with a ruleset in one Spectral CLI call; the results of all. */
async function lint(ruleset: string, files: string[]): Promise<SpectralResult[]> {
  const args = ['lint', ...files, '--ruleset', ruleset, '-f', 'json', '--quiet'];
  // Spectral exits non-zero when it finds errors; the JSON on stdout is what counts.
  const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
    execFile(join(root, 'node_modules', '.bin', 'spectral'), args, { cwd: root, maxBuffer: 64 * 1024 * 1024 }, (_error, out, err) =>
      resolve({ stdout: out, stderr: err }),
    );
  });
  const start = stdout.indexOf('[');
  if (start < 0) throw new Error(`spectral printed no JSON:\n${stderr}${stdout}`);
  return JSON.parse(stdout.slice(start)) as SpectralResult[];
}

const fullRuleset = join(root, '.spectral.yaml');
const customRules = Object.keys((parse(readFileSync(fullRuleset, 'utf8')) as { rules: Record<string, unknown> }).rules).filter((name) =>
  name.startsWith('cgs-'),
);

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'cgs-spectral-'));
  for (const mutation of mutations) {
    const copy = structuredClone(document) as unknown as Node;
    mutation.mutate(copy);
    writeFileSync(fileOf(mutation), JSON.stringify(copy, null, 1));
  }
  const customOnly = join(workDir, 'custom-only.spectral.yaml');
  writeFileSync(customOnly, stringify({ extends: [[fullRuleset, 'off']], rules: Object.fromEntries(customRules.map((r) => [r, 'error'])) }));
  [realResults, mutantResults] = await Promise.all([lint(fullRuleset, [realDocument]), lint(customOnly, mutations.map(fileOf))]);
});

afterAll(() => {
  if (workDir !== '') rmSync(workDir, { recursive: true, force: true });
});

describe('spectral ruleset', () => {
  it('reports nothing on the real document', () => {
    expect(realResults).toEqual([]);
  });

  it('has at least one mutation for every custom rule', () => {
    expect(customRules.length).toBeGreaterThan(0);
    expect(new Set(mutations.map((m) => m.rule))).toEqual(new Set(customRules));
  });

  it.each(mutations.map((m) => [m.rule, m.name, m] as const))('%s fails on %s', (rule, _name, mutation) => {
    const found = mutantResults.filter((r) => r.source === fileOf(mutation));
    const detail = JSON.stringify(found.map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`), null, 1);
    expect([...new Set(found.map((r) => r.code))], detail).toEqual([rule]);
  });
});
