/**
 * The API's versions as documents: the working document (packages/contract/spec/openapi.yaml), the frozen releases
 * (packages/contract/spec/releases/<version>/), the pending version (packages/contract/spec/openapi.yaml with the OpenAPI Overlay
 * packages/contract/spec/overlays/next.yaml applied by openapi-overlays-js), and any of them at a git ref.
 *
 * The pending version is never written by hand: it is derived from the working document, so a fix
 * made there shows in `next` too (one source). packages/contract/spec/generated/openapi.next.json caches the result
 * for start-up speed, keyed by the sha256 of both inputs (npm run generate, npm run check:generated).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { RuleLedger } from './diff/classify.ts';

/**
 * The contract's folder, spec/'s parent: packages/contract/ in the repository, dist/ in the
 * installed package (D289). ROOT is the repository's root, or that dist/ when installed; the files
 * below are paths under ROOT.
 */
const HOME = new URL('..', import.meta.url);
const INSTALLED = HOME.pathname.endsWith('/dist/');
export const ROOT = fileURLToPath(INSTALLED ? HOME : new URL('../..', HOME));
const AT = INSTALLED ? '' : 'packages/contract/';
export const DOCUMENT_FILE = `${AT}spec/openapi.yaml`;
export const RULES_FILE = `${AT}spec/rules.yaml`;
export const OVERLAY_FILE = `${AT}spec/overlays/next.yaml`;
export const RELEASES_DIR = `${AT}spec/releases`;
export const NEXT_JSON_FILE = `${AT}spec/generated/openapi.next.json`;

/** The versions `npm start -- --api-version` and CONFORMANCE_API_VERSION accept. */
export { API_VERSIONS, parseApiVersion, type ApiVersion } from './api-versions.ts';

// ---------------------------------------------------------------------------------------------
// Semantic versions

export function parseSemver(version: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  return m === null ? undefined : [Number(m[1]), Number(m[2]), Number(m[3])];
}

/** <0, 0, >0 like a sort comparator; undefined when either is not MAJOR.MINOR.PATCH. */
export function compareSemver(a: string, b: string): number | undefined {
  const x = parseSemver(a);
  const y = parseSemver(b);
  if (x === undefined || y === undefined) return undefined;
  for (let i = 0; i < 3; i += 1) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return 0;
}

// ---------------------------------------------------------------------------------------------
// The overlay

type ApplyOverlay = (document: unknown, overlay: unknown) => unknown;

/** openapi-overlays-js is an ES module; Node 20.19+ loads it synchronously (packages/contract/spec/contract.ts needs that). */
function overlayTool(): ApplyOverlay {
  const required = createRequire(import.meta.url)('openapi-overlays-js/src/overlay.js') as { applyOverlay: ApplyOverlay };
  return required.applyOverlay;
}

/** `document` with `overlay` applied (neither is changed). Fails when an action's target matches nothing. */
export function applyOverlay(document: unknown, overlay: unknown): unknown {
  const actions = (overlay as { actions?: unknown }).actions;
  if (!Array.isArray(actions) || actions.length === 0) throw new Error(`${OVERLAY_FILE}: an overlay needs a non-empty \`actions\` list`);
  return overlayTool()(structuredClone(document), structuredClone(overlay));
}

export function nextInputsSha(documentText: string, overlayText: string): string {
  return createHash('sha256').update(documentText).update('\0').update(overlayText).digest('hex');
}

/** The pending version, rendered from the texts of the working document and the overlay. */
export function renderNext(documentText: string, overlayText: string): unknown {
  return applyOverlay(parse(documentText), parse(overlayText));
}

/**
 * The pending version as parsed: from packages/contract/spec/generated/openapi.next.json when its sha256 matches the
 * current inputs, else applying the overlay now.
 */
