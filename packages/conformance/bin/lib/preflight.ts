/** cgs-conformance's first probe of the target: it stops a run that could not judge anything (unreachable, refused credentials, a missing token or hook), saying what to do (packages/conformance/bin/lib/conformance.ts). */
import { SetupError, type ConformancePlan } from './conformance.ts';

/** The one HTTP call the probe makes (fetch in the command; a table in the tests). */
export type Probe = (url: string, headers: Record<string, string>) => Promise<{ status: number; header(name: string): string | null; text(): Promise<string> }>;

/** `fetch` as a Probe: 15 s at most, no redirects followed. */
export const fetchProbe: Probe = async (url, headers) => {
  const response = await fetch(url, { headers, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
  return { status: response.status, header: (name) => response.headers.get(name), text: () => response.text() };
};

/**
 * Before the suite runs against a target: can it judge it at all? Throws a SetupError (exit 2)
 * with what to do when the target is unreachable, answers 404 at the API's base path, wants a
 * control token not given (or refuses it), has no control plane and neither keys nor hooks that
 * serve accounts were given, refuses every key, or lacks a key profile or hook the run was told it needs. Returns notes to print.
 * Spends at most one API request per key, stopping at the first key accepted.
 */
export async function preflight(plan: ConformancePlan, probe: Probe = fetchProbe): Promise<string[]> {
  const target = plan.target;
  if (!target) return [];
  const notes: string[] = [];
  const origin = new URL(target.baseUrl).origin;
  const ask = async (url: string, headers: Record<string, string>, what: string) => {
    try {
      return await probe(url, headers);
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new SetupError(
        `cannot reach ${what} (${cause?.code ?? cause?.message ?? (error as Error).message}): start the implementation, or correct ${what === target.hooksUrl ? '--hooks-url' : '--base-url'}. Nothing was judged.`,
      );
    }
  };

  /** The hooks a hooks server lists at GET /capabilities (the one operation every one answers), once. */
  const capabilities = new Map<string, string[]>();
  const hooksServedAt = async (hooksUrl: string): Promise<string[]> => {
    const known = capabilities.get(hooksUrl);
    if (known) return known;
    const answer = await ask(`${hooksUrl}/capabilities`, target.hooksToken ? { authorization: `Bearer ${target.hooksToken}` } : {}, hooksUrl);
    if (answer.status === 401) throw new SetupError(`${hooksUrl}/capabilities refused the hooks token (401): pass --hooks-token TOKEN (default: the --control-token)`);
    let served: string[] | undefined;
    try {
      const body = JSON.parse(await answer.text()) as { hooks?: unknown };
      served = Array.isArray(body.hooks) ? body.hooks.filter((h): h is string => typeof h === 'string') : undefined;
    } catch {
      served = undefined;
    }
    if (answer.status !== 200 || !served) throw new SetupError(`${hooksUrl}/capabilities answered ${answer.status} without a list of hooks: is --hooks-url the base URL of the target's conformance hooks (docs/hooks.md)?`);
    capabilities.set(hooksUrl, served);
    return served;
  };

  const control = await ask(`${origin}/__mock/clock`, target.controlToken ? { authorization: `Bearer ${target.controlToken}` } : {}, target.baseUrl);
  if (control.status === 401 && (control.header('www-authenticate') ?? '').includes('mock-control')) {
    throw new SetupError(
      target.controlToken === undefined
        ? `${origin}/__mock wants a control token (the mock was started with --control-token): pass --control-token TOKEN (or set CONFORMANCE_CONTROL_TOKEN)`
        : `${origin}/__mock refused the control token given (401): pass the token the mock was started with, --control-token TOKEN`,
    );
  }
  let hasControlPlane = false;
  if (control.status === 200) {
    try {
      const body = JSON.parse(await control.text()) as { now?: unknown; mode?: unknown };
      hasControlPlane = typeof body.now === 'string' && (body.mode === 'manual' || body.mode === 'real');
    } catch {
      hasControlPlane = false;
    }
  }

  const api = await ask(`${target.baseUrl}/products?limit=1`, {}, target.baseUrl);
  if (api.status === 404) {
    throw new SetupError(`${target.baseUrl}/products answered 404 without a key: is --base-url the API's base, /api/public/v1 included (e.g. https://staging.example/api/public/v1)?`);
  }

  // Without /__mock and without keys, the accounts hook makes the suite's accounts (#22).
  const accountsByHook = !hasControlPlane && !target.keys && target.hooksUrl !== undefined && (await hooksServedAt(target.hooksUrl)).includes('accounts');
  if (accountsByHook) {
    notes.push(`no --keys: the suite makes its own accounts through the accounts hook at ${target.hooksUrl}`);
  } else if (!hasControlPlane) {
    if (!target.keys) {
      throw new SetupError(
        `${target.baseUrl} serves no /__mock control plane, so the suite needs your accounts' keys: pass --keys FILE|JSON (profile name → key: read, runs:read, runs:write, creatives:write, creatives:review, assets:write, campaigns:write, all) and --keys-b for a second account (docs/gate.md, "Provisioning a target"), or --hooks-url of a test build whose conformance hooks serve accounts (docs/hooks.md)`,
      );
    }
    for (const profile of plan.requirements.keyProfiles) {
      const lacking = target.keys.findIndex((account) => account[profile] === undefined);
      if (lacking >= 0) throw new SetupError(`the run was told it needs key profile ${profile} (--require key-profile:${profile}), and ${target.keys.length > 1 ? `entry ${lacking + 1} of ` : ''}--keys has none: add a "${profile}" key`);
    }
    const all = [...new Set([...(target.keys ?? []), ...(target.keysB ?? [])].flatMap((account) => Object.values(account)))];
    let accepted = false;
    for (const key of all) {
      const answer = await ask(`${target.baseUrl}/products?limit=1`, { authorization: `Bearer ${key}` }, target.baseUrl);
      if (answer.status !== 401) {
        accepted = true;
        break;
      }
    }
    if (!accepted) {
      throw new SetupError(`${target.baseUrl} refused every key given (${all.length} tried, each 401 on GET /products): pass keys of this target's accounts with --keys / --keys-b (are they for another environment, revoked, or expired?)`);
    }
  } else if (target.keys) {
    notes.push(`${origin} serves the /__mock control plane: the suite makes its own accounts there, --keys is not used`);
  }

  if (plan.requirements.hooks.length > 0) {
    // A mock with a control plane serves the hooks at <origin>/__hooks.
    const hooksUrl = target.hooksUrl ?? (hasControlPlane ? `${origin}/__hooks` : undefined);
    if (!hooksUrl) {
      throw new SetupError(`the run was told it needs hook(s) ${plan.requirements.hooks.join(', ')} (--require hook:NAME): pass --hooks-url, the base URL of the target's conformance hooks (docs/hooks.md)`);
    }
    const served = await hooksServedAt(hooksUrl);
    const missing = plan.requirements.hooks.filter((h) => !served.includes(h));
    if (missing.length > 0) {
      throw new SetupError(`the run was told it needs hook(s) ${missing.join(', ')} (--require hook:NAME), and ${hooksUrl} serves only ${served.join(', ') || 'none'}: implement them in the test build (docs/hooks.md) or drop the requirement`);
    }
  }
  return notes;
}
