import { headerParameterOf, operationsOf } from '../oas.js';

// Where a request header parameter may appear, given a Path Item.
// options: {
//   header: string,
//   required?: string[]         operationIds where it is a required parameter,
//   accepted?: string[]         operationIds where it is declared (required or not),
//   acceptedWritesUnder?: string[]  path prefixes under which every non-GET operation declares it,
//   optionalMethods?: string[]  methods where it is an optional parameter unless listed in `required`,
// }
// Everywhere else the parameter must be absent.
export default function headerParameter(pathItem, options, context) {
  const template = String(context.path[context.path.length - 1]);
  const results = [];
  for (const [method, operation] of operationsOf(pathItem)) {
    const id = operation.operationId;
    const found = headerParameterOf(pathItem, method, options.header);
    let want = 'absent';
    if (options.required?.includes(id)) want = 'required';
    else if (options.optionalMethods?.includes(method)) want = 'optional';
    else if (options.accepted?.includes(id)) want = 'declared';
    else if (method !== 'get' && options.acceptedWritesUnder?.some((prefix) => template === prefix || template.startsWith(`${prefix}/`))) {
      want = 'declared';
    }
    const label = `${method.toUpperCase()} ${template} (${id ?? 'no operationId'})`;
    const at = found === undefined ? [...context.path, method, 'parameters'] : [...context.path, ...found.path];
    const required = found?.parameter.required === true;
    if (want === 'absent' && found !== undefined) {
      results.push({ message: `${label} must not declare the \`${options.header}\` header.`, path: at });
    } else if (want !== 'absent' && found === undefined) {
      results.push({ message: `${label} must declare the \`${options.header}\` header (${want}).`, path: at });
    } else if (want === 'required' && !required) {
      results.push({ message: `${label} must declare \`${options.header}\` with \`required: true\`.`, path: at });
    } else if (want === 'optional' && required) {
      results.push({ message: `${label} must declare \`${options.header}\` as optional.`, path: at });
    }
  }
  return results;
}
