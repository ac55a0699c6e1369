/** The generation plane's handler table (presets, runs, upscales), spread into mock/core/handlers.ts. */
import type { HandlerTable } from '../../pipeline/types.ts';
import { presetHandlers } from '../presets/operations.ts';
import { upscaleHandlers } from '../upscales/operations.ts';
import { runHandlers } from './operations.ts';

export const generationHandlers: HandlerTable = { ...presetHandlers, ...runHandlers, ...upscaleHandlers };
