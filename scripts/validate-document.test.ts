/**
 * The stock validators' verdicts (scripts/lib/validate-document.ts, D80): the documents pass, and
 * each tool still notices the defect it is there for (so a step that cannot fail is not green).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FROZEN_KNOWN_ERRORS, swaggerParserErrors, validateDocuments } from './lib/validate-document.ts';
import { ROOT, RELEASES_DIR, releases } from '../packages/contract/spec/versions.ts';

const working = (): Record<string, any> => parse(readFileSync(`${ROOT}/packages/contract/spec/openapi.yaml`, 'utf8'));

describe('the documents under swagger-parser and Redocly', () => {
  it('the working document, the control plane and every frozen release pass', async () => {
    const targets = [
      { file: 'packages/contract/spec/openapi.yaml', frozen: false, redocly: true },
      { file: 'packages/contract/spec/mock-control.yaml', frozen: false, redocly: false },
      ...releases(ROOT).map((v) => ({ file: `${RELEASES_DIR}/${v}/openapi.yaml`, frozen: true, redocly: true })),
    ];
    expect(await validateDocuments(ROOT, targets)).toEqual([]);
  }, 60_000);

  it('swagger-parser: a server variable with a description is its known false error (the form the working document avoids)', async () => {
    const document = working();
    document.servers[1].variables.host.description = 'Host name of the deployment.';
    expect(await swaggerParserErrors(document)).toEqual(FROZEN_KNOWN_ERRORS);
  }, 60_000);

  it('swagger-parser: a real defect (a parameter without `in`) is reported', async () => {
    const document = working();
    document.paths['/products'].get.parameters.push({ name: 'nowhere', schema: { type: 'string' } });
    expect(await swaggerParserErrors(document)).not.toEqual([]);
  }, 60_000);

  it('swagger-parser: the document as it stood before issue #25 is refused', async () => {
    const frozen = parse(readFileSync(`${ROOT}/${RELEASES_DIR}/1.9.0/openapi.yaml`, 'utf8'));
    expect(await swaggerParserErrors(frozen)).toEqual(FROZEN_KNOWN_ERRORS);
  }, 60_000);

  it('Redocly: a warning not listed in .redocly.lint-ignore.yaml fails (an unused component)', async () => {
    const { mkdtempSync, writeFileSync, copyFileSync, mkdirSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(`${tmpdir()}/validate-`);
    mkdirSync(`${dir}/packages/contract/spec`, { recursive: true });
    copyFileSync(`${ROOT}/redocly.yaml`, `${dir}/redocly.yaml`);
    copyFileSync(`${ROOT}/.redocly.lint-ignore.yaml`, `${dir}/.redocly.lint-ignore.yaml`);
    const document = working();
    document.components.schemas.NeverUsed = { type: 'string' };
    writeFileSync(`${dir}/packages/contract/spec/openapi.yaml`, JSON.stringify(document));
    const problems = await validateDocuments(dir, [{ file: 'packages/contract/spec/openapi.yaml', frozen: false, redocly: true }]);
    expect(problems).toEqual([expect.stringMatching(/redocly: warn no-unused-components #\/components\/schemas\/NeverUsed/)]);
  }, 60_000);
});
