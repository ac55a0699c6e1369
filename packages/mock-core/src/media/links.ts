/**
 * The one place where the mock makes media URLs (D49). The state keeps a media *base*, free of any
 * origin: `/media/{key}/{label}` (key: the resource id, with a variant after a dot; label: the
 * product's sku or title as a slug). A presenter turns a base into an absolute URL on the mock's
 * public origin (`--public-url`, default the origin it listens on) with the size and format the
 * resource states:
 *
 *   {origin}/media/{key}/{label}/{W}x{H}.png     an image of exactly W×H pixels (PNG)
 *   {origin}/media/{key}/{label}/{W}x{H}.webm    a video in the ratio W:H (WebM, VP8)
 *   {origin}/media/{key}/{label}/{W}x{H}.html    a player page that plays the .webm of the same size
 *
 * So every URL is a function of the account's state and the configured origin, and the bytes
 * behind it a function of the path alone (packages/mock-core/src/media/serve.ts): deterministic, and answerable
 * without a key (an <img> tag sends none).
 */

export const MEDIA_ROOT = '/media/';
export type MediaFormat = 'png' | 'webm' | 'html';

/** Long edge, in pixels, of a creative's and a delivery's image (they state a ratio, no size). */
export const RENDITION_EDGE = 1024;
/** Long edge of every thumbnail and video still. */
export const THUMBNAIL_EDGE = 320;
/** Long edge of the iframe an embedCode declares. */
export const EMBED_EDGE = 640;
/** Largest edge the media route renders (the 4K upscale target). */
export const MAX_EDGE = 4096;

export interface Size {
  width: number;
  height: number;
}

export interface MediaTarget extends Size {
  key: string;
  label: string;
  format: MediaFormat;
}

const KEY = /^[A-Za-z0-9_-]{1,64}(?:\.[A-Za-z0-9_-]{1,32})?$/;
const LABEL = /^[A-Za-z0-9-]{1,40}$/;
const TARGET = /^\/media\/([^/]+)\/([^/]+)\/([1-9][0-9]{0,3})x([1-9][0-9]{0,3})\.(png|webm|html)$/;

/** A label for the URL and the picture: letters, digits and dashes, at most 40. */
export function slug(text: string | null | undefined): string {
  const s = (text ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return s.length > 0 ? s : 'item';
}

/** What a product's media are labelled with: its sku, or its title when it has none. */
export function productLabel(product: { sku: string | null; title: string } | undefined): string | null {
  return product ? (product.sku ?? product.title) : null;
}

/** The stored base of a resource's media: `/media/{key}/{label}`. */
export function mediaBase(key: string, label: string | null | undefined): string {
  if (!KEY.test(key)) throw new Error(`media key ${JSON.stringify(key)} is not a valid key`);
  return `${MEDIA_ROOT}${key}/${slug(label)}`;
}

/** The path of one rendition of a base. */
export function mediaPath(base: string, size: Size, format: MediaFormat): string {
  return `${base}/${size.width}x${size.height}.${format}`;
}

/**
 * The absolute URL of one rendition. A stored value that is not a media base (a full URL kept
 * by an older state file or a test fixture) is handed out as it is.
 */
export function mediaUrl(origin: string, stored: string, size: Size, format: MediaFormat): string {
  return stored.startsWith(MEDIA_ROOT) ? origin + mediaPath(stored, size, format) : stored;
}

/** What a media path asks for, or undefined when it is not one the mock hands out. */
export function parseMediaPath(path: string): MediaTarget | undefined {
  const m = TARGET.exec(path);
  if (!m) return undefined;
  const [, key, label, w, h, format] = m as unknown as [string, string, string, string, string, MediaFormat];
  const width = Number(w);
  const height = Number(h);
  if (!KEY.test(key) || !LABEL.test(label) || width > MAX_EDGE || height > MAX_EDGE) return undefined;
  return { key, label, width, height, format };
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** `W:H` in lowest terms. */
export function ratioOf(size: Size): string {
  const d = gcd(size.width, size.height);
  return `${size.width / d}:${size.height / d}`;
}

/** The largest size in exactly the ratio `W:H` whose long edge is at most `edge` (1:1 when none). */
export function sizeForRatio(ratio: string | null, edge: number): Size {
  const [a, b] = (ratio ?? '1:1').split(':').map(Number) as [number, number];
  const d = gcd(a, b);
  const [w, h] = [a / d, b / d];
  const scale = Math.max(1, Math.floor(edge / Math.max(w, h)));
  return { width: w * scale, height: h * scale };
}

/** A smaller size with the same ratio (as near as whole pixels allow), long edge `edge`. */
export function scaledTo(size: Size, edge: number): Size {
  const exact = sizeForRatio(ratioOf(size), edge);
  if (exact.width <= edge && exact.height <= edge && Math.max(exact.width, exact.height) >= edge / 2) return exact;
  const f = edge / Math.max(size.width, size.height);
  return { width: Math.max(1, Math.round(size.width * f)), height: Math.max(1, Math.round(size.height * f)) };
}

/** The media fields of a resource, as the contract's schemas name them. */
export interface MediaFields {
  url: string;
  thumbnailUrl: string | null;
  playerUrl: string | null;
  embedCode: string | null;
}

/**
 * The four media fields of a creative or an asset: the rendition at `size`, a small still as
 * thumbnail, and for a video the player page and an iframe of it whose width and height are in
 * the same ratio as the media (#17 item 10).
 */
export function mediaFields(origin: string, stored: { url: string; thumbnailUrl: string | null; playerUrl: string | null }, video: boolean, size: Size): MediaFields {
  const playerUrl = stored.playerUrl === null ? null : mediaUrl(origin, stored.playerUrl, size, 'html');
  return {
    url: mediaUrl(origin, stored.url, size, video ? 'webm' : 'png'),
    thumbnailUrl: stored.thumbnailUrl === null ? null : mediaUrl(origin, stored.thumbnailUrl, scaledTo(size, THUMBNAIL_EDGE), 'png'),
    playerUrl,
    embedCode: playerUrl === null ? null : embedCode(playerUrl, scaledTo(size, EMBED_EDGE)),
  };
}

/** An iframe of a player page, sized in the media's ratio. */
export function embedCode(playerUrl: string, frame: Size): string {
  return `<iframe src="${playerUrl.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}" width="${frame.width}" height="${frame.height}" frameborder="0" allow="autoplay; fullscreen" allowfullscreen></iframe>`;
}

/** The origin `http://host:port` of a bound address (an unspecified address reads as localhost). */
export function originOf(address: { address: string; port: number }): string {
  const host = address.address === '0.0.0.0' || address.address === '::' ? 'localhost' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/** A `--public-url` value reduced to its origin, or an Error saying why it is not one. */
export function parsePublicUrl(value: string): string | Error {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return new Error(`--public-url must be an absolute http(s) URL, not ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return new Error(`--public-url must be http or https, not ${url.protocol}`);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path}`;
}
