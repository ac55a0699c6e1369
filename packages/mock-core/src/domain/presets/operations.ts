/** Preset operations: listPresets (RUN-016, RUN-017, PAGE-004). */
import type { HandlerTable } from '../operation.ts';
import { listPage } from '../shared.ts';
import { presentPreset, presets } from './catalog.ts';

export const presetHandlers: HandlerTable = {
  listPresets: {
    run(ctx) {
      const page = listPage(ctx.account, presets, ctx.query, { listKey: 'presets', direction: 'asc', filter: () => true, present: presentPreset });
      // PAGE-004: generation-plane lists add `object: list`.
      return { status: 200, body: { object: 'list', ...page } };
    },
  },
};
