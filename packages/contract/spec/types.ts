/**
 * The one alias module for generated types: import them from here, never from packages/contract/spec/generated/,
 * so that a rename in a generator or a schema touches this file only.
 */
import type { components } from './generated/openapi.ts';
import type { components as ControlComponents } from './generated/mock-control.ts';
import type { components as HooksComponents } from './generated/conformance-hooks.ts';

export type { components, operations, paths, webhooks } from './generated/openapi.ts';
export type { Rule, RuleLedger } from './generated/rules.ts';

/** Every schema of components.schemas, by name: `Schemas['Creative']`. */
export type Schemas = components['schemas'];
/** The schemas of the mock's control plane (packages/contract/spec/mock-control.yaml) and of the hooks (packages/contract/spec/conformance-hooks.yaml). */
export type ControlSchemas = ControlComponents['schemas'];
export type HooksSchemas = HooksComponents['schemas'];
