/**
 * The error registry and the document agree in both directions: every code the document
 * enumerates (under `code` in any problem schema of any response) is registered with that status,
 * and every registered code appears in the document.
 */
import { describe, expect, it } from 'vitest';
import { document, operationsList, resolvePointer } from '../../../contract/spec/contract.ts';
import { ERROR_CODES, REASON_PHRASES } from './errors.ts';

function codesIn(node: unknown, out: Set<string>, seen = new Set<unknown>()): void {
  if (!node || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  const obj = node as Record<string, unknown>;
  if (typeof obj.$ref === 'string') codesIn(resolvePointer(obj.$ref), out, seen);
  const code = (obj.properties as Record<string, Record<string, unknown>> | undefined)?.code;
  if (code) {
    if (typeof code.const === 'string') out.add(code.const);
    if (Array.isArray(code.enum)) for (const c of code.enum) out.add(String(c));
  }
  // `if`/`then` name codes to require members, they do not enumerate the codes a response gives.
  for (const [key, value] of Object.entries(obj)) if (!['if', 'then', 'else', 'not'].includes(key)) codesIn(value, out, seen);
}

function documentCodesByStatus(): Map<string, Set<number>> {
  const byCode = new Map<string, Set<number>>();
  for (const operation of operationsList) {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!status.startsWith('4') && !status.startsWith('5')) continue;
      const found = new Set<string>();
      codesIn(resolvePointer(response.pointer), found);
      for (const code of found) {
        if (!byCode.has(code)) byCode.set(code, new Set());
        byCode.get(code)!.add(Number(status));
      }
    }
  }
  const unmatched = (document as unknown as { 'x-unmatched-request': { codes: Record<string, string> } })['x-unmatched-request'].codes;
  for (const [status, code] of Object.entries(unmatched)) byCode.set(code, new Set([Number(status)]));
  return byCode;
}

describe('error registry ⇄ document', () => {
  const inDocument = documentCodesByStatus();

  it('every code the document enumerates is registered under the same statuses', () => {
    const problems: string[] = [];
    for (const [code, statuses] of inDocument) {
      const registered = (ERROR_CODES as Record<string, readonly number[]>)[code];
      if (!registered) problems.push(`${code} (document) is not in the registry`);
      else for (const status of statuses) if (!registered.includes(status)) problems.push(`${code}: document says ${status}, registry says ${registered.join('/')}`);
    }
    expect(problems).toEqual([]);
  });

  it('every registered code appears in the document under each of its statuses', () => {
    const problems: string[] = [];
    for (const [code, statuses] of Object.entries(ERROR_CODES)) {
      const documented = inDocument.get(code);
      if (!documented) problems.push(`${code} (registry) is not in the document`);
      else for (const status of statuses) if (!documented.has(status)) problems.push(`${code}: registry says ${status}, the document never does`);
    }
    expect(problems).toEqual([]);
  });

  it('every registered status has a reason phrase', () => {
    for (const statuses of Object.values(ERROR_CODES)) for (const status of statuses) expect(REASON_PHRASES[status]).toBeTruthy();
  });
});

describe('reason phrases without node:http', () => {
  it('name every status node:http names, as node names it, but those the mock names itself', async () => {
    const { STATUS_CODES } = await import('node:http');
    const { OTHER_REASON_PHRASES, REASON_PHRASES, reasonPhrase } = await import('./errors.ts');
    for (const [code, name] of Object.entries(STATUS_CODES)) {
      expect(reasonPhrase(Number(code)), code).toBe(REASON_PHRASES[Number(code)] ?? name);
    }
    expect(Object.keys(OTHER_REASON_PHRASES).length + Object.keys(REASON_PHRASES).length).toBe(Object.keys(STATUS_CODES).length);
  });
});
