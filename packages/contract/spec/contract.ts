/**
 * The one module through which code reads the OpenAPI document (packages/contract/spec/openapi.yaml).
 *
 * It parses the document once, derives a typed table of the path operations (scopes, rate-limit
 * group, idempotency, If-Match, parameters, bodies, responses with every $ref resolved to the
 * pointer of the real node), and compiles JSON Schema validators for any schema node of the
 * document. Nothing else parses the YAML. Beside it, packages/contract/spec/routes.ts routes concrete paths to these
 * operations, and packages/contract/spec/tables.ts reads the document's `x-` tables (rate limits, plans, webhook
 * delivery, event types).
 */
import type { parse as ParseYaml } from 'yaml';
import { sha256Hex } from '../platform/crypto.ts';
import { nodeBuiltin, type NodeFs } from '../platform/node.ts';
import { chosenApiVersion, type ApiVersion } from './api-versions.ts';
import currentJson from './generated/openapi.json' with { type: 'json' };
import nextPatchJson from './generated/openapi.next-patch.json' with { type: 'json' };
import { applyDocumentPatch, type PatchOp } from './document-patch.ts';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = addFormatsModule.default;

export type JsonObject = { readonly [key: string]: unknown };

/** The parts of the document this module relies on; every other node stays `unknown`. */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly info: { readonly version: string; readonly [key: string]: unknown };
  readonly servers?: readonly { readonly url: string }[];
  readonly paths: { readonly [template: string]: JsonObject };
  readonly webhooks: { readonly [eventType: string]: JsonObject };
  readonly components: {
    readonly schemas: { readonly [name: string]: JsonObject };
    readonly [section: string]: JsonObject | undefined;
  };
  readonly [extension: `x-${string}`]: unknown;
}

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';
const HTTP_METHODS: readonly HttpMethod[] = ['get', 'post', 'patch', 'delete'];
const OTHER_OPENAPI_METHODS = ['put', 'head', 'options', 'trace'] as const;

export interface ParameterInfo {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  /** The parameter's schema node as written (may be a `$ref`). */
  schema: JsonObject;
  /** Pointer of the schema node (the `$ref` target when the schema is a bare `$ref`). */
  schemaPointer: string;
}

export interface RequestBodyInfo {
  required: boolean;
  contentTypes: string[];
  /** Pointer of the application/json schema (the `$ref` target when it is a bare `$ref`). */
  schemaPointer: string;
}

export interface ResponseHeaderInfo {
  required: boolean;
  schemaPointer: string;
}

export interface ResponseInfo {
  /** Pointer of the Response Object itself (the component when the response is a `$ref`). */
  pointer: string;
  contentTypes: string[];
  schemaPointers: Record<string, string>;
  /** Keyed by lower-case header name. */
  headers: Record<string, ResponseHeaderInfo>;
}

export interface OperationInfo {
  operationId: string;
  method: HttpMethod;
  /** The path template as in the document, without the server base: '/creatives/{creativeId}'. */
  path: string;
  tag: string;
  scopes: string[];
  rateLimitGroup: string;
  idempotencyKey: 'required' | 'optional' | 'none';
  ifMatch: boolean;
  /** Path-level and operation-level parameters merged (the operation wins), `$ref`s resolved. */
  parameters: ParameterInfo[];
  requestBody?: RequestBodyInfo;
  /** Keyed by status as written in the document ('200', '4XX', 'default'). */
  responses: Record<string, ResponseInfo>;
  /**
   * When the document marks the operation `deprecated`: its `x-deprecated-at` (announcement) and
   * `x-sunset` dates (YYYY-MM-DD), sent as the `Deprecation` (RFC 9745) and `Sunset` (RFC 8594)
   * headers. The versioning gate (npm run contract:diff) requires both, at least 90 days apart.
   */
  deprecation?: { deprecatedAt?: string; sunset?: string };
}

// ---------------------------------------------------------------------------------------------
// Loading

// A bundle that is not an ES module (an iife) has no import.meta.url: the files are then named
// as if beside it, never read (bundledOrYaml), and only name the document in errors.
const moduleUrl: string = import.meta.url ?? 'file:///bundled/spec/contract.js';
const documentUrl = new URL('./openapi.yaml', moduleUrl);

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const generatedJsonUrl = new URL('./generated/openapi.json', moduleUrl);

