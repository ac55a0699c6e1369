// x-rate-limit-group of an operation: a key of $.x-rate-limits.groups.
export default function rateLimitGroup(operation, _options, context) {
  const group = operation?.['x-rate-limit-group'];
  const groups = context.document.data?.['x-rate-limits']?.groups ?? {};
  const known = Object.keys(groups);
  if (typeof group === 'string' && known.includes(group)) return [];
  return [
    {
      message: `\`x-rate-limit-group\` must be one of the groups of x-rate-limits: ${known.join(', ')}.`,
      path: [...context.path, 'x-rate-limit-group'],
    },
  ];
}
