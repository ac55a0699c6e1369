/**
 * `npm run contract:diff -- [--base <source>] [--head <source>] [--since <source>] [--format markdown|json]`
 *
 * Every difference between two versions of the document, classified (packages/contract/spec/diff/classify.ts), and
 * the versioning policy's verdict (packages/contract/spec/diff/policy.ts). A source is `working` (default head),
 * `release` (default base: the latest of packages/contract/spec/releases/), `next`, a released version, a directory,
 * a file or a git ref (packages/contract/spec/versions.ts, loadSource).
 *
 * The default diff (no --base, no --head) leads with what changed since the working document's own
 * base, git HEAD (or `--since <source>`, e.g. `--since main` on a branch): a two-line edit shows
 * first, then everything since the last release, which is what the policy judges (V11).
 *
 * Exit status: 0 when the policy allows the change, 1 when not, 2 on unreadable input.
 */
import { parseArgs } from 'node:util';
import { diffDocuments } from '../packages/contract/spec/diff/classify.ts';
import { evaluate } from '../packages/contract/spec/diff/policy.ts';
import { toJson, toMarkdown, type Lead } from '../packages/contract/spec/diff/render.ts';
import { loadSource, SourceError, versionOf, type Source } from '../packages/contract/spec/versions.ts';

function usage(message: string): never {
  console.error(`contract:diff: ${message}\nusage: npm run contract:diff -- [--base <dir|file|git ref|release|next|working>] [--head <...>] [--since <...>] [--format markdown|json]`);
  process.exit(2);
}

let values: { base?: string; head?: string; since?: string; format?: string };
try {
  ({ values } = parseArgs({ options: { base: { type: 'string' }, head: { type: 'string' }, since: { type: 'string' }, format: { type: 'string' } }, strict: true, allowPositionals: false }));
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
const diff = (from: Source, to: Source) => diffDocuments(from.document, to.document, { ...(from.rules ? { base: from.rules } : {}), ...(to.rules ? { head: to.rules } : {}) });
const changes = diff(base, head);
const verdict = evaluate(base.document, head.document, changes, head.rules);
// The lead: asked for with --since, or the default diff's own (git HEAD, when this is a clone).
let lead: Lead | undefined;
const sinceSpec = values.since ?? (values.base === undefined && values.head === undefined ? 'HEAD' : undefined);
if (sinceSpec !== undefined) {
  try {
    const since = loadSource(sinceSpec);
    lead = { label: since.label, changes: diff(since, head) };
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    if (values.since !== undefined) usage(error.message);
  }
}
if (format === 'json') console.log(JSON.stringify(toJson(versionOf(base), versionOf(head), changes, verdict, lead), null, 2));
else process.stdout.write(toMarkdown(versionOf(base), versionOf(head), changes, verdict, lead));
process.exit(verdict.allowed ? 0 : 1);