/** A document as `npm run generate` writes it beside its YAML: the sha256 of its source and the parsed document. */
export interface GeneratedDocument {
  sha256?: unknown;
  document?: unknown;
}

/**
 * The YAML, parsed: from packages/contract/spec/generated/openapi.json (made by `npm run generate`) when its sha256
 * still matches the YAML on disk — JSON parses in milliseconds, YAML in about a second, which is
 * most of the mock's start — else from the YAML itself.
 */
export function readDocument(yamlUrl: URL = documentUrl, jsonUrl: URL = generatedJsonUrl): unknown {
  const fs = nodeBuiltin<NodeFs>('node:fs');
  if (!fs) throw new Error('readDocument reads files: it needs Node');
  let cached: GeneratedDocument | undefined;
  try {
    cached = JSON.parse(fs.readFileSync(jsonUrl, 'utf8')) as GeneratedDocument;
  } catch {
    // no generated copy (or an unreadable one): parse the YAML
  }
  return bundledOrYaml(cached ?? {}, yamlUrl);
}

/**
 * A document bundled as generated JSON (imported: what the in-process mock and a browser read), or,
 * in a Node process that can read the YAML beside it and finds it changed since `npm run generate`,
 * the YAML itself (so that an edited document is never read stale).
 */
/**
 * The `yaml` package's parse, loaded only where a YAML is read: in Node, when the generated JSON is
 * missing or older than the YAML (D286). A static import put yaml (205 kB, 103 kB minified) into
 * every browser bundle of the in-process mock, which never reads a YAML file.
 */
function parseYaml(text: string): unknown {
  const module = nodeBuiltin<{ createRequire(url: string | URL): (id: string) => unknown }>('node:module');
  if (!module) throw new Error('parsing the YAML needs Node');
  return (module.createRequire(moduleUrl)('yaml') as { parse: typeof ParseYaml }).parse(text);
}

export function bundledOrYaml(bundled: GeneratedDocument, yamlUrl: URL): unknown {
  const fs = nodeBuiltin<NodeFs>('node:fs');
  if (!fs) {
    if (bundled.document === undefined) throw new Error(`${yamlUrl.pathname}: no generated JSON copy to read (npm run generate)`);
    return bundled.document;
  }
  let text: string;
  try {
    text = fs.readFileSync(yamlUrl, 'utf8');
  } catch (error) {
    // bundled into another file (no YAML beside it): the bundled copy is the document
    if (bundled.document !== undefined) return bundled.document;
    throw error;
  }
  if (bundled.document !== undefined && bundled.sha256 === sha256Hex(text)) return bundled.document;
  return parseYaml(text);
}

const overlayUrl = new URL('./overlays/next.yaml', moduleUrl);

function readable(fs: NodeFs, url: URL): boolean {
  try {
    fs.readFileSync(url, 'utf8');
    return true;
  } catch {
    return false;
  }
}

/**
 * The pending version (packages/contract/spec/overlays/next.yaml applied): the changes of
 * packages/contract/spec/generated/openapi.next-patch.json applied to the generated current document (D286: the
 * bundle carries the changes, not a second document), checked against both inputs where they can
 * be read. Stale, it is refused (npm run generate applies the overlay; packages/contract/spec/versions.ts does it
 * for the tools).
 */
function readNext(): unknown {
  const next = nextPatchJson as { sha256?: unknown; base?: unknown; patch: PatchOp[] };
  const fs = nodeBuiltin<NodeFs>('node:fs');
  const stale = 'packages/contract/spec/generated/openapi.next-patch.json is older than packages/contract/spec/openapi.yaml or packages/contract/spec/overlays/next.yaml: run npm run generate';
  if (fs && readable(fs, documentUrl) && readable(fs, overlayUrl)) {
    const sha = sha256Hex(`${fs.readFileSync(documentUrl, 'utf8')}\0${fs.readFileSync(overlayUrl, 'utf8')}`);
    if (sha !== next.sha256) throw new Error(stale);
  }
  const current = currentJson as GeneratedDocument;
  if (next.base !== current.sha256) throw new Error(stale.replace('packages/contract/spec/openapi.yaml or ', 'packages/contract/spec/generated/openapi.json, packages/contract/spec/openapi.yaml or '));
  return applyDocumentPatch(current.document, next.patch);
}

