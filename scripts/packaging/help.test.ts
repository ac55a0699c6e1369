/**
 * Help that answers (issue 27): `--help` of every command of package.json `bin` names every flag its
 * parser accepts, and each flag of the command's own parser has a line of its own that says what it
 * does and its default (or that it is required). The accepted flags are read from the parser's
 * source (the `options` of node:util's parseArgs, or cgs-conformance's flag tables), so a flag added
 * to a parser without a help line fails here. And the conformance README, `cgs-conformance --help`
 * and what planRun does agree on the default reporter.
 *
 * Broken on purpose: dropping the `--seed` line of cgs-mock's help fails "has a line"; an option
 * added to cgs-proxy's parseArgs without help fails "names every flag"; README's reporter default
 * changed to `list` fails the last test.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { planRun, USAGE } from '../../packages/conformance/bin/lib/conformance.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The commands of every package (packages/<dir>/package.json `bin`, D279). */
const manifest = {
  // Each command's source: packages/<dir>/ and its `bin` path, dist/ and .js left out.
  bin: Object.fromEntries(
    readdirSync(join(ROOT, 'packages')).flatMap((dir) =>
      Object.entries((JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as { bin?: Record<string, string> }).bin ?? {}).map(([command, path]) => [command, `packages/${dir}/${path.replace(/^dist\//, '').replace(/\.js$/, '.ts')}`]),
    ),
  ) as Record<string, string>,
};

/** Where each command's parser is, and which of its tables are the command's own flags. */
const PARSERS: Record<string, { file: string; parseArgsIn?: string; sets?: string[] }> = {
  'cgs-mock': { file: 'packages/mock/src/node/main.ts' },
  'cgs-conformance': { file: 'packages/conformance/bin/lib/conformance.ts', sets: ['VALUE_FLAGS', 'BOOLEAN_FLAGS', 'PLAYWRIGHT_VALUE', 'PLAYWRIGHT_BOOLEAN'] },
  'cgs-conformance-merge': { file: 'packages/conformance/bin/lib/conformance.ts', parseArgsIn: 'parseMergeArgs' },
  'cgs-proxy': { file: 'packages/conformance/bin/cgs-proxy.ts' },
  'cgs-webhooks-listen': { file: 'packages/mock/src/webhooks-listen.ts' },
  'cgs-client-check': { file: 'packages/exams/src/client-cli.ts' },
  'cgs-webhooks-check': { file: 'packages/exams/src/webhooks-cli.ts' },
};

interface AcceptedFlag {
  name: string;
  /** From a parseArgs `options` object: the command's own flag (else a pass-through table). */
  own: boolean;
  type?: string;
  hasDefault?: boolean;
}

/** The flags a parser accepts, read from its source. */
function acceptedFlags(command: string): AcceptedFlag[] {
  const where = PARSERS[command]!;
  const source = ts.createSourceFile(where.file, readFileSync(join(ROOT, where.file), 'utf8'), ts.ScriptTarget.ES2022, true);
  const constants = new Map<string, ts.Expression>();
  const flags: AcceptedFlag[] = [];
  const unwrap = (e: ts.Expression): ts.Expression => (ts.isAsExpression(e) || ts.isParenthesizedExpression(e) ? unwrap(e.expression) : e);
  const nameOf = (p: ts.PropertyName) => (ts.isIdentifier(p) || ts.isStringLiteral(p) ? p.text : p.getText());
  const optionsOf = (object: ts.ObjectLiteralExpression) => {
    for (const property of object.properties) {
      if (!ts.isPropertyAssignment(property)) continue;
      const value = unwrap(property.initializer);
      const fields = ts.isObjectLiteralExpression(value) ? value.properties.filter(ts.isPropertyAssignment) : [];
      const type = fields.find((f) => nameOf(f.name) === 'type');
      flags.push({ name: nameOf(property.name), own: true, type: type && ts.isStringLiteral(type.initializer) ? type.initializer.text : '', hasDefault: fields.some((f) => nameOf(f.name) === 'default') });
    }
  };
  const visit = (node: ts.Node, inFunction: string | undefined) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      constants.set(node.name.text, unwrap(node.initializer));
      const init = unwrap(node.initializer);
      if (where.sets?.includes(node.name.text) && ts.isNewExpression(init) && init.arguments?.[0] && ts.isArrayLiteralExpression(init.arguments[0])) {
        for (const element of init.arguments[0].elements) if (ts.isStringLiteral(element)) flags.push({ name: element.text, own: false });
      }
    }
    const fn = ts.isFunctionDeclaration(node) && node.name ? node.name.text : inFunction;
    if (!where.sets && ts.isCallExpression(node) && node.expression.getText() === 'parseArgs' && (where.parseArgsIn === undefined || where.parseArgsIn === fn)) {
      const config = node.arguments[0] && unwrap(node.arguments[0]);
      const options = config && ts.isObjectLiteralExpression(config) ? config.properties.find((p) => p.name && nameOf(p.name) === 'options') : undefined;
      if (options && ts.isPropertyAssignment(options)) {
        let value = unwrap(options.initializer);
        if (ts.isIdentifier(value)) value = constants.get(value.text)!;
        if (value && ts.isObjectLiteralExpression(value)) optionsOf(value);
      } else if (options && ts.isShorthandPropertyAssignment(options)) {
        const value = constants.get(options.name.text);
        if (value && ts.isObjectLiteralExpression(value)) optionsOf(value);
      }
    }
    ts.forEachChild(node, (child) => visit(child, fn));
  };
  visit(source, undefined);
  return flags;
}

