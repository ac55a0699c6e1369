/**
 * The one module through which the mock reads its control-plane contract, packages/contract/spec/mock-control.yaml.
 *
 * It parses the document once and derives the operations (method, path, parameters, request body
 * and responses, `$ref`s followed), so that routes.ts registers exactly the document's operations
 * and validates every request against it: the control document is the one source of its own
 * routes and validation. It is kept apart from packages/contract/spec/contract.ts on purpose: that module is the
 * public contract, and nothing of the control plane may leak into it.
 */
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { bundledOrYaml, type GeneratedDocument } from '../../../contract/spec/contract.ts';
import controlJson from '../../../contract/spec/generated/mock-control.json' with { type: 'json' };

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule.default;

export type JsonObject = { readonly [key: string]: unknown };

// (import.meta.url: none in a bundle that is not an ES module, where the bundled copy is read.)
const controlDocumentUrl = new URL('../../../contract/spec/mock-control.yaml', import.meta.url ?? 'file:///bundled/mock/control/document.js');
const SCHEMA_ID = 'urn:cgs:mock-control';
const METHODS = ['get', 'post', 'patch', 'delete', 'put'] as const;
export type ControlMethod = (typeof METHODS)[number];

export interface ControlParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  /** Pointer of the parameter's schema node in the document. */
  schemaPointer: string;
}

