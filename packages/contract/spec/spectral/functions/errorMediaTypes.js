import { isObject } from '../oas.js';

// Every 4xx/5xx response of an operation is `options.problem` only, except 429: `options.problem`
// when the operation's x-rate-limit-group matches `options.problemGroups` (the generation plane),
// `options.text` otherwise (the interface's plain-text 429 of the read plane and the writes).
// options: { problem: string, text: string, problemGroups: string (a regular expression) }
export default function errorMediaTypes(operation, options, context) {
  const responses = isObject(operation?.responses) ? operation.responses : {};
  const group = String(operation?.['x-rate-limit-group'] ?? '');
  const results = [];
  for (const [status, response] of Object.entries(responses)) {
    if (!/^[45]/.test(status)) continue;
    let expected = options.problem;
    if (status === '429' && !new RegExp(options.problemGroups).test(group)) expected = options.text;
    const types = isObject(response?.content) ? Object.keys(response.content) : [];
    if (types.length !== 1 || types[0] !== expected) {
      results.push({
        message: `A ${status} response of group \`${group}\` must have only \`${expected}\` content (found: ${types.join(', ') || 'none'}).`,
        path: [...context.path, 'responses', status, 'content'],
      });
    }
  }
  return results;
}
