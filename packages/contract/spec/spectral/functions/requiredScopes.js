// x-required-scopes of an operation: a non-empty array of known scopes.
// options: { scopes: string[] } the known scopes.
export default function requiredScopes(operation, options, context) {
  const value = operation?.['x-required-scopes'];
  const path = [...context.path, 'x-required-scopes'];
  if (!Array.isArray(value) || value.length === 0) {
    return [{ message: '`x-required-scopes` must be a non-empty array of scopes.', path }];
  }
  return value.flatMap((scope, index) =>
    options.scopes.includes(scope)
      ? []
      : [{ message: `Unknown scope \`${String(scope)}\`; known: ${options.scopes.join(', ')}.`, path: [...path, index] }],
  );
}
