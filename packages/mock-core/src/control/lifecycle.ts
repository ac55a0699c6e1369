/** Control plane, lifecycle: reset, saveState (the `--state` file), listDefects. */
import { ControlError, type ControlHandlers } from './types.ts';

export const lifecycleHandlers: ControlHandlers = {
  async reset(_request, { services, options }) {
    services.store.reset();
    services.clock.clearTasks();
    services.limiter.clear();
    services.responses.clear();
    services.webhooks.reset();
    await options.onReset?.(services);
    services.feed.publish('reset', undefined, {});
    return { status: 204 };
  },

  saveState(_request, { services, options }) {
    const saveStateFile = options.saveStateFile;
    if (options.stateFile === undefined || saveStateFile === undefined) {
      throw new ControlError(409, 'STATE_FILE_UNSET', 'The mock was started without --state FILE; there is no file to save to.');
    }
    try {
      return { status: 200, body: saveStateFile(options.stateFile, services.store, services.clock) };
    } catch (error) {
      services.logError(error, 'POST /__mock/state/save');
      throw new ControlError(500, 'STATE_SAVE_FAILED', `Saving ${options.stateFile} failed: ${(error as Error).message}. The previous file is intact.`);
    }
  },

  listDefects(_request, { services }) {
    return { status: 200, body: { defects: [...services.defects] } };
  },
};
