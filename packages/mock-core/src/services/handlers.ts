/**
 * Every operation of the document, keyed by operationId, mapped to its handler in the resource
 * folders. `handlers.test.ts` checks that the table and the document agree in both directions.
 */
import type { HandlerTable } from '../domain/operation.ts';
import { assetHandlers } from '../domain/assets/operations.ts';
import { campaignHandlers } from '../domain/campaigns/operations.ts';
import { catalogHandlers } from '../domain/catalog/operations.ts';
import { creativeHandlers } from '../domain/creatives/operations.ts';
import { deliveryHandlers } from '../domain/deliveries/operations.ts';
import { presetHandlers } from '../domain/presets/operations.ts';
import { runHandlers } from '../domain/runs/operations.ts';
import { upscaleHandlers } from '../domain/upscales/operations.ts';

export const handlers: HandlerTable = {
  ...catalogHandlers,
  ...creativeHandlers,
  ...campaignHandlers,
  ...assetHandlers,
  ...deliveryHandlers,
  ...presetHandlers,
  ...runHandlers,
  ...upscaleHandlers,
};
