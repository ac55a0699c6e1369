/**
 * The suite's side of a batch run of the defect proof (batch.ts says how a batch runs): with
 * DEFECT_PLAN set, before each test, pick the defect its repeat runs under, skip it when the plan
 * has none or the defect was caught already, name it to the switching proxy, and expect the test
 * to fail; after it, record a caught defect. Without DEFECT_PLAN (every other run of the suite) it
 * does nothing.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { TestInfo } from '@playwright/test';
import { DEFECT_HEADER, DEFECT_PLAN_ENV, SELECT_PATH, type DefectPlan } from './batch.ts';

let loaded: DefectPlan | null | undefined;

function planOf(): DefectPlan | undefined {
  if (loaded === undefined) {
    const file = process.env[DEFECT_PLAN_ENV];
    loaded = file ? (JSON.parse(readFileSync(file, 'utf8')) as DefectPlan) : null;
  }
  return loaded ?? undefined;
}

function caught(file: string): Set<string> {
  return new Set(existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
}

/** The auto fixture's body (packages/conformance/suite/fixtures/index.ts). */
export async function underDefectPlan(testInfo: TestInfo, use: () => Promise<void>): Promise<void> {
  const plan = planOf();
  if (plan === undefined) return use();
  const id = testInfo.titlePath.join(' › ');
  const defect = plan.tests[id]?.[testInfo.repeatEachIndex];
  testInfo.skip(defect === undefined, `defect proof: no defect of this batch runs this test as repeat ${testInfo.repeatEachIndex}`);
  testInfo.annotations.push({ type: 'defect', description: defect! });
  testInfo.skip(plan.caughtFile !== undefined && caught(plan.caughtFile).has(defect!), `defect proof: ${defect} was caught by an earlier test`);
  const selected = await fetch(`${plan.proxy}${SELECT_PATH}`, { method: 'POST', headers: { [DEFECT_HEADER]: defect! } });
  await selected.arrayBuffer();
  if (selected.status !== 204) throw new Error(`defect proof: the switching proxy answered ${selected.status} to selecting ${defect}`);
  // Catching the defect is this test's expected outcome here: the worker stays for the next test.
  testInfo.fail(true, `defect proof: must fail under ${defect}`);
  await use();
  if (plan.caughtFile !== undefined && (testInfo.status === 'failed' || testInfo.status === 'timedOut')) appendFileSync(plan.caughtFile, `${defect}\n`);
}
