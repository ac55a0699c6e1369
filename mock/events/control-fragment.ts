/**
 * The webhook part of the control plane's contract, until it is merged into spec/mock-control.yaml.
 *
 * control-fragment.yaml holds the webhook operations and schemas; it refers to the control
 * document's shared components (AccountId, Problem, EventType, Timestamp ...). This module merges
 * the two in memory (the fragment's paths and components added to the document's), derives the
 * fragment's operations and compiles validators over the merged whole, so that:
 * - mock/control/webhooks.ts can serve and validate the operations the document does not hold yet;
 * - tests check every webhook control answer against its declared schema (`webhookControlViolations`).
 *
 * Once the fragment is merged into spec/mock-control.yaml, each operation found there is left to
 * the document's own machinery (mock/control/document.ts, routes.ts, conformance.ts): nothing here
 * needs to change, and this file and the fragment can then be deleted.
 */
import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { controlViolations, type ControlAnswer } from '../control/conformance.ts';
import { controlDocument, controlOperations } from '../control/document.ts';

const addFormats = addFormatsModule.default;

type JsonObject = { readonly [key: string]: unknown };

export const fragmentUrl = new URL('./control-fragment.yaml', import.meta.url);
const SCHEMA_ID = 'urn:cgs:mock-control-webhooks';
const METHODS = ['get', 'post', 'patch', 'delete'] as const;

export interface FragmentParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schemaPointer: string;
}

