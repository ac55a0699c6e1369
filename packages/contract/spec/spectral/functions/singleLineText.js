// A non-empty, single-line string.
export default function singleLineText(value, _options, context) {
  if (typeof value !== 'string' || value.trim() === '') {
    return [{ message: 'Must be a non-empty string.', path: context.path }];
  }
  if (/[\r\n]/.test(value)) return [{ message: 'Must be a single line.', path: context.path }];
  return [];
}
