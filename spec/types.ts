/**
 * The one alias module for generated types: import them from here, never from spec/generated/,
 * so that a rename in a generator or a schema touches this file only.
 */
import type { components } from './generated/openapi.ts';

export type { components, operations, paths, webhooks } from './generated/openapi.ts';
export type { Rule, RuleLedger } from './generated/rules.ts';

/** Every schema of components.schemas, by name: `Schemas['Creative']`. */
export type Schemas = components['schemas'];
