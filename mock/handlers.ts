/**
 * Every operation of the document, keyed by operationId, mapped to its handler in the resource
 * folders. `handlers.test.ts` checks that the table and the document agree.
 */
import type { HandlerTable } from './pipeline/types.ts';
import { catalogHandlers } from './domain/catalog/operations.ts';

export const handlers: HandlerTable = {
  ...catalogHandlers,
};
