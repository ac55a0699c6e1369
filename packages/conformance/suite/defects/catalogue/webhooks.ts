/** The defect catalogue, webhooks (injected by the mock: deliveries do not pass the proxy) (kind `webhooks`). */
import { byRules, inFile, type DefectEntry } from './model.ts';

export const webhooksDefects: readonly DefectEntry[] = [
  {
    name: 'webhook-bad-signature',
    kind: 'webhooks',
    description: 'webhook-signature is computed over another content than `${id}.${timestamp}.${body}`',
    rules: ['EVT-046', 'EVT-043'],
    via: 'mock',
  },
  {
    name: 'webhook-id-unstable',
    kind: 'webhooks',
    description: 'every delivery attempt of an event carries a new webhook-id',
    rules: ['EVT-039', 'EVT-044'],
    via: 'mock',
  },
  {
    name: 'webhook-campaign-data-stale',
    kind: 'webhooks',
    description: '`data` of campaign.created and campaign.updated is not the Campaign: its name is the one before the change',
    rules: ['EVT-015'],
    grep: inFile('webhooks.spec.ts', byRules('EVT-015')),
    via: 'mock',
  },
  {
    name: 'webhook-previous-ratio-shown',
    kind: 'webhooks',
    description: 'previousAttributes.aspectRatio is the ratio the creative showed (its campaign\'s) instead of null when it had none of its own',
    rules: ['EVT-033'],
    grep: inFile('webhooks.spec.ts', byRules('EVT-033')),
    via: 'mock',
  },
  {
    name: 'webhook-campaign-created-as-creative',
    kind: 'webhooks',
    description: 'creating a campaign sends creative.updated (about creatives nobody can read) instead of campaign.created',
    rules: ['EVT-017', 'EVT-018'],
    grep: inFile('webhooks.spec.ts', byRules('EVT-017', 'EVT-018')),
    via: 'mock',
  },
  {
    name: 'webhook-actor-leaks-key',
    kind: 'webhooks',
    description: 'the actor of a change not made with an API key carries an apiKeyId',
    rules: ['EVT-035', 'EVT-036'],
    // The event log of the control plane shows actors too, but only deliveries carry the defect.
    grep: inFile('webhooks.spec.ts', byRules('EVT-035', 'EVT-036')),
    via: 'mock',
  },
  // #32: judged from a run's run.completed, so a target without the actors hook (or any creative) catches it (D273)
  {
    name: 'webhook-retry-fixed',
    kind: 'webhooks',
    description: 'a failed delivery is retried every 5 minutes instead of after 1, 2, 4 ... minutes capped at an hour',
    rules: ['EVT-040'],
    grep: inFile('webhooks.spec.ts', byRules('EVT-040')),
    via: 'mock',
  },
];