export interface ControlOperation {
  operationId: string;
  method: ControlMethod;
  /** Path template as written: `/__mock/accounts/{accountId}`. */
  path: string;
  tag: string;
  parameters: ControlParameter[];
  requestBody?: { required: boolean; schemaPointer: string };
  /** Keyed by status as written; the pointer of the response's schema per content type. */
  responses: Record<string, { contentTypes: string[]; schemaPointers: Record<string, string> }>;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function pointerOf(segments: readonly string[]): string {
  return `#${segments.map((s) => `/${escape(s)}`).join('')}`;
}

function loadDocument(): JsonObject {
  // The document already parsed, with the sha256 of the YAML it came from (npm run generate): the
  // in-process mock reads it, and a Node process whose YAML changed since reads the YAML.
  const parsed: unknown = bundledOrYaml(controlJson as GeneratedDocument, controlDocumentUrl);
  if (!isObject(parsed) || typeof parsed['openapi'] !== 'string' || !parsed['openapi'].startsWith('3.1')) {
    throw new Error(`${controlDocumentUrl.pathname}: expected an OpenAPI 3.1 document`);
  }
  if (!isObject(parsed['paths']) || !isObject(parsed['components'])) throw new Error(`${controlDocumentUrl.pathname}: missing paths or components`);
  return parsed;
}

let parsedDocument: JsonObject | undefined;

/**
 * The parsed control document. Parsed on first use, not at import: the mock opens its port first
 * (`npm start` must serve within 2 seconds) and the control plane reads its contract on its first
 * request (or when main.ts warms it up right after listening).
 */
export function controlDocument(): JsonObject {
  parsedDocument ??= loadDocument();
  return parsedDocument;
}

/**
 * What the mock reads from an OpenAPI document it serves besides the public API (the control plane's,
 * and the conformance hooks' of packages/mock-core/src/hooks/): its operations (method, path, parameters, request
 * body and responses, `$ref`s followed) and Ajv validators compiled lazily, once per pointer, from
 * the document's own schemas. `load` parses it on first use.
 */
export interface DocumentReader {
  operations(): readonly ControlOperation[];
  /** A validator for the schema node at a pointer of the document (bodies and responses). */
  bodyValidator(pointer: string): ValidateFunction;
  /** A validator that coerces strings (path and query parameters arrive as strings). */
  parameterValidator(pointer: string): ValidateFunction;
  /** A validator for a standalone schema whose `$ref`s name the document's nodes by its schema id. */
  compileSchema(schema: object): ValidateFunction;
}

export function documentReader(load: () => JsonObject, schemaId: string, label: string): DocumentReader {
  function resolve(pointer: string): unknown {
    let node: unknown = load();
    for (const raw of pointer.slice(2).split('/')) {
      const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      node = Array.isArray(node) ? node[Number(segment)] : isObject(node) ? node[segment] : undefined;
    }
    return node;
  }

  /** Follows `{ $ref }` to the real node; returns it with its pointer. */
  function follow(node: unknown, pointer: string): { node: JsonObject; pointer: string } {
    let current = node;
    let at = pointer;
    for (let hops = 0; isObject(current) && typeof current['$ref'] === 'string'; hops++) {
      if (hops > 20) throw new Error(`${pointer}: $ref chain too long`);
      at = current['$ref'];
      current = resolve(at);
    }
    if (!isObject(current)) throw new Error(`${at}: expected an object`);
    return { node: current, pointer: at };
  }

  function schemaPointer(schema: unknown, pointer: string): string {
    return isObject(schema) && typeof schema['$ref'] === 'string' && Object.keys(schema).length === 1 ? schema['$ref'] : pointer;
  }

  function readParameters(list: unknown, at: string): ControlParameter[] {
    if (list === undefined) return [];
    if (!Array.isArray(list)) throw new Error(`${at}: expected an array`);
    return list.map((raw, index) => {
      const { node, pointer } = follow(raw, `${at}/${index}`);
      const location = node['in'];
      if (location !== 'path' && location !== 'query') throw new Error(`${pointer}: only path and query parameters are supported`);
      if (typeof node['name'] !== 'string') throw new Error(`${pointer}: parameter without a name`);
      return { name: node['name'], in: location, required: node['required'] === true, schemaPointer: schemaPointer(node['schema'], `${pointer}/schema`) };
    });
  }

  function readContent(content: unknown, at: string): { contentTypes: string[]; schemaPointers: Record<string, string> } {
    if (!isObject(content)) return { contentTypes: [], schemaPointers: {} };
    const schemaPointers: Record<string, string> = {};
    for (const [type, media] of Object.entries(content)) {
      if (isObject(media) && media['schema'] !== undefined) schemaPointers[type] = schemaPointer(media['schema'], `${at}/${escape(type)}/schema`);
    }
    return { contentTypes: Object.keys(content), schemaPointers };
  }

  function buildOperations(): ControlOperation[] {
    const out: ControlOperation[] = [];
    for (const [template, item] of Object.entries(load()['paths'] as JsonObject)) {
      if (!isObject(item)) continue;
      const itemPointer = pointerOf(['paths', template]);
      const pathLevel = readParameters(item['parameters'], `${itemPointer}/parameters`);
      for (const method of METHODS) {
        const operation = item[method];
        if (!isObject(operation)) continue;
        const at = `${itemPointer}/${method}`;
        if (typeof operation['operationId'] !== 'string') throw new Error(`${at}: missing operationId`);
        const own = readParameters(operation['parameters'], `${at}/parameters`);
        const parameters = [...pathLevel.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own];
        let requestBody: ControlOperation['requestBody'];
        if (operation['requestBody'] !== undefined) {
          const { node, pointer } = follow(operation['requestBody'], `${at}/requestBody`);
          const json = readContent(node['content'], `${pointer}/content`).schemaPointers['application/json'];
          if (json === undefined) throw new Error(`${pointer}: request body without an application/json schema`);
          requestBody = { required: node['required'] === true, schemaPointer: json };
        }
        const responses: ControlOperation['responses'] = {};
        for (const [status, raw] of Object.entries(isObject(operation['responses']) ? operation['responses'] : {})) {
          const { node, pointer } = follow(raw, `${at}/responses/${status}`);
          responses[status] = readContent(node['content'], `${pointer}/content`);
        }
        const tags = operation['tags'];
        out.push({
          operationId: operation['operationId'],
          method,
          path: template,
          tag: Array.isArray(tags) && typeof tags[0] === 'string' ? tags[0] : 'untagged',
          parameters,
          ...(requestBody ? { requestBody } : {}),
          responses,
        });
      }
    }
    return out;
  }


  function newAjv(coerce: boolean): Ajv2020 {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false, ...(coerce ? { coerceTypes: true } : {}) });
    addFormats(ajv);
    for (const keyword of ['example', 'components', 'paths', 'x-assumption']) ajv.addKeyword({ keyword });
    const document = load();
    ajv.addSchema({ $id: schemaId, components: document['components'], paths: document['paths'] });
    return ajv;
  }

  let bodyAjv: Ajv2020 | undefined;
  let paramAjv: Ajv2020 | undefined;
  const bodyValidators = new Map<string, ValidateFunction>();
  const paramValidators = new Map<string, ValidateFunction>();

  /** `$ref` to a pointer of the document, as Ajv knows it (segments URI-encoded). */
  function refTo(pointer: string): string {
    if (resolve(pointer) === undefined) throw new Error(`no node at ${pointer} of ${label}`);
    const fragment = pointer
      .slice(1)
      .split('/')
      .map((s) => encodeURIComponent(s))
      .join('/');
    return `${schemaId}#${fragment}`;
  }

  /** A validator for the schema node at a pointer of the document (bodies and responses). */
    function bodyValidator(pointer: string): ValidateFunction {
    let validate = bodyValidators.get(pointer);
    if (!validate) {
      bodyAjv ??= newAjv(false);
      validate = bodyAjv.compile({ $ref: refTo(pointer) });
      bodyValidators.set(pointer, validate);
    }
    return validate;
  }

  /** A validator that coerces strings (path and query parameters arrive as strings). */
    function parameterValidator(pointer: string): ValidateFunction {
    let validate = paramValidators.get(pointer);
    if (!validate) {
      paramAjv ??= newAjv(true);
      // Wrapped so that coercion has a parent to write the coerced value into.
      validate = paramAjv.compile({ type: 'object', properties: { value: { $ref: refTo(pointer) } } });
      paramValidators.set(pointer, validate);
    }
    return validate;
  }

  let operationList: readonly ControlOperation[] | undefined;
  return {
    operations() {
      operationList ??= buildOperations();
      return operationList;
    },
    bodyValidator,
    parameterValidator,
    compileSchema(schema) {
      bodyAjv ??= newAjv(false);
      return bodyAjv.compile(schema);
    },
  };
}