/**
 * Which version of the API this process reads: `current` (packages/contract/spec/openapi.yaml) or `next` (the
 * pending version, packages/contract/spec/overlays/next.yaml applied; packages/contract/spec/versions.ts), as chosen when this module
 * loads (packages/contract/spec/api-versions.ts: the mock's entry point passes `--api-version` in; the conformance
 * suite chooses with CONFORMANCE_API_VERSION).
 */
export const apiVersion: ApiVersion = chosenApiVersion();

function loadDocument(): OpenApiDocument {
  const parsed: unknown = apiVersion === 'next' ? readNext() : bundledOrYaml(currentJson as GeneratedDocument, documentUrl);
  if (!isObject(parsed)) throw new Error(`${documentUrl.pathname}: not a YAML mapping`);
  if (typeof parsed['openapi'] !== 'string' || !parsed['openapi'].startsWith('3.1')) {
    throw new Error(`${documentUrl.pathname}: expected openapi 3.1.x`);
  }
  for (const key of ['paths', 'webhooks', 'components'] as const) {
    if (!isObject(parsed[key])) throw new Error(`${documentUrl.pathname}: missing \`${key}\``);
  }
  const components = parsed['components'] as JsonObject;
  if (!isObject(components['schemas'])) throw new Error(`${documentUrl.pathname}: missing components.schemas`);
  return deepFreeze(parsed as unknown as OpenApiDocument);
}

/** The parsed document, deeply frozen. */
export const document: OpenApiDocument = loadDocument();

// ---------------------------------------------------------------------------------------------
// JSON pointers

export function escapeSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function unescapeSegment(segment: string): string {
  const decoded = segment.includes('%') ? decodeURIComponent(segment) : segment;
  return decoded.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** '#/a/b~1c' from ['a', 'b/c']. Segments are not percent-encoded. */
export function toPointer(segments: readonly (string | number)[]): string {
  return `#${segments.map((s) => `/${escapeSegment(String(s))}`).join('')}`;
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '#' || pointer === '') return [];
  const body = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (!body.startsWith('/')) throw new Error(`not a JSON pointer: ${pointer}`);
  return body.slice(1).split('/').map(unescapeSegment);
}

/** The node at a pointer into the document ('#/components/schemas/Creative'), or undefined. */
export function resolvePointer(pointer: string): unknown {
  let node: unknown = document;
  for (const segment of pointerSegments(pointer)) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isObject(node)) node = node[segment];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** Follows `{ $ref }` nodes (internal references only) to the real node and its pointer. */
function follow(node: unknown, pointer: string): { node: JsonObject; pointer: string } {
  const seen = new Set<string>();
  let current = node;
  let at = pointer;
  while (isObject(current) && typeof current['$ref'] === 'string') {
    const ref = current['$ref'];
    if (!ref.startsWith('#')) throw new Error(`${at}: external $ref ${ref} is not supported`);
    if (seen.has(ref)) throw new Error(`${at}: $ref cycle through ${ref}`);
    seen.add(ref);
    at = ref;
    current = resolvePointer(ref);
  }
  if (!isObject(current)) throw new Error(`${at}: expected an object`);
  return { node: current, pointer: at };
}

/** Pointer of a schema node: the target of a bare `{ $ref }`, else the node's own pointer. */
function schemaPointerOf(schema: unknown, pointer: string): string {
  if (isObject(schema) && typeof schema['$ref'] === 'string' && Object.keys(schema).length === 1) {
    return schema['$ref'];
  }
  return pointer;
}

// ---------------------------------------------------------------------------------------------
// Operations

export function stringArray(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((v): v is string => typeof v === 'string')) {
    throw new Error(`${where}: expected an array of strings`);
  }
  return [...value];
}

