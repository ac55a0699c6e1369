/**
 * Checks a control-plane answer against spec/mock-control.yaml (status declared, content type,
 * body schema). The control tests pass every answer through it:
 * `expect(controlViolations('getAccount', res)).toEqual([])`.
 */
import { controlOperations, controlValidator } from './document.ts';

export interface ControlAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  text: string;
}

export function controlViolations(operationId: string, res: ControlAnswer): string[] {
  const operation = controlOperations().find((op) => op.operationId === operationId);
  if (!operation) return [`no control operation ${operationId}`];
  const declared = operation.responses[String(res.status)];
  if (!declared) return [`status ${res.status} is not declared for ${operationId}: ${res.text}`];
  const contentType = (res.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (declared.contentTypes.length === 0) return res.text === '' ? [] : [`status ${res.status} declares no body, got ${res.text}`];
  if (!declared.contentTypes.includes(contentType)) return [`content type ${contentType || '(none)'} is not one of ${declared.contentTypes.join(', ')}`];
  const pointer = declared.schemaPointers[contentType];
  if (pointer === undefined) return [];
  const validate = controlValidator(pointer);
  return validate(res.body) ? [] : [`body does not match ${pointer}: ${JSON.stringify(validate.errors?.slice(0, 3))} in ${res.text.slice(0, 500)}`];
}
