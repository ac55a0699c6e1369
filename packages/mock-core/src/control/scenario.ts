/** Control plane, scenarios: loadScenario, exportScenario (packages/mock-core/src/scenario/, packages/contract/spec/schemas/scenario.schema.json, D130, D131). */
import type { FieldError } from '../core/errors.ts';
import { loadScenario, ScenarioError } from '../scenario/apply.ts';
import { exportScenario } from '../scenario/export.ts';
import { ControlError, invalidField, type ControlHandlers } from './types.ts';

interface ScenarioLoadBody {
  text?: string;
  scenario?: object;
  name?: string;
}

export const scenarioHandlers: ControlHandlers = {
  async loadScenario(request, ctx) {
    const body = request.body as ScenarioLoadBody;
    if ((body.text === undefined) === (body.scenario === undefined)) throw invalidField('text', 'or `scenario`: exactly one of them is required');
    try {
      const loaded = await loadScenario({ dispatch: ctx.dispatch, services: ctx.services }, body.text ?? body.scenario ?? {}, body.name);
      return { status: 201, body: loaded };
    } catch (error) {
      // A problem's `line` and `column` (packages/contract/spec/mock-control.yaml FieldError) ride along with its field.
      if (error instanceof ScenarioError) throw new ControlError(422, 'VALIDATION_ERROR', error.message, error.errors as FieldError[]);
      throw error;
    }
  },

  async exportScenario(request, ctx) {
    const account = ctx.account(request.params.accountId!);
    return { status: 200, body: await exportScenario(account, ctx.services) };
  },
};
