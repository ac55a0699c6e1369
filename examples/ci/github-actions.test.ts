/**
 * examples/ci/github-actions.yml, the gate's workflow for an implementation's repository: it parses
 * as YAML, its jobs hang together (shards, artifacts), and every command of the toolkit it names
 * exists in the package with the flags it gives (cgs-conformance's through its own parser, the
 * config file beside it through its JSON Schema, cgs-conformance-merge's through its options).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseMergeArgs, planRun } from '../../packages/conformance/bin/lib/conformance.ts';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The gate's package (packages/conformance, D279): the one the workflow installs. */
const pkg = JSON.parse(readFileSync(`${ROOT}packages/conformance/package.json`, 'utf8')) as { name: string; version: string; bin: Record<string, string> };

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
interface Workflow {
  env: Record<string, string | number>;
  jobs: Record<string, { needs?: string; strategy?: { matrix: { shard: number[] } }; steps: Step[] }>;
}

/** The workflow's text parsed, or the YAML error. */
export function readWorkflow(text: string): Workflow {
  return parse(text, { strict: true, uniqueKeys: true }) as Workflow;
}

/** Each command line of `run:` blocks that calls a command of the package (`npx <bin> ...`), `${{ }}` expressions replaced from `values`. */
export function toolkitCommands(workflow: Workflow, values: Record<string, string>): { bin: string; args: string[] }[] {
  const commands: { bin: string; args: string[] }[] = [];
  for (const job of Object.values(workflow.jobs)) {
    for (const step of job.steps) {
      for (const line of (step.run ?? '').split('\n')) {
        const expanded = line.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, name: string) => {
          const value = values[name];
          if (value === undefined) throw new Error(`no value for \${{ ${name} }} in: ${line}`);
          return value;
        });
        const words = expanded.trim().split(/\s+/);
        if (words[0] === 'npx' && words[1]?.startsWith('cgs-')) commands.push({ bin: words[1], args: words.slice(2) });
      }
    }
  }
  return commands;
}

/** What is wrong with the toolkit commands of a workflow (empty: nothing). */
export function commandProblems(workflow: Workflow, values: Record<string, string>): string[] {
  const problems: string[] = [];
  const commands = toolkitCommands(workflow, values);
  for (const { bin, args } of commands) {
    if (!(bin in pkg.bin)) {
      problems.push(`${bin} is not a command of the package (${Object.keys(pkg.bin).join(', ')})`);
      continue;
    }
    try {
      if (bin === 'cgs-conformance') {
        planRun(args, HERE, (path) => readFileSync(path, 'utf8'), { CGS_KEYS: '{"read":"k","all":"k"}', CGS_KEYS_B: '{"read":"k2"}', CGS_HOOKS_TOKEN: 'h' });
      } else if (bin === 'cgs-conformance-merge') {
        parseMergeArgs(args);
      } else {
        problems.push(`${bin}: the test does not know its flags`);
      }
    } catch (error) {
      problems.push(`${bin} ${args.join(' ')}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  if (!commands.some((c) => c.bin === 'cgs-conformance')) problems.push('no step runs cgs-conformance');
  if (!commands.some((c) => c.bin === 'cgs-conformance-merge')) problems.push('no step merges the shards with cgs-conformance-merge');
  return problems;
}

const text = readFileSync(`${HERE}github-actions.yml`, 'utf8');

describe('examples/ci/github-actions.yml', () => {
  const workflow = readWorkflow(text);
  const shards = workflow.jobs['gate']?.strategy?.matrix.shard ?? [];

  it('parses as YAML, with a gate job in shards and a report job after it', () => {
    expect(Object.keys(workflow.jobs)).toEqual(['gate', 'report']);
    expect(shards).toEqual(Array.from({ length: Number(workflow.env['SHARDS']) }, (_, i) => i + 1));
    expect(workflow.jobs['report']!.needs).toBe('gate');
  });

  it('installs this package, starts the implementation, uploads the shards\' reports and the merged one', () => {
    expect(String(workflow.env['CGS_TOOLKIT'])).toBe(`${pkg.name}@${pkg.version}`);
    const gate = workflow.jobs['gate']!.steps;
    expect(gate.some((s) => /npm install .*"\$CGS_TOOLKIT"/.test(s.run ?? ''))).toBe(true);
    expect(gate.some((s) => /npm start/.test(s.run ?? ''))).toBe(true);
    const uploads = Object.values(workflow.jobs).flatMap((j) => j.steps).filter((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(uploads.map((u) => u.with?.['name'])).toEqual(['conformance-shard-${{ matrix.shard }}', 'conformance-report']);
  });

  it.each([1, 2, 3])('every command of the toolkit it names exists, with flags that exist (shard %i)', (shard) => {
    expect(commandProblems(workflow, { 'matrix.shard': String(shard), 'env.SHARDS': String(shards.length) })).toEqual([]);
  });

  it('finds a flag that does not exist, a command that does not exist, and a config file that does not follow the schema', () => {
    const values = { 'matrix.shard': '1', 'env.SHARDS': '3' };
    expect(commandProblems(readWorkflow(text.replace('--shard ${{', '--shards ${{')), values)).toEqual([expect.stringMatching(/unknown option --shards/)]);
    expect(commandProblems(readWorkflow(text.replace('npx cgs-conformance-merge', 'npx cgs-merge')), values)).toEqual([expect.stringMatching(/cgs-merge is not a command/), 'no step merges the shards with cgs-conformance-merge']);
    expect(commandProblems(readWorkflow(text.replace('--require pinned', '--require all')), values)).toEqual([expect.stringMatching(/--require is pinned here/)]);
    expect(() => readWorkflow(`${text}\n  gate: {}\n`)).toThrow();
    expect(() => planRun(['--config', 'cgs-conformance.config.json'], HERE, (path) => readFileSync(path, 'utf8').replace('"pinnedOnly": true', '"pinnedOnly": "yes"'), { CGS_KEYS: '{"all":"k"}', CGS_KEYS_B: '{"all":"k"}', CGS_HOOKS_TOKEN: 'h' })).toThrow(/\/pinnedOnly must be boolean/);
  });
});

describe('cgs-conformance.config.json, copied to a project root (issue #35)', () => {
  it('its $schema names the schema the installed contract package ships (dist/spec/ is the build\'s copy of packages/contract/spec/)', () => {
    const config = JSON.parse(readFileSync(`${HERE}cgs-conformance.config.json`, 'utf8')) as { $schema: string };
    const prefix = './node_modules/@creative-generation/contract/dist/';
    expect(config.$schema.startsWith(prefix), config.$schema).toBe(true);
    const contract = JSON.parse(readFileSync(`${ROOT}packages/contract/package.json`, 'utf8')) as { name: string; files: string[] };
    expect(contract.name).toBe('@creative-generation/contract');
    expect(contract.files).toContain('dist/');
    expect(() => readFileSync(`${ROOT}packages/contract/${config.$schema.slice(prefix.length)}`)).not.toThrow();
  });
});
