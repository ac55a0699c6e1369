/**
 * A built-in module of the Node process this code runs in, when it runs in one (Node 20.16+:
 * `process.getBuiltinModule`), else undefined (a browser, a worker, an older Node). Core modules
 * that can do better with Node (read the YAML a developer edited, hash natively) ask here instead
 * of importing `node:*`, so that the core still bundles for the browser (D60).
 */
export function nodeBuiltin<T>(id: `node:${string}`): T | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  try {
    return host?.getBuiltinModule?.(id) as T | undefined;
  } catch {
    return undefined;
  }
}

/** What the core reads of node:fs. */
export interface NodeFs {
  readFileSync(path: URL, encoding: 'utf8'): string;
}