export interface FragmentOperation {
  operationId: string;
  method: (typeof METHODS)[number];
  /** Path template as written: `/__mock/accounts/{accountId}/webhook-endpoints`. */
  path: string;
  parameters: FragmentParameter[];
  requestBody?: { required: boolean; schemaPointer: string };
  responses: Record<string, { contentTypes: string[]; schemaPointers: Record<string, string> }>;
  /** The operation is already in spec/mock-control.yaml (merged): the document's machinery serves it. */
  merged: boolean;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function loadFragment(): JsonObject {
  const parsed: unknown = parse(readFileSync(fragmentUrl, 'utf8'));
  if (!isObject(parsed) || !isObject(parsed['paths']) || !isObject(parsed['components'])) throw new Error(`${fragmentUrl.pathname}: expected paths and components`);
  return parsed;
}

// Everything is derived on first use, like mock/control/document.ts (the mock opens its port first).
let parsedFragment: JsonObject | undefined;
let merged: JsonObject | undefined;
let operationList: readonly FragmentOperation[] | undefined;

/** The parsed fragment. */
export function fragment(): JsonObject {
  parsedFragment ??= loadFragment();
  return parsedFragment;
}

/** The control document with the fragment's paths and components added (the fragment wins). */
export function mergedControlDocument(): JsonObject {
  if (!merged) {
    const document = controlDocument();
    const base = document['components'] as JsonObject;
    const extra = fragment()['components'] as JsonObject;
    const components: Record<string, unknown> = { ...base };
    for (const [section, entries] of Object.entries(extra)) components[section] = { ...(isObject(base[section]) ? base[section] : {}), ...(entries as JsonObject) };
    merged = { paths: { ...(document['paths'] as JsonObject), ...(fragment()['paths'] as JsonObject) }, components };
  }
  return merged;
}

/** Operation ids, methods and path templates of the fragment, read from the fragment alone (cheap). */
export function fragmentRoutes(): { operationId: string; method: (typeof METHODS)[number]; path: string }[] {
  const out: { operationId: string; method: (typeof METHODS)[number]; path: string }[] = [];
  for (const [path, item] of Object.entries(fragment()['paths'] as JsonObject)) {
    for (const method of METHODS) {
      const operation = isObject(item) ? item[method] : undefined;
      if (!isObject(operation)) continue;
      if (typeof operation['operationId'] !== 'string') throw new Error(`${fragmentUrl.pathname}: ${method} ${path} has no operationId`);
      out.push({ operationId: operation['operationId'], method, path });
    }
  }
  return out;
}

function resolve(pointer: string): unknown {
  let node: unknown = mergedControlDocument();
  for (const raw of pointer.slice(2).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    node = Array.isArray(node) ? node[Number(segment)] : isObject(node) ? node[segment] : undefined;
  }
  return node;
}

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

function readParameters(list: unknown, at: string): FragmentParameter[] {
  if (!Array.isArray(list)) return [];
  return list.map((raw, index) => {
    const { node, pointer } = follow(raw, `${at}/${index}`);
    const location = node['in'];
    if ((location !== 'path' && location !== 'query') || typeof node['name'] !== 'string') throw new Error(`${pointer}: expected a named path or query parameter`);
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

function buildOperations(): FragmentOperation[] {
  const documented = new Set(controlOperations().map((op) => op.operationId));
  const out: FragmentOperation[] = [];
  for (const [template, item] of Object.entries(fragment()['paths'] as JsonObject)) {
    if (!isObject(item)) continue;
    const itemPointer = `#/paths/${escape(template)}`;
    const pathLevel = readParameters(item['parameters'], `${itemPointer}/parameters`);
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const at = `${itemPointer}/${method}`;
      if (typeof operation['operationId'] !== 'string') throw new Error(`${at}: missing operationId`);
      const own = readParameters(operation['parameters'], `${at}/parameters`);
      let requestBody: FragmentOperation['requestBody'];
      if (operation['requestBody'] !== undefined) {
        const { node, pointer } = follow(operation['requestBody'], `${at}/requestBody`);
        const json = readContent(node['content'], `${pointer}/content`).schemaPointers['application/json'];
        if (json === undefined) throw new Error(`${pointer}: request body without an application/json schema`);
        requestBody = { required: node['required'] === true, schemaPointer: json };
      }
      const responses: FragmentOperation['responses'] = {};
      for (const [status, raw] of Object.entries(isObject(operation['responses']) ? operation['responses'] : {})) {
        const { node, pointer } = follow(raw, `${at}/responses/${status}`);
        responses[status] = readContent(node['content'], `${pointer}/content`);
      }
      out.push({
        operationId: operation['operationId'],
        method,
        path: template,
        parameters: [...pathLevel.filter((p) => !own.some((o) => o.name === p.name)), ...own],
        ...(requestBody ? { requestBody } : {}),
        responses,
        merged: documented.has(operation['operationId']),
      });
    }
  }
  return out;
}

/** The fragment's operations with parameters, bodies and responses resolved (derived on first use). */
export function fragmentOperations(): readonly FragmentOperation[] {
  operationList ??= buildOperations();
  return operationList;
}

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

/** A validator for the schema node at a pointer of the merged document. */
export function fragmentValidator(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    if (resolve(pointer) === undefined) throw new Error(`no node at ${pointer} of the merged control document`);
    if (!ajv) {
      ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
      addFormats(ajv);
      for (const keyword of ['example', 'components', 'paths']) ajv.addKeyword({ keyword });
      const document = mergedControlDocument();
      ajv.addSchema({ $id: SCHEMA_ID, components: document['components'], paths: document['paths'] });
    }
    const fragmentPart = pointer
      .slice(1)
      .split('/')
      .map((s) => encodeURIComponent(s))
      .join('/');
    validate = ajv.compile({ $ref: `${SCHEMA_ID}#${fragmentPart}` });
    validators.set(pointer, validate);
  }
  return validate;
}

/** Like controlViolations, for the webhook operations (merged or not yet). */
export function webhookControlViolations(operationId: string, res: ControlAnswer): string[] {
  const operation = fragmentOperations().find((op) => op.operationId === operationId);
  if (!operation) return [`no webhook control operation ${operationId}`];
  if (operation.merged) return controlViolations(operationId, res);
  const declared = operation.responses[String(res.status)];
  if (!declared) return [`status ${res.status} is not declared for ${operationId}: ${res.text}`];
  const contentType = (res.headers['content-type'] ?? '').split(';')[0]!.trim();
  if (declared.contentTypes.length === 0) return res.text === '' ? [] : [`status ${res.status} declares no body, got ${res.text}`];
  if (!declared.contentTypes.includes(contentType)) return [`content type ${contentType || '(none)'} is not one of ${declared.contentTypes.join(', ')}`];
  const pointer = declared.schemaPointers[contentType];
  if (pointer === undefined) return [];
  const validate = fragmentValidator(pointer);
  return validate(res.body) ? [] : [`body does not match ${pointer}: ${JSON.stringify(validate.errors?.slice(0, 3))} in ${res.text.slice(0, 500)}`];
}
