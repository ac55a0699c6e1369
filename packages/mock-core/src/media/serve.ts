/**
 * The bytes behind every media URL the mock hands out (D49), on the mock's own origin under
 * /media/ (packages/mock-core/src/media/links.ts makes the URLs and reads them back).
 * How it works and what it decides: docs/internals.md, "packages/mock-core/src/media/serve.ts".
 */
import { ApiError } from '../core/errors.ts';
import { sha256Base64url } from '../../../contract/platform/crypto.ts';
import { utf8Bytes } from '../../../contract/platform/bytes.ts';
import { nextRequestId } from '../pipeline/context.ts';
import { errorResponse } from '../pipeline/respond.ts';
import { renderPng } from './image.ts';
import { MEDIA_ROOT, parseMediaPath, ratioOf, scaledTo, THUMBNAIL_EDGE, type MediaTarget } from './links.ts';

export interface MediaOptions {
  /** The bytes of a committed clip by name (`16x9`), or undefined when this way in has none (a .webm is then 404). */
  clip?: (name: string) => Uint8Array | undefined;
  /** Bytes of rendered media kept (default 64 MiB); the least recently used go first. */
  cacheBytes?: number;
  /** Pictures drawn at the same time (default 2); further requests wait their turn. */
  concurrentRenders?: number;
  /**
   * Pictures waiting their turn at most (default 32, D256); a request for another picture not kept
   * is answered 503 SERVICE_UNAVAILABLE with Retry-After: 1 until one is drawn.
   */
  maxWaiting?: number;
  /** Draws a picture (default renderPng; a test counts what is drawn). */
  render?: (target: MediaTarget) => Promise<Uint8Array>;
}

/** No turn to draw a picture: the queue is full (D256). */
export class MediaBusyError extends Error {}

export interface MediaEntry {
  contentType: string;
  etag: string;
  body: Uint8Array;
  /** The headers of a 304 and of a 200 (with Content-Length), made once. */
  notModified: Readonly<Record<string, string>>;
  ok: Readonly<Record<string, string>>;
}

const CACHE_CONTROL = 'public, max-age=86400';
const CONTENT_TYPES = { png: 'image/png', webm: 'video/webm', html: 'text/html; charset=utf-8' } as const;

/** The clips of scripts/media-clips.sh: name (`WxH` of the ratio) and ratio value. */
const CLIPS = ['1x1', '4x5', '9x16', '16x9', '2x3', '3x2', '4x3', '3x4'].map((name) => {
  const [w, h] = name.split('x').map(Number) as [number, number];
  return { name, ratio: w / h };
});

/** The name of the committed clip whose ratio is nearest W:H (the same ratio for every delivery ratio). */
export function clipNameFor(width: number, height: number): string {
  const wanted = Math.log(width / height);
  let best = CLIPS[0]!;
  for (const clip of CLIPS) if (Math.abs(Math.log(clip.ratio) - wanted) < Math.abs(Math.log(best.ratio) - wanted)) best = clip;
  return best.name;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The player page of a video: its <video> plays the .webm of the same size, with a still as poster. */
export function playerPage(target: MediaTarget): string {
  const size = `${target.width}x${target.height}`;
  const still = scaledTo(target, THUMBNAIL_EDGE);
  const title = escapeHtml(`${target.label} · ${target.key} · ${ratioOf(target)}`);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    '<style>html,body{margin:0;height:100%;background:#000}video{display:block;width:100%;height:100%;object-fit:contain}</style>',
    '</head><body>',
    `<video src="${size}.webm" poster="${still.width}x${still.height}.png" controls autoplay muted loop playsinline aria-label="${title}"></video>`,
    '</body></html>',
    '',
  ].join('\n');
}

function strongEtag(body: Uint8Array): string {
  return `"${sha256Base64url(body).slice(0, 27)}"`;
}

/** If-None-Match (RFC 9110 13.1.2): `*` or a list of tags compared weakly. */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

export class MediaService {
  private readonly cacheBytes: number;
  private readonly concurrentRenders: number;
  private readonly maxWaiting: number;
  private readonly render: (target: MediaTarget) => Promise<Uint8Array>;
  private readonly entries = new Map<string, MediaEntry>();
  private readonly inFlight = new Map<string, Promise<MediaEntry>>();
  private keptBytes = 0;
  private rendering = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly clip: (name: string) => Uint8Array | undefined;

  constructor(options: MediaOptions = {}) {
    this.clip = options.clip ?? (() => undefined);
    this.cacheBytes = options.cacheBytes ?? 64 * 1024 * 1024;
    this.concurrentRenders = Math.max(1, options.concurrentRenders ?? 2);
    this.maxWaiting = Math.max(0, options.maxWaiting ?? 32);
    this.render = options.render ?? ((target) => renderPng(target));
  }

