/**
 * Checks a control-plane answer against packages/contract/spec/mock-control.yaml (declaredViolations of harness.ts:
 * status declared, content type, body schema). The control tests pass every answer through it:
 * `expect(controlViolations('getAccount', res)).toEqual([])`. Test support only (it imports vitest).
 */
import { afterEach, beforeEach, expect } from 'vitest';
import { createHarness, declaredViolations, type Harness, type TestAccount, type TestResponse } from './harness.ts';
import { controlOperations, controlValidator } from '../control/document.ts';

export interface ControlAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text: string;
}

export function controlViolations(operationId: string, res: ControlAnswer): string[] {
  const operation = controlOperations().find((op) => op.operationId === operationId);
  if (!operation) return [`no control operation ${operationId}`];
  return declaredViolations(operationId, operation.responses, controlValidator, res);
}

/**
 * The control tests' setup, once: a fresh harness for every test (and, with `account`, an account
 * in it), closed after each, and `control(operationId, method, path, body)`, which sends a control
 * request and asserts that its answer conforms to packages/contract/spec/mock-control.yaml. Read `t.h` and `t.acc`
 * inside tests (they change per test).
 */
export function controlSuite(options: { account?: Parameters<Harness['account']>[0] } = {}) {
  let harness: Harness | undefined;
  let account: TestAccount | undefined;
  beforeEach(async () => {
    harness = await createHarness();
    account = options.account ? await harness.account(options.account) : undefined;
  });
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
    account = undefined;
  });
  const suite = {
    get h(): Harness {
      if (!harness) throw new Error('controlSuite: the harness exists only inside a test');
      return harness;
    },
    get acc(): TestAccount {
      if (!account) throw new Error('controlSuite: no account (pass `account` to controlSuite)');
      return account;
    },
    async control(operationId: string, method: string, path: string, body?: unknown): Promise<TestResponse> {
      const res = await suite.h.control(method, path, body);
      expect(controlViolations(operationId, res)).toEqual([]);
      return res;
    },
  };
  return suite;
}
