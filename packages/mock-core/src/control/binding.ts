/**
 * Whether the control plane may be served on an address: anyone who reaches /__mock can reset the
 * mock, mint keys and read webhook signing secrets, so an address other than loopback needs a
 * control token (`--control-token`, CGS_CONTROL_TOKEN) or an explicit `--insecure-control`.
 */
import { isIP } from 'node:net';

/** 127.0.0.0/8, ::1 (and ::ffff:127.x), `localhost`. Anything else, `0.0.0.0` and `::` included, is not. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare.startsWith('::ffff:127.');
  return false;
}

/** Why the mock refuses to start, or undefined when it may. */
export function controlBindingRefusal(host: string, controlToken: string | undefined, insecureControl: boolean): string | undefined {
  if (controlToken !== undefined || insecureControl || isLoopback(host)) return undefined;
  return (
    `refusing to serve the control plane (/__mock) on ${host}, which is not a loopback address, without a control token: ` +
    'anyone who can reach it could reset the mock, mint API keys and read webhook signing secrets. ' +
    'Give --control-token TOKEN (or CGS_CONTROL_TOKEN) and send it as `Authorization: Bearer TOKEN` to /__mock ' +
    '(the conformance suite reads it from CONFORMANCE_CONTROL_TOKEN), or --insecure-control to serve it open anyway.'
  );
}
