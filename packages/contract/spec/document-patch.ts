/**
 * The pending version of the document as the difference from the current one (D286): `npm run
 * generate` writes packages/contract/spec/generated/openapi.next-patch.json (diffDocuments of the two generated
 * documents, checked there to rebuild `next` exactly, key order included), and packages/contract/spec/contract.ts
 * applies it to the current document only when a process reads `next`. A bundle of the in-process
 * mock then carries about 4 kB for `next` instead of a second copy of the document (137 kB).
 * No Node-only module: this runs in the browser too.
 */

/** One change: the path as segments from the document's root (array indices as strings). */
export type PatchOp = { op: 'remove'; path: string[] } | { op: 'add' | 'replace'; path: string[]; value: unknown };

type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The changes that make `to` from `from`: objects are compared key by key; an array, a scalar, or an
 * object whose remaining keys change order (or gains keys anywhere but at its end) is replaced whole,
 * so that applying the patch gives `to` with its keys in the same order.
 */
export function diffDocuments(from: unknown, to: unknown, path: string[] = [], ops: PatchOp[] = []): PatchOp[] {
  if (same(from, to)) return ops;
  if (!isPlain(from) || !isPlain(to)) {
    ops.push({ op: 'replace', path, value: to });
    return ops;
  }
  const kept = Object.keys(from).filter((k) => Object.hasOwn(to, k));
  const added = Object.keys(to).filter((k) => !Object.hasOwn(from, k));
  if (!same(Object.keys(to), [...kept, ...added])) {
    ops.push({ op: 'replace', path, value: to });
    return ops;
  }
  for (const key of Object.keys(from)) if (!Object.hasOwn(to, key)) ops.push({ op: 'remove', path: [...path, key] });
  for (const key of kept) diffDocuments(from[key], to[key], [...path, key], ops);
  for (const key of added) ops.push({ op: 'add', path: [...path, key], value: to[key] });
  return ops;
}

/** `base` with the changes applied; `base` itself is left as it was (every object on a changed path is copied). */
export function applyDocumentPatch(base: unknown, ops: readonly PatchOp[]): unknown {
  const copied = new WeakSet<object>();
  const own = (node: unknown): Plain => {
    if (!isPlain(node)) throw new Error('the patch goes through a node that is not an object');
    if (copied.has(node)) return node;
    const copy = { ...node };
    copied.add(copy);
    return copy;
  };
  let root: unknown = base;
  for (const change of ops) {
    if (change.path.length === 0) {
      if (change.op === 'remove') throw new Error('the patch removes the document');
      root = change.value;
      continue;
    }
    root = own(root);
    let parent = root as Plain;
    for (const segment of change.path.slice(0, -1)) {
      const child = own(parent[segment]);
      parent[segment] = child;
      parent = child;
    }
    const last = change.path[change.path.length - 1]!;
    if (change.op === 'remove') delete parent[last];
    else parent[last] = change.value;
  }
  return root;
}