  /** Bytes kept now (never more than the bound, except one entry larger than the whole bound). */
  get cachedBytes(): number {
    return this.keptBytes;
  }

  /** The media at a path, or undefined when the mock hands out no such path. */
  async resolve(path: string): Promise<MediaEntry | undefined> {
    const target = parseMediaPath(path);
    if (!target) return undefined;
    if (target.format === 'webm' && this.clip(clipNameFor(target.width, target.height)) === undefined) return undefined;
    const kept = this.entries.get(path);
    if (kept) {
      this.entries.delete(path); // most recently used last
      this.entries.set(path, kept);
      return kept;
    }
    let pending = this.inFlight.get(path);
    if (!pending) {
      pending = this.produce(target).finally(() => this.inFlight.delete(path));
      this.inFlight.set(path, pending);
    }
    const entry = await pending;
    this.keep(path, entry);
    return entry;
  }

  private async produce(target: MediaTarget): Promise<MediaEntry> {
    let body: Uint8Array;
    if (target.format === 'webm') body = this.clip(clipNameFor(target.width, target.height))!;
    else if (target.format === 'html') body = utf8Bytes(playerPage(target));
    else body = await this.draw(target);
    const contentType = CONTENT_TYPES[target.format];
    const etag = strongEtag(body);
    const notModified = {
      'content-type': contentType,
      etag,
      'cache-control': CACHE_CONTROL,
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'cross-origin',
      'access-control-allow-origin': '*',
    };
    return { contentType, etag, body, notModified, ok: { ...notModified, 'content-length': String(body.length) } };
  }

  private async draw(target: MediaTarget): Promise<Uint8Array> {
    if (this.rendering >= this.concurrentRenders) {
      if (this.waiting.length >= this.maxWaiting) throw new MediaBusyError(`${this.rendering} pictures are being drawn and ${this.waiting.length} wait`);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.rendering += 1;
    try {
      return await this.render(target);
    } finally {
      this.rendering -= 1;
      this.waiting.shift()?.();
    }
  }

  private keep(path: string, entry: MediaEntry): void {
    if (this.entries.has(path)) return;
    this.entries.set(path, entry);
    this.keptBytes += entry.body.length;
    for (const [oldest, old] of this.entries) {
      if (this.keptBytes <= this.cacheBytes || oldest === path) break;
      this.entries.delete(oldest);
      this.keptBytes -= old.body.length;
    }
  }
}

/** Whether a request target is under /media/ (or is /media itself). */
export function isMediaTarget(url: string): boolean {
  return url.startsWith(MEDIA_ROOT) || url === '/media' || url.startsWith('/media?');
}

/** An answer of /media/: status, headers (with Content-Length) and the bytes (none for HEAD and 304). */
export interface MediaAnswer {
  status: number;
  headers: Record<string, string>;
  body?: Uint8Array;
}

/**
 * The answer to a request under /media/ (`path` without the query). Rejects only on a bug (a
 * failure to produce bytes), which the way in reports and answers 500.
 */
export async function answerMedia(media: MediaService, method: string, path: string, ifNoneMatch: string | undefined): Promise<MediaAnswer> {
  const head = method === 'HEAD';
  const problem = (error: ApiError, extra: Record<string, string> = {}, withBody = !head): MediaAnswer => {
    const answer = errorResponse(error, undefined, path, nextRequestId());
    const body = typeof answer.body === 'string' ? utf8Bytes(answer.body) : answer.body;
    return { status: answer.status, headers: { ...answer.headers, ...extra, 'content-length': String(body.length), 'cache-control': 'no-store' }, ...(withBody ? { body } : {}) };
  };
  if (method !== 'GET' && !head) return problem(new ApiError('METHOD_NOT_ALLOWED', `${method} is not allowed on media; use GET or HEAD.`), { allow: 'GET, HEAD' }, true);
  let entry: MediaEntry | undefined;
  try {
    entry = await media.resolve(path);
  } catch (error) {
    if (!(error instanceof MediaBusyError)) throw error;
    return problem(new ApiError('SERVICE_UNAVAILABLE', 'The mock is drawing as many pictures as it queues; ask again after Retry-After.', { retryAfter: 1 }));
  }
  if (!entry) return problem(new ApiError('NOT_FOUND', `No media at ${path}; the mock hands out /media/{key}/{label}/{width}x{height}.{png|webm|html}.`));
  if (noneMatch(ifNoneMatch, entry.etag)) return { status: 304, headers: { ...entry.notModified } };
  return { status: 200, headers: { ...entry.ok }, ...(head ? {} : { body: entry.body }) };
}
