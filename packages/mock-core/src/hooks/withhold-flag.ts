/**
 * The names of `cgs-mock --hooks-withhold` (packages/mock-core/src/hooks/withhold.ts says what each withholds), parsed
 * apart from the document: the command line checks the flag before it loads the server (main.ts).
 */
export const WITHHOLDABLE_HOOKS = ['accounts', 'clock', 'faults', 'actors', 'webhooks', 'rate-limits', 'outcomes', 'events'] as const;
export const WITHHOLDABLE_FLAGS = ['accounts.rateCard', 'accounts.credits', 'webhooks.deliveryLog', 'webhooks.duplicates', 'actors.generateUntil'] as const;
const LISTS = ['actions', 'operations', 'kinds', 'faults'] as const;

/** Why a name cannot be withheld, or undefined when it can. */
export function withholdingError(name: string): string | undefined {
  if (name === 'data' || (WITHHOLDABLE_HOOKS as readonly string[]).includes(name) || (WITHHOLDABLE_FLAGS as readonly string[]).includes(name) || name === 'operations') return undefined;
  const [list, item] = name.split(':');
  if ((LISTS as readonly string[]).includes(list ?? '') && item) return undefined;
  return `--hooks-withhold takes a hook (${WITHHOLDABLE_HOOKS.join(', ')}), ${LISTS.map((l) => `${l}:NAME`).join(', ')}, operations, a flag (${WITHHOLDABLE_FLAGS.join(', ')}) or data, not ${JSON.stringify(name)}`;
}

/** The comma-separated list of the flag, checked (throws with the first bad name). */
export function parseWithhold(raw: readonly string[]): string[] {
  const names = raw.flatMap((entry) => entry.split(',')).map((name) => name.trim()).filter((name) => name !== '');
  for (const name of names) {
    const error = withholdingError(name);
    if (error) throw new Error(error);
  }
  return [...new Set(names)];
}