export function readNextDocument(root = ROOT): unknown {
  const documentText = readFileSync(join(root, DOCUMENT_FILE), 'utf8');
  const overlayText = readFileSync(join(root, OVERLAY_FILE), 'utf8');
  try {
    const cached = JSON.parse(readFileSync(join(root, NEXT_JSON_FILE), 'utf8')) as { sha256?: unknown; document?: unknown };
    if (cached.sha256 === nextInputsSha(documentText, overlayText)) return cached.document;
  } catch {
    // no generated copy: apply the overlay
  }
  return renderNext(documentText, overlayText);
}

// ---------------------------------------------------------------------------------------------
// Releases and sources

/** The frozen releases, oldest first. */
export function releases(root = ROOT): string[] {
  const dir = join(root, RELEASES_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => parseSemver(name) !== undefined && statSync(join(dir, name)).isDirectory())
    .sort((a, b) => compareSemver(a, b)!);
}

export function latestRelease(root = ROOT): string | undefined {
  return releases(root).at(-1);
}

/** One side of a diff: a document, its rule ledger when known, and a name for messages. */
export interface Source {
  label: string;
  document: Record<string, unknown>;
  rules?: RuleLedger;
}

export class SourceError extends Error {}

function parseText(text: string, label: string): unknown {
  try {
    return parse(text);
  } catch (error) {
    throw new SourceError(`${label}: not YAML or JSON (${(error as Error).message})`);
  }
}

function asDocument(value: unknown, label: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { openapi?: unknown }).openapi !== 'string') {
    throw new SourceError(`${label}: not an OpenAPI document`);
  }
  return value as Record<string, unknown>;
}

function asRules(value: unknown): RuleLedger | undefined {
  const rules = (value as { rules?: unknown } | null)?.rules;
  return Array.isArray(rules) ? (value as RuleLedger) : undefined;
}

function git(root: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
  } catch {
    return undefined;
  }
}

/**
 * A source named on the command line:
 * - `working` (packages/contract/spec/openapi.yaml and packages/contract/spec/rules.yaml), `next` (the pending version),
 * - `release` (the latest frozen release) or a released version (`1.9.0`),
 * - a directory holding openapi.yaml (and rules.yaml), a YAML or JSON file,
 * - a git ref (`main`, `HEAD~3`, a commit id): packages/contract/spec/openapi.yaml and packages/contract/spec/rules.yaml at that ref.
 */
export function loadSource(spec: string, root = ROOT): Source {
  if (spec === 'working') {
    return { label: 'working', document: asDocument(parseText(readFileSync(join(root, DOCUMENT_FILE), 'utf8'), DOCUMENT_FILE), DOCUMENT_FILE), rules: asRules(parse(readFileSync(join(root, RULES_FILE), 'utf8'))) };
  }
  if (spec === 'next') {
    const document = asDocument(readNextDocument(root), 'next');
    const rules = asRules(parse(readFileSync(join(root, RULES_FILE), 'utf8')));
    // The pending version shares the working ledger, under its own number.
    return { label: 'next', document, ...(rules === undefined ? {} : { rules: { ...rules, version: String((document['info'] as { version?: unknown }).version) } }) };
  }
  if (spec === 'release') {
    const latest = latestRelease(root);
    if (latest === undefined) throw new SourceError(`no release under ${RELEASES_DIR}/`);
    return loadSource(join(root, RELEASES_DIR, latest), root);
  }
  if (parseSemver(spec) !== undefined && existsSync(join(root, RELEASES_DIR, spec))) return loadSource(join(root, RELEASES_DIR, spec), root);
  if (existsSync(spec) && statSync(spec).isDirectory()) {
    const file = join(spec, 'openapi.yaml');
    if (!existsSync(file)) throw new SourceError(`${spec}: no openapi.yaml in it`);
    const rulesFile = join(spec, 'rules.yaml');
    const rules = existsSync(rulesFile) ? asRules(parseText(readFileSync(rulesFile, 'utf8'), rulesFile)) : undefined;
    return { label: spec, document: asDocument(parseText(readFileSync(file, 'utf8'), file), file), ...(rules === undefined ? {} : { rules }) };
  }
  if (existsSync(spec)) return { label: spec, document: asDocument(parseText(readFileSync(spec, 'utf8'), spec), spec) };
  const text = git(root, ['show', `${spec}:${DOCUMENT_FILE}`]);
  if (text === undefined) throw new SourceError(`${spec}: not a file, a directory, a release or a git ref holding ${DOCUMENT_FILE}`);
  const rulesText = git(root, ['show', `${spec}:${RULES_FILE}`]);
  const rules = rulesText === undefined ? undefined : asRules(parse(rulesText));
  return { label: `${spec} (git)`, document: asDocument(parseText(text, spec), spec), ...(rules === undefined ? {} : { rules }) };
}

