/**
 * A scenario's text (YAML, or JSON, which is YAML) as a value, with the line and column of every
 * node, so that an error names the line and the field (D130). The `yaml` package is imported on
 * first use only: a scenario given as an object (in-process) never loads it.
 */
import type { LineCounter } from 'yaml';

/** A path into the scenario: property names and array indexes. */
export type ScenarioPath = readonly (string | number)[];

export interface Position {
  line: number;
  column: number;
}

/** One problem of a scenario: the field as a path (`accounts[0].keys[1].key.scopes`), and where it is in the file. */
export interface ScenarioProblem {
  field: string;
  message: string;
  line?: number;
  column?: number;
}

export class ScenarioError extends Error {
  constructor(
    detail: string,
    readonly errors: ScenarioProblem[],
  ) {
    super(detail);
  }
}

/** `accounts[0].keys[1].key.scopes` */
export function fieldOf(path: ScenarioPath): string {
  let out = '';
  for (const segment of path) out += typeof segment === 'number' ? `[${segment}]` : out === '' ? segment : `.${segment}`;
  return out === '' ? '(the file)' : out;
}

export interface ScenarioSource {
  value: unknown;
  /** Where the node at `path` (or the deepest node on the way to it) starts; undefined for an object given as such. */
  locate(path: ScenarioPath): Position | undefined;
}

/** An object given as such: there are no lines to name. */
export function objectSource(value: unknown): ScenarioSource {
  return { value, locate: () => undefined };
}

interface Ranged {
  range?: [number, number, number] | null;
}

/** Parses YAML or JSON text; a syntax error is a ScenarioError with its line. */
export async function parseScenarioText(text: string, name = 'the scenario'): Promise<ScenarioSource> {
  const { parseDocument, LineCounter: Counter, isMap, isSeq, isPair, isScalar } = await import('yaml');
  const lines: LineCounter = new Counter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    const problems = document.errors.map((error) => {
      const at = lines.linePos(error.pos[0]);
      return { field: '(the file)', message: error.message.split('\n')[0] ?? error.message, line: at.line, column: at.col };
    });
    throw new ScenarioError(`${name} is not valid YAML or JSON.`, problems);
  }
  const value: unknown = document.toJS({ maxAliasCount: 100 });
  const positionOf = (node: Ranged | null | undefined): Position | undefined => {
    const offset = node?.range?.[0];
    if (offset === undefined) return undefined;
    const at = lines.linePos(offset);
    return { line: at.line, column: at.col };
  };
  return {
    value,
    locate(path) {
      let node: unknown = document.contents;
      let found = positionOf(node as Ranged);
      for (const segment of path) {
        let next: unknown;
        if (isMap(node)) {
          const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
          // A value that is absent or null has no range of its own: its key stands for it.
          next = pair ? ((pair.value as Ranged | null)?.range ? pair.value : pair.key) : undefined;
        } else if (isSeq(node) && typeof segment === 'number') {
          next = node.items[segment];
        }
        const position = positionOf(next as Ranged);
        if (next === undefined || position === undefined) break;
        node = next;
        found = position;
      }
      return found;
    },
  };
}
