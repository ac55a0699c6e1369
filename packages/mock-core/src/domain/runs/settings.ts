/**
 * Generation settings: how run items and upscales turn out and how long they take.
 *
 * - Outcomes are drawn deterministically from (seed, the run's ordinal, item position) and the account's
 *   `outcomeMix` (relative weights), so a test asks for a PARTIAL or a REFUSED run by setting the
 *   mix. `outcomePattern`, when set, overrides the mix: item `position` gets
 *   `pattern[position % pattern.length]` (exact per-item control). `stall` never settles (the only
 *   way to reach EXPIRED, D10).
 * - Upscales draw from `upscaleOutcomeMix` (succeeded / failed / stall).
 * - `speed` scales every duration (2 = twice as fast). The account's value wins over the global
 *   one; the global default is 1, at which a 10-item run takes about half a minute.
 *
 * The control plane calls `setGenerationSettings` / `setGlobalGeneration` (validated as a whole,
 * nothing changes on an error) and shows `generationView`.
 */

export type DrawnOutcome = 'succeeded' | 'failed' | 'refused' | 'stall';
export const DRAWN_OUTCOMES: readonly DrawnOutcome[] = ['succeeded', 'failed', 'refused', 'stall'];
export type UpscaleDrawn = 'succeeded' | 'failed' | 'stall';
export const UPSCALE_OUTCOMES: readonly UpscaleDrawn[] = ['succeeded', 'failed', 'stall'];

export type OutcomeMix = Record<DrawnOutcome, number>;
export type UpscaleOutcomeMix = Record<UpscaleDrawn, number>;

export interface GenerationSettings {
  seed: number;
  /** null: use the global speed. */
  speed: number | null;
  outcomeMix: OutcomeMix;
  outcomePattern: DrawnOutcome[] | null;
  upscaleOutcomeMix: UpscaleOutcomeMix;
}

export function defaultGenerationSettings(seed: number): GenerationSettings {
  return {
    seed,
    speed: null,
    outcomeMix: { succeeded: 1, failed: 0, refused: 0, stall: 0 },
    outcomePattern: null,
    upscaleOutcomeMix: { succeeded: 1, failed: 0, stall: 0 },
  };
}

export interface GlobalGeneration {
  speed: number;
}

/** What these functions read: the store's global settings and an account's own (packages/mock-core/src/domain/store.ts holds both). */
type HasGlobal = { readonly generation: GlobalGeneration };
type HasSettings = { generation: GenerationSettings };

/** The global settings, one per mock: held by its Store (`store.generation`). */
export function globalGeneration(store: HasGlobal): GlobalGeneration {
  return store.generation;
}

export function effectiveSpeed(store: HasGlobal, account: HasSettings): number {
  return account.generation.speed ?? globalGeneration(store).speed;
}

export const MAX_SPEED = 100_000;
const MAX_PATTERN = 1000;

type FieldError = { field: string; message: string };
export type SettingsResult = { ok: true } | { ok: false; errors: FieldError[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readSpeed(value: unknown, field: string, nullable: boolean, errors: FieldError[]): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null && nullable) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_SPEED) {
    errors.push({ field, message: `must be a number > 0 and <= ${MAX_SPEED}${nullable ? ', or null for the global speed' : ''}` });
    return undefined;
  }
  return value;
}

function readMix<K extends string>(value: unknown, field: string, keys: readonly K[], errors: FieldError[]): Record<K, number> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) {
    errors.push({ field, message: `must be an object of weights over ${keys.join(', ')}` });
    return undefined;
  }
  const mix = Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
  let total = 0;
  for (const [key, weight] of Object.entries(value)) {
    if (!(keys as readonly string[]).includes(key)) errors.push({ field: `${field}.${key}`, message: `is not one of ${keys.join(', ')}` });
    else if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) errors.push({ field: `${field}.${key}`, message: 'must be a finite number >= 0' });
    else {
      mix[key as K] = weight;
      total += weight;
    }
  }
  if (total <= 0) errors.push({ field, message: 'needs at least one positive weight' });
  return mix;
}

/**
 * The setter's body (every member optional): `{ seed?: integer, speed?: number | null,
 * outcomeMix?: { succeeded?, failed?, refused?, stall? }, outcomePattern?: outcome[] | null,
 * upscaleOutcomeMix?: { succeeded?, failed?, stall? } }`. A mix replaces the previous one (missing
 * weights are 0). Applies to items and upscales that start after the change.
 */
export function setGenerationSettings(account: HasSettings, input: unknown): SettingsResult {
  if (!isRecord(input)) return { ok: false, errors: [{ field: 'body', message: 'must be a JSON object' }] };
  const errors: FieldError[] = [];
  for (const key of Object.keys(input)) if (!['seed', 'speed', 'outcomeMix', 'outcomePattern', 'upscaleOutcomeMix'].includes(key)) errors.push({ field: key, message: 'is not a known field' });
  if (input.seed !== undefined && !Number.isSafeInteger(input.seed)) errors.push({ field: 'seed', message: 'must be an integer' });
  const speed = readSpeed(input.speed, 'speed', true, errors);
  const mix = readMix(input.outcomeMix, 'outcomeMix', DRAWN_OUTCOMES, errors);
  const upscaleMix = readMix(input.upscaleOutcomeMix, 'upscaleOutcomeMix', UPSCALE_OUTCOMES, errors);
  let pattern: DrawnOutcome[] | null | undefined;
  if (input.outcomePattern === null) pattern = null;
  else if (input.outcomePattern !== undefined) {
    const raw = input.outcomePattern;
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_PATTERN || !raw.every((o) => (DRAWN_OUTCOMES as readonly unknown[]).includes(o))) {
      errors.push({ field: 'outcomePattern', message: `must be null or 1-${MAX_PATTERN} of ${DRAWN_OUTCOMES.join(', ')}` });
    } else pattern = [...(raw as DrawnOutcome[])];
  }
  if (errors.length) return { ok: false, errors };
  const g = account.generation;
  if (input.seed !== undefined) g.seed = input.seed as number;
  if (speed !== undefined) g.speed = speed;
  if (mix) g.outcomeMix = mix;
  if (upscaleMix) g.upscaleOutcomeMix = upscaleMix;
  if (pattern !== undefined) g.outcomePattern = pattern;
  return { ok: true };
}

/** `{ speed?: number }`: the speed of every account that has none of its own. */
export function setGlobalGeneration(store: HasGlobal, input: unknown): SettingsResult {
  if (!isRecord(input)) return { ok: false, errors: [{ field: 'body', message: 'must be a JSON object' }] };
  const errors: FieldError[] = [];
  for (const key of Object.keys(input)) if (key !== 'speed') errors.push({ field: key, message: 'is not a known field' });
  const speed = readSpeed(input.speed, 'speed', false, errors);
  if (errors.length) return { ok: false, errors };
  if (typeof speed === 'number') globalGeneration(store).speed = speed;
  return { ok: true };
}

export function generationView(store: HasGlobal, account: HasSettings): GenerationSettings & { effectiveSpeed: number } {
  const g = account.generation;
  return {
    seed: g.seed,
    speed: g.speed,
    effectiveSpeed: effectiveSpeed(store, account),
    outcomeMix: { ...g.outcomeMix },
    outcomePattern: g.outcomePattern ? [...g.outcomePattern] : null,
    upscaleOutcomeMix: { ...g.upscaleOutcomeMix },
  };
}
