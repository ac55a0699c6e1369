import { isObject } from '../oas.js';

// A webhook Path Item has a `post` with an operationId, the required header parameters of
// `options.headers`, a required application/json request body and a 2XX response.
// options: { headers: string[] }
export default function webhookOperation(pathItem, options, context) {
  const post = pathItem?.post;
  if (!isObject(post)) return [{ message: 'A webhook must have a `post` operation.', path: context.path }];
  const at = [...context.path, 'post'];
  const results = [];
  if (typeof post.operationId !== 'string' || post.operationId === '') {
    results.push({ message: 'A webhook `post` must have an operationId.', path: at });
  }
  const parameters = [...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []), ...(Array.isArray(post.parameters) ? post.parameters : [])];
  for (const name of options.headers) {
    const found = parameters.find((p) => isObject(p) && p.in === 'header' && String(p.name).toLowerCase() === name.toLowerCase());
    if (found?.required !== true) {
      results.push({ message: `A webhook must declare the required header parameter \`${name}\`.`, path: [...at, 'parameters'] });
    }
  }
  const body = post.requestBody;
  if (!isObject(body) || body.required !== true || !isObject(body.content?.['application/json'])) {
    results.push({ message: 'A webhook must have a required `application/json` request body.', path: [...at, 'requestBody'] });
  }
  const statuses = isObject(post.responses) ? Object.keys(post.responses) : [];
  if (!statuses.some((status) => /^2(XX|\d\d)$/.test(status))) {
    results.push({ message: 'A webhook must declare a 2XX response.', path: [...at, 'responses'] });
  }
  return results;
}
