/**
 * What a proxy remembers of the exchanges it forwarded, for the few defects that depend on an
 * earlier one (ownership: who has seen which id; pagination: the last row behind a cursor; runs:
 * how often a run was polled). One per proxy, so defects never share state.
 */
import { idsIn, isEnvelope, type Json, type ProxyRequest, type ProxyResponse, bodyOf, pathOf } from './exchange.ts';

export class DefectMemory {
  /** Resource id → the Authorization values that received it in a 2xx answer. */
  private readonly seenBy = new Map<string, Set<string>>();
  /** Path → the last 2xx answer to a GET of it, and who got it. */
  private readonly lastRead = new Map<string, { authorization: string; response: ProxyResponse }>();
  /** nextCursor → the last row of the page that issued it. */
  readonly lastRowBehind = new Map<string, Json>();
  /** Authorization values that got a 2xx answer: keys that work (lapsed-plan-told-apart). */
  readonly workingKeys = new Set<string>();
  /** Preset ids seen in GET /presets answers (preset-unlisted-accepted). */
  readonly presets = new Set<string>();
  /** The read-plane account cap a 429 reported exhausted, until a read-plane 2xx (generation-counted-in-read-cap, write-counted-in-read-cap). */
  readCapExhausted: { limit: number; reset: number } | undefined;
  /** A counter for defects that make every answer differ. */
  private count = 0;

  next(): number {
    this.count += 1;
    return this.count;
  }

  /** Called with every forwarded exchange of the public API, before any defect changes the answer. */
  observe(request: ProxyRequest, response: ProxyResponse): void {
    if (response.status < 200 || response.status > 299) return;
    const authorization = request.headers['authorization'] ?? '';
    this.workingKeys.add(authorization);
    const body = bodyOf(response);
    for (const id of idsIn(body)) {
      let who = this.seenBy.get(id);
      if (!who) this.seenBy.set(id, (who = new Set()));
      who.add(authorization);
    }
    if (request.method === 'GET' && !isEnvelope(body)) this.lastRead.set(pathOf(request), { authorization, response });
    if (request.method === 'GET' && pathOf(request).endsWith('/presets') && isEnvelope(body)) {
      for (const row of body.data) if (typeof row === 'object' && row !== null && !Array.isArray(row) && typeof row['presetId'] === 'string') this.presets.add(row['presetId']);
    }
  }

  /**
   * Whether the request names (in its path) an id that another caller received and this caller
   * never did: the resource belongs to someone else, as far as the proxy can tell.
   */
  isForeign(request: ProxyRequest): boolean {
    const authorization = request.headers['authorization'] ?? '';
    return pathOf(request)
      .split('/')
      .some((segment) => {
        const who = this.seenBy.get(decodeURIComponent(segment));
        return who !== undefined && !who.has(authorization) && [...who].some((other) => other !== authorization);
      });
  }

  /** Whether the request names (in its path) an id that some caller received: the item exists. */
  exists(request: ProxyRequest): boolean {
    return pathOf(request)
      .split('/')
      .some((segment) => this.seenBy.has(decodeURIComponent(segment)));
  }

  /** The last 2xx answer to a GET of this path by another caller, if any. */
  readByOther(request: ProxyRequest): ProxyResponse | undefined {
    const last = this.lastRead.get(pathOf(request));
    return last && last.authorization !== (request.headers['authorization'] ?? '') ? last.response : undefined;
  }
}
