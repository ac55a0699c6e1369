/**
 * What the console's browser specs share (console.spec.ts, firsthour.spec.ts): a mock on a manual
 * clock with one account, its control plane, opening a view once its live stream is connected, the
 * axe check, and the page's problems.
 */
import type { AddressInfo } from 'node:net';
import { AxeBuilder } from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { buildMock, type Mock } from '../node/app.ts';
import { Clock } from '../../../mock-core/src/core/clock.ts';
import { watch, type Problems } from '../web/browser/fixtures.ts';

export type Keys = Record<string, { keyId: string; key: string }>;

/** A mock listening on a free loopback port, on a manual clock, with one account of that name. */
export async function startConsoleSite(accountName: string): Promise<{ mock: Mock; origin: string; accountId: string; keys: Keys }> {
  const mock = buildMock({ clock: new Clock({ mode: 'manual' }) });
  await mock.app.listen({ port: 0, host: '127.0.0.1' });
  const origin = `http://127.0.0.1:${(mock.app.server.address() as AddressInfo).port}`;
  const created = await controlAt(origin, 'POST', '/accounts', { name: accountName });
  return { mock, origin, accountId: created.accountId, keys: created.keys };
}

/** A control-plane call; throws with the answer unless it is 2xx. */
export async function controlAt(origin: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${origin}/__mock${path}`, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Opens a view of the console for the account and waits until its live stream is connected. */
export async function openView(page: Page, origin: string, view: string, account: string): Promise<Problems> {
  const problems = watch(page);
  await page.goto(`${origin}/console/#/${view}/${account}`);
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveText('live');
  return problems;
}

/** No serious or critical axe violation on the page as it is now. */
export async function accessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`);
  expect(bad).toEqual([]);
}

/** What went wrong in the page, but the requests the console aborts on purpose (`aborted`). */
export function expectClean(problems: Problems, aborted: RegExp): void {
  expect(problems.list.filter((p) => !aborted.test(p))).toEqual([]);
}