export function requiredString(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${where}: expected a non-empty string`);
  return value;
}

const PARAMETER_LOCATIONS = ['path', 'query', 'header', 'cookie'] as const;

function readParameters(list: unknown, listPointer: string): ParameterInfo[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new Error(`${listPointer}: expected an array`);
  return list.map((raw, index) => {
    const { node, pointer } = follow(raw, `${listPointer}/${index}`);
    const location = PARAMETER_LOCATIONS.find((l) => l === node['in']);
    if (location === undefined) throw new Error(`${pointer}: unknown parameter location`);
    const schema = node['schema'];
    if (!isObject(schema)) throw new Error(`${pointer}: parameter without a schema`);
    return {
      name: requiredString(node['name'], `${pointer}/name`),
      in: location,
      required: node['required'] === true,
      schema,
      schemaPointer: schemaPointerOf(schema, `${pointer}/schema`),
    };
  });
}

function mergeParameters(pathLevel: ParameterInfo[], operationLevel: ParameterInfo[]): ParameterInfo[] {
  const key = (p: ParameterInfo): string => `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
  const merged = new Map<string, ParameterInfo>();
  for (const p of [...pathLevel, ...operationLevel]) merged.set(key(p), p);
  return [...merged.values()];
}

function readContent(content: unknown, contentPointer: string): { contentTypes: string[]; schemaPointers: Record<string, string> } {
  if (content === undefined) return { contentTypes: [], schemaPointers: {} };
  if (!isObject(content)) throw new Error(`${contentPointer}: expected a map of media types`);
  const schemaPointers: Record<string, string> = {};
  for (const [type, media] of Object.entries(content)) {
    if (isObject(media) && media['schema'] !== undefined) {
      schemaPointers[type] = schemaPointerOf(media['schema'], `${contentPointer}/${escapeSegment(type)}/schema`);
    }
  }
  return { contentTypes: Object.keys(content), schemaPointers };
}

function readRequestBody(raw: unknown, rawPointer: string): RequestBodyInfo | undefined {
  if (raw === undefined) return undefined;
  const { node, pointer } = follow(raw, rawPointer);
  const { contentTypes, schemaPointers } = readContent(node['content'], `${pointer}/content`);
  const first = contentTypes[0];
  const schemaPointer = schemaPointers['application/json'] ?? (first === undefined ? undefined : schemaPointers[first]);
  if (schemaPointer === undefined) throw new Error(`${pointer}: request body without a schema`);
  return { required: node['required'] === true, contentTypes, schemaPointer };
}

function readResponses(raw: unknown, rawPointer: string): Record<string, ResponseInfo> {
  if (!isObject(raw)) throw new Error(`${rawPointer}: expected responses`);
  const responses: Record<string, ResponseInfo> = {};
  for (const [status, value] of Object.entries(raw)) {
    const { node, pointer } = follow(value, `${rawPointer}/${escapeSegment(status)}`);
    const headers: Record<string, ResponseHeaderInfo> = {};
    const rawHeaders = node['headers'];
    if (isObject(rawHeaders)) {
      for (const [name, headerValue] of Object.entries(rawHeaders)) {
        const header = follow(headerValue, `${pointer}/headers/${escapeSegment(name)}`);
        headers[name.toLowerCase()] = {
          required: header.node['required'] === true,
          schemaPointer: schemaPointerOf(header.node['schema'], `${header.pointer}/schema`),
        };
      }
    }
    responses[status] = { pointer, ...readContent(node['content'], `${pointer}/content`), headers };
  }
  return responses;
}

function buildOperations(): OperationInfo[] {
  const list: OperationInfo[] = [];
  for (const [template, pathItem] of Object.entries(document.paths)) {
    const itemPointer = toPointer(['paths', template]);
    for (const other of OTHER_OPENAPI_METHODS) {
      if (pathItem[other] !== undefined) throw new Error(`${itemPointer}: method ${other} is not supported`);
    }
    const pathParameters = readParameters(pathItem['parameters'], `${itemPointer}/parameters`);
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (operation === undefined) continue;
      const at = `${itemPointer}/${method}`;
      if (!isObject(operation)) throw new Error(`${at}: expected an operation`);
      const parameters = mergeParameters(pathParameters, readParameters(operation['parameters'], `${at}/parameters`));
      const idempotency = parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
      const requestBody = readRequestBody(operation['requestBody'], `${at}/requestBody`);
      list.push({
        operationId: requiredString(operation['operationId'], `${at}/operationId`),
        method,
        path: template,
        tag: requiredString(stringArray(operation['tags'], `${at}/tags`)[0], `${at}/tags/0`),
        scopes: stringArray(operation['x-required-scopes'], `${at}/x-required-scopes`),
        rateLimitGroup: requiredString(operation['x-rate-limit-group'], `${at}/x-rate-limit-group`),
        idempotencyKey: idempotency === undefined ? 'none' : idempotency.required ? 'required' : 'optional',
        ifMatch: parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'if-match'),
        parameters,
        ...(requestBody === undefined ? {} : { requestBody }),
        responses: readResponses(operation['responses'], `${at}/responses`),
        ...(operation['deprecated'] === true ? { deprecation: readDeprecation(operation, at) } : {}),
      });
    }
  }
  return list;
}

