import { headerOf } from '../oas.js';

// A Response Object declares each named header with `required: true`.
// options: { headers: string[] }
export default function requiredHeaders(response, options, context) {
  return options.headers.flatMap((name) => {
    const found = headerOf(response, name);
    if (found === undefined) return [{ message: `Response must declare the \`${name}\` header.`, path: [...context.path, 'headers'] }];
    if (found.value?.required !== true) {
      return [{ message: `Header \`${name}\` must be \`required: true\`.`, path: [...context.path, 'headers', found.key] }];
    }
    return [];
  });
}
