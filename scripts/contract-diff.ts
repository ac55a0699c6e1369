/**
 * `npm run contract:diff -- [--base <source>] [--head <source>] [--format markdown|json]`
 *
 * Every difference between two versions of the document, classified (spec/diff/classify.ts), and
 * the versioning policy's verdict (spec/diff/policy.ts). A source is `working` (default head),
 * `release` (default base: the latest of spec/releases/), `next`, a released version, a directory,
 * a file or a git ref (spec/versions.ts, loadSource).
 *
 * Exit status: 0 when the policy allows the change, 1 when not, 2 on unreadable input.
 */
import { parseArgs } from 'node:util';
import { diffDocuments } from '../spec/diff/classify.ts';
import { evaluate } from '../spec/diff/policy.ts';
import { toJson, toMarkdown } from '../spec/diff/render.ts';
import { loadSource, SourceError, versionOf, type Source } from '../spec/versions.ts';

function usage(message: string): never {
  console.error(`contract:diff: ${message}\nusage: npm run contract:diff -- [--base <dir|file|git ref|release|next|working>] [--head <...>] [--format markdown|json]`);
  process.exit(2);
}

let values: { base?: string; head?: string; format?: string };
try {
  ({ values } = parseArgs({ options: { base: { type: 'string' }, head: { type: 'string' }, format: { type: 'string' } }, strict: true, allowPositionals: false }));
} catch (error) {
  usage((error as Error).message);
}
const format = values.format ?? 'markdown';
if (format !== 'markdown' && format !== 'json') usage(`--format is markdown or json, not ${JSON.stringify(format)}`);

let base: Source;
let head: Source;
try {
  base = loadSource(values.base ?? 'release');
  head = loadSource(values.head ?? 'working');
} catch (error) {
  if (error instanceof SourceError) usage(error.message);
  throw error;
}
const changes = diffDocuments(base.document, head.document, { ...(base.rules ? { base: base.rules } : {}), ...(head.rules ? { head: head.rules } : {}) });
const verdict = evaluate(base.document, head.document, changes, head.rules);
if (format === 'json') console.log(JSON.stringify(toJson(versionOf(base), versionOf(head), changes, verdict), null, 2));
else process.stdout.write(toMarkdown(versionOf(base), versionOf(head), changes, verdict));
process.exit(verdict.allowed ? 0 : 1);