function readDeprecation(operation: JsonObject, at: string): { deprecatedAt?: string; sunset?: string } {
  const dates: { deprecatedAt?: string; sunset?: string } = {};
  for (const [key, name] of [['x-deprecated-at', 'deprecatedAt'], ['x-sunset', 'sunset']] as const) {
    const value = operation[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) throw new Error(`${at}/${key}: expected a date YYYY-MM-DD`);
    dates[name] = value;
  }
  return dates;
}

export const operationsList: readonly OperationInfo[] = deepFreeze(buildOperations());

export const operations: ReadonlyMap<string, OperationInfo> = (() => {
  const map = new Map<string, OperationInfo>();
  for (const op of operationsList) {
    if (map.has(op.operationId)) throw new Error(`duplicate operationId ${op.operationId}`);
    map.set(op.operationId, op);
  }
  return map;
})();

/** '/api/public/v1', the path of the first server URL; requests are matched after removing it. */
export const basePath: string = new URL(document.servers?.[0]?.url ?? 'http://localhost/').pathname.replace(/\/$/, '');

// ---------------------------------------------------------------------------------------------
// Validation

/** The `$id` under which createAjv registers the document: `${DOCUMENT_SCHEMA_ID}#/components/schemas/Id`. */
export const DOCUMENT_SCHEMA_ID = 'urn:cgs:openapi';

/** Every `x-*` key used anywhere in the document. */
function extensionKeywords(): string[] {
  const found = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (isObject(node)) {
      for (const [key, value] of Object.entries(node)) {
        if (key.startsWith('x-')) found.add(key);
        walk(value);
      }
    }
  };
  walk(document);
  return [...found].sort();
}

/**
 * A fresh Ajv (JSON Schema 2020-12, formats, all errors, strict) that knows the document under
 * `urn:cgs:openapi`, so that `$ref: '#/components/...'` inside any schema node resolves.
 * `paths`, `webhooks` and `components` are declared as inert keywords to carry the nodes.
 *
 * Strict mode stays on for what finds real mistakes (an unknown keyword, such as a YAML flow
 * mapping split by a comma); `strictTypes` and `strictRequired` are off because the document's
 * idiom `allOf: [{ $ref: Problem }, { properties: ..., required: [...] }]` trips both by design.
 */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
  addFormats(ajv);
  const keywords = [...extensionKeywords(), 'example', 'discriminator', 'xml', 'externalDocs', 'components', 'paths', 'webhooks'];
  for (const keyword of keywords) ajv.addKeyword({ keyword });
  ajv.addSchema({
    $id: DOCUMENT_SCHEMA_ID,
    components: document.components,
    paths: document.paths,
    webhooks: document.webhooks,
  });
  return ajv;
}

let sharedAjv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

/** A validator for the schema node at a pointer of the document, compiled once and cached. */
export function validatorFor(pointer: string): ValidateFunction {
  const cached = validators.get(pointer);
  if (cached !== undefined) return cached;
  if (resolvePointer(pointer) === undefined) throw new Error(`no node at ${pointer}`);
  sharedAjv ??= createAjv();
  const fragment = pointerSegments(pointer)
    .map((s) => `/${encodeURIComponent(escapeSegment(s))}`)
    .join('');
  const validate = sharedAjv.compile({ $ref: `${DOCUMENT_SCHEMA_ID}#${fragment}` });
  validators.set(pointer, validate);
  return validate;
}
