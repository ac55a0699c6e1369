/**
 * Areas of the API, for gating a partial implementation (`cgs-conformance --area read`; #32 item 7,
 * D277 in packages/conformance/suite/README.md). Derived from packages/contract/spec/openapi.yaml, never listed by hand:
 *
 * - a **resource** is the first segment of an operation's path (`products`, `creatives`, `campaigns`,
 *   `assets`, `deliveries`, `presets`, `runs`, `upscales`), except `estimate` (POST /runs/estimate,
 *   its own operation, servable before runs are);
 * - `webhooks` is the area of event delivery (the webhooks hook: docs/hooks.md), no operation's;
 * - a **plane** is the resources of the document's tags: `read` those of `read-plane` and `writes`
 *   operations, `generation` those of `generation-plane` ones.
 *
 * A test carries one `@area:<resource>` tag per area it touches (the operations it calls, the
 * webhooks hook), and `--area LIST` selects the tests whose areas are ALL within LIST: a test
 * of campaigns that starts a run belongs to runs too, and a read-plane target never meets it.
 * Every run checks the tags against the operations each test called (rules-reporter.ts,
 * `areaProblems`): a test that called an operation of an area it is not tagged with is a naming
 * problem.
 */
import { operations, operationsList } from '../spec/contract.ts';

/** The area of event delivery (tests using the webhooks hook). */
export const WEBHOOKS = 'webhooks';

/** The resource an operation belongs to, from its path. */
export function resourceOf(operationId: string): string | undefined {
  const op = operations.get(operationId);
  if (!op) return undefined;
  if (op.operationId === 'estimateRun') return 'estimate';
  return op.path.split('/')[1];
}

const PLANE_OF_TAG: Readonly<Record<string, string>> = { 'read-plane': 'read', writes: 'read', 'generation-plane': 'generation' };

/** Plane → its resources (read, generation), from the document's tags. */
export const PLANES: ReadonlyMap<string, readonly string[]> = (() => {
  const planes = new Map<string, Set<string>>();
  for (const op of operationsList) {
    const plane = PLANE_OF_TAG[op.tag];
    if (plane === undefined) throw new Error(`packages/contract/rules/areas.ts: operation ${op.operationId} has tag ${op.tag}, of no plane (read-plane, writes, generation-plane)`);
    const set = planes.get(plane) ?? new Set<string>();
    set.add(resourceOf(op.operationId)!);
    planes.set(plane, set);
  }
  return new Map([...planes].map(([plane, set]) => [plane, [...set].sort()]));
})();

/** Every resource area, webhooks last. */
export const RESOURCES: readonly string[] = [...new Set(operationsList.map((op) => resourceOf(op.operationId)!)), WEBHOOKS];

/** The names `--area` accepts: the planes, then the resources. */
export const AREA_NAMES: readonly string[] = [...PLANES.keys(), ...RESOURCES];

/** `--area read,webhooks` → the resources it selects; throws naming the known areas on an unknown one. */
export function expandAreas(list: string): string[] {
  const names = list.split(',').map((n) => n.trim()).filter(Boolean);
  if (names.length === 0) throw new Error(`--area names at least one area: ${AREA_NAMES.join(', ')}`);
  const unknown = names.filter((n) => !AREA_NAMES.includes(n));
  if (unknown.length > 0) throw new Error(`--area: unknown area ${unknown.join(', ')}; the areas are the planes ${[...PLANES.keys()].join(', ')} (${[...PLANES].map(([p, r]) => `${p}: ${r.join(' ')}`).join('; ')}) and the resources ${RESOURCES.join(', ')}`);
  return [...new Set(names.flatMap((n) => PLANES.get(n) ?? [n]))].sort((a, b) => RESOURCES.indexOf(a) - RESOURCES.indexOf(b));
}

/** The areas of a test's tags (`@area:runs` → runs). */
export function taggedAreas(tags: readonly string[]): string[] {
  return tags.filter((t) => t.startsWith('@area:')).map((t) => t.slice('@area:'.length));
}

/** The areas a test touched: the resources of the operations it called, and webhooks when it used the webhooks hook. */
export function areasCalled(operationIds: readonly string[], hooksUsed: readonly string[] = []): string[] {
  const areas = new Set(operationIds.map(resourceOf).filter((r): r is string => r !== undefined));
  if (hooksUsed.includes(WEBHOOKS)) areas.add(WEBHOOKS);
  return RESOURCES.filter((r) => areas.has(r));
}

/** The areas of a test outside the selected ones (none: the test is selected). */
export function outsideAreas(tags: readonly string[], selected: readonly string[]): string[] {
  return taggedAreas(tags).filter((a) => !selected.includes(a));
}

/**
 * Playwright's `--grep-invert` leaving out every test with an area outside `selected` (for a
 * listing; a run skips them instead, so that the report names the rules they would judge).
 */
export function outsideGrep(selected: readonly string[]): string | undefined {
  const outside = RESOURCES.filter((r) => !selected.includes(r));
  return outside.length === 0 ? undefined : `@area:(?:${outside.join('|')})(?![\\w-])`;
}

/** The skip reason of a test outside the selection (rules-reporter.ts and verdict.ts read it back). */
export function outsideReason(list: string, outside: readonly string[]): string {
  return `outside --area ${list}: the test touches ${outside.join(', ')}`;
}

/** `outside --area read: ...` → `read`, or undefined for any other reason. */
export function areaOfReason(reason: string | undefined): string | undefined {
  return /^outside --area (\S+):/.exec(reason ?? '')?.[1];
}
