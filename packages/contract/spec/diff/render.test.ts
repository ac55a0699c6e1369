/** The changelog's order (V11): what changed since the working document's own base comes first. */
import { describe, expect, it } from 'vitest';
import type { Change } from './change.ts';
import { toJson, toMarkdown } from './render.ts';

const change = (location: string, severity: Change['severity'] = 'non-breaking'): Change => ({ severity, kind: 'x', location, message: 'changed' });
const unreleased = Array.from({ length: 300 }, (_, i) => change(`GET /old${i} › response 200`));
const mine = [change('PATCH /creatives/{creativeId} › response 412', 'breaking'), change('GET /presets › response 200')];
const allowed = { allowed: true, problems: [] };

describe('toMarkdown with a lead', () => {
  it('puts a two-line change since HEAD before the unreleased version\'s 300 changes', () => {
    const text = toMarkdown('1.9.0', '1.9.1', [...mine, ...unreleased], allowed, { label: 'HEAD (git)', changes: mine });
    const lines = text.split('\n');
    expect(lines.slice(0, 3)).toEqual(['## 1.9.1', '', '### Since HEAD (git): 1 breaking, 1 non-breaking, 0 documentation only']);
    const first412 = lines.findIndex((l) => l.includes('PATCH /creatives/{creativeId}'));
    expect(first412).toBeGreaterThan(0);
    expect(first412).toBeLessThan(lines.findIndex((l) => l.startsWith('Changes from 1.9.0')));
    expect(first412).toBeLessThan(lines.findIndex((l) => l.includes('GET /old0')));
  });

  it('without a lead, the entry is as before (explicit --base/--head)', () => {
    const text = toMarkdown('1.9.0', '1.9.1', mine, allowed);
    expect(text.split('\n').slice(0, 5)).toEqual(['## 1.9.1', '', 'Changes from 1.9.0: 1 breaking, 1 non-breaking, 0 documentation only.', '', '### Breaking']);
    expect(Object.keys(toJson('1.9.0', '1.9.1', mine, allowed))).toEqual(['base', 'head', 'allowed', 'changes']);
    expect(toJson('1.9.0', '1.9.1', mine, allowed, { label: 'HEAD (git)', changes: mine }).since?.changes).toHaveLength(2);
  });
});
