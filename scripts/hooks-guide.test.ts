/** docs/hooks.md's table of rules per hook is the one packages/contract/spec/conformance-hooks.yaml's x-unlocks gives. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GUIDE, renderUnlocks, withUnlocks } from './hooks-guide.ts';

describe('docs/hooks.md', () => {
  it('lists the rules each hook unlocks exactly as the document does (npx tsx scripts/hooks-guide.ts rewrites it)', () => {
    const text = readFileSync(GUIDE, 'utf8');
    expect(text).toContain(renderUnlocks());
  });

  it('would see a row that disagrees', () => {
    const text = withUnlocks(readFileSync(GUIDE, 'utf8')).replace('(getCapabilities) | (none by itself)', '(getCapabilities) | RUN-001');
    expect(text.includes(renderUnlocks())).toBe(false);
  });
});
