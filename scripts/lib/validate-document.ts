/**
 * The documents under the stock tools their users run (issue #25 item 5, D80): every document
 * passes `@apidevtools/swagger-parser` (the validator most tools are built on) and Redocly's
 * recommended rules (redocly.yaml; the warnings that stand are listed with their reasons in
 * .redocly.lint-ignore.yaml). A frozen release cannot change (its hash is in
 * packages/contract/spec/releases/SHA256SUMS): for it, swagger-parser's one known false error is accepted
 * (FROZEN_KNOWN_ERRORS) and nothing else.
 */
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { lint, loadConfig } from '@redocly/openapi-core';
import { parse } from 'yaml';
import { readFileSync } from 'node:fs';

/**
 * swagger-parser 12.x's bundled OpenAPI 3.1 schema spells the server variable's `description`
 * `descriptions` (with `unevaluatedProperties: false`), so it rejects a variable's description,
 * which OpenAPI allows. The working document says the same thing in the server's description;
 * 1.9.0 was frozen with it.
 */
export const FROZEN_KNOWN_ERRORS = ['#/servers/1/variables/host must NOT have unevaluated properties'];

/** swagger-parser's verdict: the error lines of its message ([] when valid). */
export async function swaggerParserErrors(document: unknown): Promise<string[]> {
  try {
    // validate() dereferences in place: give it a copy.
    await SwaggerParser.validate(structuredClone(document) as never);
    return [];
  } catch (error) {
    const lines = (error as Error).message.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    const detail = lines.filter((line) => line.startsWith('#'));
    return detail.length > 0 ? detail : lines;
  }
}

/** Redocly's recommended rules with the project's config: the problems not listed as standing. */
export async function redoclyProblems(file: string, root: string): Promise<string[]> {
  const config = await loadConfig({ configPath: join(root, 'redocly.yaml') });
  const problems = await lint({ ref: join(root, file), config });
  return problems
    .filter((p) => p.ignored !== true)
    .map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer ?? ''}: ${p.message}`);
}

export interface Target {
  file: string;
  frozen: boolean;
  redocly: boolean;
}

/** Every problem of every target, prefixed with its file ([] when all pass). */
export async function validateDocuments(root: string, targets: readonly Target[]): Promise<string[]> {
  const out: string[] = [];
  for (const target of targets) {
    const document = parse(readFileSync(join(root, target.file), 'utf8')) as unknown;
    const allowed = target.frozen ? FROZEN_KNOWN_ERRORS : [];
    for (const error of await swaggerParserErrors(document)) if (!allowed.includes(error)) out.push(`${target.file}: swagger-parser: ${error}`);
    if (target.redocly) for (const problem of await redoclyProblems(target.file, root)) out.push(`${target.file}: redocly: ${problem}`);
  }
  return out;
}
