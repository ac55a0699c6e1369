/** The command line's way out (main.ts, serve.ts): a message on stderr and an exit code (2: bad usage). */
export function fail(message: string, code = 2): never {
  console.error(`mock: ${message}`);
  process.exit(code);
}

export function integerFlag(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) fail(`--${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}
