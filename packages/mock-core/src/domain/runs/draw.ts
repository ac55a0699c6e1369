/**
 * Deterministic draws: the same (seed, subject id, position, purpose) always gives the same number,
 * whatever the order in which items run and whatever else happened on the account. No Math.random.
 */
import type { DrawnOutcome, GenerationSettings, OutcomeMix } from './settings.ts';

/** A uniform number in [0, 1) from the inputs (FNV-1a, then a murmur3 finaliser). */
export function unit(seed: number, id: string, position: number, purpose: string): number {
  let h = 0x811c9dc5 ^ (seed | 0);
  const text = `${id}|${position}|${purpose}|${seed}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** Pick a key of `weights` with probability proportional to its weight, from u in [0, 1). */
export function pick<K extends string>(weights: Readonly<Record<K, number>>, order: readonly K[], u: number): K {
  let total = 0;
  for (const k of order) total += weights[k];
  let at = u * total;
  let last = order[0]!;
  for (const k of order) {
    if (weights[k] <= 0) continue;
    last = k;
    if (at < weights[k]) return k;
    at -= weights[k];
  }
  return last;
}

const ORDER: readonly DrawnOutcome[] = ['succeeded', 'failed', 'refused', 'stall'];

/** What keys a run's draws: its place among the account's runs (not its id, which is partly random). */
export function runDrawKey(ordinal: number): string {
  return `run#${ordinal}`;
}

/** The outcome of item `position` of the run keyed `key` under the account's settings. */
export function drawItemOutcome(settings: Pick<GenerationSettings, 'seed' | 'outcomeMix' | 'outcomePattern'>, key: string, position: number): DrawnOutcome {
  const pattern = settings.outcomePattern;
  if (pattern && pattern.length > 0) return pattern[position % pattern.length]!;
  return pick<DrawnOutcome>(settings.outcomeMix as OutcomeMix, ORDER, unit(settings.seed, key, position, 'outcome'));
}

/** A duration factor in [0.6, 1.0]: every item takes at most the base duration (D11's estimate is an upper bound). */
export function durationFactor(seed: number, id: string, position: number): number {
  return 0.6 + 0.4 * unit(seed, id, position, 'duration');
}
