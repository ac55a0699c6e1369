/**
 * The names of a scenario checked before anything is made (D254): every `as` is new (not used above
 * in the file, not one of the names the load gives itself), and every reference `${name...}` starts
 * with a name made above it in file order (the order loadScenario makes the parts in). What a
 * reference reads inside a step's answer can only be known once the step has run: such a miss is a
 * refusal at apply time, and the load removes what it made (apply.ts).
 */
import type { Scenario } from '../../../contract/spec/generated/scenario.ts';
import { referencesIn } from './references.ts';
import { fieldOf, type ScenarioPath } from './source.ts';

/** The names the load gives itself for each account, from its createAccount on (references.ts). */
export const OWN_NAMES: readonly string[] = ['account', 'brands', 'products', 'catalog', 'assets'];

export interface NameProblem {
  path: ScenarioPath;
  message: string;
}

/** Every problem of the file's names and references, in file order (none: every name is bound). */
export function nameProblems(scenario: Scenario): NameProblem[] {
  const problems: NameProblem[] = [];
  const made = new Map<string, string>(); // name → where it was made (a field path, for the message)
  let ownNames = false; // `account`, `brands`... exist once the first createAccount ran
  const uses = (value: unknown, path: ScenarioPath): void => {
    for (const reference of referencesIn(value, path)) {
      if (made.has(reference.head) || (ownNames && OWN_NAMES.includes(reference.head))) continue;
      const known = [...(ownNames ? OWN_NAMES : []), ...made.keys()].join(', ');
      problems.push({ path: reference.path, message: `\${${reference.expression}} names nothing: ${JSON.stringify(reference.head)} is not made above (known here: ${known || 'none'})` });
    }
  };
  const defines = (as: string | undefined, path: ScenarioPath): void => {
    if (as === undefined) return;
    const at = [...path, 'as'];
    if (OWN_NAMES.includes(as)) problems.push({ path: at, message: `${as} is a name the load gives itself (${OWN_NAMES.join(', ')}); choose another` });
    else if (made.has(as)) problems.push({ path: at, message: `${as} already names something above (${made.get(as)})` });
    else made.set(as, fieldOf(path));
  };
  scenario.accounts.forEach((account, a) => {
    const at: ScenarioPath = ['accounts', a];
    uses(account.account, [...at, 'account']);
    ownNames = true;
    defines(account.as, at);
    uses(account.settings, [...at, 'settings']);
    uses(account.generation, [...at, 'generation']);
    account.keys?.forEach((entry, k) => {
      uses(entry.key, [...at, 'keys', k, 'key']);
      defines(entry.as, [...at, 'keys', k]);
    });
    uses(account.webhooks?.settings, [...at, 'webhooks', 'settings']);
    account.webhooks?.endpoints?.forEach((entry, e) => {
      uses(entry.endpoint, [...at, 'webhooks', 'endpoints', e, 'endpoint']);
      defines(entry.as, [...at, 'webhooks', 'endpoints', e]);
    });
    account.steps?.forEach((step, s) => {
      if (step.action === undefined) return; // a move of the clock reads no names
      uses(step.action, [...at, 'steps', s, 'action']);
      defines(step.as, [...at, 'steps', s]);
    });
    uses(account.faults, [...at, 'faults']);
  });
  return problems;
}
