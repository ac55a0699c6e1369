import { describe, expect, it } from 'vitest';
import { operationsList } from '../../../contract/spec/contract.ts';
import { handlers } from './handlers.ts';

describe('handler table ⇄ document', () => {
  it('every operation of the document has a handler', () => {
    expect(operationsList.map((o) => o.operationId).filter((id) => !handlers[id])).toEqual([]);
  });
  it('every handler serves an operation of the document', () => {
    const ids = new Set(operationsList.map((o) => o.operationId));
    expect(Object.keys(handlers).filter((id) => !ids.has(id))).toEqual([]);
  });
});
