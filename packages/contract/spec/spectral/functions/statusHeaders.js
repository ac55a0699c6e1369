import { headerOf, isObject } from '../oas.js';

// In a Responses Object, the responses of the listed statuses declare a header with `required: true`.
// options: { statuses: string[], header: string, exceptOperations?: string[] }
// Given the operation (so that exceptions can name operationIds).
export default function statusHeaders(operation, options, context) {
  if (options.exceptOperations?.includes(operation?.operationId)) return [];
  const responses = isObject(operation?.responses) ? operation.responses : {};
  return options.statuses.flatMap((status) => {
    const response = responses[status];
    if (response === undefined) return [];
    const path = [...context.path, 'responses', status];
    const found = headerOf(response, options.header);
    if (found === undefined) return [{ message: `A ${status} response must declare the \`${options.header}\` header.`, path: [...path, 'headers'] }];
    if (found.value?.required !== true) {
      return [{ message: `Header \`${options.header}\` of a ${status} response must be \`required: true\`.`, path: [...path, 'headers', found.key] }];
    }
    return [];
  });
}