/** `<command> --help` from the checkout (its source through tsx): exit status and output. */
function helpOf(command: string): Promise<{ status: number | null; text: string }> {
  const file = join(ROOT, manifest.bin[command]!);
  const child = spawn(process.execPath, ['--import', 'tsx', file, '--help'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (status) => resolve({ status, text })));
}

/** Every command's help, the commands started side by side. */
const helps = new Map<string, { status: number | null; text: string }>();
beforeAll(async () => {
  await Promise.all(Object.keys(manifest.bin).map(async (command) => helps.set(command, await helpOf(command))));
}, 300_000);

const flagToken = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`);
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('--help of every command of package.json bin', () => {
  it('every command has its parser listed here (a new command needs its entry)', () => {
    expect(Object.keys(PARSERS).sort()).toEqual(Object.keys(manifest.bin).sort());
  });

  for (const command of Object.keys(PARSERS)) {
    describe(command, () => {
      const flags = acceptedFlags(command);
      const text = () => helps.get(command)!.text;

      it('its parser is found in the source (the check below reads real flags)', () => {
        expect(flags.length).toBeGreaterThan(2);
        expect(flags.map((f) => f.name)).toContain('help');
      });

      it('--help exits 0 and names every flag the parser accepts', () => {
        expect(text()).toMatch(/usage: /);
        expect(helps.get(command)!.status, text()).toBe(0);
        const missing = flags.filter((f) => !new RegExp(`(^|[\\s,(\\[])${escape(flagToken(f.name))}(?![\\w-])`, 'm').test(text()));
        expect(missing.map((f) => flagToken(f.name)), text()).toEqual([]);
      });

      it('names no repository path: a command runs from an installed package (issue #35)', () => {
        const repositoryPaths = text().match(/(?<![\w@/-])(?:packages|scripts|mock|spec|conformance|exams)\/[\w./-]+|\b[\w-]+\.ts\b|\bnpm run [\w:-]+/g) ?? [];
        expect(repositoryPaths, text()).toEqual([]);
      });

      it('each of its own flags has a line of its own saying what it does, with its default (or that it is required)', () => {
        const problems: string[] = [];
        for (const flag of flags.filter((f) => f.own)) {
          const line = text().split('\n').find((l) => new RegExp(`^\\s+${escape(flagToken(flag.name))}(?![\\w-])`).test(l));
          if (!line) {
            problems.push(`${flagToken(flag.name)}: no line of its own`);
            continue;
          }
          // After the flag and its value: two spaces, then words.
          if (!/\S {2,}\S+ \S+/.test(line)) problems.push(`${flagToken(flag.name)}: no description: ${line.trim()}`);
          if (flag.name !== 'help' && (flag.hasDefault || flag.type === 'string') && !/default|required/.test(line)) problems.push(`${flagToken(flag.name)}: no default shown: ${line.trim()}`);
          if (flag.name !== 'help' && flag.type === 'boolean' && !/default/.test(line)) problems.push(`${flagToken(flag.name)}: what it is when not given is not said: ${line.trim()}`);
        }
        expect(problems, text()).toEqual([]);
      });
    });
  }
});

describe('the default reporter of cgs-conformance', () => {
  it('is the same in planRun, in --help and in packages/conformance/suite/README.md; and the suite run alone defaults as the README says', () => {
    const planned = planRun([], ROOT, (path) => readFileSync(path, 'utf8'), {}).env['CONFORMANCE_CONSOLE_REPORTER'];
    const inHelp = /--reporter NAME .*?(\w+) \(default\)/.exec(USAGE)?.[1];
    const readme = readFileSync(join(ROOT, 'packages/conformance/suite/README.md'), 'utf8');
    const row = readme.split('\n').find((l) => l.startsWith('| `CONFORMANCE_CONSOLE_REPORTER`'));
    expect(row).toBeDefined();
    const inReadme = /`cgs-conformance`[^|]*?default `(\w+)`/.exec(row!)?.[1];
    const aloneInReadme = /unset: `(\w+)`/.exec(row!)?.[1];
    const config = readFileSync(join(ROOT, 'packages/conformance/suite/playwright.config.ts'), 'utf8');
    const alone = /CONFORMANCE_CONSOLE_REPORTER'\] \|\| '(\w+)'/.exec(config)?.[1];
    expect({ inHelp, inReadme }).toEqual({ inHelp: planned, inReadme: planned });
    expect(aloneInReadme).toBe(alone);
    expect(planned).toMatch(/^(list|dot|line)$/);
  });
});