const controlReader = documentReader(controlDocument, SCHEMA_ID, 'the control document');

/** The document's operations, in document order (derived on first use). */
export function controlOperations(): readonly ControlOperation[] {
  return controlReader.operations();
}

/** A validator for the schema node at a pointer of the control document (bodies and responses). */
export function controlValidator(pointer: string): ValidateFunction {
  return controlReader.bodyValidator(pointer);
}

/** A validator that coerces strings (path and query parameters arrive as strings). */
export function parameterValidator(pointer: string): ValidateFunction {
  return controlReader.parameterValidator(pointer);
}

/** Follows `{ $ref }` within `document` to the real node (controlHeaders). */
function followIn(document: JsonObject, node: unknown, pointer: string): { node: JsonObject; pointer: string } {
  let current = node;
  let at = pointer;
  for (let hops = 0; isObject(current) && typeof current['$ref'] === 'string'; hops++) {
    if (hops > 20) throw new Error(`${pointer}: $ref chain too long`);
    at = current['$ref'];
    let next: unknown = document;
    for (const raw of at.slice(2).split('/')) {
      const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      next = Array.isArray(next) ? next[Number(segment)] : isObject(next) ? next[segment] : undefined;
    }
    current = next;
  }
  if (!isObject(current)) throw new Error(`${at}: expected an object`);
  return { node: current, pointer: at };
}

/**
 * The header names the control document declares, for CORS (packages/mock/src/web/cors.ts): `request` are the
 * headers a browser may send (Content-Type when an operation takes a body, every header parameter,
 * and `x-public-request-headers`, the headers the mock honours on public requests beyond
 * packages/contract/spec/openapi.yaml's, such as `Prefer`); `response` are the headers its responses declare.
 */
export function controlHeaders(): { request: string[]; response: string[] } {
  const document = controlDocument();
  const request = new Set<string>();
  const response = new Set<string>();
  for (const [template, item] of Object.entries(document['paths'] as JsonObject)) {
    if (!isObject(item)) continue;
    const itemPointer = pointerOf(['paths', template]);
    const headerParameters = (list: unknown, at: string): void => {
      if (!Array.isArray(list)) return;
      list.forEach((raw, index) => {
        const { node } = followIn(document, raw, `${at}/${index}`);
        if (node['in'] === 'header' && typeof node['name'] === 'string') request.add(node['name']);
      });
    };
    headerParameters(item['parameters'], `${itemPointer}/parameters`);
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const at = `${itemPointer}/${method}`;
      headerParameters(operation['parameters'], `${at}/parameters`);
      if (operation['requestBody'] !== undefined) request.add('Content-Type');
      for (const [status, raw] of Object.entries(isObject(operation['responses']) ? operation['responses'] : {})) {
        const { node } = followIn(document, raw, `${at}/responses/${status}`);
        if (isObject(node['headers'])) for (const name of Object.keys(node['headers'])) response.add(name);
      }
    }
  }
  const extra = document['x-public-request-headers'];
  const listed = isObject(extra) ? extra['headers'] : undefined;
  if (!Array.isArray(listed)) throw new Error(`${controlDocumentUrl.pathname}: x-public-request-headers.headers must be a list`);
  for (const entry of listed) {
    if (!isObject(entry) || typeof entry['name'] !== 'string') throw new Error(`${controlDocumentUrl.pathname}: every x-public-request-headers entry needs a name`);
    request.add(entry['name']);
  }
  return { request: [...request], response: [...response] };
}

/**
 * A validator for a standalone JSON Schema whose `$ref`s into `../mock-control.yaml#/...` (relative
 * to packages/contract/spec/schemas/) name this document's nodes: the scenario file's schema (packages/mock-core/src/scenario/) is built
 * from the control plane's own request bodies, never copies of them.
 */
export function schemaValidator(schema: object): ValidateFunction {
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!isObject(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('../mock-control.yaml#') ? `${SCHEMA_ID}${value.slice('../mock-control.yaml'.length)}` : rewrite(value);
    }
    return out;
  };
  const { $id: _id, ...rest } = rewrite(schema) as Record<string, unknown>;
  return controlReader.compileSchema(rest);
}
