/**
 * The media on the node:http server (the node adapter of packages/mock-core/src/media/serve.ts): the committed clips
 * read from their files, and the listener that answers /media/ with `answerMedia`.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerMedia, clipNameFor, isMediaTarget, type MediaService } from './serve.ts';

const clipBytes = new Map<string, Buffer>();

/** A committed clip by name (packages/mock-core/src/media/clips/<name>.webm), read once. */
export function clipFile(name: string): Buffer {
  let bytes = clipBytes.get(name);
  if (!bytes) {
    bytes = readFileSync(new URL(`./clips/${name}.webm`, import.meta.url));
    clipBytes.set(name, bytes);
  }
  return bytes;
}

/** The committed clip whose ratio is nearest W:H (the same ratio for every delivery ratio). */
export function clipFor(width: number, height: number): { name: string; bytes: Buffer } {
  const name = clipNameFor(width, height);
  return { name, bytes: clipFile(name) };
}

/**
 * The listener for /media/: answers and returns true, or returns false and leaves the request to
 * the next listener. `failed` answers a failure to produce bytes (a bug: the node adapter logs it and
 * answers 500 problem+json).
 */
export function mediaListener(media: MediaService, failed: (req: IncomingMessage, res: ServerResponse, error: unknown) => void): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const url = req.url ?? '/';
    if (!isMediaTarget(url)) return false;
    const path = url.split('?')[0]!;
    const method = req.method ?? 'GET';
    // A failure to write the answer too (`.catch` after `.then`): never an unhandled rejection.
    answerMedia(media, method, path, req.headers['if-none-match'])
      .then((answer) => {
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      })
      .catch((error: unknown) => failed(req, res, error));
    return true;
  };
}
