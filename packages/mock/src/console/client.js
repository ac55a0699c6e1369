// The console's ways to the mock: the control token, control-plane and public API requests, its read key, the documents at /docs/, and the live stream.
import { useEffect, useRef, useState } from './vendor/preact-htm.js';

const API = '/api/public/v1';
const TOKEN_KEY = 'cgs-console-control-token';
export const PAGE = 25;

// --- the control token (`--control-token`): ?token=… once, then kept for the tab --------------
{
  const params = new URLSearchParams(location.search);
  if (params.has('token')) {
    sessionStorage.setItem(TOKEN_KEY, params.get('token') ?? '');
    params.delete('token');
    history.replaceState(null, '', `${location.pathname}${params.size ? `?${params}` : ''}${location.hash}`);
  }
}
const controlHeaders = () => {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { authorization: `Bearer ${token}` } : {};
};

class Problem extends Error {
  constructor(status, body) {
    super(body && body.detail ? `${status} ${body.code ?? ''}: ${body.detail}` : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function readJson(res) {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A control-plane request (JSON in, JSON out; a problem throws). */
export async function control(method, path, body) {
  const headers = { ...controlHeaders() };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`/__mock${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await readJson(res);
  if (!res.ok) throw new Problem(res.status, data);
  return data;
}

// --- the console's read key: one per account, kept by the mock (POST /__mock/accounts/{id}/console-key, D133) ---
export const keyPromises = new Map();
function consoleKey(account) {
  if (!keyPromises.has(account.accountId)) {
    const promise = control('POST', `/accounts/${encodeURIComponent(account.accountId)}/console-key`).then((k) => k.key);
    promise.catch(() => keyPromises.delete(account.accountId));
    keyPromises.set(account.accountId, promise);
  }
  return keyPromises.get(account.accountId);
}
/** Keys whose requests are the console's own: the account's console key, and `console (read)` keys of older consoles. */
export const consoleKeyIds = (account) => new Set(account.keys.filter((k) => k.name === 'console' || k.name === 'console (read)').map((k) => k.keyId));

// --- the documents (served at /docs/): scopes, tiers, limits, event types and the API's collections come from them ---
let documents;
function loadDocuments() {
  documents ??= Promise.all([fetch('/docs/mock-control.json').then(readJson), fetch('/docs/openapi.json').then(readJson)]).then(([controlDoc, apiDoc]) => {
    const schemas = controlDoc.components.schemas;
    return {
      scopes: schemas.Scope.enum,
      tiers: schemas.PlanTier.enum,
      limits: schemas.LimitName.enum,
      eventTypes: schemas.EventType.enum,
      // The API's collections (`/products`, `/runs`...): the counts a developer's data is made of.
      collections: Object.keys(apiDoc.paths).map((p) => /^\/([a-z]+)$/.exec(p)?.[1]).filter(Boolean),
    };
  });
  return documents;
}
export function useDocuments() {
  const [docs, setDocs] = useState();
  useEffect(() => void loadDocuments().then(setDocs, () => {}), []);
  return docs;
}

/** A public API read with the account's console key: { body, etag }. */
export async function api(account, path, query = {}) {
  const key = await consoleKey(account);
  const search = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined && v !== '' && v !== null).map(([k, v]) => [k, String(v)]));
  const res = await fetch(`${API}${path}${search.size ? `?${search}` : ''}`, { headers: { authorization: `Bearer ${key}` } });
  const body = await readJson(res);
  if (!res.ok) throw new Problem(res.status, body);
  return { body, etag: res.headers.get('etag') };
}

/** Runs a public write operation's handler as another actor (POST /__mock/accounts/{id}/actions). */
export function act(accountId, actor, operationId, pathParams, body) {
  return control('POST', `/accounts/${encodeURIComponent(accountId)}/actions`, { actor: { kind: actor }, operationId, pathParams, ...(body !== undefined ? { body } : {}) });
}

// --- the live stream (GET /__mock/stream), read with fetch so that a control token can be sent ---
const bus = new EventTarget();
export function useLive(name, handler) {
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    const listener = (e) => ref.current(e.detail);
    bus.addEventListener(name, listener);
    return () => bus.removeEventListener(name, listener);
  }, [name]);
}

export function openStream(accountId, setLive) {
  const controller = new AbortController();
  let stopped = false;
  const connect = async () => {
    try {
      const res = await fetch(`/__mock/stream${accountId ? `?accountId=${encodeURIComponent(accountId)}` : ''}`, { headers: controlHeaders(), signal: controller.signal });
      if (!res.ok || !res.body) throw new Error(`stream: HTTP ${res.status}`);
      setLive(true);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event && data) bus.dispatchEvent(new CustomEvent(event, { detail: JSON.parse(data) }));
        }
      }
    } catch {
      // aborted, or the mock went away: reconnect below unless stopped
    }
    setLive(false);
    if (!stopped) setTimeout(connect, 1000);
  };
  connect();
  return () => {
    stopped = true;
    controller.abort();
  };
}