export function versionOf(source: Source): string {
  const info = source.document['info'] as { version?: unknown } | undefined;
  return typeof info?.version === 'string' ? info.version : 'unknown';
}

/**
 * One hash of the working document and rule ledger: the conformance reporter records it in
 * rules.json, and `npm run release` accepts only a suite run on exactly these (V10).
 */
export function workingDigest(root = ROOT): string {
  const hash = createHash('sha256');
  for (const file of [DOCUMENT_FILE, RULES_FILE]) hash.update(`${file}\n`).update(readFileSync(join(root, file)));
  return hash.digest('hex');
}

/** The version the pending version (packages/contract/spec/overlays/next.yaml) gives itself, if it names one. */
export function nextClaimedVersion(root = ROOT): string | undefined {
  const path = join(root, OVERLAY_FILE);
  if (!existsSync(path)) return undefined;
  const overlay = parse(readFileSync(path, 'utf8')) as { actions?: { target?: unknown; update?: { version?: unknown } }[] };
  for (const action of overlay.actions ?? []) {
    if (action.target === '$.info' && typeof action.update?.version === 'string') return action.update.version;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Frozen releases

export const SUMS_FILE = 'SHA256SUMS';

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Every file of every release, as `<sha256>  <version>/<file>` lines (sha256sum's format), sorted. */
export function releaseSums(root = ROOT): string[] {
  const dir = join(root, RELEASES_DIR);
  return releases(root).flatMap((version) =>
    readdirSync(join(dir, version))
      .sort()
      .map((file) => `${sha256(join(dir, version, file))}  ${version}/${file}`),
  );
}

/**
 * What is wrong with the frozen releases: a file whose hash differs from packages/contract/spec/releases/SHA256SUMS
 * (edited after the release), a file it does not list, a listed file that is gone. Empty when intact.
 * Only `npm run release` writes SHA256SUMS (appending the new release's lines).
 */
export function verifyReleases(root = ROOT): string[] {
  const sumsPath = join(root, RELEASES_DIR, SUMS_FILE);
  const recorded = existsSync(sumsPath) ? readFileSync(sumsPath, 'utf8').split('\n').filter((l) => l.trim() !== '') : [];
  const byFile = new Map(recorded.map((line) => [line.slice(66), line.slice(0, 64)]));
  const problems: string[] = [];
  const present = new Set<string>();
  for (const line of releaseSums(root)) {
    const file = line.slice(66);
    present.add(file);
    const expected = byFile.get(file);
    if (expected === undefined) problems.push(`${RELEASES_DIR}/${file} is not in ${RELEASES_DIR}/${SUMS_FILE}: releases are cut by npm run release, never added by hand`);
    else if (expected !== line.slice(0, 64)) problems.push(`${RELEASES_DIR}/${file} was edited after its release (sha256 ${line.slice(0, 12)}…, released ${expected.slice(0, 12)}…): a release never changes; restore it (git checkout -- ${RELEASES_DIR}/${file}) and make the change in ${DOCUMENT_FILE} under a new version`);
  }
  for (const file of byFile.keys()) if (!present.has(file)) problems.push(`${RELEASES_DIR}/${file} is listed in ${SUMS_FILE} but missing: restore it`);
  return problems;
}
