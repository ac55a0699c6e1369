// The Requests view: the account's request journal.
import { html, useState } from '../vendor/preact-htm.js';
import { control, consoleKeyIds, useLive } from '../client.js';
import { Status, Json, when, useAsync, ErrorNote } from '../pieces.js';

export function RequestsView({ account }) {
  const id = encodeURIComponent(account.accountId);
  const [journal, reload] = useAsync(() => control('GET', `/accounts/${id}/requests?limit=50`), [id]);
  const [open, setOpen] = useState();
  const [hideOwn, setHideOwn] = useState(true);
  useLive('request', reload);
  const own = consoleKeyIds(account);
  const entries = (journal.data?.data ?? []).filter((e) => !hideOwn || !own.has(e.keyId));
  const entry = entries.find((e) => e.seq === open);
  return html`<div class="split">
    <section class="card requests" aria-labelledby="requests-h">
      <h2 id="requests-h">Requests (live)</h2>
      <p class="muted">The account's API requests, newest first (the newest ${journal.data?.capacity ?? 500} are kept; ${journal.data?.total ?? 0} so far). Also at <code>GET /__mock/accounts/${account.accountId}/requests</code>.</p>
      <label><input type="checkbox" checked=${hideOwn} onChange=${(e) => setHideOwn(e.target.checked)} /> Hide the console's own reads</label>
      <${ErrorNote} error=${journal.error} />
      <table><caption class="sr-only">Request journal</caption><thead><tr><th scope="col">#</th><th scope="col">At</th><th scope="col">Method</th><th scope="col">Path</th><th scope="col">Status</th><th scope="col">Code</th><th scope="col">Latency</th><th scope="col">RateLimit</th></tr></thead>
        <tbody>${entries.map((e) => html`<tr class="selectable" tabindex="0" aria-selected=${open === e.seq ? 'true' : 'false'} onClick=${() => setOpen(e.seq)} onKeyDown=${(k) => k.key === 'Enter' && setOpen(e.seq)}>
          <td>${e.seq}</td><td>${when(e.at)}</td><td>${e.method}</td><td class="mono path">${e.path}${Object.keys(e.query).length ? `?${new URLSearchParams(e.query)}` : ''}</td><td><${Status} value=${e.status} /></td><td>${e.code ?? '—'}</td><td>${e.latencyMs} ms</td><td class="mono">${e.rateLimit.limit ?? '—'}</td></tr>`)}</tbody></table>
    </section>
    <section class="card" aria-labelledby="request-h">
      <h2 id="request-h">${entry ? `${entry.method} ${entry.path}` : 'Select a request'}</h2>
      ${entry && html`<dl class="facts"><dt>Request id</dt><dd class="mono">${entry.requestId}</dd><dt>Key</dt><dd class="mono">${entry.keyId ?? '—'}</dd><dt>RateLimit-Policy</dt><dd class="mono">${entry.rateLimit.policy ?? '—'}</dd><dt>Retry-After</dt><dd>${entry.rateLimit.retryAfter ?? '—'}</dd></dl>
        <h3>Request headers</h3><${Json} value=${entry.request.headers} label="Request headers" />
        <h3>Request body${entry.request.truncated ? ' (cut)' : ''}</h3><${Json} value=${entry.request.body ?? '(none)'} label="Request body" />
        <h3>Response headers</h3><${Json} value=${entry.response.headers} label="Response headers" />
        <h3>Response body${entry.response.truncated ? ' (cut)' : ''}</h3><${Json} value=${entry.response.body} label="Response body" />`}
    </section>
  </div>`;
}
