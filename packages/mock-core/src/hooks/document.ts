/**
 * The conformance hooks' contract, packages/contract/spec/conformance-hooks.yaml, as the mock reads it: parsed once
 * (the generated JSON while it matches the YAML), its operations and Ajv validators from the
 * control plane's documentReader (packages/mock-core/src/control/document.ts): the same machinery, the document's own
 * schemas.
 */
import { bundledOrYaml, type GeneratedDocument } from '../../../contract/spec/contract.ts';
import hooksJson from '../../../contract/spec/generated/conformance-hooks.json' with { type: 'json' };
import { documentReader, type JsonObject } from '../control/document.ts';

const hooksDocumentUrl = new URL('../../../contract/spec/conformance-hooks.yaml', import.meta.url ?? 'file:///bundled/mock/hooks/document.js');

let parsed: JsonObject | undefined;

/** The parsed hooks document (on first use). */
export function hooksDocument(): JsonObject {
  if (!parsed) {
    const document = bundledOrYaml(hooksJson as GeneratedDocument, hooksDocumentUrl) as JsonObject;
    if (typeof document['openapi'] !== 'string' || !document['openapi'].startsWith('3.1')) throw new Error(`${hooksDocumentUrl.pathname}: expected an OpenAPI 3.1 document`);
    parsed = document;
  }
  return parsed;
}

export const hooksReader = documentReader(hooksDocument, 'urn:cgs:conformance-hooks', 'the hooks document');

/** `info.version`: the version of the contract this mock implements (the suite's). */
export function hooksVersion(): string {
  return String((hooksDocument()['info'] as JsonObject)['version']);
}
