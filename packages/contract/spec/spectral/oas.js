// Helpers shared by the custom Spectral functions in ./functions (ESM; bundled by Spectral).
// The rules run on the resolved document, so every node here is already $ref-free.

/** The HTTP methods a Path Item can hold, as Spectral's oas rules list them. */
export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** [method, operation] for each operation of a Path Item. */
export function operationsOf(pathItem) {
  if (!isObject(pathItem)) return [];
  return METHODS.filter((m) => isObject(pathItem[m])).map((m) => [m, pathItem[m]]);
}

/** { key, value } of a header in a Response Object, matched case-insensitively. */
export function headerOf(response, name) {
  const headers = isObject(response) ? response.headers : undefined;
  if (!isObject(headers)) return undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : { key, value: headers[key] };
}

/** Path-level and operation-level parameters merged (the operation wins), each with its index path. */
export function parametersOf(pathItem, method) {
  const merged = new Map();
  const add = (list, at) => {
    if (!Array.isArray(list)) return;
    list.forEach((p, i) => {
      if (!isObject(p)) return;
      const name = typeof p.name === 'string' ? p.name : '';
      merged.set(`${p.in}:${p.in === 'header' ? name.toLowerCase() : name}`, { parameter: p, path: [...at, 'parameters', i] });
    });
  };
  add(pathItem.parameters, []);
  add(pathItem[method]?.parameters, [method]);
  return [...merged.values()];
}

/** The header parameter of that name (case-insensitive), or undefined. */
export function headerParameterOf(pathItem, method, name) {
  return parametersOf(pathItem, method).find(
    ({ parameter }) => parameter.in === 'header' && typeof parameter.name === 'string' && parameter.name.toLowerCase() === name.toLowerCase(),
  );
}
