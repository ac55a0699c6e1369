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

/**
 * The bounds of the parse (D254): aliases expanded at most this often (the `yaml` package's
 * maxAliasCount, which weighs each alias by the size of what it repeats: a "billion laughs" document
 * is refused), and no text longer than `maxLength` characters is parsed at all (the control
 * document's ScenarioLoad.text.maxLength, passed in by apply.ts).
 */
export const MAX_ALIAS_COUNT = 100;

/** Parses YAML or JSON text; a syntax error, a text too long or an alias bomb is a ScenarioError (with its line where there is one). */
export async function parseScenarioText(text: string, name = 'the scenario', maxLength = Number.POSITIVE_INFINITY): Promise<ScenarioSource> {
  // Characters as the document's maxLength counts them (code points); the cheap count first.
  if (text.length > maxLength && [...text].length > maxLength) throw new ScenarioError(`${name} is longer than ${maxLength} characters; nothing was parsed.`, [{ field: '(the file)', message: `must be at most ${maxLength} characters` }]);
  const { parseDocument, LineCounter: Counter, isMap, isSeq, isPair, isScalar } = await import('yaml');
  const lines: LineCounter = new Counter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    const problems = document.errors.slice(0, 20).map((error) => {
      const at = lines.linePos(error.pos[0]);
      return { field: '(the file)', message: error.message.split('\n')[0] ?? error.message, line: at.line, column: at.col };
    });
    throw new ScenarioError(`${name} is not valid YAML or JSON.`, problems);
  }
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // yaml throws a ReferenceError past maxAliasCount (and for an alias to nothing); a RangeError when nested past the stack.
    if (!(error instanceof ReferenceError || error instanceof RangeError)) throw error;
    const said = (error as Error).message;
    const message =
      error instanceof RangeError
        ? 'is nested too deeply to read'
        : /alias count/i.test(said)
          ? `expands YAML aliases past the limit (maxAliasCount ${MAX_ALIAS_COUNT}): refused as a resource-exhaustion ("billion laughs") document`
          : (said.split('\n')[0] ?? said);
    throw new ScenarioError(`${name} cannot be read: it ${message}.`, [{ field: '(the file)', message }]);
  }
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
