/**
 * Control plane, generation: how an account's run items and upscales turn out and how fast they
 * progress (packages/mock-core/src/domain/runs/settings.ts). The document validates the body; the setter checks what
 * a schema cannot (at least one positive weight) and changes nothing on an error.
 */
import { generationView, globalGeneration, setGenerationSettings, setGlobalGeneration } from '../domain/runs/settings.ts';
import { ControlError, type ControlHandlers } from './types.ts';

function refuse(errors: { field: string; message: string }[]): never {
  throw new ControlError(422, 'VALIDATION_ERROR', 'The generation settings are invalid.', errors);
}

export const generationHandlers: ControlHandlers = {
  getGeneration(request, ctx) {
    return { status: 200, body: generationView(ctx.services.store, ctx.account(request.params.accountId!)) };
  },

  updateGeneration(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    const result = setGenerationSettings(account, request.body);
    if (!result.ok) refuse(result.errors);
    return { status: 200, body: generationView(ctx.services.store, account) };
  },

  getGlobalGeneration(_request, { services }) {
    return { status: 200, body: { ...globalGeneration(services.store) } };
  },

  updateGlobalGeneration(request, { services }) {
    const result = setGlobalGeneration(services.store, request.body);
    if (!result.ok) refuse(result.errors);
    return { status: 200, body: { ...globalGeneration(services.store) } };
  },
};
